import gymnasium as gym
import numpy as np
import pytest

import bocvs_env  # noqa: F401
from bocvs_env import BOCVSEnv, EpisodeEndedError, make_problem


def _actions(env: BOCVSEnv, n: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [
        {"control_set": int(rng.integers(env.problem.n_sets)), "x": rng.random(env.problem.dim)}
        for _ in range(n)
    ]


def _trajectory(env: BOCVSEnv, seed: int, actions: list[dict]) -> list:
    obs, info = env.reset(seed=seed)
    out = [info["initial_x"], info["initial_y"]]
    for a in actions:
        obs, r, term, _trunc, info = env.step(a)
        out += [obs["x"], obs["y"], obs["cost"], r, info["privileged"]["g"]]
        if term:
            break
    return out


def test_same_seed_same_trajectory_and_different_seeds_differ() -> None:
    env = BOCVSEnv("hartmann6_12d", cost_set="moderate")
    acts = _actions(env, 30)
    a, b = _trajectory(env, 3, acts), _trajectory(env, 3, acts)
    assert all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    c = _trajectory(env, 4, acts)
    random_inputs_differ = not np.array_equal(a[2], c[2])
    costs_differ = any(not np.array_equal(u, v) for u, v in zip(a[4::5], c[4::5], strict=False))
    assert random_inputs_differ and costs_differ


def test_controlled_values_are_kept_and_others_drawn() -> None:
    env = BOCVSEnv("hartmann6_12d")
    env.reset(seed=0)
    x = np.full(12, 0.123)
    obs, *_ = env.step({"control_set": 0, "x": x})
    assert np.array_equal(obs["x"][:3], x[:3])
    assert not np.any(obs["x"][3:] == 0.123)
    assert obs["control_set"] == 0


def test_budget_is_never_exceeded_and_final_play_is_free() -> None:
    env = BOCVSEnv("hartmann3", cost_set="expensive", budget=3.0)
    env.reset(seed=1)
    spent, steps = 0.0, 0
    while True:
        obs, reward, term, trunc, info = env.step({"control_set": 6, "x": np.full(3, 0.5)})
        if term:
            break
        spent += float(obs["cost"][0])
        steps += 1
    assert not info["evaluated"] and reward == 0.0 and not trunc
    assert info["cost_drawn"] > 3.0 - spent
    assert info["spent"] == pytest.approx(spent) and spent <= 3.0
    assert obs["remaining_budget"][0] == pytest.approx(3.0 - spent)
    assert steps in (2, 3)
    with pytest.raises(EpisodeEndedError, match="call reset"):
        env.step({"control_set": 0, "x": np.zeros(3)})
    env.reset(seed=2)
    env.step({"control_set": 0, "x": np.zeros(3)})  # a reset reopens the episode


def test_initial_design_is_seeded_and_configurable() -> None:
    env = BOCVSEnv("hartmann3", n_initial=7)
    _, i1 = env.reset(seed=5)
    _, i2 = env.reset(seed=5)
    assert i1["initial_x"].shape == (7, 3) and np.array_equal(i1["initial_x"], i2["initial_x"])
    _, i0 = BOCVSEnv("hartmann3", n_initial=0).reset(seed=5)
    assert i0["initial_x"].shape == (0, 3) and i0["initial_y"].shape == (0,)


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"control_set": 7, "x": np.zeros(12)}, "unknown control set 7"),
        ({"control_set": -1, "x": np.zeros(12)}, "unknown control set -1"),
        ({"control_set": 1.5, "x": np.zeros(12)}, "one integer"),
        ({"control_set": 0, "x": np.zeros(11)}, r"shape \(12,\)"),
        ({"control_set": 0, "x": np.full(12, 1.5)}, r"lie in \[0, 1\]"),
        ({"control_set": 0, "x": np.r_[np.nan, np.zeros(11)]}, "NaN"),
        ({"x": np.zeros(12)}, "keys 'control_set' and 'x'"),
    ],
)
def test_bad_actions_get_clear_errors(action, message) -> None:
    env = BOCVSEnv("hartmann6_12d")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        env.step(action)


def test_step_before_reset() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        BOCVSEnv("hartmann3").step({"control_set": 0, "x": np.zeros(3)})


def test_registered_ids_take_make_kwargs() -> None:
    env = gym.make("bocvs/Hartmann6in12D-v1", cost_set="moderate", variance=0.04, budget=5.0)
    base = env.unwrapped
    assert isinstance(base, BOCVSEnv)
    assert base.problem.budget == 5.0
    assert base.problem.cost_model.means[0] == 0.1
    assert abs(base.problem.distributions[0].variance - 0.04) < 1e-9
    expensive = gym.make("bocvs/Hartmann3-Expensive-v1").unwrapped
    assert isinstance(expensive, BOCVSEnv)
    assert expensive.problem.cost_model.means[0] == 0.6
    with pytest.raises(ValueError, match="budget must be positive"):
        gym.make("bocvs/Hartmann3-v1", budget=0)


def test_problem_object_and_options_are_exclusive() -> None:
    with pytest.raises(TypeError, match="need a problem name"):
        BOCVSEnv(make_problem("hartmann3"), budget=3.0)


def test_render_ansi_summarizes() -> None:
    env = BOCVSEnv("hartmann3", render_mode="ansi")
    env.reset(seed=0)
    env.step({"control_set": 0, "x": np.zeros(3)})
    text = env.render()
    assert text is not None
    assert "hartmann3" in text and "step 1" in text and "spent 0.01" in text


def test_public_task_hides_the_truth() -> None:
    task = BOCVSEnv("hartmann6_12d").task
    assert set(vars(task)) == {
        "name",
        "dim",
        "control_sets",
        "distributions",
        "budget",
        "lower_bound",
        "n_initial",
        # The problem's model default for agents (the reference codes' GP lengthscale): public
        # metadata, not the objective or the costs.
        "reference_lengthscale",
    }


def test_control_set_observation_is_start_zero_with_m_for_no_set_yet() -> None:
    env = BOCVSEnv("hartmann3")
    m = env.problem.n_sets
    observation_space = env.observation_space
    assert isinstance(observation_space, gym.spaces.Dict)
    space = observation_space["control_set"]
    assert isinstance(space, gym.spaces.Discrete)
    assert (space.n, space.start) == (m + 1, 0)
    obs, _ = env.reset(seed=0)
    assert obs["control_set"] == m and space.contains(obs["control_set"])
    obs, *_ = env.step({"control_set": 2, "x": np.full(3, 0.5)})
    assert obs["control_set"] == 2  # the action's index


def test_an_id_of_the_old_version_is_deprecated() -> None:
    with (
        pytest.warns(DeprecationWarning, match="out of date"),
        pytest.raises(gym.error.DeprecatedEnv, match="bocvs/Hartmann3-v1"),
    ):
        gym.make("bocvs/Hartmann3-v0")
