"""A published folder that was damaged or edited after ``bocvs publish`` wrote it is refused by
every command that reads it, in one line naming the file or the run, before anything is read
from it (:mod:`bocvs_env.benchmark.manifest`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.manifest import (
    MANIFEST_FILE,
    RUNS_FILE,
    STEPS_FILE,
    SWEEPS_FILE,
    seal,
)
from bocvs_env.benchmark.published import PublishedRuns, restore_store
from bocvs_env.benchmark.store import ResultStore

REPO = Path(__file__).resolve().parents[2]


def first_key(folder: Path) -> str:
    """The key of the folder's first run, by key."""
    return str(sorted(pd.read_parquet(folder / RUNS_FILE)["key"].astype(str))[0])


def edit_steps(folder: Path, edit: Callable[[pd.DataFrame, pd.Series], pd.DataFrame]) -> str:
    """Rewrite ``steps.parquet`` as ``edit(steps, rows of the first run)`` makes it; that run's
    key."""
    key = first_key(folder)
    steps = pd.read_parquet(folder / STEPS_FILE)
    steps = edit(steps, steps["key"].astype(str) == key)
    steps.to_parquet(folder / STEPS_FILE, index=False)
    return key


def shift_g(folder: Path) -> str:
    def shift(steps: pd.DataFrame, rows: pd.Series) -> pd.DataFrame:
        steps.loc[rows, "g"] += 0.5
        return steps

    return edit_steps(folder, shift)


def delete_steps(folder: Path) -> str:
    return edit_steps(folder, lambda steps, rows: steps[~rows])


def break_sweeps(folder: Path) -> str:
    (folder / SWEEPS_FILE).write_text('{"tiny": {')
    return SWEEPS_FILE


def truncate_steps(folder: Path) -> str:
    data = (folder / STEPS_FILE).read_bytes()
    (folder / STEPS_FILE).write_bytes(data[: len(data) // 2])
    return STEPS_FILE


def edit_manifest(folder: Path) -> str:
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    manifest["files"][RUNS_FILE]["sha256"] = "0" * 64
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))
    return RUNS_FILE


def remove_manifest(folder: Path) -> str:
    (folder / MANIFEST_FILE).unlink()
    return MANIFEST_FILE


def forge_manifest(folder: Path) -> None:
    """Recompute the manifest's sizes, digests and row counts of the folder's files as they are
    now, as a forger would (a table that no longer reads keeps its count)."""
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        entry.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    for name in manifest["rows"]:
        try:
            manifest["rows"][name] = pq.ParquetFile(folder / name).metadata.num_rows
        except pa.ArrowException:
            pass
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest))


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of a command that must refuse (exit status 2)."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err


#: The tamperings, each returning what the refusal must name when the manifest is left as it
#: was published: the file (a run's key for the steps, named by their file).
TAMPERINGS = {
    "shifted g": (shift_g, STEPS_FILE),
    "deleted steps": (delete_steps, STEPS_FILE),
    "broken sweeps.json": (break_sweeps, SWEEPS_FILE),
    "truncated steps.parquet": (truncate_steps, STEPS_FILE),
    "edited manifest": (edit_manifest, RUNS_FILE),
    "removed manifest": (remove_manifest, MANIFEST_FILE),
}


