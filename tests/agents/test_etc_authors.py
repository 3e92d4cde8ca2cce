"""``etc-authors``: ETC as its authors' released code runs it, part by part on hand-made inputs
(the cost bound, the threshold and the choice in ``S1``, the exploration order and stop), and
one short episode."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from agents.policies.etc import PRESETS, AuthorsRules, ETCAgent
from agents.policies.etc.authors import (
    AuthorsThreshold,
    BudgetRoundRobin,
    LateRandomPhase,
    RoundCostBound,
    authors_choice,
    authors_threshold,
)
from agents.policies.etc.cost_bounds import HoeffdingCostBound
from agents.policies.etc.port import Observed
from agents.policies.etc.state import ETCState, Round
from agents.policies.etc.surrogates import TextModel
from agents.policies.etc.tolerances import RelativeTolerance
from agents.policies.etc.value_bounds import IntersectedBounds
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import public_info
from tests.agents.test_agents import FAST, play

#: The grid's cheap mean costs, three sets at each of the two lower levels and the full set.
CHEAP = (0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0)


def observed(plays: Any, costs: Any, spent: float = 0.0, y: Any = (), sets: Any = None) -> Observed:
    """Sets played ``plays`` times, every draw at its mean ``costs``, on a budget of 100."""
    plays = np.asarray(plays, np.int64)
    costs = np.asarray(costs, float)
    m = len(plays)
    task = SimpleNamespace(
        control_sets=sets or tuple((k,) for k in range(m)), n_sets=m, dim=m, budget=100.0
    )
    draws = [[float(c)] * int(n) for n, c in zip(plays, costs, strict=True)]
    return Observed(task, spent, plays, plays * costs, draws, np.asarray(y, float))  # type: ignore[arg-type]


def test_the_cost_bound_has_the_current_round_as_horizon_and_no_clip() -> None:
    # the cheap exploration: 319 rounds, so the first exploitation round is t = 320
    lcb = RoundCostBound().lower(observed([45, 46, 46, 46, 46, 45, 45], CHEAP), horizon=1e4)
    expected = [-0.4963, -0.4908, -0.4908, -0.4008, -0.4008, -0.4063, 0.4937]
    np.testing.assert_allclose(lcb, expected, atol=1e-4)
    # at t = 341 a 0.01 set with 67 plays is bounded above a 0.1 set with 45
    later = RoundCostBound().lower(observed([67, 45, 228], [0.01, 0.1, 1.0]), horizon=1.0)
    assert later[0] > later[1]
    # a set never played is the most optimistic; Algorithm 1's bound clips the same sets at 0
    assert RoundCostBound().lower(observed([0, 3], [0.1, 0.1]), 1.0)[0] == -math.inf
    assert np.all(HoeffdingCostBound().lower(observed([45, 46], [0.01, 0.01]), 320.0) == 0.0)


def test_the_threshold_is_the_full_sets_lower_bound_raised_to_the_best_y() -> None:
    upper, costs = [1.0, 2.0, 3.0], [0.1, 0.2, 1.0]
    assert authors_choice(upper, authors_threshold(1.5, 2.5, []), costs) == (2, [2])
    assert authors_choice(upper, authors_threshold(1.5, 1.0, []), costs) == (1, [1, 2])
    assert authors_choice(upper, authors_threshold(1.5, 2.0, []), costs) == (1, [1, 2])  # >=
    # without a full set the best y plays no part: the largest of the sets' lower bounds
    assert authors_threshold(None, 9.0, [0.5, 1.5, 1.0]) == 1.5
    # nothing reaches the threshold: the set of largest upper bound
    assert authors_choice(upper, authors_threshold(1.5, 4.0, []), costs) == (2, [])


def test_equal_cost_bounds_go_to_the_highest_index_whatever_the_upper_bounds() -> None:
    assert authors_choice([3.0, 2.0, 0.0], 1.0, [0.1, 0.1, 0.0]) == (1, [0, 1])
    assert authors_choice([3.0, 2.0, 0.0], 1.0, [0.05, 0.1, 0.0]) == (0, [0, 1])


class BoundsModel:
    """The model port as the authors' rule asks it: per set a lower and an upper bound at the
    widths it was asked for, each maximizer a query filled with the set's index."""

    def __init__(self, lower: list[float], upper: list[float]) -> None:
        self.bounds = {"lcb": lower, "ucb": upper}
        self.widths: dict[str, float] = {}

    def beta_maxima(
        self, sets: list[int], bound: str, beta: float
    ) -> dict[int, tuple[float, np.ndarray]]:
        self.widths[bound] = beta
        return {i: (self.bounds[bound][i], np.full(2, float(i))) for i in sets}


