"""Limits of the environment's arguments and actions: a budget that buys more plays than an
episode can hold, a value out of range named as given, a tensor that tracks gradients, a bool
seed and reset options the environment does not take each get one clear line."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from bocvs_env import BOCVSEnv
from bocvs_env.problems.problem import MAX_PLAYS

ENV_ID = "bocvs/Hartmann3-v1"


@pytest.fixture
def env() -> BOCVSEnv:
    env = gym.make(ENV_ID, privileged_info=False).unwrapped
    assert isinstance(env, BOCVSEnv)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("budget", [1e300, 1e12, 10_000.5])
def test_a_budget_beyond_a_million_plays_of_the_cheapest_set_is_refused(budget: float) -> None:
    pattern = f"budget {re.escape(repr(budget))} buys .* at most 1,000,000 plays"
    with pytest.raises(ValueError, match=pattern):
        gym.make(ENV_ID, budget=budget, cost_set="cheap")  # cheapest mean cost 0.01


def test_the_largest_budget_allowed_is_accepted() -> None:
    env = gym.make(ENV_ID, budget=MAX_PLAYS * 0.01, cost_set="cheap").unwrapped
    assert isinstance(env, BOCVSEnv) and env.problem.budget == 10_000
    assert gym.make(ENV_ID, budget=MAX_PLAYS * 0.6, cost_set="expensive") is not None


def test_a_query_out_of_range_is_named_unrounded(env: BOCVSEnv) -> None:
    with pytest.raises(ValueError, match=r"^x must lie in \[0, 1\]; got x\[2\] = 1\.0000001$"):
        env.step({"control_set": 0, "x": [0.5, 0.5, 1.0000001]})
    with pytest.raises(ValueError, match=r"got x\[0\] = -1e-09$"):
        env.step({"control_set": 0, "x": [-1e-9, 0.5, 0.5]})


@pytest.mark.parametrize("value", [10**30, -(10**30), np.int64(7)])
def test_a_control_set_out_of_range_is_named_as_given(env: BOCVSEnv, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"^unknown control set {int(value)}: this problem has"):
        env.step({"control_set": value, "x": np.full(3, 0.5)})


def test_a_tensor_that_requires_grad_is_taken_as_its_values(env: BOCVSEnv) -> None:
    x = torch.full((3,), 0.25, dtype=torch.float64, requires_grad=True)
    obs, _, _, _, info = env.step({"control_set": torch.tensor(6), "x": x})
    assert info["evaluated"] and obs["control_set"] == 6
    np.testing.assert_array_equal(obs["x"], np.full(3, 0.25))


@pytest.mark.parametrize("seed", [True, False, np.bool_(True)])
def test_a_bool_is_no_seed(env: BOCVSEnv, seed: Any) -> None:
    with pytest.raises(TypeError, match="seed must be an integer, got"):
        env.reset(seed=seed)


def test_a_negative_seed_is_refused(env: BOCVSEnv) -> None:
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got -1"):
        env.reset(seed=-1)


def test_unknown_reset_options_are_refused_by_name(env: BOCVSEnv) -> None:
    with pytest.raises(ValueError, match=r"^unknown reset options \['function_seed'\]; .*none$"):
        env.reset(seed=0, options={"function_seed": 3})
    env.reset(seed=0, options={})  # no options at all is fine
    family = gym.make("bocvs/GPSampleFamily-Train-v1", privileged_info=False).unwrapped
    with pytest.raises(ValueError, match=r"unknown reset options \['fuction_seed'\]"):
        family.reset(seed=0, options={"fuction_seed": 3})
