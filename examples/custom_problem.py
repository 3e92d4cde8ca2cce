"""A user-defined BOCVS problem from a BoTorch test function, run with an agent.

Branin (2-D, maximized as ``-branin``) on ``[0, 1]^2``: control either variable alone for a
cheap 0.1 or both for 1.0 (random costs with the paper's noise rule); the uncontrolled variable
is drawn from a truncated normal with variance 0.04. Negated Branin is at least -308.13 on its
domain, which is the lower bound that shifts it to ``f >= 0``.

Run (seconds): ``python examples/custom_problem.py``, or ``--agent random --budget 10``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from _common import parse_args, single_threaded_torch
from botorch.test_functions import Branin

from agents import make_agent
from bocvs_env import BOCVSEnv, CallableObjective, GaussianCost, Problem, TruncatedNormal
from bocvs_env.evaluation import run_episode
from bocvs_env.metrics import format_summary, summarize


@dataclass
class Args:
    agent: str = "etc"
    budget: float = 5.0
    seed: int = 0


def branin_problem(budget: float) -> Problem:
    """Negated Branin with control sets {0}, {1}, {0, 1}."""
    objective = CallableObjective.from_botorch(Branin(), lower_bound=-308.13, name="branin")
    return Problem(
        objective=objective,
        control_sets=((0,), (1,), (0, 1)),
        distributions=(TruncatedNormal(0.04), TruncatedNormal(0.04)),
        cost_model=GaussianCost([0.1, 0.1, 1.0]),
        budget=budget,
        noise_std=0.01,
        n_initial=5,
    )


def main() -> None:
    args = parse_args(Args, __doc__)
    single_threaded_torch()  # small tensors: see examples/_common.py
    print(f"playing {args.agent} on negated Branin ...", file=sys.stderr, flush=True)
    env = BOCVSEnv(branin_problem(args.budget))
    record = run_episode(env, make_agent(args.agent), seed=args.seed)
    print(
        f"{args.agent} on negated Branin, budget {args.budget}, seed {args.seed}; the best "
        f"expected value each control set can reach (oracle): {record.set_max.round(4).tolist()}"
    )
    print(format_summary(summarize(record)))


if __name__ == "__main__":
    main()
