"""Sweep configurations: the grid, run keys, config files and presets."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from bocvs_env.benchmark.config import PRESETS, RunConfig, SweepConfig, preset


def _sweep(**kw) -> SweepConfig:
    return SweepConfig(**{"name": "s", "problems": ["hartmann3"], **kw})


def test_grid_is_the_product_with_defaults_resolved() -> None:
    sweep = _sweep(
        problems=["hartmann3", "hartmann6_12d"],
        cost_sets=["cheap", "moderate"],
        variances=[0.02, 0.04],
        agents=["random", "etc"],
        seeds=3,
    )
    runs = sweep.runs()
    assert len(runs) == 2 * 2 * 2 * 2 * 3
    assert len({r.key() for r in runs}) == len(runs)
    budgets = {r.problem: r.budget for r in runs}
    assert budgets == {"hartmann3": 50.0, "hartmann6_12d": 100.0}
    assert runs[0].problem_options == {"noise_std": 0.01, "cost_noise_std": 0.02, "n_initial": 5}
    assert [r.seed for r in runs[:3]] == [0, 1, 2]


def test_key_identifies_the_run() -> None:
    run = _sweep(budgets=[5]).runs()[0]
    assert run.key() == RunConfig.from_dict(json.loads(json.dumps(run.to_dict()))).key()
    assert run.key() != replace(run, seed=1).key()
    assert run.key() != replace(run, agent_params={"x": 1}).key()
    explicit = _sweep(budgets=[5], problem_options={"noise_std": 0.01}).runs()[0]
    assert explicit.key() == run.key()
    located = replace(run, problem_options={**run.problem_options, "data_dir": "/elsewhere"})
    assert located.key() == run.key()


def test_agent_params_go_to_their_agent() -> None:
    runs = _sweep(agents=["random", "etc"], agent_params={"etc": {"beta": 3.0}}).runs()
    assert {r.agent: dict(r.agent_params) for r in runs} == {"random": {}, "etc": {"beta": 3.0}}


@pytest.mark.parametrize(
    ("kw", "error", "message"),
    [
        ({"problems": ["nope"]}, ValueError, "unknown problems"),
        ({"cost_sets": ["free"]}, ValueError, "unknown cost sets"),
        ({"variances": [0.0]}, ValueError, "variances"),
        ({"budgets": [-1]}, ValueError, "budgets"),
        ({"seeds": 0}, ValueError, "seeds"),
        ({"seeds": [1, 1]}, ValueError, "seeds repeat"),
        ({"agents": []}, ValueError, "agents"),
        ({"agents": [3]}, TypeError, "agents"),
        ({"agent_params": {"etc": {}}}, ValueError, "not in the sweep"),
        ({"name": ""}, ValueError, "name"),
    ],
)
def test_bad_sweeps_are_refused(kw: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _sweep(**kw)


def test_config_files(tmp_path: Path) -> None:
    toml = tmp_path / "mine.toml"
    toml.write_text(
        'problems = ["hartmann3"]\nagents = ["random"]\nseeds = [3, 5]\nbudgets = [7]\n'
        "[agent_params.random]\n\n[problem_options]\nn_initial = 2\n"
    )
    sweep = SweepConfig.from_file(toml)
    assert sweep.name == "mine"
    assert [(r.seed, r.budget, r.problem_options["n_initial"]) for r in sweep.runs()] == [
        (3, 7.0, 2),
        (5, 7.0, 2),
    ]
    js = tmp_path / "same.json"
    js.write_text(json.dumps({**sweep.to_dict(), "name": "mine"}))
    assert SweepConfig.from_file(js) == sweep


@pytest.mark.parametrize(
    ("name", "text", "error", "message"),
    [
        ("a.yaml", "problems: [x]", ValueError, ".toml or .json"),
        ("a.toml", "problems = [", ValueError, "cannot parse"),
        ("a.json", '{"problems": ["hartmann3"], "seed": 1}', ValueError, "unknown sweep fields"),
        ("a.json", '{"agents": ["random"]}', ValueError, "needs 'problems'"),
        ("a.json", "[1, 2]", ValueError, "top level"),
    ],
)
def test_bad_config_files(tmp_path: Path, name: str, text: str, error: type, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(error, match=message):
        SweepConfig.from_file(path)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no sweep config"):
        SweepConfig.from_file(tmp_path / "none.toml")


def test_presets() -> None:
    assert set(PRESETS) == {"quick", "paper"}
    quick = preset("quick")
    assert {"random", "etc", "ucb-psq"} <= set(quick.agents)
    paper = preset("paper")
    assert set(paper.problems) == {"hartmann6_12d", "ackley6_12d", "plant", "airfoil"}
    assert set(paper.agents) == {"etc", "ucb-psq", "ts-psq", "etc-50", "random"}
    assert len(paper.runs()) == 4 * 2 * 2 * 5 * 5
    assert {r.budget for r in paper.runs()} == {100.0}
    with pytest.raises(ValueError, match="unknown preset"):
        preset("huge")


def test_overrides_keep_the_rest() -> None:
    sweep = preset("quick").with_overrides(seeds=5, agents=None)
    assert sweep.seeds == tuple(range(5))
    assert sweep.agents == preset("quick").agents


@pytest.mark.parametrize("name", ["fetc_ablation", "fetc_dev"])
def test_fetc_sweep_configs_load_and_name_registered_agents(name: str) -> None:
    from agents.fetc_ablation import COMPONENTS
    from bocvs_env.benchmark.sweep import check_agents

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "configs" / f"{name}.toml"
    sweep = SweepConfig.from_file(path)
    check_agents(sweep)
    assert {"etc", "fetc", *COMPONENTS} <= set(sweep.agents)  # each change alone, and all
    if name == "fetc_dev":  # development settings share nothing with the paper's grid
        grid = preset("paper")
        assert not set(sweep.problems) & set(grid.problems)
        assert not set(sweep.variances) & set(grid.variances)
