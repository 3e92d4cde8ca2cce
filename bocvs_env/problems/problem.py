"""A BOCVS problem: objective, control sets, input distributions, costs, noise and budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bocvs_env.checks import integer, real
from bocvs_env.problems.costs import CostModel
from bocvs_env.problems.distributions import InputDistribution
from bocvs_env.problems.objective import Objective
from bocvs_env.task import Task


def validate_control_sets(
    control_sets: Sequence[Sequence[int]], dim: int
) -> tuple[tuple[int, ...], ...]:
    """Check and normalise control sets to sorted tuples of indices in ``range(dim)``.

    Raises:
        ValueError: for no sets, an empty set, a repeated index, an index out of range, or two
            sets with the same variables.
    """
    if len(control_sets) == 0:
        raise ValueError("a problem needs at least one control set")
    out: list[tuple[int, ...]] = []
    for k, s in enumerate(control_sets):
        idx = [int(v) for v in s]
        if len(idx) == 0:
            raise ValueError(f"control set {k} is empty")
        if len(set(idx)) != len(idx):
            raise ValueError(f"control set {k} = {list(s)} repeats a variable")
        bad = [v for v in idx if not 0 <= v < dim]
        if bad:
            raise ValueError(f"control set {k} = {list(s)} has indices {bad} outside [0, {dim})")
        t = tuple(sorted(idx))
        if t in out:
            raise ValueError(f"control set {k} = {list(s)} duplicates control set {out.index(t)}")
        out.append(t)
    return tuple(out)


#: The most plays of the cheapest set (``budget / min(mean costs)``) a budget may buy. An episode
#: keeps every play, and a GP agent's work grows with its data: the papers' settings buy at most
#: about 10^4 (budget 100 at mean cost 0.01), a random search of 10^6 plays takes minutes, and a
#: budget far beyond (``1e12``, ``1e300``) is a typo whose episode would never end.
MAX_PLAYS = 10**6


@dataclass(frozen=True)
class Problem:
    """Everything the environment needs to simulate one BOCVS problem.

    Attributes:
        objective: ``f``, shifted so that it is ``>= 0`` on the cube.
        control_sets: ``m`` sets of variable indices (validated, stored sorted).
        distributions: ``d`` distributions of the variables on ``[0, 1]``.
        cost_model: draws the cost of each set; its means are hidden from agents.
        budget: total cost the learner may spend (> 0).
        noise_std: standard deviation of the Gaussian observation noise on ``y``.
        n_initial: free, fully controlled uniform initial points evaluated at reset (>= 0).
        name: the problem's name (defaults to the objective's).
        config: the keyword arguments that built it, for provenance and cache keys.
        reference_lengthscale: the reference codes' fixed GP lengthscale on this problem, public
            (:attr:`~bocvs_env.task.Task.reference_lengthscale`).
    """

    objective: Objective
    control_sets: tuple[tuple[int, ...], ...]
    distributions: tuple[InputDistribution, ...]
    cost_model: CostModel
    budget: float
    noise_std: float = 0.01
    n_initial: int = 5
    name: str = ""
    config: dict[str, Any] | None = None
    reference_lengthscale: float = 0.1

    def __post_init__(self) -> None:
        d = self.objective.dim
        object.__setattr__(self, "control_sets", validate_control_sets(self.control_sets, d))
        object.__setattr__(self, "distributions", tuple(self.distributions))
        if not self.name:
            object.__setattr__(self, "name", self.objective.name)
        if len(self.distributions) != d:
            raise ValueError(
                f"need one distribution per variable: {d}, got {len(self.distributions)}"
            )
        if not all(isinstance(p, InputDistribution) for p in self.distributions):
            raise TypeError("distributions must be InputDistribution instances")
        m = len(self.control_sets)
        if self.cost_model.means.shape != (m,):
            raise ValueError(
                f"the cost model has {self.cost_model.means.size} means for {m} control sets"
            )
        if real(self.budget, "budget") <= 0:
            raise ValueError(f"budget must be positive, got {self.budget!r}")
        cheapest = float(self.cost_model.means.min())
        if self.budget / cheapest > MAX_PLAYS:
            raise ValueError(
                f"budget {self.budget!r} buys {self.budget / cheapest:.3g} plays of the cheapest "
                f"set (mean cost {cheapest:g}); at most {MAX_PLAYS:,} plays are allowed "
                f"(budget <= {MAX_PLAYS * cheapest:g})"
            )
        if real(self.noise_std, "noise_std") < 0:
            raise ValueError(f"noise_std must be finite and >= 0, got {self.noise_std!r}")
        object.__setattr__(self, "n_initial", integer(self.n_initial, "n_initial", minimum=0))
        if real(self.reference_lengthscale, "reference_lengthscale") <= 0:
            raise ValueError(
                f"reference_lengthscale must be positive, got {self.reference_lengthscale!r}"
            )

    @property
    def dim(self) -> int:
        """The input dimension ``d``."""
        return self.objective.dim

    @property
    def n_sets(self) -> int:
        """The number of control sets ``m``."""
        return len(self.control_sets)

    def task(self) -> Task:
        """The public description a fair agent receives."""
        return Task(
            name=self.name,
            dim=self.dim,
            control_sets=self.control_sets,
            distributions=self.distributions,
            budget=float(self.budget),
            lower_bound=0.0,
            n_initial=self.n_initial,
            reference_lengthscale=self.reference_lengthscale,
        )

    def describe(self) -> dict[str, Any]:
        """A JSON-able description (problem, costs, distributions) for provenance."""
        return {
            "name": self.name,
            "objective": self.objective.describe(),
            "control_sets": [list(s) for s in self.control_sets],
            "variances": [p.variance for p in self.distributions],
            "cost_model": self.cost_model.describe(),
            "budget": float(self.budget),
            "noise_std": self.noise_std,
            "n_initial": self.n_initial,
            "config": dict(self.config or {}),
        }
