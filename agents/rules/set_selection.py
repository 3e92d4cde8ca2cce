"""The agents' rules for choosing control sets, as pure functions, so that each is unit-tested on
hand-made inputs (the cost estimates they use: :mod:`agents.costs.estimates`).

Nothing here touches a surrogate: the model-based agents compute GP bounds (``max_x E[u]``,
``max_x E[l]`` per control set) and pass them in. Sets are 0-based indices into the task's
``control_sets``; ``m`` is their number.

References: Hoang, Nguyen, Tran, AAAI 2025 (Algorithm 1, "ETC"); Tay et al., NeurIPS 2023
(UCB-CVS's eps rule); the paper's ETC-50 variant of UCB-CVS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.costs.allocation import exploration_fits
from agents.costs.estimates import mean_costs
from bocvs_env.checks import check_positive_integers

# --- ETC: exploration ---------------------------------------------------------------------------


def round_robin_set(t: int, m: int) -> int:
    """The set played in exploration round ``t`` (0-based): ``0, 1, ..., m-1, 0, 1, ...``.

    Algorithm 1 plays ``i = t mod m`` for ``t = 1..m*tau`` with 1-based sets; with 0-based rounds
    and sets this is the same order, starting from the first set.
    """
    if m < 1:
        raise ValueError(f"m must be positive, got {m}")
    if t < 0:
        raise ValueError(f"t must be >= 0, got {t}")
    return t % m


def continue_exploration(
    spent: float,
    cost_sums: np.ndarray,
    plays: np.ndarray,
    budget: float,
    explore_fraction: float = 0.6,
) -> bool:
    """Whether ETC starts another full round-robin cycle of exploration.

    Called at the start of every cycle. The agent does not know the costs in advance, so the
    number of cycles ``tau`` follows from the budget (the project's specification): the first cycle is
    always played (until every set has been played once there is no cost estimate, and the cost
    LCB of exploitation needs one play per set); afterwards a cycle starts only if its estimated
    cost, the sum of the observed mean costs of all sets, fits in what is left of the exploration
    budget: ``spent + sum_i c_hat_i <= explore_fraction * budget``. So exploration spends at most
    ``explore_fraction * budget`` up to the estimation error of one cycle's cost (and the first
    cycle, if it alone costs more).

    Args:
        spent: cost paid so far (cost units).
        cost_sums: ``(m,)`` summed observed costs per set.
        plays: ``(m,)`` play counts per set.
        budget: the total budget ``C``.
        explore_fraction: the share of the budget exploration may spend (the paper: 0.6).
    """
    plays = np.asarray(plays)
    cycle = float(np.sum(mean_costs(cost_sums, plays))) if np.all(plays > 0) else 0.0
    return exploration_fits(spent, cycle, budget, explore_fraction) or bool(np.any(plays == 0))


def maximal_sets(control_sets: Sequence[Sequence[int]]) -> list[int]:
    """The sets that are not strict subsets of another set, in index order.

    ``max_{x^J} E[h([x^J, X^{-J}])] >= max_{x^I} E[h([x^I, X^{-I}])]`` for ``I`` a subset of
    ``J`` and any function ``h`` (a controlled value can always be set to the best draw), so
    ``max_{i, x^i} E[l]`` needs only these sets. For the full set this also holds for the
    agents' sample-average expectations; for other nested sets up to Monte Carlo error.
    """
    as_sets = [frozenset(s) for s in control_sets]
    return [i for i, s in enumerate(as_sets) if not any(s < other for other in as_sets)]


def full_set(control_sets: Sequence[Sequence[int]], dim: int) -> int | None:
    """The index of the first set that controls all ``dim`` variables, or ``None``."""
    for i, s in enumerate(control_sets):
        if len(set(s)) == dim:
            return i
    return None


# --- ETC: exploitation --------------------------------------------------------------------------


def intersect_bounds(
    lcb_bar: float, ucb_bar: np.ndarray, lcb_now: float, ucb_now: np.ndarray
) -> tuple[float, np.ndarray]:
    """One round of Algorithm 1's intersected bounds (lines 14-15).

    ``lcb_bar = max(lcb_bar, lcb_now)``; ``ucb_bar_i = min(ucb_bar_i, ucb_now_i)``. Entries of
    ``ucb_now`` that are ``nan`` were not recomputed this round and leave ``ucb_bar_i`` as is.

    Args:
        lcb_bar: the intersected lower bound so far (``-inf`` before any round).
        ucb_bar: ``(m,)`` intersected upper bounds so far (``+inf`` before any round).
        lcb_now: this round's ``max_{i, x^i} E[l_{t-1}]``.
        ucb_now: ``(m,)`` this round's ``max_{x^i} E[u_{t-1}]``.

    Returns:
        The new ``(lcb_bar, ucb_bar)`` (a fresh array).
    """
    ucb_bar = np.asarray(ucb_bar, np.float64)
    ucb_now = np.asarray(ucb_now, np.float64)
    if ucb_bar.shape != ucb_now.shape:
        raise ValueError(f"ucb_bar {ucb_bar.shape} and ucb_now {ucb_now.shape} differ in shape")
    new_ucb = np.where(np.isnan(ucb_now), ucb_bar, np.fmin(ucb_bar, ucb_now))
    return max(float(lcb_bar), float(lcb_now)), new_ucb


def feasible_sets(ucb_bar: np.ndarray, lcb_bar: float, alpha: float) -> list[int]:
    """``S1 = {i : ucb_bar_i > (1 - alpha) * lcb_bar}`` (strict, as Algorithm 1 line 16), for
    the sets' UCBs ``ucb_bar`` ``(m,)`` and the largest LCB ``lcb_bar`` (units of ``y``)."""
    if not 0.0 <= alpha < 1.0:
        raise ValueError(f"alpha must be in [0, 1), got {alpha!r}")
    threshold = (1.0 - alpha) * float(lcb_bar)
    return [int(i) for i in np.flatnonzero(np.asarray(ucb_bar) > threshold)]


