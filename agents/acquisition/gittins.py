"""The Pandora's-box Gittins index of a Gaussian value: the ``g`` that solves ``EI(g) = price``.

Xie, Astudillo, Frazier & Frazier ("Cost-aware Bayesian optimization via the Pandora's Box
Gittins index", NeurIPS 2024, PBGI) score a point whose value is ``N(mean, std^2)`` and whose
evaluation costs ``lambda * c`` (units of the value) by the reservation value ``g`` at which
opening the box breaks even, ``E[max(v - g, 0)] = lambda * c``. With ``h(z) = z Phi(z) + phi(z)``
(so that ``EI(g) = std * h((mean - g) / std)``, Jones et al. 1998):

    g = mean - std * h^{-1}(price / std),

``h`` increasing from 0 to infinity, so the root is unique; a cheaper box, a larger mean and
(at a fixed price) a larger std give a larger index. Its gradients (implicit in the root) are
``dg/dmean = 1`` and ``dg/dstd = phi(z) / Phi(z)`` at ``z = h^{-1}(price / std)``, as in the
authors' ``GittinsIndexFunction.backward``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.special import erfcx, log_ndtr, ndtr
from torch import Tensor

#: ``h(0) = phi(0)``, and constants of ``log h``.
_H0 = 1.0 / math.sqrt(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(math.pi / 2.0)
_SQRT_HALF = math.sqrt(0.5)
#: Newton steps on ``log h``: from the starts below the iterates rise monotonically to the root,
#: and converge quadratically near it (tests check against a bisection).
_STEPS = 5
#: The smallest ``price / std`` solved (its root is about ``-37``).
_MIN_RATIO = 1e-300


def log_ei_helper(z: np.ndarray) -> np.ndarray:
    """``log h(z)``, ``h(z) = z Phi(z) + phi(z)`` the expected improvement of ``N(z, 1)`` over 0,
    accurate for every ``z >= -40``: below 0 as ``log phi(z) + log1p(z Phi(z) / phi(z))``, the
    ratio by the scaled complementary error function
    (``Phi(z) / phi(z) = sqrt(pi / 2) erfcx(-z / sqrt(2))``), which does not cancel."""
    negative = np.minimum(z, 0.0)
    positive = np.maximum(z, 0.0)
    low = (
        -0.5 * negative**2
        - _LOG_SQRT_2PI
        + np.log1p(negative * _SQRT_HALF_PI * erfcx(-negative * _SQRT_HALF))
    )
    high = np.log(positive * ndtr(positive) + np.exp(-0.5 * positive**2) * _H0)
    return np.where(z < 0, low, high)


def inverse_ei_helper(ratio: np.ndarray) -> np.ndarray:
    """``z`` with ``h(z) = ratio`` (elementwise, ``ratio > 0``), in NumPy: the root is a
    constant of the gradient (see :func:`gittins_index`).

    Newton's method on the concave, increasing ``log h`` (``h`` is log-concave, the integral of
    the log-concave ``Phi``), from a start left of the root, so that the iterates rise to it
    without overshooting: ``r - h(0)`` for ``r >= h(0)`` (as ``z <= h(z) <= z + h(0)`` for
    ``z >= 0``), else ``-sqrt(-2 log r)``, where ``h(z) < phi(z) / z^2 < r``.
    """
    r = np.maximum(np.asarray(ratio, np.float64), _MIN_RATIO)
    log_r = np.log(r)
    z = np.where(r >= _H0, r - _H0, -np.sqrt(np.maximum(-2.0 * log_r, 0.0)))
    for _ in range(_STEPS):
        log_h = log_ei_helper(z)
        z = z - (log_h - log_r) * np.exp(log_h - log_ndtr(z))  # / (d log h / dz = Phi / h)
    return z


def gittins_index(mean: Tensor, std: Tensor, price: Tensor | float) -> Tensor:
    """The index ``g`` with ``E[max(v - g, 0)] = price`` for ``v ~ N(mean, std^2)``.

    Args:
        mean: ``(batch,)`` posterior means (units of the value).
        std: ``(batch,)`` posterior standard deviations (``> 0``, units of the value).
        price: the price of one evaluation, ``lambda * c`` (``> 0``, units of the value),
            a scalar or ``(batch,)``; not differentiated.

    Returns:
        ``(batch,)`` indices, differentiable in ``mean`` and ``std`` (``dg/dmean = 1``,
        ``dg/dstd = phi(z) / Phi(z)``).
    """
    price_t = torch.as_tensor(price, dtype=std.dtype)
    if torch.any(price_t <= 0) or not torch.all(torch.isfinite(price_t)):
        raise ValueError(f"price must be positive and finite, got {price!r}")
    s = std.detach()
    root = inverse_ei_helper((price_t / s).numpy())
    mills = np.exp(-0.5 * root**2 - _LOG_SQRT_2PI - log_ndtr(root))  # phi / Phi
    z, ratio = torch.from_numpy(root), torch.from_numpy(mills)
    return mean - s * z + ratio * (std - s)