def test_the_authors_rule_plays_the_cheapest_admitted_set_at_its_maximizer() -> None:
    model = BoundsModel(lower=[0.0, 0.0, 1.5], upper=[1.0, 2.0, 3.0])
    seen = observed([10, 10, 10], [0.1, 0.2, 1.0], y=[0.5, 1.0], sets=((0,), (1,), (0, 1)))
    seen.task.dim = 2  # type: ignore[misc]
    state = ETCState(ucb_bar=np.full(3, np.inf))
    round = Round(state, seen, model)  # type: ignore[arg-type]
    choice = AuthorsThreshold().exploit(round, 0.1, RelativeTolerance(), RoundCostBound())
    assert model.widths == {"lcb": 0.3, "ucb": 1.96}
    assert choice.set == 1 and choice.log["s1"] == [1, 2] and choice.log["threshold"] == 1.5
    np.testing.assert_array_equal(choice.x, [1.0, 1.0])
    assert choice.log["round"] == 31
    assert math.isinf(state.lcb_bar) and np.all(np.isinf(state.ucb_bar))  # no bars kept


def test_exploration_plays_sets_one_to_m_minus_one_then_zero_and_stops_mid_cycle() -> None:
    rule = BudgetRoundRobin(0.6)
    state = ETCState(ucb_bar=np.full(7, np.inf))
    plays, spent = np.zeros(7, np.int64), 0.0
    while rule.keep_exploring(Round(state, observed(plays, CHEAP, spent), None)):  # type: ignore[arg-type]
        i = rule.next_set(Round(state, observed(plays, CHEAP, spent), None)).set  # type: ignore[arg-type]
        if state.n_explore < 8:
            assert i == [1, 2, 3, 4, 5, 6, 0, 1][state.n_explore]
        plays[i] += 1
        spent += CHEAP[i]
        state.n_explore += 1
    assert state.n_explore == 319 and spent == pytest.approx(60.07)
    assert plays.tolist() == [45, 46, 46, 46, 46, 45, 45]


def test_each_part_switches_alone_to_algorithm_1s() -> None:
    parts = AuthorsRules().parts()
    assert isinstance(parts.exploration, BudgetRoundRobin)
    assert isinstance(parts.cost_bound, RoundCostBound)
    assert isinstance(parts.value_bound, AuthorsThreshold)
    alone = AuthorsRules(cost_bound="hoeffding").parts()
    assert isinstance(alone.cost_bound, HoeffdingCostBound)
    assert isinstance(alone.value_bound, AuthorsThreshold)
    assert isinstance(AuthorsRules(threshold="intersected").parts().value_bound, IntersectedBounds)
    with pytest.raises(ValueError, match="threshold must be one of"):
        AuthorsRules(threshold="running")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="beta_lower must be finite and >= 0, got -1"):
        AuthorsRules(beta_lower=-1.0)


def hartmann3(budget: float) -> BOCVSEnv:
    env = gym.make("bocvs/Hartmann3-v1", budget=budget, privileged_info=False).unwrapped
    assert isinstance(env, BOCVSEnv)
    return env


def test_etc_authors_explores_by_budget_then_commits_on_hartmann3() -> None:
    agent = PRESETS["etc-authors"](**FAST, model="text")
    assert isinstance(agent, ETCAgent) and agent.name == "etc-authors"
    env = hartmann3(budget=3.0)
    actions = play(env, agent, seed=0)
    log = agent.diagnostics()
    explore = [e for e in log if e["phase"] == "explore"]
    m = env.task.n_sets
    assert [e["set"] for e in explore][:m] == [*range(1, m), 0][: len(explore)]
    assert len(log) == len(actions) and len(log) - len(explore) >= 3
    exploit = log[len(explore) :]
    assert all(e["phase"] == "exploit" and "threshold" in e for e in exploit)
    assert [e["set"] for e in exploit] == [i for i, _ in actions[len(explore) :]]


