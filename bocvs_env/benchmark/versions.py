"""The code version of a run: the git commit that ran it and the versions of the libraries
that decide its numbers, and the rules that keep a figure to runs of one version.

A run's provenance (recorded by :func:`bocvs_env.benchmark.runner.run_config` in the worker
that ran it) holds ``git_commit`` (the commit of the worker's checkout, see
:func:`process_commit`) and the installed versions of :data:`KEY_DEPENDENCIES` there. Runs with
equal commits and equal versions make the same decisions; a figure averaging one agent's runs of
several versions would average different code, so :func:`check_each_agent` refuses, in a report,
an agent whose runs are of several versions unless told otherwise. Different agents may be of
different versions (a new agent's runs beside an archive's, paired by seed), and the report
says which version each agent is (:func:`versions_line`). The same rules hold for numerics
modes (:func:`numerics_mode`: pinned or the machine's own kernels,
:mod:`bocvs_env.numerics`), and :func:`check_store_numerics` keeps a store to one mode.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bocvs_env

if TYPE_CHECKING:
    from bocvs_env.benchmark.config import SweepConfig
    from bocvs_env.benchmark.stored_run import StoredRun

#: The libraries whose versions are part of a run's code version.
KEY_DEPENDENCIES = ("numpy", "scipy", "torch", "gpytorch", "botorch")


class MixedVersionsError(ValueError):
    """Runs of more than one code version were selected for one report."""


def dependency_versions() -> dict[str, str | None]:
    """The installed versions of :data:`KEY_DEPENDENCIES` (``None`` if one is missing)."""
    out: dict[str, str | None] = {}
    for name in KEY_DEPENDENCIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def git_commit(path: Path | None = None) -> str | None:
    """The commit of the git checkout holding ``path`` (this package by default); if tracked
    files changed or untracked Python files (``*.py`` not ignored) are present, followed by
    ``+dirty-`` and the first 10 hex digits of the sha256 of ``git diff HEAD`` and of those
    files' names and contents, so that two different edits of one commit are two versions.
    (Other untracked files, such as a result store, leave it clean.) ``None`` outside a
    checkout, where ``path`` holds no tracked file (a package installed in an ignored folder
    of some other repository), or without git."""

    def git(at: Path, *args: str) -> bytes:
        return subprocess.run(
            ["git", "-C", str(at), *args], capture_output=True, check=True, timeout=10
        ).stdout

    try:
        where = path or Path(__file__).resolve().parent
        if not git(where, "ls-files", "-z", "--", "."):
            return None
        head = git(where, "rev-parse", "HEAD").decode().strip()
        root = Path(os.fsdecode(git(where, "rev-parse", "--show-toplevel").rstrip(b"\n")))
        diff = git(root, "diff", "HEAD", "--no-ext-diff", "--no-color")
        untracked = git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", "*.py")
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    for name in sorted(n for n in untracked.split(b"\0") if n):
        diff += b"\0" + name + b"\0" + _contents(root / os.fsdecode(name))
    return head + (f"+dirty-{hashlib.sha256(diff).hexdigest()[:10]}" if diff else "")


@functools.cache
def process_commit() -> str | None:
    """:func:`git_commit` of this package, read once per process: the code this process
    imported, which an edit of the checkout during a sweep does not change."""
    return git_commit()


def _contents(file: Path) -> bytes:
    """A file's bytes; for one that cannot be read (a dangling link, gone since it was
    listed), a marker with the error's name."""
    try:
        return file.read_bytes()
    except OSError as err:
        return f"<unreadable: {type(err).__name__}>".encode()


def short_commit(provenance: Mapping[str, Any]) -> str:
    """A run's commit in 7 characters (a ``+dirty-<digest>`` suffix kept); for a run without
    one (made by an installed package, not a checkout), ``bocvs <its version>``."""
    commit = provenance.get("git_commit")
    if not commit:
        return f"bocvs {provenance.get('package_version') or '?'}"
    head, _, dirty = str(commit).partition("+")
    return head[:7] + (f"+{dirty}" if dirty else "")


