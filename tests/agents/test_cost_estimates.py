"""FETC's and the cost-aware EI agent's cost models on hand-made draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.costs.estimates import (
    bernstein_cost_lcb,
    bernstein_width,
    cooling_exponent,
    cost_lcb,
    optimistic_mean_costs,
)

#: Algorithm 1's horizon stand-in on the paper's cheap costs: budget 100 / cheapest mean 0.01.
HORIZON = 100 / 0.01


def draws(mean: float, std: float, n: int, seed: int = 0) -> list[float]:
    """Cost draws as the environment makes them: the mean plus N(0, std), kept positive."""
    rng = np.random.default_rng(seed)
    return list(np.maximum(mean + std * rng.standard_normal(n), 1e-6))


def hoeffding(sets: list[list[float]]) -> np.ndarray:
    sums = np.array([sum(d) for d in sets])
    plays = np.array([len(d) for d in sets])
    return cost_lcb(sums, plays, HORIZON)


def test_bernstein_separates_cheap_sets_where_hoeffding_cannot() -> None:
    # 0.01 is deterministic (the paper adds noise only from 0.1 up); 0.1 has std 0.02
    cheap = [0.01] * 100
    middle = draws(0.1, 0.02, 100)
    lcb = bernstein_cost_lcb([cheap, middle], HORIZON)
    upper_cheap = 0.01 + bernstein_width(cheap, 2 * math.log(HORIZON), None)
    assert lcb[0] == pytest.approx(0.01)  # a set whose draws never vary is known exactly
    assert lcb[1] > upper_cheap  # the intervals no longer overlap after 100 plays
    # Algorithm 1's sqrt(2 log T / n) is still 0.136 wide after 1,000 plays of each
    many = [[0.01] * 1000, draws(0.1, 0.02, 1000)]
    assert hoeffding(many).tolist() == [0.0, 0.0]
    assert bernstein_cost_lcb(many, HORIZON)[1] > 0.08


def test_bernstein_orders_the_full_set_above_a_subset_within_exploration() -> None:
    sets = [draws(0.1, 0.02, 20, seed=1), draws(1.0, 0.02, 20, seed=2)]
    lcb = bernstein_cost_lcb(sets, HORIZON)
    assert lcb[1] > 0.5 and lcb[0] < 0.1


def test_bernstein_is_optimistic_before_two_plays_and_with_a_known_range() -> None:
    assert bernstein_cost_lcb([[], [0.3]], HORIZON).tolist() == [0.0, 0.0]
    sets = [draws(0.5, 0.02, 50)]
    plug_in = bernstein_cost_lcb(sets, HORIZON)[0]
    known = bernstein_cost_lcb(sets, HORIZON, cost_range=1.0)[0]
    assert known <= plug_in <= float(np.mean(sets[0]))
    assert bernstein_width([0.1], 1.0, None) == math.inf


def test_bernstein_lower_bound_holds_on_repeated_samples() -> None:
    # a valid bound (known range) lies below the true mean in (nearly) every sample
    below = [
        bernstein_cost_lcb([draws(0.5, 0.1, 30, seed=s)], 100.0, cost_range=1.0)[0] <= 0.5
        for s in range(200)
    ]
    assert all(below)


def test_bernstein_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="horizon"):
        bernstein_cost_lcb([[0.1, 0.1]], 0.5)
    with pytest.raises(ValueError, match="cost_range"):
        bernstein_width([0.1, 0.2], 1.0, -1.0)


def test_optimistic_mean_costs_fill_unplayed_sets() -> None:
    assert optimistic_mean_costs([[0.2, 0.4], [], [0.1]]).tolist() == pytest.approx([0.3, 0.1, 0.1])
    assert optimistic_mean_costs([[0.2], []], prior=0.05).tolist() == pytest.approx([0.2, 0.05])
    assert optimistic_mean_costs([[], []]).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="prior"):
        optimistic_mean_costs([[0.2]], prior=0.0)


def test_cooling_exponent_falls_from_one_to_zero_with_spend() -> None:
    assert cooling_exponent(0.0, 100.0) == 1.0
    assert cooling_exponent(25.0, 100.0) == 0.75
    assert cooling_exponent(100.0, 100.0) == 0.0
    assert cooling_exponent(120.0, 100.0) == 0.0
    with pytest.raises(ValueError, match="budget"):
        cooling_exponent(0.0, 0.0)
