"""GETC's parts: exploration by groups with elimination, a tolerance on the range of ``y``
halved per spend, and distinct queries in a held decision."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policies.etc import ETCAgent, GETCRules
from agents.policies.etc.groups import GroupedExploration, GroupProgress, exploration_groups
from agents.policies.etc.port import Observed
from agents.policies.etc.state import ETCState, Round
from agents.policies.etc.tolerances import RangeTolerance, RelativeTolerance
from bocvs_env.env import BOCVSEnv
from bocvs_env.problems import (
    CallableObjective,
    GaussianCost,
    Problem,
    TruncatedNormal,
)
from bocvs_env.problems.registry import PROBLEMS
from tests.agents.test_agents import FAST, play


def cheap_set_problem(budget: float = 3.0) -> Problem:
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


def test_groups_are_the_equally_sized_sets_smallest_first_then_the_rest() -> None:
    hartmann = PROBLEMS["hartmann6_12d"].control_sets
    groups = exploration_groups(hartmann, 12, 3)
    sizes = [{len(hartmann[i]) for i in g} for g in groups]
    assert all(len(s) == 1 for s in sizes)  # each group is of one size
    assert [s.pop() for s in sizes] == sorted(len(hartmann[g[0]]) for g in groups)
    assert groups[-1] == [6]  # the full set last
    assert sorted(i for g in groups for i in g) == list(range(7))  # every set in one group
    # airfoil: every set controls 2 of 5 variables, grouped by position, the seventh alone
    assert exploration_groups(PROBLEMS["airfoil"].control_sets, 5, 3) == [[0, 1, 2], [3, 4, 5], [6]]


class StubModel:
    """The model port as the exploration rule asks it: the sets' upper bounds, the largest
    lower bound."""

    def __init__(self, ucb: dict[int, float], lcb: float) -> None:
        self.ucb, self.lcb = ucb, lcb

    def value_maxima(
        self, sets: list[int], sign: float, n_refine: int
    ) -> dict[int, tuple[float, np.ndarray]]:
        assert sign == 1.0  # the upper bounds of the sets' values
        return {i: (self.ucb[i], np.full(2, float(i))) for i in sets}

    def lcb_max(self) -> float:
        return self.lcb


TASK = SimpleNamespace(control_sets=((0,), (1,), (0, 1)), n_sets=3, dim=2, budget=10.0)


def observations(spent: float = 0.0, y: Any = ()) -> Observed:
    """Three sets of costs 0.02, 0.1 and 0.5, each played once."""
    draws = [[0.02], [0.1], [0.5]]
    plays, sums = np.ones(3), np.array([0.02, 0.1, 0.5])
    return Observed(TASK, spent, plays, sums, draws, np.asarray(y, float))  # type: ignore[arg-type]


class Episode:
    """A group rule's episode on :data:`TASK`: its state and model, a round at any spend."""

    def __init__(self, rule: GroupedExploration, ucb: dict[int, float], lcb: float) -> None:
        self.model = StubModel(ucb, lcb)
        self.state = ETCState(ucb_bar=np.full(3, np.inf), progress=rule.start(observations()))
        self.spent = 0.0

    @property
    def progress(self) -> GroupProgress:
        assert isinstance(self.state.progress, GroupProgress)
        return self.state.progress

    def round(self) -> Round:
        return Round(self.state, observations(self.spent), self.model)  # type: ignore[arg-type]


def episode(rule: GroupedExploration, lcb: float = 0.0) -> Episode:
    return Episode(rule, {0: 1.0, 1: 2.0, 2: 3.0}, lcb)


def test_a_group_plays_its_set_of_largest_ucb_and_skips_sets_below_the_largest_lcb() -> None:
    rule = GroupedExploration(0.6, rounds_per_group=10)
    run = episode(rule)
    assert run.progress.groups == [[0, 1], [2]]
    assert rule.keep_exploring(run.round())
    choice = rule.next_set(run.round())
    assert choice.set == 1 and choice.note == {"group": 0, "eliminated": []}
    assert choice.found is not None and choice.found[0] == 2.0  # the maximum, found once
    # set 1's UCB falls below set 2's LCB: set 0 is left, and then the group ends
    run.model.ucb = {0: 2.5, 1: 1.0, 2: 3.0}
    run.model.lcb = 1.5
    assert rule.keep_exploring(run.round())
    assert rule.next_set(run.round()).note == {"group": 0, "eliminated": [1]}
    run.model.lcb = 2.8
    assert rule.keep_exploring(run.round())
    assert rule.next_set(run.round()).set == 2
    assert run.progress.group == 1
    # without elimination a dominated set is still played
    keep = GroupedExploration(0.6, rounds_per_group=10, eliminate=False)
    run = episode(keep, lcb=2.5)
    assert keep.keep_exploring(run.round()) and keep.next_set(run.round()).set == 1


