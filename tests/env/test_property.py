"""Property tests: random policies and random actions on every built-in problem and registered id
respect the budget rule exactly, and malformed actions and arguments are refused."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import gymnasium as gym
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agents import RandomAgent
from bocvs_env import BOCVSEnv, EpisodeEndedError, make_problem, metrics
from bocvs_env.budget import exact
from bocvs_env.evaluation import run_episode
from bocvs_env.goal import GoalEvaluator
from bocvs_env.problems import PROBLEMS
from bocvs_env.problems.costs import COST_SETS, GaussianCost
from bocvs_env.problems.distributions import TruncatedNormal
from bocvs_env.problems.families import FamilyEnv
from bocvs_env.problems.problem import MAX_PLAYS
from bocvs_env.registration import ENV_IDS


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


@pytest.mark.slow  # about a minute: 25 episodes over every problem, airfoil's GP fit included
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
    options: dict[str, Any] = {"data_dir": data_dir} if PROBLEMS[name].needs_data else {}
    env = BOCVSEnv(
        name, cost_set=cost_set, budget=budget, variance=variance, privileged_info=False, **options
    )
    record = run_episode(env, RandomAgent(), seed=seed)
    assert np.all(record.cost > 0)
    assert record.spent[-1] <= budget if record.n_evaluations else True
    assert np.all((record.x >= 0) & (record.x <= 1))
    with pytest.raises(EpisodeEndedError):
        env.step({"control_set": 0, "x": np.zeros(env.problem.dim)})
    summary = metrics.summarize(record)
    # A TypedDict's items() are typed (str, object); its values here are numbers or lists.
    for key, value in cast(Mapping[str, float | list[float]], summary).items():
        values = value if isinstance(value, list) else [value]
        assert all(math.isfinite(v) for v in values), key
    assert np.all(np.isfinite(metrics.simple_regret_at(record, np.linspace(0, budget, 11))))
    assert np.all(np.isfinite(metrics.quality_regret(record)))


def _make(env_id: str, id_kwargs, **kwargs: Any) -> BOCVSEnv:
    env = gym.make(env_id, privileged_info=False, **id_kwargs(env_id), **kwargs)
    assert isinstance(env.unwrapped, BOCVSEnv)
    return env.unwrapped


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    env_id=st.sampled_from(ENV_IDS),
    budget=st.one_of(
        st.floats(0.01, 3.0),
        st.decimals("0.01", "3", places=2).map(float),  # budgets a user types: 1.0, 0.3
    ),
    cost_noise_std=st.sampled_from([0.0, 0.02, 0.3]),
    cost_set=st.sampled_from(sorted(COST_SETS)),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_every_id_pays_exactly_what_fits(
    id_kwargs, env_id: str, budget: float, cost_noise_std: float, cost_set: str, seed: int, data
) -> None:
    """Random actions and cost draws: each play is paid iff its drawn cost is at most what is
    left, checked in exact rational arithmetic; what is reported spent never exceeds the
    budget and what is left never goes below 0."""
    env = _make(env_id, id_kwargs, budget=budget, cost_set=cost_set, cost_noise_std=cost_noise_std)
    budget = float(env.problem.budget)
    m, d = env.problem.n_sets, env.problem.dim
    env.reset(seed=seed)
    left = exact(budget)
    rng = np.random.default_rng(seed)
    for _ in range(400):
        i = data.draw(st.integers(0, m - 1), label="control_set")
        x = rng.random(d)
        obs, _, terminated, _, info = env.step({"control_set": i, "x": x})
        fits = exact(info["cost_drawn"]) <= left
        assert info["evaluated"] == fits == (not terminated)
        if fits:
            left -= exact(info["cost_drawn"])
        assert info["spent"] == float(exact(budget) - left) <= budget
        assert obs["remaining_budget"][0] == float(left) >= 0.0
        if terminated:
            break


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cost=st.decimals("0.001", "2", places=3).map(float) | st.floats(1e-3, 2.0),
    budget=st.decimals("0.01", "5", places=2).map(float) | st.floats(0.01, 5.0),
)
def test_a_constant_cost_pays_for_exactly_budget_over_cost_plays(
    cost: float, budget: float
) -> None:
    """With every set costing ``c``, an episode makes ``floor(B / c)`` evaluations, computed on
    the numbers as written (so 0.01 into 1.0 goes 100 times)."""
    assume(exact(budget) / exact(cost) < 3000)
    problem = make_problem(
        "hartmann3", budget=budget, cost_model=GaussianCost([cost] * 7, noise_std=0.0)
    )
    env = BOCVSEnv(problem, privileged_info=False)
    env.reset(seed=0)
    plays = 0
    while not env.step({"control_set": plays % 7, "x": np.zeros(3)})[2]:
        plays += 1
    assert plays == math.floor(exact(budget) / exact(cost))
    assert env.remaining_budget == float(exact(budget) - plays * exact(cost)) < cost


#: Malformed actions of a ``d``-variable, ``m``-set problem, each a function of ``(m, d)``.
_BAD_ACTIONS = [
    lambda m, d: {"control_set": 0, "x": ["0.5"] * d},
    lambda m, d: {"control_set": 0, "x": [0.5 + 0j] * d},
    lambda m, d: {"control_set": 0, "x": [True] * d},
    lambda m, d: {"control_set": 0, "x": [0.5] * (d + 1)},
    lambda m, d: {"control_set": 0, "x": [[0.5]] * d},
    lambda m, d: {"control_set": 0, "x": [[0.5], [0.5, 0.5]]},
    lambda m, d: {"control_set": 0, "x": None},
    lambda m, d: {"control_set": 0, "x": [float("nan")] * d},
    lambda m, d: {"control_set": 0, "x": [1.5] * d},
    lambda m, d: {"control_set": 0, "x": [-0.1] * d},
    lambda m, d: {"control_set": 0, "x": [0.5] * (d - 1) + [1.0000001]},
    lambda m, d: {"control_set": True, "x": [0.5] * d},
    lambda m, d: {"control_set": "0", "x": [0.5] * d},
    lambda m, d: {"control_set": 0.0, "x": [0.5] * d},
    lambda m, d: {"control_set": m, "x": [0.5] * d},
    lambda m, d: {"control_set": 10**30, "x": [0.5] * d},
    lambda m, d: {"control_set": -(10**30), "x": [0.5] * d},
    lambda m, d: {"control_set": [0, 1], "x": [0.5] * d},
    lambda m, d: {"control_set": 0, "x": [0.5] * d, "extra": 1},
    lambda m, d: {"x": [0.5] * d},
    lambda m, d: [0, [0.5] * d],
    lambda m, d: None,
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(env_id=st.sampled_from(ENV_IDS), bad=st.sampled_from(_BAD_ACTIONS))
def test_malformed_actions_are_refused_and_change_nothing(id_kwargs, env_id: str, bad) -> None:
    env = _make(env_id, id_kwargs)
    env.reset(seed=0)
    with pytest.raises((ValueError, TypeError), match=r"control.set|\bx\b|action"):
        env.step(bad(env.problem.n_sets, env.problem.dim))
    assert env.remaining_budget == float(env.problem.budget)
    *_, info = env.step({"control_set": 0, "x": np.full(env.problem.dim, 0.5)})
    assert info["step"] == int(info["evaluated"])  # the refused action was not played


#: Malformed ``gymnasium.make`` arguments, with what the message must name.
_BAD_ARGUMENTS = [
    ({"budget": True}, "budget"),
    ({"budget": "10"}, "budget"),
    ({"budget": 1j}, "budget"),
    ({"budget": float("nan")}, "budget"),
    ({"budget": -1.0}, "budget"),
    ({"budget": 1e300}, "budget"),
    ({"budget": 1e12}, "budget"),
    ({"variance": True}, "variance"),
    ({"variance": "0.02"}, "variance"),
    ({"variance": 0.5}, "variance"),
    ({"noise_std": False}, "noise_std"),
    ({"cost_noise_std": "0.02"}, "cost_noise_std"),
    ({"cost_noise_std": -0.1}, "cost_noise_std"),
    ({"n_initial": 2.0}, "n_initial"),
    ({"n_initial": -1}, "n_initial"),
    ({"n_initial": True}, "n_initial"),
    ({"privileged_info": 1}, "privileged_info"),
    ({"cost_set": "free"}, "cost set"),
    ({"not_an_option": 1}, "not_an_option"),
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(env_id=st.sampled_from(ENV_IDS), bad=st.sampled_from(_BAD_ARGUMENTS))
def test_malformed_arguments_are_refused(id_kwargs, env_id: str, bad) -> None:
    kwargs, name = bad
    with pytest.raises((ValueError, TypeError), match=name):
        gym.make(env_id, **{**id_kwargs(env_id), **kwargs})


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    env_id=st.sampled_from(ENV_IDS),
    cost_set=st.sampled_from(sorted(COST_SETS)),
    plays=st.floats(MAX_PLAYS * (1 + 1e-9), 1e300),
)
def test_a_budget_beyond_the_most_plays_is_refused(
    id_kwargs, env_id: str, cost_set: str, plays: float
) -> None:
    """A budget that buys more than ``MAX_PLAYS`` plays of the cheapest set is refused, naming
    the budget as given; the most it may buy is accepted."""
    cheapest = min(COST_SETS[cost_set])
    budget = plays * cheapest
    assume(budget / cheapest > MAX_PLAYS)
    with pytest.raises(ValueError, match=f"^budget {re.escape(repr(budget))} buys"):
        gym.make(env_id, **id_kwargs(env_id), cost_set=cost_set, budget=budget)
    _make(env_id, id_kwargs, cost_set=cost_set, budget=MAX_PLAYS * cheapest)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    env_id=st.sampled_from(ENV_IDS),
    option=st.text(min_size=1, max_size=12).filter(lambda o: o != "function_seed"),
    seed=st.sampled_from([True, False, np.bool_(True), -1, 1.5, "0"]),
)
def test_unknown_reset_options_and_seeds_that_are_no_seeds_are_refused(
    id_kwargs, env_id: str, option: str, seed: Any
) -> None:
    env = _make(env_id, id_kwargs)
    named = rf"unknown reset options \[{re.escape(repr(option))}\]"
    with pytest.raises(ValueError, match=named):
        env.reset(seed=0, options={option: 1})
    with pytest.raises((TypeError, ValueError), match=r"^seed must be an integer"):
        env.reset(seed=seed)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(env_id=st.sampled_from(ENV_IDS), seed=st.integers(0, 2**16), data=st.data())
def test_a_tensor_action_is_played_as_its_values(id_kwargs, env_id: str, seed: int, data) -> None:
    """A torch tensor (one that requires grad included) is the same action as its values."""
    env, twin = _make(env_id, id_kwargs), _make(env_id, id_kwargs)
    m, d = env.problem.n_sets, env.problem.dim
    i = data.draw(st.integers(0, m - 1), label="control_set")
    x = np.random.default_rng(seed).random(d)
    env.reset(seed=seed)
    twin.reset(seed=seed)
    tensor = torch.tensor(x, requires_grad=data.draw(st.booleans(), label="requires_grad"))
    obs, *_ = env.step({"control_set": torch.tensor(i), "x": tensor})
    same, *_ = twin.step({"control_set": i, "x": x})
    for key in ("control_set", "x", "y", "cost"):
        np.testing.assert_array_equal(obs[key], same[key])


def test_a_numpy_float_variance_is_a_variance() -> None:
    env = gym.make("bocvs/Hartmann3-v1", variance=np.float32(0.04)).unwrapped
    assert isinstance(env, BOCVSEnv)
    for p in env.task.distributions:
        assert isinstance(p, TruncatedNormal) and isinstance(p.target_variance, float)
        assert p.variance == pytest.approx(0.04, rel=1e-6)


@pytest.mark.parametrize("function_seed", [-1, 1.5, 2.0, "3", True, None])
def test_function_seeds_must_be_non_negative_integers(function_seed: Any) -> None:
    (gp_sample,) = [i for i in ENV_IDS if gym.spec(i).kwargs.get("problem") == "gp_sample"]
    with pytest.raises((ValueError, TypeError), match="function_seed"):
        gym.make(gp_sample, function_seed=function_seed)
    family = FamilyEnv("rotated_hartmann3", function_seeds=(0, 5))
    with pytest.raises((ValueError, TypeError), match="function_seed"):
        family.reset(seed=0, options={"function_seed": function_seed})
