"""Executors: where the runs of a sweep execute. Workers run episodes; the driver (the caller
of :meth:`Executor.run`) receives the outcomes and alone writes the store.

- :class:`LocalExecutor`: a pool of local processes (``spawn``), one per core by default; a
  worker that dies (killed, out of memory) costs a new pool, not the runs it held.
- :class:`RayExecutor`: Ray tasks, on a running cluster (``address``) or a local instance.

Every worker runs torch on one thread, so the same configuration in the same numerics mode
gives the same record bit for bit whichever executor runs it (on one machine; in
``reproducible`` mode, on any x86-64 machine with AVX2 of the same CPU vendor). Workers start in a numerics mode
(:mod:`bocvs_env.numerics`; :data:`~bocvs_env.numerics.DEFAULT`, ``fast``, unless told
otherwise): its variables are in their environment from the start, before numpy, SciPy or
torch loads (for local workers, in the driver's environment while it starts them; for Ray, the
tasks' ``runtime_env``), and a worker whose libraries run other kernels records the run as
failed rather than run it in another mode.
"""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import resource_tracker
from queue import Empty
from typing import Any, Protocol

import torch

from bocvs_env.benchmark.agent_output import captured_output, new_capture_file, read_output
from bocvs_env.benchmark.config import RunConfig, check_run_timeout
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
        error: the formatted traceback (or why the run was ended), or ``None`` on success.
        output: what the run printed on stdout and stderr (the end of it, at most
            :data:`~bocvs_env.benchmark.agent_output.OUTPUT_LIMIT` bytes).
    """

    config: RunConfig
    result: RunResult | None = None
    error: str | None = None
    output: str = ""


def execute(config: RunConfig, sink: _Sink | None = None) -> Outcome:
    """Run one configuration in a worker (one torch thread), its stdout and stderr captured
    (:attr:`Outcome.output`), reporting to ``sink`` its start (``("start", key, pid, capture
    file)``, once the setting's oracle is computed) and its progress (``("progress", key, spent,
    budget)``).

    Exceptions of the run are caught and returned as :attr:`Outcome.error`.
    """
    torch.set_num_threads(1)
    key = config.key()
    last = [0.0]
    capture = new_capture_file()

    def report(spent: float, budget: float) -> None:
        now = time.monotonic()
        if sink is not None and now - last[0] >= REPORT_INTERVAL:
            last[0] = now
            sink.put_nowait(("progress", key, spent, budget))

    def started() -> None:
        if sink is not None:
            sink.put_nowait(("start", key, os.getpid(), capture))

    try:
        with captured_output(capture):
            try:
                use_requested_numerics()  # a worker refuses to run in a mode not in force
                outcome = Outcome(config, result=run_config(config, report, started))
            except Exception:
                outcome = Outcome(config, error=traceback.format_exc())
    finally:
        output = read_output(capture)
    outcome.output = output
    return outcome


@dataclass
class _Started:
    """A run a worker has started: the worker's pid, when the driver heard of it (monotonic
    seconds) and the worker's capture file of the run's output."""

    pid: int
    at: float
    capture: str


class _InFlight:
    """The runs in flight as their workers report them: progress forwarded to ``progress``,
    starts timed for the runs' time limit."""

    def __init__(self, progress: ProgressFn | None) -> None:
        self.progress = progress
        self.started: dict[str, _Started] = {}
        self.ended: set[str] = set()  # runs ended at their time limit, until their worker's end

    def drain(self, source: _Source) -> None:
        """Handle every report waiting in ``source``."""
        while True:
            try:
                kind, key, *rest = source.get_nowait()
            except Empty:
                return
            if kind == "start":
                self.started[key] = _Started(rest[0], time.monotonic(), rest[1])
            elif self.progress is not None:
                self.progress(key, *rest)

    def overdue(self, limit: float | None) -> list[tuple[str, _Started]]:
        """``(key, start)`` of the runs started more than ``limit`` seconds ago, now in
        :attr:`ended` (each is reported once)."""
        if limit is None:
            return []
        now = time.monotonic()
        keys = [k for k, s in self.started.items() if now - s.at > limit]
        self.ended.update(keys)
        return [(k, self.started.pop(k)) for k in keys]

    def finished(self, key: str) -> None:
        """Forget run ``key``, removing its capture file if its worker left one (a worker
        that died mid-run)."""
        started = self.started.pop(key, None)
        if started is not None:
            read_output(started.capture)


def timed_out(config: RunConfig, limit: float, started: _Started | None) -> Outcome:
    """The outcome of a run ended at its time limit of ``limit`` seconds, with what it had
    printed (read from its worker's capture file, when this host can read it)."""
    return Outcome(
        config,
        error=f"timed out after {limit:g} s (the run's time limit); its worker was killed",
        output=read_output(started.capture if started is not None else None),
    )


