"""Fault injection: sweeps run as a user runs them (``python -m bocvs_env.benchmark run``), hit
by ``kill -9`` of their whole process group at 20 moments (two of them fixed: while the store is
being created and right after a commit), a store that fills up, a worker that dies, a second
sweep on the same store and a read-only store. Each time: no run lost, duplicated or partial,
no process or file left behind, and once resumed the store holds the same records as a clean
sweep (timing fields aside)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bocvs_env.benchmark.store import ResultStore

pytestmark = pytest.mark.slow

N_RUNS = 12
CONFIG = """
problems = ["hartmann3"]
cost_sets = ["cheap"]
budgets = [4]
agents = ["random"]
seeds = {seeds}
"""
#: Provenance fields that differ between two runs of the same configuration.
_TIMING = ("started_at", "finished_at", "wall_s", "cpu_s")

#: Runs the CLI with one fault injected into the driver: ``creation`` kills the process group
#: once the new store is built, before it is linked into place; ``commit`` kills it right after
#: the first run is committed; ``full`` caps the store a few pages above its size, as a full
#: disk would (SQLite's own SQLITE_FULL).
_INJECT = """
import os, signal, sys
from bocvs_env.benchmark import cli, store

def die(*_):
    os.killpg(os.getpgrp(), signal.SIGKILL)

point, argv = sys.argv[1], sys.argv[2:]
if point == "creation":
    store.os.link = die
elif point == "commit":
    add = store.ResultStore.add
    store.ResultStore.add = lambda self, *a, **k: (add(self, *a, **k), die())[0]
elif point == "full":
    connect = store._connect_writable

    def capped(path, timeout):
        conn = connect(path, timeout)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages + 4}")
        return conn

    store._connect_writable = capped
sys.exit(cli.main(argv))
"""


def _config(folder: Path, name: str, seeds: Any) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(CONFIG.format(seeds=json.dumps(seeds)))
    return path


def _start(config: Path, store: Path, inject: str | None = None, workers: int = 2):
    args = ["run", "--config", str(config), "--store", str(store), "--no-plot"]
    args += ["--workers", str(workers)]
    head = ["-c", _INJECT, inject] if inject else ["-m", "bocvs_env.benchmark"]
    return subprocess.Popen(
        [sys.executable, *head, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job would be
    )


def _finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str]:
    _, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


def _kill_group(proc: subprocess.Popen) -> None:
    """``kill -9`` of the whole process group, then wait until every process has gone."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()
    assert _group_ends(proc.pid, timeout=30), "processes of the sweep outlived the kill"


def _group_ends(pgid: int, timeout: float) -> bool:
    """Whether every process of the group has exited within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _rows(store: Path) -> dict[str, dict[str, Any]]:
    """Every run's row by key, without its id, recording time and timing provenance."""
    conn = sqlite3.connect(store)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA query_only = ON")
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = [dict(r) for r in conn.execute("SELECT * FROM runs")]
    finally:
        conn.close()
    out = {}
    for row in rows:
        for column in ("id", "recorded_at", "sweep"):
            del row[column]
        provenance = json.loads(row.pop("provenance"))
        for field in (*_TIMING, "sweep"):
            provenance.pop(field)
        row["provenance"] = provenance
        assert row["config_key"] not in out, "a duplicated run"
        out[row["config_key"]] = row
    return out


def _check_whole(store: Path) -> set[str]:
    """The store's runs after a fault: each one complete and readable; their keys."""
    if not store.exists():
        return set()
    with ResultStore(store, readonly=True) as s:
        runs = s.runs(diagnostics=True)
    for run in runs:
        rec = run.record
        assert rec.n_evaluations > 0 and rec.x.shape == (rec.n_evaluations, 3)
        assert rec.y.shape == rec.cost.shape == rec.g.shape == (rec.n_evaluations,)
    return {r.key for r in runs}


def _leftovers(folder: Path, keep: set[str]) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, tiny_results) -> tuple[Path, dict, float]:
    """The sweep run once without faults: its config, its rows and how long it took."""
    folder = tmp_path_factory.mktemp("clean")
    config = _config(folder, "faults", N_RUNS)
    t0 = time.monotonic()
    code, err = _finish(_start(config, folder / "clean.db"))
    assert code == 0, err
    rows = _rows(folder / "clean.db")
    assert len(rows) == N_RUNS
    return config, rows, time.monotonic() - t0


