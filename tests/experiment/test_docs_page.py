"""The worked example of docs/own-process.md runs as printed: its problem file and CSV are the
tests' (tests/experiment/data), and every command it shows with its output prints that output,
run in order in a fresh folder: the same text and short numbers (counts, the costs told and
their sums, bounds), and the figures of four or more significant digits (the agent's suggested
values, the GP's expectations and intervals: floating results that may differ in their last
digit on another CPU) within a relative 1e-3. (Its Python block runs with the other pages' blocks,
tests/test_readme.py.)"""

from __future__ import annotations

import math
import re
import shlex
import shutil
from pathlib import Path

import pytest

from bocvs_env.benchmark.cli import main

DATA = Path(__file__).parent / "data"
PAGE = Path(__file__).resolve().parents[2] / "docs" / "own-process.md"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```$", PAGE.read_text(), re.DOTALL | re.MULTILINE)


def _commands() -> list[tuple[str, str]]:
    """Every ``$ command`` of the page's console blocks with the output shown under it."""
    out: list[tuple[str, str]] = []
    for block in _blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, _, shown = chunk.partition("\n")
            out.append((command, shown.rstrip("\n")))
    return out


#: A number as the commands print it.
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _significant(number: str) -> int:
    """The significant digits of a printed number."""
    return len(number.split("e")[0].lstrip("-").replace(".", "").lstrip("0"))


def _same_output(printed: str, shown: str) -> bool:
    """Whether ``printed`` is the page's ``shown``: the same text around the numbers, short
    numbers equal, numbers of four or more significant digits within a relative 1e-3."""
    if NUMBER.sub("#", printed) != NUMBER.sub("#", shown):
        return False
    for got, want in zip(NUMBER.findall(printed), NUMBER.findall(shown), strict=True):
        if _significant(want) < 4:
            if got != want:
                return False
        elif not math.isclose(float(got), float(want), rel_tol=1e-3, abs_tol=1e-6):
            return False
    return True


def test_outputs_compare_by_text_and_figures() -> None:
    assert _same_output("set flow = 5.50112, spent 17.4", "set flow = 5.50109, spent 17.4")
    assert not _same_output("set flow = 5.512, spent 17.4", "set flow = 5.50109, spent 17.4")
    assert not _same_output("set flow = 5.50109, spent 17.5", "set flow = 5.50109, spent 17.4")
    assert not _same_output("set ph = 5.50109, spent 17.4", "set flow = 5.50109, spent 17.4")
    assert not _same_output("told 1", "told 1 2")


def test_the_page_shows_the_tests_problem_file() -> None:
    assert _blocks("toml") == [(DATA / "process.toml").read_text()]
    assert _blocks("text") == [(DATA / "flow.csv").read_text()]


def test_the_worked_example_prints_what_the_page_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("process.toml", "flow.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    shown = [(c, o) for c, o in _commands() if o]  # those the page shows with their output
    assert sum(" tell " in c for c, _ in shown) == 5 and any(" status " in c for c, _ in shown)
    for command, output in shown:
        argv = shlex.split(command)
        assert argv[0] == "bocvs"
        assert main(argv[1:]) == 0, command
        printed = capsys.readouterr().out.rstrip("\n")
        assert _same_output(printed, output), (command, printed)
    assert (tmp_path / "run.png").is_file()
