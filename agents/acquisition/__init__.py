"""Acquisition over random inputs: ``E[u(x^i, X^{-i})]`` and its maximization over ``x^i``.

One concept per module:

- :mod:`~agents.acquisition.inputs`: the fixed quasi-random sample of the random inputs;
- :mod:`~agents.acquisition.bounds`: the bounds (``"ucb"``, ``"lcb"``, ``"mean"``);
- :mod:`~agents.acquisition.estimator`: how ``E[.]`` is estimated, the interface, with
  :mod:`~agents.acquisition.closed_form` (a GP's factorized closed form, its per-fit
  :mod:`~agents.acquisition.gp_cache`) and :mod:`~agents.acquisition.sampled` (sample averages
  and sample paths);
- :mod:`~agents.acquisition.screening`: raw candidates and the best of them;
- :mod:`~agents.acquisition.best`: exact values only for points whose upper bound can beat a
  value already reached (incumbents, fallbacks);
- :mod:`~agents.acquisition.optimize`: multi-start L-BFGS-B in lockstep;
- :mod:`~agents.acquisition.expected`: :class:`ExpectedAcquisition`, which puts them together.
"""

from agents.acquisition.bounds import Bound, Score
from agents.acquisition.estimator import Estimator
from agents.acquisition.expected import ExpectedAcquisition
from agents.acquisition.optimize import batched_lbfgsb
from agents.acquisition.sampled import Posterior

__all__ = ["Bound", "Estimator", "ExpectedAcquisition", "Posterior", "Score", "batched_lbfgsb"]
