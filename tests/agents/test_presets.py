"""A policy with several registered names builds each as a named preset
(:mod:`agents.policies.presets`), and no policy sits deeper than two levels below the base
agent."""

from __future__ import annotations

from typing import Any

import pytest

from agents.base import BaseAgent
from agents.policies.cvs import PRESETS as CVS_PRESETS
from agents.policies.etc import PRESETS as ETC_PRESETS
from agents.policies.model_based import ModelBasedAgent
from agents.policies.presets import Preset
from agents.policies.psq import PRESETS as PSQ_PRESETS
from agents.policies.psq import UCBPSQAgent
from bocvs_env.agent_registration import agent_class, make_agent, registered_agents

PRESETS: dict[str, Preset[Any]] = {**ETC_PRESETS, **PSQ_PRESETS, **CVS_PRESETS}
#: The true mean costs UCB-CVS requires.
COSTS = (0.1, 0.2, 1.0)


def _granted(preset: Preset[Any]) -> dict[str, Any]:
    return {"costs": COSTS} if "costs" in preset.required_params else {}


@pytest.mark.parametrize("name", sorted(registered_agents()))
def test_no_agent_sits_deeper_than_two_levels_below_the_base_agent(name: str) -> None:
    target = agent_class(name)
    policy = getattr(target, "policy", target)
    if isinstance(policy, type) and issubclass(policy, BaseAgent):
        below = policy.__mro__.index(BaseAgent)
        assert below <= 2, f"{name}: {[c.__name__ for c in policy.__mro__[:below]]}"


def test_the_psq_and_cvs_variants_are_presets_of_one_policy() -> None:
    for name, policy in [("ts-psq", "UCBPSQAgent"), ("etc-50", "UCBPSQAgent")]:
        assert type(make_agent(name)).__name__ == policy
    assert type(make_agent("ucb-cvs-est")).__name__ == "UCBCVSAgent"
    assert isinstance(agent_class("ucb-cvs-est"), Preset)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_is_its_policy_built_by_the_presets_name(name: str) -> None:
    preset = PRESETS[name]
    assert preset.policy.presets[name] is preset
    by_policy = preset.policy(preset=name, **_granted(preset))
    built = make_agent(name, **_granted(preset))
    assert by_policy.name == built.name == name
    assert by_policy.params() == built.params()  # type: ignore[attr-defined]
    assert preset.param_names() == set(by_policy.params())


@pytest.mark.parametrize("name", sorted(registered_agents()))
def test_a_registered_preset_is_the_one_its_policy_lists(name: str) -> None:
    target = agent_class(name)
    if isinstance(target, Preset):
        assert target is PRESETS[name]


def test_a_policy_refuses_a_preset_it_does_not_have() -> None:
    with pytest.raises(ValueError, match="UCBPSQAgent has no preset 'fetc'; expected one of"):
        UCBPSQAgent(preset="fetc")
    with pytest.raises(ValueError, match="SADCBOAgent has no presets; got preset='ucb-psq'"):
        make_agent("sadcbo", preset="ucb-psq")


def test_without_a_preset_a_policy_takes_its_own_defaults() -> None:
    assert UCBPSQAgent().params() == PSQ_PRESETS["ucb-psq"]().params()
    assert UCBPSQAgent().name == "ucb-psq"
    assert isinstance(UCBPSQAgent(preset="ts-psq"), ModelBasedAgent)
