"""The exact Gaussian-process surrogate shared by every model-based agent.

One GP class, two hyperparameter modes:

- ``"fixed"``: the reference implementations' model (Tay et al. 2023; Hayashi et al. 2022): a
  squared-exponential (RBF) kernel with one given lengthscale for every dimension, unit output
  scale, noise variance ``1e-4``, zero prior mean and raw (not standardized) outputs.
- ``"fitted"``: BoTorch's default :class:`~botorch.models.SingleTaskGP` (RBF with ARD and the
  dimension-scaled priors of Hvarfner et al. 2024, a constant mean, a Gaussian likelihood,
  outputs standardized by :class:`~botorch.models.transforms.outcome.Standardize`), whose
  hyperparameters and standardization are refit by maximum a posteriori every ``refit_every`` new
  points and kept fixed in between.

In both modes the posterior itself is computed here, in float64 torch, from a cached Cholesky
factor of ``K + noise I``. When :meth:`GPSurrogate.fit` receives the previous data with rows
appended (the usual case: agents refit on all data every round) and the hyperparameters have not
changed, the factor is *extended* by a block update in ``O(n^2 k)`` for ``k`` new rows instead of
being recomputed in ``O(n^3)``. A Cholesky failure (duplicate inputs, tiny noise) is met by adding
escalating jitter to the diagonal of the new block, so a run never crashes on it; a failed
hyperparameter fit keeps the previous hyperparameters. The precision ``(K + noise I)^{-1}`` is
computed on first use and then extended with the factor; it turns the variance of many points
into one matrix product whose result also gives the gradient.

The kernel is a product over dimensions, which the acquisition exploits
(:meth:`GPSurrogate.cross_factor`, :meth:`GPSurrogate.averaged_moments`,
:meth:`GPSurrogate.kernel_mean_embedding`, :meth:`SamplePath.averaged`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import torch
from torch import Tensor

from agents.surrogate.embedding import kernel_mean_embedding
from agents.surrogate.factor import GrowingCholesky
from agents.surrogate.fitting import MAPFitter, initial_hyperparameters
from agents.surrogate.paths import SamplePath, draw_sample_paths
from bocvs_env.gp import Hyperparameters, posterior_weights, rbf
from bocvs_env.problems.distributions import InputDistribution

#: The smallest posterior variance returned (relative to the output scale), so that the standard
#: deviation and its gradient stay finite.
MIN_VARIANCE = 1e-12
#: Rows of test points per kernel block in :meth:`GPSurrogate.mean_std` (bounds memory).
CHUNK_ELEMENTS = 1 << 23

Mode = Literal["fixed", "fitted"]


class GPSurrogate:
    """Exact GP on BoTorch/GPyTorch shared by every model-based agent.

    Args:
        dim: the input dimension ``d``; inputs live in ``[0, 1]^d``.
        mode: ``"fixed"`` (the references' hyperparameters) or ``"fitted"`` (BoTorch's
            ``SingleTaskGP`` fitted by MAP, outputs standardized).
        lengthscale: the fixed mode's lengthscale (every dimension).
        noise: the fixed mode's noise variance.
        outputscale: the fixed mode's output scale (prior variance).
        refit_every: the fitted mode refits its hyperparameters once this many points have been
            added since the last fit (and on the first fit with at least two points).
        seed: seeds the random restarts BoTorch may use when a hyperparameter fit fails (each refit
            uses ``seed + refit count``); ``None`` leaves torch's global generator as it is.
        n_features: the number of random Fourier features of the prior in :meth:`sample_paths`.
        warm_start: start each refit from the previous fit's hyperparameters (the data only
            grew; several times faster), not from BoTorch's initial values.
    """

    def __init__(
        self,
        dim: int,
        mode: Mode = "fixed",
        lengthscale: float = 0.1,
        noise: float = 1e-4,
        outputscale: float = 1.0,
        refit_every: int = 10,
        seed: int | None = 0,
        n_features: int = 1024,
        warm_start: bool = True,
    ) -> None:
        if not (isinstance(dim, int) and dim >= 1):
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        if mode not in ("fixed", "fitted"):
            raise ValueError(f"mode must be 'fixed' or 'fitted', got {mode!r}")
        for name, value in (("lengthscale", lengthscale), ("noise", noise)):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be positive and finite, got {value!r}")
        if not (math.isfinite(outputscale) and outputscale > 0):
            raise ValueError(f"outputscale must be positive and finite, got {outputscale!r}")
        if not (isinstance(refit_every, int) and refit_every >= 1):
            raise ValueError(f"refit_every must be a positive integer, got {refit_every!r}")
        if not (isinstance(n_features, int) and n_features >= 1):
            raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
        self.dim = dim
        self.mode = mode
        self.refit_every = refit_every
        self.seed = seed
        self.n_features = n_features
        self.warm_start = warm_start
        if mode == "fixed":
            ls = torch.full((dim,), float(lengthscale), dtype=torch.float64)
            self.hyper = Hyperparameters(ls, float(outputscale), float(noise))
        else:
            self.hyper = initial_hyperparameters(dim)
        #: The hyperparameter fits (fitted mode): counts of fits done and failed, last error.
        self.fitter = MAPFitter(seed, warm_start)
        #: Incremented by every :meth:`fit`, so that callers can cache what depends on the data.
        self.version = 0
        self._n_at_refit = 0
        self._factor = GrowingCholesky(dim)
        self._y = torch.zeros(0, dtype=torch.float64)
        self._alpha = torch.zeros(0, dtype=torch.float64)

    # ----------------------------------------------------------------------------------- data
    @property
    def n_train(self) -> int:
        """The number of training points."""
        return int(self._factor.X.shape[0])

    @property
    def train_X(self) -> Tensor:
        """The ``n x d`` training inputs."""
        return self._factor.X

    @property
    def cholesky(self) -> Tensor:
        """The ``n x n`` lower Cholesky factor of ``K + (noise + jitter) I`` (standardized)."""
        return self._factor.L

    @property
    def precision(self) -> Tensor:
        """``(K + (noise + jitter) I)^{-1}``, ``n x n`` (standardized units); see
        :attr:`GrowingCholesky.precision`."""
        return self._factor.precision

    @property
    def alpha(self) -> Tensor:
        """``(K + noise I)^{-1} (y_std - mean)``, shape ``n`` (standardized units)."""
        return self._alpha

    @property
    def n_factorizations(self) -> int:
        """The number of full ``O(n^3)`` factorizations done."""
        return self._factor.n_factorizations

    @property
    def n_extensions(self) -> int:
        """The number of ``O(n^2 k)`` block extensions of the factor done."""
        return self._factor.n_extensions

    @property
    def n_refits(self) -> int:
        """The number of hyperparameter fits done (fitted mode)."""
        return self.fitter.n_refits

    @property
    def n_failed_refits(self) -> int:
        """The number of failed fits, after which the previous hyperparameters were kept."""
        return self.fitter.n_failed_refits

    @property
    def last_refit_error(self) -> str | None:
        """The last failed fit's error."""
        return self.fitter.last_error

    def fit(self, X: np.ndarray, y: np.ndarray) -> None:
        """Condition on all the data so far.

        Args:
            X: ``n x d`` inputs in ``[0, 1]^d``.
            y: ``n`` outputs.

        If ``X`` and ``y`` start with the previous call's data and the hyperparameters are kept,
        only the new rows are factorized (block extension of the Cholesky factor); otherwise the
        factor is recomputed. In fitted mode the hyperparameters are refit when ``refit_every``
        points have been added since the last refit, or when the data is not an extension of the
        previous data.
        """
        Xt = torch.as_tensor(np.asarray(X, dtype=np.float64))
        yt = torch.as_tensor(np.asarray(y, dtype=np.float64))
        if Xt.ndim != 2 or Xt.shape[1] != self.dim:
            raise ValueError(f"X must have shape (n, {self.dim}), got {tuple(Xt.shape)}")
        if yt.ndim != 1 or yt.shape[0] != Xt.shape[0]:
            raise ValueError(f"y must have shape ({Xt.shape[0]},), got {tuple(yt.shape)}")
        if not (torch.isfinite(Xt).all() and torch.isfinite(yt).all()):
            raise ValueError("X and y must be finite")
        self.version += 1
        n_old, n = self.n_train, Xt.shape[0]
        appended = (
            n >= n_old
            and torch.equal(Xt[:n_old], self._factor.X)
            and torch.equal(yt[:n_old], self._y)
        )
        if self.mode == "fitted":
            appended = self._update_hyperparameters(Xt, yt, appended)
        if appended and n > n_old:
            self._factor.extend(Xt[n_old:], self.hyper)
        elif not appended:
            self._factor.clear()
            if n > 0:
                self._factor.extend(Xt, self.hyper)
        self._y = yt.clone()
        self._alpha = posterior_weights(self._factor.L, yt, self.hyper)

    def _update_hyperparameters(self, X: Tensor, y: Tensor, appended: bool) -> bool:
        """Refit (fitted mode) when due; returns whether the factor may still be extended."""
        if not appended:
            self._n_at_refit = 0
            self.fitter.forget()
            self.hyper = initial_hyperparameters(self.dim)
        n = X.shape[0]
        if n >= 2 and (
            self.n_refits == 0 or not appended or n - self._n_at_refit >= self.refit_every
        ):
            self.hyper = self.fitter.fit(X, y, self.hyper)
            self._n_at_refit = n
            return False
        return appended

    # ------------------------------------------------------------------------------ posterior
    def mean_std(self, X: Tensor) -> tuple[Tensor, Tensor]:
        """Posterior mean and standard deviation of the latent function.

        Args:
            X: ``batch_shape x d`` float64 points.

        Returns:
            The mean and the standard deviation, each of shape ``batch_shape``, in the units of
            ``y``; differentiable with respect to ``X``.
        """
        return self.posterior_from_cross(self.cross_factor(X))

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
        F = rbf(flat, self._factor.X[:, dims], ls, 1.0)
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
            mean = flat.new_full(flat.shape[:1], h.mean)
            var = flat.new_full(flat.shape[:1], h.outputscale)
        else:
            rows = max(1, CHUNK_ELEMENTS // n)
            means, variances = [], []
            for lo in range(0, flat.shape[0], rows):
                Ks = flat[lo : lo + rows]  # c x n
                means.append(Ks @ self._alpha + h.mean)
                if use_precision:
                    variances.append(h.outputscale - _QuadraticForm.apply(Ks, self.precision))
                else:
                    V = torch.linalg.solve_triangular(self._factor.L, Ks.T, upper=False)  # n x c
                    variances.append(h.outputscale - (V * V).sum(0))
            mean = torch.cat(means) if means else flat.new_zeros(0)
            var = torch.cat(variances) if variances else flat.new_zeros(0)
        std = var.clamp_min(MIN_VARIANCE * h.outputscale).sqrt()
        return (mean * h.y_scale + h.y_shift).reshape(shape), (std * h.y_scale).reshape(shape)

    def factor_moments(self, B: Tensor) -> tuple[Tensor, Tensor]:
        """What :meth:`averaged_moments` needs of the random variables' factors.

        Args:
            B: ``s x n`` factors of the random variables at ``s`` samples (:meth:`cross_factor`).

        Returns:
            ``mean_s(B_s) * alpha`` (``n``) and ``W * (B^T B / s)`` (``n x n``, elementwise with
            the :attr:`precision` ``W``; ``W`` itself, not a copy, when ``B`` is one row of ones,
            i.e. for a set without random variables: read-only).
        """
        if B.shape[0] == 1 and bool((B == 1.0).all()):  # no random variables: W itself
            return self._alpha.clone(), self.precision
        M = B.T @ B
        M.mul_(self.precision).div_(B.shape[0])  # in place: one n x n matrix at a time
        return B.mean(0) * self._alpha, M

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

    def kernel_mean_embedding(
        self, distributions: Sequence[InputDistribution], dims: Sequence[int]
    ) -> Tensor:
        """``E[F_dims(X, x_j)]`` for every training point ``x_j``, in closed form
        (:func:`~agents.surrogate.embedding.kernel_mean_embedding`): ``n`` expected factors."""
        return kernel_mean_embedding(self.train_X, self.hyper.lengthscale, distributions, dims)

    def sample_paths(self, n_paths: int, generator: torch.Generator) -> SamplePath:
        """Draw ``n_paths`` posterior sample paths from ``n_features`` random Fourier features
        (:func:`~agents.surrogate.paths.draw_sample_paths`), reusing the cached factor.

        Returns:
            A :class:`SamplePath`: callable on ``batch_shape x d`` points, giving
            ``n_paths x batch_shape`` values in the units of ``y``, differentiable with respect
            to its input. It keeps the data and hyperparameters of this call.
        """
        if not (isinstance(n_paths, int) and n_paths >= 1):
            raise ValueError(f"n_paths must be a positive integer, got {n_paths!r}")
        f = self._factor
        return draw_sample_paths(
            self.hyper, f.X, self._y, f.L, f.jitter, self.n_features, n_paths, generator
        )


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
