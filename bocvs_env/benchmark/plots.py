"""The papers' figures from stored runs (matplotlib, without pyplot's global state).

Each figure has one panel per problem x cost set x variance (x budget) and one curve per agent:
the mean over seeds with a band of one standard error, drawn as steps (each value holds until
the next point). Every value comes from :mod:`bocvs_env.metrics`.

- :func:`simple_regret_figure`: simple regret against cost spent, log scale; runs are aligned on
  a common grid of cost spent, ``0..budget``.
- :func:`evaluations_figure`: evaluations against cost spent.
- :func:`regret_figure`: cumulative quality or cost regret against rounds, up to the shortest
  run of each agent (so every point averages the same seeds).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bocvs_env import metrics
from bocvs_env.benchmark.panels import Panel, group_panels, mean_and_se
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import versions_line
from bocvs_env.evaluation import EpisodeRecord

#: A curve of one panel and agent: ``x``, mean and standard error over seeds, each ``(n,)``.
Curve = tuple[np.ndarray, np.ndarray, np.ndarray]

#: Points of the common cost grid.
GRID_POINTS = 201
#: Simple regrets below this are drawn at it (a log axis cannot show 0).
REGRET_FLOOR = 1e-6
#: What the lines and bands are, written under every figure.
CAPTION = (
    "lines: mean over seeds (n per agent in the legend, its range over panels if they differ); "
    "bands: ± one standard error of the mean"
)
#: Said beside every regret axis (a regret is a shortfall: 0 is the best).
LOWER_IS_BETTER = "(lower is better)"
#: The files :func:`save_figures` writes.
FIGURE_FILES = ("simple_regret.png", "evaluations.png", "quality_regret.png", "cost_regret.png")


def _grid(budget: float) -> np.ndarray:
    return np.linspace(0.0, budget, GRID_POINTS)


def _panel_grid(n: int, sharey: bool = False) -> tuple[Figure, list[Axes]]:
    ncols = min(n, 4)
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(4.2 * ncols, 3.4 * nrows), layout="constrained")
    axes = list(fig.subplots(nrows, ncols, squeeze=False, sharey=sharey).ravel())
    for ax in axes[n:]:
        fig.delaxes(ax)
    return fig, axes[:n]


#: The agents with a color of their own, the same in every figure: the paper's five, then the
#: field's two and this project's (matplotlib's default cycle, ``C0`` ... ``C9``).
AGENT_COLORS = {
    "etc": "C1",
    "ucb-psq": "C7",
    "ts-psq": "C6",
    "etc-50": "C2",
    "random": "C4",
    "fetc": "C3",
    "sadcbo": "C5",
    "ei-cost": "C0",
}


def agent_colors(agents: Iterable[str]) -> dict[str, str]:
    """A color per agent, by name: :data:`AGENT_COLORS`, and for other agents the colors that
    those of ``agents`` leave, in name order (repeating past ten agents)."""
    names = sorted(set(agents))
    taken = {AGENT_COLORS[a] for a in names if a in AGENT_COLORS}
    free = [c for c in (f"C{k}" for k in range(10)) if c not in taken] or ["C9"]
    others = iter(free * len(names))
    return {a: AGENT_COLORS[a] if a in AGENT_COLORS else next(others) for a in names}


def _span(counts: set[int]) -> str:
    """``"5"``, or ``"3-5"`` when panels have different numbers of seeds."""
    low, high = min(counts), max(counts)
    return f"{low}" if low == high else f"{low}-{high}"


def _figure(
    runs: Sequence[StoredRun],
    curve: Callable[[list[EpisodeRecord], Panel], Curve],
    xlabel: str,
    ylabel: str,
    log: bool,
) -> Figure:
    panels = group_panels(runs)
    if not panels:
        raise ValueError("no runs to plot")
    colors = agent_colors(a for agents in panels.values() for a in agents)
    seeds: dict[str, set[int]] = {a: set() for a in colors}
    fig, axes = _panel_grid(len(panels))
    for ax, (panel, agents) in zip(axes, panels.items(), strict=True):
        for agent, records in agents.items():
            _draw_curve(ax, curve(records, panel), colors[agent], log)
            seeds[agent].add(len(records))
        if log:
            ax.set_yscale("log")
        ax.set_title(panel.title(), fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
    fig.legend(  # above the panels, where it hides no curve
        [Line2D([], [], color=color) for color in colors.values()],
        [f"{a} (n={_span(seeds[a])})" for a in colors],
        loc="outside upper center",
        ncols=min(len(colors), 2 * min(len(panels), 4)),  # two per panel column: it fits
        fontsize=8,
        title="agent (seeds): mean ± s.e.",
        title_fontsize=8,
    )
    width = int(15 * fig.get_figwidth())  # characters of 8 pt text across the figure
    caption = [CAPTION, versions_line(runs)]
    fig.supxlabel("\n".join(textwrap.fill(c, width) for c in caption), fontsize=8)
    return fig


def _draw_curve(ax: Axes, points: Curve, color: str, log: bool) -> None:
    """One agent's mean as a step curve on ``ax`` with its band of one standard error either
    side, the three floored at :data:`REGRET_FLOOR` when ``log``."""
    x, mean, se = points
    lo, hi = mean - se, mean + se
    if log:
        mean, lo, hi = (np.maximum(v, REGRET_FLOOR) for v in (mean, lo, hi))
    ax.plot(x, mean, color=color, drawstyle="steps-post")
    ax.fill_between(x, lo, hi, color=color, alpha=0.2, linewidth=0, step="post")


def simple_regret_figure(runs: Sequence[StoredRun]) -> Figure:
    """Simple regret against cost spent (:func:`bocvs_env.metrics.simple_regret_at`), log y;
    ``ValueError`` without runs."""

    def curve(records: list[EpisodeRecord], panel: Panel) -> Curve:
        grid = _grid(panel.budget)
        return (grid, *mean_and_se(np.stack([metrics.simple_regret_at(r, grid) for r in records])))

    return _figure(runs, curve, "cost spent", f"simple regret {LOWER_IS_BETTER}", log=True)


def evaluations_figure(runs: Sequence[StoredRun]) -> Figure:
    """Evaluations against cost spent (:func:`bocvs_env.metrics.evaluations_at`);
    ``ValueError`` without runs."""

    def curve(records: list[EpisodeRecord], panel: Panel) -> Curve:
        grid = _grid(panel.budget)
        return (grid, *mean_and_se(np.stack([metrics.evaluations_at(r, grid) for r in records])))

    return _figure(runs, curve, "cost spent", "evaluations", log=False)


def regret_figure(runs: Sequence[StoredRun], kind: str, alpha: float = 0.1) -> Figure:
    """Cumulative ``kind`` regret (``"quality"`` or ``"cost"``) against rounds, tolerance
    ``alpha`` (:func:`bocvs_env.metrics.quality_regret`, :func:`~bocvs_env.metrics.cost_regret`).

    Raises:
        ValueError: for another ``kind``.
    """
    funcs = {"quality": metrics.quality_regret, "cost": metrics.cost_regret}
    if kind not in funcs:
        raise ValueError(f"kind must be 'quality' or 'cost', got {kind!r}")
    func = funcs[kind]

    def curve(records: list[EpisodeRecord], panel: Panel) -> Curve:
        rounds = min(r.n_evaluations for r in records)
        values = np.stack([func(r, alpha)[:rounds] for r in records]).reshape(len(records), -1)
        return (np.arange(1, rounds + 1), *mean_and_se(values))

    return _figure(runs, curve, "round", f"cumulative {kind} regret {LOWER_IS_BETTER}", log=False)


def save_figures(runs: Sequence[StoredRun], out_dir: str | Path, dpi: int = 120) -> list[Path]:
    """Write the four figures of :data:`FIGURE_FILES` as PNGs into ``out_dir``; their paths.
    ``ValueError`` without runs."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = (
        simple_regret_figure(runs),
        evaluations_figure(runs),
        regret_figure(runs, "quality"),
        regret_figure(runs, "cost"),
    )
    paths = []
    for name, fig in zip(FIGURE_FILES, figures, strict=True):
        path = out / name
        fig.savefig(path, dpi=dpi)
        paths.append(path)
    return paths
