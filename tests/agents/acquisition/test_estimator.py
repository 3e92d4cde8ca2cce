"""The estimator of E[.] is chosen once per call, and every estimator gives the same expectation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.acquisition import Bound, ExpectedAcquisition
from agents.acquisition.closed_form import GPClosedForm
from agents.acquisition.sampled import PathAverage, SampleAverage
from agents.surrogate import GPSurrogate
from bocvs_env.problems.distributions import TruncatedNormal
from bocvs_env.task import Task

TASK = Task("toy", 4, ((0,), (1, 2), (0, 1, 2, 3)), (TruncatedNormal(0.04),) * 4, budget=10.0)


def fitted_gp() -> GPSurrogate:
    X = np.random.default_rng(1).random((25, 4))
    gp = GPSurrogate(4, lengthscale=0.3)
    gp.fit(X, np.sin(3.0 * X).sum(-1))
    return gp


class Flat:
    """A posterior without the GP's structure."""

    def mean_std(self, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return X.sum(-1), torch.ones(X.shape[:-1], dtype=X.dtype)


def test_the_estimator_is_chosen_by_surrogate_and_score() -> None:
    acq = ExpectedAcquisition(TASK, n_samples=16)
    gp = fitted_gp()
    path = gp.sample_paths(1, torch.Generator().manual_seed(0))
    assert isinstance(acq.estimator(gp, "ucb"), GPClosedForm)
    assert isinstance(acq.estimator(gp, path), PathAverage)
    assert isinstance(acq.estimator(gp, lambda Z: path(Z)), SampleAverage)
    assert isinstance(acq.estimator(Flat(), "lcb"), SampleAverage)
    with pytest.raises(ValueError, match="bound must be"):
        acq.estimator(gp, "upper")  # type: ignore[arg-type]


@pytest.mark.parametrize("bound", ["ucb", "lcb", "mean"])
def test_the_closed_form_equals_the_sample_average_of_the_same_gp(bound: Bound) -> None:
    acq = ExpectedAcquisition(TASK, n_samples=32)
    gp = fitted_gp()
    X = torch.rand(5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    parts = [(i, X) for i in range(TASK.n_sets)]
    closed = acq.estimator(gp, bound, 1.5).value(parts)
    sampled = SampleAverage(acq.inputs, gp, bound, 1.5, screen_samples=8).value(parts)
    for c, s in zip(closed, sampled, strict=True):
        torch.testing.assert_close(c, s, atol=1e-10, rtol=0)


def test_the_gp_plans_pre_refinement_and_the_others_do_not() -> None:
    acq = ExpectedAcquisition(TASK, n_samples=16, n_polish=3)
    gp = fitted_gp()
    plan = acq.estimator(gp, "ucb").plan(3)
    assert plan.pre_refine and plan.n_polish == 3 and plan.groups == [[0, 1, 2]]
    other = acq.estimator(Flat(), "ucb").plan(3)
    assert not other.pre_refine and other.n_polish is None and other.groups == [[0, 1, 2]]
    off = ExpectedAcquisition(TASK, n_samples=16, pre_refine=False).estimator(gp, "ucb").plan(3)
    assert not off.pre_refine and off.n_polish is None