@dataclass(frozen=True)
class S1Choice:
    """The outcome of one round's ``S1`` rule.

    Attributes:
        s1: the feasible sets, sorted.
        lcb_bar: the intersected lower bound after the round.
        ucb_bar: ``(m,)`` intersected upper bounds after the round.
        reset: whether ``S1`` was empty and the bars were reset to this round's values.
        fallback: whether ``S1`` was still empty after the reset, so the sets of largest
            ``ucb_bar`` were taken (a degenerate case Algorithm 1 does not cover).
    """

    s1: list[int]
    lcb_bar: float
    ucb_bar: np.ndarray
    reset: bool
    fallback: bool = False


def select_s1(
    lcb_bar: float, ucb_bar: np.ndarray, lcb_now: float, ucb_now: np.ndarray, alpha: float
) -> S1Choice:
    """Algorithm 1 lines 14-21: intersect the bounds, form ``S1``, reset if it is empty.

    On an empty ``S1`` both bars are reset to this round's values (``lcb_bar = lcb_now``,
    ``ucb_bar = ucb_now``) and ``S1`` recomputed. If it is still empty (possible only in
    degenerate cases, e.g. ``lcb_now < 0`` with zero posterior spread), ``S1`` is the sets of
    largest ``ucb_bar``, so that the agent can always play.

    Raises:
        ValueError: if a reset is needed and ``ucb_now`` has ``nan`` entries (a reset needs
            this round's bound of every set).
    """
    new_lcb, new_ucb = intersect_bounds(lcb_bar, ucb_bar, lcb_now, ucb_now)
    s1 = feasible_sets(new_ucb, new_lcb, alpha)
    if s1:
        return S1Choice(s1, new_lcb, new_ucb, reset=False)
    ucb_now = np.asarray(ucb_now, np.float64)
    if np.isnan(ucb_now).any():
        raise ValueError("S1 is empty: the reset needs this round's max E[u] of every set")
    new_lcb, new_ucb = float(lcb_now), ucb_now.copy()
    s1 = feasible_sets(new_ucb, new_lcb, alpha)
    if s1:
        return S1Choice(s1, new_lcb, new_ucb, reset=True)
    best = [int(i) for i in np.flatnonzero(new_ucb == np.max(new_ucb))]
    return S1Choice(best, new_lcb, new_ucb, reset=True, fallback=True)


def cheapest_feasible(s1: Sequence[int], lcbs: np.ndarray) -> list[int]:
    """``S3``: the sets of ``S1`` whose cost LCB (``lcbs``, ``(m,)``, units of cost) equals the
    smallest in ``S1`` (all ties kept)."""
    if not s1:
        raise ValueError("S1 must not be empty")
    lcbs = np.asarray(lcbs, np.float64)
    low = min(float(lcbs[i]) for i in s1)
    return sorted(int(i) for i in s1 if float(lcbs[i]) == low)


