"""Explore-then-commit: Algorithm 1 of Hoang, Nguyen & Tran (AAAI 2025, "ETC"), FETC and the
ablation agents between them, as one policy (:class:`ETCAgent`) and a table of named presets
(:data:`PRESETS`).

The policy is composed of parts (:mod:`agents.policies.etc_strategies`): an exploration rule, a cost
bound, a value bound and an exploitation query, which its rules choose
(:meth:`ETCRules.parts`), and a computation preset (:data:`ETC_EXACT`, :data:`ETC_FAST`,
:data:`ETC_FRUGAL`). Each registered name is a preset: its rules and computation, the defaults
its keyword parameters are given over.

- ``etc``: Algorithm 1 (:class:`ETCRules`, :data:`ETC_EXACT`).
- ``fetc``, "frugal explore-then-commit": Algorithm 1 with five failure modes fixed, one switch
  each (:class:`FETCRules`, :data:`ETC_FRUGAL`; docs/agents/fetc.md): exploration balances
  spend, not counts; empirical-Bernstein cost bounds; ``S1`` from this round's bounds of each
  set's value; redundant sets skipped in exploration by the variables' relevance; Thompson
  sampling on the committed set.
- ``etc-bounded``: FETC's rules with every switch at ETC's value (:data:`ETC_SWITCHES`) and
  FETC's computation; ``etc-spend``, ``etc-bernstein``, ``etc-current``, ``etc-relevance``,
  ``etc-ts``: ``etc-bounded`` with one of FETC's switches on (:data:`COMPONENTS`), so that a
  sweep shows what each change buys alone (docs/agents/fetc_ablation.md).

ETC-50, the AAAI paper's "variant of UCB-CVS", is not a preset here: it never commits by
bounds, and is a preset of UCB-PSQ (:data:`agents.policies.psq.PRESETS`;
docs/design/composed-policy.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar, Literal, get_args

import numpy as np
from torch import Tensor

from agents.acquisition import SetOptimizer, SetScores
from agents.acquisition.screening import set_candidates
from agents.base import Action, Observation
from agents.config import (
    FAST_SETTINGS,
    FRUGAL_COMPUTE,
    Computation,
    Rules,
    check_choice,
)
from agents.expected_posterior import ExpectedPosterior
from agents.policies.etc_strategies import (
    ALGORITHM_1,
    AveragedBounds,
    BalancedCycles,
    BernsteinCostBound,
    CostBound,
    ETCParts,
    ExploitQuery,
    Exploration,
    ExploreChoice,
    HoeffdingCostBound,
    IntersectedBounds,
    RangeTolerance,
    RelativeTolerance,
    RelevanceMeter,
    RelevanceRule,
    RoundRobin,
    SetValueBounds,
    SpendBalanced,
    ThompsonQuery,
    Tolerance,
    UCBQuery,
    ValueBound,
)
from agents.policies.grouped_exploration import GroupedExploration
from agents.policies.model_based import ModelBasedAgent
from agents.policies.presets import Preset, preset_table
from agents.rules.set_selection import intersect_bounds, maximal_sets
from bocvs_env.checks import check_positive_integers

#: The values of ETC's ``lcb_tracking`` option.
LcbTracking = Literal["off", "polish", "revalue"]
LCB_TRACKING = get_args(LcbTracking)


@dataclass(frozen=True)
class ETCComputation(Computation):
    """ETC's computation: the model's (:class:`~agents.config.Computation`) and how it tracks
    ``max E[l]`` between refits.

    Args:
        lcb_tracking: how ``max_{i, x^i} E[l]`` over the maximal sets is found each round.
            ``"revalue"``: between hyperparameter refits, last round's maximizers (and the
            incumbents of :meth:`~agents.policies.model_based.ModelBasedAgent.set_maxima`) are only
            valued under the new posterior; ``"polish"``: between refits, each set's ``E[l]``
            is only polished from its maximizer of the previous round (one L-BFGS-B start per
            set, no screening); ``"off"`` (ETC's default, as Algorithm 1): a full maximization
            every round. With either tracking, a full maximization follows every refit and
            comes at least every ``refit_every + 1`` rounds. Tracking trades a possibly missed
            better LCB optimum (the value lags until the next full maximization; it enters
            ``lcb_bar``, a running max) for a much cheaper round: the full max-LCB was 42% of an
            ETC episode on hartmann6 in 12-D and 83% of ``act`` on airfoil. ``exact=True``
            (:data:`ETC_EXACT_SETTINGS`) refuses any other value of it or of the model's fast
            options.
    """

    exact_settings: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {**Computation.exact_settings, "lcb_tracking": "off"}
    )

    lcb_tracking: LcbTracking = "revalue"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("lcb_tracking", self.lcb_tracking, LCB_TRACKING)


#: ETC's computations as first implemented (Algorithm 1 with a full ``max E[l]`` every round):
#: the model's :data:`~agents.config.EXACT_SETTINGS` and ``lcb_tracking="off"``.
#: ``ETCAgent(exact=True)``, the same as ``ETCAgent(**ETC_EXACT_SETTINGS)``, makes the
#: decisions ETC made before the fast options became its defaults.
ETC_EXACT_SETTINGS: Mapping[str, Any] = ETCComputation.exact_settings

#: The fast options for ETC: the model's :data:`~agents.config.FAST_SETTINGS` and
#: ``lcb_tracking="revalue"``. ETC's defaults until the paired check on the whole grid found them
#: worse on 3 of its 16 panels (docs/design/computation-settings.md); FETC's defaults.
ETC_FAST_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {**FAST_SETTINGS, "lcb_tracking": "revalue"}
)

#: ETC's presets: :data:`ETC_EXACT_SETTINGS` (ETC's default), the fast options, and the fast
#: options with :data:`~agents.config.FRUGAL`'s bounds (FETC's and its ablation agents').
ETC_EXACT = ETCComputation(**ETC_EXACT_SETTINGS)
ETC_FAST = ETCComputation()
ETC_FRUGAL = ETCComputation(**FRUGAL_COMPUTE)


def check_spend_rules(spend_exponent: float, cost_range: float | None) -> None:
    """Refuse a spend exponent outside ``[0, 1]`` and a cost range that is not positive and
    finite (FETC's and GETC's rules share both options)."""
    if not 0.0 <= spend_exponent <= 1.0:
        raise ValueError(f"spend_exponent must be in [0, 1], got {spend_exponent!r}")
    if cost_range is not None and not (math.isfinite(cost_range) and cost_range > 0):
        raise ValueError(f"cost_range must be positive and finite, got {cost_range!r}")


@dataclass(frozen=True)
class ETCRules(Rules):
    """Algorithm 1's rules.

    Args:
        explore_fraction: the share of the budget exploration may spend (the paper: 60%).
        alpha0: the tolerance at the start of exploitation (the paper: 0.1).
        halve_every: exploitation rounds (decisions, with a ``hold``) between halvings of
            ``alpha``; ``None`` is ``d``, as the paper.
    """

    explore_fraction: float = 0.6
    alpha0: float = 0.1
    halve_every: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.explore_fraction <= 1.0:
            raise ValueError(f"explore_fraction must be in [0, 1], got {self.explore_fraction!r}")
        if not 0.0 <= self.alpha0 < 1.0:
            raise ValueError(f"alpha0 must be in [0, 1), got {self.alpha0!r}")
        if self.halve_every is not None and self.halve_every < 1:
            raise ValueError(f"halve_every must be >= 1, got {self.halve_every!r}")

    def parts(self) -> ETCParts:
        """The policy's parts: Algorithm 1's."""
        return replace(ALGORITHM_1, tolerance=RelativeTolerance(self.alpha0, self.halve_every))


@dataclass(frozen=True)
class FETCRules(ETCRules):
    """ETC's rules and FETC's five switches, each with ETC's behaviour as its other value
    (:data:`ETC_SWITCHES`); :meth:`parts` turns them into the policy's parts.

    Args:
        allocation: ``"spend"`` (:class:`~agents.policies.etc_strategies.SpendBalanced`) or
            ``"count"`` (Algorithm 1's round-robin in whole cycles).
        spend_exponent: ``p`` of the target shares ``n_i ∝ c_hat_i^(-p)`` (0: counts, 1:
            spend), used with ``"spend"``.
        cost_bound: ``"bernstein"`` (:func:`agents.costs.estimates.bernstein_cost_lcb`) or
            ``"hoeffding"`` (Algorithm 1's ``sqrt(2 log T / n)``).
        cost_range: the known length of a cost's support for the Bernstein bound; ``None``
            plugs in each set's observed range (see :func:`agents.costs.estimates.bernstein_width`).
        value_bounds: ``"integral"``: ``S1`` from this round's bounds of each set's value
            ``g_i`` (:class:`~agents.policies.etc_strategies.SetValueBounds`); ``"current"``: this
            round's bounds of ``f`` averaged over the random inputs, ``max E[u]`` and
            ``max E[l]`` (:class:`~agents.policies.etc_strategies.AveragedBounds`); ``"intersected"``:
            Algorithm 1's running bars. Both current kinds log ``ucb_checked`` in place of
            ``s1``, ``ucb_bar`` and ``reset``.
        relevance: skip redundant sets in exploration
            (:class:`~agents.policies.etc_strategies.RelevanceRule`).
        relevance_threshold: the ratio to the largest relevance above which a variable counts.
        relevance_min_data: observations before relevance is trusted; ``None`` is ``2 d``.
        relevance_points: the quasi-random inputs (drawn from the variables' distributions)
            relevance is averaged over.
        relevance_growth: the relevance is measured again once the GP's training set (at most
            ``max_data`` points) has grown by this factor since the last measure (``>= 1``; 1
            measures it at every exploration play).
        exploit_query: ``"ts"`` (Thompson sampling on the committed set) or ``"ucb"`` (the
            maximizer of the bound that admitted the set).
        n_refine: with ``value_bounds="integral"``, the best screened candidates per set whose
            bound is refined by L-BFGS-B (as :class:`~agents.policies.cost_ei.CostCooledEIAgent`'s).
    """

    allocation: Literal["spend", "count"] = "spend"
    spend_exponent: float = 0.5
    cost_bound: Literal["bernstein", "hoeffding"] = "bernstein"
    cost_range: float | None = None
    value_bounds: Literal["integral", "current", "intersected"] = "integral"
    relevance: bool = True
    relevance_threshold: float = 0.1
    relevance_min_data: int | None = None
    relevance_points: int = 32
    relevance_growth: float = 1.25
    exploit_query: Literal["ts", "ucb"] = "ts"
    n_refine: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("allocation", self.allocation, ("spend", "count"))
        check_choice("cost_bound", self.cost_bound, ("bernstein", "hoeffding"))
        check_choice("value_bounds", self.value_bounds, ("integral", "current", "intersected"))
        check_choice("exploit_query", self.exploit_query, ("ts", "ucb"))
        check_spend_rules(self.spend_exponent, self.cost_range)
        if not 0.0 <= self.relevance_threshold <= 1.0:
            raise ValueError(
                f"relevance_threshold must be in [0, 1], got {self.relevance_threshold!r}"
            )
        if self.relevance_min_data is not None and self.relevance_min_data < 1:
            raise ValueError(f"relevance_min_data must be >= 1, got {self.relevance_min_data!r}")
        if self.relevance_points < 1:
            raise ValueError(f"relevance_points must be >= 1, got {self.relevance_points!r}")
        if not self.relevance_growth >= 1.0:
            raise ValueError(f"relevance_growth must be >= 1, got {self.relevance_growth!r}")
        check_positive_integers(n_refine=self.n_refine)

    def parts(self) -> ETCParts:
        """The parts the switches choose (the one place their option strings are read)."""
        bounds: dict[str, ValueBound] = {
            "intersected": IntersectedBounds(),
            "current": AveragedBounds(),
            "integral": SetValueBounds(self.n_refine),
        }
        value_bound = bounds[self.value_bounds]
        relevance = (
            RelevanceRule(
                self.relevance_threshold,
                self.relevance_min_data,
                self.relevance_points,
                self.relevance_growth,
            )
            if self.relevance
            else None
        )
        exploration: Exploration
        if self.allocation == "spend":
            exploration = SpendBalanced(self.spend_exponent, relevance)
        elif relevance is None and value_bound.intersects:
            exploration = RoundRobin()
        else:
            exploration = BalancedCycles(relevance=relevance)
        cost_bound: CostBound = (
            HoeffdingCostBound()
            if self.cost_bound == "hoeffding"
            else BernsteinCostBound(self.cost_range)
        )
        query: ExploitQuery = UCBQuery() if self.exploit_query == "ucb" else ThompsonQuery()
        tolerance = RelativeTolerance(self.alpha0, self.halve_every)
        return ETCParts(exploration, cost_bound, value_bound, query, tolerance)


#: The switches that turn every FETC component off: FETC with these is ETC (Algorithm 1) with
#: the same model options (with :data:`ETC_EXACT_SETTINGS` too, ETC as first implemented), up
#: to its decision log, which names the exploitation query.
ETC_SWITCHES: Mapping[str, Any] = MappingProxyType(
    {
        "allocation": "count",
        "cost_bound": "hoeffding",
        "value_bounds": "intersected",
        "relevance": False,
        "exploit_query": "ucb",
    }
)

#: The rules of FETC with every component switched off: ETC's rules.
ETC_RULES = FETCRules(**ETC_SWITCHES)


@dataclass(frozen=True)
class GETCRules(ETCRules):
    """GETC's rules (docs/agents/getc.md): FETC's empirical-Bernstein cost bounds, bounds of
    each set's value and Thompson-sampling queries, with exploration by groups of equally sized
    sets, a tolerance on the range of ``y`` halved per spend, and distinct queries in a held
    decision. Each change has a switch whose other value is FETC's (or Algorithm 1's), for the
    ablation.

    Args:
        exploration: ``"groups"`` (:class:`~agents.policies.grouped_exploration.GroupedExploration`)
            or ``"spend"`` (FETC's :class:`~agents.policies.etc_strategies.SpendBalanced`).
        rounds_per_group: the most exploration rounds per group (ETC-50's 50).
        positional_size: the group size where every set has the same size (ETC-50's 3).
        eliminate: in exploration, skip sets whose ``max U_i`` is below the largest
            ``max E[l]``.
        tolerance: ``"range"`` (:class:`~agents.policies.etc_strategies.RangeTolerance`) or
            ``"relative"`` (Algorithm 1's, :class:`~agents.policies.etc_strategies.RelativeTolerance`).
        halve_spend: with ``"range"``, the share of the budget spent in exploitation per
            halving of ``alpha``.
        distinct_replays: each play of a held decision is a fresh Thompson query, not a replay.
        spend_exponent: with ``exploration="spend"``, FETC's ``p``.
        cost_range: the Bernstein bound's known cost range (``None``: each set's observed).
        n_refine: the screened candidates per set whose value bound is refined by L-BFGS-B
            (in exploration's choice of a set, and in exploitation's ``S1``).
    """

    exploration: Literal["groups", "spend"] = "groups"
    rounds_per_group: int = 50
    positional_size: int = 3
    eliminate: bool = True
    tolerance: Literal["range", "relative"] = "range"
    halve_spend: float = 0.1
    distinct_replays: bool = True
    spend_exponent: float = 0.5
    cost_range: float | None = None
    n_refine: int = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("exploration", self.exploration, ("groups", "spend"))
        check_choice("tolerance", self.tolerance, ("range", "relative"))
        check_positive_integers(
            rounds_per_group=self.rounds_per_group,
            positional_size=self.positional_size,
            n_refine=self.n_refine,
        )
        if not 0.0 < self.halve_spend <= 1.0:
            raise ValueError(f"halve_spend must be in (0, 1], got {self.halve_spend!r}")
        check_spend_rules(self.spend_exponent, self.cost_range)

    def parts(self) -> ETCParts:
        """The parts the switches choose."""
        exploration: Exploration = (
            GroupedExploration(
                self.rounds_per_group, self.positional_size, self.eliminate, self.n_refine
            )
            if self.exploration == "groups"
            else SpendBalanced(self.spend_exponent)
        )
        tolerance: Tolerance = (
            RangeTolerance(self.alpha0, self.halve_spend)
            if self.tolerance == "range"
            else RelativeTolerance(self.alpha0, self.halve_every)
        )
        return ETCParts(
            exploration,
            BernsteinCostBound(self.cost_range),
            SetValueBounds(self.n_refine),
            ThompsonQuery(self.distinct_replays),
            tolerance,
        )


class ETCAgent(ModelBasedAgent):
    """Explore, then commit to the cheapest set whose bounds say it is good enough.

    **Exploration** (the exploration rule): play sets at ``x^i = argmax E[u_{t-1}]`` while the
    rule says the budget share ``explore_fraction`` allows; Algorithm 1 plays round-robin in
    whole cycles, a new cycle while the spend so far plus the cycle's estimated cost (the sum
    of the sets' observed mean costs) fits (:func:`agents.rules.set_selection.continue_exploration`).
    With Algorithm 1's bars each exploration round also records ``max_{i, x^i} E[l_{t-1}]``
    (into ``lcb_bar``, a running max) and the played set's ``max_x E[u_{t-1}]`` (into
    ``ucb_bar_i``, a running min), lines 10-11.

    **Exploitation** (the value bound, the cost bound, the query): each round forms ``S1``, the
    sets whose upper bound exceeds ``(1 - alpha)`` times the largest lower bound; ``S3``, the
    sets of ``S1`` with the smallest cost lower bound (ties kept), with ``T = budget / min_i
    c_hat_i`` (the most rounds the budget could buy at the cheapest observed mean cost, a
    stand-in for the unknown horizon); plays the set of ``S3`` with the largest upper bound.
    ``alpha`` starts at ``alpha0`` and is halved after every ``halve_every`` exploitation
    rounds (default ``d``; a round is an evaluation, or with a ``hold`` a decision and its
    replays).

    ``max_{i, x^i} E[l]`` is taken over the sets that are not strict subsets of another
    (:func:`agents.rules.set_selection.maximal_sets`): a superset's maximum is never smaller (exactly for
    the full set; for others up to the Monte Carlo error of the expectation).

    The decision log (:meth:`diagnostics`) has one entry per decision: ``phase``, ``set``,
    ``value`` (the played upper bound), ``lcb_bar``, and with Algorithm 1's bars ``ucb_bar``;
    in exploitation ``alpha``, ``horizon``, ``cost_lcb``, ``s3``, with the bars ``s1`` and
    ``reset``, with current bounds ``ucb_checked`` (the sets whose maximal upper bound was
    needed; ``lcb_bar`` is then this round's ``max L``); with FETC's rules ``query``, and with
    relevance ``relevant`` and ``skipped`` in exploration.

    Args:
        preset: the registered name whose rules and computation the parameters are given over
            (:data:`PRESETS`; ``None`` is ``"etc"``, Algorithm 1).
        **params: the preset's rules (:class:`ETCRules`, :class:`FETCRules`), its computation
            (:class:`ETCComputation`) and the model options of
            :class:`~agents.policies.model_based.ModelBasedAgent` (``beta = 2`` by default, as the
            paper), by name.
    """

    name = "etc"
    default_rules: ClassVar[ETCRules] = ETCRules()
    default_computation: ClassVar[ETCComputation] = ETC_EXACT
    rules: ETCRules
    computation: ETCComputation

    def __init__(self, preset: str | None = None, **params: Any) -> None:
        super().__init__(preset, **params)
        self.parts = self.rules.parts()

    def start(self) -> None:
        rule = self.parts.exploration.relevance
        self.relevance_meter: RelevanceMeter | None = None if rule is None else rule.meter()
        super().start()
        self.exploration_state = self.parts.exploration.start(self)
        self.exploring = True
        self.explore_spent = 0.0  # the spend when exploration ended
        self.n_explore = 0
        self.n_exploit = 0
        self.lcb_bar = -math.inf
        self.ucb_bar = np.full(self.task.n_sets, math.inf)
        self.posterior = ExpectedPosterior(self.task, self.acquisition.samples)
        self._maximal = maximal_sets(self.task.control_sets)
        #: ``lcb_tracking``'s state: per maximal set its last LCB maximizer, the refit count
        #: at the last full maximization and the rounds since.
        self._lcb_x: dict[int, np.ndarray] = {}
        self._lcb_refits = -1
        self._lcb_rounds = 0

    def decide(self, observation: Observation) -> Action:
        exploration = self.parts.exploration
        if self.exploring:
            self.exploring = exploration.keep_exploring(self)
            if not self.exploring:
                self.explore_spent = self.spent
        if not self.exploring:
            return self.commit()
        choice = exploration.next_set(self)
        return self.explore_round(choice, self.parts.value_bound.intersects)

    def hold_spend(self) -> float:
        """The spend a decision is held for: none in exploration by a rule that does not hold
        its decisions (:class:`~agents.policies.grouped_exploration.GroupedExploration`)."""
        if self.exploring and not self.parts.exploration.holds:
            return 0.0
        return super().hold_spend()

    def replay(self, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next play: in exploitation, the query part's (a fresh Thompson
        query with ``distinct_replays``), else the same query."""
        if self.exploring:
            return x.copy()
        return self.parts.query.replay(self, i, x)

    def explore_round(self, choice: ExploreChoice, intersect: bool) -> Action:
        """One exploration round on the chosen set at its ``argmax E[u]``, or at the maximizer
        of the bound the rule chose the set by (:class:`ExploreChoice`'s ``found``), as
        :meth:`played` polishes it; ``intersect`` updates Algorithm 1's bars (lines 10-11),
        the choice's note adds to the log."""
        i = choice.set
        value, x = choice.found or self.set_maxima([i], "ucb")[i]
        if intersect:
            ucb_now = np.full(self.task.n_sets, np.nan)
            ucb_now[i] = value
            self.lcb_bar, self.ucb_bar = intersect_bounds(
                self.lcb_bar, self.ucb_bar, self.lcb_now(), ucb_now
            )
        self.n_explore += 1
        self.log(
            phase="explore",
            set=i,
            value=value,
            lcb_bar=self.lcb_bar,
            ucb_bar=self.ucb_bar.tolist(),
            **choice.note,
        )
        return {"control_set": i, "x": self.played(i, x)}

    def commit(self) -> Action:
        """One exploitation decision: the set by the value bound, its query by the
        exploitation query."""
        choice = self.parts.value_bound.exploit(self, self.alpha())
        self.n_exploit += 1
        self.log(**choice.log, **self.parts.query.note())
        return {"control_set": choice.set, "x": self.parts.query.query(self, choice.set, choice.x)}

    def alpha(self) -> float:
        """This exploitation round's tolerance, by the tolerance part: Algorithm 1's
        ``alpha0`` halved every ``halve_every`` rounds (``d`` if ``None``) of exploitation
        (:class:`~agents.policies.etc_strategies.RelativeTolerance`), or GETC's, halved per
        spend (:class:`~agents.policies.etc_strategies.RangeTolerance`)."""
        return self.parts.tolerance.alpha(self)

    def lcb_now(self) -> float:
        """``max_{i, x^i} E[l_{t-1}]`` over the maximal sets (see ``lcb_tracking``)."""
        refits = self.surrogate.fitter.n_refits
        if (
            self.computation.lcb_tracking != "off"
            and refits == self._lcb_refits
            and self._lcb_rounds < self.surrogate_options.refit_every
        ):
            maxiter = 0 if self.computation.lcb_tracking == "revalue" else None
            maxima = self.set_maxima(self._maximal, "lcb", self._lcb_x, maxiter)
            self._lcb_rounds += 1
        else:
            maxima = self.set_maxima(self._maximal, "lcb")
            self._lcb_refits, self._lcb_rounds = refits, 0
        self._lcb_x = {i: x for i, (_, x) in maxima.items()}
        return max(v for v, _ in maxima.values())

    def cost_lower_bounds(self, horizon: float) -> np.ndarray:
        """``(m,)`` cost lower bounds with horizon ``T = horizon`` (the cost bound's)."""
        return self.parts.cost_bound.lower(self, horizon)

    def value_maxima(
        self, sets: Iterable[int], sign: float, n_refine: int
    ) -> dict[int, tuple[float, np.ndarray]]:
        """``max_{x^i} E[g_i] + sign * beta * std[g_i]`` and its full query ``(d,)`` per set
        (:class:`~agents.acquisition.SetOptimizer` on :class:`~agents.acquisition.SetScores`
        over ``raw_samples`` screened candidates and the ``n_incumbents`` best observed
        queries, the best ``n_refine`` refined by L-BFGS-B)."""
        best = self.best_observed()

        def bound(i: int, X: Tensor) -> Tensor:
            mean, std = self.posterior.mean_std(self.surrogate, i, X)
            return mean + sign * self.acquisition_options.beta * std

        bounds = SetScores(self.task.control_sets, self.task.dim, bound)
        optimizer = SetOptimizer(n_refine, self.acquisition_options.maxiter)
        out = {}
        for i in sets:
            ctrl = list(self.task.control_sets[i])
            Z = set_candidates(
                ctrl, self.acquisition_options.raw_samples, self.acquisition.seed + i, best
            )
            ((value, x),) = optimizer.maximize(bounds, [i], [Z])
            out[i] = (value, x)
        return out


#: The ablation agents: name -> (what it is, the one switch that differs from ETC's, none
#: for ``etc-bounded``); each is :data:`ETC_RULES` with that switch and FETC's computation.
ABLATIONS: Mapping[str, tuple[str, dict[str, Any]]] = MappingProxyType(
    {
        "etc-bounded": ("ETC with FETC's computation and none of its components.", {}),
        "etc-spend": ("ETC with spend-balanced exploration.", {"allocation": "spend"}),
        "etc-bernstein": ("ETC with empirical-Bernstein cost bounds.", {"cost_bound": "bernstein"}),
        "etc-current": (
            "ETC with S1 from the current model's bounds of each set's value.",
            {"value_bounds": "integral"},
        ),
        "etc-relevance": ("ETC that skips redundant sets in exploration.", {"relevance": True}),
        "etc-ts": ("ETC with Thompson-sampling queries in exploitation.", {"exploit_query": "ts"}),
    }
)

#: Ablation name -> the one switch that differs from ETC (none for ``etc-bounded``).
COMPONENTS: Mapping[str, dict[str, Any]] = MappingProxyType(
    {name: component for name, (_, component) in ABLATIONS.items()}
)

#: GETC's ablation agents: name -> (what it is, the one switch that differs from GETC's).
GETC_ABLATIONS: Mapping[str, tuple[str, dict[str, Any]]] = MappingProxyType(
    {
        "getc-spend": ("GETC with FETC's spend-balanced exploration.", {"exploration": "spend"}),
        "getc-keep": ("GETC without elimination in exploration.", {"eliminate": False}),
        "getc-relative": ("GETC with Algorithm 1's relative tolerance.", {"tolerance": "relative"}),
        "getc-replays": ("GETC replaying a held decision's query.", {"distinct_replays": False}),
    }
)

#: The registered names of the explore-then-commit family: name -> its preset.
PRESETS: Mapping[str, Preset[ETCAgent]] = preset_table(
    Preset("etc", ETCAgent, ETCRules(), ETC_EXACT, "Algorithm 1 of Hoang, Nguyen & Tran."),
    Preset("fetc", ETCAgent, FETCRules(), ETC_FRUGAL, "Frugal explore-then-commit (FETC)."),
    *(
        Preset(name, ETCAgent, replace(ETC_RULES, **component), ETC_FRUGAL, summary)
        for name, (summary, component) in ABLATIONS.items()
    ),
    Preset("getc", ETCAgent, GETCRules(), ETC_FRUGAL, "Grouped explore-then-commit (GETC)."),
    *(
        Preset(name, ETCAgent, GETCRules(**switch), ETC_FRUGAL, summary)
        for name, (summary, switch) in GETC_ABLATIONS.items()
    ),
)
ETCAgent.presets = PRESETS

#: The presets by the names the entry points and ``agents`` give them.
FETCAgent = PRESETS["fetc"]
GETCAgent = PRESETS["getc"]
GETCSpendAgent = PRESETS["getc-spend"]
GETCKeepAgent = PRESETS["getc-keep"]
GETCRelativeAgent = PRESETS["getc-relative"]
GETCReplaysAgent = PRESETS["getc-replays"]
ETCBoundedAgent = PRESETS["etc-bounded"]
ETCSpendAgent = PRESETS["etc-spend"]
ETCBernsteinAgent = PRESETS["etc-bernstein"]
ETCCurrentAgent = PRESETS["etc-current"]
ETCRelevanceAgent = PRESETS["etc-relevance"]
ETCTSAgent = PRESETS["etc-ts"]
