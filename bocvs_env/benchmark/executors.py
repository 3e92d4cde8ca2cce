"""Executors: where the runs of a sweep execute. Workers run episodes; the driver (the caller
of :meth:`Executor.run`) receives the outcomes and alone writes the store.

- :class:`LocalExecutor`: a pool of local processes (``spawn``), one per core by default; a
  worker that dies (killed, out of memory) costs a new pool, not the runs it held.
- :class:`RayExecutor`: Ray tasks, on a running cluster (``address``) or a local instance.

Every worker runs torch on one thread, so the same configuration in the same numerics mode
gives the same record bit for bit whichever executor runs it (on one machine; in
``reproducible`` mode, on any x86-64 machine with AVX2). Workers start in a numerics mode
(:mod:`bocvs_env.numerics`; :data:`~bocvs_env.numerics.DEFAULT`, ``fast``, unless told
otherwise): its variables are in their environment from the start, before numpy, SciPy or
torch loads (for local workers, in the driver's environment while it starts them; for Ray, the
tasks' ``runtime_env``), and a worker whose libraries run other kernels records the run as
failed rather than run it in another mode.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import resource_tracker
from queue import Empty
from typing import Any, Protocol

import torch

from bocvs_env.benchmark.config import RunConfig
from bocvs_env.benchmark.runner import RunResult, run_config
from bocvs_env.benchmark.signals import STOP_SIGNALS
from bocvs_env.numerics import (
    DEFAULT,
    Numerics,
    check_mode,
    child_environment,
    numerics_env,
    use_requested_numerics,
)

#: ``progress(key, spent, budget)``: a run's cost spent so far, reported to the driver.
ProgressFn = Callable[[str, float, float], None]
#: Seconds between two progress reports of one run.
REPORT_INTERVAL = 0.5
#: Seconds the driver waits for a result before it forwards progress reports.
_POLL = 0.2
#: Seconds between a local worker's checks that its driver is alive and has not stopped it.
_PARENT_POLL = 1.0
#: New pools a local run may start after workers died, before it gives up on what is left.
POOL_RESTARTS = 3


class _Sink(Protocol):
    def put_nowait(self, item: Any) -> None: ...


class _Source(Protocol):
    def get_nowait(self) -> Any: ...


class _Stop(Protocol):
    value: bool


@dataclass
class Outcome:
    """A run as it came back: its result, or the worker's traceback if it failed.

    Attributes:
        config: the run.
        result: the :class:`RunResult`, or ``None`` on failure.
        error: the formatted traceback, or ``None`` on success.
    """

    config: RunConfig
    result: RunResult | None = None
    error: str | None = None


def execute(config: RunConfig, sink: _Sink | None = None) -> Outcome:
    """Run one configuration in a worker (one torch thread), reporting progress to ``sink``.

    Exceptions of the run are caught and returned as :attr:`Outcome.error`.
    """
    torch.set_num_threads(1)
    key = config.key()
    last = [0.0]

    def report(spent: float, budget: float) -> None:
        now = time.monotonic()
        if sink is not None and now - last[0] >= REPORT_INTERVAL:
            last[0] = now
            sink.put_nowait((key, spent, budget))

    try:
        use_requested_numerics()  # a worker refuses to run in a mode not in force
        return Outcome(config, result=run_config(config, progress=report))
    except Exception:
        return Outcome(config, error=traceback.format_exc())


def _drain(source: _Source | None, progress: ProgressFn | None) -> None:
    if source is None or progress is None:
        return
    while True:
        try:
            key, spent, budget = source.get_nowait()
        except Empty:
            return
        progress(key, spent, budget)


class Executor(ABC):
    """Runs configurations and yields their outcomes as they finish (in any order)."""

    @abstractmethod
    def run(
        self, configs: Sequence[RunConfig], progress: ProgressFn | None = None
    ) -> Iterator[Outcome]:
        """Run every configuration; ``progress`` is called in the driver's thread."""

    def close(self) -> None:
        """Release the workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_WORKER_SINK: _Sink | None = None


def _exit_with_parent(parent: int, stop: _Stop) -> None:
    """Exit as soon as the driver is gone (even killed with SIGKILL) or has set ``stop``, rather
    than linger or finish a run whose result no one will read.

    ``stop`` is a lock-free shared flag, polled: a worker that dies while waiting on a lock or
    an event of the driver's (Ctrl-C reaches the workers too) could leave the driver blocked on
    it.
    """
    while os.getppid() == parent and not stop.value:
        time.sleep(_PARENT_POLL)
    os._exit(1)


def _exit_quietly(signum: int, frame: object) -> None:
    """A local worker's SIGTERM or SIGHUP: exit at once, as the default action would, without
    the traceback of an idle worker's pool loop; the driver, which gets the same signal when
    the sweep's process group does, stops the sweep (a worker killed alone costs a new pool,
    not its run)."""
    os._exit(128 + signum)


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with SIGHUP ignored (a disposition that
    survives ``exec``): it ignores SIGINT and SIGTERM itself but not SIGHUP, and killed by a
    closed terminal before the driver has cleaned up, it warns of leaked resources."""
    if threading.current_thread() is not threading.main_thread():
        resource_tracker.ensure_running()
        return
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        resource_tracker.ensure_running()
    finally:
        signal.signal(signal.SIGHUP, previous)