def test_twenty_kills_lose_nothing_and_the_resumed_store_equals_a_clean_one(
    clean: tuple[Path, dict, float], tmp_path: Path
) -> None:
    config, reference, duration = clean
    store = tmp_path / "killed.db"
    rng = np.random.default_rng(20)
    done: set[str] = set()
    progress = []
    for inject in ["creation", "commit", *[None] * 18]:
        victim = _start(config, store, inject)
        if inject is None:  # a random moment, over what is left of the sweep
            left = 1 - len(done) / N_RUNS
            time.sleep(rng.uniform(0, duration * max(left, 0.2)))
        else:
            assert victim.wait(timeout=300) == -signal.SIGKILL
        _kill_group(victim)
        if inject == "creation":  # killed between building the store and linking it
            assert not store.exists() and _leftovers(tmp_path, set())[0].startswith(".killed.db.")
        now = _check_whole(store)
        assert done <= now, "a recorded run was lost"
        assert len(now) >= len(done) + (inject == "commit")
        done = now
        progress.append(len(done))
    assert sum(0 < n < N_RUNS for n in progress) >= 3, progress  # kills landed mid-sweep
    code, err = _finish(_start(config, store))
    assert code == 0, err
    assert _rows(store) == reference
    assert _leftovers(tmp_path, {"killed.db"}) == []


def test_a_full_store_stops_the_sweep_in_one_line_and_it_resumes(
    clean: tuple[Path, dict, float], tmp_path: Path
) -> None:
    config, reference, _ = clean
    store = tmp_path / "full.db"
    proc = _start(config, store, "full")
    code, err = _finish(proc)
    assert code == 2, err
    line = err.splitlines()[-1]
    assert line.startswith("bocvs run: error: cannot record run ") and "full" in line
    assert str(store) in line and "resume" in line
    assert _group_ends(proc.pid, timeout=30)
    kept = _check_whole(store)
    assert 0 < len(kept) < N_RUNS
    code, err = _finish(_start(config, store))
    assert code == 0, err
    assert f"{len(kept)} already in" in err
    assert _rows(store) == reference
    assert _leftovers(tmp_path, {"full.db"}) == []


def _workers(driver: int) -> list[int]:
    """The driver's worker processes (``multiprocessing`` spawned children)."""
    children = Path(f"/proc/{driver}/task/{driver}/children").read_text().split()
    return [
        int(pid)
        for pid in children
        if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
        and b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]


