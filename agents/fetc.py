"""FETC, "frugal explore-then-commit": the ``fetc`` preset of :class:`agents.etc.ETCAgent`
(docs/agents/fetc.md). Its names are defined in :mod:`agents.etc`."""

from agents.etc import ETC_SWITCHES, FETCAgent, FETCRules

__all__ = ["ETC_SWITCHES", "FETCAgent", "FETCRules"]
