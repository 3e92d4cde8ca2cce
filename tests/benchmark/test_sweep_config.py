"""Sweep configurations: the grid, run keys, config files and presets, and the check of a\nwhole sweep before anything is stored."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import sweep_seeds

from agents.base import BaseAgent
from bocvs_env.agent_registration import make_agent
from bocvs_env.benchmark.config import SWEEP_PRESETS, RunConfig, SweepConfig, preset
from bocvs_env.benchmark.executors import LocalExecutor
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.benchmark.sweep import check_sweep, run_sweep


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


def test_keys_select_shared_runs_whatever_the_sweep_name() -> None:
    """A sweep's keys are its runs' digests in order; a sweep under another name that shares
    configurations shares their keys (so its reports find runs the first sweep recorded)."""
    five = _sweep(agents=["random", "etc"], seeds=5)
    assert five.keys() == [r.key() for r in five.runs()]
    two = five.with_overrides(name="other", seeds=2)
    assert set(two.keys()) < set(five.keys())
    assert set(five.with_overrides(seeds=[7]).keys()).isdisjoint(five.keys())


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
        ({"name": "../outside"}, ValueError, "never a path"),
        ({"name": "/tmp/abs"}, ValueError, "never a path"),
        ({"name": "a/b"}, ValueError, "never a path"),
        ({"name": ".hidden"}, ValueError, "never a path"),
        ({"variances": [0.02, 0.5]}, ValueError, r"variances must lie in \(0, 1/12\)"),
        ({"seeds": [3, -1]}, ValueError, "seeds must be integers >= 0"),
        ({"problem_options": {"budget": 3}}, ValueError, r"may not set \['budget'\]"),
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


def test_a_sweep_names_its_numerics_mode_outside_its_definition(tmp_path: Path) -> None:
    """``numerics`` says how the runs are computed, not which: the digest ignores it."""
    toml = tmp_path / "pinned.toml"
    toml.write_text('problems = ["hartmann3"]\nnumerics = "reproducible"\n')
    pinned = SweepConfig.from_file(toml)
    assert pinned.numerics == "reproducible" and _sweep().numerics is None
    assert pinned.digest() == replace(pinned, numerics=None).digest()
    assert pinned.keys() == replace(pinned, numerics=None).keys()
    assert SweepConfig.from_dict(pinned.to_dict()) == pinned
    with pytest.raises(ValueError, match="numerics mode must be one of"):
        replace(pinned, numerics="exact")  # type: ignore[arg-type]


def test_a_sweep_file_sets_a_time_limit_per_run_outside_its_definition(tmp_path: Path) -> None:
    """``run_timeout`` says how long a run may take, not which runs: the digest and the keys
    ignore it, and a sweep without one records as before."""
    toml = tmp_path / "limited.toml"
    toml.write_text('problems = ["hartmann3"]\nrun_timeout = 90\n')
    limited = SweepConfig.from_file(toml)
    assert limited.run_timeout == 90.0 and _sweep().run_timeout is None
    assert limited.digest() == replace(limited, run_timeout=None).digest()
    assert limited.keys() == replace(limited, run_timeout=None).keys()
    assert SweepConfig.from_dict(limited.to_dict()) == limited
    assert "run_timeout" not in _sweep().to_dict()
    bads: tuple[Any, ...] = (0, -1, float("inf"), "soon", True)
    for bad in bads:
        with pytest.raises(ValueError, match=f"run_timeout .* got {bad!r}"):
            replace(limited, run_timeout=bad)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no sweep config"):
        SweepConfig.from_file(tmp_path / "none.toml")


def test_presets() -> None:
    assert set(SWEEP_PRESETS) == {"quick", "paper"}
    quick = preset("quick")
    assert {"random", "etc", "ucb-psq"} <= set(quick.agents)
    paper = preset("paper")
    assert set(paper.problems) == {"hartmann6_12d", "ackley6_12d", "plant", "airfoil"}
    assert set(paper.agents) == {"etc", "ucb-psq", "ts-psq", "etc-50", "random"}
    assert len(paper.runs()) == 4 * 2 * 2 * 5 * 5
    assert {r.budget for r in paper.runs()} == {100.0}
    with pytest.raises(ValueError, match="unknown preset"):
        preset("huge")


def test_the_former_name_of_the_sweep_presets_is_an_alias() -> None:
    import bocvs_env.benchmark as benchmark

    assert benchmark.PRESETS is benchmark.SWEEP_PRESETS is SWEEP_PRESETS


def test_overrides_keep_the_rest() -> None:
    sweep = preset("quick").with_overrides(seeds=5, agents=None)
    assert sweep.seeds == tuple(range(5))
    assert sweep.agents == preset("quick").agents


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (
            {"agent_params": {"random": {"nonsense": 1}}},
            r"'random' takes no parameters \['nonsense'\]",
        ),
        (
            {"agents": ["etc"], "agent_params": {"etc": {"bta": 2.0}}},
            r"takes no parameters \['bta'\]",
        ),
        (
            {"agents": ["etc"], "agent_params": {"etc": {"explore_fraction": 2.0}}},
            "explore_fraction",
        ),
        ({"agents": ["sb3"]}, r"needs the parameters \['model'\]"),
        ({"agents": ["ghost"]}, "unregistered agents"),
        ({"problem_options": {"foo": 1}}, r"takes no options \['foo'\]"),
        ({"problem_options": {"n_initial": -1}}, "n_initial"),
        ({"problem_options": {"function_seed": 1}}, "function_seed"),
        ({"problems": ["plant"], "problem_options": {"data_dir": "/no/such/dir"}}, "/no/such/dir"),
    ],
)
def test_a_sweep_is_checked_whole_before_anything_is_stored(
    tmp_path: Path, kw: dict, message: str
) -> None:
    """Each of these fails in every worker; the check finds it first, and the store is left
    without the sweep (and without any run)."""
    sweep = _sweep(budgets=[1.0], **kw)
    with pytest.raises(ValueError, match=message):
        check_sweep(sweep)
    with ResultStore(tmp_path / "s.db") as store:
        with pytest.raises(ValueError, match=message):
            run_sweep(sweep, store, LocalExecutor(1))
        assert store.sweeps() == {} and len(store) == 0


def test_a_corrupt_data_file_is_found_by_the_check(tmp_path: Path) -> None:
    (tmp_path / "plant_svgp.npz").write_bytes(b"not an npz")
    sweep = _sweep(problems=["plant"], problem_options={"data_dir": str(tmp_path)})
    with pytest.raises(ValueError, match=r"plant_svgp\.npz: not a readable npz"):
        check_sweep(sweep)


@pytest.mark.parametrize("name", ["fetc_ablation", "fetc_dev"])
def test_fetc_sweep_configs_load_and_name_registered_agents(name: str) -> None:
    from agents.policies.etc import COMPONENTS
    from bocvs_env.benchmark.sweep import check_agents

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "configs" / f"{name}.toml"
    sweep = SweepConfig.from_file(path)
    check_agents(sweep)
    assert {"etc", "fetc", *COMPONENTS} <= set(sweep.agents)  # each change alone, and all
    if name == "fetc_dev":  # development settings share nothing with the paper's grid
        grid = preset("paper")
        assert not set(sweep.problems) & set(grid.problems)
        assert not set(sweep.variances) & set(grid.variances)


def test_the_value_bounds_sweep_pairs_fetc_with_its_averaged_bounds_off_the_grid() -> None:
    """FETC's one change made after the grid ran is checked on the development settings only:
    the same cells as fetc_dev, FETC against FETC with ``value_bounds="current"``."""
    from agents.policies.etc import ETCAgent, FETCRules
    from agents.policies.etc.value_bounds import SetValueBounds
    from bocvs_env.benchmark.sweep import check_agents

    sweep, dev = _config("fetc_value_bounds"), _config("fetc_dev")
    check_agents(sweep)
    assert _cells(sweep) == _cells(dev) and sweep.budgets == dev.budgets
    (other,) = [a for a in sweep.agents if a != "fetc"]
    assert sweep.agents == ("fetc", other) and sweep.agent_params == {
        other: {"value_bounds": "current"}
    }
    fetc, averaged = make_agent("fetc"), make_agent(other)
    assert type(fetc) is type(averaged) is ETCAgent
    assert fetc.name == averaged.name == "fetc"
    assert isinstance(fetc.rules, FETCRules) and fetc.rules.value_bounds is SetValueBounds


def _config(name: str) -> SweepConfig:
    return SweepConfig.from_file(
        Path(__file__).resolve().parents[2] / "benchmarks" / "configs" / f"{name}.toml"
    )


def _cells(sweep: SweepConfig) -> set[tuple[str, str, float]]:
    return {(p, c, v) for p in sweep.problems for c in sweep.cost_sets for v in sweep.variances}


def test_the_final_grid_is_the_papers_with_every_agent_and_ten_seeds() -> None:
    from bocvs_env.benchmark.sweep import check_agents

    grid, paper = _config("grid"), preset("paper")
    check_agents(grid)
    assert _cells(grid) == _cells(paper) and grid.budgets == paper.budgets
    assert {*paper.agents, "fetc", "sadcbo", "ei-cost"} <= set(grid.agents)
    assert list(sweep_seeds(grid)) == list(range(10))
    assert grid.numerics == "reproducible" == paper.numerics == preset("quick").numerics


@pytest.mark.parametrize(
    "name", ["grid_levy6", "grid_hartmann6_expensive", "grid_hartmann6_variance08"]
)
def test_the_settings_beyond_the_paper_are_new_cells_with_the_grids_agents(name: str) -> None:
    from bocvs_env.benchmark.sweep import check_agents

    grid, beyond = _config("grid"), _config(name)
    check_agents(beyond)
    assert beyond.agents == grid.agents and beyond.budgets == grid.budgets
    assert _cells(beyond) and not _cells(beyond) & _cells(grid)
    assert list(sweep_seeds(beyond)) == list(range(5))
    assert beyond.numerics == "reproducible"


def test_the_fast_options_check_pairs_every_paper_agent_with_its_exact_variant() -> None:
    """The paired check of the fast computation settings (``fast_quality.toml``): ``X`` at the
    fast defaults and ``X@exact`` at the exact settings, for every model-based agent of the
    paper, on the paper's panels and seeds 0-4."""
    from agents import make_agent
    from agents.policies.etc import ETC_EXACT_SETTINGS
    from agents.policies.model_based import EXACT_SETTINGS
    from bocvs_env.benchmark.sweep import check_agents

    check, paper = _config("fast_quality"), preset("paper")
    check_agents(check)
    assert _cells(check) == _cells(paper) and list(sweep_seeds(check)) == list(range(5))
    model_based = [a for a in paper.agents if a != "random"]
    assert set(check.agents) == {*model_based, *(f"{a}@exact" for a in model_based)}
    assert not any(a in check.agent_params for a in model_based)  # the fast defaults
    for name in model_based:
        exact_agent = make_agent(name, **check.agent_params[f"{name}@exact"])
        assert isinstance(exact_agent, BaseAgent)
        exact = exact_agent.params()
        settings = ETC_EXACT_SETTINGS if name == "etc" else EXACT_SETTINGS
        assert {k: exact[k] for k in settings} == settings
        fast_agent = make_agent(name)
        assert isinstance(fast_agent, BaseAgent)
        fast = fast_agent.params()
        if name in ("etc", "ts-psq", "etc-50"):  # their defaults are exact (the check)
            assert {k: fast[k] for k in settings} == settings
        else:
            assert all(fast[k] != v for k, v in settings.items())  # every option differs
