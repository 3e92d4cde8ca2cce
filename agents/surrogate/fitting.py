"""Maximum a posteriori hyperparameters of BoTorch's default GP, warm-started from the last fit."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from bocvs_env.checks import check_optional_positive_integers, check_positive_finite, integer
from bocvs_env.gp_algebra import Hyperparameters, hyperparameters_of

#: The modules of a ``SingleTaskGP`` that hold its hyperparameters (and their priors); a warm
#: start loads exactly these, so that the outcome transform keeps the new data's standardization.
HYPERPARAMETER_MODULES = ("covar_module", "mean_module", "likelihood")


def initial_hyperparameters(dim: int) -> Hyperparameters:
    """The hyperparameters of an unfitted default ``SingleTaskGP`` (the priors' modes)."""
    from botorch.models.utils.gpytorch_modules import (
        get_covar_module_with_dim_scaled_prior,
        get_gaussian_likelihood_with_lognormal_prior,
    )

    kernel = get_covar_module_with_dim_scaled_prior(ard_num_dims=dim)
    likelihood = get_gaussian_likelihood_with_lognormal_prior()
    ls = kernel.lengthscale.detach().to(torch.float64).reshape(dim)
    return Hyperparameters(ls, 1.0, float(likelihood.noise.detach()))


class FitCounts:
    """The counts a fitter keeps of its fits, and their part of its saved state."""

    def __init__(self) -> None:
        #: The number of fits done, and of failed ones (the last error is in ``last_error``).
        self.n_refits = 0
        self.n_failed_refits = 0
        self.last_error: str | None = None

    def count_meta(self) -> dict[str, Any]:
        """The counts and the last error, as JSON."""
        return {"n_refits": self.n_refits, "n_failed_refits": self.n_failed_refits,
                "last_error": self.last_error}  # fmt: skip

    def load_counts(self, meta: dict[str, Any]) -> None:
        """Restore the counts of :meth:`count_meta`."""
        self.n_refits = int(meta["n_refits"])
        self.n_failed_refits = int(meta["n_failed_refits"])
        self.last_error = None if meta["last_error"] is None else str(meta["last_error"])


class MAPFitter(FitCounts):
    """Fits BoTorch's default ``SingleTaskGP`` (RBF with ARD and the dimension-scaled priors of
    Hvarfner et al. 2024, a constant mean, ``Standardize``) by maximum a posteriori.

    Args:
        seed: seeds the random restarts BoTorch may use when a fit fails (each attempt uses
            ``seed + attempt``); ``None`` leaves torch's global generator as it is.
        warm_start: start each fit from the previous fit's hyperparameters (loaded with
            ``strict=True``: a model whose modules changed fails loudly), not from BoTorch's
            initial values.
        maxiter: the most L-BFGS-B iterations of a warm-started fit (``None``: SciPy's limit,
            in effect to convergence); the first fit, from the priors, is never capped. A
            refit from the last fit's hyperparameters on a little more data moves them little,
            so a cap trades a fit that may stop short of the MAP estimate for a bounded cost
            (an unbounded refit's iterations vary widely from one refit to the next). Stopping at the
            cap counts as a successful fit (BoTorch does not retry it).
    """

    def __init__(
        self, seed: int | None = 0, warm_start: bool = True, maxiter: int | None = None
    ) -> None:
        check_optional_positive_integers(maxiter=maxiter)
        super().__init__()
        self.seed = seed
        self.warm_start = warm_start
        self.maxiter = maxiter
        self._state: dict[str, dict[str, Tensor]] | None = None

    def forget(self) -> None:
        """Drop the warm start (the data changed rather than grew)."""
        self._state = None

    def save_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The fits' counts and last error (JSON) and the last fit's hyperparameter tensors,
        the warm start of the next (arrays named ``module.parameter`` as in the modules'
        ``state_dict``, none before the first fit or after :meth:`forget`)."""
        arrays = {f"{module}.{key}": value.detach().numpy().copy()
                  for module, state in (self._state or {}).items()
                  for key, value in state.items()}  # fmt: skip
        meta = {**self.count_meta(), "warm": self._state is not None}
        return arrays, meta

    def load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Restore a state from :meth:`save_state`: the next fit starts where the saved one would.

        Raises:
            ValueError: for a tensor of a module that holds no hyperparameters.
        """
        state: dict[str, dict[str, Tensor]] = {name: {} for name in HYPERPARAMETER_MODULES}
        for name, value in arrays.items():
            module, _, key = name.partition(".")
            if module not in state or not key:
                raise ValueError(f"a fitter state names {name!r}: not a parameter of one of "
                                 f"{HYPERPARAMETER_MODULES}")  # fmt: skip
            state[module][key] = torch.tensor(np.asarray(value))
        self.load_counts(meta)
        self._state = state if meta["warm"] else None

    def fit(self, X: Tensor, y: Tensor, previous: Hyperparameters) -> Hyperparameters:
        """MAP hyperparameters for ``n x d`` inputs and ``n`` outputs; ``previous`` if the fit
        fails (a failed fit must not end a run)."""
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
            optimizer_kwargs = None
            if self.warm_start and self._state is not None:
                for name, state in self._state.items():
                    getattr(model, name).load_state_dict(state, strict=True)
                if self.maxiter is not None:
                    optimizer_kwargs = {"options": {"maxiter": self.maxiter}}
            try:
                mll = ExactMarginalLogLikelihood(model.likelihood, model)
                fit_gpytorch_mll(mll, optimizer_kwargs=optimizer_kwargs)
            except (ModelFittingError, NotPSDError, torch.linalg.LinAlgError) as err:
                self.n_failed_refits += 1
                self.last_error = f"{type(err).__name__}: {err}"
                return previous
        self.n_refits += 1
        self._state = {
            name: {k: v.clone() for k, v in getattr(model, name).state_dict().items()}
            for name in HYPERPARAMETER_MODULES
        }
        return hyperparameters_of(model)


#: The data size up to which GPyTorch computes the restarted fit's likelihood exactly (its
#: ``max_cholesky_size``): every size an episode reaches.
EXACT_UP_TO = 2**31 - 1


class RestartedAdamFitter(FitCounts):
    """A fixed number of Adam steps on the exact marginal likelihood, from the same start at
    every fit: the hyperparameter fit of Hoang, Nguyen & Tran's released code for ETC (AAAI
    2025; docs/agents/etc-text-and-code.md, row 14), in which nothing carries over between
    fits.

    The model is a GPyTorch exact GP (BoTorch's ``SingleTaskGP`` with its modules given): a
    ``ScaleKernel`` over an ARD ``RBFKernel`` with lengthscales constrained to
    ``lengthscale_bounds``, a ``ConstantMean``, GPyTorch's ``GaussianLikelihood`` (noise at
    least ``1e-4``) and raw outputs (no outcome transform). Every parameter is trained, as
    the raw parameters GPyTorch optimizes, with ``torch.optim.Adam`` at learning rate ``lr``.
    A noise started at GPyTorch's floor of ``1e-4`` has a raw value of ``-inf`` and a zero
    gradient there, so it stays at ``1e-4``. The likelihood is always computed through a
    Cholesky factor (GPyTorch's iterative solvers, random above 800 points by default, are
    turned off: :data:`EXACT_UP_TO`), so a fit depends on its data alone.

    Args:
        steps: the Adam steps of a fit (0 returns the start).
        lr: Adam's learning rate.
        lengthscale_bounds: the interval the lengthscales are constrained to.
    """

    def __init__(
        self,
        steps: int = 10,
        lr: float = 0.1,
        lengthscale_bounds: tuple[float, float] = (1e-2, 1e4),
    ) -> None:
        integer(steps, "steps", minimum=0)
        check_positive_finite(lr=lr)
        super().__init__()
        self.steps = steps
        self.lr = float(lr)
        self.lengthscale_bounds = lengthscale_bounds

    def save_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The fits' counts and last error (JSON); no arrays, since nothing carries over from
        one fit to the next."""
        return {}, self.count_meta()

    def load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Restore a state from :meth:`save_state`.

        Raises:
            ValueError: for a state that holds arrays (a fitter that carries a warm start).
        """
        if arrays:
            raise ValueError(f"a restarted fitter's state holds no arrays, got {sorted(arrays)}")
        self.load_counts(meta)

    def fit(self, X: Tensor, y: Tensor, start: Hyperparameters) -> Hyperparameters:
        """The hyperparameters after :attr:`steps` Adam steps from ``start`` (raw outputs:
        its ``y_shift`` and ``y_scale`` are ignored) on ``n x d`` inputs and ``n`` outputs;
        ``start`` if a step fails (a failed fit must not end a run)."""
        import gpytorch
        from botorch import settings as botorch_settings
        from botorch.models import SingleTaskGP
        from gpytorch.constraints import Interval
        from gpytorch.kernels import RBFKernel, ScaleKernel
        from gpytorch.likelihoods import GaussianLikelihood
        from gpytorch.means import ConstantMean
        from gpytorch.mlls import ExactMarginalLogLikelihood
        from linear_operator.utils.errors import NotPSDError

        dim = X.shape[-1]
        base = RBFKernel(
            ard_num_dims=dim, lengthscale_constraint=Interval(*self.lengthscale_bounds)
        )
        kernel = ScaleKernel(base)
        likelihood = GaussianLikelihood()
        mean = ConstantMean()
        with botorch_settings.validate_input_scaling(False):
            model = SingleTaskGP(
                X,
                y.unsqueeze(-1),
                likelihood=likelihood,
                covar_module=kernel,
                mean_module=mean,
                outcome_transform=None,
            )
        base.lengthscale = start.lengthscale.reshape(1, -1).expand(1, dim)
        kernel.outputscale = start.outputscale
        likelihood.noise = start.noise
        mean.constant = start.mean
        mll = ExactMarginalLogLikelihood(likelihood, model)
        model.train()
        optimizer = torch.optim.Adam(model.parameters(), lr=self.lr)
        try:
            with gpytorch.settings.max_cholesky_size(EXACT_UP_TO):
                for _ in range(self.steps):
                    optimizer.zero_grad()
                    loss = -mll(model(*model.train_inputs), model.train_targets)
                    loss.backward()
                    optimizer.step()
        except (NotPSDError, torch.linalg.LinAlgError) as err:
            self.n_failed_refits += 1
            self.last_error = f"{type(err).__name__}: {err}"
            return start
        self.n_refits += 1
        return hyperparameters_of(model)
