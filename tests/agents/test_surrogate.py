"""The GP surrogate: agreement with BoTorch, incremental Cholesky, robustness, refits, paths."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from botorch.models import SingleTaskGP
from gpytorch.kernels import RBFKernel
from gpytorch.means import ZeroMean

from agents.surrogate import GPSurrogate, RefitSchedule
from bocvs_env.problems.distributions import InputDistribution, TruncatedNormal, Uniform


def data(n: int, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    return X, np.sin(6.0 * X).sum(-1) + 0.5


def test_fixed_mode_matches_botorch_single_task_gp() -> None:
    X, y = data(40)
    kernel = RBFKernel(ard_num_dims=3).double()
    kernel.lengthscale = 0.1
    # gpytorch stores the lengthscale through a transform: use the value it really holds
    lengthscale = float(kernel.lengthscale.detach()[0, 0])
    model = SingleTaskGP(
        torch.from_numpy(X),
        torch.from_numpy(y).unsqueeze(-1),
        train_Yvar=torch.full((40, 1), 1e-4, dtype=torch.float64),
        covar_module=kernel,
        mean_module=ZeroMean(),
        outcome_transform=None,
    ).eval()
    gp = GPSurrogate(3, lengthscale=lengthscale)
    gp.fit(X[:25], y[:25])
    gp.fit(X, y)  # an extension of the previous data
    Xt = torch.rand(4, 5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    mean, std = gp.mean_std(Xt)
    post = model.posterior(Xt)
    assert mean.shape == std.shape == (4, 5)
    torch.testing.assert_close(mean, post.mean.squeeze(-1), atol=1e-8, rtol=0)
    torch.testing.assert_close(std, post.variance.squeeze(-1).sqrt(), atol=1e-8, rtol=0)


def test_incremental_cholesky_equals_full_refactorization() -> None:
    X, y = data(60)
    inc = GPSurrogate(3, lengthscale=0.3)
    for n in (10, 11, 30, 60):
        inc.fit(X[:n], y[:n])
    full = GPSurrogate(3, lengthscale=0.3)
    full.fit(X, y)
    assert (inc.factor.n_factorizations, inc.factor.n_extensions) == (1, 3)
    assert (full.factor.n_factorizations, full.factor.n_extensions) == (1, 0)
    torch.testing.assert_close(inc.cholesky, full.cholesky, atol=1e-12, rtol=0)
    torch.testing.assert_close(inc.alpha, full.alpha, atol=1e-9, rtol=1e-9)


def test_precision_is_extended_with_the_factor_and_gives_the_same_posterior() -> None:
    X, y = data(50)
    gp = GPSurrogate(3, lengthscale=0.2)
    gp.fit(X[:20], y[:20])
    first = gp.precision  # computed from the factor
    gp.fit(X[:21], y[:21])
    gp.fit(X, y)  # extended twice by block updates
    assert first.shape == (20, 20)
    full = torch.cholesky_inverse(gp.cholesky)
    torch.testing.assert_close(gp.precision, full, atol=1e-8, rtol=1e-8)
    F = gp.cross_factor(torch.rand(2, 7, 3, dtype=torch.float64, requires_grad=True))
    exact = gp.posterior_from_cross(F)
    fast = gp.posterior_from_cross(F, use_precision=True)
    for a, b in zip(exact, fast, strict=True):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)
    C = torch.rand(4, 50, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda C: gp.posterior_from_cross(C, use_precision=True)[1], (C,)
    )


def test_averaged_moments_are_the_sample_mean_and_a_jensen_bound() -> None:
    X, y = data(40)
    gp = GPSurrogate(3, lengthscale=0.3)
    gp.fit(X, y)
    g = torch.Generator().manual_seed(0)
    controlled, random = [0], [1, 2]
    Zc = torch.rand(5, 1, dtype=torch.float64, generator=g)
    Zr = torch.rand(16, 2, dtype=torch.float64, generator=g)
    A = gp.cross_factor(Zc, controlled)
    B = gp.cross_factor(Zr, random)
    mean, root = gp.averaged_moments(A, gp.factor_moments(B))
    full = torch.empty(5, 16, 3, dtype=torch.float64)
    full[..., 0] = Zc
    full[..., 1:] = Zr
    m, sd = gp.mean_std(full)
    torch.testing.assert_close(mean, m.mean(-1), atol=1e-10, rtol=0)
    torch.testing.assert_close(root, (sd**2).mean(-1).sqrt(), atol=1e-8, rtol=0)
    assert (root >= sd.mean(-1) - 1e-12).all()


@pytest.mark.parametrize("dist", [TruncatedNormal(0.02), TruncatedNormal(0.08), Uniform()])
def test_kernel_mean_embedding_matches_monte_carlo(dist: InputDistribution) -> None:
    X, y = data(6)
    gp = GPSurrogate(3, lengthscale=0.15)
    gp.fit(X, y)
    dims = [0, 2]
    closed = gp.kernel_mean_embedding([dist, dist], dims)
    rng = np.random.default_rng(0)
    Z = torch.from_numpy(np.stack([dist.sample(rng, 200_000) for _ in dims], axis=1))
    F = gp.cross_factor(Z, dims)  # 200000 x 6
    error = F.std(0) / 200_000**0.5
    assert ((closed - F.mean(0)).abs() <= 4 * error + 1e-6).all()


def test_changed_data_is_refactorized_not_extended() -> None:
    X, y = data(20)
    gp = GPSurrogate(3)
    gp.fit(X, y)
    y2 = y.copy()
    y2[3] += 1.0
    gp.fit(X, y2)
    assert (gp.factor.n_factorizations, gp.factor.n_extensions) == (2, 0)
    fresh = GPSurrogate(3)
    fresh.fit(X, y2)
    torch.testing.assert_close(gp.alpha, fresh.alpha)


def test_no_data_gives_the_prior() -> None:
    gp = GPSurrogate(2, outputscale=2.0)
    gp.fit(np.zeros((0, 2)), np.zeros(0))
    mean, std = gp.mean_std(torch.rand(7, 2, dtype=torch.float64))
    torch.testing.assert_close(mean, torch.zeros(7, dtype=torch.float64))
    torch.testing.assert_close(std, torch.full((7,), 2.0**0.5, dtype=torch.float64))


def test_duplicate_inputs_and_tiny_noise_do_not_crash() -> None:
    X, y = data(10)
    X = np.concatenate([X, X, X[:1]])
    y = np.concatenate([y, y + 1e-3, y[:1]])
    gp = GPSurrogate(3, lengthscale=0.5, noise=1e-14)
    gp.fit(X[:12], y[:12])
    gp.fit(X, y)
    Xt = torch.rand(5, 3, dtype=torch.float64, requires_grad=True)
    mean, std = gp.mean_std(Xt)
    (mean + std).sum().backward()
    assert torch.isfinite(mean).all() and torch.isfinite(std).all()
    assert Xt.grad is not None and torch.isfinite(Xt.grad).all()
    assert (std > 0).all()


def test_fitted_mode_refits_on_schedule_and_matches_botorch() -> None:
    X, y = data(30, seed=2)
    gp = GPSurrogate(3, mode="fitted", refit_every=5, seed=0, warm_start=False)
    schedule = []
    for n in (1, 8, 10, 12, 13):
        gp.fit(X[:n], y[:n])
        schedule.append(gp.fitter.n_refits)
    # no fit with one point; refit at 8, then after 5 new points (13), not in between
    assert schedule == [0, 1, 1, 1, 2]
    assert gp.factor.n_extensions == 2  # 10 and 12 extend the factor under the kept hyperparameters
    gp.fit(X[:13], y[:13])  # the same data again: nothing is refit
    assert gp.fitter.n_refits == 2
    # at a refit the posterior is BoTorch's
    from botorch.fit import fit_gpytorch_mll
    from gpytorch.mlls import ExactMarginalLogLikelihood

    with torch.random.fork_rng():
        torch.manual_seed(1)
        model = SingleTaskGP(torch.from_numpy(X[:13]), torch.from_numpy(y[:13]).unsqueeze(-1))
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    model.eval()
    Xt = torch.rand(6, 3, dtype=torch.float64)
    mean, std = gp.mean_std(Xt)
    post = model.posterior(Xt)
    torch.testing.assert_close(mean, post.mean.squeeze(-1), atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(std, post.variance.squeeze(-1).sqrt(), atol=1e-6, rtol=1e-6)


def test_the_geometric_schedule_refits_when_the_data_has_grown_by_the_factor() -> None:
    X, y = data(40, seed=2)
    refits: list[int] = []
    every: list[int] = []
    runs: tuple[tuple[RefitSchedule, list[int]], ...] = (("geometric", refits), ("every", every))
    for schedule, out in runs:
        gp = GPSurrogate(3, mode="fitted", refit_every=2, refit_schedule=schedule, refit_factor=2.0)
        for n in range(2, 41):
            before = gp.fitter.n_refits
            gp.fit(X[:n], y[:n])
            if gp.fitter.n_refits > before:
                out.append(n)
    # first fit at 2 points, then at twice the last fit's size (and >= 2 points later)
    assert refits == [2, 4, 8, 16, 32]
    assert every == list(range(2, 41, 2))


def test_thinned_data_keeps_the_hyperparameters_and_is_the_exact_posterior_on_it() -> None:
    X, y = data(48, seed=3)
    gp = GPSurrogate(3, mode="fitted", refit_every=2, refit_schedule="geometric", refit_factor=2.0)
    gp.fit(X[:32], y[:32])
    hyper, refits = gp.hyper, gp.fitter.n_refits
    gp.fit(X[:32:2], y[:32:2], thinned=True)  # every other row: no refit, same hyperparameters
    assert gp.fitter.n_refits == refits and gp.hyper is hyper
    ref = GPSurrogate(3, mode="fixed")
    ref.hyper = hyper
    ref.fit(X[:32:2], y[:32:2])
    Xq = torch.rand(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        for got, want in zip(gp.mean_std(Xq), ref.mean_std(Xq), strict=True):
            torch.testing.assert_close(got, want)
    # the schedule counts from the thinned size (16): the next refit at 32 rows, not 64
    sizes = []
    for n in range(33, 49):
        before = gp.fitter.n_refits
        gp.fit(np.vstack([X[:32:2], X[32:n]]), np.append(y[:32:2], y[32:n]))
        if gp.fitter.n_refits > before:
            sizes.append(gp.n_train)
    assert sizes == [32]
    # without ``thinned``, changed data is a new data set: a cold fit from the initial values
    gp.fit(X[:10], y[:10])
    cold = GPSurrogate(3, mode="fitted", refit_every=2, refit_schedule="geometric")
    cold.fit(X[:10], y[:10])
    torch.testing.assert_close(gp.hyper.lengthscale, cold.hyper.lengthscale)


@pytest.mark.parametrize(
    ("option", "value"), [("refit_schedule", "sometimes"), ("refit_factor", 1.0)]
)
def test_a_bad_refit_schedule_is_refused(option: str, value: object) -> None:
    with pytest.raises(ValueError, match=option):
        GPSurrogate(3, mode="fitted", **{option: value})  # type: ignore[arg-type]


def test_a_warm_started_refit_finds_the_same_posterior() -> None:
    X, y = data(40, seed=4)
    posteriors = []
    for warm in (True, False):
        gp = GPSurrogate(3, mode="fitted", refit_every=10, warm_start=warm)
        gp.fit(X[:30], y[:30])
        gp.fit(X, y)
        assert gp.fitter.n_refits == 2
        posteriors.append(
            gp.mean_std(
                torch.rand(8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
            )
        )
    for a, b in zip(*posteriors, strict=True):
        torch.testing.assert_close(a, b, atol=1e-3, rtol=1e-3)


def test_a_failed_refit_keeps_the_previous_hyperparameters(monkeypatch: pytest.MonkeyPatch) -> None:
    import botorch.fit
    from botorch.exceptions import ModelFittingError

    X, y = data(12)
    gp = GPSurrogate(3, mode="fitted", refit_every=2)
    gp.fit(X[:8], y[:8])
    before = gp.hyper

    def fail(*args: object, **kwargs: object) -> None:
        raise ModelFittingError("all attempts failed")

    monkeypatch.setattr(botorch.fit, "fit_gpytorch_mll", fail)
    gp.fit(X, y)
    assert (gp.fitter.n_refits, gp.fitter.n_failed_refits) == (1, 1)
    assert gp.fitter.last_error is not None
    assert gp.hyper is before and "all attempts failed" in gp.fitter.last_error
    mean, std = gp.mean_std(torch.rand(3, 3, dtype=torch.float64))
    assert torch.isfinite(mean).all() and torch.isfinite(std).all()


def test_sample_paths_are_seeded_and_average_to_the_posterior_mean() -> None:
    X, y = data(15)
    gp = GPSurrogate(3, lengthscale=0.3, n_features=2048)
    gp.fit(X, y)
    Xt = torch.rand(2, 4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    a = gp.sample_paths(3, torch.Generator().manual_seed(7))(Xt)
    b = gp.sample_paths(3, torch.Generator().manual_seed(7))(Xt)
    c = gp.sample_paths(3, torch.Generator().manual_seed(8))(Xt)
    assert a.shape == (3, 2, 4)
    assert torch.equal(a, b) and not torch.equal(a, c)
    paths = gp.sample_paths(4000, torch.Generator().manual_seed(0))(Xt)
    mean, std = gp.mean_std(Xt)
    # Monte Carlo error of the average plus a small allowance for the random-feature prior
    assert ((paths.mean(0) - mean).abs() <= 5 * std / 4000**0.5 + 0.02).all()
    torch.testing.assert_close(paths.std(0), std, atol=0.05, rtol=0.1)


def test_sample_paths_are_differentiable() -> None:
    X, y = data(10)
    gp = GPSurrogate(3)
    gp.fit(X, y)
    Xt = torch.rand(5, 3, dtype=torch.float64, requires_grad=True)
    gp.sample_paths(1, torch.Generator().manual_seed(0))(Xt).sum().backward()
    assert Xt.grad is not None and torch.isfinite(Xt.grad).all()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dim": 0}, "dim"),
        ({"dim": 2, "mode": "learned"}, "mode"),
        ({"dim": 2, "noise": 0.0}, "noise"),
    ],
)
def test_bad_arguments_are_rejected(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        GPSurrogate(**kwargs)


def test_bad_data_is_rejected() -> None:
    gp = GPSurrogate(2)
    with pytest.raises(ValueError, match="shape"):
        gp.fit(np.zeros((3, 3)), np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        gp.fit(np.full((2, 2), np.nan), np.zeros(2))


def test_the_mean_alone_equals_the_mean_of_mean_std() -> None:
    """``mean`` skips the variance (FETC's relevance needs only the mean) and gives the same
    values bit for bit, so decisions built on it do not move."""
    rng = np.random.default_rng(3)
    X = rng.random((80, 4))
    gp = GPSurrogate(4, mode="fixed", lengthscale=0.3)
    gp.fit(X, np.sin(5 * X).sum(1))
    Q = torch.as_tensor(rng.random((3, 50, 4)))
    mean, _ = gp.mean_std(Q)
    assert gp.mean(Q).shape == (3, 50)
    assert torch.equal(gp.mean(Q), mean)


def test_the_old_name_of_the_cross_block_bound_warns_and_is_the_same_value() -> None:
    import agents.surrogate

    with pytest.warns(DeprecationWarning, match="CROSS_BLOCK_ELEMENTS"):
        old = agents.surrogate.CHUNK_ELEMENTS
    assert old == agents.surrogate.CROSS_BLOCK_ELEMENTS
