"""The sweep driver: check the sweep whole, skip what the store has, run the rest on an
executor, record each finished run as it arrives (the driver alone writes the store).

A run that raises is recorded as failed with its traceback and the sweep goes on; a failure
to write the store (a full disk) stops the sweep with the runs recorded so far kept, and a
later call resumes it."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bocvs_env.agent_registration import (
    accepted_params,
    agent_class,
    base_name,
    is_builtin,
    is_import_path,
    make_agent,
    registered_agents,
    required_params,
)
from bocvs_env.benchmark.agent_check import CHECK_TIMEOUT, check_within
from bocvs_env.benchmark.agent_output import keep_output
from bocvs_env.benchmark.claims import Claimant, RunClaims
from bocvs_env.benchmark.config import RunConfig, SweepConfig
from bocvs_env.benchmark.executors import Executor, Outcome, ProgressFn
from bocvs_env.benchmark.run_source import RunSource
from bocvs_env.benchmark.runner import agent_arguments, check_privileged
from bocvs_env.benchmark.store import ResultStore, writable_here
from bocvs_env.env import BOCVSEnv
from bocvs_env.problems.registry import PROBLEMS
from bocvs_env.registration import VERSION


@dataclass
class SweepReport:
    """What a call of :func:`run_sweep` did.

    Attributes:
        total: runs in the sweep.
        skipped: runs already in the store.
        recorded: runs this call added.
        failed: ``(config, traceback)`` of runs that raised; the store records them as failed
            (:meth:`~bocvs_env.benchmark.store.ResultStore.failures`) and a later call retries
            them.
        elsewhere: runs that another driver on the store recorded (or failed) meanwhile.
        logs: the log files of the runs that printed
            (:func:`~bocvs_env.benchmark.agent_output.keep_output`).
    """

    total: int
    skipped: int
    recorded: int = 0
    failed: list[tuple[RunConfig, str]] = field(default_factory=list)
    elsewhere: int = 0
    logs: list[Path] = field(default_factory=list)


def pending_runs(sweep: SweepConfig, store: RunSource) -> tuple[list[RunConfig], int]:
    """The sweep's runs not yet in ``store`` (a result store or a published folder; each
    configuration once), and how many of its runs the store already holds.

    The pending runs are interleaved across problem settings (problem, variance, options), so
    that workers starting together compute different oracles rather than the same one twice
    (oracles are cached on disk per setting).
    """
    done = store.done_keys()
    todo: dict[str, RunConfig] = {}
    for config in sweep.runs():
        todo.setdefault(config.key(), config)
    pending = [c for k, c in todo.items() if k not in done]
    rank: dict[tuple[str, ...], int] = {}
    order = []
    for n, c in enumerate(pending):
        setting = (c.problem, repr(c.variance), repr(sorted(c.problem_options.items())))
        rank[setting] = rank.get(setting, -1) + 1
        order.append((rank[setting], n))
    return [pending[n] for _, n in sorted(order)], len(todo) - len(pending)


def status_lines(source: RunSource, sweeps: list[SweepConfig] | None = None) -> list[str]:
    """``bocvs status``: the runs ``source`` holds (and whether ``bocvs run`` can add to a store
    here), then per sweep (``None``: every recorded sweep) its runs done of its total and, in a
    store, its failed runs."""
    store = source if isinstance(source, ResultStore) else None
    note = ""
    if store is not None and not writable_here(store.path):
        note = " (read-only here: bocvs run cannot add to it)"
    lines = [f"{source.path}: {len(source)} runs{note}"]
    for s in list(source.sweeps().values()) if sweeps is None else sweeps:
        pending, done = pending_runs(s, source)
        failed = len(store.failures(c.key() for c in pending)) if store is not None else 0
        lines.append(
            f"  sweep {s.name!r}: {done} / {done + len(pending)} done"
            + (f", {failed} failed (run it again to retry)" if failed else "")
        )
    return lines


def _toml_key(name: str) -> str:
    """``name`` as a TOML key: bare if it may be, quoted otherwise (``"module:Class"``)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def check_agents(sweep: SweepConfig) -> None:
    """Raise ``ValueError`` before any run starts if the sweep names agents that are neither
    registered nor importable as ``"module:Class"``, agents without the parameters they need
    (their class's ``required_params``, less the privileged ones the runner grants), or
    parameters that an agent's constructor does not take."""
    registered = registered_agents()
    bases = {a: base_name(a) for a in sweep.agents}
    unknown = sorted(a for a, b in bases.items() if not is_import_path(b) and b not in registered)
    if unknown:
        raise ValueError(
            f"sweep {sweep.name!r} names unregistered agents {unknown}; "
            f"registered: {sorted(registered)} (or name one by its import path, 'module:Class')"
        )
    for agent in sweep.agents:
        _check_agent_params(sweep.name, agent, sweep.agent_params.get(agent, {}))


