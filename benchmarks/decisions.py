"""The decision benchmark: the agents' decisions against a reference-style decision,
side by side, with quality judged by one common estimate.

For ``hartmann6_12d`` (cheap costs, variance 0.02) it builds one seeded data set through the real
environment (uniform random sets and queries) and, for each ``n`` of ``--sizes``, times on its
first ``n`` observations:

- ``reference``: the reference-style decision of :mod:`bocvs_env.benchmark.reference_decision` (a GP factorized
  from scratch, 1,024 i.i.d. samples, random search and L-BFGS-B on finite differences), UCB
  over all 7 sets, GP fit included;
- ``ucb-psq``: UCB-PSQ's decision through the agent's own surrogate and acquisition
  (``UCBPSQAgent(prefer_full_set=False, surrogate_mode="fixed")``: ``max E[u]`` over all 7 sets);
- ``etc``: one ETC exploitation round at its most expensive (``max E[l]`` over the maximal sets,
  as ETC computes it, and ``max E[u]`` over all 7 sets, as when no bar rules a set out).

An agent's decision is timed as it happens in an episode: the surrogate, fitted to the first
``n - 1`` points beforehand (untimed, like the previous rounds of an episode), absorbs the
``n``-th observation (``update``, the agent's ``observe``), then the set maxima are computed
(``decide``); the reported time is their sum. Each configuration runs in a fresh subprocess
that reports its median and spread over repeats (the agents' seeds differ per repeat), its
process peak RSS and the peak RSS of the decision itself (``VmHWM`` after resetting it through
``/proc/self/clear_refs``). Every chosen ``(set, x)`` is then valued under one common estimate:
the same fixed-hyperparameter GP posterior, ``E[u]`` over ``2^14`` Sobol samples
(``--quality-samples``; ``--quality-samples-large`` above n = 3,000).

It also measures ``env.step`` throughput, one whole ETC episode (cheap costs, budget 100) and
the ``quick`` preset through the CLI. Torch and BLAS run single-threaded in every worker
(``--threads``), the reference included: on a machine shared with other jobs, two intra-op
threads made the agents' small operations an order of magnitude slower.

Run: ``python benchmarks/decisions.py`` (a quick check: ``--sizes 100 --repeats 1
--skip-episode --skip-preset --out /tmp/d.json``). Prints markdown tables; writes JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
PROBLEM: dict[str, Any] = {"problem": "hartmann6_12d", "cost_set": "cheap", "variance": 0.02}
METHODS = ("reference", "ucb-psq", "etc")


# ------------------------------------------------------------------------------------ workers
def _set_threads(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)


def _vm(field: str) -> float:
    """A ``/proc/self/status`` memory field (``VmRSS``, ``VmHWM``) in MB."""
    text = Path("/proc/self/status").read_text()
    match = re.search(rf"{field}:\s+(\d+)", text)
    assert match is not None, f"no {field} in /proc/self/status"
    return int(match.group(1)) / 1024


def _reset_peak() -> None:
    """Reset ``VmHWM`` to the current RSS (Linux >= 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


def _task_and_data(data: str, n: int) -> tuple[Any, np.ndarray, np.ndarray]:
    from bocvs_env import BOCVSEnv

    arrays = np.load(data)
    env = BOCVSEnv(PROBLEM["problem"], cost_set=PROBLEM["cost_set"], variance=PROBLEM["variance"])
    return env.task, arrays["X"][:n], arrays["y"][:n]


def _reference_repeat(task: Any, X: np.ndarray, y: np.ndarray, seed: int) -> dict[str, Any]:
    from bocvs_env.benchmark.reference_decision import ReferenceGP, reference_decision

    t0 = time.perf_counter()
    gp = ReferenceGP.fit(X, y)
    decision = reference_decision(gp, task, seed=seed)
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "set": decision.control_set,
        "value": decision.value,
        "ucb": [[c.value, c.x.tolist()] for c in decision.per_set],
    }