def best_set(candidates: Sequence[int], values: Sequence[float] | np.ndarray) -> int:
    """``argmax_{i in candidates} values_i``; ties go to the lowest index.

    With ``values_i = max_{x^i} E[u]`` this is Algorithm 1 line 26's choice among ``S3`` (the
    query is the maximizer of that set).
    """
    if not candidates:
        raise ValueError("candidates must not be empty")
    values = np.asarray(values, np.float64)
    ordered = sorted(int(i) for i in candidates)
    return ordered[int(np.argmax(values[ordered]))]


def halving_alpha(n_exploit: int, alpha0: float = 0.1, halve_every: int = 1) -> float:
    """ETC's tolerance after ``n_exploit`` exploitation evaluations: ``alpha0 / 2^(n // every)``.

    The paper starts exploitation at ``alpha0 = 0.1`` and halves it after every ``d``
    evaluations (``halve_every = d``): ``n_exploit = 0..d-1`` use 0.1, ``d..2d-1`` 0.05, ...
    """
    if n_exploit < 0:
        raise ValueError(f"n_exploit must be >= 0, got {n_exploit}")
    check_positive_integers(halve_every=halve_every)
    if not 0.0 <= alpha0 < 1.0:
        raise ValueError(f"alpha0 must be in [0, 1), got {alpha0!r}")
    return alpha0 * 0.5 ** (n_exploit // halve_every)


# --- UCB-CVS ------------------------------------------------------------------------------------


def cvs_epsilon(t: int, eps0: float = 2.0, cutoff: float = 100.0) -> float:
    """UCB-CVS's schedule ``eps_t = eps0 * max(1 - t / cutoff, 0)``; ``t`` counts rounds from 0."""
    if t < 0:
        raise ValueError(f"t must be >= 0, got {t}")
    if cutoff <= 0:
        raise ValueError(f"cutoff must be positive, got {cutoff!r}")
    return float(eps0) * max(1.0 - t / float(cutoff), 0.0)


def cheapest_within_epsilon(values: np.ndarray, costs: np.ndarray, eps: float) -> int:
    """UCB-CVS's choice: the cheapest set with ``v_i + eps >= max_j v_j``.

    Ties in cost go to the larger ``v_i``, then to the lowest index.

    Args:
        values: ``(m,)`` ``v_i = max_{x^i} E[u]``.
        costs: ``(m,)`` the (true or estimated) mean costs.
        eps: the slack ``eps_t >= 0``.
    """
    values = np.asarray(values, np.float64)
    costs = np.asarray(costs, np.float64)
    if values.shape != costs.shape or values.ndim != 1 or values.size == 0:
        raise ValueError(f"values {values.shape} and costs {costs.shape} must be equal (m,)")
    within = np.flatnonzero(values + eps >= np.max(values))
    cheapest = costs[within].min()
    tied = [int(i) for i in within if costs[i] == cheapest]
    return best_set(tied, values)


# --- ETC-50 -------------------------------------------------------------------------------------


def size_groups(
    control_sets: Sequence[Sequence[int]], dim: int, positional_size: int = 3
) -> list[list[int]]:
    """ETC-50's groups of sets, in the order they are played.

    Sets are grouped by their number of variables, smallest first; a set controlling all ``dim``
    variables is not a group of its own (nor part of one). When every set has the same size (the
    airfoil problem), the sets are grouped by position as UCB-CVS does: consecutive runs of
    ``positional_size`` sets; a trailing run shorter than that is not a group (as the full set,
    it is left to the UCB-PSQ phase: on airfoil the seventh, most expensive set).
    """
    sizes = [len(set(s)) for s in control_sets]
    if len(set(sizes)) == 1:
        m = len(sizes)
        return [
            list(range(k, k + positional_size))
            for k in range(0, m - positional_size + 1, positional_size)
        ]
    by_size: dict[int, list[int]] = {}
    for i, size in enumerate(sizes):
        if size < dim:
            by_size.setdefault(size, []).append(i)
    return [by_size[size] for size in sorted(by_size)]


def etc50_group(
    t: int, groups: Sequence[Sequence[int]], rounds_per_group: int = 50
) -> list[int] | None:
    """The group ETC-50 plays in round ``t`` (0-based), or ``None`` once every group is done."""
    if t < 0:
        raise ValueError(f"t must be >= 0, got {t}")
    check_positive_integers(rounds_per_group=rounds_per_group)
    k = t // rounds_per_group
    return list(groups[k]) if k < len(groups) else None
