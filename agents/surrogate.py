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
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch
from torch import Tensor

from bocvs_env.problems.distributions import InputDistribution, TruncatedNormal, Uniform

#: The jitter ladder (relative to the output scale) tried on a Cholesky failure.
JITTERS = (0.0, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)
#: The smallest posterior variance returned (relative to the output scale), so that the standard
#: deviation and its gradient stay finite.
MIN_VARIANCE = 1e-12
#: Rows of test points per kernel block in :meth:`GPSurrogate.mean_std` (bounds memory).
CHUNK_ELEMENTS = 1 << 23

Mode = Literal["fixed", "fitted"]


@dataclass(frozen=True)
class Hyperparameters:
    """The parameters of the GP in standardized units.

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


def rbf(A: Tensor, B: Tensor, lengthscale: Tensor, outputscale: float) -> Tensor:
    """The RBF kernel ``s * exp(-||(a - b) / l||^2 / 2)``.

    Args:
        A: ``p x d`` points.
        B: ``q x d`` points.
        lengthscale: ``d`` lengthscales.
        outputscale: ``s``.

    Returns:
        The ``p x q`` kernel matrix (differentiable with respect to ``A`` and ``B``).
    """
    a = A / lengthscale
    b = B / lengthscale
    sq = (a * a).sum(-1, keepdim=True) + (b * b).sum(-1) - 2.0 * a @ b.T
    return outputscale * torch.exp(-0.5 * sq.clamp_min(0.0))


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
        self._fitted_state: dict[str, Tensor] | None = None
        if mode == "fixed":
            ls = torch.full((dim,), float(lengthscale), dtype=torch.float64)
            self.hyper = Hyperparameters(ls, float(outputscale), float(noise))
        else:
            self.hyper = _botorch_initial_hyperparameters(dim)
        #: The number of hyperparameter fits done (fitted mode), and of failed ones (after which
        #: the previous hyperparameters are kept; the last error is in ``last_refit_error``).
        self.n_refits = 0
        self.n_failed_refits = 0
        self.last_refit_error: str | None = None
        #: The number of full ``O(n^3)`` factorizations and of block extensions done.
        self.n_factorizations = 0
        self.n_extensions = 0
        #: Incremented by every :meth:`fit`, so that callers can cache what depends on the data.
        self.version = 0
        self._n_at_refit = 0
        self._X = torch.zeros(0, dim, dtype=torch.float64)
        self._y = torch.zeros(0, dtype=torch.float64)
        self._L = torch.zeros(0, 0, dtype=torch.float64)
        self._jitter = torch.zeros(0, dtype=torch.float64)  # diagonal jitter added per row
        self._alpha = torch.zeros(0, dtype=torch.float64)
        self._W: Tensor | None = None  # (K + noise I)^{-1}, computed on first use, then extended

    # ----------------------------------------------------------------------------------- data
    @property
    def n_train(self) -> int:
        """The number of training points."""
        return int(self._X.shape[0])

    @property
    def train_X(self) -> Tensor:
        """The ``n x d`` training inputs."""
        return self._X

    @property
    def cholesky(self) -> Tensor:
        """The ``n x n`` lower Cholesky factor of ``K + (noise + jitter) I`` (standardized)."""
        return self._L

    @property
    def precision(self) -> Tensor:
        """``(K + (noise + jitter) I)^{-1}``, ``n x n`` (standardized units).

        Computed from the Cholesky factor on first use (``O(n^3)``), then extended with the
        factor by block updates (``O(n^2 k)`` for ``k`` new rows).
        """
        if self._W is None:
            self._W = torch.cholesky_inverse(self._L)
        return self._W

    @property
    def alpha(self) -> Tensor:
        """``(K + noise I)^{-1} (y_std - mean)``, shape ``n`` (standardized units)."""
        return self._alpha

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
            n >= n_old and torch.equal(Xt[:n_old], self._X) and torch.equal(yt[:n_old], self._y)
        )
        if self.mode == "fitted":
            if not appended:
                self._n_at_refit = 0
                self._fitted_state = None
                self.hyper = _botorch_initial_hyperparameters(self.dim)
            if n >= 2 and (
                self.n_refits == 0 or not appended or n - self._n_at_refit >= self.refit_every
            ):
                self.hyper = self._refit(Xt, yt)
                self._n_at_refit = n
                appended = False
        if appended and n > n_old:
            self._extend(Xt[n_old:])
        elif not appended:
            self._X = Xt[:0]
            self._L = self._L.new_zeros(0, 0)
            self._W = None
            self._jitter = self._jitter.new_zeros(0)
            if n > 0:
                self._extend(Xt)
        self._X = Xt.clone()
        self._y = yt.clone()
        h = self.hyper
        resid = ((yt - h.y_shift) / h.y_scale - h.mean).unsqueeze(-1)
        self._alpha = torch.cholesky_solve(resid, self._L).squeeze(-1) if n else resid[:, 0]

    def _extend(self, X_new: Tensor) -> None:
        """Append ``k`` rows to the Cholesky factor in ``O(n^2 k)`` (``O(k^3)`` for the block)."""
        h = self.hyper
        n, k = self.n_train, X_new.shape[0]
        K22 = rbf(X_new, X_new, h.lengthscale, h.outputscale)
        K22.diagonal().add_(h.noise)
        if n > 0:
            K12 = rbf(self._X, X_new, h.lengthscale, h.outputscale)
            L21t = torch.linalg.solve_triangular(self._L, K12, upper=False)  # n x k
            S = K22 - L21t.T @ L21t
            self.n_extensions += 1
        else:
            L21t = K22.new_zeros(0, k)
            S = K22
            self.n_factorizations += 1
        L22, jitter = _robust_cholesky(S, h.outputscale)
        if self._W is not None:  # block inverse through the Schur complement L22 L22^T
            V = torch.linalg.solve_triangular(self._L.T, L21t, upper=True)  # W K12, n x k
            V = torch.linalg.solve_triangular(L22, V.T, upper=False).T  # W K12 L22^-T
            L22inv = torch.linalg.solve_triangular(L22, torch.eye(k, dtype=L22.dtype), upper=False)
            corner = -V @ L22inv  # -W K12 S^-1
            W = torch.empty(n + k, n + k, dtype=torch.float64)
            W[:n, :n] = self._W
            W[:n, :n].addmm_(V, V.T)  # in place: no third n x n matrix
            W[:n, n:] = corner
            W[n:, :n] = corner.T
            W[n:, n:] = L22inv.T @ L22inv
            self._W = W  # the old precision is freed before the new factor is allocated
            del W
        L = torch.zeros(n + k, n + k, dtype=torch.float64)
        L[:n, :n] = self._L
        L[n:, :n] = L21t.T
        L[n:, n:] = L22
        self._L = L
        self._jitter = torch.cat([self._jitter, torch.full((k,), jitter, dtype=torch.float64)])
        self._X = torch.cat([self._X, X_new])

    def _refit(self, X: Tensor, y: Tensor) -> Hyperparameters:
        """Fit BoTorch's default ``SingleTaskGP`` by MAP and read off its hyperparameters."""
        from botorch.exceptions import ModelFittingError
        from botorch.fit import fit_gpytorch_mll
        from botorch.models import SingleTaskGP
        from gpytorch.mlls import ExactMarginalLogLikelihood
        from linear_operator.utils.errors import NotPSDError

        attempt = self.n_refits + self.n_failed_refits
        with torch.random.fork_rng():
            if self.seed is not None:
                torch.manual_seed(self.seed + attempt)
            model = SingleTaskGP(X, y.unsqueeze(-1))
            if self.warm_start and self._fitted_state is not None:
                model.load_state_dict(self._fitted_state, strict=False)
            try:
                fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
            except (ModelFittingError, NotPSDError, torch.linalg.LinAlgError) as err:
                # keep the previous hyperparameters rather than end the run
                self.n_failed_refits += 1
                self.last_refit_error = f"{type(err).__name__}: {err}"
                return self.hyper
        self.n_refits += 1
        self._fitted_state = {
            k: v.clone()
            for k, v in model.state_dict().items()
            if not k.startswith("outcome_transform")  # the new data's standardization stays
        }
        return hyperparameters_of(model)

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
        F = rbf(flat, self._X[:, dims], ls, 1.0)
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
                    V = torch.linalg.solve_triangular(self._L, Ks.T, upper=False)  # n x c
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
        """``E[F_dims(X, x_j)]`` for every training point ``x_j``, in closed form.

        ``X_l`` are independent with the given distributions (:class:`TruncatedNormal` or
        :class:`Uniform`). For ``N(m, s^2)`` truncated to ``[0, 1]`` and lengthscale ``l``, one
        dimension gives ``l / sqrt(s^2 + l^2) exp(-(m - c)^2 / (2 (s^2 + l^2)))
        (Phi((1 - m') / s') - Phi(-m' / s')) / Z`` with ``s'^2 = s^2 l^2 / (s^2 + l^2)``,
        ``m' = (m l^2 + c s^2) / (s^2 + l^2)`` and ``Z`` the truncated mass; uniform inputs give
        ``l sqrt(2 pi) (Phi((1 - c) / l) - Phi(-c / l))``.

        Args:
            distributions: one distribution per dimension of ``dims``.
            dims: the dimensions integrated out.

        Returns:
            ``n`` expected factors (a product over the dimensions).

        Raises:
            TypeError: for another distribution.
        """
        from torch.special import ndtr

        out = torch.ones(self.n_train, dtype=torch.float64)
        for dist, l in zip(distributions, dims, strict=True):
            c = self._X[:, l]
            ell = float(self.hyper.lengthscale[l])
            if isinstance(dist, TruncatedNormal):
                m, s2, l2 = dist.mean, dist.scale**2, ell**2
                sp = math.sqrt(s2 * l2 / (s2 + l2))
                mp = (m * l2 + c * s2) / (s2 + l2)
                mass = math.erf((1.0 - m) / (dist.scale * math.sqrt(2.0))) / 2.0
                mass -= math.erf(-m / (dist.scale * math.sqrt(2.0))) / 2.0
                inside = ndtr((1.0 - mp) / sp) - ndtr(-mp / sp)
                out = (
                    out
                    * (ell / math.sqrt(s2 + l2))
                    * torch.exp(-0.5 * (m - c) ** 2 / (s2 + l2))
                    * inside
                    / mass
                )
            elif isinstance(dist, Uniform):
                out = (
                    out * ell * math.sqrt(2.0 * math.pi) * (ndtr((1.0 - c) / ell) - ndtr(-c / ell))
                )
            else:
                raise TypeError(
                    f"no closed-form kernel mean embedding for {type(dist).__name__}; "
                    "use TruncatedNormal or Uniform inputs, or the sample average"
                )
        return out

    def sample_paths(self, n_paths: int, generator: torch.Generator) -> SamplePath:
        """Draw posterior sample paths by pathwise conditioning (Matheron's rule).

        A path is a prior draw approximated by ``n_features`` random Fourier features of the RBF
        kernel, updated by the data: ``f(x) = f0(x) + k(x, X) (K + noise I)^{-1} (y - f0(X) - e)``
        with ``e ~ N(0, noise)`` (Wilson et al., 2020, "Efficiently sampling functions from
        Gaussian process posteriors"). The update reuses the cached Cholesky factor.

        Args:
            n_paths: the number of paths.
            generator: the source of every random draw.

        Returns:
            A :class:`SamplePath`: callable on ``batch_shape x d`` points, giving
            ``n_paths x batch_shape`` values in the units of ``y``, differentiable with respect
            to its input. It keeps the data and hyperparameters of this call.
        """
        if not (isinstance(n_paths, int) and n_paths >= 1):
            raise ValueError(f"n_paths must be a positive integer, got {n_paths!r}")
        h = self.hyper
        D = self.n_features
        opts = {"dtype": torch.float64, "generator": generator}
        W = torch.randn(self.dim, D, **opts) / h.lengthscale.unsqueeze(-1)  # d x D
        b = 2.0 * math.pi * torch.rand(D, **opts)
        w = torch.randn(D, n_paths, **opts) * math.sqrt(2.0 * h.outputscale / D)
        path = SamplePath(h, self._X, W, b, w, torch.zeros(0, n_paths, dtype=torch.float64))
        if self.n_train > 0:
            eps = torch.randn(self.n_train, n_paths, **opts)
            eps = eps * (h.noise + self._jitter).sqrt().unsqueeze(-1)
            resid = ((self._y - h.y_shift) / h.y_scale - h.mean).unsqueeze(-1)
            path.update = torch.cholesky_solve(resid - path.prior(self._X) - eps, self._L)
        return path


