"""UCB-PSQ and TS-PSQ of Hayashi et al. (2022), "Bayesian optimization with partially specified
queries": the best set and query by an optimistic score, ignoring cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from torch import Tensor

from agents.acquisition import Bound
from agents.base import Action, Observation
from agents.config import EXACT, Computation, Rules
from agents.policies.model_based import ModelBasedAgent
from agents.rules.set_selection import best_set, full_set


@dataclass(frozen=True)
class PSQRules(Rules):
    """UCB-PSQ's rule (:class:`UCBPSQAgent` documents it)."""

    prefer_full_set: bool = True


class UCBPSQAgent(ModelBasedAgent):
    """Each round plays ``argmax over (i, x^i) of E[u_{t-1}([x^i, X^{-i}])]``, ignoring cost.

    If a set controls every variable, the reference code always plays it (``prefer_full_set``).
    This changes nothing but the compute: for any function ``h`` the full set's ``max_x h(x)``
    is at least every set's ``max_{x^i} E[h([x^i, X^{-i}])]``, so the full set wins the argmax
    anyway (up to optimizer error). With ``prefer_full_set=False`` ties between sets go to the
    lowest index.

    The decision log has one entry per round: ``set``, ``value`` (the played maximum) and
    ``values`` (every candidate set's maximum).

    Args:
        prefer_full_set: play the set controlling every variable, if any, without comparing.
        **model: the surrogate and acquisition options of :class:`ModelBasedAgent`.
    """

    name = "ucb-psq"
    default_rules: ClassVar[PSQRules] = PSQRules()
    rules: PSQRules

    def start(self) -> None:
        super().start()
        full = full_set(self.task.control_sets, self.task.dim)
        self._psq_sets = (
            [full]
            if self.rules.prefer_full_set and full is not None
            else list(range(self.task.n_sets))
        )

    def score(self) -> Bound | Callable[[Tensor], Tensor]:
        """The function whose expectation is maximized this round (here ``u``)."""
        return "ucb"

    def decide(self, observation: Observation) -> Action:
        return self.play_best(self._psq_sets)

    def play_best(self, sets: list[int]) -> Action:
        """The action ``argmax over (i in sets, x^i) of E[score]``, logged."""
        score = self.score()
        maxima = self.set_maxima(sets, score)
        values = {i: v for i, (v, _) in maxima.items()}
        i = best_set(sorted(values), _dense(values, self.task.n_sets))
        self.log(set=i, value=values[i], values={str(k): v for k, v in values.items()})
        return {"control_set": i, "x": self.played(i, maxima[i][1], score)}


class TSPSQAgent(UCBPSQAgent):
    """UCB-PSQ with ``u`` replaced by one posterior sample path per round (Thompson sampling).

    The path is a pathwise (decoupled) sample of the GP posterior, random Fourier features of
    the prior updated by Matheron's rule (:meth:`agents.surrogate.GPSurrogate.sample_paths`, this
    package's own code, as BoTorch's pathwise sampling does it), the modern equivalent of the
    reference's 1024 random Fourier features; its seed is drawn from the agent's seeded
    generator every round. ``prefer_full_set`` holds for the same reason as in UCB-PSQ: the
    full set maximizes any function's expectation.

    Its defaults are the exact settings (:data:`agents.config.EXACT_SETTINGS`), not the
    fast options of the other agents: in the fast options' paired quality check the geometric, capped refits
    made its final simple regret worse on hartmann6 in 12-D (where it plays only the full set,
    so the refits are the only difference: +0.27, 95% interval [0.08, 0.53], 5 seeds), and the
    options did not make it faster on airfoil (benchmarks/README.md, "Pilot: fast options").
    """

    name = "ts-psq"
    default_computation: ClassVar[Computation] = EXACT

    def score(self) -> Bound | Callable[[Tensor], Tensor]:
        return self.sample_path()


def _dense(values: dict[int, float], m: int) -> list[float]:
    return [values.get(i, float("-inf")) for i in range(m)]
