"""The exact Gaussian-process algebra, written once for the whole project.

The agents' surrogate (:mod:`agents.surrogate`) and the GP-based problems (the plant simulator's
sparse-GP mean, the airfoil objective's fitted GP, the kernel mean of
:mod:`bocvs_env.problems.kernel_mean`) all use:

- :class:`Hyperparameters`: an RBF GP's parameters and output standardization;
- :func:`rbf`: the squared-exponential (RBF) kernel with ARD lengthscales;
- :func:`robust_cholesky`: the Cholesky factor with the smallest diagonal jitter that works;
- :func:`posterior_weights` and :func:`fit_weights`: ``(K + noise I)^{-1} (y - m)``, the
  weights of the posterior mean ``m + k(x, X) @ weights`` (Rasmussen and Williams 2006,
  Algorithm 2.1), on the standardized ``y`` where the functions say so;
- :func:`hyperparameters_of`: the hyperparameters of a (fitted) BoTorch ``SingleTaskGP``.

Everything is float64 torch, differentiable where the docstring says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

#: The jitter ladder (relative to the kernel's scale) tried on a Cholesky failure.
JITTERS = (0.0, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)


@dataclass(frozen=True)
class Hyperparameters:
    """The parameters of an RBF GP in standardized units.

    Attributes:
        lengthscale: ``d`` RBF lengthscales.
        outputscale: the prior variance of the latent function.
        noise: the observation-noise variance.
        mean: the constant prior mean.
        y_shift: outputs are standardized as ``(y - y_shift) / y_scale``.
        y_scale: see ``y_shift``.
    """

    lengthscale: Tensor
    outputscale: float
    noise: float
    mean: float = 0.0
    y_shift: float = 0.0
    y_scale: float = 1.0

    def residual(self, y: Tensor) -> Tensor:
        """``(y - y_shift) / y_scale - mean``: outputs (``n``, units of ``y``) centred on the
        prior mean in standardized units."""
        return (y - self.y_shift) / self.y_scale - self.mean


def _tracked(*tensors: Tensor) -> bool:
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def rbf(A: Tensor, B: Tensor, lengthscale: Tensor, outputscale: float = 1.0) -> Tensor:
    """The RBF kernel ``outputscale * exp(-||(a - b) / lengthscale||^2 / 2)``.

    Computed as ``|a|^2 + |b|^2 - 2 a.b`` (scaled by the lengthscales, clamped at 0), so that the
    memory is that of the result, not ``p x q x d``; in place when autograd is not tracking.

    Args:
        A: ``batch_shape x p x d`` points.
        B: ``q x d`` points.
        lengthscale: ``d`` lengthscales (or one shared by every dimension).
        outputscale: the prior variance.

    Returns:
        The ``batch_shape x p x q`` kernel matrix (differentiable with respect to ``A`` and
        ``B``).
    """
    a = A / lengthscale
    b = B / lengthscale
    sq = (a * a).sum(-1, keepdim=True) + (b * b).sum(-1)
    if _tracked(A, B, lengthscale):
        sq = sq - 2.0 * a @ b.mT
        return outputscale * torch.exp(-0.5 * sq.clamp_min(0.0))
    sq.sub_((2.0 * a) @ b.mT)
    return sq.clamp_min_(0.0).mul_(-0.5).exp_().mul_(outputscale)


def robust_cholesky(S: Tensor, scale: float = 1.0) -> tuple[Tensor, float]:
    """Lower Cholesky factor of ``S + jitter I`` with the smallest jitter of :data:`JITTERS`
    (times ``scale``, the kernel's output scale) that works.

    Args:
        S: ``n x n`` symmetric matrix.
        scale: the unit of the jitter.

    Returns:
        The ``n x n`` lower factor and the jitter added (absolute).

    Raises:
        torch.linalg.LinAlgError: if even the largest jitter fails (``S`` is not finite, or far
            from positive definite).
    """
    eye = torch.eye(S.shape[0], dtype=S.dtype)
    for rel in JITTERS:
        jitter = rel * scale
        L, info = torch.linalg.cholesky_ex(S + jitter * eye)
        if int(info) == 0:
            return L, jitter
    raise torch.linalg.LinAlgError(
        f"Cholesky failed even with jitter {JITTERS[-1] * scale:g}: the matrix is not finite "
        "or not positive definite"
    )


def posterior_weights(L: Tensor, y: Tensor, hyper: Hyperparameters) -> Tensor:
    """``(K + noise I)^{-1} (y_std - mean)`` from the factor ``L`` of ``K + noise I``.

    Args:
        L: ``n x n`` lower Cholesky factor (standardized units).
        y: ``n`` outputs in the units of ``y``.
        hyper: the hyperparameters (their standardization and mean).

    Returns:
        ``n`` weights in standardized units: the posterior mean is
        ``(mean + k(x, X) @ weights) * y_scale + y_shift``.
    """
    resid = hyper.residual(y).unsqueeze(-1)
    if L.shape[0] == 0:
        return resid[:, 0]
    return torch.cholesky_solve(resid, L).squeeze(-1)


def fit_weights(X: Tensor, y: Tensor, hyper: Hyperparameters) -> tuple[Tensor, Tensor]:
    """The factor of ``K + noise I`` at the inputs ``X`` and the :func:`posterior_weights`.

    Args:
        X: ``n x d`` inputs.
        y: ``n`` outputs in the units of ``y``.
        hyper: the hyperparameters.

    Returns:
        The ``n`` weights and the ``n x n`` lower factor (with :func:`robust_cholesky`'s jitter).
    """
    K = rbf(X, X, hyper.lengthscale, hyper.outputscale)
    K.diagonal().add_(hyper.noise)
    L, _ = robust_cholesky(K, hyper.outputscale)
    return posterior_weights(L, y, hyper), L


def hyperparameters_of(model: torch.nn.Module) -> Hyperparameters:
    """Read the hyperparameters of a (fitted) single-output ``SingleTaskGP`` with an RBF kernel.

    Supports an RBF kernel with or without a ``ScaleKernel``, a constant or zero mean, and an
    optional ``Standardize`` outcome transform.

    Raises:
        TypeError: if the kernel is not an RBF kernel.
    """
    from gpytorch.kernels import RBFKernel, ScaleKernel

    kernel = model.covar_module
    outputscale = 1.0
    if isinstance(kernel, ScaleKernel):
        outputscale = float(kernel.outputscale.detach())
        kernel = kernel.base_kernel
    if not isinstance(kernel, RBFKernel):
        raise TypeError(f"only RBF kernels are supported, got {type(kernel).__name__}")
    ls = kernel.lengthscale.detach().to(torch.float64).reshape(-1)
    constant = getattr(model.mean_module, "constant", None)
    mean = 0.0 if constant is None else float(constant.detach())
    shift, scale = 0.0, 1.0
    transform = getattr(model, "outcome_transform", None)
    if transform is not None:
        shift = float(transform.means.detach().reshape(-1)[0])
        scale = float(transform.stdvs.detach().reshape(-1)[0])
    likelihood: Any = model.likelihood
    noise = float(likelihood.noise.detach().reshape(-1)[0])
    return Hyperparameters(ls, outputscale, noise, mean, shift, scale)
