"""Agents by name, so that the benchmark and the CLI can name them."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterable
from typing import Any

from agents.base import Agent

#: Name -> ``"module:Class"`` (or ``"module:factory"``); imported on first use.
AGENTS: dict[str, str] = {
    "random": "agents.random:RandomAgent",
    "etc": "agents.etc:ETCAgent",
    "ucb-psq": "agents.psq:UCBPSQAgent",
    "ts-psq": "agents.psq:TSPSQAgent",
    "ucb-cvs": "agents.cvs:UCBCVSAgent",
    "ucb-cvs-est": "agents.cvs:EstimatedCostUCBCVSAgent",
    "etc-50": "agents.cvs:ETC50Agent",
    "sb3": "agents.sb3:SB3Agent",
    "fetc": "agents.fetc:FETCAgent",
    "etc-spend": "agents.fetc_ablation:etc_spend",
    "etc-bernstein": "agents.fetc_ablation:etc_bernstein",
    "etc-current": "agents.fetc_ablation:etc_current",
    "etc-relevance": "agents.fetc_ablation:etc_relevance",
    "etc-ts": "agents.fetc_ablation:etc_ts",
    "etc-refit": "agents.fetc_ablation:etc_refit",
    "sadcbo": "agents.sadcbo:SADCBOAgent",
    "ei-cost": "agents.cost_ei:CostCooledEIAgent",
}

#: Name -> the keyword parameters an agent cannot be built without (a trained SB3 model's path;
#: UCB-CVS's true mean costs, which the benchmark runner grants it from the problem).
NEEDS_PARAMS: dict[str, tuple[str, ...]] = {
    "sb3": ("model",),
    "ucb-cvs": ("costs",),
}


def missing_params(name: str, given: Iterable[str]) -> list[str]:
    """The parameters of :data:`NEEDS_PARAMS` that agent ``name`` needs and ``given`` lacks."""
    have = set(given)
    return [p for p in NEEDS_PARAMS.get(name, ()) if p not in have]


def agent_class(name: str) -> type[Agent]:
    """The class of a registered agent (imported on first use).

    Raises:
        ValueError: for an unknown name.
    """
    try:
        target = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; expected one of {sorted(AGENTS)}") from None
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)


def accepted_params(name: str) -> set[str] | None:
    """The keyword parameters agent ``name``'s constructor takes, following ``**kwargs`` that
    it passes on to its base classes' constructors; ``None`` if it takes any."""
    accepted: set[str] = set()
    for cls in agent_class(name).__mro__:
        init = cls.__dict__.get("__init__")
        if init is None or cls is object:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]  # less self
        accepted |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            return accepted
    return None


def make_agent(name: str, **params: Any) -> Agent:
    """Build a registered agent by name with keyword parameters.

    Raises:
        ValueError: for an unknown name, or when a parameter of :data:`NEEDS_PARAMS` is missing.
    """
    cls = agent_class(name)
    missing = missing_params(name, params)
    if missing:
        raise ValueError(
            f"agent {name!r} needs the parameters {missing}; pass them as keyword arguments "
            f"(in a sweep config: [agent_params.{name}])"
        )
    return cls(**params)
