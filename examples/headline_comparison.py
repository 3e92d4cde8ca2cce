"""The AAAI paper's headline comparison: ETC against the baselines on hartmann6 in 12-D.

Cheap costs, input variance 0.02: every agent plays one episode per seed; the table gives the
final simple regret (median and interquartile range over seeds), the number of evaluations, and
the simple regret after spending 60% of the budget (the end of ETC's exploration). The paper
reports that ETC reaches lower simple regret for the same spend and makes many more evaluations
than the baselines.

By default a small version runs (budget 20, two seeds, ETC, UCB-PSQ and random: one to two
minutes on two cores); ``--full`` runs the paper's setting (budget 100, five seeds, five agents:
hours); ``--smoke`` a seconds-long check that it runs (what the tests run). Progress goes to
stderr, the table to stdout. Any flag overrides these settings::

    python examples/headline_comparison.py
    python examples/headline_comparison.py --full --records runs.jsonl
    python examples/headline_comparison.py --smoke
    python examples/headline_comparison.py --budget 10 --seeds 1 --agents etc,random
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from _common import parse_args, single_threaded_torch

from agents import make_agent
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import EpisodeRecord, run_episode
from bocvs_env.metrics import simple_regret_at, summarize

#: The default, small setting, the paper's (``--full``) and a check that the script runs
#: (``--smoke``); flags given explicitly win.
QUICK = {"budget": 20.0, "seeds": 2, "agents": "etc,ucb-psq,random"}
FULL = {"budget": 100.0, "seeds": 5, "agents": "etc,ucb-psq,ts-psq,etc-50,random"}
SMOKE = {"budget": 2.0, "seeds": 1, "agents": "etc,random"}
#: Seconds between two progress lines within an episode.
HEARTBEAT = 15.0


@dataclass
class Args:
    problem: str = "hartmann6_12d"
    cost_set: str = "cheap"
    variance: float = 0.02
    budget: float = QUICK["budget"]
    seeds: int = QUICK["seeds"]
    first_seed: int = 0
    agents: str = QUICK["agents"]
    surrogate_mode: str = "fitted"  # "fitted" (ARD, BoTorch's) or "fixed" (the references' GP)
    n_samples: int = 128
    raw_samples: int = 256
    n_restarts: int = 8
    maxiter: int = 100
    records: str = ""  # a JSON-lines file to append each episode's summary to
    table_only: bool = False  # print the table from --records without running anything
    full: bool = False  # the paper's budget, seeds and agents (FULL)
    smoke: bool = False  # seconds: a check that the script runs (SMOKE)


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, med, q3 = np.percentile(np.asarray(values, np.float64), [25, 50, 75])
    return float(med), float(q1), float(q3)


def log(text: str) -> None:
    """A progress line on stderr (stdout carries the result)."""
    print(text, file=sys.stderr, flush=True)


def episode(args: Args, agent_name: str, seed: int) -> tuple[EpisodeRecord, float]:
    env = BOCVSEnv(args.problem, cost_set=args.cost_set, variance=args.variance, budget=args.budget)
    params = {}
    if agent_name != "random":
        params = {
            "surrogate_mode": args.surrogate_mode,
            "n_samples": args.n_samples,
            "raw_samples": args.raw_samples,
            "n_restarts": args.n_restarts,
            "maxiter": args.maxiter,
        }
    if agent_name == "ucb-cvs":
        params["costs"] = env.problem.cost_model.means
    start = last = time.perf_counter()

    def heartbeat(spent: float, budget: float) -> None:
        nonlocal last
        if time.perf_counter() - last >= HEARTBEAT:
            last = time.perf_counter()
            log(f"  {agent_name} seed {seed}: {100 * spent / budget:.0f}% of the budget spent, "
                f"{last - start:.0f} s")  # fmt: skip

    record = run_episode(env, make_agent(agent_name, **params), seed=seed, progress=heartbeat)
    return record, time.perf_counter() - start


def decision_summary(record: EpisodeRecord) -> dict[str, Any]:
    """For agents with phases (ETC): rounds per phase, resets of S1, and the last S1 and S3."""
    log = [entry for entry in record.diagnostics if "phase" in entry]
    if not log:
        return {}
    phases = Counter(entry["phase"] for entry in log)
    return {
        "phases": dict(phases),
        "resets": sum(bool(entry.get("reset")) for entry in log),
        "last_s1": log[-1].get("s1"),
        "last_s3": log[-1].get("s3"),
    }


def main() -> None:
    args = parse_args(Args, __doc__, {"quick": QUICK, "full": FULL, "smoke": SMOKE})
    single_threaded_torch()  # small tensors: see examples/_common.py
    names = [a.strip() for a in args.agents.split(",") if a.strip()]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    if args.table_only:
        with open(args.records) as f:
            for line in f:
                row = json.loads(line)
                if row["agent"] in rows:
                    rows[row["agent"]].append(row)
        print_table(rows, args)
        return
    log(f"# {json.dumps(asdict(args))}")
    total, done = len(names) * len(seeds), 0
    for seed in seeds:
        for name in names:
            record, seconds = episode(args, name, seed)
            done += 1
            summary = summarize(record)
            at_explore = float(simple_regret_at(record, np.array([0.6 * args.budget]))[0])
            row = {
                "agent": name,
                "seed": seed,
                "surrogate_mode": args.surrogate_mode,
                "simple_regret": float(summary["simple_regret"]),
                "regret_at_60pct": at_explore,
                "evaluations": int(summary["evaluations"]),
                "spent": float(summary["spent"]),
                "spend_share": summary["spend_share"],
                "seconds": seconds,
                **decision_summary(record),
            }
            rows[name].append(row)
            log(f"[{done}/{total}] {name} seed {seed}: simple regret {row['simple_regret']:.4f}, "
                f"{row['evaluations']} evaluations, {seconds:.1f} s")  # fmt: skip
            if args.records:
                with open(args.records, "a") as f:
                    f.write(json.dumps(row) + "\n")
    print_table(rows, args)


def print_table(rows: dict[str, list[dict[str, Any]]], args: Args) -> None:
    """Median and interquartile range over seeds, per agent, and what the table shows."""
    print(
        f"Simple regret (g* minus the best expected value g among the agent's queries; lower is "
        f"better) at the end of the budget and after 60% of it, and evaluations bought, per "
        f"agent: median [interquartile range] over {args.seeds} seeds."
    )
    header = (
        f"{'agent':>10} | {'simple regret: median [IQR]':>30} | {'at 60% spend':>22} | "
        f"{'evaluations: median [IQR]':>26} | {'s/episode':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, runs in rows.items():
        if not runs:
            continue
        sr = quartiles([r["simple_regret"] for r in runs])
        s60 = quartiles([r["regret_at_60pct"] for r in runs])
        ev = quartiles([r["evaluations"] for r in runs])
        sec = float(np.median([r["seconds"] for r in runs]))
        print(
            f"{name:>10} | {sr[0]:>10.4f} [{sr[1]:.4f}, {sr[2]:.4f}] | "
            f"{s60[0]:.4f} [{s60[1]:.4f}, {s60[2]:.4f}] | "
            f"{ev[0]:>8.0f} [{ev[1]:.0f}, {ev[2]:.0f}] | {sec:>9.1f}"
        )
    print(
        f"\nseeds per agent {[len(runs) for runs in rows.values()]}, {args.problem}, "
        f"{args.cost_set} costs, variance {args.variance}, "
        f"budget {args.budget}; g* and g from the environment's privileged evaluator."
    )
    print(what_it_shows(rows) + ("" if args.full else " A small setting: --full runs the paper's."))


def what_it_shows(rows: dict[str, list[dict[str, Any]]]) -> str:
    """The paper's claim, and whether this run's medians agree with it, agent by agent."""
    claim = (
        "What to look for (the paper's claim): ETC ends with lower simple regret than the "
        "baselines and makes more evaluations than the GP baselines, as it commits to a cheap "
        "set that is good enough."
    )
    medians = {
        name: (
            float(np.median([r["simple_regret"] for r in runs])),
            float(np.median([r["evaluations"] for r in runs])),
        )
        for name, runs in rows.items()
        if runs
    }
    if "etc" not in medians or len(medians) < 2:
        return claim
    regret, evaluations = medians.pop("etc")
    found = [
        f"against {name}, {'a lower' if regret < other[0] else 'no lower'} regret than its "
        f"{other[0]:.4g} and {'more' if evaluations > other[1] else 'no more'} evaluations than "
        f"its {other[1]:.0f}"
        for name, other in medians.items()
    ]
    return (
        f"{claim} Here (medians over seeds) ETC ends at a simple regret of {regret:.4g} with "
        f"{evaluations:.0f} evaluations: {'; '.join(found)}."
    )


if __name__ == "__main__":
    main()
