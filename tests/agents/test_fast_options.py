"""The options that make decisions cheaper at some cost in precision: fewer samples when
polishing, ETC's max-LCB tracked from last round's maximizers, a cap on refit iterations. Each
changes what it says. They (:data:`agents.config.FAST_SETTINGS`,
:data:`agents.policies.etc.ETC_FAST_SETTINGS`) are the defaults of UCB-PSQ and FETC; ETC, ETC-50, TS-PSQ
and UCB-CVS keep the exact settings (:data:`agents.config.EXACT_SETTINGS`,
:data:`agents.policies.etc.ETC_EXACT_SETTINGS`), with which the agents decide as first implemented (see
test_decisions_unchanged.py)."""

from __future__ import annotations

from typing import Any

import botorch.fit
import numpy as np
import pytest
import torch

from agents import make_agent
from agents.acquisition import ExpectedAcquisition, SetOptimizer
from agents.acquisition.closed_form import GPClosedForm
from agents.policies.etc import ETC_EXACT_SETTINGS, ETC_FAST_SETTINGS, ETCAgent
from agents.policies.model_based import EXACT_SETTINGS, FAST_SETTINGS
from agents.surrogate import GPSurrogate
from agents.surrogate.fitting import MAPFitter, initial_hyperparameters
from bocvs_env.agent_registration import accepted_params
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import public_info
from bocvs_env.problems.distributions import TruncatedNormal
from bocvs_env.task import Task

OPTIONS = {"polish_samples": 16, "refit_maxiter": 5}


def toy() -> tuple[Task, GPSurrogate]:
    """A 4-D task with sets {0}, {1, 2} and all, and a fitted GP on 30 points."""
    task = Task("toy", 4, ((0,), (1, 2), (0, 1, 2, 3)), (TruncatedNormal(0.04),) * 4, budget=10.0)
    rng = np.random.default_rng(0)
    X = rng.random((30, 4))
    gp = GPSurrogate(4, mode="fitted", seed=0)
    gp.fit(X, np.sin(6 * X).sum(1))
    return task, gp


