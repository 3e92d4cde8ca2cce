"""Claims: how several ``bocvs run`` on one store split its runs rather than each compute all.

A driver claims a run in the store just before it starts it: one ``BEGIN IMMEDIATE``
transaction checks that the run is not recorded, that no other driver failed it since this
driver began, and that no live driver holds a claim on it, and then writes the claim: the
run's key, and the claiming process's pid, host and start time. A claim is dropped once its run
is recorded, marked failed once its failure is, and a driver's unfinished claims are dropped
when it ends. A claim whose process is gone (killed, even with ``kill -9``) or is another process that
reuses its pid (told by the start time) is taken over by the next driver that reaches the run.

Liveness is checked on this host only: a claim of another host counts as live. SQLite's
write-ahead log, which the store uses, works only among processes of one host, so a store is
not shared across hosts anyway.

The claims are a table of their own (``claims``) beside the runs; like every write of the
store, each claim is one transaction, so a kill at any moment leaves the runs as they were.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bocvs_env.benchmark.config import RunConfig
from bocvs_env.benchmark.store import ResultStore, store_access

_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    config_key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    process_started TEXT NOT NULL,
    claimed_at REAL NOT NULL,
    failed INTEGER NOT NULL DEFAULT 0
);
"""


def process_started(pid: int) -> str | None:
    """A token of when process ``pid`` started (its start in clock ticks since boot, from
    Linux's ``/proc/<pid>/stat``; ``""`` where there is no ``/proc`` but the process exists),
    or ``None`` if there is no such process."""
    proc = Path("/proc")
    if proc.is_dir():
        try:
            stat = (proc / str(pid) / "stat").read_text()
        except OSError:
            return None
        return stat.rsplit(")", 1)[1].split()[19]  # field 22 of the line
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return ""


@dataclass(frozen=True)
class Claimant:
    """The driver process holding a claim: its pid, host and start token
    (:func:`process_started`)."""

    pid: int
    host: str
    started: str

    def alive(self) -> bool:
        """Whether the claimant still runs (a process of another host is taken to)."""
        if self.host != socket.gethostname():
            return True
        now = process_started(self.pid)
        return now is not None and (now == self.started or "" in (now, self.started))

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}"


#: What :meth:`RunClaims.claim` found: the run is this driver's now, it is recorded already, or
#: another driver tried it (and failed) since this one began.
Claimed = Literal["claimed", "done", "failed"]


class RunClaims:
    """The claims of this process (the driver) on the runs of ``store``, a store open for
    writing; a connection of its own.

    Raises:
        StoreAccessError: if the claims cannot be written (a read-only or full store).
    """

    def __init__(self, store: ResultStore, timeout: float = 60.0) -> None:
        self.path = store.path
        pid = os.getpid()
        self.me = Claimant(pid, socket.gethostname(), process_started(pid) or "")
        self.since = time.time()
        with store_access(self.path, "open the claims of"):
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
            self._conn.executescript(_CLAIMS)

    def claim(self, config: RunConfig, sweep: str) -> Claimed | Claimant:
        """Claim run ``config`` for this driver, unless it is recorded, failed elsewhere since
        this driver began, or claimed by a live driver (which is returned)."""
        key = config.key()
        conn = self._conn
        with store_access(self.path, f"claim run {config.label()} in"):
            conn.execute("BEGIN IMMEDIATE")
            try:
                found = self._found(key)
                if found is None:
                    conn.execute(
                        "INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?, 0)",
                        (key, sweep, self.me.pid, self.me.host, self.me.started, time.time()),
                    )
                conn.execute("COMMIT")
            finally:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
        return "claimed" if found is None else found

    def _found(self, key: str) -> Claimed | Claimant | None:
        """Why run ``key`` may not be claimed (``None``: it may), inside the transaction."""
        conn = self._conn
        if conn.execute("SELECT 1 FROM runs WHERE config_key = ?", (key,)).fetchone():
            return "done"
        row = conn.execute(
            "SELECT pid, host, process_started, claimed_at, failed FROM claims "
            "WHERE config_key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        holder = Claimant(int(row[0]), str(row[1]), str(row[2]))
        if holder == self.me:
            return None
        if row[4]:  # failed: left alone if another driver failed it while this one ran
            return "failed" if row[3] >= self.since else None
        return holder if holder.alive() else None

    def release(self, key: str, failed: bool = False) -> None:
        """Drop this driver's claim on run ``key``, recorded now; or, if the run ``failed``,
        mark the claim so, which tells the drivers that began before now not to try the run
        again (a driver that begins later retries it, as a resumed sweep does)."""
        mine = (key, self.me.pid, self.me.host)
        with store_access(self.path, "release a claim in"):
            if failed:
                self._conn.execute(
                    "UPDATE claims SET failed = 1, claimed_at = ? "
                    "WHERE config_key = ? AND pid = ? AND host = ?",
                    (time.time(), *mine),
                )
            else:
                self._conn.execute(
                    "DELETE FROM claims WHERE config_key = ? AND pid = ? AND host = ?", mine
                )

    def close(self) -> None:
        """Drop the claims of this driver on the runs it did not finish, and close."""
        try:
            with store_access(self.path, "release the claims in"):
                self._conn.execute(
                    "DELETE FROM claims WHERE pid = ? AND host = ? AND failed = 0",
                    (self.me.pid, self.me.host),
                )
        finally:
            self._conn.close()
