"""The neural acquisition: its observation wrapper, the order-invariant policy, the shipped
agent, and the training's reproducibility."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import cast

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.neural.agent import NeuralAFAgent, NeuralAFPriorAgent, shipped_model
from agents.neural.features import BOUND, FEATURES, CandidateFeatures, FeatureConfig
from agents.neural.imitation import teacher_row
from agents.neural.network import RowPolicy, row_logits
from agents.neural.train import (
    TrainConfig,
    build_model,
    make_envs,
    seed_range,
    train,
    validation,
    write_curve,
)
from agents.neural.validation import KeepBest, validation_score
from agents.neural.wrapper import CandidateEnv, make_candidate_env
from bocvs_env.agent import check_agent
from bocvs_env.env import unwrap_bocvs
from bocvs_env.evaluation import run_episode
from bocvs_env.problems.families import FamilyEnv

FAMILY = "bocvs/RotatedHartmann3Family-Train-v1"


def test_the_wrapper_passes_gymnasium_and_sb3_checks() -> None:
    env = make_candidate_env(FAMILY, budget=2.0)
    gym_check_env(env, skip_render_check=True)
    sb3_check_env(make_candidate_env(FAMILY, budget=2.0))
    m, k = env.task.n_sets, FeatureConfig().n_candidates
    assert env.observation_space.shape == (m * k, len(FEATURES))
    assert env.action_space == gym.spaces.Discrete(m * k)


def test_an_action_plays_its_rows_set_and_query() -> None:
    env = make_candidate_env(FAMILY, budget=2.0)
    rows, _ = env.reset(seed=3)
    assert env.observation_space.contains(rows)
    row = 5 * FeatureConfig().n_candidates + 2  # set 5, a pool candidate
    query = env.queries[row].copy()
    _, reward, _, _, info = env.step(row)
    assert info["evaluated"] and float(reward) >= 0.0
    assert [len(c) for c in env.features.costs] == [0, 0, 0, 0, 0, 1, 0]
    controlled = list(env.task.control_sets[5])
    np.testing.assert_array_equal(env.features.X[-1][controlled], query[controlled])


def test_the_reward_reads_the_g_that_records_hold() -> None:
    env = make_candidate_env(FAMILY, budget=2.0)
    env.reset(seed=4)
    base = env.base
    y0_mean = env.best_g
    _, reward, _, _, _ = env.step(0)
    played = env.features.X[-1]
    recorded = base.goal.g_one(int(env.features.set_of_row[0]), played)  # what an episode records
    assert env.best_played == pytest.approx(recorded, rel=1e-9, abs=1e-9)
    assert float(reward) == pytest.approx(max(recorded - y0_mean, 0.0) / env.scale, abs=1e-9)
    values = env.row_values(np.array([3, 9]))  # a pool row of set 0, one of set 1
    assert values.shape == (2,)
    assert values[0] == pytest.approx(base.goal.g_one(0, env.queries[3]), rel=1e-9, abs=1e-9)
    assert values[1] == pytest.approx(base.goal.g_one(1, env.queries[9]), rel=1e-9, abs=1e-9)


def test_the_task_distribution_draws_settings_and_reuses_functions() -> None:
    env = make_candidate_env(
        FAMILY, cost_sets=("cheap", "expensive"), budgets=(3, 10), episodes_per_function=3,
        max_evaluations=4,
    )  # fmt: skip
    assert len(env.envs) == 4
    settings, functions = [], []
    for k in range(6):
        env.reset(seed=0 if k == 0 else None)
        settings.append((tuple(env.base.problem.cost_model.means), env.task.budget))
        functions.append((env.base.problem.config or {})["function_seed"])
        done, evaluations = False, 0
        while not done:
            _, _, terminated, truncated, info = env.step(0)
            evaluations += int(info["evaluated"])
            done = terminated or truncated
        assert evaluations <= 4  # max_evaluations truncates
    assert len(set(settings)) > 1
    assert functions[0:3] == [functions[0]] * 3 and functions[3:6] == [functions[3]] * 3
    assert functions[0] != functions[3]
    # The same seed, the same setting and function; the budget shows in the features.
    first, _ = env.reset(seed=5)
    again, _ = env.reset(seed=5)
    np.testing.assert_array_equal(first, again)
    share = FEATURES.index("log_cost_share")
    by_budget = {}
    for seed in range(12):
        rows, _ = env.reset(seed=seed)
        by_budget[env.task.budget] = float(rows[0, share])
    assert by_budget[3.0] == pytest.approx(np.log(1 / 3)) and by_budget[10.0] == pytest.approx(
        np.log(1 / 10)
    )
    with pytest.raises(ValueError, match="share their control sets"):
        CandidateEnv([gym.make(FAMILY), gym.make("bocvs/Hartmann6in12D-Moderate-v1")])


def rows_of_episode(privileged: bool, steps: int = 4) -> list[np.ndarray]:
    """The features of the first ``steps`` decisions, fed the info as the env gives it."""
    env = gym.make(FAMILY, budget=2.0, privileged_info=privileged)
    obs, info = env.reset(seed=11)
    features = CandidateFeatures(unwrap_bocvs(env).task)
    features.reset(info, seed=5)
    seen = []
    for _ in range(steps):
        rows, queries = features.rows()
        seen.append(rows)
        r = int(np.argmax(rows[:, FEATURES.index("ucb_gap_per_cost")]))
        action = {"control_set": int(features.set_of_row[r]), "x": queries[r]}
        obs, _, terminated, _, info = env.step(action)
        features.update(obs, info)
        if terminated:
            break
    return seen


def test_features_use_public_data_only_and_stay_in_bounds() -> None:
    with_truth, without = rows_of_episode(True), rows_of_episode(False)
    assert len(with_truth) == len(without)
    for a, b in zip(with_truth, without, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == np.float32 and np.all(np.abs(a) <= BOUND)
    first = with_truth[0]
    k = FeatureConfig().n_candidates
    assert np.all(first[:, FEATURES.index("unplayed")] == 1.0)  # nothing played yet
    assert np.all(first[::k, FEATURES.index("is_ucb_max")] == 1.0)
    assert np.all(first[1::k, FEATURES.index("is_mean_max")] == 1.0)
    # The UCB maximizer's UCB is the set's largest among its candidates.
    gap = first[:, FEATURES.index("ucb_gap")].reshape(-1, k)
    assert np.all(gap[:, 0] >= gap.max(axis=1) - 1e-5)


def test_the_policy_is_invariant_to_the_order_of_rows() -> None:
    env = make_candidate_env(FAMILY, budget=2.0)
    torch.manual_seed(0)
    policy = RowPolicy(env.observation_space, env.action_space, lambda _: 1e-3)
    with torch.no_grad():
        policy.rows.actor_output.weight.normal_()  # logits far from uniform, so a permutation shows
    rows, _ = env.reset(seed=1)
    perm = np.random.default_rng(0).permutation(rows.shape[0])
    obs = torch.as_tensor(np.stack([rows, rows[perm]]))
    with torch.no_grad():
        logits = policy.logits(obs).numpy()
        values = policy.predict_values(obs).numpy()
    np.testing.assert_allclose(logits[1], logits[0][perm], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values[1], values[0], rtol=1e-5, atol=1e-6)
    assert not np.allclose(logits[0], logits[0][0])


def test_the_untrained_actor_is_exactly_its_prior() -> None:
    env = make_candidate_env(FAMILY, budget=2.0)
    ucb = FEATURES.index("ucb_gap")
    policy = RowPolicy(
        env.observation_space, env.action_space, lambda _: 1e-3, prior_feature=ucb, prior_weight=5.0
    )
    rows, _ = env.reset(seed=2)
    with torch.no_grad():
        logits = policy.logits(torch.as_tensor(rows)[None])[0].numpy()
    # The MLP's output layer starts at zero: the logits are 5 x the UCB gap, GP-UCB's choice.
    np.testing.assert_allclose(logits, 5.0 * rows[:, ucb], rtol=1e-6, atol=0)
    assert int(np.argmax(logits)) == int(np.argmax(rows[:, ucb]))


def test_the_shipped_agent_loads_and_plays_an_episode() -> None:
    assert shipped_model().is_file()
    assert shipped_model().stat().st_size <= 5 * 2**20
    agent = make_agent("neural-af")
    assert isinstance(agent, NeuralAFAgent)
    check_agent(agent, env_id="bocvs/GPSampleFamily-Test-v1", steps=3, budget=5.0)
    env = gym.make("bocvs/RotatedHartmann3Family-Test-v1", budget=2.0)
    record = run_episode(env, agent, seed=100_000)
    assert record.n_evaluations >= 1
    assert agent.params() == {"model": None, "deterministic": True, "n_candidates": 8}


def test_the_agent_plays_tasks_of_other_sizes_and_refuses_a_missing_model(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no saved neural-af model"):
        NeuralAFAgent(model=tmp_path / "missing.zip")
    agent = NeuralAFAgent(n_candidates=4)  # trained on 7 sets x 8 candidates
    env = gym.make("bocvs/Hartmann6in12D-Moderate-v1", budget=3.0)
    record = run_episode(env, agent, seed=0)
    assert record.n_evaluations >= 1
    assert agent.features.space.shape == (unwrap_bocvs(env).task.n_sets * 4, len(FEATURES))


def test_the_prior_agent_is_the_untrained_start_of_the_training() -> None:
    state = torch.random.get_rng_state()
    agent = NeuralAFPriorAgent()
    assert torch.equal(torch.random.get_rng_state(), state)  # the global generator untouched
    check_agent(agent, env_id="bocvs/GPSampleFamily-Test-v1", steps=3, budget=5.0)
    assert agent.params() == {"deterministic": True, "n_candidates": 8, "prior_weight": 1.0}
    start = cast(RowPolicy, build_model(TrainConfig(n_envs=1)).policy)
    env = gym.make("bocvs/RotatedHartmann3Family-Test-v1", budget=2.0)
    obs, info = env.reset(seed=100_000)
    agent.reset(unwrap_bocvs(env).task, obs, info, seed=0)
    for _ in range(3):
        rows, _ = agent.features.rows()
        logits = row_logits(agent.policy, rows)
        # The network's output is zero: the logits are the UCB gap, the training's start.
        np.testing.assert_allclose(logits, rows[:, FEATURES.index("ucb_gap")], rtol=0, atol=0)
        np.testing.assert_allclose(logits, row_logits(start, rows), rtol=1e-6, atol=1e-6)
        action = agent.act(obs)
        assert action["control_set"] == int(agent.features.set_of_row[int(np.argmax(logits))])
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, info)
        if terminated:
            break
    with pytest.raises(ValueError, match="prior_weight must be > 0"):
        NeuralAFPriorAgent(prior_weight=0.0)


def test_the_teacher_takes_the_largest_true_gain_per_unit_cost() -> None:
    env = make_candidate_env(FAMILY, budget=2.0)
    env.reset(seed=6)
    rows = env.features.ucb_rows
    g = env.row_values(rows)
    np.testing.assert_allclose(g, env.row_values(np.arange(len(env.queries)))[rows])
    cost = np.asarray(env.base.problem.cost_model.means)[env.features.set_of_row[rows]]
    row = teacher_row(env)
    assert row in rows
    k = int(np.flatnonzero(rows == row)[0])
    gain = g - env.best_g
    if np.any(gain > 0):
        rate = np.where(gain > 0, gain / cost, -np.inf)
        assert gain[k] > 0 and rate[k] == pytest.approx(rate.max())
    else:
        assert cost[k] == cost.min()


def test_training_and_validation_functions_are_disjoint_parts_of_the_train_split() -> None:
    config = TrainConfig(n_envs=2)
    train_envs = make_envs(config)
    keep = validation(config)
    assert keep is not None
    drawn = {
        cast(FamilyEnv, b).seed_range
        for e in train_envs.envs
        for b in cast(CandidateEnv, e.unwrapped).bases
    }
    held_out = {cast(FamilyEnv, b).seed_range for e in keep.envs for b in e.bases}
    assert drawn == {(0, 9000)} and held_out == {(9000, 10000)}
    # Every cost set and budget of the task distribution, in training and validation.
    settings = {(float(b.problem.cost_model.means[0]), b.task.budget) for b in keep.envs[0].bases}
    assert len(settings) == 3 * 8
    assert validation(TrainConfig(validation_function_seeds="")) is None
    with pytest.raises(ValueError, match="'lo,hi'"):
        seed_range("9000")
    with pytest.raises(ValueError, match="must be disjoint"):
        validation(TrainConfig(train_function_seeds="0,9500"))
    with pytest.raises(ValueError, match="must be disjoint"):
        validation(TrainConfig(train_function_seeds=""))
    with pytest.raises(ValueError, match="n >= 1"):
        KeepBest(keep.envs, 0, 10)


@pytest.mark.slow
def test_training_is_reproducible_and_keeps_the_best_validated_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SB3_LOGDIR", raising=False)  # where SB3's default logger would write
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    config = TrainConfig(
        env_ids=FAMILY,
        cost_sets="moderate,expensive",
        budgets="2,3",
        max_evaluations=8,
        imitation_rounds=1,
        imitation_steps=24,
        imitation_epochs=1,
        total_timesteps=128,
        n_envs=2,
        n_steps=32,
        batch_size=32,
        n_epochs=2,
        learning_rate=3e-3,  # large steps from a uniform start: the validated policies differ
        prior_feature="",
        validation_functions=3,
        validate_every=32,
    )
    result = train(config, progress=False)
    keep = validation(config)
    assert keep is not None
    # The returned weights score what the best validation scored, on the same functions.
    scores = [score for _, score in result.validation_history]
    n = result.imitation_steps
    assert n >= 24
    # The start, the imitation round, PPO's start (the imitation's best) and its updates.
    assert [steps for steps, _ in result.validation_history] == [0, n, n, n + 64, n + 128]
    assert len(set(scores)) > 1
    assert validation_score(cast(RowPolicy, result.model.policy), keep.envs, 3) == pytest.approx(
        max(scores)
    )
    first = result.model.policy.state_dict()
    again = train(config, progress=False)
    assert again.validation_history == result.validation_history
    for key, value in again.model.policy.state_dict().items():
        torch.testing.assert_close(value, first[key], rtol=0, atol=0)
    write_curve(str(tmp_path / "curve.json"), config, result)
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert [(p["steps"], p["score"]) for p in curve["validation"]] == result.validation_history
    assert curve["kept_steps"] == result.best_steps and curve["imitation_steps"] == n
    assert not list(tmp_path.glob("SB3-*"))  # no log folder left behind
