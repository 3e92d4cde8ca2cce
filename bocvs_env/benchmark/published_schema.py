"""The published format: the columns of a published folder's two Parquet tables, what each
means, and the folder's README that says so (written by
:func:`~bocvs_env.benchmark.publish.publish`, read by
:class:`~bocvs_env.benchmark.published.PublishedRuns`).

A published folder holds, beside its ``manifest.json``
(:mod:`bocvs_env.benchmark.manifest`):

- ``runs.parquet``: one row per run, :data:`RUN_COLUMNS`
  (:func:`bocvs_env.benchmark.export.runs_frame`: configuration, final figures, the oracle
  value and mean cost per set, provenance);
- ``steps.parquet``: one row per evaluated step, :data:`STEP_COLUMNS`: the set played, the cost
  paid and the privileged noiseless value ``g`` (every step, not downsampled: that is all the
  figures, tables and comparisons read; the queries ``x`` and the noisy ``y`` are left out to
  keep it small);
- ``sweeps.json``: the recorded sweeps' configurations by name;
- ``README.md``: what every column means (:func:`readme`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bocvs_env.benchmark.manifest import RUNS_FILE, STEPS_FILE
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, LEVEL, RESAMPLES

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

#: The columns of ``runs.parquet`` that make a run's configuration (which
#: :class:`~bocvs_env.benchmark.published.PublishedRuns` reads back).
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
    """The markdown table of a file's ``columns`` and their meanings, headed by its ``name`` and
    ``rows``."""
    lines = [f"## `{name}` ({rows} rows)", "", "| column | meaning |", "| --- | --- |"]
    lines += [f"| `{col}` | {text} |" for col, text in columns.items()]
    return "\n".join(lines)


def documented(column: str) -> bool:
    """Whether ``column`` of ``runs.parquet`` is described in :data:`RUN_COLUMNS` (a per-set
    column such as ``set_max_3`` by ``set_max_<i>``)."""
    return column in RUN_COLUMNS or column.rstrip("0123456789") + "<i>" in RUN_COLUMNS


def missing_columns(columns: Iterable[str], described: Mapping[str, str]) -> list[str]:
    """The columns of ``described`` (:data:`RUN_COLUMNS` or :data:`STEP_COLUMNS`) that a table
    of ``columns`` lacks: the per-set ones and the :data:`LATER_COLUMNS` excepted."""
    held = set(columns)
    return [c for c in described if "<i>" not in c and c not in held and c not in LATER_COLUMNS]


def readme(n_runs: int, n_steps: int) -> str:
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
