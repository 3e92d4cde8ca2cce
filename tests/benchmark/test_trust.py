"""A store or a published folder never runs code: a recorded agent's import path or model file
is refused by every command that would rebuild it, with one line naming the run, unless the
user names it on the command line."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from bench_helpers import tamper_published

from agents.neural.agent import shipped_model
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.store import ResultStore
from bocvs_env.benchmark.trust import Allowed, check_recorded_agent


def _tamper_first_run(folder: Path, agent: str, params: dict[str, str]) -> str:
    """The first published run's agent and parameters changed; its label."""
    return tamper_published(folder, agent=agent, agent_params=params).label()


@pytest.fixture
def published(filled_store: ResultStore, tmp_path: Path) -> Path:
    out = tmp_path / "data"
    assert main(["publish", "--store", str(filled_store.path), "--out", str(out)]) == 0
    return out


def _verify(folder: Path, *extra: str) -> list[str]:
    return ["verify", "--data", str(folder), "--sample", "9", "--workers", "1", *extra]


def _error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_verify_refuses_a_recorded_import_path(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "MARKER"
    label = _tamper_first_run(published, "os:system", {"command": f"touch {marker}"})
    capsys.readouterr()
    assert main(_verify(published)) == 2
    line = _error_line(capsys)
    assert label in line and "'os:system'" in line and "--allow-agent os:system" in line
    assert not marker.exists()


def test_a_resumed_sweep_refuses_a_tampered_sweeps_table(
    filled_store: ResultStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "MARKER"
    path = filled_store.path
    filled_store.close()
    with sqlite3.connect(path) as conn:
        (config,) = conn.execute("SELECT config FROM sweeps WHERE name = 'tiny'").fetchone()
        sweep = json.loads(config)
        sweep["agents"] = ["os:system"]
        sweep["agent_params"] = {"os:system": {"command": f"touch {marker}"}}
        conn.execute("UPDATE sweeps SET config = ? WHERE name = 'tiny'", (json.dumps(sweep),))
    capsys.readouterr()
    assert main(["run", "--store", str(path), "--sweep", "tiny", "-q", "--no-plot"]) == 2
    line = _error_line(capsys)
    assert "sweep 'tiny'" in line and "--allow-agent os:system" in line
    assert not marker.exists()


def test_verify_refuses_a_recorded_model_outside_the_shipped_ones(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "model.zip"
    shutil.copy(shipped_model(), outside)
    label = _tamper_first_run(published, "neural-af", {"model": str(outside)})
    capsys.readouterr()
    assert main(_verify(published)) == 2
    line = _error_line(capsys)
    assert label in line and f"model={str(outside)!r}" in line and "--allow-model" in line


def test_the_command_line_allows_what_a_record_alone_may_not() -> None:
    model = str(shipped_model())
    check_recorded_agent("neural-af", {"model": model}, "run r", Allowed())  # shipped: loads
    check_recorded_agent("neural-af", {}, "run r", Allowed())  # the default model
    with pytest.raises(ValueError, match=r"^run r: refusing agent 'os:system'"):
        check_recorded_agent("os:system", {}, "run r", Allowed())
    check_recorded_agent("os:system@v", {}, "run r", Allowed.of(["os:system"]))
    outside = "/elsewhere/models/x.zip"
    with pytest.raises(ValueError, match=r"--allow-model /elsewhere/models/x\.zip$"):
        check_recorded_agent("sb3", {"model": outside}, "run r", Allowed())
    check_recorded_agent("sb3", {"model": outside}, "run r", Allowed.of(models=[outside]))
    check_recorded_agent("sb3", {"model": outside}, "run r", Allowed.of(models=["/elsewhere"]))
    with pytest.raises(ValueError, match="refusing"):  # a sibling folder's name is no prefix
        check_recorded_agent("sb3", {"model": outside}, "run r", Allowed.of(models=["/else"]))


def test_allow_agent_takes_import_paths_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--data", "x", "--allow-agent", "etc"])
    assert "expected an import path module:Class, got 'etc'" in capsys.readouterr().err


def test_baselines_of_a_tampered_folder_import_nothing(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "MARKER"
    _tamper_first_run(published, "os:system", {"command": f"touch {marker}"})
    argv = ["run", "--store", str(tmp_path / "mine.db"), "--problems", "hartmann3", "--agents",
            "random", "--seeds", "1", "--budgets", "3", "-q", "--no-plot",
            "--baselines", str(published)]  # fmt: skip
    assert main(argv) == 0
    assert "os:system" in capsys.readouterr().out  # compared with, as data
    assert not marker.exists()


def test_verify_reruns_an_import_path_the_command_line_allows(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = "agents.policies.random:RandomAgent"  # the agent "random", by its import path
    label = _tamper_first_run(published, path, {})
    assert main(_verify(published)) == 2
    assert f"--allow-agent {path}" in capsys.readouterr().err
    assert main(_verify(published, "--allow-agent", path)) == 0
    out = capsys.readouterr().out
    assert f"| {label} | " in out and "2 of 2 identical" in out
