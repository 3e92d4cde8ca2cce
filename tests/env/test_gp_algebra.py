"""The GP algebra of bocvs_env.gp_algebra against GPyTorch and BoTorch, and the deprecated
bocvs_env.gp that re-exports it."""

from __future__ import annotations

import pytest
import torch
from botorch.models import SingleTaskGP
from gpytorch.kernels import RBFKernel

from bocvs_env.gp_algebra import (
    JITTERS,
    Hyperparameters,
    fit_weights,
    hyperparameters_of,
    rbf,
    robust_cholesky,
)


def points(n: int, d: int = 3, seed: int = 0) -> torch.Tensor:
    return torch.rand(n, d, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


def test_rbf_matches_gpytorch_with_and_without_autograd() -> None:
    A, B = points(7), points(5, seed=1)
    ls = torch.tensor([0.2, 0.5, 1.0], dtype=torch.float64)
    kernel = RBFKernel(ard_num_dims=3).to(torch.float64)
    kernel.lengthscale = ls
    expected = 2.0 * kernel(A, B).to_dense().detach()
    with torch.no_grad():
        torch.testing.assert_close(rbf(A, B, ls, 2.0), expected)
    A.requires_grad_(True)
    K = rbf(A, B, ls, 2.0)
    torch.testing.assert_close(K.detach(), expected)
    (grad,) = torch.autograd.grad(K.sum(), A)
    assert torch.isfinite(grad).all() and grad.abs().sum() > 0


def test_rbf_takes_a_batch_of_point_sets() -> None:
    A, B = points(12).reshape(2, 2, 3, 3)[0], points(4, seed=1)
    ls = torch.full((3,), 0.3, dtype=torch.float64)
    K = rbf(A, B, ls)
    assert K.shape == (2, 3, 4)
    torch.testing.assert_close(K[1], rbf(A[1], B, ls))


def test_robust_cholesky_adds_the_smallest_jitter_that_works() -> None:
    X = points(4)
    S = rbf(
        torch.cat([X, X[:1]]), torch.cat([X, X[:1]]), torch.full((3,), 0.5, dtype=torch.float64)
    )
    L, jitter = robust_cholesky(S, 2.0)  # a duplicate row: singular without jitter
    assert jitter > 0 and jitter / 2.0 in JITTERS
    torch.testing.assert_close(L @ L.T, S + jitter * torch.eye(5, dtype=torch.float64))
    _, none = robust_cholesky(S + torch.eye(5, dtype=torch.float64))
    assert none == 0.0
    with pytest.raises(torch.linalg.LinAlgError, match="not finite"):
        robust_cholesky(torch.full((2, 2), float("nan"), dtype=torch.float64))


def test_weights_and_hyperparameters_give_botorchs_posterior_mean() -> None:
    X, y = points(20), torch.sin(6.0 * points(20).sum(-1))
    model = SingleTaskGP(X, y.unsqueeze(-1))
    model.covar_module.lengthscale = torch.tensor([0.3, 0.4, 0.5])
    model.mean_module.constant.data.fill_(0.2)
    model.eval()
    hyper = hyperparameters_of(model)
    assert hyper.lengthscale.tolist() == pytest.approx([0.3, 0.4, 0.5])
    assert hyper.mean == pytest.approx(0.2)
    assert (hyper.y_shift, hyper.y_scale) == pytest.approx((float(y.mean()), float(y.std())))
    weights, L = fit_weights(X, y, hyper)
    torch.testing.assert_close(
        L @ L.T, rbf(X, X, hyper.lengthscale) + hyper.noise * torch.eye(20, dtype=torch.float64)
    )
    Z = points(6, seed=2)
    mean = (
        hyper.mean + rbf(Z, X, hyper.lengthscale, hyper.outputscale) @ weights
    ) * hyper.y_scale + hyper.y_shift
    with torch.no_grad():
        torch.testing.assert_close(mean, model.posterior(Z).mean.squeeze(-1), atol=1e-8, rtol=1e-8)


def test_hyperparameters_of_rejects_another_kernel() -> None:
    from gpytorch.kernels import MaternKernel

    model = SingleTaskGP(points(5), points(5)[:, :1], covar_module=MaternKernel())
    with pytest.raises(TypeError, match="only RBF kernels"):
        hyperparameters_of(model)


def test_residual_centres_standardized_outputs() -> None:
    h = Hyperparameters(
        torch.ones(1, dtype=torch.float64), 1.0, 1e-4, mean=0.5, y_shift=2.0, y_scale=4.0
    )
    torch.testing.assert_close(
        h.residual(torch.tensor([2.0, 6.0], dtype=torch.float64)),
        torch.tensor([-0.5, 0.5], dtype=torch.float64),
    )


def test_the_old_module_warns_and_gives_the_same_objects() -> None:
    import importlib
    import sys

    from bocvs_env import gp_algebra

    sys.modules.pop("bocvs_env.gp", None)
    with pytest.warns(DeprecationWarning, match=r"bocvs_env\.gp is deprecated.*gp_algebra"):
        old = importlib.import_module("bocvs_env.gp")
    for name in old.__all__:
        assert getattr(old, name) is getattr(gp_algebra, name)
    assert set(old.__all__) == {
        "JITTERS", "Hyperparameters", "fit_weights", "hyperparameters_of", "posterior_weights",
        "rbf", "robust_cholesky",
    }  # fmt: skip
