"""The restarted fit of ETC's authors' GP: a fixed start, a few Adam steps on the exact marginal
likelihood, nothing carried over; and the restarted surrogate that tunes only when asked."""

from __future__ import annotations

import gpytorch
import numpy as np
import pytest
import torch

from agents.surrogate import GPSurrogate
from agents.surrogate.fitting import RestartedAdamFitter
from bocvs_env.gp_algebra import Hyperparameters

START = Hyperparameters(torch.full((3,), 0.2, dtype=torch.float64), 1.0, 1e-4)


def data(n: int = 60) -> tuple[torch.Tensor, torch.Tensor]:
    """A quadratic in the first of three inputs, on raw (unstandardized) outputs."""
    X = torch.rand(n, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    return X, 4.0 * (X[:, 0] - 0.5) ** 2


class ReferenceGP(gpytorch.models.ExactGP):  # type: ignore[misc]
    """An exact GP written against GPyTorch alone: a constant mean, a scaled ARD RBF kernel."""

    def __init__(self, X: torch.Tensor, y: torch.Tensor) -> None:
        super().__init__(X, y, gpytorch.likelihoods.GaussianLikelihood())
        self.mean_module = gpytorch.means.ConstantMean()
        interval = gpytorch.constraints.Interval(1e-2, 1e4)
        rbf = gpytorch.kernels.RBFKernel(ard_num_dims=3, lengthscale_constraint=interval)
        self.covar_module = gpytorch.kernels.ScaleKernel(rbf)

    def forward(self, x: torch.Tensor) -> gpytorch.distributions.MultivariateNormal:
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


def reference_fit(X: torch.Tensor, y: torch.Tensor, steps: int) -> Hyperparameters:
    """``steps`` Adam steps at 0.1 on every parameter from lengthscales 0.2, output scale 1,
    noise ``1e-4`` and mean 0, written out."""
    model = ReferenceGP(X, y).double()
    model.covar_module.base_kernel.lengthscale = 0.2
    model.covar_module.outputscale = 1.0
    model.likelihood.noise = 1e-4
    model.train()
    mll = gpytorch.mlls.ExactMarginalLogLikelihood(model.likelihood, model)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        (-mll(model(X), y)).backward()
        optimizer.step()
    kernel = model.covar_module
    return Hyperparameters(
        kernel.base_kernel.lengthscale.detach().reshape(-1),
        float(kernel.outputscale.detach()),
        float(model.likelihood.noise.detach()),
        float(model.mean_module.constant.detach()),
    )


def test_ten_adam_steps_from_the_start_match_a_written_out_loop() -> None:
    X, y = data()
    fitter = RestartedAdamFitter(steps=10, lr=0.1)
    tuned = fitter.fit(X, y, START)
    expected = reference_fit(X, y, 10)
    torch.testing.assert_close(tuned.lengthscale, expected.lengthscale, rtol=1e-6, atol=0)
    assert tuned.outputscale == pytest.approx(expected.outputscale, rel=1e-6)
    assert tuned.mean == pytest.approx(expected.mean, rel=1e-6)
    # raw outputs; the noise starts at GPyTorch's floor, where its gradient is 0
    assert (tuned.y_shift, tuned.y_scale) == (0.0, 1.0)
    assert tuned.noise == pytest.approx(1e-4)
    # ten steps of about 0.1 on each raw value: within a factor of about e of the start
    assert torch.all((tuned.lengthscale > 0.2 / 3) & (tuned.lengthscale < 0.2 * 3))
    assert not torch.allclose(tuned.lengthscale, START.lengthscale)
    assert fitter.n_refits == 1


def test_every_fit_starts_again_from_the_start() -> None:
    X, y = data()
    fitter = RestartedAdamFitter(steps=10, lr=0.1)
    first = fitter.fit(X, y, START)
    again = fitter.fit(X, y, START)
    torch.testing.assert_close(first.lengthscale, again.lengthscale, rtol=0, atol=0)
    assert (first.outputscale, first.mean) == (again.outputscale, again.mean)
    none = RestartedAdamFitter(steps=0).fit(X, y, START)
    torch.testing.assert_close(none.lengthscale, START.lengthscale)
    assert (none.outputscale, none.mean) == (pytest.approx(1.0), 0.0)


def test_a_restarted_surrogate_keeps_its_start_until_it_is_tuned() -> None:
    X, y = data(40)
    gp = GPSurrogate(3, mode="restarted", lengthscale=0.2, tune_steps=10, tune_lr=0.1)
    gp.fit(X[:30].numpy(), y[:30].numpy())
    assert gp.hyper is gp.start_hyper and gp.fitter.n_refits == 0
    gp.fit(X.numpy(), y.numpy())  # a fit alone conditions, it does not tune
    assert gp.hyper is gp.start_hyper and gp.fitter.n_refits == 0
    gp.tune()
    tuned = gp.hyper
    torch.testing.assert_close(tuned.lengthscale, reference_fit(X, y, 10).lengthscale)
    # the posterior is that of the tuned hyperparameters on all the data
    fresh = GPSurrogate(3, mode="restarted")
    fresh.hyper = tuned
    fresh.fit(X.numpy(), y.numpy())
    Z = torch.rand(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    torch.testing.assert_close(gp.mean_std(Z), fresh.mean_std(Z))
    gp.tune()  # again from the start, not from the last tune
    torch.testing.assert_close(gp.hyper.lengthscale, tuned.lengthscale, rtol=0, atol=0)
    with pytest.raises(ValueError, match="only a restarted surrogate is tuned on request"):
        GPSurrogate(3, mode="fixed").tune()
    with pytest.raises(ValueError, match="mode must be one of"):
        GPSurrogate(3, mode="exact")  # type: ignore[arg-type]
    assert np.isfinite(gp.mean_std(Z)[0].numpy()).all()
