"""Maximum a posteriori hyperparameters of BoTorch's default GP, warm-started from the last fit."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from bocvs_env.checks import check_optional_positive_integers
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


class MAPFitter:
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
        self.seed = seed
        self.warm_start = warm_start
        self.maxiter = maxiter
        #: The number of fits done, and of failed ones (after which the previous hyperparameters
        #: are kept; the last error is in ``last_error``).
        self.n_refits = 0
        self.n_failed_refits = 0
        self.last_error: str | None = None
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
        meta = {"n_refits": self.n_refits, "n_failed_refits": self.n_failed_refits,
                "last_error": self.last_error, "warm": self._state is not None}  # fmt: skip
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
        self.n_refits = int(meta["n_refits"])
        self.n_failed_refits = int(meta["n_failed_refits"])
        self.last_error = None if meta["last_error"] is None else str(meta["last_error"])
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
