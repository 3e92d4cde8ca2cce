"""Objectives: batched functions on the unit cube, shifted so that ``f >= 0``.

An :class:`Objective` maps a tensor of queries of shape ``batch_shape x d`` (float64, in
``[0, 1]^d``) to values of shape ``batch_shape``. The paper assumes ``f >= 0``; every objective
declares the ``shift`` it adds to its raw values to get there (``f = raw + shift``).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor


class Objective(ABC):
    """A batched black-box function on ``[0, 1]^dim`` whose shifted values are ``>= 0``.

    Subclasses set ``dim``, ``shift`` (added to the raw values), ``optimal_value`` (the known
    maximum of the shifted ``f`` over the cube, or ``None``), ``optimizers`` (known maximizers,
    ``k x d``, or ``None``; the oracle starts from them) and implement :meth:`raw`. One that
    overrides :meth:`sample_mean` with a form costing one evaluation per query, whatever the
    number of samples, sets ``closed_form_mean`` (the oracle then searches more widely); the goal
    values recorded by episodes stay :meth:`sample_average`.
    """

    name: str
    dim: int
    shift: float = 0.0
    optimal_value: float | None = None
    optimizers: Tensor | None = None
    closed_form_mean: bool = False

    @abstractmethod
    def raw(self, X: Tensor) -> Tensor:
        """Unshifted values; ``X`` is ``batch_shape x d`` float64, returns ``batch_shape``."""

    def __call__(self, X: Tensor) -> Tensor:
        """Shifted values ``raw(X) + shift``; ``X`` is ``batch_shape x d``, returns ``batch_shape``."""
        return self.raw(X) + self.shift

    def describe(self) -> dict[str, Any]:
        """A JSON-able description for result provenance and cache keys."""
        return {"name": self.name, "dim": self.dim, "shift": self.shift}

    def sample_average(
        self, fixed: Sequence[int], samples: Tensor, chunk: int = 64
    ) -> Callable[[Tensor], Tensor]:
        """The average of ``f`` over ``samples`` with the ``fixed`` variables set to ``z``,
        evaluated at every sample: the definition of the goal ``g_i`` of a control set.

        Returns ``z -> mean_n f(x_n(z))``, where ``x_n(z)`` holds ``z`` in the ``fixed``
        variables and ``samples[n]`` in the others. The function maps ``batch x k`` float64
        tensors (``k = len(fixed)``, columns in the order of ``fixed``) to ``batch`` values,
        differentiably, evaluating ``f`` at ``chunk`` queries' ``n x d`` points at a time
        (memory ``chunk x n x d`` doubles). A set of every variable is averaged too (``n``
        copies of ``f(z)``, equal to ``f(z)`` up to rounding): the goal values that episodes
        record are this average, bit for bit, whichever faster form :meth:`sample_mean` has,
        so a recorded run's ``g`` reproduces exactly.

        Args:
            fixed: the fixed variables (distinct indices in ``[0, d)``).
            samples: ``n x d`` values of the random inputs (only the other columns are used).
            chunk: the most queries evaluated at once.
        """
        fixed = list(fixed)
        mask = torch.zeros(self.dim, dtype=torch.bool)
        mask[fixed] = True

        def mean(Z: Tensor) -> Tensor:
            X = Z.new_zeros(Z.shape[0], self.dim)
            X[:, fixed] = Z
            out = [
                self(torch.where(mask, X[lo : lo + chunk].unsqueeze(-2), samples)).mean(dim=-1)
                for lo in range(0, X.shape[0], chunk)
            ]
            return torch.cat(out) if out else Z.new_zeros(0)

        return mean

    def sample_mean(
        self, fixed: Sequence[int], samples: Tensor, chunk: int = 64
    ) -> Callable[[Tensor], Tensor]:
        """The same average as :meth:`sample_average` (equal up to rounding), in the cheapest
        exact form known: the oracle's search uses it.

        This generic version is ``f(z)`` itself when ``fixed`` covers every variable, else
        :meth:`sample_average`. Objectives whose average has a cheaper exact form override it
        (and set ``closed_form_mean``).
        """
        fixed = list(fixed)
        if sorted(fixed) == list(range(self.dim)):
            return lambda Z: self(Z[:, torch.tensor(fixed).argsort()])
        return self.sample_average(fixed, samples, chunk)


class CallableObjective(Objective):
    """A user objective from any batched callable (a BoTorch test function too).

    Args:
        fn: maps ``batch_shape x dim`` float64 tensors in ``[0, 1]^dim`` to ``batch_shape``
            (a trailing output dimension of size 1 is squeezed away).
        dim: the input dimension ``d``.
        lower_bound: a declared lower bound of ``fn`` over the cube; the objective is shifted
            by ``-lower_bound`` so that it is ``>= 0``, as the paper assumes.
        name: a short name used in ids and results.
        optimal_value: the known maximum of ``fn`` (unshifted), if any.

    The callable is validated on a few probe points: its output must have the right shape and
    be finite.
    """

    def __init__(
        self,
        fn: Callable[[Tensor], Tensor],
        dim: int,
        lower_bound: float,
        name: str = "custom",
        optimal_value: float | None = None,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"fn must be callable, got {type(fn).__name__}")
        if not isinstance(dim, int) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}")
        if not math.isfinite(lower_bound):
            raise ValueError(f"lower_bound must be finite, got {lower_bound!r}")
        self.fn = fn
        self.dim = dim
        self.name = name
        self.shift = -float(lower_bound)
        self.optimal_value = None if optimal_value is None else float(optimal_value) + self.shift
        probe = torch.rand(4, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        out = self.raw(probe)
        if out.shape != (4,):
            raise ValueError(
                f"fn must map a (n, {dim}) batch to shape (n,) or (n, 1), got {tuple(out.shape)}"
            )
        if not torch.isfinite(out).all():
            raise ValueError("fn returned non-finite values on probe points in [0, 1]^d")

    def raw(self, X: Tensor) -> Tensor:
        out = torch.as_tensor(self.fn(X), dtype=torch.float64)
        if out.dim() == X.dim() and out.shape[-1] == 1:
            out = out.squeeze(-1)
        return out

    @classmethod
    def from_botorch(
        cls,
        test_function: Any,
        lower_bound: float,
        maximize: bool = True,
        name: str | None = None,
    ) -> CallableObjective:
        """Wrap a BoTorch ``SyntheticTestFunction``, mapping ``[0, 1]^d`` onto its bounds.

        Args:
            test_function: e.g. ``botorch.test_functions.Branin()``.
            lower_bound: a lower bound of the (possibly negated) function over its domain.
            maximize: negate the function (BoTorch's test functions are minimization problems).
            name: defaults to the class name.
        """
        bounds = test_function.bounds.to(torch.float64)
        sign = -1.0 if maximize else 1.0

        def fn(X: Tensor) -> Tensor:
            return sign * test_function.evaluate_true(bounds[0] + X * (bounds[1] - bounds[0]))

        opt = getattr(test_function, "_optimal_value", None)
        known = None if opt is None or not maximize else sign * float(opt)
        return cls(
            fn,
            dim=int(test_function.dim),
            lower_bound=lower_bound,
            name=name or type(test_function).__name__.lower(),
            optimal_value=known,
        )