class Executor(ABC):
    """Runs configurations and yields their outcomes as they finish (in any order).

    Attributes:
        run_timeout: seconds a run may take (from the moment its agent is built) before its
            worker is killed and it comes back failed, "timed out after N s"; ``None``: no
            limit.
    """

    run_timeout: float | None = None

    @abstractmethod
    def run(
        self, configs: Iterable[RunConfig], progress: ProgressFn | None = None
    ) -> Iterator[Outcome]:
        """Run every configuration; ``progress`` is called in the driver's thread.

        ``configs`` is read lazily, one configuration when a worker is free to start it (so
        that a caller may claim each run just before it starts).
        """

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


class _Todo:
    """The runs still to start: those of a broken pool first, then ``configs``, read lazily."""

    def __init__(self, configs: Iterable[RunConfig]) -> None:
        self.retry: list[RunConfig] = []
        self.source = iter(configs)

    def take(self, n: int) -> list[RunConfig]:
        """Up to ``n`` runs to start now."""
        out = self.retry[:n]
        del self.retry[:n]
        while len(out) < n and (config := next(self.source, None)) is not None:
            out.append(config)
        return out

    def rest(self) -> list[RunConfig]:
        """Every run left."""
        return self.take(len(self.retry)) + list(self.source)


def _kill(pid: int) -> None:
    """Kill the worker ``pid`` (gone already: nothing to do)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class LocalExecutor(Executor):
    """A pool of ``workers`` local processes (one per core by default), started with ``spawn``
    in the numerics mode ``numerics``, each run limited to ``run_timeout`` seconds (none by
    default).

    When a worker dies (killed, out of memory), Python breaks the whole pool: the runs that had
    not finished are then run again on a new pool, up to :data:`POOL_RESTARTS` times, after
    which they come back as failed (a run that kills its worker every time cannot stall the
    sweep). A run past its time limit has its worker killed and comes back failed; that too
    breaks the pool, so the runs in flight with it start again on a new one (not counted as
    one of :data:`POOL_RESTARTS`).

    Raises:
        ValueError: if ``workers`` < 1 or ``run_timeout`` is not positive.
    """

    def __init__(
        self,
        workers: int | None = None,
        numerics: Numerics = DEFAULT,
        run_timeout: float | None = None,
    ) -> None:
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers!r}")
        self.numerics = check_mode(numerics)
        self.run_timeout = check_run_timeout(run_timeout)

    def run(
        self, configs: Iterable[RunConfig], progress: ProgressFn | None = None
    ) -> Iterator[Outcome]:
        with child_environment(self.numerics):  # the workers start (and restart) in it
            yield from self._run_pools(_Todo(configs), _InFlight(progress))

    def _run_pools(self, todo: _Todo, runs: _InFlight) -> Iterator[Outcome]:
        ctx = mp.get_context("spawn")
        queue = None
        restarts = 0
        while restarts <= POOL_RESTARTS:
            first = todo.take(self.workers)
            if not first:
                return
            if queue is None:
                _start_resource_tracker()
                queue = ctx.Queue()
            ended = yield from self._run_pool(ctx, queue, first, todo, runs)
            if ended == "done":
                return
            restarts += ended == "broken"
        for config in todo.rest():
            yield Outcome(
                config,
                error=f"not run: worker processes died {POOL_RESTARTS + 1} times during this "
                "sweep (killed, or out of memory); run the sweep again to retry",
            )

    def _run_pool(
        self, ctx: Any, queue: Any, first: list[RunConfig], todo: _Todo, runs: _InFlight
    ) -> Generator[Outcome, None, str]:
        """One pool, of ``len(first)`` workers: start ``first``, then more of ``todo`` as
        workers free up; yield the outcomes. Returns ``"done"``, or ``"broken"`` (a worker
        died) or ``"killed"`` (a run past its time limit was killed) with the runs of the pool
        put back in ``todo``.

        When the sweep stops early (Ctrl-C, or the caller stops reading, as on a full store) the
        workers exit at once, within :data:`_PARENT_POLL`, dropping their runs in flight as a
        kill would; otherwise leaving the pool would wait for those runs.
        """
        stop = ctx.RawValue(ctypes.c_bool, False)
        with ProcessPoolExecutor(
            max_workers=len(first),
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(queue, os.getpid(), stop),
        ) as pool:
            pending: dict[Future[Outcome], RunConfig] = {}
            ended = "done"
            try:
                pending = {pool.submit(_execute_in_pool, c): c for c in first}
                while pending:
                    done, _ = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
                    runs.drain(queue)
                    for outcome in self._end_overdue(pending, runs):
                        ended = "killed"
                        yield outcome
                    lost: list[RunConfig] = []
                    yield from _finished(done, pending, runs, lost)
                    if lost:
                        todo.retry[:0] = lost
                        ended = "killed" if ended == "killed" else "broken"
                    if ended == "done":
                        for c in todo.take(len(first) - len(pending)):
                            pending[pool.submit(_execute_in_pool, c)] = c
            except BaseException:  # KeyboardInterrupt, GeneratorExit, an error of the caller's
                stop.value = True
                raise
            finally:
                for fut in pending:
                    fut.cancel()
        return ended

    def _end_overdue(
        self, pending: dict[Future[Outcome], RunConfig], runs: _InFlight
    ) -> Iterator[Outcome]:
        """Kill the workers of the runs past the time limit; their outcomes. (A start
        reported after its run's result is of no run in flight: its worker runs another.)"""
        in_flight = {c.key(): c for c in pending.values()}
        for key, started in runs.overdue(self.run_timeout):
            if key in in_flight:
                _kill(started.pid)
                yield timed_out(in_flight[key], self.run_timeout or 0.0, started)
            else:
                runs.ended.discard(key)


def _finished(
    done: set[Future[Outcome]],
    pending: dict[Future[Outcome], RunConfig],
    runs: _InFlight,
    lost: list[RunConfig],
) -> Iterator[Outcome]:
    """The outcomes of the ``done`` futures of a local pool, taken out of ``pending``; the runs
    of a broken pool go to ``lost``, and those ended at their time limit (reported already) are
    dropped."""
    interrupted = False
    for fut in done:
        config = pending.pop(fut)
        key = config.key()
        runs.finished(key)
        err = fut.exception()
        if key in runs.ended:
            runs.ended.discard(key)
        elif isinstance(err, KeyboardInterrupt):  # Ctrl-C reached the worker:
            interrupted = True  # not a failed run to record
        elif isinstance(err, BrokenProcessPool):
            lost.append(config)
        elif err is not None:
            yield Outcome(config, error="".join(traceback.format_exception(err)))
        else:
            yield fut.result()
    if interrupted:  # after the runs that finished with it
        raise KeyboardInterrupt


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
        run_timeout: seconds a run may take before its task is cancelled (its worker
            killed) and it comes back failed; ``None``: no limit.

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
        run_timeout: float | None = None,
    ) -> None:
        self.numerics = check_mode(numerics)
        self.run_timeout = check_run_timeout(run_timeout)
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
        self, configs: Iterable[RunConfig], progress: ProgressFn | None = None
    ) -> Iterator[Outcome]:
        ray = self._ray
        from ray.util.queue import Queue

        todo = iter(configs)
        first = list(itertools.islice(todo, 1))
        if not first:
            return
        queue, runs = Queue(), _InFlight(progress)
        env_vars = numerics_env(self.numerics)  # merged with the instance's variables
        task = ray.remote(num_cpus=1, max_retries=0, runtime_env={"env_vars": env_vars})(execute)
        slots = max(int(ray.cluster_resources().get("CPU", 1)), 1)  # runs in flight at most
        refs = {task.remote(c, queue): c for c in first}
        try:
            while refs:
                for config in itertools.islice(todo, slots - len(refs)):
                    refs[task.remote(config, queue)] = config
                done, _ = ray.wait(list(refs), num_returns=1, timeout=_POLL)
                runs.drain(queue)
                yield from self._end_overdue(refs, runs)
                for ref in (r for r in done if r in refs):
                    config = refs.pop(ref)
                    runs.finished(config.key())
                    try:
                        yield ray.get(ref)
                    except ray.exceptions.RayError as err:
                        yield Outcome(config, error=f"{type(err).__name__}: {err}")
        finally:
            for ref in refs:
                ray.cancel(ref)
            queue.shutdown()

    def _end_overdue(self, refs: dict[Any, RunConfig], runs: _InFlight) -> Iterator[Outcome]:
        """Cancel the tasks of the runs past the time limit (killing their workers), taken out
        of ``refs``; their outcomes."""
        in_flight = {c.key(): r for r, c in refs.items()}
        for key, started in runs.overdue(self.run_timeout):
            if key in in_flight:
                self._ray.cancel(in_flight[key], force=True)
                yield timed_out(refs.pop(in_flight[key]), self.run_timeout or 0.0, started)

    def close(self) -> None:
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()


def make_executor(
    name: str,
    workers: int | None = None,
    ray_address: str | None = None,
    numerics: Numerics = DEFAULT,
    run_timeout: float | None = None,
) -> Executor:
    """An executor by name: ``local`` (``workers`` processes) or ``ray`` (``ray_address``;
    ``workers`` CPUs of a local instance), its workers in the numerics mode ``numerics``, each
    run limited to ``run_timeout`` seconds (``None``: no limit).

    Raises:
        ValueError: for another name or mode, or a time limit that is not positive.
    """
    if name == "local":
        return LocalExecutor(workers, numerics, run_timeout)
    if name == "ray":
        return RayExecutor(ray_address, workers, numerics, run_timeout)
    raise ValueError(f"unknown executor {name!r}; expected 'local' or 'ray'")
