"""Problem families for learning across functions: a new objective per ``reset(seed)``.

A family fixes everything but ``f``: the control sets, input distributions, cost model, budget and
noise of a base problem; each episode draws a function seed and builds the objective from it. A
learner is trained on one seed range and tested on another that does not overlap
(:data:`SPLITS`), so test functions are unseen by construction.

Families (:data:`FAMILIES`):

* ``gp_sample``: functions drawn from a GP (SE kernel), as in UCB-CVS (Tay et al. 2023), via
  :func:`bocvs_env.problems.gp_sample.gp_sample`; 3-D, the seven subsets of ``hartmann3``.
* ``rotated_hartmann3``: Hartmann-3 under a random rotation about the cube's centre and a random
  shift of its inputs, folded back into the cube (:class:`TransformedObjective`).

:class:`FamilyEnv` is the environment: a :class:`~bocvs_env.env.BOCVSEnv` whose ``reset``
draws the function.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import torch
from torch import Tensor

from bocvs_env.checks import check_reset, integer
from bocvs_env.env import BOCVSEnv, ObsType
from bocvs_env.problems.objective import Objective
from bocvs_env.problems.problem import Problem
from bocvs_env.problems.registry import make_problem

#: Function-seed ranges ``[lo, hi)`` of the named splits; disjoint by construction.
SPLITS: dict[str, tuple[int, int]] = {"train": (0, 10_000), "test": (10_000, 20_000)}


def fold(Z: Tensor) -> Tensor:
    """Reflect values into ``[0, 1]`` (a triangle wave: the identity on ``[0, 1]``, continuous)."""
    return 1.0 - torch.abs(torch.remainder(Z, 2.0) - 1.0)


def random_rotation(dim: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-random ``dim x dim`` rotation (orthogonal, determinant +1)."""
    Q, R = np.linalg.qr(rng.standard_normal((dim, dim)))
    Q = Q * np.sign(np.diag(R))
    if np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    return Q


class TransformedObjective(Objective):
    """``f(fold(R (x - 1/2) + 1/2 + s))``: a base objective with rotated and shifted inputs.

    The rotation ``R`` turns the cube about its centre, the offset ``s`` shifts it, and
    :func:`fold` reflects the result back into the cube, so the base objective is only ever
    evaluated on the cube: ``f >= 0`` is preserved and the base's ``shift`` is kept. The maximum
    may differ from the base's (its maximizer can leave the image), so ``optimal_value`` is
    ``None`` (the oracle computes it).

    Args:
        base: the objective on ``[0, 1]^d``.
        rotation: ``d x d`` orthogonal matrix.
        offset: ``d`` shift of the rotated inputs.
        name: a short name; ``describe()`` also records ``rotation`` and ``offset``.
    """

    def __init__(
        self, base: Objective, rotation: np.ndarray, offset: np.ndarray, name: str
    ) -> None:
        d = base.dim
        rotation = np.asarray(rotation, dtype=np.float64)
        offset = np.asarray(offset, dtype=np.float64)
        if rotation.shape != (d, d) or offset.shape != (d,):
            raise ValueError(
                f"need a ({d}, {d}) rotation and a ({d},) offset, got {rotation.shape} and "
                f"{offset.shape}"
            )
        if not np.allclose(rotation @ rotation.T, np.eye(d), atol=1e-10):
            raise ValueError("rotation must be an orthogonal matrix")
        self.base = base
        self.dim = d
        self.shift = base.shift
        self.name = name
        self.optimal_value = None
        self.rotation = torch.from_numpy(rotation)
        self.offset = torch.from_numpy(offset)

    @classmethod
    def random(
        cls,
        base: Objective,
        seed: int,
        max_shift: float = 0.25,
        rotate: bool = True,
        name: str | None = None,
    ) -> TransformedObjective:
        """A random rotation (if ``rotate``) and an offset uniform in ``[-max_shift, max_shift]^d``,
        both drawn from ``numpy.random.default_rng(seed)``."""
        if not 0.0 <= max_shift <= 1.0:
            raise ValueError(f"max_shift must be in [0, 1], got {max_shift!r}")
        rng = np.random.default_rng(seed)
        rotation = random_rotation(base.dim, rng) if rotate else np.eye(base.dim)
        offset = rng.uniform(-max_shift, max_shift, base.dim)
        return cls(base, rotation, offset, name or f"{base.name}_transformed_{seed}")

    def raw(self, X: Tensor) -> Tensor:
        Z = (X - 0.5) @ self.rotation.T + 0.5 + self.offset
        return self.base.raw(fold(Z))

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "base": self.base.describe(),
            "rotation": self.rotation.tolist(),
            "offset": self.offset.tolist(),
        }


def rotated_hartmann3(function_seed: int, max_shift: float = 0.25) -> TransformedObjective:
    """Negated Hartmann-3 with a random rotation and shift drawn from ``function_seed``
    (an integer >= 0)."""
    from bocvs_env.problems.synthetic import hartmann3

    function_seed = integer(function_seed, "function_seed", minimum=0)
    return TransformedObjective.random(
        hartmann3(), function_seed, max_shift, name=f"rotated_hartmann3_{function_seed}"
    )


@dataclass(frozen=True)
class FamilyInfo:
    """A problem family.

    Attributes:
        name: the key of :data:`FAMILIES`.
        base: the built-in problem (a key of ``PROBLEMS``) whose control sets, distributions,
            costs, noise and budget every member shares (its own objective is never used).
        objective: ``"module:function"`` of ``function(function_seed, **family_options)``
            returning the member's :class:`Objective`.
    """

    name: str
    base: str
    objective: str

    def objective_factory(self) -> Callable[..., Objective]:
        module, func = self.objective.split(":")
        return getattr(importlib.import_module(module), func)


