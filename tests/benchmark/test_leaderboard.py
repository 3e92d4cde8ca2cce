"""The leaderboard (:mod:`bocvs_env.benchmark.leaderboard`): groups of panels that the same
agents ran, mean ranks, W/T/L against the best baseline, and the data profile, by hand."""

from __future__ import annotations

import numpy as np
import pytest
from bench_helpers import hand_run

from bocvs_env.benchmark.leaderboard import (
    N_TARGETS,
    PROFILE_GRID,
    cost_to_targets,
    instance_targets,
    leaderboard,
    leaderboard_markdown,
)


def test_cost_to_a_target_is_the_spend_of_the_first_step_that_reaches_it() -> None:
    record = hand_run("a", 0, [0.5, 0.9]).record  # g* = 1; regret 0.5 after 1, 0.1 after 2
    targets = np.array([0.6, 0.5, 0.3, 0.1, 0.05, 1.0])
    expected = [0.1, 0.1, 0.2, 0.2, np.inf, 0.0]  # fractions of the budget, 10
    np.testing.assert_allclose(cost_to_targets(record, targets), expected)


def test_targets_are_log_spaced_from_the_best_final_regret_up_to_g_star() -> None:
    records = [hand_run("a", 0, [0.9]).record, hand_run("b", 0, [0.5]).record]
    targets = instance_targets(records)
    assert targets.size == N_TARGETS and targets[0] == pytest.approx(0.1)
    np.testing.assert_allclose(np.diff(np.log(targets)), np.log(10) / N_TARGETS)
    assert targets[-1] < 1.0


def test_agents_are_ranked_within_groups_of_shared_panels_on_shared_seeds() -> None:
    runs = [hand_run("a", s, [0.9]) for s in range(3)]  # cheap: regret 0.1, 0.5, 0.3
    runs += [hand_run("b", s, [0.5]) for s in range(3)]
    runs += [hand_run("c", s, [0.7]) for s in range(2)]
    runs += [hand_run(a, s, [g], cost_set="moderate") for a, g in (("a", 0.5), ("b", 0.9))
             for s in range(2)]  # fmt: skip
    first, second = leaderboard(runs, baselines=["b", "c"])
    assert first.agents == ("a", "c", "b") and second.agents == ("b", "a")
    assert {p.cost_set for p in first.panels} == {"cheap"} and set(first.seeds.values()) == {(0, 1)}
    assert first.best == "c"  # the best of the baselines, not the best agent
    a, c, b = first.standings
    assert (a.final_rank, c.final_rank, b.final_rank) == (1.0, 2.0, 3.0)
    assert len(a.lowest) == 1 and b.lowest == () and c.versus is None
    assert a.versus == ("1 / 0 / 0", "1 / 0 / 0") and b.versus == ("0 / 0 / 1", "0 / 0 / 1")
    at = [np.searchsorted(PROFILE_GRID, x) for x in (0.05, 0.1)]  # a reaches all at spend 1
    assert [first.profile["a"][i] for i in at] == [0.0, 1.0]
    reached_by_b = np.sum(np.geomspace(0.1, 1.0, N_TARGETS + 1)[:-1] >= 0.5 - 1e-12)
    assert first.profile["b"][-1] == pytest.approx(reached_by_b / N_TARGETS)
    page = leaderboard_markdown([first, second], "Runs of hand.")
    assert "Lower is better." in page and "## Group 2: 2 agents on 1 panels" in page
    assert "| a | 1.00 | " in page and "| 1 / 0 / 0 | 1 / 0 / 0 |" in page
