"""The one L-BFGS-B driver (agents.acquisition.optimize): multi-start in lockstep, each start
SciPy's own optimizer, evaluated in batches."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.optimize import OptimizeResult, minimize

from agents.acquisition import optimize
from agents.acquisition.optimize import batched_lbfgsb

CENTRES = [np.array([0.2]), np.array([0.9, 0.4]), np.array([1.7, -3.0, 0.5])]


def quadratics(calls: list[list[int]]):
    def values_and_grads(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        calls.append(list(active))
        return [
            (float(((z - CENTRES[p]) ** 2).sum()), 2 * (z - CENTRES[p]))
            for p, z in zip(active, Z, strict=True)
        ]

    return values_and_grads


def test_batched_lbfgsb_solves_each_problem_on_its_own() -> None:
    calls: list[list[int]] = []
    out, values = batched_lbfgsb(quadratics(calls), [np.full(c.size, 0.5) for c in CENTRES])
    for x, v, c in zip(out, values, CENTRES, strict=True):
        np.testing.assert_allclose(x, np.clip(c, 0.0, 1.0), atol=1e-8)
        assert v == pytest.approx(float(((x - c) ** 2).sum()), abs=1e-12)
    # lockstep: one batched call per round, problems drop out on their own
    assert calls[0] == [0, 1, 2]
    assert len(calls[-1]) < 3


def test_every_start_follows_scipys_iterates_exactly() -> None:
    """A start in a batch gives bit for bit what ``scipy.optimize.minimize`` gives it alone."""

    def rosenbrock(z: np.ndarray) -> tuple[float, np.ndarray]:
        a, b = z[0] * 3 - 1, z[1] * 3 - 1
        f = (1 - a) ** 2 + 100 * (b - a * a) ** 2
        grad = np.array([(-2 * (1 - a) - 400 * a * (b - a * a)) * 3, 200 * (b - a * a) * 3])
        return float(f), grad

    starts = [np.array([0.1, 0.9]), np.array([0.5, 0.2]), np.array([0.95, 0.05])]
    out, values = batched_lbfgsb(lambda active, Z: [rosenbrock(z) for z in Z], starts, maxiter=15)
    for x0, x, v in zip(starts, out, values, strict=True):
        alone = minimize(
            rosenbrock,
            x0,
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, 1.0)] * 2,
            options={"maxiter": 15},
        )
        assert np.array_equal(x, alone.x) and v == alone.fun


def test_the_value_returned_is_the_returned_points_not_the_last_evaluated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """L-BFGS-B may end on a rejected line-search trial (e.g. at its iteration limit): its
    result is the best accepted point, and the value returned with it must be that point's."""

    def ends_after_a_rejected_trial(fun, x0, **kwargs):
        at_start, _ = fun(x0)
        fun(np.clip(x0 + 0.3, 0.0, 1.0))  # a trial that does not improve; rejected
        return OptimizeResult(x=x0, fun=at_start)

    monkeypatch.setattr(optimize, "minimize", ends_after_a_rejected_trial)
    starts = [np.array([0.2]), np.array([0.9, 0.4])]
    out, values = batched_lbfgsb(quadratics([]), starts)
    for x0, x, v, c in zip(starts, out, values, CENTRES[:2], strict=True):
        assert np.array_equal(x, x0) and v == float(((x0 - c) ** 2).sum())


