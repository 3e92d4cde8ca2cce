"""Acceptance: a sweep killed with SIGKILL mid-way loses no finished run and leaves no partial
one; running it again resumes, and the store ends as an uninterrupted sweep's would."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bench_helpers import assert_same_traces, run_in_process

from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.store import ResultStore, StoreError

N_RUNS = 8
CONFIG = f"""
problems = ["hartmann3"]
cost_sets = ["cheap"]
budgets = [60]
agents = ["random"]
seeds = {N_RUNS}
"""


def _sweep(config: Path, store: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "bocvs_env.benchmark", "run", "--config", str(config)]
    cmd += ["--store", str(store), "--workers", "2", "--no-plot"]
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def _count(store: Path) -> int:
    try:
        with ResultStore(store, create=False) as s:
            return len(s)
    except (FileNotFoundError, StoreError, sqlite3.DatabaseError):
        return 0  # not created yet, or being created


def _group_ends(pgid: int, timeout: float) -> bool:
    """Whether every process of the group has exited within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_sigkill_then_resume_matches_an_uninterrupted_sweep(tmp_path: Path, tiny_results) -> None:
    config = tmp_path / "kill.toml"
    config.write_text(CONFIG)
    reference = tmp_path / "reference.db"
    killed = tmp_path / "killed.db"

    victim = _sweep(config, killed)
    try:
        deadline = time.monotonic() + 120
        while _count(killed) < 2:
            assert victim.poll() is None, victim.communicate()
            assert time.monotonic() < deadline, "the sweep recorded nothing in two minutes"
            time.sleep(0.01)
        os.kill(victim.pid, signal.SIGKILL)  # the driver, as `kill -9 <pid>` would
        assert victim.wait(timeout=30) == -signal.SIGKILL
        assert _group_ends(victim.pid, timeout=30), "the workers outlived their driver"
    finally:
        try:  # whatever is left of what we started, should the test fail
            os.killpg(victim.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        victim.communicate()

    with ResultStore(killed, create=False) as store:
        survived = len(store)
        assert 2 <= survived < N_RUNS, "kill the sweep mid-way"
    conn = sqlite3.connect(killed)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()

    resumed = _sweep(config, killed)
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"{survived} already in" in err
    with ResultStore(reference) as store:  # the same sweep, uninterrupted, run here
        for result in run_in_process(SweepConfig.from_file(config)):
            store.add(result, sweep="kill")

    conn = sqlite3.connect(killed)
    try:
        rows = conn.execute("SELECT config_key, COUNT(*) FROM runs GROUP BY config_key").fetchall()
    finally:
        conn.close()
    assert len(rows) == N_RUNS and all(n == 1 for _, n in rows)
    with ResultStore(killed, create=False) as a, ResultStore(reference, create=False) as b:
        assert len(a) == len(b) == N_RUNS
        assert_same_traces(a.runs(), b.runs())
