"""The `paper` preset's cost: measured with the agents of this project, estimated at the
reference implementations' speed.

Running the whole preset at the references' speed would take days, so the "before" figure is an
estimate: every round of a model-based agent is charged one reference-style decision (the 7-set
UCB maximization of ``benchmarks/reference.py``) at the number of observations it had then,
timed by interpolating, in log-log, the reference decisions measured by ``decisions.py``
(constant below the smallest measured size, the last measured slope above the largest). A random
agent is charged its measured time. The "after" figure is each run's measured wall time
(``wall_s`` in the store's provenance), summed.

    python benchmarks/paper_cost.py --store results/paper/bocvs.db \
        --reference benchmarks/results/decisions.json [--workers 2]
    python benchmarks/paper_cost.py --data docs/data --reference benchmarks/results/decisions.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bocvs_env.benchmark.published import open_runs  # noqa: E402
from bocvs_env.benchmark.store import StoredRun  # noqa: E402

#: Agents that make no model-based decision (charged their measured time).
MODEL_FREE = {"random"}


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
    runs: list[StoredRun], sizes: np.ndarray, seconds: np.ndarray
) -> dict[str, dict[str, float]]:
    """Per agent: runs, evaluated rounds, measured seconds (``after_s``, the runs' ``wall_s``)
    and estimated seconds at the references' speed (``before_s``), summed over the runs."""
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for run in runs:
        agent = run.config.agent
        wall = float(run.provenance["wall_s"])
        n0 = int(run.config.problem_options.get("n_initial", 0))
        rounds = len(run.record.y)
        n = n0 + np.arange(rounds)
        before = wall if agent in MODEL_FREE else float(reference_seconds(n, sizes, seconds).sum())
        row = rows[agent]
        row["runs"] += 1
        row["rounds"] += rounds
        row["after_s"] += wall
        row["before_s"] += before
    return {agent: dict(row) for agent, row in rows.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--store", type=Path, help="a result store")
    source.add_argument("--data", type=Path, help="a folder written by bocvs publish")
    p.add_argument("--sweep", default="paper")
    p.add_argument("--reference", type=Path, nargs="+", required=True)
    p.add_argument("--workers", type=int, default=2, help="parallel workers for the wall time")
    args = p.parse_args()
    sizes, seconds = reference_times(args.reference)
    with open_runs(args.store or args.data) as store:
        runs = [r for r in store.runs() if r.sweep == args.sweep]
    rows = sweep_cost(runs, sizes, seconds)
    timings = dict(zip(sizes.astype(int).tolist(), seconds.round(2).tolist(), strict=True))
    print(f"reference decision times (s) by n: {timings}")
    print(f"sweep {args.sweep!r}: {len(runs)} runs in {args.store or args.data}\n")
    print(
        "| agent | runs | rounds | measured CPU h | estimated CPU h at the references' speed | ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    total: dict[str, float] = defaultdict(float)
    for agent in sorted(rows):
        r = rows[agent]
        for k, v in r.items():
            total[k] += v
        print(f"| {agent} | {r['runs']:.0f} | {r['rounds']:.0f} | {r['after_s'] / 3600:.2f} | "
              f"{r['before_s'] / 3600:.1f} | {r['before_s'] / r['after_s']:.0f} |")  # fmt: skip
    print(f"| all | {total['runs']:.0f} | {total['rounds']:.0f} | {total['after_s'] / 3600:.2f} | "
          f"{total['before_s'] / 3600:.1f} | {total['before_s'] / total['after_s']:.0f} |")  # fmt: skip
    w = args.workers
    print(f"\nwall time on {w} workers: measured {total['after_s'] / w / 3600:.2f} h, "
          f"estimated at the references' speed {total['before_s'] / w / 3600:.1f} h "
          f"({total['before_s'] / w / 86400:.1f} days)")  # fmt: skip


if __name__ == "__main__":
    main()
