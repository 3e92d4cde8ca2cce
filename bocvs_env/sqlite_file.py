"""A new SQLite file that appears whole or not at all: built in a temporary sibling named with
the builder's pid (``.<name>.<pid>.<random>.tmp``), then hard-linked into place, never over a
file that is there. A reader therefore never sees a file without its schema, and what a killed
builder left behind is removed by the next one (:func:`remove_stale_temporaries`). The result
store and the experiments' journal are made this way, then opened in WAL mode.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this host (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(path: Path) -> None:
    """Remove what writers of ``path`` that are no longer running left behind: their
    temporary siblings ``.<name>.<pid>.<random>.tmp``, files or folders (of
    :func:`create_sqlite`, with SQLite's siblings of them, and of
    :mod:`bocvs_env.benchmark.atomic`, which writes files and published folders the same
    way)."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp*"):
        pid = tmp.name[len(path.name) + 2 :].split(".", 1)[0]
        if not pid.isdigit() or alive(int(pid)):
            continue
        if tmp.is_dir() and not tmp.is_symlink():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tmp.unlink(missing_ok=True)


def create_sqlite(
    path: Path,
    application_id: int,
    schema_version: int,
    build: Callable[[sqlite3.Connection], None],
) -> bool:
    """Build a SQLite file at ``path`` in WAL mode: ``application_id`` and ``user_version``
    set, then ``build(connection)`` (its tables and first rows, in autocommit mode).

    Returns:
        Whether this call made the file: ``False`` when a file was already at ``path`` (another
        process may have made it meanwhile), which is left as it is.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent
    )
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute(f"PRAGMA application_id = {application_id}")
            conn.execute(f"PRAGMA user_version = {schema_version}")
            build(conn)
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        return True
    finally:
        tmp.unlink(missing_ok=True)
