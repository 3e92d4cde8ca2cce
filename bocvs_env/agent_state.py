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

The built-in agents that save their state are ``random`` and the GP agents ``etc`` (with every
preset of the explore-then-commit policy), ``ucb-psq``, ``ts-psq``, ``etc-50``, ``ucb-cvs``,
``ucb-cvs-est``, ``ei-cost``, ``sadcbo`` and ``pbgi-sets``: their state holds the GP's training
data, hyperparameters, Cholesky factor and precision as they are, so that the posterior is the
same bits without a refit, and what the policy keeps between decisions. The other built-in
agents (``sb3``, ``neural-af``, ``neural-af-prior``) resume by replay.
A state is composed of its parts' states under dotted prefixes (:func:`prefixed`,
:func:`part`).
"""

from __future__ import annotations

import json
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch
from torch import Tensor

#: How far a matrix loaded from a state may be from what its other arrays make it (a factor's
#: ``L L^T`` from its kernel matrix, a precision from the factor's inverse), relative to the
#: expected matrix's largest entry: rounding stays far below; an altered state does not.
LOADED_TOLERANCE = 1e-6

#: Numeric arrays by name (no arrays of objects).
StateArrays = dict[str, np.ndarray]
#: JSON-serialisable values by name.
StateMeta = dict[str, Any]


@runtime_checkable
class StatefulAgent(Protocol):
    """An agent whose state can be saved after an ``observe`` and loaded after a ``reset``."""

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """The agent's state now: numeric arrays and JSON metadata."""

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state`; called after ``reset`` with the same task, reset
        observation, info and seed as the agent that saved it."""


def supports_state(agent: Any) -> bool:
    """Whether ``agent`` has callable ``save_state`` and ``load_state`` (:class:`StatefulAgent`)."""
    return callable(getattr(agent, "save_state", None)) and callable(
        getattr(agent, "load_state", None)
    )


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


def prefixed(prefix: str, arrays: StateArrays) -> StateArrays:
    """``arrays`` with every name given ``prefix`` and a dot: a part's arrays in a whole's."""
    return {f"{prefix}.{name}": array for name, array in arrays.items()}


def part(arrays: StateArrays, prefix: str) -> StateArrays:
    """The arrays :func:`prefixed` gave ``prefix``, with their own names back."""
    start = f"{prefix}."
    return {name[len(start) :]: a for name, a in arrays.items() if name.startswith(start)}


def check_saved_as(meta: StateMeta, **expected: Any) -> None:
    """Raise a one-line ``ValueError`` unless ``meta`` records the ``expected`` values (JSON
    compared: the agent's name, parameters, seeds a state was saved with).

    Raises:
        ValueError: naming the first key whose value differs, with both values.
    """
    for key, value in expected.items():
        wanted = json.loads(json.dumps(value))
        if meta.get(key) != wanted:
            raise ValueError(f"a state saved with {key} = {meta.get(key)!r}: this agent's "
                             f"{key} is {wanted!r}")  # fmt: skip


def tensor_array(tensor: Tensor) -> np.ndarray:
    """A copy of ``tensor`` as a numpy array in its memory layout (a column-major matrix stays
    column-major in the ``.npz``): a product's rounding can depend on its operands' layout."""
    return np.array(tensor.detach().numpy(), order="K", copy=True)


def array_tensor(array: np.ndarray) -> Tensor:
    """A float64 tensor copied from ``array`` in its memory layout (:func:`tensor_array`)."""
    return torch.from_numpy(np.array(array, dtype=np.float64, order="K", copy=True))


def check_consistent(what: str, got: Tensor, expected: Tensor, shaped: bool = True) -> None:
    """Raise a one-line ``ValueError`` unless ``shaped`` and the loaded ``got`` equals what the
    state's other arrays make it, ``expected`` (of ``got``'s shape), within
    :data:`LOADED_TOLERANCE` of its largest entry."""
    scale = float(expected.abs().max()) if expected.numel() else 0.0
    error = float((got - expected).abs().max()) if expected.numel() else 0.0
    if not shaped or not error <= LOADED_TOLERANCE * max(scale, 1e-300):
        raise ValueError(f"the saved {what} is not what the state's other arrays make it "
                         f"(largest difference {error:.3g} of {scale:.3g})")  # fmt: skip