def code_version(provenance: Mapping[str, Any]) -> str:
    """A run's code version as one short string, e.g.
    ``"03daaf0 (numpy 2.4.6, scipy 1.17.1, torch 2.13.0+cpu, gpytorch 1.15.2, botorch 0.18.1)"``.

    The commit is shortened to 7 characters (a ``+dirty-<digest>`` suffix kept), and a run
    without a commit shows bocvs's version instead (:func:`short_commit`); a library the
    provenance does not name (runs recorded before it was) shows as ``?``.
    """
    libs = ", ".join(f"{lib} {provenance.get(lib) or '?'}" for lib in KEY_DEPENDENCIES)
    return f"{short_commit(provenance)} ({libs})"


def _listed(counts: Counter[str], unit: str = " runs") -> str:
    """Each code version of ``counts`` with its number of runs, in one line."""
    return "; ".join(f"{v}: {n}{unit}" for v, n in sorted(counts.items()))


def numerics_mode(provenance: Mapping[str, Any]) -> str:
    """The numerics mode a run was made in (``"reproducible"`` or ``"fast"``); a run recorded
    before runs kept their mode counts as ``"fast"``, the machine's own kernels, which is what
    it used."""
    return str(provenance.get("numerics") or "fast")


def _by_version(runs: Iterable[StoredRun]) -> dict[str, list[StoredRun]]:
    """``runs`` grouped by their code version (:func:`code_version`), versions sorted."""
    groups: dict[str, list[StoredRun]] = defaultdict(list)
    for r in runs:
        groups[code_version(r.provenance)].append(r)
    return dict(sorted(groups.items()))


def _each_version(groups: Mapping[str, Sequence[StoredRun]], unit: str = "") -> str:
    """Each code version of ``groups`` (:func:`_by_version`) with its number of runs and the
    agents that ran it, in one line: ``"542f3de (numpy ...): 160 (getc); 552ba3d (numpy ...):
    1280 (etc, fetc)"``."""
    return "; ".join(
        f"{v}: {len(rs)}{unit} ({', '.join(sorted({r.config.agent for r in rs}))})"
        for v, rs in groups.items()
    )


def versions_line(runs: Iterable[StoredRun]) -> str:
    """The code version of the runs behind a report, said in one line: ``"Runs of 552ba3d
    (numpy 2.4.6, ...): 642."``, or with several versions each with its number of runs and
    the agents that ran it (``"Runs of 2 code versions, 542f3de (numpy ...): 160 (getc);
    552ba3d (numpy ...): 1280 (etc, fetc)."``: a new agent beside an archive, a comparison
    across commits, or a report made with ``--allow-mixed-versions``), followed by the numerics
    modes and their numbers of runs if there are several (``" Numerics modes: fast: 3;
    reproducible: 2."``)."""
    groups = _by_version(runs)
    modes = Counter(numerics_mode(r.provenance) for rs in groups.values() for r in rs)
    said = f" Numerics modes: {_listed(modes, unit='')}." if len(modes) > 1 else ""
    if len(groups) == 1:
        ((only, rs),) = groups.items()
        return f"Runs of {only}: {len(rs)}.{said}"
    return f"Runs of {len(groups)} code versions, {_each_version(groups)}.{said}"


def sides_line(mine: Iterable[StoredRun], baselines: Iterable[StoredRun]) -> str:
    """The code versions of both sides of a comparison with published baselines, in one line,
    each version with its runs and agents: ``"Your runs: 1a2b3c4 (numpy ...): 5 runs (mine);
    baselines: 552ba3d (numpy ...): 70 runs (etc, random)."`` (different versions across the
    sides, and across the baselines' agents, are expected)."""
    yours = _each_version(_by_version(mine), " runs")
    theirs = _each_version(_by_version(baselines), " runs")
    return f"Your runs: {yours}; baselines: {theirs}."


