"""Published runs reproduce: the agents of this tree, rerun on runs of ``docs/data``'s grid,
play the same sets at the same costs and values, step for step.

The test reruns, for every agent of the grid, its two cheapest published runs (by their recorded
wall time) among seeds 5-9, and requires the control set, the cost and ``g`` of every step to be
bit-identical to the published ones. A change to the agents that is meant to keep their
decisions (a refactoring) must pass it.

The archive was made with the machine's own floating-point kernels on an AMD EPYC with AVX-512,
one torch thread a run; another kind of CPU's kernels give values that differ in the last digits,
enough to move a maximizer and then later decisions. On another kind of CPU the test skips.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from bocvs_env.benchmark.published import PublishedRuns
from bocvs_env.benchmark.runner import cpu_kind, cpu_model, run_config
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.verify import first_divergence

ROOT = Path(__file__).parents[2]
PUBLISHED = ROOT / "docs" / "data"
SWEEP = "grid"
SEEDS = range(5, 10)
#: Reruns per agent, the cheapest first.
PER_AGENT = 2


#: The kind of CPU the archive was made on (:func:`~bocvs_env.benchmark.runner.cpu_kind`).
ARCHIVE_KIND = "AuthenticAMD-AVX512"


def archive_cpu() -> str | None:
    """Why this machine cannot reproduce the archive's kernels, or ``None`` if it can."""
    kind = cpu_kind()
    if kind == ARCHIVE_KIND:
        return None
    return (
        f"the published runs were made with the kernels of an AMD EPYC with AVX-512 "
        f"({ARCHIVE_KIND}); this CPU is {cpu_model()} ({kind}), whose kernels give other last "
        f"digits"
    )


def chosen_keys() -> list[str]:
    """The runs to redo: per agent of the grid, the :data:`PER_AGENT` cheapest of seeds 5-9."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    runs = pd.read_parquet(
        PUBLISHED / "runs.parquet", columns=["key", "sweep", "agent", "seed", "problem", "wall_s"]
    )
    grid = runs[(runs["sweep"] == SWEEP) & runs["seed"].isin(list(SEEDS))]
    cheapest = grid.sort_values(["wall_s", "key"]).groupby("agent").head(PER_AGENT)
    return sorted(cheapest["key"])


def published_runs() -> dict[str, StoredRun]:
    """The chosen published runs by key."""
    with PublishedRuns(PUBLISHED) as source:
        return {run.key: run for run in source.runs(chosen_keys())}


@pytest.mark.slow
def test_published_grid_runs_reproduce_bit_for_bit(data_dir: Path) -> None:
    reason = archive_cpu()
    if reason is not None:
        pytest.skip(reason)
    runs = published_runs()
    agents = {run.config.agent for run in runs.values()}
    problems = {run.config.problem for run in runs.values()}
    assert len(runs) >= 16 and len(agents) >= 8 and len(problems) >= 3
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the published runs
    try:
        for key, run in runs.items():
            diverged = first_divergence(run.record, run_config(run.config).record)
            assert diverged is None, f"{run.config.label()} ({key}): step, fields {diverged}"
    finally:
        torch.set_num_threads(threads)
