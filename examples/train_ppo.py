"""Train PPO across functions and compare it with ETC and random on unseen test functions.

PPO (Stable-Baselines3) learns on the training split of a problem family (a new function per
episode) through the SB3 wrappers (:func:`bocvs_env.wrappers.make_sb3_env`); the trained policy
then plays the test split (function seeds the training never drew) through the benchmark
adapter :class:`agents.policies.sb3.SB3Agent`, in :func:`bocvs_env.evaluation.run_episode`, next to the
registered agents, on the same seeds (so every agent meets the same test functions).

By default PPO trains for 16,384 steps and every agent plays 5 test functions (one to two
minutes on two cores); ``--full`` trains 100,000 steps and tests on 20 functions (several minutes);
``--smoke`` is a seconds-long check that it runs (what the tests run). Progress goes to stderr,
the table to stdout. Any flag overrides these settings::

    python examples/train_ppo.py
    python examples/train_ppo.py --full
    python examples/train_ppo.py --smoke

Torch runs on one thread (``--torch-threads``): PPO's networks here are two layers of 64 units
on batches of a few hundred rows, where each op is microseconds of arithmetic and a thread
pool's start-up and synchronisation dominate; on this two-core machine 8,192 PPO steps took 17 s
on one thread and 151 s on torch's default thread count (under load).
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass

import gymnasium as gym
import numpy as np
import torch
from _common import parse_args
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import bocvs_env  # noqa: F401  (registers the ids)
from agents import make_agent, registered_agents
from agents.policies.sb3 import SB3Agent
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import summarize
from bocvs_env.wrappers import make_sb3_env

#: The default setting, a longer one (``--full``) and a check that the script runs
#: (``--smoke``); flags given explicitly win.
QUICK = {"total_timesteps": 16_384, "eval_episodes": 5, "n_envs": 4, "n_steps": 512}
FULL = {"total_timesteps": 100_000, "eval_episodes": 20, "n_envs": 4, "n_steps": 512}
SMOKE = {"total_timesteps": 2_048, "eval_episodes": 1, "n_envs": 2, "n_steps": 256}
#: Seconds between two progress lines.
HEARTBEAT = 10.0


def log(text: str) -> None:
    """A progress line on stderr (stdout carries the result)."""
    print(text, file=sys.stderr, flush=True)


class ProgressLines(BaseCallback):
    """Logs the training steps done, and their rate, every :data:`HEARTBEAT` seconds."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.total = total
        self.start = self.last = time.perf_counter()

    def _on_step(self) -> bool:
        now = time.perf_counter()
        if now - self.last >= HEARTBEAT:
            self.last = now
            rate = self.num_timesteps / (now - self.start)
            log(f"  trained {self.num_timesteps}/{self.total} steps ({rate:.0f} steps/s)")
        return True


@dataclass
class Args:
    train_id: str = "bocvs/RotatedHartmann3Family-Train-v1"
    test_id: str = "bocvs/RotatedHartmann3Family-Test-v1"
    cost_set: str = "moderate"
    budget: float = 5.0
    reward: str = "y"  # or "improvement" (of the best y seen): see HistoryObservation
    total_timesteps: int = QUICK["total_timesteps"]
    n_envs: int = QUICK["n_envs"]
    n_steps: int = QUICK["n_steps"]
    learning_rate: float = 3e-4
    eval_episodes: int = QUICK["eval_episodes"]
    eval_seed: int = 100_000
    baselines: str = "etc,random"
    seed: int = 0
    torch_threads: int = 1
    save_path: str = ""
    full: bool = False  # train longer, test on more functions (FULL)
    smoke: bool = False  # seconds: a check that the script runs (SMOKE)


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
    return model.learn(
        total_timesteps=args.total_timesteps, callback=ProgressLines(args.total_timesteps)
    )


def evaluate(args: Args, model: PPO) -> dict[str, list[dict]]:
    """Episodes of PPO and the baselines on the test split, the same seeds for every agent."""
    env = gym.make(args.test_id, cost_set=args.cost_set, budget=args.budget)
    names = [n for n in args.baselines.split(",") if n]
    known = registered_agents()
    missing = [n for n in names if n not in known]
    if missing:
        log(f"skipping unregistered baselines {missing}")
    agents = [SB3Agent(model, name="ppo")] + [make_agent(n) for n in names if n in known]
    results: dict[str, list[dict]] = {a.name: [] for a in agents}
    for k in range(args.eval_episodes):
        for agent in agents:
            record = run_episode(env, agent, seed=args.eval_seed + k)
            summary = summarize(record)
            summary["mean_g"] = float(record.g.mean()) if record.g.size else 0.0
            summary["sum_g"] = float(record.g.sum())
            summary["function_seed"] = record.config["function_seed"]
            results[agent.name].append(summary)
        log(f"  tested on function {k + 1}/{args.eval_episodes}")
    return results


def report(results: dict[str, list[dict]]) -> None:
    """The table, and what it shows."""
    n = len(next(iter(results.values())))
    print(
        f"Each agent on the same {n} unseen test functions: final simple regret (lower is "
        "better), mean and sum of the expected value g of its queries (the return PPO was "
        "trained to raise), and evaluations bought; mean ± standard error over functions."
    )
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
    means = {
        key: {name: float(np.mean([r[key] for r in rows])) for name, rows in results.items()}
        for key in ("sum_g", "simple_regret")
    }
    most_g = max(means["sum_g"], key=means["sum_g"].__getitem__)
    least_regret = min(means["simple_regret"], key=means["simple_regret"].__getitem__)
    print(
        "What to look for: with --reward y PPO is trained to raise sum_g (the sum of y over the "
        "budget, which rewards many cheap evaluations), ETC to find a good point (low simple "
        f"regret); compare each on its own objective, against random. Here {most_g} has the "
        f"highest mean sum_g and {least_regret} the lowest mean simple regret. --reward "
        "improvement trains PPO for simple regret instead."
    )


def main() -> None:
    args = parse_args(Args, __doc__, {"quick": QUICK, "full": FULL, "smoke": SMOKE})
    log(f"# {asdict(args)}")
    start = time.perf_counter()
    model = train(args)
    seconds = time.perf_counter() - start
    log(f"trained {args.total_timesteps} steps in {seconds:.0f} s "
        f"({args.total_timesteps / seconds:.0f} steps/s on {args.torch_threads} torch thread(s))")  # fmt: skip
    if args.save_path:
        model.save(args.save_path)
    report(evaluate(args, model))


if __name__ == "__main__":
    main()