@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
@pytest.mark.parametrize("command", ["compare", "status", "table"])
def test_a_tampered_folder_is_refused_naming_the_file(
    published: Path, tampering: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tamper, named = TAMPERINGS[tampering]
    tamper(published)
    err = refused([command, "--data", str(published)], capsys)
    assert f"bocvs {command}: error: {published / named}" in err


@pytest.mark.parametrize(
    "tamper, what",
    [(shift_g, "final simple regret"), (delete_steps, "give evaluations 0, its row")],
)
def test_edited_steps_are_refused_naming_the_run_even_with_the_manifest_recomputed(
    published: Path, tamper: Callable[[Path], str], what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forger who recomputes the manifest after editing a run's steps (its ``g`` shifted by
    +0.5, or all its steps deleted) is caught by the run's own row."""
    key = tamper(published)
    forge_manifest(published)
    err = refused(["compare", "--data", str(published)], capsys)
    assert f"run {key} (" in err and what in err and "its steps were changed or lost" in err


def test_a_broken_sweeps_file_is_named_even_with_the_manifest_recomputed(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_sweeps(published)
    forge_manifest(published)
    err = refused(["compare", "--data", str(published)], capsys)
    assert f"{published / SWEEPS_FILE} is not valid JSON" in err


def test_a_truncated_table_is_named_even_with_the_manifest_recomputed(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    truncate_steps(published)
    forge_manifest(published)
    err = refused(["table", "--data", str(published)], capsys)
    assert f"{published / STEPS_FILE} cannot be read as a table" in err


def test_an_unreadable_manifest_is_named(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (published / MANIFEST_FILE).write_text('{"files": ')
    err = refused(["status", "--data", str(published)], capsys)
    assert f"{published / MANIFEST_FILE} is not valid JSON" in err


def test_a_folder_without_manifest_is_refused_until_sealed(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder of an older bocvs has no manifest: refused, saying how to seal it; sealed, it
    reads again (its tables untouched)."""
    tables = {name: (published / name).read_bytes() for name in (RUNS_FILE, STEPS_FILE)}
    remove_manifest(published)
    err = refused(["table", "--data", str(published)], capsys)
    assert f"seal it: bocvs seal {published}" in err
    assert main(["seal", str(published)]) == 0
    assert capsys.readouterr().out.strip() == str(published / MANIFEST_FILE)
    assert {name: (published / name).read_bytes() for name in tables} == tables
    assert main(["table", "--data", str(published)]) == 0


def test_sealing_refuses_a_folder_whose_steps_disagree(published: Path) -> None:
    key = shift_g(published)
    with pytest.raises(ValueError, match=f"run {key} .*final simple regret"):
        seal(published)


@pytest.mark.parametrize(
    "command",
    [
        ["status"],
        ["table"],
        ["compare"],
        ["leaderboard"],
        ["plot", "--out", "{tmp}/plots"],
        ["export", "--out", "{tmp}/runs.csv"],
        ["publish", "--out", "{tmp}/again"],
        ["verify", "--sample", "1", "--workers", "1"],
    ],
    ids=lambda argv: argv[0],
)
def test_every_reader_refuses_a_run_with_shifted_g(
    published: Path,
    tmp_path: Path,
    command: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = shift_g(published)
    forge_manifest(published)
    argv = [command[0], "--data", str(published), *(a.format(tmp=tmp_path) for a in command[1:])]
    err = refused(argv, capsys)
    assert f"run {key} (" in err
    assert not any((tmp_path / name).exists() for name in ("plots", "runs.csv", "again"))


def test_baselines_are_checked_before_the_sweep_runs(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["compare", "--data", str(published), "--baselines", str(published)],
        ["leaderboard", "--data", str(published), "--baselines", str(published)],
    ):
        shift_g(published)
        assert f"{published / STEPS_FILE} has " in refused(argv, capsys)
    store = tmp_path / "new.db"
    run = ["run", "--problems", "hartmann3", "--agents", "random", "--seeds", "0-0"]
    run += ["--budgets", "3", "--store", str(store), "--no-plot", "--baselines", str(published)]
    assert f"{published / STEPS_FILE}" in refused(run, capsys)
    assert not store.exists()  # refused before the sweep made its store


def test_restoring_a_store_refuses_a_tampered_folder(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = delete_steps(published)
    forge_manifest(published)
    with pytest.raises(ValueError, match=f"run {key} "):
        with ResultStore(tmp_path / "s.db") as store:
            restore_store(PublishedRuns(published), store)
    argv = ["restore", "--data", str(published), "--store", str(tmp_path / "t.db")]
    assert f"run {key} " in refused(argv, capsys)


def test_the_report_commands_refuse_a_tampered_folder(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    truncate_steps(published)
    argv = ["paper-claims", "--data", str(published), "--sweep", "tiny"]
    assert str(published / STEPS_FILE) in refused(argv, capsys)


def test_the_repositorys_published_folders_pass_their_manifests() -> None:
    """``docs/data`` and the archives of ``benchmarks/results`` carry manifests that match."""
    results = (REPO / "benchmarks" / "results").glob(f"*/{RUNS_FILE}")
    for folder in [REPO / "docs" / "data", *(p.parent for p in results)]:
        PublishedRuns(folder)
