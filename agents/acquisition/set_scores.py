"""An acquisition given as a differentiable score per set: e.g. expected improvement of a set's
value ``g_i`` (:class:`agents.policies.cost_ei.CostCooledEIAgent`) or the confidence bounds of
``g_i`` (the ``fetc`` preset of :class:`agents.policies.etc.ETCAgent` with
``value_bounds="integral"``), from :mod:`agents.expected_posterior`.

Maximized by :class:`~agents.acquisition.SetOptimizer` as a plain multi-start search: the
candidates screened on the score itself, the best refined by L-BFGS-B one start at a time,
and a refined point kept only where it improves on the best candidate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from agents.acquisition.set_acquisition import Part, RefinePlan, SetAcquisition, Top

#: ``(set, batch x d full queries)`` -> ``batch`` values (only the set's entries matter),
#: differentiable in the queries.
SetScoreFn = Callable[[int, Tensor], Tensor]


class SetScores(SetAcquisition):
    """A score of each set's queries as the acquisition.

    Args:
        control_sets: the variables of every control set.
        dim: the number of variables ``d``.
        score: the score of a batch of one set's queries.
    """

    def __init__(self, control_sets: Sequence[Sequence[int]], dim: int, score: SetScoreFn) -> None:
        super().__init__(control_sets, dim)
        self.score = score

    def value(self, parts: Sequence[Part], n_samples: int | None = None) -> list[Tensor]:
        """The score of every part (one call per part; ``n_samples`` does not apply)."""
        return [self.score(i, X) for i, X in parts]

    def top(
        self, sets: Sequence[int], idx: Sequence[list[int]], raws: Sequence[Tensor], k: int
    ) -> list[Top]:
        """Per set, its ``k`` best candidates by the score, all candidates scored in one call
        (``torch.argsort`` order, best first)."""
        out = []
        for i, ix, Z in zip(sets, idx, raws, strict=True):
            scores = self.score(i, self.embed(ix, Z))
            order = torch.argsort(scores, descending=True)[:k]
            out.append(Top(order, scores[order]))
        return out

    def plan(self, n_sets: int) -> RefinePlan:
        """No pre-refinement: every screened start is refined on the score, one at a time (its
        evaluations are batches of one point), and the best candidate, valued by its screening
        score, stays unless a refined point is strictly better."""
        return RefinePlan([list(range(n_sets))], batch_limit=1, screened_values=True)
