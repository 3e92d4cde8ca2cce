"""An experiment of a GP agent reopened from the state kept after its last tell asks what the
uninterrupted experiment asks, bit for bit; a state that does not load is refused in one line."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from bocvs_env.experiment import Experiment, JournalError
from bocvs_env.experiment.loop import Suggestion
from bocvs_env.experiment.operator import simulate_builtin

OPTIONS = {"budget": 30.0}
TELLS = 5


def _key(s: Suggestion) -> tuple[int, int, bytes]:
    return s.number, s.control_set, s.x.tobytes()


@pytest.mark.parametrize("agent", ["etc", "ucb-psq", "ts-psq"])
def test_reopened_from_its_state_a_gp_agent_asks_as_the_uninterrupted_one(
    agent: str, tmp_path: Path
) -> None:
    asked = []
    with Experiment.create(tmp_path / "a", "hartmann6_12d", agent, seed=1, options=OPTIONS) as a:
        simulate_builtin(a, max_tells=TELLS)
        asked.append(_key(a.ask()))
        simulate_builtin(a, max_tells=1)
        asked.append(_key(a.ask()))
    with Experiment.create(tmp_path / "b", "hartmann6_12d", agent, seed=1, options=OPTIONS) as b:
        simulate_builtin(b, max_tells=TELLS)
    with Experiment.open(tmp_path / "b") as b:
        assert b.resumed_by == "state"
        resumed = [_key(b.ask())]
        simulate_builtin(b, max_tells=1)
        resumed.append(_key(b.ask()))
    assert resumed == asked


def _alter_state(journal: Path, name: str, factor: float) -> None:
    """Scale array ``name`` of the journal's kept state by ``factor``, as a tamperer would."""
    with sqlite3.connect(journal) as conn:
        number, blob = conn.execute("SELECT number, arrays FROM agent_states").fetchone()
        with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        arrays[name] = arrays[name] * factor
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        conn.execute("UPDATE agent_states SET arrays = ? WHERE number = ?",
                     (buffer.getvalue(), number))  # fmt: skip


def test_an_altered_gp_state_is_refused_in_one_line(tmp_path: Path) -> None:
    journal = tmp_path / "j"
    with Experiment.create(journal, "hartmann6_12d", "etc", seed=1, options=OPTIONS) as exp:
        simulate_builtin(exp, max_tells=2)
    _alter_state(journal, "surrogate.hyper.lengthscale", 1.5)
    with pytest.raises(JournalError) as refused:
        Experiment.open(journal)
    message = str(refused.value)
    assert "state after answer 2 does not load (ValueError: the saved factor L L^T" in message
    assert "\n" not in message
