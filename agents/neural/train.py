"""Meta-train the neural acquisition: imitation of a privileged teacher, then PPO, across a
problem family's training functions and a distribution of tasks.

Each of the ``n_envs`` environments draws per episode a cost set and a budget (the task
distribution, ``cost_sets`` x ``budgets``) and, every ``episodes_per_function`` episodes, a
new training function (a family's ``-Train-`` id: function seeds the test ids never use).
The training has two phases on :class:`~agents.neural.wrapper.CandidateEnv`'s rows:

1. imitation (:mod:`agents.neural.imitation`): DAgger rounds that fit the actor to a teacher
   who sees the true value of every candidate and the true costs (training functions only),
   and the critic to the returns;
2. PPO (Stable-Baselines3, Schulman et al. 2017) from there, as MetaBO (Volpp et al., ICLR
   2020) meta-trains its neural acquisition.

The environments step one after another in this process (``DummyVecEnv``) and torch runs on
one thread, so a seed gives the same model on the same machine. The validation curve (the
validation score against the environment steps of both phases, the untrained start at step
0) is written to ``--curve`` (JSON) when given. The full training::

    python -m agents.neural.train --out agents/neural/models/neural_af.zip --curve curve.json

The weights returned are those that score best on validation functions, training-split
functions the training never draws (:mod:`agents.neural.validation`), the untrained policy
included. Any field of :class:`TrainConfig` is a flag (``--total-timesteps 20000``,
``--env-ids a,b``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import gymnasium as gym
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import bocvs_env  # noqa: F401  (registers the ids)
from agents.neural.features import FEATURES, FeatureConfig
from agents.neural.imitation import ImitationConfig, imitate
from agents.neural.network import PRIOR_FEATURE, PRIOR_WEIGHT, RowPolicy
from agents.neural.validation import KeepBest
from agents.neural.wrapper import CandidateEnv, make_candidate_env
from bocvs_env.benchmark.atomic import write_file

#: The families the shipped model is trained on (their training functions).
FAMILY_TRAIN_IDS = "bocvs/GPSampleFamily-Train-v1,bocvs/RotatedHartmann3Family-Train-v1"


@dataclass
class TrainConfig:
    """The training's settings (the shipped model's are the defaults).

    ``env_ids``: comma-separated training ids, assigned to the environments in turn.
    """

    env_ids: str = FAMILY_TRAIN_IDS
    #: The task distribution: comma-separated cost sets and budgets, one pair drawn per episode.
    cost_sets: str = "cheap,moderate,expensive"
    budgets: str = "3,4,5,6,7,8,9,10"
    episodes_per_function: int = 32
    #: An episode (training and validation) is truncated after this many evaluations.
    max_evaluations: int = 60
    #: The samples behind the reward's and the teacher's ``g`` (:class:`CandidateEnv`).
    value_samples: int = 128
    #: The imitation phase (:class:`~agents.neural.imitation.ImitationConfig`; 0 rounds: none).
    imitation_rounds: int = 4
    imitation_steps: int = 8_192
    imitation_epochs: int = 4
    imitation_learning_rate: float = 1e-3
    total_timesteps: int = 200_000
    n_envs: int = 4
    n_steps: int = 256
    batch_size: int = 256
    n_epochs: int = 10
    learning_rate: float = 1e-3
    clip_range: float = 0.2
    ent_coef: float = 0.0
    hidden: int = 64
    #: The feature whose column starts the actor as an acquisition (RowNetworks), and its
    #: initial weight; "" for none (a uniform first policy).
    prior_feature: str = PRIOR_FEATURE
    prior_weight: float = PRIOR_WEIGHT
    n_candidates: int = FeatureConfig.n_candidates
    #: ``lo,hi``: the function seeds the training environments draw from ("": the ids' own
    #: split), and those of the validation functions (:mod:`agents.neural.validation`; "": no
    #: validation, the last weights are kept). Both inside the training split, disjoint.
    train_function_seeds: str = "0,9000"
    validation_function_seeds: str = "9000,10000"
    #: Validation functions per training id, and the steps between validations.
    validation_functions: int = 8
    validate_every: int = 16_384
    seed: int = 0
    torch_threads: int = 1


def seed_range(text: str) -> dict[str, tuple[int, int]]:
    """``{"function_seeds": (lo, hi)}`` for ``"lo,hi"``, ``{}`` for ``""`` (the id's split)."""
    if not text:
        return {}
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"a function-seed range is 'lo,hi', got {text!r}")
    return {"function_seeds": (int(parts[0]), int(parts[1]))}


