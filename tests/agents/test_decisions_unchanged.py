"""The model-based agents' decisions are pinned: a refactoring must not change them.

``tests/agents/data/decisions_before.json`` holds, for ETC, UCB-PSQ, TS-PSQ, UCB-CVS and ETC-50
on three problems (hartmann3, hartmann6 in 12-D and ackley6 in 12-D, fixed seeds, the default
``"fitted"`` surrogate and acquisition settings), the first :data:`ROUNDS` rounds of each
episode: every set maximum the agent computed (``ModelBasedAgent.set_maxima``: the sets, the
maximized values and the maximizers) and the ``(set, x)`` it played. The test replays the
episodes and compares. It was recorded before the acquisition was split into a package and the
private SciPy L-BFGS-B routine was replaced.

Regenerate (only when a decision is meant to change, and say why in the commit):
``python tests/agents/test_decisions_unchanged.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.model_based import ModelBasedAgent
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import public_info
from bocvs_env.problems import GaussianCost, make_problem
from bocvs_env.problems.costs import COST_SETS

FIXTURE = Path(__file__).parent / "data" / "decisions_before.json"
PROBLEM_NAMES = ("hartmann3", "hartmann6_12d", "ackley6_12d")
AGENT_NAMES = ("etc", "ucb-psq", "ts-psq", "ucb-cvs", "etc-50")
#: Rounds recorded per episode: 10 per problem, 30 decisions per agent.
ROUNDS = 10
#: The paper's moderate costs without noise: a cycle over the 7 sets costs 1.9.
COST_SET = "moderate"
#: ETC's budget: 1.9 + 1.9 > 0.6 x 5, so it explores one cycle, then exploits; the others get enough
#: budget for :data:`ROUNDS` rounds.
BUDGETS = {"etc": 5.0}
SEED = 7
#: ``x`` may differ by this much (max-norm); the values by this much, relative.
X_TOLERANCE = 1e-6
VALUE_TOLERANCE = 1e-9


def agent_params(name: str, costs: np.ndarray) -> dict[str, Any]:
    """Default agents; short schedules so that 10 rounds cover their phases."""
    if name == "ucb-cvs":
        return {"costs": costs, "cutoff": 5}
    if name == "etc-50":
        return {"rounds_per_group": 3}
    return {}


def record_episode(problem_name: str, agent_name: str) -> dict[str, Any]:
    """Play the first :data:`ROUNDS` rounds and record every set maximum and action."""
    problem = make_problem(
        problem_name,
        budget=BUDGETS.get(agent_name, 100.0),
        cost_model=GaussianCost(COST_SETS[COST_SET], noise_std=0.0),
        n_initial=5,
    )
    env = BOCVSEnv(problem)
    agent = make_agent(agent_name, **agent_params(agent_name, problem.cost_model.means))
    assert isinstance(agent, ModelBasedAgent)
    maxima: list[dict[str, Any]] = []
    original = agent.set_maxima

    def recording(sets: Any, bound: Any = "ucb") -> dict[int, tuple[float, np.ndarray]]:
        out = original(sets, bound)
        maxima.append(
            {
                "bound": bound if isinstance(bound, str) else "path",
                "sets": [int(i) for i in out],
                "values": [float(v) for v, _ in out.values()],
                "x": [np.asarray(x).tolist() for _, x in out.values()],
            }
        )
        return out

    agent.set_maxima = recording  # type: ignore[method-assign]
    obs, info = env.reset(seed=SEED)
    agent.reset(env.task, obs, public_info(info), seed=SEED)
    actions = []
    for _ in range(ROUNDS):
        action = agent.act(obs)
        actions.append({"set": int(action["control_set"]), "x": np.asarray(action["x"]).tolist()})
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, float(reward), terminated, truncated, public_info(info))
        if terminated or truncated:
            break
    return {"problem": problem_name, "agent": agent_name, "actions": actions, "maxima": maxima}


def compare(before: dict[str, Any], after: dict[str, Any]) -> float:
    """Assert the same decisions; returns the largest ``x`` difference (max-norm)."""
    where = f"{before['agent']} on {before['problem']}"
    largest = 0.0
    assert len(after["actions"]) == len(before["actions"]), where
    for t, (a, b) in enumerate(zip(before["actions"], after["actions"], strict=True)):
        assert a["set"] == b["set"], f"{where}, round {t}: set {b['set']} != {a['set']}"
        largest = max(largest, float(np.abs(np.subtract(a["x"], b["x"])).max(initial=0.0)))
    assert len(after["maxima"]) == len(before["maxima"]), where
    for k, (a, b) in enumerate(zip(before["maxima"], after["maxima"], strict=True)):
        assert (a["bound"], a["sets"]) == (b["bound"], b["sets"]), f"{where}, maximization {k}"
        np.testing.assert_allclose(
            b["values"], a["values"], rtol=VALUE_TOLERANCE, atol=0.0, err_msg=where
        )
        largest = max(largest, float(np.abs(np.subtract(a["x"], b["x"])).max(initial=0.0)))
    assert largest <= X_TOLERANCE, f"{where}: x moved by {largest:.3g}"
    return largest


@pytest.mark.slow
@pytest.mark.parametrize("problem_name", PROBLEM_NAMES)
def test_decisions_are_unchanged(problem_name: str) -> None:
    recorded = json.loads(FIXTURE.read_text())
    before = [e for e in recorded["episodes"] if e["problem"] == problem_name]
    assert [e["agent"] for e in before] == list(AGENT_NAMES)
    for episode in before:
        assert len(episode["actions"]) == ROUNDS
        compare(episode, record_episode(problem_name, episode["agent"]))


def main(argv: list[str]) -> None:
    """``--write``: record the fixture; otherwise print the largest ``x`` difference to it."""
    torch.set_num_threads(1)
    episodes = [record_episode(p, a) for p in PROBLEM_NAMES for a in AGENT_NAMES]
    if "--write" in argv:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps({"rounds": ROUNDS, "episodes": episodes}, indent=1) + "\n")
        return
    recorded = json.loads(FIXTURE.read_text())["episodes"]
    worst = max(compare(b, a) for b, a in zip(recorded, episodes, strict=True))
    sys.stdout.write(f"decisions unchanged; largest x difference {worst:.3g}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
