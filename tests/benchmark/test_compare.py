"""Paired comparisons of agents by seed (:mod:`bocvs_env.benchmark.compare`)."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import at_commit, hand_run, tiny_sweep, win_and_tie_runs

from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.compare import compare_runs, comparison_markdown, tally
from bocvs_env.benchmark.runner import RunResult
from bocvs_env.benchmark.store import StoredRun


def _final(rows: list, agent: str, reference: str, metric: str = "final") -> object:
    (row,) = [r for r in rows if (r.agent, r.reference, r.metric) == (agent, reference, metric)]
    return row


def test_constant_paired_difference_is_the_interval() -> None:
    # a's final regret is 0.25 below b's on every seed (g* = 1)
    runs = [hand_run("a", s, [0.5, 0.75]) for s in range(4)]
    runs += [hand_run("b", s, [0.5]) for s in range(4)]
    (final,) = compare_runs(runs, metric_names=["final"], n_resamples=200)
    assert (final.agent, final.reference) == ("a", "b")
    iv = final.interval
    assert iv.mean == pytest.approx(-0.25) and iv.low == pytest.approx(-0.25)
    assert iv.high == pytest.approx(-0.25) and final.verdict() == "win"
    assert final.seeds == (0, 1, 2, 3) and final.unpaired == {"a": (), "b": ()}


def test_area_difference_by_hand() -> None:
    # budget 10, steps of cost 1: a's regret is 1 then 0.5 from cost 1 on, 0 from cost 2 on,
    # area (1 + 0.5) / 10; b's is 1 then 0.5 to the end: (1 + 9 * 0.5) / 10
    runs = [hand_run("a", s, [0.5, 1.0]) for s in range(3)]
    runs += [hand_run("b", s, [0.5]) for s in range(3)]
    (area,) = compare_runs(runs, metric_names=["area"], n_resamples=100)
    assert area.interval.mean == pytest.approx(0.15 - 0.55)
    assert area.verdict() == "win"


def test_pairing_drops_unpaired_seeds_and_says_so() -> None:
    runs = [hand_run("a", s, [0.5]) for s in (0, 1, 2, 5)]
    runs += [hand_run("b", s, [0.5]) for s in (1, 2, 3)]
    (final,) = compare_runs(runs, metric_names=["final"], n_resamples=100)
    assert final.seeds == (1, 2) and final.interval.n == 2
    assert final.unpaired == {"a": (0, 5), "b": (3,)}
    text = comparison_markdown([final])
    assert "a's seeds 0, 5 have no b run here and were dropped." in text
    assert "b's seeds 3 have no a run here and were dropped." in text
    assert final.row()["unpaired"] == "a: 0 5; b: 3"


def test_ties_where_the_interval_holds_zero_and_the_tally() -> None:
    # cheap panel: a better on every seed; moderate panel: a better on one seed, worse on another
    runs = win_and_tie_runs("a", "b")
    rows = compare_runs(runs, metric_names=["final"], n_resamples=500)
    verdicts = {r.panel.cost_set: r.verdict() for r in rows}
    assert verdicts == {"cheap": "win", "moderate": "tie"}
    counts = tally(rows)[("a", "b", "final")]
    assert (counts["win"], counts["tie"], counts["loss"]) == (1, 1, 0)
    assert "| a | b | 1 / 1 / 0 |" in comparison_markdown(rows)


def test_agent_and_reference_choose_the_pairs() -> None:
    runs = [hand_run(a, s, [0.5]) for a in ("x", "y", "z") for s in range(2)]

    def pairs(agent: str | None = None, reference: str | None = None) -> list[tuple[str, str]]:
        return [
            (r.agent, r.reference)
            for r in compare_runs(runs, agent, reference, metric_names=["final"], n_resamples=10)
        ]

    assert pairs() == [("x", "y"), ("x", "z"), ("y", "z")]
    assert pairs(agent="y") == [("y", "x"), ("y", "z")]
    assert pairs(reference="y") == [("x", "y"), ("z", "y")]
    assert pairs(agent="z", reference="x") == [("z", "x")]
    with pytest.raises(ValueError, match="reference 'w' has no runs"):
        compare_runs(runs, reference="w")
    with pytest.raises(ValueError, match="unknown metrics"):
        compare_runs(runs, metric_names=["speed"])


def test_evaluations_are_higher_is_better() -> None:
    runs = [hand_run("a", s, [0.5] * 6, cost=[0.5] * 6) for s in range(3)]
    runs += [hand_run("b", s, [0.5] * 3) for s in range(3)]
    (evals,) = compare_runs(runs, metric_names=["evaluations"], n_resamples=100)
    assert evals.interval.mean == 3.0 and evals.verdict() == "win"
    assert "better side of 0 (above it)" in comparison_markdown([evals])
    both = compare_runs(runs, metric_names=["final", "evaluations"], n_resamples=100)
    assert "(below it, above it for evaluations)" in comparison_markdown(both)


def test_the_share_on_the_target_set_is_higher_is_better() -> None:
    # hand runs: i* is set 0 (value 1 = g*, cost 0.1); a spends 3 of its 4 units on set 0, b 1
    def playing(agent: str, seed: int, sets: list[int]) -> StoredRun:
        run = hand_run(agent, seed, [0.5] * 4)
        record = replace(run.record, control_set=np.asarray(sets, dtype=np.int64))
        return replace(run, record=record)

    runs = [playing("a", s, [0, 0, 0, 2]) for s in range(3)]
    runs += [playing("b", s, [0, 1, 2, 2]) for s in range(3)]
    (share,) = compare_runs(runs, metric_names=["target_share"], n_resamples=100)
    assert share.interval.mean == pytest.approx(0.5) and share.verdict() == "win"


def test_two_runs_of_one_seed_are_refused() -> None:
    runs = [hand_run("a", 0, [0.5]), hand_run("b", 0, [0.5])]
    runs.append(hand_run("a", 0, [0.5], budget=10.0))
    with pytest.raises(ValueError, match="two runs of seed 0"):
        compare_runs(runs)


def test_compare_command_writes_markdown_json_and_csv(
    two_agent_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    js, cs = tmp_path / "c.json", tmp_path / "c.csv"
    argv = ["compare", "--store", str(two_agent_store), "--reference", "random"]
    argv += ["--resamples", "300", "--json", str(js), "--csv", str(cs)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| etc | random | 2 |" in out and "### Win / tie / loss over 1 panel\n" in out
    rows = json.loads(js.read_text())
    assert [(r["agent"], r["reference"], r["metric"]) for r in rows] == [
        ("etc", "random", "final"),
        ("etc", "random", "area"),
    ]
    assert all(r["pairs"] == 2 and r["seeds"] == "0 1" for r in rows)
    with cs.open() as f:
        assert [r["verdict"] for r in csv.DictReader(f)] == [r["verdict"] for r in rows]
    assert main(["compare", "--store", str(two_agent_store), "--metrics", "speed"]) == 2
    assert "unknown metrics ['speed']" in capsys.readouterr().err


def test_each_agent_is_compared_with_its_other_version() -> None:
    from bocvs_env.benchmark.compare import compare_versions

    now = [hand_run("a", s, [0.9]) for s in range(3)] + [hand_run("b", 0, [0.5])]
    before = [hand_run("a", s, [0.5]) for s in range(3)] + [hand_run("c", 0, [0.5])]
    rows = compare_versions(now, before, "0123abc", metric_names=["final"], n_resamples=200)
    assert [(r.agent, r.reference, len(r.seeds), r.verdict()) for r in rows] == [
        ("a", "a@0123abc", 3, "win")
    ]
    with pytest.raises(ValueError, match="no agent is on both sides"):
        compare_versions(now, before, "0123abc", agents=["b"])


def test_compare_against_another_store(
    two_agent_store: Path, tiny_results: list, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bocvs_env.benchmark.store import ResultStore

    later = tmp_path / "later.db"
    with ResultStore(later) as store:
        store.register_sweep(tiny_sweep())
        for result in tiny_results:
            store.add(at_commit(result, "d" * 40), sweep="tiny")
    argv = ["compare", "--store", str(later), "--against", str(two_agent_store)]
    assert main([*argv, "--resamples", "200", "--metrics", "final"]) == 0
    out = capsys.readouterr().out
    # the same runs at two commits: random against itself, a tie with a zero difference
    assert "| random | random@ccccccc | 2 | 0 [0, 0] **tie** |" in out
    assert out.startswith("Runs of 2 code versions, ccccccc (numpy ")  # both sides' versions
    assert "dddddddd" not in out.splitlines()[0] and "ddddddd (numpy " in out.splitlines()[0]
    assert "etc@" not in out  # etc ran only in the other store
    assert main([*argv, "--reference", "random"]) == 2
    assert "leave out --reference" in capsys.readouterr().err


def test_every_agent_is_compared_with_every_baseline_on_the_panels_and_seeds_it_ran() -> None:
    from bocvs_env.benchmark.compare import compare_baselines

    published = {"git_commit": "5" * 40}
    mine = [hand_run("mine", s, [0.9]) for s in range(3)]
    archive = [
        hand_run(a, s, [0.5], provenance=published) for a in ("etc", "mine") for s in range(5)
    ]
    archive += [hand_run("etc", 0, [0.5], cost_set="moderate", provenance=published)]
    rows = compare_baselines(mine, [archive], metric_names=["final"], n_resamples=200)
    assert [(r.agent, r.reference, r.seeds, r.verdict()) for r in rows] == [
        ("mine", "etc@5555555", (0, 1, 2), "win"),
        ("mine", "mine@5555555", (0, 1, 2), "win"),  # a baseline of the same name stays apart
    ]
    assert all(r.unpaired == {"mine": ()} for r in rows)  # the archive's other seeds: expected
    only = compare_baselines(mine, [archive], reference="etc", metric_names=["final"])
    assert {r.reference for r in only} == {"etc@5555555"}
    with pytest.raises(ValueError, match="no panel and seed has runs of"):
        compare_baselines([hand_run("mine", 7, [0.9])], [archive])


def _archive_and_mine(archive: Path, results: list[RunResult], tmp_path: Path) -> tuple[Path, Path]:
    """``archive`` published into ``tmp_path / "data"``, and a store ``mine.db`` of ``results``
    at another commit: the folder and the store."""
    from bocvs_env.benchmark.store import ResultStore

    data = tmp_path / "data"
    assert main(["publish", "--store", str(archive), "--out", str(data)]) == 0
    mine = tmp_path / "mine.db"
    with ResultStore(mine) as store:
        store.register_sweep(tiny_sweep())
        for result in results:
            store.add(at_commit(result, "d" * 40), sweep="tiny")
    return data, mine


def test_compare_with_published_baselines_reads_them_in_place(
    two_agent_store: Path, tiny_results: list, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's store against a published folder of another commit: every pair of the
    user's agent with a baseline agent, both versions named in one line, the store unchanged."""
    import hashlib

    data, mine = _archive_and_mine(two_agent_store, tiny_results, tmp_path)
    digest = hashlib.sha256(mine.read_bytes()).hexdigest()
    capsys.readouterr()
    js = tmp_path / "rows.json"
    argv = ["compare", "--store", str(mine), "--baselines", str(data), "--json", str(js)]
    assert main([*argv, "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert (
        first.startswith("Your runs: ddddddd (numpy ") and "; baselines: ccccccc (numpy " in first
    )
    assert "a seed fixes the function instance and the initial design on any machine" in out
    assert "| random | etc@ccccccc | 2 |" in out and "| random | random@ccccccc | 2 |" in out
    assert {(r["agent"], r["reference"]) for r in json.loads(js.read_text())} == {
        ("random", "etc@ccccccc"),
        ("random", "random@ccccccc"),
    }
    assert hashlib.sha256(mine.read_bytes()).hexdigest() == digest
    assert main(["table", "--store", str(mine)]) == 0  # the store holds one version still
    assert main([*argv[:-2], "--against", str(two_agent_store)]) == 2
    assert "not both" in capsys.readouterr().err


def test_baselines_are_the_grid_sweeps_agents_unless_variants_are_asked_for(
    two_agent_store: Path, tiny_results: list, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A published folder with a ``grid`` sweep (here of ``random`` alone) beside a variant
    (``etc``): ``compare --baselines`` pairs with the grid's agents, says so, and pairs with
    every agent with ``--with-variants`` (or with a ``--reference`` that is a variant)."""
    from bocvs_env.benchmark.store import ResultStore

    with ResultStore(two_agent_store) as archive:
        archive.register_sweep(tiny_sweep("grid"))
    data, mine = _archive_and_mine(two_agent_store, tiny_results, tmp_path)
    argv = ["compare", "--store", str(mine), "--baselines", str(data), "--resamples", "50"]

    def pairs(*more: str) -> set[tuple[str, str]]:
        js = tmp_path / "rows.json"
        assert main([*argv, *more, "--json", str(js)]) == 0
        return {(r["agent"], r["reference"]) for r in json.loads(js.read_text())}

    capsys.readouterr()
    assert pairs() == {("random", "random@ccccccc")}
    assert "the agents of each folder's `grid` sweep" in capsys.readouterr().out
    assert pairs("--with-variants") == {("random", "random@ccccccc"), ("random", "etc@ccccccc")}
    assert "`grid` sweep" not in capsys.readouterr().out
    assert pairs("--reference", "etc") == {("random", "etc@ccccccc")}
    for command in ("compare", "run"):
        assert main([command, "--store", str(mine), "--with-variants"]) == 2
        assert "--with-variants goes with --baselines" in capsys.readouterr().err


def test_the_takeaway_names_the_lowest_agent_the_gaps_and_verdicts() -> None:
    from bocvs_env.benchmark.tables import takeaway

    runs = win_and_tie_runs("a", "b") + [hand_run("c", s, [0.2]) for s in range(3)]
    cheap, moderate = takeaway(runs)
    assert cheap == (
        "Takeaway, hartmann3 · cheap · var 0.02 · C=10: a ends lowest (final simple regret "
        "0.1, mean of 3 seeds), 0.4 below b (paired 95% interval [-0.4, -0.4]: win), 0.7 "
        "below c (paired 95% interval [-0.7, -0.7]: win)."
    )
    assert moderate.startswith("Takeaway, hartmann3 · moderate · var 0.02 · C=10: a ends lowest")
    assert "0 below b (paired 95% interval [" in moderate and "]: tie)." in moderate
