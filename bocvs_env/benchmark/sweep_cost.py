"""The cost of a sweep: measured, and estimated at the reference implementations' speed.

Running the whole ``paper`` preset at the references' speed would take days, so the "before"
figure is an estimate: every round of an agent with a reference code (:data:`WITH_REFERENCE`)
is charged one reference-style decision (:mod:`bocvs_env.benchmark.reference_decision`: the
7-set UCB maximization) at the number of observations it had then, timed by interpolating, in log-log,
the reference decisions measured by ``benchmarks/decisions.py`` (constant below the smallest
measured size, the last measured slope above the largest). A model-free agent is charged its
measured CPU time (its wall time if it recorded none, or NaN). The other agents (this project's FETC
and ETC variants, SADCBO, cost-cooled EI) have no reference that this timing model stands for:
their estimate is NaN. The "after" figure is each run's measured wall time (``wall_s`` in the
store's provenance), summed; beside it the runs' CPU time (``cpu_s``), which a loaded machine
does not inflate (NaN if a run predates it). :func:`cost_markdown` is the page of the
``paper`` preset's cost (``docs/paper/cost.md``) that ``bocvs cost`` prints
(:mod:`bocvs_env.benchmark.report_commands`).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from bocvs_env.benchmark.store import StoredRun
from bocvs_env.benchmark.versions import versions_line
from bocvs_env.checks import positive_integer

#: Agents that make no model-based decision (charged their measured time).
MODEL_FREE = frozenset({"random"})
#: Agents whose reference codes decide by the UCB maximization that
#: :mod:`bocvs_env.benchmark.reference_decision` reproduces: ETC and ETC-50 (Hoang et al.
#: 2025), UCB-PSQ and TS-PSQ (Hayashi et al. 2022), UCB-CVS (Tay et al. 2023).
WITH_REFERENCE = frozenset({"etc", "etc-50", "ucb-psq", "ts-psq", "ucb-cvs", "ucb-cvs-est"})


def reference_times(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Median reference decision time (s) by size, from ``decisions.py`` JSON reports.

    Every ``decisions`` entry and every ``*_rerun``-style entry with ``n`` and ``rows`` counts; a
    size measured more than once gets the median of its medians.

    Returns:
        Sizes ``n`` (ascending) and seconds, each of shape ``(k,)``.
    """
    by_n: dict[int, list[float]] = defaultdict(list)
    for path in paths:
        report = json.loads(path.read_text())
        entries = list(report.get("decisions", []))
        entries += [v for v in report.values() if isinstance(v, dict) and "rows" in v and "n" in v]
        for entry in entries:
            for row in entry["rows"]:
                if row["method"] == "reference":
                    by_n[int(entry["n"])].append(float(row["median_s"]))
    if len(by_n) < 2:
        raise ValueError(f"need reference timings at two sizes at least, got {sorted(by_n)}")
    sizes = np.array(sorted(by_n), dtype=float)
    return sizes, np.array([float(np.median(by_n[int(n)])) for n in sizes])


def reference_seconds(n: np.ndarray, sizes: np.ndarray, seconds: np.ndarray) -> np.ndarray:
    """Interpolated reference decision time (s) at ``n`` observations (any shape)."""
    logn = np.log(np.maximum(n, sizes[0]))
    logs, logt = np.log(sizes), np.log(seconds)
    slope = (logt[-1] - logt[-2]) / (logs[-1] - logs[-2])
    inside = np.interp(logn, logs, logt)
    beyond = logt[-1] + slope * (logn - logs[-1])
    return np.exp(np.where(logn > logs[-1], beyond, inside))


