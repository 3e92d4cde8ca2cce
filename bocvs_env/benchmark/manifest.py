"""The manifest of a published folder, and the checks every reader of one makes.

``bocvs publish`` writes ``manifest.json`` beside the tables of
:mod:`bocvs_env.benchmark.published_schema`: the size in bytes and the SHA-256 of every file of the
archive, the tables' row counts and the code versions (commits and package versions) of each
sweep's runs. Before anything is read from a folder, :func:`check_folder` checks

- the manifest: every archive file is listed, present, of its size and digest, and the
  tables have their rows; so that an accident (a truncated copy, a failed write, a merge
  that kept one file of two) or an edit by hand is refused, naming the file;
- every run's steps against its row of ``runs.parquet``: their number (``evaluations``), the
  final simple regret ``g_star - max(0, g_1, ..., g_T)`` and the cost spent (the sum of
  ``cost``); so that a run without steps or with edited steps is refused, naming the run, even
  in a folder whose manifest was recomputed after the edit.

What the manifest cannot catch is a forger who edits a run's steps and its row alike and then
recomputes the manifest: the digests are plain SHA-256, not a signature. Only rerunning the
runs (``bocvs verify``) catches that.

:func:`seal` writes the manifest of a folder published before manifests were (the
repository's own archives among them) without rewriting its tables: it trusts the files'
bytes as they are, once they read as a published folder whose steps agree with its rows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bocvs_env.benchmark.atomic import write_file

RUNS_FILE = "runs.parquet"
STEPS_FILE = "steps.parquet"
SWEEPS_FILE = "sweeps.json"
README_FILE = "README.md"
MANIFEST_FILE = "manifest.json"
#: The files of a published archive, which the manifest lists.
ARCHIVE_FILES = (RUNS_FILE, STEPS_FILE, SWEEPS_FILE, README_FILE)
#: ``manifest.json``'s ``format`` and ``version``.
MANIFEST_FORMAT = "bocvs published folder"
MANIFEST_VERSION = 1
#: Agreement asked of a run's steps and its row (relative to ``max(1, |value|)``): the row's
#: figures are computed from the same float64 steps, so only the order of a sum may differ.
TOLERANCE = 1e-9


class DamagedFolderError(ValueError):
    """A published folder that fails its manifest or whose steps disagree with its rows; the
    message (one line) names the file or the run."""


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _read_table(path: Path, columns: list[str]) -> Any:
    """The ``columns`` of the Parquet file ``path`` as an Arrow table.

    Raises:
        DamagedFolderError: naming the file, if it does not read as Parquet with those columns.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path, columns=columns)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise DamagedFolderError(f"{path} cannot be read as a table: {err}") from None