def test_the_late_phase_draws_every_set_at_random_from_a_round_on_and_repeats_by_seed() -> None:
    late = LateRandomPhase(after_round=450, beta=2.0)
    before, at = observed([448, 0, 0], CHEAP[:3]), observed([449, 0, 0], CHEAP[:3])
    assert not late.active(before) and late.active(at)
    # the play of round 449 just recorded freezes the model, that of round 448 does not
    assert not late.frozen(False, before)
    assert late.frozen(False, at) and not late.frozen(True, at)
    model = BoundsModel(lower=[0.0] * 3, upper=[1.0, 2.0, 3.0])
    round = Round(ETCState(ucb_bar=np.full(3, np.inf)), at, model)  # type: ignore[arg-type]

    def draws(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        return [late.choose(round, rng).set for _ in range(60)]

    assert set(draws(0)) == {0, 1, 2} and draws(0) == draws(0)
    assert model.widths == {"ucb": 2.0}
    choice = late.choose(round, np.random.default_rng(0))
    np.testing.assert_array_equal(choice.x, np.full(2, float(choice.set)))


def test_from_the_late_round_the_model_stops_growing_and_sets_are_random() -> None:
    env = hartmann3(budget=4.0)
    first = PRESETS["etc-authors"](**FAST, model="text")
    play(env, first, seed=0)
    explored = sum(e["phase"] == "explore" for e in first.diagnostics())
    after = explored + 3
    agent = PRESETS["etc-authors"](**FAST, model="text", late_round=after)
    actions = play(env, agent, seed=0)
    log = agent.diagnostics()
    assert [e["phase"] for e in log[explored : after - 1]] == ["exploit", "exploit"]
    assert [e["phase"] for e in log[after - 1 :]] == ["late"] * (len(log) - after + 1)
    assert [e["set"] for e in log[after - 1 :]] == [i for i, _ in actions[after - 1 :]]
    initial = len(agent.y) - int(agent.plays.sum())
    assert agent.surrogate.n_train == initial + after - 2  # the data up to round after - 2
    assert len(actions) > after + 3  # the late phase played several rounds


def test_the_authors_model_is_tuned_from_its_start_in_exploitation_only() -> None:
    env = hartmann3(budget=6.0)
    agent = PRESETS["etc-authors"](**FAST, late_round=24)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    start = agent.surrogate.start_hyper
    assert agent.surrogate.mode == "restarted" and float(start.lengthscale[0]) == 0.2
    assert (start.outputscale, start.noise, start.mean, start.y_scale) == (1.0, 1e-4, 0.0, 1.0)
    tunes, terminated, truncated = [], False, False
    while not (terminated or truncated):
        before = agent.surrogate.fitter.n_refits
        action = agent.act(obs)
        phase = agent.diagnostics()[-1]["phase"]
        tunes.append((phase, agent.surrogate.fitter.n_refits - before))
        if phase == "explore":
            assert agent.surrogate.hyper is start  # never tuned in exploration
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
    phases = [p for p, _ in tunes]
    assert {"explore", "exploit", "late"} <= set(phases)
    assert all(n == (p == "exploit") for p, n in tunes)  # one tune per exploitation decision
    assert not torch.equal(agent.surrogate.hyper.lengthscale, start.lengthscale)
    # the late phase plays on the model tuned for round 23, on the data up to round 22
    assert agent.surrogate.n_train == len(agent.y) - int(agent.plays.sum()) + 22
    # undone alone: the surrogate options' model, fitted by MAP
    text = PRESETS["etc-authors"](**FAST, model="text")
    play(env, text, seed=0)
    assert text.surrogate.mode == "fitted" and isinstance(text.parts.model, TextModel)
