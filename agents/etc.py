"""The explore-then-commit agent of Hoang, Nguyen, Tran (AAAI 2025), Algorithm 1 ("ETC")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal, get_args

import numpy as np

from agents.base import Action, Observation
from agents.config import FAST_SETTINGS, FRUGAL_COMPUTE, Computation, Rules, check_choice
from agents.decisions import (
    best_set,
    cheapest_feasible,
    continue_exploration,
    cost_lcb,
    feasible_sets,
    halving_alpha,
    horizon_estimate,
    intersect_bounds,
    maximal_sets,
    round_robin_set,
    select_s1,
)
from agents.model_based import ModelBasedAgent

#: The values of ETC's ``lcb_tracking`` option.
LcbTracking = Literal["off", "polish", "revalue"]
LCB_TRACKING = get_args(LcbTracking)


@dataclass(frozen=True)
class ETCComputation(Computation):
    """ETC's computation: the model's (:class:`~agents.config.Computation`) and how it tracks
    ``max E[l]`` between refits (``lcb_tracking``, :class:`ETCAgent`)."""

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
#: worse on 3 of its 16 panels (benchmarks/README.md, "The defaults"); FETC's defaults.
ETC_FAST_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {**FAST_SETTINGS, "lcb_tracking": "revalue"}
)

#: ETC's presets: :data:`ETC_EXACT_SETTINGS` (ETC's default), the fast options, and the fast
#: options with :data:`~agents.config.FRUGAL`'s bounds (FETC's and its ablation agents').
ETC_EXACT = ETCComputation(**ETC_EXACT_SETTINGS)
ETC_FAST = ETCComputation()
ETC_FRUGAL = ETCComputation(**FRUGAL_COMPUTE)


@dataclass(frozen=True)
class ETCRules(Rules):
    """ETC's own rules (:class:`ETCAgent` documents each)."""

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