def check_one_version(provenances: Iterable[Mapping[str, Any]], allow_mixed: bool = False) -> None:
    """Refuse runs of several code versions (:func:`code_version`) or numerics modes
    (:func:`numerics_mode`), given their provenances, unless ``allow_mixed``.

    Raises:
        MixedVersionsError: naming every version (or mode) found and its number of runs, in
            one line.
    """
    provenances = list(provenances)
    counts = Counter(code_version(p) for p in provenances)
    if len(counts) > 1 and not allow_mixed:
        raise MixedVersionsError(
            f"the selected runs come from {len(counts)} code versions ({_listed(counts)}); "
            "select runs of one version, or pass --allow-mixed-versions"
        )
    modes = Counter(numerics_mode(p) for p in provenances)
    if len(modes) > 1 and not allow_mixed:
        raise MixedVersionsError(
            f"the selected runs were made in {len(modes)} numerics modes ({_listed(modes)}); "
            "select runs of one mode, or pass --allow-mixed-versions"
        )


def check_each_agent(runs: Iterable[StoredRun], allow_mixed: bool = False) -> None:
    """Refuse an agent whose ``runs`` are of several code versions or numerics modes
    (:func:`check_one_version`), unless ``allow_mixed``: a report may set agents of different
    versions side by side, each paired with the others by seed, but never averages one agent
    over several versions.

    Raises:
        MixedVersionsError: naming the first such agent (by name), its versions (or modes) and
            their numbers of runs, in one line.
    """
    by_agent: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in runs:
        by_agent[r.config.agent].append(r.provenance)
    for agent, provenances in sorted(by_agent.items()):
        try:
            check_one_version(provenances, allow_mixed)
        except MixedVersionsError as err:
            raise MixedVersionsError(f"agent {agent!r}: {err}") from None


def check_each_sweep(
    sweeps: Mapping[str, SweepConfig],
    provenances: Callable[[set[str]], list[dict[str, Any]]],
    allow_mixed: bool,
) -> None:
    """Refuse a sweep whose runs (the ``provenances`` of its keys) are of several code versions
    or numerics modes, unless ``allow_mixed``: a sweep is what one code version ran.

    Raises:
        MixedVersionsError: naming the first such sweep and its versions (or modes).
    """
    for name, sweep in sorted(sweeps.items()):
        try:
            check_one_version(provenances(set(sweep.keys())), allow_mixed)
        except MixedVersionsError as err:
            raise MixedVersionsError(f"sweep {name!r}: {err}") from None


def check_store_numerics(
    provenances: Iterable[Mapping[str, Any]], mode: str, allow_mixed: bool = False
) -> None:
    """Refuse to add runs made in numerics ``mode`` to a store whose runs (their
    ``provenances``, every sweep's) were made in another mode, unless ``allow_mixed``: a store
    keeps one mode, so that its reports compare runs of the same kernels.

    Raises:
        MixedVersionsError: naming the store's modes, their numbers of runs and ``mode``.
    """
    others = Counter(m for m in map(numerics_mode, provenances) if m != mode)
    if others and not allow_mixed:
        first = min(others)
        in_modes = "; ".join(f"{n} runs made in {m} numerics" for m, n in sorted(others.items()))
        raise MixedVersionsError(
            f"the store holds {in_modes}, and these runs would be {mode}: pass "
            f"--numerics {first} (or BOCVS_NUMERICS={first}), use another --store, "
            "or pass --allow-mixed-versions"
        )


def this_version() -> str:
    """This code's version (:func:`code_version`): the commit of this package's checkout (or
    its version, outside a checkout) and the installed :data:`KEY_DEPENDENCIES`, as a run made
    here would record them."""
    provenance = {"package_version": bocvs_env.__version__, "git_commit": process_commit()}
    return code_version({**provenance, **dependency_versions()})


def check_resumable(provenances: Iterable[Mapping[str, Any]], allow_mixed: bool = False) -> None:
    """Refuse to add this code's runs to a sweep whose stored runs (their ``provenances``)
    come from other code versions, unless ``allow_mixed`` (a sweep resumes with the code that
    began it).

    Raises:
        MixedVersionsError: naming the versions found, their numbers of runs and this code's.
    """
    mine = this_version()
    others = Counter(v for v in map(code_version, provenances) if v != mine)
    if others and not allow_mixed:
        raise MixedVersionsError(
            f"the store holds runs of this sweep made by other code ({_listed(others)}); "
            f"this code is {mine}: resume with the code that made them, use another --store, "
            "or pass --allow-mixed-versions"
        )
