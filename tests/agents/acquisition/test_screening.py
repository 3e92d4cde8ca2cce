"""Screening raw candidates: the best by a cheap score, computed only where it can matter."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.acquisition import Bound, ExpectedAcquisition
from agents.acquisition.screening import (
    distinct_best,
    distinct_best_per_owner,
    pruned_top,
    raw_candidates,
    set_candidates,
)
from agents.surrogate import GPSurrogate
from bocvs_env.problems.distributions import TruncatedNormal
from bocvs_env.task import Task

TASK = Task("toy", 4, ((0,), (1, 2), (0, 1, 2, 3)), (TruncatedNormal(0.04),) * 4, budget=10.0)


@pytest.mark.parametrize("bound", ["ucb", "lcb", "mean"])
@pytest.mark.parametrize("lengthscale", [0.05, 0.3])
def test_screening_skips_only_candidates_that_cannot_reach_the_top(
    bound: Bound, lengthscale: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    scored: list[int] = []  # candidates whose variance was computed
    original = GPSurrogate.averaged_moments

    def counted(self: GPSurrogate, A: torch.Tensor, moments: tuple) -> tuple:
        scored.append(A.shape[0])
        return original(self, A, moments)

    monkeypatch.setattr(GPSurrogate, "averaged_moments", counted)
    rng = np.random.default_rng(4)
    X = rng.random((200, 4))
    gp = GPSurrogate(4, lengthscale=lengthscale)
    gp.fit(X, 3.0 * np.exp(-20.0 * ((X - 0.4) ** 2).sum(-1)))
    task = TASK
    acq = ExpectedAcquisition(task, n_samples=64, raw_samples=512, seed=1)
    sets = list(range(task.n_sets))
    idx = [list(task.control_sets[i]) for i in sets]
    raws = [raw_candidates(acq.inputs, i, acq.raw_samples, acq.seed, gp.train_X) for i in sets]
    estimator = acq.estimator(gp, bound, 2.0)
    with torch.no_grad():
        tops = estimator.top(sets, idx, raws, 8)
        n_scored = sum(scored)
        scores = estimator.screen(
            [(i, estimator.embed(ix, Z)) for i, ix, Z in zip(sets, idx, raws, strict=True)]
        )
    for top, score in zip(tops, scores, strict=True):
        best = score.topk(8)
        assert torch.equal(top.indices, best.indices) and torch.equal(top.scores, best.values)
    # the variance (the O(n^2) part) was computed for a minority of the candidates (the mean
    # needs none)
    if bound == "mean":
        assert n_scored == 0
    else:
        assert 0 < n_scored < sum(r.shape[0] for r in raws) / 2


def test_pruned_top_equals_scoring_everything() -> None:
    gen = torch.Generator().manual_seed(0)
    scores = torch.rand(1000, dtype=torch.float64, generator=gen)
    upper = scores + torch.rand(1000, dtype=torch.float64, generator=gen) * 0.01
    asked: list[int] = []

    def score(rows: torch.Tensor) -> torch.Tensor:
        asked.append(rows.numel())
        return scores[rows]

    top, best = pruned_top(upper, score, 5), scores.topk(5)
    assert torch.equal(top.indices, best.indices) and torch.equal(top.scores, best.values)
    assert sum(asked) < 1000


def test_raw_candidates_end_with_the_recent_observed_inputs() -> None:
    acq = ExpectedAcquisition(TASK, n_samples=16, raw_samples=4)
    train_X = torch.rand(50, 4, dtype=torch.float64)
    raws = raw_candidates(acq.inputs, 1, 4, 0, train_X)  # set (1, 2): 4 Sobol points
    assert raws.shape == (8, 2)
    torch.testing.assert_close(raws[4:], train_X[-4:, [1, 2]])
    assert raw_candidates(acq.inputs, 1, 4, 0, None).shape == (4, 2)


def test_polishing_skips_starts_that_converged_to_the_same_point() -> None:
    points = [np.array([0.2, 0.2]), np.array([0.2, 0.2 + 1e-5]), np.array([0.7, 0.1])]
    points.append(np.array([0.9, 0.9]))
    minus_values = [-3.0, -3.1, -2.0, -1.0]
    assert distinct_best([0, 1, 2, 3], points, minus_values, limit=2) == [1, 2]
    assert distinct_best([0, 1, 2, 3], points, minus_values, limit=4) == [1, 2, 3]
    assert distinct_best([0, 2], points, minus_values, limit=4) == [0, 2]


def test_each_owner_keeps_its_own_distinct_best() -> None:
    points = [np.array([0.2]), np.array([0.2]), np.array([0.6]), np.array([0.9]), np.array([0.1])]
    owners = [1, 1, 1, 0, 0]
    minus_values = [-1.0, -2.0, -0.5, -0.1, -0.3]
    # owner 0 first: 4 before 3; owner 1: 1, then 2 (0 duplicates 1)
    assert distinct_best_per_owner(owners, points, minus_values, limit=2) == [4, 3, 1, 2]


def test_candidates_are_seeded_sobol_points_then_the_observed_values_of_the_sets_variables() -> (
    None
):
    observed = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    Z = set_candidates([0, 2], 8, seed=3, observed=observed)
    assert Z.shape == (10, 2) and Z.dtype == torch.float64
    assert (
        bool(((Z[:8] >= 0) & (Z[:8] <= 1)).all()) and len({tuple(z) for z in Z[:8].tolist()}) == 8
    )
    assert Z[8:].tolist() == [[0.1, 0.3], [0.4, 0.6]]
    assert torch.equal(Z, set_candidates([0, 2], 8, seed=3, observed=observed))
    assert not torch.equal(Z[:8], set_candidates([0, 2], 8, seed=4, observed=observed)[:8])
