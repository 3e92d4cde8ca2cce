"""Meta-train a neural acquisition (imitation, then PPO) across functions and test it on
unseen ones.

The policy (:class:`agents.neural.network.RowPolicy`) scores every (control set, candidate
query) pair with one shared network from what a BO agent sees: a GP's posterior mean and
deviation of each set's expected value, the set's observed cost and its bounds, its play count
and the budget spent (:mod:`agents.neural.features`), as MetaBO (Volpp et al., ICLR 2020).
The training (:func:`agents.neural.train.train`, through
:class:`agents.neural.wrapper.CandidateEnv`) first imitates a teacher who knows the training
functions (:mod:`agents.neural.imitation`), then runs PPO (Stable-Baselines3), on a family's
training functions and a distribution of cost sets and budgets; the trained policy then plays
the test split (function seeds the training never drew) as an agent
(:class:`agents.neural.agent.NeuralAFAgent`) in :func:`bocvs_env.evaluation.run_episode`, next to
the shipped model (``neural-af``), its untrained start (``neural-af-prior``), ETC and random, on
the same seeds.

By default the training imitates for 512 steps and runs PPO for 1,024 on the rotated
Hartmann-3 training functions at moderate costs and budget 5, and every agent plays 3 test
functions (a few minutes on two cores; too short to learn much: it shows the loop). It keeps
the last weights. ``--full`` trains with the training's defaults (``python -m
agents.neural.train``: both families, every cost set, budgets 3 to 10, the weights kept by
validation on held-out training functions) and tests on 20 functions; ``--smoke`` is a
seconds-long check that it runs (what the tests run). Progress goes to stderr, the table to
stdout::

    python examples/train_ppo.py
    python examples/train_ppo.py --full
    python examples/train_ppo.py --smoke

Torch runs on one thread (``--torch-threads``): the networks are two layers of 64 units on
batches of a few hundred rows, where a thread pool's start-up and synchronisation cost more
than they save.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium as gym
import numpy as np
from _common import parse_args

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent, registered_agents
from agents.neural.agent import NeuralAFAgent
from agents.neural.train import FAMILY_TRAIN_IDS, TrainConfig, train
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize

#: The default setting, the shipped model's training (``--full``) and a check that the script
#: runs (``--smoke``); flags given explicitly win.
QUICK = {"train_ids": "bocvs/RotatedHartmann3Family-Train-v1", "total_timesteps": 1_024,
         "n_envs": 2, "n_steps": 128, "validation_functions": 0, "eval_episodes": 3,
         "imitation_rounds": 1, "imitation_steps": 512, "cost_sets": "moderate", "budgets": "5"}  # fmt: skip
FULL = {"train_ids": FAMILY_TRAIN_IDS, "total_timesteps": TrainConfig.total_timesteps,
        "n_envs": TrainConfig.n_envs, "n_steps": TrainConfig.n_steps,
        "validation_functions": TrainConfig.validation_functions, "eval_episodes": 20,
        "imitation_rounds": TrainConfig.imitation_rounds,
        "imitation_steps": TrainConfig.imitation_steps, "cost_sets": TrainConfig.cost_sets,
        "budgets": TrainConfig.budgets}  # fmt: skip
SMOKE = {"train_ids": "bocvs/RotatedHartmann3Family-Train-v1", "total_timesteps": 64,
         "n_envs": 2, "n_steps": 32, "validation_functions": 1, "eval_episodes": 1,
         "baselines": "random", "imitation_rounds": 1, "imitation_steps": 16,
         "cost_sets": "moderate", "budgets": "5"}  # fmt: skip


def log(text: str) -> None:
    """A progress line on stderr (stdout carries the result)."""
    print(text, file=sys.stderr, flush=True)


@dataclass
class Args:
    train_ids: str = str(QUICK["train_ids"])
    test_id: str = "bocvs/RotatedHartmann3Family-Test-v1"
    budget: float = 5.0
    total_timesteps: int = int(QUICK["total_timesteps"])
    n_envs: int = int(QUICK["n_envs"])
    n_steps: int = int(QUICK["n_steps"])
    #: Validation functions per training id (training-split functions the training never
    #: draws); the weights that score best on them are kept (0: the last weights).
    validation_functions: int = int(QUICK["validation_functions"])
    eval_episodes: int = int(QUICK["eval_episodes"])
    #: The imitation phase's rounds and steps per round, and the training's cost sets and
    #: budgets (comma-separated; the tests play ``budget`` at moderate costs).
    imitation_rounds: int = int(QUICK["imitation_rounds"])
    imitation_steps: int = int(QUICK["imitation_steps"])
    cost_sets: str = str(QUICK["cost_sets"])
    budgets: str = str(QUICK["budgets"])
    eval_seed: int = 100_000
    baselines: str = "neural-af,neural-af-prior,etc,random"
    seed: int = 0
    torch_threads: int = 1
    save_path: str = ""
    full: bool = False  # train as the shipped model, test on 20 functions (FULL)
    smoke: bool = False  # seconds: a check that the script runs (SMOKE)


def evaluate(args: Args, model_path: Path) -> dict[str, list[dict]]:
    """Episodes of the trained policy and the baselines on the test split, the same seeds for
    every agent."""
    env = gym.make(args.test_id, cost_set="moderate", budget=args.budget)
    names = [n for n in args.baselines.split(",") if n]
    known = registered_agents()
    agents = [NeuralAFAgent(model=model_path, name="trained")]
    agents += [make_agent(n) for n in names if n in known]
    results: dict[str, list[dict]] = {a.name: [] for a in agents}
    for k in range(args.eval_episodes):
        for agent in agents:
            record = run_episode(env, agent, seed=args.eval_seed + k)
            summary = summarize(record)
            summary["function_seed"] = record.config["function_seed"]
            results[agent.name].append(summary)
        log(f"  tested on function {k + 1}/{args.eval_episodes}")
    return results


def report(results: dict[str, list[dict]]) -> None:
    """The table, and what it shows."""
    n = len(next(iter(results.values())))
    print(
        f"Each agent on the same {n} unseen test functions: final simple regret (lower is "
        "better) and evaluations bought; mean ± standard error over functions."
    )
    keys = ("simple_regret", "evaluations")
    print(f"{'agent':>10}" + "".join(f"{k + ' (mean ± se)':>28}" for k in keys))
    for name, rows in results.items():
        cells = []
        for key in keys:
            v = np.array([r[key] for r in rows], dtype=np.float64)
            se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0
            cells.append(f"{v.mean():>18.4f} ± {se:<7.4f}")
        print(f"{name:>10}" + "".join(f"{c:>28}" for c in cells))
    seeds = sorted({r["function_seed"] for rows in results.values() for r in rows})
    print(f"test function seeds: {seeds}")
    print(verdict(results))
    print(
        "What to look for: 'trained' is the policy this run trained (GP-UCB over the "
        "candidates at the start, adapted by imitation and PPO), 'neural-af' the shipped one "
        "and 'neural-af-prior' their untrained start (benchmarks/neural_af_eval.py compares "
        "them on test functions with paired intervals); --full trains with the training's "
        "defaults."
    )


def verdict(results: dict[str, list[dict]]) -> str:
    """One line: where the trained policy ranks by mean final simple regret, and how far that
    goes on this many functions."""
    means = {
        name: float(np.mean([r["simple_regret"] for r in rows])) for name, rows in results.items()
    }
    order = sorted(means, key=means.__getitem__)
    n = len(next(iter(results.values())))
    others = ", ".join(f"{a} {means[a]:.3g}" for a in order if a != "trained")
    return (
        f"Verdict: 'trained' ends with mean final simple regret {means['trained']:.3g}, "
        f"{order.index('trained') + 1} of {len(order)} (lowest first; {others}), on {n} "
        f"functions{': too few to call a difference' if n < 20 else ''}; paired intervals on 20 "
        "functions: benchmarks/neural_af_eval.py."
    )


def main() -> None:
    args = parse_args(Args, __doc__, {"quick": QUICK, "full": FULL, "smoke": SMOKE})
    log(f"# {asdict(args)}")
    config = TrainConfig(
        env_ids=args.train_ids,
        cost_sets=args.cost_sets,
        budgets=args.budgets,
        imitation_rounds=args.imitation_rounds,
        imitation_steps=args.imitation_steps,
        total_timesteps=args.total_timesteps,
        n_envs=args.n_envs,
        n_steps=args.n_steps,
        batch_size=min(TrainConfig.batch_size, args.n_envs * args.n_steps),
        validation_functions=args.validation_functions,
        validate_every=min(TrainConfig.validate_every, args.total_timesteps),
        seed=args.seed,
        torch_threads=args.torch_threads,
    )
    start = time.perf_counter()
    result = train(config)
    kept = (f"kept the weights of step {result.best_steps} (validation: "
            f"{result.validation_history})" if result.validation_history else "kept the last weights")  # fmt: skip
    log(
        f"trained {result.imitation_steps} + {args.total_timesteps} steps in {time.perf_counter() - start:.0f} s; {kept}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.save_path or Path(tmp) / "neural_af.zip")
        result.model.save(path)
        report(evaluate(args, path))


if __name__ == "__main__":
    main()
