"""FETC's ablation agents: each of its five components alone on top of ETC, presets of
:class:`agents.etc.ETCAgent` (:data:`agents.etc.ABLATIONS`). Their names are defined in
:mod:`agents.etc`."""

from agents.etc import (
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
