"""FETC's relevance rule: skip in exploration the sets that only add irrelevant variables to a
cheaper subset (docs/agents/fetc.md), with relevance measured by feature collapsing
(:func:`agents.rules.relevance.collapse_relevance`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.policies.etc.state import RelevanceMeter, Round
from agents.rules.relevance import redundant_sets, relevant_variables


@dataclass(frozen=True)
class RelevanceRule:
    """Skip in exploration the sets that only add irrelevant variables to a cheaper subset
    (:func:`agents.rules.relevance.redundant_sets`), once ``min_data`` observations are made
    (``None``: ``2 d``); relevant: at least ``threshold`` times the largest relevance, measured
    by the episode's :class:`RelevanceMeter` (``points``, ``growth``)."""

    threshold: float
    min_data: int | None
    points: int
    growth: float

    def meter(self) -> RelevanceMeter:
        """A fresh measure of relevance for an episode."""
        return RelevanceMeter(self.points, self.growth)

    def eligible(self, round: Round, costs: np.ndarray) -> tuple[list[int], dict[str, Any]]:
        """The sets exploration may play (all of them if every set is skipped) and, once the
        rule applies, what it found (``relevant``, ``skipped``) for the decision log."""
        task, meter = round.observed.task, round.state.relevance
        sets = list(range(task.n_sets))
        if meter is None or round.observed.y.size < (self.min_data or 2 * task.dim):
            return sets, {}
        relevant = relevant_variables(meter.relevance(round.model), self.threshold)
        skipped = redundant_sets(task.control_sets, relevant, costs)
        return [i for i in sets if i not in skipped] or sets, {
            "relevant": relevant,
            "skipped": skipped,
        }
