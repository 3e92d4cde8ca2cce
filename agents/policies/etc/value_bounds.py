"""Value bounds of the explore-then-commit policy: how exploitation finds the acceptable sets
``S1`` and, of those, the cheapest ``S3`` (Algorithm 1 of Hoang, Nguyen & Tran, AAAI 2025,
lines 14-25), and which set of ``S3`` it commits to."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from agents.costs.allocation import cheapest_acceptable
from agents.costs.estimates import horizon_estimate
from agents.policies.etc.cost_bounds import CostBound
from agents.policies.etc.port import Maxima
from agents.policies.etc.state import Round
from agents.policies.etc.tolerances import Tolerance
from agents.rules.set_selection import (
    best_set,
    cheapest_feasible,
    feasible_sets,
    intersect_bounds,
    select_s1,
)


@dataclass(frozen=True)
class Commitment:
    """An exploitation round's choice: the set, its query as found (not yet played), and the
    decision log entry (without the query's own note)."""

    set: int
    x: np.ndarray
    log: dict[str, Any] = field(default_factory=dict)


class ValueBound(Protocol):
    """How exploitation finds its set; ``intersects``: exploration updates Algorithm 1's bars."""

    @property
    def intersects(self) -> bool:
        """Whether the bars are running bounds, intersected in exploration too."""

    def exploit(
        self, round: Round, alpha: float, tolerance: Tolerance, cost_bound: CostBound
    ) -> Commitment:
        """This round's commitment, with tolerance ``alpha`` (of ``tolerance``) and the
        sets' optimistic costs by ``cost_bound``."""


@dataclass(frozen=True)
class IntersectedBounds:
    """Algorithm 1's running bars (lines 10-11 in exploration, 14-21 in exploitation):
    ``lcb_bar`` a running max of ``max E[l]``, ``ucb_bar_i`` a running min of ``max E[u]``,
    reset when ``S1`` is empty (:func:`agents.rules.set_selection.select_s1`), with
    Algorithm 1's relative tolerance ``(1 - alpha) lcb_bar``.

    ``max E[u]`` is recomputed only for the sets whose ``ucb_bar_i`` exceeds this round's
    threshold (the others are outside ``S1`` whatever the value), and for every set when
    ``S1`` comes out empty, for the reset."""

    name: ClassVar[str] = "intersected"
    #: Exploration rounds intersect the bars too.
    intersects = True

    def exploit(
        self, round: Round, alpha: float, tolerance: Tolerance, cost_bound: CostBound
    ) -> Commitment:
        state, observed, model = round.state, round.observed, round.model
        m = observed.task.n_sets
        lcb_now = model.lcb_max()
        candidates = feasible_sets(state.ucb_bar, max(state.lcb_bar, lcb_now), alpha)
        maxima = model.set_maxima(candidates, "ucb")
        ucb_now = np.full(m, np.nan)
        for i, (v, _) in maxima.items():
            ucb_now[i] = v
        _, intersected = intersect_bounds(state.lcb_bar, state.ucb_bar, lcb_now, ucb_now)
        if not feasible_sets(intersected, max(state.lcb_bar, lcb_now), alpha):
            maxima.update(model.set_maxima([i for i in range(m) if i not in maxima], "ucb"))
            ucb_now = np.array([maxima[i][0] for i in range(m)])
        choice = select_s1(state.lcb_bar, state.ucb_bar, lcb_now, ucb_now, alpha)
        state.lcb_bar, state.ucb_bar = choice.lcb_bar, choice.ucb_bar
        horizon = horizon_estimate(observed.task.budget, observed.cost_sums, observed.plays)
        lcbs = cost_bound.lower(observed, horizon)
        s3 = cheapest_feasible(choice.s1, lcbs)
        values = np.array([maxima[i][0] if i in maxima else -math.inf for i in range(m)])
        i = best_set(s3, values)
        log = {
            "phase": "exploit",
            "set": i,
            "value": float(values[i]),
            "alpha": alpha,
            "lcb_bar": state.lcb_bar,
            "ucb_bar": state.ucb_bar.tolist(),
            "s1": choice.s1,
            "reset": choice.reset,
            "horizon": horizon,
            "cost_lcb": lcbs.tolist(),
            "s3": s3,
        }
        return Commitment(i, maxima[i][1], log)


@dataclass(frozen=True)
class CurrentBounds:
    """``S1`` from this round's bounds alone, never intersected across rounds (each refit is
    another model), and ``S3`` found lazily by cost level
    (:func:`agents.costs.allocation.cheapest_acceptable`). Subclasses say which bounds."""

    intersects = False

    def lcb(self, round: Round) -> float:
        """``max_{i, x^i}`` of this round's lower bound."""
        raise NotImplementedError

    def ucb_maxima(self, round: Round, sets: list[int]) -> Maxima:
        """``max_{x^i}`` of this round's upper bound, per set of ``sets``."""
        raise NotImplementedError

    def exploit(
        self, round: Round, alpha: float, tolerance: Tolerance, cost_bound: CostBound
    ) -> Commitment:
        observed = round.observed
        lcb_now = self.lcb(round)
        horizon = horizon_estimate(observed.task.budget, observed.cost_sums, observed.plays)
        lcbs = cost_bound.lower(observed, horizon)
        maxima: Maxima = {}

        def ucb_of(sets: list[int]) -> dict[int, float]:
            maxima.update(self.ucb_maxima(round, sets))
            return {i: maxima[i][0] for i in sets}

        threshold = tolerance.threshold(observed, lcb_now, alpha)
        s3, values = cheapest_acceptable(lcbs, threshold, ucb_of)
        dense = np.array([values.get(i, -math.inf) for i in range(observed.task.n_sets)])
        i = best_set(s3, dense)
        log = {
            "phase": "exploit",
            "set": i,
            "value": values[i],
            "alpha": alpha,
            "lcb_bar": lcb_now,
            "ucb_checked": {str(k): v for k, v in sorted(values.items())},
            "horizon": horizon,
            "cost_lcb": lcbs.tolist(),
            "s3": s3,
        }
        return Commitment(i, maxima[i][1], log)


@dataclass(frozen=True)
class AveragedBounds(CurrentBounds):
    """This round's ``max E[u]`` and ``max E[l]``: bounds of ``f`` averaged over the random
    inputs (FETC's ``value_bounds="current"``)."""

    name: ClassVar[str] = "current"

    def lcb(self, round: Round) -> float:
        return round.model.lcb_max()

    def ucb_maxima(self, round: Round, sets: list[int]) -> Maxima:
        return round.model.set_maxima(sets, "ucb")


@dataclass(frozen=True)
class SetValueBounds(CurrentBounds):
    """This round's bounds ``E[g_i] +- beta std[g_i]`` of each set's value ``g_i`` itself
    (:class:`agents.expected_posterior.ExpectedPosterior`; FETC's
    ``value_bounds="integral"``), the lower one over every set; each maximized over the set's
    variables with the best ``n_refine`` screened candidates refined
    (:meth:`~agents.policies.etc.port.ModelPort.value_maxima`)."""

    name: ClassVar[str] = "integral"
    n_refine: int = 2

    def lcb(self, round: Round) -> float:
        lower = round.model.value_maxima(range(round.observed.task.n_sets), -1.0, self.n_refine)
        return max(v for v, _ in lower.values())

    def ucb_maxima(self, round: Round, sets: list[int]) -> Maxima:
        return round.model.value_maxima(sets, 1.0, self.n_refine)
