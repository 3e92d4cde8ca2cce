"""Learned cost models of the cost-aware agents, as pure functions of the observed cost draws.

Every set's cost is a random variable whose mean the agents do not know; they see one draw per
play. Here: the running mean and Algorithm 1's horizon and Hoeffding-style cost bound (Hoang,
Nguyen & Tran, AAAI 2025), the mean estimate with an optimistic prior for sets never played (the cost-aware
EI agent divides by it), the empirical-Bernstein confidence bound of FETC (the variance-aware
replacement of Algorithm 1's Hoeffding-style ``sqrt(2 log T / n)``), and CArBO's cost-cooling
exponent. Costs are in cost units; ``m`` is the number of sets.

References: Maurer & Pontil, "Empirical Bernstein bounds and sample variance penalization",
COLT 2009 (Theorem 4); Audibert, Munos & Szepesvari, "Exploration-exploitation tradeoff using
variance estimates in multi-armed bandits", TCS 2009; Lee, Perrone, Archambeau & Seeger,
"Cost-aware Bayesian optimization" (CArBO), arXiv:2003.10870, 2020; Snoek, Larochelle & Adams,
NeurIPS 2012 (EI per second).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def optimistic_mean_costs(
    draws: Sequence[Sequence[float]], prior: float | None = None
) -> np.ndarray:
    """Each set's mean observed cost, ``(m,)``; a set never played gets an optimistic value.

    The optimistic value is ``prior`` if given, else the smallest mean observed over the other
    sets (no set is assumed cheaper than the cheapest seen), else 1.0 when nothing has been
    played yet (then every set is alike and the cost plays no part in a ratio).

    Args:
        draws: per set, the cost draws seen so far (cost units, > 0).
        prior: the cost assumed for sets never played (> 0), or ``None``.
    """
    if prior is not None and not (math.isfinite(prior) and prior > 0):
        raise ValueError(f"prior must be positive and finite, got {prior!r}")
    means = np.array([float(np.mean(d)) if len(d) else np.nan for d in draws], np.float64)
    if np.any(means[~np.isnan(means)] <= 0):
        raise ValueError("observed costs must be positive")
    fill = prior if prior is not None else (np.nanmin(means) if np.any(~np.isnan(means)) else 1.0)
    return np.where(np.isnan(means), float(fill), means)


def optimistic_cost_bounds(draws: Sequence[Sequence[float]], z: float = 2.0) -> np.ndarray:
    """Optimistic lower estimates of each set's mean cost, ``(m,)`` (cost units).

    A set played ``n`` times gets ``max(c_hat - z s / sqrt(n), 0)``, ``s`` the sample standard
    deviation of its draws (0 for one draw): a normal-approximation lower confidence bound of
    its mean. A set never played gets 0, the least a cost can be (optimism in the face of an
    unknown cost, as Algorithm 1 of Hoang, Nguyen & Tran treats an unplayed set), so that an
    agent that prices plays by these bounds tries every set before it trusts the costs seen.

    Args:
        draws: per set, the cost draws seen so far (cost units, > 0).
        z: the width of the bound in standard errors (``>= 0``; 0 gives the running means).
    """
    if not (math.isfinite(z) and z >= 0):
        raise ValueError(f"z must be >= 0 and finite, got {z!r}")
    out = np.zeros(len(draws))
    for i, d in enumerate(draws):
        if not len(d):
            continue
        x = np.asarray(d, np.float64)
        if np.any(x <= 0):
            raise ValueError("observed costs must be positive")
        width = z * float(np.std(x, ddof=1)) / math.sqrt(x.size) if x.size >= 2 else 0.0
        out[i] = max(float(x.mean()) - width, 0.0)
    return out


def bernstein_width(draws: Sequence[float], log_term: float, cost_range: float | None) -> float:
    """Half-width of the empirical-Bernstein interval of one set's mean cost (cost units).

    Maurer & Pontil (2009), Theorem 4: for ``n >= 2`` i.i.d. draws in an interval of length
    ``R``, with probability at least ``1 - delta`` the mean is above
    ``c_hat - sqrt(2 V ln(2/delta) / n) - 7 R ln(2/delta) / (3 (n - 1))``, where ``V`` is the
    sample variance (``n - 1`` in the denominator); the same holds above. Here
    ``log_term = ln(2/delta)``.

    ``R`` is ``cost_range`` when the support of the costs is known (then the bound is valid as
    stated); ``None`` plugs in the observed range ``max - min`` of the draws, which makes the
    interval relative to the spread the set has shown (a set whose draws never varied gets width
    0). The plug-in is not a valid bound for an unbounded or heavy-tailed cost; give the range
    then. With fewer than two draws the width is infinite.
    """
    n = len(draws)
    if log_term < 0:
        raise ValueError(f"log_term must be >= 0, got {log_term!r}")
    if cost_range is not None and not (math.isfinite(cost_range) and cost_range >= 0):
        raise ValueError(f"cost_range must be >= 0 and finite, got {cost_range!r}")
    if n < 2:
        return math.inf
    x = np.asarray(draws, np.float64)
    var = float(np.var(x, ddof=1))
    spread = float(np.ptp(x)) if cost_range is None else float(cost_range)
    return math.sqrt(2.0 * var * log_term / n) + 7.0 * spread * log_term / (3.0 * (n - 1))


def bernstein_cost_lcb(
    draws: Sequence[Sequence[float]], horizon: float, cost_range: float | None = None
) -> np.ndarray:
    """``max(c_hat_i - width_i, 0)`` per set with the empirical-Bernstein width, ``(m,)``.

    The confidence level follows Algorithm 1's horizon ``T``: ``delta = 2 / T^2`` per set and
    round, so ``ln(2/delta) = 2 ln T`` (Algorithm 1's ``sqrt(2 log T / n)`` is Hoeffding's
    half-width for costs in ``[0, 1]`` at ``delta = T^-4``; a union over ``T`` rounds and ``m``
    sets costs a factor inside the log that does not change the order). A set played fewer than
    twice gets 0, the most optimistic value, as an unplayed set in ETC.

    Args:
        draws: per set, the cost draws seen so far.
        horizon: ``T >= 1`` (see :func:`agents.costs.estimates.horizon_estimate`).
        cost_range: the known length of the costs' support, or ``None`` (see
            :func:`bernstein_width`).
    """
    if horizon < 1.0:
        raise ValueError(f"horizon must be >= 1, got {horizon!r}")
    log_term = 2.0 * math.log(horizon)
    out = np.zeros(len(draws))
    for i, d in enumerate(draws):
        width = bernstein_width(d, log_term, cost_range)
        if math.isfinite(width):
            out[i] = max(float(np.mean(d)) - width, 0.0)
    return out


def cooling_exponent(spent: float, budget: float) -> float:
    """CArBO's cost-cooling exponent ``alpha = (C - spent) / C`` in ``[0, 1]``.

    Lee et al. (2020) divide EI by ``c(x)^alpha`` with ``alpha`` falling linearly from 1 (at the
    end of the initial design) to 0 (budget exhausted): early rounds prefer cheap evaluations,
    late rounds plain EI. Here ``spent`` counts everything paid (the problems' initial design
    is free), so ``alpha`` starts at 1 and has fallen by what an agent's own warmup spent.
    """
    if not (math.isfinite(budget) and budget > 0):
        raise ValueError(f"budget must be positive and finite, got {budget!r}")
    return min(max((budget - spent) / budget, 0.0), 1.0)


def mean_costs(cost_sums: np.ndarray, plays: np.ndarray) -> np.ndarray:
    """Running mean cost per set, ``(m,)``; ``nan`` for sets never played."""
    plays = np.asarray(plays)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(plays > 0, np.asarray(cost_sums, np.float64) / plays, np.nan)


def horizon_estimate(budget: float, cost_sums: np.ndarray, plays: np.ndarray) -> float:
    """The horizon ``T`` of the cost LCB, unknown under random costs: ``budget / min_i c_hat_i``.

    The most rounds the budget could pay for at the cheapest observed mean cost (the project's specification).
    At least 1, so that ``log T >= 0``.

    Raises:
        ValueError: if no set has been played, or the cheapest observed mean cost is not
            positive.
    """
    means = mean_costs(cost_sums, plays)
    if np.all(np.isnan(means)):
        raise ValueError("the horizon estimate needs at least one observed cost")
    cheapest = float(np.nanmin(means))
    if cheapest <= 0.0:
        raise ValueError(f"observed mean costs must be positive, got {cheapest!r}")
    return max(float(budget) / cheapest, 1.0)


def cost_lcb(cost_sums: np.ndarray, plays: np.ndarray, horizon: float) -> np.ndarray:
    """``c_i^LCB = max(c_hat_i - sqrt(2 log T / n_i), 0)`` per set, ``(m,)`` (Algorithm 1, l. 22-24).

    A set never played gets 0, the most optimistic value (after ETC's exploration every set has
    been played, so this does not arise there).
    """
    if horizon < 1.0:
        raise ValueError(f"horizon must be >= 1, got {horizon!r}")
    plays = np.asarray(plays)
    means = mean_costs(cost_sums, plays)
    with np.errstate(divide="ignore"):
        width = np.sqrt(2.0 * math.log(horizon) / np.maximum(plays, 1))
    return np.where(plays > 0, np.maximum(means - width, 0.0), 0.0)
