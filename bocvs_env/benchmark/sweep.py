"""The sweep driver: skip what the store has, run the rest on an executor, record each
finished run as it arrives (the driver alone writes the store)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bocvs_env.agent_registration import (
    agent_class,
    is_import_path,
    registered_agents,
    required_params,
)
from bocvs_env.benchmark.config import RunConfig, SweepConfig
from bocvs_env.benchmark.executors import Executor, Outcome, ProgressFn
from bocvs_env.benchmark.runner import check_privileged
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.benchmark.versions import git_commit


@dataclass
class SweepReport:
    """What a call of :func:`run_sweep` did.

    Attributes:
        total: runs in the sweep.
        skipped: runs already in the store.
        recorded: runs this call added.
        failed: ``(config, traceback)`` of runs that raised; they are not recorded and a later
            call retries them.
    """

    total: int
    skipped: int
    recorded: int = 0
    failed: list[tuple[RunConfig, str]] = field(default_factory=list)


def pending_runs(sweep: SweepConfig, store: ResultStore) -> tuple[list[RunConfig], int]:
    """The sweep's runs not yet in ``store`` (each configuration once), and how many are.

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


def _toml_key(name: str) -> str:
    """``name`` as a TOML key: bare if it may be, quoted otherwise (``"module:Class"``)."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def check_agents(sweep: SweepConfig) -> None:
    """Raise ``ValueError`` before any run starts if the sweep names agents that are neither
    registered nor importable as ``"module:Class"``, or agents without the parameters they need
    (their class's ``required_params``, less the privileged ones the runner grants)."""
    registered = registered_agents()
    unknown = sorted(a for a in sweep.agents if not is_import_path(a) and a not in registered)
    if unknown:
        raise ValueError(
            f"sweep {sweep.name!r} names unregistered agents {unknown}; "
            f"registered: {sorted(registered)} (or name one by its import path, 'module:Class')"
        )
    for agent in sweep.agents:
        given = set(sweep.agent_params.get(agent, {})) | set(check_privileged(agent))
        missing = [p for p in required_params(agent_class(agent)) if p not in given]
        if missing:
            raise ValueError(
                f"sweep {sweep.name!r}: agent {agent!r} needs the parameters {missing}; "
                f"set them in the config's [agent_params.{_toml_key(agent)}] table"
            )


def run_sweep(
    sweep: SweepConfig,
    store: ResultStore,
    executor: Executor,
    on_outcome: Callable[[Outcome], None] | None = None,
    progress: ProgressFn | None = None,
    on_start: Callable[[SweepReport], None] | None = None,
) -> SweepReport:
    """Run the sweep's missing runs and record each one as it finishes.

    Args:
        sweep: the sweep.
        store: where finished runs go (one transaction each).
        executor: where runs execute.
        on_outcome: called after each outcome is handled (recorded or failed).
        progress: forwarded to the executor: ``progress(key, spent, budget)``.
        on_start: called once the pending runs are known, before any runs.

    Raises:
        ValueError: if the sweep names agents that are not registered.
    """
    check_agents(sweep)
    store.register_sweep(sweep)
    pending, skipped = pending_runs(sweep, store)
    report = SweepReport(total=len(pending) + skipped, skipped=skipped)
    if on_start is not None:
        on_start(report)
    commit = git_commit()
    for outcome in executor.run(pending, progress):
        if outcome.result is not None:
            report.recorded += store.add(outcome.result, sweep=sweep.name, git_commit=commit)
        else:
            report.failed.append((outcome.config, outcome.error or "unknown error"))
        if on_outcome is not None:
            on_outcome(outcome)
    return report
