"""Valuing only the points that can beat a value already reached (agents/acquisition/best.py)
and the GP estimator's upper bound behind it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.acquisition import Bound, ExpectedAcquisition
from agents.surrogate import GPSurrogate
from tests.agents.acquisition.test_expected import fitted_gp, make_task


def queries(count: int, seed: int = 1) -> torch.Tensor:
    return torch.as_tensor(np.random.default_rng(seed).random((count, 4)))


@pytest.mark.parametrize("bound", ["ucb", "lcb", "mean"])
def test_the_gp_upper_bound_is_above_the_expectation(bound: Bound) -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=64, seed=2)
    estimator = acq.estimator(fitted_gp(), bound, 2.0)
    X = queries(200)
    parts = [(i, X) for i in range(task.n_sets)]
    with torch.no_grad():
        uppers = estimator.upper(parts)
        assert uppers is not None  # a fitted GP has an upper bound
        for exact, upper in zip(estimator.value(parts), uppers, strict=True):
            assert bool((upper >= exact).all())
            if bound == "mean":  # the same quantity, up to rounding and the slack
                assert torch.allclose(upper, exact, atol=1e-5)


def test_the_prior_has_no_upper_bound_to_skip_by() -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=16)
    estimator = acq.estimator(GPSurrogate(4), "ucb")
    assert estimator.upper([(0, queries(3))]) is None


@pytest.mark.parametrize("bound", ["ucb", "lcb"])
def test_expected_above_values_every_point_that_reaches_its_floor(bound: Bound) -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=64, seed=2)
    gp = fitted_gp()
    X = queries(300)
    parts = [(i, X) for i in range(task.n_sets)]
    with torch.no_grad():
        exact = acq.estimator(gp, bound, 2.0).value(parts)
    floors = [float(v.quantile(0.8)) for v in exact]
    got = acq.expected_above(gp, parts, floors, bound, 2.0)
    skipped = 0
    for v, g, floor in zip(exact, got, floors, strict=True):
        valued = torch.isfinite(g)
        assert bool(valued[v >= floor].all())  # nothing that reaches the floor is skipped
        assert torch.allclose(g[valued], v[valued], rtol=1e-12, atol=1e-12)
        assert int(v.argmax()) == int(g.argmax())  # the first maximum stays where it was
        skipped += int((~valued).sum())
    if bound == "ucb":  # Jensen's bound is tight enough here to skip most points
        assert skipped > 300


def test_expected_above_without_a_floor_values_everything() -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=32)
    gp = fitted_gp()
    X = queries(5)
    got = acq.expected_above(gp, [(1, X), (2, X[:2])], [-np.inf, -np.inf])
    with torch.no_grad():
        want = [acq.expected(gp, 1, X), acq.expected(gp, 2, X[:2])]
    for g, w in zip(got, want, strict=True):
        assert torch.allclose(g, w, rtol=1e-12, atol=1e-12)


def test_a_point_given_twice_is_valued_once(monkeypatch: pytest.MonkeyPatch) -> None:
    task = make_task()
    acq = ExpectedAcquisition(task, n_samples=32)
    gp = fitted_gp()
    X = queries(3)
    twice = torch.cat([X, X[:2]])
    rows: list[int] = []
    estimator = acq.estimator(gp, "ucb")
    original = type(estimator).value

    def counted(self: object, parts: list, n_samples: int | None = None) -> list:
        rows.extend(int(Z.shape[0]) for _, Z in parts)
        return original(self, parts, n_samples)  # type: ignore[arg-type]

    monkeypatch.setattr(type(estimator), "value", counted)
    got = acq.expected_above(gp, [(1, twice)], [-np.inf])[0]
    assert rows == [3]
    assert torch.equal(got[3:], got[:2])
    with torch.no_grad():
        assert torch.allclose(got[:3], acq.expected(gp, 1, X), rtol=1e-12, atol=1e-12)
