"""UCB-CVS of Tay et al. (NeurIPS 2023) with true or estimated costs, and the AAAI paper's
ETC-50 variant."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from agents.base import Action, Observation
from agents.config import EXACT, Computation, Rules, check_choice
from agents.costs.estimates import mean_costs
from agents.policies.model_based import ModelBasedAgent
from agents.policies.psq import PSQRules, UCBPSQAgent
from agents.rules.set_selection import (
    cheapest_within_epsilon,
    cvs_epsilon,
    etc50_group,
    size_groups,
)

#: Rounds per group of ETC-50, and the unit of UCB-CVS's default cutoff.
ROUNDS_PER_GROUP = 50


@dataclass(frozen=True)
class CVSRules(Rules):
    """UCB-CVS's rules (:class:`UCBCVSAgent` documents each). ``cost_source="true"`` needs the
    ``costs``; ``"estimated"`` refuses them."""

    cost_source: Literal["true", "estimated"] = "true"
    costs: tuple[float, ...] | None = None
    eps0: float = 2.0
    cutoff: float | None = None

    def __post_init__(self) -> None:
        check_choice("cost_source", self.cost_source, ("true", "estimated"))
        if self.cost_source == "estimated" and self.costs is not None:
            raise ValueError("costs are for cost_source='true'; 'estimated' estimates them")
        if self.costs is not None:
            costs = np.asarray(self.costs, np.float64)
            if costs.ndim != 1 or not np.all(np.isfinite(costs)) or np.any(costs <= 0):
                raise ValueError(f"costs must be a 1-D array of positive numbers, got {costs!r}")
            object.__setattr__(self, "costs", tuple(float(c) for c in costs))
        if self.eps0 < 0:
            raise ValueError(f"eps0 must be >= 0, got {self.eps0!r}")
        if self.cutoff is not None and self.cutoff <= 0:
            raise ValueError(f"cutoff must be positive, got {self.cutoff!r}")

    def check_complete(self) -> None:
        if self.cost_source == "true" and self.costs is None:
            raise ValueError(
                "UCB-CVS needs the true mean costs (costs=...); "
                "use 'ucb-cvs-est' to estimate them instead"
            )


class UCBCVSAgent(ModelBasedAgent):
    """Plays the cheapest set whose optimistic value is within ``eps_t`` of the best.

    Each round: ``v_i = max_{x^i} E[u_{t-1}]`` for every set, ``eps_t = eps0 * max(1 - t /
    cutoff, 0)`` with ``t`` the number of rounds played so far, and the set played is the
    cheapest with ``v_i + eps_t >= max_j v_j`` (ties in cost to the larger ``v_i``), at its
    maximizer. Early on every set is within reach and the cheap ones are played; after
    ``cutoff`` rounds the agent is UCB-PSQ.

    UCB-CVS assumes known costs: this class takes the TRUE mean costs as the ``costs``
    parameter (the benchmark passes the problem's cost means; :meth:`params` records
    ``cost_source="true"``). It is the one built-in agent given privileged information, as in
    its paper. :class:`EstimatedCostUCBCVSAgent` is the fair variant.

    The default ``cutoff`` is 50 rounds per ETC-50 group of the task (:func:`size_groups`: 100
    rounds on every problem of the papers), so that UCB-CVS and ETC-50 spend a comparable number
    of rounds on cheap sets.

    The decision log has one entry per round: ``set``, ``value``, ``eps``, ``values`` (all
    ``v_i``) and ``costs`` (the costs compared).

    Its defaults are the exact settings (:data:`agents.config.EXACT`): the paired quality
    check of the fast options did not cover UCB-CVS (it is not in the paper's grid), and a default moves only where
    the check holds; the fast options (:data:`agents.config.FAST_SETTINGS`) are options.

    Args:
        cost_source: ``"true"`` (the default): compare the ``costs`` given;
            ``"estimated"``: compare the running means of the observed costs.
        costs: ``m`` mean costs, one per control set (with ``cost_source="true"``).
        eps0: the initial slack (the paper: 2).
        cutoff: rounds until ``eps_t`` reaches 0; ``None`` is 50 x the number of groups.
        **model: the surrogate and acquisition options of :class:`ModelBasedAgent`.
    """

    name = "ucb-cvs"
    default_rules: ClassVar[CVSRules] = CVSRules()
    default_computation: ClassVar[Computation] = EXACT
    rules: CVSRules
    required_params: ClassVar[tuple[str, ...]] = ("costs",)
    #: The benchmark grants the problem's true mean costs as ``costs``.
    privileged_params: ClassVar[tuple[str, ...]] = ("costs",)

    def start(self) -> None:
        super().start()
        costs = self.rules.costs
        if costs is not None and len(costs) != self.task.n_sets:
            raise ValueError(f"costs has {len(costs)} entries for {self.task.n_sets} control sets")
        groups = size_groups(self.task.control_sets, self.task.dim)
        self._cutoff = self.rules.cutoff or ROUNDS_PER_GROUP * max(len(groups), 1)

    def current_costs(self) -> np.ndarray:
        """The mean costs the rule compares, ``(m,)``: the true ones given, or the running mean
        of each set's observed costs, a set not yet played counting as free (optimistic cost
        0, so that it is tried as soon as its ``v_i`` is within ``eps_t`` of the best, instead
        of paying for every set up front)."""
        if self.rules.costs is None:
            return np.nan_to_num(mean_costs(self.cost_sums, self.plays), nan=0.0)
        return np.asarray(self.rules.costs)

    def decide(self, observation: Observation) -> Action:
        t = int(self.plays.sum())
        eps = cvs_epsilon(t, self.rules.eps0, self._cutoff)
        maxima = self.set_maxima(range(self.task.n_sets), "ucb")
        values = np.array([maxima[i][0] for i in range(self.task.n_sets)])
        costs = self.current_costs()
        i = cheapest_within_epsilon(values, costs, eps)
        self.log(
            set=i, value=float(values[i]), eps=eps, values=values.tolist(), costs=costs.tolist()
        )
        return {"control_set": i, "x": self.played(i, maxima[i][1])}


class EstimatedCostUCBCVSAgent(UCBCVSAgent):
    """UCB-CVS on the running mean of each set's observed costs (no privileged information):
    :class:`UCBCVSAgent` with ``cost_source="estimated"``."""

    name = "ucb-cvs-est"
    default_rules: ClassVar[CVSRules] = CVSRules(cost_source="estimated")
    required_params = ()
    privileged_params = ()


@dataclass(frozen=True)
class ETC50Rules(PSQRules):
    """ETC-50's rules (:class:`ETC50Agent` documents each) and UCB-PSQ's."""

    rounds_per_group: int = ROUNDS_PER_GROUP
    positional_size: int = 3

    def __post_init__(self) -> None:
        if self.rounds_per_group < 1:
            raise ValueError(f"rounds_per_group must be >= 1, got {self.rounds_per_group!r}")
        if self.positional_size < 1:
            raise ValueError(f"positional_size must be >= 1, got {self.positional_size!r}")


class ETC50Agent(UCBPSQAgent):
    """The AAAI paper's ETC-50: UCB-CVS's plays grouped by set size, then UCB-PSQ.

    Groups (:func:`agents.rules.set_selection.size_groups`): sets of equal size, smallest first; the full
    set is not a group; when every set has the same size (airfoil), consecutive runs of three
    sets by position. The agent plays ``rounds_per_group`` rounds per group, each time
    ``argmax over (i in group, x^i) of E[u]``, then behaves as :class:`UCBPSQAgent`. Rounds
    count evaluations, not spend.

    Args:
        rounds_per_group: rounds played in each group (the paper: 50).
        positional_size: the run length of positional groups.
        **psq: the options of :class:`UCBPSQAgent` (``prefer_full_set`` and the model's).

    Its defaults are the exact settings (:data:`agents.config.EXACT_SETTINGS`), as
    TS-PSQ's: in the fast options' paired quality check on the grid (5 seeds) the fast options made its final
    simple regret worse on 3 of the 8 panels with cheap costs, most on ackley6 in 12-D with
    variance 0.04 (+1.11, 95% interval [0.64, 1.59]); benchmarks/README.md, "The defaults:
    the fast options' quality check".
    """

    name = "etc-50"
    default_rules: ClassVar[ETC50Rules] = ETC50Rules()
    default_computation: ClassVar[Computation] = EXACT
    rules: ETC50Rules

    def start(self) -> None:
        super().start()
        self._groups = size_groups(
            self.task.control_sets, self.task.dim, self.rules.positional_size
        )

    def decide(self, observation: Observation) -> Action:
        group = etc50_group(int(self.plays.sum()), self._groups, self.rules.rounds_per_group)
        return super().decide(observation) if group is None else self.play_best(group)
