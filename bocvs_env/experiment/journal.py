"""The journal of an experiment: an SQLite file that loses nothing told.

It holds the header (the problem's source and digest, the agent's name, parameters and seed,
the code version), every suggestion and every answer, each written in its own transaction in
WAL mode with ``synchronous=FULL``, as the result store (:mod:`bocvs_env.benchmark.store`): a
``kill -9`` between any two statements leaves every answer whose ``tell`` returned. A new journal
is built in a temporary sibling file and linked into place whole, never over an existing file.

The table ``agent_states`` keeps an agent's state after its last answer (arrays as an
``.npz`` without pickles, and JSON: :meth:`Journal.save_state`, :meth:`Journal.latest_state`),
so that an agent that can save and load its state resumes without replaying
(:mod:`bocvs_env.experiment.resume`). Each state replaces the ones before in its transaction
(a GP agent's holds its ``n x n`` factor), so a kill before it leaves the previous one.
Everything read back is data: JSON and numbers, never imported, unpickled or executed.
"""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bocvs_env.experiment.loop import Answer, Suggestion
from bocvs_env.sqlite_file import create_sqlite

#: SQLite's ``application_id`` of a journal ("BOEX").
APPLICATION_ID = 0x424F4558
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE header (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE suggestions (
    number INTEGER PRIMARY KEY, control_set INTEGER NOT NULL, x TEXT NOT NULL,
    asked_at TEXT NOT NULL);
CREATE TABLE answers (
    number INTEGER PRIMARY KEY REFERENCES suggestions(number), measured TEXT NOT NULL,
    y REAL NOT NULL, cost REAL NOT NULL, evaluated INTEGER NOT NULL, told_at TEXT NOT NULL);
CREATE TABLE agent_states (
    number INTEGER PRIMARY KEY REFERENCES answers(number), arrays BLOB NOT NULL,
    meta TEXT NOT NULL);
"""


class JournalError(ValueError):
    """A file that is not a journal, or a journal that cannot be written; one line."""


@dataclass(frozen=True)
class Entry:
    """One journaled suggestion and its answer, if told.

    Attributes:
        number: the suggestion's number.
        control_set: the set suggested.
        x: the agent's query on ``[0, 1]``, shape ``(d,)``.
        answer: the answer, or ``None`` while it is pending.
    """

    number: int
    control_set: int
    x: np.ndarray
    answer: Answer | None


def _now() -> str:
    from bocvs_env.benchmark.runner import utc_now

    return utc_now()


class Journal:
    """An experiment's journal file.

    Use :meth:`create` or :meth:`open`; each write is one committed transaction.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path, self._conn = path, conn

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Journal:
        """A new journal at ``path`` with ``header`` (values JSON-serialisable).

        Raises:
            JournalError: if ``path`` exists.
        """
        path = Path(path)
        if path.exists():
            raise JournalError(f"{path} exists: open it, or choose another path")

        def build(conn: sqlite3.Connection) -> None:
            conn.executescript(_SCHEMA)
            conn.executemany("INSERT INTO header VALUES (?, ?)",
                             [(k, json.dumps(v)) for k, v in header.items()])  # fmt: skip

        if not create_sqlite(path, APPLICATION_ID, SCHEMA_VERSION, build):
            raise JournalError(f"{path} exists: open it, or choose another path")
        return cls.open(path)

    @classmethod
    def open(cls, path: Path) -> Journal:
        """The journal at ``path``.

        Raises:
            JournalError: for a missing file, or one that is not a journal of this format.
        """
        path = Path(path)
        if not path.is_file():
            raise JournalError(f"{path}: no such journal (bocvs experiment new makes one)")
        with path.open("rb") as f:
            head = f.read(100)
        if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
            raise JournalError(f"{path} is not an experiment journal (not an SQLite file)")
        if int.from_bytes(head[68:72], "big") != APPLICATION_ID:
            raise JournalError(f"{path} is not an experiment journal (another SQLite database)")
        if int.from_bytes(head[60:64], "big") != SCHEMA_VERSION:
            raise JournalError(f"{path}: journal format {int.from_bytes(head[60:64], 'big')} "
                               f"is not this code's ({SCHEMA_VERSION})")  # fmt: skip
        conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        return cls(path, conn)

    def close(self) -> None:
        """Close the file."""
        self._conn.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction, committed on success, else rolled back."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def header(self) -> dict[str, Any]:
        """The header, as written by :meth:`create`."""
        return {k: json.loads(v) for k, v in self._conn.execute("SELECT key, value FROM header")}

    def entries(self) -> list[Entry]:
        """Every suggestion in order, with its answer when told."""
        rows = self._conn.execute(
            "SELECT s.number, s.control_set, s.x, a.measured, a.y, a.cost, a.evaluated "
            "FROM suggestions s LEFT JOIN answers a USING (number) ORDER BY s.number"
        ).fetchall()
        out = []
        for number, control_set, x, measured, y, cost, evaluated in rows:
            answer = None
            if measured is not None:
                answer = Answer(number, json.loads(measured), y, cost, bool(evaluated))
            out.append(Entry(number, control_set, np.array(json.loads(x), dtype=np.float64),
                             answer))  # fmt: skip
        return out

    def add_suggestion(self, s: Suggestion) -> None:
        """Journal suggestion ``s`` (kept if another process journaled the same number first)."""
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO suggestions VALUES (?, ?, ?, ?)",
                (s.number, s.control_set, json.dumps(s.x.tolist()), _now()),
            )

    def add_answer(self, a: Answer) -> None:
        """Journal answer ``a``.

        Raises:
            JournalError: if the suggestion it answers was already answered (by another
                process) or is not journaled; nothing is written then.
        """
        with self._write() as conn:
            told = conn.execute("SELECT 1 FROM answers WHERE number = ?", (a.number,)).fetchone()
            asked = conn.execute("SELECT MAX(number) FROM suggestions").fetchone()[0]
            if told is not None:
                raise JournalError(f"{self.path}: suggestion {a.number} was already answered "
                                   "(by another process?): reopen the journal")  # fmt: skip
            if asked != a.number:
                raise JournalError(f"{self.path}: suggestion {a.number} is not the journal's "
                                   f"last ({asked}): reopen the journal")  # fmt: skip
            conn.execute(
                "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                (a.number, json.dumps(a.measured), a.y, a.cost, int(a.evaluated), _now()),
            )

    def save_state(self, number: int, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Keep an agent's state after answer ``number``: numeric ``arrays`` (an ``.npz``
        without pickles) and JSON ``meta``, in one transaction that drops the states kept
        before it (resuming reads only the last).

        Raises:
            ValueError: for an array of objects (it would need a pickle).
        """
        buffer = io.BytesIO()
        for name, array in arrays.items():
            if np.asarray(array).dtype.hasobject:
                raise ValueError(f"agent state {name!r}: an array of objects needs a pickle")
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO agent_states VALUES (?, ?, ?)",
                         (number, buffer.getvalue(), json.dumps(meta)))  # fmt: skip
            conn.execute("DELETE FROM agent_states WHERE number < ?", (number,))

    def latest_state(self) -> tuple[int, dict[str, np.ndarray], dict[str, Any]] | None:
        """The last state kept (:meth:`save_state`): its answer's number, arrays and meta,
        loaded without running code (``allow_pickle=False``); ``None`` if none is kept."""
        row = self._conn.execute(
            "SELECT number, arrays, meta FROM agent_states ORDER BY number DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        with np.load(io.BytesIO(row[1]), allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
        return int(row[0]), arrays, json.loads(row[2])
