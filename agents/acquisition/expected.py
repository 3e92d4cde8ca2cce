"""Acquisition over random inputs: ``E[u(x^i, X^{-i})]`` of a control set's partial query.

When control set ``i`` is played, the variables outside it are drawn from their known
distributions, so an agent scores a partial query ``x^i`` by the expectation of a bound of the
GP over those random variables (Hayashi et al. 2022; Tay et al. 2023; Hoang et al. 2025):
``E[u] = E[mu + beta sigma]``, ``E[l] = E[mu - beta sigma]``, ``E[mu]`` or, for Thompson
sampling, ``E[path]`` of a posterior sample path.

The expectation is an average over one fixed, seeded set of scrambled Sobol points mapped through
the inverse CDFs of the distributions (:func:`bocvs_env.sampling.quasi_random_inputs`, the
construction the goal evaluator uses). The same points serve every set and every round (common
random numbers), so comparisons between sets and rounds are not blurred by sampling noise, and
128 quasi-random points are far more accurate than the references' 1,024 i.i.d. draws.

Every evaluation is one batched posterior call, by an estimator chosen once per call
(:meth:`ExpectedAcquisition.estimator`): for a :class:`GPSurrogate` and a named bound the
factorized closed form of :mod:`agents.acquisition.closed_form`; for a sample path its average
per feature and training point (:class:`~agents.acquisition.sampled.PathAverage`); otherwise
the plain sample average (:class:`~agents.acquisition.sampled.SampleAverage`). An estimator is
a :class:`~agents.acquisition.SetAcquisition`, maximized by
:class:`~agents.acquisition.SetOptimizer` from :meth:`ExpectedAcquisition.candidates`; for a GP
it screens the candidates by ``E[mu] +- beta sqrt(E[sigma^2])`` (``O(n^2)`` per candidate,
which equals the expectation where the variance is the same at every sample and bounds it
otherwise; the variance is computed only for candidates whose ``O(n)`` mean plus the widest
possible ``beta sigma`` can still reach the best starts, see
:func:`~agents.acquisition.screening.pruned_top`), pre-refines the starts on that score and
polishes the best ``n_polish`` distinct ones on the exact expectation.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import Tensor

from agents.acquisition.best import expected_above
from agents.acquisition.bounds import Integrand, sign
from agents.acquisition.closed_form import GPClosedForm
from agents.acquisition.estimator import Estimator
from agents.acquisition.gp_cache import GPFactorCache
from agents.acquisition.inputs import RandomInputs
from agents.acquisition.sampled import PathAverage, Posterior, SampleAverage
from agents.acquisition.screening import raw_candidates, raw_count
from agents.acquisition.set_acquisition import Part
from agents.surrogate import GPSurrogate, SamplePath
from bocvs_env.checks import check_optional_positive_integers, check_positive_integers
from bocvs_env.task import Task


class ExpectedAcquisition:
    """E over the random inputs of a control set, by a fixed seeded quasi-random (scrambled Sobol)
    sample of the known distributions: its estimators and the candidates to maximize them from.

    Args:
        task: the public task (dimension, control sets, input distributions).
        n_samples: quasi-random samples of the random variables per expectation (a power of two
            keeps the Sobol points balanced). A set that controls every variable needs none and
            is evaluated at its query alone.
        seed: scrambles the sample set and the raw candidates; same seed, same decisions.
        raw_samples: Sobol candidates per set (:meth:`candidates`), scaled up for sets whose
            expectation needs fewer samples (:meth:`raw_count`); as many of the surrogate's
            most recent training inputs are candidates too.
        raw_n_samples: candidates are screened with only the first ``raw_n_samples`` samples
            (a prefix of the Sobol sequence, balanced for powers of two) when the surrogate is
            not a :class:`GPSurrogate` (a GP's bounds are screened in closed form, see
            :meth:`GPClosedForm.screen`; a sample path's expectation is screened with all
            samples); the refined starts and the returned values use all ``n_samples``.
        pre_refine: for a :class:`GPSurrogate` and a ``"ucb"``/``"lcb"``/``"mean"`` bound, first
            refine the starts on the ``O(n^2)``-per-point screening score (which equals the
            expectation wherever the variance is the same for every sample, and bounds it
            otherwise), then polish on the exact expectation: far fewer exact evaluations. All
            sets at once while their ``n x n`` screening matrices fit in
            :data:`~agents.acquisition.gp_cache.MOMENT_CACHE_BYTES` (``n`` up to about 4,000
            with 7 sets), set by set while one does (``n`` up to about 11,500); beyond, the
            starts are refined on the exact expectation alone.
        exact_mean: for a :class:`GPSurrogate`, take ``E[mu]`` in closed form (the kernel mean
            embedding of the RBF kernel against truncated-normal or uniform inputs,
            :meth:`GPSurrogate.kernel_mean_embedding`) instead of the sample average; the
            ``beta sigma`` part is still averaged over the samples.
        n_polish: after pre-refinement, polish on the exact expectation only the best
            ``n_polish`` distinct points of each set by their screening score (``None``: all
            starts; starts that converged within
            :data:`~agents.acquisition.screening.DISTINCT_TOLERANCE` of a better one are not
            polished twice): the pre-refined starts mostly converge to a few optima, and
            polishing more of them costs time without changing the maximum. Where the data is
            too large to pre-refine, the best ``n_polish`` screened starts.

    The defaults here are the exact computations; the agents pass every option explicitly, with
    defaults of their own (:class:`~agents.policies.model_based.ModelBasedAgent`). How many starts are
    refined, for how many iterations and on how many samples is the optimizer's
    (:class:`~agents.acquisition.SetOptimizer`).
    """

    def __init__(
        self,
        task: Task,
        n_samples: int = 128,
        seed: int = 0,
        raw_samples: int = 256,
        raw_n_samples: int = 32,
        pre_refine: bool = True,
        exact_mean: bool = False,
        n_polish: int | None = 2,
    ) -> None:
        check_positive_integers(
            n_samples=n_samples, raw_samples=raw_samples, raw_n_samples=raw_n_samples
        )
        check_optional_positive_integers(n_polish=n_polish)
        self.task = task
        self.n_samples = n_samples
        self.seed = seed
        self.raw_samples = raw_samples
        self.raw_n_samples = raw_n_samples
        self.pre_refine = pre_refine
        self.exact_mean = exact_mean
        self.n_polish = n_polish
        #: The fixed quasi-random sample of the random inputs.
        self.inputs = RandomInputs(task, n_samples, seed)
        #: ``n_samples x d`` quasi-random draws of every variable.
        self.samples = self.inputs.samples
        #: What the GP estimator keeps between calls until the surrogate is fitted again.
        self.gp_cache = GPFactorCache(self.inputs, exact_mean)

    def estimator(
        self, surrogate: Posterior, score: Integrand = "ucb", beta: float = 2.0
    ) -> Estimator:
        """The estimator of ``E[score]`` for this surrogate: the GP's closed form for a
        :class:`GPSurrogate` and a named bound, the per-feature average for a sample path, the
        sample average otherwise.

        Raises:
            ValueError: for an unknown bound name, or a path object holding several paths.
        """
        if isinstance(score, SamplePath):
            return PathAverage(self.inputs, score)
        if not callable(score):
            sign(score)  # validates the name
            if isinstance(surrogate, GPSurrogate):
                return GPClosedForm(
                    self.inputs,
                    surrogate,
                    score,
                    beta,
                    self.gp_cache,
                    exact_mean=self.exact_mean,
                    pre_refine=self.pre_refine,
                    n_polish=self.n_polish,
                )
        return SampleAverage(self.inputs, surrogate, score, beta, self.raw_n_samples)

    def full_queries(self, i: int, X: Tensor) -> Tensor:
        """Complete queries with the sample set: ``batch x d`` -> ``batch x S_i x d``.

        The entries of set ``i`` come from ``X``, the others from the quasi-random samples.
        """
        return self.inputs.full_queries(i, X)

    def expected(
        self, surrogate: Posterior, i: int, X: Tensor, bound: Integrand = "ucb", beta: float = 2.0
    ) -> Tensor:
        """``E_{X^-i}[bound([x^i, X^-i])]`` for a batch of queries.

        Args:
            surrogate: the posterior (:class:`agents.surrogate.GPSurrogate`).
            i: the control set.
            X: ``batch x d`` full queries; only the entries in set ``i`` matter.
            bound: ``"ucb"`` (``mu + beta sigma``), ``"lcb"`` (``mu - beta sigma``), ``"mean"``
                (``mu``), or a sample path (from ``sample_paths`` with ``n_paths=1``) mapping
                ``batch_shape x d`` points to ``1 x batch_shape`` (or ``batch_shape``) values.
            beta: the confidence multiplier of ``"ucb"`` and ``"lcb"``.

        Returns:
            ``batch`` expected values in the units of ``y``, differentiable with respect to
            ``X``.
        """
        return self.estimator(surrogate, bound, beta).value([(i, X)])[0]

    def expected_above(
        self,
        surrogate: Posterior,
        parts: Sequence[Part],
        floors: Sequence[float],
        bound: Integrand = "ucb",
        beta: float = 2.0,
    ) -> list[Tensor]:
        """:meth:`expected` (no gradient) of the queries of several sets in one call, where
        they can reach their set's floor: ``-inf`` for a query whose upper bound is below it
        (:func:`~agents.acquisition.best.expected_above`). Parts are ``(set, batch x d)``."""
        for i, _ in parts:
            self.inputs.check_set(i)
        return expected_above(self.estimator(surrogate, bound, beta), parts, floors)

    def raw_count(self, i: int) -> int:
        """The Sobol candidates of set ``i`` (:func:`screening.raw_count
        <agents.acquisition.screening.raw_count>`)."""
        return raw_count(self.inputs, i, self.raw_samples)

    def candidates(self, sets: Sequence[int], train_X: Tensor | None = None) -> list[Tensor]:
        """Per set in ``sets``, the candidates to maximize its expectation from,
        ``r x |set|``: :meth:`raw_count` scrambled Sobol points, then the most recent as many
        of the observed inputs ``train_X`` (``n x d``; none if ``None``) on the set's variables
        (:func:`~agents.acquisition.screening.raw_candidates`)."""
        for i in sets:
            self.inputs.check_set(i)
        return [raw_candidates(self.inputs, i, self.raw_samples, self.seed, train_X) for i in sets]
