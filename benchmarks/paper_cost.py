"""The `paper` preset's cost: measured with the agents of this project, estimated at the
reference implementations' speed.

Each round of a model-based agent is charged one reference-style decision at the number of
observations it had then (the timing model: ``bocvs_env.benchmark.cost_estimate``); the
measured figures are the runs' wall time and their CPU time (``cpu_s``, for runs that recorded it).

It refuses runs of several code versions unless given ``--allow-mixed-versions``.

    python benchmarks/paper_cost.py --store results/grid/bocvs.db --sweep grid \
        --reference benchmarks/results/decisions.json [--workers 2]
    python benchmarks/paper_cost.py --data docs/data --sweep grid \
        --reference benchmarks/results/decisions.json
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from bocvs_env.benchmark.cost_estimate import reference_times, sweep_cost
from bocvs_env.benchmark.published import add_source_arguments, script_runs


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
    print(f"sweep {args.sweep!r}: {len(runs)} runs in {args.store or args.data}\n")
    print(
        "| agent | runs | rounds | measured wall h | measured CPU h | estimated CPU h at the "
        "references' speed | ratio |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    total: dict[str, float] = defaultdict(float)
    for agent in sorted(rows):
        r = rows[agent]
        for k, v in r.items():
            total[k] += v
        print(f"| {agent} | {r['runs']:.0f} | {r['rounds']:.0f} | {r['after_s'] / 3600:.2f} | "
              f"{r['cpu_s'] / 3600:.2f} | {r['before_s'] / 3600:.1f} | "
              f"{r['before_s'] / r['after_s']:.0f} |")  # fmt: skip
    print(f"| all | {total['runs']:.0f} | {total['rounds']:.0f} | {total['after_s'] / 3600:.2f} | "
          f"{total['cpu_s'] / 3600:.2f} | {total['before_s'] / 3600:.1f} | "
          f"{total['before_s'] / total['after_s']:.0f} |")  # fmt: skip
    w = args.workers
    print(f"\nwall time on {w} workers: measured {total['after_s'] / w / 3600:.2f} h, "
          f"estimated at the references' speed {total['before_s'] / w / 3600:.1f} h "
          f"({total['before_s'] / w / 86400:.1f} days)")  # fmt: skip


if __name__ == "__main__":
    main()
