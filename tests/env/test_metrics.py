import numpy as np
import pytest

from bocvs_env import metrics
from bocvs_env.evaluation import EpisodeRecord


def _record() -> EpisodeRecord:
    # 3 sets: oracle values 1.0, 0.95, 2.0 with mean costs 0.1, 0.5, 1.0; g* = 2.
    return EpisodeRecord(
        problem="toy",
        agent="hand",
        seed=0,
        control_set=np.array([0, 2, 1, 2]),
        x=np.zeros((4, 2)),
        y=np.zeros(4),
        cost=np.array([0.1, 1.0, 0.5, 1.0]),
        g=np.array([0.5, 1.5, 0.9, 1.8]),
        set_max=np.array([1.0, 0.95, 2.0]),
        cost_means=np.array([0.1, 0.5, 1.0]),
        budget=3.0,
    )


def test_target_sets() -> None:
    t = metrics.target(np.array([1.0, 1.9, 2.0]), np.array([0.1, 0.5, 1.0]), alpha=0.1)
    assert t.acceptable.tolist() == [False, True, True] and t.i_star == 1
    assert metrics.target(np.array([1.0, 1.9, 2.0]), np.array([0.1, 0.5, 1.0]), 0.0).i_star == 2
    assert metrics.target(np.array([1.0, 1.9, 2.0]), np.array([0.1, 0.5, 1.0]), 0.5).i_star == 0
    with pytest.raises(ValueError, match="alpha"):
        metrics.target(np.ones(2), np.ones(2), alpha=1.0)


def test_regrets_by_hand() -> None:
    r = _record()
    # alpha=0.1: threshold 1.8; only set 2 acceptable, i* = 2.
    assert np.allclose(metrics.quality_regret(r, 0.1), np.cumsum([1.3, 0.3, 0.9, 0.0]))
    assert np.allclose(metrics.cost_regret(r, 0.1), [0, 0, 0, 0])
    # alpha=0.5: threshold 1.0; set 0 acceptable and cheapest.
    assert np.allclose(metrics.cost_regret(r, 0.5), np.cumsum([0, 0.9, 0.4, 0.9]))
    assert np.allclose(metrics.simple_regret(r), [1.5, 0.5, 0.5, 0.2])
    assert np.allclose(
        metrics.cost_varying_regret(r), np.cumsum([0.1 * 1.5, 1.0 * 0.5, 0.5 * 1.1, 1.0 * 0.2])
    )


def test_traces_against_cost_spent() -> None:
    r = _record()  # cumulative spend 0.1, 1.1, 1.6, 2.6
    spend = np.array([0.0, 0.1, 1.0, 1.1, 2.0, 2.6, 3.0])
    assert np.allclose(metrics.simple_regret_at(r, spend), [2.0, 1.5, 1.5, 0.5, 0.5, 0.2, 0.2])
    assert metrics.evaluations_at(r, spend).tolist() == [0, 1, 1, 2, 3, 4, 4]


def test_summary() -> None:
    s = metrics.summarize(_record(), alpha=0.1)
    assert s["evaluations"] == 4 and s["spent"] == pytest.approx(2.6)
    assert s["simple_regret"] == pytest.approx(0.2) and s["i_star"] == 2
    assert s["target_plays"] == 2
    assert np.allclose(s["spend_share"], np.array([0.1, 0.5, 2.0]) / 2.6)
    assert list(s) == list(metrics.SUMMARY_FIELDS)  # every printed figure has its meaning


def test_simple_regret_area_by_hand() -> None:
    r = _record()  # regret 2 until 0.1, 1.5 until 1.1, 0.5 until 2.6, then 0.2 up to the budget 3
    area = 2.0 * 0.1 + 1.5 * 1.0 + 0.5 * 1.5 + 0.2 * 0.4
    assert metrics.simple_regret_area(r) == pytest.approx(area / 3.0)
    # the mean of the step function on a fine grid of [0, budget] tends to the same value
    grid = np.linspace(0.0, 3.0, 300_001)
    assert metrics.simple_regret_at(r, grid).mean() == pytest.approx(area / 3.0, abs=1e-4)
    assert metrics.final_simple_regret(r) == pytest.approx(0.2)


def test_simple_regret_area_without_evaluations_is_g_star() -> None:
    r = _record()
    empty = EpisodeRecord(
        problem="toy", agent="hand", seed=0, control_set=np.zeros(0, np.int64),
        x=np.zeros((0, 2)), y=np.zeros(0), cost=np.zeros(0), g=np.zeros(0),
        set_max=r.set_max, cost_means=r.cost_means, budget=3.0,
    )  # fmt: skip
    assert metrics.simple_regret_area(empty) == 2.0
    assert metrics.final_simple_regret(empty) == 2.0
    assert metrics.spend_share(empty).tolist() == [0.0, 0.0, 0.0]


def test_format_summary_names_each_figure() -> None:
    lines = metrics.format_summary(metrics.summarize(_record(), alpha=0.1)).splitlines()
    assert len(lines) == len(metrics.SUMMARY_FIELDS)
    assert lines[4].split() == [
        "simple_regret:",
        "0.2",
        *f"({metrics.SUMMARY_FIELDS['simple_regret']})".split(),
    ]
