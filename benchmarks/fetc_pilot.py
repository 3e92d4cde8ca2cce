"""A small pilot of FETC against ETC on development settings outside the paper's grid.

Runs each agent on each (setting, seed) one after the other in this process, one thread, and
writes one JSON row per run: final simple regret, evaluations, spend, the spend share on the
target set ``i*`` and on the costliest set, and the wall and CPU time of the run. Not the
acceptance experiment (that is the ``fetc-ablation`` sweep config, run later at one commit).

    OMP_NUM_THREADS=1 python benchmarks/fetc_pilot.py --out benchmarks/results/fetc_pilot.json \
        --settings levy6_12d:moderate:0.08:30 --agents etc fetc --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents import make_agent
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize


def run(
    problem: str,
    cost_set: str,
    variance: float,
    budget: float,
    agent: str,
    seed: int,
) -> dict[str, Any]:
    """One episode's figures (see the module docstring)."""
    env = BOCVSEnv(problem, cost_set=cost_set, variance=variance, budget=budget)
    wall, cpu = time.perf_counter(), time.process_time()
    record = run_episode(env, make_agent(agent), seed=seed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    summary = summarize(record)
    share = np.asarray(summary["spend_share"])
    return {
        "problem": problem,
        "cost_set": cost_set,
        "variance": variance,
        "budget": budget,
        "agent": agent,
        "seed": seed,
        "simple_regret": summary["simple_regret"],
        "evaluations": summary["evaluations"],
        "spent": summary["spent"],
        "i_star": summary["i_star"],
        "target_share": float(share[summary["i_star"]]),
        "costliest_share": float(share[int(np.argmax(record.cost_means))]),
        "wall_s": wall,
        "cpu_s": cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--settings", nargs="+", required=True, help="problem:cost_set:variance:budget"
    )
    parser.add_argument("--agents", nargs="+", default=["etc", "fetc"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = json.loads(args.out.read_text()) if args.out.exists() else []
    for setting in args.settings:
        problem, cost_set, variance, budget = setting.split(":")
        for seed in args.seeds:
            for agent in args.agents:
                rows.append(run(problem, cost_set, float(variance), float(budget), agent, seed))
                args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
