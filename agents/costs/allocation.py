"""FETC's set choices: exploration that balances spend, not count, and the cheapest acceptable
sets found lazily in exploitation.

Algorithm 1 explores round-robin, so every set gets the same number of plays and the most
expensive set takes most of the budget (with the paper's cheap costs, 1.0 of every 1.33-unit
cycle goes to the full set). Here every set ``i`` is given a target share of plays
``n_i ∝ c_i^(-p)``: ``p = 0`` is round-robin (equal counts, ETC), ``p = 1`` equal spend, and
``p = 1/2`` (the default) a square-root rule between them (spend ``∝ sqrt(c_i)``). The rule is
greedy: play the set furthest behind its target, the smallest ``n_i * c_i^p``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np


def spend_balanced_set(
    plays: np.ndarray, costs: np.ndarray, exponent: float, eligible: Sequence[int] | None = None
) -> int:
    """The next exploration set: ``argmin_{i eligible} plays_i * costs_i^exponent``.

    Sets never played come first (lowest index first), so that every set has a cost estimate;
    ties go to the lowest index, so ``exponent = 0`` plays ``0, 1, ..., m-1, 0, 1, ...`` exactly
    as ETC's round-robin.

    Args:
        plays: ``(m,)`` play counts.
        costs: ``(m,)`` mean cost estimates (> 0; any value for unplayed sets).
        exponent: ``p`` in ``[0, 1]``.
        eligible: the sets that may be played (default: all); must not be empty.
    """
    plays = np.asarray(plays)
    costs = np.asarray(costs, np.float64)
    if plays.shape != costs.shape or plays.ndim != 1:
        raise ValueError(f"plays {plays.shape} and costs {costs.shape} must be equal (m,)")
    if not (math.isfinite(exponent) and 0.0 <= exponent <= 1.0):
        raise ValueError(f"exponent must be in [0, 1], got {exponent!r}")
    sets = sorted(range(plays.size) if eligible is None else (int(i) for i in eligible))
    if not sets:
        raise ValueError("eligible must not be empty")
    unplayed = [i for i in sets if plays[i] == 0]
    if unplayed:
        return unplayed[0]
    if np.any(costs[sets] <= 0):
        raise ValueError("cost estimates must be positive")
    deficit = plays[sets] * costs[sets] ** exponent
    return sets[int(np.argmin(deficit))]


def exploration_fits(
    spent: float, next_cost: float, budget: float, explore_fraction: float
) -> bool:
    """Whether one more exploration play fits: ``spent + next_cost <= fraction * budget``.

    The play-by-play counterpart of :func:`agents.rules.set_selection.continue_exploration` (which asks
    the same of a whole round-robin cycle).
    """
    if not 0.0 <= explore_fraction <= 1.0:
        raise ValueError(f"explore_fraction must be in [0, 1], got {explore_fraction!r}")
    return spent + next_cost <= explore_fraction * budget


def cheapest_acceptable(
    cost_lcbs: np.ndarray, threshold: float, ucb_of: Callable[[list[int]], dict[int, float]]
) -> tuple[list[int], dict[int, float]]:
    """``S3`` of Algorithm 1 from current bounds, asking for as few ``max E[u]`` as it can.

    ``S1 = {i : ucb_i > threshold}`` and ``S3`` is the sets of ``S1`` with the smallest cost LCB
    (all ties). The sets are taken by cost LCB, lowest level first; ``ucb_of`` is asked for a
    level's values, and the first level with a member above the threshold gives ``S3`` (those
    members). That is the same ``S3`` as from the whole ``S1``, without the more expensive
    sets' maxima. If no set is above, ``S3`` is the sets of largest UCB (as
    :func:`agents.rules.set_selection.select_s1`'s fallback).

    Args:
        cost_lcbs: ``(m,)`` cost lower bounds.
        threshold: ``(1 - alpha) max E[l]``.
        ucb_of: sets -> ``{set: max E[u]}``.

    Returns:
        ``S3`` (sorted) and every UCB value asked for.
    """
    cost_lcbs = np.asarray(cost_lcbs, np.float64)
    values: dict[int, float] = {}
    for level in sorted(set(cost_lcbs.tolist())):
        group = [int(i) for i in np.flatnonzero(cost_lcbs == level)]
        values.update(ucb_of(group))
        above = [i for i in group if values[i] > threshold]
        if above:
            return above, values
    top = max(values.values())
    return sorted(i for i, v in values.items() if v == top), values
