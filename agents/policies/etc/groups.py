"""Exploration by groups of equally sized sets, with elimination: GETC's exploration rule
(:class:`~agents.policies.etc.agent.ETCAgent` with the ``getc`` preset; docs/agents/getc.md).

Algorithm 1's round-robin (Hoang, Nguyen & Tran, AAAI 2025) spends its exploration on every set
alike, so the costliest set takes most of it and a cheap set that reaches the best value is
played as often as one that cannot. ETC-50, the paper's variant of UCB-CVS, explores groups of
sets of equal size in turn, 50 rounds each, and within a group plays the set of largest
``max E[u]``: Bayesian optimization within the group rather than a tour of it, so a cheap group
can find the best value before the costly sets are played (docs/agents/getc.md). This rule
takes the groups from ETC-50 and changes three things:

- the set is chosen by the upper bound of its value, ``U_i = max_x E[g_i] + beta std[g_i]``
  (FETC's bounds of the value, :class:`agents.expected_posterior.ExpectedPosterior`), not by
  ``max E[u]``: ``E[u]`` averages the deviation of ``f`` over the random inputs, so it favours
  the sets that leave the most uncertain variables random, whatever their value: a set that
  leaves every relevant variable random can outrank the set that controls them. The query
  played is a local maximizer of ``E[u]`` from ``U_i``'s maximizer, as Algorithm 1 explores;
- a share of the exploration budget per group: each group may spend at most an equal share of
  what exploration has left when it starts (``explore_fraction * budget`` in all), and at most
  ``rounds_per_group`` rounds; a cheap group's unspent share passes to the later groups;
- elimination (successive elimination, Even-Dar, Mannor & Mansour, JMLR 2006): a set whose
  ``U_i`` is below the largest ``max E[l]`` of any set is not played. ``U_i`` bounds the set's
  value from above and ``E[l]`` bounds a value from below (averaging the deviation over the
  random inputs only widens the bounds, by Jensen's inequality), so on the GP's confidence
  event such a set cannot hold the best value. A group whose sets are all eliminated ends at
  once.

Every exploration round is a decision of its own (no ``hold``), so a cheap group's rounds are
distinct queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from agents.policies.etc.exploration import ExploreChoice
from agents.policies.etc.port import Observed
from agents.policies.etc.relevance import RelevanceRule
from agents.policies.etc.state import Round
from agents.rules.set_selection import size_groups


def exploration_groups(
    control_sets: Sequence[Sequence[int]], dim: int, positional_size: int
) -> list[list[int]]:
    """ETC-50's groups (:func:`agents.rules.set_selection.size_groups`), smallest sets first,
    and then the sets in no group (the full set; on airfoil the trailing set) as the last."""
    groups = size_groups(control_sets, dim, positional_size)
    grouped = {i for g in groups for i in g}
    rest = [i for i in range(len(control_sets)) if i not in grouped]
    return groups + ([rest] if rest else [])


@dataclass
class GroupProgress:
    """One episode's place in the groups: the group, its rounds, the spend when it began, and
    the set chosen for the next round (with the sets eliminated, for the decision log)."""

    groups: list[list[int]]
    group: int = 0
    rounds: int = 0
    began_at: float = 0.0
    chosen: ExploreChoice | None = field(default=None)

    def save_state(self) -> dict[str, Any]:
        """The progress as JSON, between decisions (no set chosen).

        Raises:
            ValueError: while a set is chosen for a round not yet played.
        """
        if self.chosen is not None:
            raise ValueError("a group progress with a set chosen: save it between decisions")
        return {"groups": self.groups, "group": self.group, "rounds": self.rounds,
                "began_at": self.began_at}  # fmt: skip

    def load_state(self, meta: dict[str, Any]) -> None:
        """Restore a progress from :meth:`save_state` (of the same groups).

        Raises:
            ValueError: for a progress through other groups.
        """
        if meta["groups"] != self.groups:
            raise ValueError(f"a progress through groups {meta['groups']!r}: this agent's "
                             f"are {self.groups!r}")  # fmt: skip
        self.group, self.rounds = int(meta["group"]), int(meta["rounds"])
        self.began_at, self.chosen = float(meta["began_at"]), None

    def advance(self, spent: float) -> None:
        """Go on to the next group."""
        self.group += 1
        self.rounds = 0
        self.began_at = spent


@dataclass(frozen=True)
class GroupedExploration:
    """Explore the groups of equally sized sets in turn, cheapest first; within a group play
    the set of largest ``max U_i`` that is not eliminated, at a local maximizer of ``E[u]``
    from ``U_i``'s (module docstring).

    Args:
        explore_fraction: the share of the budget exploration may spend, over all groups.
        rounds_per_group: the most rounds a group gets (ETC-50's 50).
        positional_size: the size of a group where every set has the same size (ETC-50's 3).
        eliminate: skip sets whose ``max U_i`` is below the largest ``max E[l]``.
        n_refine: the screened candidates per set whose ``U_i`` is refined by L-BFGS-B
            (:meth:`~agents.policies.etc.port.ModelPort.value_maxima`).
    """

    name: ClassVar[str] = "groups"
    explore_fraction: float
    rounds_per_group: int = 50
    positional_size: int = 3
    eliminate: bool = True
    n_refine: int = 2
    #: No relevance rule: the groups and elimination choose the sets.
    relevance: RelevanceRule | None = None
    #: Exploration decisions are not held: each round is a new query.
    holds: ClassVar[bool] = False

    def start(self, observed: Observed) -> GroupProgress:
        """A fresh episode's progress."""
        task = observed.task
        return GroupProgress(exploration_groups(task.control_sets, task.dim, self.positional_size))

    def keep_exploring(self, round: Round) -> bool:
        """Whether a group is still open; chooses its next set (for :meth:`next_set`)."""
        progress = self._progress(round)
        while progress.group < len(progress.groups):
            chosen = self._choose(round, progress)
            if chosen is not None:
                progress.chosen = chosen
                progress.rounds += 1
                return True
            progress.advance(round.observed.spent)
        return False

    def next_set(self, round: Round) -> ExploreChoice:
        progress = self._progress(round)
        if progress.chosen is None:
            raise RuntimeError("next_set before keep_exploring chose a set")
        chosen, progress.chosen = progress.chosen, None
        return chosen

    @staticmethod
    def _progress(round: Round) -> GroupProgress:
        progress = round.state.progress
        if not isinstance(progress, GroupProgress):
            raise TypeError(f"the state's progress is not a GroupProgress: {progress!r}")
        return progress

    def _choose(self, round: Round, progress: GroupProgress) -> ExploreChoice | None:
        """The group's next set and its log note, or ``None`` once the group is done: its
        rounds are used, every set is eliminated, or the chosen set's mean cost so far would
        take the group past its share of the budget (a set not yet played always fits)."""
        group = progress.groups[progress.group]
        if progress.rounds >= self.rounds_per_group:
            return None
        observed, model = round.observed, round.model
        maxima = model.value_maxima(group, 1.0, self.n_refine)
        floor = model.lcb_max() if self.eliminate else -np.inf
        alive = [i for i in group if maxima[i][0] >= floor]
        if not alive:
            return None
        i = max(alive, key=lambda j: maxima[j][0])
        budget = self.explore_fraction * observed.task.budget
        share = (budget - progress.began_at) / (len(progress.groups) - progress.group)
        cost = float(np.mean(observed.cost_draws[i])) if observed.cost_draws[i] else 0.0
        if observed.spent - progress.began_at + cost > share:
            return None
        eliminated = [j for j in group if j not in alive]
        return ExploreChoice(i, {"group": progress.group, "eliminated": eliminated}, maxima[i])
