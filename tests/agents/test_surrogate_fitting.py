"""The warm-started BoTorch fit: every hyperparameter is carried over, or the fit fails loudly."""

from __future__ import annotations

import botorch.fit
import pytest
import torch

from agents.surrogate.fitting import MAPFitter, initial_hyperparameters


def data(n: int = 12, d: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    X = torch.rand(n, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    return X, torch.sin(5.0 * X.sum(-1))


def test_a_warm_start_keeps_every_hyperparameter_module(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the optimizer turned off for the second fit, what the model starts from is what
    comes out: every hyperparameter of the first fit when warm-started, BoTorch's initial
    values otherwise."""
    X, y = data()
    outcomes = {}
    for warm in (True, False):
        fitter = MAPFitter(seed=0, warm_start=warm)
        first = fitter.fit(X, y, initial_hyperparameters(2))
        with monkeypatch.context() as m:
            m.setattr(botorch.fit, "fit_gpytorch_mll", lambda mll, **kwargs: mll)
            again = fitter.fit(X, y, first)
        assert fitter.n_refits == 2 and fitter.n_failed_refits == 0
        outcomes[warm] = (first, again)
    first, again = outcomes[True]
    torch.testing.assert_close(again.lengthscale, first.lengthscale, rtol=0, atol=0)
    for name in ("outputscale", "noise", "mean", "y_shift", "y_scale"):
        assert getattr(again, name) == getattr(first, name), name
    first, cold = outcomes[False]
    assert not torch.allclose(cold.lengthscale, first.lengthscale)
    assert (cold.outputscale, cold.noise) != (first.outputscale, first.noise)


def test_a_warm_start_that_does_not_fit_the_model_fails_loudly() -> None:
    fitter = MAPFitter(seed=0)
    X, y = data()
    fitter.fit(X, y, initial_hyperparameters(2))
    assert fitter._state is not None
    state = fitter._state["covar_module"]
    state["renamed_lengthscale"] = state.pop("raw_lengthscale")
    with pytest.raises(RuntimeError, match="renamed_lengthscale"):
        fitter.fit(X, y, initial_hyperparameters(2))
