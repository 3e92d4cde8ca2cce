"""The leaderboard (:mod:`bocvs_env.benchmark.leaderboard`): groups of panels that the same
agents ran, mean ranks, W/T/L against the best baseline, and the data profile, by hand."""

from __future__ import annotations

import numpy as np
import pytest
from bench_helpers import hand_run

from bocvs_env.benchmark.leaderboard import (
    N_TARGETS,
    PROFILE_GRID,
    by_agent_name,
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
    assert "Lower is better." in page and "## Group 2: 2 agents on 1 panel\n" in page
    assert "| a | 1.00 | " in page and "| 1 / 0 / 0 | 1 / 0 / 0 |" in page


def test_a_group_no_published_agent_ran_has_no_best_baseline() -> None:
    """The user's own runs of a panel the archive lacks are ranked, never named a baseline."""
    runs = [hand_run(a, s, [g]) for a, g in (("mine", 0.9), ("theirs@abc", 0.5)) for s in (0, 1)]
    runs += [hand_run("quick-etc", s, [0.9], budget=30.0) for s in (0, 1)]
    runs += [hand_run("mine", s, [0.5], budget=30.0) for s in (0, 1)]
    shared, own = leaderboard(runs, baselines=["theirs@abc"])
    assert shared.best == "theirs@abc" and own.best is None
    assert all(s.versus is None for s in own.standings)
    page = leaderboard_markdown([shared, own], "Runs.", baselines=True)
    assert "Best baseline: theirs@abc." in page and "Best baseline: quick-etc" not in page
    assert "No published agent ran these panels" in page


def test_the_page_counts_in_words_and_explains_only_the_figure_it_shows() -> None:
    (group,) = leaderboard([hand_run(a, 0, [0.5]) for a in ("a", "b")])
    page = leaderboard_markdown([group], "Runs.")
    assert "## Group 1: 2 agents on 1 panel\n" in page
    assert "data profile" not in page and "![" not in page
    with_figure = leaderboard_markdown([group], "Runs.", figure="profiles.png")
    assert "data profile" in with_figure and "(profiles.png)" in with_figure


def test_outside_agents_are_labelled_by_their_name_where_it_is_unambiguous() -> None:
    own = [hand_run("my_module:Mine", s, [0.5], provenance={"agent_name": "mine"}) for s in (0, 1)]
    same = [hand_run("other:Mine", 0, [0.5], provenance={"agent_name": "mine"})]
    clash = [
        hand_run("etc:Etc", 0, [0.5], provenance={"agent_name": "etc"}),
        hand_run("etc", 0, [1]),
    ]
    assert {r.config.agent for r in by_agent_name(own)} == {"mine"}
    assert {r.config.agent for r in by_agent_name(own + same)} == {"my_module:Mine", "other:Mine"}
    assert {r.config.agent for r in by_agent_name(clash)} == {"etc:Etc", "etc"}
