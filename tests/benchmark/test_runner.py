"""One run: determinism, provenance and the privileged-parameter hook of UCB-CVS."""

from __future__ import annotations

import builtins
import os
import platform
import time
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch
from bench_helpers import run_in_process, run_one, tiny_sweep

import bocvs_env.env
from agents.policies.random import RandomAgent
from bocvs_env.benchmark import runner
from bocvs_env.benchmark.runner import RunResult, agent_arguments, run_config
from bocvs_env.env import BOCVSEnv
from bocvs_env.problems.costs import COST_SETS


class FakeCostAwareAgent(RandomAgent):
    """Random play, but built like UCB-CVS: it must be given the mean costs."""

    name = "fake-cvs"
    required_params = ("costs",)
    privileged_params = ("costs",)

    def __init__(self, costs: np.ndarray, beta: float = 2.0) -> None:
        super().__init__()
        self.costs = np.asarray(costs)
        self.beta = beta

    def params(self) -> dict[str, Any]:
        return {"costs": self.costs, "beta": self.beta}


def test_same_configuration_same_record(tiny_results: list[RunResult]) -> None:
    again = run_in_process(tiny_sweep())
    for a, b in zip(tiny_results, again, strict=True):
        assert a.config == b.config
        for name in ("control_set", "x", "y", "cost", "g", "set_max"):
            assert np.array_equal(getattr(a.record, name), getattr(b.record, name))
    assert not np.array_equal(tiny_results[0].record.x[:3], tiny_results[1].record.x[:3])


def test_provenance(tiny_results: list[RunResult]) -> None:
    prov = tiny_results[0].provenance
    assert prov["package_version"]
    assert prov["torch_threads"] == 1
    assert prov["agent_name"] == "random"
    assert prov["wall_s"] > 0
    # the run's own CPU time: this process, one torch thread, so not far above the wall time
    assert 0 < prov["cpu_s"] <= prov["wall_s"] * (os.cpu_count() or 1)
    assert tiny_results[0].record.config["problem"] == "hartmann3"
    # the machine, since runs need not reproduce across kinds of CPU
    assert prov["cpu"] == runner.cpu_model()
    assert prov["cpu_capability"] == torch.backends.cpu.get_cpu_capability()


@pytest.mark.skipif(not os.path.isfile("/proc/cpuinfo"), reason="Linux's CPU listing")
def test_the_cpu_model_is_the_listings_model_name() -> None:
    with open("/proc/cpuinfo") as info:
        names = [line.split(":", 1)[1].strip() for line in info if line.startswith("model name")]
    assert names and runner.cpu_model() == names[0]


def test_the_cpu_model_without_a_listing_is_platforms(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable(*args: Any, **kwargs: Any) -> Any:
        raise OSError("no /proc here")

    monkeypatch.setattr(builtins, "open", unreadable)
    assert runner.cpu_model() == platform.processor()


def test_a_runs_times_leave_out_its_settings_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle (the record's set maxima) is computed once per setting, then read from the
    cache: whichever run comes first must not be charged for it (FETC's "within 2x ETC's time"
    compares runs). A fake clock charges 1,000 s for its first computation."""
    clock = [0.0]
    charged: list[bool] = []
    oracle_values = bocvs_env.env.oracle_values

    def computing_once(evaluator: Any) -> np.ndarray:
        if not charged:
            charged.append(True)
            clock[0] += 1000.0
        return oracle_values(evaluator)

    monkeypatch.setattr(bocvs_env.env, "oracle_values", computing_once)
    monkeypatch.setattr(time, "process_time", lambda: clock[0])
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    result = run_config(tiny_sweep().runs()[0])
    assert charged and result.provenance["cpu_s"] == result.provenance["wall_s"] == 0.0


def test_an_agent_asking_for_costs_is_given_the_true_mean_costs() -> None:
    agent = f"{__name__}:FakeCostAwareAgent"
    config = replace(tiny_sweep(budget=1.0).runs()[0], agent=agent, cost_set="moderate")
    env = BOCVSEnv(**config.env_kwargs())
    assert np.array_equal(agent_arguments(config, env)["costs"], COST_SETS["moderate"])
    result = run_config(config)
    assert np.array_equal(result.provenance["agent_params"]["costs"], COST_SETS["moderate"])
    assert np.array_equal(result.record.cost_means, COST_SETS["moderate"])
    tuned = replace(config, agent_params={"beta": 1.0})
    assert agent_arguments(tuned, env)["beta"] == 1.0


def test_other_agents_get_only_their_parameters() -> None:
    config = replace(tiny_sweep().runs()[0], agent_params={"a": 1})
    assert agent_arguments(config, BOCVSEnv(**config.env_kwargs())) == {"a": 1}


def test_the_registered_ucb_cvs_runs_on_true_costs() -> None:
    config = replace(tiny_sweep(budget=0.5).runs()[0], agent="ucb-cvs", cost_set="moderate")
    result = run_one(config)
    params = result.provenance["agent_params"]
    assert params["cost_source"] == "true"
    assert np.array_equal(params["costs"], COST_SETS["moderate"])
    assert result.record.n_evaluations > 0
