"""The optional state protocol of an agent: save and load what it has learned, as data.

An agent that has these two members, beside the :class:`~bocvs_env.agent.Agent` protocol, can
be resumed without replaying its history: an experiment's journal
(:mod:`bocvs_env.experiment.journal`) keeps its state after each tell, and reopening builds the
agent, ``reset`` s it with the same task, observation, info and seed, and calls ``load_state``
with the last state kept. The state is data only, so that it loads without running code: numeric
arrays (stored as an ``.npz`` read with ``allow_pickle=False``) and JSON (no pickle, no
``torch.load`` of objects). Loading must leave the agent acting exactly as the agent that saved
it would, bit for bit, random streams included (:func:`generator_state` gives a numpy
generator's state as JSON). An agent without the members resumes by replay.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

#: Numeric arrays by name (no arrays of objects).
StateArrays = dict[str, np.ndarray]
#: JSON-serialisable values by name.
StateMeta = dict[str, Any]


@runtime_checkable
class StatefulAgent(Protocol):
    """An agent whose state can be saved after an ``observe`` and loaded after a ``reset``."""

    def state(self) -> tuple[StateArrays, StateMeta]:
        """The agent's state now: numeric arrays and JSON metadata."""

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`state`; called after ``reset`` with the same task, reset
        observation, info and seed as the agent that saved it."""


def supports_state(agent: Any) -> bool:
    """Whether ``agent`` has callable ``state`` and ``load_state`` (:class:`StatefulAgent`)."""
    return callable(getattr(agent, "state", None)) and callable(getattr(agent, "load_state", None))


def generator_state(rng: np.random.Generator) -> dict[str, Any]:
    """The state of numpy generator ``rng`` as JSON (its bit generator's ``state`` dict)."""
    return dict(rng.bit_generator.state)


def load_generator_state(rng: np.random.Generator, state: dict[str, Any]) -> None:
    """Set ``rng`` to ``state`` (from :func:`generator_state`).

    Raises:
        ValueError: for a state of another bit generator than ``rng``'s.
    """
    kind = type(rng.bit_generator).__name__
    if state.get("bit_generator") != kind:
        raise ValueError(f"generator state of {state.get('bit_generator')!r}: this agent's "
                         f"generator is {kind!r}")  # fmt: skip
    rng.bit_generator.state = state