def _agent_repeat(method: str, task: Any, X: np.ndarray, y: np.ndarray, seed: int) -> dict:
    """One agent decision on ``n`` points, the surrogate prepared on ``n - 1`` (untimed)."""
    from agents.policies.etc import ETCAgent
    from agents.policies.psq import UCBPSQAgent
    from agents.rules.set_selection import best_set, maximal_sets

    # The reference's fixed hyperparameters, so that both decisions see the same posterior.
    model: dict[str, Any] = {"surrogate_mode": "fixed"}
    agent = (
        UCBPSQAgent(prefer_full_set=False, **model) if method == "ucb-psq" else ETCAgent(**model)
    )
    info = {"initial_x": X[:-1], "initial_y": y[:-1]}
    agent.reset(task, {}, info, seed=seed)
    _ = agent.surrogate.precision  # built once per episode, then extended every round
    last = {"x": X[-1], "y": y[-1:], "cost": np.array([0.01]), "control_set": np.int64(0)}
    sets = list(range(task.n_sets))
    _reset_peak()
    t0 = time.perf_counter()
    agent.observe(
        {"control_set": 0, "x": X[-1]}, last, float(y[-1]), False, False, {"evaluated": True}
    )
    t1 = time.perf_counter()
    lcb = agent.set_maxima(maximal_sets(task.control_sets), "lcb") if method == "etc" else {}
    ucb = agent.set_maxima(sets, "ucb")
    t2 = time.perf_counter()
    values = np.array([ucb[i][0] for i in sets])
    chosen = best_set(sets, values)
    out = {
        "seconds": t2 - t0,
        "update_seconds": t1 - t0,
        "decision_peak_mb": _vm("VmHWM"),
        "set": chosen,
        "value": float(values[chosen]),
        "ucb": [[ucb[i][0], ucb[i][1].tolist()] for i in sets],
    }
    if lcb:
        j = max(lcb, key=lambda i: lcb[i][0])
        out["lcb"] = [j, lcb[j][0], lcb[j][1].tolist()]
    return out


def _worker_decisions(args: argparse.Namespace) -> dict[str, Any]:
    task, X, y = _task_and_data(args.data, args.n)
    if args.method != "reference":  # imports and lazy initializations, on a few points
        _agent_repeat(args.method, task, X[:20], y[:20], seed=10_000)
    before = _vm("VmRSS")
    repeats = []
    for r in range(args.repeats):
        if args.method == "reference":
            _reset_peak()
            rep = _reference_repeat(task, X, y, seed=r)
            rep["decision_peak_mb"] = _vm("VmHWM")
        else:
            rep = _agent_repeat(args.method, task, X, y, seed=r)
        repeats.append(rep)
        print(f"  {args.method} n={args.n} repeat {r}: {rep['seconds']:.2f} s", flush=True)
    return {
        "rss_before_mb": before,
        "process_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "repeats": repeats,
    }


def _worker_quality(args: argparse.Namespace) -> dict[str, Any]:
    """Common ``E[bound]`` of the points in ``args.points`` (a JSON list of [bound, set, x])."""
    from bocvs_env.benchmark.reference_decision import ReferenceGP, common_expected_bound

    task, X, y = _task_and_data(args.data, args.n)
    gp = ReferenceGP.fit(X, y)
    points = json.loads(Path(args.points).read_text())
    values = []
    for bound, i, x in points:
        v = common_expected_bound(gp, task, [i], np.array([x]), bound, n_samples=args.samples)
        values.append(float(v[0]))
    return {"values": values, "samples": args.samples}


def _worker_episode(args: argparse.Namespace) -> dict[str, Any]:
    """One ETC episode; stopped (and reported as such) after ``args.timeout`` seconds."""
    from agents.policies.etc import ETCAgent
    from bocvs_env import BOCVSEnv
    from bocvs_env.evaluation import run_episode

    class _Stop(Exception):
        pass

    # options left unset keep the problem's and the agent's defaults
    initial = {} if args.initial is None else {"n_initial": args.initial}
    alpha0 = {} if args.alpha0 is None else {"alpha0": args.alpha0}
    env = BOCVSEnv(PROBLEM["problem"], cost_set=PROBLEM["cost_set"], variance=PROBLEM["variance"],
                   budget=args.budget, **initial)  # fmt: skip
    agent = ETCAgent(surrogate_mode=args.surrogate, halve_every=args.halve_every, **alpha0)
    trace: list[list[float]] = []
    t0, cpu0 = time.perf_counter(), time.process_time()

    def progress(spent: float, budget: float) -> None:
        elapsed = time.perf_counter() - t0
        steps = len(agent.y) - env.problem.n_initial
        if steps % 250 == 0:
            trace.append([steps, spent, elapsed])
            print(f"  episode: {steps} evaluations, spent {spent:.2f}, {elapsed:.0f} s", flush=True)
        if elapsed > args.timeout:
            raise _Stop

    completed = True
    try:
        run_episode(env, agent, seed=0, progress=progress)
    except _Stop:
        completed = False
    return {
        "completed": completed,
        "budget": args.budget,
        "alpha0": agent.rules.alpha0,
        "halve_every": agent.rules.halve_every,
        "initial_points": env.problem.n_initial,
        "surrogate_mode": agent.surrogate_options.surrogate_mode,
        "agent_params": agent.params(),
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - cpu0,
        "hyperparameter_fits": agent.surrogate.fitter.n_refits,
        "evaluations": len(agent.y) - env.problem.n_initial,
        "spent": agent.spent,
        "explore_rounds": agent.state.n_explore,
        "exploit_rounds": agent.state.n_exploit,
        "plays": agent.plays.tolist(),
        "process_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "trace": trace,
    }


