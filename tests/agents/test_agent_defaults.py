"""Every model-based agent's parameters, as built by name, are pinned.

A benchmark run records ``params()``; an agent's defaults (its own and those of the model
options, :class:`agents.config.AgentConfig` with the class's presets) decide what a
sweep that names only the agent runs. The fixture ``data/agent_defaults.json`` holds, for every
registered :class:`~agents.policies.model_based.ModelBasedAgent`, ``params()`` built with no parameters
and with ``exact=True``; a default that moves fails here, beside the decision fixtures
(``test_decisions_unchanged.py``), which pin what the settings decide.

Regenerate (only when a default is meant to change, and say why in the commit):
``python tests/agents/test_agent_defaults.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.policies.model_based import ModelBasedAgent
from bocvs_env.agent_registration import agent_class, make_agent, registered_agents

FIXTURE = Path(__file__).parent / "data" / "agent_defaults.json"
#: The true mean costs that UCB-CVS requires (recorded among its parameters).
COSTS = [0.1, 1.0]
VARIANTS: dict[str, dict[str, Any]] = {"default": {}, "exact": {"exact": True}}


def model_based_names() -> list[str]:
    """The registered agents whose class (or, for a preset, the policy it builds) is a
    :class:`ModelBasedAgent`."""
    policies = {
        name: getattr(agent_class(name), "policy", agent_class(name))
        for name in registered_agents()
    }
    return sorted(
        name
        for name, policy in policies.items()
        if isinstance(policy, type) and issubclass(policy, ModelBasedAgent)
    )


def built_params(name: str, variant: str) -> dict[str, Any]:
    costs = {"costs": COSTS} if "costs" in getattr(agent_class(name), "required_params", ()) else {}
    agent = make_agent(name, **costs, **VARIANTS[variant])
    assert isinstance(agent, ModelBasedAgent)
    params: dict[str, Any] = json.loads(json.dumps(agent.params(), default=list))
    return params


def test_the_fixture_covers_every_model_based_agent() -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert sorted(recorded) == model_based_names()
    assert {"etc", "fetc", "ucb-psq", "ts-psq", "etc-50", "sadcbo", "ei-cost"} <= set(recorded)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", model_based_names())
def test_the_parameters_of_an_agent_built_by_name_are_unchanged(name: str, variant: str) -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert built_params(name, variant) == recorded[name][variant]


def main(argv: list[str]) -> None:
    """``--write``: record the fixture."""
    if argv != ["--write"]:
        raise SystemExit("usage: python tests/agents/test_agent_defaults.py --write")
    fixture = {n: {v: built_params(n, v) for v in VARIANTS} for n in model_based_names()}
    FIXTURE.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