def sweep_cost(
    runs: Sequence[StoredRun], sizes: np.ndarray, seconds: np.ndarray
) -> dict[str, dict[str, float]]:
    """Per agent: runs, evaluated rounds, measured seconds (``after_s``, the runs' ``wall_s``;
    ``cpu_s``, their CPU time, NaN if a run did not record it) and estimated seconds at the
    references' speed (``before_s``; NaN for an agent in neither :data:`MODEL_FREE` nor
    :data:`WITH_REFERENCE`), summed over the runs."""
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for run in runs:
        agent = run.config.agent
        wall = float(run.provenance["wall_s"])
        n0 = int(run.config.problem_options.get("n_initial", 0))
        rounds = len(run.record.y)
        n = n0 + np.arange(rounds)
        cpu_s = run.provenance.get("cpu_s")
        cpu = np.nan if cpu_s is None else float(cpu_s)
        if agent in MODEL_FREE:
            before = cpu if np.isfinite(cpu) else wall
        elif agent in WITH_REFERENCE:
            before = float(reference_seconds(n, sizes, seconds).sum())
        else:
            before = np.nan
        row = rows[agent]
        row["runs"] += 1
        row["rounds"] += rounds
        row["after_s"] += wall
        row["cpu_s"] += cpu
        row["before_s"] += before
    return {agent: dict(row) for agent, row in rows.items()}


def cost_markdown(
    runs: Sequence[StoredRun],
    sizes: np.ndarray,
    seconds: np.ndarray,
    source: str,
    workers: int = 2,
) -> str:
    """The page of a sweep's cost: the reference decision times, the runs' code version, per
    agent the measured wall and CPU hours beside the estimate at the references' speed
    (:func:`sweep_cost`), their totals, and the wall time on ``workers`` parallel workers.

    Args:
        runs: the sweep's runs.
        sizes, seconds: the reference decision times, as :func:`reference_times` returns them.
        source: the line naming the runs, e.g. ``"sweep 'grid': 1000 runs in docs/data"``.
        workers: parallel workers for the wall time.

    Raises:
        ValueError: if ``workers`` is not a positive integer.
    """
    positive_integer(workers, "workers")
    rows = sweep_cost(runs, sizes, seconds)
    timings = dict(zip(sizes.astype(int).tolist(), seconds.round(2).tolist(), strict=True))
    lines = [f"reference decision times (s) by n: {timings}", source, versions_line(runs), ""]
    lines += [
        "| agent | runs | rounds | measured wall h | measured CPU h | estimated CPU h at the "
        "references' speed | ratio of the CPU times |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [_row(agent, rows[agent]) for agent in sorted(rows)]
    estimated = [a for a in sorted(rows) if not math.isnan(rows[a]["before_s"])]
    total = _total(rows.values())
    lines.append(_row("all", total))  # no estimate if an agent has none
    if len(estimated) < len(rows):
        if estimated:
            total = _total(rows[a] for a in estimated)
            lines.append(_row(f"all with an estimate ({', '.join(estimated)})", total))
        lines += ["", "—: no estimate (no reference code that the timing model stands for; see "
                  "bocvs_env/benchmark/sweep_cost.py)"]  # fmt: skip
    if estimated:
        of = "" if len(estimated) == len(rows) else " of the agents with an estimate"
        lines += ["", f"wall time on {workers} workers{of}: measured "
                  f"{total['after_s'] / workers / 3600:.2f} h, estimated at the references' "
                  f"speed {total['before_s'] / workers / 3600:.1f} h "
                  f"({total['before_s'] / workers / 86400:.1f} days)"]  # fmt: skip
    return "\n".join(lines) + "\n"


def _total(rows: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """The sums of :func:`sweep_cost`'s figures over ``rows``."""
    total: dict[str, float] = defaultdict(float)
    for r in rows:
        for k, v in r.items():
            total[k] += v
    return total


def _row(name: str, r: Mapping[str, float]) -> str:
    """A table row; NaN figures (no CPU time recorded, no estimate) as a dash. The ratio is
    the estimated CPU time over the measured one (not the wall time, which a loaded machine
    inflates)."""

    def hours(seconds: float, digits: int) -> str:
        return "—" if math.isnan(seconds) else f"{seconds / 3600:.{digits}f}"

    ratio = r["before_s"] / r["cpu_s"]
    ratio_text = "—" if math.isnan(ratio) else f"{ratio:.0f}"
    return (f"| {name} | {r['runs']:.0f} | {r['rounds']:.0f} | {hours(r['after_s'], 2)} | "
            f"{hours(r['cpu_s'], 2)} | {hours(r['before_s'], 1)} | {ratio_text} |")  # fmt: skip
