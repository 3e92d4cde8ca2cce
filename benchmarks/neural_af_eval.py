"""``neural-af`` against random and ETC on the family test functions: final simple regret,
paired by seed, with percentile-bootstrap 95% intervals of the mean paired differences.

Every agent plays the same episodes (``run_episode`` with reset seeds ``--eval-seed + k``, so
the same test function, initial design and cost streams) of each test id, at ``--budget``
(5) and ``--cost-set`` (moderate). Each episode's row (id, agent, seed, function seed, cost
set, budget, final simple regret, evaluations, the agent's CPU seconds) is appended to
``--out`` (JSON lines) when it finishes; rows already there are skipped, so a run resumes and
agents can be run apart (``--agents etc``); a file holds one setting (rows without cost set
and budget are moderate, 5). The table is printed from every row in the file.
``neural-af-prior`` is the trained agent's untrained start. The first 5 seeds on rotated Hartmann-3 are those of
``examples/train_ppo.py``'s test episodes.

Run: ``OMP_NUM_THREADS=1 nice -n 10 python benchmarks/neural_af_eval.py --n 20``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

import bocvs_env  # noqa: F401  (registers the ids)
from bocvs_env.agent_registration import make_agent
from bocvs_env.benchmark.stats import paired_bootstrap
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize

TEST_IDS = ("bocvs/GPSampleFamily-Test-v1", "bocvs/RotatedHartmann3Family-Test-v1")
#: The first reset seed (``examples/train_ppo.py``'s ``eval_seed``).
EVAL_SEED = 100_000


def load(path: Path) -> list[dict[str, Any]]:
    """The rows in ``path`` (none if it does not exist)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def setting(row: dict[str, Any]) -> tuple[str, float]:
    """A row's cost set and budget (moderate and 5 for rows that name neither)."""
    return str(row.get("cost_set", "moderate")), float(row.get("budget", 5.0))


def play(
    path: Path, env_ids: list[str], agents: list[str], n: int, budget: float, cost_set: str
) -> None:
    """Play the missing episodes, appending a row per episode to ``path``."""
    rows = load(path)
    others = {setting(r) for r in rows} - {(cost_set, float(budget))}
    if others:
        raise ValueError(
            f"{path} holds rows of another setting {sorted(others)}; use another --out"
        )
    done = {(r["env_id"], r["agent"], r["seed"]) for r in rows}
    for env_id in env_ids:
        env = gym.make(env_id, budget=budget, cost_set=cost_set)
        for k in range(n):
            seed = EVAL_SEED + k
            for name in agents:
                if (env_id, name, seed) in done:
                    continue
                agent = make_agent(name)
                cpu = time.process_time()
                record = run_episode(env, agent, seed=seed)
                row = {
                    "env_id": env_id,
                    "agent": name,
                    "seed": seed,
                    "function_seed": record.config["function_seed"],
                    "cost_set": cost_set,
                    "budget": float(budget),
                    "simple_regret": float(summarize(record)["simple_regret"]),
                    "evaluations": int(record.n_evaluations),
                    "cpu_s": time.process_time() - cpu,
                }
                with path.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"{env_id} {name} seed {seed}: regret {row['simple_regret']:.4f}", flush=True)


def table(path: Path, reference: str) -> str:
    """Per test id and agent: n, mean final simple regret, and the mean paired difference
    ``reference - agent`` with its 95% interval over the seeds both played."""
    rows = load(path)
    lines = [f"| test id | agent | n | mean simple regret | {reference} − agent (95% CI) |",
             "| --- | --- | --- | --- | --- |"]  # fmt: skip
    for env_id in sorted({r["env_id"] for r in rows}):
        by_agent: dict[str, dict[int, float]] = {}
        for r in rows:
            if r["env_id"] == env_id:
                by_agent.setdefault(r["agent"], {})[r["seed"]] = r["simple_regret"]
        ref = by_agent.get(reference, {})
        for name, values in sorted(by_agent.items()):
            cell = ""
            seeds = sorted(set(values) & set(ref))
            if name != reference and seeds:
                iv = paired_bootstrap([ref[s] - values[s] for s in seeds])
                cell = f"{iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}] (n={iv.n})"
            mean = float(np.mean(list(values.values())))
            lines.append(f"| {env_id} | {name} | {len(values)} | {mean:.3f} | {cell} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/neural_af_eval.jsonl"))
    parser.add_argument("--agents", default="neural-af,neural-af-prior,random,etc")
    parser.add_argument("--env-ids", default=",".join(TEST_IDS))
    parser.add_argument("--n", type=int, default=20, help="test functions per id")
    parser.add_argument("--budget", type=float, default=5.0)
    parser.add_argument("--cost-set", default="moderate")
    parser.add_argument("--reference", default="neural-af")
    args = parser.parse_args()
    torch.set_num_threads(1)
    agents = [a for a in args.agents.split(",") if a]
    ids = [i for i in args.env_ids.split(",") if i]
    play(args.out, ids, agents, args.n, args.budget, args.cost_set)
    print(table(args.out, args.reference))


if __name__ == "__main__":
    main()
