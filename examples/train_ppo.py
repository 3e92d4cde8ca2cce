"""Train PPO across functions and compare it with ETC and random on unseen test functions.

PPO (Stable-Baselines3) learns on the training split of a problem family (a new function per
episode) through the SB3 wrappers (:func:`bocvs_env.wrappers.make_sb3_env`); the trained policy
then plays the test split (function seeds the training never drew) through the benchmark
adapter :class:`agents.sb3.SB3Agent`, in :func:`bocvs_env.evaluation.run_episode`, next to the
registered agents, on the same seeds (so every agent meets the same test functions).

Run (CI uses the small settings of the second line)::

    python examples/train_ppo.py --total-timesteps 50000 --eval-episodes 10
    python examples/train_ppo.py --total-timesteps 2048 --eval-episodes 1 --n-steps 256
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass

import gymnasium as gym
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent
from agents.registry import AGENTS
from agents.sb3 import SB3Agent
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize
from bocvs_env.wrappers import make_sb3_env


@dataclass
class Args:
    train_id: str = "bocvs/RotatedHartmann3Family-Train-v0"
    test_id: str = "bocvs/RotatedHartmann3Family-Test-v0"
    cost_set: str = "moderate"
    budget: float = 5.0
    reward: str = "y"  # or "improvement" (of the best y seen): see HistoryObservation
    total_timesteps: int = 50_000
    n_envs: int = 4
    n_steps: int = 512
    learning_rate: float = 3e-4
    eval_episodes: int = 10
    eval_seed: int = 100_000
    baselines: str = "etc,random"
    seed: int = 0
    torch_threads: int = 1
    save_path: str = ""


def train(args: Args) -> PPO:
    """PPO on ``args.train_id`` through the SB3 wrappers, seeded by ``args.seed``."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)  # a small MLP: more threads only add overhead
    envs = make_vec_env(
        make_sb3_env,
        n_envs=args.n_envs,
        seed=args.seed,
        env_kwargs={
            "env_id": args.train_id,
            "reward": args.reward,
            "cost_set": args.cost_set,
            "budget": args.budget,
            "privileged_info": False,  # training needs no metrics
        },
    )
    model = PPO(
        "MlpPolicy",
        envs,
        n_steps=args.n_steps,
        batch_size=min(256, args.n_steps * args.n_envs),
        learning_rate=args.learning_rate,
        gamma=1.0,  # the return is the sum of y over the whole budget
        seed=args.seed,
        device="cpu",
    )
    return model.learn(total_timesteps=args.total_timesteps)


def evaluate(args: Args, model: PPO) -> dict[str, list[dict]]:
    """Episodes of PPO and the baselines on the test split, the same seeds for every agent."""
    env = gym.make(args.test_id, cost_set=args.cost_set, budget=args.budget)
    names = [n for n in args.baselines.split(",") if n]
    missing = [n for n in names if n not in AGENTS]
    if missing:
        print(f"skipping unregistered baselines {missing}")
    agents = [SB3Agent(model, name="ppo")] + [make_agent(n) for n in names if n in AGENTS]
    results: dict[str, list[dict]] = {a.name: [] for a in agents}
    for k in range(args.eval_episodes):
        for agent in agents:
            record = run_episode(env, agent, seed=args.eval_seed + k)
            summary = summarize(record)
            summary["mean_g"] = float(record.g.mean()) if record.g.size else 0.0
            summary["sum_g"] = float(record.g.sum())
            summary["function_seed"] = record.config["function_seed"]
            results[agent.name].append(summary)
    return results


def report(results: dict[str, list[dict]]) -> None:
    keys = ("simple_regret", "mean_g", "sum_g", "evaluations")
    print(f"{'agent':>8}" + "".join(f"{k + ' (mean ± se)':>28}" for k in keys))
    for name, rows in results.items():
        cells = []
        for key in keys:
            v = np.array([r[key] for r in rows], dtype=np.float64)
            se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0
            cells.append(f"{v.mean():>18.4f} ± {se:<7.4f}")
        print(f"{name:>8}" + "".join(f"{c:>28}" for c in cells))
    seeds = sorted({r["function_seed"] for rows in results.values() for r in rows})
    print(f"test function seeds: {seeds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    args = Args(**vars(parser.parse_args()))
    print(asdict(args))
    start = time.perf_counter()
    model = train(args)
    print(f"trained {args.total_timesteps} steps in {time.perf_counter() - start:.0f} s")
    if args.save_path:
        model.save(args.save_path)
    report(evaluate(args, model))


if __name__ == "__main__":
    main()
