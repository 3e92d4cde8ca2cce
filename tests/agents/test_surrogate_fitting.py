"""The warm-started BoTorch fit: every hyperparameter is carried over, or the fit fails loudly."""

from __future__ import annotations

import pytest
import torch

from agents.surrogate.fitting import HYPERPARAMETER_MODULES, MAPFitter, initial_hyperparameters


def data(n: int = 12, d: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    X = torch.rand(n, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    return X, torch.sin(5.0 * X.sum(-1))


def test_a_warm_start_keeps_every_hyperparameter_module() -> None:
    fitter = MAPFitter(seed=0)
    X, y = data()
    first = fitter.fit(X, y, initial_hyperparameters(2))
    again = fitter.fit(X, y, first)  # from the previous optimum: the same hyperparameters
    assert fitter.n_refits == 2 and fitter.n_failed_refits == 0
    torch.testing.assert_close(again.lengthscale, first.lengthscale, atol=1e-4, rtol=1e-3)
    assert set(fitter._state or {}) == set(HYPERPARAMETER_MODULES)


def test_a_warm_start_that_does_not_fit_the_model_fails_loudly() -> None:
    fitter = MAPFitter(seed=0)
    X, y = data()
    fitter.fit(X, y, initial_hyperparameters(2))
    assert fitter._state is not None
    state = fitter._state["covar_module"]
    state["renamed_lengthscale"] = state.pop("raw_lengthscale")
    with pytest.raises(RuntimeError, match="renamed_lengthscale"):
        fitter.fit(X, y, initial_hyperparameters(2))
