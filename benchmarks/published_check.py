"""What a reader's checks of a published folder cost: the median time of the manifest's check
(sizes and SHA-256 of the files, row counts), of every run's steps against its row, and of
``bocvs status --data FOLDER`` end to end (a fresh process, imports included), which runs both.
Prints a markdown table.

Run: ``python benchmarks/published_check.py [--data docs/data] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bocvs_env.benchmark.manifest import check_manifest, check_steps


def _median_seconds(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("docs/data"))
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    status = [sys.executable, "-m", "bocvs_env.benchmark", "status", "--data", str(args.data)]
    rows = {
        "manifest (sizes, SHA-256, row counts)": lambda: check_manifest(args.data),
        "steps against rows": lambda: check_steps(args.data),
        "`bocvs status --data` (a new process)": lambda: subprocess.run(
            status, check=True, capture_output=True
        ),
    }
    print(f"| check of {args.data} | median of {args.repeats}, s |\n| --- | --- |")
    for name, work in rows.items():
        print(f"| {name} | {_median_seconds(work, args.repeats):.3f} |")


if __name__ == "__main__":
    main()
