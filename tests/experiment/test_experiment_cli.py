"""``bocvs experiment``: new, ask (and ``--json``), tell, status, plot, export and simulate."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from bocvs_env.benchmark.cli import main

OBJECTIVE = '''
def process(values, controlled):
    """Peaks at temperature 62, flow 3 and pH 6.5; each controlled variable costs 1 more."""
    t, f, p = values["temperature"], values["flow"], values["ph"]
    return 1.0 - ((t - 62) / 60) ** 2 - ((f - 3) / 9) ** 2 - ((p - 6.5) / 5) ** 2, 1.0 + len(controlled)
'''


def _ask(journal: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["experiment", "ask", str(journal), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_round_by_command(
    process_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "run.journal"
    assert (
        main(
            ["experiment", "new", str(journal), "--problem", str(process_file), "--agent", "random"]
        )
        == 0
    )
    assert "budget 20" in capsys.readouterr().out
    assert main(["experiment", "ask", str(journal)]) == 0
    text = capsys.readouterr().out
    s = _ask(journal, capsys)  # the pending suggestion again
    assert f"suggestion {s['number']}: control" in text and "then: bocvs experiment tell" in text
    for name, value in s["set_values"].items():
        assert f"set {name} = {value:.6g}" in text
    measured = [
        f"{n}={5.0 if n == 'ph' else 50.0 if n == 'temperature' else 3.0}"
        for n in s["leave_random"]
    ]
    argv = ["experiment", "tell", str(journal), "--y", "0.4", "--cost", "1.5"]
    assert main(argv + (["--measured", *measured] if measured else [])) == 0
    assert "told 1: spent 1.5, left 18.5" in capsys.readouterr().out
    assert _ask(journal, capsys)["number"] == 2
    assert main(["experiment", "status", str(journal)]) == 0
    assert (
        "budget 20: spent 1.5, left 18.5 (1 answers; suggestion 2 pending"
        in capsys.readouterr().out
    )
    out = tmp_path / "history.csv"
    assert main(["experiment", "export", str(journal), "--out", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["number"] for r in rows] == ["1", "2"] and rows[0]["y"] == "0.4"
    assert rows[1]["pending"] == "True"
    assert main(["experiment", "plot", str(journal), "--out", str(tmp_path / "p.png")]) == 0
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_bad_tell_exits_2_with_one_line(
    process_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "run.journal"
    main(["experiment", "new", str(journal), "--problem", str(process_file), "--agent", "random"])
    capsys.readouterr()
    assert main(["experiment", "tell", str(journal), "--y", "1", "--cost", "1"]) == 2
    err = capsys.readouterr().err
    assert err == "bocvs experiment: error: no suggestion is pending: ask first\n"
    s = _ask(journal, capsys)
    assert main(["experiment", "tell", str(journal), "--y", "nan", "--cost", "1"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert _ask(journal, capsys)["number"] == s["number"]  # nothing was told


def test_simulate_a_problem_file_with_an_objective(
    process_file: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "my_process.py").write_text(OBJECTIVE)
    monkeypatch.syspath_prepend(str(tmp_path))
    journal = tmp_path / "sim.journal"
    argv = ["experiment", "simulate", str(process_file), "--objective", "my_process:process"]
    assert main([*argv, "--agent", "random", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "answers told" in out and "belief of i*" in out and "; done;" in out
    assert _ask(journal, capsys)["done"] is True


def test_simulate_needs_an_objective_for_a_problem_file(
    process_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["experiment", "simulate", str(process_file)]) == 2
    assert "needs --objective module:function" in capsys.readouterr().err


def test_simulate_a_builtin_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "h3.journal"
    argv = ["experiment", "simulate", "hartmann3", "--agent", "random", "--option", "budget=3"]
    assert main([*argv, "--journal", str(journal)]) == 0
    assert "budget 3: spent" in capsys.readouterr().out
