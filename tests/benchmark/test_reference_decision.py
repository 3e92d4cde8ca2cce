"""The reference-style decision (:mod:`bocvs_env.benchmark.reference_decision`, the decision
benchmark's baseline) is sane."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from agents.surrogate import GPSurrogate
from bocvs_env.benchmark import reference_decision as reference
from bocvs_env.problems import make_problem


@pytest.fixture(scope="module")
def problem_and_data() -> tuple:
    """hartmann6 in 12-D and 15 noisy observations at seeded uniform points."""
    problem = make_problem("hartmann6_12d")
    rng = np.random.default_rng(3)
    X = rng.random((15, problem.dim))
    with torch.no_grad():
        f = problem.objective(torch.from_numpy(X)).numpy()
    return problem, X, f + 0.01 * rng.standard_normal(15)


@pytest.fixture(scope="module")
def decision(problem_and_data: tuple) -> tuple:
    problem, X, y = problem_and_data
    gp = reference.ReferenceGP.fit(X, y)
    return gp, reference.reference_decision(gp, problem.task(), seed=0)


def test_posterior_matches_the_agents_fixed_gp(problem_and_data: tuple) -> None:
    problem, X, y = problem_and_data
    gp = reference.ReferenceGP.fit(X, y)
    surrogate = GPSurrogate(problem.dim, mode="fixed", lengthscale=0.1)
    surrogate.fit(X, y)
    Z = torch.from_numpy(np.vstack([X, np.random.default_rng(4).random((20, problem.dim))]))
    with torch.no_grad():
        mean, std = gp.mean_std(Z)
        mean_s, std_s = surrogate.mean_std(Z)
    torch.testing.assert_close(mean, mean_s, rtol=0, atol=1e-9)
    torch.testing.assert_close(std, std_s, rtol=0, atol=1e-7)
    np.testing.assert_allclose(mean[:15].numpy(), y, atol=1e-3)  # noise variance 1e-4


def test_decision_is_a_query_of_the_chosen_set(problem_and_data: tuple, decision: tuple) -> None:
    problem, _, _ = problem_and_data
    _, d = decision
    values = [c.value for c in d.per_set]
    assert len(d.per_set) == problem.n_sets
    assert d.control_set == int(np.argmax(values)) and d.value == max(values)
    for i, choice in enumerate(d.per_set):
        assert choice.x.shape == (problem.dim,)
        assert np.all((choice.x >= 0.0) & (choice.x <= 1.0))
        outside = np.ones(problem.dim, dtype=bool)
        outside[list(problem.control_sets[i])] = False
        np.testing.assert_array_equal(choice.x[outside], 0.5)
    np.testing.assert_array_equal(d.x, d.per_set[d.control_set].x)
    # far from 15 points in 12-D the UCB is about the prior's 0 + 2 * 1: a maximum is at least that
    assert min(values) > 1.9


def test_values_match_the_common_estimate(problem_and_data: tuple, decision: tuple) -> None:
    problem, _, _ = problem_and_data
    gp, d = decision
    sets = list(range(problem.n_sets))
    common = reference.common_expected_bound(
        gp, problem.task(), sets, np.stack([c.x for c in d.per_set])
    )
    for i, choice in enumerate(d.per_set):
        if problem.task().free_variables(i):
            assert choice.stderr > 0
            assert abs(choice.value - common[i]) <= 4.0 * choice.stderr
        else:  # nothing random: both are the value at the query
            assert choice.stderr == 0
            assert choice.value == pytest.approx(common[i], abs=1e-12)


def test_same_seed_same_decision(problem_and_data: tuple) -> None:
    problem, X, y = problem_and_data
    gp = reference.ReferenceGP.fit(X, y)
    options: dict[str, Any] = {
        "sets": [0, 6],
        "n_samples": 64,
        "n_candidates": 10,
        "n_candidates_full": 50,
    }
    a = reference.reference_decision(gp, problem.task(), seed=5, bound="lcb", **options)
    b = reference.reference_decision(gp, problem.task(), seed=5, bound="lcb", **options)
    assert a.control_set == b.control_set and a.value == b.value
    np.testing.assert_array_equal(a.x, b.x)


def test_bad_input_is_refused(problem_and_data: tuple) -> None:
    problem, X, y = problem_and_data
    gp = reference.ReferenceGP.fit(X, y)
    with pytest.raises(ValueError, match="bound"):
        reference.reference_decision(gp, problem.task(), seed=0, bound="mean")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sets"):
        reference.reference_decision(gp, problem.task(), seed=0, sets=[7])
    with pytest.raises(ValueError, match="shape"):
        reference.ReferenceGP.fit(X, y[:-1])
