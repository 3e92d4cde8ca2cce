"""The L-BFGS-B driver of every acquisition maximization: multi-start, each start its own
optimizer, the starts evaluated together in batches (:class:`~agents.acquisition.SetOptimizer`
is its one caller in the agents).

Each start runs SciPy's public ``scipy.optimize.minimize(method="L-BFGS-B")`` on its own, so it
converges and stops on its own, with exactly the iterates it would have alone. The starts run as
greenlets (coroutines with stacks of their own, all in the calling thread): a start's objective
hands its point to the calling greenlet and suspends; once every running start has posted a
point, the caller evaluates them all in one call (one posterior call, with autograd gradients)
and resumes each start with its result. The optimizers advance in lockstep and the objective is
batched without threads: a switch between greenlets is a function call, where handing a point
from one thread to another waits for the operating system (for a CPU, on a busy machine).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from greenlet import getcurrent, greenlet
from scipy.optimize import minimize
from torch import Tensor

from agents.acquisition.set_acquisition import Part
from bocvs_env.blas import one_blas_thread
from bocvs_env.checks import check_optional_positive_integers

#: ``(active problems, their points) -> [(value, gradient)]`` (see :func:`batched_lbfgsb`).
ValuesAndGrads = Callable[[list[int], list[np.ndarray]], list[tuple[float, np.ndarray]]]


def batched_lbfgsb(
    values_and_grads: ValuesAndGrads,
    x0: Sequence[np.ndarray],
    maxiter: int = 100,
    batch_limit: int | None = None,
) -> tuple[list[np.ndarray], list[float]]:
    """Minimize independent problems on ``[0, 1]^k`` with one L-BFGS-B each, in lockstep.

    The problems run in consecutive batches of at most ``batch_limit`` (``None``: all at once;
    1: one after the other, every evaluation a batch of one point). A problem's iterates do not
    depend on the batches; its evaluations may, in the last bits, where the objective's
    arithmetic depends on how many points it evaluates at once.

    Args:
        values_and_grads: ``(active, X)`` -> ``[(f, grad)]``: the indices of the problems to
            evaluate (ascending), their points (``X[a]`` of shape ``(k_p,)`` for ``active[a]``),
            and their values and gradients in the same order.
        x0: the starting point of every problem, in ``[0, 1]^{k_p}``.
        maxiter: the iteration limit of every problem (SciPy's other options keep its
            defaults).
        batch_limit: the most problems optimized (and evaluated) together.

    Returns:
        The final point of every problem and its value there (``inf`` for a problem whose
        optimizer stopped without a value).

    Raises:
        TypeError: for a ``batch_limit`` that is neither ``None`` nor an integer.
        ValueError: for a ``batch_limit`` below 1.
        Exception: whatever ``values_and_grads`` or an optimizer raises (every optimizer is
            stopped first).
    """
    check_optional_positive_integers(batch_limit=batch_limit)
    options: dict[str, float] = {"maxiter": maxiter}
    lockstep = _Lockstep(values_and_grads, [np.clip(np.asarray(x, np.float64), 0, 1) for x in x0])
    size = batch_limit or max(1, len(x0))
    # L-BFGS-B's BLAS calls are on tiny vectors: BLAS threads only cost (much, on a busy machine)
    with one_blas_thread():
        for lo in range(0, len(x0), size):
            lockstep.run(range(lo, min(lo + size, len(x0))), options)
    return [np.clip(x, 0.0, 1.0) for x in lockstep.x], lockstep.f


class _Stopped(Exception):
    """Thrown into an optimizer's greenlet to stop it (an evaluation or another start failed)."""


