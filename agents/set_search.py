"""Maximizing a differentiable score of one control set's variables: screened candidates
(scrambled Sobol points and observed queries, :func:`agents.acquisition.screening.set_candidates`),
the best refined by L-BFGS-B with autograd gradients.

The scores are functions of a set's value ``g_i(x^i)`` (:mod:`agents.expected_posterior`):
expected improvement (:class:`agents.cost_ei.CostCooledEIAgent`) and the confidence bounds
of ``g_i`` (:class:`agents.fetc.FETCAgent` with ``value_bounds="integral"``). The expectations
of ``f``'s bounds have their own, closed-form search (:class:`agents.acquisition.ExpectedAcquisition`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.optimize
import torch
from torch import Tensor

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
    """``max_{x^i} score`` and its full query ``(d,)`` (entries outside the set 0.5).

    Args:
        score: the score to maximize.
        dim: the number of variables ``d``.
        ctrl: the set's variables.
        candidates: ``k x |ctrl|`` values of the set's variables, scored first
            (:func:`agents.acquisition.screening.set_candidates`).
        n_refine: the best candidates refined by L-BFGS-B (the best of all is kept).
        maxiter: the L-BFGS-B iteration limit.
    """
    ctrl = list(ctrl)
    X = torch.full((candidates.shape[0], dim), 0.5, dtype=torch.float64)
    X[:, ctrl] = candidates
    with torch.no_grad():
        values = score(X)
    order = torch.argsort(values, descending=True)[:n_refine]
    best_value, best_x = float(values[order[0]]), X[order[0]].clone()
    for k in order.tolist():
        value, x = _refine(score, X[k], ctrl, maxiter)
        if value > best_value:
            best_value, best_x = value, x
    return best_value, best_x.numpy()


def _refine(score: Score, x0: Tensor, ctrl: list[int], maxiter: int) -> tuple[float, Tensor]:
    """L-BFGS-B on ``-score`` over the set's variables, from ``x0``."""

    def negative(z: np.ndarray) -> tuple[float, np.ndarray]:
        x = x0.clone()
        zt = torch.as_tensor(z, dtype=torch.float64).requires_grad_(True)
        x[ctrl] = zt
        value = score(x[None])[0]
        (grad,) = torch.autograd.grad(value, zt)
        return -float(value.detach()), -grad.numpy()

    res = scipy.optimize.minimize(
        negative,
        x0[ctrl].numpy(),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, 1.0)] * len(ctrl),
        options={"maxiter": maxiter},
    )
    x = x0.clone()
    x[ctrl] = torch.as_tensor(np.clip(res.x, 0.0, 1.0), dtype=torch.float64)
    return -float(res.fun), x
