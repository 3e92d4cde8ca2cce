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
built in a temporary file and linked into place whole.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import bocvs_env
from bocvs_env.benchmark.config import RunConfig, SweepConfig
from bocvs_env.benchmark.runner import RunResult, utc_now
from bocvs_env.evaluation import EpisodeRecord

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
_TABLES = {"bocvs_store", "sweeps", "runs"}


class StoreError(ValueError):
    """The file given as a result store is not one (or is damaged); it was not modified."""


@dataclass
class StoredRun:
    """A run read back from the store.

    Attributes:
        key: the configuration's digest.
        sweep: the sweep that recorded it.
        config: its configuration.
        record: the episode, ready for :mod:`bocvs_env.metrics`.
        provenance: versions, host, timestamps, agent parameters, git commit.
    """

    key: str
    sweep: str
    config: RunConfig
    record: EpisodeRecord
    provenance: dict[str, Any]


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"cannot store {type(obj).__name__} as JSON")


def to_json(obj: Any) -> str:
    """``obj`` as JSON with sorted keys; NumPy arrays and scalars become lists and numbers."""
    return json.dumps(obj, sort_keys=True, default=_json_default)


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
        raise StoreError(f"{path} is a damaged bocvs result store: {err}") from err
    if marker.get("format") != FORMAT_NAME or not _TABLES <= tables:
        raise StoreError(f"{path} claims to be a bocvs result store but lacks its tables")
    if integrity != "ok":
        raise StoreError(f"{path} is a damaged bocvs result store: {integrity}")


def _create(path: Path) -> None:
    """Build an empty store in a temporary file and link it into place (never over a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.executescript(_SCHEMA)
            conn.executemany(
                "INSERT INTO bocvs_store (key, value) VALUES (?, ?)",
                [
                    ("format", FORMAT_NAME),
                    ("created_at", utc_now()),
                    ("created_by", f"bocvs {bocvs_env.__version__}"),
                ],
            )
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another driver created it meanwhile; it is checked like any existing file
    finally:
        tmp.unlink(missing_ok=True)


class ResultStore:
    """A bocvs result store at ``path``; created if missing (unless ``create=False``).

    Args:
        path: the database file.
        create: create a new store when ``path`` does not exist.
        timeout: seconds to wait for another writer's lock.

    Raises:
        FileNotFoundError: if ``path`` does not exist and ``create`` is false.
        StoreError: if ``path`` is not a bocvs result store; the file is left untouched.
    """

    def __init__(self, path: str | Path, create: bool = True, timeout: float = 60.0) -> None:
        self.path = Path(path)
        if not self.path.exists():
            if not create:
                raise FileNotFoundError(f"no result store at {self.path}")
            _create(self.path)
        _check_header(self.path)
        _check_schema(self.path)
        self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("PRAGMA synchronous = FULL")

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def register_sweep(self, sweep: SweepConfig) -> None:
        """Record (or update) a sweep's configuration under its name."""
        self._conn.execute(
            "INSERT INTO sweeps (name, config, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET config = excluded.config, "
            "updated_at = excluded.updated_at",
            (sweep.name, to_json(sweep.to_dict()), utc_now()),
        )

    def sweeps(self) -> dict[str, SweepConfig]:
        """The recorded sweeps by name."""
        rows = self._conn.execute("SELECT name, config FROM sweeps ORDER BY name")
        return {name: SweepConfig.from_dict(json.loads(cfg)) for name, cfg in rows}

    def add(self, result: RunResult, sweep: str, git_commit: str | None = None) -> bool:
        """Insert a finished run in one transaction.

        Returns:
            ``True`` if inserted, ``False`` if the store already had this configuration.
        """
        cfg, rec = result.config, result.record
        provenance = {**result.provenance, "git_commit": git_commit, "sweep": sweep}
        row = {
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
            "git_commit": git_commit,
            "recorded_at": utc_now(),
            "n_evaluations": rec.n_evaluations,
            "spent": float(rec.cost.sum()),
            **{name: _to_npy(getattr(rec, name)) for name in _TRACE},
            "diagnostics": zlib.compress(to_json(rec.diagnostics).encode()),
        }
        columns = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        cur = self._conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            cur.execute(
                f"INSERT INTO runs ({columns}) VALUES ({marks}) ON CONFLICT (config_key) DO NOTHING",
                row,
            )
            inserted = cur.rowcount == 1
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        return inserted

    def done_keys(self) -> set[str]:
        """The configuration digests of every recorded run."""
        return {r[0] for r in self._conn.execute("SELECT config_key FROM runs")}

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def runs(self, keys: Iterable[str] | None = None, diagnostics: bool = False) -> list[StoredRun]:
        """Recorded runs, in insertion order; only those whose digest is in ``keys`` if given.

        Args:
            keys: configuration digests to select.
            diagnostics: also decode the agents' decision logs (can be large).
        """
        return list(self._iter_runs(None if keys is None else set(keys), diagnostics))

    def _iter_runs(self, keys: set[str] | None, diagnostics: bool) -> Iterator[StoredRun]:
        cols = ["config_key", "sweep", "config", "problem_config", "provenance", *_TRACE]
        if diagnostics:
            cols.append("diagnostics")
        cur = self._conn.execute(f"SELECT {', '.join(cols)} FROM runs ORDER BY id")
        for row in cur:
            data = dict(zip(cols, row, strict=True))
            if keys is not None and data["config_key"] not in keys:
                continue
            config = RunConfig.from_dict(json.loads(data["config"]))
            trace = {name: _from_npy(data[name]) for name in _TRACE}
            record = EpisodeRecord(
                problem=config.problem,
                agent=config.agent,
                seed=config.seed,
                budget=config.budget,
                config=json.loads(data["problem_config"]),
                diagnostics=(
                    json.loads(zlib.decompress(data["diagnostics"])) if diagnostics else []
                ),
                **trace,
            )
            yield StoredRun(
                key=data["config_key"],
                sweep=data["sweep"],
                config=config,
                record=record,
                provenance=json.loads(data["provenance"]),
            )
