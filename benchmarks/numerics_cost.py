"""What ``reproducible`` numerics cost against ``fast``: the same runs in both modes, side by
side in one invocation and interleaved (the mode that goes first alternates per run and
repeat), each a ``bocvs run`` with one worker (one thread), timed by the runs' own provenance
(``wall_s`` and ``cpu_s``: the episode, not the process start or the setting's oracle).

The grid's heaviest runs are ETC and TS-PSQ on airfoil and hartmann6_12d at budget 100; on a
shared machine ``--budget`` can be smaller (the episodes are shorter, the ratio is of the same
kernels). Prints per run the times in each mode and their ratio, and per agent the geometric
mean of the ratios.

Run: ``BOCVS_DATA_DIR=... python benchmarks/numerics_cost.py --budget 100`` (``--budget 30``
took about 25 minutes on two busy cores).
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bocvs_env.benchmark.store import ResultStore

MODES = ("fast", "reproducible")


def timed_run(problem: str, agent: str, mode: str, budget: float, store: Path) -> dict[str, float]:
    """One run through the CLI in ``mode``; its ``wall_s`` and ``cpu_s``."""
    cmd = [sys.executable, "-m", "bocvs_env.benchmark", "run", "--problems", problem]
    cmd += ["--agents", agent, "--budgets", str(budget), "--seeds", "1", "--cost-sets", "cheap"]
    cmd += ["--variances", "0.02"]
    cmd += ["--store", str(store), "--workers", "1", "--numerics", mode, "--no-plot", "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=os.environ)
    with ResultStore(store, readonly=True) as s:
        (run,) = s.runs()
    return {k: float(run.provenance[k]) for k in ("wall_s", "cpu_s")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", default=["airfoil", "hartmann6_12d"])
    parser.add_argument("--agents", nargs="+", default=["etc", "ts-psq"])
    parser.add_argument("--budget", type=float, default=100.0)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print("| problem | agent | repeat | wall fast (s) | wall reproducible (s) | ratio "
          "| CPU fast (s) | CPU reproducible (s) | ratio |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rep, (i, (problem, agent)) in itertools.product(
            range(args.repeats), enumerate(itertools.product(args.problems, args.agents))
        ):
            order = MODES if (rep + i) % 2 == 0 else MODES[::-1]
            times = {
                mode: timed_run(
                    problem, agent, mode, args.budget, Path(tmp) / f"{mode}-{rep}-{i}.db"
                )
                for mode in order
            }
            rows.append((problem, agent, rep, times))
            fast, repro = times["fast"], times["reproducible"]
            print(
                f"| {problem} | {agent} | {rep} | {fast['wall_s']:.1f} | {repro['wall_s']:.1f} "
                f"| {repro['wall_s'] / fast['wall_s']:.2f} | {fast['cpu_s']:.1f} "
                f"| {repro['cpu_s']:.1f} | {repro['cpu_s'] / fast['cpu_s']:.2f} |",
                flush=True,
            )
    print("\n| agent | wall ratio (geometric mean) | CPU ratio (geometric mean) |")
    print("| --- | ---: | ---: |")
    for agent in args.agents:
        for_agent = [t for _, a, _, t in rows if a == agent]
        ratios = {
            k: np.exp(np.mean([np.log(t["reproducible"][k] / t["fast"][k]) for t in for_agent]))
            for k in ("wall_s", "cpu_s")
        }
        print(f"| {agent} | {ratios['wall_s']:.2f} | {ratios['cpu_s']:.2f} |")


if __name__ == "__main__":
    main()
