"""What the closed-form GP estimator keeps between maximizations until the next fit."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from agents.acquisition.inputs import RandomInputs
from agents.surrogate import GPSurrogate
from bocvs_env.agent_state import array_tensor, check_consistent, tensor_array

#: The most memory the screening matrices of all sets may keep between evaluations (bytes).
MOMENT_CACHE_BYTES = 1 << 30
#: The most memory the Gram matrices ``B^T B`` of the sets' sample factors may keep between
#: fits (bytes); each is grown by the new training points' columns instead of recomputed. A kept
#: one is copied into the screening matrix, so it costs twice its size at its peak: half the
#: moments' budget keeps none beyond ``n`` = 8,192 (at 10,000, one is 800 MB).
GRAM_CACHE_BYTES = 1 << 29


class GPFactorCache:
    """Per set, the RBF factor of its random variables at the samples, its screening moments
    and (for ``exact_mean``) its closed-form kernel mean embedding; all dropped when the
    surrogate is fitted again (its ``version`` changes) or another surrogate is asked about.

    The Gram matrix ``B^T B`` of a set's sample factor ``B`` (``S x n``) outlives a fit of the
    same surrogate: when the new ``B`` starts with the old one's columns (the data grew and the
    lengthscales are kept), only the new columns' products are computed, ``O(S n k)`` for
    ``k`` new points instead of ``O(S n^2)``; each entry is the same dot product as in the
    full product.

    Args:
        inputs: the sample of the random inputs.
        exact_mean: the moments carry the closed-form embedding instead of the sample mean.
    """

    def __init__(self, inputs: RandomInputs, exact_mean: bool) -> None:
        self.inputs = inputs
        self.exact_mean = exact_mean
        self._owner: GPSurrogate | None = None
        self._version = -1
        self._factors: dict[int, Tensor] = {}
        #: Set -> :meth:`GPSurrogate.factor_moments`, as many as fit in MOMENT_CACHE_BYTES.
        self.moment_cache: dict[int, tuple[Tensor, Tensor]] = {}
        self._embeddings: dict[int, Tensor] = {}
        #: Set -> the sample factor its Gram matrix was computed from, and the matrix.
        self._grams: dict[int, tuple[Tensor, Tensor]] = {}

    def capacity(self, surrogate: GPSurrogate) -> int:
        """How many sets' ``n x n`` screening matrices fit in :data:`MOMENT_CACHE_BYTES`."""
        return MOMENT_CACHE_BYTES // max(1, 8 * surrogate.n_train**2)

    def sample_factor(self, surrogate: GPSurrogate, i: int) -> Tensor:
        """The RBF factor of set ``i``'s random variables at the samples, ``S_i x n``."""
        if self._owner is not surrogate or self._version != surrogate.version:
            if self._owner is not surrogate:
                self._grams = {}
            self._owner, self._version = surrogate, surrogate.version
            self._factors = {}
            self.moment_cache = {}
            self._embeddings = {}
        if i not in self._factors:
            free = self.inputs.free(i)
            samples = self.inputs.set_samples(i)
            if free:
                self._factors[i] = surrogate.cross_factor(samples[:, free], free)
            else:
                self._factors[i] = samples.new_ones(samples.shape[0], surrogate.n_train)
        return self._factors[i]

    def moments(self, surrogate: GPSurrogate, i: int) -> tuple[Tensor, Tensor]:
        """:meth:`GPSurrogate.factor_moments` of set ``i``'s sample factor (its first part the
        closed-form :meth:`embedding` with ``exact_mean``); the oldest set's are dropped
        (before the new ones are computed) when :meth:`capacity` is reached."""
        self.sample_factor(surrogate, i)  # validates the cache
        if i in self.moment_cache:
            return self.moment_cache[i]
        capacity = self.capacity(surrogate)
        while self.moment_cache and len(self.moment_cache) >= capacity:
            del self.moment_cache[next(iter(self.moment_cache))]
        B = self.sample_factor(surrogate, i)
        moments = surrogate.factor_moments(B, self._gram(i, B) if self.inputs.free(i) else None)
        if self.exact_mean:
            moments = (self.embedding(surrogate, i), moments[1])
        if capacity >= 1:
            self.moment_cache[i] = moments
        return moments

    def _gram(self, i: int, B: Tensor) -> Tensor:
        """``B^T B`` of set ``i``'s sample factor ``B`` (``S x n``), grown from the last one
        when ``B`` starts with its factor's columns, for the caller to overwrite: a copy of the
        one kept while :data:`GRAM_CACHE_BYTES` allows (the others' are dropped first when it
        would not allow them beside it)."""
        old = self._grams.pop(i, None)
        n = B.shape[1]
        while self._grams and 8 * n * n * (len(self._grams) + 1) > GRAM_CACHE_BYTES:
            del self._grams[next(iter(self._grams))]
        if (
            old is not None
            and old[0].shape[1] <= n
            and torch.equal(B[:, : old[0].shape[1]], old[0])
        ):
            m = old[0].shape[1]
            gram = B.new_empty(n, n)
            gram[:m, :m] = old[1]
            del old
            new = B.T @ B[:, m:]  # (n x k): the same dot products as in the full B^T B
            gram[:, m:] = new
            gram[m:, :m] = new[:m].T
        else:
            del old
            gram = B.T @ B
        if 8 * n * n > GRAM_CACHE_BYTES:
            return gram
        self._grams[i] = (B, gram)
        return gram.clone()

    def save_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The Gram matrices kept between fits, which the next ones grow from (a grown matrix
        need not be the same bits as a full product): per set ``<set>.factor`` (``S_i x m``)
        and ``<set>.gram`` (``m x m``), and in JSON their order (the oldest is dropped first).
        The rest is recomputed after a fit to the same values."""
        arrays = {}
        for i, (B, gram) in self._grams.items():
            arrays[f"{i}.factor"], arrays[f"{i}.gram"] = tensor_array(B), tensor_array(gram)
        return arrays, {"grams": list(self._grams)}

    def load_state(
        self, arrays: dict[str, np.ndarray], meta: dict[str, Any], surrogate: GPSurrogate
    ) -> None:
        """Restore the Gram matrices of :meth:`save_state` for ``surrogate`` (loaded already).

        Raises:
            ValueError: for a set the task does not have, or a Gram matrix that is not its
                factor's.
        """
        grams = {}
        for i in (int(k) for k in meta["grams"]):
            self.inputs.check_set(i)
            B, gram = array_tensor(arrays[f"{i}.factor"]), array_tensor(arrays[f"{i}.gram"])
            shaped = B.ndim == 2 and gram.shape == (B.shape[-1], B.shape[-1])
            check_consistent(f"Gram matrix of set {i}", gram, B.T @ B if shaped else gram, shaped)
            grams[i] = (B, gram)
        self._owner, self._version, self._grams = surrogate, -1, grams
        self._factors, self.moment_cache, self._embeddings = {}, {}, {}

    def embedding(self, surrogate: GPSurrogate, i: int) -> Tensor:
        """``E[F_free(X^-i, x_j)] * alpha_j`` in closed form (``n``)."""
        self.sample_factor(surrogate, i)  # validates the cache
        if i not in self._embeddings:
            free = self.inputs.free(i)
            dists = [self.inputs.task.distributions[l] for l in free]
            self._embeddings[i] = surrogate.kernel_mean_embedding(dists, free) * surrogate.alpha
        return self._embeddings[i]