# ------------------------------------------------------------------------------------- parent
def run_worker(
    kind: str,
    extra: list[str],
    threads: int,
    timeout: float | None = None,
    tree: Path | None = None,
) -> dict[str, Any] | None:
    """Run this script as a worker in a fresh process; its JSON result, or ``None`` if it ran
    past ``timeout`` seconds (and was killed). With ``tree`` (a checkout of the project), that
    tree's own copy of this script runs, with the tree first on ``PYTHONPATH``."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))  # fmt: skip
    script = __file__
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
        script = str(tree / "benchmarks" / "decisions.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        cmd = [sys.executable, script, "--worker", kind, "--result", str(out),
               "--threads", str(threads), *extra]  # fmt: skip
        try:
            subprocess.run(cmd, check=True, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"  {kind} {' '.join(extra)}: stopped after {timeout:.0f} s", flush=True)
            return None
        return json.loads(out.read_text())


def make_data(n: int, path: Path) -> dict[str, float]:
    """Observations of uniform random sets and queries through the environment; step timings."""
    from bocvs_env import BOCVSEnv

    out = {}
    for privileged in (False, True):  # the largest budget allowed here outlasts every size
        env = BOCVSEnv(**{"problem": PROBLEM["problem"]}, cost_set=PROBLEM["cost_set"],
                       variance=PROBLEM["variance"], budget=1e4, n_initial=0,
                       privileged_info=privileged)  # fmt: skip
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        steps = n if not privileged else min(n, 2000)
        X, y = np.empty((steps, 12)), np.empty(steps)
        t0 = time.perf_counter()
        for t in range(steps):
            action = {"control_set": int(rng.integers(env.problem.n_sets)), "x": rng.random(12)}
            obs, *_ = env.step(action)
            X[t], y[t] = obs["x"], obs["y"][0]
        key = "steps_per_s_privileged" if privileged else "steps_per_s"
        out[key] = steps / (time.perf_counter() - t0)
        if not privileged:
            np.savez(path, X=X, y=y)
    return out


def _summary(method: str, result: dict[str, Any]) -> dict[str, Any]:
    secs = [r["seconds"] for r in result["repeats"]]
    row = {
        "method": method,
        "repeats": len(secs),
        "median_s": statistics.median(secs),
        "min_s": min(secs),
        "max_s": max(secs),
        "decision_peak_mb": max(r["decision_peak_mb"] for r in result["repeats"]),
        "process_peak_mb": result["process_peak_mb"],
        "rss_before_mb": result["rss_before_mb"],
    }
    if "update_seconds" in result["repeats"][0]:
        row["median_update_s"] = statistics.median(r["update_seconds"] for r in result["repeats"])
    return row


def _quality(n: int, results: dict[str, dict], args: argparse.Namespace, data: Path) -> None:
    """Add the common estimate of every chosen point to the repeats, in place."""
    from bocvs_env.problems import PROBLEMS

    control_sets = PROBLEMS[PROBLEM["problem"]].control_sets
    points: list[list[Any]] = []
    index: dict[str, int] = {}

    def key_of(bound: str, i: int, x: list[float]) -> int:
        key = json.dumps([bound, i, [x[l] for l in control_sets[i]]])
        if key not in index:
            index[key] = len(points)
            points.append([bound, i, x])
        return index[key]

    for result in results.values():
        for rep in result["repeats"]:
            rep["_ucb_keys"] = [key_of("ucb", i, x) for i, (_, x) in enumerate(rep["ucb"])]
            if "lcb" in rep:
                rep["_lcb_key"] = key_of("lcb", rep["lcb"][0], rep["lcb"][2])
    samples = args.quality_samples if n <= 3000 else args.quality_samples_large
    with tempfile.TemporaryDirectory() as tmp:
        pts = Path(tmp) / "points.json"
        pts.write_text(json.dumps(points))
        extra = ["--data", str(data), "--n", str(n), "--points", str(pts),
                 "--samples", str(samples)]  # fmt: skip
        quality = run_worker("quality", extra, args.threads)
        assert quality is not None  # no timeout: the worker ran to the end
        values = quality["values"]
    for result in results.values():
        result["quality_samples"] = samples
        for rep in result["repeats"]:
            rep["common_ucb"] = [values[k] for k in rep.pop("_ucb_keys")]
            rep["common_value"] = rep["common_ucb"][rep["set"]]
            if "_lcb_key" in rep:
                rep["common_lcb"] = values[rep.pop("_lcb_key")]


def _quality_row(row: dict[str, Any], result: dict[str, Any], ref: dict | None) -> None:
    reps = result["repeats"]
    row["own_value"] = statistics.median(r["value"] for r in reps)
    row["common_value"] = statistics.median(r["common_value"] for r in reps)
    row["common_value_min"] = min(r["common_value"] for r in reps)
    per_set = np.median(np.array([r["common_ucb"] for r in reps]), axis=0)
    row["common_per_set"] = per_set.tolist()
    if "common_lcb" in reps[0]:
        row["common_lcb"] = statistics.median(r["common_lcb"] for r in reps)
    if ref is not None:
        ref_sets = np.median(np.array([r["common_ucb"] for r in ref["repeats"]]), axis=0)
        row["worst_set_gap_vs_reference"] = float((per_set - ref_sets).min())


def _fmt(v: Any, spec: str = ".3g") -> str:
    return "–" if v is None else format(v, spec)


def _print_tables(report: dict[str, Any]) -> None:
    print("\n### One decision on hartmann6_12d (cheap, variance 0.02)\n")
    print("| n | method | repeats | median s (min–max) | update s | reference / this | "
          "decision peak MB | process peak MB | chosen set | common E[u] (min) | "
          "reference's common E[u] | worst per-set gap |")  # fmt: skip
    print("|" + " ---: |" * 12)
    for n_rows in report["decisions"]:
        for method in n_rows["stopped"]:
            print(f"| {n_rows['n']} | {method} | stopped at the time limit |" + " |" * 9)
        ref = next((r for r in n_rows["rows"] if r["method"] == "reference"), None)
        for r in n_rows["rows"]:
            ratio = ref["median_s"] / r["median_s"] if ref and r is not ref else None
            print(
                f"| {n_rows['n']} | {r['method']} | {r['repeats']} | {r['median_s']:.3g} "
                f"({r['min_s']:.3g}–{r['max_s']:.3g}) | {_fmt(r.get('median_update_s'))} | "
                f"{_fmt(ratio, '.0f')} | {r['decision_peak_mb']:.0f} | "
                f"{r['process_peak_mb']:.0f} | {r['chosen_sets']} | "
                f"{_fmt(r.get('common_value'), '.4f')} ({_fmt(r.get('common_value_min'), '.4f')})"
                f" | {_fmt(ref and ref.get('common_value'), '.4f')} | "
                f"{_fmt(r.get('worst_set_gap_vs_reference'), '+.4f')} |"
            )
    env = report.get("env_step")
    if env:
        print(f"\nenv.step: {env['steps_per_s']:.0f} steps/s "
              f"({env['steps_per_s_privileged']:.0f} with the privileged g)")  # fmt: skip
    ep = report.get("episode")
    if ep:
        state = "completed" if ep["completed"] else "stopped at the time limit"
        print(f"ETC episode (budget {ep['budget']:g}, alpha0 {ep.get('alpha0', 0.1):g}, "
              f"halve_every {ep.get('halve_every') or 'd'}, {ep.get('initial_points', 5)} free "
              f"initial points): {state} after {ep['seconds']:.0f} s, "
              f"{ep['evaluations']} evaluations ({ep['explore_rounds']} explore, "
              f"{ep['exploit_rounds']} exploit), spent {ep['spent']:.2f}, plays {ep['plays']}, "
              f"peak {ep['process_peak_mb']:.0f} MB")  # fmt: skip
    pre = report.get("preset")
    if pre:
        print(f"`bocvs run --preset quick`: {pre['seconds']:.0f} s, exit code {pre['returncode']}")


def _machine() -> dict[str, Any]:
    cpu = next(
        (l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
         if l.startswith("model name")), platform.processor(),
    )  # fmt: skip
    match = re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())
    assert match is not None, "no MemTotal in /proc/meminfo"
    mem = int(match.group(1))
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(mem / 2**20, 1),
        "python": platform.python_version(),
        "load_average_at_start": os.getloadavg(),
    }


def _extras(report: dict[str, Any], args: argparse.Namespace, save: Any) -> None:
    """The ETC episode and the quick preset (unless skipped), saved as they come."""
    if not args.skip_episode:
        print(f"ETC episode, budget {args.episode_budget:g}", flush=True)
        extra = ["--budget", str(args.episode_budget), "--timeout", str(args.episode_timeout)]
        for flag, value in (("--alpha0", args.episode_alpha0), ("--initial", args.episode_initial),
                            ("--halve-every", args.episode_halve_every),
                            ("--surrogate", args.episode_surrogate)):  # fmt: skip
            if value is not None:
                extra += [flag, str(value)]
        report["episode"] = run_worker("episode", extra, args.threads)
        save()
    if not args.skip_preset:
        report["preset"] = _quick_preset(args.preset_timeout)
        save()


def _decisions_at(n: int, report: dict[str, Any], args: argparse.Namespace, data: Path) -> None:
    """Every method's decision at ``n`` observations, their quality, a table row each."""
    from bocvs_env.benchmark.versions import this_version

    results, stopped = {}, []
    for method in METHODS:
        if method == "reference" and n > args.reference_max_n:
            continue
        if method == "etc" and "ucb-psq" in stopped:  # ETC's decision contains UCB-PSQ's
            stopped.append(method)
            continue
        if method == "reference":
            repeats = args.reference_repeats if n < 1000 else args.reference_large_repeats
        else:
            repeats = args.repeats if n < 3000 else min(args.repeats, args.large_repeats)
        extra = ["--data", str(data), "--n", str(n), "--method", method,
                 "--repeats", str(repeats)]  # fmt: skip
        print(f"n={n} {method} ({repeats} repeats)", flush=True)
        result = run_worker("decisions", extra, args.threads, args.worker_timeout)
        if result is None:
            stopped.append(method)
        else:
            results[method] = result
    if results:
        _quality(n, results, args, data)
    rows = []
    for method, result in results.items():
        row = _summary(method, result)
        row["chosen_sets"] = sorted({r["set"] for r in result["repeats"]})
        _quality_row(row, result, results.get("reference"))
        rows.append(row)
    code = {"version": this_version()}  # the commit (with a digest of any edit) and libraries
    entry = {"n": n, "code": code, "rows": rows, "stopped": stopped, "raw": results}
    report["decisions"].append(entry)
    _print_tables({"decisions": [entry]})


