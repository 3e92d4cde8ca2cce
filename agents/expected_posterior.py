"""The GP posterior of a control set's value ``g_i(x) = E_{X^-i}[f([x^i, X^-i])]``: mean and std.

The acquisition (:class:`agents.acquisition.ExpectedAcquisition`) averages bounds of ``f``
over the random inputs; expected improvement needs more: the posterior *variance of the
average*, ``Var[g_i(x)] = E_{z,z'}[k_post(z, z')]``, which includes the covariance between the
samples and is smaller than the average variance. With the RBF kernel's product structure
(``k(z, x_j) = s * A(x^i, x_j) * B(z^-i, x_j)``, :meth:`GPSurrogate.cross_factor`) and the
samples ``z_1..z_S`` of the random variables:

    E[g_i(x)]   = s * A(x) . (b_bar * alpha) + mean
    Var[g_i(x)] = s * P_i - s^2 * (A(x) * b_bar)^T W (A(x) * b_bar)

with ``b_bar = mean_t B(z_t)`` (``n``), ``P_i = mean_{t,u} k_free(z_t, z_u) / s`` (the prior
covariance of the random part, the same for every ``x``), ``W`` the precision and ``alpha`` the
weights of the GP, all in standardized units, then scaled to the units of ``y``. Built on the
surrogate's public members only (``cross_factor``, ``precision``, ``alpha``, ``hyper``) and the
acquisition's public sample set; ``O(S n + n^2)`` per query after ``O(S^2 + S n)`` per set and fit.
"""

from __future__ import annotations

import torch
from torch import Tensor

from agents.surrogate import GPSurrogate
from bocvs_env.gp_algebra import rbf
from bocvs_env.task import Task

#: The smallest variance kept (relative to the prior's), as the surrogate clamps its own at
#: :data:`agents.surrogate.posterior.MIN_VARIANCE` (1e-12; this clamp is the larger).
MIN_RELATIVE_VARIANCE = 1e-10


