"""The posterior of a set's value g_i(x) = E[f([x^i, X^-i])] against brute force."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.acquisition import ExpectedAcquisition
from agents.expected_posterior import ExpectedPosterior, expected_improvement
from agents.surrogate import GPSurrogate
from bocvs_env.gp_algebra import rbf
from bocvs_env.problems import make_problem


@pytest.fixture(scope="module")
def fitted():
    task = make_problem("hartmann3").task()
    rng = np.random.default_rng(0)
    X = rng.random((25, 3))
    y = np.sin(5 * X[:, 0]) + X[:, 1] ** 2
    gp = GPSurrogate(3, mode="fixed", lengthscale=0.3, noise=1e-3)
    gp.fit(X, y)
    acq = ExpectedAcquisition(task, n_samples=16, seed=0)
    return task, gp, acq


def brute_force(gp: GPSurrogate, task, acq, i: int, x: torch.Tensor) -> tuple[float, float]:
    """Mean and std of the sample average of f over the joint posterior of the S points."""
    Z = acq.full_queries(i, x[None])[0]  # S x d
    h = gp.hyper
    Xt = gp.train_X
    K = rbf(Xt, Xt, h.lengthscale, h.outputscale) + h.noise * torch.eye(Xt.shape[0])
    Kzx = rbf(Z, Xt, h.lengthscale, h.outputscale)
    Kzz = rbf(Z, Z, h.lengthscale, h.outputscale)
    cov = Kzz - Kzx @ torch.linalg.solve(K, Kzx.T)
    mean, _ = gp.mean_std(Z)
    return float(mean.mean()), float(cov.mean().clamp_min(0).sqrt() * h.y_scale)


@pytest.mark.parametrize("i", [0, 3, 6])  # {0}, {0, 1}, the full set
def test_mean_and_std_match_the_joint_posterior(fitted, i: int) -> None:
    task, gp, acq = fitted
    post = ExpectedPosterior(task, acq.samples)
    X = torch.rand(4, 3, generator=torch.Generator().manual_seed(i), dtype=torch.float64)
    mean, std = post.mean_std(gp, i, X)
    for k in range(4):
        m, s = brute_force(gp, task, acq, i, X[k])
        assert float(mean[k]) == pytest.approx(m, rel=1e-6, abs=1e-8)
        assert float(std[k]) == pytest.approx(s, rel=1e-3, abs=1e-6)
    expected_mean = acq.expected(gp, i, X, "mean")
    assert torch.allclose(mean, expected_mean, atol=1e-8)
    # the std of the average is at most the average std
    _, pointwise = gp.mean_std(acq.full_queries(i, X))
    assert bool((std <= pointwise.mean(-1) + 1e-9).all())


def test_std_is_differentiable_in_the_query(fitted) -> None:
    task, gp, acq = fitted
    post = ExpectedPosterior(task, acq.samples)
    X = torch.full((1, 3), 0.4, dtype=torch.float64, requires_grad=True)
    mean, std = post.mean_std(gp, 3, X)
    (mean + std).sum().backward()
    assert X.grad is not None and torch.isfinite(X.grad).all()
    assert float(X.grad[0, 2]) == 0.0  # x2 is random under set {0, 1}


def test_expected_improvement_matches_monte_carlo() -> None:
    mean = torch.tensor([0.0, 1.0, -2.0], dtype=torch.float64)
    std = torch.tensor([1.0, 0.5, 0.3], dtype=torch.float64)
    ei = expected_improvement(mean, std, best=0.5)
    draws = mean + std * torch.randn(
        200_000, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64
    )
    mc = (draws - 0.5).clamp_min(0).mean(0)
    assert torch.allclose(ei, mc, atol=3e-3)


def test_every_set_at_once_matches_one_set_at_a_time(fitted) -> None:
    task, gp, acq = fitted
    post = ExpectedPosterior(task, acq.samples)
    X = torch.rand(
        task.n_sets, 5, 3, generator=torch.Generator().manual_seed(7), dtype=torch.float64
    )
    mean, std = post.mean_std_sets(gp, X)
    shared_mean, shared_std = post.mean_std_sets(gp, X[:1])  # the same queries for every set
    assert mean.shape == std.shape == shared_mean.shape == (task.n_sets, 5)
    for i in range(task.n_sets):
        m, s = post.mean_std(gp, i, X[i])
        torch.testing.assert_close(mean[i], m, rtol=1e-10, atol=1e-12)
        torch.testing.assert_close(std[i], s, rtol=1e-10, atol=1e-12)
        m0, s0 = post.mean_std(gp, i, X[0])
        torch.testing.assert_close(shared_mean[i], m0, rtol=1e-10, atol=1e-12)
        torch.testing.assert_close(shared_std[i], s0, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="x batch x 3"):
        post.mean_std_sets(gp, X[:2])
