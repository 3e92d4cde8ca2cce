"""Expectations over the random inputs (agents.acquisition.expected) and their maximization over
a control set by the one optimizer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
import torch
from torch import Tensor

from agents.acquisition import Bound, ExpectedAcquisition, Posterior, SetOptimizer
from agents.surrogate import GPSurrogate, SurrogateMode
from bocvs_env.problems.distributions import TruncatedNormal
from bocvs_env.task import Task

VARIANCE = 0.04
CENTRE = torch.tensor([0.3, 0.7, 0.55, 0.2], dtype=torch.float64)


def make_task(sets: tuple[tuple[int, ...], ...] = ((0,), (1, 2), (0, 1, 2, 3))) -> Task:
    dist = TruncatedNormal(VARIANCE)
    return Task("toy", 4, sets, (dist,) * 4, budget=10.0)


class Bump:
    """A surrogate-like object with a known expectation: ``mean = 1 - |x - c|^2``, ``std = 0.5``.

    ``E[mean]`` over random variables ``l`` subtracts ``Var(X_l) + (0.5 - c_l)^2`` for each.
    """

    def mean_std(self, X: Tensor) -> tuple[Tensor, Tensor]:
        mean = 1.0 - ((X - CENTRE) ** 2).sum(-1)
        return mean, torch.full_like(mean, 0.5)


def spy_rows(monkeypatch: pytest.MonkeyPatch, method: str) -> list[int]:
    """Wrap ``GPSurrogate.<method>(self, M, ...)``: the returned list gets ``M.shape[0]`` per
    call."""
    original = getattr(GPSurrogate, method)
    rows: list[int] = []

    def wrapped(self: GPSurrogate, M: Tensor, *args: object) -> object:
        rows.append(M.shape[0])
        return original(self, M, *args)

    monkeypatch.setattr(GPSurrogate, method, wrapped)
    return rows


def maximize(
    acq: ExpectedAcquisition,
    surrogate: Posterior,
    sets: Sequence[int],
    bound: Bound = "ucb",
    beta: float = 2.0,
    **options: Any,
) -> list[tuple[float, np.ndarray]]:
    """``max E[bound]`` per set as the agents take it: the acquisition's estimator, maximized
    from its candidates by a :class:`SetOptimizer` with ``options``."""
    train_X = surrogate.train_X if isinstance(surrogate, GPSurrogate) else None
    candidates = acq.candidates(sets, train_X)
    return SetOptimizer(**options).maximize(acq.estimator(surrogate, bound, beta), sets, candidates)


def fitted_gp() -> GPSurrogate:
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    gp = GPSurrogate(4, lengthscale=0.3)
    gp.fit(X, np.cos(4.0 * X).sum(-1))
    return gp


def test_expectation_matches_brute_force_monte_carlo() -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=256, seed=3)
    gp = fitted_gp()
    X = torch.rand(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    i = 1  # controls 1, 2; variables 0 and 3 are random
    quasi = acq.expected(gp, i, X, "ucb", beta=2.0)
    rng = np.random.default_rng(1)
    n = 100_000
    for b in range(3):
        full = X[b].repeat(n, 1)
        for l in task.free_variables(i):
            full[:, l] = torch.from_numpy(task.distributions[l].sample(rng, n))
        with torch.no_grad():
            mean, std = gp.mean_std(full)
        values = mean + 2.0 * std
        error = float(values.std()) / n**0.5
        assert abs(float(quasi[b]) - float(values.mean())) < 4 * error + 1e-4


@pytest.mark.parametrize("bound", ["mean", "ucb"])
def test_exact_mean_agrees_with_the_sample_average(bound: Bound) -> None:
    task = make_task()
    gp = fitted_gp()
    X = torch.rand(4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    exact = ExpectedAcquisition(task, n_samples=1024, exact_mean=True)
    sampled = ExpectedAcquisition(task, n_samples=1024)
    for i in range(task.n_sets):
        a = exact.expected(gp, i, X, bound)
        b = sampled.expected(gp, i, X, bound)
        torch.testing.assert_close(a, b, atol=2e-3, rtol=0)
    # a set without random variables is exact either way
    torch.testing.assert_close(exact.expected(gp, 2, X, "mean"), gp.mean_std(X)[0])


def test_bounds_are_ordered_and_differentiable() -> None:
    acq = ExpectedAcquisition(make_task(), n_samples=32)
    gp = fitted_gp()
    X = torch.rand(5, 4, dtype=torch.float64, requires_grad=True)
    ucb = acq.expected(gp, 0, X, "ucb")
    mean = acq.expected(gp, 0, X, "mean")
    lcb = acq.expected(gp, 0, X, "lcb")
    assert (lcb < mean).all() and (mean < ucb).all()
    ucb.sum().backward()
    assert X.grad is not None
    # only set 0's entry matters
    assert (X.grad[:, 1:] == 0).all() and (X.grad[:, 0] != 0).any()


@pytest.mark.parametrize("i", [0, 1, 2])
def test_factorized_kernel_path_equals_the_plain_posterior(i: int) -> None:
    acq = ExpectedAcquisition(make_task(), n_samples=16)
    gp = fitted_gp()
    X = torch.rand(3, 4, dtype=torch.float64)
    mean, std = gp.mean_std(acq.full_queries(i, X))
    fast = acq.expected(gp, i, X, "lcb", beta=1.5)
    torch.testing.assert_close(fast, (mean - 1.5 * std).mean(-1), atol=1e-12, rtol=0)


@pytest.mark.parametrize("i", [0, 1, 2])
def test_a_sample_path_is_averaged_over_the_same_points(i: int) -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=16)
    gp = fitted_gp()
    path = gp.sample_paths(1, torch.Generator().manual_seed(0))
    X = torch.rand(3, 4, dtype=torch.float64)
    expected = acq.expected(gp, i, X, path)  # separated: per feature and training point
    brute = path(acq.full_queries(i, X))[0].mean(-1)  # per query and sample
    torch.testing.assert_close(expected, brute, atol=1e-12, rtol=0)
    # any callable works too, by evaluating every point
    torch.testing.assert_close(acq.expected(gp, i, X, lambda Z: path(Z)), brute)
    with pytest.raises(ValueError, match="n_paths=1"):
        acq.expected(gp, 0, X, gp.sample_paths(2, torch.Generator().manual_seed(0)))


@pytest.mark.parametrize("i", [0, 1, 2])
def test_maximize_finds_the_known_maximum(i: int) -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=128, raw_samples=64)
    ((value, x),) = maximize(acq, Bump(), [i], "ucb", beta=2.0, n_restarts=4)
    chosen = list(task.control_sets[i])
    free = list(task.free_variables(i))
    samples = acq.samples[:, free]  # the quasi-random sample the expectation uses
    penalty = float(((samples - CENTRE[free]) ** 2).sum(-1).mean()) if free else 0.0
    assert value == pytest.approx(1.0 - penalty + 2.0 * 0.5, abs=1e-8)
    np.testing.assert_allclose(x[chosen], CENTRE[chosen].numpy(), atol=1e-4)
    np.testing.assert_array_equal(x[free], 0.5)
    # and the sample's penalty is the exact one within quasi-Monte Carlo error
    exact = sum(VARIANCE + (0.5 - float(CENTRE[l])) ** 2 for l in free)
    assert penalty == pytest.approx(exact, abs=1e-3)


@pytest.mark.parametrize("pre_refine", [True, False])
def test_maximize_finds_the_bump_a_gp_has_learned(pre_refine: bool) -> None:
    """A GP fitted to ``1 - |x - c|^2``: the maximizer of ``E[mu]`` over set 1 is near ``c``."""
    rng = np.random.default_rng(0)
    X = rng.random((200, 4))
    y = 1.0 - ((X - CENTRE.numpy()) ** 2).sum(-1)
    gp = GPSurrogate(4, lengthscale=0.5)
    gp.fit(X, y)
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=64, raw_samples=64, pre_refine=pre_refine)
    ((value, x),) = maximize(acq, gp, [1], "mean", n_restarts=4)
    np.testing.assert_allclose(x[[1, 2]], CENTRE[[1, 2]].numpy(), atol=0.02)
    exact = 1.0 - sum(VARIANCE + (0.5 - float(CENTRE[l])) ** 2 for l in (0, 3))
    assert value == pytest.approx(exact, abs=0.01)


def test_polishing_fewer_points_finds_the_same_maxima() -> None:
    task = make_task()
    gp = fitted_gp()
    every = ExpectedAcquisition(task, n_samples=32, n_polish=None)
    two = ExpectedAcquisition(task, n_samples=32, n_polish=2)
    for (v1, _), (v2, _) in zip(
        maximize(every, gp, [0, 1, 2], n_restarts=6),
        maximize(two, gp, [0, 1, 2], n_restarts=6),
        strict=True,
    ):
        assert v2 == pytest.approx(v1, abs=1e-6)


def test_without_room_to_pre_refine_the_best_screened_starts_are_polished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agents.acquisition.gp_cache

    task = make_task()
    gp = fitted_gp()
    usual = maximize(ExpectedAcquisition(task, n_samples=32, n_polish=3), gp, [0, 1], n_restarts=6)
    monkeypatch.setattr(agents.acquisition.gp_cache, "MOMENT_CACHE_BYTES", 0)
    large = maximize(ExpectedAcquisition(task, n_samples=32, n_polish=3), gp, [0, 1], n_restarts=6)
    for (v1, _), (v2, _) in zip(usual, large, strict=True):
        assert v2 == pytest.approx(v1, abs=1e-4)


@pytest.mark.parametrize("n_polish", [None, 3])
def test_without_room_for_a_screening_matrix_nothing_is_pre_refined(
    monkeypatch: pytest.MonkeyPatch, n_polish: int | None
) -> None:
    """Pre-refining would recompute an ``n x n`` matrix at every evaluation: the starts are
    polished on the exact expectation instead (all of them with ``n_polish=None``)."""
    import agents.acquisition.gp_cache

    acq = ExpectedAcquisition(make_task(), n_samples=32, n_polish=n_polish)
    estimator = acq.estimator(fitted_gp())
    assert estimator.plan(3).pre_refine
    monkeypatch.setattr(agents.acquisition.gp_cache, "MOMENT_CACHE_BYTES", 0)
    plan = estimator.plan(3)
    assert not plan.pre_refine and plan.n_polish == n_polish and plan.groups == [[0, 1, 2]]


def test_with_room_for_one_screening_matrix_sets_are_pre_refined_one_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agents.acquisition.gp_cache

    task = make_task()
    gp = fitted_gp()
    sets = [0, 1, 2]
    together = maximize(ExpectedAcquisition(task, n_samples=32), gp, sets, n_restarts=6)
    one_matrix = 8 * gp.n_train**2
    monkeypatch.setattr(agents.acquisition.gp_cache, "MOMENT_CACHE_BYTES", one_matrix)
    acq = ExpectedAcquisition(task, n_samples=32)
    calls = spy_rows(monkeypatch, "factor_moments")
    alone = maximize(acq, gp, sets, n_restarts=6)
    assert len(acq.gp_cache.moment_cache) == 1
    assert len(calls) == len(sets)  # each set's matrix computed once: screened, then refined
    for (v1, x1), (v2, x2) in zip(together, alone, strict=True):
        assert v2 == pytest.approx(v1, abs=1e-12)
        np.testing.assert_allclose(x2, x1, atol=1e-9)


def test_a_set_without_random_variables_screens_with_the_precision_itself() -> None:
    gp = fitted_gp()
    b_alpha, M = gp.factor_moments(torch.ones(1, gp.n_train, dtype=torch.float64))
    assert M is gp.precision
    torch.testing.assert_close(b_alpha, gp.alpha)
    B = torch.rand(5, gp.n_train, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    _, M5 = gp.factor_moments(B)
    torch.testing.assert_close(M5, gp.precision * (B.T @ B) / 5)


def test_maximize_serves_several_sets_in_order_and_is_deterministic() -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=32, raw_samples=32, seed=5)
    gp = fitted_gp()
    first = maximize(acq, gp, [2, 0], "lcb", n_restarts=2)
    again = ExpectedAcquisition(task, n_samples=32, raw_samples=32, seed=5)
    second = maximize(again, gp, [2, 0], "lcb", n_restarts=2)
    for (v1, x1), (v2, x2) in zip(first, second, strict=True):
        assert v1 == v2 and np.array_equal(x1, x2)
    (alone,) = maximize(acq, gp, [0], "lcb", n_restarts=2)
    # the reported value is the expectation at the reported point
    for (value, x), i in zip(first, [2, 0], strict=True):
        at = acq.expected(gp, i, torch.from_numpy(x).unsqueeze(0), "lcb")
        assert value == pytest.approx(float(at[0]), abs=1e-10)
    assert alone[0] == pytest.approx(first[1][0], abs=1e-4)


@pytest.mark.parametrize("bound", ["ucb", "lcb"])
def test_a_full_set_starts_from_the_best_training_point(bound: Bound) -> None:
    """With four Sobol candidates, one start and one L-BFGS-B iteration, the maximum over the full
    set is still at least the bound at the best of the 30 observed inputs (raw candidates, as
    many as the set's Sobol candidates: 32)."""
    task = make_task()
    gp = fitted_gp()
    acq = ExpectedAcquisition(task, n_samples=16, raw_samples=4)
    assert acq.raw_count(2) == 32 and acq.raw_count(0) == 4  # no random variables: 8x the Sobol
    at_data = acq.expected(gp, 2, gp.train_X, bound)
    ((value, x),) = maximize(acq, gp, [2], bound, n_restarts=1, maxiter=1)
    assert value >= float(at_data.max()) - 1e-12
    assert value == pytest.approx(float(acq.expected(gp, 2, torch.from_numpy(x)[None], bound)[0]))


@pytest.mark.parametrize("mode", ["fixed", "fitted"])
def test_maximize_without_data_returns_the_prior_bound(mode: SurrogateMode) -> None:
    gp = GPSurrogate(4, mode=mode)  # never fitted: the prior, flat, with no gradient
    acq = ExpectedAcquisition(make_task(), n_samples=8, raw_samples=8)
    priors: tuple[tuple[Bound, float], ...] = (("ucb", 2.0), ("lcb", -2.0), ("mean", 0.0))
    for bound, expected in priors:
        for value, x in maximize(acq, gp, [0, 1, 2], bound, n_restarts=2):
            assert value == pytest.approx(expected) and x.shape == (4,)


def test_bad_arguments_are_rejected() -> None:
    task = make_task()
    with pytest.raises(ValueError, match="n_samples"):
        ExpectedAcquisition(task, n_samples=0)
    with pytest.raises(ValueError, match="n_polish"):
        ExpectedAcquisition(task, n_polish=0)
    acq = ExpectedAcquisition(task, n_samples=4)
    X = torch.rand(2, 4, dtype=torch.float64)
    with pytest.raises(ValueError, match="bound"):
        acq.expected(Bump(), 0, X, "upper")  # type: ignore[arg-type]  # a bad bound on purpose
    with pytest.raises(ValueError, match="out of range"):
        maximize(acq, Bump(), [3])


def test_std_range_bounds_every_posterior_standard_deviation() -> None:
    gp = fitted_gp()
    low, high = gp.std_range()
    X = torch.rand(500, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    _, std = gp.mean_std(torch.cat([X, gp.train_X]))
    assert low <= float(std.min()) and float(std.max()) <= high
    assert high == pytest.approx(float(gp.mean_std(torch.full((1, 4), 50.0))[1]))


def test_the_screening_gram_grows_with_the_data_to_the_full_product() -> None:
    rng = np.random.default_rng(4)
    X = rng.random((40, 4))
    y = np.cos(4.0 * X).sum(-1)
    gp = GPSurrogate(4, mode="fixed", lengthscale=0.3)
    gp.fit(X[:30], y[:30])
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=32)
    acq.gp_cache.moments(gp, 1)
    gp.fit(X, y)  # ten more points, the same hyperparameters: the gram grows
    grown = acq.gp_cache.moments(gp, 1)
    fresh = gp.factor_moments(acq.gp_cache.sample_factor(gp, 1))
    assert torch.equal(grown[1], fresh[1]) and torch.equal(grown[0], fresh[0])
    other = GPSurrogate(4, mode="fixed", lengthscale=0.2)
    other.fit(X, y)  # another surrogate: nothing of the first one's is reused
    assert torch.equal(
        acq.gp_cache.moments(other, 1)[1],
        other.factor_moments(acq.gp_cache.sample_factor(other, 1))[1],
    )
