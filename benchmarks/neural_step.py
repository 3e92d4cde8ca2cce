"""The neural acquisition's training step: median time of ``CandidateEnv.step`` at ``n <= 30``
observations on the family ids (7 sets), for this tree and another one side by side.

Each measurement is a fresh process with one torch thread (``OMP_NUM_THREADS=1``) running the
tree's own ``agents.neural.wrapper.make_candidate_env(id, budget=30, cost_set="moderate")``:
episodes from reset seeds 0, 1, ... play the row with the largest ``ucb_gap`` feature, and each
step is timed (CPU seconds of the thread, and wall seconds) while the history holds at most 30
observations (initial design included). The trees alternate round by round, so that the load
of a shared machine drifts over both. Prints a table (median milliseconds per step, the ratio
before / after) and writes every round's medians to ``--out``.

Run: ``python benchmarks/neural_step.py --before /work/main --rounds 3``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

IDS = ("bocvs/GPSampleFamily-Train-v1", "bocvs/RotatedHartmann3Family-Train-v1")
MAX_N = 30


def measure(env_id: str, episodes: int) -> dict[str, float]:
    """Median CPU and wall milliseconds of the wrapper's step on ``env_id`` (this process's
    tree), and the number of steps timed."""
    import numpy as np
    import torch

    import bocvs_env  # noqa: F401  (registers the ids)
    from agents.neural.features import FEATURES
    from agents.neural.wrapper import make_candidate_env

    torch.set_num_threads(1)
    env = make_candidate_env(env_id, budget=30.0, cost_set="moderate")
    ucb = FEATURES.index("ucb_gap")
    cpu, wall = [], []
    for seed in range(episodes):
        rows, _ = env.reset(seed=seed)
        done = False
        while not done and env.features.X.shape[0] < MAX_N:
            action = int(np.argmax(rows[:, ucb]))
            c0, w0 = time.thread_time(), time.perf_counter()
            rows, _, terminated, truncated, _ = env.step(action)
            cpu.append(time.thread_time() - c0)
            wall.append(time.perf_counter() - w0)
            done = terminated or truncated
    return {
        "cpu_ms": 1e3 * float(np.median(cpu)),
        "wall_ms": 1e3 * float(np.median(wall)),
        "steps": float(len(cpu)),
    }


def run_tree(tree: Path, episodes: int) -> dict[str, dict[str, float]]:
    """:func:`measure` on every id in a fresh process importing ``tree``'s packages."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); "
        "from neural_step import measure, IDS; "
        "print(json.dumps({i: measure(i, int(sys.argv[2])) for i in IDS}))"
    )
    here = str(Path(__file__).resolve().parent)
    out = subprocess.run(
        [sys.executable, "-c", code, here, str(episodes)],
        env=env,
        cwd=str(tree),
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, dict[str, float]] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other tree (a checkout)")
    parser.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/neural_step.json"))
    args = parser.parse_args(argv)
    rounds: list[dict[str, Any]] = []
    for r in range(args.rounds):
        for label, tree in (("before", args.before), ("after", args.after)):
            load = os.getloadavg()[0]
            rounds.append(
                {"round": r, "tree": label, "load": load, **run_tree(tree, args.episodes)}
            )
            print(f"round {r} {label} done (load {load:.1f})", file=sys.stderr, flush=True)
    print("| id | before CPU ms | after CPU ms | ratio | before wall ms | after wall ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for env_id in IDS:
        med = {}
        for label in ("before", "after"):
            rows = [x[env_id] for x in rounds if x["tree"] == label]
            med[label] = {
                k: sorted(r[k] for r in rows)[len(rows) // 2] for k in ("cpu_ms", "wall_ms")
            }
        b, a = med["before"], med["after"]
        print(f"| {env_id} | {b['cpu_ms']:.2f} | {a['cpu_ms']:.2f} | {b['cpu_ms'] / a['cpu_ms']:.1f} "
              f"| {b['wall_ms']:.2f} | {a['wall_ms']:.2f} |")  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rounds, indent=1) + "\n")


if __name__ == "__main__":
    main()
