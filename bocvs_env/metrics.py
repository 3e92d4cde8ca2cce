"""Regrets and traces of an episode (the project's specification of the setting), from an
:class:`EpisodeRecord`.

All metrics use the privileged noiseless values ``g_{i_t}(x_t)`` and the oracle
``g* = max_i max_x g_i(x)``; the free initial design is not a play and does not count. Before
the first evaluation the best value found is taken as 0, the lower bound of ``f``, so the simple
regret starts at ``g*``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from bocvs_env.evaluation import EpisodeRecord


@dataclass(frozen=True)
class Target:
    """The acceptable sets ``C*`` and the target set ``i*`` for a tolerance ``alpha``.

    Attributes:
        g_star: ``max_i max_x g_i(x)``.
        acceptable: ``m`` booleans, ``max_x g_i(x) >= (1 - alpha) g*``.
        i_star: the cheapest acceptable set (by mean cost; ties go to the lowest index).
        alpha: the tolerance.
    """

    g_star: float
    acceptable: np.ndarray
    i_star: int
    alpha: float


def target(set_max: np.ndarray, cost_means: np.ndarray, alpha: float = 0.1) -> Target:
    """``C*`` and ``i*`` from the per-set oracle values ``(m,)`` and mean costs ``(m,)``;
    ``ValueError`` for ``alpha`` outside ``[0, 1)``."""
    if not 0.0 <= alpha < 1.0:
        raise ValueError(f"alpha must be in [0, 1), got {alpha!r}")
    g_star = float(np.max(set_max))
    # A relative tolerance keeps the best set acceptable despite rounding in the oracle.
    acceptable = set_max >= (1.0 - alpha) * g_star - 1e-9 * max(abs(g_star), 1.0)
    costs = np.where(acceptable, cost_means, np.inf)
    return Target(g_star, acceptable, int(np.argmin(costs)), alpha)


def quality_regret(record: EpisodeRecord, alpha: float = 0.1) -> np.ndarray:
    """Cumulative ``R^f_t = sum_{s<=t} ((1 - alpha) g* - g_{i_s}(x_s))``, shape ``(T,)``."""
    g_star = float(np.max(record.set_max))
    return np.cumsum((1.0 - alpha) * g_star - record.g)


def cost_regret(record: EpisodeRecord, alpha: float = 0.1) -> np.ndarray:
    """Cumulative ``R^c_t = sum_{s<=t} max(c_{i_s} - c_{i*}, 0)`` on mean costs, shape ``(T,)``."""
    tgt = target(record.set_max, record.cost_means, alpha)
    excess = record.cost_means[record.control_set] - record.cost_means[tgt.i_star]
    return np.cumsum(np.maximum(excess, 0.0))


def simple_regret(record: EpisodeRecord) -> np.ndarray:
    """``g* - max_{s<=t} g_{i_s}(x_s)`` after each step, shape ``(T,)``."""
    g_star = float(np.max(record.set_max))
    return g_star - np.maximum.accumulate(np.maximum(record.g, 0.0)) if record.g.size else record.g


def cost_varying_regret(record: EpisodeRecord) -> np.ndarray:
    """UCB-CVS's cumulative ``sum_{s<=t} c_{i_s} (g* - g_{i_s}(x_s))`` on mean costs, ``(T,)``."""
    g_star = float(np.max(record.set_max))
    return np.cumsum(record.cost_means[record.control_set] * (g_star - record.g))


def _steps_within(record: EpisodeRecord, spend: np.ndarray) -> np.ndarray:
    """``T(C')``: the number of steps whose cumulative cost is ``<= C'``, for each ``C'``."""
    # Tolerate float rounding of cumulative sums (a spend grid built from the same costs).
    return np.searchsorted(record.spent, np.asarray(spend, np.float64) * (1 + 1e-12), "right")


def final_simple_regret(record: EpisodeRecord) -> float:
    """Simple regret at the end of the episode (``g*`` if it made no evaluation)."""
    return (
        float(simple_regret(record)[-1]) if record.n_evaluations else float(np.max(record.set_max))
    )


def simple_regret_at(record: EpisodeRecord, spend: np.ndarray) -> np.ndarray:
    """Simple regret after spending ``C'``, for each ``C'`` in ``spend`` (same shape).

    The papers' headline curve: regret of the best query among the steps paid within ``C'``.
    """
    g_star = float(np.max(record.set_max))
    n = _steps_within(record, spend)
    best = np.concatenate([[0.0], np.maximum.accumulate(np.maximum(record.g, 0.0))])
    return g_star - best[n]


