"""What :class:`~agents.acquisition.SetOptimizer` maximizes: an acquisition over control sets.

An acquisition values partial queries ``x^i`` of control sets, differentiably, in batches: the
optimizer hands it ``(set, b x d full queries)`` parts (only the set's entries matter) and asks
for one ``b`` tensor of values per part. It says itself how its candidates are screened
(:meth:`SetAcquisition.top`), whether a cheaper bound of its value exists
(:meth:`SetAcquisition.upper`) and how the optimizer should refine (:meth:`SetAcquisition.plan`),
as BoTorch's acquisition functions are apart from ``optimize_acqf``. The implementations: the
expectations over the random inputs (:class:`~agents.acquisition.Estimator`) and the scores of
a set's value (:class:`~agents.acquisition.SetScores`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import torch
from torch import Tensor

#: ``(control set, batch x d full queries)``: a batch of partial queries of one set.
Part = tuple[int, Tensor]


class Top(NamedTuple):
    """The best screened candidates of one set, best first."""

    #: ``k`` indices into the set's candidates.
    indices: Tensor
    #: their ``k`` screening scores.
    scores: Tensor


@dataclass(frozen=True)
class RefinePlan:
    """How :class:`~agents.acquisition.SetOptimizer` refines the starts of an acquisition.

    Attributes:
        groups: the positions of the requested sets, in groups screened and pre-refined together.
        pre_refine: first refine the starts on :meth:`SetAcquisition.screen`, then polish on
            :meth:`SetAcquisition.value`.
        n_polish: polish only the best ``n_polish`` distinct starts per set (``None``: all).
        batch_limit: the most starts optimized (and evaluated) together (``None``: all of a
            group), as in :func:`~agents.acquisition.optimize.batched_lbfgsb`.
        screened_values: the screening score is the value itself, computed in the same way: the
            best candidate keeps its screening score as its value and is kept unless a refined
            point is strictly better (a search that accepts only improvements on it). Otherwise
            the best candidate is valued again (:func:`~agents.acquisition.best.expected_above`)
            and replaces the best refined point only if strictly better.
    """

    groups: list[list[int]]
    pre_refine: bool = False
    n_polish: int | None = None
    batch_limit: int | None = None
    screened_values: bool = False


class SetAcquisition(ABC):
    """A differentiable value of the partial queries of control sets, for batches of queries.

    Args:
        control_sets: the variables of every control set.
        dim: the number of variables ``d``.
    """

    def __init__(self, control_sets: Sequence[Sequence[int]], dim: int) -> None:
        self.control_sets = [list(s) for s in control_sets]
        self.dim = dim

    def check_set(self, i: int) -> None:
        """Raise ValueError unless ``i`` is one of the control sets."""
        if not (0 <= i < len(self.control_sets)):
            raise ValueError(f"control set {i} is out of range for {len(self.control_sets)} sets")

    def embed(self, idx: list[int], Z: Tensor) -> Tensor:
        """``b x k`` values of the variables ``idx`` -> ``b x d`` queries (others 0.5)."""
        X = Z.new_full((Z.shape[0], self.dim), 0.5)
        return X.index_copy(1, torch.tensor(idx), Z)

    @abstractmethod
    def value(self, parts: Sequence[Part], n_samples: int | None = None) -> list[Tensor]:
        """The value of every part, in one call where possible.

        Args:
            parts: ``(set, batch x d queries)``; only the entries in the set matter.
            n_samples: an expectation uses only its first ``n_samples`` samples (default: all;
                an acquisition without samples ignores it).

        Returns:
            One ``batch`` tensor per part (the units of ``y``), differentiable with respect to
            the queries.
        """

    def screen(self, parts: Sequence[Part]) -> list[Tensor]:
        """A cheap score of candidates that ranks them like :meth:`value` (here: the value
        itself); differentiable, one ``batch`` tensor per part."""
        return self.value(parts)

    def top(
        self, sets: Sequence[int], idx: Sequence[list[int]], raws: Sequence[Tensor], k: int
    ) -> list[Top]:
        """Per set, the ``k`` candidates (``r x |set|`` each, on the set's variables ``idx``)
        with the best :meth:`screen` score, best first."""
        parts = [(i, self.embed(ix, Z)) for i, ix, Z in zip(sets, idx, raws, strict=True)]
        return [Top(best.indices, best.values) for best in (s.topk(k) for s in self.screen(parts))]

    def upper(self, parts: Sequence[Part]) -> list[Tensor] | None:
        """Upper bounds of :meth:`value` (all samples), cheaper than it, one ``batch`` tensor
        per part; ``None`` where there is none (here). A point whose bound is below a value
        already reached need not be valued (:func:`~agents.acquisition.best.expected_above`)."""
        return None

    def plan(self, n_sets: int) -> RefinePlan:
        """How to refine the starts of ``n_sets`` sets: here all at once on :meth:`value`."""
        return RefinePlan([list(range(n_sets))])
