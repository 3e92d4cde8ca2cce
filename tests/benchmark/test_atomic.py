"""Files and folders written whole or not at all (:mod:`bocvs_env.benchmark.atomic`): a writer
that fails half-way leaves the previous file or folder as it was, and nothing beside it."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from bocvs_env.benchmark.atomic import disk_full, write_file, write_folder


def listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones included), by relative path: its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_failed_write_leaves_the_previous_file_and_no_partial_one(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text("old\n")

    def half_then_fail(tmp: Path) -> None:
        tmp.write_text("new, but only ha")
        raise RuntimeError("the writer failed")

    with pytest.raises(RuntimeError, match="the writer failed"):
        write_file(path, half_then_fail)
    assert listing(tmp_path) == {"runs.csv": b"old\n"}
    assert write_file(path, lambda tmp: tmp.write_text("new\n")) == path
    assert listing(tmp_path) == {"runs.csv": b"new\n"}


def test_a_failed_folder_leaves_the_previous_folder_and_no_partial_one(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "a.txt").write_text("old a")
    (folder / "b.txt").write_text("old b")
    before = listing(tmp_path)

    def one_then_fail(tmp: Path) -> None:
        (tmp / "a.txt").write_text("new a")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="the disk is full") as raised:
        write_folder(folder, one_then_fail)
    assert raised.value.filename == str(folder) and raised.value.errno == errno.ENOSPC
    assert listing(tmp_path) == before
    write_folder(folder, lambda tmp: (tmp / "a.txt").write_text("new a"))
    assert listing(tmp_path) == {"data/a.txt": b"new a"}  # the old folder replaced whole


def test_a_missing_folder_is_named_as_given(tmp_path: Path) -> None:
    path = tmp_path / "no" / "runs.csv"
    with pytest.raises(FileNotFoundError) as raised:
        write_file(path, lambda tmp: tmp.write_text("x"))
    assert raised.value.filename == str(path)


def test_a_full_disk_is_told_in_the_words_of_each_library() -> None:
    assert disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert disk_full(OSError("IOError: No space left on device. Detail: [errno 28]"))  # Arrow
    assert disk_full(sqlite3.OperationalError("database or disk is full"))
    assert not disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not disk_full(sqlite3.DatabaseError("database disk image is malformed"))


def test_temporaries_of_a_killed_writer_are_removed_by_the_next_write(tmp_path: Path) -> None:
    """A publish killed outright left its temporary folder beside the target (a write of a
    file, its temporary file): the next write of the target removes those of writers no longer
    running, and keeps a running writer's and a previous folder set aside (``.old``)."""
    gone = os.getpid() + 10**6  # beyond pid_max: never a live process
    stale = tmp_path / f".data.{gone}.abc12345.tmp"
    stale.mkdir()
    (stale / "runs.parquet").write_bytes(b"partial")
    live = tmp_path / f".data.{os.getpid()}.def67890.tmp"
    live.mkdir()
    aside = tmp_path / f".data.{gone}.0badc0de.old"
    aside.mkdir()
    write_folder(tmp_path / "data", lambda folder: (folder / "a.txt").write_text("a"))
    assert not stale.exists() and live.is_dir() and aside.is_dir()
    assert (tmp_path / "data" / "a.txt").read_text() == "a"
    stale_file = tmp_path / f".page.md.{gone}.abc12345.tmp"
    stale_file.write_text("partial")
    write_file(tmp_path / "page.md", lambda tmp: tmp.write_text("page"))
    assert not stale_file.exists() and (tmp_path / "page.md").read_text() == "page"