def test_a_group_ends_after_its_rounds_or_its_share_of_the_exploration_budget() -> None:
    rule = GroupedExploration(0.6, rounds_per_group=2)
    run = episode(rule)
    for _ in range(2):
        assert rule.keep_exploring(run.round())
        assert rule.next_set(run.round()).set == 1
    assert rule.keep_exploring(run.round()) and rule.next_set(run.round()).set == 2
    # the first group's share: half of 0.6 * 10 = 3; at 2.95 spent the 0.1 set no longer fits
    run = episode(rule)
    run.spent = 2.95
    assert rule.keep_exploring(run.round()) and rule.next_set(run.round()).set == 2
    # the last group takes what is left: 6 - 2.95; past it, exploration ends
    run.spent = 5.6
    assert not rule.keep_exploring(run.round())


@pytest.mark.parametrize(("scale", "offset"), [(1.0, 0.0), (3.0, -7.0), (0.01, 400.0)])
def test_the_range_tolerance_moves_with_the_objectives_offset_and_scale(
    scale: float, offset: float
) -> None:
    observed = observations(spent=5.0, y=scale * np.array([0.0, 0.5, 2.0, 1.0]) + offset)
    state = ETCState(ucb_bar=np.full(3, np.inf), explore_spent=3.0)
    tolerance = RangeTolerance(alpha0=0.1, halve_spend=0.1)
    alpha = tolerance.alpha(state, observed)
    assert alpha == pytest.approx(0.1 / 4)  # 2.0 spent in exploitation: two halvings of 1.0
    threshold = tolerance.threshold(observed, scale * 1.5 + offset, alpha)
    assert threshold == pytest.approx(scale * (1.5 - alpha * 2.0) + offset)
    # Algorithm 1's relative tolerance does not: it scales with the offset
    relative = RelativeTolerance(alpha0=0.1).threshold(observed, 401.5, 0.1)
    assert 401.5 - relative == pytest.approx(40.15)


def test_getc_explores_without_holds_then_plays_distinct_queries_in_a_held_decision() -> None:
    agent = make_agent("getc", **FAST, rounds_per_group=4, hold=0.1)
    assert isinstance(agent, ETCAgent) and agent.name == "getc"
    actions = play(BOCVSEnv(cheap_set_problem(), privileged_info=False), agent, seed=0)
    log = agent.diagnostics()
    explore = [e for e in log if e["phase"] == "explore"]
    groups = [e["group"] for e in explore]
    assert groups == sorted(groups) and groups[0] == 0  # groups in turn, smallest sets first
    assert actions[: len(explore)] == [(e["set"], actions[k][1]) for k, e in enumerate(explore)]
    # exploitation commits to the 0.02 set, which reaches the best value; a decision is held
    # for 0.1 * 3 = 0.3 of spend (15 plays), each at a query of its own
    cheap = [tuple(x) for i, x in actions[len(explore) :] if i == 0]
    decisions = len(log) - len(explore)
    assert len(cheap) >= 30 and decisions < len(cheap) / 10
    assert len(set(cheap)) == len(cheap)
    replays = make_agent("getc-replays", **FAST, rounds_per_group=4, hold=0.1)
    again = play(BOCVSEnv(cheap_set_problem(), privileged_info=False), replays, seed=0)
    held = [tuple(x) for i, x in again[len(explore) :] if i == 0]
    assert len(held) >= 30 and len(set(held)) <= decisions  # one query per decision


def test_getc_rules_refuse_bad_values_with_a_message_naming_them() -> None:
    with pytest.raises(ValueError, match="exploration"):
        GETCRules(exploration="round-robin")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="halve_spend"):
        make_agent("getc", halve_spend=0.0)
    with pytest.raises(ValueError, match="rounds_per_group"):
        make_agent("getc", rounds_per_group=0)
    assert replace(GETCRules(), eliminate=False).parts().exploration.relevance is None