def simple_regret_area(record: EpisodeRecord) -> float:
    """The area under simple regret against cost spent over ``[0, budget]``, divided by the
    budget: the mean simple regret over the budget, in units of ``f``.

    Simple regret after spending ``C'`` is the step function of :func:`simple_regret_at`: ``g*``
    until the first step is paid, then the regret after step ``k`` from its cumulative cost
    ``s_k`` up to ``s_{k+1}`` (the last value holds up to the budget). So the area is
    ``(sum_k r_k (s_{k+1} - s_k)) / budget`` with ``s_0 = 0``, ``r_0 = g*`` and
    ``s_{T+1} = budget``, computed exactly (no grid). A lower value reaches low regret for less
    spend; the final simple regret alone cannot tell when it was reached. ``ValueError`` for a
    budget that is not positive.
    """
    g_star = float(np.max(record.set_max))
    budget = float(record.budget)
    if not budget > 0:
        raise ValueError(f"the regret area needs a positive budget, got {budget!r}")
    best = np.concatenate([[0.0], np.maximum.accumulate(np.maximum(record.g, 0.0))])
    edges = np.concatenate([[0.0], np.clip(record.spent, 0.0, budget), [budget]])
    return float(np.sum((g_star - best) * np.diff(edges)) / budget)


def evaluations_at(record: EpisodeRecord, spend: np.ndarray) -> np.ndarray:
    """The number of evaluations paid within ``C'``, for each ``C'`` in ``spend``."""
    return _steps_within(record, spend)


def spend_share(record: EpisodeRecord) -> np.ndarray:
    """The share of the cost spent on each control set, shape ``(m,)`` (zeros if nothing was
    spent)."""
    share = np.bincount(record.control_set, weights=record.cost, minlength=record.set_max.size)
    spent = float(record.cost.sum())
    return share / spent if spent > 0 else share


#: What each figure of :func:`summarize` is, in words (for printed reports).
SUMMARY_FIELDS: dict[str, str] = {
    "evaluations": "plays paid and evaluated (the free initial design not counted)",
    "spent": "total cost paid",
    "g_star": "g*, the best expected value any control set can reach (the oracle)",
    "i_star": "the target set: the cheapest set within alpha of g*",
    "simple_regret": "g* minus the best expected value among the queries (lower is better)",
    "simple_regret_area": "mean simple regret over spend in [0, budget] (lower is better)",
    "quality_regret": (
        "cumulative sum of (1 - alpha) g* - g of each query (lower is better; negative when "
        "the queries beat (1 - alpha) g* on the whole)"
    ),
    "cost_regret": "cumulative mean cost paid above the target set's (lower is better)",
    "cost_varying_regret": "UCB-CVS's cumulative cost-weighted regret (lower is better)",
    "target_plays": "plays of the target set",
    "spend_share": "share of the spend per control set",
}


class Summary(TypedDict):
    """:func:`summarize`'s figures (their meanings: :data:`SUMMARY_FIELDS`)."""

    evaluations: int
    spent: float
    g_star: float
    i_star: int
    simple_regret: float
    simple_regret_area: float
    quality_regret: float
    cost_regret: float
    cost_varying_regret: float
    target_plays: int
    spend_share: list[float]


def summarize(record: EpisodeRecord, alpha: float = 0.1) -> Summary:
    """Final figures of an episode: regrets, evaluations, spend and spend share per set (their
    meanings: :data:`SUMMARY_FIELDS`); ``ValueError`` for a bad ``alpha`` or budget (as
    :func:`target` and :func:`simple_regret_area`)."""
    T = record.n_evaluations
    tgt = target(record.set_max, record.cost_means, alpha)
    spent = float(record.spent[-1]) if T else 0.0
    return {
        "evaluations": T,
        "spent": spent,
        "g_star": tgt.g_star,
        "i_star": tgt.i_star,
        "simple_regret": final_simple_regret(record),
        "simple_regret_area": simple_regret_area(record),
        "quality_regret": float(quality_regret(record, alpha)[-1]) if T else 0.0,
        "cost_regret": float(cost_regret(record, alpha)[-1]) if T else 0.0,
        "cost_varying_regret": float(cost_varying_regret(record)[-1]) if T else 0.0,
        "target_plays": int(np.sum(record.control_set == tgt.i_star)),
        "spend_share": spend_share(record).tolist(),
    }


def format_summary(summary: Summary) -> str:
    """:func:`summarize`'s figures as aligned lines, ``name: value  (meaning)``, floats to 4
    significant digits (the spend shares to 3)."""

    def fmt(value: object) -> str:
        if isinstance(value, list):
            return "[" + ", ".join(f"{v:.3g}" for v in value) + "]"
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    return "\n".join(
        f"{key:>20}: {fmt(value):<12} ({SUMMARY_FIELDS.get(key, '')})"
        for key, value in summary.items()
    )
