"""Each decision rule on hand-made inputs, asserting the exact choice."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.costs.estimates import cost_lcb, horizon_estimate
from agents.rules.set_selection import (
    best_set,
    cheapest_feasible,
    cheapest_within_epsilon,
    continue_exploration,
    cvs_epsilon,
    etc50_group,
    feasible_sets,
    full_set,
    halving_alpha,
    intersect_bounds,
    maximal_sets,
    round_robin_set,
    select_s1,
    size_groups,
)
from bocvs_env.problems.registry import SETS_3D, SETS_12D, SETS_AIRFOIL, SETS_PLANT

# --- exploration ---


def test_round_robin_cycles_through_every_set_in_order() -> None:
    assert [round_robin_set(t, 3) for t in range(7)] == [0, 1, 2, 0, 1, 2, 0]


def test_round_robin_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="m must be positive"):
        round_robin_set(0, 0)
    with pytest.raises(ValueError, match="t must be"):
        round_robin_set(-1, 3)


def test_first_cycle_always_explored_even_over_the_cap() -> None:
    # set 2 never played: no cost estimate yet, so the cycle is played whatever was spent
    assert continue_exploration(99.0, np.array([1.0, 1.0, 0.0]), np.array([1, 1, 0]), 100.0)


def test_spend_cap_admits_a_cycle_that_fits_exactly() -> None:
    # mean costs 0.01, 0.1, 1 -> a cycle costs 1.11; cap 0.6 * 10 = 6
    sums, plays = np.array([0.02, 0.2, 2.0]), np.array([2, 2, 2])
    assert continue_exploration(4.89, sums, plays, 10.0, 0.6)  # 4.89 + 1.11 = 6.0
    assert not continue_exploration(4.9, sums, plays, 10.0, 0.6)  # 6.01 > 6


def test_spend_cap_uses_observed_means_not_last_draws() -> None:
    # set 0 drew 0.5 then 1.5 (mean 1.0); a cycle costs 1.0 + 1.0 = 2
    sums, plays = np.array([2.0, 1.0]), np.array([2, 1])
    assert continue_exploration(1.0, sums, plays, 5.0, 0.6)  # 3 <= 3
    assert not continue_exploration(1.5, sums, plays, 5.0, 0.6)


def test_spend_cap_rejects_bad_fraction() -> None:
    with pytest.raises(ValueError, match="explore_fraction"):
        continue_exploration(0.0, np.ones(2), np.ones(2), 1.0, 1.5)


def test_maximal_sets_and_full_set() -> None:
    assert maximal_sets(SETS_12D) == [6]
    assert maximal_sets(SETS_AIRFOIL) == list(range(7))
    assert maximal_sets([(0,), (1,), (0, 1), (2,)]) == [2, 3]
    assert full_set(SETS_3D, 3) == 6
    assert full_set(SETS_AIRFOIL, 5) is None


# --- intersected bounds and S1 ---


def test_intersect_bounds_takes_max_of_lcb_and_min_of_ucb() -> None:
    lcb, ucb = intersect_bounds(1.0, np.array([3.0, 2.0, 5.0]), 1.5, np.array([4.0, 1.0, 2.5]))
    assert lcb == 1.5
    np.testing.assert_array_equal(ucb, [3.0, 1.0, 2.5])
    lcb, _ = intersect_bounds(2.0, np.array([1.0]), 1.5, np.array([1.0]))
    assert lcb == 2.0


def test_intersect_bounds_keeps_bars_where_not_recomputed() -> None:
    _, ucb = intersect_bounds(0.0, np.array([3.0, 2.0]), 0.0, np.array([np.nan, 1.0]))
    np.testing.assert_array_equal(ucb, [3.0, 1.0])


def test_intersect_bounds_starts_from_infinite_bars() -> None:
    lcb, ucb = intersect_bounds(-math.inf, np.full(2, math.inf), 0.3, np.array([1.0, np.nan]))
    assert lcb == 0.3
    np.testing.assert_array_equal(ucb, [1.0, math.inf])


def test_feasible_sets_is_strict() -> None:
    # threshold (1 - 0.1) * 2 = 1.8
    assert feasible_sets(np.array([1.8, 1.81, 3.0, 1.0]), 2.0, 0.1) == [1, 2]
    assert feasible_sets(np.array([1.8, 1.81]), 2.0, 0.0) == []
    with pytest.raises(ValueError, match="alpha"):
        feasible_sets(np.ones(1), 1.0, 1.0)


def test_select_s1_without_reset() -> None:
    choice = select_s1(2.0, np.array([3.0, 2.5, 1.0]), 1.0, np.array([1.7, 2.4, 0.5]), 0.1)
    assert choice.s1 == [1]  # threshold 1.8: ucb_bar = [1.7, 2.4, 0.5]
    assert choice.lcb_bar == 2.0
    np.testing.assert_array_equal(choice.ucb_bar, [1.7, 2.4, 0.5])
    assert not choice.reset


def test_select_s1_resets_when_empty() -> None:
    # old lcb_bar 3 makes every intersected ucb fall short (threshold 2.7) ...
    choice = select_s1(3.0, np.array([2.0, 2.6]), 1.0, np.array([2.5, 0.8]), 0.1)
    # ... so both bars are reset to this round's values: threshold 0.9, ucb [2.5, 0.8]
    assert choice.reset and not choice.fallback
    assert choice.lcb_bar == 1.0
    np.testing.assert_array_equal(choice.ucb_bar, [2.5, 0.8])
    assert choice.s1 == [0]


def test_select_s1_reset_needs_every_set() -> None:
    with pytest.raises(ValueError, match="reset needs"):
        select_s1(3.0, np.array([2.0, 2.6]), 1.0, np.array([2.5, np.nan]), 0.1)


def test_select_s1_falls_back_to_largest_ucb_in_degenerate_case() -> None:
    # lcb_now = 1, alpha = 0, ucb_now all equal to 1: nothing is strictly above
    choice = select_s1(5.0, np.array([1.0, 1.0, 0.5]), 1.0, np.array([1.0, 1.0, 0.5]), 0.0)
    assert choice.reset and choice.fallback
    assert choice.s1 == [0, 1]


# --- cost LCB and S3 ---


def test_horizon_is_budget_over_cheapest_observed_mean() -> None:
    assert horizon_estimate(100.0, np.array([0.02, 0.3, 0.0]), np.array([2, 3, 0])) == 10000.0
    assert horizon_estimate(0.5, np.array([1.0]), np.array([1])) == 1.0
    with pytest.raises(ValueError, match="at least one observed"):
        horizon_estimate(1.0, np.zeros(2), np.zeros(2, dtype=int))


def test_cost_lcb_values() -> None:
    T = math.e**2  # log T = 2, so the width is sqrt(4 / n)
    lcb = cost_lcb(np.array([4.0, 0.5, 1.0, 0.0]), np.array([4, 1, 16, 0]), T)
    # set 0: mean 1, width 1 -> 0; set 1: 0.5 - 2 -> 0; set 2: 1/16 - 0.5 -> 0; set 3 unplayed -> 0
    np.testing.assert_allclose(lcb, [0.0, 0.0, 0.0, 0.0])
    lcb = cost_lcb(np.array([400.0, 10.0]), np.array([100, 100]), T)
    np.testing.assert_allclose(lcb, [3.8, 0.0])  # 4 - 0.2, 0.1 - 0.2 -> 0


def test_s3_keeps_all_ties_and_best_set_breaks_them_by_value() -> None:
    lcbs = np.array([0.0, 0.5, 0.0, 0.0, 0.2])
    s3 = cheapest_feasible([1, 2, 4, 3], lcbs)
    assert s3 == [2, 3]
    assert best_set(s3, np.array([9.0, 9.0, 1.0, 2.0, 9.0])) == 3
    assert best_set([2, 3], np.array([0.0, 0.0, 2.0, 2.0])) == 2  # equal values: lowest index
    assert cheapest_feasible([1, 4], lcbs) == [4]


def test_s3_rejects_empty_s1() -> None:
    with pytest.raises(ValueError, match="S1"):
        cheapest_feasible([], np.zeros(2))


# --- alpha schedule ---


def test_alpha_halves_after_every_d_exploitation_evaluations() -> None:
    d = 3
    got = [halving_alpha(n, 0.1, d) for n in range(8)]
    assert got == [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025]


def test_alpha_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="halve_every"):
        halving_alpha(1, 0.1, 0)
    with pytest.raises(ValueError, match="n_exploit"):
        halving_alpha(-1)


# --- UCB-CVS ---


def test_cvs_epsilon_decreases_linearly_to_zero_at_cutoff() -> None:
    assert [cvs_epsilon(t, 2.0, 4) for t in range(6)] == [2.0, 1.5, 1.0, 0.5, 0.0, 0.0]


def test_cheapest_within_epsilon() -> None:
    values = np.array([1.0, 2.0, 2.9, 3.0])
    costs = np.array([0.01, 0.1, 0.1, 1.0])
    assert cheapest_within_epsilon(values, costs, 2.0) == 0  # 1 + 2 >= 3
    assert cheapest_within_epsilon(values, costs, 1.5) == 2  # sets 1, 2 cost 0.1: larger value
    assert cheapest_within_epsilon(values, costs, 0.2) == 2  # only 2 and 3 within
    assert cheapest_within_epsilon(values, costs, 0.05) == 3  # only 3 within
    assert cheapest_within_epsilon(values, costs, 0.0) == 3


def test_cheapest_within_epsilon_rejects_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="must be equal"):
        cheapest_within_epsilon(np.ones(2), np.ones(3), 0.0)


# --- ETC-50 groups ---


def test_groups_by_size_smallest_first_without_the_full_set() -> None:
    assert size_groups(SETS_12D, 12) == [[0, 1, 2, 3], [4, 5]]
    assert size_groups(SETS_3D, 3) == [[0, 1, 2], [3, 4, 5]]
    assert size_groups(SETS_PLANT, 5) == [[0, 1, 2], [3, 4, 5]]
    assert size_groups([(0, 1, 2), (0,), (1, 2)], 3) == [[1], [2]]


def test_airfoil_is_grouped_by_position() -> None:
    assert size_groups(SETS_AIRFOIL, 5) == [[0, 1, 2], [3, 4, 5]]
    assert size_groups([(0,), (1,), (2,), (3,)], 4, positional_size=2) == [[0, 1], [2, 3]]


def test_etc50_plays_each_group_for_its_rounds_then_hands_over() -> None:
    groups = [[0, 1], [2]]
    assert etc50_group(0, groups, 3) == [0, 1]
    assert etc50_group(2, groups, 3) == [0, 1]
    assert etc50_group(3, groups, 3) == [2]
    assert etc50_group(5, groups, 3) == [2]
    assert etc50_group(6, groups, 3) is None
