"""The parts the explore-then-commit policy (:class:`agents.policies.etc.ETCAgent`) is composed of.

Algorithm 1 of Hoang, Nguyen & Tran (AAAI 2025, "ETC") and FETC, its frugal variant
(docs/agents/fetc.md), differ in four parts; each is a small object here, and
:func:`etc_parts` chooses them from a policy's rules (the one place the rules' option
strings are read):

- the **exploration rule**: when exploration stops and which set it plays next
  (:class:`RoundRobin`, :class:`BalancedCycles`, :class:`SpendBalanced`), with an optional
  :class:`RelevanceRule` that skips redundant sets;
- the **cost bound**: the optimistic cost of each set in exploitation
  (:class:`HoeffdingCostBound`, :class:`BernsteinCostBound`);
- the **value bound**: how exploitation finds the acceptable sets ``S1`` and ``S3``
  (:class:`IntersectedBounds`, Algorithm 1's running bars; :class:`AveragedBounds` and
  :class:`SetValueBounds`, this round's bounds alone);
- the **exploitation query**: the query played on the committed set (:class:`UCBQuery`,
  :class:`ThompsonQuery`).

The computation preset (:data:`agents.policies.etc.ETC_EXACT`, ``ETC_FAST``, ``ETC_FRUGAL``) is the
fifth part, chosen with the rules by a named preset (:data:`agents.policies.etc.PRESETS`, of
:class:`agents.policies.presets.Preset`). The parts
read and call the agent's public members only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from agents.costs.allocation import cheapest_acceptable, exploration_fits, spend_balanced_set
from agents.costs.estimates import (
    bernstein_cost_lcb,
    cost_lcb,
    horizon_estimate,
    optimistic_mean_costs,
)
from agents.rules.relevance import collapse_relevance, redundant_sets, relevant_variables
from agents.rules.set_selection import (
    best_set,
    cheapest_feasible,
    continue_exploration,
    feasible_sets,
    halving_alpha,
    intersect_bounds,
    round_robin_set,
    select_s1,
)

if TYPE_CHECKING:
    from agents.policies.etc import ETCAgent

#: A set's maximum and its maximizer (a full query, ``(d,)``), by set.
Maxima = dict[int, tuple[float, np.ndarray]]


# --- exploration --------------------------------------------------------------------------------


class RelevanceMeter:
    """Feature-collapsing relevance (:func:`agents.rules.relevance.collapse_relevance`), averaged over
    the first ``points`` of the acquisition's quasi-random inputs (a global measure) and
    measured again only once the GP's training set has grown by the factor ``growth``: one
    per episode, so ``O(log n)`` measures in a run."""

    def __init__(self, points: int, growth: float) -> None:
        self.points = points
        self.growth = growth
        self.measured_at = 0  # the GP's data size at the last measure (0: never measured)
        self.last = np.zeros(0)

    def relevance(self, agent: ETCAgent) -> np.ndarray:
        """``(d,)`` relevances in the units of ``y``: ``points x d x s`` posterior means a
        measure (``s``: the acquisition's samples)."""
        n = agent.surrogate.n_train
        if self.measured_at == 0 or n >= self.growth * self.measured_at:
            samples = agent.acquisition.samples.numpy()
            self.last = collapse_relevance(agent.surrogate, samples[: self.points], samples)
            self.measured_at = n
        return self.last


@dataclass(frozen=True)
class RelevanceRule:
    """Skip in exploration the sets that only add irrelevant variables to a cheaper subset
    (:func:`agents.rules.relevance.redundant_sets`), once ``min_data`` observations are made
    (``None``: ``2 d``); relevant: at least ``threshold`` times the largest relevance, measured
    by the agent's :class:`RelevanceMeter` (``points``, ``growth``)."""

    threshold: float
    min_data: int | None
    points: int
    growth: float

    def meter(self) -> RelevanceMeter:
        """A fresh measure of relevance for an episode."""
        return RelevanceMeter(self.points, self.growth)

    def eligible(self, agent: ETCAgent, costs: np.ndarray) -> tuple[list[int], dict[str, Any]]:
        """The sets exploration may play (all of them if every set is skipped) and, once the
        rule applies, what it found (``relevant``, ``skipped``) for the decision log."""
        sets = list(range(agent.task.n_sets))
        if agent.relevance_meter is None or agent.y.size < (self.min_data or 2 * agent.task.dim):
            return sets, {}
        relevant = relevant_variables(agent.relevance_meter.relevance(agent), self.threshold)
        skipped = redundant_sets(agent.task.control_sets, relevant, costs)
        return [i for i in sets if i not in skipped] or sets, {
            "relevant": relevant,
            "skipped": skipped,
        }


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

    def start(self, agent: ETCAgent) -> Any:
        """A fresh episode's exploration state (``agent.exploration_state``), if any."""

    def keep_exploring(self, agent: ETCAgent) -> bool: ...

    def next_set(self, agent: ETCAgent) -> ExploreChoice: ...


def cycle_fits(agent: ETCAgent) -> bool:
    """Algorithm 1's exploration in whole cycles: within a cycle, go on; at a cycle's start,
    go on while the cycle's estimated cost fits (:func:`agents.rules.set_selection.continue_exploration`)."""
    if agent.n_explore % agent.task.n_sets:
        return True
    return continue_exploration(
        agent.spent, agent.cost_sums, agent.plays, agent.task.budget, agent.rules.explore_fraction
    )


@dataclass(frozen=True)
class RoundRobin:
    """Algorithm 1: set ``t mod m`` in exploration round ``t``, in whole cycles."""

    relevance: RelevanceRule | None = None
    holds: ClassVar[bool] = True

    def start(self, agent: ETCAgent) -> None:
        return None

    def keep_exploring(self, agent: ETCAgent) -> bool:
        return cycle_fits(agent)

    def next_set(self, agent: ETCAgent) -> ExploreChoice:
        return ExploreChoice(round_robin_set(agent.n_explore, agent.task.n_sets))


@dataclass(frozen=True)
class SpendBalanced:
    """Play the set furthest behind a target share of plays ``n_i ∝ c_hat_i^(-exponent)``
    (:func:`agents.costs.allocation.spend_balanced_set`) among those ``relevance`` leaves, play by
    play while ``spent + c_hat_next <= explore_fraction * budget``; every set once first."""

    exponent: float
    relevance: RelevanceRule | None = None
    holds: ClassVar[bool] = True

    def start(self, agent: ETCAgent) -> None:
        return None

    def keep_exploring(self, agent: ETCAgent) -> bool:
        if np.any(agent.plays == 0):
            return True
        costs = optimistic_mean_costs(agent.cost_draws)
        i = self.next_set(agent).set
        return exploration_fits(
            agent.spent, costs[i], agent.task.budget, agent.rules.explore_fraction
        )

    def next_set(self, agent: ETCAgent) -> ExploreChoice:
        costs = optimistic_mean_costs(agent.cost_draws)
        eligible, note = (
            (list(range(agent.task.n_sets)), {})
            if self.relevance is None
            else self.relevance.eligible(agent, costs)
        )
        return ExploreChoice(spend_balanced_set(agent.plays, costs, self.exponent, eligible), note)


@dataclass(frozen=True)
class BalancedCycles(SpendBalanced):
    """Algorithm 1's whole cycles, each set chosen as :class:`SpendBalanced` with exponent 0
    (the fewest plays first): FETC's ``allocation="count"`` where relevance skips sets or the
    bounds are current (:func:`etc_parts`). Round-robin by play count, which differs from
    :class:`RoundRobin`'s count of decisions only where a decision is held for several plays."""

    exponent: float = 0.0

    def keep_exploring(self, agent: ETCAgent) -> bool:
        return cycle_fits(agent)


# --- cost bounds --------------------------------------------------------------------------------


@dataclass(frozen=True)
class HoeffdingCostBound:
    """Algorithm 1 line 24: ``max(c_hat_i - sqrt(2 log T / n_i), 0)``
    (:func:`agents.costs.estimates.cost_lcb`)."""

    def lower(self, agent: ETCAgent, horizon: float) -> np.ndarray:
        """``(m,)`` cost lower bounds with horizon ``T = horizon``."""
        return cost_lcb(agent.cost_sums, agent.plays, horizon)


@dataclass(frozen=True)
class BernsteinCostBound:
    """The empirical-Bernstein bound (:func:`agents.costs.estimates.bernstein_cost_lcb`), with
    the costs' support of length ``cost_range`` (``None``: each set's observed range)."""

    cost_range: float | None = None

    def lower(self, agent: ETCAgent, horizon: float) -> np.ndarray:
        """``(m,)`` cost lower bounds with horizon ``T = horizon``."""
        return bernstein_cost_lcb(agent.cost_draws, horizon, self.cost_range)


class CostBound(Protocol):
    """Optimistic costs of the sets in exploitation."""

    def lower(self, agent: ETCAgent, horizon: float) -> np.ndarray: ...


# --- value bounds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Commitment:
    """An exploitation round's choice: the set, its query as found (not yet played), and the
    decision log entry (without the query's own note)."""

    set: int
    x: np.ndarray
    log: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class IntersectedBounds:
    """Algorithm 1's running bars (lines 10-11 in exploration, 14-21 in exploitation):
    ``lcb_bar`` a running max of ``max E[l]``, ``ucb_bar_i`` a running min of ``max E[u]``,
    reset when ``S1`` is empty (:func:`agents.rules.set_selection.select_s1`).

    ``max E[u]`` is recomputed only for the sets whose ``ucb_bar_i`` exceeds this round's
    threshold (the others are outside ``S1`` whatever the value), and for every set when
    ``S1`` comes out empty, for the reset."""

    #: Exploration rounds intersect the bars too.
    intersects = True

    def exploit(self, agent: ETCAgent, alpha: float) -> Commitment:
        m = agent.task.n_sets
        lcb_now = agent.lcb_now()
        candidates = feasible_sets(agent.ucb_bar, max(agent.lcb_bar, lcb_now), alpha)
        maxima = agent.set_maxima(candidates, "ucb")
        ucb_now = np.full(m, np.nan)
        for i, (v, _) in maxima.items():
            ucb_now[i] = v
        _, intersected = intersect_bounds(agent.lcb_bar, agent.ucb_bar, lcb_now, ucb_now)
        if not feasible_sets(intersected, max(agent.lcb_bar, lcb_now), alpha):
            maxima.update(agent.set_maxima([i for i in range(m) if i not in maxima], "ucb"))
            ucb_now = np.array([maxima[i][0] for i in range(m)])
        choice = select_s1(agent.lcb_bar, agent.ucb_bar, lcb_now, ucb_now, alpha)
        agent.lcb_bar, agent.ucb_bar = choice.lcb_bar, choice.ucb_bar
        horizon = horizon_estimate(agent.task.budget, agent.cost_sums, agent.plays)
        lcbs = agent.cost_lower_bounds(horizon)
        s3 = cheapest_feasible(choice.s1, lcbs)
        values = np.array([maxima[i][0] if i in maxima else -math.inf for i in range(m)])
        i = best_set(s3, values)
        log = {
            "phase": "exploit",
            "set": i,
            "value": float(values[i]),
            "alpha": alpha,
            "lcb_bar": agent.lcb_bar,
            "ucb_bar": agent.ucb_bar.tolist(),
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

    def lcb(self, agent: ETCAgent) -> float:
        """``max_{i, x^i}`` of this round's lower bound."""
        raise NotImplementedError

    def ucb_maxima(self, agent: ETCAgent, sets: list[int]) -> Maxima:
        """``max_{x^i}`` of this round's upper bound, per set of ``sets``."""
        raise NotImplementedError

    def exploit(self, agent: ETCAgent, alpha: float) -> Commitment:
        lcb_now = self.lcb(agent)
        horizon = horizon_estimate(agent.task.budget, agent.cost_sums, agent.plays)
        lcbs = agent.cost_lower_bounds(horizon)
        maxima: Maxima = {}

        def ucb_of(sets: list[int]) -> dict[int, float]:
            maxima.update(self.ucb_maxima(agent, sets))
            return {i: maxima[i][0] for i in sets}

        threshold = agent.parts.tolerance.threshold(agent, lcb_now, alpha)
        s3, values = cheapest_acceptable(lcbs, threshold, ucb_of)
        dense = np.array([values.get(i, -math.inf) for i in range(agent.task.n_sets)])
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

    def lcb(self, agent: ETCAgent) -> float:
        return agent.lcb_now()

    def ucb_maxima(self, agent: ETCAgent, sets: list[int]) -> Maxima:
        return agent.set_maxima(sets, "ucb")


@dataclass(frozen=True)
class SetValueBounds(CurrentBounds):
    """This round's bounds ``E[g_i] +- beta std[g_i]`` of each set's value ``g_i`` itself
    (:class:`agents.expected_posterior.ExpectedPosterior`; FETC's
    ``value_bounds="integral"``), the lower one over every set; each maximized over the set's
    variables with the best ``n_refine`` screened candidates refined
    (:meth:`agents.policies.etc.ETCAgent.value_maxima`)."""

    n_refine: int = 2

    def lcb(self, agent: ETCAgent) -> float:
        lower = agent.value_maxima(range(agent.task.n_sets), -1.0, self.n_refine)
        return max(v for v, _ in lower.values())

    def ucb_maxima(self, agent: ETCAgent, sets: list[int]) -> Maxima:
        return agent.value_maxima(sets, 1.0, self.n_refine)


class ValueBound(Protocol):
    """How exploitation finds its set; ``intersects``: exploration updates Algorithm 1's bars."""

    @property
    def intersects(self) -> bool: ...

    def exploit(self, agent: ETCAgent, alpha: float) -> Commitment: ...


# --- exploitation queries -----------------------------------------------------------------------


@dataclass(frozen=True)
class UCBQuery:
    """Play the committed set at the maximizer of the bound that admitted it, polished on all
    samples (:meth:`~agents.policies.model_based.ModelBasedAgent.played`). ``logged``: the decision log
    names the query (``query="ucb"``), as FETC's does; Algorithm 1's log does not."""

    logged: bool = True

    def note(self) -> dict[str, Any]:
        return {"query": "ucb"} if self.logged else {}

    def query(self, agent: ETCAgent, i: int, x: np.ndarray) -> np.ndarray:
        return agent.played(i, x)

    def replay(self, agent: ETCAgent, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next play: the same query."""
        return x.copy()


@dataclass(frozen=True)
class ThompsonQuery:
    """Play the committed set at the maximizer of one posterior sample path's expectation
    (Thompson sampling), polished on all samples.

    ``distinct``: each play of a held decision (``hold``) maximizes a fresh sample path, so a
    decision's plays are distinct queries; otherwise they replay the decision's query, and
    ``g_i`` at one query, known after its first play, cannot lower the simple regret again.
    """

    distinct: bool = False

    def note(self) -> dict[str, Any]:
        return {"query": "ts"}

    def query(self, agent: ETCAgent, i: int, x: np.ndarray) -> np.ndarray:
        path = agent.sample_path()
        return agent.played(i, agent.set_maxima([i], path)[i][1], path)

    def replay(self, agent: ETCAgent, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next play: a fresh Thompson query with ``distinct``, else ``x``."""
        return self.query(agent, i, x) if self.distinct else x.copy()


class ExploitQuery(Protocol):
    """The query played on the committed set, what a held decision plays next, and what the
    decision log says of it."""

    def note(self) -> dict[str, Any]: ...

    def query(self, agent: ETCAgent, i: int, x: np.ndarray) -> np.ndarray: ...

    def replay(self, agent: ETCAgent, i: int, x: np.ndarray) -> np.ndarray: ...


# --- tolerances ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RelativeTolerance:
    """Algorithm 1's tolerance: ``S1`` needs ``max U_i > (1 - alpha) max L``, ``alpha`` from
    ``alpha0`` halved every ``halve_every`` exploitation decisions (``None``: ``d``;
    :func:`agents.rules.set_selection.halving_alpha`). Relative to the value, so it moves with
    the objective's offset: on levy6 (``g* = 414``) ``alpha0 = 0.1`` admits sets 41 below."""

    alpha0: float = 0.1
    halve_every: int | None = None

    def alpha(self, agent: ETCAgent) -> float:
        return halving_alpha(agent.n_exploit, self.alpha0, self.halve_every or agent.task.dim)

    def threshold(self, agent: ETCAgent, lcb: float, alpha: float) -> float:
        return (1.0 - alpha) * lcb


@dataclass(frozen=True)
class RangeTolerance:
    """A tolerance in units of the observed range of ``y`` (``max y - min y``), halved per
    ``halve_spend`` of the budget spent in exploitation: ``S1`` needs
    ``max U_i > max L - alpha (max y - min y)``. Invariant to the objective's offset and scale
    (it is Algorithm 1's ``(1 - alpha) max L`` where ``y``'s minimum is 0), and tightened by
    spend rather than by decisions, so a decision's size (a ``hold``) does not change the
    schedule."""

    alpha0: float = 0.1
    halve_spend: float = 0.1

    def alpha(self, agent: ETCAgent) -> float:
        spent = max(agent.spent - agent.explore_spent, 0.0)
        halvings = math.floor(spent / (self.halve_spend * agent.task.budget))
        return halving_alpha(halvings, self.alpha0)

    def threshold(self, agent: ETCAgent, lcb: float, alpha: float) -> float:
        spread = float(np.ptp(agent.y)) if agent.y.size else 0.0
        return lcb - alpha * spread


class Tolerance(Protocol):
    """How far below the largest lower bound a set's upper bound may be for ``S1``
    (current bounds only; Algorithm 1's bars use :class:`RelativeTolerance`'s form)."""

    def alpha(self, agent: ETCAgent) -> float: ...

    def threshold(self, agent: ETCAgent, lcb: float, alpha: float) -> float: ...


# --- the composition ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ETCParts:
    """The parts of one explore-then-commit policy (chosen by its rules'
    :meth:`~agents.policies.etc.ETCRules.parts`)."""

    exploration: Exploration
    cost_bound: CostBound
    value_bound: ValueBound
    query: ExploitQuery
    tolerance: Tolerance


#: Algorithm 1's parts, with the decision log as Algorithm 1's agent writes it.
ALGORITHM_1 = ETCParts(
    RoundRobin(), HoeffdingCostBound(), IntersectedBounds(), UCBQuery(False), RelativeTolerance()
)
