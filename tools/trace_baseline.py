"""Record or check the traces of every registered agent on short episodes, bit for bit.

A refactoring of ``agents/`` that must not change a decision runs this before (``--out``) and
after every step (``--check``). Each registered agent but ``sb3`` (which needs a trained model)
plays short episodes of three problems with two seeds, on one torch thread; ``ucb-cvs`` gets the
problem's true mean costs, as the benchmark grants them. Each episode's trace is the sets
played, the full queries, the costs, ``g`` and ``y`` of every step, and the agent's decision
log; ``--check`` compares them to a recorded file exactly (floats by their JSON repr, which
round-trips) and names the first step where an episode differs.

Usage (the real-world problem needs ``BOCVS_DATA_DIR``)::

    python tools/trace_baseline.py --out traces.json
    python tools/trace_baseline.py --check traces.json [--agents etc fetc]
    python tools/trace_baseline.py --compare traces.json now.json

The traces hold on one kind of CPU: another's floating-point kernels move the maximizers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

from agents import make_agent, registered_agents
from bocvs_env.benchmark.runner import PRIVILEGED_VALUES, check_privileged
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import run_episode

PROBLEMS = ("hartmann3", "hartmann6_12d", "plant")
SEEDS = (0, 1)
#: The paper's moderate costs: a cycle over the 7 sets costs 1.9, so a budget of 6 is a cycle
#: of exploration and 20-40 rounds of exploitation for ETC, and 10-60 evaluations for the others.
COST_SET = "moderate"
VARIANCE = 0.02
BUDGET = 6.0
#: Agents that need what this script cannot give.
SKIPPED = ("sb3",)


def trace(agent_name: str, problem: str, seed: int) -> dict[str, Any]:
    """One episode's trace (JSON-able)."""
    env = BOCVSEnv(problem, cost_set=COST_SET, variance=VARIANCE, budget=BUDGET)
    granted = {p: PRIVILEGED_VALUES[p](env) for p in check_privileged(agent_name)}
    agent = make_agent(agent_name, **granted)
    record = run_episode(env, agent, seed=seed)
    return {
        "set": record.control_set.tolist(),
        "x": record.x.tolist(),
        "cost": record.cost.tolist(),
        "g": record.g.tolist(),
        "y": record.y.tolist(),
        "diagnostics": record.diagnostics,
    }


def run(agents: list[str], out: Path | None = None) -> dict[str, Any]:
    """``"agent/problem/seed"`` -> its trace, for every agent, problem and seed; written to
    ``out`` (JSON) after every agent, so that a long run keeps what it has done."""
    traces = {}
    for name in agents:
        t0 = time.perf_counter()
        for problem in PROBLEMS:
            for seed in SEEDS:
                traces[f"{name}/{problem}/{seed}"] = trace(name, problem, seed)
        if out is not None:
            out.write_text(json.dumps(traces))
        print(f"{name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return traces


def first_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Where two traces of one episode first differ, in words."""
    for key in ("set", "x", "cost", "g", "y", "diagnostics"):
        a, b = old[key], new[key]
        for t, (u, v) in enumerate(zip(a, b, strict=False)):  # lengths compared below
            if json.dumps(u) != json.dumps(v):
                return f"{key} at step {t}"
        if len(a) != len(b):
            return f"{key}: {len(a)} entries, now {len(b)}"
    return "nowhere"


def check(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The episodes of ``now`` whose trace differs from ``recorded`` (or is not in it)."""
    failures = []
    for key, new in now.items():
        if key not in recorded:
            failures.append(f"{key}: not recorded")
        elif json.dumps(recorded[key]) != json.dumps(new):
            failures.append(f"{key}: differs, first in {first_difference(recorded[key], new)}")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out", type=Path, help="record the traces into this JSON file")
    mode.add_argument("--check", type=Path, help="compare with the traces of this JSON file")
    mode.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        metavar=("RECORDED", "NOW"),
        help="compare two recorded files (the episodes of NOW), running nothing",
    )
    parser.add_argument("--agents", nargs="+", help="only these agents (default: all but sb3)")
    args = parser.parse_args(argv)
    if args.compare is not None:
        recorded, now = (json.loads(p.read_text()) for p in args.compare)
        return report(check(recorded, now), len(now))
    torch.set_num_threads(1)
    agents = args.agents or sorted(n for n in registered_agents() if n not in SKIPPED)
    now = run(agents, args.out)
    if args.out is not None:
        print(f"{len(now)} traces written to {args.out}")
        return 0
    return report(check(json.loads(args.check.read_text()), now), len(now))


def report(failures: list[str], n: int) -> int:
    """Print the failures and a count; the exit status."""
    for line in failures:
        print(line)
    print(f"{n - len(failures)} of {n} traces identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