def _wait_for(predicate: Callable[[], bool], proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 300
    while not predicate():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {what} in five minutes"
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_a_dead_worker_costs_no_run(clean: tuple[Path, dict, float], tmp_path: Path) -> None:
    config, reference, _ = clean
    store = tmp_path / "worker.db"
    proc = _start(config, store)
    try:
        _wait_for(lambda: len(_check_whole(store)) >= 2, proc, "recorded run")
        workers = _workers(proc.pid)
        assert workers, "no worker to kill"
        os.kill(workers[0], signal.SIGKILL)  # as the kernel's out-of-memory killer would
        code, err = _finish(proc)
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    assert code == 0, err
    assert _rows(store) == reference
    with ResultStore(store, readonly=True) as s:
        assert s.failures() == []
    assert _group_ends(proc.pid, timeout=30)
    assert _leftovers(tmp_path, {"worker.db"}) == []


def test_two_sweeps_on_one_store(clean: tuple[Path, dict, float], tmp_path: Path) -> None:
    """Two overlapping sweeps at once: every run once, the shared ones computed by one of
    them, and both sweeps recorded."""
    _, reference, _ = clean
    half = N_RUNS // 2
    first = _config(tmp_path, "first", list(range(0, half + 2)))
    second = _config(tmp_path, "second", list(range(half - 2, N_RUNS)))
    store = tmp_path / "shared.db"
    procs = [_start(first, store, workers=1), _start(second, store, workers=1)]
    for proc in procs:
        code, err = _finish(proc)
        assert code == 0, err
    assert _rows(store) == reference
    with ResultStore(store, readonly=True) as s:
        assert set(s.sweeps()) == {"first", "second"}
    assert _leftovers(tmp_path, {"shared.db", "first.toml", "second.toml"}) == []


def test_a_read_only_store_is_read_and_left_alone(
    clean: tuple[Path, dict, float], tmp_path: Path, read_only
) -> None:
    """A sweep killed mid-way, its folder then made read-only: ``run`` says in one line that it
    cannot write, the reporting commands work, and once writable again the sweep resumes."""
    config, reference, _ = clean
    folder = tmp_path / "store"
    folder.mkdir()
    victim = _start(config, folder / "s.db")
    _wait_for(lambda: len(_check_whole(folder / "s.db")) >= 2, victim, "recorded run")
    _kill_group(victim)
    view = read_only(folder)
    before = {p.name: p.read_bytes() for p in view.iterdir()}
    code, err = _finish(_start(config, view / "s.db"))
    assert code == 2 and err.count("\n") == 1 and "read-only" in err, err
    status = subprocess.run(
        [sys.executable, "-m", "bocvs_env.benchmark", "status", "--store", str(view / "s.db")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert status.returncode == 0 and "read-only here" in status.stdout, status.stderr
    assert {p.name: p.read_bytes() for p in view.iterdir()} == before
    code, err = _finish(_start(config, folder / "s.db"))
    assert code == 0, err
    assert _rows(folder / "s.db") == reference


#: Runs the CLI with Python's Ctrl-C handler and the default SIGTERM and SIGHUP dispositions,
#: whatever the test runner left them at (a runner under ``nohup`` ignores SIGHUP).
_INTERRUPTIBLE = """
import signal, sys
from bocvs_env.benchmark import cli
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
sys.exit(cli.main(sys.argv[1:]))
"""


def _count(store: Path) -> int:
    """The runs recorded in ``store`` so far (0 before it exists)."""
    if not store.exists():
        return 0
    with ResultStore(store, readonly=True) as s:
        return len(s)


def _interrupt(
    tmp_path: Path, agents: list[str], seeds: int, finished: int, signum: int, group: bool
) -> tuple[int | None, str]:
    """Start a sweep of runs that take minutes, wait until ``finished`` quick runs are
    recorded, send ``signum`` (to the whole process group, or to the driver alone as ``kill``
    does); its exit status and stderr, once every process of the group has ended."""
    config = tmp_path / "long.toml"
    config.write_text(
        'problems = ["hartmann6_12d"]\ncost_sets = ["cheap"]\nbudgets = [100]\n'
        f"agents = {json.dumps(agents)}\nseeds = {seeds}\n"
    )
    store = tmp_path / "long.db"
    args = ["run", "--config", str(config), "--store", str(store), "--no-plot", "--workers", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTIBLE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    _wait_for(store.exists, proc, "store")
    time.sleep(10)  # the workers are in their first runs (ETC's take minutes)
    deadline = time.monotonic() + 120
    while _count(store) < finished and time.monotonic() < deadline:
        time.sleep(0.5)  # the quick runs are recorded (after the setting's oracle, if not cached)
    assert proc.poll() is None
    (os.killpg if group else os.kill)(proc.pid, signum)
    try:
        _, err = proc.communicate(timeout=30)
        assert _group_ends(proc.pid, timeout=10), "processes of the sweep outlived the signal"
    finally:
        _kill_group(proc)
    with ResultStore(store, readonly=True) as s:
        assert len(s) == finished and s.failures() == []
    return proc.returncode, err


@pytest.mark.parametrize(
    ("agents", "seeds", "finished"),
    [
        (["etc"], 3, 0),  # two runs in flight, a third queued behind them
        (["random", "etc"], 1, 1),  # one run in flight, the other worker idle after a quick run
    ],
)
def test_ctrl_c_stops_the_runs_in_flight_at_once(
    agents: list[str], seeds: int, finished: int, tmp_path: Path
) -> None:
    """Ctrl-C (SIGINT to the sweep's process group, as a terminal sends it) while runs that take
    minutes are in flight: the sweep ends with 130 and its one-line message, and every process
    of the group ends by itself, without finishing those runs or starting one queued behind
    them; the runs that had finished are kept, nothing is recorded for the others."""
    code, err = _interrupt(tmp_path, agents, seeds, finished, signal.SIGINT, group=True)
    assert code == 130, err
    assert "interrupted; finished runs are kept, run again to resume" in err


@pytest.mark.parametrize(
    ("signum", "group"),
    [
        (signal.SIGTERM, False),  # kill <pid> of the driver
        (signal.SIGTERM, True),  # a job scheduler or `timeout` stopping the process group
        (signal.SIGHUP, True),  # the terminal closed
    ],
)
def test_sigterm_and_sighup_stop_a_sweep_as_ctrl_c(
    signum: signal.Signals, group: bool, tmp_path: Path
) -> None:
    """SIGTERM or SIGHUP while a run that takes minutes is in flight and one has finished: the
    same stop as Ctrl-C, the finished run kept, every process gone, no warning of the
    multiprocessing resource tracker, and the exit status 128 + the signal's number."""
    code, err = _interrupt(tmp_path, ["random", "etc"], 1, 1, signum, group)
    assert code == 128 + signum, err
    assert f"interrupted by {signum.name}; finished runs are kept, run again to resume" in err
    assert "resource_tracker" not in err and "leaked" not in err, err
