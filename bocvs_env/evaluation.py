"""The evaluation loop: one episode of any agent on a BOCVS environment, as a record.

``public_info`` (``info`` as an agent may see it) is :func:`bocvs_env.env.public_info`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import gymnasium as gym
import numpy as np

from bocvs_env.agent import Agent
from bocvs_env.budget import cumulative_spend
from bocvs_env.env import PRIVILEGED_KEY, BOCVSEnv, public_info
from bocvs_env.numerics import Numerics, use_numerics, use_requested_numerics


@dataclass
class EpisodeRecord:
    """Everything the metrics need from one episode (evaluated steps only).

    Attributes:
        problem: the problem's name.
        agent: the agent's name.
        seed: the episode's seed.
        control_set: ``T`` sets played (int64).
        x: ``T x d`` full queries (controlled and drawn parts).
        y: ``T`` noisy observations.
        cost: ``T`` costs paid.
        g: ``T`` privileged noiseless values ``g_{i_t}(x_t)``.
        set_max: ``m`` privileged oracle values ``max_x g_i(x)``.
        cost_means: ``m`` privileged mean costs ``c_i``.
        budget: the episode's budget.
        config: the problem's configuration (provenance).
        diagnostics: the agent's decision log, if it keeps one.
    """

    problem: str
    agent: str
    seed: int | None
    control_set: np.ndarray
    x: np.ndarray
    y: np.ndarray
    cost: np.ndarray
    g: np.ndarray
    set_max: np.ndarray
    cost_means: np.ndarray
    budget: float
    config: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    @property
    def n_evaluations(self) -> int:
        """The number of evaluated steps ``T``."""
        return int(self.control_set.size)

    @cached_property
    def spent(self) -> np.ndarray:
        """Cumulative cost after each step, shape ``(T,)``, summed exactly as the environment
        accounts it (:func:`bocvs_env.budget.cumulative_spend`), so never above the budget."""
        return cumulative_spend(self.cost)


def run_episode(
    env: gym.Env,
    agent: Agent,
    seed: int | None = None,
    progress: Callable[[float, float], None] | None = None,
    numerics: Numerics | None = None,
) -> EpisodeRecord:
    """Drive ``agent`` through one episode of ``env`` and record it.

    Args:
        env: a :class:`~bocvs_env.env.BOCVSEnv`, possibly wrapped (as by ``gymnasium.make``) by
            wrappers that keep its Dict observation (not ``wrap_sb3``'s flat one).
        agent: anything following :class:`bocvs_env.agent.Agent`.
        seed: seeds the environment's reset and the agent.
        progress: called as ``progress(spent, budget)`` after every step, for progress bars.
        numerics: run in this numerics mode (:func:`bocvs_env.numerics.use_numerics`);
            ``None``: the mode ``BOCVS_NUMERICS`` names, if set, else the process as it is.

    Returns:
        The :class:`EpisodeRecord`, privileged values included, for the metrics.

    Raises:
        NumericsError: if the mode cannot take effect in this process (``reproducible`` after
            numpy, SciPy or torch loaded with other kernels), before the episode starts.
    """
    base = env.unwrapped
    if not isinstance(base, BOCVSEnv):
        raise TypeError(f"run_episode needs a BOCVSEnv, got {type(base).__name__}")
    if numerics is None:
        use_requested_numerics()
    else:
        use_numerics(numerics)
    obs, info = env.reset(seed=seed)
    task = base.task
    agent.reset(task, obs, public_info(info), seed=seed)
    sets: list[int] = []
    xs: list[np.ndarray] = []
    ys: list[float] = []
    costs: list[float] = []
    gs: list[float] = []  # the env's per-step privileged g, when it computes it
    while True:
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        if info["evaluated"]:
            sets.append(int(obs["control_set"]))
            xs.append(obs["x"])
            ys.append(float(obs["y"][0]))
            costs.append(float(obs["cost"][0]))
            if PRIVILEGED_KEY in info:
                gs.append(float(info[PRIVILEGED_KEY]["g"]))
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
        if progress is not None:
            progress(float(info["spent"]), task.budget)
        if terminated or truncated:
            break
    set_arr = np.asarray(sets, dtype=np.int64)
    x_arr = np.asarray(xs, dtype=np.float64).reshape(-1, task.dim)
    # Reuse the env's per-step values; compute them in one batch only if it did not.
    g = np.asarray(gs) if len(gs) == len(sets) else base.goal.g_batch(set_arr, x_arr)
    diagnostics = getattr(agent, "diagnostics", None)
    return EpisodeRecord(
        problem=base.problem.name,
        agent=getattr(agent, "name", type(agent).__name__),
        seed=seed,
        control_set=set_arr,
        x=x_arr,
        y=np.asarray(ys, dtype=np.float64),
        cost=np.asarray(costs, dtype=np.float64),
        g=g,
        set_max=base.oracle(),
        cost_means=base.problem.cost_model.means.copy(),
        budget=task.budget,
        config=dict(base.problem.config or {}),
        diagnostics=diagnostics() if callable(diagnostics) else [],
    )
