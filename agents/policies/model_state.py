"""The state of a model-based agent as arrays and JSON: its bookkeeping, its GP as it stands and
what its acquisition grows between fits, for a policy's ``save_state`` and ``load_state``
(:class:`~bocvs_env.agent_state.StatefulAgent`)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from agents.acquisition import ExpectedAcquisition
from agents.surrogate import GPSurrogate
from bocvs_env.agent_state import StateArrays, StateMeta, check_saved_as, part, prefixed
from bocvs_env.task import Task


class ModelAgentData(Protocol):
    """What :class:`SavedModelAgent` reads and writes of the agent it is mixed into
    (:class:`~agents.policies.model_based.ModelBasedAgent`, after
    :class:`~agents.base.BaseAgent` in its bases)."""

    name: str
    task: Task
    X: np.ndarray
    y: np.ndarray
    surrogate: GPSurrogate
    acquisition: ExpectedAcquisition
    _maximizers: dict[int, list[np.ndarray]]
    _held: tuple[int, np.ndarray, float] | None  # set, query, spent before
    _stride: int

    def params(self) -> dict[str, Any]: ...

    def bookkeeping_state(self) -> tuple[StateArrays, StateMeta]: ...

    def load_bookkeeping_state(self, arrays: StateArrays, meta: StateMeta) -> None: ...


class SavedModelAgent:
    """What :class:`~agents.policies.model_based.ModelBasedAgent` keeps between decisions,
    saved (:meth:`model_state`) and loaded (:meth:`load_model_state`) as data: a policy that
    keeps nothing else saves just this; one that keeps more adds its own. A mixin (the agent's
    data: :class:`ModelAgentData`), so that a policy stays two levels below the base agent."""

    def model_state(self: ModelAgentData) -> tuple[StateArrays, StateMeta]:
        """The model-based agent's state, for a policy's ``save_state``: the bookkeeping
        (:meth:`~agents.base.BaseAgent.bookkeeping_state`); the GP under ``surrogate.*``
        (:meth:`~agents.surrogate.GPSurrogate.save_state`); the Gram matrices the acquisition
        grows under ``gp_cache.*``
        (:meth:`~agents.acquisition.gp_cache.GPFactorCache.save_state`); each set's recent
        maximizers ``maximizers.<set>`` (``k x d``); a held decision's query ``held.x``
        (``d``); in JSON the agent's name, parameters and model seed, the held decision's set
        and spend, and the data stride.

        The acquisition and the optimizer keep nothing else a decision reads but what the model
        seed builds (their other caches are recomputed to the same values)."""
        arrays, meta = self.bookkeeping_state()
        gp_arrays, gp_meta = self.surrogate.save_state()
        arrays.update(prefixed("surrogate", gp_arrays))
        cache_arrays, cache_meta = self.acquisition.gp_cache.save_state()
        arrays.update(prefixed("gp_cache", cache_arrays))
        for i, kept in self._maximizers.items():
            arrays[f"maximizers.{i}"] = np.array(kept, np.float64).reshape(-1, self.task.dim)
        held = None
        if self._held is not None:
            arrays["held.x"] = self._held[1].copy()
            held = [self._held[0], self._held[2]]
        meta.update(agent=self.name, params=self.params(), model_seed=self.acquisition.seed,
                    surrogate=gp_meta, gp_cache=cache_meta, held=held,
                    stride=self._stride)  # fmt: skip
        return arrays, meta

    def load_model_state(self: ModelAgentData, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`model_state` (after :meth:`reset` with the same task,
        observation, info and seed): the GP is loaded, not refit.

        Raises:
            ValueError: for a state of another agent, parameters or seed, a GP conditioned on
                other data than the agent observed, or one that does not load
                (:meth:`~agents.surrogate.GPSurrogate.load_state`).
        """
        check_saved_as(meta, agent=self.name, params=self.params(),
                       model_seed=self.acquisition.seed)  # fmt: skip
        self.load_bookkeeping_state(arrays, meta)
        self.surrogate.load_state(part(arrays, "surrogate"), meta["surrogate"])
        _check_gp_data(self)
        self.acquisition.gp_cache.load_state(
            part(arrays, "gp_cache"), meta["gp_cache"], self.surrogate
        )
        kept = part(arrays, "maximizers")
        self._maximizers = {
            int(i): list(np.asarray(kept[i], np.float64).reshape(-1, self.task.dim)) for i in kept
        }
        held = meta["held"]
        self._held = None if held is None else (
            int(held[0]), np.asarray(arrays["held.x"], np.float64).reshape(self.task.dim).copy(),
            float(held[1]),
        )  # fmt: skip
        self._stride = int(meta["stride"])


def _check_gp_data(agent: ModelAgentData) -> None:
    """Raise a one-line ``ValueError`` unless every point the loaded GP is conditioned on (its
    input and output) is one the agent observed (the GP may hold a subset of them: thinned
    data, a frozen model)."""
    observed = {(x.tobytes(), v) for x, v in zip(agent.X, agent.y.tolist(), strict=True)}
    gp_X, gp_y = agent.surrogate.train_X.numpy(), agent.surrogate.train_y.tolist()
    for j, (x, v) in enumerate(zip(gp_X, gp_y, strict=True)):
        if (x.tobytes(), v) not in observed:
            raise ValueError(f"the saved GP's point {j} (y = {v!r}) is not one the agent "
                             "observed")  # fmt: skip
