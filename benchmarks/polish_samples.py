"""How much the maxima of ``E[l]`` and ``E[u]`` move when the polishing uses fewer samples.

Plays ``n`` uniformly random (set, query) rounds of a problem through the environment, fits the
agents' default GP (fitted mode) to them, and maximizes ``E[bound]`` over every set, once with
the default polishing (all ``n_samples`` = 128 samples) and once per ``polish_samples`` value
(every maximum is valued with all samples either way). Reports per setting the largest and the
mean shortfall of the set maxima against the default's (positive: the option found less), the
error of the fewer-sample ``E[bound]`` against the 128-sample value at the default's maximizers,
the time of the maximizations (one thread, after an untimed one), and for each set its
maximizer polished once more on all samples (``polish_played``: the shortfall left and the
seconds per set).

Example::

    BOCVS_DATA_DIR=/work/shared/data python benchmarks/polish_samples.py --problem airfoil
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np


def measure(problem: str, n: int, seed: int, polish: list[int], bound: str) -> dict[str, Any]:
    """The set maxima of ``bound`` on ``n`` random rounds of ``problem``, per polishing."""
    import torch

    from agents.acquisition import ExpectedAcquisition, SetOptimizer
    from agents.surrogate import GPSurrogate
    from bocvs_env.env import BOCVSEnv

    torch.set_num_threads(1)
    env = BOCVSEnv(problem, privileged_info=False)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    X: list[np.ndarray] = []
    y: list[float] = []
    while len(y) < n:
        i = int(rng.integers(env.task.n_sets))
        obs, _, terminated, truncated, info = env.step(
            {"control_set": i, "x": rng.random(env.task.dim)}
        )
        if info.get("evaluated", False):
            X.append(np.asarray(obs["x"], np.float64))
            y.append(float(obs["y"][0]))
        if terminated or truncated:
            obs, _ = env.reset(seed=seed + len(y))
    gp = GPSurrogate(env.task.dim, mode="fitted", seed=seed)
    gp.fit(np.array(X), np.array(y))
    sets = list(range(env.task.n_sets))
    out: dict[str, Any] = {"problem": problem, "n": n, "seed": seed, "bound": bound}
    runs: dict[str, Any] = {}
    # untimed, so that what the surrogate caches (e.g. its precision matrix) favours no setting
    acq = ExpectedAcquisition(env.task, seed=seed)
    estimator = acq.estimator(gp, bound)  # type: ignore[arg-type]
    candidates = acq.candidates(sets, gp.train_X)
    SetOptimizer().maximize(estimator, sets, candidates)
    for k in [None, *polish]:
        t0 = time.perf_counter()
        found = SetOptimizer(polish_samples=k).maximize(estimator, sets, candidates)
        runs[str(k or acq.n_samples)] = {
            "seconds": time.perf_counter() - t0,
            "values": [v for v, _ in found],
            "x": [x.tolist() for _, x in found],
        }
    default = runs["128"]
    at_default = [(i, torch.tensor([x])) for i, x in zip(sets, default["x"], strict=True)]
    with torch.no_grad():
        exact = torch.cat(estimator.value(at_default))
    for k in polish:
        gap = np.array(default["values"]) - np.array(runs[str(k)]["values"])
        with torch.no_grad():
            err = (torch.cat(estimator.value(at_default, k)) - exact).abs().max()
        # what ``polish_played`` adds for the one set played: its maximizer polished again on
        # all samples (each set on its own, as a played set is), and how far that recovers
        optimizer = SetOptimizer(polish_samples=k)
        t0 = time.perf_counter()
        played = [
            optimizer.polish_from(estimator, [i], [np.array(x)], all_samples=True)[0]
            for i, x in zip(sets, runs[str(k)]["x"], strict=True)
        ]
        played_gap = np.array(default["values"]) - np.array([v for v, _ in played])
        runs[str(k)].update(
            max_shortfall=float(gap.max()),
            mean_shortfall=float(gap.mean()),
            max_estimate_error=float(err),
            played_seconds_per_set=(time.perf_counter() - t0) / len(sets),
            played_max_shortfall=float(played_gap.max()),
            played_mean_shortfall=float(played_gap.mean()),
        )
    out["runs"] = runs
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--problem", default="airfoil")
    p.add_argument("--sizes", nargs="+", type=int, default=[100, 300])
    p.add_argument("--seeds", nargs="+", type=int, default=[0])
    p.add_argument("--polish", nargs="+", type=int, default=[16, 32, 64])
    p.add_argument("--bounds", nargs="+", default=["lcb", "ucb"])
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    results = []
    for n in args.sizes:
        for seed in args.seeds:
            for bound in args.bounds:
                r = measure(args.problem, n, seed, args.polish, bound)
                results.append(r)
                for k, run in r["runs"].items():
                    extra = (
                        f" shortfall max {run['max_shortfall']:+.2e} mean {run['mean_shortfall']:+.2e}"
                        f" estimate error max {run['max_estimate_error']:.2e};"
                        f" played again on all: shortfall max {run['played_max_shortfall']:+.2e}"
                        f" mean {run['played_mean_shortfall']:+.2e},"
                        f" {run['played_seconds_per_set']:.2f} s per set"
                        if "max_shortfall" in run
                        else ""
                    )
                    print(
                        f"{args.problem} n={n} seed={seed} {bound} polish {k}: "
                        f"{run['seconds']:.2f} s{extra}",
                        flush=True,
                    )
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
