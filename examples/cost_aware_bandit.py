"""A cost-aware bandit over control sets, written as a user would, through the Agent protocol.

UCB1 on value per unit cost: each set's upper confidence bound on its mean ``y`` divided by its
mean observed cost; the values of the set's variables are uniformly random. It is compared with
the random agent on the same seeds.

Run (seconds): ``python examples/cost_aware_bandit.py``, or
``python examples/cost_aware_bandit.py --env-id bocvs/Hartmann3-v1 --budget 50 --seeds 5``
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from _common import parse_args, single_threaded_torch

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize


@dataclass
class Args:
    env_id: str = "bocvs/Hartmann3-v1"
    cost_set: str = "cheap"
    budget: float = 10.0
    seeds: int = 3


class CostAwareUCB1:
    """UCB1 index of each set's mean ``y``, divided by its mean cost; random ``x``."""

    name = "cost-aware-ucb1"

    def reset(self, task: Any, observation: dict, info: dict, seed: int | None = None) -> None:
        self.task, self.rng = task, np.random.default_rng(seed)
        self.n, self.y_sum, self.cost_sum = (np.zeros(task.n_sets) for _ in range(3))
        self.y_seen = list(info.get("initial_y", []))

    def act(self, observation: dict) -> dict:
        x = self.rng.random(self.task.dim)
        if (self.n == 0).any():  # play every set once first
            return {"control_set": int(np.argmax(self.n == 0)), "x": x}
        spread = np.ptp(self.y_seen) if len(self.y_seen) > 1 else 1.0
        ucb = self.y_sum / self.n + spread * np.sqrt(2 * np.log(self.n.sum()) / self.n)
        return {"control_set": int(np.argmax(ucb / (self.cost_sum / self.n))), "x": x}

    def observe(
        self,
        action: dict,
        observation: dict,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict,
    ) -> None:
        if info["evaluated"]:
            i = int(observation["control_set"])
            self.n[i] += 1
            self.y_sum[i] += reward
            self.cost_sum[i] += float(observation["cost"][0])
            self.y_seen.append(reward)


def main() -> None:
    args = parse_args(Args, __doc__)
    single_threaded_torch()  # small tensors: see examples/_common.py
    env = gym.make(args.env_id, cost_set=args.cost_set, budget=args.budget)
    print(
        f"Per episode on {args.env_id} ({args.cost_set} costs, budget {args.budget}): "
        "evaluations bought and final simple regret (g* minus the best expected value found; "
        "lower is better)."
    )
    print(f"{'agent':>16} {'seed':>4} {'evaluations':>11} {'simple regret':>13}")
    medians = {}
    for agent in (CostAwareUCB1(), make_agent("random")):
        results = []
        for seed in range(args.seeds):
            print(f"playing {agent.name}, seed {seed} ...", file=sys.stderr, flush=True)
            s = summarize(run_episode(env, agent, seed=seed))
            print(f"{agent.name:>16} {seed:>4} {s['evaluations']:>11} {s['simple_regret']:>13.4f}")
            results.append((s["evaluations"], s["simple_regret"]))
        medians[agent.name] = np.median(np.array(results, dtype=np.float64), axis=0)
    (ours, regret), (theirs, base) = medians["cost-aware-ucb1"], medians["random"]
    print(
        "What to look for: the bandit plays cheap sets, so it buys more evaluations than random "
        "(here, medians over seeds: "
        f"{ours:.0f} against {theirs:.0f}); but it picks x at random, so more evaluations do not "
        f"make it find higher values (final simple regret {regret:.4g} against random's "
        f"{base:.4g}). The GP agents (etc, ucb-psq) model f for that."
    )


if __name__ == "__main__":
    main()
