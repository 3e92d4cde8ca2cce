import numpy as np
import pytest

from bocvs_env.problems.costs import (
    COST_SETS,
    GaussianCost,
    LogNormalCost,
    cost_model_from_name,
)


def test_paper_rule_exact_below_threshold_noisy_above() -> None:
    model = cost_model_from_name("cheap")
    rng = np.random.default_rng(0)
    assert {model.sample(0, rng) for _ in range(50)} == {0.01}
    draws = np.array([model.sample(6, rng) for _ in range(5000)])
    assert abs(draws.mean() - 1.0) < 2e-3
    assert abs(draws.std() - 0.02) < 2e-3
    noisy_01 = np.array([model.sample(3, rng) for _ in range(2000)])
    assert noisy_01.std() > 0.015  # the rule applies at exactly 0.1


def test_draws_stay_strictly_positive() -> None:
    model = GaussianCost([0.1], noise_std=1.0)
    rng = np.random.default_rng(1)
    draws = np.array([model.sample(0, rng) for _ in range(2000)])
    assert draws.min() > 0


def test_lognormal_mean_and_positivity() -> None:
    model = LogNormalCost([0.5, 2.0], sigma=0.8)
    rng = np.random.default_rng(2)
    draws = np.array([model.sample(1, rng) for _ in range(100_000)])
    assert draws.min() > 0 and abs(draws.mean() - 2.0) < 0.03


def test_cost_sets_have_seven_means() -> None:
    assert all(len(v) == 7 for v in COST_SETS.values())


@pytest.mark.parametrize("means", [[], [0.1, 0.0], [0.1, -1.0], [float("nan")]])
def test_bad_means_rejected(means: list[float]) -> None:
    with pytest.raises(ValueError, match="cost means"):
        GaussianCost(means)


def test_unknown_cost_set() -> None:
    with pytest.raises(ValueError, match="unknown cost set 'pricey'"):
        cost_model_from_name("pricey")
