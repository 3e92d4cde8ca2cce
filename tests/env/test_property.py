"""Property test: random policies on every built-in problem respect the budget rules."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents import RandomAgent
from bocvs_env import BOCVSEnv, EpisodeEndedError, metrics
from bocvs_env.evaluation import run_episode
from bocvs_env.goal import GoalEvaluator
from bocvs_env.problems import PROBLEMS


@pytest.fixture(scope="module", autouse=True)
def _cheap_oracle():
    """The true oracle is tested elsewhere; here a coarse one keeps the sweep fast."""

    def coarse(self: BOCVSEnv) -> np.ndarray:
        ev = GoalEvaluator(self.problem, n_samples=64)
        X = np.random.default_rng(0).random((16, self.problem.dim))
        return np.array([ev.g_batch(np.full(16, i), X).max() for i in range(self.problem.n_sets)])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BOCVSEnv, "oracle", coarse)
        yield


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=st.sampled_from(sorted(PROBLEMS)),
    cost_set=st.sampled_from(["cheap", "moderate", "expensive"]),
    budget=st.floats(0.05, 1.0),
    variance=st.sampled_from([0.02, 0.04, 0.08]),
    seed=st.integers(0, 2**16),
)
def test_random_policies_respect_the_budget(
    data_dir: Path, name: str, cost_set: str, budget: float, variance: float, seed: int
) -> None:
    options = {"data_dir": data_dir} if PROBLEMS[name].needs_data else {}
    env = BOCVSEnv(
        name, cost_set=cost_set, budget=budget, variance=variance, privileged_info=False, **options
    )
    record = run_episode(env, RandomAgent(), seed=seed)
    assert np.all(record.cost > 0)
    assert record.cost.sum() <= budget + 1e-12
    assert np.all((record.x >= 0) & (record.x <= 1))
    with pytest.raises(EpisodeEndedError):
        env.step({"control_set": 0, "x": np.zeros(env.problem.dim)})
    summary = metrics.summarize(record)
    for key, value in summary.items():
        values = value if isinstance(value, list) else [value]
        assert all(math.isfinite(v) for v in values), key
    assert np.all(np.isfinite(metrics.simple_regret_at(record, np.linspace(0, budget, 11))))
    assert np.all(np.isfinite(metrics.quality_regret(record)))
