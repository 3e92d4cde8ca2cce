"""Writing a file or a folder whole or not at all: into a temporary sibling, flushed to disk
(``fsync``), then renamed into place.

A failure at any point before the rename (an error of the writer, a full disk, Ctrl-C) leaves
the previous file or folder exactly as it was and removes the temporary sibling, so that no
partial file is ever left under the target's name. A writer killed outright (``SIGKILL``, a
crash) leaves its temporary sibling, named with its pid; the next write of the target removes
those of writers no longer running (:func:`bocvs_env.sqlite_file.remove_stale_temporaries`). A full disk is reported as one, never as
damage (:func:`disk_full`).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from pathlib import Path

from bocvs_env.sqlite_file import remove_stale_temporaries

#: What SQLite and Arrow say where the operating system said ``ENOSPC``.
_FULL_TEXTS = ("no space left on device", "database or disk is full", "disk is full")


def disk_full(err: BaseException) -> bool:
    """Whether ``err`` says the disk is full: ``ENOSPC`` (or ``EDQUOT``, a full quota), or an
    error of a library that wraps it in its own words (SQLite's "database or disk is full",
    Arrow's "No space left on device")."""
    if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(err, sqlite3.Error) and getattr(err, "sqlite_errorname", "") == "SQLITE_FULL":
        return True
    return isinstance(err, (OSError, sqlite3.Error)) and any(
        text in str(err).lower() for text in _FULL_TEXTS
    )


def full_disk_error(path: Path, kept: str) -> OSError:
    """The ``ENOSPC`` error of a write to ``path`` that a full disk stopped; ``kept`` says what
    was left as it was."""
    return OSError(errno.ENOSPC, f"the disk is full (no space left on device); {kept}", str(path))


def _sibling(path: Path, kind: str) -> Path:
    """A fresh hidden name beside ``path``: ``.<name>.<pid>.<random>.<kind>``."""
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.{kind}")


def _fsync(path: Path) -> None:
    """Flush a file's or a folder's contents (a folder: its entries) to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Make the file ``path`` by ``write(temporary)``, whole or not at all; ``path``.

    ``write`` is given a temporary path beside ``path`` (same folder, so same file system) to
    write the complete file to; the file is then flushed and renamed over ``path``.

    Raises:
        OSError: a full disk as ``ENOSPC`` naming ``path`` (``path`` left as it was); else what
            ``write`` raises, after the temporary file is removed.
    """
    path = Path(path)
    remove_stale_temporaries(path)
    tmp = _sibling(path, "tmp")
    try:
        write(tmp)
        _fsync(tmp)
        os.replace(tmp, path)
    except BaseException as err:
        tmp.unlink(missing_ok=True)
        if disk_full(err):
            raise full_disk_error(path, "the file was left as it was") from err
        if isinstance(err, OSError) and err.filename == str(tmp):  # named as the user named it
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise
    _fsync(path.parent)
    return path


def write_folder(folder: str | Path, write: Callable[[Path], object]) -> Path:
    """Make the folder ``folder`` by ``write(temporary folder)``, whole or not at all; its path.

    ``write`` fills a new temporary folder beside ``folder``; every file in it is flushed, and
    the folder is renamed into place. A previous folder is first renamed aside and removed
    once the new one is in place, so that a failure of ``write`` (a full disk among them)
    leaves it exactly as it was. (Only a crash between the two renames, which need no space,
    leaves the previous folder under its hidden name ``.<name>.<pid>.<random>.old``.)

    Raises:
        OSError: a full disk as ``ENOSPC`` naming ``folder`` (left as it was); else what
            ``write`` raises, after the temporary folder is removed.
    """
    folder = Path(folder)
    folder = folder.resolve() if folder.is_symlink() or not folder.name else folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(folder)
    tmp = _sibling(folder, "tmp")
    tmp.mkdir()
    try:
        write(tmp)
        for item in tmp.iterdir():
            _fsync(item)
        _fsync(tmp)
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if disk_full(err):
            raise full_disk_error(folder, "the folder was left as it was") from err
        raise
    old = _sibling(folder, "old")
    had = folder.exists() and any(folder.iterdir())
    if had:
        os.rename(folder, old)
    try:
        os.replace(tmp, folder)  # over an empty folder, or into a free name
    except BaseException:
        if had:
            os.rename(old, folder)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync(folder.parent)
    if had:
        shutil.rmtree(old)
    return folder
