import warnings
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3 import PPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.preprocessing import preprocess_obs

import bocvs_env
from bocvs_env import BOCVSEnv
from bocvs_env.wrappers import (
    Y_CLIP,
    FlatAction,
    HistoryObservation,
    flat_to_action,
    make_sb3_env,
)


@pytest.mark.parametrize("env_id", bocvs_env.ENV_IDS)
def test_gymnasium_check_env_has_no_warnings(
    env_id: str, id_kwargs: Callable[[str], dict[str, Any]]
) -> None:
    env = gym.make(env_id, **id_kwargs(env_id))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env.unwrapped)


@pytest.mark.parametrize("env_id", bocvs_env.ENV_IDS)
def test_sb3_check_env_on_wrapped_env_has_no_warnings(
    env_id: str, id_kwargs: Callable[[str], dict[str, Any]]
) -> None:
    env = make_sb3_env(env_id, budget=3.0, **id_kwargs(env_id))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(env, warn=True)
    base = env.unwrapped
    assert isinstance(base, BOCVSEnv)
    task = base.task
    assert env.action_space.shape == (task.n_sets + task.dim,)
    assert env.observation_space.shape == (4 * task.n_sets + 4 + 2 * task.dim,)


@pytest.mark.parametrize("env_id", bocvs_env.ENV_IDS)
def test_sb3_check_env_on_the_dict_observation_has_no_warnings(
    env_id: str, id_kwargs: Callable[[str], dict[str, Any]]
) -> None:
    """Only the action flattened: SB3 takes the Dict observation as is (MultiInputPolicy)."""
    env = FlatAction(gym.make(env_id, budget=3.0, **id_kwargs(env_id)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(env, warn=True)


def test_ppo_multi_input_policy_trains_on_the_dict_observation() -> None:
    """``PPO("MultiInputPolicy", FlatAction(gym.make(id)))``: SB3 one-hot encodes the
    observation's ``control_set`` (a start-0 ``Discrete``) and trains 2,048 steps."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = FlatAction(gym.make("bocvs/Hartmann3-v1", budget=5.0))
        model = PPO("MultiInputPolicy", env, n_steps=256, batch_size=64, n_epochs=1, seed=0)
        before = [p.detach().clone() for p in model.policy.parameters()]
        model.learn(total_timesteps=2048)
    finally:
        torch.set_num_threads(threads)
    after = list(model.policy.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(after, before, strict=True))  # it trained
    obs, _ = env.reset(seed=1)
    tensors, _ = model.policy.obs_to_tensor(obs)
    assert isinstance(tensors, dict)
    features = preprocess_obs(tensors, env.observation_space)
    assert isinstance(features, dict)
    base = env.unwrapped
    assert isinstance(base, BOCVSEnv)
    m = base.task.n_sets
    # before the first play, control_set is m ("none yet"): one-hot over m + 1 values
    expected = torch.zeros(1, m + 1)
    expected[0, m] = 1.0
    torch.testing.assert_close(features["control_set"], expected)
    flat, _ = model.predict(obs, deterministic=True)
    assert env.action_space.contains(flat)


def test_flat_action_picks_argmax_and_maps_x_affinely() -> None:
    flat = np.array([0.1, 0.9, -0.5, -1.0, 0.0, 1.0, 3.0], dtype=np.float32)
    action = flat_to_action(flat, n_sets=3, dim=4)
    assert action["control_set"] == 1
    np.testing.assert_allclose(action["x"], [0.0, 0.5, 1.0, 1.0])
    assert action["x"].dtype == np.float64


def test_flat_action_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="shape"):
        flat_to_action(np.zeros(5), n_sets=3, dim=3)
    with pytest.raises(ValueError, match="NaN"):
        flat_to_action(np.array([0.0, np.nan, 0.0, 0.0]), n_sets=2, dim=2)


def test_flat_action_wrapper_drives_the_env() -> None:
    env = FlatAction(gym.make("bocvs/Hartmann3-v1"))
    env.reset(seed=0)
    flat = np.full(10, -1.0, dtype=np.float32)
    flat[4] = 1.0  # set {0, 2}
    flat[7:] = [1.0, 0.0, -1.0]  # x = (1, 0.5, 0)
    obs, *_ = env.step(flat)
    assert int(obs["control_set"]) == 4
    assert obs["x"][0] == 1.0 and obs["x"][2] == 0.0


def test_history_features_follow_the_documented_layout() -> None:
    env = HistoryObservation(gym.make("bocvs/Hartmann3-v1", cost_set="moderate", budget=50.0))
    m, d, budget = 7, 3, 50.0
    obs, info = env.reset(seed=1)
    y0 = info["initial_y"]
    mu, sd = y0.mean(), y0.std()
    z = lambda y: np.clip((y - mu) / sd, -Y_CLIP, Y_CLIP)  # noqa: E731
    np.testing.assert_allclose(obs[4 * m], z(y0.max()), rtol=1e-5)
    np.testing.assert_allclose(obs[4 * m + 4 + d :], info["initial_x"][np.argmax(y0)], rtol=1e-6)
    assert obs[4 * m + 3] == 1.0 and not obs[: 4 * m].any()
    plays = [(3, np.array([0.2, 0.3, 0.4])), (3, np.array([0.9, 0.1, 0.5])), (0, np.full(3, 0.5))]
    base = env.unwrapped
    assert isinstance(base, BOCVSEnv)
    ys, costs, last = [], [], None
    for i, x in plays:
        obs, _, _, _, _ = env.step({"control_set": i, "x": x})
        last = base._obs
        if i == 3:
            ys.append(float(last["y"][0]))
            costs.append(float(last["cost"][0]))
    assert last is not None  # set by the plays
    assert env.observation_space.contains(obs)
    np.testing.assert_allclose(obs[:m], np.log1p([1, 0, 0, 2, 0, 0, 0]), rtol=1e-6)
    np.testing.assert_allclose(obs[m + 3], np.mean(costs), rtol=1e-6)
    np.testing.assert_allclose(obs[2 * m + 3], np.mean(z(np.array(ys))), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(obs[3 * m : 4 * m], np.eye(m)[0])
    np.testing.assert_allclose(obs[4 * m + 1], z(float(last["y"][0])), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(obs[4 * m + 2], float(last["cost"][0]), rtol=1e-6)
    np.testing.assert_allclose(obs[4 * m + 3], last["remaining_budget"][0] / budget, rtol=1e-6)
    np.testing.assert_allclose(obs[4 * m + 4 : 4 * m + 4 + d], last["x"], rtol=1e-6)


def test_history_features_without_initial_design_are_raw_and_in_space() -> None:
    env = make_sb3_env("bocvs/Hartmann3-Expensive-v1", n_initial=0, budget=2.0)
    obs, _ = env.reset(seed=0)
    expected = np.zeros(4 * 7 + 4 + 2 * 3, dtype=np.float32)
    expected[4 * 7 + 3] = 1.0  # the whole budget is left
    expected[-3:] = 0.5  # no best query yet
    np.testing.assert_array_equal(obs, expected)
    terminated = False
    while not terminated:
        obs, reward, terminated, _, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        if info["evaluated"]:
            np.testing.assert_allclose(obs[4 * 7 + 1], float(reward), rtol=1e-5)  # z = y


def test_improvement_reward_sums_to_the_rise_of_the_best_value() -> None:
    env = make_sb3_env("bocvs/Hartmann3-Expensive-v1", reward="improvement", budget=20.0)
    obs, _ = env.reset(seed=2)
    env.action_space.seed(2)
    start, total, terminated, rises = obs[4 * 7], 0.0, False, 0
    while not terminated:
        obs, reward, terminated, _, _ = env.step(env.action_space.sample())
        assert float(reward) >= 0.0
        total += float(reward)
        rises += float(reward) > 0
    assert rises >= 1  # the best value rose: the sum is not 0 == 0
    np.testing.assert_allclose(total, obs[4 * 7] - start, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="reward"):
        HistoryObservation(gym.make("bocvs/Hartmann3-v1"), reward="regret")


@pytest.mark.parametrize("wrapper", [FlatAction, HistoryObservation])
def test_wrappers_refuse_an_env_that_is_not_bocvs(wrapper: Callable[[gym.Env], gym.Env]) -> None:
    with pytest.raises(TypeError, match=r"expected a BOCVSEnv .* got CartPoleEnv"):
        wrapper(gym.make("CartPole-v1"))