def spy_samples(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Record the ``n_samples`` of every :meth:`GPClosedForm.value` call that needs a
    gradient (the polishing) as it is made."""
    original = GPClosedForm.value
    seen: list[int | None] = []

    def spy(self: GPClosedForm, parts: Any, n_samples: int | None = None) -> Any:
        if torch.is_grad_enabled():
            seen.append(n_samples)
        return original(self, parts, n_samples)

    monkeypatch.setattr(GPClosedForm, "value", spy)
    return seen


def test_polishing_uses_the_given_samples_and_values_use_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task, gp = toy()
    acq = ExpectedAcquisition(task, n_samples=64, seed=0)
    seen = spy_samples(monkeypatch)
    lcb, candidates = acq.estimator(gp, "lcb"), acq.candidates([0, 1], gp.train_X)
    found = SetOptimizer(polish_samples=8).maximize(lcb, [0, 1], candidates)
    assert seen and set(seen) == {8}
    for i, (value, x) in zip([0, 1], found, strict=True):
        with torch.no_grad():
            full = acq.expected(gp, i, torch.as_tensor(x).unsqueeze(0), "lcb")
        assert value == pytest.approx(float(full[0]), rel=1e-12)


def test_by_default_polishing_uses_every_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    task, gp = toy()
    seen = spy_samples(monkeypatch)
    acq = ExpectedAcquisition(task, n_samples=64, seed=0)
    lcb, candidates = acq.estimator(gp, "lcb"), acq.candidates([0, 1], gp.train_X)
    SetOptimizer().maximize(lcb, [0, 1], candidates)
    assert seen and set(seen) == {None}


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError), (2.5, TypeError)])
def test_polish_samples_that_is_not_a_positive_integer_is_refused(
    bad: object, error: type[Exception]
) -> None:
    with pytest.raises(error, match="polish_samples"):
        SetOptimizer(polish_samples=bad)  # type: ignore[arg-type]


def test_polish_from_skips_screening_and_never_falls_below_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    task, gp = toy()
    acq = ExpectedAcquisition(task, n_samples=32, seed=0)

    def no_screening(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("polish_from screened candidates")

    monkeypatch.setattr(GPClosedForm, "top", no_screening)
    monkeypatch.setattr(GPClosedForm, "screen", no_screening)
    x0 = [np.full(4, 0.1), np.full(4, 0.9)]
    found = SetOptimizer().polish_from(acq.estimator(gp, "ucb"), [1, 2], x0)
    for i, x, (value, _) in zip([1, 2], x0, found, strict=True):
        with torch.no_grad():
            start = float(acq.expected(gp, i, torch.as_tensor(x).unsqueeze(0), "ucb")[0])
        assert value >= start
    with pytest.raises(ValueError, match="one start per set"):
        SetOptimizer().polish_from(acq.estimator(gp), [1, 2], x0[:1])


def play_etc(agent: ETCAgent, rounds: int) -> list[tuple[int, str]]:
    """Play ``rounds`` rounds of hartmann3 and record, per LCB maximization, the refit count
    and whether it was full (``"maximize"``) or tracked (``"polish_from"``)."""
    calls: list[tuple[int, str]] = []
    env = BOCVSEnv("hartmann3", budget=100.0, n_initial=4)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    for method in ("maximize", "polish_from"):
        original = getattr(agent.optimizer, method)

        def spy(*args: Any, _name: str = method, _f: Any = original, **kw: Any) -> Any:
            if getattr(args[0], "bound", None) == "lcb":  # the estimator of E[lcb]
                calls.append((agent.surrogate.fitter.n_refits, _name))
            return _f(*args, **kw)

        setattr(agent.optimizer, method, spy)
    for _ in range(rounds):
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
    return calls


@pytest.mark.parametrize("tracking", ["polish", "revalue"])
def test_etc_tracks_its_lcb_between_refits_and_maximizes_afresh_after_each(tracking: str) -> None:
    options = {**ETC_FAST_SETTINGS, "lcb_tracking": tracking, "refit_every": 3}
    calls = play_etc(ETCAgent(**options), 12)
    kinds = [kind for _, kind in calls]
    assert "polish_from" in kinds
    for (refits, kind), (before, _) in zip(calls[1:], calls, strict=False):
        if refits != before:  # the first LCB after a refit is a full maximization
            assert kind == "maximize"
    # never more than refit_every (3) tracked rounds in a row
    assert all(kinds[k : k + 4] != ["polish_from"] * 4 for k in range(len(kinds)))


def test_polish_from_with_no_iterations_only_values_the_starts() -> None:
    task, gp = toy()
    acq = ExpectedAcquisition(task, n_samples=32, seed=0)
    x0 = [np.full(4, 0.3), np.full(4, 0.6)]
    found = SetOptimizer(polish_samples=8).polish_from(acq.estimator(gp, "lcb"), [0, 2], x0, 0)
    for i, x, (value, x_found) in zip([0, 2], x0, found, strict=True):
        ctrl = list(task.control_sets[i])
        np.testing.assert_array_equal(x_found[ctrl], x[ctrl])
        with torch.no_grad():
            start = float(acq.expected(gp, i, torch.as_tensor(x).unsqueeze(0), "lcb")[0])
        assert value == pytest.approx(start, rel=1e-12)


def test_etc_refuses_an_unknown_lcb_tracking() -> None:
    with pytest.raises(ValueError, match="lcb_tracking"):
        ETCAgent(lcb_tracking="sometimes")  # type: ignore[arg-type]


def test_etc_maximizes_its_lcb_afresh_every_round_with_the_exact_settings() -> None:
    calls = play_etc(ETCAgent(**ETC_EXACT_SETTINGS, refit_every=3), 6)
    assert calls and all(kind == "maximize" for _, kind in calls)


def components(agent: ETCAgent) -> tuple[Any, ...]:
    """What reaches an agent's surrogate and acquisition at reset, and its LCB tracking."""
    env = BOCVSEnv("hartmann3", budget=100.0, n_initial=4)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    surrogate = agent.surrogate
    assert isinstance(surrogate.fitter, MAPFitter)
    return (
        agent.optimizer.polish_samples,
        surrogate.refit_schedule,
        surrogate.fitter.maxiter,
        agent.computation.lcb_tracking,
    )


def test_etc_is_exact_by_default_and_fetc_takes_the_fast_options() -> None:
    fast, exact = (32, "geometric", 20, "revalue"), (None, "every", None, "off")
    assert components(ETCAgent()) == exact
    assert components(ETCAgent(exact=True)) == exact
    assert components(ETCAgent(**ETC_FAST_SETTINGS)) == fast
    assert dict(ETC_EXACT_SETTINGS) == {**EXACT_SETTINGS, "lcb_tracking": "off"}
    assert dict(ETC_FAST_SETTINGS) == {**FAST_SETTINGS, "lcb_tracking": "revalue"}
    fetc = make_agent("fetc")
    assert isinstance(fetc, ETCAgent) and components(fetc) == fast
    fetc_exact = make_agent("fetc", exact=True)
    assert isinstance(fetc_exact, ETCAgent) and components(fetc_exact) == exact
    psq = make_agent("ucb-psq").params()  # type: ignore[attr-defined]
    assert {k: psq[k] for k in FAST_SETTINGS} == FAST_SETTINGS
    psq = make_agent("ucb-psq", exact=True).params()  # type: ignore[attr-defined]
    assert {k: psq[k] for k in EXACT_SETTINGS} == EXACT_SETTINGS


def test_exact_refuses_a_fast_option_it_would_replace() -> None:
    for option in ({"polish_samples": 16}, {"refit_maxiter": 5}):
        with pytest.raises(ValueError, match="exact=True sets"):
            make_agent("ucb-psq", exact=True, **option)
    with pytest.raises(ValueError, match=r"exact=True sets \['lcb_tracking'\]"):
        ETCAgent(exact=True, lcb_tracking="polish")
    # a fast value that equals some default is refused too, on agents exact by default as well
    for name, option in (("etc", {"polish_samples": 32}), ("ts-psq", {"refit_maxiter": 20})):
        with pytest.raises(ValueError, match="exact=True sets"):
            make_agent(name, exact=True, **option)
    again = ETCAgent(**ETCAgent(exact=True).params())  # its own parameters build it again
    assert components(again) == (None, "every", None, "off")


def test_polish_samples_of_at_least_n_samples_polishes_with_every_sample() -> None:
    assert components(ETCAgent(**ETC_FAST_SETTINGS, n_samples=16))[0] is None  # 32 > 16
    assert components(ETCAgent(n_samples=64, polish_samples=64))[0] is None
    with pytest.raises(ValueError, match="polish_samples"):
        ETCAgent(polish_samples=0)


def test_a_warm_refit_is_capped_and_the_first_fit_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    original = botorch.fit.fit_gpytorch_mll
    seen: list[Any] = []

    def spy(mll: Any, **kwargs: Any) -> Any:
        seen.append(kwargs.get("optimizer_kwargs"))
        return original(mll, **kwargs)

    monkeypatch.setattr(botorch.fit, "fit_gpytorch_mll", spy)
    X = torch.rand(20, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = torch.sin(5 * X).sum(-1)
    fitter = MAPFitter(seed=0, maxiter=3)
    hyper = fitter.fit(X[:15], y[:15], initial_hyperparameters(2))
    fitter.fit(X, y, hyper)
    assert seen == [None, {"options": {"maxiter": 3}}]
    with pytest.raises(ValueError, match="maxiter"):
        MAPFitter(maxiter=0)


@pytest.mark.parametrize("name", ["etc", "ucb-psq", "etc-50", "ts-psq"])
def test_the_options_reach_the_agents_by_name(name: str) -> None:
    options = {**OPTIONS, **({"lcb_tracking": "polish"} if name == "etc" else {})}
    assert set(options) <= (accepted_params(name) or set(options))
    agent = make_agent(name, **options)
    assert {k: agent.params()[k] for k in options} == options  # type: ignore[attr-defined]
    env = BOCVSEnv("hartmann3", budget=100.0, n_initial=4)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    assert agent.optimizer.polish_samples == 16  # type: ignore[attr-defined]
    assert agent.surrogate.fitter.maxiter == 5  # type: ignore[attr-defined]


def play_recording(agent: Any, rounds: int) -> list[tuple[int, float, float]]:
    """Play ``rounds`` rounds of hartmann3; per round the played set, the value that
    :meth:`set_maxima` gave it and the all-sample ``E[u]`` at the played query."""
    env = BOCVSEnv("hartmann3", budget=100.0, n_initial=4)
    obs, info = env.reset(seed=0)
    agent.reset(env.task, obs, public_info(info), seed=0)
    found: dict[int, float] = {}
    original = agent.set_maxima

    def spy(sets: Any, bound: Any = "ucb", *args: Any, **kw: Any) -> Any:
        out = original(sets, bound, *args, **kw)
        if bound == "ucb":
            found.update({i: v for i, (v, _) in out.items()})
        return out

    agent.set_maxima = spy
    rows = []
    for _ in range(rounds):
        found.clear()
        action = agent.act(obs)
        i = int(action["control_set"])
        x = torch.as_tensor(action["x"]).unsqueeze(0)
        with torch.no_grad():
            value = float(
                agent.acquisition.expected(
                    agent.surrogate, i, x, "ucb", agent.acquisition_options.beta
                )[0]
            )
        rows.append((i, found[i], value))
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
    return rows


@pytest.mark.parametrize("name", ["etc", "sadcbo", "ucb-cvs-est"])
def test_the_played_query_is_polished_again_on_every_sample(name: str) -> None:
    """With ``polish_samples``, the query played is at least as good on all samples as the
    maximizer found on fewer; with ``polish_played=False`` it is that maximizer. (Agents
    that play sets with random inputs: on the full set every sample is the same query.)"""
    options = {"n_samples": 64, "polish_samples": 8, "refit_every": 3, "hold": None}
    played = play_recording(make_agent(name, **options), 6)
    assert any(value > found + 1e-9 for _, found, value in played)
    assert all(value >= found - 1e-9 for _, found, value in played)
    kept = play_recording(make_agent(name, polish_played=False, **options), 6)
    assert all(value == pytest.approx(found, rel=1e-9) for _, found, value in kept)


@pytest.mark.parametrize("name", ["ts-psq", "etc-50", "ucb-cvs-est"])
def test_the_agents_the_check_did_not_clear_keep_the_exact_settings(name: str) -> None:
    """The paired quality check found TS-PSQ and ETC-50 worse with the fast options and did not cover
    UCB-CVS: their defaults stay exact while UCB-PSQ's (same class family) take the fast
    options; one option still moves."""
    own = make_agent(name).params()  # type: ignore[attr-defined]
    assert {k: own[k] for k in EXACT_SETTINGS} == EXACT_SETTINGS
    ucb = make_agent("ucb-psq").params()  # type: ignore[attr-defined]
    assert (ucb["polish_samples"], ucb["refit_schedule"], ucb["refit_maxiter"]) == (
        32,
        "geometric",
        20,
    )
    exact = make_agent(name, exact=True).params()  # type: ignore[attr-defined]
    assert {**exact, "exact": False} == own
    assert make_agent(name, polish_samples=16).params()["polish_samples"] == 16  # type: ignore[attr-defined]