def _init_worker(sink: _Sink | None, driver: int, stop: _Stop) -> None:
    """Set up a worker; ``driver`` is the driver's pid, passed in rather than read here, so that
    a worker still starting up when its driver is killed (already reparented) exits too."""
    global _WORKER_SINK
    _WORKER_SINK = sink
    for signum in STOP_SIGNALS:  # sent to the sweep's process group: the driver stops the sweep
        signal.signal(signum, _exit_quietly)
    threading.Thread(target=_exit_with_parent, args=(driver, stop), daemon=True).start()


def _execute_in_pool(config: RunConfig) -> Outcome:
    return execute(config, _WORKER_SINK)


def default_workers() -> int:
    """One worker per core available to this process."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class LocalExecutor(Executor):
    """A pool of ``workers`` local processes (one per core by default), started with ``spawn``
    in the numerics mode ``numerics``.

    When a worker dies (killed, out of memory), Python breaks the whole pool: the runs that had
    not finished are then run again on a new pool, up to :data:`POOL_RESTARTS` times, after
    which they come back as failed (a run that kills its worker every time cannot stall the
    sweep).

    Raises:
        ValueError: if ``workers`` < 1.
    """

    def __init__(self, workers: int | None = None, numerics: Numerics = DEFAULT) -> None:
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers!r}")
        self.numerics = check_mode(numerics)

    def run(
        self, configs: Sequence[RunConfig], progress: ProgressFn | None = None
    ) -> Iterator[Outcome]:
        if not configs:
            return
        with child_environment(self.numerics):  # the workers start (and restart) in it
            yield from self._run_pools(configs, progress)

    def _run_pools(
        self, configs: Sequence[RunConfig], progress: ProgressFn | None
    ) -> Iterator[Outcome]:
        ctx = mp.get_context("spawn")
        _start_resource_tracker()
        queue = ctx.Queue() if progress is not None else None
        todo = list(configs)
        for _ in range(POOL_RESTARTS + 1):
            lost: list[RunConfig] = []
            yield from self._run_pool(ctx, queue, todo, progress, lost)
            todo = lost
            if not todo:
                return
        for config in todo:
            yield Outcome(
                config,
                error=f"not run: worker processes died {POOL_RESTARTS + 1} times during this "
                "sweep (killed, or out of memory); run the sweep again to retry",
            )

    def _run_pool(
        self,
        ctx: Any,
        queue: Any,
        configs: Sequence[RunConfig],
        progress: ProgressFn | None,
        lost: list[RunConfig],
    ) -> Iterator[Outcome]:
        """One pool: yield the outcomes, and put in ``lost`` the runs of a pool that broke.

        When the sweep stops early (Ctrl-C, or the caller stops reading, as on a full store) the
        workers exit at once, within :data:`_PARENT_POLL`, dropping their runs in flight as a
        kill would; otherwise leaving the pool would wait for those runs, and the pool would
        start the runs it had already queued.
        """
        stop = ctx.RawValue(ctypes.c_bool, False)
        with ProcessPoolExecutor(
            max_workers=min(self.workers, len(configs)),
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(queue, os.getpid(), stop),
        ) as pool:
            futures: dict[Future[Outcome], RunConfig] = {}
            pending: set[Future[Outcome]] = set()
            try:
                futures = {pool.submit(_execute_in_pool, c): c for c in configs}
                pending = set(futures)
                while pending:
                    done, pending = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
                    _drain(queue, progress)
                    interrupted = False
                    for fut in done:
                        err = fut.exception()
                        if isinstance(err, KeyboardInterrupt):  # Ctrl-C reached the worker:
                            interrupted = True  # not a failed run to record
                        elif isinstance(err, BrokenProcessPool):
                            lost.append(futures[fut])
                        elif err is not None:
                            error = "".join(traceback.format_exception(err))
                            yield Outcome(futures[fut], error=error)
                        else:
                            yield fut.result()
                    if interrupted:  # after the runs that finished with it
                        raise KeyboardInterrupt
            except BaseException:  # KeyboardInterrupt, GeneratorExit, an error of the caller's
                stop.value = True
                raise
            finally:
                for fut in pending:
                    fut.cancel()


class RayExecutor(Executor):
    """Ray tasks, one CPU each: on the cluster at ``address``, or on a local instance.

    Workers resolve each agent by its name again, so they must be able to import ``bocvs_env``
    and the agents' modules (install the distributions that register them on every node, or
    give ``module:Class`` agents' directories on ``PYTHONPATH``) and, for the data-backed problems, find ``BOCVS_DATA_DIR``: the driver's
    ``BOCVS_DATA_DIR`` and ``BOCVS_CACHE_DIR`` are passed on to the workers.

    Args:
        address: a running cluster (``"auto"``, ``"ray://host:10001"``, ...); ``None`` starts
            a local instance, shut down again by :meth:`close`.
        num_cpus: CPUs of the local instance (all by default); ignored with ``address``.
        numerics: the workers' numerics mode, set in each task's ``runtime_env`` (so also on
            a cluster or instance already running).

    If Ray is already initialized in this process, its instance is used as it is: ``address``,
    ``num_cpus`` and the environment variables above are not applied, and :meth:`close` leaves
    it running.

    Raises:
        ImportError: if Ray is not installed (``pip install "bocvs[ray]"``).
    """

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        numerics: Numerics = DEFAULT,
    ) -> None:
        self.numerics = check_mode(numerics)
        try:
            import ray
        except ImportError as err:
            raise ImportError('the Ray executor needs Ray: pip install "bocvs[ray]"') from err
        self._ray = ray
        self._owned = not ray.is_initialized()
        if self._owned:
            env_vars = {
                k: os.environ[k] for k in ("BOCVS_DATA_DIR", "BOCVS_CACHE_DIR") if k in os.environ
            }
            ray.init(
                address=address,
                num_cpus=None if address is not None else num_cpus,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": env_vars} if env_vars else None,
            )

    def run(
        self, configs: Sequence[RunConfig], progress: ProgressFn | None = None
    ) -> Iterator[Outcome]:
        if not configs:
            return
        ray = self._ray
        from ray.util.queue import Queue

        queue = Queue() if progress is not None else None
        env_vars = numerics_env(self.numerics)  # merged with the instance's variables
        task = ray.remote(num_cpus=1, max_retries=0, runtime_env={"env_vars": env_vars})(execute)
        refs = {task.remote(c, queue): c for c in configs}
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=_POLL)
                _drain(queue, progress)
                for ref in done:
                    try:
                        yield ray.get(ref)
                    except ray.exceptions.RayError as err:
                        yield Outcome(refs[ref], error=f"{type(err).__name__}: {err}")
        finally:
            for ref in pending:
                ray.cancel(ref)
            if queue is not None:
                queue.shutdown()

    def close(self) -> None:
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()


def make_executor(
    name: str,
    workers: int | None = None,
    ray_address: str | None = None,
    numerics: Numerics = DEFAULT,
) -> Executor:
    """An executor by name: ``local`` (``workers`` processes) or ``ray`` (``ray_address``;
    ``workers`` CPUs of a local instance), its workers in the numerics mode ``numerics``.

    Raises:
        ValueError: for another name or mode.
    """
    if name == "local":
        return LocalExecutor(workers, numerics)
    if name == "ray":
        return RayExecutor(address=ray_address, num_cpus=workers, numerics=numerics)
    raise ValueError(f"unknown executor {name!r}; expected 'local' or 'ray'")
