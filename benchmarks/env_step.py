"""Micro-benchmark of the environment: median ``env.step`` per problem, and all metrics of a
1,000-step episode. Prints a markdown table and writes JSON.

Run: ``python benchmarks/env_step.py [--out results.json]``
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

import numpy as np

from bocvs_env import BOCVSEnv, metrics
from bocvs_env.evaluation import EpisodeRecord
from bocvs_env.problems import PROBLEMS


@dataclass
class Args:
    steps: int = 1000
    repeats: int = 5
    out: str = "benchmarks/env_step.json"


def _median_step_seconds(env: BOCVSEnv, steps: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    m, d = env.problem.n_sets, env.problem.dim
    actions = [{"control_set": int(rng.integers(m)), "x": rng.random(d)} for _ in range(steps)]
    env.reset(seed=seed)
    times = []
    for a in actions:
        t0 = time.perf_counter()
        env.step(a)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _metrics_seconds(env: BOCVSEnv, steps: int, repeats: int) -> float:
    rng = np.random.default_rng(1)
    m, d = env.problem.n_sets, env.problem.dim
    record = EpisodeRecord(
        problem=env.problem.name,
        agent="bench",
        seed=0,
        control_set=rng.integers(m, size=steps),
        x=rng.random((steps, d)),
        y=rng.random(steps),
        cost=rng.random(steps) * 0.1,
        g=np.zeros(steps),
        set_max=np.ones(m) * 3.0,
        cost_means=env.problem.cost_model.means,
        budget=100.0,
    )
    spend = np.linspace(0.0, 100.0, 201)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        record.g = env.goal.g_batch(record.control_set, record.x)  # privileged g of every step
        metrics.summarize(record)
        for alpha in (0.0, 0.1):
            metrics.quality_regret(record, alpha)
            metrics.cost_regret(record, alpha)
        metrics.simple_regret(record)
        metrics.cost_varying_regret(record)
        metrics.simple_regret_at(record, spend)
        metrics.evaluations_at(record, spend)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name}", type=type(default), default=default)
    args = Args(**vars(parser.parse_args()))
    rows = []
    for name in PROBLEMS:
        # A budget that outlasts the steps timed (1000 plays of mean cost <= 1 spend about 500)
        # within the environment's limit (MAX_PLAYS plays of the cheapest set, mean 0.01).
        fast = BOCVSEnv(name, budget=1e4, privileged_info=False)
        full = BOCVSEnv(name, budget=1e4, privileged_info=True)
        rows.append(
            {
                "problem": name,
                "step_us": 1e6 * _median_step_seconds(fast, args.steps),
                "step_privileged_us": 1e6 * _median_step_seconds(full, args.steps // 4),
                "metrics_1000_steps_s": _metrics_seconds(full, 1000, args.repeats),
            }
        )
    print("| problem | step (µs) | step with privileged g (µs) | all metrics, 1000 steps (s) |")
    print("| --- | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['problem']} | {r['step_us']:.0f} | {r['step_privileged_us']:.0f} "
            f"| {r['metrics_1000_steps_s']:.3f} |"
        )
    with open(args.out, "w") as fh:
        json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
