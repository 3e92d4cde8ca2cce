"""Exact budget accounting: a play is refused only when its drawn cost exceeds what is left."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bocvs_env import BOCVSEnv, make_problem
from bocvs_env.budget import Ledger, cumulative_spend, exact
from bocvs_env.problems.costs import GaussianCost


def _constant_cost_env(cost: float, budget: float) -> BOCVSEnv:
    """Hartmann-3 whose seven sets all cost exactly ``cost``."""
    costs = GaussianCost([cost] * 7, noise_std=0.0)
    problem = make_problem("hartmann3", budget=budget, cost_model=costs, n_initial=0)
    return BOCVSEnv(problem, privileged_info=False)


def _evaluations(env: BOCVSEnv) -> tuple[int, dict]:
    env.reset(seed=0)
    n = 0
    while True:
        _, _, terminated, _, info = env.step({"control_set": 0, "x": np.zeros(3)})
        if terminated:
            return n, info
        n += 1


@pytest.mark.parametrize(("cost", "budget", "plays"), [(0.01, 1.0, 100), (0.1, 0.3, 3)])
def test_a_cost_that_fits_exactly_is_paid(cost: float, budget: float, plays: int) -> None:
    """Why the accounting is exact: a running float sum with ``cost > budget - spent`` paid only
    99 plays of 0.01 from a budget of 1 and 2 of 0.1 from 0.3."""
    n, info = _evaluations(_constant_cost_env(cost, budget))
    assert n == plays
    assert info["spent"] == budget and not info["evaluated"]
    assert info["cost_drawn"] == cost


def test_ledger_pays_what_fits_and_refuses_the_rest() -> None:
    ledger = Ledger(0.3)
    for _ in range(3):
        assert ledger.fits(0.1)
        ledger.pay(0.1)
    assert ledger.spent == 0.3 and ledger.remaining == 0.0
    assert not ledger.fits(5e-324)
    with pytest.raises(ValueError, match="exceeds"):
        ledger.pay(1e-9)
    with pytest.raises(ValueError, match="finite"):
        exact(float("inf"))


def test_cumulative_spend_is_exact_and_never_above_the_total() -> None:
    costs = np.full(100, 0.01)
    assert np.cumsum(costs)[-1] > 1.0  # the float running sum overshoots
    spend = cumulative_spend(costs)
    assert spend[-1] == 1.0 and spend.shape == (100,)
    assert spend[9] == 0.1 and np.all(np.diff(spend) > 0)
    assert exact(0.01) == Fraction(1, 100)
