"""What reopening an experiment's journal costs: ``Experiment.open`` and the next ``ask`` after
50, 200 and 500 tells, in CPU seconds, beside one decision of the agent at that size.

Reopening rebuilds the agent and loads the state it kept after the last tell, or, for an agent
that keeps none, replays every journaled ask and tell (:mod:`bocvs_env.experiment.resume`); the
issue's aim is one decision plus a second at 200 tells. Each journal is built by the simulated
operator on a built-in problem (Hartmann-6 in 12-D, a budget no size reaches); "one decision"
is the CPU time of the live ``ask`` after the last tell, "open + ask" that of reopening the
journal and asking again (the pending suggestion, replayed), and "build" that of the tells
(the agents' decisions and, for agents with a state, saving it after each tell). Prints a
markdown table; ``--out`` also writes the rows as JSON with the code version
(:func:`bocvs_env.benchmark.versions.this_version`).

Run: ``OMP_NUM_THREADS=1 python benchmarks/experiment_resume.py --agents etc random``
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bocvs_env.benchmark.atomic import write_file
from bocvs_env.experiment import Experiment
from bocvs_env.experiment.operator import simulate_builtin


def measure(agent: str, tells: int, folder: Path, problem: str = "hartmann6_12d") -> dict[str, Any]:
    """Build a journal of ``tells`` answers; return the CPU seconds of building it, of one
    decision after it and of reopening it and asking, how the agent was restored, and the
    journal's size in bytes."""
    journal = folder / f"{agent}-{tells}.journal"
    start = time.process_time()
    with Experiment.create(journal, problem, agent, seed=0, options={"budget": 1e4}) as exp:
        simulate_builtin(exp, max_tells=tells)
        built = time.process_time() - start
        start = time.process_time()
        exp.ask()
        decision = time.process_time() - start
    start = time.process_time()
    with Experiment.open(journal) as exp:
        exp.ask()
        resumed_by = exp.resumed_by
    reopened = time.process_time() - start
    return {"agent": agent, "tells": tells, "build_cpu_s": built, "decision_cpu_s": decision,
            "open_ask_cpu_s": reopened, "resumed_by": resumed_by,
            "journal_bytes": journal.stat().st_size}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=["etc", "ucb-psq", "ts-psq", "random"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[50, 200, 500])
    parser.add_argument("--out", type=Path, help="also write the rows here, as JSON")
    args = parser.parse_args()
    version = None
    if args.out is not None:  # the code measured, before anything can change it
        from bocvs_env.benchmark.versions import this_version

        version = this_version()
    print("| agent | tells | resumed by | build (CPU s) | one decision (CPU s) | "
          "open + ask (CPU s) | open + ask - decision |")  # fmt: skip
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for agent in args.agents:
            for tells in args.sizes:
                row = measure(agent, tells, Path(folder))
                rows.append(row)
                extra = row["open_ask_cpu_s"] - row["decision_cpu_s"]
                print(f"| {agent} | {tells} | {row['resumed_by']} | {row['build_cpu_s']:.2f} | "
                      f"{row['decision_cpu_s']:.3f} | {row['open_ask_cpu_s']:.2f} | "
                      f"{extra:.2f} |", flush=True)  # fmt: skip
    if args.out is not None:
        result = {"measured": __doc__.split("\n\n")[0], "code_version": version,
                  "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "rows": rows}  # fmt: skip
        write_file(args.out, lambda tmp: tmp.write_text(json.dumps(result, indent=1) + "\n"))


if __name__ == "__main__":
    main()