def count_finished_optimizers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record how every start's ``minimize`` ends: ``"returned"`` or the exception's name."""
    ends: list[str] = []

    def recorded(*args, **kwargs):
        try:
            out = minimize(*args, **kwargs)
        except BaseException as err:
            ends.append(type(err).__name__)
            raise
        ends.append("returned")
        return out

    monkeypatch.setattr(optimize, "minimize", recorded)
    return ends


def test_an_error_in_the_objective_stops_every_start_and_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ends = count_finished_optimizers(monkeypatch)
    calls: list[list[int]] = []

    def failing(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        calls.append(active)
        raise RuntimeError("posterior failed")

    with pytest.raises(RuntimeError, match="posterior failed"):
        batched_lbfgsb(failing, [np.full(2, 0.5) for _ in range(4)])
    assert calls == [[0, 1, 2, 3]]
    assert len(ends) == 4 and "returned" not in ends  # every start unwound, none left suspended


def test_an_error_in_one_optimizer_stops_the_others_and_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ends = count_finished_optimizers(monkeypatch)

    def bad_gradient(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, Any]]:
        return [
            (float(z @ z), "not a gradient" if p == 1 else 2 * z)
            for p, z in zip(active, Z, strict=True)
        ]

    with pytest.raises(ValueError, match="could not convert"):
        batched_lbfgsb(bad_gradient, [np.full(2, 0.5) for _ in range(3)])
    assert len(ends) == 3 and "returned" not in ends


def test_no_problems_need_no_evaluation() -> None:
    assert batched_lbfgsb(lambda active, Z: [], []) == ([], [])


def test_a_short_batch_of_results_is_an_error_not_a_hang() -> None:
    with pytest.raises(ValueError, match="1 results for 2 points"):
        batched_lbfgsb(lambda active, Z: [(0.0, np.zeros(1))], [np.zeros(1), np.zeros(1)])


def test_every_point_evaluated_and_returned_is_within_the_unit_cube() -> None:
    """The centres lie outside ``[0, 1]`` in some coordinates: the optimum is on the boundary."""
    seen: list[np.ndarray] = []

    def watched(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        seen.extend(Z)
        return quadratics([])(active, Z)

    starts = [np.full(c.size, 0.5) for c in CENTRES]
    out, _ = batched_lbfgsb(watched, starts)
    assert seen and all(((z >= 0.0) & (z <= 1.0)).all() for z in [*seen, *out])
    np.testing.assert_allclose(out[2], [1.0, 0.0, 0.5], atol=1e-8)


def test_a_known_quadratic_optimum_is_found_from_every_start() -> None:
    """``f(z) = (z - c)^T A (z - c)`` with an ill-conditioned ``A``: minimum 0 at ``c``."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    A = Q @ np.diag([1.0, 3.0, 10.0, 30.0, 100.0]) @ Q.T
    c = np.array([0.2, 0.45, 0.7, 0.35, 0.6])

    def bowl(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        return [(float((z - c) @ A @ (z - c)), 2 * A @ (z - c)) for z in Z]

    starts = [rng.random(5) for _ in range(6)]
    out, values = batched_lbfgsb(bowl, starts, maxiter=200)
    assert len(out) == len(values) == len(starts)
    for x, v in zip(out, values, strict=True):
        np.testing.assert_allclose(x, c, atol=1e-4)  # SciPy's default tolerances
        assert 0.0 <= v < 1e-8 and v == pytest.approx(float((x - c) @ A @ (x - c)), abs=1e-15)


@pytest.mark.parametrize("batch_limit", [1, 2, 5])
def test_batches_change_neither_a_starts_iterates_nor_its_order(batch_limit: int) -> None:
    """Every start is reported, in order, with what it gives in one batch of all; no evaluation
    holds more than ``batch_limit`` points."""
    calls: list[list[int]] = []
    starts = [np.array([0.1]), np.array([0.3, 0.8]), np.array([0.9, 0.1, 0.2])]
    together = batched_lbfgsb(quadratics([]), starts)
    limited = batched_lbfgsb(quadratics(calls), starts, batch_limit=batch_limit)
    assert all(len(active) <= batch_limit for active in calls)
    assert sorted({p for active in calls for p in active}) == [0, 1, 2]
    for x, y in zip(together[0], limited[0], strict=True):
        assert np.array_equal(x, y)
    assert together[1] == limited[1]


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError), (1.5, TypeError)])
def test_a_batch_limit_that_is_not_a_positive_integer_is_refused(
    bad: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match="batch_limit"):
        batched_lbfgsb(quadratics([]), [np.zeros(1)], batch_limit=bad)  # type: ignore[arg-type]
