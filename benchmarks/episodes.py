"""Whole episodes of the agents as users run them, timed step by step and by phase.

Every episode runs in a fresh subprocess with one torch/BLAS thread. Each step's time is split
into four phases, measured by wrapping the agent's and the environment's methods on the instance
(no agent code is changed):

- ``act``: ``agent.act`` (the decision);
- ``refit``: hyperparameter refits inside ``observe`` (``agent.surrogate.fitter.fit``: the MAP
  fit of the fitted mode; 0 for agents without one);
- ``observe``: the rest of ``agent.observe`` (the Cholesky factor's extension, bookkeeping);
- ``env``: ``env.step``.

The agent's ``reset`` (the free initial design's first fit) is reported apart, as ``reset_s``;
``episode_s`` (the table's "episode", and what the comparison pairs) is ``reset_s`` plus every
step's phases. ``wall_s`` is ``run_episode``'s whole wall time, which also holds the record's
privileged values: the first episode of a problem setting computes the per-set oracle maxima
(cached on disk afterwards; about 680 s for airfoil under load), so it is not compared.
``cpu_s`` is its CPU time (``time.process_time``) and every step's ``act_cpu`` the CPU time of
``act``: on a shared machine, far less sensitive to the load than wall times.

``--compare-to REV`` runs the same episodes at git revision ``REV`` side by side in the same
invocation: a temporary ``git worktree`` of ``REV`` is put first on the workers' ``PYTHONPATH``
(this script comes from the current tree; every worker records which ``agents`` it imported), and
the two variants' episodes alternate. ``--params`` sets agent options of the current tree only;
``--baseline-params`` those of the baseline (with no ``--compare-to``, the baseline is the
current tree with those options).

Examples::

    python benchmarks/episodes.py --problems hartmann6_12d --agents etc --seeds 0 1
    python benchmarks/episodes.py --compare-to main --params '{"polish_samples": 64}'
    python benchmarks/episodes.py --agents etc ucb-psq --baseline-params '{"exact": true}'
    BOCVS_DATA_DIR=/work/shared/data python benchmarks/episodes.py --problems airfoil plant

Output: JSON (``--out``) with every step of every episode and a summary per problem, agent and
variant, and the summary as a printed table.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import numpy as np

PHASES = ("act", "refit", "observe", "env")
DATA_PROBLEMS = ("plant", "airfoil")
REPO = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------- the worker
class PhaseClock:
    """Accumulates wall time per phase of the current step (``time.perf_counter``, seconds)."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.step: dict[str, Any] = {}
        self.reset_s = 0.0

    def wrap(self, obj: Any, name: str, phase: str) -> None:
        """Replace ``obj.name`` on the instance by a wrapper adding its time to ``phase``."""
        method = getattr(obj, name)

        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.step[phase] = self.step.get(phase, 0.0) + time.perf_counter() - t0

        setattr(obj, name, timed)

    def start_step(self) -> None:
        self.step = dict.fromkeys(PHASES, 0.0)
        self.steps.append(self.step)


def instrument(env: Any, agent: Any, clock: PhaseClock) -> None:
    """Wrap ``env.step`` and the agent's ``reset``, ``act`` and ``observe`` (and, after every
    reset, its surrogate's hyperparameter fitter) so that ``clock`` sees every phase."""
    reset, act, observe = agent.reset, agent.act, agent.observe

    def timed_reset(*args: Any, **kwargs: Any) -> None:
        t0 = time.perf_counter()
        reset(*args, **kwargs)
        clock.reset_s = time.perf_counter() - t0
        fitter = getattr(getattr(agent, "surrogate", None), "fitter", None)
        if fitter is not None:
            clock.wrap(fitter, "fit", "refit")

    def timed_act(*args: Any, **kwargs: Any) -> Any:
        clock.start_step()
        t0, c0 = time.perf_counter(), time.process_time()
        out = act(*args, **kwargs)
        clock.step["act"] = time.perf_counter() - t0
        clock.step["act_cpu"] = time.process_time() - c0
        return out

    def timed_observe(*args: Any, **kwargs: Any) -> None:
        before = clock.step["refit"]
        t0 = time.perf_counter()
        observe(*args, **kwargs)
        total = time.perf_counter() - t0
        clock.step["observe"] = total - (clock.step["refit"] - before)
        clock.step["n"] = len(getattr(agent, "y", ()))
        clock.step["evaluated"] = bool(args[5]["evaluated"]) if len(args) > 5 else None

    agent.reset, agent.act, agent.observe = timed_reset, timed_act, timed_observe
    clock.wrap(env, "step", "env")