def _check_agent_params(sweep: str, agent: str, params: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` if the sweep named ``sweep`` gives ``agent`` (a known agent) less
    than the parameters it needs, or parameters its constructor does not take."""
    given = set(params) | set(check_privileged(agent))
    missing = [p for p in required_params(agent_class(agent)) if p not in given]
    if missing:
        raise ValueError(
            f"sweep {sweep!r}: agent {agent!r} needs the parameters {missing}; "
            f"set them in the config's [agent_params.{_toml_key(agent)}] table"
        )
    accepted = accepted_params(agent)
    stray = [] if accepted is None else sorted(set(params) - accepted)
    if stray:
        raise ValueError(
            f"sweep {sweep!r}: agent {agent!r} takes no parameters {stray}; "
            f"it takes {sorted(accepted or ()) or 'none'}"
        )


def _setting(config: RunConfig) -> tuple[Any, ...]:
    """What a run's problem is built from (its agent and seed left out)."""
    return (config.problem, config.cost_set, config.variance, config.budget,
            repr(sorted(config.problem_options.items())))  # fmt: skip


def check_sweep(sweep: SweepConfig) -> None:
    """Check the whole sweep before anything is stored or run: its agents and their parameters
    (:func:`check_agents`), then every problem setting built once with its options (which reads
    its data files and checks value ranges) and every agent built once per problem with its
    parameters.

    Raises:
        ValueError: naming the sweep, the setting or agent, and what is wrong.
    """
    check_agents(sweep)
    settings: dict[tuple[Any, ...], RunConfig] = {}
    for config in sweep.runs():
        settings.setdefault(_setting(config), config)
    built: set[tuple[str, str]] = set()
    for config in settings.values():
        where = f"sweep {sweep.name!r}, {config.problem}/{config.cost_set}/v{config.variance:g}"
        try:
            env = BOCVSEnv(**config.env_kwargs(), privileged_info=False)
        except (ValueError, TypeError, OSError) as err:
            raise ValueError(f"{where}: {err}") from err
        for agent in sweep.agents:
            if (agent, config.problem) in built:
                continue
            built.add((agent, config.problem))
            run = RunConfig(**{**config.to_dict(), "agent": agent,
                               "agent_params": sweep.agent_params.get(agent, {})})  # fmt: skip
            try:
                make_agent(agent, **agent_arguments(run, env))
            except (ValueError, TypeError, OSError) as err:
                raise ValueError(f"{where}: agent {agent!r}: {err}") from err


def check_outside_agents(sweep: SweepConfig, timeout: float = CHECK_TIMEOUT) -> None:
    """Check each agent of the sweep that is not one of bocvs's own (an import path, or a name
    another distribution registers) with :func:`bocvs_env.agent.check_agent`, once, on a short
    episode of the sweep's first setting for it, so that a broken agent fails before the sweep
    starts rather than in every worker; each check runs in a process of its own, killed after
    ``timeout`` seconds (:func:`~bocvs_env.benchmark.agent_check.check_within`).

    Raises:
        ValueError: naming the agent and what to change.
    """
    first: dict[str, RunConfig] = {}
    for config in sweep.runs():
        if not is_builtin(config.agent):
            first.setdefault(config.agent, config)
    for config in first.values():
        env_id = f"bocvs/{PROBLEMS[config.problem].env_name}-v{VERSION}"
        failed = check_within(config, env_id, timeout)
        if failed is not None:
            raise ValueError(f"sweep {sweep.name!r}: {failed}")


def run_sweep(
    sweep: SweepConfig,
    store: ResultStore,
    executor: Executor,
    on_outcome: Callable[[Outcome], None] | None = None,
    progress: ProgressFn | None = None,
    on_start: Callable[[SweepReport], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> SweepReport:
    """Run the sweep's missing runs and record each one as it finishes.

    Each run is claimed in the store just before it starts (:mod:`~bocvs_env.benchmark.claims`),
    so that several drivers on one store split the runs: a run another live driver has claimed
    is left to it, and once this driver has nothing left to start it waits for those runs (told
    through ``say``), taking over any whose driver dies. What a run printed goes to its log
    beside the store (:func:`~bocvs_env.benchmark.agent_output.keep_output`).

    Args:
        sweep: the sweep.
        store: where finished runs go (one transaction each).
        executor: where runs execute.
        on_outcome: called after each outcome is handled (recorded or failed).
        progress: forwarded to the executor: ``progress(key, spent, budget)``.
        on_start: called once the pending runs are known, before any runs.
        say: called with a line for the user (runs left to another driver).

    Raises:
        ValueError: if the sweep does not pass :func:`check_sweep` (nothing is stored then).
        StoreAccessError: if the store cannot be written (a full disk): the runs recorded so
            far are kept, the workers are stopped, and a later call resumes the sweep.
    """
    check_sweep(sweep)
    store.register_sweep(sweep)
    pending, skipped = pending_runs(sweep, store)
    report = SweepReport(total=len(pending) + skipped, skipped=skipped)
    if on_start is not None:
        on_start(report)
    claims = RunClaims(store)
    said = ""
    try:
        while pending:
            others: dict[str, Claimant] = {}
            claimed = _claimed(pending, claims, sweep.name, others, report)
            ran = _record_outcomes(executor.run(claimed, progress), store, sweep, claims,
                                   report, on_outcome)  # fmt: skip
            pending = [c for c in pending if c.key() in others]
            if pending and not ran:  # else look again at once: some may be done meanwhile
                said = _wait_for(others, say, said)
    finally:
        claims.close()
    return report


#: Seconds between two looks at the runs another driver is computing.
CLAIM_POLL = 2.0


def _claimed(
    configs: list[RunConfig],
    claims: RunClaims,
    sweep: str,
    others: dict[str, Claimant],
    report: SweepReport,
) -> Iterator[RunConfig]:
    """The runs of ``configs`` this driver claims, each claimed as the executor reads it; those
    another live driver holds go in ``others``, those another driver recorded (or failed) count
    in ``report.elsewhere``."""
    for config in configs:
        found = claims.claim(config, sweep)
        if found == "claimed":
            yield config
        elif isinstance(found, Claimant):
            others[config.key()] = found
        else:
            report.elsewhere += 1


def _record_outcomes(
    outcomes: Iterator[Outcome],
    store: ResultStore,
    sweep: SweepConfig,
    claims: RunClaims,
    report: SweepReport,
    on_outcome: Callable[[Outcome], None] | None,
) -> int:
    """Record each outcome as it arrives (a run, or its failure with the path of its log) and
    release its claim; how many there were."""
    count = 0
    try:
        for outcome in outcomes:
            config = outcome.config
            log = keep_output(config.key(), config.label(), outcome.output, store.path)
            if log is not None:
                report.logs.append(log)
            if outcome.result is not None:
                report.recorded += store.add(outcome.result, sweep=sweep.name)
            else:
                error = outcome.error or "unknown error"
                if log is not None:
                    error += f"\n(what the run printed: {log})"
                store.record_failure(outcome.config, sweep.name, error)
                report.failed.append((outcome.config, error))
            claims.release(outcome.config.key(), failed=outcome.result is None)
            count += 1
            if on_outcome is not None:
                on_outcome(outcome)
    finally:  # stop the workers now when the store cannot take more (a full disk)
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    return count


def _wait_for(others: dict[str, Claimant], say: Callable[[str], None] | None, said: str) -> str:
    """Say which drivers hold the runs left, unless that was ``said`` last, and wait
    :data:`CLAIM_POLL` seconds; what was said."""
    holders = ", ".join(sorted({str(c) for c in others.values()}))
    line = f"waiting for {len(others)} runs that another bocvs run is computing ({holders})"
    if say is not None and line != said:
        say(line)
    time.sleep(CLAIM_POLL)
    return line
