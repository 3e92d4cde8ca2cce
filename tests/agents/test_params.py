"""An agent's recorded parameters rebuild it.

A benchmark run records the agent's ``params()``; a reader must be able to build the same agent
from them, and a sweep's configured ``agent_params`` (the published data's, the configs', the
presets') must keep building the agents they built when they ran, and the published runs'
recorded ``params()`` rebuild their agents. The fixture
``data/configured_agent_params.json`` holds, for every agent and ``agent_params`` of the
sweeps in ``docs/data/sweeps.json``, ``benchmarks/configs`` and the presets, the ``params()``
they built.

Regenerate (only when an agent's parameters are meant to change, and say why in the commit):
``python tests/agents/test_params.py --write``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bocvs_env.agent_registration import (
    accepted_params,
    agent_class,
    make_agent,
    registered_agents,
)
from bocvs_env.benchmark.config import SWEEP_PRESETS, SweepConfig

ROOT = Path(__file__).parents[2]
FIXTURE = Path(__file__).parent / "data" / "configured_agent_params.json"
#: The true mean costs of the agents that require them (UCB-CVS).
COSTS = [0.1, 0.2, 1.0]
#: Agents that cannot be built without a trained model.
UNBUILDABLE = ("sb3",)
#: Import paths that published runs name and that no longer import, by the registered name of
#: the agent they named: the ``fetc_value_bounds`` study named a variant of FETC by the path of
#: a module removed in 0.3.0.
MOVED = {"agents.fetc:FETCAgent": "fetc"}


def built_params(name: str, **params: Any) -> dict[str, Any]:
    """``params()`` of agent ``name`` built with ``params`` (and :data:`COSTS` if it requires
    costs and ``params`` has none), through JSON as a run records it; a :data:`MOVED` path by
    the name it stands for."""
    name = MOVED.get(name, name)
    required = getattr(agent_class(name), "required_params", ())
    granted = {"costs": COSTS} if "costs" in required and "costs" not in params else {}
    agent = make_agent(name, **granted, **params)
    recorded: dict[str, Any] = json.loads(json.dumps(agent.params(), default=list))  # type: ignore[attr-defined]
    return recorded


def configured() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(source, agent, agent_params)`` of every agent of every known sweep."""
    sweeps = {
        f"docs/data/{name}": SweepConfig.from_dict(data)
        for name, data in json.loads((ROOT / "docs/data/sweeps.json").read_text()).items()
    }
    for path in sorted((ROOT / "benchmarks/configs").glob("*.toml")):
        sweeps[f"benchmarks/configs/{path.stem}"] = SweepConfig.from_file(path)
    sweeps.update({f"preset/{name}": sweep for name, sweep in SWEEP_PRESETS.items()})
    for source, sweep in sweeps.items():
        for agent in sweep.agents:
            if agent.split("@")[0] not in UNBUILDABLE:
                yield source, agent, dict(sweep.agent_params.get(agent, {}))


@pytest.mark.parametrize("name", sorted(set(registered_agents()) - set(UNBUILDABLE)))
def test_an_agent_rebuilt_from_its_params_has_the_same_params(name: str) -> None:
    params = built_params(name)
    assert built_params(name, **params) == params


def test_a_parameter_no_part_of_the_configuration_takes_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['alpha'\]"):
        make_agent("etc", alpha=0.1)
    with pytest.raises(ValueError, match="costs are for cost_source='true'"):
        make_agent("ucb-cvs-est", costs=COSTS)
    assert "cost_source" in (accepted_params("ucb-cvs") or set())


def test_configured_agent_params_build_the_agents_they_built() -> None:
    recorded = json.loads(FIXTURE.read_text())
    now = {f"{s}/{a}": {"given": p, "params": built_params(a, **p)} for s, a, p in configured()}
    assert sorted(now) == sorted(recorded)
    for key, entry in now.items():
        assert entry == recorded[key], key


def test_the_published_runs_agent_settings_rebuild_their_agents() -> None:
    """Every published run's recorded ``params()`` (``agent_settings``) and its configured
    ``agent_params`` build an agent with those ``params()``."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    columns = ["agent", "agent_params", "agent_settings"]
    runs = pd.read_parquet(ROOT / "docs/data/runs.parquet", columns=columns).drop_duplicates()
    for agent, given, settings in runs.itertuples(index=False):
        recorded = json.loads(settings)
        assert built_params(agent, **recorded) == recorded, agent
        assert built_params(agent, **json.loads(given)) == recorded, agent


def main(argv: list[str]) -> None:
    """``--write``: record the fixture."""
    if argv != ["--write"]:
        raise SystemExit("usage: python tests/agents/test_params.py --write")
    fixture = {f"{s}/{a}": {"given": p, "params": built_params(a, **p)} for s, a, p in configured()}
    FIXTURE.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
