"""A leaderboard of agents over panels: mean ranks, wins against the best baseline, and a data
profile of the targets reached against the cost spent.

**Groups.** Agents are ranked only against agents that ran the same panels: the panels are
grouped by the set of agents that ran them, and each group gets a table of its own. Within a
panel only the seeds that every agent of the group ran are used, so that every figure of a
group pairs its agents on the same problem instances (a seed fixes the function instance and
the initial design). Ranking a sweep's agents on the panels of another sweep that they did
not run, or over different seeds, would compare them on different problems.

**Ranks.** In each panel the agents are ranked by their mean final simple regret over the
seeds, and again by their mean area under simple regret against cost over the budget (1 = the
lowest; ties share the mean of their ranks); the table gives each agent's mean rank over the
group's panels and the panels on which its mean final regret is the lowest.

**Best baseline.** The baseline with the best (lowest) mean rank of final regret, ties broken
by the mean rank of the area, then by name. Baselines are the agents of the published archives
when the leaderboard is given some (``--baselines``), else every agent; a group that no
published agent ran has none (its agents are ranked, never measured against one of their own).
Every other agent gets its paired win / tie / loss tally against it over the group's panels
(:func:`bocvs_env.benchmark.compare.compare_runs`).

**Data profile.** The figure is a data profile (Moré & Wild 2009, "Benchmarking
derivative-free optimization algorithms", SIAM J. Optim. 20(1)) with COCO's several targets
per problem instance (Hansen et al. 2021, "COCO: a platform for comparing continuous optimizers
in a black-box setting", Optim. Methods Softw. 36(1), whose runtime ECDFs aggregate over
(function, instance, target) triples): for each agent, the fraction of (panel, seed, target)
triples whose target it reached, against the cost spent as a fraction of the budget. The
targets of a panel and seed are :data:`N_TARGETS` simple-regret levels spaced evenly on a log
scale from the lowest final regret any agent of the group reached on that instance (the
hardest) up to, not including, the regret before any evaluation, ``g*`` (which every run
meets at zero cost): as in Moré & Wild's convergence test, a target is relative to what the
compared agents reached, so a curve at 1 reaches every target. This plot answers the question
cost-aware optimization asks, what regret is reached for what share of the budget, on every
panel at once; a performance profile (Dolan & Moré 2002, "Benchmarking optimization software
with performance profiles", Math. Program. 91) would rather show each agent's cost relative to
the fastest one, which hides how much of the budget that was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

from bocvs_env import metrics
from bocvs_env.agent_registration import base_name, is_import_path
from bocvs_env.benchmark.compare import compare_runs, counted, tally, wtl
from bocvs_env.benchmark.panels import Panel
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.evaluation import EpisodeRecord

#: Targets per (panel, seed) of the data profile.
N_TARGETS = 20
#: The hardest target is at least this fraction of ``g*`` (for an instance whose best final
#: regret is 0, where a log scale has no lower end).
TARGET_FLOOR = 1e-6
#: Points of the cost axis (fractions of the budget) at which the profile is tabulated.
PROFILE_GRID = np.linspace(0.0, 1.0, 201)


@dataclass(frozen=True)
class Standing:
    """An agent's line of a group's table.

    Attributes:
        agent: its name.
        final_rank: mean rank of its mean final simple regret over the group's panels.
        area_rank: the same for the area under simple regret.
        lowest: panels on which its mean final regret is the lowest of the group's.
        versus: ``"W / T / L"`` of final regret and of the area against the best baseline
            (``None`` for the best baseline itself).
    """

    agent: str
    final_rank: float
    area_rank: float
    lowest: tuple[Panel, ...]
    versus: tuple[str, str] | None


@dataclass(frozen=True)
class Group:
    """Panels that the same agents ran, and their standings.

    Attributes:
        agents: the agents, in the order of the table (best mean final rank first).
        panels: the panels, sorted.
        seeds: panel -> the seeds every agent ran there (the ones used).
        best: the best baseline (``None`` in a group without any of the baselines given).
        standings: one per agent, in the order of ``agents``.
        profile: agent -> fraction of (panel, seed, target) triples reached at each point of
            :data:`PROFILE_GRID`.
    """

    agents: tuple[str, ...]
    panels: tuple[Panel, ...]
    seeds: dict[Panel, tuple[int, ...]]
    best: str | None
    standings: tuple[Standing, ...]
    profile: dict[str, np.ndarray]


def cost_to_targets(record: EpisodeRecord, targets: np.ndarray) -> np.ndarray:
    """The cost spent, as a fraction of the budget, when the run's simple regret first is at
    most each target (shape ``(n,)``; 0 for a target at or above ``g*``, ``inf`` for one not
    reached within the budget)."""
    regret, spent = metrics.simple_regret(record), record.spent
    g_star = float(np.max(record.set_max))
    first = np.sum(regret[None, :] > targets[:, None], axis=1)  # regret is non-increasing
    at = np.concatenate([spent, [np.inf]])[first] / float(record.budget)
    return np.where(targets >= g_star, 0.0, at)


def instance_targets(records: Sequence[EpisodeRecord]) -> np.ndarray:
    """The :data:`N_TARGETS` targets of one panel and seed, given its runs by every agent of
    the group: log-spaced from the lowest final regret of ``records`` up to, not including,
    ``g*`` (see the module docstring)."""
    g_star = float(np.max(records[0].set_max))
    best = min(metrics.final_simple_regret(r) for r in records)
    low = max(best, TARGET_FLOOR * g_star)
    return np.geomspace(low, g_star, N_TARGETS + 1)[:-1]


def _data_profile(
    by_panel: dict[Panel, dict[str, dict[int, EpisodeRecord]]], agents: Sequence[str]
) -> dict[str, np.ndarray]:
    """Agent -> the fraction of the group's (panel, seed, target) triples reached at each
    point of :data:`PROFILE_GRID`."""
    costs: dict[str, list[np.ndarray]] = {a: [] for a in agents}
    for runs in by_panel.values():
        for seed in next(iter(runs.values())):
            targets = instance_targets([runs[a][seed] for a in agents])
            for a in agents:
                costs[a].append(cost_to_targets(runs[a][seed], targets))
    out = {}
    for a in agents:
        reached = np.sort(np.concatenate(costs[a]))
        out[a] = np.searchsorted(reached, PROFILE_GRID, side="right") / reached.size
    return out


def _by_panel(runs: Sequence[StoredRun]) -> dict[Panel, dict[str, dict[int, StoredRun]]]:
    out: dict[Panel, dict[str, dict[int, StoredRun]]] = {}
    for run in runs:
        seeds = out.setdefault(Panel.of(run), {}).setdefault(run.config.agent, {})
        if run.config.seed in seeds:
            raise ValueError(
                f"{Panel.of(run).title()}: agent {run.config.agent!r} has two runs of seed "
                f"{run.config.seed} (different agent parameters or problem options?)"
            )
        seeds[run.config.seed] = run
    return out


def _mean_ranks(
    by_panel: dict[Panel, dict[str, dict[int, EpisodeRecord]]], agents: Sequence[str]
) -> tuple[dict[str, float], dict[str, float], dict[str, list[Panel]]]:
    """Mean ranks of final regret and of the area, and the panels where each agent's mean
    final regret is the lowest."""
    final_ranks: dict[str, list[float]] = {a: [] for a in agents}
    area_ranks: dict[str, list[float]] = {a: [] for a in agents}
    lowest: dict[str, list[Panel]] = {a: [] for a in agents}
    for panel, runs in by_panel.items():
        finals = _panel_means(runs, agents, metrics.final_simple_regret)
        areas = _panel_means(runs, agents, metrics.simple_regret_area)
        for a, f, s in zip(agents, rankdata(finals), rankdata(areas), strict=True):
            final_ranks[a].append(float(f))
            area_ranks[a].append(float(s))
        for a, value in zip(agents, finals, strict=True):
            if value == min(finals):
                lowest[a].append(panel)
    final = {a: float(np.mean(v)) for a, v in final_ranks.items()}
    area = {a: float(np.mean(v)) for a, v in area_ranks.items()}
    return final, area, lowest


def _panel_means(
    runs: dict[str, dict[int, EpisodeRecord]],
    agents: Sequence[str],
    metric: Callable[[EpisodeRecord], float],
) -> list[float]:
    """Each agent's mean of ``metric`` over its runs of one panel (``runs``: agent -> seed ->
    record), in the order of ``agents``."""
    return [float(np.mean([metric(r) for r in runs[a].values()])) for a in agents]


def by_agent_name(runs: Sequence[StoredRun]) -> list[StoredRun]:
    """``runs`` with each agent named by its import path (``"my_module:MyAgent"``) labelled by
    its ``name`` instead (``agent_name`` in the run's provenance), where that label is
    unambiguous: no other agent of ``runs`` is called so, and no other import path (or variant)
    has that name."""
    labels = {r.config.agent for r in runs}
    paths: dict[str, set[str]] = {}
    for r in runs:
        name = r.provenance.get("agent_name")
        if is_import_path(base_name(r.config.agent)) and isinstance(name, str) and name:
            paths.setdefault(name, set()).add(r.config.agent)
    rename = {
        next(iter(named)): name
        for name, named in paths.items()
        if len(named) == 1 and name not in labels
    }
    return [
        replace(r, config=replace(r.config, agent=rename[r.config.agent]))
        if r.config.agent in rename
        else r
        for r in runs
    ]


def leaderboard(runs: Sequence[StoredRun], baselines: Sequence[str] | None = None) -> list[Group]:
    """The groups of ``runs`` and their standings (see the module docstring).

    Args:
        runs: the runs of every agent (of one panel's agents, each seed once).
        baselines: the agents the best baseline is chosen among (``None``: every agent); a
            group without any of them has no best baseline and no W / T / L.

    Returns:
        The groups, the one with the most agents first (then the most panels).

    Raises:
        ValueError: if there are no runs, or an agent has two runs of one seed in a panel.
    """
    if not runs:
        raise ValueError("no runs to rank")
    grouped: dict[tuple[str, ...], dict[Panel, dict[str, dict[int, StoredRun]]]] = {}
    for panel, agents in sorted(_by_panel(runs).items()):
        common = sorted(set.intersection(*(set(s) for s in agents.values())))
        if common:
            chosen = {a: {s: agents[a][s] for s in common} for a in sorted(agents)}
            grouped.setdefault(tuple(sorted(agents)), {})[panel] = chosen
    groups = [_group(panels, baselines) for panels in grouped.values()]
    return sorted(groups, key=lambda g: (-len(g.agents), -len(g.panels), g.agents))


def _group(
    panels: dict[Panel, dict[str, dict[int, StoredRun]]], baselines: Sequence[str] | None
) -> Group:
    agents = sorted(next(iter(panels.values())))
    records = _records(panels)
    final, area, lowest = _mean_ranks(records, agents)
    order = sorted(agents, key=lambda a: (final[a], area[a], a))
    best = next((a for a in order if baselines is None or a in baselines), None)
    chosen = [r for runs in panels.values() for seeds in runs.values() for r in seeds.values()]
    counts = {}
    if best is not None:
        counts = tally(compare_runs(chosen, reference=best, metric_names=("final", "area")))
    standings = tuple(
        Standing(a, final[a], area[a], tuple(lowest[a]), _tallies(counts, a, best)) for a in order
    )
    seeds = {p: tuple(next(iter(runs.values()))) for p, runs in panels.items()}
    profile = _data_profile(records, agents)
    return Group(tuple(order), tuple(panels), seeds, best, standings, profile)


def _records(
    panels: dict[Panel, dict[str, dict[int, StoredRun]]],
) -> dict[Panel, dict[str, dict[int, EpisodeRecord]]]:
    """The episode records of ``panels``' runs, keyed as they are (panel -> agent -> seed)."""
    return {
        p: {a: {s: r.record for s, r in seeds.items()} for a, seeds in runs.items()}
        for p, runs in panels.items()
    }


def _tallies(
    counts: dict[tuple[str, str, str], Counter[str]], agent: str, best: str | None
) -> tuple[str, str] | None:
    """``agent``'s win / tie / loss against ``best`` on final regret and on the area (``None``
    for the best itself, and without a best baseline)."""
    if best is None or agent == best:
        return None
    return wtl(counts[(agent, best, "final")]), wtl(counts[(agent, best, "area")])


def _seeds_text(seeds: dict[Panel, tuple[int, ...]]) -> str:
    sets = {s for s in seeds.values()}
    if len(sets) == 1:
        (only,) = sets
        return f"seeds {_span(only)}"
    return "seeds " + "; ".join(f"{p.title()}: {_span(s)}" for p, s in seeds.items())


def _span(seeds: tuple[int, ...]) -> str:
    if seeds == tuple(range(seeds[0], seeds[0] + len(seeds))) and len(seeds) > 2:
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _panels_text(panels: tuple[Panel, ...], all_panels: tuple[Panel, ...]) -> str:
    if not panels:
        return "–"
    if len(panels) == len(all_panels):
        return "all"
    return "; ".join(p.title() for p in panels)


#: What the leaderboard's tables show, printed above them.
EXPLANATION = """\
Lower is better. Agents are ranked only against agents that ran the same panels (problem x cost
set x variance x budget): the panels are grouped by the set of agents that ran them, one table per
group, and in each panel only the seeds that every agent of the group ran are used, so that every
figure pairs the agents on the same problem instances. In each panel the agents are ranked by
their mean final simple regret, and again by their mean area under simple regret against cost
over the budget (1 = the lowest; ties share their mean rank); the tables give the mean rank over
the group's panels and the panels where the agent's mean final regret is the lowest. The best
baseline is the {baselines} with the lowest mean rank of final regret (ties: of the area, then
the name); W / T / L is each other agent's paired win / tie / loss tally against it over the
group's panels ({level:.0%} bootstrap intervals of the mean difference by seed, as in `bocvs
compare`)."""

#: What the data profiles' figure shows, printed above it when it is written (``--figure``).
FIGURE_EXPLANATION = """\
The figure is a data profile (Moré & Wild 2009) with COCO's several targets per instance (Hansen
et al. 2021): for each agent, the fraction of (panel, seed, target) triples whose target it
reached against the cost spent as a fraction of the budget; the {n_targets} targets of a panel and
seed are simple-regret levels log-spaced from the lowest final regret any agent of the group
reached on it up to the regret before any evaluation, `g*` (see
`bocvs_env.benchmark.leaderboard`). Higher and further left is better."""


def leaderboard_markdown(
    groups: Sequence[Group], head: str, figure: str | None = None, baselines: bool = False
) -> str:
    """The leaderboard as a markdown page: ``head`` (e.g. the runs' code version), the
    explanation, then, if given, the figure's relative path and what it shows, and a table per
    group."""
    from bocvs_env.benchmark.stats import LEVEL

    who = "published agent" if baselines else "agent"
    parts = ["# Leaderboard", head, EXPLANATION.format(baselines=who, level=LEVEL)]
    if figure is not None:
        parts.append(FIGURE_EXPLANATION.format(n_targets=N_TARGETS))
        parts.append(f"![Data profiles, one panel per group]({figure})")
    parts += [_group_markdown(n, g) for n, g in enumerate(groups, 1)]
    return "\n\n".join(parts) + "\n"


def _group_markdown(n: int, g: Group) -> str:
    """Group ``n``'s heading, panels, seeds and best baseline, and its table."""
    best = (
        f"Best baseline: {g.best}."
        if g.best is not None
        else "No published agent ran these panels: no best baseline, no W / T / L."
    )
    vs = g.best or "best baseline"
    lines = [
        f"## Group {n}: {counted(len(g.agents), 'agent')} on {counted(len(g.panels), 'panel')}",
        "",
        f"Panels: {'; '.join(p.title() for p in g.panels)}; {_seeds_text(g.seeds)}. {best}",
        "",
        "| agent | mean rank, final simple regret | mean rank, area | lowest final regret on "
        f"| W / T / L vs {vs}, final | W / T / L vs {vs}, area |",
        "| --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for s in g.standings:
        versus = s.versus or ("–", "–")
        lowest = _panels_text(s.lowest, g.panels)
        lines.append(
            f"| {s.agent} | {s.final_rank:.2f} | {s.area_rank:.2f} | {lowest} | "
            f"{versus[0]} | {versus[1]} |"
        )
    return "\n".join(lines)


def save_profile_figure(groups: Sequence[Group], path: str | Path) -> Path:
    """The data profiles as one PNG, a panel per group; its path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(groups)
    cols = min(n, 2)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.2 * rows), squeeze=False)
    for ax, (k, g) in zip(axes.ravel(), enumerate(groups, 1), strict=False):
        colors = [plt.get_cmap("tab20")(k) for k in range(20)]
        for i, a in enumerate(g.agents):  # 20 colours, and a dashed line past the first 10
            style = {"color": colors[(2 * i) % 20 + (i // 10) % 2], "ls": "-" if i < 10 else "--"}
            ax.step(PROFILE_GRID, g.profile[a], where="post", label=a, **style)
        ax.set_title(
            f"group {k}: {counted(len(g.agents), 'agent')}, {counted(len(g.panels), 'panel')}"
        )
        ax.set_xlabel("cost spent / budget")
        ax.set_ylabel("fraction of (panel, seed, target) reached")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, ncol=2)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
