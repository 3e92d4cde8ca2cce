"""FETC's ablation: each of its five components alone on top of ETC, as agents of their own.

Each class is a :class:`~agents.fetc.FETCAgent` whose switches default to ETC's values
(:data:`agents.fetc.ETC_SWITCHES`) except one (:attr:`AblationAgent.component`), so that a sweep
can put ``etc``, the five ``etc-<component>`` agents and ``fetc`` side by side and the table shows
what each change buys alone. Keyword parameters pass through to :class:`~agents.fetc.FETCAgent`
(a sweep's ``agent_params``), so any switch can still be set explicitly. The model options are
FETC's computation, which every ablation agent keeps: the fast options
(:data:`agents.etc.ETC_FAST_SETTINGS`) and the computation bounds
(:data:`agents.config.FRUGAL_COMPUTE`); an agent that commits to a set of cost 0.01
(``etc-bernstein``) makes thousands of evaluations, and would take hours without them.
``etc-bounded`` is ETC with this computation alone, the baseline of the one-switch agents; against
``etc`` (exact settings) it shows what the computation costs. A sixth agent, ``etc-refit`` (the
geometric refit schedule alone), was dropped while that schedule was ETC's default too.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from agents.fetc import ETC_SWITCHES, FETCAgent, FETCRules

#: The rules of FETC with every component switched off: ETC's rules.
ETC_RULES = FETCRules(**ETC_SWITCHES)


class AblationAgent(FETCAgent):
    """ETC with exactly the switches of :attr:`component` set to FETC's values (and FETC's
    computation: the fast options and the bounds)."""

    component: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.default_rules = replace(ETC_RULES, **cls.component)


class ETCBoundedAgent(AblationAgent):
    """ETC with FETC's computation (fast options and bounds) and none of its components."""

    name = "etc-bounded"


class ETCSpendAgent(AblationAgent):
    """ETC with spend-balanced exploration."""

    name = "etc-spend"
    component: ClassVar[dict[str, Any]] = {"allocation": "spend"}


class ETCBernsteinAgent(AblationAgent):
    """ETC with empirical-Bernstein cost bounds."""

    name = "etc-bernstein"
    component: ClassVar[dict[str, Any]] = {"cost_bound": "bernstein"}


class ETCCurrentAgent(AblationAgent):
    """ETC with ``S1`` from the current model's bounds of each set's value (FETC's
    ``value_bounds="integral"``); its UCB query is then ``U_i``'s maximizer, polished on
    ``E[u]`` (:class:`~agents.fetc.FETCAgent`, component 5)."""

    name = "etc-current"
    component: ClassVar[dict[str, Any]] = {"value_bounds": "integral"}


class ETCRelevanceAgent(AblationAgent):
    """ETC that skips redundant sets in exploration."""

    name = "etc-relevance"
    component: ClassVar[dict[str, Any]] = {"relevance": True}


class ETCTSAgent(AblationAgent):
    """ETC with Thompson-sampling queries in exploitation."""

    name = "etc-ts"
    component: ClassVar[dict[str, Any]] = {"exploit_query": "ts"}


#: CLI name -> the one switch that differs from ETC (none for ``etc-bounded``).
COMPONENTS: dict[str, dict[str, Any]] = {
    cls.name: cls.component
    for cls in (
        ETCBoundedAgent,
        ETCSpendAgent,
        ETCBernsteinAgent,
        ETCCurrentAgent,
        ETCRelevanceAgent,
        ETCTSAgent,
    )
}
