"""The `paper` preset's cost: measured with the agents of this project, estimated at the
reference implementations' speed.

Each round of a model-based agent is charged one reference-style decision at the number of
observations it had then (the timing model: ``benchmarks/cost_estimate.py``); the
measured figures are the runs' wall time and their CPU time (``cpu_s``, for runs that recorded it).

It refuses runs of several code versions unless given ``--allow-mixed-versions``.

    python benchmarks/paper_cost.py --store results/grid/bocvs.db --sweep grid \
        --reference benchmarks/results/decisions.json [--workers 2]
    python benchmarks/paper_cost.py --data docs/data --sweep grid \
        --reference benchmarks/results/decisions.json
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

from cost_estimate import reference_times, sweep_cost

from bocvs_env.benchmark.report_scripts import add_source_arguments, script_runs
from bocvs_env.benchmark.versions import versions_line


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_source_arguments(p)
    p.add_argument("--reference", type=Path, nargs="+", required=True)
    p.add_argument("--workers", type=int, default=2, help="parallel workers for the wall time")
    args = p.parse_args()
    try:  # no such reference, store, folder or sweep; mixed versions
        sizes, seconds = reference_times(args.reference)
        runs = script_runs(args)
    except (OSError, ValueError) as err:
        sys.exit(f"paper_cost: error: {err}")
    rows = sweep_cost(runs, sizes, seconds)
    timings = dict(zip(sizes.astype(int).tolist(), seconds.round(2).tolist(), strict=True))
    print(f"reference decision times (s) by n: {timings}")
    print(f"sweep {args.sweep!r}: {len(runs)} runs in {args.store or args.data}")
    print(versions_line(runs) + "\n")
    print(
        "| agent | runs | rounds | measured wall h | measured CPU h | estimated CPU h at the "
        "references' speed | ratio of the CPU times |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for agent in sorted(rows):
        print(_row(agent, rows[agent]))
    estimated = [a for a in sorted(rows) if not math.isnan(rows[a]["before_s"])]
    total = _total(rows.values())
    print(_row("all", total))  # no estimate if an agent has none
    if len(estimated) < len(rows):
        if estimated:
            total = _total(rows[a] for a in estimated)
            print(_row(f"all with an estimate ({', '.join(estimated)})", total))
        print("\n—: no estimate (no reference code that the timing model stands for; see "
              "benchmarks/cost_estimate.py)")  # fmt: skip
    w = args.workers
    if estimated:
        of = "" if len(estimated) == len(rows) else " of the agents with an estimate"
        print(f"\nwall time on {w} workers{of}: measured {total['after_s'] / w / 3600:.2f} h, "
              f"estimated at the references' speed {total['before_s'] / w / 3600:.1f} h "
              f"({total['before_s'] / w / 86400:.1f} days)")  # fmt: skip


def _total(rows: Iterable[dict[str, float]]) -> dict[str, float]:
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


if __name__ == "__main__":
    main()
