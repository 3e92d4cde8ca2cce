"""One code version per report (:mod:`bocvs_env.benchmark.versions`): runs record their commit
and library versions, and reports refuse a selection that mixes versions."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

import pytest
from bench_helpers import at_commit, tiny_sweep

import bocvs_env
from bocvs_env.benchmark import versions
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.published import PublishedRuns, restore_store
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.benchmark.versions import (
    KEY_DEPENDENCIES,
    check_resumable,
    check_store_numerics,
    code_version,
    git_commit,
    this_version,
)

REPO = Path(__file__).resolve().parents[2]

A, B = "a" * 40, "b" * 40 + "+dirty"
#: The report commands, each with the options it needs ({tmp}: a temporary folder).
REPORTS = [["table"], ["plot", "--out", "{tmp}/p"], ["compare"], ["export", "--out", "{tmp}/r.csv"],
           ["publish", "--out", "{tmp}/data"]]  # fmt: skip


def test_runs_record_the_key_library_versions(tiny_results: list[RunResult]) -> None:
    provenance = tiny_results[0].provenance
    for lib in ("numpy", "scipy", "torch", "gpytorch", "botorch"):
        assert provenance[lib] == version(lib)


def test_store_records_the_commit_of_the_code_that_ran(
    store_path: Path, tiny_results: list[RunResult]
) -> None:
    assert tiny_results[0].provenance["git_commit"] == git_commit()  # the worker's
    with ResultStore(store_path) as store:
        store.add(at_commit(tiny_results[0], B), sweep="tiny")
        (run,) = store.runs()
    assert run.provenance["git_commit"] == B
    assert code_version(run.provenance).startswith("bbbbbbb+dirty (numpy ")


def test_code_version_names_missing_libraries() -> None:
    text = code_version({"git_commit": A, "torch": "2.13.0"})
    assert text.startswith("aaaaaaa (") and "torch 2.13.0" in text and "botorch ?" in text
    assert code_version({}).startswith("bocvs ? (")
    installed = code_version({"package_version": "0.3.0", "torch": "2.13.0"})  # no checkout
    assert installed.startswith("bocvs 0.3.0 (")
    assert installed != code_version({"package_version": "0.4.0", "torch": "2.13.0"})
    assert all(lib in text for lib in KEY_DEPENDENCIES)


def _stored(path: Path, *results: RunResult) -> Path:
    """A store at ``path`` holding ``results`` in sweep ``tiny``."""
    with ResultStore(path) as store:
        for result in results:
            store.add(result, sweep="tiny")
    return path


@pytest.fixture
def mixed_store(store_path: Path, tiny_results: list[RunResult]) -> Path:
    """Seed 0 recorded at one commit, seed 1 at another (dirty) one."""
    return _stored(store_path, at_commit(tiny_results[0], A), at_commit(tiny_results[1], B))


def _refused(command: list[str], store: Path, tmp: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one-line error of report ``command`` on ``store``, which it must refuse (status 2)."""
    assert main([a.format(tmp=tmp) for a in command] + ["--store", str(store)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    return err


@pytest.mark.parametrize("command", REPORTS)
def test_reports_refuse_a_store_of_two_commits(
    mixed_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    err = _refused(command, mixed_store, tmp_path, capsys)
    assert "2 code versions" in err and "--allow-mixed-versions" in err
    assert "aaaaaaa (numpy" in err and "bbbbbbb+dirty (numpy" in err


def test_allow_mixed_versions(mixed_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "--store", str(mixed_store), "--allow-mixed-versions"]) == 0
    out = capsys.readouterr().out
    assert "| random | 2 |" in out
    first = out.splitlines()[0]  # the table says that it mixes versions, and which
    assert first.startswith("Runs of 2 code versions, aaaaaaa (numpy ")
    assert "): 1 (random); bbbbbbb+dirty (numpy " in first and first.endswith("): 1 (random).")


def test_a_report_names_the_code_version_of_its_runs(
    store_path: Path, tiny_results: list[RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    with ResultStore(store_path) as store:
        for result in tiny_results:
            store.add(at_commit(result, A), sweep="tiny")
    assert main(["table", "--store", str(store_path)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    version = code_version(at_commit(tiny_results[0], A).provenance)
    assert first == f"Runs of {version}: {len(tiny_results)}."


def test_run_refuses_to_add_to_a_sweep_that_other_code_began(
    store_path: Path, tiny_results: list[RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    with ResultStore(store_path) as store:
        store.register_sweep(tiny_sweep())
        store.add(at_commit(tiny_results[0], A), sweep="tiny")  # seed 0 by other code
    argv = ["run", "--sweep", "tiny", "--store", str(store_path), "--no-plot", "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "aaaaaaa (numpy" in err and f"this code is {this_version()}" in err
    with ResultStore(store_path, readonly=True) as store:
        assert len(store) == 1  # nothing run, nothing stored
    assert main([*argv, "--allow-mixed-versions"]) == 0  # told to: seed 1 is added
    with ResultStore(store_path, readonly=True) as store:
        assert len(store) == 2
    capsys.readouterr()
    assert main(["table", "--store", str(store_path)]) == 2  # and the reports refuse the mix


def test_a_sweep_resumes_beside_runs_of_this_code(tiny_results: list[RunResult]) -> None:
    libraries = tiny_results[0].provenance  # recorded by this code's libraries
    check_resumable([{**libraries, "git_commit": git_commit()}])  # this version: no error
    with pytest.raises(ValueError, match="made by other code"):
        check_resumable([{**libraries, "git_commit": A}])
    check_resumable([{**libraries, "git_commit": A}], allow_mixed=True)


def test_the_report_commands_refuse_mixed_versions_in_one_line(
    mixed_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ResultStore(mixed_store) as store:
        store.register_sweep(tiny_sweep())
    reference = REPO / "benchmarks" / "results" / "decisions.json"
    for command in (["paper-claims"], ["cost", "--reference", str(reference)]):
        err = _refused([*command, "--sweep", "tiny"], mixed_store, tmp_path, capsys)
        assert "2 code versions" in err
        assert "no sweep 'nope'" in _refused(
            [*command, "--sweep", "nope"], mixed_store, tmp_path, capsys
        )


def test_git_commit_tells_edits_of_one_commit_apart(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "f.py").write_text("a = 1\n")
    git("add", "f.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    clean = git_commit(tmp_path)
    assert clean is not None and len(clean) == 40 and "+" not in clean
    (tmp_path / "f.py").write_text("a = 2\n")
    first = git_commit(tmp_path)
    (tmp_path / "f.py").write_text("a = 3\n")
    second = git_commit(tmp_path)
    assert first is not None and first.startswith(clean + "+dirty-")
    assert second is not None and second.startswith(clean + "+dirty-") and second != first
    assert code_version({"git_commit": first}).startswith(f"{clean[:7]}+dirty-{first[-10:]} (")
    assert git_commit(tmp_path / "nowhere") is None
    (tmp_path / "f.py").write_text("a = 1\n")
    (tmp_path / "results.db").write_text("a store")  # untracked, not Python: still clean
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "g.py").write_text("")
    git("add", "sub/g.py")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two")
    clean = git_commit(tmp_path)
    assert clean is not None and "+" not in clean
    assert git_commit(tmp_path / "sub") == clean
    (tmp_path / "plugin.py").write_text("b = 1\n")  # untracked Python: another version
    with_plugin = git_commit(tmp_path / "sub")
    assert with_plugin is not None and with_plugin.startswith(clean + "+dirty-")
    (tmp_path / "plugin.py").write_text("b = 2\n")
    assert git_commit(tmp_path) not in (with_plugin, clean)
    (tmp_path / ".gitignore").write_text("plugin.py\n.gitignore\nvenv/\n")  # clean again
    assert git_commit(tmp_path) == clean
    (tmp_path / "gone.py").symlink_to(tmp_path / "nowhere.py")  # unreadable: still a version
    assert (git_commit(tmp_path) or "").startswith(clean + "+dirty-")
    (tmp_path / "gone.py").unlink()
    installed = tmp_path / "venv" / "site-packages" / "bocvs_env"  # in an ignored folder
    installed.mkdir(parents=True)
    (installed / "x.py").write_text("")
    assert git_commit(installed) is None


def test_code_made_outside_a_checkout_is_known_by_its_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(versions, "process_commit", lambda: None)
    assert this_version().startswith(f"bocvs {bocvs_env.__version__} (numpy ")


def in_mode(result: RunResult, mode: str | None) -> RunResult:
    """``result`` as if made in numerics ``mode`` (``None``: before runs recorded a mode)."""
    provenance = {k: v for k, v in result.provenance.items() if k != "numerics"}
    return replace(
        result, provenance=provenance if mode is None else {**provenance, "numerics": mode}
    )


@pytest.fixture
def two_modes_store(store_path: Path, tiny_results: list[RunResult]) -> Path:
    """Seed 0 made in fast numerics, seed 1 in reproducible numerics, by this code."""
    fast, reproducible = in_mode(tiny_results[0], "fast"), in_mode(tiny_results[1], "reproducible")
    return _stored(store_path, fast, reproducible)


@pytest.mark.parametrize("command", REPORTS)
def test_reports_refuse_runs_of_two_numerics_modes(
    two_modes_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    err = _refused(command, two_modes_store, tmp_path, capsys)
    assert "2 numerics modes (fast: 1 runs; reproducible: 1 runs)" in err
    assert "--allow-mixed-versions" in err


def test_a_report_told_to_mix_modes_says_so(
    two_modes_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["table", "--store", str(two_modes_store), "--allow-mixed-versions"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(" Numerics modes: fast: 1; reproducible: 1.")


def test_runs_that_recorded_no_mode_count_as_fast(
    tmp_path: Path, tiny_results: list[RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    assert versions.numerics_mode({}) == "fast"  # the machine's own kernels
    for other, status in (("fast", 0), ("reproducible", 2)):
        runs = in_mode(tiny_results[0], None), in_mode(tiny_results[1], other)
        path = _stored(tmp_path / f"{other}.db", *runs)
        assert main(["table", "--store", str(path)]) == status
    out, err = capsys.readouterr()
    assert "Numerics" not in out  # one mode: nothing to say
    assert "(fast: 1 runs; reproducible: 1 runs)" in err


def test_a_published_run_that_recorded_no_mode_reads_back_without_one(
    tmp_path: Path, tiny_results: list[RunResult]
) -> None:
    """Published and carried into a store again, a run made before modes were kept still counts
    as ``fast``, so that a store rebuilt from the archive resumes with ``--numerics fast``."""
    path = _stored(tmp_path / "s.db", *(in_mode(r, None) for r in tiny_results))
    assert main(["publish", "--store", str(path), "--out", str(tmp_path / "data")]) == 0
    runs = PublishedRuns(tmp_path / "data").runs()
    assert all("numerics" not in r.provenance for r in runs)
    assert {versions.numerics_mode(r.provenance) for r in runs} == {"fast"}
    with ResultStore(tmp_path / "rebuilt.db") as store:
        restore_store(PublishedRuns(tmp_path / "data"), store)
        check_store_numerics(store.provenances(), "fast")  # no refusal
        with pytest.raises(ValueError, match="2 runs made in fast numerics"):
            check_store_numerics(store.provenances(), "reproducible")


def test_run_refuses_to_add_runs_of_another_mode_to_a_store(
    store_path: Path, tiny_results: list[RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    with ResultStore(store_path) as store:  # another sweep's run, made before modes were kept
        store.add(in_mode(tiny_results[0], None), sweep="earlier")
    argv = ["run", "--problems", "hartmann3", "--agents", "random", "--budgets", "3"]
    argv += ["--seeds", "1-1", "--store", str(store_path), "--no-plot", "-q"]
    assert main([*argv, "--numerics", "reproducible"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "1 runs made in fast numerics" in err and "--numerics fast" in err
    with ResultStore(store_path, readonly=True) as store:
        assert len(store) == 1 and list(store.sweeps()) == []  # nothing run, nothing stored
    assert main([*argv, "--numerics", "fast"]) == 0  # in the store's mode: added
    with ResultStore(store_path, readonly=True) as store:
        assert len(store) == 2