class ETCAgent(ModelBasedAgent):
    """Explore round-robin, then play the cheapest set whose bounds say it is good enough.

    **Exploration.** Round ``t`` plays set ``t mod m`` at ``x^i = argmax E[u_{t-1}]``, in whole
    cycles over all ``m`` sets. The costs are unknown, so ``tau`` (the number of cycles) follows
    from the budget: a new cycle starts while the spend so far plus the estimated cost of a
    cycle (the sum of the sets' observed mean costs) stays within ``explore_fraction * budget``;
    the first cycle is always played (see :func:`agents.decisions.continue_exploration`). Each
    exploration round also records ``max_{i, x^i} E[l_{t-1}]`` (into ``lcb_bar``, a running max)
    and the played set's ``max_x E[u_{t-1}]`` (into ``ucb_bar_i``, a running min), as lines
    10-11 of Algorithm 1.

    **Exploitation.** Each round (Algorithm 1 lines 14-26; :func:`agents.decisions.select_s1`):
    intersect the bars with this round's bounds, ``S1 = {i : ucb_bar_i > (1 - alpha) lcb_bar}``
    (strict), reset both bars to this round's values when ``S1`` is empty; cost LCBs
    ``max(c_hat_i - sqrt(2 log T / n_i), 0)`` with ``T = budget / min_i c_hat_i`` (the most rounds
    the budget could buy at the cheapest observed mean cost, a stand-in for the unknown horizon);
    ``S3`` = the sets of ``S1`` with the smallest cost LCB (ties kept); play the set of ``S3``
    with the largest ``max_x E[u_{t-1}]`` at its maximizer. ``alpha`` starts at ``alpha0`` and is
    halved after every ``halve_every`` exploitation rounds (default ``d``, as the paper; a round
    is an evaluation, or with a ``hold`` a decision and its replays).

    Two computational shortcuts:

    - ``max_{i, x^i} E[l]`` is taken over the sets that are not strict subsets of another
      (:func:`agents.decisions.maximal_sets`): a superset's maximum is never smaller (exactly
      for the full set; for others up to the Monte Carlo error of the expectation,
      :func:`agents.decisions.maximal_sets`).
    - In exploitation, ``max_x E[u]`` is recomputed only for sets whose current ``ucb_bar_i``
      exceeds this round's threshold ``(1 - alpha) lcb_bar``: for the others
      ``min(ucb_bar_i, .)`` cannot exceed it either, so they are outside ``S1`` whatever the
      value, as Algorithm 1 has it within the round; their ``ucb_bar_i`` then lags this
      round's value, which differs from Algorithm 1 only if a later, lower threshold (``alpha``
      halved while ``lcb_bar < 0``) admits them. If ``S1`` comes out empty, every set is
      computed for the reset.

    ETC's defaults are the exact settings (:data:`ETC_EXACT_SETTINGS`): every round as
    Algorithm 1 states it, a refit every ``refit_every`` points to convergence, every maximizer
    polished on all samples. The fast options (:data:`ETC_FAST_SETTINGS`: between
    hyperparameter refits ``max E[l]`` only revalued at last round's maximizers, refits on a
    geometric schedule, capped, polishing on fewer samples) cut its runs 2-3.5 times but made
    its final simple regret worse on 3 of the grid's 16 panels (plant with variance 0.04 in both
    cost sets, airfoil moderate 0.02; better on 4: benchmarks/README.md, "The defaults"), so
    they are options here and FETC's defaults.

    The decision log (:meth:`diagnostics`) has one entry per round: ``phase``, ``set``,
    ``value`` (the played ``max_x E[u]``), ``lcb_bar``, ``ucb_bar``, and in exploitation
    ``alpha``, ``s1``, ``reset``, ``horizon``, ``cost_lcb``, ``s3``.

    Args:
        explore_fraction: the share of the budget exploration may spend (the paper: 60%).
        alpha0: the tolerance at the start of exploitation (the paper: 0.1).
        halve_every: exploitation rounds (decisions, with a ``hold``) between halvings of
            ``alpha``; ``None`` is ``d``.
        lcb_tracking: how ``max_{i, x^i} E[l]`` over the maximal sets is found each round.
            ``"revalue"``: between hyperparameter refits, last round's maximizers
            (and the incumbents of :meth:`ModelBasedAgent.set_maxima`) are only valued under
            the new posterior; ``"polish"``: between refits, each set's ``E[l]`` is only
            polished from its maximizer of the previous round (one L-BFGS-B start per set, no
            screening); ``"off"`` (the default, as Algorithm 1): a full maximization every
            round. With either tracking, a full maximization follows every
            refit and comes at least every ``refit_every + 1`` rounds. Tracking trades a possibly
            missed better LCB optimum (the value lags until the next full maximization; it
            enters ``lcb_bar``, a running max) for a much cheaper round: the full max-LCB was
            42% of an ETC episode on hartmann6 in 12-D and 83% of ``act`` on airfoil.
            ``exact=True`` (:data:`ETC_EXACT_SETTINGS`, the defaults) refuses any other
            value of it or of the model's fast options.
        **model: the surrogate and acquisition options of :class:`ModelBasedAgent`
            (``beta = 2`` by default, as the paper).
    """

    name = "etc"
    default_rules: ClassVar[ETCRules] = ETCRules()
    default_computation: ClassVar[ETCComputation] = ETC_EXACT
    rules: ETCRules
    computation: ETCComputation

    def start(self) -> None:
        super().start()
        m = self.task.n_sets
        self.exploring = True
        self.n_explore = 0
        self.n_exploit = 0
        self.lcb_bar = -math.inf
        self.ucb_bar = np.full(m, math.inf)
        self._maximal = maximal_sets(self.task.control_sets)
        #: ``lcb_tracking``'s state: per maximal set its last LCB maximizer, the refit count
        #: at the last full maximization and the rounds since.
        self._lcb_x: dict[int, np.ndarray] = {}
        self._lcb_refits = -1
        self._lcb_rounds = 0

    def decide(self, observation: Observation) -> Action:
        m = self.task.n_sets
        if self.exploring and self.n_explore % m == 0:
            self.exploring = continue_exploration(
                self.spent,
                self.cost_sums,
                self.plays,
                self.task.budget,
                self.rules.explore_fraction,
            )
        if self.exploring:
            return self.explore_round()
        action = self.exploit_round()
        i = int(action["control_set"])
        return {"control_set": i, "x": self.played(i, action["x"])}

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

    def explore_round(self, i: int | None = None, intersect: bool = True, **note: Any) -> Action:
        """One exploration round on set ``i`` (default: the round-robin set) at its
        ``argmax E[u]``; ``intersect`` updates the bars (lines 10-11), ``note`` adds to the log."""
        m = self.task.n_sets
        i = round_robin_set(self.n_explore, m) if i is None else i
        value, x = self.set_maxima([i], "ucb")[i]
        if intersect:
            ucb_now = np.full(m, np.nan)
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
            **note,
        )
        return {"control_set": i, "x": self.played(i, x)}

    def alpha(self) -> float:
        """This exploitation round's tolerance: ``alpha0`` halved every ``halve_every`` rounds
        (``d`` if ``None``) of exploitation (:func:`agents.decisions.halving_alpha`)."""
        return halving_alpha(
            self.n_exploit, self.rules.alpha0, self.rules.halve_every or self.task.dim
        )

    def exploit_round(self, **note: Any) -> Action:
        """One exploitation round (Algorithm 1 lines 14-26) and its log entry, ``note`` added
        to it; the action plays the chosen set's ``argmax E[u]`` as found (not yet
        :meth:`played`)."""
        m = self.task.n_sets
        alpha = self.alpha()
        lcb_now = self.lcb_now()
        candidates = feasible_sets(self.ucb_bar, max(self.lcb_bar, lcb_now), alpha)
        maxima = self.set_maxima(candidates, "ucb")
        ucb_now = np.full(m, np.nan)
        for i, (v, _) in maxima.items():
            ucb_now[i] = v
        _, intersected = intersect_bounds(self.lcb_bar, self.ucb_bar, lcb_now, ucb_now)
        if not feasible_sets(intersected, max(self.lcb_bar, lcb_now), alpha):
            rest = [i for i in range(m) if i not in maxima]
            maxima.update(self.set_maxima(rest, "ucb"))
            ucb_now = np.array([maxima[i][0] for i in range(m)])
        choice = select_s1(self.lcb_bar, self.ucb_bar, lcb_now, ucb_now, alpha)
        self.lcb_bar, self.ucb_bar = choice.lcb_bar, choice.ucb_bar
        horizon = horizon_estimate(self.task.budget, self.cost_sums, self.plays)
        lcbs = self.cost_lower_bounds(horizon)
        s3 = cheapest_feasible(choice.s1, lcbs)
        values = np.array([maxima[i][0] if i in maxima else -math.inf for i in range(m)])
        i = best_set(s3, values)
        self.n_exploit += 1
        self.log(
            phase="exploit",
            set=i,
            value=float(values[i]),
            alpha=alpha,
            lcb_bar=self.lcb_bar,
            ucb_bar=self.ucb_bar.tolist(),
            s1=choice.s1,
            reset=choice.reset,
            horizon=horizon,
            cost_lcb=lcbs.tolist(),
            s3=s3,
            **note,
        )
        return {"control_set": i, "x": maxima[i][1]}

    def cost_lower_bounds(self, horizon: float) -> np.ndarray:
        """``(m,)`` cost LCBs of Algorithm 1 line 24 (:func:`agents.decisions.cost_lcb`)."""
        return cost_lcb(self.cost_sums, self.plays, horizon)
