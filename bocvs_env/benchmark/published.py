"""Published runs: a folder of two Parquet tables that every report can be recomputed from,
without the SQLite store and without rerunning.

:func:`publish` writes, into one folder (``docs/data`` for the docs):

- ``runs.parquet``: one row per run, :func:`bocvs_env.benchmark.export.runs_frame`
  (configuration, final figures, the oracle value and mean cost per set, provenance);
- ``steps.parquet``: one row per evaluated step: the set played, the cost paid and the
  privileged noiseless value ``g`` (every step, not downsampled: that is all the figures, tables
  and comparisons read; the queries ``x`` and the noisy ``y`` are left out to keep it small);
- ``sweeps.json``: the recorded sweeps' configurations by name;
- ``README.md``: what every column means (from :data:`RUN_COLUMNS` and :data:`STEP_COLUMNS`);
- ``manifest.json``: the size and SHA-256 of each of these files, the tables' row counts and
  each sweep's code versions (:mod:`bocvs_env.benchmark.manifest`), which every reader checks.

The folder is written whole or not at all (:func:`bocvs_env.benchmark.atomic.write_folder`):
a failed publish leaves the previous folder exactly as it was.

:class:`PublishedRuns` reads such a folder back into :class:`~bocvs_env.benchmark.store.StoredRun`
objects with the same figures (``x`` has no columns and ``y`` is NaN), so ``bocvs table``,
``plot``, ``compare`` and the docs' scripts read it exactly as they read a store
(:func:`bocvs_env.benchmark.run_sources.open_runs`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bocvs_env.benchmark.atomic import write_folder
from bocvs_env.benchmark.config import CONFIG_VERSION, RunConfig, SweepConfig
from bocvs_env.benchmark.export import PROVENANCE_COLUMNS, require_pandas, runs_frame
from bocvs_env.benchmark.manifest import (
    ARCHIVE_FILES,
    MANIFEST_FILE,
    README_FILE,
    RUNS_FILE,
    STEPS_FILE,
    SWEEPS_FILE,
    check_folder,
    check_sweeps_file,
    write_manifest,
)
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.selection import RunFilter
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, LEVEL, RESAMPLES
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.versions import (
    MixedVersionsError,
    check_each_agent,
    check_one_version,
)
from bocvs_env.evaluation import EpisodeRecord

#: ``runs.parquet``'s columns; ``<i>`` stands for a control set's index (0 ... m-1).
RUN_COLUMNS: dict[str, str] = {
    "key": "the run's configuration digest (joins `steps.parquet`)",
    "sweep": "the sweep that recorded the run",
    "problem": "the problem's name (`bocvs_env.problems.PROBLEMS`)",
    "cost_set": "the cost set: `cheap`, `moderate` or `expensive`",
    "variance": "the variance of every random input: a normal of mean 0.5 truncated to "
    "[0, 1], whose scale is solved so that the truncated variance is this",
    "budget": "the total cost the run could spend",
    "agent": "the agent's registry name",
    "seed": "the seed of the environment and the agent; runs of one seed pair up",
    "agent_params": "JSON: the agent's configured keyword arguments",
    "problem_options": "JSON: the further options of `make_problem` (noise, initial points), "
    "defaults resolved",
    "evaluations": "evaluated steps (the free initial design excluded)",
    "spent": "total cost paid (the sum of the run's `cost` in `steps.parquet`)",
    "g_star": "the oracle value `g* = max_i max_x g_i(x)`, in the objective's units",
    "i_star": "the target set: the cheapest set by mean cost among those with "
    "`set_max_<i> >= 0.9 g_star` (up to `1e-9 max(abs(g_star), 1)` for rounding; the lowest "
    "index on ties)",
    "simple_regret": "final simple regret `g_star - max(0, g_1, ..., g_T)` (`g_star` without "
    "evaluations)",
    "simple_regret_area": "area under simple regret against cost spent over [0, budget], "
    "divided by the budget (see above)",
    "quality_regret": "final cumulative quality regret, tolerance 0.1",
    "cost_regret": "final cumulative cost regret, tolerance 0.1",
    "cost_varying_regret": "final cumulative cost-weighted regret (UCB-CVS's)",
    "target_plays": "plays of the target set `i_star`",
    "spend_share_<i>": "share of the spend (the costs paid) on set i",
    "set_max_<i>": "the oracle value `max_x g_i(x)` of set i",
    "cost_mean_<i>": "the mean cost of set i (the draws `cost` scatter around it)",
    "package_version": "bocvs's version",
    "git_commit": "the commit of the checkout that ran it; `+dirty-<digest>` if its files differed from the commit (see bocvs_env.benchmark.versions.git_commit); null outside a checkout",
    "numpy": "numpy's version",
    "scipy": "scipy's version",
    "torch": "torch's version",
    "gpytorch": "gpytorch's version",
    "botorch": "botorch's version",
    "python": "Python's version",
    "host": "the machine's name",
    "cpu": "the processor's model name (runs need not reproduce across kinds of CPU); empty for runs stored before it was recorded",
    "numerics": "the numerics mode of the run's worker: `reproducible` (kernels pinned, see docs/reproducibility.md) or `fast` (the machine's own); empty for runs stored before it was recorded, which ran in `fast` mode",
    "cpu_capability": "the instruction set torch's CPU kernels used (`torch.backends.cpu.get_cpu_capability()`, e.g. `AVX512`); empty for runs stored before it was recorded",
    "mkl_cbwr": "MKL's code branch as set by `MKL_CBWR` (empty: MKL's own choice for the CPU); empty for runs stored before it was recorded",
    "openblas_coretype": "the kernels of the OpenBLAS that numpy and SciPy loaded (threadpoolctl's `architecture`, e.g. `Haswell`); empty for runs stored before it was recorded",
    "openblas_threads": "OpenBLAS threads of the worker; empty for runs stored before it was recorded",
    "numpy_simd": "the SIMD target of numpy's own loops (of float64 `exp`: `X86_V4` with AVX-512, `X86_V3` with AVX2); empty for runs stored before it was recorded",
    "torch_threads": "torch threads of the worker",
    "started_at": "UTC start, ISO 8601",
    "finished_at": "UTC end, ISO 8601",
    "wall_s": "wall time of the run, seconds (the agent and the environment; not the setting's oracle, computed once per setting)",
    "cpu_s": "CPU time of the run's process (user + system, all its threads) over the same span, seconds; empty for runs stored before it was recorded",
    "agent_settings": "JSON: every parameter of the agent as built (defaults resolved)",
    "problem_config": "JSON: the problem's configuration as the environment reported it",
}

#: Columns of ``runs.parquet`` added after folders were published: a folder without them
#: reads as if they were empty.
LATER_COLUMNS = frozenset(
    {
        "numerics",
        "mkl_cbwr",
        "openblas_coretype",
        "openblas_threads",
        "numpy_simd",
        "cpu",
        "cpu_capability",
    }
)

#: ``steps.parquet``'s columns.
STEP_COLUMNS: dict[str, str] = {
    "key": "the run (`runs.parquet`'s `key`)",
    "step": "1, 2, ... in the order played",
    "control_set": "the set played (an index into the problem's control sets)",
    "cost": "the cost paid: a draw of the set's random cost (mean `cost_mean_<i>`); "
    "cumulated, the cost spent",
    "g": "the privileged noiseless value `g_i(x)` of the play (the expectation of the "
    "objective over the random inputs), in the objective's units",
}

_README = """# Published runs

