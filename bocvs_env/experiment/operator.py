"""Simulated operators: play an experiment's ask/tell loop against a simulation, to try a
problem file (or an agent) before using it on the real process.

- :func:`simulate_builtin` drives a built-in problem through its Gymnasium environment: each
  suggestion is the environment's action, and the step's observation is the answer. With the
  experiment's seed, the trace is the one :func:`~bocvs_env.evaluation.run_episode` records on
  the same id, bit for bit.
- :func:`simulate_objective` answers from a Python function of the values in their units,
  drawing the variables left to chance from their laws with its own seeded generator.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from bocvs_env.experiment.experiment import Experiment
from bocvs_env.experiment.process import ProblemSource, builtin_env_id

#: ``f(values, controlled) -> y`` or ``(y, cost)``: ``values`` maps every variable's name to its
#: value in its units, ``controlled`` names the variables that were set.
Objective = Callable[[dict[str, float], tuple[str, ...]], Any]


def simulate_builtin(exp: Experiment, max_tells: int | None = None) -> int:
    """Answer ``exp``'s suggestions from its built-in problem's environment until the budget
    ends it (or ``max_tells`` answers); returns the number of answers told.

    The environment is made and reset with the experiment's options and seed, so its draws
    (random inputs, noise, costs) are those of an episode of that seed; an experiment already
    under way is first caught up by replaying its answered suggestions into the environment.

    Raises:
        ValueError: if ``exp`` runs on a problem file, or its journal was not answered by this
            environment.
    """
    import gymnasium as gym

    source = ProblemSource.from_json(exp.header["problem"])
    if source.kind != "builtin":
        raise ValueError("simulate_builtin needs an experiment on a built-in problem; "
                         "a problem file is simulated with an objective")  # fmt: skip
    env = gym.make(builtin_env_id(source.name), **source.options)
    try:
        obs, _ = env.reset(seed=exp.header["seed"])
        for entry in exp.journal.entries():
            if entry.answer is not None:
                obs, *_ = env.step({"control_set": entry.control_set, "x": entry.x})
        told = 0
        while not exp.done and (max_tells is None or told < max_tells):
            s = exp.ask()
            obs, _, _, _, info = env.step({"control_set": s.control_set, "x": s.x})
            # An unevaluated step (its cost does not fit) measured nothing: the last values
            # stand in, and the experiment ignores them with the play.
            measured = {name: float(obs["x"][int(name[1:])]) for name in s.leave_random}
            exp.tell(s, measured, y=float(obs["y"][0]), cost=float(info["cost_drawn"]))
            told += 1
    finally:
        env.close()
    return told


def simulate_objective(
    exp: Experiment, objective: Objective, seed: int = 0, max_tells: int | None = None
) -> int:
    """Answer ``exp``'s suggestions from ``objective`` until the budget ends it (or
    ``max_tells`` answers); returns the number of answers told.

    Each variable left to chance is drawn from its law (the task's distribution on ``[0, 1]``,
    mapped to its units); ``objective`` returning ``y`` alone costs 1 per play.

    Raises:
        TypeError: if ``objective`` does not take ``(values, controlled)``.
        ValueError: if it returns something other than a number or a pair of numbers.
    """
    try:
        inspect.signature(objective).bind({}, ())
    except TypeError:
        raise TypeError(f"objective {getattr(objective, '__name__', objective)!r} must take "
                        "(values, controlled)") from None  # fmt: skip
    rng = np.random.default_rng(seed)
    task, variables = exp.task, exp.variables
    told = 0
    while not exp.done and (max_tells is None or told < max_tells):
        s = exp.ask()
        u = rng.random(task.dim)
        measured = {}
        for l in task.free_variables(s.control_set):
            unit = task.distributions[l].icdf(np.array(u[l]))
            measured[variables[l].name] = float(variables[l].from_unit(unit))
        out = objective({**s.set_values, **measured}, tuple(s.set_values))
        y, cost = out if isinstance(out, tuple) else (out, 1.0)
        exp.tell(s, measured, y=y, cost=cost)
        told += 1
    return told
