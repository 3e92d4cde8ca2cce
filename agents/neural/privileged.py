"""The training's privileged values: a control set's true expected value ``g_i(x)``.

Training functions are the training's own, so it may read their truth (as MetaBO's reward
does): :class:`SetValues` averages the environment's objective over the environment's goal
samples (:attr:`bocvs_env.goal.GoalEvaluator.samples`, the samples behind the ``g`` that
episodes record), in the cheapest exact form the objective has
(:meth:`~bocvs_env.problems.objective.Objective.sample_mean`: a GP sample's closed form, one
evaluation of ``f`` per query instead of 1024; ``f`` itself for the set of every variable),
equal to the recorded ``g`` up to rounding. With ``n_samples`` it averages over the first
``n_samples`` of those samples only (a balanced part of their scrambled Sobol sequence, as the
oracle's screening does): a cheaper estimate of the same ``g`` for the training's reward and
teacher. Only training code uses it, never an agent.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from bocvs_env.env import BOCVSEnv


class SetValues:
    """``g_i`` of the function an environment holds, per set, built on first use.

    ``values(env, i, X)``: ``b x d`` full queries (only set ``i``'s entries matter) to ``b``
    values in the units of ``f``. The functions are kept for one objective at a time (rebuilt
    when the objective changes: a family's new member), so environments of one family that
    share a member (other cost sets or budgets) share them.
    """

    def __init__(self, n_samples: int | None = None) -> None:
        if n_samples is not None and n_samples < 1:
            raise ValueError(f"n_samples must be >= 1 (or None: all), got {n_samples!r}")
        self.n_samples = n_samples
        self._objective: object | None = None
        self._goals: dict[int, Callable[[Tensor], Tensor]] = {}

    def __call__(self, env: BOCVSEnv, i: int, X: np.ndarray) -> np.ndarray:
        problem = env.problem
        if problem.objective is not self._objective:
            self._objective, self._goals = problem.objective, {}
        dims = list(problem.control_sets[i])
        if i not in self._goals:
            samples = env.goal.samples[: self.n_samples]
            self._goals[i] = problem.objective.sample_mean(dims, samples)
        with torch.no_grad():
            Z = torch.as_tensor(np.asarray(X, np.float64)[:, dims])
            return self._goals[i](Z).numpy()
