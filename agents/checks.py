"""Deprecated: the argument checks are :mod:`bocvs_env.checks`, for the environment and the
agents alike. This module re-exports :func:`~bocvs_env.checks.check_positive_finite` and
:func:`~bocvs_env.checks.check_positive_integers` for one minor version.

They now raise ``TypeError`` for a value of the wrong type (``n_samples=2.5``, ``noise=True``)
and ``ValueError`` for one out of range, as the environment's checks do.
"""

import warnings

from bocvs_env.checks import check_positive_finite, check_positive_integers

__all__ = ["check_positive_finite", "check_positive_integers"]

warnings.warn(
    "agents.checks is deprecated and will be removed in 0.4: import check_positive_finite and "
    "check_positive_integers from bocvs_env.checks",
    DeprecationWarning,
    stacklevel=2,
)
