"""One BLAS thread for code that calls BLAS on tiny arrays.

SciPy's L-BFGS-B updates vectors of a few dozen entries through BLAS; with more than one BLAS
thread, the pool's threads only wait for work and burn CPU time (several times the optimizer's
own on a busy machine). :func:`one_blas_thread` limits every loaded BLAS library to one thread
for the duration of a ``with`` block.
"""

from __future__ import annotations

import functools
from contextlib import AbstractContextManager
from typing import Any

import numpy  # noqa: F401  (loads NumPy's BLAS before the pools are searched)
import scipy.optimize  # noqa: F401  (loads SciPy's BLAS before the pools are searched)
from threadpoolctl import ThreadpoolController


@functools.cache
def _controller() -> ThreadpoolController:
    """The thread pools of the loaded libraries, found once (a search costs ~1.5 ms)."""
    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager[Any]:
    """A context manager in which every BLAS library runs on one thread."""
    return _controller().limit(limits=1, user_api="blas")
