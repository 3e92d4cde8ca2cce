"""The agents' geometric refit schedule (the fast options' default) reaches their surrogate."""

from __future__ import annotations

import pytest

from agents.policies.psq import UCBPSQAgent
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import public_info


def test_an_agent_refits_on_the_geometric_schedule_it_was_given() -> None:
    env = BOCVSEnv("hartmann3", budget=100.0, n_initial=4)
    agent = UCBPSQAgent(refit_schedule="geometric", refit_factor=2.0, refit_every=1)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    sizes = []
    for _ in range(13):  # 4 + 13 = 17 points: refits at 4 (the first fit), 8 and 16
        before = agent.surrogate.fitter.n_refits
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
        if agent.surrogate.fitter.n_refits > before:
            sizes.append(len(agent.y))
    assert sizes == [8, 16]
    assert agent.params()["refit_schedule"] == "geometric"
    assert agent.params()["refit_factor"] == 2.0


@pytest.mark.parametrize(
    ("option", "value"), [("refit_schedule", "sometimes"), ("refit_factor", 0.5)]
)
def test_an_agent_refuses_a_bad_refit_schedule_when_built(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=option):
        UCBPSQAgent(**{option: value})  # type: ignore[arg-type]