def env_ids(config: TrainConfig) -> list[str]:
    """The training ids of ``config.env_ids``."""
    ids = [i for i in config.env_ids.split(",") if i]
    if not ids:
        raise ValueError("env_ids names no environment")
    return ids


def task_distribution(config: TrainConfig) -> tuple[list[str], list[float]]:
    """The cost sets and budgets of ``config``."""
    cost_sets = [c for c in config.cost_sets.split(",") if c]
    try:
        budgets = [float(b) for b in config.budgets.split(",") if b]
    except ValueError:
        raise ValueError(
            f"budgets must be comma-separated numbers, got {config.budgets!r}"
        ) from None
    if not cost_sets or not budgets or min(budgets) <= 0:
        raise ValueError(
            f"the task distribution needs cost sets and positive budgets, got "
            f"{config.cost_sets!r} and {config.budgets!r}"
        )
    return cost_sets, budgets


def candidate_env(config: TrainConfig, env_id: str, seeds: str) -> CandidateEnv:
    """A :class:`CandidateEnv` of ``env_id`` over the config's task distribution, its
    functions drawn from the range ``seeds``."""
    cost_sets, budgets = task_distribution(config)
    return make_candidate_env(
        env_id,
        FeatureConfig(n_candidates=config.n_candidates),
        cost_sets=cost_sets,
        budgets=budgets,
        episodes_per_function=config.episodes_per_function,
        max_evaluations=config.max_evaluations,
        value_samples=config.value_samples,
        **seed_range(seeds),
    )


def make_envs(config: TrainConfig) -> DummyVecEnv:
    """The ``n_envs`` training environments (in this process, stepped in turn)."""
    ids = env_ids(config)

    def thunk(env_id: str) -> Callable[[], gym.Env]:
        return lambda: Monitor(candidate_env(config, env_id, config.train_function_seeds))

    return DummyVecEnv([thunk(ids[k % len(ids)]) for k in range(config.n_envs)])


def validation(config: TrainConfig) -> KeepBest | None:
    """The model selection on validation functions (``None`` when the config has none)."""
    if not config.validation_function_seeds or config.validation_functions < 1:
        return None
    held_out = seed_range(config.validation_function_seeds)["function_seeds"]
    drawn = seed_range(config.train_function_seeds).get("function_seeds")
    if drawn is None or max(drawn[0], held_out[0]) < min(drawn[1], held_out[1]):
        raise ValueError(
            f"validation functions {held_out} must be disjoint from the training's "
            f"{drawn or 'whole split'}"
        )
    envs = [candidate_env(config, i, config.validation_function_seeds) for i in env_ids(config)]
    return KeepBest(envs, config.validation_functions, config.validate_every)


class Progress(BaseCallback):
    """A line on stderr every ``every`` seconds: steps done, rate, mean return of recent
    episodes."""

    def __init__(self, total: int, every: float = 30.0) -> None:
        super().__init__()
        self.total, self.every = total, every
        self.start = self.last = time.perf_counter()

    def _on_step(self) -> bool:
        now = time.perf_counter()
        if now - self.last >= self.every:
            self.last = now
            buffer = list(self.model.ep_info_buffer or [])
            ret = sum(e["r"] for e in buffer) / max(len(buffer), 1)
            rate = self.num_timesteps / (now - self.start)
            print(f"  {self.num_timesteps}/{self.total} steps, {rate:.0f}/s, "
                  f"mean return {ret:.3f} ({len(buffer)} episodes)", file=sys.stderr, flush=True)  # fmt: skip
        return True


@dataclass
class Training:
    """A training's outcome: the model and, with validation functions, every validation's
    ``(steps, score)`` (environment steps of both phases; the curve) and the steps of the
    weights the model holds (the best score)."""

    model: PPO
    validation_history: list[tuple[int, float]]
    best_steps: int
    imitation_steps: int = 0


