"""The model-based agents' decisions are pinned: a refactoring must not change them.

Each fixture holds, for ETC, UCB-PSQ, TS-PSQ, UCB-CVS and ETC-50 on three problems (hartmann3,
hartmann6 in 12-D and ackley6 in 12-D, fixed seeds, the ``"fitted"`` surrogate), the first
:data:`ROUNDS` rounds of each episode: every set maximum the agent computed
(``ModelBasedAgent.set_maxima``: the sets, the maximized values and the maximizers; a tracked
LCB, valued or polished from last round's maximizers, is recorded as a maximum) and the
``(set, x)`` it played. The test replays the episodes and compares. There is one fixture per
computation setting (:data:`SETTINGS`):

- ``exact``: the agents at :data:`agents.config.EXACT_SETTINGS` (ETC:
  :data:`agents.policies.etc.ETC_EXACT_SETTINGS`), the defaults of ETC, ETC-50, TS-PSQ and UCB-CVS;
- ``fast``: the agents at :data:`agents.config.FAST_SETTINGS` (ETC:
  :data:`agents.policies.etc.ETC_FAST_SETTINGS`), the defaults of UCB-PSQ and FETC.

In 10 rounds from 5 initial points the GP is fitted once (the first fit, at 5 points; the next
refit comes at 15 points, after the last recorded round, under either schedule), so these pin
``polish_samples`` and ETC's ``lcb_tracking`` but not the refit schedule or the refit cap: those
are pinned by ``test_refit_schedule.py`` and ``test_fast_options.py``.

The pins hold on one kind of CPU. The math libraries choose their floating-point kernels by the
CPU's vendor and instruction set, and another kind's values differ from about the 9th digit on,
enough to move a maximizer and then later decisions. So the fixtures are kept per kind
(:func:`bocvs_env.benchmark.runner.cpu_kind`, e.g. ``GenuineIntel-AVX512``), in
``data/decisions/<kind>/<setting>.json``, each recorded on that kind from code whose decisions
were known to match the other kinds' fixtures; on a kind with none the test skips and says so.
To pin a new kind, record its fixtures from such code, in a commit of its own:
``python tests/agents/test_decisions_unchanged.py --write fast`` (or ``exact``), which writes
this machine's kind. Regenerate a fixture only when decisions are meant to change, every kind
at once, and say why in the commit.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import Tensor

from agents import make_agent
from agents.acquisition import Bound
from agents.config import EXACT_SETTINGS, FAST_SETTINGS
from agents.policies.etc import ETC_EXACT_SETTINGS, ETC_FAST_SETTINGS
from agents.policies.model_based import ModelBasedAgent
from bocvs_env.benchmark.runner import cpu_kind
from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import public_info
from bocvs_env.problems import GaussianCost, make_problem
from bocvs_env.problems.costs import COST_SETS

#: The computation settings pinned, one fixture each.
SETTINGS = ("exact", "fast")
#: The fixtures of this machine's kind of CPU.
FIXTURE_DIR = Path(__file__).parent / "data" / "decisions" / cpu_kind()
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


def agent_params(name: str, costs: np.ndarray, setting: str) -> dict[str, Any]:
    """The agents of ``setting`` (:data:`SETTINGS`); short schedules so that 10 rounds cover
    their phases."""
    params: dict[str, Any] = {}
    if setting == "exact":
        params.update(ETC_EXACT_SETTINGS if name == "etc" else EXACT_SETTINGS)
    else:
        params.update(ETC_FAST_SETTINGS if name == "etc" else FAST_SETTINGS)
    if name == "ucb-cvs":
        params.update(costs=costs, cutoff=5)
    if name == "etc-50":
        params.update(rounds_per_group=3)
    return params


def record_episode(problem_name: str, agent_name: str, setting: str) -> dict[str, Any]:
    """Play the first :data:`ROUNDS` rounds and record every set maximum and action."""
    problem = make_problem(
        problem_name,
        budget=BUDGETS.get(agent_name, 100.0),
        cost_model=GaussianCost(COST_SETS[COST_SET], noise_std=0.0),
        n_initial=5,
    )
    env = BOCVSEnv(problem)
    params = agent_params(agent_name, problem.cost_model.means, setting)
    agent = make_agent(agent_name, **params)
    assert isinstance(agent, ModelBasedAgent)
    maxima: list[dict[str, Any]] = []
    original = agent.set_maxima

    def recording(
        sets: Sequence[int],
        bound: Bound | Callable[[Tensor], Tensor] = "ucb",
        starts: Mapping[int, np.ndarray] | None = None,
        maxiter: int | None = None,
    ) -> dict[int, tuple[float, np.ndarray]]:
        out = original(sets, bound, starts, maxiter)
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
    where += " (if no agent changed: another kind of CPU, see the module docstring)"
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
@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("problem_name", PROBLEM_NAMES)
def test_decisions_are_unchanged(problem_name: str, setting: str) -> None:
    fixture = FIXTURE_DIR / f"{setting}.json"
    if not fixture.exists():
        pytest.skip(f"no pinned decisions for this kind of CPU ({cpu_kind()}); see the docstring")
    recorded = json.loads(fixture.read_text())
    before = [e for e in recorded["episodes"] if e["problem"] == problem_name]
    assert [e["agent"] for e in before] == list(AGENT_NAMES)
    for episode in before:
        assert len(episode["actions"]) == ROUNDS
        compare(episode, record_episode(problem_name, episode["agent"], setting))


def main(argv: list[str]) -> None:
    """``--write SETTING``: record that setting's fixture; otherwise print, per setting, the
    largest ``x`` difference to its fixture."""
    torch.set_num_threads(1)
    if argv[:1] == ["--write"]:
        if len(argv) != 2 or argv[1] not in SETTINGS:
            raise SystemExit(f"usage: --write SETTING, one of {list(SETTINGS)}")
        episodes = [record_episode(p, a, argv[1]) for p in PROBLEM_NAMES for a in AGENT_NAMES]
        fixture = FIXTURE_DIR / f"{argv[1]}.json"
        fixture.parent.mkdir(parents=True, exist_ok=True)
        fixture.write_text(json.dumps({"rounds": ROUNDS, "episodes": episodes}, indent=1) + "\n")
        return
    for setting in SETTINGS:
        recorded = json.loads((FIXTURE_DIR / f"{setting}.json").read_text())["episodes"]
        episodes = [record_episode(e["problem"], e["agent"], setting) for e in recorded]
        worst = max(compare(b, a) for b, a in zip(recorded, episodes, strict=True))
        sys.stdout.write(f"{setting}: decisions unchanged; largest x difference {worst:.3g}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
