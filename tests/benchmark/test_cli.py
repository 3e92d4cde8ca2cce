"""The ``bocvs`` command end to end on a tiny sweep, and its errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bocvs_env.benchmark.cli import main

SWEEP = ["--problems", "hartmann3", "--budgets", "3", "--agents", "random", "--seeds", "2"]


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory, tiny_results) -> tuple[Path, str, str]:
    """``python -m bocvs_env.benchmark run`` of a tiny sweep: its store, stdout and stderr."""
    where = tmp_path_factory.mktemp("cli")
    cmd = [sys.executable, "-m", "bocvs_env.benchmark", "run", *SWEEP, "--name", "tiny"]
    cmd += ["--store", str(where / "s.db"), "--workers", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=where, timeout=300)
    assert done.returncode == 0, done.stderr
    return where / "s.db", done.stdout, done.stderr


def test_run_prints_progress_table_and_plot_path(ran: tuple[Path, str, str]) -> None:
    store, out, err = ran
    assert "sweep 'tiny': 2 runs, 0 already in" in err
    assert "2/2" in err  # the sweep's progress bar
    assert "### hartmann3 · cheap · var 0.02 · C=3" in out
    assert "| random | 2 |" in out
    plot = Path(out.split("plot: ")[1].splitlines()[0])
    assert plot == store.parent / "tiny" / "simple_regret.png"
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("sweep", [[*SWEEP, "--name", "tiny"], ["--sweep", "tiny"]])
def test_run_again_skips_everything(ran: tuple[Path, str, str], capsys, sweep) -> None:
    store, _, _ = ran
    assert main(["run", *sweep, "--store", str(store), "--no-plot"]) == 0
    captured = capsys.readouterr()
    assert "2 already in" in captured.err and "recorded 0 runs" in captured.err


def test_status_table_plot_export(ran: tuple[Path, str, str], tmp_path: Path, capsys) -> None:
    store = str(ran[0])
    assert main(["status", "--store", store]) == 0
    assert "sweep 'tiny': 2 / 2 done" in capsys.readouterr().out
    assert main(["status", "--store", store, *SWEEP, "--seeds", "3"]) == 0
    assert "2 / 3 done" in capsys.readouterr().out
    assert main(["table", "--store", store, "--sweep", "tiny"]) == 0
    assert "| random | 2 |" in capsys.readouterr().out
    assert main(["plot", "--store", store, "--out", str(tmp_path / "p")]) == 0
    assert len(list((tmp_path / "p").glob("*.png"))) == 4
    out = tmp_path / "steps.csv"
    assert main(["export", "--store", store, "--out", str(out), "--level", "steps"]) == 0
    assert set(pd.read_csv(out)["seed"]) == {0, 1}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--store", "{store}"], "needs a sweep"),
        (["run", "--agents", "random", "--store", "{store}"], "needs --problems"),
        (["run", "--preset", "quick", "--config", "x.toml", "--store", "{store}"], "at most one"),
        (["run", *SWEEP, "--agents", "ghost", "--store", "{tmp}/new.db"], "unregistered agents"),
        (["table", "--store", "{store}", "--sweep", "nope"], "no sweep 'nope'"),
        (["status", "--store", "{tmp}/missing.db"], "no result store"),
        (["export", "--store", "{store}", "--out", "{tmp}/x.xlsx"], ".csv or .parquet"),
        (["table", "--store", "{tmp}/junk.db"], "not an SQLite database"),
    ],
)
def test_errors_are_clear(
    ran: tuple[Path, str, str], tmp_path: Path, capsys, argv: list[str], message: str
) -> None:
    (tmp_path / "junk.db").write_bytes(b"junk" * 100)
    argv = [a.format(store=ran[0], tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bocvs {argv[0]}: error:") and message in err
    assert not (tmp_path / "missing.db").exists() and not (tmp_path / "new.db").exists()
