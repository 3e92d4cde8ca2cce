"""UCB-CVS of Tay et al. (NeurIPS 2023) with true or estimated costs, as one policy
(:class:`UCBCVSAgent`) and a table of named presets (:data:`PRESETS`).

The policy's one part, chosen by its rules' ``cost_source`` (:class:`~agents.choice.Choice`)
and built by :meth:`CVSRules.parts`, is the **cost source**: the mean costs the rule compares
(:class:`KnownCosts`, ``"true"``: the true ones given; :class:`RunningMeanCosts`,
``"estimated"``: the running means of the observed costs).

- ``ucb-cvs``: the true mean costs, a privileged parameter the benchmark grants.
- ``ucb-cvs-est``: the running means (no privileged information).

ETC-50, which the AAAI paper calls "a variant of UCB-CVS", is a preset of UCB-PSQ
(:data:`agents.policies.psq.PRESETS`); it is importable from here as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from agents.base import Action, Observation
from agents.choice import Choice, build_part
from agents.config import EXACT, Computation, Rules
from agents.costs.estimates import mean_costs
from agents.policies.model_based import ModelBasedAgent
from agents.policies.presets import Preset, preset_table
from agents.policies.psq import ROUNDS_PER_GROUP
from agents.rules.set_selection import cheapest_within_epsilon, cvs_epsilon, size_groups
from bocvs_env.agent_state import StateArrays, StateMeta

__all__ = [
    "PRESETS",
    "CVSRules",
    "KnownCosts",
    "RunningMeanCosts",
    "UCBCVSAgent",
    "ucb_cvs_est",
]


class CostSource(Protocol):
    """The mean costs UCB-CVS's rule compares."""

    def __call__(self, agent: ModelBasedAgent) -> np.ndarray:
        """``(m,)`` mean costs, one per control set."""


@dataclass(frozen=True)
class KnownCosts:
    """The true mean costs given as the ``costs`` parameter (privileged information).

    Args:
        costs: ``m`` mean costs, one per control set.
    """

    name: ClassVar[str] = "true"
    costs: tuple[float, ...]

    def __call__(self, agent: ModelBasedAgent) -> np.ndarray:
        return np.asarray(self.costs)


@dataclass(frozen=True)
class RunningMeanCosts:
    """The running mean of each set's observed costs, a set not yet played counting as free
    (optimistic cost 0, so that it is tried as soon as its ``v_i`` is within ``eps_t`` of the
    best, instead of paying for every set up front)."""

    name: ClassVar[str] = "estimated"

    def __call__(self, agent: ModelBasedAgent) -> np.ndarray:
        return np.nan_to_num(mean_costs(agent.cost_sums, agent.plays), nan=0.0)


@dataclass(frozen=True)
class CVSRules(Rules):
    """UCB-CVS's rules (:class:`UCBCVSAgent` documents each). ``cost_source`` is the cost
    source's class or its name: :class:`KnownCosts` (``"true"``) needs the ``costs``;
    :class:`RunningMeanCosts` (``"estimated"``) refuses them."""

    cost_source: Choice[CostSource] = Choice(KnownCosts, RunningMeanCosts)
    costs: tuple[float, ...] | None = None
    eps0: float = 2.0
    cutoff: float | None = None

    def __post_init__(self) -> None:
        if self.cost_source is RunningMeanCosts and self.costs is not None:
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
        if self.cost_source is KnownCosts and self.costs is None:
            raise ValueError(
                "UCB-CVS needs the true mean costs (costs=...); "
                "use 'ucb-cvs-est' to estimate them instead"
            )

    def parts(self) -> CostSource:
        """The policy's part: the cost source chosen, with the ``costs`` given to
        :class:`KnownCosts` (:meth:`check_complete` refuses it without them)."""
        return build_part(self.cost_source, costs=self.costs)


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
    its paper. ``ucb-cvs-est`` (:data:`ucb_cvs_est`) is the fair variant.

    The default ``cutoff`` is 50 rounds per ETC-50 group of the task (:func:`size_groups`: 100
    rounds on every problem of the papers), so that UCB-CVS and ETC-50 spend a comparable number
    of rounds on cheap sets.

    The decision log has one entry per round: ``set``, ``value``, ``eps``, ``values`` (all
    ``v_i``) and ``costs`` (the costs compared).

    Its defaults are the exact settings (:data:`agents.config.EXACT`): the paired quality
    check of the fast options did not cover UCB-CVS (it is not in the paper's grid), and a default moves only where
    the check holds; the fast options (:data:`agents.config.FAST_SETTINGS`) are options.

    Args:
        preset: the registered name whose rules and computation the parameters are given over
            (:data:`PRESETS`; ``None`` is ``"ucb-cvs"``).
        cost_source: :class:`KnownCosts` or ``"true"`` (the default): compare the ``costs``
            given; :class:`RunningMeanCosts` or ``"estimated"``: compare the running means of
            the observed costs.
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

    def __init__(self, preset: str | None = None, **params: Any) -> None:
        super().__init__(preset, **params)
        self.cost_means = self.rules.parts()

    def start(self) -> None:
        super().start()
        costs = self.rules.costs
        if costs is not None and len(costs) != self.task.n_sets:
            raise ValueError(f"costs has {len(costs)} entries for {self.task.n_sets} control sets")
        groups = size_groups(self.task.control_sets, self.task.dim)
        self._cutoff = self.rules.cutoff or ROUNDS_PER_GROUP * max(len(groups), 1)

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the model-based agent's
        (:meth:`~agents.policies.model_state.SavedModelAgent.model_state`); the cutoff follows
        from the task, the slack from the play count, the running mean costs from the plays and
        cost sums."""
        return self.model_state()

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`)."""
        self.load_model_state(arrays, meta)

    def current_costs(self) -> np.ndarray:
        """The mean costs the rule compares, ``(m,)`` (the cost source's)."""
        return self.cost_means(self)

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


#: The registered names of the policy: name -> its preset.
PRESETS: Mapping[str, Preset[UCBCVSAgent]] = preset_table(
    Preset(
        "ucb-cvs",
        UCBCVSAgent,
        CVSRules(),
        EXACT,
        "UCB-CVS of Tay et al. (2023), given the true mean costs.",
        required_params=("costs",),
        privileged_params=("costs",),
    ),
    Preset(
        "ucb-cvs-est",
        UCBCVSAgent,
        CVSRules(cost_source="estimated"),
        EXACT,
        "UCB-CVS on the running mean of each set's observed costs (no privileged information).",
    ),
)
UCBCVSAgent.presets = PRESETS

#: The preset as a value, by the name the entry point gives it.
ucb_cvs_est = PRESETS["ucb-cvs-est"]
