"""An agent defined outside the repository runs in ``bocvs run``: named by ``module:Class``
(on the command line and in a sweep file) and by entry point, resolved again by name in the
local executor's worker processes."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.env import BOCVSEnv

AGENT_SOURCE = '''
"""A third-party agent: it imports only the environment side of bocvs."""

import numpy as np

from bocvs_env.agent import Action, Observation


class FirstSetAgent:
    """Plays control set 0 with every input at ``value``, every round."""

    name = "first-set"

    def __init__(self, value: float = 0.5) -> None:
        self.value = value

    def reset(self, task, observation: Observation, info, seed=None) -> None:
        self.dim = task.dim

    def act(self, observation: Observation) -> Action:
        return {"control_set": 0, "x": np.full(self.dim, self.value)}

    def observe(self, action, observation, reward, terminated, truncated, info) -> None:
        pass
'''

RUN = ["run", "--problems", "hartmann3", "--budgets", "2", "--seeds", "1", "--workers", "1"]


def outside_module(where: Path, module: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Write the agent's module into ``where`` (outside the repository) and put ``where`` on
    the path of this process and of the workers it starts."""
    where.mkdir(parents=True, exist_ok=True)
    (where / f"{module}.py").write_text(AGENT_SOURCE)
    monkeypatch.syspath_prepend(str(where))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(where), os.environ.get("PYTHONPATH", "")])
    )
    return where


def assert_stored_runs_of_first_set_agent(store_path: Path, agent: str, value: float) -> None:
    """The store holds one run of ``agent``, with the records of :class:`FirstSetAgent`."""
    with ResultStore(store_path, create=False) as store:
        runs = store.runs()
    assert [r.config.agent for r in runs] == [agent]
    record = runs[0].record
    assert record.agent == agent  # runs are tabled under the name the sweep gave
    assert runs[0].provenance["agent_name"] == "first-set"  # the agent's own name
    assert record.n_evaluations > 0
    assert np.all(record.control_set == 0)
    controlled = list(BOCVSEnv(problem="hartmann3").task.control_sets[0])
    assert np.all(record.x[:, controlled] == value)


def run_and_check(tmp_path: Path, agent: str, *options: str, value: float = 0.5) -> None:
    """``bocvs run`` of ``agent`` (flags, or a sweep file among ``options``) stores one run
    with :class:`FirstSetAgent`'s records at ``value``."""
    store = tmp_path / "s.db"
    sweep = options or (*RUN, "--agents", agent)
    assert main([*sweep, "--store", str(store), "--no-plot"]) == 0
    assert_stored_runs_of_first_set_agent(store, agent, value)


def test_agent_by_module_and_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside_module(tmp_path / "elsewhere", "outsider_by_path", monkeypatch)
    run_and_check(tmp_path, "outsider_by_path:FirstSetAgent")


def test_agent_by_module_and_class_in_a_sweep_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside_module(tmp_path / "elsewhere", "outsider_in_file", monkeypatch)
    agent = "outsider_in_file:FirstSetAgent"
    config = tmp_path / "sweep.toml"
    config.write_text(
        f'name = "outside"\nproblems = ["hartmann3"]\nbudgets = [2]\nseeds = 1\n'
        f'agents = ["{agent}"]\n[agent_params."{agent}"]\nvalue = 0.25\n'
    )
    run_and_check(tmp_path, agent, "run", "--config", str(config), "--workers", "1", value=0.25)


def test_agent_by_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    where = outside_module(tmp_path / "site", "outsider_by_entry_point", monkeypatch)
    dist_info = where / "outsider-0.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: outsider\nVersion: 0.0\n")
    (dist_info / "entry_points.txt").write_text(
        "[bocvs.agents]\nfirst-set = outsider_by_entry_point:FirstSetAgent\n"
    )
    run_and_check(tmp_path, "first-set")


def test_variants_of_one_agent_run_apart_each_with_its_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``name@label`` is the same agent under a name of its own: one sweep compares two
    configurations of it run for run (seed for seed), each stored and tabled apart."""
    outside_module(tmp_path / "elsewhere", "outsider_variants", monkeypatch)
    low, high = "outsider_variants:FirstSetAgent@low", "outsider_variants:FirstSetAgent@high"
    config = tmp_path / "sweep.toml"
    config.write_text(
        f'name = "variants"\nproblems = ["hartmann3"]\nbudgets = [2]\nseeds = 1\n'
        f'agents = ["{low}", "{high}"]\n'
        f'[agent_params."{low}"]\nvalue = 0.25\n[agent_params."{high}"]\nvalue = 0.75\n'
    )
    store = tmp_path / "s.db"
    assert main(["run", "--config", str(config), "--workers", "1", "--store", str(store)]) == 0
    with ResultStore(store, create=False) as stored:
        runs = {r.config.agent: r for r in stored.runs()}
    assert set(runs) == {low, high}
    assert runs[low].config.key() != runs[high].config.key()
    for agent, value in ((low, 0.25), (high, 0.75)):
        assert runs[agent].record.agent == agent
        controlled = list(BOCVSEnv(problem="hartmann3").task.control_sets[0])
        assert np.all(runs[agent].record.x[:, controlled] == value)


def test_an_unknown_or_unimportable_agent_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "s.db")
    assert main([*RUN, "--agents", "ghost", "--store", store]) == 2
    assert "unregistered agents ['ghost']" in capsys.readouterr().err
    assert main([*RUN, "--agents", "no_such_module:Agent", "--store", store]) == 2
    assert "cannot import 'no_such_module'" in capsys.readouterr().err
    assert main([*RUN, "--agents", "random@", "--store", store]) == 2
    assert "a variant label after '@'" in capsys.readouterr().err
    assert main([*RUN, "--agents", "ghost@fast", "--store", store]) == 2
    assert "unregistered agents ['ghost@fast']" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs ray")
def test_ray_workers_resolve_an_agent_by_module_and_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside_module(tmp_path / "elsewhere", "outsider_on_ray", monkeypatch)
    agent = "outsider_on_ray:FirstSetAgent"
    run_and_check(tmp_path, agent, *RUN, "--agents", agent, "--executor", "ray")


def test_a_broken_outside_agent_fails_in_one_line_before_the_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bocvs run`` checks an agent that is not bocvs's own on a short episode first: one that
    leaves the action space fails with exit 2 in one line, before the store exists."""
    where = outside_module(tmp_path / "elsewhere", "broken_party", monkeypatch)
    source = AGENT_SOURCE.replace("np.full(self.dim, self.value)", "np.full(self.dim, 2.0)")
    (where / "broken_party.py").write_text(source)
    store = tmp_path / "s.db"
    argv = [*RUN, "--agents", "broken_party:FirstSetAgent", "--store", str(store), "--no-plot"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bocvs run: error: sweep 'cli-")
    assert "agent 'first-set': act() at step 1 returned an action outside the action space" in err
    assert "\n" not in err and not store.exists()
