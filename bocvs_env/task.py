"""The public task description: everything a fair learner may know about a problem."""

from __future__ import annotations

from dataclasses import dataclass

from bocvs_env.problems.distributions import InputDistribution


@dataclass(frozen=True)
class Task:
    """What an agent is told at the start of an episode.

    It deliberately omits the objective ``f``, the cost means and the oracle, which live behind
    the environment.

    Attributes:
        name: the problem's name.
        dim: the number of input variables ``d``.
        control_sets: ``m`` sorted tuples of variable indices, the sets a learner may control.
        distributions: ``d`` known distributions ``P_l`` of the variables on ``[0, 1]``.
        budget: the total cost the learner may spend, in cost units.
        lower_bound: a lower bound of ``f`` over the cube: 0 for every problem a
            :class:`~bocvs_env.problems.problem.Problem` builds (built-in objectives are shifted
            so that ``f >= 0``, and a user's objective is shifted by its declared lower bound).
        n_initial: the number of free, fully controlled initial points the environment evaluates
            at reset (reported in ``info["initial_x"]`` and ``info["initial_y"]``).
        reference_lengthscale: the fixed GP lengthscale the papers' reference codes use on this
            problem (0.1, the project's specification, or 0.2 on plant and airfoil): a model
            default an agent may take, not a property of ``f``.
    """

    name: str
    dim: int
    control_sets: tuple[tuple[int, ...], ...]
    distributions: tuple[InputDistribution, ...]
    budget: float
    lower_bound: float = 0.0
    n_initial: int = 0
    reference_lengthscale: float = 0.1

    @property
    def n_sets(self) -> int:
        """The number of control sets ``m``."""
        return len(self.control_sets)

    def free_variables(self, i: int) -> tuple[int, ...]:
        """The indices of the variables that are random when set ``i`` is played."""
        chosen = set(self.control_sets[i])
        return tuple(l for l in range(self.dim) if l not in chosen)
