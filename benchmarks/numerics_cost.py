"""What ``reproducible`` numerics cost against ``fast``: the same runs in both modes, side by
side in one invocation and interleaved (the mode that goes first alternates per run and
repeat), each a ``bocvs run`` with one worker (one thread), timed by the runs' own provenance
(``wall_s`` and ``cpu_s``: the episode, not the process start or the setting's oracle).

The grid's heaviest runs are ETC and TS-PSQ on airfoil and hartmann6_12d at budget 100 (cheap
costs, variance 0.02); on a shared machine ``--budget`` can be smaller (the episodes are
shorter, the ratio is of the same kernels). Each finished run is one JSON row of ``--out``
(with the CPU model, the mode's kernel settings and the load average), written as it ends, so
an interrupted measurement resumes where it stopped. Prints per run the times in each mode and
their ratio, and per agent the geometric mean of the CPU-time ratios.

Run: ``BOCVS_DATA_DIR=... nice -n 10 python benchmarks/numerics_cost.py --out cost.json``
(budget 100, one seed: about 30 CPU-minutes).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from bocvs_env.benchmark.store import ResultStore

MODES = ("fast", "reproducible")


def timed_run(
    problem: str, agent: str, mode: str, budget: float, seed: int, store: Path
) -> dict[str, Any]:
    """One run through the CLI in ``mode``: its ``wall_s``, ``cpu_s`` and numerics record."""
    cmd = [sys.executable, "-m", "bocvs_env.benchmark", "run", "--problems", problem]
    cmd += ["--agents", agent, "--budgets", str(budget), "--seeds", f"{seed}-{seed}"]
    cmd += ["--cost-sets", "cheap", "--variances", "0.02"]
    cmd += ["--store", str(store), "--workers", "1", "--numerics", mode, "--no-plot", "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=os.environ)
    with ResultStore(store, readonly=True) as s:
        (run,) = s.runs()
    prov = run.provenance
    return {
        "wall_s": float(prov["wall_s"]),
        "cpu_s": float(prov["cpu_s"]),
        **{k: prov.get(k) for k in ("numerics", "cpu", "mkl_cbwr", "openblas_coretype")},
        **{k: prov.get(k) for k in ("cpu_capability", "numpy_simd", "git_commit")},
    }


def save(data: dict[str, Any], out: Path) -> None:
    """Write ``data`` to ``out`` atomically (a reader never sees half a file)."""
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="+", default=["airfoil", "hartmann6_12d"])
    parser.add_argument("--agents", nargs="+", default=["etc", "ts-psq"])
    parser.add_argument("--budget", type=float, default=100.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="JSON file, resumed if present")
    args = parser.parse_args()
    data: dict[str, Any] = json.loads(args.out.read_text()) if args.out.is_file() else {"rows": []}
    done = {(r["problem"], r["agent"], r["repeat"], r["mode"]) for r in data["rows"]}
    with tempfile.TemporaryDirectory() as tmp:
        pairs = enumerate(itertools.product(args.problems, args.agents))
        for rep, (i, (problem, agent)) in itertools.product(range(args.repeats), pairs):
            for mode in MODES if (rep + i) % 2 == 0 else MODES[::-1]:
                if (problem, agent, rep, mode) in done:
                    continue
                store = Path(tmp) / f"{mode}-{rep}-{i}.db"
                row = timed_run(problem, agent, mode, args.budget, args.seed, store)
                row |= {"problem": problem, "agent": agent, "repeat": rep, "mode": mode}
                row |= {"budget": args.budget, "seed": args.seed, "load_after": os.getloadavg()[0]}
                data["rows"].append(row)
                save(data, args.out)
                print(
                    f"{problem} {agent} rep {rep} {mode}: {row['cpu_s']:.1f} CPU-s, "
                    f"{row['wall_s']:.1f} s wall, load {row['load_after']:.2f}",
                    flush=True,
                )
    report(data["rows"], args.agents)


def report(rows: list[dict[str, Any]], agents: list[str]) -> None:
    """Print the per-run table of both modes and the per-agent geometric-mean ratios."""
    by_key = {(r["problem"], r["agent"], r["repeat"], r["mode"]): r for r in rows}
    print("\n| problem | agent | repeat | CPU fast (s) | CPU reproducible (s) | ratio "
          "| wall fast (s) | wall reproducible (s) | ratio |")  # fmt: skip
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios: dict[str, list[float]] = {a: [] for a in agents}
    for (problem, agent, rep, mode), fast in by_key.items():
        repro = by_key.get((problem, agent, rep, "reproducible"))
        if mode != "fast" or repro is None:
            continue
        ratios.setdefault(agent, []).append(repro["cpu_s"] / fast["cpu_s"])
        print(
            f"| {problem} | {agent} | {rep} | {fast['cpu_s']:.1f} | {repro['cpu_s']:.1f} "
            f"| {repro['cpu_s'] / fast['cpu_s']:.2f} | {fast['wall_s']:.1f} "
            f"| {repro['wall_s']:.1f} | {repro['wall_s'] / fast['wall_s']:.2f} |"
        )
    print("\n| agent | CPU ratio (geometric mean) |\n| --- | ---: |")
    for agent, rs in ratios.items():
        if rs:
            print(f"| {agent} | {np.exp(np.mean(np.log(rs))):.2f} |")


if __name__ == "__main__":
    main()
