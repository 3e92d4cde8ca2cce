"""Every agent plays full episodes on built-in and user-defined problems, reproducibly."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch

from agents import make_agent, registered_agents
from agents.base import Agent, BaseAgent
from agents.policies.cost_ei import CostCooledEIAgent
from agents.policies.cvs import UCBCVSAgent, ucb_cvs_est
from agents.policies.etc import (
    ETC_EXACT_SETTINGS,
    ETC_FAST_SETTINGS,
    ETCAgent,
    FETCRules,
    fetc,
)
from agents.policies.psq import UCBPSQAgent, ts_psq
from agents.surrogate import SamplePath
from bocvs_env.agent_registration import agent_class, required_params
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import public_info, run_episode
from bocvs_env.problems import (
    CallableObjective,
    GaussianCost,
    Problem,
    TruncatedNormal,
    make_problem,
)
from bocvs_env.problems.registry import PROBLEMS

#: Small acquisition settings: the tests check the agents' logic, not the optimizer.
FAST: dict[str, Any] = {"n_samples": 8, "raw_samples": 16, "n_restarts": 1, "maxiter": 5}
#: Every set costs exactly 0.25 (no cost noise), so episodes have a known length.
FLAT_COSTS = 0.25
BUDGET = 2.25  # 9 rounds at cost 0.25: ETC explores one cycle of 7, then exploits


def agent_params(name: str, problem: Problem) -> dict[str, Any]:
    # random has no model; the neural agents' candidates have settings of their own (the
    # features a model is trained on)
    params: dict[str, Any] = (
        {} if name in ("random", "neural-af", "neural-af-prior") else dict(FAST)
    )
    if name == "ucb-cvs":
        params["costs"] = problem.cost_model.means
    if name == "etc-50":
        params["rounds_per_group"] = 2
    if name in ("ucb-cvs", "ucb-cvs-est"):
        params["cutoff"] = 5
    return params


def flat_cost_problem(name: str, **options: Any) -> Problem:
    m = len(PROBLEMS[name].control_sets)
    return make_problem(
        name,
        budget=BUDGET,
        cost_model=GaussianCost([FLAT_COSTS] * m, noise_std=0.0),
        n_initial=5,
        **options,
    )


def custom_problem() -> Problem:
    """A user objective on [0, 1]^2 with its own sets, distributions and noisy costs."""
    objective = CallableObjective(
        lambda X: torch.exp(-((X - 0.3) ** 2).sum(-1) / 0.1), dim=2, lower_bound=0.0, name="bump"
    )
    return Problem(
        objective=objective,
        control_sets=((0,), (1,), (0, 1)),
        distributions=(TruncatedNormal(0.04), TruncatedNormal(0.04)),
        cost_model=GaussianCost([0.2, 0.3, 0.5], noise_std=0.02),
        budget=2.5,
        n_initial=3,
    )


def play(env: BOCVSEnv, agent: Agent, seed: int) -> list[tuple[int, list[float]]]:
    """The protocol loop of :mod:`agents.base`; returns the actions taken."""
    obs, info = env.reset(seed=seed)
    agent.reset(env.task, obs, public_info(info), seed=seed)
    actions = []
    while True:
        action = agent.act(obs)
        assert env.action_space.contains(
            {"control_set": action["control_set"], "x": np.asarray(action["x"])}
        )
        actions.append((int(action["control_set"]), np.asarray(action["x"]).tolist()))
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
        if terminated or truncated:
            return actions


#: Every agent registered in the ``bocvs.agents`` entry-point group, and what it needs.
NEEDS_PARAMS = {n: required_params(agent_class(n)) for n in registered_agents()}
MODEL_AGENTS = sorted(set(NEEDS_PARAMS) - {"random"})
#: Agents that play without a trained model (the SB3 adapter is tested in the benchmark tests).
PLAYABLE = sorted(n for n, needs in NEEDS_PARAMS.items() if "model" not in needs)


def _full_episode_cases() -> list[Any]:
    """Every playable agent on every built-in problem. Slow (run by CI, not by default): full
    episodes on airfoil (ETC's alone takes a minute), and FETC's and GETC's one-component
    ablation agents beyond hartmann3 (each is its agent with one switch, and the agent itself
    plays every problem)."""
    from agents.policies.etc import COMPONENTS, GETC_ABLATIONS

    ablations = {*COMPONENTS, *GETC_ABLATIONS}
    cases = []
    for name in PLAYABLE:
        for problem in sorted(PROBLEMS):
            slow = problem == "airfoil" or (name in ablations and problem != "hartmann3")
            cases.append(pytest.param(name, problem, marks=pytest.mark.slow) if slow else
                         (name, problem))  # fmt: skip
    return cases


@pytest.mark.parametrize(("name", "problem_name"), _full_episode_cases())
def test_agent_plays_a_full_episode(name: str, problem_name: str, request) -> None:
    needs_data = PROBLEMS[problem_name].needs_data
    options = {"data_dir": request.getfixturevalue("data_dir")} if needs_data else {}
    problem = flat_cost_problem(problem_name, **options)
    env = BOCVSEnv(problem, privileged_info=False)
    actions = play(env, make_agent(name, **agent_params(name, problem)), seed=3)
    assert len(actions) == int(BUDGET / FLAT_COSTS) + 1  # the last action is not paid


@pytest.mark.parametrize("name", PLAYABLE)
def test_agent_plays_a_user_defined_problem_reproducibly(name: str) -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    agent = make_agent(name, **agent_params(name, problem))
    first = play(env, agent, seed=1)
    assert first == play(env, agent, seed=1)  # the same agent object, reset
    assert first == play(env, make_agent(name, **agent_params(name, problem)), seed=1)
    assert len(first) >= 2


def test_different_seeds_give_different_runs() -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    assert play(env, ETCAgent(**FAST), seed=1) != play(env, ETCAgent(**FAST), seed=2)


def test_etc_explores_round_robin_then_exploits_with_a_full_log() -> None:
    problem = flat_cost_problem("hartmann3")
    agent = ETCAgent(**FAST)
    actions = play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    log = agent.diagnostics()
    phases = [entry["phase"] for entry in log]
    # one cycle of 7 (1.75 spent; a second would end at 3.5 > 0.6 * 2.25), then exploitation
    assert phases == ["explore"] * 7 + ["exploit"] * (len(log) - 7)
    assert [entry["set"] for entry in log[:7]] == list(range(7))
    assert [i for i, _ in actions] == [entry["set"] for entry in log]
    exploit = log[7]
    for key in ("alpha", "s1", "s3", "cost_lcb", "lcb_bar", "ucb_bar", "reset", "value"):
        assert key in exploit
    assert exploit["alpha"] == 0.1
    assert exploit["set"] in exploit["s3"] and set(exploit["s3"]) <= set(exploit["s1"])
    # cost LCB with T = 2.25 / 0.25 = 9 and one play each: max(0.25 - sqrt(2 log 9), 0) = 0
    assert exploit["cost_lcb"] == [0.0] * 7
    assert exploit["horizon"] == pytest.approx(9.0)
    # ucb_bar after exploration is each set's exploration UCB (one round each)
    assert exploit["ucb_bar"][0] <= log[0]["value"]


def test_run_episode_records_the_decision_log() -> None:
    problem = custom_problem()
    record = run_episode(BOCVSEnv(problem), ETCAgent(**FAST), seed=0)
    assert len(record.diagnostics) == record.n_evaluations + 1  # the last play was not paid
    assert record.control_set.tolist() == [e["set"] for e in record.diagnostics][:-1]


def test_etc_alpha_halves_every_d_exploitation_rounds() -> None:
    problem = make_problem(
        "hartmann3",
        budget=3.0,
        cost_model=GaussianCost([FLAT_COSTS] * 7, noise_std=0.0),
        n_initial=5,
    )
    agent = ETCAgent(halve_every=2, **FAST)
    play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    alphas = [entry["alpha"] for entry in agent.diagnostics() if entry["phase"] == "exploit"]
    assert alphas[:5] == [0.1, 0.1, 0.05, 0.05, 0.025]


def test_psq_plays_the_full_set_or_compares_all_sets() -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    assert {i for i, _ in play(env, UCBPSQAgent(**FAST), seed=0)} == {2}
    agent = UCBPSQAgent(prefer_full_set=False, **FAST)
    play(env, agent, seed=0)
    assert all(len(entry["values"]) == 3 for entry in agent.diagnostics())


def test_ts_psq_averages_its_path_per_feature_not_per_query_and_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # comparing sets with random variables, TS-PSQ's expectation of its sample path takes the
    # separated average (SamplePath.averaged_over, from the averages over each set's sample
    # rows); the path is never evaluated at query x sample points, which cost 15x more on airfoil
    calls = {"averaged": 0, "pointwise": 0}
    averaged, pointwise = SamplePath.averaged_over, SamplePath.__call__

    def count(name: str, method: Any) -> Any:
        def wrapped(self: SamplePath, *args: Any) -> Any:
            calls[name] += 1
            return method(self, *args)

        return wrapped

    monkeypatch.setattr(SamplePath, "averaged_over", count("averaged", averaged))
    monkeypatch.setattr(SamplePath, "__call__", count("pointwise", pointwise))
    agent = ts_psq(prefer_full_set=False, **FAST)
    play(BOCVSEnv(custom_problem(), privileged_info=False), agent, seed=0)
    assert calls["averaged"] > 0
    assert calls["pointwise"] == 0


def test_etc50_plays_groups_by_size_then_psq() -> None:
    problem = flat_cost_problem("hartmann3")
    env = BOCVSEnv(problem, privileged_info=False)
    sets = [i for i, _ in play(env, make_agent("etc-50", rounds_per_group=3, **FAST), seed=0)]
    assert set(sets[:3]) <= {0, 1, 2}
    assert set(sets[3:6]) <= {3, 4, 5}
    assert set(sets[6:]) == {6}


def test_ucb_cvs_plays_the_cheapest_set_while_eps_is_large() -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    agent = UCBCVSAgent(costs=[0.2, 0.3, 0.5], eps0=100.0, cutoff=1000, **FAST)
    assert {i for i, _ in play(env, agent, seed=0)} == {0}
    assert agent.params()["cost_source"] == "true"


def test_ucb_cvs_estimated_tries_unplayed_sets_as_free() -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    agent = ucb_cvs_est(eps0=100.0, cutoff=1000, **FAST)
    sets = [i for i, _ in play(env, agent, seed=0)]
    # each unplayed set counts as free: among free sets the largest v_i first (the full set)
    assert sets[0] == 2 and sorted(sets[:3]) == [0, 1, 2]
    assert set(sets[3:]) == {0}  # then the cheapest observed
    assert agent.diagnostics()[0]["costs"] == [0.0, 0.0, 0.0]
    assert agent.params()["cost_source"] == "estimated"


def test_ucb_cvs_needs_true_costs() -> None:
    with pytest.raises(ValueError, match="true mean costs"):
        UCBCVSAgent()
    with pytest.raises(ValueError, match="positive"):
        UCBCVSAgent(costs=[0.1, -1.0])
    agent = UCBCVSAgent(costs=[0.1, 0.2], **FAST)
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    with pytest.raises(ValueError, match="2 entries for 3 control sets"):
        play(env, agent, seed=0)


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(ValueError, match="explore_fraction"):
        ETCAgent(explore_fraction=2.0)
    with pytest.raises(ValueError, match="alpha0"):
        ETCAgent(alpha0=1.0)
    with pytest.raises(ValueError, match="surrogate_mode"):
        ETCAgent(surrogate_mode="exact")
    with pytest.raises(ValueError, match="rounds_per_group"):
        make_agent("etc-50", rounds_per_group=0)
    # the GP's own checks, when the agent is built rather than at its first reset
    with pytest.raises(ValueError, match="noise"):
        ETCAgent(noise=0.0)
    with pytest.raises(ValueError, match="lengthscale"):
        make_agent("ucb-psq", lengthscale=-1.0)


def test_builtin_agents_register_through_entry_points() -> None:
    builtin = {"random", "etc", "ucb-psq", "ts-psq", "ucb-cvs", "ucb-cvs-est", "etc-50", "sb3"}
    assert builtin <= set(registered_agents())
    assert NEEDS_PARAMS["sb3"] == ("model",) and NEEDS_PARAMS["ucb-cvs"] == ("costs",)
    assert make_agent("agents.policies.random:RandomAgent").name == "random"
    with pytest.raises(ValueError, match="unknown agent 'ghost'"):
        make_agent("ghost")
    with pytest.raises(ValueError, match="cannot import 'no_such_module'"):
        make_agent("no_such_module:Agent")
    with pytest.raises(ValueError, match="has no 'Ghost'"):
        make_agent("agents.policies.random:Ghost")


def test_registry_builds_every_agent_with_its_name() -> None:
    for name in PLAYABLE:
        params = {"costs": [1.0]} if name == "ucb-cvs" else {}
        agent = make_agent(name, **params)
        assert isinstance(agent, Agent)  # the protocol run_episode and the harness rely on
        assert agent.name == name
    for name, needed in NEEDS_PARAMS.items():
        if not needed:
            continue
        with pytest.raises(ValueError, match=f"{name!r} needs the parameters .{needed[0]!r}"):
            make_agent(name)


def test_the_fixed_lengthscale_defaults_to_the_tasks_reference_lengthscale() -> None:
    agent = ETCAgent(**FAST)
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    assert agent.resolved_lengthscale() == 0.1
    agent.reset(replace(env.task, reference_lengthscale=0.2), obs, public_info(info), seed=0)
    assert agent.resolved_lengthscale() == 0.2
    assert ETCAgent(lengthscale=0.3).params()["lengthscale"] == 0.3


def test_set_maxima_never_returns_less_than_an_incumbent() -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    obs, info = env.reset(seed=0)
    guarded = UCBPSQAgent(n_samples=8, raw_samples=2, n_restarts=1, maxiter=1)
    guarded.reset(env.task, obs, public_info(info), seed=0)
    best = guarded.X[np.argmax(guarded.y)]
    for bound in ("ucb", "lcb", "mean"):
        value, _ = guarded.set_maxima([2], bound)[2]
        at_best = guarded.acquisition.expected(
            guarded.surrogate,
            2,
            torch.as_tensor(best[None]),
            bound,
            guarded.acquisition_options.beta,
        )
        assert value >= float(at_best[0])
    assert len(guarded._maximizers[2]) == 3
    with pytest.raises(ValueError, match="n_incumbents"):
        UCBPSQAgent(n_incumbents=-1)


@pytest.mark.parametrize("name", ["ucb-psq", "fetc"])
def test_the_best_observed_queries_are_best_first_and_ties_earliest_first(name: str) -> None:
    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    obs, info = env.reset(seed=0)
    agent = make_agent(name, **{**agent_params(name, problem), "n_incumbents": 3})
    assert isinstance(agent, UCBPSQAgent | ETCAgent)
    agent.reset(env.task, obs, public_info(info), seed=0)
    agent.X = np.arange(5.0)[:, None] * np.ones(env.task.dim)
    agent.y = np.array([0.5, 2.0, 1.0, 2.0, -1.0])
    assert agent.best_observed()[:, 0].tolist() == [1.0, 3.0, 2.0]


# --- computation bounds: max_data and hold ----------------------------------------------------


def test_max_data_conditions_the_gp_on_every_kth_observation() -> None:
    agent = ETCAgent(**FAST, max_data=8)
    assert agent.computation.rows(8).tolist() == list(range(8))
    assert agent.computation.rows(9).tolist() == [0, 2, 4, 6, 8]
    assert agent.computation.rows(33).tolist() == [0, 8, 16, 24, 32]
    problem = replace(flat_cost_problem("hartmann3"), budget=6.0)  # 5 initial + 24 plays
    play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    rows = agent.computation.rows(agent.y.size)
    assert agent.y.size == 29 and rows.tolist() == [0, 4, 8, 12, 16, 20, 24, 28]
    assert np.array_equal(agent.surrogate.train_X.numpy(), agent.X[rows])
    with pytest.raises(ValueError, match="max_data"):
        ETCAgent(max_data=1)


def test_a_held_decision_is_replayed_while_its_spend_fits_the_hold() -> None:
    problem = flat_cost_problem("hartmann3")  # 9 plays at 0.25, budget 2.25, then one unpaid
    agent = ETCAgent(**FAST, hold=0.25)  # 0.5625 a decision: two plays each
    actions = play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    assert len(actions) == 10 and len(agent.diagnostics()) == 5
    assert all(actions[k] == actions[k + 1] for k in (0, 2, 4, 6, 8))
    assert all(actions[k] != actions[k + 1] for k in (1, 3, 5, 7))
    unheld = ETCAgent(**FAST)
    assert len(play(BOCVSEnv(problem, privileged_info=False), unheld, seed=0)) == 10
    assert len(unheld.diagnostics()) == 10
    with pytest.raises(ValueError, match="hold"):
        ETCAgent(hold=1.5)


# --- FETC, its ablation, SADCBO and cost-aware EI ---------------------------------------------


@pytest.mark.parametrize("model", [ETC_FAST_SETTINGS, ETC_EXACT_SETTINGS], ids=["fast", "exact"])
def test_fetc_with_every_component_off_is_etc(model: Mapping[str, Any]) -> None:
    from agents.policies.etc import ETC_SWITCHES

    problem = custom_problem()
    env = BOCVSEnv(problem, privileged_info=False)
    etc = ETCAgent(**model, **FAST)
    off = fetc(**ETC_SWITCHES, max_data=None, hold=None, **model, **FAST)
    assert play(env, off, seed=4) == play(env, etc, seed=4)
    sets = [e["set"] for e in off.diagnostics()]
    assert sets == [e["set"] for e in etc.diagnostics()]
    assert {k: off.params()[k] for k in etc.params()} == etc.params()


@pytest.mark.parametrize(
    "name", ["etc-bounded", "etc-spend", "etc-bernstein", "etc-current", "etc-relevance", "etc-ts"]
)
def test_each_ablation_agent_changes_one_switch_of_etc(name: str) -> None:
    from agents.config import as_params
    from agents.policies.etc import COMPONENTS, ETC_RULES, ETC_SWITCHES
    from agents.policies.model_based import FRUGAL_COMPUTE

    agent = make_agent(name, **FAST)
    assert isinstance(agent, BaseAgent)
    params, off = agent.params(), as_params(ETC_RULES)
    changed = {k for k in ETC_SWITCHES if params[k] != off[k]}
    assert changed == set(COMPONENTS[name])
    etc = ETCAgent(**ETC_FAST_SETTINGS, **FAST).params()
    bounds = {k: params[k] for k in FRUGAL_COMPUTE}
    assert bounds == FRUGAL_COMPUTE and bounds != {k: etc[k] for k in FRUGAL_COMPUTE}
    # FETC's computation: ETC's other options as ETC_FAST_SETTINGS set them
    assert {k: params[k] for k in etc if k not in FRUGAL_COMPUTE} == {
        k: v for k, v in etc.items() if k not in FRUGAL_COMPUTE
    }
    assert make_agent(name).name == name


def test_fetc_explores_cheap_sets_more_and_logs_its_choices() -> None:
    problem = custom_problem()  # costs 0.2, 0.3, 0.5
    problem = replace(problem, budget=6.0)
    agent = make_agent("fetc", **FAST, relevance_min_data=1000)
    assert isinstance(agent, BaseAgent)
    play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    log = agent.diagnostics()
    explore = [e["set"] for e in log if e["phase"] == "explore"]
    counts = np.bincount(explore, minlength=3)
    assert counts[0] > counts[2]  # spend, not count: the cheapest set is played most
    exploit = [e for e in log if e["phase"] == "exploit"]
    assert exploit and all(e["query"] == "ts" and e["set"] in e["s3"] for e in exploit)


@pytest.mark.parametrize("bounds", ["integral", "current"])
def test_fetc_commits_to_an_acceptable_set_by_this_rounds_bounds(bounds: str) -> None:
    """With current bounds, every exploitation round plays a set whose logged maximal UCB clears
    the tolerance (or, if none does, one of largest UCB); with ``"integral"`` (the default)
    the logged bound is that of the posterior of the set's value."""
    problem = replace(custom_problem(), budget=5.0)
    agent = make_agent("fetc", **FAST, value_bounds=bounds, relevance_min_data=1000)
    assert isinstance(agent, ETCAgent) and agent.name == "fetc"
    play(BOCVSEnv(problem, privileged_info=False), agent, seed=1)
    exploit = [e for e in agent.diagnostics() if e["phase"] == "exploit"]
    assert exploit
    for e in exploit:
        checked = {int(k): v for k, v in e["ucb_checked"].items()}
        assert e["set"] in e["s3"] and checked[e["set"]] == e["value"]
        threshold = (1 - e["alpha"]) * e["lcb_bar"]
        assert e["value"] > threshold or e["value"] == max(checked.values())
    if bounds == "integral":
        ((value, x),) = agent.model.value_maxima([2], 1.0, FETCRules().n_refine).values()
        mean, std = agent.model.posterior.mean_std(agent.surrogate, 2, torch.as_tensor(x)[None])
        assert value == pytest.approx(float(mean[0] + agent.acquisition_options.beta * std[0]))
    with pytest.raises(ValueError, match="value_bounds"):
        make_agent("fetc", value_bounds="sometimes")


def test_fetc_measures_relevance_again_only_when_the_data_has_grown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agents.policies.etc.model
    from agents.rules.relevance import collapse_relevance

    sizes: list[int] = []

    def counted(surrogate: Any, points: np.ndarray, samples: np.ndarray) -> np.ndarray:
        sizes.append(surrogate.n_train)
        return collapse_relevance(surrogate, points, samples)

    monkeypatch.setattr(agents.policies.etc.model, "collapse_relevance", counted)
    problem = replace(custom_problem(), budget=12.0)
    agent = make_agent("fetc", **FAST, relevance_min_data=2, relevance_growth=1.5)
    assert isinstance(agent, BaseAgent)
    play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    explore = [e for e in agent.diagnostics() if e["phase"] == "explore" and "relevant" in e]
    assert len(sizes) >= 2 and len(explore) > len(sizes)  # not at every exploration play
    assert all(b >= 1.5 * a for a, b in itertools.pairwise(sizes))
    with pytest.raises(ValueError, match="relevance_growth"):
        make_agent("fetc", relevance_growth=0.5)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("fetc", {"cost_range": -1.0}, "cost_range must be positive and finite"),
        ("fetc", {"cost_range": float("inf")}, "cost_range must be positive and finite"),
        ("fetc", {"relevance_min_data": 0}, "relevance_min_data must be a positive integer"),
        ("ei-cost", {"cost_prior": float("inf")}, "cost_prior must be positive and finite"),
        ("etc", {"n_samples": 0}, "n_samples must be a positive integer"),
        ("ucb-psq", {"raw_samples": -3}, "raw_samples must be a positive integer"),
        ("sadcbo", {"refit_every": 0}, "refit_every must be a positive integer"),
        ("etc", {"noise": -1.0}, "noise must be positive and finite"),
        ("etc", {"outputscale": 0.0}, "outputscale must be positive and finite"),
    ],
)
def test_constructors_refuse_bad_parameters(name: str, params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(name, **params)


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("ts-psq", {"maxiter": 2.5}, "maxiter must be an integer, got 2.5"),
        ("etc-50", {"n_restarts": True}, "n_restarts must be an integer, got True"),
        ("etc", {"noise": "0.1"}, "noise must be a real number, got '0.1'"),
    ],
)
def test_constructors_refuse_parameters_of_a_wrong_type(
    name: str, params: dict, message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        make_agent(name, **params)


def test_cost_weighting_divides_ei_by_cooled_cost() -> None:
    from agents.policies.cost_ei import CostCooledEIAgent

    ei = torch.tensor([0.2, 0.2, 0.0], dtype=torch.float64)
    costs = np.array([0.01, 1.0, 0.5])
    score = CostCooledEIAgent.cost_weighted(ei, costs, 0.5)
    assert score.tolist() == pytest.approx([2.0, 0.2, 0.0])
    assert CostCooledEIAgent.cost_weighted(ei, costs, 0.0).tolist() == pytest.approx(ei.tolist())


def test_ei_cost_plays_every_set_once_before_dividing_by_cost() -> None:
    problem = custom_problem()
    agent = make_agent("ei-cost", **FAST)
    assert isinstance(agent, BaseAgent)
    actions = play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    assert sorted(i for i, _ in actions[:3]) == [0, 1, 2]
    log = agent.diagnostics()
    assert all(0.0 <= e["alpha"] <= 1.0 for e in log)
    assert log[-1]["alpha"] < log[0]["alpha"]  # cooled as the budget is spent


def test_sadcbo_observes_then_intervenes_on_a_covering_set() -> None:
    problem = custom_problem()
    agent = make_agent("sadcbo", **FAST, warmup=2)
    assert isinstance(agent, BaseAgent)
    play(BOCVSEnv(problem, privileged_info=False), agent, seed=0)
    log = agent.diagnostics()
    assert [e["phase"] for e in log[:2]] == ["observe", "observe"]
    assert log[0]["set"] == 0  # the cheapest set, unplayed sets first
    later = [e for e in log[2:]]
    assert later and all(e["phase"] == "intervene" for e in later)
    for e in later:
        assert set(e["relevant"]) <= set(problem.control_sets[e["set"]]) or e["set"] == 2


@pytest.mark.parametrize("agent", [CostCooledEIAgent, fetc])
@pytest.mark.parametrize("n_refine", [0, -1])
def test_agents_refuse_an_n_refine_that_is_not_a_positive_integer(
    agent: type, n_refine: object
) -> None:
    with pytest.raises(ValueError, match="n_refine must be a positive integer"):
        agent(n_refine=n_refine)


@pytest.mark.parametrize("agent", [CostCooledEIAgent, fetc])
@pytest.mark.parametrize("n_refine", [1.5, "2"])
def test_agents_refuse_an_n_refine_that_is_not_an_integer(agent: type, n_refine: object) -> None:
    with pytest.raises(TypeError, match="n_refine must be an integer"):
        agent(n_refine=n_refine)
