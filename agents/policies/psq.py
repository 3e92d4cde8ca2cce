"""UCB-PSQ and TS-PSQ of Hayashi et al. (2022), "Bayesian optimization with partially specified
queries", and the AAAI paper's ETC-50, as one policy (:class:`UCBPSQAgent`) and a table of
named presets (:data:`PRESETS`): the best set and query by an optimistic score, ignoring cost.

The policy is composed of two parts, which its rules choose (:meth:`PSQRules.parts`): the
**score** whose expectation is maximized each round (:class:`UCBScore`, the upper bound ``u``;
:class:`ThompsonScore`, one posterior sample path) and an optional **group phase** played
first (:class:`SizeGroupPhase`, ETC-50's).

- ``ucb-psq``: the upper bound, every round (:class:`PSQRules`, :data:`~agents.config.FAST`).
- ``ts-psq``: a posterior sample path, every round (:class:`ThompsonPSQRules`,
  :data:`~agents.config.EXACT`).
- ``etc-50``: ``rounds_per_group`` rounds in each group of sets of equal size, then UCB-PSQ
  (:class:`ETC50Rules`, :data:`~agents.config.EXACT`). The AAAI paper (Hoang, Nguyen & Tran,
  2025) calls it "a variant of UCB-CVS": it never commits by bounds, so it is not a preset of
  the explore-then-commit policy (docs/design/composed-policy.md).

TS-PSQ's and ETC-50's defaults are the exact settings (:data:`agents.config.EXACT_SETTINGS`),
not the fast options of the other agents: the paired check of the fast options found them
worse for both (docs/design/computation-settings.md gives the figures and the command that
recomputes them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from torch import Tensor

from agents.acquisition import Bound
from agents.base import Action, Observation
from agents.config import EXACT, FAST, Rules
from agents.policies.model_based import ModelBasedAgent
from agents.policies.presets import Preset, preset_table
from agents.rules.set_selection import best_set, etc50_group, full_set, size_groups
from bocvs_env.agent_state import StateArrays, StateMeta
from bocvs_env.checks import check_positive_integers
from bocvs_env.task import Task

#: Rounds per group of ETC-50, and the unit of UCB-CVS's default cutoff.
ROUNDS_PER_GROUP = 50


class PSQScore(Protocol):
    """The function whose expectation over the random inputs the policy maximizes."""

    def __call__(self, agent: ModelBasedAgent) -> Bound | Callable[[Tensor], Tensor]:
        """This round's function (a bound's name, or a sample path ``n x d -> n``)."""


@dataclass(frozen=True)
class UCBScore:
    """UCB-PSQ's score: the upper confidence bound ``u_{t-1} = mean + beta * std``."""

    def __call__(self, agent: ModelBasedAgent) -> Bound | Callable[[Tensor], Tensor]:
        return "ucb"


@dataclass(frozen=True)
class ThompsonScore:
    """TS-PSQ's score: one posterior sample path per round (Thompson sampling).

    The path is a pathwise (decoupled) sample of the GP posterior, random Fourier features of
    the prior updated by Matheron's rule (:meth:`agents.surrogate.GPSurrogate.sample_paths`,
    this package's own code, as BoTorch's pathwise sampling does it), the modern equivalent of
    the reference's 1024 random Fourier features; its seed is drawn from the agent's seeded
    generator every round (:meth:`~agents.policies.model_based.ModelBasedAgent.sample_path`).
    """

    def __call__(self, agent: ModelBasedAgent) -> Bound | Callable[[Tensor], Tensor]:
        return agent.sample_path()


@dataclass(frozen=True)
class SizeGroupPhase:
    """ETC-50's first phase: ``rounds_per_group`` rounds in each group of sets, in turn.

    Groups (:func:`agents.rules.set_selection.size_groups`): sets of equal size, smallest
    first; the full set is not a group; when every set has the same size (airfoil),
    consecutive runs of ``positional_size`` sets by position. Rounds count evaluations, not
    spend.
    """

    rounds_per_group: int
    positional_size: int

    def groups(self, task: Task) -> list[list[int]]:
        """The task's groups, in the order they are played."""
        return size_groups(task.control_sets, task.dim, self.positional_size)

    def group(self, t: int, groups: Sequence[Sequence[int]]) -> list[int] | None:
        """The group of round ``t`` (0-based), ``None`` once every group is done."""
        return etc50_group(t, groups, self.rounds_per_group)


@dataclass(frozen=True)
class PSQParts:
    """The policy's parts: its score and an optional group phase played first."""

    score: PSQScore
    group_phase: SizeGroupPhase | None = None


@dataclass(frozen=True)
class PSQRules(Rules):
    """UCB-PSQ's rule (:class:`UCBPSQAgent` documents it); the score is the upper bound."""

    prefer_full_set: bool = True

    def parts(self) -> PSQParts:
        """The policy's parts: the upper bound, no group phase."""
        return PSQParts(UCBScore())


@dataclass(frozen=True)
class ThompsonPSQRules(PSQRules):
    """TS-PSQ's rules: UCB-PSQ's with a posterior sample path as the score. ``prefer_full_set``
    holds for the same reason: the full set maximizes any function's expectation."""

    def parts(self) -> PSQParts:
        """The policy's parts: a sample path per round, no group phase."""
        return PSQParts(ThompsonScore())


