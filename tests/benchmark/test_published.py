"""Published runs (:mod:`bocvs_env.benchmark.published`): the reports computed from the
published folder alone equal the ones computed from the store."""

from __future__ import annotations

import argparse
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from bench_helpers import at_commit, tiny_sweep

from bocvs_env.benchmark import paper_claims as claims
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.compare import compare_runs
from bocvs_env.benchmark.manifest import seal
from bocvs_env.benchmark.published import (
    RUNS_FILE,
    STEP_COLUMNS,
    STEPS_FILE,
    PublishedRuns,
    publish,
    restore_store,
)
from bocvs_env.benchmark.report_options import report_runs
from bocvs_env.benchmark.run_sources import open_runs, recorded_sweep
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import ResultStore, StoredRun
from bocvs_env.benchmark.tables import summary_markdown

REPO = Path(__file__).resolve().parents[2]


def test_a_panel_table_from_the_published_file_equals_the_page(
    two_agent_store: Path, published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "tables.md"
    assert main(["table", "--store", str(two_agent_store), "--out", str(page)]) == 0
    capsys.readouterr()
    assert main(["table", "--data", str(published)]) == 0
    again = capsys.readouterr().out
    assert again.rstrip("\n") == page.read_text().rstrip("\n")
    assert "| etc | 2 |" in again and "| random | 2 |" in again


def test_status_counts_a_published_folder_as_it_counts_the_store(
    two_agent_store: Path, published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--store", str(two_agent_store)]) == 0
    stored = capsys.readouterr().out.splitlines()
    assert main(["status", "--data", str(published)]) == 0
    counted = capsys.readouterr().out.splitlines()
    assert counted[0] == f"{published}: 4 runs"
    assert counted[1:] == stored[1:] == ["  sweep 'tiny': 2 / 2 done"]


def test_published_runs_give_the_same_figures(two_agent_store: Path, published: Path) -> None:
    with ResultStore(two_agent_store, create=False) as store:
        stored = store.runs()
    with open_runs(published) as source:
        assert isinstance(source, PublishedRuns)
        back = source.runs()
        assert source.sweeps() == {"tiny": tiny_sweep()}
    assert [r.key for r in back] == [r.key for r in stored]
    (one,) = PublishedRuns(published).runs([stored[1].key])
    assert one.key == stored[1].key
    np.testing.assert_array_equal(one.record.g, stored[1].record.g)
    for a, b in zip(stored, back, strict=True):
        assert a.config == b.config
        for name in ("control_set", "cost", "g", "set_max", "cost_means"):
            np.testing.assert_array_equal(getattr(a.record, name), getattr(b.record, name))
        assert b.provenance["git_commit"] == "c" * 40
    assert summary_markdown(back) == summary_markdown(stored)
    rows = [c.row() for c in compare_runs(stored, n_resamples=200)]
    assert rows and rows == [c.row() for c in compare_runs(back, n_resamples=200)]
    assert claims.claims_markdown(back, 200) == claims.claims_markdown(stored, 200)


def test_a_store_restored_from_the_published_folder_resumes_and_publishes_the_same(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep carried to another machine by its published folder alone: the store rebuilt
    from it skips the finished runs and publishes them again unchanged."""
    restored = tmp_path / "restored.db"
    with ResultStore(restored) as store:
        assert restore_store(PublishedRuns(published), store) == 4
        assert restore_store(PublishedRuns(published), store) == 0  # nothing twice
        assert set(store.sweeps()) == {"tiny"}
    assert main(["run", "--sweep", "tiny", "--store", str(restored), "--no-plot"]) == 0
    assert "2 runs, 2 already in the store, 0 to run" in capsys.readouterr().err
    again = tmp_path / "again"
    assert main(["publish", "--store", str(restored), "--out", str(again)]) == 0
    for name in (RUNS_FILE, STEPS_FILE):
        pd.testing.assert_frame_equal(
            pd.read_parquet(again / name), pd.read_parquet(published / name)
        )
    assert (again / "sweeps.json").read_text() == (published / "sweeps.json").read_text()


def test_a_store_refuses_published_runs_of_another_version_before_any_write(
    published: Path, tmp_path: Path, tiny_results: list[RunResult]
) -> None:
    with ResultStore(tmp_path / "s.db") as store:
        store.add(at_commit(tiny_results[0], "a" * 40), sweep="other")
        with pytest.raises(ValueError, match="2 code versions"):
            restore_store(PublishedRuns(published), store)
        assert len(store) == 1 and set(store.sweeps()) == set()
        # told to: the 4 published runs but the one configuration the store holds, kept as it was
        assert restore_store(PublishedRuns(published), store, allow_mixed=True) == 3
        (kept,) = [r for r in store.runs() if r.key == tiny_results[0].config.key()]
        assert kept.provenance["git_commit"] == "a" * 40


def test_a_damaged_folder_is_named_in_one_line(published: Path) -> None:
    runs = pd.read_parquet(published / RUNS_FILE)
    runs.drop(columns=["problem_config"]).to_parquet(published / RUNS_FILE, index=False)
    with pytest.raises(ValueError, match=r"runs\.parquet has \d+ bytes, its manifest says"):
        PublishedRuns(published)
    seal(published)  # its manifest recomputed: the table is still refused
    with pytest.raises(ValueError, match=r"runs.parquet lacks the columns \['problem_config'\]"):
        PublishedRuns(published).runs()


@pytest.mark.parametrize(
    "folder",
    sorted(p.parent.name for p in (REPO / "benchmarks" / "results").glob("*/runs.parquet")),
)
def test_the_repositorys_older_published_folders_read(folder: str) -> None:
    """The folders of ``benchmarks/results`` were published before the columns of
    :data:`LATER_COLUMNS` (the machine's details among them) were recorded; they read as if
    those were empty."""
    runs = PublishedRuns(REPO / "benchmarks" / "results" / folder).runs()
    assert runs and all(r.provenance["git_commit"] for r in runs)


def test_bocvs_restore_rebuilds_a_store_and_names_bad_input(
    published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def restore(data: Path, store: Path) -> tuple[int, str, str]:
        status = main(["restore", "--data", str(data), "--store", str(store)])
        out, err = capsys.readouterr()
        return status, out, err

    status, out, err = restore(published, tmp_path / "s.db")
    assert status == 0 and "4 runs added" in out and "4 in all" in out, err
    status, out, _ = restore(published, tmp_path / "s.db")  # an existing store keeps its runs
    assert status == 0 and "0 runs added" in out and "4 in all" in out
    (tmp_path / "junk.db").write_text("not a store")
    for data, store, what in (
        (tmp_path / "none", tmp_path / "t.db", "is not a published folder"),
        (published, tmp_path / "junk.db", "not a bocvs result store"),
    ):
        status, _, err = restore(data, store)
        assert status == 2 and err.count("\n") == 1 and what in err
        assert err.startswith("bocvs restore: error: ")
    assert not (tmp_path / "t.db").exists()


def test_a_sweep_whose_runs_another_sweep_recorded_is_published(
    two_agent_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that two sweeps share is recorded once, under the first; the second is still a
    sweep of the published folder, with its runs."""
    with ResultStore(two_agent_store) as store:
        store.register_sweep(tiny_sweep(name="again"))  # the same two runs as 'tiny'
    out = tmp_path / "data"
    assert main(["publish", "--store", str(two_agent_store), "--out", str(out)]) == 0
    assert set(PublishedRuns(out).sweeps()) == {"tiny", "again"}
    capsys.readouterr()
    assert main(["table", "--data", str(out), "--sweep", "again"]) == 0
    assert "| random | 2 |" in capsys.readouterr().out


def test_a_folder_holds_sweeps_of_several_versions_each_of_one(
    tmp_path: Path, tiny_results: list[RunResult], capsys: pytest.CaptureFixture[str]
) -> None:
    """A new agent's sweep is published beside an archive's sweep of another commit, and the
    folder's reports name each agent's version; a sweep whose own runs are of two commits, or
    an agent whose runs are, is refused, naming it, before anything is written."""
    store_path, out = tmp_path / "s.db", tmp_path / "data"
    archive = tiny_sweep(name="archive", seeds=1)  # random, seed 0
    first = tiny_results[0]
    new = RunResult(replace(first.config, agent="etc"), replace(first.record, agent="etc"),
                    first.provenance)  # fmt: skip
    with ResultStore(store_path) as store:
        store.register_sweep(archive)
        store.register_sweep(replace(archive, name="new", agents=["random", "etc"]))
        store.add(at_commit(first, "a" * 40), sweep="archive")
        store.add(at_commit(new, "b" * 40), sweep="new")
    assert main(["publish", "--store", str(store_path), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "sweep 'new': the selected runs come from 2 code versions" in err
    assert len(err.splitlines()) == 1 and not out.exists()
    with ResultStore(store_path) as store:
        store.register_sweep(replace(archive, name="new", agents=["etc"]))  # the new agent's own
    assert main(["publish", "--store", str(store_path), "--out", str(out)]) == 0
    with PublishedRuns(out) as folder:
        commits = {r.provenance["sweep"]: r.provenance["git_commit"] for r in folder.runs()}
    assert commits == {"archive": "a" * 40, "new": "b" * 40}
    capsys.readouterr()
    assert main(["table", "--data", str(out)]) == 0  # each agent at one version: read together
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("Runs of 2 code versions, aaaaaaa (numpy ")
    assert "): 1 (random); bbbbbbb (numpy " in head and head.endswith("): 1 (etc).")
    assert main(["leaderboard", "--data", str(out)]) == 0
    assert "Runs of 2 code versions, aaaaaaa (numpy " in capsys.readouterr().out
    with ResultStore(tmp_path / "restored.db") as restored:  # and carried into a store
        assert restore_store(PublishedRuns(out), restored) == 2
    with ResultStore(store_path) as store:  # the archive's agent, seed 1, at a second commit
        store.register_sweep(replace(tiny_sweep(name="later"), seeds=[1]))
        store.add(at_commit(tiny_results[1], "b" * 40), sweep="later")
    assert main(["publish", "--store", str(store_path), "--out", str(tmp_path / "two")]) == 2
    err = capsys.readouterr().err.strip()
    assert "agent 'random': the selected runs come from 2 code versions" in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "two").exists()


def test_report_commands_select_a_sweeps_runs_by_seed_and_problem(
    two_agent_store: Path, published: Path
) -> None:
    """A report command reads the runs of ``--sweep`` (also those another sweep recorded), of
    the seeds and problems it is given, from a store or a published folder alike."""
    with ResultStore(two_agent_store) as store:
        store.register_sweep(tiny_sweep(name="again"))  # the same two runs as 'tiny'
    for option, path in (("store", two_agent_store), ("data", published)):
        args = argparse.Namespace(store=None, data=None, allow_mixed_versions=False)
        setattr(args, option, path)
        args.sweep = "tiny"
        every = report_runs(args)
        assert sorted((r.config.agent, r.config.seed) for r in every) == [
            ("random", 0),
            ("random", 1),
        ]
        assert [r.config.seed for r in report_runs(args, seeds=[1])] == [1]
        assert len(report_runs(args, problems=["hartmann3"])) == 2
        with pytest.raises(ValueError, match=r"sweep 'tiny' has no seeds \[7\]; it has \[0, 1\]"):
            report_runs(args, seeds=[1, 7])
        with pytest.raises(ValueError, match="sweep 'tiny' has no problems \\['plant'\\]"):
            report_runs(args, problems=["plant"])
        args.sweep = "nope"
        with pytest.raises(ValueError, match=r"no sweep 'nope' in .*; it has \[.*'tiny'\]"):
            report_runs(args)
    args = argparse.Namespace(store=two_agent_store, data=None, sweep="again")
    args.allow_mixed_versions = False
    assert [r.key for r in report_runs(args)] == [r.key for r in every]
    with ResultStore(two_agent_store) as store:  # seed 0 alone: seed 1 is another sweep's
        store.register_sweep(tiny_sweep(name="first", seeds=1))
    args.sweep = "first"
    assert [r.config.seed for r in report_runs(args)] == [0]
    with pytest.raises(ValueError, match=r"sweep 'first' has no seeds \[1\]"):
        report_runs(args, seeds=[1])


def test_docs_script_reads_a_relative_folder_from_where_it_is_run(tmp_path: Path) -> None:
    script = REPO / "benchmarks" / "docs.sh"
    done = subprocess.run(
        ["bash", str(script), "no/folder"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode != 0 and str(tmp_path / "no" / "folder") in done.stderr


def test_plot_and_export_read_the_published_folder(published: Path, tmp_path: Path) -> None:
    assert main(["plot", "--data", str(published), "--out", str(tmp_path / "p")]) == 0
    assert len(list((tmp_path / "p").glob("*.png"))) == 4
    out = tmp_path / "steps.csv"
    assert main(["export", "--data", str(published), "--out", str(out), "--level", "steps"]) == 0
    steps = pd.read_csv(out)
    assert steps["y"].isna().all() and "x_0" not in steps  # not published
    assert steps["simple_regret"].notna().all()


def test_readme_documents_every_column(published: Path) -> None:
    readme = (published / "README.md").read_text()
    runs = pd.read_parquet(published / RUNS_FILE)
    for column in runs.columns:
        name = column.rstrip("0123456789") + "<i>" if column[-1].isdigit() else column
        assert f"| `{name}` |" in readme, column
    steps = pd.read_parquet(published / STEPS_FILE)
    assert list(steps.columns) == list(STEP_COLUMNS)
    assert all(f"| `{c}` |" in readme for c in STEP_COLUMNS)
    assert f"({len(steps)} rows)" in readme


def test_a_tampered_row_is_refused(published: Path) -> None:
    runs = pd.read_parquet(published / RUNS_FILE)
    runs.loc[0, "seed"] = 99
    runs.to_parquet(published / RUNS_FILE, index=False)
    seal(published)  # its manifest recomputed, as a forger would
    with pytest.raises(ValueError, match="does not match its key"):
        PublishedRuns(published).runs()


def test_publishing_never_drops_published_runs_unless_forced(
    two_agent_store: Path, published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (published / RUNS_FILE).read_bytes()
    fewer = ["publish", "--store", str(two_agent_store), "--out", str(published)]
    fewer += ["--sweep", "tiny", "--seeds", "0-0"]  # seed 0 alone
    assert main(fewer) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "publishes 3 runs that these runs lack" in err
    assert (published / RUNS_FILE).read_bytes() == before  # nothing written
    assert main([*fewer, "--force"]) == 0
    assert len(pd.read_parquet(published / RUNS_FILE)) == 1  # the tiny sweep's seed 0


def test_publish_refuses_a_folder_that_is_not_a_published_one(
    two_agent_store: Path, published: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Publishing replaces a published folder only: an ordinary folder (even one holding just a
    README.md) or a published one with a file of its own added is refused, and left as it was."""
    ordinary = tmp_path / "notes"
    ordinary.mkdir()
    (ordinary / "README.md").write_text("my notes\n")
    (published / "notes.txt").write_text("mine\n")
    for out, name in ((ordinary, "README.md"), (published, "notes.txt")):
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        assert main(["publish", "--store", str(two_agent_store), "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert err == (
            f"bocvs publish: error: {out} holds {name}, but is not a published folder: publish "
            "into a new or empty folder, or over a published one"
        )
        assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    (published / "notes.txt").unlink()
    assert main(["publish", "--store", str(two_agent_store), "--out", str(published)]) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["publish", "--store", str(two_agent_store), "--out", str(empty)]) == 0
    assert sorted(p.name for p in empty.iterdir()) == [
        "README.md", "manifest.json", "runs.parquet", "steps.parquet", "sweeps.json"
    ]  # fmt: skip


def test_not_a_published_folder(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a published folder"):
        PublishedRuns(tmp_path)
    with pytest.raises(ValueError, match="no runs to publish"):
        publish([], {}, tmp_path / "out")


def test_steps_keep_every_step(published: Path, two_agent_store: Path) -> None:
    with ResultStore(two_agent_store, create=False) as store:
        stored: list[StoredRun] = store.runs()
    steps = pd.read_parquet(published / STEPS_FILE)
    assert len(steps) == sum(r.record.n_evaluations for r in stored)


DOCS_DATA = REPO / "docs" / "data"
#: The sweeps that made the paper grid's runs (benchmarks/configs/grid.toml; docs/results.md).
GRID_SWEEPS = {"grid", "grid_full_set_pairs"}


def summary_of(page: str) -> str:
    """The table of a claims page's section "Over all panels"."""
    section = page.split("### Over all panels", 1)[1]
    return section.split("\n\n")[2]


@pytest.mark.skipif(
    not (DOCS_DATA / RUNS_FILE).is_file(), reason="docs/data holds no published runs"
)
def test_docs_pages_are_recomputed_from_the_published_data(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["table", "--data", str(DOCS_DATA), "--sweep", "grid"]) == 0
    assert capsys.readouterr().out == (REPO / "docs" / "paper" / "tables.md").read_text()
    with PublishedRuns(DOCS_DATA) as source:
        runs = source.runs(recorded_sweep(source, "grid").keys())
    paper_page = claims.claims_markdown(runs)
    assert paper_page == (REPO / "docs" / "paper" / "claims.md").read_text()
    fetc_page = claims.claims_markdown(runs, proposed="fetc", time_reference="etc")
    assert fetc_page == (REPO / "docs" / "agents" / "fetc_claims.md").read_text()
    capsys.readouterr()
    monkeypatch.chdir(REPO)  # the page names the folder as benchmarks/docs.sh does
    cost = ["cost", "--data", "docs/data", "--sweep", "grid"]
    assert main([*cost, "--reference", str(REPO / "benchmarks/results/decisions.json")]) == 0
    assert capsys.readouterr().out == (REPO / "docs" / "paper" / "cost.md").read_text()
    results = (REPO / "docs" / "results.md").read_text()
    for page in (paper_page, fetc_page):  # the results page quotes the tallies over panels
        assert summary_of(page) in results
    capsys.readouterr()
    assert main(["status", "--data", str(DOCS_DATA)]) == 0
    for line in capsys.readouterr().out.splitlines()[1:]:  # and how far each sweep is
        assert f"\n{line}\n" in results
    for sweep in ("grid_levy6", "grid_hartmann6_expensive", "grid_hartmann6_variance08"):
        extras = REPO / "docs" / "extras" / sweep
        capsys.readouterr()
        assert main(["table", "--data", str(DOCS_DATA), "--sweep", sweep]) == 0
        assert capsys.readouterr().out == (extras / "tables.md").read_text()
        with PublishedRuns(DOCS_DATA) as source:
            runs = source.runs(recorded_sweep(source, sweep).keys())
        assert claims.claims_markdown(runs) == (extras / "claims.md").read_text()
        fetc_page = claims.claims_markdown(runs, proposed="fetc", time_reference="etc")
        assert fetc_page == (extras / "fetc_claims.md").read_text()
    getc = ["paper-claims", "--data", str(DOCS_DATA), "--sweep", "getc_grid", "--proposed"]
    getc += ["getc", "--time-reference", "etc", "--baselines", str(DOCS_DATA)]
    assert main([*getc, "--baseline-sweep", "grid"]) == 0  # as benchmarks/docs.sh
    getc_page = capsys.readouterr().out
    assert getc_page == (REPO / "docs" / "agents" / "getc_claims.md").read_text()
    assert summary_of(getc_page) in results
    bar = ["bar", "--data", str(DOCS_DATA), "--agent", "getc", "--baselines", str(DOCS_DATA)]
    grid_bar = ["--sweep", "getc_grid", "--baseline-sweep", "grid"]
    pages = {"agents/getc_bar.md": grid_bar}
    for extra in ("levy6", "hartmann6_expensive", "hartmann6_variance08"):
        pages[f"extras/grid_{extra}/getc_bar.md"] = [
            *("--sweep", f"getc_{extra}", "--baseline-sweep", f"grid_{extra}", "--extras")
        ]
    for page, args in pages.items():
        assert main([*bar, *args]) == 0
        out = capsys.readouterr().out
        assert out == (REPO / "docs" / page).read_text(), page
        verdicts = [line for line in out.splitlines() if line.startswith("- ")]
        assert verdicts and all(line in results for line in verdicts)  # quoted as they are
    for page, args in (
        ("fetc_ablation.md", ["--reference", "etc", "--metrics", "final", "area"]),
        ("fetc_value_bounds.md", ["--agent", "fetc", "--metrics", "final", "area", "evaluations"]),
        ("fetc_expensive_queries.md", ["--metrics", "final", "area"]),
        ("getc_ablation.md", ["--reference", "getc", "--metrics", "final", "area"]),
    ):
        sweep = page.removesuffix(".md")
        capsys.readouterr()
        assert main(["compare", "--data", str(DOCS_DATA), "--sweep", sweep, *args]) == 0
        assert capsys.readouterr().out == (REPO / "docs" / "agents" / page).read_text()


@pytest.mark.skipif(
    not (DOCS_DATA / RUNS_FILE).is_file(), reason="docs/data holds no published runs"
)
def test_docs_data_sweeps_are_each_one_commit_and_ucb_psq_ignores_the_other_sets_costs() -> None:
    """Each published sweep's runs come from one commit; in the paper's grid UCB-PSQ, which plays only
    the full set where there is one, and whose cost is 1 in the cheap and the moderate cost sets
    alike, makes the same plays, pays the same costs and reaches the same values in both, seed
    for seed. (Runs need not reproduce across kinds of CPU, so this holds where both panels' runs
    come from one machine: in the grid, by construction; hartmann6 with variance 0.08 pairs runs
    of two machines, docs/results.md.)"""
    with PublishedRuns(DOCS_DATA) as source:
        runs = source.runs()
        sweeps = source.sweeps()
    for sweep in sweeps.values():
        keys = set(sweep.keys())
        assert len({r.provenance["git_commit"] for r in runs if r.key in keys}) == 1, sweep.name
    by_setting: dict[tuple, dict[str, StoredRun]] = {}
    for r in runs:
        c = r.config
        if c.agent == "ucb-psq" and r.provenance["sweep"] in GRID_SWEEPS:
            setting = (c.problem, c.variance, c.budget, c.seed)
            by_setting.setdefault(setting, {})[c.cost_set] = r
    pairs = [
        (p["cheap"], p["moderate"])
        for p in by_setting.values()
        if {"cheap", "moderate"} <= set(p) and len(set(p["cheap"].record.control_set)) == 1
    ]
    assert pairs
    for cheap, moderate in pairs:
        for name in ("control_set", "cost", "g"):
            np.testing.assert_array_equal(
                getattr(cheap.record, name), getattr(moderate.record, name)
            )


def test_runs_recorded_under_an_older_config_version_are_read(
    published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run published before a :data:`CONFIG_VERSION` bump keeps its old key in the folder,
    stays readable (the check of the fast computation settings compares such runs with new
    ones) and is selected by its sweep, as a run of today's key."""
    from bocvs_env.benchmark.config import CONFIG_VERSION

    before = PublishedRuns(published).runs()
    runs = pd.read_parquet(published / RUNS_FILE)
    old_keys = {r.key: r.config.key(CONFIG_VERSION - 1) for r in before}
    runs["key"] = runs["key"].map(old_keys)
    runs.to_parquet(published / RUNS_FILE, index=False)
    steps = pd.read_parquet(published / STEPS_FILE)
    steps["key"] = steps["key"].astype(str).map(old_keys)
    steps.to_parquet(published / STEPS_FILE, index=False)
    seal(published)  # as a folder published then would be
    source = PublishedRuns(published)
    again = source.runs()
    assert [r.config for r in again] == [r.config for r in before]
    for a, b in zip(again, before, strict=True):
        np.testing.assert_array_equal(a.record.g, b.record.g)
    assert [r.key for r in again] == [r.key for r in before]  # today's keys
    assert len(source.runs(recorded_sweep(source, "tiny").keys())) == 2
    capsys.readouterr()
    assert main(["status", "--data", str(published)]) == 0
    assert "sweep 'tiny': 2 / 2 done" in capsys.readouterr().out
    assert main(["table", "--data", str(published), "--sweep", "tiny"]) == 0


def test_report_flags_filter_and_default_to_every_agent_and_seed(
    two_agent_store: Path, published: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report given flags alone keeps every run matching each flag: without ``--agents``
    every agent present, without ``--seeds`` every seed, from a store or a published folder."""
    for source in (["--store", str(two_agent_store)], ["--data", str(published)]):
        assert main(["table", *source, "--problems", "hartmann3"]) == 0
        out = capsys.readouterr().out
        assert "| etc | 2 |" in out and "| random | 2 |" in out
        assert main(["compare", *source, "--budgets", "3", "--metrics", "final"]) == 0
        assert "| etc | random | 2 |" in capsys.readouterr().out
        assert main(["table", *source, "--agents", "etc", "--seeds", "1-1"]) == 0
        out = capsys.readouterr().out
        assert "| etc | 1 |" in out and "| random |" not in out
    assert main(["table", "--data", str(published), "--cost-sets", "moderate"]) == 2
    assert "no recorded runs for the selection" in capsys.readouterr().err


#: The agents of the paper's grid (benchmarks/configs/grid.toml).
GRID_AGENTS = {"etc", "ucb-psq", "ts-psq", "etc-50", "random", "fetc", "sadcbo", "ei-cost"}


@pytest.mark.skipif(
    not (DOCS_DATA / RUNS_FILE).is_file(), reason="docs/data holds no published runs"
)
def test_the_leaderboard_page_is_recomputed_from_the_published_data(tmp_path: Path) -> None:
    """docs/leaderboard.md is what ``bocvs leaderboard`` computes from docs/data (as
    benchmarks/docs.sh writes it), and lists every published agent, the grid's among them."""
    page, figure = tmp_path / "leaderboard.md", tmp_path / "leaderboard.png"
    argv = ["leaderboard", "--data", str(DOCS_DATA), "--out", str(page), "--figure", str(figure)]
    assert main(argv) == 0
    text = page.read_text()
    assert text == (REPO / "docs" / "leaderboard.md").read_text()
    assert figure.stat().st_size > 0 and "](leaderboard.png)" in text
    listed = {line.split(" | ")[0].removeprefix("| ") for line in text.splitlines()
              if line.startswith("| ") and not line.startswith(("| agent |", "| ---"))}  # fmt: skip
    published = set(pd.read_parquet(DOCS_DATA / RUNS_FILE, columns=["agent"])["agent"])
    assert GRID_AGENTS <= listed and listed == published


def test_the_leaderboard_ranks_the_user_agents_with_the_baselines(
    two_agent_store: Path, published: Path, tiny_results: list, tmp_path: Path, capsys
) -> None:
    mine = tmp_path / "mine.db"
    with ResultStore(mine) as store:
        for result in tiny_results:
            store.add(at_commit(result, "d" * 40), sweep="tiny")
    assert main(["leaderboard", "--store", str(mine), "--baselines", str(published)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Leaderboard\n\nYour runs: ddddddd (")
    assert "## Group 1: 3 agents on 1 panel\n" in out and "| random@ccccccc |" in out
    assert "Best baseline: " in out and "Best baseline: random |" not in out


@pytest.mark.skipif(
    not (DOCS_DATA / RUNS_FILE).is_file(), reason="docs/data holds no published runs"
)
def test_the_text_and_code_page_quotes_etcs_claims() -> None:
    """docs/agents/etc-text-and-code.md quotes ETC's claims over all panels as the paper's
    claims page states them (itself recomputed from docs/data by the test above)."""
    paper = (REPO / "docs" / "paper" / "claims.md").read_text()
    page = (REPO / "docs" / "agents" / "etc-text-and-code.md").read_text()
    assert summary_of(paper) in page


def published_sweeps(folder: Path) -> set[str]:
    """The names of the sweeps published in ``folder`` (none where it holds no sweeps file)."""
    sweeps = folder / "sweeps.json"
    return set(json.loads(sweeps.read_text())) if sweeps.is_file() else set()


@pytest.mark.skipif(
    "etc_authors_grid" not in published_sweeps(DOCS_DATA),
    reason="etc-authors's sweeps are not published in docs/data",
)
def test_etc_authors_pages_are_recomputed_from_the_published_data(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As benchmarks/docs.sh makes them: the claims of ``etc-authors`` against the archive's
    grid agents, quoted on docs/agents/etc-text-and-code.md, and (once published) its ablation
    against it."""
    agents = REPO / "docs" / "agents"
    run = [sys.executable, "benchmarks/paper_claims.py", "--data", "docs/data"]
    run += ["--sweep", "etc_authors_grid", "--proposed", "etc-authors", "--time-reference", "etc"]
    run += ["--baselines", "docs/data", "--baseline-sweep", "grid"]
    page = subprocess.run(run, capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert page == (agents / "etc_authors_claims.md").read_text()
    assert summary_of(page) in (agents / "etc-text-and-code.md").read_text()
    if "etc_authors_ablation" in published_sweeps(DOCS_DATA):
        args = ["--reference", "etc-authors", "--metrics", "final", "area", "target_share"]
        capsys.readouterr()
        cmd = ["compare", "--data", str(DOCS_DATA), "--sweep", "etc_authors_ablation", *args]
        assert main(cmd) == 0
        assert capsys.readouterr().out == (agents / "etc_authors_ablation.md").read_text()