The runs of the sweeps in `sweeps.json`, in two tables, so that every number computed from them
(the pages of `docs/`, when this folder is `docs/data`) can be recomputed without the result
store and without rerunning. Written by `bocvs publish`; read by every report command with
`--data <this folder>`, e.g.:

```bash
bocvs table   --data docs/data --sweep grid
bocvs compare --data docs/data --sweep grid --agent etc
bocvs paper-claims --data docs/data --sweep grid
```

or with pandas: `pd.read_parquet("docs/data/runs.parquet")`. Every step of every run is kept
(the traces are not downsampled); the queries `x` and the noisy observations `y` are not
published. `sweeps.json` holds the sweeps' configurations by name. `manifest.json` holds the
size and SHA-256 of each of these files, the tables' row counts and each sweep's code versions:
every `bocvs` command that reads the folder checks it, and each run's steps against its row,
and refuses a file or a run that differs (an accident or an edit; it is no signature).

The `_<i>` columns run over the control sets `i = 0 ... m - 1` of the widest problem in the
folder; a problem with fewer sets leaves the others empty.

## How the pages compute their figures

Per run, from `steps.parquet` in `step` order, with `s_k` the cost spent after step `k` (the
cumulative sum of `cost`):

- **Simple regret after spending `C'`**: `g_star - max(0, g_1, ..., g_k)` over the steps with
  `s_k <= C'` (`g_star` before the first step). The pages' "regret @25%" and so on are its
  values at 25% ... of `budget`; "final" is its value at the end (`simple_regret`).
