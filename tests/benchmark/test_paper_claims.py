"""The paper-claims page (:mod:`bocvs_env.benchmark.paper_claims`, printed by
``bocvs paper-claims``): spend shares, the verdict per claim and panel."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import hand_run, tiny_sweep, win_and_tie_runs

from bocvs_env import metrics
from bocvs_env.benchmark import paper_claims as claims
from bocvs_env.benchmark.cli import main
from bocvs_env.benchmark.compare import compare_runs
from bocvs_env.benchmark.panels import group_panels
from bocvs_env.benchmark.store import ResultStore, StoredRun


def test_spend_shares_partition_the_spend_and_the_summary_averages_them(
    stored_runs: list[StoredRun],
) -> None:
    record = stored_runs[0].record
    shares = metrics.spend_share(record)
    assert shares.shape == (len(record.set_max),)
    assert shares.sum() == pytest.approx(1.0)
    assert shares[int(record.control_set[0])] > 0
    (panel, agents), = group_panels(stored_runs).items()  # fmt: skip
    summary = claims.panel_summary(panel, agents)["random"]
    records = agents["random"]
    on_target = [metrics.spend_share(r)[summary["i_star"]] for r in records]
    assert summary["share_target"] == pytest.approx(np.mean(on_target))
    costliest = int(np.argmax(records[0].cost_means))
    on_costliest = [metrics.spend_share(r)[costliest] for r in records]
    assert summary["share_costliest"] == pytest.approx(np.mean(on_costliest))


def test_panel_summary_averages_over_seeds(stored_runs: list[StoredRun]) -> None:
    (panel, agents), = group_panels(stored_runs).items()  # fmt: skip
    summary = claims.panel_summary(panel, agents)["random"]
    assert summary["seeds"] == len(agents["random"])
    assert summary["regret"].shape == (len(claims.CHECKPOINTS),)
    assert np.all(np.diff(summary["regret"]) <= 0)  # simple regret never rises with spend
    mean_evals = np.mean([len(r.y) for r in agents["random"]])
    assert summary["evaluations"] == pytest.approx(mean_evals)


def test_claim_matrix_states_each_panel_and_the_tally() -> None:
    # cheap: etc's final regret below random's on every seed (win); moderate: mixed (tie)
    runs = win_and_tie_runs("etc", "random")
    rows = compare_runs(runs, agent="etc", metric_names=["final"], n_resamples=300)
    text = claims.claim_matrix(rows, "final", "claim")
    assert "| hartmann3 · cheap · var 0.02 · C=10 | win |" in text
    assert "| hartmann3 · moderate · var 0.02 · C=10 | tie |" in text
    assert "| **win / tie / loss** | 1 / 1 / 0 |" in text
    assert "| **better mean** | 1 / 2 |" in text  # moderate: the two seeds' means are equal


def test_the_summary_states_each_baselines_tally_and_better_means_per_claim() -> None:
    runs = win_and_tie_runs("etc", "random") + [hand_run("ts-psq", s, [0.95]) for s in range(3)]
    rows = compare_runs(runs, agent="etc", metric_names=["final", "area"], n_resamples=300)
    lines = claims.summary_table(rows).splitlines()
    assert lines[0] == "| etc against | final simple regret | area under regret / cost |"
    # random: a win (cheap) and a tie (moderate), etc's mean better in 1 of the 2 panels;
    # ts-psq: cheap only, where its 0.95 beats etc's 0.9 on every seed
    assert [line.split(" | ")[:2] for line in lines[2:]] == [
        ["| random", "1 / 1 / 0 · 1/2"],
        ["| ts-psq", "0 / 0 / 1 · 0/1"],
    ]
    for column, metric in ((1, "final"), (2, "area")):  # as the claim's matrix tallies
        matrix = claims.claim_matrix(rows, metric, "claim").splitlines()
        counts, better = (row.split(" | ")[1:] for row in matrix[-2:])
        cells = [line.strip("| ").split(" | ")[column] for line in lines[2:]]
        tallied = zip(counts, better, strict=True)
        assert cells == [
            f"{c.strip(' |')} · {b.strip(' |').replace(' / ', '/')}" for c, b in tallied
        ]
    page = claims.claims_markdown(runs, resamples=300)
    assert "### Over all panels" in page and "| random | 1 / 1 / 0 · 1/2 |" in page


def test_the_claims_are_stated_for_any_proposed_agent() -> None:
    runs = win_and_tie_runs("fetc", "etc")
    page = claims.claims_markdown(runs, resamples=50, proposed="fetc")
    assert "#### 1. fetc's final simple regret is lower" in page
    assert "| **win / tie / loss** | 1 / 1 / 0 |" in page
    assert "#### 1. etc's" not in page


def test_cpu_time_per_run_is_averaged_per_panel_with_ratios_of_means_and_by_seed() -> None:
    runs = [
        hand_run(agent, s, [0.5], provenance={"cpu_s": cpu})
        for agent, times in (("fetc", (30.0, 50.0)), ("etc", (20.0, 20.0)))
        for s, cpu in enumerate(times)
    ]
    runs.append(hand_run("random", 0, [0.5], provenance={"cpu_s": float("nan")}))
    table = claims.cpu_table(claims.cpu_seconds(runs), "fetc", "etc")
    head = "| panel | etc | fetc | fetc / etc | per seed: median [max] |"
    assert table.splitlines()[0] == head  # random: no time
    assert "| hartmann3 · cheap · var 0.02 · C=10 | 20 | 40 | 2.00 | 2.00 [2.50] |" in table
    assert "fetc / etc" not in claims.cpu_table(claims.cpu_seconds(runs), "etc", "etc")
    page = claims.claims_markdown(runs, resamples=50, proposed="fetc", time_reference="etc")
    assert "## CPU time per run" in page and "| 20 | 40 | 2.00 | 2.00 [2.50] |" in page


def test_claims_page_has_a_matrix_per_claim() -> None:
    runs = [hand_run(a, s, [0.5, 0.9]) for a in ("etc", "random") for s in range(2)]
    page = claims.claims_markdown(runs, resamples=50)
    for _, title in claims.CLAIMS:
        assert f"#### {title.format(agent='etc')}" in page
    assert "## Paired differences per panel" in page


def test_the_command_prints_the_page(
    two_agent_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ResultStore(two_agent_store) as store:  # the sweep of both agents' runs
        store.register_sweep(replace(tiny_sweep(), name="pair", agents=["random", "etc"]))
    cmd = ["paper-claims", "--store", str(two_agent_store), "--sweep", "pair"]
    assert main([*cmd, "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "### hartmann3 · cheap · var 0.02 · C=3" in out
    assert "| random | 2 |" in out and "| etc | 2 |" in out
    for _, title in claims.CLAIMS:
        assert f"#### {title.format(agent='etc')}" in out
    assert main([*cmd, "--proposed", "fetc"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "bocvs paper-claims: error: agent 'fetc' has no runs here; agents: ['etc', 'random']"
    ]


def test_the_command_pairs_a_new_agents_sweep_with_an_archives_by_seed(
    two_agent_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--baselines`` adds the archive's sweep: the new agent's claims are stated against the
    archive's agents, seed for seed; the archive needs its sweep named."""
    with ResultStore(two_agent_store) as store:  # the new agent's own sweep
        store.register_sweep(replace(tiny_sweep(), name="mine", agents=["etc"]))
    cmd = ["paper-claims", "--store", str(two_agent_store), "--sweep", "mine"]
    cmd += ["--resamples", "50", "--baselines", str(two_agent_store)]
    assert main([*cmd, "--baseline-sweep", "tiny"]) == 0
    out = capsys.readouterr().out
    assert "| random | 2 |" in out and "| etc | 2 |" in out
    assert "| etc against | final simple regret |" in out
    assert main(cmd) == 2  # no --baseline-sweep
    assert capsys.readouterr().err.strip().splitlines() == [
        "bocvs paper-claims: error: --baselines and --baseline-sweep are given together"
    ]
