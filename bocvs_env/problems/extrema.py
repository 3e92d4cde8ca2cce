"""The minimum and maximum of a batched function over the unit cube, by multi-start L-BFGS-B.

The objectives whose range is not known in closed form (the GP sample, the airfoil GP) find it
with :func:`extremes_on_cube` once, at construction, and shift by the minimum (less a small
margin) so that ``f >= 0``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from scipy.optimize import minimize
from torch import Tensor
from torch.quasirandom import SobolEngine

from bocvs_env.blas import one_blas_thread


@dataclass(frozen=True)
class Extremes:
    """The smallest and largest values found, with their arguments (each of shape ``(d,)``)."""

    min_value: float
    argmin: Tensor
    max_value: float
    argmax: Tensor


def refine_min(
    fn: Callable[[Tensor], Tensor], starts: Tensor, maxiter: int = 200
) -> tuple[float, Tensor]:
    """Minimize ``fn`` over the cube from ``n x d`` starts jointly with L-BFGS-B (on one BLAS
    thread: :func:`~bocvs_env.blas.one_blas_thread`).

    Returns the lowest value among the refined points and the starts, and its point ``(d,)``.
    """
    n, d = starts.shape

    def value_and_grad(z: np.ndarray) -> tuple[float, np.ndarray]:
        Z = torch.from_numpy(z.reshape(n, d)).requires_grad_(True)
        total = fn(Z).sum()  # the starts' values are independent: the gradient separates
        (grad,) = torch.autograd.grad(total, Z)
        return float(total.detach()), grad.numpy().ravel()

    with one_blas_thread():
        res = minimize(
            value_and_grad,
            starts.numpy().ravel(),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * (n * d),
            options={"maxiter": maxiter},
        )
    candidates = torch.cat([torch.from_numpy(np.clip(res.x, 0.0, 1.0).reshape(n, d)), starts])
    with torch.no_grad():
        values = fn(candidates)
    best = int(values.argmin())
    return float(values[best]), candidates[best]


def extremes_on_cube(
    fn: Callable[[Tensor], Tensor],
    dim: int,
    n_raw: int = 4096,
    n_starts: int = 16,
    seed: int = 0,
    maxiter: int = 200,
) -> Extremes:
    """``min`` and ``max`` of ``fn`` over ``[0, 1]^dim``, deterministic given ``seed``.

    Scores ``n_raw`` scrambled Sobol points once, then refines the lowest ``n_starts`` of them
    (for the minimum) and the highest ``n_starts`` (for the maximum) with L-BFGS-B and autograd
    gradients. The results are never worse than the best Sobol point.

    Args:
        fn: maps ``batch x dim`` float64 tensors to ``batch`` values, differentiably.
        dim: the input dimension.
        n_raw: Sobol points scored before the local searches.
        n_starts: points refined by each local search.
        seed: the Sobol scrambling seed.
        maxiter: L-BFGS-B iterations of each local search.
    """
    raw = SobolEngine(dim, scramble=True, seed=seed).draw(n_raw, dtype=torch.float64)
    with torch.no_grad():
        scores = fn(raw)
    k = min(n_starts, n_raw)
    low, argmin = refine_min(fn, raw[scores.topk(k, largest=False).indices], maxiter)
    neg_high, argmax = refine_min(lambda X: -fn(X), raw[scores.topk(k).indices], maxiter)
    return Extremes(low, argmin, -neg_high, argmax)
