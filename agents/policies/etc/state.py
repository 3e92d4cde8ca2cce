"""The state of one explore-then-commit episode, kept apart from the policy object, and the
view of one decision that the parts receive (:class:`Round`).

The parts of the policy (:mod:`agents.policies.etc.parts`) read and update this state and
nothing else of the agent: Algorithm 1's bars (Hoang, Nguyen & Tran, AAAI 2025, lines 10-11
and 14-21), the phase and its round counts, and the exploration rule's own progress.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from agents.policies.etc.port import ModelPort, Observed
from bocvs_env.agent_state import StateArrays, StateMeta, part, prefixed


@runtime_checkable
class SavedProgress(Protocol):
    """An exploration rule's progress that can be saved as JSON and loaded into a fresh one."""

    def save_state(self) -> dict[str, Any]:
        """The progress as JSON."""

    def load_state(self, meta: dict[str, Any]) -> None:
        """Restore the progress from :meth:`save_state`."""


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

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """The last measure ``last`` (``(d,)``) and the data size it was taken at."""
        return {"last": self.last.copy()}, {"measured_at": self.measured_at}

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state`."""
        self.last = np.asarray(arrays["last"], np.float64).reshape(-1).copy()
        self.measured_at = int(meta["measured_at"])


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

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """This state as arrays (``ucb_bar``, ``relevance.*``) and JSON (the rest; the
        progress by its own ``state``, :class:`SavedProgress`).

        Raises:
            TypeError: for a progress that cannot be saved.
        """
        arrays: StateArrays = {"ucb_bar": self.ucb_bar.copy()}
        meta: StateMeta = {"lcb_bar": float(self.lcb_bar), "exploring": bool(self.exploring),
                           "explore_spent": float(self.explore_spent),
                           "n_explore": int(self.n_explore), "n_exploit": int(self.n_exploit),
                           "progress": None, "relevance": None}  # fmt: skip
        if self.progress is not None:
            if not isinstance(self.progress, SavedProgress):
                raise TypeError(f"an exploration progress that cannot be saved: {self.progress!r}")
            meta["progress"] = self.progress.save_state()
        if self.relevance is not None:
            relevance_arrays, meta["relevance"] = self.relevance.save_state()
            arrays.update(prefixed("relevance", relevance_arrays))
        return arrays, meta

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` into this fresh one (of the same rules: its
        progress and relevance meter take theirs).

        Raises:
            ValueError: for bars of another number of sets, or a progress or relevance where
                this state has none (or none where it has one).
        """
        ucb_bar = np.asarray(arrays["ucb_bar"], np.float64)
        if ucb_bar.shape != self.ucb_bar.shape:
            raise ValueError(f"saved bars of shape {ucb_bar.shape}: expected {self.ucb_bar.shape}")
        for name, mine in (("progress", self.progress), ("relevance", self.relevance)):
            if (meta[name] is None) != (mine is None):
                raise ValueError(f"a state {'without' if meta[name] is None else 'with'} "
                                 f"{name}: this agent's rules keep {mine!r}")  # fmt: skip
        self.ucb_bar = ucb_bar.copy()
        self.lcb_bar, self.exploring = float(meta["lcb_bar"]), bool(meta["exploring"])
        self.explore_spent = float(meta["explore_spent"])
        self.n_explore, self.n_exploit = int(meta["n_explore"]), int(meta["n_exploit"])
        if isinstance(self.progress, SavedProgress):
            self.progress.load_state(meta["progress"])
        if self.relevance is not None:
            self.relevance.load_state(part(arrays, "relevance"), meta["relevance"])


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
