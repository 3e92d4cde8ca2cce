"""What an agent prints, kept out of ``bocvs run``'s stdout (which carries the results).

A worker runs each run with its file descriptors 1 and 2 (stdout and stderr, so C libraries'
output too) pointing at a temporary file of its own (:func:`captured_output`); the driver gets
the text back with the run's outcome (or, for a run it killed, reads the file itself) and writes
it to one log file per run in a folder beside the store (:func:`write_run_log`). A run that
printed nothing leaves no log.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

#: Bytes of a run's output kept (its end, where a failure's last words are).
OUTPUT_LIMIT = 1 << 20


def new_capture_file() -> str:
    """A fresh temporary file for one run's output; the caller removes it."""
    fd, name = tempfile.mkstemp(prefix="bocvs-run-", suffix=".log")
    os.close(fd)
    return name


@contextmanager
def captured_output(path: str) -> Iterator[None]:
    """Point file descriptors 1 and 2 (and ``sys.stdout``/``sys.stderr``) at the file
    ``path`` for the duration, then restore them."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = [os.dup(1), os.dup(2)]
    target = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (target, *saved):
            os.close(fd)


def read_output(path: str | None) -> str:
    """The last :data:`OUTPUT_LIMIT` bytes of the capture file ``path`` as text (``""`` if
    there is none, or it cannot be read, as on another host of a cluster); the file is removed."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(os.path.getsize(path) - OUTPUT_LIMIT, 0))
            data = fh.read()
        os.unlink(path)
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")


def logs_folder(store: Path) -> Path:
    """The folder of a store's run logs: ``<store's stem>-logs`` beside it."""
    return store.with_name(f"{store.stem}-logs")


def write_run_log(folder: Path, key: str, label: str, output: str) -> Path:
    """Write run ``key``'s ``output`` to ``folder/<key>.log`` (its first line the run's
    ``label``), through a sibling renamed into place; the log's path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.log"
    tmp = folder / f".{key}.{os.getpid()}.tmp"
    tmp.write_text(f"# output of run {label}\n{output}", encoding="utf-8")
    os.replace(tmp, path)
    return path


def keep_output(key: str, label: str, output: str, store: Path) -> Path | None:
    """Write what run ``key`` (``label``) printed, ``output``, to its log in the store's
    :func:`logs_folder`; the log's path, or ``None`` if the run printed nothing."""
    if not output:
        return None
    return write_run_log(logs_folder(store), key, label, output)


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send file descriptor 1 (and ``sys.stdout``) to stderr for the duration: what agents built
    in this process print (their constructors, while a sweep is checked) stays out of the
    results a command prints on stdout afterwards."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with redirect_stdout(sys.stderr):  # should sys.stdout not write to descriptor 1
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
