"""FETC's spend-balanced exploration allocation."""

from __future__ import annotations

import numpy as np
import pytest

from agents.costs.allocation import exploration_fits, spend_balanced_set
from agents.rules.set_selection import round_robin_set

CHEAP = np.array([0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0])  # the paper's cheap cost set


def allocate(costs: np.ndarray, exponent: float, rounds: int) -> np.ndarray:
    plays = np.zeros(costs.size, dtype=np.int64)
    order = []
    for _ in range(rounds):
        i = spend_balanced_set(plays, costs, exponent)
        plays[i] += 1
        order.append(i)
    return np.array(order)


def test_exponent_zero_is_etc_round_robin() -> None:
    order = allocate(CHEAP, 0.0, 21)
    assert order.tolist() == [round_robin_set(t, 7) for t in range(21)]


def test_exponent_one_balances_spend_not_count() -> None:
    order = allocate(CHEAP, 1.0, 2000)
    spend = np.bincount(order, minlength=7) * CHEAP
    assert spend.max() - spend.min() <= 1.0  # within one play of the costliest set
    # round-robin would put 1.0 of every 1.33 on the full set
    assert spend[6] / spend.sum() < 0.2


def test_square_root_rule_spends_in_proportion_to_sqrt_cost() -> None:
    order = allocate(CHEAP, 0.5, 3000)
    spend = np.bincount(order, minlength=7) * CHEAP
    share = spend / spend.sum()
    expected = np.sqrt(CHEAP) / np.sqrt(CHEAP).sum()
    assert share == pytest.approx(expected, abs=0.02)


def test_unplayed_sets_first_and_only_eligible_sets() -> None:
    plays = np.array([3, 0, 5, 0])
    costs = np.array([0.1, 1.0, 0.1, 1.0])
    assert spend_balanced_set(plays, costs, 1.0) == 1
    assert spend_balanced_set(np.array([3, 1, 5, 1]), costs, 1.0, eligible=[0, 2]) == 0
    with pytest.raises(ValueError, match="eligible"):
        spend_balanced_set(plays, costs, 1.0, eligible=[])
    with pytest.raises(ValueError, match="exponent"):
        spend_balanced_set(plays, costs, 2.0)


def test_exploration_fits_the_share_of_the_budget() -> None:
    assert exploration_fits(59.0, 1.0, 100.0, 0.6)
    assert not exploration_fits(59.5, 1.0, 100.0, 0.6)


def test_cheapest_acceptable_asks_only_the_cheap_levels() -> None:
    from agents.costs.allocation import cheapest_acceptable

    ucb = {0: 1.0, 1: 3.0, 2: 2.9, 3: 3.3}
    asked: list[list[int]] = []

    def ucb_of(sets: list[int]) -> dict[int, float]:
        asked.append(sets)
        return {i: ucb[i] for i in sets}

    lcbs = np.array([0.0, 0.05, 0.05, 0.5])
    s3, values = cheapest_acceptable(lcbs, 2.7, ucb_of)
    assert s3 == [1, 2]  # set 0 is cheaper but below the threshold
    assert asked == [[0], [1, 2]] and 3 not in values  # the costliest set was never maximized
    # the same S3 as from the whole S1
    s1 = [i for i in ucb if ucb[i] > 2.7]
    low = min(lcbs[i] for i in s1)
    assert s3 == [i for i in s1 if lcbs[i] == low]
    # nothing above the threshold: the sets of largest UCB
    assert cheapest_acceptable(lcbs, 5.0, ucb_of)[0] == [3]
