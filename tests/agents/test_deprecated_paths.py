"""The agents' modules that moved still import from their old paths, with a warning.

The published archive names ``agents.fetc:FETCAgent`` and users import the old paths; each
old path gives the new module's objects and a :class:`DeprecationWarning` naming where they
went, until the version :data:`agents.deprecation.REMOVED_IN`.
"""

from __future__ import annotations

import importlib

import pytest

from agents.deprecation import REMOVED_IN
from bocvs_env.agent_registration import make_agent

#: Old module path -> (a name it had, the module it moved to).
MOVED = {
    "agents.etc": ("ETC_EXACT_SETTINGS", "agents.policies.etc"),
    "agents.fetc": ("FETCAgent", "agents.policies.etc"),
    "agents.fetc_ablation": ("ETCSpendAgent", "agents.policies.etc"),
    "agents.psq": ("UCBPSQAgent", "agents.policies.psq"),
    "agents.cvs": ("ETC50Agent", "agents.policies.cvs"),
    "agents.sadcbo": ("SADCBOAgent", "agents.policies.sadcbo"),
    "agents.cost_ei": ("CostCooledEIAgent", "agents.policies.cost_ei"),
    "agents.random": ("RandomAgent", "agents.policies.random"),
    "agents.sb3": ("SB3Agent", "agents.policies.sb3"),
    "agents.model_based": ("ModelBasedAgent", "agents.policies.model_based"),
    "agents.decisions": ("select_s1", "agents.rules.set_selection"),
    "agents.relevance": ("redundant_sets", "agents.rules.relevance"),
    "agents.cost_estimates": ("bernstein_cost_lcb", "agents.costs.estimates"),
    "agents.allocation": ("spend_balanced_set", "agents.costs.allocation"),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_gives_the_moved_object_and_warns(old: str) -> None:
    name, new = MOVED[old]
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old} moved to {new}.*goes in {REMOVED_IN}"):
        moved = getattr(module, name)
    assert moved is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError, match=f"module '{old}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_the_archives_import_path_still_builds_fetc_and_warns() -> None:
    with pytest.warns(DeprecationWarning, match="agents.fetc moved to agents.policies.etc"):
        agent = make_agent("agents.fetc:FETCAgent")
    assert agent.name == "fetc"  # type: ignore[attr-defined]
    assert agent.params() == make_agent("fetc").params()  # type: ignore[attr-defined]
