"""Exploration rules of the explore-then-commit policy: when exploration stops and which set
it plays next. Algorithm 1 of Hoang, Nguyen & Tran (AAAI 2025) plays round-robin in whole
cycles (:class:`RoundRobin`); FETC balances spend (:class:`SpendBalanced`) or play counts
(:class:`BalancedCycles`), optionally skipping redundant sets
(:class:`~agents.policies.etc.relevance.RelevanceRule`); GETC explores by groups
(:class:`~agents.policies.etc.groups.GroupedExploration`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

import numpy as np

from agents.costs.allocation import exploration_fits, spend_balanced_set
from agents.costs.estimates import optimistic_mean_costs
from agents.policies.etc.port import Observed
from agents.policies.etc.relevance import RelevanceRule
from agents.policies.etc.state import ETCState, Round
from agents.rules.set_selection import continue_exploration, round_robin_set


@dataclass(frozen=True)
class ExploreChoice:
    """An exploration round's set, what the decision log adds, and, if the rule chose the set
    by a bound it maximized, that maximum and its maximizer (a full query, ``(d,)``), played
    in place of ``argmax E[u]``."""

    set: int
    note: dict[str, Any] = field(default_factory=dict)
    found: tuple[float, np.ndarray] | None = None


class Exploration(Protocol):
    """An exploration rule: whether to keep exploring, and the next set."""

    @property
    def relevance(self) -> RelevanceRule | None:
        """The rule that skips redundant sets, if any."""

    @property
    def holds(self) -> bool:
        """Whether exploration decisions are held (``hold``) like exploitation's."""

    def start(self, observed: Observed) -> object | None:
        """A fresh episode's progress (:attr:`ETCState.progress`), if the rule keeps any."""

    def keep_exploring(self, round: Round) -> bool:
        """Whether exploration goes on this decision."""

    def next_set(self, round: Round) -> ExploreChoice:
        """The set exploration plays this decision."""


def cycle_fits(state: ETCState, observed: Observed, explore_fraction: float) -> bool:
    """Algorithm 1's exploration in whole cycles: within a cycle, go on; at a cycle's start,
    go on while the cycle's estimated cost fits in ``explore_fraction`` of the budget
    (:func:`agents.rules.set_selection.continue_exploration`)."""
    if state.n_explore % observed.task.n_sets:
        return True
    return continue_exploration(
        observed.spent, observed.cost_sums, observed.plays, observed.task.budget, explore_fraction
    )


@dataclass(frozen=True)
class RoundRobin:
    """Algorithm 1: set ``t mod m`` in exploration round ``t``, in whole cycles, while a cycle
    fits in ``explore_fraction`` of the budget."""

    name: ClassVar[str] = "cycles"
    explore_fraction: float
    relevance: RelevanceRule | None = None
    holds: ClassVar[bool] = True

    def start(self, observed: Observed) -> None:
        return None

    def keep_exploring(self, round: Round) -> bool:
        return cycle_fits(round.state, round.observed, self.explore_fraction)

    def next_set(self, round: Round) -> ExploreChoice:
        return ExploreChoice(round_robin_set(round.state.n_explore, round.observed.task.n_sets))


@dataclass(frozen=True)
class SpendBalanced:
    """FETC's exploration: play the set furthest behind a target share of plays
    ``n_i ∝ c_hat_i^(-exponent)`` (:func:`agents.costs.allocation.spend_balanced_set`) among
    those ``relevance`` leaves, play by play while
    ``spent + c_hat_next <= explore_fraction * budget``; every set once first."""

    name: ClassVar[str] = "spend"
    explore_fraction: float
    exponent: float
    relevance: RelevanceRule | None = None
    holds: ClassVar[bool] = True

    def start(self, observed: Observed) -> None:
        return None

    def keep_exploring(self, round: Round) -> bool:
        observed = round.observed
        if np.any(observed.plays == 0):
            return True
        costs = optimistic_mean_costs(observed.cost_draws)
        i = self.next_set(round).set
        return exploration_fits(
            observed.spent, costs[i], observed.task.budget, self.explore_fraction
        )

    def next_set(self, round: Round) -> ExploreChoice:
        costs = optimistic_mean_costs(round.observed.cost_draws)
        eligible, note = (
            (list(range(round.observed.task.n_sets)), {})
            if self.relevance is None
            else self.relevance.eligible(round, costs)
        )
        plays = round.observed.plays
        return ExploreChoice(spend_balanced_set(plays, costs, self.exponent, eligible), note)


@dataclass(frozen=True)
class BalancedCycles(SpendBalanced):
    """Algorithm 1's whole cycles, each set chosen as :class:`SpendBalanced` with exponent 0
    (the fewest plays first): FETC's ``allocation="count"`` where relevance skips sets or the
    bounds are current (:meth:`agents.policies.etc.rules.FETCRules.parts`). Round-robin by
    play count, which differs from :class:`RoundRobin`'s count of decisions only where a
    decision is held for several plays."""

    name: ClassVar[str] = "count"
    #: The fewest plays first: not an option.
    exponent: float = field(default=0.0, init=False)

    def keep_exploring(self, round: Round) -> bool:
        return cycle_fits(round.state, round.observed, self.explore_fraction)
