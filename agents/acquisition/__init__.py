"""Acquisitions over control sets and the one optimizer that maximizes them.

An acquisition (:class:`SetAcquisition`) values partial queries ``x^i`` of control sets; the
optimizer (:class:`SetOptimizer`) maximizes any of them over each set's variables, as BoTorch
keeps its acquisition functions apart from ``optimize_acqf``. One concept per module:

- :mod:`~agents.acquisition.set_acquisition`: the interface of an acquisition;
- :mod:`~agents.acquisition.inputs`: the fixed quasi-random sample of the random inputs;
- :mod:`~agents.acquisition.bounds`: the bounds (``"ucb"``, ``"lcb"``, ``"mean"``);
- :mod:`~agents.acquisition.estimator`: the acquisitions that estimate ``E[.]`` over the random
  inputs, with :mod:`~agents.acquisition.closed_form` (a GP's factorized closed form, its
  per-fit :mod:`~agents.acquisition.gp_cache`) and :mod:`~agents.acquisition.sampled` (sample
  averages and sample paths);
- :mod:`~agents.acquisition.expected`: :class:`ExpectedAcquisition`, which builds the
  estimators and their candidates;
- :mod:`~agents.acquisition.set_scores`: :class:`SetScores`, a score per set as an acquisition;
- :mod:`~agents.acquisition.screening`: raw candidates and the best of them;
- :mod:`~agents.acquisition.best`: exact values only for points whose upper bound can beat a
  value already reached (incumbents, fallbacks);
- :mod:`~agents.acquisition.set_optimizer`: :class:`SetOptimizer`, the one optimizer, with its
  steps in :mod:`~agents.acquisition.refine`;
- :mod:`~agents.acquisition.optimize`: :func:`batched_lbfgsb`, the one L-BFGS-B driver
  (multi-start, in lockstep).
"""

from agents.acquisition.bounds import Bound, Integrand
from agents.acquisition.estimator import Estimator
from agents.acquisition.expected import ExpectedAcquisition
from agents.acquisition.optimize import batched_lbfgsb
from agents.acquisition.sampled import Posterior
from agents.acquisition.set_acquisition import Part, RefinePlan, SetAcquisition, Top
from agents.acquisition.set_optimizer import SetOptimizer
from agents.acquisition.set_scores import SetScores

__all__ = [
    "Bound",
    "Estimator",
    "ExpectedAcquisition",
    "Integrand",
    "Part",
    "Posterior",
    "RefinePlan",
    "SetAcquisition",
    "SetOptimizer",
    "SetScores",
    "Top",
    "batched_lbfgsb",
]
