"""The exact Gaussian-process surrogate shared by every model-based agent.

One GP class, three hyperparameter modes:

- ``"fixed"``: the reference implementations' model (Tay et al. 2023; Hayashi et al. 2022): a
  squared-exponential (RBF) kernel with one given lengthscale for every dimension, unit output
  scale, noise variance ``1e-4``, zero prior mean and raw (not standardized) outputs.
- ``"fitted"``: BoTorch's default :class:`~botorch.models.SingleTaskGP` (RBF with ARD and the
  dimension-scaled priors of Hvarfner et al. 2024, a constant mean, a Gaussian likelihood,
  outputs standardized by :class:`~botorch.models.transforms.outcome.Standardize`), whose
  hyperparameters and standardization are refit by maximum a posteriori on a schedule (every
  ``refit_every`` new points, or as the data grows geometrically: ``refit_schedule``) and kept
  fixed in between.
- ``"restarted"``: the fixed mode's hyperparameters as a start, from which :meth:`GPSurrogate.tune`
  takes ``tune_steps`` Adam steps on all the data whenever the agent asks
  (:class:`~agents.surrogate.fitting.RestartedAdamFitter`; the released code of Hoang, Nguyen &
  Tran's ETC, AAAI 2025); :meth:`GPSurrogate.fit` keeps the hyperparameters of the last tune.

In every mode the posterior itself is computed here, in float64 torch, from a cached Cholesky
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
:meth:`GPSurrogate.kernel_mean_embedding`, :meth:`SamplePath.averaged_over`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import numpy as np
import torch
from torch import Tensor

from agents.surrogate.embedding import kernel_mean_embedding
from agents.surrogate.factor import GrowingCholesky
from agents.surrogate.fitting import MAPFitter, RestartedAdamFitter, initial_hyperparameters
from agents.surrogate.gp_state import SavedGP
from agents.surrogate.paths import SamplePath, draw_sample_paths
from agents.surrogate.posterior import FactorizedPosterior
from bocvs_env.checks import check_positive_finite, check_positive_integers, real
from bocvs_env.gp_algebra import Hyperparameters, posterior_weights
from bocvs_env.problems.distributions import InputDistribution

#: How the GP's hyperparameters are set: the reference codes' (``"fixed"``) or fitted by MAP.
SurrogateMode = Literal["fixed", "fitted"]
#: The modes of :class:`GPSurrogate`: an agent's options' (:data:`SurrogateMode`) and
#: ``"restarted"``, a policy's own (ETC as its authors' code runs it).
GPMode = Literal["fixed", "fitted", "restarted"]
RefitSchedule = Literal["every", "geometric"]


def check_refit_schedule(schedule: str) -> None:
    """Raise a one-line ``ValueError`` for an unknown refit schedule."""
    if schedule not in get_args(RefitSchedule):
        raise ValueError(
            f"refit_schedule must be one of {get_args(RefitSchedule)}, got {schedule!r}"
        )


def check_refit_factor(growth: float) -> None:
    """Raise a one-line ``ValueError`` for a geometric schedule's growth factor not ``> 1``."""
    if not real(growth, "refit_factor") > 1:
        raise ValueError(f"refit_factor must be finite and > 1, got {growth!r}")


