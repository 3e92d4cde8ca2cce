"""A full disk, on a small tmpfs: ``publish`` over a published folder and ``export`` over a
file leave them byte for byte as they were, with no partial file beside them, and every
command says the disk is full, never that a healthy store is damaged."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench_helpers import tiny_sweep

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.store import ResultStore

#: The tmpfs's size: room for a tiny sweep's store and published folder, and little more.
DISK_BYTES = 2 * 1024 * 1024


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """An empty folder on a tmpfs of :data:`DISK_BYTES`, unmounted at teardown."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root")
    folder = tmp_path / "disk"
    folder.mkdir()
    mount = ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(folder)]
    if subprocess.run(mount, capture_output=True).returncode != 0:
        pytest.skip("root without the right to mount: no small disk to fill")
    yield folder
    subprocess.run(["umount", "--lazy", str(folder)], check=True)


def fill(disk: Path, leave: int) -> None:
    """Fill ``disk`` up, then free about ``leave`` bytes of it (0: none)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as err:
        assert err.errno == 28  # ENOSPC
    finally:
        os.close(fd)
    os.truncate(filler, max(filler.stat().st_size - leave, 0))


def digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (hidden ones included) but the filler, by relative path:
    its SHA-256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "filler"
    }


def full_disk_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of a command that a full disk stops (exit status 2)."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "disk is full" in err and "is a damaged" not in err, err
    return err


@pytest.mark.parametrize("leave", [0, 6_000, 45_000])
def test_publish_over_a_published_folder_on_a_full_disk_leaves_it_as_it_was(
    two_agent_store: Path, disk: Path, leave: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk fills before the first table, or after it (``leave`` bytes free): the
    previous archive is intact either way."""
    out = disk / "data"
    assert main(["publish", "--store", str(two_agent_store), "--out", str(out)]) == 0
    before = digests(disk)
    fill(disk, leave)
    argv = ["publish", "--store", str(two_agent_store), "--out", str(out), "--force"]
    assert str(out) in full_disk_line(argv, capsys)
    assert digests(disk) == before  # no partial folder or file beside it either
    assert main(["status", "--data", str(out)]) == 0


@pytest.mark.parametrize("leave", [0, 6_000])
def test_export_over_a_file_on_a_full_disk_leaves_it_as_it_was(
    two_agent_store: Path, disk: Path, leave: int, capsys: pytest.CaptureFixture[str]
) -> None:
    out = disk / "runs.csv"
    assert main(["export", "--store", str(two_agent_store), "--out", str(out)]) == 0
    before = digests(disk)
    fill(disk, leave)
    argv = ["export", "--store", str(two_agent_store), "--out", str(out), "--level", "steps"]
    assert str(out) in full_disk_line(argv, capsys)
    assert digests(disk) == before


def pending_log_store(source: Path, disk: Path) -> Path:
    """A copy of the store ``source`` on ``disk`` with a write still in its write-ahead log, as
    a writer killed mid-sweep leaves it (readers then need room for SQLite's ``-shm`` index)."""
    shutil.copy(source, disk / "live.db")
    copy = disk / "store.db"
    with ResultStore(disk / "live.db") as live:  # its log is checkpointed only at its close
        live.register_sweep(tiny_sweep(name="later"))
        for suffix in ("", "-wal"):
            shutil.copy(disk / f"live.db{suffix}", disk / f"store.db{suffix}")
    return copy


@pytest.mark.parametrize("command", [["status"], ["table"], ["export", "--out", "x.csv"]])
def test_reading_a_store_on_a_full_disk_says_so(
    two_agent_store: Path,
    disk: Path,
    command: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = pending_log_store(two_agent_store, disk)
    fill(disk, 0)
    argv = [command[0], "--store", str(store), *(str(disk / a) if a.endswith(".csv") else a
                                                  for a in command[1:])]  # fmt: skip
    assert str(store) in full_disk_line(argv, capsys)


def test_a_full_disk_ends_in_one_line_naming_what_was_kept(
    two_agent_store: Path, disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A first publish on a full disk leaves no folder and no temporary one."""
    fill(disk, 0)
    out = disk / "data"
    err = full_disk_line(["publish", "--store", str(two_agent_store), "--out", str(out)], capsys)
    assert f"{out}: the disk is full" in err
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]
