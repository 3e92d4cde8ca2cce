"""A weighted sum of squared-exponential kernels: the mean of a fitted GP, cheap in torch."""

from __future__ import annotations

import torch
from torch import Tensor


def _tracked(*tensors: Tensor) -> bool:
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def scaled_sq_dist(A: Tensor, B: Tensor) -> Tensor:
    """Squared distances between rows: ``A`` is ``batch_shape x n x d``, ``B`` is ``m x d``.

    Returns ``batch_shape x n x m``, via ``|a|^2 - 2 a.b + |b|^2`` clamped at 0, so that the
    memory is that of the result, not ``n x m x d`` (in place when autograd is not tracking).
    """
    cross = A @ B.transpose(-2, -1)
    a2, b2 = (A * A).sum(-1, keepdim=True), (B * B).sum(-1)
    if _tracked(A, B):
        return (a2 - 2.0 * cross + b2).clamp_min(0.0)
    return cross.mul_(-2.0).add_(a2).add_(b2).clamp_min_(0.0)


class SEKernelMean:
    """``m(x) = offset + variance * sum_j weights_j exp(-|(x - Z_j) / lengthscale|^2 / 2)``.

    The posterior mean of a GP with a squared-exponential ARD kernel has this form, with ``Z`` the
    training inputs (or inducing points) and ``weights = (K + noise I)^{-1} (y - c)`` (or its
    whitened analogue), precomputed once.

    Args:
        Z: ``n x d`` centres, in the units of the inputs.
        lengthscale: ``(d,)`` positive lengthscales.
        weights: ``(n,)`` weights.
        variance: the kernel's variance.
        offset: the constant added (the GP's constant mean).
    """

    def __init__(
        self,
        Z: Tensor,
        lengthscale: Tensor,
        weights: Tensor,
        variance: float = 1.0,
        offset: float = 0.0,
    ) -> None:
        if Z.dim() != 2 or lengthscale.shape != Z.shape[-1:] or weights.shape != Z.shape[:1]:
            raise ValueError(
                f"shapes disagree: Z {tuple(Z.shape)}, lengthscale {tuple(lengthscale.shape)}, "
                f"weights {tuple(weights.shape)}; expected n x d, (d,), (n,)"
            )
        if not (lengthscale > 0).all() or not variance > 0:
            raise ValueError("the lengthscales and the variance must be positive")
        self.lengthscale = lengthscale
        self.scaled_Z = Z / lengthscale  # n x d
        self.weights = weights
        self.variance = float(variance)
        self.offset = float(offset)

    def kernel(self, X: Tensor) -> Tensor:
        """``k(X, Z)`` for ``X`` of shape ``batch_shape x d``: ``batch_shape x n``."""
        D = scaled_sq_dist(X / self.lengthscale, self.scaled_Z)
        if _tracked(X, self.scaled_Z):
            return self.variance * torch.exp(-0.5 * D)
        return D.mul_(-0.5).exp_().mul_(self.variance)

    def __call__(self, X: Tensor) -> Tensor:
        """``m(X)`` for ``X`` of shape ``batch_shape x d``: ``batch_shape`` (differentiable)."""
        return self.offset + self.kernel(X) @ self.weights