def _quick_preset(timeout: float) -> dict[str, Any]:
    """Wall time of ``bocvs run --preset quick`` into a temporary store (killed after
    ``timeout`` seconds)."""
    print("bocvs run --preset quick", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        # the CLI of the running interpreter (``bocvs`` need not be on PATH)
        cmd = [sys.executable, "-m", "bocvs_env.benchmark", "run", "--preset", "quick"]
        cmd += ["--store", f"{tmp}/quick.db", "--no-plot"]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, timeout=timeout)
            code, tail = proc.returncode, (proc.stdout + proc.stderr)[-2000:]
        except subprocess.TimeoutExpired:
            code, tail = None, f"stopped after {timeout:.0f} s"
        return {
            "command": "bocvs run --preset quick --store <tmp> --no-plot",
            "seconds": time.perf_counter() - t0,
            "returncode": code,
            "output_tail": tail,
        }


def _parent(args: argparse.Namespace) -> None:
    import torch

    torch.set_num_threads(args.threads)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "problem": PROBLEM,
        "machine": {**_machine(), "torch": torch.__version__, "threads": args.threads},
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "decisions": [],
    }

    def save() -> None:
        report["load_average_at_end"] = os.getloadavg()
        out.write_text(json.dumps(report, indent=1))

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.npz"
        report["env_step"] = make_data(max(args.sizes), data)
        print(f"env.step: {report['env_step']}", flush=True)
        extras_done = False
        for n in args.sizes:
            if not extras_done and n > args.episode_after:
                _extras(report, args, save)
                extras_done = True
            _decisions_at(n, report, args, data)
            save()
        if not extras_done:
            _extras(report, args, save)
    report["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    save()
    _print_tables(report)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000, 3000, 10000])
    p.add_argument("--repeats", type=int, default=3, help="agent repeats per size")
    p.add_argument("--reference-repeats", type=int, default=2, help="below n = 1000")
    p.add_argument("--reference-large-repeats", type=int, default=1, help="at n >= 1000")
    p.add_argument("--large-repeats", type=int, default=2, help="most repeats at n >= 3000")
    p.add_argument(
        "--reference-max-n",
        type=int,
        default=1000,
        help="largest n with a reference decision (5 min at 1000, about 1 h at 3000, 1 core)",
    )
    p.add_argument("--threads", type=int, default=1, help="torch/BLAS threads per worker")
    p.add_argument("--quality-samples", type=int, default=1 << 14)
    p.add_argument(
        "--quality-samples-large",
        type=int,
        default=1 << 11,
        help="Sobol samples of the common estimate above n = 3000",
    )
    p.add_argument("--episode-budget", type=float, default=100.0)
    p.add_argument("--episode-timeout", type=float, default=900.0, help="seconds")
    p.add_argument(
        "--episode-alpha0",
        type=float,
        help="ETC's alpha0 in the episode (default: the agent's, 0.1)",
    )
    p.add_argument(
        "--episode-initial",
        type=int,
        help="free initial points of the episode (default: the problem's, 5)",
    )
    p.add_argument(
        "--episode-halve-every",
        type=int,
        help="exploitation evaluations between halvings of alpha in the episode (default: d)",
    )
    p.add_argument(
        "--episode-surrogate",
        choices=("fixed", "fitted"),
        default="fixed",
        help="the episode's GP: the reference's fixed hyperparameters (as the decisions above), "
        "or the agents' default fitted mode",
    )
    p.add_argument(
        "--episode-after",
        type=int,
        default=1000,
        help="run the episode and the preset after the sizes up to this n, then the larger ones",
    )
    p.add_argument(
        "--worker-timeout",
        type=float,
        default=600.0,
        help="seconds one configuration may run before it is stopped and reported",
    )
    p.add_argument("--skip-episode", action="store_true")
    p.add_argument("--skip-preset", action="store_true")
    p.add_argument("--preset-timeout", type=float, default=1500.0, help="seconds")
    p.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "decisions.json"))
    # internal: the worker processes
    p.add_argument("--worker", choices=("decisions", "quality", "episode"), help=argparse.SUPPRESS)
    for name in ("--result", "--data", "--method", "--points"):
        p.add_argument(name, help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, help=argparse.SUPPRESS)
    p.add_argument("--samples", type=int, help=argparse.SUPPRESS)
    p.add_argument("--budget", type=float, help=argparse.SUPPRESS)
    p.add_argument("--timeout", type=float, help=argparse.SUPPRESS)
    p.add_argument("--alpha0", type=float, help=argparse.SUPPRESS)
    p.add_argument("--halve-every", type=int, help=argparse.SUPPRESS)
    p.add_argument("--initial", type=int, help=argparse.SUPPRESS)
    p.add_argument("--surrogate", choices=("fixed", "fitted"), default="fixed",
                   help=argparse.SUPPRESS)  # fmt: skip
    args = p.parse_args()
    if args.worker is None:
        _parent(args)
        return
    _set_threads(args.threads)
    work = {"decisions": _worker_decisions, "quality": _worker_quality,
            "episode": _worker_episode}[args.worker]  # fmt: skip
    Path(args.result).write_text(json.dumps(work(args)))


if __name__ == "__main__":
    main()
