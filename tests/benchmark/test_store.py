"""The result store: round trips, one row per configuration, and refusing foreign files."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import tiny_sweep

from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    ResultStore,
    StoreAccessError,
    StoreError,
)


def test_round_trip_is_exact(filled_store: ResultStore, tiny_results: list[RunResult]) -> None:
    runs = {r.key: r for r in filled_store.runs(diagnostics=True)}
    assert len(runs) == len(tiny_results) == len(filled_store)
    for result in tiny_results:
        stored = runs[result.config.key()]
        assert stored.config == result.config
        assert stored.sweep == "tiny"
        for name in ("control_set", "x", "y", "cost", "g", "set_max", "cost_means"):
            a, b = getattr(stored.record, name), getattr(result.record, name)
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), name
        assert stored.record.config == result.record.config
        assert stored.record.diagnostics == result.record.diagnostics
        assert stored.provenance["package_version"] == result.provenance["package_version"]
        assert stored.provenance["sweep"] == "tiny"
        assert stored.provenance["started_at"] <= stored.provenance["finished_at"]


def test_a_configuration_is_recorded_once(
    filled_store: ResultStore, tiny_results: list[RunResult]
) -> None:
    assert filled_store.add(tiny_results[0], sweep="another") is False
    assert len(filled_store) == len(tiny_results)
    assert filled_store.done_keys() == {r.config.key() for r in tiny_results}


def test_select_runs_by_key(filled_store: ResultStore, tiny_results: list[RunResult]) -> None:
    key = tiny_results[1].config.key()
    assert [r.key for r in filled_store.runs([key])] == [key]


def test_provenances_are_read_without_the_runs(
    filled_store: ResultStore, tiny_results: list[RunResult]
) -> None:
    assert filled_store.provenances() == [r.provenance for r in filled_store.runs()]
    key = tiny_results[1].config.key()
    assert filled_store.provenances([key]) == [filled_store.runs([key])[0].provenance]
    assert filled_store.provenances([]) == []


def test_sweeps_are_recorded_by_name(filled_store: ResultStore) -> None:
    assert filled_store.sweeps() == {"tiny": tiny_sweep()}
    filled_store.register_sweep(tiny_sweep(seeds=3))
    assert filled_store.sweeps()["tiny"].seeds == (0, 1, 2)


def test_reopening_keeps_runs(filled_store: ResultStore, store_path: Path) -> None:
    n = len(filled_store)
    filled_store.close()
    with ResultStore(store_path, create=False) as again:
        assert len(again) == n


def test_new_store_is_wal_with_marker(store_path: Path) -> None:
    ResultStore(store_path).close()
    conn = sqlite3.connect(store_path)
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    assert not list(store_path.parent.glob(".*.tmp"))


def test_missing_store_without_create(store_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no result store"):
        ResultStore(store_path, create=False)
    assert not store_path.exists()


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO runs (name) VALUES ('not ours')")
    conn.commit()
    conn.close()


def _bocvs_header(version: int, table: str):
    """A database that carries a bocvs header (schema ``version``) but only ``table``."""

    def make(path: Path) -> None:
        conn = sqlite3.connect(path)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {version}")
        conn.execute(f"CREATE TABLE {table} (x)")
        conn.commit()
        conn.close()

    return make


def _damaged_store(path: Path) -> None:
    ResultStore(path).close()
    data = bytearray(path.read_bytes())
    rng = np.random.default_rng(1)
    data[100:] = rng.integers(0, 256, len(data) - 100, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.write_bytes(np.random.default_rng(0).bytes(4096)), "not an SQLite database"),
        (lambda p: p.write_bytes(b""), "empty file"),
        (lambda p: p.write_text("name,value\na,1\n"), "not an SQLite database"),
        (_foreign_sqlite, "another application"),
        (_bocvs_header(SCHEMA_VERSION + 1, "t"), f"schema {SCHEMA_VERSION + 1}"),
        (_bocvs_header(SCHEMA_VERSION, "runs"), "lacks its tables"),
        (_damaged_store, "damaged"),
    ],
    ids=["random-bytes", "empty", "csv", "foreign-sqlite", "newer-schema", "no-tables", "damaged"],
)
def test_foreign_or_corrupt_file_is_refused_and_untouched(
    store_path: Path, make, message: str
) -> None:
    make(store_path)
    before = store_path.read_bytes()
    mtime = os.stat(store_path).st_mtime_ns
    siblings = sorted(p.name for p in store_path.parent.iterdir())
    with pytest.raises(StoreError, match=message):
        ResultStore(store_path)
    assert store_path.read_bytes() == before
    assert os.stat(store_path).st_mtime_ns == mtime
    assert sorted(p.name for p in store_path.parent.iterdir()) == siblings


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        ResultStore(tmp_path)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_read_only_store_never_writes(filled_store: ResultStore, store_path: Path) -> None:
    filled_store.close()
    before = _snapshot(store_path.parent)
    with ResultStore(store_path, readonly=True) as store:
        assert len(store.runs()) == 2 and set(store.sweeps()) == {"tiny"}
        assert not store.writable
        with pytest.raises(StoreAccessError, match="read-only"):
            store.register_sweep(tiny_sweep(name="other"))
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._conn.execute("DELETE FROM runs")  # SQLite itself refuses, too
    assert _snapshot(store_path.parent) == before
    with pytest.raises(FileNotFoundError, match="no result store"):
        ResultStore(store_path.with_name("none.db"), readonly=True)


def test_a_store_in_a_read_only_folder_reads_and_refuses_to_write(
    filled_store: ResultStore, store_path: Path, read_only
) -> None:
    filled_store.close()
    folder = read_only(store_path.parent)
    before = _snapshot(folder)
    with ResultStore(folder / store_path.name, readonly=True) as store:
        assert len(store) == 2 and len(store.runs()) == 2 and store.failures() == []
        assert not store.writable
    with pytest.raises(StoreAccessError, match=r"cannot open the result store .*read-only"):
        ResultStore(folder / store_path.name)
    assert _snapshot(folder) == before


def test_a_damaged_row_is_named(filled_store: ResultStore, tiny_results) -> None:
    key = tiny_results[1].config.key()
    conn = sqlite3.connect(filled_store.path)
    conn.execute("UPDATE runs SET config = '{\"problem\": ' WHERE config_key = ?", (key,))
    conn.commit()
    conn.execute("UPDATE runs SET provenance = '[' WHERE config_key = ?", (key,))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=f"{filled_store.path}: the row of run {key} is damaged"):
        filled_store.runs()
    with pytest.raises(StoreError, match=f"{filled_store.path}: the row of run {key} is damaged"):
        filled_store.provenances()
    assert len(filled_store.runs([tiny_results[0].config.key()])) == 1
    assert len(filled_store.provenances([tiny_results[0].config.key()])) == 1


def test_a_locked_store_is_named_and_left_as_it_was(
    filled_store: ResultStore, store_path: Path, tiny_results
) -> None:
    other = sqlite3.connect(store_path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreAccessError, match=f"{store_path}.*locked.*another process"):
            ResultStore(store_path, timeout=0.1)
        conn = filled_store._conn
        conn.execute("PRAGMA busy_timeout = 100")
        with pytest.raises(StoreAccessError, match="locked"):
            filled_store.register_sweep(tiny_sweep(name="other"))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert set(filled_store.sweeps()) == {"tiny"} and len(filled_store) == 2


def test_a_full_disk_stops_a_write_and_keeps_the_store(
    store_path: Path, tiny_results: list[RunResult]
) -> None:
    with ResultStore(store_path) as store:
        store.add(tiny_results[0], sweep="tiny")
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk full"
        with pytest.raises(StoreAccessError, match=r"full.*kept.*resume"):
            store.add(tiny_results[1], sweep="tiny")
        assert store.done_keys() == {tiny_results[0].config.key()}
    conn = sqlite3.connect(store_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_temporaries_of_a_killed_builder_are_removed(store_path: Path) -> None:
    """A builder killed while creating the store left its temporary files; the next open
    removes them, and keeps those of a builder still running."""
    gone = os.getpid() + 10**6  # beyond pid_max: never a live process
    stale = [
        store_path.parent / f".{store_path.name}.{gone}.abc123.tmp{s}" for s in ("", "-journal")
    ]
    live = store_path.parent / f".{store_path.name}.{os.getpid()}.def456.tmp"
    for path in [*stale, live]:
        path.write_bytes(b"partial")
    ResultStore(store_path).close()
    assert [p.exists() for p in stale] == [False, False] and live.exists()
    live.unlink()
    ResultStore(store_path).close()
    assert sorted(p.name for p in store_path.parent.iterdir()) == [store_path.name]
