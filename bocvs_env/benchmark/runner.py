"""One run of the benchmark: a :class:`RunConfig` in, a :class:`RunResult` out.

This is what executors run in their workers. It builds the environment and the agent by name
(:func:`bocvs_env.agent_registration.make_agent`: a registered name or ``"module:Class"``),
drives the episode with
:func:`bocvs_env.evaluation.run_episode` and adds the run's provenance.
"""

from __future__ import annotations

import platform
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import torch

import bocvs_env
from bocvs_env.agent_registration import agent_class, make_agent, privileged_params
from bocvs_env.benchmark.agent_sources import SOURCE_FIELD, agent_source
from bocvs_env.benchmark.config import RunConfig
from bocvs_env.benchmark.versions import dependency_versions, process_commit
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import EpisodeRecord, run_episode
from bocvs_env.numerics import numerics_in_force


def _true_costs(env: BOCVSEnv) -> np.ndarray:
    return np.array(env.problem.cost_model.means, dtype=np.float64)


#: The privileged knowledge the harness grants an agent whose class asks for it by name (its
#: ``privileged_params``, see :mod:`bocvs_env.agent`), and how to read it off the environment.
#: UCB-CVS (Tay et al. 2023) assumes the true mean costs are known.
PRIVILEGED_VALUES: dict[str, Callable[[BOCVSEnv], Any]] = {
    "costs": _true_costs,
}


def check_privileged(name: str) -> tuple[str, ...]:
    """The privileged parameters agent ``name`` asks for.

    Raises:
        ValueError: if it asks for one the harness cannot grant.
    """
    wanted = privileged_params(agent_class(name))
    unknown = [p for p in wanted if p not in PRIVILEGED_VALUES]
    if unknown:
        raise ValueError(
            f"agent {name!r} asks for privileged parameters {unknown}; "
            f"the benchmark grants only {sorted(PRIVILEGED_VALUES)}"
        )
    return wanted


@dataclass
class RunResult:
    """A finished run.

    Attributes:
        config: what was run.
        record: the episode (privileged values included, for the metrics).
        provenance: package and library versions
            (:func:`~bocvs_env.benchmark.versions.dependency_versions`), agent parameters, host,
            CPU (:func:`cpu_model`) and the numerics mode and kernel settings in force
            (:func:`bocvs_env.numerics.numerics_in_force`), UTC timestamps
            (ISO 8601), wall and CPU time in seconds (of the run, not of the setting's oracle,
            which is computed once per setting), and the commit of the code that ran it
            (:func:`~bocvs_env.benchmark.versions.process_commit`, in the worker).
    """

    config: RunConfig
    record: EpisodeRecord
    provenance: dict[str, Any]


def _cpuinfo(key: str) -> str:
    """The first value of ``key`` in Linux's ``/proc/cpuinfo`` (``""`` if absent or unreadable)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                name, _, value = line.partition(":")
                if name.strip() == key:
                    return value.strip()
    except OSError:
        pass
    return ""


def cpu_model() -> str:
    """The processor's model name: ``/proc/cpuinfo``'s ``model name`` on Linux, else
    :func:`platform.processor` (``""`` if neither says). Runs need not reproduce across kinds of
    CPU (floating-point kernels differ), so a run records the one that made it."""
    return _cpuinfo("model name") or platform.processor()


def cpu_vendor() -> str:
    """The CPU's vendor: ``/proc/cpuinfo``'s ``vendor_id`` (``GenuineIntel``, ``AuthenticAMD``),
    else :func:`platform.machine`, else ``"unknown"``. Runs in ``reproducible`` numerics agree
    bit for bit within a vendor but were measured to differ between Intel and AMD."""
    return _cpuinfo("vendor_id") or platform.machine() or "unknown"


def cpu_kind() -> str:
    """A coarse name for the kind of CPU, as far as floating-point results go:
    ``<vendor>-<instruction set torch's kernels use>``, e.g. ``GenuineIntel-AVX512`` or
    ``AuthenticAMD-AVX512`` (the vendor as :func:`cpu_vendor` reads it). The math libraries
    pick their kernels by vendor and instruction set, so runs of one code version agree bit for
    bit within a kind (as far as measured) and differ across kinds."""
    return f"{cpu_vendor()}-{torch.backends.cpu.get_cpu_capability()}"


def utc_now() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def agent_arguments(config: RunConfig, env: BOCVSEnv) -> dict[str, Any]:
    """The keyword arguments the agent is built with: the configured parameters plus the
    privileged ones its class asks for (:data:`PRIVILEGED_VALUES`; configured parameters win)."""
    granted = {p: PRIVILEGED_VALUES[p](env) for p in check_privileged(config.agent)}
    return {**granted, **config.agent_params}


def run_config(
    config: RunConfig,
    progress: Callable[[float, float], None] | None = None,
    on_start: Callable[[], None] | None = None,
) -> RunResult:
    """Run one configuration to the end of its episode.

    Args:
        config: the run.
        progress: called as ``progress(spent, budget)`` after every step.
        on_start: called once the setting's oracle is computed, as the agent is about to be
            built: where a run's time limit starts (the oracle is the setting's, not the run's).

    Returns:
        The :class:`RunResult`.
    """
    commit = process_commit()  # before the clocks start: not part of the run's times
    env = BOCVSEnv(**config.env_kwargs())
    # The setting's privileged oracle (the record's set maxima) is computed once per setting and
    # cached on disk; computed here, it is left out of the times, which are the run's own.
    env.oracle()
    if on_start is not None:
        on_start()
    started, t0, cpu0 = utc_now(), time.perf_counter(), time.process_time()
    agent = make_agent(config.agent, **agent_arguments(config, env))
    record = run_episode(env, agent, seed=config.seed, progress=progress)
    params = getattr(agent, "params", None)
    source = agent_source(config.agent)  # the module as imported now, for an outside agent
    provenance = {
        "package_version": bocvs_env.__version__,
        "git_commit": commit,
        "python": platform.python_version(),
        **dependency_versions(),
        "agent_name": record.agent,
        "agent_params": params() if callable(params) else dict(config.agent_params),
        **({SOURCE_FIELD: source} if source is not None else {}),
        "host": socket.gethostname(),
        "cpu": cpu_model(),
        **numerics_in_force(),
        "torch_threads": torch.get_num_threads(),
        "started_at": started,
        "finished_at": utc_now(),
        "wall_s": time.perf_counter() - t0,
        "cpu_s": time.process_time() - cpu0,
    }
    return RunResult(config=config, record=record, provenance=provenance)
