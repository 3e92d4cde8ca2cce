"""Vector environments on every registered id: autoreset, final observations, budget ends.

Every episode plays the full control set (the last, mean cost 1 in every cost set) under a budget
of 2.5: two plays are paid, the third costs more than the ~0.5 left, so it ends the episode
unevaluated. The number of steps is the same for every sub-environment.
"""

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import bocvs_env
from bocvs_env.wrappers import wrap_sb3

BUDGET = 2.5
N_ENVS = 2
CASES = [
    ("sync", AutoresetMode.NEXT_STEP),
    ("async", AutoresetMode.NEXT_STEP),
    ("sync", AutoresetMode.SAME_STEP),
]


def _action_spaces(envs: gym.vector.VectorEnv) -> tuple[gym.spaces.Discrete, gym.spaces.Box]:
    """The spaces of a sub-environment's control set and query."""
    space = envs.single_action_space
    assert isinstance(space, gym.spaces.Dict)
    sets, x = space["control_set"], space["x"]
    assert isinstance(sets, gym.spaces.Discrete) and isinstance(x, gym.spaces.Box)
    return sets, x


def _full_set_action(envs: gym.vector.VectorEnv) -> dict[str, np.ndarray]:
    sets, x = _action_spaces(envs)
    m = sets.n
    d = x.shape[0]
    return {"control_set": np.full(N_ENVS, m - 1), "x": np.full((N_ENVS, d), 0.5)}


@pytest.mark.parametrize(("mode", "autoreset"), CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("env_id", bocvs_env.ENV_IDS)
def test_make_vec_ends_by_budget_and_autoresets(
    env_id: str, mode: str, autoreset: AutoresetMode, id_kwargs: Callable[[str], dict[str, Any]]
) -> None:
    envs = gym.make_vec(
        env_id,
        num_envs=N_ENVS,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": autoreset},
        budget=BUDGET,
        **id_kwargs(env_id),
    )
    try:
        obs, _ = envs.reset(seed=0)
        m = _action_spaces(envs)[0].n
        np.testing.assert_array_equal(obs["control_set"], m)  # no set played yet
        action = _full_set_action(envs)
        for _ in range(2):
            obs, reward, terminated, truncated, info = envs.step(action)
            assert not terminated.any() and not truncated.any() and info["evaluated"].all()
            np.testing.assert_array_equal(obs["control_set"], m - 1)
        obs, reward, terminated, truncated, info = envs.step(action)
        assert terminated.all() and not truncated.any() and np.all(reward == 0.0)
        end_info = info if autoreset is AutoresetMode.NEXT_STEP else info["final_info"]
        assert not end_info["evaluated"].any() and np.all(end_info["spent"] <= BUDGET)
        if autoreset is AutoresetMode.NEXT_STEP:
            final_budget = obs["remaining_budget"][:, 0]
            np.testing.assert_array_equal(obs["control_set"], m - 1)  # the final observation
            obs, reward, terminated, _, info = envs.step(action)  # the reset step
            assert not terminated.any() and np.all(reward == 0.0)
        else:
            assert info["_final_obs"].all()
            final_budget = np.array([o["remaining_budget"][0] for o in info["final_obs"]])
            assert all(int(o["control_set"]) == m - 1 for o in info["final_obs"])
        assert np.all((final_budget >= 0.0) & (final_budget < 1.0))
        np.testing.assert_array_equal(obs["control_set"], m)  # the new episode's start
        np.testing.assert_array_equal(obs["remaining_budget"][:, 0], BUDGET)
    finally:
        envs.close()


SB3_CASES = [(env_id, DummyVecEnv) for env_id in bocvs_env.ENV_IDS] + [
    ("bocvs/Hartmann3-v1", SubprocVecEnv)  # forked workers after torch ran in the parent
]


@pytest.mark.parametrize(("env_id", "vec_env_cls"), SB3_CASES)
def test_sb3_make_vec_env_autoresets_with_terminal_observation(
    env_id: str, vec_env_cls: type, id_kwargs: Callable[[str], dict[str, Any]]
) -> None:
    envs = make_vec_env(
        env_id,
        n_envs=N_ENVS,
        seed=0,
        wrapper_class=wrap_sb3,
        # SB3 asks for render_mode="rgb_array" unless told otherwise; the env renders text.
        env_kwargs={"render_mode": None, "budget": BUDGET, **id_kwargs(env_id)},
        vec_env_cls=vec_env_cls,
        vec_env_kwargs={"start_method": "fork"} if vec_env_cls is SubprocVecEnv else None,
    )
    m = envs.get_attr("unwrapped")[0].task.n_sets
    remaining = 4 * m + 3  # index of the remaining-budget fraction (HistoryFeatures layout)
    shape = envs.action_space.shape
    assert shape is not None
    action = -np.ones((N_ENVS, *shape), dtype=np.float32)
    action[:, m - 1] = 1.0
    obs = envs.reset()
    assert isinstance(obs, np.ndarray)  # a Box observation (wrap_sb3)
    np.testing.assert_array_equal(obs[:, remaining], 1.0)
    for _ in range(2):
        obs, _, dones, _ = envs.step(action)
        assert not dones.any()
    obs, _, dones, infos = envs.step(action)
    assert isinstance(obs, np.ndarray)
    assert dones.all()
    for k in range(N_ENVS):
        final = infos[k]["terminal_observation"]
        assert 0.0 <= final[remaining] < 1.0 / BUDGET
        assert final[3 * m + m - 1] == 1.0  # the last set played
        assert infos[k]["episode"]["l"] == 3  # Monitor: two plays and the ending step
    np.testing.assert_array_equal(obs[:, remaining], 1.0)  # already reset
    envs.close()
