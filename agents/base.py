"""The base class of the built-in agents.

The contract every agent follows, :class:`~bocvs_env.agent.Agent`, and the
:data:`~bocvs_env.agent.Observation` and :data:`~bocvs_env.agent.Action` aliases belong to the
environment side (:mod:`bocvs_env.agent`); they are re-exported here for convenience.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from bocvs_env.agent import Action, Agent, Observation
from bocvs_env.agent_state import generator_state, load_generator_state
from bocvs_env.jsonable import plain
from bocvs_env.task import Task

__all__ = ["Action", "Agent", "BaseAgent", "Observation"]


class BaseAgent(ABC):
    """Bookkeeping shared by the built-in agents.

    Keeps the task, a seeded ``numpy`` generator, the observed data (``X``: ``n x d`` full
    queries, ``y``: ``n``, initial design included), per-set play counts, cost sums and the
    cost draws themselves (:attr:`cost_draws`, for agents that model a cost's spread), and a
    per-round decision log (:attr:`decisions`) that explains each choice.
    """

    name = "base"
    #: Keyword arguments the agent cannot be built without (see :mod:`bocvs_env.agent`).
    required_params: ClassVar[tuple[str, ...]] = ()
    #: Privileged knowledge the benchmark must grant it, by name (see :mod:`bocvs_env.agent`).
    privileged_params: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.decisions: list[dict[str, Any]] = []

    def reset(
        self, task: Task, observation: Observation, info: dict[str, Any], seed: int | None = None
    ) -> None:
        self.task = task
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        d = task.dim
        X0 = np.asarray(info.get("initial_x", np.zeros((0, d))), dtype=np.float64).reshape(-1, d)
        y0 = np.asarray(info.get("initial_y", np.zeros(0)), dtype=np.float64).reshape(-1)
        self.X = X0.copy()
        self.y = y0.copy()
        self.plays = np.zeros(task.n_sets, dtype=np.int64)
        self.cost_sums = np.zeros(task.n_sets)
        self.cost_draws: list[list[float]] = [[] for _ in range(task.n_sets)]
        self.spent = 0.0
        self.decisions = []
        self.start()

    def start(self) -> None:
        """Hook for subclasses: called at the end of :meth:`reset`."""

    @abstractmethod
    def act(self, observation: Observation) -> Action:
        """Choose the next control set and query."""

    def observe(
        self,
        action: Action,
        observation: Observation,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        if not info.get("evaluated", False):
            return
        i = int(observation["control_set"])
        self.X = np.vstack([self.X, observation["x"][None]])
        self.y = np.append(self.y, float(observation["y"][0]))
        cost = float(observation["cost"][0])
        self.plays[i] += 1
        self.cost_sums[i] += cost
        self.cost_draws[i].append(cost)
        self.spent += cost

    def bookkeeping_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The state this base class keeps, as arrays and JSON
        (:class:`~bocvs_env.agent_state.StatefulAgent`): ``X`` (``n x d``), ``y`` (``n``),
        ``plays`` and ``cost_sums`` (per set), the cost draws, the spend, the decision log
        (NumPy values as plain JSON) and the generator's state. A subclass that adds no state
        of its own saves just this."""
        arrays = {"X": self.X, "y": self.y, "plays": self.plays, "cost_sums": self.cost_sums}
        meta = {"cost_draws": self.cost_draws, "spent": self.spent,
                "decisions": plain(self.decisions),
                "rng": generator_state(self.rng)}  # fmt: skip
        return arrays, meta

    def load_bookkeeping_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Restore a state from :meth:`bookkeeping_state` (after :meth:`reset`)."""
        self.X = np.array(arrays["X"], dtype=np.float64).reshape(-1, self.task.dim)
        self.y = np.array(arrays["y"], dtype=np.float64).reshape(-1)
        self.plays = np.array(arrays["plays"], dtype=np.int64)
        self.cost_sums = np.array(arrays["cost_sums"], dtype=np.float64)
        self.cost_draws = [[float(c) for c in draws] for draws in meta["cost_draws"]]
        self.spent = float(meta["spent"])
        self.decisions = list(meta["decisions"])
        load_generator_state(self.rng, meta["rng"])

    def log(self, **entry: Any) -> None:
        """Record why this round's choice was made (JSON-able values)."""
        self.decisions.append(entry)

    def diagnostics(self) -> list[dict[str, Any]]:
        """The decision log of the current or last episode, one entry per decision."""
        return list(self.decisions)

    def params(self) -> dict[str, Any]:
        """The agent's parameters, for provenance (JSON-able)."""
        return {}
