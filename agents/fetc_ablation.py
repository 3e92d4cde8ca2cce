"""FETC's ablation: each of its six components alone on top of ETC, as agents of their own.

Each factory builds a :class:`~agents.fetc.FETCAgent` with every switch at ETC's value
(:data:`agents.fetc.ETC_SWITCHES`) except one, so that a sweep can put ``etc``, the six
``etc-<component>`` agents and ``fetc`` side by side and the table shows what each change buys
alone. Keyword parameters pass through (a sweep's ``agent_params``). The sixth switch,
``refit_growth``, is not a decision rule but when the hyperparameters are refitted (run time);
``etc-refit`` shows what it costs in regret.
"""

from __future__ import annotations

from typing import Any

from agents.fetc import ETC_SWITCHES, FETCAgent

#: CLI name -> the one switch that differs from ETC.
COMPONENTS: dict[str, dict[str, Any]] = {
    "etc-spend": {"allocation": "spend"},
    "etc-bernstein": {"cost_bound": "bernstein"},
    "etc-current": {"value_bounds": "current"},
    "etc-relevance": {"relevance": True},
    "etc-ts": {"exploit_query": "ts"},
    "etc-refit": {"refit_growth": 0.2},
}


def ablation_agent(name: str, **params: Any) -> FETCAgent:
    """The ETC + one-component agent called ``name`` (a key of :data:`COMPONENTS`)."""
    if name not in COMPONENTS:
        raise ValueError(f"unknown ablation {name!r}; expected one of {sorted(COMPONENTS)}")
    agent = FETCAgent(**{**ETC_SWITCHES, **COMPONENTS[name], **params})
    agent.name = name
    return agent


def etc_spend(**params: Any) -> FETCAgent:
    """ETC with spend-balanced exploration."""
    return ablation_agent("etc-spend", **params)


def etc_bernstein(**params: Any) -> FETCAgent:
    """ETC with empirical-Bernstein cost bounds."""
    return ablation_agent("etc-bernstein", **params)


def etc_current(**params: Any) -> FETCAgent:
    """ETC with ``S1`` from the current model's bounds."""
    return ablation_agent("etc-current", **params)


def etc_relevance(**params: Any) -> FETCAgent:
    """ETC that skips redundant sets in exploration."""
    return ablation_agent("etc-relevance", **params)


def etc_ts(**params: Any) -> FETCAgent:
    """ETC with Thompson-sampling queries in exploitation."""
    return ablation_agent("etc-ts", **params)


def etc_refit(**params: Any) -> FETCAgent:
    """ETC with hyperparameter refits on a 20% growth schedule."""
    return ablation_agent("etc-refit", **params)
