"""CPU time of the privileged oracle (``env.unwrapped.oracle()``: the per-set maxima of ``g_i``)
on members of the problem families, one function after another, on one thread (torch's, and
every BLAS and OpenMP pool limited to one).

Each function's row (family id, reset seed, function seed, the set maxima, ``g*``, ``i*`` of
:func:`bocvs_env.metrics.target` at ``alpha = 0.1``, the oracle's CPU seconds, the load average
before and after) is written to ``--out`` as soon as it finishes, and rows already there are kept
and skipped, so an interrupted run resumes. The oracle cache is a fresh temporary directory, so
every oracle is computed. ``--code-version`` names the code measured in the file (the rows of an
old tree serve as references: ``tests/env/data/family_oracles.json``).

With ``--published docs/data``, it measures instead the oracle of every (problem, variance)
setting of the published runs, each against the set maxima recorded there (largest absolute
difference); the plant and airfoil settings read the data files shipped with the package (or
``BOCVS_DATA_DIR``).

Run: ``nice -n 15 python benchmarks/oracle_speed.py --out /tmp/oracles.json``; to measure another
tree, put its ``bocvs_env`` first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from threadpoolctl import threadpool_limits

import bocvs_env  # noqa: F401  (registers the ids)
from bocvs_env import metrics
from bocvs_env.benchmark.export import require_pandas
from bocvs_env.benchmark.manifest import RUNS_FILE, check_folder
from bocvs_env.env import BOCVSEnv
from bocvs_env.goal import ORACLE_VERSION, GoalEvaluator, oracle_values
from bocvs_env.problems import make_problem

FAMILY_IDS = ("bocvs/RotatedHartmann3Family-Test-v1", "bocvs/GPSampleFamily-Test-v1")


def measure(env_id: str, reset_seed: int) -> dict[str, Any]:
    """One member's oracle: the row described in the module's docstring."""
    env = gym.make(env_id)
    _, info = env.reset(seed=reset_seed)
    base = env.unwrapped
    assert isinstance(base, BOCVSEnv)
    load_before = os.getloadavg()[0]
    t0 = time.process_time()
    set_max = base.oracle()
    cpu_s = time.process_time() - t0
    tgt = metrics.target(set_max, base.problem.cost_model.means)
    return {
        "env_id": env_id,
        "reset_seed": reset_seed,
        "function_seed": info["privileged"]["function_seed"],
        "set_max": set_max.tolist(),
        "g_star": tgt.g_star,
        "i_star": tgt.i_star,
        "oracle_cpu_s": cpu_s,
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def published_settings(folder: Path) -> None:
    """Print, per published (problem, variance) setting, the oracle's CPU seconds and its largest
    difference from the published set maxima (the grid's settings use the default problem
    options)."""
    check_folder(folder)  # its manifest, as every reader of a published folder checks it
    runs = require_pandas().read_parquet(folder / RUNS_FILE)
    for (problem, variance), rows in runs.groupby(["problem", "variance"]):
        try:
            ev = GoalEvaluator(make_problem(problem, variance=variance))
        except FileNotFoundError as err:
            print(f"{problem} variance {variance}: skipped ({err})")
            continue
        t0 = time.process_time()
        set_max = oracle_values(ev, use_cache=False)
        cpu_s = time.process_time() - t0
        published = rows.iloc[0][[f"set_max_{i}" for i in range(set_max.size)]].to_numpy(float)
        print(
            f"{problem} variance {variance}: {cpu_s:.2f} CPU-s, largest difference from the "
            f"published set maxima {np.abs(set_max - published).max():.2e}",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="JSON file, resumed if present")
    parser.add_argument("--ids", nargs="+", default=list(FAMILY_IDS), help="family env ids")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(7000, 7010)))
    parser.add_argument("--code-version", default="", help="names the code measured")
    parser.add_argument("--published", type=Path, help="a published folder (docs/data) instead")
    args = parser.parse_args()
    torch.set_num_threads(1)
    threadpool_limits(limits=1)  # BLAS and OpenMP pools too: one thread in all
    if args.published:
        published_settings(args.published)
        return
    if args.out is None:
        parser.error("--out is needed (unless --published)")
    os.environ["BOCVS_CACHE_DIR"] = tempfile.mkdtemp(prefix="bocvs-oracle-speed-")
    data: dict[str, Any] = (
        json.loads(args.out.read_text())
        if args.out.is_file()
        else {"code_version": args.code_version, "oracle_version": ORACLE_VERSION, "rows": []}
    )
    done = {(r["env_id"], r["reset_seed"]) for r in data["rows"]}
    for env_id in args.ids:
        for seed in args.seeds:
            if (env_id, seed) in done:
                continue
            row = measure(env_id, seed)
            data["rows"].append(row)
            tmp = args.out.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1))
            os.replace(tmp, args.out)
            print(
                f"{env_id} seed {seed} (function {row['function_seed']}): "
                f"{row['oracle_cpu_s']:.2f} CPU-s, i* {row['i_star']}, load {row['load_after']:.2f}",
                flush=True,
            )
    for env_id in args.ids:
        cpu = [r["oracle_cpu_s"] for r in data["rows"] if r["env_id"] == env_id]
        if cpu:
            print(
                f"{env_id}: {len(cpu)} functions, CPU-s per oracle mean {np.mean(cpu):.2f}, "
                f"max {np.max(cpu):.2f}"
            )


if __name__ == "__main__":
    main()