def run_one(spec: dict[str, Any]) -> dict[str, Any]:
    """One timed episode of ``spec`` (a :class:`RunConfig` dictionary), in this process."""
    import torch

    import agents
    from bocvs_env.benchmark.config import RunConfig
    from bocvs_env.benchmark.runner import agent_arguments, make_agent  # as the harness builds it
    from bocvs_env.env import BOCVSEnv
    from bocvs_env.evaluation import run_episode
    from bocvs_env.metrics import summarize

    torch.set_num_threads(1)
    config = RunConfig.from_dict(spec)
    env = BOCVSEnv(**config.env_kwargs())
    agent = make_agent(config.agent, **agent_arguments(config, env))
    clock = PhaseClock()
    instrument(env, agent, clock)
    t0, c0 = time.perf_counter(), time.process_time()
    record = run_episode(env, agent, seed=config.seed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    fitter = getattr(getattr(agent, "surrogate", None), "fitter", None)
    return {
        "config": spec,
        "agents_module": agents.__file__,
        "wall_s": wall,
        "cpu_s": cpu,
        "episode_s": clock.reset_s + sum(s[p] for s in clock.steps for p in PHASES),
        "reset_s": clock.reset_s,
        "n_evaluations": record.n_evaluations,
        "final_n": len(getattr(agent, "y", ())),
        "decisions": len(record.diagnostics),
        "refits": None if fitter is None else int(fitter.n_refits),
        "simple_regret": float(cast(float, summarize(record)["simple_regret"])),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "steps": clock.steps,
    }


# --------------------------------------------------------------------------- the orchestrator
@contextmanager
def source_tree(rev: str | None) -> Iterator[Path]:
    """The current tree, or a temporary detached ``git worktree`` of ``rev`` (removed after)."""
    if rev is None:
        yield REPO
        return
    where = Path(tempfile.mkdtemp(prefix="bocvs-episodes-")) / "tree"
    git = ["git", "-C", str(REPO)]
    subprocess.run(
        [*git, "worktree", "add", "--detach", str(where), rev], check=True, capture_output=True
    )
    try:
        yield where
    finally:
        subprocess.run(
            [*git, "worktree", "remove", "--force", str(where)], check=False, capture_output=True
        )
        shutil.rmtree(where.parent, ignore_errors=True)


def run_worker(spec: dict[str, Any], tree: Path, timeout: float) -> dict[str, Any]:
    """Run one episode in a subprocess importing the project from ``tree``, one thread."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            json.dumps(spec),
            "--result",
            str(out),
        ]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"config": spec, "error": f"stopped after the {timeout:g} s timeout"}
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
            return {"config": spec, "error": f"worker failed: {tail[0]}"}
        result: dict[str, Any] = json.loads(out.read_text())
        return result


def phase_summary(episodes: list[dict[str, Any]], phase: str) -> dict[str, float]:
    """The median step's time in ``phase``, and the median over episodes of its total."""
    per_step = [s[phase] for e in episodes for s in e["steps"]]
    totals = [sum(s[phase] for s in e["steps"]) for e in episodes]
    return {
        f"{phase}_median_s": float(np.median(per_step)),
        f"{phase}_total_s": float(np.median(totals)),
    }


def summarize_episodes(episodes: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over steps and per-episode totals (medians over episodes) of every phase."""
    ok = [e for e in episodes if "error" not in e]
    out: dict[str, Any] = {
        "episodes": len(ok),
        "errors": [e["error"] for e in episodes if "error" in e],
    }
    if not ok:
        return out
    for phase in PHASES:
        out.update(phase_summary(ok, phase))
    for key in (
        "episode_s",
        "wall_s",
        "reset_s",
        "n_evaluations",
        "final_n",
        "decisions",
        "simple_regret",
        "peak_mb",
    ):
        out[key] = float(np.median([e[key] for e in ok]))
    out["refits"] = [e["refits"] for e in ok]
    out["simple_regret_by_seed"] = {str(e["config"]["seed"]): e["simple_regret"] for e in ok}
    out["episode_s_by_seed"] = {str(e["config"]["seed"]): e["episode_s"] for e in ok}
    return out


def paired(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """Per-seed ratios of episode time and differences of final simple regret (new - old)."""
    seeds = sorted(set(new.get("episode_s_by_seed", {})) & set(old.get("episode_s_by_seed", {})))
    return {
        "seeds": seeds,
        "time_ratio_old_over_new": [
            old["episode_s_by_seed"][s] / new["episode_s_by_seed"][s] for s in seeds
        ],
        "regret_new_minus_old": [
            new["simple_regret_by_seed"][s] - old["simple_regret_by_seed"][s] for s in seeds
        ],
    }


def table(summary: list[dict[str, Any]]) -> str:
    """The summary as a fixed-width text table (times in seconds)."""
    head = (
        f"{'problem':<14}{'agent':<9}{'variant':<10}{'eps':>4}{'evals':>7}{'decis':>7}"
        + "".join(f"{p + ' med':>12}{p + ' tot':>11}" for p in PHASES)
        + f"{'reset':>8}{'episode':>9}{'regret':>8}{'MB':>6}"
    )
    lines = [head, "-" * len(head)]
    for row in summary:
        s = row["summary"]
        if not s["episodes"]:
            lines.append(f"{row['problem']:<14}{row['agent']:<9}{row['variant']:<10} {s['errors']}")
            continue
        lines.append(
            f"{row['problem']:<14}{row['agent']:<9}{row['variant']:<10}{s['episodes']:>4}"
            f"{s['n_evaluations']:>7.0f}{s['decisions']:>7.0f}"
            + "".join(f"{s[p + '_median_s']:>12.4f}{s[p + '_total_s']:>11.2f}" for p in PHASES)
            + f"{s['reset_s']:>8.2f}{s['episode_s']:>9.1f}{s['simple_regret']:>8.4f}"
            f"{s['peak_mb']:>6.0f}"
        )
    return "\n".join(lines)


def specs(args: argparse.Namespace, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The run configurations of one variant, in (problem, agent, seed) order."""
    for problem in args.problems:
        for agent in args.agents:
            for seed in args.seeds:
                yield {
                    "problem": problem,
                    "cost_set": args.cost_set,
                    "variance": args.variance,
                    "budget": args.budget,
                    "agent": agent,
                    "seed": seed,
                    "agent_params": params,
                    "problem_options": {},
                }


Variant = tuple[str, str | None, dict[str, Any]]  # label, git revision (None: this tree), params


def summary_rows(
    args: argparse.Namespace, variants: list[Variant], episodes: dict[str, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    """One summary per problem, agent and variant; the current variant's rows are paired by seed
    with the baseline's when there is one."""
    summary = []
    for problem in args.problems:
        for agent in args.agents:
            for label, rev, params in variants:
                mine = [
                    e
                    for e in episodes[label]
                    if e["config"]["problem"] == problem and e["config"]["agent"] == agent
                ]
                summary.append(
                    {
                        "problem": problem,
                        "agent": agent,
                        "variant": label,
                        "rev": rev or "current tree",
                        "params": params,
                        "summary": summarize_episodes(mine),
                    }
                )
    if len(variants) == 2:
        for old, new in zip(summary[::2], summary[1::2], strict=True):
            new["paired_with_baseline"] = paired(new["summary"], old["summary"])
    return summary


def run_all(args: argparse.Namespace, progress: Callable[[str], None]) -> dict[str, Any]:
    """Every episode of every variant, the variants alternating per episode."""
    load_before = os.getloadavg()
    variants: list[Variant] = [("current", None, json.loads(args.params))]
    if args.compare_to is not None or args.baseline_params is not None:
        variants.insert(0, ("baseline", args.compare_to, json.loads(args.baseline_params or "{}")))
    episodes: dict[str, list[dict[str, Any]]] = {v[0]: [] for v in variants}
    with source_tree(variants[0][1]) as first, source_tree(None) as current:
        trees = {variants[0][0]: first, "current": current}
        runs = [list(specs(args, p)) for _, _, p in variants]
        for k, group in enumerate(zip(*runs, strict=True)):
            order = list(zip(variants, group, strict=True))
            for (label, _, _), spec in order if k % 2 == 0 else order[::-1]:
                result = run_worker(spec, trees[label], args.timeout)
                episodes[label].append(result)
                progress(
                    f"{label} {spec['problem']} {spec['agent']} seed {spec['seed']}: "
                    + result.get("error", f"{result.get('episode_s', 0):.1f} s")
                )
    summary = summary_rows(args, variants, episodes)
    return {
        "args": vars(args),
        "load_before": load_before,
        "summary": summary,
        "episodes": episodes,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--problems", nargs="+", default=["hartmann6_12d"])
    p.add_argument("--agents", nargs="+", default=["etc"])
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--cost-set", default="cheap")
    p.add_argument("--variance", type=float, default=0.02)
    p.add_argument("--budget", type=float, default=100.0)
    p.add_argument("--params", default="{}", help="agent options (JSON) of the current tree")
    p.add_argument(
        "--baseline-params",
        default=None,
        help="agent options (JSON) of the baseline; given (even '{}'), the baseline runs",
    )
    p.add_argument("--compare-to", default=None, help="a git revision to run side by side")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds per episode")
    p.add_argument("--out", type=Path, default=None, help="the JSON result")
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--result", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for name in ("params", "baseline_params"):
        try:
            if not isinstance(json.loads(getattr(args, name) or "{}"), dict):
                raise ValueError
        except ValueError:
            p.error(
                f"--{name.replace('_', '-')} must be a JSON object, got {getattr(args, name)!r}"
            )
    if set(args.problems) & set(DATA_PROBLEMS) and not os.environ.get("BOCVS_DATA_DIR"):
        p.error("plant and airfoil need BOCVS_DATA_DIR (the real-world data's directory)")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.worker is not None:
        args.result.write_text(json.dumps(run_one(json.loads(args.worker))))
        return
    result = run_all(args, lambda line: print(line, file=sys.stderr, flush=True))
    result["load_after"] = os.getloadavg()
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1, default=str))
    print(table(result["summary"]))
    for row in result["summary"]:
        if "paired_with_baseline" in row:
            pw = row["paired_with_baseline"]
            print(
                f"{row['problem']} {row['agent']}: seeds {pw['seeds']}, old/new time "
                f"{[round(r, 2) for r in pw['time_ratio_old_over_new']]}, regret new-old "
                f"{[round(r, 4) for r in pw['regret_new_minus_old']]}"
            )
    print(f"load average before {result['load_before']}, after {result['load_after']}")


if __name__ == "__main__":
    main()
