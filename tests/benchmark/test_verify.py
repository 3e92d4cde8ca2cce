"""``bocvs verify``: a rerun of published runs says which are identical and where the others
diverge, and whether the paired verdicts hold with the reruns in place."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from bench_helpers import tamper_published

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.manifest import STEPS_FILE, seal
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.verify import Check, first_divergence, select_runs, verdict_agreement


def test_the_first_divergence_names_the_step_and_the_values(stored_runs: list[StoredRun]) -> None:
    record = stored_runs[0].record
    assert first_divergence(record, record) is None
    g = record.g.copy()
    g[1] = np.nextafter(g[1], np.inf)  # one bit
    cost = record.cost.copy()
    cost[1] += 1.0
    assert first_divergence(record, replace(record, g=g, cost=cost)) == (2, ("cost", "g"))
    shorter = replace(
        record, **{f: getattr(record, f)[:-1] for f in ("control_set", "x", "y", "cost", "g")}
    )
    assert first_divergence(record, shorter) == (record.n_evaluations, ("steps",))


def test_the_sample_is_seeded_and_keeps_to_the_seeds_asked(stored_runs: list[StoredRun]) -> None:
    runs = stored_runs * 3  # six runs, seeds 0 and 1
    assert select_runs(runs, 3, seed=4) == select_runs(runs, 3, seed=4)
    assert {r.config.seed for r in select_runs(runs, 5, seed=0, seeds=[1])} == {1}
    assert len(select_runs(runs, 50, seed=0)) == len(runs)
    with pytest.raises(ValueError, match="and agents"):
        select_runs(runs, 2, seed=0, agents=["etc"])
    with pytest.raises(ValueError, match="no published run has the seeds"):
        select_runs(runs, 2, seed=0, seeds=[7])
    with pytest.raises(ValueError, match="at least one run"):
        select_runs(runs, 0, seed=0)


def test_a_rerun_that_reverses_a_paired_verdict_is_named(two_agent_store: Path) -> None:
    with ResultStore(two_agent_store, readonly=True) as store:
        runs = store.runs()
    agent = runs[0].config.agent
    mine = [r for r in runs if r.config.agent == agent]
    same = verdict_agreement(runs, [Check(r, r.record) for r in mine])
    assert same.total > 0 and same.changed == ()
    better = [Check(r, replace(r.record, g=r.record.g + 100.0)) for r in mine]
    flipped = verdict_agreement(runs, better)
    assert flipped.total == same.total and flipped.changed
    assert all(agent in line and "->" in line for line in flipped.changed)


def test_verify_reruns_a_published_folder_and_finds_a_tampered_step(
    filled_store: ResultStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "data"
    assert main(["publish", "--store", str(filled_store.path), "--out", str(out)]) == 0
    steps = pd.read_parquet(out / STEPS_FILE)
    first = steps["key"].astype(str).iloc[0]
    row = steps.index[(steps["key"].astype(str) == first) & (steps["step"] == 2)][0]
    steps.loc[row, "g"] += 1e-12
    steps.to_parquet(out / STEPS_FILE, index=False)
    seal(out)  # a forger's edit that agrees with the runs' rows, its manifest recomputed
    capsys.readouterr()
    argv = ["verify", "--data", str(out), "--sample", "2", "--numerics", "fast", "--workers", "1"]
    assert main(argv) == 1
    text = capsys.readouterr().out
    assert "diverges at step 2 (g)" in text and "| identical |" in text
    assert "1 of 2 identical" in text


@pytest.fixture
def published(filled_store: ResultStore, tmp_path: Path) -> Path:
    out = tmp_path / "data"
    assert main(["publish", "--store", str(filled_store.path), "--out", str(out)]) == 0
    return out


def _verify(folder: Path) -> list[str]:
    return ["verify", "--data", str(folder), "--sample", "9", "--workers", "1"]


def test_verify_names_the_code_versions_and_says_when_they_differ(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = tamper_published(published, git_commit="c" * 40).label()
    capsys.readouterr()
    assert main(_verify(published)) == 0  # the traces are the same: only the version differs
    out = capsys.readouterr()
    line = next(line for line in out.err.splitlines() if label in line)
    assert "published at ccccccc (" in line and "the code versions differ" in line
    assert out.err.splitlines()[0].startswith(f"bocvs verify: rerunning 2 runs of {published} at ")
    assert sum("as published" in line for line in out.err.splitlines()) == 1
    assert "| ccccccc / " in out.out and "(differ) |" in out.out
    assert "1 reruns at another code version than published" in out.out


def test_a_failed_rerun_says_why_in_one_line(
    published: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    label = tamper_published(published, problem="plant").label()
    monkeypatch.setenv("BOCVS_DATA_DIR", str(tmp_path / "no-data"))
    capsys.readouterr()
    assert main(_verify(published)) == 1
    out = capsys.readouterr()
    (line,) = [line for line in out.err.splitlines() if label in line]
    assert "rerun failed: " in line and "no-data" in line
    assert f"| {label} | " in out.out and "1 failed" in out.out
