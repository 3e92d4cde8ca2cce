"""The Agent protocol: the contract between a learner and the evaluation loop.

It lives on the environment side, as ``gymnasium.Env`` lives in Gymnasium: the loop
(:func:`bocvs_env.evaluation.run_episode`) and the benchmark harness depend on this contract,
never on a particular agent. One loop serves every learner::

    obs, info = env.reset(seed=seed)
    agent.reset(env.unwrapped.task, obs, info, seed=seed)
    while True:
        action = agent.act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(action, obs, reward, terminated, truncated, info)
        if terminated or truncated:
            break

In :func:`~bocvs_env.evaluation.run_episode` (and so in the benchmark) ``info`` never carries
the privileged ``"privileged"`` entry when it reaches an agent; a loop of your own, as above,
should drop it too.

Agents are named to the harness through the ``bocvs.agents`` entry-point group or as
``"module:Class"`` (:mod:`bocvs_env.agent_registration`). A class may declare, as optional
class attributes read by the registration and the harness:

- ``required_params``: keyword arguments it cannot be built without (a trained model's path);
- ``privileged_params``: privileged knowledge of the problem it must be given, by name (only
  ``"costs"``, the true mean costs, as UCB-CVS assumes them known); the benchmark harness grants
  these from the problem.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from bocvs_env.task import Task

#: An observation of :class:`~bocvs_env.env.BOCVSEnv` (its ``observation_space`` documents the
#: keys).
Observation = dict[str, Any]
#: ``{"control_set": int, "x": ndarray of shape (d,)}``.
Action = dict[str, Any]


@runtime_checkable
class Agent(Protocol):
    """Anything with these four members can be run, benchmarked and compared."""

    name: str

    def reset(
        self, task: Task, observation: Observation, info: dict[str, Any], seed: int | None = None
    ) -> None:
        """Start an episode: the public task, the reset observation and info (with the free
        initial design ``initial_x``, ``initial_y``) and a seed for the agent's own randomness."""

    def act(self, observation: Observation) -> Action:
        """Return ``{"control_set": int, "x": ndarray of shape (d,)}`` for the next step."""

    def observe(
        self,
        action: Action,
        observation: Observation,
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
    ) -> None:
        """Learn from the step's outcome (``info["evaluated"]`` says whether it was played)."""
