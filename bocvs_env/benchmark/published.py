"""The reader of published folders: :class:`PublishedRuns` reads a folder written by
:func:`~bocvs_env.benchmark.publish.publish` (:mod:`bocvs_env.benchmark.published_schema`)
back into :class:`~bocvs_env.benchmark.stored_run.StoredRun` objects with the same figures
(``x`` has no columns and ``y`` is NaN), so that ``bocvs table``, ``plot``, ``compare`` and the
docs' scripts read it exactly as they read a result store
(:func:`bocvs_env.benchmark.run_sources.open_runs`). It reads a folder only once the folder has
passed its manifest's checks (:mod:`bocvs_env.benchmark.manifest`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bocvs_env.benchmark.config import CONFIG_VERSION, RunConfig, SweepConfig
from bocvs_env.benchmark.export import PROVENANCE_COLUMNS, require_pandas
from bocvs_env.benchmark.manifest import (
    RUNS_FILE,
    STEPS_FILE,
    SWEEPS_FILE,
    check_folder,
    check_sweeps_file,
)
from bocvs_env.benchmark.published_schema import (
    CONFIG_COLUMNS,
    RUN_COLUMNS,
    STEP_COLUMNS,
    missing_columns,
)
from bocvs_env.benchmark.selection import RunFilter
from bocvs_env.benchmark.stored_run import StoredRun
from bocvs_env.evaluation import EpisodeRecord


def _per_set(row: Mapping[str, Any], prefix: str) -> np.ndarray:
    values = [row[c] for c in row if c.startswith(prefix) and c[len(prefix) :].isdigit()]
    array = np.asarray(values, dtype=np.float64)
    return array[~np.isnan(array)]


def _empty(value: Any) -> bool:
    """Whether a published cell is empty (``None``, or NaN as pandas reads a missing value)."""
    return value is None or (isinstance(value, float) and np.isnan(value))


def _row_config(row: Mapping[str, Any]) -> RunConfig:
    """The configuration of a published row (its
    :data:`~bocvs_env.benchmark.published_schema.CONFIG_COLUMNS`)."""
    return RunConfig(
        problem=row["problem"],
        cost_set=row["cost_set"],
        variance=float(row["variance"]),
        budget=float(row["budget"]),
        agent=row["agent"],
        seed=int(row["seed"]),
        agent_params=json.loads(row["agent_params"]),
        problem_options=json.loads(row["problem_options"]),
    )


def _stored_run(row: Mapping[str, Any], steps: Any) -> StoredRun:
    """The run of a published row and its steps, under its configuration's key of today (a run
    published before a :data:`CONFIG_VERSION` bump has an older key in the folder).

    Raises:
        ValueError: if the row's configuration does not give its key under any version.
    """
    config = _row_config(row)
    if row["key"] not in {config.key(v) for v in range(1, CONFIG_VERSION + 1)}:
        raise ValueError(f"published run {row['key']}: its configuration does not match its key")
    T = len(steps)
    record = EpisodeRecord(
        problem=config.problem,
        agent=config.agent,
        seed=config.seed,
        control_set=steps["control_set"].to_numpy(np.int64),
        x=np.empty((T, 0)),
        y=np.full(T, np.nan),
        cost=steps["cost"].to_numpy(np.float64),
        g=steps["g"].to_numpy(np.float64),
        set_max=_per_set(row, "set_max_"),
        cost_means=_per_set(row, "cost_mean_"),
        budget=config.budget,
        config=json.loads(row["problem_config"]),
    )
    # a value the run did not record (an empty cell) is left out, as in the store it came from
    provenance = {k: row[k] for k in PROVENANCE_COLUMNS if k in row and not _empty(row[k])}
    provenance |= {"agent_params": json.loads(row["agent_settings"]), "sweep": row["sweep"]}
    return StoredRun(config.key(), row["sweep"], config, record, provenance)


class PublishedRuns:
    """A published folder, read like a result store, once it has
    passed :func:`~bocvs_env.benchmark.manifest.check_folder` (its manifest, and every run's
    steps against its row).

    Raises:
        FileNotFoundError: if ``path`` lacks one of the tables.
        DamagedFolderError: naming the file or the run that fails the checks.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        missing = [f for f in (RUNS_FILE, STEPS_FILE, SWEEPS_FILE) if not (self.path / f).is_file()]
        if missing:
            raise FileNotFoundError(f"{self.path} is not a published folder: no {missing}")
        check_folder(self.path)

    def __enter__(self) -> PublishedRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def sweeps(self) -> dict[str, SweepConfig]:
        """The published sweeps by name.

        Raises:
            ValueError: naming the file (and the sweep) if it is not JSON or a sweep's
                configuration is not one.
        """
        data = check_sweeps_file(self.path)
        sweeps = {}
        for name, cfg in sorted(data.items()):
            try:
                sweeps[name] = SweepConfig.from_dict(cfg)
            except (ValueError, TypeError, KeyError) as err:
                raise ValueError(f"{self.path / SWEEPS_FILE}: sweep {name!r}: {err}") from None
        return sweeps

    @functools.cached_property
    def _current_keys(self) -> dict[str, str]:
        """Each published key -> its run's key under :data:`CONFIG_VERSION` (the same key but
        for runs published before a version bump), so that a sweep selects them by its keys."""
        pd = require_pandas()
        frame = pd.read_parquet(self.path / RUNS_FILE, columns=["key", *CONFIG_COLUMNS])
        return {str(row["key"]): _row_config(row).key() for row in frame.to_dict("records")}

    @functools.cached_property
    def _keys(self) -> frozenset[str]:
        return frozenset(self._current_keys.values())

    def done_keys(self) -> set[str]:
        """The configuration digests of every published run."""
        return set(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def runs(
        self, keys: Iterable[str] | None = None, *, where: RunFilter | None = None
    ) -> list[StoredRun]:
        """The published runs, in published order; only those whose digest is in ``keys`` and
        that ``where`` keeps, if given. The runs are selected in ``runs.parquet`` first, and
        only their rows of ``steps.parquet`` are read (a filter on ``key``), so that a few
        panels of a large folder cost a fraction of the whole.

        Raises:
            ValueError: if a table lacks one of its documented columns, naming the file, or a
                row's configuration does not give its ``key`` (a tampered row).
        """
        pd = require_pandas()
        import pyarrow.parquet as pq

        frame = pd.read_parquet(self.path / RUNS_FILE)
        step_columns = pq.read_schema(self.path / STEPS_FILE).names
        for name, columns, documented in (
            (RUNS_FILE, list(frame.columns), RUN_COLUMNS),
            (STEPS_FILE, step_columns, STEP_COLUMNS),
        ):
            missing = missing_columns(columns, documented)
            if missing:
                raise ValueError(f"{self.path / name} lacks the columns {missing}")
        if keys is not None:
            frame = frame[frame["key"].astype(str).map(self._current_keys).isin(set(keys))]
        if where is not None:
            frame = frame[where.mask(frame)]
        wanted = sorted(set(frame["key"].astype(str)))
        if not wanted:
            return []
        steps = pq.read_table(
            self.path / STEPS_FILE, columns=list(STEP_COLUMNS), filters=[("key", "in", wanted)]
        ).to_pandas()
        steps["key"] = steps["key"].astype(str)
        by_key = {k: g.sort_values("step") for k, g in steps.groupby("key", sort=False)}
        empty = steps.iloc[:0]
        return [_stored_run(row, by_key.get(row["key"], empty)) for row in frame.to_dict("records")]
