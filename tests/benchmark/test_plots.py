"""Figures, summary tables and exports of stored runs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bocvs_env import metrics
from bocvs_env.benchmark.export import runs_frame, steps_frame, write_frame
from bocvs_env.benchmark.plots import (
    FIGURE_FILES,
    GRID_POINTS,
    agent_colors,
    evaluations_figure,
    regret_figure,
    save_figures,
    simple_regret_figure,
)
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.tables import FOOTNOTE, summary_markdown


@pytest.fixture
def two_agents_two_panels(stored_runs: list[StoredRun]) -> list[StoredRun]:
    """The tiny sweep's runs under two agent names, and again in a second panel (moderate)."""
    out = []
    for run in stored_runs:
        for agent in ("random", "zz-other"):
            for cost_set in ("cheap", "moderate"):
                config = replace(run.config, agent=agent, cost_set=cost_set)
                out.append(replace(run, config=config, key=config.key()))
    return out


def _records(runs: list[StoredRun], agent: str, cost_set: str) -> list:
    return [r.record for r in runs if (r.config.agent, r.config.cost_set) == (agent, cost_set)]


def _legend(fig) -> list[str]:
    (legend,) = fig.legends  # one, for every panel
    return [t.get_text() for t in legend.get_texts()]


def test_simple_regret_figure(two_agents_two_panels: list[StoredRun]) -> None:
    fig = simple_regret_figure(two_agents_two_panels)
    axes = fig.get_axes()
    assert len(axes) == 2
    assert [ax.get_title() for ax in axes] == [
        "hartmann3 · cheap · var 0.02 · C=3",
        "hartmann3 · moderate · var 0.02 · C=3",
    ]
    assert _legend(fig) == ["random (n=2)", "zz-other (n=2)"]
    assert all(ax.get_legend() is None for ax in axes)  # no panel's curves hidden
    assert "mean ± s.e." in fig.legends[0].get_title().get_text()
    fewer = [r for r in two_agents_two_panels if (r.config.agent, r.config.cost_set, r.config.seed)
             != ("zz-other", "moderate", 0)]  # fmt: skip
    assert _legend(simple_regret_figure(fewer)) == ["random (n=2)", "zz-other (n=1-2)"]
    assert "standard error" in fig.get_supxlabel()
    for ax in axes:
        assert ax.get_xlabel() == "cost spent"
        assert ax.get_ylabel() == "simple regret (lower is better)"
        assert ax.get_yscale() == "log"
        lines = ax.get_lines()
        assert len(lines) == 2
        x = np.asarray(lines[0].get_data()[0])
        assert len(x) == GRID_POINTS and x[0] == 0.0 and x[-1] == 3.0
    records = _records(two_agents_two_panels, "random", "cheap")
    grid = np.linspace(0.0, 3.0, GRID_POINTS)
    expected = np.mean([metrics.simple_regret_at(r, grid) for r in records], axis=0)
    np.testing.assert_allclose(np.asarray(axes[0].get_lines()[0].get_ydata()), expected)


def test_evaluations_and_regret_figures(two_agents_two_panels: list[StoredRun]) -> None:
    fig = evaluations_figure(two_agents_two_panels)
    ax = fig.get_axes()[0]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_yscale()) == (
        "cost spent",
        "evaluations",
        "linear",
    )
    assert len(ax.get_lines()) == 2
    for kind in ("quality", "cost"):
        ax = regret_figure(two_agents_two_panels, kind).get_axes()[0]
        assert ax.get_xlabel() == "round"
        assert ax.get_ylabel() == f"cumulative {kind} regret (lower is better)"
        x = np.asarray(ax.get_lines()[0].get_data()[0])
        shortest = min(r.record.n_evaluations for r in two_agents_two_panels)
        assert x[0] == 1 and x[-1] == shortest
    with pytest.raises(ValueError, match="quality"):
        regret_figure(two_agents_two_panels, "time")
    with pytest.raises(ValueError, match="no runs"):
        simple_regret_figure([])


def test_save_figures_writes_pngs(tmp_path: Path, two_agents_two_panels) -> None:
    paths = save_figures(two_agents_two_panels, tmp_path / "plots")
    assert [p.name for p in paths] == list(FIGURE_FILES)
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_summary_table(two_agents_two_panels: list[StoredRun]) -> None:
    text = summary_markdown(two_agents_two_panels)
    assert text.count("### hartmann3") == 2
    header = next(line for line in text.splitlines() if line.startswith("| agent"))
    assert header.split(" | ")[1:4] == [
        "seeds",
        "final simple regret (mean ± SE, lower is better)",
        "evaluations (mean ± SE)",
    ]
    assert text.rstrip().endswith(FOOTNOTE) and "standard error" in FOOTNOTE
    assert header.count("spend %") == 7
    rows = [line for line in text.splitlines() if line.startswith("| random")]
    assert len(rows) == 2
    records = _records(two_agents_two_panels, "random", "cheap")
    final = [metrics.summarize(r)["simple_regret"] for r in records]
    assert f"{np.mean(final):.4g} ± " in rows[0]
    shares = [float(v) for v in rows[0].strip("| ").split(" | ")[4:]]
    assert sum(shares) == pytest.approx(100, abs=4)


def test_runs_and_steps_frames(tmp_path: Path, stored_runs: list[StoredRun]) -> None:
    runs = runs_frame(stored_runs)
    assert len(runs) == len(stored_runs)
    assert {"problem", "agent", "seed", "simple_regret", "spend_share_6", "git_commit"} <= set(
        runs.columns
    )
    steps = steps_frame(stored_runs)
    assert len(steps) == sum(r.record.n_evaluations for r in stored_runs)
    first = stored_runs[0].record
    mine = steps[steps["key"] == stored_runs[0].key]
    np.testing.assert_array_equal(mine["g"], first.g)
    np.testing.assert_array_equal(mine["simple_regret"], metrics.simple_regret(first))
    np.testing.assert_array_equal(mine[["x_0", "x_1", "x_2"]].to_numpy(), first.x)
    for name in ("runs.csv", "runs.parquet"):
        path = write_frame(runs, tmp_path / name)
        back = pd.read_csv(path) if name.endswith("csv") else pd.read_parquet(path)
        assert back.shape == runs.shape
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        write_frame(runs, tmp_path / "runs.xlsx")


def test_an_agent_has_one_color_in_every_figure() -> None:
    """The paper's grid and a setting with fewer agents draw each agent alike; other agents
    take colors that no agent of their figure has."""
    grid = agent_colors(["etc", "ucb-psq", "ts-psq", "etc-50", "random", "fetc"])
    fewer = agent_colors(["etc", "random", "my-agent", "etc-ts"])
    assert fewer["etc"] == grid["etc"] and fewer["random"] == grid["random"]
    assert len(set(fewer.values())) == 4 and len(set(grid.values())) == 6
