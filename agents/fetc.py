"""FETC, "frugal explore-then-commit": Algorithm 1 of Hoang et al. (AAAI 2025) with its failure
modes fixed, one constructor switch per fix (see docs/agents/fetc.md)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from torch import Tensor

from agents.acquisition.screening import set_candidates
from agents.allocation import cheapest_acceptable, exploration_fits, spend_balanced_set
from agents.base import Action, Observation
from agents.config import check_choice
from agents.cost_estimates import bernstein_cost_lcb, optimistic_mean_costs
from agents.decisions import (
    best_set,
    continue_exploration,
    horizon_estimate,
)
from agents.etc import ETC_FRUGAL, ETCAgent, ETCComputation, ETCRules
from agents.expected_posterior import ExpectedPosterior
from agents.relevance import collapse_relevance, redundant_sets, relevant_variables
from agents.set_search import maximize_on_set
from bocvs_env.checks import check_positive_integers

#: The switches that turn every FETC component off: FETC with these is ETC (Algorithm 1) with
#: the same model options (with :data:`agents.etc.ETC_EXACT_SETTINGS` too, ETC as first
#: implemented).
ETC_SWITCHES: dict[str, Any] = {
    "allocation": "count",
    "cost_bound": "hoeffding",
    "value_bounds": "intersected",
    "relevance": False,
    "exploit_query": "ucb",
}


@dataclass(frozen=True)
class FETCRules(ETCRules):
    """FETC's rules: ETC's and its five components' switches (:class:`FETCAgent` documents
    each)."""

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
        if not 0.0 <= self.spend_exponent <= 1.0:
            raise ValueError(f"spend_exponent must be in [0, 1], got {self.spend_exponent!r}")
        if not 0.0 <= self.relevance_threshold <= 1.0:
            raise ValueError(
                f"relevance_threshold must be in [0, 1], got {self.relevance_threshold!r}"
            )
        if self.cost_range is not None and not (
            math.isfinite(self.cost_range) and self.cost_range > 0
        ):
            raise ValueError(f"cost_range must be positive and finite, got {self.cost_range!r}")
        if self.relevance_min_data is not None and self.relevance_min_data < 1:
            raise ValueError(f"relevance_min_data must be >= 1, got {self.relevance_min_data!r}")
        if self.relevance_points < 1:
            raise ValueError(f"relevance_points must be >= 1, got {self.relevance_points!r}")
        if not self.relevance_growth >= 1.0:
            raise ValueError(f"relevance_growth must be >= 1, got {self.relevance_growth!r}")
        check_positive_integers(n_refine=self.n_refine)


class FETCAgent(ETCAgent):
    """Frugal explore-then-commit: explore by spend, commit to the cheapest acceptable set.

    It keeps what Algorithm 1 gets right: a tolerance ``alpha`` on value (halved every
    ``halve_every`` exploitation decisions), ``S1`` from GP confidence bounds, the cheapest
    acceptable set by optimistic cost bounds (``S3``), the largest UCB among ties. Five
    components change, each a switch whose other value gives back ETC's behaviour for that
    component (:data:`ETC_SWITCHES`):

    1. ``allocation="spend"``: exploration plays the set furthest behind a target share of plays
       ``n_i ∝ c_hat_i^(-spend_exponent)`` (:func:`agents.allocation.spend_balanced_set`), play by
       play while ``spent + c_hat_next <= explore_fraction * budget``; every set is played once
       first. ``"count"``: ETC's round-robin in whole cycles.
    2. ``cost_bound="bernstein"``: the cost LCB is the empirical-Bernstein bound
       (:func:`agents.cost_estimates.bernstein_cost_lcb`), which separates a deterministic
       0.01 from a 0.1 of std 0.02 within ~100 plays where ``sqrt(2 log T / n)`` needs
       thousands. ``"hoeffding"``: Algorithm 1's bound.
    3. ``value_bounds="integral"``: ``S1 = {i : max U_i > (1 - alpha) max_j max L_j}`` from this
       round's model alone, with ``U_i, L_i = E[g_i(x)] +- beta std[g_i(x)]`` the bounds of the
       posterior of the set's value itself (:class:`agents.expected_posterior.ExpectedPosterior`).
       Two changes to Algorithm 1's ``E[u]``, ``E[l]`` and their running bars:

       - *Current, not intersected.* The bounds are never intersected across hyperparameter
         refits (each refit is another model, for which the earlier rounds' bounds are not
         confidence bounds), and never stuck at a prior-level running minimum.
       - *Of the value, not averaged.* ``E[u] = E[mu] + beta E[sigma]`` averages the std of
         ``f`` over the random inputs; ``g_i`` is that average of ``f``, and its posterior std
         (the covariances between the inputs included) is at most the average std. The same
         mean, valid bounds, never wider, and much narrower where the random inputs carry most
         of the uncertainty. On airfoil, whose sets all control two of five variables,
         current averaged bounds let sets 0.32-0.75 below the best set's value into ``S1`` at
         ``alpha`` near 0, and the cheapest of them was played (docs/agents/fetc.md).

       Each set's bound is maximized over its variables by
       :func:`agents.set_search.maximize_on_set` (``raw_samples`` Sobol candidates and the
       ``n_incumbents`` best observed queries, the best ``n_refine`` refined), over every set
       for ``L``, since a subset's narrower bounds can have the larger LCB. ``"current"``:
       current averaged bounds, ``max E[u]`` and ``max E[l]`` (FETC's default until the grid
       showed the airfoil failure); ``"intersected"``: Algorithm 1's bars.
    4. ``relevance=True``: once ``relevance_min_data`` observations are made, exploration
       measures every variable's relevance by feature collapsing, averaged over inputs
       drawn from the variables' distributions (:func:`agents.relevance.collapse_relevance`;
       a global measure, steadier with little data than SADCBO's at the best queries), again
       whenever the GP's training set has grown by the factor ``relevance_growth`` since (so
       ``O(log n)`` times in a run; once the GP's data is thinned to ``max_data`` points it
       grows no more, and the last measure is kept), calls relevant the variables with
       at least ``relevance_threshold`` times the largest relevance, and skips the sets that
       only add irrelevant variables to a cheaper subset (:func:`agents.relevance.redundant_sets`):
       on hartmann6 in 12-D the full set once dims 6-11 are seen to do nothing. Exploitation
       still considers every set. ``False``: every set is explored.
    5. ``exploit_query="ts"``: in exploitation, the chosen set's query maximizes one posterior
       sample path's expectation (Thompson sampling) instead of an upper bound: sharper on the
       committed set, where the UCB keeps spending on the width. ``"ucb"``: the maximizer of
       the bound that admitted the set (``E[u]``, as Algorithm 1, with averaged bounds; with
       ``"integral"``, ``U_i``'s maximizer, polished again on ``E[u]`` by :meth:`played`).

    FETC's model options are ETC's (:class:`~agents.etc.ETCAgent`,
    :class:`~agents.model_based.ModelBasedAgent`), with the fast options
    (:data:`~agents.etc.ETC_FAST_SETTINGS`) by default, where ETC's are exact. A sixth switch,
    hyperparameter refits on the geometric schedule (spending on cheap sets makes several times
    more evaluations, and refits every ``refit_every`` points would dominate the run time), is
    one of those options; ``refit_schedule="every"`` (or ``exact=True``, all of ETC's exact
    settings) still gives the fixed count.

    The decision log has ETC's keys; in exploration also ``relevant`` and ``skipped`` (when
    relevance is on); in exploitation ``query``, and with current bounds (either kind)
    ``ucb_checked`` (the sets whose maximal upper bound was needed, see
    :meth:`_exploit_current`) in place of ``s1``, ``ucb_bar`` and ``reset``; ``lcb_bar`` is then
    this round's ``max L``, not a running maximum.

    Args:
        allocation: ``"spend"`` or ``"count"``.
        spend_exponent: ``p`` of the target shares (0: counts, 1: spend), used with ``"spend"``.
        cost_bound: ``"bernstein"`` or ``"hoeffding"``.
        cost_range: the known length of a cost's support for the Bernstein bound; ``None``
            plugs in each set's observed range (see :func:`agents.cost_estimates.bernstein_width`).
        value_bounds: ``"integral"``, ``"current"`` or ``"intersected"``.
        relevance: skip redundant sets in exploration.
        relevance_threshold: the ratio to the largest relevance above which a variable counts.
        relevance_min_data: observations before relevance is trusted; ``None`` is ``2 d``.
        relevance_points: the quasi-random inputs (drawn from the variables' distributions)
            relevance is averaged over.
        relevance_growth: the relevance is measured again once the GP's training set (at most
            ``max_data`` points) has grown by this factor since the last measure (``>= 1``; 1
            measures it at every exploration play).
        exploit_query: ``"ts"`` or ``"ucb"``.
        n_refine: with ``value_bounds="integral"``, the best screened candidates per set whose
            bound is refined by L-BFGS-B (as :class:`~agents.cost_ei.CostCooledEIAgent`'s).
        **etc: ETC's parameters (``explore_fraction``, ``alpha0``, ``halve_every``,
            ``lcb_tracking``) and the model options of
            :class:`~agents.model_based.ModelBasedAgent`, with
            :data:`~agents.config.FRUGAL_COMPUTE`'s computation bounds (``max_data``,
            ``hold``) and :data:`~agents.etc.ETC_FAST_SETTINGS` by default (unless
            ``exact=True``): FETC buys thousands of evaluations of cheap sets.
    """

    name = "fetc"
    default_rules: ClassVar[FETCRules] = FETCRules()
    default_computation: ClassVar[ETCComputation] = ETC_FRUGAL
    rules: FETCRules

    def start(self) -> None:
        self._relevance_n = 0  # the GP's data size at the last measure (0: never measured)
        self._relevance_cache = np.zeros(0)
        super().start()
        self.posterior = ExpectedPosterior(self.task, self.acquisition.samples)

    # ----------------------------------------------------------------------------- exploration
    def decide(self, observation: Observation) -> Action:
        if self.exploring:
            self.exploring = self._keep_exploring()
        if not self.exploring:
            return self._commit()
        if (
            self.rules.allocation == "count"
            and not self.rules.relevance
            and self.rules.value_bounds == "intersected"
        ):
            return self.explore_round()  # ETC's round, with its bars
        return self._explore_frugal()

    def _keep_exploring(self) -> bool:
        if self.rules.allocation == "count":
            if self.n_explore % self.task.n_sets:
                return True
            return continue_exploration(
                self.spent,
                self.cost_sums,
                self.plays,
                self.task.budget,
                self.rules.explore_fraction,
            )
        if np.any(self.plays == 0):
            return True
        costs = optimistic_mean_costs(self.cost_draws)
        i, _ = self._next_explore_set(costs)
        return exploration_fits(self.spent, costs[i], self.task.budget, self.rules.explore_fraction)

    def _next_explore_set(self, costs: np.ndarray) -> tuple[int, dict[str, Any]]:
        """The exploration set (and what the relevance rule found, for the log)."""
        eligible = list(range(self.task.n_sets))
        note: dict[str, Any] = {}
        if self.rules.relevance and self.y.size >= (
            self.rules.relevance_min_data or 2 * self.task.dim
        ):
            relevant = relevant_variables(self._relevance(), self.rules.relevance_threshold)
            skipped = redundant_sets(self.task.control_sets, relevant, costs)
            eligible = [i for i in eligible if i not in skipped] or eligible
            note = {"relevant": relevant, "skipped": skipped}
        exponent = self.rules.spend_exponent if self.rules.allocation == "spend" else 0.0
        return spend_balanced_set(self.plays, costs, exponent, eligible), note

    def _relevance(self) -> np.ndarray:
        """Feature-collapsing relevance averaged over the first ``relevance_points`` of the
        acquisition's quasi-random inputs (a global measure), measured again once the data has
        grown by ``relevance_growth``: ``relevance_points x d x s`` posterior means a measure
        (``s``: the acquisition's samples)."""
        n = self.surrogate.n_train
        if self._relevance_n == 0 or n >= self.rules.relevance_growth * self._relevance_n:
            samples = self.acquisition.samples.numpy()
            points = samples[: self.rules.relevance_points]
            self._relevance_cache = collapse_relevance(self.surrogate, points, samples)
            self._relevance_n = n
        return self._relevance_cache

    def _explore_frugal(self) -> Action:
        i, note = self._next_explore_set(optimistic_mean_costs(self.cost_draws))
        return self.explore_round(i, intersect=self.rules.value_bounds == "intersected", **note)

    # ---------------------------------------------------------------------------- exploitation
    def cost_lower_bounds(self, horizon: float) -> np.ndarray:
        if self.rules.cost_bound == "hoeffding":
            return super().cost_lower_bounds(horizon)
        return bernstein_cost_lcb(self.cost_draws, horizon, self.rules.cost_range)

    def _commit(self) -> Action:
        """An exploitation decision: the set by ``value_bounds``' round (ETC's
        :meth:`~agents.etc.ETCAgent.exploit_round` or :meth:`_exploit_current`), its query by
        ``exploit_query`` (logged as ``query``)."""
        note = {"query": self.rules.exploit_query}
        if self.rules.value_bounds == "intersected":
            action = self.exploit_round(**note)
        else:
            action = self._exploit_current(**note)
        i = int(action["control_set"])
        if self.rules.exploit_query == "ts":
            path = self.sample_path()
            return {"control_set": i, "x": self.played(i, self.set_maxima([i], path)[i][1], path)}
        return {"control_set": i, "x": self.played(i, action["x"])}

    def _exploit_current(self, **note: Any) -> Action:
        """Algorithm 1's exploitation round with ``S1`` from this round's bounds alone (of the
        value, or averaged: ``value_bounds``), ``S3`` found lazily by cost level
        (:func:`agents.allocation.cheapest_acceptable`)."""
        alpha = self.alpha()
        integral = self.rules.value_bounds == "integral"
        if integral:
            lcb_now = max(v for v, _ in self._value_maxima(range(self.task.n_sets), -1.0).values())
        else:
            lcb_now = self.lcb_now()
        horizon = horizon_estimate(self.task.budget, self.cost_sums, self.plays)
        lcbs = self.cost_lower_bounds(horizon)
        maxima: dict[int, tuple[float, np.ndarray]] = {}

        def ucb_of(sets: list[int]) -> dict[int, float]:
            maxima.update(
                self._value_maxima(sets, 1.0) if integral else self.set_maxima(sets, "ucb")
            )
            return {i: maxima[i][0] for i in sets}

        s3, values = cheapest_acceptable(lcbs, (1.0 - alpha) * lcb_now, ucb_of)
        dense = np.array([values.get(i, -math.inf) for i in range(self.task.n_sets)])
        i = best_set(s3, dense)
        self.n_exploit += 1
        self.log(
            phase="exploit",
            set=i,
            value=values[i],
            alpha=alpha,
            lcb_bar=lcb_now,
            ucb_checked={str(k): v for k, v in sorted(values.items())},
            horizon=horizon,
            cost_lcb=lcbs.tolist(),
            s3=s3,
            **note,
        )
        return {"control_set": i, "x": maxima[i][1]}

    def _value_maxima(
        self, sets: Iterable[int], sign: float
    ) -> dict[int, tuple[float, np.ndarray]]:
        """``max_{x^i} E[g_i] + sign * beta * std[g_i]`` and its full query ``(d,)`` per set."""
        best = self.best_observed()
        out = {}
        for i in sets:
            ctrl = list(self.task.control_sets[i])
            Z = set_candidates(
                ctrl, self.acquisition_options.raw_samples, self.acquisition.seed + i, best
            )

            def bound(X: Tensor, i: int = i) -> Tensor:
                mean, std = self.posterior.mean_std(self.surrogate, i, X)
                return mean + sign * self.acquisition_options.beta * std

            out[i] = maximize_on_set(
                bound, self.task.dim, ctrl, Z, self.rules.n_refine, self.acquisition_options.maxiter
            )
        return out
