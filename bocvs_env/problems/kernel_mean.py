"""A weighted sum of squared-exponential kernels: the mean of a fitted GP, cheap in torch."""

from __future__ import annotations

from torch import Tensor

from bocvs_env.gp_algebra import rbf


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
        self.Z = Z
        self.weights = weights
        self.variance = float(variance)
        self.offset = float(offset)

    def kernel(self, X: Tensor) -> Tensor:
        """``k(X, Z)`` for ``X`` of shape ``batch_shape x d``: ``batch_shape x n``."""
        return rbf(X, self.Z, self.lengthscale, self.variance)

    def __call__(self, X: Tensor) -> Tensor:
        """``m(X)`` for ``X`` of shape ``batch_shape x d``: ``batch_shape`` (differentiable)."""
        return self.offset + self.kernel(X) @ self.weights
