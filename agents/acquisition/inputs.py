"""The fixed quasi-random sample of the random inputs behind every expectation."""

from __future__ import annotations

import torch
from torch import Tensor

from bocvs_env.sampling import quasi_random_inputs
from bocvs_env.task import Task


class RandomInputs:
    """One fixed, seeded set of scrambled Sobol points of every variable, mapped through the
    inverse CDFs of the known distributions (:func:`bocvs_env.sampling.quasi_random_inputs`, the
    construction the goal evaluator uses).

    The same points serve every set and every round (common random numbers), so comparisons
    between sets and rounds are not blurred by sampling noise. A set that controls every variable
    needs no sample: it is evaluated at its query alone.

    Args:
        task: the public task (dimension, control sets, input distributions).
        n_samples: samples per expectation (a power of two keeps the Sobol points balanced).
        seed: scrambles the points.
    """

    def __init__(self, task: Task, n_samples: int, seed: int) -> None:
        self.task = task
        self.n_samples = n_samples
        #: ``n_samples x d`` quasi-random draws of every variable.
        self.samples = quasi_random_inputs(task.distributions, n_samples, seed)
        self._masks: list[Tensor] = []
        self._set_samples: list[Tensor] = []  # per set: S_i x d (S_i = 1 if nothing is random)
        for i, s in enumerate(task.control_sets):
            mask = torch.zeros(task.dim, dtype=torch.bool)
            mask[list(s)] = True
            self._masks.append(mask)
            random = len(task.free_variables(i)) > 0
            self._set_samples.append(self.samples if random else self.samples[:1])

    def check_set(self, i: int) -> None:
        """Raise ValueError unless ``i`` is a control set of the task."""
        if not (0 <= i < self.task.n_sets):
            raise ValueError(f"control set {i} is out of range for {self.task.n_sets} sets")

    def controlled(self, i: int) -> list[int]:
        """The variables of set ``i``."""
        return list(self.task.control_sets[i])

    def free(self, i: int) -> list[int]:
        """The variables set ``i`` leaves random."""
        return list(self.task.free_variables(i))

    def set_samples(self, i: int) -> Tensor:
        """Set ``i``'s ``S_i x d`` sample rows (one row when nothing is random)."""
        return self._set_samples[i]

    def count(self, i: int, n_samples: int | None = None) -> int:
        """The samples an expectation of set ``i`` uses: ``n_samples`` (default: all) at most."""
        return min(n_samples or self.n_samples, self._set_samples[i].shape[0])

    def full_queries(self, i: int, X: Tensor) -> Tensor:
        """Complete queries with the sample set: ``batch x d`` -> ``batch x S_i x d``.

        The entries of set ``i`` come from ``X``, the others from the quasi-random samples.
        """
        self.check_set(i)
        return torch.where(self._masks[i], X.unsqueeze(-2), self._set_samples[i])
