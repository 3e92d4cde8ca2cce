"""One code version per report (:mod:`bocvs_env.benchmark.versions`): runs record their commit
and library versions, and reports refuse a selection that mixes versions."""

from __future__ import annotations

import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.benchmark.versions import KEY_DEPENDENCIES, code_version, git_commit

A, B = "a" * 40, "b" * 40 + "+dirty"


def test_runs_record_the_key_library_versions(tiny_results: list[RunResult]) -> None:
    provenance = tiny_results[0].provenance
    for lib in ("numpy", "scipy", "torch", "gpytorch", "botorch"):
        assert provenance[lib] == version(lib)


def test_store_records_the_commit(store_path: Path, tiny_results: list[RunResult]) -> None:
    with ResultStore(store_path) as store:
        store.add(tiny_results[0], sweep="tiny", git_commit=B)
        (run,) = store.runs()
    assert run.provenance["git_commit"] == B
    assert code_version(run.provenance).startswith("bbbbbbb+dirty (numpy ")


def test_code_version_names_missing_libraries() -> None:
    text = code_version({"git_commit": A, "torch": "2.13.0"})
    assert text.startswith("aaaaaaa (") and "torch 2.13.0" in text and "botorch ?" in text
    assert code_version({}).startswith("no commit (")
    assert all(lib in text for lib in KEY_DEPENDENCIES)


@pytest.fixture
def mixed_store(store_path: Path, tiny_results: list[RunResult]) -> Path:
    """Seed 0 recorded at one commit, seed 1 at another (dirty) one."""
    with ResultStore(store_path) as store:
        store.add(tiny_results[0], sweep="tiny", git_commit=A)
        store.add(tiny_results[1], sweep="tiny", git_commit=B)
    return store_path


@pytest.mark.parametrize(
    "command",
    [["table"], ["plot", "--out", "{tmp}/p"], ["compare"], ["export", "--out", "{tmp}/r.csv"],
     ["publish", "--out", "{tmp}/data"]],
)  # fmt: skip
def test_reports_refuse_a_store_of_two_commits(
    mixed_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    argv = [a.format(tmp=tmp_path) for a in command] + ["--store", str(mixed_store)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "2 code versions" in err and "--allow-mixed-versions" in err
    assert "aaaaaaa (numpy" in err and "bbbbbbb+dirty (numpy" in err


def test_allow_mixed_versions(mixed_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", "--store", str(mixed_store), "--allow-mixed-versions"]) == 0
    assert "| random | 2 |" in capsys.readouterr().out


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