class SamplePath:
    """Posterior sample paths of a :class:`GPSurrogate` (see :meth:`GPSurrogate.sample_paths`).

    ``f(x) = (w^T cos(W^T x + b) + mean + k(x, X) update) * y_scale + y_shift`` for each path.

    Args:
        hyper: the hyperparameters the paths were drawn under.
        X: ``n x d`` training inputs.
        W: ``d x D`` random frequencies (already divided by the lengthscales).
        b: ``D`` random phases.
        w: ``D x n_paths`` feature weights.
        update: ``n x n_paths`` pathwise-update weights.
    """

    def __init__(
        self, hyper: Hyperparameters, X: Tensor, W: Tensor, b: Tensor, w: Tensor, update: Tensor
    ) -> None:
        self.hyper, self.X, self.W, self.b, self.w, self.update = hyper, X, W, b, w, update
        self.n_paths = int(w.shape[1])

    def prior(self, Z: Tensor) -> Tensor:
        """The prior part at ``m x d`` points: ``m x n_paths`` (standardized, zero mean)."""
        return torch.cos(Z @ self.W + self.b) @ self.w

    def __call__(self, Z: Tensor) -> Tensor:
        """Values at ``batch_shape x d`` points: ``n_paths x batch_shape`` (units of ``y``)."""
        h = self.hyper
        shape = Z.shape[:-1]
        flat = Z.reshape(shape.numel(), Z.shape[-1])
        values = self.prior(flat) + h.mean
        if self.X.shape[0] > 0:
            values = values + rbf(flat, self.X, h.lengthscale, h.outputscale) @ self.update
        values = values * h.y_scale + h.y_shift
        return values.T.reshape(self.n_paths, *shape)

    def averaged(self, Zc: Tensor, dims: Sequence[int], Zr: Tensor, free: Sequence[int]) -> Tensor:
        """The paths averaged over sample rows of the other variables, in ``O(D + n)`` a query.

        The point ``x_{qs}`` takes ``Zc[q]`` on ``dims`` and ``Zr[s]`` on ``free`` (together all
        ``d`` dimensions). Both parts of a path separate: ``cos(u + v) = cos u cos v - sin u sin
        v`` for the features and the RBF product for the update, so the average over ``s`` is
        taken once per feature and training point instead of once per query and sample; the
        result equals ``mean_s(path(x_{qs}))``.

        Args:
            Zc: ``q x |dims|`` controlled values.
            dims: their dimensions.
            Zr: ``s x |free|`` sample values of the other variables.
            free: their dimensions.

        Returns:
            ``n_paths x q`` averages in the units of ``y`` (differentiable with respect to
            ``Zc``).
        """
        h = self.hyper
        dims, free = list(dims), list(free)
        u = Zc @ self.W[dims] + self.b  # q x D
        v = Zr @ self.W[free]  # s x D
        values = (
            torch.cos(u) * torch.cos(v).mean(0) - torch.sin(u) * torch.sin(v).mean(0)
        ) @ self.w
        values = values + h.mean
        if self.X.shape[0] > 0:
            ls = h.lengthscale
            A = rbf(Zc, self.X[:, dims], ls[dims], h.outputscale)  # q x n
            b_mean = rbf(Zr, self.X[:, free], ls[free], 1.0).mean(0)  # n
            values = values + A @ (b_mean.unsqueeze(-1) * self.update)
        return (values * h.y_scale + h.y_shift).T


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


