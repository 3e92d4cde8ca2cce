"""The posterior of an exact RBF GP at points whose kernel factorizes over the dimensions.

The RBF kernel is a product over dimensions, so the cross kernel of a point whose controlled and
random variables come from different sources is the product of two factors
(:meth:`FactorizedPosterior.cross_factor`): the acquisition computes the factor of the random
variables' samples once per fit and averages the posterior over them in closed form
(:meth:`FactorizedPosterior.averaged_moments`, :meth:`FactorizedPosterior.averaged_mean`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from bocvs_env.gp_algebra import Hyperparameters, rbf

#: The smallest posterior variance returned (relative to the output scale), so that the standard
#: deviation and its gradient stay finite.
MIN_VARIANCE = 1e-12
#: The most elements of one block of ``p x n`` cross covariances ``k(x, X)`` (and of its
#: products) in :meth:`FactorizedPosterior.posterior_from_cross` and in screening: blocks of
#: ``CROSS_BLOCK_ELEMENTS // n`` test points bound the memory (64 MiB of float64 a block).
CROSS_BLOCK_ELEMENTS = 1 << 23


class FactorizedPosterior(ABC):
    """Posterior mean and standard deviation from the cached factor, precision and weights of an
    exact GP (:class:`agents.surrogate.GPSurrogate` conditions it on data)."""

    dim: int
    hyper: Hyperparameters

    @property
    @abstractmethod
    def train_X(self) -> Tensor:
        """The ``n x d`` training inputs."""

    @property
    @abstractmethod
    def cholesky(self) -> Tensor:
        """The ``n x n`` lower Cholesky factor of ``K + (noise + jitter) I`` (standardized)."""

    @property
    @abstractmethod
    def precision(self) -> Tensor:
        """``(K + (noise + jitter) I)^{-1}``, ``n x n`` (standardized units)."""

    @property
    @abstractmethod
    def alpha(self) -> Tensor:
        """``(K + noise I)^{-1} (y_std - mean)``, shape ``n`` (standardized units)."""

    @property
    def n_train(self) -> int:
        """The number of training points."""
        return int(self.train_X.shape[0])

    def mean_std(self, X: Tensor) -> tuple[Tensor, Tensor]:
        """Posterior mean and standard deviation of the latent function.

        Args:
            X: ``batch_shape x d`` float64 points.

        Returns:
            The mean and the standard deviation, each of shape ``batch_shape``, in the units of
            ``y``; differentiable with respect to ``X``.
        """
        return self.posterior_from_cross(self.cross_factor(X))

    def mean(self, X: Tensor) -> Tensor:
        """The posterior mean of :meth:`mean_std` alone, ``batch_shape`` in the units of ``y``:
        ``O(n)`` per point instead of the variance's ``O(n^2)``, the same values."""
        F = self.cross_factor(X)
        flat = F.reshape(F.shape[:-1].numel(), self.n_train) * self.hyper.outputscale
        return self._output_mean(flat).reshape(F.shape[:-1])

    def _output_mean(self, flat: Tensor) -> Tensor:
        """The posterior mean in the units of ``y`` at ``p x n`` cross covariances ``k(x, X)``,
        in chunks of :data:`CROSS_BLOCK_ELEMENTS` (``p``)."""
        h = self.hyper
        n = self.n_train
        if n == 0:
            mean = flat.new_full(flat.shape[:1], h.mean)
        else:
            rows = max(1, CROSS_BLOCK_ELEMENTS // n)
            chunks = [
                flat[lo : lo + rows] @ self.alpha + h.mean for lo in range(0, len(flat), rows)
            ]
            mean = torch.cat(chunks) if chunks else flat.new_zeros(0)
        return mean * h.y_scale + h.y_shift

    def cross_factor(self, Z: Tensor, dims: Sequence[int] | None = None) -> Tensor:
        """The RBF factor of some dimensions between points and the training inputs.

        The RBF kernel is a product over dimensions, so for a partition of the dimensions into
        ``dims`` and the rest, ``k(x, x_j) = outputscale * F_dims(x, x_j) * F_rest(x, x_j)`` with
        ``F_dims(z, x_j) = exp(-||(z - x_j[dims]) / l[dims]||^2 / 2)``. Agents use this to compute
        the factor of the random variables' samples once per decision.

        Args:
            Z: ``batch_shape x |dims|`` values of the dimensions ``dims``.
            dims: the dimensions (all ``d`` by default).

        Returns:
            ``batch_shape x n`` factors in ``[0, 1]`` (differentiable with respect to ``Z``).
        """
        dims = list(range(self.dim)) if dims is None else list(dims)
        ls = self.hyper.lengthscale[dims]
        flat = Z.reshape(Z.shape[:-1].numel(), len(dims))
        F = rbf(flat, self.train_X[:, dims], ls, 1.0)
        return F.reshape(*Z.shape[:-1], self.n_train)

    def posterior_from_cross(self, F: Tensor, use_precision: bool = False) -> tuple[Tensor, Tensor]:
        """Posterior mean and standard deviation from the full cross factor.

        Args:
            F: ``batch_shape x n``, the product of :meth:`cross_factor` over all dimensions
                (``k(x, X) / outputscale``).
            use_precision: compute the variance as ``k0 - k^T W k`` with the cached
                :attr:`precision` ``W`` (one matrix product whose result also gives the gradient:
                faster than the two triangular solves of the forward and backward passes, and as
                accurate for the noise levels used here) instead of by a triangular solve.

        Returns:
            The mean and standard deviation, each ``batch_shape``, in the units of ``y``.
        """
        h = self.hyper
        n = self.n_train
        shape = F.shape[:-1]
        flat = F.reshape(shape.numel(), n) * h.outputscale  # p x n: k(x, X)
        if n == 0:
            var = flat.new_full(flat.shape[:1], h.outputscale)
        else:
            rows = max(1, CROSS_BLOCK_ELEMENTS // n)
            variances = []
            for lo in range(0, flat.shape[0], rows):
                Ks = flat[lo : lo + rows]  # c x n
                if use_precision:
                    variances.append(h.outputscale - _QuadraticForm.apply(Ks, self.precision))
                else:
                    V = torch.linalg.solve_triangular(self.cholesky, Ks.T, upper=False)  # n x c
                    variances.append(h.outputscale - (V * V).sum(0))
            var = torch.cat(variances) if variances else flat.new_zeros(0)
        std = var.clamp_min(MIN_VARIANCE * h.outputscale).sqrt()
        return self._output_mean(flat).reshape(shape), (std * h.y_scale).reshape(shape)

    def factor_moments(self, B: Tensor, gram: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """What :meth:`averaged_moments` needs of the random variables' factors.

        Args:
            B: ``s x n`` factors of the random variables at ``s`` samples (:meth:`cross_factor`).
            gram: ``B^T B`` (``n x n``) if already known (e.g. grown from a previous one by
                the new columns), computed otherwise. It is overwritten: pass a copy to keep it.

        Returns:
            ``mean_s(B_s) * alpha`` (``n``) and ``W * (B^T B / s)`` (``n x n``, elementwise with
            the :attr:`precision` ``W``; ``W`` itself, not a copy, when ``B`` is one row of ones,
            i.e. for a set without random variables: read-only).
        """
        if B.shape[0] == 1 and bool((B == 1.0).all()):  # no random variables: W itself
            return self.alpha.clone(), self.precision
        M = B.T @ B if gram is None else gram
        M.mul_(self.precision).div_(B.shape[0])  # in place: one n x n matrix at a time
        return B.mean(0) * self.alpha, M

    def averaged_moments(self, A: Tensor, moments: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
        """Sample averages of the posterior over factorized points, in ``O(n^2)`` per point.

        For points ``x_{qs}`` whose cross factor is ``A[q] * B[s]`` (controlled and random
        variables, see :meth:`cross_factor`), returns the average over ``s`` of the posterior mean
        and the root of the average posterior variance. The latter bounds the average standard
        deviation from above (Jensen) and equals it where the variance is the same at every
        sample, so ``mean +- beta * root`` screens candidates for ``E[mu +- beta sigma]`` at the
        cost of one point instead of ``s``.

        Args:
            A: ``q x n`` factors of the controlled variables.
            moments: :meth:`factor_moments` of the random variables' factors ``B``.

        Returns:
            Two ``q`` tensors in the units of ``y``; differentiable with respect to ``A``.
        """
        h = self.hyper
        if self.n_train == 0:
            mean = A.new_full(A.shape[:1], h.mean)
            var = A.new_full(A.shape[:1], h.outputscale)
        else:
            b_alpha, M = moments
            mean = h.outputscale * (A @ b_alpha) + h.mean
            var = h.outputscale - h.outputscale**2 * _QuadraticForm.apply(A, M)
        root = var.clamp_min(MIN_VARIANCE * h.outputscale).sqrt()
        return mean * h.y_scale + h.y_shift, root * h.y_scale

    def std_range(self) -> tuple[float, float]:
        """The smallest and largest standard deviation any posterior point (or the root of
        :meth:`averaged_moments`) can have, in the units of ``y``: the clamp and the prior's."""
        h = self.hyper
        return (MIN_VARIANCE * h.outputscale) ** 0.5 * h.y_scale, h.outputscale**0.5 * h.y_scale

    def averaged_mean(self, A: Tensor, b_alpha: Tensor) -> Tensor:
        """The posterior mean averaged over the random variables, from the controlled factors.

        Args:
            A: ``q x n`` factors of the controlled variables (:meth:`cross_factor`).
            b_alpha: ``n``: the expected random-variable factor of each training point times
                :attr:`alpha` (``kernel_mean_embedding(...) * alpha``, or the first element of
                :meth:`factor_moments`).

        Returns:
            ``q`` averaged means in the units of ``y``.
        """
        h = self.hyper
        return (h.outputscale * (A @ b_alpha) + h.mean) * h.y_scale + h.y_shift


class _QuadraticForm(torch.autograd.Function):
    """``q_p = c_p^T W c_p`` for the rows of ``C`` (``p x n``) and a symmetric ``W``; the
    gradient ``2 W c_p`` reuses the forward product (no gradient for ``W``)."""

    @staticmethod
    def forward(ctx: Any, C: Tensor, W: Tensor) -> Tensor:
        CW = C @ W
        ctx.save_for_backward(CW)
        return (CW * C).sum(-1)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (CW,) = ctx.saved_tensors
        return 2.0 * CW * grad.unsqueeze(-1), None
