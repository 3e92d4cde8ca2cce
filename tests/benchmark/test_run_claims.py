"""Several ``bocvs run`` on one store split its runs: each run is claimed in the store before
it starts, a claim of a live driver is left alone, a claim whose driver died is taken over, and
two drivers at once compute every run exactly once."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from bench_helpers import tiny_sweep

from bocvs_env.benchmark.claims import Claimant, RunClaims, process_started
from bocvs_env.benchmark.store import ResultStore

COUNTING_AGENT = '''
"""Appends its seed and pid to $EPISODES_FILE at the end of every episode it plays to the end
(the startup check's short episodes do not end)."""

import os
import time

import numpy as np


class Counting:
    name = "counting"

    def reset(self, task, observation, info, seed=None):
        self.rng, self.dim, self.seed = np.random.default_rng(seed), task.dim, seed

    def act(self, observation):
        time.sleep(0.2)  # long enough for the two drivers to run at once
        return {"control_set": 6, "x": self.rng.random(self.dim)}

    def observe(self, action, observation, reward, terminated, truncated, info):
        if terminated or truncated:
            with open(os.environ["EPISODES_FILE"], "a") as out:
                out.write(f"{self.seed} {os.getpid()}\\n")
'''


def _hold(store: ResultStore, key: str, holder: Claimant) -> None:
    """Write a claim of ``holder`` on run ``key`` straight into the store."""
    RunClaims(store).close()  # makes the claims table
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute(
            "INSERT INTO claims VALUES (?, 'other', ?, ?, ?, 0, 0)",
            (key, holder.pid, holder.host, holder.started),
        )


def test_a_claim_of_a_live_driver_is_left_to_it_and_one_of_a_dead_driver_taken_over(
    store_path: Path,
) -> None:
    config = tiny_sweep().runs()[0]
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with ResultStore(store_path) as store:
            here = socket.gethostname()
            started = process_started(live.pid) or ""
            _hold(store, config.key(), Claimant(live.pid, here, started))
            claims = RunClaims(store)
            assert claims.claim(config, "mine") == Claimant(live.pid, here, started)
            live.kill()
            live.wait()
            assert claims.claim(config, "mine") == "claimed"  # its driver died: taken over
            claims.close()
    finally:
        live.kill()


def test_a_claim_of_a_reused_pid_is_taken_over(store_path: Path) -> None:
    """A live process that is not the claimant (its start differs) holds no claim."""
    config = tiny_sweep().runs()[0]
    with ResultStore(store_path) as store:
        impostor = Claimant(os.getppid(), socket.gethostname(), "not-its-start")
        _hold(store, config.key(), impostor)
        claims = RunClaims(store)
        assert claims.claim(config, "mine") == "claimed"
        claims.close()


@pytest.mark.slow
def test_two_runs_on_one_store_at_once_compute_every_run_exactly_once(tmp_path: Path) -> None:
    where = tmp_path / "elsewhere"
    where.mkdir()
    (where / "counting_agent.py").write_text(COUNTING_AGENT)
    episodes = tmp_path / "episodes.txt"
    env = {
        **os.environ,
        "EPISODES_FILE": str(episodes),
        "PYTHONPATH": os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")]),
    }
    store = tmp_path / "s.db"
    command = [sys.executable, "-m", "bocvs_env.benchmark", "run", "--problems", "hartmann3",
               "--budgets", "8", "--seeds", "8", "--agents", "counting_agent:Counting",
               "--workers", "1", "--no-plot", "--store", str(store)]  # fmt: skip
    drivers = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [d.communicate(timeout=600) for d in drivers]
    assert [d.returncode for d in drivers] == [0, 0], [err.decode() for _, err in outputs]
    lines = episodes.read_text().split()
    seeds = sorted(int(s) for s in lines[::2])
    assert seeds == list(range(8))  # each run played once
    with ResultStore(store, create=False) as stored:
        assert sorted(r.config.seed for r in stored.runs()) == list(range(8))
