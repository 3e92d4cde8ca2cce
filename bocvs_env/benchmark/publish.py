"""The writer of published folders: :func:`publish` writes runs of a store, and the sweeps they
belong to, as a folder of the published format (:mod:`bocvs_env.benchmark.published_schema`)
that every report can be recomputed from, without the SQLite store and without rerunning.

The folder is written whole or not at all (:func:`bocvs_env.benchmark.atomic.write_folder`):
a failed publish leaves the previous folder exactly as it was. Its ``manifest.json`` holds the
size and SHA-256 of each file, the tables' row counts and each sweep's code versions
(:mod:`bocvs_env.benchmark.manifest`), which every reader checks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bocvs_env.benchmark.atomic import write_folder
from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.export import require_pandas, runs_frame
from bocvs_env.benchmark.manifest import (
    ARCHIVE_FILES,
    MANIFEST_FILE,
    README_FILE,
    RUNS_FILE,
    STEPS_FILE,
    SWEEPS_FILE,
    write_manifest,
)
from bocvs_env.benchmark.published_schema import STEP_COLUMNS, documented, readme
from bocvs_env.benchmark.stored_run import StoredRun
from bocvs_env.benchmark.versions import check_each_agent, check_each_sweep


def steps_table(runs: Sequence[StoredRun]) -> Any:
    """One row per evaluated step: :data:`STEP_COLUMNS` (a pandas DataFrame)."""
    pd = require_pandas()
    frames = [
        pd.DataFrame(
            {
                "key": run.key,
                "step": np.arange(1, run.record.n_evaluations + 1, dtype=np.int32),
                "control_set": run.record.control_set.astype(np.int16),
                "cost": run.record.cost.astype(np.float64),
                "g": run.record.g.astype(np.float64),
            }
        )
        for run in runs
    ]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=STEP_COLUMNS)
    return frame.astype({"key": "category"})


def publish(
    runs: Sequence[StoredRun],
    sweeps: Mapping[str, SweepConfig],
    out_dir: str | Path,
    force: bool = False,
    allow_mixed: bool = False,
) -> list[Path]:
    """Write ``runs`` (and the sweeps they belong to) as a published folder; the files' paths.

    A folder may hold sweeps of several code versions (a new agent's sweep beside an archive's,
    each paired with the other by seed), but each sweep's runs, and each agent's, are of one
    version and one numerics mode unless ``allow_mixed``: every report the folder gives, on
    one sweep or on all, reads each agent at one version.

    Raises:
        ValueError: if there are no runs, a column is not documented in :data:`RUN_COLUMNS`,
            the folder holds a file that is not of a published folder, or (unless ``force``)
            it already publishes runs that ``runs`` lack, which writing would drop; before
            anything is written.
        OSError: a full disk (``ENOSPC``, naming the folder, which is left as it was).
        MixedVersionsError: a sweep, or else an agent, whose runs are of several code versions
            or modes (unless ``allow_mixed``), naming it; before anything is written.
    """
    if not runs:
        raise ValueError("no runs to publish")
    published = _sweeps_of(runs, sweeps)
    check_each_sweep(published, lambda keys: [r.provenance for r in runs if r.key in keys],
                      allow_mixed)  # fmt: skip
    check_each_agent(runs, allow_mixed)
    out = Path(out_dir)
    _check_target(out)
    if not force:
        _check_nothing_dropped(out, runs)
    per_run = runs_frame(runs)
    undocumented = [c for c in per_run.columns if not documented(c)]
    if undocumented:
        raise ValueError(f"columns without a description in RUN_COLUMNS: {undocumented}")
    per_step = steps_table(runs)
    configs = {name: s.to_dict() for name, s in published.items()}

    def write(folder: Path) -> None:
        per_run.to_parquet(folder / RUNS_FILE, index=False, compression="zstd")
        per_step.to_parquet(folder / STEPS_FILE, index=False, compression="zstd")
        (folder / SWEEPS_FILE).write_text(json.dumps(configs, indent=1, sort_keys=True) + "\n")
        (folder / README_FILE).write_text(readme(len(per_run), len(per_step)))
        write_manifest(folder, "bocvs publish")

    folder = write_folder(out, write)
    return [folder / name for name in (*ARCHIVE_FILES, MANIFEST_FILE)]


def _check_target(out: Path) -> None:
    """Refuse to publish into ``out`` unless it is new, empty or a published folder (its tables
    and nothing but an archive's files), so that publishing replaces nothing else.

    Raises:
        ValueError: naming the folder and a file it holds (one no published folder has, if
            any).
    """
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file, not a folder to publish into")
    held = sorted(p.name for p in out.iterdir()) if out.exists() else []
    foreign = [name for name in held if name not in (*ARCHIVE_FILES, MANIFEST_FILE)]
    tables = (RUNS_FILE, STEPS_FILE, SWEEPS_FILE)
    if foreign or (held and not all(name in held for name in tables)):
        name = (foreign or held)[0]
        raise ValueError(
            f"{out} holds {name}, but is not a published folder: publish into a new or empty "
            "folder, or over a published one"
        )


def _check_nothing_dropped(out: Path, runs: Sequence[StoredRun]) -> None:
    """Refuse to overwrite a published folder ``out`` that holds runs ``runs`` lack.

    Raises:
        ValueError: naming how many runs writing would drop.
    """
    if not (out / RUNS_FILE).is_file():
        return
    pd = require_pandas()
    try:
        held = set(pd.read_parquet(out / RUNS_FILE, columns=["key"])["key"])
    except (OSError, ValueError) as err:  # Arrow's errors are of these kinds
        raise ValueError(
            f"{out / RUNS_FILE} cannot be read ({err}), so what publishing over it would drop "
            "is not known: pass --force to replace it"
        ) from None
    dropped = held - {r.key for r in runs}
    if dropped:
        raise ValueError(
            f"{out} publishes {len(dropped)} runs that these runs lack; writing would drop "
            "them: publish from a store that holds them (bocvs restore "
            "rebuilds one), or pass --force"
        )


def _sweeps_of(
    runs: Sequence[StoredRun], sweeps: Mapping[str, SweepConfig]
) -> dict[str, SweepConfig]:
    """The sweeps of ``sweeps`` that hold any of ``runs``, in their order.

    A sweep is published with any of its runs, whichever sweep recorded them (a run that two
    sweeps share is recorded once, by the first to run it; the reports select by configuration).
    """
    keys = {r.key for r in runs}
    return {name: sweep for name, sweep in sweeps.items() if keys.intersection(sweep.keys())}
