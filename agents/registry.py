"""Agents by name, so that the benchmark and the CLI can name them."""

from __future__ import annotations

import importlib
from typing import Any

from agents.base import Agent

#: Name -> ``"module:Class"``; classes are imported on first use.
AGENTS: dict[str, str] = {
    "random": "agents.random:RandomAgent",
    "etc": "agents.etc:ETCAgent",
    "ucb-psq": "agents.psq:UCBPSQAgent",
    "ts-psq": "agents.psq:TSPSQAgent",
    "ucb-cvs": "agents.cvs:UCBCVSAgent",
    "ucb-cvs-est": "agents.cvs:EstimatedCostUCBCVSAgent",
    "etc-50": "agents.cvs:ETC50Agent",
}


def make_agent(name: str, **params: Any) -> Agent:
    """Build a registered agent by name with keyword parameters.

    Raises:
        ValueError: for an unknown name.
    """
    try:
        target = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; expected one of {sorted(AGENTS)}") from None
    module, cls = target.split(":")
    return getattr(importlib.import_module(module), cls)(**params)