- **Area** (`simple_regret_area`): that step function integrated over `[0, budget]` and divided
  by `budget`, the mean regret over the budget: `sum_k r_k (s_{{k+1}} - s_k) / budget` with
  `s_0 = 0`, `r_0 = g_star`, `r_k` the regret after step `k`, `s_{{T+1}} = budget` (spends
  clipped to `[0, budget]`).
- **Spend shares**: the run's costs paid on a set over all it paid; the target set `i*` is
  `i_star`, the costliest set the largest `cost_mean_<i>` (the lowest index on ties).

A panel is a problem, cost set, variance and budget; the pages' tables show the means of these
figures over the panel's seeds. A **paired comparison** (`bocvs compare`) pairs agent `a` with
reference `b` by seed within a panel and takes the differences `a - b`. Their mean gets a {percent:g}%
percentile bootstrap interval: `rng = numpy.random.default_rng({seed})` afresh for every
interval, {resamples:,} resamples of the `n` differences with replacement
(`rng.integers(0, n, size=({resamples}, n))`), and the `numpy.quantile` (linear interpolation)
of the resamples' means at {low:g} and {high:g}. A **win** is an interval wholly on `a`'s better side
of 0 (below for regret, area and the share on the costliest set; above for evaluations and the
share on `i*`), a **loss** one wholly on the other side, a **tie** one that contains 0.
"Better mean" counts the panels whose mean difference is strictly on `a`'s better side. With
few seeds the resamples take few distinct values, so an interval that ends within a few percent
of its width from 0 can change its verdict with the resampling seed.

