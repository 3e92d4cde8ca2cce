"""An agent restored from its saved state acts exactly as the agent that saved it."""

from __future__ import annotations

import io
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import bocvs_env  # noqa: F401  (registers the environments)
from agents import make_agent
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


def _played(make: Any, k: int, **options: Any) -> tuple[Any, ...]:
    """An agent from ``make`` after ``k`` plays on Hartmann-3 (with the environment's
    ``options``): (the environment, its reset observation and info, the agent, the last
    observation)."""
    env = gym.make("bocvs/Hartmann3-v1", **options)
    first = make()
    obs0, info0 = env.reset(seed=7)
    first.reset(env.get_wrapper_attr("task"), obs0, public_info(info0), seed=3)
    obs = obs0
    for _ in range(k):
        action = first.act(obs)
        obs, reward, term, trunc, info = env.step(action)
        first.observe(action, obs, float(reward), term, trunc, public_info(info))
    return env, obs0, public_info(info0), first, obs


def _restored_acts_alike(make: Any, k: int, m: int, **options: Any) -> None:
    env, obs0, info0, first, obs = _played(make, k, **options)
    restored = make()
    restored.reset(env.get_wrapper_attr("task"), obs0, info0, seed=3)
    restored.load_state(*_as_stored(*first.save_state()))
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


#: The GP agents that save their state, an explore-then-commit preset with groups (GETC) and
#: one with the authors' restarted GP (etc-authors).
GP_AGENTS = ("etc", "ucb-psq", "ts-psq", "getc", "etc-authors", "ei-cost", "sadcbo", "ucb-cvs",
             "ucb-cvs-est", "pbgi-sets")  # fmt: skip

#: The parameters an agent needs on Hartmann-3: UCB-CVS's true mean costs (the default cost set's).
NEEDED = {"ucb-cvs": {"costs": (0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0)}}


@pytest.mark.parametrize("name", GP_AGENTS)
def test_a_gp_agent_restored_after_k_observations_acts_as_the_uninterrupted_one(name: str) -> None:
    """Past refits of the hyperparameters (every 10 points), with the GP's factor grown by
    block updates and the acquisition's Gram matrices grown from the last fit's (the frugal
    agents in a held decision's replays)."""
    assert supports_state(make_agent(name, **NEEDED.get(name, {})))
    _restored_acts_alike(lambda: make_agent(name, **NEEDED.get(name, {})), k=14, m=3)


def test_etc_authors_restored_in_its_late_phase_acts_as_the_uninterrupted_one() -> None:
    """On a model the late phase froze, whose precision LAPACK left column-major (a product's
    rounding depends on its operands' layout, which the state keeps)."""
    agent = lambda: make_agent("etc-authors", late_round=12)  # noqa: E731
    *_, played, _ = _played(agent, k=24, budget=6.0)
    assert played.decisions[-1]["phase"] == "late"
    _restored_acts_alike(agent, k=24, m=3, budget=6.0)


def test_etc_authors_restored_in_exploitation_acts_as_the_uninterrupted_one() -> None:
    """After the restarted GP was tuned (its Adam steps rerun from the start every decision)."""
    agent = lambda: make_agent("etc-authors")  # noqa: E731
    *_, played, _ = _played(agent, k=15, budget=3.0)
    assert played.decisions[-1]["phase"] == "exploit" and played.surrogate.fitter.n_refits > 0
    _restored_acts_alike(agent, k=15, m=1, budget=3.0)


def test_sadcbo_restored_when_intervening_acts_as_the_uninterrupted_one() -> None:
    """Past its observational phase, whose place (the decisions made) the state keeps."""
    *_, played, _ = _played(lambda: make_agent("sadcbo"), k=16, budget=10.0)
    assert played.decisions[-1]["phase"] == "intervene"
    _restored_acts_alike(lambda: make_agent("sadcbo"), k=16, m=3, budget=10.0)