def _row_count(path: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return int(pq.ParquetFile(path).metadata.num_rows)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise DamagedFolderError(f"{path} cannot be read as a table: {err}") from None


def code_versions(
    sweeps: Iterable[Any], commits: Iterable[Any], packages: Iterable[Any]
) -> dict[str, dict[str, list[str]]]:
    """Per recording sweep, the sorted commits and package versions of its runs (one value
    each per run, in the same order; an empty cell left out)."""
    versions: dict[str, dict[str, set[str]]] = {}
    for sweep, commit, package in zip(sweeps, commits, packages, strict=True):
        entry = versions.setdefault(str(sweep), {"git_commit": set(), "package_version": set()})
        for name, value in (("git_commit", commit), ("package_version", package)):
            if isinstance(value, str) and value:
                entry[name].add(value)
    return {s: {k: sorted(v) for k, v in e.items()} for s, e in sorted(versions.items())}


def manifest_of(folder: Path, written_by: str) -> dict[str, Any]:
    """The manifest of the archive files in ``folder`` as they are (see the module docstring);
    ``written_by`` says what wrote it (``bocvs publish``, ``bocvs seal``)."""
    runs = _read_table(folder / RUNS_FILE, ["sweep", "git_commit", "package_version"])
    return {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "written_by": written_by,
        "files": {
            name: {"bytes": (folder / name).stat().st_size, "sha256": _sha256(folder / name)}
            for name in ARCHIVE_FILES
        },
        "rows": {name: _row_count(folder / name) for name in (RUNS_FILE, STEPS_FILE)},
        "sweeps": code_versions(
            *(runs[c].to_pylist() for c in ("sweep", "git_commit", "package_version"))
        ),
    }


def write_manifest(folder: Path, written_by: str) -> Path:
    """Write ``folder``'s :func:`manifest_of` as ``manifest.json`` (whole or not at all)."""
    text = json.dumps(manifest_of(folder, written_by), indent=1, sort_keys=True) + "\n"
    return write_file(folder / MANIFEST_FILE, lambda tmp: tmp.write_text(text))


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST_FILE
    if not path.is_file():
        raise DamagedFolderError(
            f"{path} is missing, so the folder's files cannot be checked; if you trust them "
            f"as they are (e.g. a folder published by an older bocvs), seal it: bocvs seal {folder}"
        )
    try:
        manifest = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DamagedFolderError(f"{path} is not valid JSON: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise DamagedFolderError(f"{path} is not the manifest of a published folder")
    if manifest.get("version") != MANIFEST_VERSION:
        raise DamagedFolderError(
            f"{path} has version {manifest.get('version')!r}; this bocvs reads {MANIFEST_VERSION}"
        )
    return manifest


def _check_entry(path: Path, entry: Any) -> None:
    if not isinstance(entry, dict):
        raise DamagedFolderError(f"{path.parent / MANIFEST_FILE} does not list {path.name}")
    size = path.stat().st_size
    if size != entry.get("bytes"):
        raise DamagedFolderError(
            f"{path} has {size} bytes, its manifest says {entry.get('bytes')}: "
            "the file (or its manifest) was changed, or the file cut short, since it was published"
        )
    if _sha256(path) != entry.get("sha256"):
        raise DamagedFolderError(
            f"{path} does not match its manifest's SHA-256: the file (or its manifest) was "
            "changed since it was published"
        )


def check_manifest(folder: Path) -> None:
    """Check the archive files of ``folder`` against its manifest (see the module docstring).

    Raises:
        DamagedFolderError: naming the first file that is unlisted, missing, of another size,
            digest or row count, or the manifest itself if it is missing or not one.
    """
    manifest = _read_manifest(folder)
    files, rows = manifest.get("files"), manifest.get("rows")
    if not isinstance(files, dict) or not isinstance(rows, dict):
        raise DamagedFolderError(f"{folder / MANIFEST_FILE} lacks its files or rows")
    for name in ARCHIVE_FILES:
        if not (folder / name).is_file():
            raise DamagedFolderError(f"{folder / name} is missing; its manifest lists it")
        _check_entry(folder / name, files.get(name))
    for name in (RUNS_FILE, STEPS_FILE):
        count = _row_count(folder / name)
        if count != rows.get(name):
            raise DamagedFolderError(
                f"{folder / name} has {count} rows, its manifest says {rows.get(name)}"
            )


def _describe(row: Mapping[str, Any]) -> str:
    return f"run {row['key']} ({row['agent']}, {row['problem']}, seed {row['seed']})"


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b) <= TOLERANCE * np.maximum(1.0, np.abs(b))


def check_steps(folder: Path) -> None:
    """Check every run's steps in ``folder`` against its row (see the module docstring).

    Raises:
        DamagedFolderError: naming the first run whose steps disagree with its row (in number,
            final simple regret or cost spent), a run listed twice, steps of no listed run,
            or a table that does not read (naming the file).
    """
    import pyarrow.compute as pc

    columns = ["key", "agent", "problem", "seed", "evaluations", "simple_regret", "g_star", "spent"]
    runs = _read_table(folder / RUNS_FILE, columns).to_pandas()
    runs["key"] = runs["key"].astype(str)
    if runs["key"].duplicated().any():
        key = runs["key"][runs["key"].duplicated()].iloc[0]
        raise DamagedFolderError(f"{folder / RUNS_FILE} lists run {key} twice")
    steps = _read_table(folder / STEPS_FILE, ["key", "g", "cost"])
    if steps["g"].null_count or steps["cost"].null_count:
        raise DamagedFolderError(f"{folder / STEPS_FILE} has empty cells of g or cost")
    count_all = pc.CountOptions(mode="all")
    per_run = steps.group_by("key").aggregate(
        [("g", "max"), ("g", "count", count_all), ("cost", "sum")]
    )
    found = per_run.to_pandas().astype({"key": str}).set_index("key")
    stray = found.index.difference(runs["key"])
    if len(stray):
        raise DamagedFolderError(
            f"{folder / STEPS_FILE} holds steps of run {stray[0]}, which {RUNS_FILE} does not list"
        )
    found = found.reindex(runs["key"])
    n = found["g_count"].fillna(0).to_numpy(np.int64)
    best = np.maximum(found["g_max"].fillna(0.0).to_numpy(np.float64), 0.0)
    regret = runs["g_star"].to_numpy(np.float64) - best
    spent = found["cost_sum"].fillna(0.0).to_numpy(np.float64)
    evaluations = runs["evaluations"].to_numpy(np.int64)
    recorded_regret = runs["simple_regret"].to_numpy(np.float64)
    recorded_spent = runs["spent"].to_numpy(np.float64)
    checks = (
        ("evaluations", n, evaluations, n == evaluations),
        ("final simple regret", regret, recorded_regret, _close(regret, recorded_regret)),
        ("cost spent", spent, recorded_spent, _close(spent, recorded_spent)),
    )
    for what, got, recorded, agree in checks:
        if not agree.all():
            i = int(np.argmin(agree))
            row = runs.iloc[i]
            raise DamagedFolderError(
                f"{folder}: {_describe(row)}: its steps in {STEPS_FILE} give {what} "
                f"{got[i].item()!r}, its row in {RUNS_FILE} {recorded[i].item()!r}: its steps "
                "were changed or lost"
            )


def check_sweeps_file(folder: Path) -> dict[str, Any]:
    """``sweeps.json`` of ``folder``, parsed: an object of sweep configurations by name.

    Raises:
        DamagedFolderError: naming the file, if it is not JSON or not such an object.
    """
    path = folder / SWEEPS_FILE
    try:
        data = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DamagedFolderError(f"{path} is not valid JSON: {err}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise DamagedFolderError(f"{path} is not an object of sweep configurations by name")
    return data


def check_folder(folder: str | Path) -> None:
    """Everything a reader checks before it reads ``folder``: :func:`check_manifest`,
    :func:`check_sweeps_file` and :func:`check_steps`.

    Raises:
        DamagedFolderError: naming the file or the run that fails.
    """
    folder = Path(folder)
    check_manifest(folder)
    check_sweeps_file(folder)
    check_steps(folder)


def seal(folder: str | Path) -> Path:
    """Write the manifest of a published folder as its files are now, without rewriting them;
    the manifest's path.

    It trusts the files' bytes: it checks only that they read as a published archive whose
    sweeps file parses and whose steps agree with its rows (:func:`check_steps`), which an
    accident would likely break, not that nobody edited them.

    Raises:
        FileNotFoundError: if an archive file is missing, naming it.
        DamagedFolderError: as :func:`check_steps` and :func:`check_sweeps_file`.
    """
    folder = Path(folder)
    for name in ARCHIVE_FILES:
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name} is missing: not a published folder")
    check_sweeps_file(folder)
    check_steps(folder)
    return write_manifest(folder, "bocvs seal")
