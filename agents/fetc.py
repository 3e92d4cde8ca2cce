"""FETC, "frugal explore-then-commit": the ``fetc`` preset of :class:`agents.policies.etc.ETCAgent`
(docs/agents/fetc.md). Its names are defined in :mod:`agents.policies.etc`."""

from agents.policies.etc import ETC_SWITCHES, FETCAgent, FETCRules

__all__ = ["ETC_SWITCHES", "FETCAgent", "FETCRules"]
