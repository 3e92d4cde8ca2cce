"""Paired comparisons of agents: by seed within each panel, with a bootstrap interval per panel
and a win / tie / loss tally over panels.

Within a panel (problem x cost set x variance x budget) two agents' runs of the same seed form
a pair; a seed that only one of them ran is dropped, and :attr:`PairedComparison.unpaired` says
which. For each pair the difference ``agent - reference`` is taken, for one of the figures of
:data:`METRICS` (lower is better unless said):

- ``final``: the final simple regret (:func:`bocvs_env.metrics.final_simple_regret`);
- ``area``: the area under simple regret against cost spent over ``[0, budget]`` divided by the
  budget, i.e. the mean simple regret over the budget
  (:func:`bocvs_env.metrics.simple_regret_area`);
- ``evaluations``: evaluations made within the budget (higher is better);
- ``costliest_share``: the share of the spend on the costliest control set (by mean cost);
- ``target_share``: the share of the spend on the target set ``i*``, the cheapest set whose
  best value is within the tolerance ``alpha = 0.1`` of ``g*`` (:func:`bocvs_env.metrics.target`;
  higher is better). The simple regret measures the best value found against ``g*``; this
  measures the paper's other goal, paying for the cheapest acceptable set.

The mean difference gets a paired percentile-bootstrap interval
(:func:`bocvs_env.benchmark.stats.paired_bootstrap`); the agent wins the panel when the whole
interval lies on the better side of 0 (below it for a lower-is-better figure), loses when it
lies on the worse side, and ties otherwise. Which pairs are compared:
``agent`` and ``reference`` both given, that one pair; only ``agent``, it against every other
agent; only ``reference``, every other agent against it; neither, every pair of agents (the
alphabetically first minus the second).

:func:`compare_versions` compares each agent with itself as run by another code version (e.g.
the runs of an earlier commit, from another store): the other runs are labelled
``<agent>@<commit>`` and every agent is paired with its own other version.
:func:`compare_baselines` compares each agent with every agent of published archives (their
runs labelled ``<agent>@<commit>`` too), on the panels and seeds both ran. A seed fixes the
function instance and the initial design on any machine, so runs of
different commits and machines pair up; bit-identical traces are not expected across kinds of
CPU, which is why each side is checked to be one code version by itself and both are named.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bocvs_env import metrics
from bocvs_env.benchmark.panels import Panel, group_panels
from bocvs_env.benchmark.stats import (
    BOOTSTRAP_SEED,
    LEVEL,
    RESAMPLES,
    VERDICTS,
    PairedInterval,
    paired_bootstrap,
)
from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import short_commit
from bocvs_env.evaluation import EpisodeRecord


@dataclass(frozen=True)
class Metric:
    """A figure of a run that agents are compared on.

    Attributes:
        label: its name in tables.
        value: the figure of a run's record.
        lower_is_better: its direction.
    """

    label: str
    value: Callable[[EpisodeRecord], float]
    lower_is_better: bool = True


def _costliest_share(record: EpisodeRecord) -> float:
    return float(metrics.spend_share(record)[int(np.argmax(record.cost_means))])


def _target_share(record: EpisodeRecord) -> float:
    i_star = metrics.target(record.set_max, record.cost_means).i_star
    return float(metrics.spend_share(record)[i_star])


#: The figures agents are compared on, by name.
METRICS: dict[str, Metric] = {
    "final": Metric("final simple regret", metrics.final_simple_regret),
    "area": Metric("simple-regret area / budget", metrics.simple_regret_area),
    "evaluations": Metric("evaluations", lambda r: float(r.n_evaluations), lower_is_better=False),
    "costliest_share": Metric("spend share on the costliest set", _costliest_share),
    "target_share": Metric("spend share on i*", _target_share, lower_is_better=False),
}


@dataclass(frozen=True)
class PairedComparison:
    """One pair of agents on one panel and one figure.

    Attributes:
        panel: the panel.
        agent: the left side of the difference.
        reference: the right side.
        metric: a key of :data:`METRICS`.
        seeds: the paired seeds.
        interval: the mean of ``agent - reference`` over the pairs and its interval.
        unpaired: agent name -> its seeds without a partner (dropped); empty when none.
    """

    panel: Panel
    agent: str
    reference: str
    metric: str
    seeds: tuple[int, ...]
    interval: PairedInterval
    unpaired: dict[str, tuple[int, ...]]

    def verdict(self) -> str:
        """``"win"``, ``"tie"`` or ``"loss"`` of ``agent`` (see the module docstring)."""
        return self.interval.verdict(METRICS[self.metric].lower_is_better)

    def row(self) -> dict[str, Any]:
        """A flat, JSON-able row (the ``--json``/``--csv`` output)."""
        p, iv = self.panel, self.interval
        return {
            "problem": p.problem,
            "cost_set": p.cost_set,
            "variance": p.variance,
            "budget": p.budget,
            "agent": self.agent,
            "reference": self.reference,
            "metric": self.metric,
            "pairs": iv.n,
            "mean_difference": iv.mean,
            "low": iv.low,
            "high": iv.high,
            "level": iv.level,
            "verdict": self.verdict(),
            "seeds": " ".join(map(str, self.seeds)),
            "unpaired": "; ".join(
                f"{a}: {' '.join(map(str, s))}" for a, s in self.unpaired.items() if s
            ),
        }


def _by_seed(panel: Panel, agent: str, records: list[EpisodeRecord]) -> dict[int, EpisodeRecord]:
    out: dict[int, EpisodeRecord] = {}
    for rec in records:
        seed = int(rec.seed) if rec.seed is not None else -1
        if seed in out:
            raise ValueError(
                f"{panel.title()}: agent {agent!r} has two runs of seed {seed} (different "
                "agent parameters or problem options?); select one configuration to compare"
            )
        out[seed] = rec
    return out


def _pairs(
    agents: Sequence[str], agent: str | None, reference: str | None
) -> list[tuple[str, str]]:
    """The ``(left, right)`` pairs of ``agents`` to compare: ``agent`` against ``reference``,
    against every other agent, every other agent against ``reference``, or (neither given)
    every pair in sorted order; none when ``agent`` or ``reference`` is not among ``agents``."""
    if agent is None and reference is None:
        return list(itertools.combinations(sorted(agents), 2))
    if not {agent, reference} - {None} <= set(agents):
        return []
    lefts, rights = _side(agents, agent, reference), _side(agents, reference, agent)
    return [(left, right) for left in lefts for right in rights]


def _side(agents: Sequence[str], name: str | None, other: str | None) -> list[str]:
    """One side of :func:`_pairs`: ``[name]``, or every agent but ``other`` (order kept)."""
    return [name] if name is not None else [a for a in agents if a != other]


def compare_runs(
    runs: Sequence[StoredRun],
    agent: str | None = None,
    reference: str | None = None,
    metric_names: Sequence[str] = tuple(METRICS),
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> list[PairedComparison]:
    """Paired comparisons of ``runs``, panel by panel (see the module docstring).

    Args:
        runs: the runs (several panels and agents).
        agent: the left side of every difference, or ``None``.
        reference: the right side of every difference, or ``None``.
        metric_names: keys of :data:`METRICS`.
        n_resamples: bootstrap resamples per interval.
        level: the intervals' coverage.
        seed: seeds every interval's resampling (each the same way, so results do not depend on
            the order of panels).

    Returns:
        One comparison per panel, pair of agents and figure, panels in sorted order; empty when
        no panel has the requested agents.

    Raises:
        ValueError: for an unknown metric, an agent or reference no run has, or one agent with
            two runs of a seed in a panel.
    """
    unknown = sorted(set(metric_names) - set(METRICS))
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; expected some of {sorted(METRICS)}")
    present = {r.config.agent for r in runs}
    for role, name in (("agent", agent), ("reference", reference)):
        if name is not None and name not in present:
            raise ValueError(f"{role} {name!r} has no runs here; agents: {sorted(present)}")
    out = []
    for panel, agents in group_panels(runs).items():
        seeded = {a: _by_seed(panel, a, recs) for a, recs in agents.items()}
        for left, right in _pairs(list(agents), agent, reference):
            common = sorted(set(seeded[left]) & set(seeded[right]))
            unpaired = {
                name: tuple(sorted(set(seeded[name]) - set(common))) for name in (left, right)
            }
            for name in metric_names:
                figure = METRICS[name].value
                diffs = [figure(seeded[left][s]) - figure(seeded[right][s]) for s in common]
                interval = paired_bootstrap(diffs, n_resamples, level, seed)
                out.append(
                    PairedComparison(panel, left, right, name, tuple(common), interval, unpaired)
                )
    return out


def compare_versions(
    runs: Sequence[StoredRun],
    others: Sequence[StoredRun],
    tag: str,
    agents: Sequence[str] | None = None,
    metric_names: Sequence[str] = tuple(METRICS),
    n_resamples: int = RESAMPLES,
    level: float = LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> list[PairedComparison]:
    """Each agent of ``runs`` against its own runs in ``others`` (another code version), which
    are labelled ``<agent>@<tag>``: :func:`compare_runs` with that agent and that reference,
    panel by panel, for the agents (of ``agents``, if given) that both sides ran.

    Raises:
        ValueError: when no agent is on both sides.
    """
    mine = {r.config.agent for r in runs}
    theirs = {r.config.agent for r in others}
    names = sorted((mine & theirs) & set(agents if agents is not None else mine))
    if not names:
        raise ValueError(f"no agent is on both sides: here {sorted(mine)}, there {sorted(theirs)}")
    relabelled = [
        replace(r, config=replace(r.config, agent=f"{r.config.agent}@{tag}"))
        for r in others
        if r.config.agent in names
    ]
    both = [*runs, *relabelled]
    return [
        c
        for name in names
        for c in compare_runs(both, name, f"{name}@{tag}", metric_names, n_resamples, level, seed)
    ]


def compare_baselines(
    runs: Sequence[StoredRun],
    baselines: Sequence[Sequence[StoredRun]],
    agent: str | None = None,
    reference: str | None = None,
    **options: Any,
) -> list[PairedComparison]:
    """Every agent of ``runs`` (or ``agent``) against every agent of each baseline archive (or
    ``reference``, a baseline agent's published name): :func:`compare_runs`, panel by panel.

    A baseline agent is labelled ``<agent>@<commit>`` (its archive's code,
    :func:`~bocvs_env.benchmark.versions.short_commit`), so that it never merges with an agent
    of ``runs`` of the same name. A baseline run pairs with a run of ``runs`` of the same panel
    and seed made with the same problem options (noise, initial points); the others are left
    out.

    Args:
        runs: the user's runs.
        baselines: the runs of each archive (each of one code version).
        agent: the user's agent to compare (``None``: each of them).
        reference: the baseline agent to compare with (``None``: each of them).
        **options: :func:`compare_runs`'s ``metric_names``, ``n_resamples``, ``level``,
            ``seed``.

    Raises:
        ValueError: when no panel holds an agent of ``runs`` and a baseline agent.
    """
    names = _agents_to_compare(runs, agent)
    relabelled = _matching_baselines(runs, baselines, reference)
    references = sorted({r.config.agent for r in relabelled})
    both = [*runs, *relabelled]
    out = [  # the archives' seeds that the user did not run are expected, and not listed
        replace(c, unpaired={left: c.unpaired[left]})
        for left in names
        for right in references
        for c in compare_runs(both, left, right, **options)
        if c.seeds
    ]
    if not out:
        raise ValueError(
            f"no panel and seed has runs of {names} and of the baselines"
            + (f" {[reference]}" if reference is not None else "")
            + " with the same problem options: run the baselines' panels and seeds"
        )
    return sorted(out, key=lambda c: c.panel)


def _agents_to_compare(runs: Sequence[StoredRun], agent: str | None) -> list[str]:
    """``[agent]``, or every agent of ``runs`` (sorted) when it is ``None``.

    Raises:
        ValueError: if ``agent`` has no runs in ``runs``.
    """
    present = sorted({r.config.agent for r in runs})
    if agent is not None and agent not in present:
        raise ValueError(f"agent {agent!r} has no runs here; agents: {present}")
    return [agent] if agent is not None else present


def _matching_baselines(
    runs: Sequence[StoredRun], baselines: Sequence[Sequence[StoredRun]], reference: str | None
) -> list[StoredRun]:
    """The runs of the archives ``baselines`` (of the agent ``reference`` only, if given),
    relabelled by :func:`as_baselines`, whose panel and problem options some run of ``runs``
    has."""
    settings = {(Panel.of(r), _options(r)) for r in runs}
    wanted = [r for archive in baselines for r in archive if reference in (None, r.config.agent)]
    return [r for r in as_baselines(wanted) if (Panel.of(r), _options(r)) in settings]


def as_baselines(runs: Sequence[StoredRun]) -> list[StoredRun]:
    """``runs`` with each agent named ``<agent>@<commit>``, its code's commit
    (:func:`~bocvs_env.benchmark.versions.short_commit`): the agents of a baseline archive,
    kept apart from the user's agents of the same name."""
    return [
        replace(r, config=replace(r.config, agent=f"{r.config.agent}@{short_commit(r.provenance)}"))
        for r in runs
    ]


def _options(run: StoredRun) -> str:
    """A run's problem options as a canonical string (runs pair only with equal options)."""
    return json.dumps(dict(run.config.problem_options), sort_keys=True)


def tally(comparisons: Sequence[PairedComparison]) -> dict[tuple[str, str, str], Counter[str]]:
    """``(agent, reference, metric)`` -> counts of ``win``/``tie``/``loss`` over panels."""
    counts: dict[tuple[str, str, str], Counter[str]] = {}
    for c in comparisons:
        counts.setdefault((c.agent, c.reference, c.metric), Counter())[c.verdict()] += 1
    return counts


def counted(n: int, noun: str) -> str:
    """``"1 panel"``, ``"3 panels"``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _fmt(x: float) -> str:
    return "–" if x != x else f"{x:.3g}"  # NaN: no value


def _cell(c: PairedComparison) -> str:
    iv = c.interval
    return f"{_fmt(iv.mean)} [{_fmt(iv.low)}, {_fmt(iv.high)}] **{c.verdict()}**"


def wtl(counter: Counter[str]) -> str:
    """``"W / T / L"`` of a :func:`tally` entry."""
    return " / ".join(str(counter[v]) for v in VERDICTS)


def _panel_section(
    panel: Panel, pairs: dict[tuple[str, str], dict[str, PairedComparison]], head: list[str]
) -> str:
    names = list(next(iter(pairs.values())))
    lines = [f"### {panel.title()}", "", "| " + " | ".join(head) + " |"]
    lines.append("| --- | --- | ---: |" + " ---: |" * len(names))
    notes = []
    for (left, right), by_metric in pairs.items():
        first = next(iter(by_metric.values()))
        row = [left, right, str(first.interval.n), *(_cell(by_metric[m]) for m in names)]
        lines.append("| " + " | ".join(row) + " |")
        notes += [
            f"- {a}'s seeds {', '.join(map(str, s))} have no {right if a == left else left}"
            " run here and were dropped."
            for a, s in first.unpaired.items()
            if s
        ]
    return "\n".join(lines + (["", *notes] if notes else []))


def _better_side(names: list[str]) -> str:
    """Which side of 0 is better, in words, for the figures ``names``."""
    higher = [METRICS[m].label for m in names if not METRICS[m].lower_is_better]
    if not higher:
        return "below it"
    if len(higher) == len(names):
        return "above it"
    return "below it, above it for " + " and ".join(higher)


def _tally_section(comparisons: Sequence[PairedComparison], names: list[str], n_panels: int) -> str:
    counts = tally(comparisons)
    level = comparisons[0].interval.level
    lines = [
        f"### Win / tie / loss over {counted(n_panels, 'panel')}",
        "",
        f"The agent's figure minus the reference's; a win when the paired {level:.0%} interval "
        f"lies on the better side of 0 ({_better_side(names)}), a loss when on the worse side, "
        "a tie when it contains 0.",
        "",
        "| agent | reference | "
        + " | ".join(f"{METRICS[m].label} W / T / L" for m in names)
        + " |",
        "| --- | --- |" + " ---: |" * len(names),
    ]
    for left, right in dict.fromkeys((c.agent, c.reference) for c in comparisons):
        cells = [wtl(counts[(left, right, m)]) for m in names]
        lines.append(f"| {left} | {right} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def comparison_markdown(comparisons: Sequence[PairedComparison]) -> str:
    """Per panel a table of the paired differences, then the win / tie / loss tally.

    Raises:
        ValueError: if there is nothing to show.
    """
    if not comparisons:
        raise ValueError("no panel has the agents to compare")
    names = list(dict.fromkeys(c.metric for c in comparisons))
    level = comparisons[0].interval.level
    head = ["agent", "reference", "pairs"] + [
        f"{METRICS[m].label}: mean difference [{level:.0%} interval]" for m in names
    ]
    by_panel: dict[Panel, dict[tuple[str, str], dict[str, PairedComparison]]] = {}
    for c in comparisons:
        by_panel.setdefault(c.panel, {}).setdefault((c.agent, c.reference), {})[c.metric] = c
    parts = [_panel_section(panel, pairs, head) for panel, pairs in by_panel.items()]
    parts.append(_tally_section(comparisons, names, len(by_panel)))
    return "\n\n".join(parts) + "\n"
