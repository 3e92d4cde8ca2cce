"""What the explore-then-commit parts see of the agent: the data observed so far
(:class:`Observed`), and the narrow port to the model (:class:`ModelPort`) through which they ask
for maxima of bounds. A part never holds the agent (:class:`~agents.policies.etc.state.Round`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from agents.acquisition import Bound, Integrand
from agents.surrogate import SamplePath
from bocvs_env.task import Task

#: A set's maximum and its maximizer (a full query, ``(d,)``), by set.
Maxima = dict[int, tuple[float, np.ndarray]]


@dataclass(frozen=True)
class Observed:
    """What the agent observed, as of this decision (references, not copies).

    Args:
        task: the task (its ``m`` control sets, dimension ``d`` and budget).
        spent: the cost spent so far.
        plays: ``(m,)`` evaluations per set.
        cost_sums: ``(m,)`` the sum of each set's observed costs.
        cost_draws: per set, its observed costs in order.
        y: ``(n,)`` the observed values, the initial design's first.
    """

    task: Task
    spent: float
    plays: np.ndarray
    cost_sums: np.ndarray
    cost_draws: Sequence[Sequence[float]]
    y: np.ndarray


class ModelPort(Protocol):
    """The model as the parts see it: maxima of bounds per set and the query to play."""

    @property
    def n_train(self) -> int:
        """The observations the GP conditions on."""

    def set_maxima(self, sets: Sequence[int], bound: Integrand = "ucb") -> Maxima:
        """``max_{x^i} E[bound]`` over the random inputs, and its maximizer, per set."""

    def beta_maxima(self, sets: Sequence[int], bound: Bound, beta: float) -> Maxima:
        """``max_{x^i} E[mu +- beta sigma]`` at a width ``beta`` of the caller's, per set."""

    def value_maxima(self, sets: Iterable[int], sign: float, n_refine: int) -> Maxima:
        """``max_{x^i} E[g_i] + sign * beta * std[g_i]``, bounds of each set's value, per set."""

    def lcb_max(self) -> float:
        """``max_{i, x^i} E[l]`` over the sets that are not strict subsets of another."""

    def played(self, i: int, x: np.ndarray, bound: Integrand = "ucb") -> np.ndarray:
        """The ``(d,)`` query to play on set ``i`` from its maximizer ``x`` of ``E[bound]``."""

    def sample_path(self) -> SamplePath:
        """One posterior sample path, for a Thompson query."""

    def relevance(self, points: int) -> np.ndarray:
        """``(d,)`` the variables' relevances, averaged over ``points`` quasi-random inputs."""
