"""An agent restored from its saved state acts exactly as the agent that saved it."""

from __future__ import annotations

import io
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import bocvs_env  # noqa: F401  (registers the environments)
from agents.policies.random import RandomAgent
from bocvs_env.agent_state import StatefulAgent, load_generator_state, supports_state
from bocvs_env.evaluation import public_info


def _as_stored(arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> tuple[Any, Any]:
    """The state as a journal gives it back: an ``.npz`` without pickles and JSON."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as npz:
        loaded = {name: npz[name] for name in npz.files}
    return loaded, json.loads(json.dumps(meta))


def _restored_acts_alike(make: Any, k: int, m: int, env_id: str = "bocvs/Hartmann3-v1") -> None:
    env = gym.make(env_id)
    task = env.get_wrapper_attr("task")
    first, restored = make(), make()
    obs0, info0 = env.reset(seed=7)
    first.reset(task, obs0, public_info(info0), seed=3)
    obs = obs0
    for _ in range(k):
        action = first.act(obs)
        obs, reward, term, trunc, info = env.step(action)
        first.observe(action, obs, float(reward), term, trunc, public_info(info))
    restored.reset(task, obs0, public_info(info0), seed=3)
    restored.load_state(*_as_stored(*first.state()))
    for _ in range(m):
        a, b = first.act(obs), restored.act(obs)
        assert a["control_set"] == b["control_set"]
        assert np.asarray(a["x"]).tobytes() == np.asarray(b["x"]).tobytes()
        obs, reward, term, trunc, info = env.step(a)
        for agent in (first, restored):
            agent.observe(a, obs, float(reward), term, trunc, public_info(info))
    env.close()


def test_random_restored_after_k_observations_acts_as_the_uninterrupted_one() -> None:
    assert supports_state(RandomAgent()) and isinstance(RandomAgent(), StatefulAgent)
    _restored_acts_alike(RandomAgent, k=6, m=5)


def test_a_generator_state_of_another_kind_is_refused() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="generator state of 'MT19937'"):
        load_generator_state(
            rng, dict(np.random.Generator(np.random.MT19937(0)).bit_generator.state)
        )
