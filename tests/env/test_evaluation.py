import numpy as np
import pytest

from agents import RandomAgent
from agents.base import BaseAgent
from bocvs_env import BOCVSEnv
from bocvs_env.evaluation import run_episode


class _Spy(BaseAgent):
    name = "spy"

    def act(self, observation):
        return {"control_set": 0, "x": np.full(self.task.dim, 0.5)}

    def observe(self, action, observation, reward, terminated, truncated, info):
        assert "privileged" not in info
        super().observe(action, observation, reward, terminated, truncated, info)


def test_record_matches_the_environment() -> None:
    env = BOCVSEnv("hartmann3", budget=2.0)
    record = run_episode(env, RandomAgent(), seed=4)
    assert record.n_evaluations == record.x.shape[0] == record.y.size == record.g.size
    assert record.spent[-1] <= 2.0
    assert record.set_max.shape == (7,) and record.cost_means.tolist()[0] == 0.01
    # the record's g is the per-step privileged value of the same play
    env.reset(seed=4)
    agent = RandomAgent()
    obs, info = env.reset(seed=4)
    agent.reset(env.task, obs, info, seed=4)
    obs, *_, info = env.step(agent.act(obs))
    assert record.g[0] == pytest.approx(info["privileged"]["g"], abs=1e-12)


def test_g_computed_in_one_batch_equals_the_per_step_values() -> None:
    """Without per-step privileged values (``privileged_info=False``) the record's ``g`` is
    computed after the episode in one batch; it is the same episode and the same values."""
    stepwise = run_episode(BOCVSEnv("hartmann3", budget=3.0), RandomAgent(), seed=3)
    batched = run_episode(
        BOCVSEnv("hartmann3", privileged_info=False, budget=3.0), RandomAgent(), seed=3
    )
    assert stepwise.n_evaluations >= 10
    np.testing.assert_array_equal(batched.control_set, stepwise.control_set)
    np.testing.assert_allclose(batched.g, stepwise.g, rtol=0, atol=1e-12)


def test_agents_never_see_privileged_info_and_learn_the_initial_design() -> None:
    agent = _Spy()
    record = run_episode(BOCVSEnv("hartmann3", budget=0.05, n_initial=3), agent, seed=0)
    assert agent.X.shape == (3 + record.n_evaluations, 3)
    assert agent.plays[0] == record.n_evaluations == 5


def test_same_seed_same_record() -> None:
    a = run_episode(BOCVSEnv("hartmann3", budget=1.0), RandomAgent(), seed=9)
    b = run_episode(BOCVSEnv("hartmann3", budget=1.0), RandomAgent(), seed=9)
    for name in ("control_set", "x", "y", "cost", "g"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    c = run_episode(BOCVSEnv("hartmann3", budget=1.0), RandomAgent(), seed=10)
    assert not np.array_equal(a.y[: min(a.y.size, c.y.size)], c.y[: min(a.y.size, c.y.size)])


def test_run_episode_needs_a_bocvs_env() -> None:
    import gymnasium as gym

    with pytest.raises(TypeError, match="BOCVSEnv"):
        run_episode(gym.make("CartPole-v1"), RandomAgent(), seed=0)
