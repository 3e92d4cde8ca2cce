"""Gymnasium ids: ``bocvs/<Problem>-v1`` for every built-in problem, plus the papers' presets.

Every id carries :data:`VERSION`, bumped (Gymnasium's convention) whenever a change can alter
what a learner sees; the environment classes' ``Version History`` says what changed. Making an
id of an older version raises Gymnasium's ``DeprecatedEnv`` naming the current one.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from bocvs_env.problems.registry import PROBLEMS

#: The version of every id (see ``BOCVSEnv``'s Version History).
VERSION = 1

#: Preset ids for the papers' settings, with the keyword arguments they fix.
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    f"bocvs/Hartmann6in12D-Moderate-v{VERSION}": ("hartmann6_12d", {"cost_set": "moderate"}),
    f"bocvs/Ackley6in12D-Moderate-v{VERSION}": ("ackley6_12d", {"cost_set": "moderate"}),
    f"bocvs/Hartmann3-Expensive-v{VERSION}": ("hartmann3", {"cost_set": "expensive"}),
}

#: Problem-family ids (:mod:`bocvs_env.problems.families`): a new function per reset, with
#: disjoint train and test ranges of function seeds.
FAMILY_IDS: dict[str, dict[str, Any]] = {
    f"bocvs/{env_name}-{split.capitalize()}-v{VERSION}": {"family": family, "split": split}
    for env_name, family in (
        ("GPSampleFamily", "gp_sample"),
        ("RotatedHartmann3Family", "rotated_hartmann3"),
    )
    for split in ("train", "test")
}

ENV_IDS: tuple[str, ...] = tuple(
    [f"bocvs/{p.env_name}-v{VERSION}" for p in PROBLEMS.values()] + list(PRESETS) + list(FAMILY_IDS)
)


def register_envs() -> None:
    """Register every id once (importing :mod:`bocvs_env` calls this)."""
    specs: dict[str, tuple[str, dict[str, Any]]] = {
        f"bocvs/{p.env_name}-v{VERSION}": (p.name, {}) for p in PROBLEMS.values()
    } | PRESETS
    for env_id, (problem, kwargs) in specs.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point="bocvs_env.env:BOCVSEnv",
            kwargs={"problem": problem, **kwargs},
            disable_env_checker=False,
        )
    for env_id, kwargs in FAMILY_IDS.items():
        if env_id not in gym.registry:
            gym.register(
                id=env_id,
                entry_point="bocvs_env.problems.families:FamilyEnv",
                kwargs=kwargs,
                disable_env_checker=False,
            )