#: The families. ``gp_sample`` takes its settings from ``hartmann3``, which has the same control
#: sets and budget as the ``gp_sample`` problem and an objective that is cheap to build.
FAMILIES: dict[str, FamilyInfo] = {
    f.name: f
    for f in (
        FamilyInfo("gp_sample", "hartmann3", "bocvs_env.problems.gp_sample:gp_sample"),
        FamilyInfo(
            "rotated_hartmann3", "hartmann3", "bocvs_env.problems.families:rotated_hartmann3"
        ),
    )
}


@functools.lru_cache(maxsize=64)
def member_objective(
    family: str, function_seed: int, options: tuple[tuple[str, Any], ...] = ()
) -> Objective:
    """The objective of a family's member (memoized: building one may search for its minimum).

    Args:
        family: a key of :data:`FAMILIES`.
        function_seed: the member's seed.
        options: the family options as sorted ``(name, value)`` pairs (hashable).
    """
    return FAMILIES[family].objective_factory()(function_seed=function_seed, **dict(options))


class FamilyEnv(BOCVSEnv):
    """A :class:`BOCVSEnv` that draws a new objective from a family at every reset.

    ## Description
    As :class:`BOCVSEnv`, except that ``reset(seed=s)`` first draws a function seed uniformly
    from the split's range with the environment's generator (seeded by ``s``), then builds that
    member of the family; the rest of the reset (inputs, noise, costs, initial design) follows
    from the same generator. ``reset()`` without a seed continues the stream, so successive
    episodes of a training run see new functions. ``reset(options={"function_seed": k})`` pins
    the member (``k`` must lie in the split's range).

    Spaces, reward, episode end and ``info`` are those of :class:`BOCVSEnv`; ``reset``'s
    ``info["privileged"]["function_seed"]`` names the member (for bookkeeping, not for agents;
    given whatever ``privileged_info``, which governs only the per-step values), and
    ``problem.config["function_seed"]`` records it in episode records.

    ## Arguments
    ``family``: a key of :data:`FAMILIES`. ``split``: ``"train"`` or ``"test"``
    (:data:`SPLITS`), or ``function_seeds=(lo, hi)`` for another range. ``family_options``:
    keywords of the family's objective (e.g. ``lengthscale`` for ``gp_sample``, ``max_shift``
    for ``rotated_hartmann3``). The other keywords (``cost_set``, ``variance``, ``budget``,
    ``noise_std``, ``cost_noise_std``, ``n_initial``, ``cost_model``) go to
    :func:`~bocvs_env.problems.registry.make_problem` for the base problem.

    ## Version History
    * v1: the observation's ``control_set`` is ``m`` before any play, as in ``BOCVSEnv`` v1.
    * v0: initial version.
    """

    reset_options: ClassVar[frozenset[str]] = frozenset({"function_seed"})

    def __init__(
        self,
        family: str = "gp_sample",
        split: str | None = "train",
        function_seeds: Sequence[int] | None = None,
        family_options: dict[str, Any] | None = None,
        privileged_info: bool = True,
        render_mode: str | None = None,
        **problem_options: Any,
    ) -> None:
        try:
            self.family = FAMILIES[family]
        except KeyError:
            raise ValueError(
                f"unknown family {family!r}; expected one of {sorted(FAMILIES)}"
            ) from None
        self.seed_range = self._seed_range(split, function_seeds)
        self.family_options = dict(family_options or {})
        self._template = make_problem(self.family.base, **problem_options)
        # Until the first reset the problem is the base problem (same spaces and task).
        config = {
            **(self._template.config or {}),
            "problem": family,
            "family": family,
            "function_seed": None,
        }
        initial = dataclasses.replace(self._template, name=family, config=config)
        super().__init__(initial, privileged_info, render_mode)

    @staticmethod
    def _seed_range(split: str | None, function_seeds: Sequence[int] | None) -> tuple[int, int]:
        if function_seeds is not None:
            lo, hi = (integer(v, "function_seeds") for v in function_seeds)
            if not 0 <= lo < hi:
                raise ValueError(
                    f"function_seeds must be (lo, hi) with 0 <= lo < hi, got {(lo, hi)}"
                )
            return lo, hi
        if split not in SPLITS:
            raise ValueError(f"split must be one of {sorted(SPLITS)} (or pass function_seeds)")
        return SPLITS[split]

    def _member(self, function_seed: int) -> Problem:
        """The family's problem for ``function_seed``."""
        options = tuple(sorted(self.family_options.items()))
        objective = member_objective(self.family.name, function_seed, options)
        config = {
            **(self._template.config or {}),
            "problem": self.family.name,
            "family": self.family.name,
            "function_seed": function_seed,
            **self.family_options,
        }
        return dataclasses.replace(
            self._template, objective=objective, name=self.family.name, config=config
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsType, dict[str, Any]]:
        check_reset(seed, options, self.reset_options, type(self).__name__)
        lo, hi = self.seed_range
        # Seed the generator here; BOCVSEnv.reset(seed=None) then continues its stream.
        super(BOCVSEnv, self).reset(seed=seed)
        drawn = lo + int(self.np_random.integers(hi - lo))
        function_seed = integer((options or {}).get("function_seed", drawn), "function_seed")
        if not lo <= function_seed < hi:
            raise ValueError(f"function_seed {function_seed} is outside this split's [{lo}, {hi})")
        if function_seed != (self.problem.config or {}).get("function_seed"):
            self.problem = self._member(function_seed)
            self.__dict__.pop("goal", None)  # the cached evaluator belongs to the old function
        obs, info = super().reset(seed=None, options=options)
        info["privileged"] = {"function_seed": function_seed}
        return obs, info