@dataclass(frozen=True)
class ETC50Rules(PSQRules):
    """ETC-50's rules: UCB-PSQ's after a group phase (:class:`SizeGroupPhase`).

    Args:
        rounds_per_group: rounds played in each group (the paper: 50).
        positional_size: the run length of positional groups.
    """

    rounds_per_group: int = ROUNDS_PER_GROUP
    positional_size: int = 3

    def __post_init__(self) -> None:
        check_positive_integers(
            rounds_per_group=self.rounds_per_group, positional_size=self.positional_size
        )

    def parts(self) -> PSQParts:
        """The policy's parts: the upper bound, after the group phase."""
        return PSQParts(UCBScore(), SizeGroupPhase(self.rounds_per_group, self.positional_size))


class UCBPSQAgent(ModelBasedAgent):
    """Each round plays ``argmax over (i, x^i) of E[score]``, ignoring cost (the score: the
    upper bound ``u_{t-1}`` for ``ucb-psq`` and ``etc-50``, a posterior sample path for
    ``ts-psq``).

    If a set controls every variable, the reference code always plays it (``prefer_full_set``).
    This changes nothing but the compute: for any function ``h`` the full set's ``max_x h(x)``
    is at least every set's ``max_{x^i} E[h([x^i, X^{-i}])]``, so the full set wins the argmax
    anyway (up to optimizer error). With ``prefer_full_set=False`` ties between sets go to the
    lowest index. With a group phase (``etc-50``), the first rounds maximize over the sets of
    one group at a time instead, and ``prefer_full_set`` applies after it.

    The decision log has one entry per round: ``set``, ``value`` (the played maximum) and
    ``values`` (every candidate set's maximum).

    Args:
        preset: the registered name whose rules and computation the parameters are given over
            (:data:`PRESETS`; ``None`` is ``"ucb-psq"``).
        prefer_full_set: play the set controlling every variable, if any, without comparing.
        **model: the surrogate and acquisition options of :class:`ModelBasedAgent`.
    """

    name = "ucb-psq"
    default_rules: ClassVar[PSQRules] = PSQRules()
    rules: PSQRules

    def __init__(self, preset: str | None = None, **params: Any) -> None:
        super().__init__(preset, **params)
        self.parts = self.rules.parts()

    def start(self) -> None:
        super().start()
        full = full_set(self.task.control_sets, self.task.dim)
        self._psq_sets = (
            [full]
            if self.rules.prefer_full_set and full is not None
            else list(range(self.task.n_sets))
        )
        phase = self.parts.group_phase
        self._groups = [] if phase is None else phase.groups(self.task)

    def save_state(self) -> tuple[StateArrays, StateMeta]:
        """Its state (:class:`~bocvs_env.agent_state.StatefulAgent`): the model-based agent's
        (:meth:`~agents.policies.model_state.SavedModelAgent.model_state`); the sets it compares
        and the groups follow from the task, the group phase's place from the play count."""
        return self.model_state()

    def load_state(self, arrays: StateArrays, meta: StateMeta) -> None:
        """Restore a state from :meth:`save_state` (after :meth:`reset`)."""
        self.load_model_state(arrays, meta)

    def decide(self, observation: Observation) -> Action:
        phase = self.parts.group_phase
        group = None if phase is None else phase.group(int(self.plays.sum()), self._groups)
        return self.play_best(self._psq_sets if group is None else group)

    def play_best(self, sets: list[int]) -> Action:
        """The action ``argmax over (i in sets, x^i) of E[score]``, logged."""
        score = self.parts.score(self)
        maxima = self.set_maxima(sets, score)
        values = {i: v for i, (v, _) in maxima.items()}
        i = best_set(sorted(values), _dense(values, self.task.n_sets))
        self.log(set=i, value=values[i], values={str(k): v for k, v in values.items()})
        return {"control_set": i, "x": self.played(i, maxima[i][1], score)}


def _dense(values: dict[int, float], m: int) -> list[float]:
    return [values.get(i, float("-inf")) for i in range(m)]


#: The registered names of the policy: name -> its preset.
PRESETS: Mapping[str, Preset[UCBPSQAgent]] = preset_table(
    Preset("ucb-psq", UCBPSQAgent, PSQRules(), FAST, "UCB-PSQ of Hayashi et al. (2022)."),
    Preset(
        "ts-psq",
        UCBPSQAgent,
        ThompsonPSQRules(),
        EXACT,
        "TS-PSQ of Hayashi et al. (2022): UCB-PSQ with a posterior sample path per round.",
    ),
    Preset(
        "etc-50",
        UCBPSQAgent,
        ETC50Rules(),
        EXACT,
        "ETC-50 of Hoang, Nguyen & Tran: UCB-PSQ within groups of sets of equal size, "
        "50 rounds each, then UCB-PSQ.",
    ),
)
UCBPSQAgent.presets = PRESETS

#: The presets as values, by the names the entry points give them.
ts_psq = PRESETS["ts-psq"]
etc_50 = PRESETS["etc-50"]
