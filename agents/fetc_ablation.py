"""FETC's ablation agents: each of its five components alone on top of ETC, presets of
:class:`agents.policies.etc.ETCAgent` (:data:`agents.policies.etc.ABLATIONS`). Their names are defined in
:mod:`agents.policies.etc`."""

from agents.policies.etc import (
    COMPONENTS,
    ETC_RULES,
    ETCBernsteinAgent,
    ETCBoundedAgent,
    ETCCurrentAgent,
    ETCRelevanceAgent,
    ETCSpendAgent,
    ETCTSAgent,
)

__all__ = [
    "COMPONENTS",
    "ETC_RULES",
    "ETCBernsteinAgent",
    "ETCBoundedAgent",
    "ETCCurrentAgent",
    "ETCRelevanceAgent",
    "ETCSpendAgent",
    "ETCTSAgent",
]
