"""Gymnasium ids: ``bocvs/<Problem>-v1`` for every built-in problem, plus the papers' presets.

Every id carries :data:`VERSION`, bumped (Gymnasium's convention) whenever a change can alter
what a learner sees; the environment classes' ``Version History`` says what changed. Making an
id of an older version raises Gymnasium's ``DeprecatedEnv`` naming the current one.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from bocvs_env.problems.costs import COST_SETS
from bocvs_env.problems.registry import PROBLEMS, ProblemInfo

#: The version of every id (see ``BOCVSEnv``'s Version History).
VERSION = 1

#: The ids of the papers' settings: id -> (problem name, the keyword arguments the id fixes).
PRESET_IDS: dict[str, tuple[str, dict[str, Any]]] = {
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
    [f"bocvs/{p.env_name}-v{VERSION}" for p in PROBLEMS.values()]
    + list(PRESET_IDS)
    + list(FAMILY_IDS)
)


def register_envs() -> None:
    """Register every id once (importing :mod:`bocvs_env` calls this)."""
    specs: dict[str, tuple[str, dict[str, Any]]] = {
        f"bocvs/{p.env_name}-v{VERSION}": (p.name, {}) for p in PROBLEMS.values()
    } | PRESET_IDS
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


def _row(p: ProblemInfo) -> list[str]:
    """A problem's line of :func:`problem_listing`: its name, ids, description, ``d``, default
    budget, the cost sets it takes (those with one mean per control set) and its variances."""
    presets = [f"`{i}` ({', '.join(f'{v}' for v in kw.values())} costs)"
               for i, (name, kw) in PRESET_IDS.items() if name == p.name]  # fmt: skip
    ids = ", ".join([f"`bocvs/{p.env_name}-v{VERSION}`", *presets])
    data = " (data shipped)" if p.needs_data else ""
    d = 1 + max(max(s) for s in p.control_sets)
    cost_sets = [c for c, means in COST_SETS.items() if len(means) == len(p.control_sets)]
    return [f"`{p.name}`", ids, p.description + data, str(d), f"{p.default_budget:g}",
            ", ".join(cost_sets), VARIANCES]  # fmt: skip


#: The input variances every problem takes (``BOCVSEnv``'s ``variance``: a truncated normal's
#: variance, below the uniform's 1/12).
VARIANCES = "any in (0, 1/12); the papers: 0.02, 0.04, 0.08"
#: The listing's columns.
LISTING_HEAD = ("problem (`--problems`)", "gymnasium id", "what", "d", "default budget",
                "cost sets", "variances")  # fmt: skip


def problem_listing(markdown: bool = True) -> str:
    """Every built-in problem beside its gymnasium ids, with the cost sets and input variances
    it takes, from :data:`~bocvs_env.problems.registry.PROBLEMS`: a markdown table (the
    README's), or plain lines (``bocvs run --help``)."""
    rows = [_row(p) for p in PROBLEMS.values()]
    if markdown:
        lines = ["| " + " | ".join(LISTING_HEAD) + " |", "| --- " * len(LISTING_HEAD) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    width = max(len(r[0]) for r in rows)
    text = [f"  {r[0].strip('`'):<{width}} {r[1].replace('`', '')}; {r[2].replace('`', '')}; "
            f"d={r[3]}, default budget {r[4]}; cost sets {r[5]}" for r in rows]  # fmt: skip
    return "\n".join(
        ["problems (--problems NAME; its gymnasium ids; d; cost sets it takes):", *text,
         f"  variances (--variances), every problem: {VARIANCES}"]
    )  # fmt: skip
