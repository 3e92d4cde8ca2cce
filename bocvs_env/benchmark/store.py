"""The durable result store: an SQLite database (standard library), one row per run.

Each row holds the run's configuration (and its digest, unique), provenance and the per-step
trace as ``.npy`` blobs. A run is inserted in one transaction, so killing the writer at any
moment (``kill -9`` included) leaves every finished run and no partial one; the database runs
in WAL mode with ``synchronous=FULL``. Several sweeps, and several drivers, may share a store:
a run already present is skipped, never duplicated.

A store is recognised before anything is written to it: an existing file must carry SQLite's
header with this format's ``application_id`` and a supported ``user_version``, then pass a
read-only schema and integrity check. Anything else (random bytes, another application's
database, a damaged store) raises :class:`StoreError` and is left untouched. A new store is
built in a temporary file (named after the building process) and linked into place whole; the
temporary files of a builder that was killed are removed by the next open that may write.

Opened with ``readonly=True`` (what the reporting commands do), a store is never written, and
works in a folder the user cannot write: SQLite is opened with ``query_only``, falling back to
``mode=ro`` and, when no write-ahead log is pending, ``immutable=1``; the journal mode is never
switched. A failed run is recorded with its traceback (:meth:`ResultStore.failures`) until a
later attempt succeeds. Every SQLite error is raised as :class:`StoreError` (damaged contents,
a damaged row named by its run) or :class:`StoreAccessError` (read-only, locked, full), with a
one-line message naming the store; a failed write leaves the store as it was.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import bocvs_env
from bocvs_env.benchmark.atomic import disk_full
from bocvs_env.benchmark.config import RunConfig, SweepConfig
from bocvs_env.benchmark.runner import RunResult, utc_now
from bocvs_env.benchmark.selection import RunFilter
from bocvs_env.benchmark.stored_run import StoredRun
from bocvs_env.evaluation import EpisodeRecord
from bocvs_env.jsonable import json_default
from bocvs_env.sqlite_file import create_sqlite, remove_stale_temporaries

#: SQLite's ``application_id`` of a bocvs result store ("bcvs").
APPLICATION_ID = 0x62637673
#: The schema version, SQLite's ``user_version``.
SCHEMA_VERSION = 1
FORMAT_NAME = "bocvs-results"
_MAGIC = b"SQLite format 3\x00"
_TRACE = ("control_set", "x", "y", "cost", "g", "set_max", "cost_means")

_SCHEMA = """
CREATE TABLE bocvs_store (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sweeps (name TEXT PRIMARY KEY, config TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    config_key TEXT NOT NULL UNIQUE,
    sweep TEXT NOT NULL,
    problem TEXT NOT NULL,
    cost_set TEXT NOT NULL,
    variance REAL NOT NULL,
    budget REAL NOT NULL,
    agent TEXT NOT NULL,
    seed INTEGER NOT NULL,
    config TEXT NOT NULL,
    problem_config TEXT NOT NULL,
    provenance TEXT NOT NULL,
    package_version TEXT NOT NULL,
    git_commit TEXT,
    recorded_at TEXT NOT NULL,
    n_evaluations INTEGER NOT NULL,
    spent REAL NOT NULL,
    control_set BLOB NOT NULL,
    x BLOB NOT NULL,
    y BLOB NOT NULL,
    cost BLOB NOT NULL,
    g BLOB NOT NULL,
    set_max BLOB NOT NULL,
    cost_means BLOB NOT NULL,
    diagnostics BLOB NOT NULL
);
CREATE INDEX runs_setting ON runs (problem, cost_set, variance, budget, agent);
"""
#: Failed runs: their last traceback, until they succeed (added to older stores when opened
#: for writing; a store without it has no failures).
_FAILURES = """
CREATE TABLE IF NOT EXISTS failures (
    config_key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    config TEXT NOT NULL,
    error TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    failed_at TEXT NOT NULL
);
"""
_TABLES = {"bocvs_store", "sweeps", "runs"}


class StoreError(ValueError):
    """The file given as a result store is not one, or is damaged (the message names the
    store, and the run of a damaged row); it was not modified."""


class StoreAccessError(OSError):
    """The store could not be read or written (a read-only file or folder, a lock held too
    long, a full disk); the message names the store, and nothing stored was changed."""


@dataclass
class FailedRun:
    """A run whose last attempt raised.

    Attributes:
        key: the configuration's digest.
        sweep: the sweep that ran it.
        config: its configuration.
        error: the traceback of the last attempt.
        attempts: how many attempts failed.
    """

    key: str
    sweep: str
    config: RunConfig
    error: str
    attempts: int


def to_json(obj: Any) -> str:
    """``obj`` as JSON with sorted keys; NumPy arrays and scalars become lists and numbers."""
    return json.dumps(obj, sort_keys=True, default=json_default)


def _to_npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def _from_npy(blob: bytes) -> np.ndarray:
    return np.load(io.BytesIO(blob), allow_pickle=False)


def _check_header(path: Path) -> None:
    """Refuse anything but a bocvs store of a supported version, from its first 100 bytes."""
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a result store file")
    with path.open("rb") as fh:
        header = fh.read(100)
    if not header:
        raise StoreError(f"{path} is an empty file, not a bocvs result store; remove it first")
    if len(header) < 100 or not header.startswith(_MAGIC):
        raise StoreError(f"{path} is not an SQLite database, so not a bocvs result store")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise StoreError(
            f"{path} is an SQLite database of another application (application_id "
            f"{app_id:#010x}, a bocvs store has {APPLICATION_ID:#010x}); not touching it"
        )
    version = int.from_bytes(header[60:64], "big")
    if not 1 <= version <= SCHEMA_VERSION:
        raise StoreError(
            f"{path} is a bocvs result store of schema {version}; this bocvs reads schema "
            f"{SCHEMA_VERSION} (upgrade bocvs)"
        )


def _check_schema(path: Path) -> None:
    """A read-only look inside: the marker, the tables and SQLite's quick integrity check.

    Without a ``-wal`` file beside it the database is read as immutable, so that not even
    SQLite's ``-shm`` index appears next to a file that may not be ours.
    """
    wal = path.with_name(path.name + "-wal")
    query = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            marker = (
                dict(conn.execute("SELECT key, value FROM bocvs_store"))
                if "bocvs_store" in tables
                else {}
            )
            integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as err:
        if not _damage(err):  # e.g. a full disk that leaves no room for the log's index
            raise
        raise StoreError(f"{path} is a damaged bocvs result store: {err}") from err
    if marker.get("format") != FORMAT_NAME or not _TABLES <= tables:
        raise StoreError(f"{path} claims to be a bocvs result store but lacks its tables")
    if integrity != "ok":
        raise StoreError(f"{path} is a damaged bocvs result store: {integrity}")


def _create(path: Path) -> None:
    """Build an empty store and link it into place (never over a file: another driver may have
    made it meanwhile, and it is then checked like any existing file)."""

    def build(conn: sqlite3.Connection) -> None:
        conn.executescript(_SCHEMA + _FAILURES)
        conn.executemany(
            "INSERT INTO bocvs_store (key, value) VALUES (?, ?)",
            [
                ("format", FORMAT_NAME),
                ("created_at", utc_now()),
                ("created_by", f"bocvs {bocvs_env.__version__}"),
            ],
        )

    create_sqlite(path, APPLICATION_ID, SCHEMA_VERSION, build)


def _damage(err: sqlite3.DatabaseError) -> bool:
    """Whether SQLite's error says the file is damaged or not a database (rather than that it
    could not be read: a full disk, a lock, permissions)."""
    name = getattr(err, "sqlite_errorname", "") or ""
    return not name or name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_FORMAT"))


def access_error(path: Path, err: sqlite3.Error, doing: str) -> Exception:
    """The one-line error of a failed SQLite call on the store at ``path``."""
    name = getattr(err, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")):
        return StoreAccessError(
            f"cannot {doing} the result store {path}: {err} (a read-only file or folder?); "
            "status, table, export and plot still read it"
        )
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreAccessError(
            f"cannot {doing} the result store {path}: {err} (another process holds its lock); "
            "try again when it is done"
        )
    if disk_full(err) or name == "SQLITE_IOERR_SHMSIZE":  # no room for the log's index
        return StoreAccessError(
            f"cannot {doing} the result store {path}: the disk is full ({err}); the store is "
            "not damaged, nothing was half-written and the runs recorded so far are kept: free "
            "space and try again (bocvs run resumes where it stopped)"
        )
    if name.startswith(("SQLITE_FULL", "SQLITE_IOERR")):
        return StoreAccessError(
            f"cannot {doing} the result store {path}: {err}; nothing was half-written and the "
            "runs recorded so far are kept: free space and run again to resume"
        )
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return StoreError(f"{path} is a damaged bocvs result store: {err}")
    return StoreAccessError(f"cannot {doing} the result store {path}: {err}")


@contextmanager
def store_access(path: Path, doing: str) -> Iterator[None]:
    """Turn SQLite's errors of the calls inside on the store at ``path`` into the one-line
    errors of :func:`access_error` (:class:`StoreError` or :class:`StoreAccessError`);
    ``doing`` says what the calls are for (``"read"``, ``"record run ... in"``)."""
    try:
        yield
    except sqlite3.Error as err:
        raise access_error(path, err, doing) from err


def writable_here(path: Path) -> bool:
    """Whether this process could write the store at ``path`` (its file and its folder),
    however a handle to it was opened."""
    return all(os.access(p, os.W_OK) for p in (path, path.parent))


def _connect_readonly(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection that cannot write: ``query_only`` (which leaves no ``-wal``/``-shm``
    behind in a writable folder), else ``mode=ro``, else ``immutable=1`` when no write-ahead
    log is pending (a folder nobody can write, where no writer can be either)."""
    uri = path.resolve().as_uri()
    queries = ["mode=rw", "mode=ro"]
    if not path.with_name(path.name + "-wal").exists():
        queries.append("mode=ro&immutable=1")
    for n, query in enumerate(queries):
        conn = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=timeout)
        try:
            conn.execute("PRAGMA query_only = ON")
            conn.execute("SELECT COUNT(*) FROM runs").fetchone()
            return conn
        except sqlite3.OperationalError:
            conn.close()
            if n == len(queries) - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _connect_writable(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection in WAL mode that has shown it can take the write lock."""
    remove_stale_temporaries(path)
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    try:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "failures" not in tables:
            conn.executescript(_FAILURES)
        conn.execute("BEGIN IMMEDIATE")  # fails now, not after a run, if we cannot write
        conn.execute("ROLLBACK")
    except BaseException:
        conn.close()
        raise
    return conn


def _decode_record(config: RunConfig, data: dict[str, Any], diagnostics: bool) -> EpisodeRecord:
    """The episode of a ``runs`` row (as a column -> value mapping)."""
    return EpisodeRecord(
        problem=config.problem,
        agent=config.agent,
        seed=config.seed,
        budget=config.budget,
        config=json.loads(data["problem_config"]),
        diagnostics=json.loads(zlib.decompress(data["diagnostics"])) if diagnostics else [],
        **{name: _from_npy(data[name]) for name in _TRACE},
    )


def _run_row(result: RunResult, sweep: str) -> dict[str, Any]:
    """The ``runs`` row of a finished run recorded by ``sweep`` (column -> value); the inverse
    of :func:`_decode_record` and the provenance's decoding."""
    cfg, rec = result.config, result.record
    provenance = {**result.provenance, "sweep": sweep}
    return {
        "config_key": cfg.key(),
        "sweep": sweep,
        "problem": cfg.problem,
        "cost_set": cfg.cost_set,
        "variance": cfg.variance,
        "budget": cfg.budget,
        "agent": cfg.agent,
        "seed": cfg.seed,
        "config": to_json(cfg.to_dict()),
        "problem_config": to_json(rec.config),
        "provenance": to_json(provenance),
        "package_version": str(provenance.get("package_version", bocvs_env.__version__)),
        "git_commit": provenance.get("git_commit"),
        "recorded_at": utc_now(),
        "n_evaluations": rec.n_evaluations,
        "spent": float(rec.spent[-1]) if rec.n_evaluations else 0.0,
        **{name: _to_npy(getattr(rec, name)) for name in _TRACE},
        "diagnostics": zlib.compress(to_json(rec.diagnostics).encode()),
    }


class ResultStore:
    """A bocvs result store at ``path``; created if missing (unless ``create=False``).

    Args:
        path: the database file.
        create: create a new store when ``path`` does not exist.
        timeout: seconds to wait for another writer's lock.
        readonly: never write (nor create); works in a folder the user cannot write. Writing
            methods then raise :class:`StoreAccessError`.

    Raises:
        FileNotFoundError: if ``path`` does not exist and ``create`` is false (or ``readonly``).
        StoreError: if ``path`` is not a bocvs result store; the file is left untouched.
        StoreAccessError: if the store cannot be opened (for writing, unless ``readonly``).
        PermissionError: if the file cannot even be read (its header is read first).
    """

    def __init__(
        self, path: str | Path, create: bool = True, timeout: float = 60.0, readonly: bool = False
    ) -> None:
        self.path = Path(path)
        self.readonly = readonly
        with store_access(self.path, "create" if not self.path.exists() else "open"):
            if not self.path.exists():
                if not create or readonly:
                    raise FileNotFoundError(f"no result store at {self.path}")
                _create(self.path)
            _check_header(self.path)
            _check_schema(self.path)
            connect = _connect_readonly if readonly else _connect_writable
            self._conn = connect(self.path, timeout)

    def _writing(self) -> None:
        if self.readonly:
            raise StoreAccessError(f"the result store {self.path} was opened read-only")

    @property
    def writable(self) -> bool:
        """Whether this handle may write the store: not ``readonly``, and :func:`writable_here`."""
        return not self.readonly and writable_here(self.path)

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _transaction(self, statements: list[tuple[str, Any]]) -> int:
        """Run ``statements`` in one immediate transaction; the first one's row count."""
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            counts = [cur.execute(sql, params).rowcount for sql, params in statements]
            cur.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        return counts[0]

    def register_sweep(self, sweep: SweepConfig) -> None:
        """Record (or update) a sweep's configuration under its name."""
        self._writing()
        with store_access(self.path, f"record sweep {sweep.name!r} in"):
            self._transaction(
                [
                    (
                        "INSERT INTO sweeps (name, config, updated_at) VALUES (?, ?, ?) "
                        "ON CONFLICT (name) DO UPDATE SET config = excluded.config, "
                        "updated_at = excluded.updated_at",
                        (sweep.name, to_json(sweep.to_dict()), utc_now()),
                    )
                ]
            )

    def sweeps(self) -> dict[str, SweepConfig]:
        """The recorded sweeps by name.

        Raises:
            StoreError: naming a sweep whose recorded definition cannot be read.
        """
        with store_access(self.path, "read"):
            rows = self._conn.execute("SELECT name, config FROM sweeps ORDER BY name").fetchall()
        out = {}
        for name, cfg in rows:
            try:
                out[name] = SweepConfig.from_dict(json.loads(cfg))
            except (ValueError, TypeError, KeyError) as err:
                raise StoreError(
                    f"{self.path}: the recorded sweep {name!r} is damaged and cannot be read "
                    f"({type(err).__name__}: {err})"
                ) from err
        return out

    def add(self, result: RunResult, sweep: str) -> bool:
        """Insert a finished run in one transaction (clearing a failure recorded for it).

        Returns:
            ``True`` if inserted, ``False`` if the store already had this configuration.
        """
        self._writing()
        row = _run_row(result, sweep)
        columns = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        insert = (
            f"INSERT INTO runs ({columns}) VALUES ({marks}) ON CONFLICT (config_key) DO NOTHING"
        )
        with store_access(self.path, f"record run {result.config.label()} in"):
            inserted = self._transaction(
                [
                    (insert, row),
                    ("DELETE FROM failures WHERE config_key = ?", (row["config_key"],)),
                ]
            )
        return inserted == 1

    def record_failure(self, config: RunConfig, sweep: str, error: str) -> None:
        """Record that ``config`` failed with ``error`` (its traceback), counting attempts."""
        self._writing()
        with store_access(self.path, f"record the failure of run {config.label()} in"):
            self._transaction(
                [
                    (
                        "INSERT INTO failures (config_key, sweep, config, error, attempts, "
                        "failed_at) VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (config_key) DO UPDATE "
                        "SET sweep = excluded.sweep, error = excluded.error, "
                        "attempts = attempts + 1, failed_at = excluded.failed_at",
                        (config.key(), sweep, to_json(config.to_dict()), error, utc_now()),
                    )
                ]
            )

    def failures(self, keys: Iterable[str] | None = None) -> list[FailedRun]:
        """Runs whose last attempt failed (and none has succeeded since), oldest first; only
        those whose digest is in ``keys`` if given."""
        with store_access(self.path, "read"):
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master")}
            if "failures" not in tables:
                return []
            rows = self._conn.execute(
                "SELECT config_key, sweep, config, error, attempts FROM failures "
                "ORDER BY failed_at, config_key"
            ).fetchall()
        wanted = None if keys is None else set(keys)
        return [
            FailedRun(key, sweep, self._config(key, cfg), error, attempts)
            for key, sweep, cfg, error, attempts in rows
            if wanted is None or key in wanted
        ]

    def done_keys(self) -> set[str]:
        """The configuration digests of every recorded run."""
        with store_access(self.path, "read"):
            return {r[0] for r in self._conn.execute("SELECT config_key FROM runs")}

    def __len__(self) -> int:
        with store_access(self.path, "read"):
            return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def runs(
        self,
        keys: Iterable[str] | None = None,
        diagnostics: bool = False,
        *,
        where: RunFilter | None = None,
    ) -> list[StoredRun]:
        """Recorded runs, in insertion order; only those whose digest is in ``keys`` and that
        ``where`` keeps, if given (the others' traces are not decoded).

        Args:
            keys: configuration digests to select.
            diagnostics: also decode the agents' decision logs (can be large).
            where: a filter on the runs' configurations.

        Raises:
            StoreError: naming the first run whose row cannot be decoded.
        """
        cols = ["config_key", "sweep", "config", "problem_config", "provenance", *_TRACE]
        if diagnostics:
            cols.append("diagnostics")
        rows = [dict(zip(cols, row, strict=True)) for row in self._rows(cols, keys)]
        if where is not None:
            rows = [r for r in rows if where.matches(self._config(r["config_key"], r["config"]))]
        return [self._decode(row, diagnostics) for row in rows]

    def provenances(self, keys: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The provenance of recorded runs (as :attr:`StoredRun.provenance`: commit, library
        versions, host, times), in insertion order; only those whose digest is in ``keys`` if
        given. Reads no traces: what a version check needs, at a fraction of :meth:`runs`.

        Raises:
            StoreError: naming the first run whose provenance cannot be decoded.
        """
        out = []
        for key, text in self._rows(["config_key", "provenance"], keys):
            try:
                out.append(json.loads(text))
            except ValueError as err:
                raise self._damaged(key, err) from err
        return out

    def _rows(self, cols: list[str], keys: Iterable[str] | None) -> list[tuple[Any, ...]]:
        """These columns (the first is ``config_key``) of the runs, in insertion order; only
        those whose digest is in ``keys`` if given."""
        with store_access(self.path, "read"):
            query = f"SELECT {', '.join(cols)} FROM runs ORDER BY id"
            rows = self._conn.execute(query).fetchall()
        wanted = None if keys is None else set(keys)
        return [row for row in rows if wanted is None or row[0] in wanted]

    def _config(self, key: str, text: str) -> RunConfig:
        try:
            return RunConfig.from_dict(json.loads(text))
        except (ValueError, TypeError, KeyError) as err:
            raise self._damaged(key, err) from err

    def _damaged(self, key: str, err: Exception) -> StoreError:
        return StoreError(
            f"{self.path}: the row of run {key} is damaged and cannot be read "
            f"({type(err).__name__}: {err}); the other runs are intact"
        )

    def _decode(self, data: dict[str, Any], diagnostics: bool) -> StoredRun:
        key = str(data["config_key"])
        config = self._config(key, data["config"])
        try:
            record = _decode_record(config, data, diagnostics)
            provenance = json.loads(data["provenance"])
        except (ValueError, TypeError, KeyError, EOFError, OSError, zlib.error) as err:
            raise self._damaged(key, err) from err
        return StoredRun(
            key=key, sweep=data["sweep"], config=config, record=record, provenance=provenance
        )
