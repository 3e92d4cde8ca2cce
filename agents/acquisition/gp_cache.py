"""What the closed-form GP estimator keeps between maximizations until the next fit."""

from __future__ import annotations

from torch import Tensor

from agents.acquisition.inputs import RandomInputs
from agents.surrogate import GPSurrogate

#: The most memory the screening matrices of all sets may keep between evaluations (bytes).
MOMENT_CACHE_BYTES = 1 << 30


class GPFactorCache:
    """Per set, the RBF factor of its random variables at the samples, its screening moments
    and (for ``exact_mean``) its closed-form kernel mean embedding; all dropped when the
    surrogate is fitted again (its ``version`` changes) or another surrogate is asked about.

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

    def capacity(self, surrogate: GPSurrogate) -> int:
        """How many sets' ``n x n`` screening matrices fit in :data:`MOMENT_CACHE_BYTES`."""
        return MOMENT_CACHE_BYTES // max(1, 8 * surrogate.n_train**2)

    def sample_factor(self, surrogate: GPSurrogate, i: int) -> Tensor:
        """The RBF factor of set ``i``'s random variables at the samples, ``S_i x n``."""
        if self._owner is not surrogate or self._version != surrogate.version:
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
        moments = surrogate.factor_moments(self.sample_factor(surrogate, i))
        if self.exact_mean:
            moments = (self.embedding(surrogate, i), moments[1])
        if capacity >= 1:
            self.moment_cache[i] = moments
        return moments

    def embedding(self, surrogate: GPSurrogate, i: int) -> Tensor:
        """``E[F_free(X^-i, x_j)] * alpha_j`` in closed form (``n``)."""
        self.sample_factor(surrogate, i)  # validates the cache
        if i not in self._embeddings:
            free = self.inputs.free(i)
            dists = [self.inputs.task.distributions[l] for l in free]
            self._embeddings[i] = surrogate.kernel_mean_embedding(dists, free) * surrogate.alpha
        return self._embeddings[i]
