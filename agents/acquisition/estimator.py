"""How ``E[score]`` over the random inputs is estimated: the interface every estimator follows.

An estimator is built for one surrogate and one score (a bound or a function), once per
maximization or expectation, by :meth:`agents.acquisition.ExpectedAcquisition.estimator`: that is
where the fast path for a GP is chosen, not in every method.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from torch import Tensor

from agents.acquisition.inputs import RandomInputs

#: ``(control set, batch x d full queries)``: a batch of partial queries of one set.
Part = tuple[int, Tensor]


@dataclass(frozen=True)
class RefinePlan:
    """How the starts of a maximization are refined (see
    :meth:`agents.acquisition.ExpectedAcquisition.maximize`).

    Attributes:
        groups: the positions of the requested sets, in groups screened and pre-refined together.
        pre_refine: first refine the starts on :meth:`Estimator.screen`, then polish on
            :meth:`Estimator.expected`.
        n_polish: polish only the best ``n_polish`` distinct starts per set (``None``: all).
    """

    groups: list[list[int]]
    pre_refine: bool = False
    n_polish: int | None = None


class Estimator(ABC):
    """``E[score([x^i, X^-i])]`` over the random inputs of a set, for batches of queries.

    Args:
        inputs: the fixed sample of the random inputs.
    """

    def __init__(self, inputs: RandomInputs) -> None:
        self.inputs = inputs

    @abstractmethod
    def expected(self, parts: Sequence[Part], n_samples: int | None = None) -> list[Tensor]:
        """The expectation for every part, in one posterior call where possible.

        Args:
            parts: ``(set, batch x d queries)``; only the entries in the set matter.
            n_samples: use only the first ``n_samples`` sample rows (default: all).

        Returns:
            One ``batch`` tensor per part, in the units of ``y``, differentiable with respect to
            the queries.
        """

    def screen(self, parts: Sequence[Part]) -> list[Tensor]:
        """A cheap score of raw candidates that ranks them like :meth:`expected` (here: the
        expectation itself); differentiable, one ``batch`` tensor per part."""
        return self.expected(parts)

    def top(
        self, sets: Sequence[int], idx: Sequence[list[int]], raws: Sequence[Tensor], k: int
    ) -> list[Tensor]:
        """Per set, the indices of the ``k`` raw candidates (``r x |set|`` each, on the set's
        variables ``idx``) with the best :meth:`screen` score, best first."""
        parts = [(i, self.inputs.embed(ix, Z)) for i, ix, Z in zip(sets, idx, raws, strict=True)]
        return [s.topk(k).indices for s in self.screen(parts)]

    def upper(self, parts: Sequence[Part]) -> list[Tensor] | None:
        """Upper bounds of :meth:`expected` (all samples), cheaper than it, one ``batch``
        tensor per part; ``None`` where there is none (here). A point whose bound is below a
        value already reached need not be valued (:func:`~agents.acquisition.best.expected_above`)."""
        return None

    def plan(self, n_sets: int) -> RefinePlan:
        """How to refine the starts of ``n_sets`` sets: here all at once on :meth:`expected`."""
        return RefinePlan([list(range(n_sets))])
