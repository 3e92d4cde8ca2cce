"""The ``bocvs`` command end to end on a tiny sweep, and its errors."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.progress import progress_mode

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
    assert "tiny: 2/2 runs, done hartmann3/" in err  # a plain progress line per finished run
    assert "± is one standard error" in out
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
    assert "2 already in the store" in captured.err and "recorded 0 runs" in captured.err


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


def test_log_of_a_run_has_no_escape_codes(ran: tuple[Path, str, str]) -> None:
    """Output to a file or pipe (not a terminal) is plain lines: no cursor codes from bars."""
    _, out, err = ran
    assert "\x1b[" not in out and "\x1b[" not in err and "\r" not in err


def test_quiet_run_prints_only_results(ran: tuple[Path, str, str], capsys) -> None:
    store, _, _ = ran
    assert main(["run", "--sweep", "tiny", "--store", str(store), "--no-plot", "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "| random | 2 |" in captured.out


def test_progress_is_bars_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert progress_mode(quiet=False, stream=Terminal()) == "bars"
    assert progress_mode(quiet=False, stream=io.StringIO()) == "lines"
    assert progress_mode(quiet=True, stream=Terminal()) == "quiet"


def test_help_lists_exit_codes_and_does_not_import_torch() -> None:
    """``bocvs --help`` answers without loading torch (which takes seconds)."""
    code = (
        "import sys, contextlib, io\n"
        "from bocvs_env.benchmark.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "print('torch' in sys.modules, 'exit status' in out.getvalue())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "True"], done.stderr
