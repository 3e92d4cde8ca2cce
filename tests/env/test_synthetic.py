import math

import pytest
import torch
from botorch.test_functions.synthetic import Ackley, Hartmann, Levy

from bocvs_env.goal import GoalEvaluator
from bocvs_env.problems import make_problem
from bocvs_env.problems.synthetic import (
    ACKLEY_SHIFT,
    LEVY6_SHIFT,
    ackley6_12d,
    hartmann3,
    hartmann6_12d,
    levy6_12d,
)

X12 = torch.rand(2000, 12, dtype=torch.float64, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize(
    ("objective", "reference", "lo", "hi", "shift"),
    [
        (hartmann6_12d(), Hartmann(dim=6), 0.0, 1.0, 0.0),
        (ackley6_12d(), Ackley(dim=6), -32.768, 32.768, ACKLEY_SHIFT),
        (levy6_12d(), Levy(dim=6), -10.0, 10.0, LEVY6_SHIFT),
    ],
)
def test_matches_botorch_negated_and_shifted(objective, reference, lo, hi, shift) -> None:
    expected = -reference.evaluate_true(lo + X12[:, :6] * (hi - lo)) + shift
    assert torch.allclose(objective(X12), expected, atol=1e-10)
    assert objective.shift == shift
    assert (objective(X12) >= 0).all()


def test_hartmann3_matches_botorch() -> None:
    X = X12[:, :3]
    assert torch.allclose(hartmann3()(X), -Hartmann(dim=3).evaluate_true(X), atol=1e-12)


def test_inert_dimensions_do_nothing() -> None:
    f = hartmann6_12d()
    Y = X12.clone()
    Y[:, 6:] = torch.rand(2000, 6, dtype=torch.float64)
    assert torch.equal(f(X12), f(Y))


def test_shift_bounds_hold_at_worst_points() -> None:
    # Ackley's maximum is near the corners; Levy's is separable in each coordinate.
    corner = torch.full((1, 12), 0.0, dtype=torch.float64)
    assert ackley6_12d()(corner).item() >= 0
    assert ACKLEY_SHIFT == pytest.approx(20 + math.e - math.exp(-1))
    assert levy6_12d()(torch.rand(100_000, 12, dtype=torch.float64)).min() >= 0


def test_full_set_oracle_is_hartmann6_optimum() -> None:
    problem = make_problem("hartmann6_12d")
    value, _ = GoalEvaluator(problem).maximize(6)
    assert abs(value - 3.32237) < 1e-4
    assert problem.objective.optimal_value is not None
    assert abs(value - problem.objective.optimal_value) < 1e-4
