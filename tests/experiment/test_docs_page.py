"""The worked example of docs/own-process.md runs as printed: its problem file and CSV are the
tests' (tests/experiment/data), and every command it shows with its output prints exactly that
output, run in order in a fresh folder. (Its Python block runs with the other pages' blocks,
tests/test_readme.py.)"""

from __future__ import annotations

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
        assert capsys.readouterr().out.rstrip("\n") == output, command
    assert (tmp_path / "run.png").is_file()