class ExpectedPosterior:
    """Posterior mean and standard deviation of ``g_i(x)`` for every set of a task.

    Args:
        task: the public task (control sets, dimension).
        samples: ``S x d`` draws of every variable (the acquisition's ``samples``).
    """

    def __init__(self, task: Task, samples: Tensor) -> None:
        if samples.ndim != 2 or samples.shape[1] != task.dim:
            raise ValueError(f"samples must be S x {task.dim}, got {tuple(samples.shape)}")
        self.task = task
        self.samples = samples.to(torch.float64)
        self._version: tuple[int, int] = (-1, -1)
        self._parts: dict[int, tuple[Tensor, float]] = {}
        self._all_key: tuple[int, int] = (-1, -1)
        self._all: tuple[Tensor, Tensor] = (self.samples, self.samples)
        self._prior: tuple[Tensor, Tensor] | None = None
        self._controls = torch.zeros(task.n_sets, task.dim, dtype=torch.bool)
        for i, dims in enumerate(task.control_sets):
            self._controls[i, list(dims)] = True

    def _set_parts(self, surrogate: GPSurrogate, i: int) -> tuple[Tensor, float]:
        """``b_bar`` (``n``) and ``P_i`` for set ``i``, cached per fit of the surrogate."""
        key = (id(surrogate), surrogate.version)
        if key != self._version:
            self._version, self._parts = key, {}
        if i not in self._parts:
            free = list(self.task.free_variables(i))
            if free:
                Z = self.samples[:, free]
                b_bar = surrogate.cross_factor(Z, free).mean(0)
                prior = float(rbf(Z, Z, surrogate.hyper.lengthscale[free], 1.0).mean())
            else:
                b_bar = torch.ones(surrogate.n_train, dtype=torch.float64)
                prior = 1.0
            self._parts[i] = (b_bar, prior)
        return self._parts[i]

    def mean_std(self, surrogate: GPSurrogate, i: int, X: Tensor) -> tuple[Tensor, Tensor]:
        """Posterior mean and std of ``g_i`` at ``batch x d`` full queries (only the entries of
        set ``i`` matter); each ``batch``, in the units of ``y``, differentiable in ``X``."""
        if not 0 <= i < self.task.n_sets:
            raise ValueError(f"set {i} is not one of the task's {self.task.n_sets} sets")
        h = surrogate.hyper
        ctrl = list(self.task.control_sets[i])
        b_bar, prior = self._set_parts(surrogate, i)
        s = h.outputscale
        if surrogate.n_train == 0:
            mean = X.new_full(X.shape[:1], h.mean)
            var = X.new_full(X.shape[:1], s * prior)
        else:
            AB = surrogate.cross_factor(X[:, ctrl], ctrl) * b_bar  # batch x n
            mean = s * (AB @ surrogate.alpha) + h.mean
            var = s * prior - s**2 * ((AB @ surrogate.precision) * AB).sum(-1)
        std = var.clamp_min(MIN_RELATIVE_VARIANCE * s).sqrt()
        return mean * h.y_scale + h.y_shift, std * h.y_scale

    def _all_parts(self, surrogate: GPSurrogate) -> tuple[Tensor, Tensor]:
        """``b_bar`` (``m x n``) and ``P_i`` (``m x 1``) of every set, as :meth:`_set_parts`
        gives them one set at a time, from the samples' one-dimensional factors (``d`` calls
        of :meth:`GPSurrogate.cross_factor` and ``d`` ``S x S`` kernels, the latter kept
        while the lengthscales are unchanged); cached per fit."""
        key = (id(surrogate), surrogate.version)
        if key != self._all_key:
            ls, free = surrogate.hyper.lengthscale, ~self._controls  # free: m x d
            m, S = self.task.n_sets, self.samples.shape[0]
            if self._prior is None or not torch.equal(ls, self._prior[0]):
                gram = self.samples.new_ones(m, S, S)
                for dim in range(self.task.dim):
                    Z = self.samples[:, dim : dim + 1]
                    k = rbf(Z, Z, ls[dim : dim + 1], 1.0)
                    gram = gram * torch.where(free[:, dim, None, None], k, 1.0)
                self._prior = (ls.clone(), gram.mean((1, 2))[:, None])
            B = self.samples.new_ones(m, S, surrogate.n_train)
            for dim in range(self.task.dim):
                factor = surrogate.cross_factor(self.samples[:, dim : dim + 1], [dim])  # S x n
                B = B * torch.where(free[:, dim, None, None], factor, 1.0)
            self._all_key, self._all = key, (B.mean(1), self._prior[1])
        return self._all

    def mean_std_sets(self, surrogate: GPSurrogate, X: Tensor) -> tuple[Tensor, Tensor]:
        """:meth:`mean_std` of every set at once: ``m x batch x d`` full queries, row ``i``
        for set ``i`` (or ``1 x batch x d``, the same queries for every set), to
        ``m x batch`` means and standard deviations (units of ``y``).

        One batched computation instead of ``m`` calls: the RBF factor of the controlled
        dimensions is the product of the one-dimensional factors
        (:meth:`GPSurrogate.cross_factor` of each dimension, ``d`` calls), taken over each
        set's own dimensions; the values equal :meth:`mean_std`'s up to rounding.
        """
        m, d = self.task.n_sets, self.task.dim
        if X.ndim != 3 or X.shape[0] not in (1, m) or X.shape[2] != d:
            raise ValueError(f"X must be {m} (or 1) x batch x {d}, got {tuple(X.shape)}")
        shape = (m, X.shape[1])
        h = surrogate.hyper
        s = h.outputscale
        b_bar, prior = self._all_parts(surrogate)  # m x n, m x 1
        if surrogate.n_train == 0:
            mean = X.new_full(shape, h.mean)
            var = (s * prior).expand(shape)
        else:
            controls = self._controls  # m x d
            AB = b_bar[:, None, :]  # m x 1 x n
            for dim in range(d):
                factor = surrogate.cross_factor(X[..., dim : dim + 1], [dim])  # m x batch x n
                AB = AB * torch.where(controls[:, dim, None, None], factor, 1.0)
            mean = s * (AB @ surrogate.alpha) + h.mean
            var = s * prior - s**2 * ((AB @ surrogate.precision) * AB).sum(-1)
        std = var.clamp_min(MIN_RELATIVE_VARIANCE * s).sqrt()
        return mean * h.y_scale + h.y_shift, std * h.y_scale


def expected_improvement(mean: Tensor, std: Tensor, best: float) -> Tensor:
    """Analytic EI ``E[max(g - best, 0)]`` for ``g ~ N(mean, std^2)`` (Jones et al. 1998).

    ``mean`` and ``std`` (``> 0``) have one shape, ``(batch,)``, and the units of ``y``, as
    ``best`` has; the EI has their shape and units.
    """
    z = (mean - best) / std
    normal = torch.distributions.Normal(torch.zeros_like(z), torch.ones_like(z))
    return std * (z * normal.cdf(z) + normal.log_prob(z).exp())
