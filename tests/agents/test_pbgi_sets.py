"""The Pandora's-box Gittins index over control sets: the index's root and gradients, the
optimistic cost bounds, lambda's decay, the choice of the set of higher value per cost, and
whole episodes."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
import torch

from agents.acquisition.gittins import gittins_index, inverse_ei_helper, log_ei_helper
from agents.costs.estimates import optimistic_cost_bounds
from agents.expected_posterior import expected_improvement
from agents.policies.pbgi_sets import PBGISetsAgent
from bocvs_env.env import BOCVSEnv
from bocvs_env.problems import CallableObjective, GaussianCost, Problem, TruncatedNormal
from tests.agents.test_agents import FAST, play


def f64(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def cheap_set_problem(budget: float = 0.8) -> Problem:
    """Two one-variable sets and the full set, deterministic costs; ``f`` depends on ``x0``
    alone, so the cheapest set, which controls it, reaches the best value."""
    objective = CallableObjective(
        lambda X: torch.exp(-((X[..., 0] - 0.3) ** 2) / 0.1), dim=2, lower_bound=0.0, name="x0"
    )
    return Problem(
        objective=objective,
        control_sets=((0,), (1,), (0, 1)),
        distributions=(TruncatedNormal(0.04), TruncatedNormal(0.04)),
        cost_model=GaussianCost([0.02, 0.1, 0.5], noise_std=0.0),
        budget=budget,
        n_initial=3,
    )


@pytest.mark.parametrize("price", [1e-200, 1e-8, 0.01, 0.3, 2.0, 50.0])
@pytest.mark.parametrize(("mean", "std"), [(0.0, 1.0), (3.0, 0.05), (-2.0, 4.0)])
def test_the_index_is_the_root_of_ei_equal_to_the_price(
    mean: float, std: float, price: float
) -> None:
    g = gittins_index(f64(mean), f64(std), price)
    ei = expected_improvement(f64(mean), f64(std), float(g))
    if price > 1e-100:  # below, EI underflows before the root does
        assert float(ei) == pytest.approx(price, rel=1e-8)
    assert torch.isfinite(g).all()


def test_the_root_matches_a_bisection_over_the_whole_range() -> None:
    ratios = np.logspace(-300, 3, 400)
    z = inverse_ei_helper(ratios)
    low, high = np.full_like(ratios, -40.0), ratios + 1.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        above = log_ei_helper(mid) > np.log(ratios)
        high, low = np.where(above, mid, high), np.where(above, low, mid)
    assert np.allclose(z, 0.5 * (low + high), rtol=1e-9, atol=1e-9)


def test_the_index_gradients_are_one_in_the_mean_and_the_mills_ratio_in_the_std() -> None:
    mean = torch.tensor([0.4], dtype=torch.float64, requires_grad=True)
    std = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    g = gittins_index(mean, std, 0.02)
    g.sum().backward()
    assert mean.grad is not None and std.grad is not None
    assert float(mean.grad) == pytest.approx(1.0)
    eps = 1e-6
    up = gittins_index(f64(0.4), f64(0.3 + eps), 0.02)
    down = gittins_index(f64(0.4), f64(0.3 - eps), 0.02)
    assert float(std.grad) == pytest.approx(float(up - down) / (2 * eps), rel=1e-5)


def test_a_cheaper_box_of_the_same_value_has_the_larger_index() -> None:
    prices = f64(0.001, 0.01, 0.1, 1.0)
    g = gittins_index(f64(0, 0, 0, 0), f64(1, 1, 1, 1), prices)
    assert torch.all(g[:-1] > g[1:])


def test_the_index_refuses_a_price_that_is_not_positive() -> None:
    with pytest.raises(ValueError, match=r"price must be positive and finite, got 0\.0"):
        gittins_index(f64(0.0), f64(1.0), 0.0)


def test_cost_bounds_are_optimistic_zero_unplayed_and_the_mean_without_width() -> None:
    draws = [[], [0.5], [0.9, 1.1, 1.0, 1.0]]
    bounds = optimistic_cost_bounds(draws, z=2.0)
    assert bounds[0] == 0.0  # never played: the least a cost can be
    assert bounds[1] == 0.5  # one draw: no spread seen
    assert 0.0 < bounds[2] < 1.0  # below the running mean
    assert optimistic_cost_bounds(draws, z=0.0)[2] == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"z must be >= 0 and finite, got -1\.0"):
        optimistic_cost_bounds(draws, z=-1.0)


def test_prices_are_relative_to_the_costliest_set_and_rank_the_cheaper_set_first() -> None:
    agent = PBGISetsAgent(**FAST)
    env = BOCVSEnv(cheap_set_problem(), privileged_info=False)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, info, seed=0)
    prices = agent.prices(np.array([0.02, 0.1, 0.5]))
    scale = agent.surrogate.hyper.y_scale
    assert prices.tolist() == pytest.approx([0.1 * scale * c / 0.5 for c in (0.02, 0.1, 0.5)])
    # the same posterior of the value, a fifth of the price: the larger index
    g = gittins_index(f64(0, 0), f64(0.2, 0.2), torch.as_tensor(prices[:2]))
    assert g[0] > g[1]


def test_unplayed_sets_are_priced_at_zero_cost_and_the_cheap_set_of_best_value_leads() -> None:
    agent = PBGISetsAgent(**FAST, hold=None)
    actions = play(BOCVSEnv(cheap_set_problem(), privileged_info=False), agent, seed=0)
    log = agent.diagnostics()
    assert log[0]["cost"] == [0.0, 0.0, 0.0]
    plays = np.bincount([i for i, _ in actions], minlength=3)
    assert plays[0] > plays[1] + plays[2]


def test_lambda_is_halved_exactly_when_the_played_index_falls_below_the_incumbent() -> None:
    for decay in (2.0, 1.0):
        agent = PBGISetsAgent(**FAST, hold=None, decay=decay, lmbda=1.0)
        play(BOCVSEnv(cheap_set_problem(), privileged_info=False), agent, seed=0)
        log = agent.diagnostics()
        for before, after in itertools.pairwise(log):
            expected = before["lmbda"] / decay if before["decayed"] else before["lmbda"]
            assert after["lmbda"] == pytest.approx(expected)
            assert before["decayed"] == (max(before["index"]) < before["incumbent"])
        if decay == 2.0:
            assert any(e["decayed"] for e in log) and log[-1]["lmbda"] < 1.0
        else:
            assert all(e["lmbda"] == 1.0 for e in log)


@pytest.mark.parametrize("distinct", [True, False])
def test_a_held_decision_replays_distinct_queries_only_with_distinct_replays(
    distinct: bool,
) -> None:
    agent = PBGISetsAgent(**FAST, hold=0.1, distinct_replays=distinct)
    actions = play(BOCVSEnv(cheap_set_problem(), privileged_info=False), agent, seed=0)
    assert len(agent.diagnostics()) < len(actions)  # some plays were replays
    cheap = [tuple(x[:1]) for i, x in actions if i == 0]
    assert (len(set(cheap)) > len(agent.diagnostics())) == distinct


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"lmbda": 0.0}, "lmbda must be positive and finite"),
        ({"decay": 0.5}, r"decay must be >= 1 and finite, got 0\.5"),
        ({"cost_z": -1.0}, r"cost_z must be >= 0 and finite, got -1\.0"),
    ],
)
def test_bad_rules_are_refused_naming_the_value(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PBGISetsAgent(**params)