class GPSurrogate(FactorizedPosterior, SavedGP):
    """Exact GP on BoTorch/GPyTorch shared by every model-based agent.

    Args:
        dim: the input dimension ``d``; inputs live in ``[0, 1]^d``.
        mode: ``"fixed"`` (the references' hyperparameters), ``"fitted"`` (BoTorch's
            ``SingleTaskGP`` fitted by MAP, outputs standardized) or ``"restarted"`` (the fixed
            mode's hyperparameters, tuned from there on request: :meth:`tune`).
        lengthscale: the fixed and restarted modes' lengthscale (every dimension; the
            restarted mode's start).
        noise: the fixed and restarted modes' noise variance.
        outputscale: the fixed and restarted modes' output scale (prior variance).
        refit_every: the fitted mode refits its hyperparameters once this many points have been
            added since the last fit (and on the first fit with at least two points).
        refit_schedule: ``"every"`` (the default: every ``refit_every`` points) or
            ``"geometric"``: also wait until the data has grown by the factor ``refit_factor``
            since the last fit, so that an episode of ``n`` points refits ``O(log n)`` times
            rather than ``n / refit_every`` (a refit's cost grows as ``n^3``). Between refits
            the factor is extended with the last hyperparameters.
        refit_factor: the geometric schedule's growth factor (``> 1``): the next refit comes at
            ``max(n_fit + refit_every, refit_factor * n_fit)`` points for ``n_fit`` at the last.
        seed: seeds the random restarts BoTorch may use when a hyperparameter fit fails (each fit
            attempt, failed ones included, uses ``seed + attempt``); ``None`` leaves torch's global generator as it is.
        n_features: the number of random Fourier features of the prior in :meth:`sample_paths`.
        warm_start: start each refit from the previous fit's hyperparameters (the data only
            grew, so the fit starts near its optimum), not from BoTorch's initial values.
        refit_maxiter: the most L-BFGS-B iterations of a warm-started refit (``None``: to
            convergence); see :class:`~agents.surrogate.fitting.MAPFitter`.
        tune_steps: the restarted mode's Adam steps per :meth:`tune`.
        tune_lr: the restarted mode's Adam learning rate.

    The defaults here are the exact computations (and the reference codes' fixed mode). The
    agents pass every option explicitly, with defaults of their own: the fast options
    and the fitted mode (:class:`~agents.policies.model_based.ModelBasedAgent`, the one home of the
    agents' defaults).
    """

    def __init__(
        self,
        dim: int,
        mode: GPMode = "fixed",
        lengthscale: float = 0.1,
        noise: float = 1e-4,
        outputscale: float = 1.0,
        refit_every: int = 10,
        refit_schedule: RefitSchedule = "every",
        refit_factor: float = 1.25,
        seed: int | None = 0,
        n_features: int = 1024,
        warm_start: bool = True,
        refit_maxiter: int | None = None,
        tune_steps: int = 10,
        tune_lr: float = 0.1,
    ) -> None:
        if mode not in get_args(GPMode):
            raise ValueError(f"mode must be one of {get_args(GPMode)}, got {mode!r}")
        check_positive_integers(dim=dim, refit_every=refit_every, n_features=n_features)
        check_positive_finite(lengthscale=lengthscale, noise=noise, outputscale=outputscale)
        check_refit_schedule(refit_schedule)
        check_refit_factor(refit_factor)
        self.dim = dim
        self.mode = mode
        self.refit_every = refit_every
        self.refit_schedule = refit_schedule
        self.refit_factor = float(refit_factor)
        self.seed = seed
        self.n_features = n_features
        self.warm_start = warm_start
        if mode == "fitted":
            self.hyper = initial_hyperparameters(dim)
        else:
            ls = torch.full((dim,), float(lengthscale), dtype=torch.float64)
            self.hyper = Hyperparameters(ls, float(outputscale), float(noise))
        #: The hyperparameters a restarted mode's :meth:`tune` starts from.
        self.start_hyper = self.hyper
        #: The hyperparameter fits (fitted and restarted modes): counts of fits done and
        #: failed, last error.
        self.fitter: MAPFitter | RestartedAdamFitter = (
            RestartedAdamFitter(tune_steps, tune_lr)
            if mode == "restarted"
            else MAPFitter(seed, warm_start, refit_maxiter)
        )
        #: Incremented by every :meth:`fit`, so that callers can cache what depends on the data.
        self.version = 0
        self._n_at_refit = 0
        #: The Cholesky factor of the kernel matrix (counts of factorizations and extensions).
        self.factor = GrowingCholesky(dim)
        self._y = torch.zeros(0, dtype=torch.float64)
        self._alpha = torch.zeros(0, dtype=torch.float64)

    # ----------------------------------------------------------------------------------- data
    @property
    def train_X(self) -> Tensor:
        """The ``n x d`` training inputs."""
        return self.factor.X

    @property
    def train_y(self) -> Tensor:
        """The ``n`` training outputs, in the units of ``y``."""
        return self._y

    @property
    def cholesky(self) -> Tensor:
        """The ``n x n`` lower Cholesky factor of ``K + (noise + jitter) I`` (standardized)."""
        return self.factor.L

    @property
    def precision(self) -> Tensor:
        """``(K + (noise + jitter) I)^{-1}``, ``n x n`` (standardized units); see
        :attr:`GrowingCholesky.precision`."""
        return self.factor.precision

    @property
    def alpha(self) -> Tensor:
        """``(K + noise I)^{-1} (y_std - mean)``, shape ``n`` (standardized units)."""
        return self._alpha

    def fit(self, X: np.ndarray, y: np.ndarray, thinned: bool = False) -> None:
        """Condition on all the data so far, or on a subset of it (``thinned``).

        Args:
            X: ``n x d`` inputs in ``[0, 1]^d``.
            y: ``n`` outputs.
            thinned: ``X, y`` are a subset of the data conditioned on before (and maybe new
                rows), chosen without looking at ``y`` (see
                :meth:`~agents.config.Computation.rows`): the hyperparameters
                are kept, and the refit schedule counts from the thinned data's size.

        If ``X`` and ``y`` start with the previous call's data and the hyperparameters are kept,
        only the new rows are factorized (block extension of the Cholesky factor); otherwise the
        factor is recomputed. In fitted mode the hyperparameters are refit when the schedule
        says so, or (unless ``thinned``) from scratch when the data is not an extension of the
        previous data.
        """
        Xt, yt = self._checked_data(X, y)
        self.version += 1
        n_old = self.n_train
        appended = (
            Xt.shape[0] >= n_old
            and torch.equal(Xt[:n_old], self.factor.X)
            and torch.equal(yt[:n_old], self._y)
        )
        if self.mode == "fitted":
            appended = self._update_hyperparameters(Xt, yt, appended, thinned)
        self._factorize(Xt, appended, n_old)
        self._y = yt.clone()
        self._alpha = posterior_weights(self.factor.L, yt, self.hyper)

    def tune(self) -> None:
        """Restarted mode: set the hyperparameters to the fitter's, from :attr:`start_hyper`
        on the data conditioned on (nothing carried over from an earlier tune), and condition
        on that data again under them (``O(n^3)``)."""
        if self.mode != "restarted":
            raise ValueError(f"only a restarted surrogate is tuned on request, not {self.mode!r}")
        X, y = self.factor.X, self._y
        self.hyper = self.fitter.fit(X, y, self.start_hyper)
        self.version += 1
        self._factorize(X, False, 0)
        self._alpha = posterior_weights(self.factor.L, y, self.hyper)

    def _checked_data(self, X: np.ndarray, y: np.ndarray) -> tuple[Tensor, Tensor]:
        """``X`` (``n x d``) and ``y`` (``n``) as float64 tensors; ValueError for a wrong shape
        or a value that is not finite."""
        Xt = torch.as_tensor(np.asarray(X, dtype=np.float64))
        yt = torch.as_tensor(np.asarray(y, dtype=np.float64))
        if Xt.ndim != 2 or Xt.shape[1] != self.dim:
            raise ValueError(f"X must have shape (n, {self.dim}), got {tuple(Xt.shape)}")
        if yt.ndim != 1 or yt.shape[0] != Xt.shape[0]:
            raise ValueError(f"y must have shape ({Xt.shape[0]},), got {tuple(yt.shape)}")
        if not (torch.isfinite(Xt).all() and torch.isfinite(yt).all()):
            raise ValueError("X and y must be finite")
        return Xt, yt

    def _factorize(self, X: Tensor, appended: bool, n_old: int) -> None:
        """Factorize the kernel matrix of ``X`` under the current hyperparameters: only the
        rows after the first ``n_old`` when ``X`` extends the factor's inputs (``appended``),
        else all of them afresh."""
        if appended and X.shape[0] > n_old:
            self.factor.extend(X[n_old:], self.hyper)
        elif not appended:
            self.factor.clear()
            if X.shape[0] > 0:
                self.factor.extend(X, self.hyper)

    def _update_hyperparameters(
        self, X: Tensor, y: Tensor, appended: bool, thinned: bool = False
    ) -> bool:
        """Refit (fitted mode) when due; returns whether the factor may still be extended."""
        assert isinstance(self.fitter, MAPFitter)
        n = X.shape[0]
        restart = not (appended or thinned)
        if restart:
            self._n_at_refit = 0
            self.fitter.forget()
            self.hyper = initial_hyperparameters(self.dim)
        elif not appended:  # thinned: the schedule counts from the thinned size
            self._n_at_refit = min(self._n_at_refit, n)
        if n >= 2 and (self.fitter.n_refits == 0 or restart or self._refit_due(n)):
            self.hyper = self.fitter.fit(X, y, self.hyper)
            self._n_at_refit = n
            return False
        return appended

    def _refit_due(self, n: int) -> bool:
        """Whether the schedule refits at ``n`` points, the data having grown since the last."""
        due = n - self._n_at_refit >= self.refit_every
        if self.refit_schedule == "geometric":
            return due and n >= self.refit_factor * self._n_at_refit
        return due

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
        check_positive_integers(n_paths=n_paths)
        f = self.factor
        return draw_sample_paths(
            self.hyper, f.X, self._y, f.L, f.jitter, self.n_features, n_paths, generator
        )