def _robust_cholesky(S: Tensor, outputscale: float) -> tuple[Tensor, float]:
    """Cholesky factor of ``S + jitter I`` with the smallest jitter of :data:`JITTERS` that works.

    Returns:
        The lower factor and the jitter added (absolute).

    Raises:
        torch.linalg.LinAlgError: only if ``S`` is not finite (no jitter can help then).
    """
    eye = torch.eye(S.shape[0], dtype=S.dtype)
    for rel in JITTERS:
        jitter = rel * outputscale
        L, info = torch.linalg.cholesky_ex(S + jitter * eye)
        if int(info) == 0:
            return L, jitter
    raise torch.linalg.LinAlgError(
        f"Cholesky failed even with jitter {JITTERS[-1] * outputscale:g}: the kernel matrix is not finite"
    )


def _botorch_initial_hyperparameters(dim: int) -> Hyperparameters:
    """The hyperparameters of an unfitted default ``SingleTaskGP`` (the priors' modes)."""
    from botorch.models.utils.gpytorch_modules import (
        get_covar_module_with_dim_scaled_prior,
        get_gaussian_likelihood_with_lognormal_prior,
    )

    kernel = get_covar_module_with_dim_scaled_prior(ard_num_dims=dim)
    likelihood = get_gaussian_likelihood_with_lognormal_prior()
    ls = kernel.lengthscale.detach().to(torch.float64).reshape(dim)
    return Hyperparameters(ls, 1.0, float(likelihood.noise.detach()))


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
    noise = float(model.likelihood.noise.detach().reshape(-1)[0])
    return Hyperparameters(ls, outputscale, noise, mean, shift, scale)
