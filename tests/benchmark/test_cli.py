"""The ``bocvs`` command end to end on a tiny sweep, and its errors: each one line naming the\nfile, the run or the option, exit status 2, nothing stored changed."""

from __future__ import annotations

import errno
import io
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from bench_helpers import sweep_seeds

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.progress import progress_mode
from bocvs_env.benchmark.store import ResultStore

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


def test_a_sweep_runs_in_fast_numerics_unless_it_or_the_user_asks_otherwise(
    ran: tuple[Path, str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pinned kernels cost CPU, so only a sweep that asks (a published one) pays for them."""
    with ResultStore(ran[0], readonly=True) as store:
        assert {r.provenance["numerics"] for r in store.runs()} == {"fast"}
    monkeypatch.delenv("BOCVS_NUMERICS", raising=False)
    config = tmp_path / "pinned.toml"
    config.write_text('problems = ["hartmann3"]\nbudgets = [3]\nnumerics = "reproducible"\n')
    argv = ["run", "--config", str(config), "--workers", "1", "--no-plot", "-q"]
    assert main([*argv, "--store", str(tmp_path / "a.db")]) == 0
    assert main([*argv, "--store", str(tmp_path / "b.db"), "--numerics", "fast"]) == 0
    for name, mode in (("a.db", "reproducible"), ("b.db", "fast")):
        with ResultStore(tmp_path / name, readonly=True) as store:
            assert [r.provenance["numerics"] for r in store.runs()] == [mode]


def test_a_preset_runs_into_its_own_store_beside_the_users_sweeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The presets ask for reproducible numerics and a store holds one mode: without --store
    the README's main job and a sweep of one's own, in either order, both run."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BOCVS_NUMERICS", raising=False)
    small = ["--problems", "hartmann3", "--budgets", "3", "--agents", "random", "--seeds", "1"]
    options = ["--workers", "1", "--no-plot", "-q"]
    assert main(["run", "--preset", "quick", *small, *options]) == 0
    assert main(["run", *small, *options]) == 0
    for name, mode in (("quick.db", "reproducible"), ("bocvs.db", "fast")):
        with ResultStore(Path("results") / name, readonly=True) as store:
            assert [r.provenance["numerics"] for r in store.runs()] == [mode]


@pytest.mark.parametrize("sweep", [[*SWEEP, "--name", "tiny"], ["--sweep", "tiny"]])
def test_run_again_skips_everything(ran: tuple[Path, str, str], capsys, sweep) -> None:
    store, _, _ = ran
    assert main(["run", *sweep, "--store", str(store), "--no-plot"]) == 0
    captured = capsys.readouterr()
    assert "2 already in the store" in captured.err and "recorded 0 runs" in captured.err


def test_without_matplotlib_run_prints_its_table_and_names_the_plot_extra(
    ran: tuple[Path, str, str],
) -> None:
    """A user who installed the package without the ``plot`` extra still gets the runs and the
    table; the plots (unless ``--no-plot``) end in one line saying how to get them. In a process
    of its own, where matplotlib cannot be imported."""
    store = str(ran[0])
    script = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from bocvs_env.benchmark.cli import main\n"
        "sys.exit(main(sys.argv[1:]))"
    )

    def bocvs(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-c", script, *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    no_plot = bocvs("run", "--sweep", "tiny", "--store", store, "--no-plot")
    assert no_plot.returncode == 0 and "| random | 2 |" in no_plot.stdout
    plotted = bocvs("run", "--sweep", "tiny", "--store", store)
    assert plotted.returncode == 2 and "| random | 2 |" in plotted.stdout
    expected = (
        'bocvs run: error: plots need matplotlib: pip install "bocvs[plot]" (or pass --no-plot)'
    )
    assert plotted.stderr.splitlines()[-1] == expected
    assert "plots need matplotlib" in bocvs("plot", "--sweep", "tiny", "--store", store).stderr


def test_status_table_plot_export(ran: tuple[Path, str, str], tmp_path: Path, capsys) -> None:
    store = str(ran[0])
    assert main(["status", "--store", store]) == 0
    out = capsys.readouterr().out
    assert "sweep 'tiny': 2 / 2 done" in out and "read-only" not in out  # status only reads
    assert main(["status", "--store", store, *SWEEP, "--seeds", "3"]) == 0
    assert "2 / 3 done" in capsys.readouterr().out
    assert main(["table", "--store", store, "--sweep", "tiny"]) == 0
    assert "| random | 2 |" in capsys.readouterr().out
    assert main(["plot", "--store", store, "--out", str(tmp_path / "p")]) == 0
    assert len(list((tmp_path / "p").glob("*.png"))) == 4
    out = tmp_path / "steps.csv"
    assert main(["export", "--store", store, "--out", str(out), "--level", "steps"]) == 0
    assert set(pd.read_csv(out)["seed"]) == {0, 1}


def test_seeds_by_range_select_a_slice_of_a_sweep(ran: tuple[Path, str, str], capsys) -> None:
    """A range resumes a sweep seed by seed: ``1-1`` is seed 1 alone, ``0,2-3`` three seeds."""
    store = str(ran[0])  # seeds 0 and 1 of the tiny sweep are stored
    assert main(["status", "--store", store, *SWEEP, "--seeds", "1-1"]) == 0
    assert "1 / 1 done" in capsys.readouterr().out
    assert main(["status", "--store", store, *SWEEP, "--seeds", "0,2-3"]) == 0
    assert "1 / 3 done" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["status", "--store", store, *SWEEP, "--seeds", "3-1"])
    assert "a range such as 5-9, got '3-1'" in capsys.readouterr().err


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


def _one_error_line(capsys, command: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(f"bocvs {command}: error: ") and err.count("\n") == 1, err
    return err


def test_read_only_store_reads_and_says_when_it_cannot_write(
    ran: tuple[Path, str, str], tmp_path: Path, capsys, read_only
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    shutil.copy(ran[0], folder / "s.db")
    view = read_only(folder)
    store = str(view / "s.db")
    before = (view / "s.db").read_bytes()
    assert main(["status", "--store", store]) == 0
    out = capsys.readouterr().out
    assert "2 runs (read-only here" in out and "sweep 'tiny': 2 / 2 done" in out
    assert main(["table", "--store", store]) == 0
    assert "| random | 2 |" in capsys.readouterr().out
    assert main(["export", "--store", store, "--out", str(tmp_path / "r.csv")]) == 0
    assert main(["plot", "--store", store, "--out", str(tmp_path / "p")]) == 0
    capsys.readouterr()
    assert main(["plot", "--store", store]) == 2  # beside the store: a read-only folder
    assert str(view / "all") in _one_error_line(capsys, "plot")
    assert main(["run", "--sweep", "tiny", "--seeds", "3", "--store", store, "--no-plot"]) == 2
    assert "read-only" in _one_error_line(capsys, "run")
    assert sorted(p.name for p in view.iterdir()) == ["s.db"]
    assert (view / "s.db").read_bytes() == before


def test_a_damaged_row_ends_in_one_line_naming_the_run(
    ran: tuple[Path, str, str], tmp_path: Path, capsys
) -> None:
    store = tmp_path / "s.db"
    shutil.copy(ran[0], store)
    conn = sqlite3.connect(store)
    key = conn.execute("SELECT config_key FROM runs ORDER BY id LIMIT 1").fetchone()[0]
    conn.execute("UPDATE runs SET config = '{\"seed\": ' WHERE config_key = ?", (key,))
    conn.commit()
    conn.close()
    before = store.read_bytes()
    for command in (["table"], ["export", "--out", str(tmp_path / "x.csv")]):
        assert main([*command, "--store", str(store)]) == 2
        assert f"{store}: the row of run {key} is damaged" in _one_error_line(capsys, command[0])
    assert store.read_bytes() == before


@pytest.mark.parametrize("errno_", [errno.ENOSPC, errno.EACCES])
def test_os_errors_end_in_one_line_naming_the_file(
    ran: tuple[Path, str, str], tmp_path: Path, capsys, monkeypatch, errno_: int
) -> None:
    target = tmp_path / "p" / "simple_regret.png"

    def fail(*_: object) -> None:
        raise OSError(errno_, os.strerror(errno_), str(target))

    monkeypatch.setattr("bocvs_env.benchmark.plots.save_figures", fail)
    assert main(["plot", "--store", str(ran[0]), "--out", str(tmp_path / "p")]) == 2
    assert f"{target}: {os.strerror(errno_)}" in _one_error_line(capsys, "plot")


def test_flag_built_sweeps_never_replace_each_other(
    ran: tuple[Path, str, str], tmp_path: Path, capsys
) -> None:
    store = tmp_path / "s.db"
    shutil.copy(ran[0], store)
    one = ["--problems", "hartmann3", "--budgets", "3", "--seeds", "1", "--no-plot"]
    two = ["--problems", "hartmann3", "--budgets", "3", "--seeds", "2", "--no-plot"]
    for flags in (one, two, one):
        assert main(["run", *flags, "--store", str(store), "--workers", "1"]) == 0
    with ResultStore(store, readonly=True) as s:
        sweeps = s.sweeps()
    names = sorted(n for n in sweeps if n.startswith("cli-"))
    assert len(names) == 2 and sorted(len(sweep_seeds(sweeps[n])) for n in names) == [1, 2]
    capsys.readouterr()
    assert main(["run", *one, "--name", "tiny", "--store", str(store)]) == 2
    assert "already holds a different sweep named 'tiny'" in _one_error_line(capsys, "run")
    with ResultStore(store, readonly=True) as s:
        assert s.sweeps()["tiny"].seeds == (0, 1)


@pytest.mark.parametrize("name", ["../outside", str(Path("/tmp") / "absolute")])
def test_a_sweep_name_is_never_a_path(
    ran: tuple[Path, str, str], tmp_path: Path, capsys, name: str
) -> None:
    store = tmp_path / "store" / "s.db"
    assert main(["run", *SWEEP, "--name", name, "--store", str(store)]) == 2
    assert "never a path" in _one_error_line(capsys, "run")
    assert not (tmp_path / "outside").exists() and not store.exists()


def test_a_missing_data_file_ends_in_one_line_before_the_store_exists(
    tmp_path: Path, capsys
) -> None:
    config = tmp_path / "plant.toml"
    config.write_text(f'problems = ["plant"]\n[problem_options]\ndata_dir = "{tmp_path}"\n')
    store = tmp_path / "s.db"
    assert main(["run", "--config", str(config), "--store", str(store)]) == 2
    assert "plant_svgp.npz" in _one_error_line(capsys, "run")
    assert not store.exists()


@pytest.mark.parametrize("workers", ["0", "-1", "two"])
def test_bad_workers_end_in_one_line_before_the_store_exists(
    tmp_path: Path, capsys, workers: str
) -> None:
    store = tmp_path / "s.db"
    with pytest.raises(SystemExit) as stop:
        main(["run", "--preset", "quick", "--workers", workers, "--store", str(store)])
    assert stop.value.code == 2 and not store.exists()
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("bocvs run: error: argument --workers:") and workers in err


def test_a_closed_pipe_ends_quietly_as_unix_tools_do(ran: tuple[Path, str, str]) -> None:
    """``bocvs table | head -n 1``: the reader leaves early; no traceback, no error line, and
    the exit status says SIGPIPE (141), as for other Unix tools."""
    store, _, _ = ran
    code = (
        "import sys\n"
        "from bocvs_env.benchmark import cli\n"
        "def many(args):\n"
        "    for _ in range(200_000):\n"
        "        print('row ' * 20)\n"
        "    return 0\n"
        "cli._cmd_table = many  # the parser is built in main, after this\n"
        f"sys.exit(cli.main(['table', '--store', {str(store)!r}]))\n"
    )
    python = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    shell = f"{python} | head -n 1; echo status=${{PIPESTATUS[0]}} >&2"
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=300)
    assert done.stdout.startswith("row "), done.stderr
    assert done.stderr.strip() == "status=141", done.stderr


def test_run_ends_with_the_comparison_with_published_baselines(
    ran: tuple[Path, str, str], two_agent_store: Path, tmp_path: Path, capsys
) -> None:
    """``run --baselines FOLDER`` ends with the sweep's agents against the folder's; a folder
    that is not a published one fails before the store is created."""
    data = tmp_path / "data"
    assert main(["publish", "--store", str(two_agent_store), "--out", str(data)]) == 0
    store = tmp_path / "s.db"
    shutil.copy(ran[0], store)
    capsys.readouterr()
    argv = ["run", *SWEEP, "--name", "tiny", "--store", str(store), "--no-plot", "-q"]
    assert main([*argv, "--baselines", str(data)]) == 0
    out = capsys.readouterr().out
    assert "| random | 2 |" in out  # the table, then the comparison
    assert "; baselines: ccccccc (numpy " in out and "| random | etc@ccccccc | 2 |" in out
    new = tmp_path / "new.db"
    assert main([*argv[:-4], "--store", str(new), "--baselines", str(tmp_path / "none")]) == 2
    assert "is not a published folder" in capsys.readouterr().err and not new.exists()


def test_run_help_lists_the_problem_names_beside_their_ids(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "  hartmann6_12d " in out and "bocvs/Hartmann6in12D-v1" in out
    assert "cost sets cheap, moderate, expensive" in out and "(0, 1/12)" in out
    # the axes a sweep from flags leaves out: what it runs then
    flat = " ".join(out.split())
    assert "(default cheap;" in flat and "(default 0.02)" in flat
    assert "default results/bocvs.db; with --preset NAME, results/NAME.db" in flat


def test_run_says_lower_is_better_and_ends_with_a_takeaway(
    ran: tuple[Path, str, str], tmp_path: Path, capsys
) -> None:
    store = tmp_path / "s.db"
    shutil.copy(ran[0], store)
    argv = ["run", *SWEEP[:-4], "--agents", "random", "random@twin", "--seeds", "2"]
    assert main([*argv, "--store", str(store), "--no-plot", "-q", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "final simple regret (mean ± SE, lower is better)" in out
    assert "set 0 {x0}" in out and " i* spend %" in out  # sets named by their variables
    (line,) = [x for x in out.splitlines() if x.startswith("Takeaway, hartmann3 · cheap")]
    assert "random ends lowest (final simple regret " in line  # the twin plays the same
    assert "0 below random@twin (paired 95% interval [0, 0]: tie)." in line
