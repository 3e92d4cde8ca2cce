"""How much the explore-then-commit policy computes: the model's computation
(:class:`~agents.config.Computation`) and the tracking of ``max E[l]`` between refits, with
the two computations the registered names use (:data:`ETC_EXACT`, :data:`ETC_FRUGAL`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal, get_args

from agents.choice import check_choice
from agents.config import FAST_SETTINGS, FRUGAL_COMPUTE, Computation

#: The values of ETC's ``lcb_tracking`` option.
LcbTracking = Literal["off", "polish", "revalue"]
LCB_TRACKING = get_args(LcbTracking)


@dataclass(frozen=True)
class ETCComputation(Computation):
    """ETC's computation: the model's (:class:`~agents.config.Computation`) and how it tracks
    ``max E[l]`` between refits.

    Args:
        lcb_tracking: how ``max_{i, x^i} E[l]`` over the maximal sets is found each round.
            ``"revalue"`` (the field's default, and FETC's and GETC's): between
            hyperparameter refits, last round's maximizers (and the incumbents of
            :meth:`~agents.policies.model_based.ModelBasedAgent.set_maxima`) are only valued
            under the new posterior; ``"polish"``: between refits, each set's ``E[l]`` is only
            polished from its maximizer of the previous round (one L-BFGS-B start per set, no
            screening); ``"off"`` (the ``etc`` preset's, Algorithm 1's): a full maximization
            every round. With either tracking, a full maximization follows every refit and
            comes at least every ``refit_every + 1`` rounds. Tracking trades a possibly missed
            better LCB optimum (the value lags until the next full maximization; it enters
            ``lcb_bar``, a running max) for a round without a multi-start search over every
            maximal set. ``exact=True`` (:data:`ETC_EXACT_SETTINGS`) refuses any other value
            of it or of the model's fast options.
    """

    exact_settings: ClassVar[Mapping[str, Any]] = MappingProxyType(
        {**Computation.exact_settings, "lcb_tracking": "off"}
    )

    lcb_tracking: LcbTracking = "revalue"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_choice("lcb_tracking", self.lcb_tracking, LCB_TRACKING)


#: Algorithm 1's computation, a full ``max E[l]`` every round: the model's
#: :data:`~agents.config.EXACT_SETTINGS` and ``lcb_tracking="off"``. ``ETCAgent(exact=True)``
#: is ``ETCAgent(**ETC_EXACT_SETTINGS)``.
ETC_EXACT_SETTINGS: Mapping[str, Any] = ETCComputation.exact_settings

#: The fast options for ETC: the model's :data:`~agents.config.FAST_SETTINGS` and
#: ``lcb_tracking="revalue"`` (docs/design/computation-settings.md); FETC's and GETC's.
ETC_FAST_SETTINGS: Mapping[str, Any] = MappingProxyType(
    {**FAST_SETTINGS, "lcb_tracking": "revalue"}
)

#: The ``etc`` preset's computation: :data:`ETC_EXACT_SETTINGS`.
ETC_EXACT = ETCComputation(**ETC_EXACT_SETTINGS)
#: FETC's, GETC's and their ablation agents' computation: the fast options with
#: :data:`~agents.config.FRUGAL`'s bounds on data and decisions.
ETC_FRUGAL = ETCComputation(**FRUGAL_COMPUTE)
