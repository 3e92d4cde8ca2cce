"""The one optimizer of the agents' acquisitions: ``max_{x^i}`` of a
:class:`~agents.acquisition.SetAcquisition` for each requested control set.

As BoTorch's ``optimize_acqf`` is apart from its acquisition functions, the optimizer knows an
acquisition only by its interface. For all requested sets at once:

1. screen each set's candidates (the caller's: e.g.
   :meth:`ExpectedAcquisition.candidates <agents.acquisition.ExpectedAcquisition.candidates>`,
   scrambled Sobol points and recent observed inputs) by the acquisition's
   :meth:`~agents.acquisition.SetAcquisition.top`, keeping the best ``n_restarts``;
2. as the acquisition's :meth:`~agents.acquisition.SetAcquisition.plan` says, pre-refine them on
   its cheap screening score and keep the best distinct ones;
3. polish them on its value, each start its own L-BFGS-B (SciPy's, by the one driver
   :func:`~agents.acquisition.optimize.batched_lbfgsb`: the starts in lockstep, every round one
   batched evaluation with autograd gradients, at most the plan's ``batch_limit`` together);
4. return per set the best polished point, or the best screened candidate if it is better.

:meth:`SetOptimizer.polish_from` is step 3 alone, from given starts (a local search).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from agents.acquisition.refine import Fallback, Query, polish, refined_starts
from agents.acquisition.set_acquisition import Part, SetAcquisition
from bocvs_env.checks import check_optional_positive_integers, check_positive_integers


class SetOptimizer:
    """Multi-start L-BFGS-B over the variables of control sets, from screened candidates.

    Args:
        n_restarts: the best candidates of each set refined by L-BFGS-B (fewer where a set has
            fewer candidates).
        maxiter: the L-BFGS-B iteration limit of every start.
        polish_samples: polish with only the first ``polish_samples`` samples of an expectation
            (a prefix of its Sobol sequence, balanced for powers of two), then value the
            polished points with all; ``None`` polishes with all. Trades the maximizer's
            precision for time: the polishing's per-sample quadratic forms are most of a
            decision where the expectation has samples (airfoil); the returned values are
            still those on all samples.
    """

    def __init__(
        self, n_restarts: int = 8, maxiter: int = 100, polish_samples: int | None = None
    ) -> None:
        check_positive_integers(n_restarts=n_restarts, maxiter=maxiter)
        check_optional_positive_integers(polish_samples=polish_samples)
        self.n_restarts = n_restarts
        self.maxiter = maxiter
        self.polish_samples = polish_samples

    def maximize(
        self, acquisition: SetAcquisition, sets: Sequence[int], candidates: Sequence[Tensor]
    ) -> list[tuple[float, np.ndarray]]:
        """``max_{x^i}`` of the acquisition for each requested set, all optimized together.
        Deterministic given the candidates.

        Args:
            acquisition: the value to maximize.
            sets: the control sets to maximize over.
            candidates: per set in ``sets``, ``r x |set|`` values of its variables in
                ``[0, 1]`` (``r >= 1``) to screen.

        Returns:
            For each set in ``sets``, in order: the maximum value (units of ``y``) and the
            maximizing full query of shape ``(d,)`` (entries outside the set are 0.5).
        """
        sets = self._checked(acquisition, sets, len(candidates), "candidate set")
        if not sets:
            return []
        plan = acquisition.plan(len(sets))
        idx = [acquisition.control_sets[i] for i in sets]
        query = _query(acquisition, sets)
        starts, refined, owners = refined_starts(
            acquisition, plan, sets, idx, list(candidates), query, self.n_restarts, self.maxiter
        )
        fallbacks = [
            Fallback(points[:1], float(scores[0]) if plan.screened_values else None)
            for points, scores in starts
        ]
        return polish(
            acquisition,
            query,
            fallbacks,
            refined,
            owners,
            self.maxiter,
            self.polish_samples,
            plan.batch_limit,
        )

    def polish_from(
        self,
        acquisition: SetAcquisition,
        sets: Sequence[int],
        x0: Sequence[np.ndarray],
        maxiter: int | None = None,
        all_samples: bool = False,
    ) -> list[tuple[float, np.ndarray]]:
        """:meth:`maximize` without screening, a local search: per set one L-BFGS-B on the
        value from ``x0`` (full queries ``(d,)``, one per set; e.g. last round's maximizers),
        all sets together, at most ``maxiter`` iterations (``None``: :attr:`maxiter`; 0 only
        values the starts), on the first :attr:`polish_samples` samples or, with
        ``all_samples``, on all. Returns as :meth:`maximize` (each value at least its
        start's)."""
        sets = self._checked(acquisition, sets, len(x0), "start")
        starts = [
            torch.as_tensor(np.asarray(x, np.float64)[acquisition.control_sets[i]]).unsqueeze(0)
            for x, i in zip(x0, sets, strict=True)
        ]
        points, owners = [st[0].numpy().copy() for st in starts], list(range(len(sets)))
        return polish(
            acquisition,
            _query(acquisition, sets),
            [Fallback(st) for st in starts],
            points,
            owners,
            self.maxiter if maxiter is None else maxiter,
            None if all_samples else self.polish_samples,
            acquisition.plan(len(sets)).batch_limit,
        )

    @staticmethod
    def _checked(acquisition: SetAcquisition, sets: Sequence[int], n: int, what: str) -> list[int]:
        """``sets`` as integers, each a set of the acquisition, with ``n`` of ``what``."""
        if n != len(sets):
            raise ValueError(f"needs one {what} per set, got {n} for {len(sets)} sets")
        out = [int(i) for i in sets]
        for i in out:
            acquisition.check_set(i)
        return out


def _query(acquisition: SetAcquisition, sets: list[int]) -> Query:
    """``(position in sets, b x |set|)`` -> that set's part of ``b`` queries."""
    idx = [acquisition.control_sets[i] for i in sets]

    def query(j: int, Z: Tensor) -> Part:
        return sets[j], acquisition.embed(idx[j], Z)

    return query