def test_pbgi_sets_restored_after_lambda_decayed_acts_as_the_uninterrupted_one() -> None:
    """After ``lambda`` was divided (the index fell below the incumbent of the plays so far)."""
    *_, played, _ = _played(lambda: make_agent("pbgi-sets"), k=26, budget=10.0)
    assert played.lmbda < played.rules.lmbda
    _restored_acts_alike(lambda: make_agent("pbgi-sets"), k=26, m=3, budget=10.0)


def test_a_policys_altered_extras_are_refused_in_one_line() -> None:
    *_, agent, _ = _played(lambda: make_agent("pbgi-sets"), k=3)
    arrays, meta = _as_stored(*agent.save_state())
    pbgi = lambda: make_agent("pbgi-sets")  # noqa: E731
    with pytest.raises(ValueError, match=r"a state's lmbda must be positive and finite, got -1\.0"):
        _loads_into(pbgi, arrays, {**meta, "lmbda": -1.0})
    altered = {**arrays, "pbgi.played_sets": arrays["pbgi.played_sets"][:-1]}
    with pytest.raises(ValueError, match=r"a state's pbgi\.played_sets must be 3 set indices"):
        _loads_into(pbgi, altered, meta)
    *_, agent, _ = _played(lambda: make_agent("sadcbo"), k=3)
    arrays, meta = _as_stored(*agent.save_state())
    with pytest.raises(ValueError, match="a state's rounds must be a count of decisions"):
        _loads_into(lambda: make_agent("sadcbo"), arrays, {**meta, "rounds": "2"})


def test_a_gp_agents_state_is_numeric_arrays_and_json() -> None:
    *_, agent, _ = _played(lambda: make_agent("etc"), k=3)
    arrays, meta = agent.save_state()
    assert all(np.asarray(a).dtype.kind in "biuf" for a in arrays.values())
    assert json.loads(json.dumps(meta)) == meta
    assert {"surrogate.factor.L", "surrogate.hyper.lengthscale", "etc.ucb_bar"} <= set(arrays)


def _loads_into(
    make: Any, arrays: dict[str, np.ndarray], meta: dict[str, Any], seed: int = 3
) -> None:
    env = gym.make("bocvs/Hartmann3-v1")
    obs0, info0 = env.reset(seed=7)
    agent = make()
    agent.reset(env.get_wrapper_attr("task"), obs0, public_info(info0), seed=seed)
    agent.load_state(arrays, meta)


def test_a_gp_agents_altered_or_foreign_state_is_refused_in_one_line() -> None:
    *_, agent, _ = _played(lambda: make_agent("etc"), k=12)
    arrays, meta = _as_stored(*agent.save_state())
    etc = lambda: make_agent("etc")  # noqa: E731
    altered = {**arrays, "surrogate.factor.L": arrays["surrogate.factor.L"] * 1.01}
    with pytest.raises(ValueError, match="saved factor L L\\^T is not what the state's other"):
        _loads_into(etc, altered, meta)
    altered = {**arrays, "surrogate.y": arrays["surrogate.y"] + 1.0}
    with pytest.raises(
        ValueError, match=r"the saved GP's point 0 .* is not one the agent observed"
    ):
        _loads_into(etc, altered, meta)
    grams = [k for k in arrays if k.startswith("gp_cache.") and k.endswith(".gram")]
    assert grams
    altered = {**arrays, grams[0]: arrays[grams[0]] + 1.0}
    with pytest.raises(ValueError, match="saved Gram matrix of set"):
        _loads_into(etc, altered, meta)
    with pytest.raises(
        ValueError, match="a state saved with agent = 'etc': this agent's agent is 'ucb-psq'"
    ):
        _loads_into(lambda: make_agent("ucb-psq"), arrays, meta)
    with pytest.raises(ValueError, match="saved with params"):
        _loads_into(lambda: make_agent("etc", beta=3.0), arrays, meta)
    with pytest.raises(ValueError, match="saved with model_seed"):
        _loads_into(etc, arrays, meta, seed=4)