def build_model(config: TrainConfig) -> PPO:
    """PPO with :class:`RowPolicy` on :func:`make_envs` (seeded by ``config.seed``), the actor
    at its prior, logging nothing."""
    torch.set_num_threads(config.torch_threads)
    torch.manual_seed(config.seed)
    model = PPO(
        RowPolicy,
        make_envs(config),
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        gamma=1.0,  # the return is the episode's best g: no discount
        policy_kwargs={
            "hidden": config.hidden,
            "prior_feature": FEATURES.index(config.prior_feature) if config.prior_feature else None,
            "prior_weight": config.prior_weight,
        },
        seed=config.seed,
        device="cpu",
    )
    # SB3's default logger makes a folder in the system's temporary directory at every learn();
    # the training reports its progress itself and writes no log.
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def imitation_phase(config: TrainConfig, model: PPO, keep: KeepBest | None) -> int:
    """The imitation rounds on fresh training environments (seeded from ``config.seed``),
    validated after each; the policy then holds the best validated weights. Returns the
    steps played."""
    if config.imitation_rounds < 1:
        return 0
    policy = cast(RowPolicy, model.policy)
    envs = [candidate_env(config, i, config.train_function_seeds) for i in env_ids(config)]
    settings = ImitationConfig(
        rounds=config.imitation_rounds,
        steps=config.imitation_steps,
        epochs=config.imitation_epochs,
        learning_rate=config.imitation_learning_rate,
    )
    if keep is not None:
        keep.validate(policy, 0)
    steps = imitate(
        policy,
        envs,
        settings,
        config.seed,
        lambda steps: keep.validate(policy, steps) if keep else None,
    )
    if keep is not None:
        keep.restore(policy)
    return steps


def train(config: TrainConfig, progress: bool = True) -> Training:
    """Imitation (:func:`imitation_phase`), then PPO from its weights; with validation
    functions, the model holds the weights that scored best on them over both phases
    (:class:`~agents.neural.validation.KeepBest`, the untrained prior included), otherwise the
    last."""
    model = build_model(config)
    keep = validation(config)
    steps = imitation_phase(config, model, keep)
    callbacks: list[BaseCallback] = [Progress(config.total_timesteps)] if progress else []
    if keep is not None:
        keep.offset = steps
        callbacks.append(keep)
    if config.total_timesteps > 0:
        model.learn(total_timesteps=config.total_timesteps, callback=CallbackList(callbacks))
    if keep is None:
        return Training(model, [], steps + config.total_timesteps, steps)
    return Training(model, keep.history, keep.best_steps, steps)


def write_curve(path: str, config: TrainConfig, result: Training) -> None:
    """The validation curve as JSON (written to a sibling file, then renamed): the config,
    the imitation's steps, every ``(steps, score)`` and the steps of the weights kept."""
    curve = {
        "config": dataclasses.asdict(config),
        "imitation_steps": result.imitation_steps,
        "score": "mean final best g on the validation functions (units of f; higher is better)",
        "validation": [{"steps": s, "score": v} for s, v in result.validation_history],
        "kept_steps": result.best_steps,
    }
    text = json.dumps(curve, indent=1) + "\n"
    write_file(path, lambda tmp: tmp.write_text(text))


def parse(argv: list[str] | None = None) -> tuple[TrainConfig, str, str]:
    """The config from flags (one per field), the model's path and the curve's ("": none)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(TrainConfig):
        default = getattr(TrainConfig, field.name)
        parser.add_argument(
            f"--{field.name.replace('_', '-')}", type=type(default), default=default
        )
    parser.add_argument("--out", default="neural_af.zip", help="where to save the model")
    parser.add_argument("--curve", default="", help="where to write the validation curve (JSON)")
    args = vars(parser.parse_args(argv))
    out, curve = args.pop("out"), args.pop("curve")
    return TrainConfig(**args), out, curve


def main(argv: list[str] | None = None) -> None:
    config, out, curve = parse(argv)
    print(f"# {dataclasses.asdict(config)}", file=sys.stderr)
    wall, cpu = time.perf_counter(), time.process_time()
    result = train(config)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    result.model.save(out)
    if curve:
        write_curve(curve, config, result)
    print(f"trained {result.imitation_steps} imitation and {config.total_timesteps} PPO steps "
          f"in {wall:.0f} s wall, {cpu:.0f} CPU-s; saved the weights of step "
          f"{result.best_steps} to {out}", file=sys.stderr)  # fmt: skip


if __name__ == "__main__":
    main()
