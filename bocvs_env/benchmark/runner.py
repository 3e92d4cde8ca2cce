"""One run of the benchmark: a :class:`RunConfig` in, a :class:`RunResult` out.

This is what executors run in their workers. It builds the environment and the agent by name
(:func:`agents.registry.make_agent`), drives the episode with
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
from agents.registry import make_agent
from bocvs_env.benchmark.config import RunConfig
from bocvs_env.benchmark.versions import dependency_versions
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import EpisodeRecord, run_episode


def _true_costs(env: BOCVSEnv) -> dict[str, Any]:
    return {"costs": np.array(env.problem.cost_model.means, dtype=np.float64)}


#: Agents that need privileged knowledge of the problem to be built, and how to get it from the
#: environment. UCB-CVS (Tay et al. 2023) assumes the true mean costs are known.
PRIVILEGED_PARAMS: dict[str, Callable[[BOCVSEnv], dict[str, Any]]] = {
    "ucb-cvs": _true_costs,
}


@dataclass
class RunResult:
    """A finished run.

    Attributes:
        config: what was run.
        record: the episode (privileged values included, for the metrics).
        provenance: package and library versions
            (:func:`~bocvs_env.benchmark.versions.dependency_versions`), agent parameters, host,
            UTC timestamps (ISO 8601) and wall time in seconds; the store adds the git commit.
    """

    config: RunConfig
    record: EpisodeRecord
    provenance: dict[str, Any]


def utc_now() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def agent_arguments(config: RunConfig, env: BOCVSEnv) -> dict[str, Any]:
    """The keyword arguments the agent is built with: the configured parameters plus what
    :data:`PRIVILEGED_PARAMS` grants it (configured parameters win)."""
    extra = PRIVILEGED_PARAMS.get(config.agent)
    return {**(extra(env) if extra is not None else {}), **config.agent_params}


def run_config(
    config: RunConfig, progress: Callable[[float, float], None] | None = None
) -> RunResult:
    """Run one configuration to the end of its episode.

    Args:
        config: the run.
        progress: called as ``progress(spent, budget)`` after every step.

    Returns:
        The :class:`RunResult`.
    """
    started, t0 = utc_now(), time.perf_counter()
    env = BOCVSEnv(**config.env_kwargs())
    agent = make_agent(config.agent, **agent_arguments(config, env))
    record = run_episode(env, agent, seed=config.seed, progress=progress)
    params = getattr(agent, "params", None)
    provenance = {
        "package_version": bocvs_env.__version__,
        "python": platform.python_version(),
        **dependency_versions(),
        "agent_name": record.agent,
        "agent_params": params() if callable(params) else dict(config.agent_params),
        "host": socket.gethostname(),
        "torch_threads": torch.get_num_threads(),
        "started_at": started,
        "finished_at": utc_now(),
        "wall_s": time.perf_counter() - t0,
    }
    return RunResult(config=config, record=record, provenance=provenance)
