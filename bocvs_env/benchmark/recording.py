"""What ``bocvs run`` does with a sweep: check it whole before any store is created or written
(:func:`sweep_to_run`), then record its pending runs into a store with progress on stderr
(:func:`record_sweep`), refusing to add runs of another code version or numerics mode to what
the store holds."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bocvs_env.benchmark.agent_check import CHECK_TIMEOUT
from bocvs_env.benchmark.agent_sources import check_agent_sources
from bocvs_env.benchmark.config import SweepConfig
from bocvs_env.benchmark.executors import make_executor
from bocvs_env.benchmark.progress import SweepProgress, progress_mode
from bocvs_env.benchmark.published import PublishedRuns
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.sweep import (
    SweepReport,
    check_outside_agents,
    check_sweep,
    pending_runs,
    run_sweep,
)
from bocvs_env.benchmark.sweep_choice import SweepChoice
from bocvs_env.benchmark.trust import Allowed, check_recorded_sweep
from bocvs_env.benchmark.versions import (
    MixedVersionsError,
    check_one_version,
    check_resumable,
    check_store_numerics,
)
from bocvs_env.numerics import worker_numerics


def sweep_to_run(
    choice: SweepChoice,
    store: Path,
    allowed: Allowed,
    check_timeout: float = CHECK_TIMEOUT,
    baselines: Sequence[Path] = (),
) -> SweepConfig:
    """The sweep that ``choice`` names, checked whole (its agents, a short episode of each
    outside agent, the ``baselines`` folders) before any store is created or written; a
    recorded sweep (``--sweep``) is read from ``store``, which must exist, and its agents run
    only if registered or ``allowed``.

    Raises:
        ValueError: no sweep named, or one that fails its checks.
        FileNotFoundError, StoreError: no such store, or a baselines folder that is not a
            published folder.
    """
    if choice.sweep is not None:  # resume a recorded sweep: its store must exist
        with ResultStore(store, readonly=True) as source:
            sweep = choice.sweep_config(source)
        if sweep is not None:  # a record's agents run only if registered or allowed
            check_recorded_sweep(sweep, allowed)
    else:
        sweep = choice.sweep_config()
    if sweep is None:
        raise ValueError("bocvs run needs a sweep: --preset, --config or --problems ...")
    check_sweep(sweep)  # whole, before the store is created or written
    check_outside_agents(sweep, check_timeout)  # a short episode of each outside agent
    for folder in baselines:  # a wrong folder fails now, not after the sweep
        PublishedRuns(folder)
    return sweep


@dataclass(frozen=True)
class RecordOptions:
    """How ``bocvs run`` records a sweep.

    Attributes:
        executor: ``local`` or ``ray`` (:func:`~bocvs_env.benchmark.executors.make_executor`).
        workers: local processes, or CPUs of a local Ray (``None``: the executor's default).
        ray_address: the Ray cluster to connect to (``None``: start one).
        numerics: the workers' numerics mode asked for (``None``: the environment's, else the
            sweep's, else the default; :func:`~bocvs_env.numerics.worker_numerics`).
        run_timeout: seconds a run may take (``None``: the sweep's ``run_timeout``).
        quiet: no progress on stderr (failures still are).
        allow_mixed: add runs beside stored runs of another code version or numerics mode.
    """

    executor: str = "local"
    workers: int | None = None
    ray_address: str | None = None
    numerics: str | None = None
    run_timeout: float | None = None
    quiet: bool = False
    allow_mixed: bool = False


@dataclass
class RecordedSweep:
    """What :func:`record_sweep` did.

    Attributes:
        report: the runs recorded, skipped and failed.
        runs: the sweep's stored runs, if they are of one code version (else none).
        mixed: why ``runs`` is empty though runs are stored (their versions), else ``None``.
    """

    report: SweepReport
    runs: list[StoredRun]
    mixed: str | None = None


def record_sweep(
    sweep: SweepConfig, store_path: Path, choice: SweepChoice, options: RecordOptions
) -> RecordedSweep:
    """Run ``sweep``'s pending runs into the store at ``store_path`` (made if missing) with
    progress on stderr, after checking that its name holds no other definition
    (:meth:`SweepChoice.check_name`), its agents' sources and that the runs to add are of this
    code version and the store's numerics mode (unless ``options.allow_mixed``).

    Raises:
        ValueError: a name of another definition, runs of another code version or mode.
        StoreError, StoreAccessError: a store that is not one or cannot be written.
    """
    labels = {c.key(): c.label() for c in sweep.runs()}
    shown = SweepProgress(sweep.name, labels, progress_mode(options.quiet))
    with ResultStore(store_path) as store:
        choice.check_name(sweep, store)
        check_agent_sources(sweep, store)
        numerics = worker_numerics(options.numerics, sweep.numerics)
        if pending_runs(sweep, store)[0]:  # runs to add: of this code and the store's mode
            check_resumable(store.provenances(sweep.keys()), options.allow_mixed)
            check_store_numerics(store.provenances(), numerics, options.allow_mixed)
        timeout = sweep.run_timeout if options.run_timeout is None else options.run_timeout
        executor = make_executor(options.executor, options.workers, options.ray_address,
                                 numerics, timeout)  # fmt: skip
        t0 = time.perf_counter()
        try:
            with executor:
                report = run_sweep(sweep, store, executor, shown.on_outcome, shown.progress,
                                   shown.on_start, shown.say)  # fmt: skip
        finally:  # so that an error starts a line of its own
            shown.close()
        shown.say(recorded_line(report, time.perf_counter() - t0, store_path))
        runs = store.runs(sweep.keys())
    try:
        check_one_version([r.provenance for r in runs], options.allow_mixed)
    except MixedVersionsError as err:
        return RecordedSweep(report, [], str(err))
    return RecordedSweep(report, runs)


def recorded_line(report: SweepReport, seconds: float, store: Path) -> str:
    """What a ``bocvs run`` did, in a line: runs recorded, skipped, failed, left to another
    ``bocvs run`` on the store, and where the logs of the runs that printed are."""
    elsewhere = f", {report.elsewhere} by another bocvs run" if report.elsewhere else ""
    logs = f"; what {len(report.logs)} runs printed: {report.logs[0].parent}" if report.logs else ""
    return (
        f"recorded {report.recorded} runs in {seconds:.1f} s ({report.skipped} skipped, "
        f"{len(report.failed)} failed{elsewhere}) in {store}{logs}"
    )
