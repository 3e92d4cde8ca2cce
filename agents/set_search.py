"""Deprecated: maximize a score of one control set's variables with
:class:`agents.acquisition.SetOptimizer` on :class:`agents.acquisition.SetScores`, the one
optimizer of the agents' acquisitions. It is removed in version 0.4."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from torch import Tensor

from agents.acquisition.set_optimizer import SetOptimizer
from agents.acquisition.set_scores import SetScores

#: A score of ``batch x d`` full queries (only the set's entries matter): ``batch`` values,
#: differentiable in the queries.
Score = Callable[[Tensor], Tensor]


def maximize_on_set(
    score: Score,
    dim: int,
    ctrl: Sequence[int],
    candidates: Tensor,
    n_refine: int,
    maxiter: int,
) -> tuple[float, np.ndarray]:
    """Deprecated: ``SetOptimizer(n_refine, maxiter).maximize(SetScores([ctrl], dim, ...),
    [0], [candidates])``, the same search: ``max_{x^i} score`` and its full query ``(d,)``
    (entries outside the set 0.5), from the best ``n_refine`` of the ``k x |ctrl|``
    ``candidates``."""
    warnings.warn(
        "agents.set_search.maximize_on_set is deprecated: use "
        "agents.acquisition.SetOptimizer with agents.acquisition.SetScores",
        DeprecationWarning,
        stacklevel=2,
    )
    acquisition = SetScores([list(ctrl)], dim, lambda _, X: score(X))
    ((value, x),) = SetOptimizer(n_refine, maxiter).maximize(acquisition, [0], [candidates])
    return value, x