`sweeps.json` holds each sweep's configuration as a config file does
(`benchmarks/configs/*.toml`): its runs are the product of `problems`, `cost_sets`,
`variances`, `budgets` (`null`: each problem's default), `agents` and `seeds`, with
`agent_params` per agent and `problem_options` for every run (`{{}}`: `make_problem`'s
defaults, which every run's `problem_options` records resolved). A run belongs to every sweep
whose product holds its configuration (its `key`); `sweep` names the one that recorded it.

{runs}

{steps}
"""


def _column_table(name: str, columns: Mapping[str, str], rows: int) -> str:
    lines = [f"## `{name}` ({rows} rows)", "", "| column | meaning |", "| --- | --- |"]
    lines += [f"| `{col}` | {text} |" for col, text in columns.items()]
    return "\n".join(lines)


def _documented(column: str) -> bool:
    return column in RUN_COLUMNS or column.rstrip("0123456789") + "<i>" in RUN_COLUMNS


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


def _check_each_sweep(
    sweeps: Mapping[str, SweepConfig],
    provenances: Callable[[set[str]], list[dict[str, Any]]],
    allow_mixed: bool,
) -> None:
    """Refuse a sweep whose runs (the ``provenances`` of its keys) are of several code versions
    or numerics modes, unless ``allow_mixed``: a sweep is what one code version ran.

    Raises:
        MixedVersionsError: naming the first such sweep and its versions (or modes).
    """
    for name, sweep in sorted(sweeps.items()):
        try:
            check_one_version(provenances(set(sweep.keys())), allow_mixed)
        except MixedVersionsError as err:
            raise MixedVersionsError(f"sweep {name!r}: {err}") from None


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
    _check_each_sweep(published, lambda keys: [r.provenance for r in runs if r.key in keys],
                      allow_mixed)  # fmt: skip
    check_each_agent(runs, allow_mixed)
    out = Path(out_dir)
    _check_target(out)
    if not force:
        _check_nothing_dropped(out, runs)
    per_run = runs_frame(runs)
    undocumented = [c for c in per_run.columns if not _documented(c)]
    if undocumented:
        raise ValueError(f"columns without a description in RUN_COLUMNS: {undocumented}")
    per_step = steps_table(runs)
    configs = {name: s.to_dict() for name, s in published.items()}

    def write(folder: Path) -> None:
        per_run.to_parquet(folder / RUNS_FILE, index=False, compression="zstd")
        per_step.to_parquet(folder / STEPS_FILE, index=False, compression="zstd")
        (folder / SWEEPS_FILE).write_text(json.dumps(configs, indent=1, sort_keys=True) + "\n")
        (folder / README_FILE).write_text(_readme(len(per_run), len(per_step)))
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


def _readme(n_runs: int, n_steps: int) -> str:
    """The published folder's README: its tables' columns, ``n_runs`` and ``n_steps`` rows."""
    return _README.format(
        runs=_column_table(RUNS_FILE, RUN_COLUMNS, n_runs),
        steps=_column_table(STEPS_FILE, STEP_COLUMNS, n_steps),
        seed=BOOTSTRAP_SEED,
        resamples=RESAMPLES,
        percent=100 * LEVEL,
        low=(1 - LEVEL) / 2,
        high=(1 + LEVEL) / 2,
    )


def _per_set(row: Mapping[str, Any], prefix: str) -> np.ndarray:
    values = [row[c] for c in row if c.startswith(prefix) and c[len(prefix) :].isdigit()]
    array = np.asarray(values, dtype=np.float64)
    return array[~np.isnan(array)]


def _empty(value: Any) -> bool:
    """Whether a published cell is empty (``None``, or NaN as pandas reads a missing value)."""
    return value is None or (isinstance(value, float) and np.isnan(value))


#: The columns of ``runs.parquet`` that make a run's configuration (:func:`_config`).
CONFIG_COLUMNS = (
    "problem",
    "cost_set",
    "variance",
    "budget",
    "agent",
    "seed",
    "agent_params",
    "problem_options",
)


def _config(row: Mapping[str, Any]) -> RunConfig:
    """The configuration of a published row (its :data:`CONFIG_COLUMNS`)."""
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
    config = _config(row)
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
    """A published folder (see the module docstring), read like a result store, once it has
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
        return {str(row["key"]): _config(row).key() for row in frame.to_dict("records")}

    @functools.cached_property
    def _keys(self) -> frozenset[str]:
        return frozenset(self._current_keys.values())

    def done_keys(self) -> set[str]:
        """The configuration digests of every published run."""
        return set(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def runs(
        self, keys: Iterable[str] | None = None, where: RunFilter | None = None
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
            missing = [
                c
                for c in documented
                if "<i>" not in c and c not in columns and c not in LATER_COLUMNS
            ]
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


def restore_store(source: PublishedRuns, store: ResultStore, allow_mixed: bool = False) -> int:
    """Add the published runs of ``source`` (and their sweeps) to ``store``; how many it had
    not held (a configuration it holds keeps the store's run).

    The store then resumes a sweep after them (``bocvs run`` skips their configurations) and
    publishes them again as they were: their configuration, steps, final figures and
    provenance (commit, versions, host, times) are kept; what a published folder leaves out is
    not (the queries ``x``, which read back as an empty ``(T, 0)`` array, the noisy ``y``, which
    read back as NaN, and the decision logs).
    This carries a sweep across machines that keep only the published folder.

    Raises:
        MixedVersionsError: before any write, if a sweep's runs, the store's and the folder's
            together, would come from several code versions (or modes), unless ``allow_mixed``
            (a sweep resumes with the code that began it; the folder's sweeps may be of
            different versions).
    """
    runs, sweeps = source.runs(), source.sweeps()  # all read (and checked) before any write
    held = store.sweeps()

    def provenances(keys: set[str]) -> list[dict[str, Any]]:
        return [*store.provenances(keys), *(r.provenance for r in runs if r.key in keys)]

    _check_each_sweep({**sweeps, **held}, provenances, allow_mixed)
    for name, sweep in sweeps.items():
        if name not in held:  # a sweep the store records already keeps its configuration
            store.register_sweep(sweep)
    added = 0
    for run in runs:
        provenance = {k: v for k, v in run.provenance.items() if k != "sweep"}
        added += store.add(RunResult(run.config, run.record, provenance), run.sweep)
    return added
