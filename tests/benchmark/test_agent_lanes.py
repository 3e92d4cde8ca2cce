"""Outside agents kept in their lane: a run past its time limit is ended and recorded as
failed while the others go on, a startup check that hangs is ended with one line, and what an
agent prints goes to a log per run beside the store, never among ``bocvs run``'s results."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bocvs_env.benchmark.agent_output import logs_folder
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.store import ResultStore

AGENT_SOURCE = '''
"""Outside agents that misbehave: one hangs in a run, one hangs always, one prints."""

import os
import sys
import time

import numpy as np


class Playing:
    """Plays the full set (index 6 of hartmann3) at random points."""

    name = "playing"

    def reset(self, task, observation, info, seed=None):
        self.rng = np.random.default_rng(seed)
        self.dim = task.dim
        self.seed = seed

    def act(self, observation):
        return {"control_set": 6, "x": self.rng.random(self.dim)}

    def observe(self, action, observation, reward, terminated, truncated, info):
        pass


class HangsOnSeedOne(Playing):
    """Never returns from its first action of seed 1 (the startup check plays seed 0)."""

    def act(self, observation):
        while self.seed == 1:
            time.sleep(1.0)
        return super().act(observation)


class HangsAlways(Playing):
    """Never returns from an action, so not from the startup check either."""

    def act(self, observation):
        while True:
            time.sleep(1.0)


class Noisy(Playing):
    """Prints NOISE on stdout and stderr, from Python and below it, at every step."""

    def __init__(self):
        print("NOISE built")

    def act(self, observation):
        print("NOISE act")
        print("NOISE err", file=sys.stderr)
        os.write(1, b"NOISE fd\\n")
        return super().act(observation)
'''

RUN = ["run", "--problems", "hartmann3", "--budgets", "3", "--no-plot"]


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The agents' module, written outside the repository and on the path of this process and
    of the workers it starts; its name."""
    where = tmp_path / "elsewhere"
    where.mkdir()
    (where / "lane_agents.py").write_text(AGENT_SOURCE)
    monkeypatch.syspath_prepend(str(where))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")])
    )
    return "lane_agents"


@pytest.mark.slow
def test_a_hanging_run_is_ended_at_its_time_limit_and_the_others_are_stored(
    tmp_path: Path, outside: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.db"
    agent = f"{outside}:HangsOnSeedOne"
    args = [*RUN, "--agents", agent, "--seeds", "3", "--workers", "2", "--store", str(store)]
    assert main([*args, "--run-timeout", "20"]) == 1  # some runs failed
    assert "timed out after 20 s" in capsys.readouterr().err
    with ResultStore(store, create=False) as stored:
        assert sorted(r.config.seed for r in stored.runs()) == [0, 2]
        (failure,) = stored.failures()
    assert failure.config.seed == 1 and "timed out after 20 s" in failure.error


def test_an_agent_that_hangs_in_its_startup_check_is_refused_in_one_line(
    tmp_path: Path, outside: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.db"
    args = [*RUN, "--agents", f"{outside}:HangsAlways", "--seeds", "1", "--store", str(store)]
    assert main([*args, "--check-timeout", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "did not end within 5 s" in err and "HangsAlways" in err
    assert not store.exists()  # refused before anything was stored


def test_what_an_agent_prints_goes_to_a_log_per_run_not_among_the_results(
    tmp_path: Path, outside: str, capfd: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.db"
    args = [*RUN, "--agents", f"{outside}:Noisy", "--seeds", "2", "--workers", "1"]
    assert main([*args, "--store", str(store)]) == 0
    out, err = capfd.readouterr()
    assert "NOISE" not in out and "### hartmann3" in out  # the results alone
    logs = sorted(logs_folder(store).glob("*.log"))
    assert len(logs) == 2 and str(logs_folder(store)) in err  # named on stderr
    for log in logs:
        text = log.read_text()
        assert {"NOISE act", "NOISE err", "NOISE fd"} <= set(text.splitlines())
        assert text.startswith("# output of run hartmann3/")


def test_a_time_limit_that_is_not_a_positive_number_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "s.db"
    with pytest.raises(SystemExit) as exited:
        main([*RUN, "--agents", "random", "--store", str(store), "--run-timeout", "-5"])
    assert exited.value.code == 2
    assert "expected a number of seconds > 0, got '-5'" in capsys.readouterr().err
    assert not store.exists()
