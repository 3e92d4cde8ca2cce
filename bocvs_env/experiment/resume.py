"""Resuming an experiment's agent from its journal: from its last saved state, else by replay.

An agent that can save its state (:class:`~bocvs_env.agent_state.StatefulAgent`) has it kept
after each tell (:func:`save_agent_state`). Reopening (:func:`resume`) follows the journal, with
the loop's budget and observation only, up to the last state kept, loads that state into the
freshly reset agent, and replays only the answers told after it, each replayed suggestion
checked against the journaled one (a kill between a tell and its state leaves the state
before, so that tell is replayed). An agent without that support, or a journal without a kept
state (a kill before the first), is replayed from the start. A kept state that does not load
(another agent's, or altered) is refused in one line, not replayed: the journal says the agent
saves its state, so a state it cannot load is damage to report.
"""

from __future__ import annotations

import numpy as np

from bocvs_env.agent_state import StateArrays, StateMeta, supports_state
from bocvs_env.experiment.journal import Journal, JournalError
from bocvs_env.experiment.loop import Loop


def save_agent_state(loop: Loop, journal: Journal, number: int) -> None:
    """Keep the state of ``loop``'s agent after answer ``number``, if it can save one."""
    if supports_state(loop.agent):
        arrays, meta = loop.agent.save_state()  # type: ignore[attr-defined]
        journal.save_state(number, arrays, meta)


def _load(loop: Loop, journal: Journal, kept: tuple[int, StateArrays, StateMeta]) -> None:
    """Load state ``kept`` (from :meth:`Journal.latest_state`) into ``loop``'s agent.

    Raises:
        JournalError: for a state the agent cannot load (another agent's, or altered).
    """
    try:
        loop.agent.load_state(kept[1], kept[2])  # type: ignore[attr-defined]
    except (KeyError, TypeError, ValueError) as err:
        raise JournalError(
            f"{journal.path}: the agent's state after answer {kept[0]} does not "
            f"load ({type(err).__name__}: {err})"
        ) from err


def resume(loop: Loop, journal: Journal, refusal: str) -> str:
    """Bring ``loop`` (just built, its agent reset) to the end of ``journal``; return how the
    agent was restored: ``"state"`` or ``"replay"``.

    Args:
        loop: the loop of a fresh agent.
        journal: the experiment's journal.
        refusal: the message's end when a replayed suggestion differs (which code wrote it).

    Raises:
        JournalError: if a replayed suggestion is not the journaled one.
    """
    kept = journal.latest_state() if supports_state(loop.agent) else None
    saved = kept[0] if kept is not None else 0
    for entry in journal.entries():
        if entry.number <= saved:
            loop.suggest(entry.control_set, entry.x)
            assert entry.answer is not None  # a state is kept after its answer only
            loop.apply(entry.answer, learn=False)
            if entry.number == saved:
                assert kept is not None
                _load(loop, journal, kept)
            continue
        s = loop.ask()
        if s.control_set != entry.control_set or not np.array_equal(s.x, entry.x):
            raise JournalError(f"{journal.path}: replaying gives another suggestion "
                               f"{entry.number} than the journal's ({refusal})")  # fmt: skip
        if entry.answer is not None:
            loop.apply(entry.answer)
    return "state" if saved else "replay"
