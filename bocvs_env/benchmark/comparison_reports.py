"""The paired reports of ``bocvs compare`` and ``bocvs leaderboard`` as markdown: agents against
a reference or one another (:func:`store_comparison`), each agent against its own runs in another
store (``--against``), every agent against the agents of published folders read in place
(:func:`baselines_comparison`, ``--baselines``), and the leaderboard with those folders' agents
as baselines (:func:`leaderboard_page`). Each says which code version each side is
(:mod:`bocvs_env.benchmark.versions`)."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bocvs_env.benchmark.compare import (
    PairedComparison,
    as_baselines,
    compare_baselines,
    compare_runs,
    compare_versions,
    comparison_markdown,
)
from bocvs_env.benchmark.leaderboard import (
    by_agent_name,
    leaderboard,
    leaderboard_markdown,
    save_profile_figure,
)
from bocvs_env.benchmark.panels import Panel
from bocvs_env.benchmark.run_sources import baseline_runs, open_runs
from bocvs_env.benchmark.stats import BOOTSTRAP_SEED, LEVEL, RESAMPLES
from bocvs_env.benchmark.stored_run import StoredRun
from bocvs_env.benchmark.versions import (
    check_one_version,
    short_commit,
    sides_line,
    versions_line,
)

#: The sweep of a published folder whose agents a comparison with the folder pairs with by
#: default: the paper's grid, whose agents are the paper's and its peers' (a folder's other
#: agents are ablation variants of these, :attr:`Pairing.with_variants`).
GRID_SWEEP = "grid"

#: Said under a comparison with the grid's agents only.
GRID_NOTE = (
    f"The baselines are the agents of each folder's `{GRID_SWEEP}` sweep (every agent of a "
    "folder without one); `--with-variants` pairs with all of a folder's agents, its ablation "
    "variants included."
)

#: How runs of two code versions pair up, said under a comparison with published baselines.
PAIRING_NOTE = (
    "Runs pair by panel and seed: a seed fixes the function instance and the initial design on "
    "any machine, so runs of different commits and machines pair up validly; bit-identical "
    "traces are not expected across kinds of CPU. The baselines' seeds that your runs lack are left "
    "out."
)


@dataclass(frozen=True)
class Pairing:
    """Which agents a paired comparison sets against which, and its bootstrap.

    Attributes:
        agent: compare this agent against the others (``None``: every agent).
        reference: compare the others against this agent (``None``: every pair).
        metrics: the figures compared (:data:`~bocvs_env.benchmark.compare.METRICS`' names).
        resamples, level, bootstrap_seed: the percentile bootstrap's resamples, coverage and
            seed (:mod:`bocvs_env.benchmark.stats`).
        with_variants: pair with every agent of a published folder, not only those of its
            :data:`GRID_SWEEP` (a ``reference`` is paired with either way).
    """

    agent: str | None = None
    reference: str | None = None
    metrics: Sequence[str] = ("final", "area")
    resamples: int = RESAMPLES
    level: float = LEVEL
    bootstrap_seed: int = BOOTSTRAP_SEED
    with_variants: bool = False


def baselines_comparison(
    runs: Sequence[StoredRun],
    folders: Sequence[Path],
    allow_mixed: bool,
    pairing: Pairing = Pairing(),
) -> tuple[str, list[PairedComparison]]:
    """The agents of ``runs`` against the agents of the published ``folders`` (read in place,
    on the panels of ``runs`` only): those of each folder's :data:`GRID_SWEEP` (every agent of
    a folder that records none), every agent with ``pairing.with_variants``, or
    ``pairing.reference``; the markdown report and its comparisons."""
    p = pairing
    panels = {Panel.of(r) for r in runs}
    agents = None if p.reference is None else [p.reference]
    of_sweep = None if p.with_variants else GRID_SWEEP
    archives = [baseline_runs(f, panels, agents, allow_mixed, of_sweep) for f in folders]
    comparisons = compare_baselines(runs, archives, p.agent, p.reference, metric_names=p.metrics,
                                    n_resamples=p.resamples, level=p.level,
                                    seed=p.bootstrap_seed)  # fmt: skip
    theirs = [r for archive in archives for r in archive]
    head = sides_line(runs, theirs) + "\n\n" + PAIRING_NOTE + "\n\n"
    if of_sweep is not None and p.reference is None:
        head += GRID_NOTE + "\n\n"
    return head + comparison_markdown(comparisons), comparisons


def store_comparison(
    runs: Sequence[StoredRun],
    against: Path | None,
    allow_mixed: bool,
    pairing: Pairing = Pairing(),
) -> tuple[str, list[PairedComparison]]:
    """The agents of ``runs`` against ``pairing.reference`` (or one another), or, with
    ``against`` (a store or published folder), each against its own runs there: the markdown
    report and its comparisons.

    Raises:
        ValueError: ``against`` with a reference; runs of ``against`` of several versions
            (unless ``allow_mixed``).
    """
    p = pairing
    others: list[StoredRun] = []
    if against is None:
        comparisons = compare_runs(runs, p.agent, p.reference, p.metrics, p.resamples, p.level,
                                   p.bootstrap_seed)  # fmt: skip
    else:
        if p.reference is not None:
            raise ValueError("--against compares each agent with itself; leave out --reference")
        others = _own_runs(against, runs, allow_mixed)
        tag = short_commit(others[0].provenance) if others else "other"
        agents = None if p.agent is None else [p.agent]
        comparisons = compare_versions(runs, others, tag, agents, p.metrics, p.resamples,
                                       p.level, p.bootstrap_seed)  # fmt: skip
    text = versions_line([*runs, *others]) + "\n\n"
    return text + comparison_markdown(comparisons), comparisons


def _own_runs(path: Path, runs: Sequence[StoredRun], allow_mixed: bool) -> list[StoredRun]:
    """The runs at ``path`` of the agents in ``runs``, of one code version."""
    with open_runs(path) as source:
        names = {r.config.agent for r in runs}
        others = [r for r in source.runs(None) if r.config.agent in names]
    check_one_version([r.provenance for r in others], allow_mixed)
    return others


def write_rows(
    comparisons: Sequence[PairedComparison], json_path: Path | None, csv_path: Path | None
) -> None:
    """The comparisons' rows (:meth:`~bocvs_env.benchmark.compare.PairedComparison.row`) into
    ``json_path`` and ``csv_path``, where given."""
    rows = [c.row() for c in comparisons]
    if json_path is not None:
        json_path.write_text(json.dumps(rows, indent=1) + "\n")
    if csv_path is not None:
        with csv_path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def leaderboard_page(
    runs: Sequence[StoredRun],
    folders: Sequence[Path],
    allow_mixed: bool,
    figure: Path | None = None,
    page: Path | None = None,
) -> str:
    """The leaderboard of ``runs`` as markdown, ranked with the agents of the published
    ``folders`` as baselines (read in place, on the panels of ``runs``; none: no baselines);
    with ``figure``, the data profiles written there as a PNG and linked relative to the folder
    of ``page`` (the page's file, ``None``: the working directory)."""
    ranked = by_agent_name(list(runs))
    head = versions_line(ranked)
    baselines = None
    if folders:
        panels = {Panel.of(r) for r in ranked}
        archive = [r for f in folders for r in baseline_runs(f, panels, None, allow_mixed)]
        theirs = as_baselines(archive)
        baselines = sorted({r.config.agent for r in theirs})
        head = sides_line(ranked, archive) + "\n\n" + PAIRING_NOTE
        ranked = [*ranked, *theirs]
    groups = leaderboard(ranked, baselines)
    link = None
    if figure is not None:
        save_profile_figure(groups, figure)
        where = page.parent if page is not None else Path.cwd()
        link = os.path.relpath(figure, where)
    return leaderboard_markdown(groups, head, link, baselines is not None)
