"""What reopening an experiment's journal costs: ``Experiment.open`` and the next ``ask`` after
50, 200 and 500 tells, in CPU seconds, beside one decision of the agent at that size.

Reopening rebuilds the agent and replays every journaled ask and tell
(:mod:`bocvs_env.experiment.experiment`), so it costs about every decision the journal holds;
the issue's aim, once agents save their state beside each tell, is one decision plus a second.
Each journal is built by the simulated operator on a built-in problem (Hartmann-6 in 12-D, a
budget no size reaches); "one decision" is the CPU time of the live ``ask`` after the last
tell, and "open + ask" that of reopening the journal and asking again (the pending suggestion,
replayed). Prints a markdown table.

Run: ``OMP_NUM_THREADS=1 python benchmarks/experiment_resume.py --agents etc random``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bocvs_env.experiment import Experiment
from bocvs_env.experiment.operator import simulate_builtin


def measure(
    agent: str, tells: int, folder: Path, problem: str = "hartmann6_12d"
) -> tuple[float, float, float]:
    """Build a journal of ``tells`` answers; return (CPU seconds building it, of one decision
    after it, of reopening it and asking)."""
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
    return built, decision, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=["etc", "random"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[50, 200, 500])
    args = parser.parse_args()
    print("| agent | tells | build (CPU s) | one decision (CPU s) | open + ask (CPU s) | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder:
        for agent in args.agents:
            for tells in args.sizes:
                built, decision, reopened = measure(agent, tells, Path(folder))
                ratio = reopened / decision if decision > 0 else float("inf")
                print(f"| {agent} | {tells} | {built:.2f} | {decision:.3f} | {reopened:.2f} | "
                      f"{ratio:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
