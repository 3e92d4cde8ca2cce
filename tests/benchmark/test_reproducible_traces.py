"""Golden traces in ``reproducible`` numerics, one set per CPU vendor: the pins make a run the
same across the instruction sets of one vendor's CPUs (as far as measured), but Intel's and
AMD's traces were measured to differ, so the fixtures are kept per vendor
(:func:`~bocvs_env.benchmark.runner.cpu_vendor`, e.g. ``GenuineIntel``) and on a vendor with
none the test skips and says so (see docs/reproducibility.md).

One short run of each agent family (random; ETC; UCB-PSQ and TS-PSQ; UCB-CVS; SADCBO; EI per
cost), seed 0, budget :data:`BUDGET` (:data:`BUDGETS`), cheap costs, variance 0.02, on a synthetic problem
(hartmann3) and a data problem (plant), made by the benchmark's own path: a sweep on a
:class:`~bocvs_env.benchmark.executors.LocalExecutor` whose workers start with the pins in
their environment. Every step's set, query, observation, cost and ``g`` is compared bit for bit
with ``data/reproducible_traces/<vendor>/<problem>.json`` (floats as ``float.hex``), and each
run's provenance must show the pins in force.

The fixtures hold for one code version and one set of library versions (numpy, SciPy, torch,
gpytorch, BoTorch), recorded in them; the per-kind fixtures of ``fast`` mode are
``tests/agents/test_decisions_unchanged.py``'s. Regenerate these only when decisions or a
library are meant to change, and say why in the commit (this writes the fixtures of this
machine's vendor only)::

    BOCVS_DATA_DIR=<data folder> python tests/benchmark/test_reproducible_traces.py --write
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.executors import LocalExecutor
from bocvs_env.benchmark.runner import cpu_model, cpu_vendor
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.sweep import run_sweep
from bocvs_env.benchmark.versions import dependency_versions
from bocvs_env.numerics import PINNED_SETTINGS

#: This vendor's fixtures.
FIXTURES = Path(__file__).parent / "data" / "reproducible_traces" / cpu_vendor()
#: One agent of each family.
AGENTS = ("random", "etc", "ucb-psq", "ts-psq", "ucb-cvs", "sadcbo", "ei-cost")
#: A few GP decisions per agent after the 5 free initial points (cheap costs: 0.01 to 1; UCB-PSQ
#: and TS-PSQ play the full set, of cost 1, at every step).
BUDGETS = {"ucb-psq": 5.0, "ts-psq": 5.0}
BUDGET = 2.0
TRACE = ("control_set", "x", "y", "cost", "g")


def _hex(values: Any) -> Any:
    """Floats (nested lists of them) as exact hex strings; integers as they are."""
    if isinstance(values, list):
        return [_hex(v) for v in values]
    return values if isinstance(values, int) else float(values).hex()


def traces(problem: str, workers: int = 2) -> dict[str, Any]:
    """Run the agents on ``problem`` in ``reproducible`` numerics; their traces and the
    versions and CPU that made them."""
    budgets = {a: BUDGETS.get(a, BUDGET) for a in AGENTS}
    with tempfile.TemporaryDirectory() as folder:
        with ResultStore(Path(folder) / "golden.db") as store:
            for budget in sorted(set(budgets.values())):
                sweep = SweepConfig(
                    name=f"golden-{problem}-{budget:g}", problems=(problem,), budgets=(budget,),
                    agents=[a for a in AGENTS if budgets[a] == budget], numerics="reproducible",
                )  # fmt: skip
                with LocalExecutor(workers, "reproducible") as executor:
                    report = run_sweep(sweep, store, executor)
                assert not report.failed, report.failed[0][1]
            runs = store.runs()
    for run in runs:
        _check_pinned(run)
    return {
        "versions": dependency_versions(),
        "made_on": cpu_model(),
        "runs": {
            run.config.agent: {k: _hex(getattr(run.record, k).tolist()) for k in TRACE}
            for run in sorted(runs, key=lambda r: AGENTS.index(r.config.agent))
        },
    }


def _check_pinned(run: StoredRun) -> None:
    """The run was made with every pin of ``reproducible`` mode in force."""
    settings = {k: run.provenance.get(k) for k in PINNED_SETTINGS}
    assert run.provenance.get("numerics") == "reproducible" and settings == PINNED_SETTINGS


def _first_difference(got: dict[str, Any], want: dict[str, Any]) -> str | None:
    """Where two runs' traces first differ (``None``: they do not)."""
    for step, values in enumerate(zip(*(want[k] for k in TRACE), strict=True)):
        mine = tuple(got[k][step] if step < len(got[k]) else None for k in TRACE)
        if mine != values:
            fields = [k for k, a, b in zip(TRACE, mine, values, strict=True) if a != b]
            return f"step {step}: {', '.join(fields)}"
    return None if len(got["control_set"]) == len(want["control_set"]) else "length"


def check(problem: str) -> None:
    """Compare ``problem``'s traces made here with its fixture, naming each run that differs."""
    fixture = FIXTURES / f"{problem}.json"
    if not fixture.is_file():
        pytest.skip(f"no golden traces for this CPU vendor ({cpu_vendor()}); see the docstring")
    want = json.loads(fixture.read_text())
    got = traces(problem)
    differ = {}
    for agent in AGENTS:
        where = _first_difference(got["runs"][agent], want["runs"][agent])
        if where is not None:
            differ[agent] = where
    versions = "" if got["versions"] == want["versions"] else (
        f"; the libraries differ from the fixture's ({want['versions']}): regenerate it"
    )  # fmt: skip
    assert not differ, f"{problem}: traces differ from {want['made_on']}'s: {differ}{versions}"


def _on_x86_64() -> None:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip(f"reproducible mode pins x86-64 kernels; this is {platform.machine()}")


@pytest.mark.slow
def test_a_synthetic_problem_gives_the_golden_traces_in_reproducible_mode() -> None:
    _on_x86_64()
    check("hartmann3")


@pytest.mark.slow
def test_a_data_problem_gives_the_golden_traces_in_reproducible_mode(data_dir: Path) -> None:
    _on_x86_64()
    check("plant")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: {sys.argv[0]} --write   (with BOCVS_DATA_DIR set, for plant)")
    os.environ.setdefault("BOCVS_CACHE_DIR", tempfile.mkdtemp(prefix="bocvs-cache-"))
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in ("hartmann3", "plant"):
        made = traces(name)
        path = FIXTURES / f"{name}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(made, indent=1) + "\n")
        tmp.replace(path)
        print(f"wrote {path}: {len(made['runs'])} runs on {made['made_on']}")
