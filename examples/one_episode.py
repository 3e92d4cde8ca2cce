"""One episode of an agent on a registered id, with its final metrics.

Run: ``python examples/one_episode.py --env-id bocvs/Hartmann6in12D-v0 --agent random --budget 20``
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import gymnasium as gym

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize


@dataclass
class Args:
    env_id: str = "bocvs/Hartmann6in12D-v0"
    agent: str = "random"
    budget: float = 20.0
    seed: int = 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default)
    args = Args(**vars(parser.parse_args()))
    env = gym.make(args.env_id, budget=args.budget)
    record = run_episode(env, make_agent(args.agent), seed=args.seed)
    for key, value in summarize(record).items():
        print(f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
