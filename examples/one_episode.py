"""One episode of an agent on a registered id, with its final metrics (each named).

Run (seconds): ``python examples/one_episode.py``, or pick the id, agent and budget:
``python examples/one_episode.py --env-id bocvs/Hartmann3-v1 --agent etc --budget 10``
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import gymnasium as gym
from _common import parse_args, single_threaded_torch

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import format_summary, summarize


@dataclass
class Args:
    env_id: str = "bocvs/Hartmann6in12D-v1"
    agent: str = "random"
    budget: float = 20.0
    seed: int = 0


def main() -> None:
    args = parse_args(Args, __doc__)
    single_threaded_torch()  # small tensors: see examples/_common.py
    print(f"playing {args.agent} on {args.env_id} ...", file=sys.stderr, flush=True)
    env = gym.make(args.env_id, budget=args.budget)
    record = run_episode(env, make_agent(args.agent), seed=args.seed)
    print(f"{args.agent} on {args.env_id}, budget {args.budget}, seed {args.seed}:")
    print(format_summary(summarize(record)))


if __name__ == "__main__":
    main()
