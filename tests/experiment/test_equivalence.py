"""Ask/tell driven by the simulated operator through a built-in problem's Gymnasium
environment gives the trace of ``run_episode`` on that id with the same seed, bit for bit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from bocvs_env.agent_registration import make_agent
from bocvs_env.evaluation import run_episode
from bocvs_env.experiment import Experiment
from bocvs_env.experiment.operator import simulate_builtin

AGENTS = ("etc", "ucb-psq", "ts-psq", "random")
#: Problem -> (its id, a budget of a few plays past the initial design).
PROBLEMS = {
    "hartmann6_12d": ("bocvs/Hartmann6in12D-v1", 8.0),
    "plant": ("bocvs/Plant-v1", 8.0),
}
SEED = 3


def _options(problem: str, data_dir: Path | None) -> dict[str, Any]:
    budget = PROBLEMS[problem][1]
    return (
        {"budget": budget} if problem != "plant" else {"budget": budget, "data_dir": str(data_dir)}
    )


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_ask_tell_replays_run_episode(
    problem: str, agent: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    data_dir = request.getfixturevalue("data_dir") if problem == "plant" else None
    options = _options(problem, data_dir)
    record = run_episode(gym.make(PROBLEMS[problem][0], **options), make_agent(agent), seed=SEED)
    with Experiment.create(tmp_path / "j", problem, agent, seed=SEED, options=options) as exp:
        simulate_builtin(exp)
        history = exp.history()
        spent = exp.spent
    played = history[history["evaluated"]]
    x = played[[f"x{l}" for l in range(record.x.shape[1])]].to_numpy()
    assert record.n_evaluations >= 3
    np.testing.assert_array_equal(played["control_set"].to_numpy(), record.control_set)
    np.testing.assert_array_equal(x, record.x)
    np.testing.assert_array_equal(played["y"].to_numpy(), record.y)
    np.testing.assert_array_equal(played["cost"].to_numpy(), record.cost)
    assert spent == record.spent[-1]
    # The budget ended both the same way: one last, unaffordable play, not evaluated.
    assert not history["evaluated"].iloc[-1] and history["evaluated"].sum() == len(history) - 1


def test_simulation_resumes_midway(tmp_path: Path) -> None:
    """A simulation stopped and reopened finishes with the uninterrupted run's trace."""
    options = {"budget": 4.0}
    with Experiment.create(tmp_path / "a", "hartmann6_12d", "etc", seed=1, options=options) as a:
        simulate_builtin(a)
        whole = a.history()
    with Experiment.create(tmp_path / "b", "hartmann6_12d", "etc", seed=1, options=options) as b:
        simulate_builtin(b, max_tells=2)
    with Experiment.open(tmp_path / "b") as b:
        assert b.resumed_by == "state"
        simulate_builtin(b)
        resumed = b.history()
    cols = ["control_set", "y", "cost", "evaluated"]
    assert resumed[cols].equals(whole[cols])
