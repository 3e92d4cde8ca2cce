"""How ``E[score]`` over the random inputs is estimated: the interface every estimator follows.

An estimator is the acquisition of an expectation (a :class:`SetAcquisition`): it is built for
one surrogate and one score (a bound or a function), once per maximization or expectation, by
:meth:`agents.acquisition.ExpectedAcquisition.estimator`: that is where the fast path for a GP
is chosen, not in every method.
"""

from __future__ import annotations

from agents.acquisition.inputs import RandomInputs
from agents.acquisition.set_acquisition import SetAcquisition


class Estimator(SetAcquisition):
    """``E[score([x^i, X^-i])]`` over the random inputs of a set, for batches of queries:
    :meth:`value` is the expectation over the first ``n_samples`` sample rows (all by default).

    Args:
        inputs: the fixed sample of the random inputs.
    """

    def __init__(self, inputs: RandomInputs) -> None:
        super().__init__(inputs.task.control_sets, inputs.task.dim)
        self.inputs = inputs