class _Lockstep:
    """The rendezvous of :func:`batched_lbfgsb`: optimizer greenlets post points, the calling
    greenlet evaluates them together once every running optimizer has posted one."""

    def __init__(self, values_and_grads: ValuesAndGrads, x0: list[np.ndarray]) -> None:
        self.values_and_grads = values_and_grads
        self.x = x0
        self.f = [float("inf")] * len(x0)
        self._caller = getcurrent()

    def run(self, problems: range, options: dict[str, float]) -> None:
        """Optimize ``problems`` together, each from its point in :attr:`x`; their results
        replace their points and values."""
        starts = {p: greenlet(self._optimize, parent=self._caller) for p in problems}
        try:
            posted = self._resume(starts, {p: (p, options) for p in problems})
            while posted:
                active = sorted(posted)
                results = list(self.values_and_grads(active, [posted[p] for p in active]))
                if len(results) != len(active):
                    raise ValueError(
                        f"values_and_grads gave {len(results)} results for {len(active)} points"
                    )
                posted = self._resume(
                    starts, {p: (r,) for p, r in zip(active, results, strict=True)}
                )
        finally:  # after an error: unwind every suspended optimizer
            for start in starts.values():
                if start:  # started and not finished
                    start.throw(_Stopped)

    @staticmethod
    def _resume(
        starts: dict[int, greenlet], sends: dict[int, tuple[object, ...]]
    ) -> dict[int, np.ndarray]:
        """Resume each optimizer ``p`` of ``sends`` with its arguments until it posts its next
        point or stops; the posted points."""
        posted = {}
        for p, args in sends.items():
            x = starts[p].switch(*args)
            if x is not None:
                posted[p] = x
        return posted

    def _evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """An optimizer's objective, in its greenlet: post ``x`` and wait for the batch."""
        value, grad = self._caller.switch(x.copy())
        return float(value), np.asarray(grad, dtype=np.float64)

    def _optimize(self, p: int, options: dict[str, float]) -> None:
        """Problem ``p``'s L-BFGS-B, in its own greenlet; returns (``None``) when it stops."""
        try:
            res = minimize(
                self._evaluate,
                self.x[p],
                jac=True,
                method="L-BFGS-B",
                bounds=[(0.0, 1.0)] * self.x[p].size,
                options=options,
            )
        except _Stopped:
            return
        # the last point evaluated may be a line search's rejected trial: the value is res.x's
        self.x[p], self.f[p] = res.x, float(res.fun)


def batch_objective(
    evaluate: Callable[[list[Part]], list[Tensor]],
    query: Callable[[int, Tensor], Part],
    owners: list[int],
) -> ValuesAndGrads:
    """The :data:`ValuesAndGrads` that maximizes ``evaluate`` by minimizing its negative.

    Args:
        evaluate: ``[(set, batch x d queries)]`` -> one ``batch`` tensor of values per part.
        query: ``(owner, b x k leaf)`` -> the part of that owner's ``b`` points.
        owners: the owner (e.g. the requested set's position) of every problem; the problems of
            one owner are evaluated as one part.
    """

    def values_and_grads(active: list[int], Z: list[np.ndarray]) -> list[tuple[float, np.ndarray]]:
        groups: dict[int, list[int]] = {}
        for a, p in enumerate(active):
            groups.setdefault(owners[p], []).append(a)
        leaves, parts = [], []
        for j, members in groups.items():
            leaf = torch.from_numpy(np.stack([Z[a] for a in members]))
            leaves.append(leaf.requires_grad_(True))
            parts.append(query(j, leaf))
        values = evaluate(parts)
        total = torch.stack([v.sum() for v in values]).sum()
        grads: Sequence[Tensor | None] = [None] * len(leaves)
        if total.requires_grad:  # a constant (e.g. a prior without data) has none
            grads = torch.autograd.grad(total, leaves, allow_unused=True)
        out: list[tuple[float, np.ndarray]] = [(0.0, np.zeros(0))] * len(active)
        for members, v, z, g in zip(groups.values(), values, leaves, grads, strict=True):
            minus_v = (-v.detach()).numpy()  # one conversion per part, not per row
            minus_g = (-(torch.zeros_like(z) if g is None else g)).numpy()
            for row, a in enumerate(members):
                out[a] = (float(minus_v[row]), minus_g[row])
        return out

    return values_and_grads
