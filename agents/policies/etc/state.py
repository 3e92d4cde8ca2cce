"""The state of one explore-then-commit episode, kept apart from the policy object, and the
view of one decision that the parts receive (:class:`Round`).

The parts of the policy (:mod:`agents.policies.etc.parts`) read and update this state and
nothing else of the agent: Algorithm 1's bars (Hoang, Nguyen & Tran, AAAI 2025, lines 10-11
and 14-21), the phase and its round counts, and the exploration rule's own progress.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from agents.policies.etc.port import ModelPort, Observed


class RelevanceMeter:
    """The variables' relevances (:meth:`ModelPort.relevance`), averaged over the first
    ``points`` of the acquisition's quasi-random inputs (a global measure) and measured again
    only once the GP's training set has grown by the factor ``growth``: ``O(log n)`` measures
    in a run."""

    def __init__(self, points: int, growth: float) -> None:
        self.points = points
        self.growth = growth
        self.measured_at = 0  # the GP's data size at the last measure (0: never measured)
        self.last = np.zeros(0)

    def relevance(self, model: ModelPort) -> np.ndarray:
        """``(d,)`` relevances in the units of ``y``."""
        n = model.n_train
        if self.measured_at == 0 or n >= self.growth * self.measured_at:
            self.last = model.relevance(self.points)
            self.measured_at = n
        return self.last


@dataclass
class ETCState:
    """One episode's explore-then-commit state, fresh at every reset.

    Args:
        ucb_bar: ``(m,)`` Algorithm 1's ``ucb_bar_i``, a running minimum of each set's
            ``max_x E[u]`` (``inf`` until the set is bounded), in the units of ``y``.
        lcb_bar: Algorithm 1's ``lcb_bar``, a running maximum of ``max_{i, x^i} E[l]``.
        exploring: whether the episode is still in its exploration phase.
        explore_spent: the spend when exploration ended (0 while exploring), in cost units.
        n_explore: exploration decisions so far.
        n_exploit: exploitation decisions so far (a held decision counts once).
        progress: the exploration rule's own progress, if it keeps any
            (:class:`~agents.policies.etc.groups.GroupProgress`).
        relevance: the episode's measure of the variables' relevance, with a relevance rule.
    """

    ucb_bar: np.ndarray
    lcb_bar: float = -math.inf
    exploring: bool = True
    explore_spent: float = 0.0
    n_explore: int = 0
    n_exploit: int = 0
    progress: object | None = None
    relevance: RelevanceMeter | None = None


@dataclass(frozen=True)
class Round:
    """One decision's view for the parts: the episode's state, the data observed, the model
    port.

    :class:`~agents.policies.etc.agent.ETCAgent` builds one per decision; a part reads the
    observed, asks the model and updates the state, and holds none of them past the call.
    """

    state: ETCState
    observed: Observed
    model: ModelPort
