"""The benchmark harness: sweeps of agents over problems and seeds, a durable SQLite result
store, local and Ray executors, the papers' plots and summary tables, and the ``bocvs`` CLI.

Modules: :mod:`~bocvs_env.benchmark.config` (sweeps, presets, config files),
:mod:`~bocvs_env.benchmark.runner` (one run), :mod:`~bocvs_env.benchmark.executors` (where runs
execute), :mod:`~bocvs_env.benchmark.sweep` (the driver), :mod:`~bocvs_env.benchmark.store`
(the result store), :mod:`~bocvs_env.benchmark.export` (DataFrames, CSV, Parquet),
:mod:`~bocvs_env.benchmark.plots`, :mod:`~bocvs_env.benchmark.tables`,
:mod:`~bocvs_env.benchmark.cli`. Agents are known by name only
(:mod:`bocvs_env.agent_registration`), never imported. The names below load on first use
(:mod:`bocvs_env.lazy`).
"""

from typing import TYPE_CHECKING

from bocvs_env.lazy import lazy_exports

if TYPE_CHECKING:
    from bocvs_env.benchmark.config import (
        PRESETS,
        SWEEP_PRESETS,
        RunConfig,
        SweepConfig,
        preset,
    )
    from bocvs_env.benchmark.executors import LocalExecutor, RayExecutor, make_executor
    from bocvs_env.benchmark.runner import RunResult, run_config
    from bocvs_env.benchmark.store import ResultStore, StoredRun, StoreError
    from bocvs_env.benchmark.sweep import SweepReport, run_sweep

_MODULES = {
    "config": ("PRESETS", "SWEEP_PRESETS", "RunConfig", "SweepConfig", "preset"),
    "executors": ("LocalExecutor", "RayExecutor", "make_executor"),
    "runner": ("RunResult", "run_config"),
    "store": ("ResultStore", "StoredRun", "StoreError"),
    "sweep": ("SweepReport", "run_sweep"),
}
__getattr__, __dir__ = lazy_exports(
    globals(), {n: f"{__name__}.{m}" for m, names in _MODULES.items() for n in names}
)

__all__ = [
    "PRESETS",
    "SWEEP_PRESETS",
    "LocalExecutor",
    "RayExecutor",
    "ResultStore",
    "RunConfig",
    "RunResult",
    "StoreError",
    "StoredRun",
    "SweepConfig",
    "SweepReport",
    "make_executor",
    "preset",
    "run_config",
    "run_sweep",
]
