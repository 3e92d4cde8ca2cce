"""The registered names of the explore-then-commit policy: each a row of :data:`PRESETS`, a
:class:`~agents.policies.presets.Preset` of :class:`~agents.policies.etc.agent.ETCAgent` with
its rules and computation.

- ``etc``: Algorithm 1 of Hoang, Nguyen & Tran (AAAI 2025) (:class:`ETCRules`,
  :data:`ETC_EXACT`).
- ``fetc``, "frugal explore-then-commit": Algorithm 1 with five failure modes fixed, one switch
  each (:class:`FETCRules`, :data:`ETC_FRUGAL`; docs/agents/fetc.md): exploration balances
  spend, not counts; empirical-Bernstein cost bounds; ``S1`` from this round's bounds of each
  set's value; redundant sets skipped in exploration by the variables' relevance; Thompson
  sampling on the committed set.
- ``etc-bounded``: FETC's rules with every switch at ETC's value (:data:`ETC_SWITCHES`) and
  FETC's computation; ``etc-spend``, ``etc-bernstein``, ``etc-current``, ``etc-relevance``,
  ``etc-ts``: ``etc-bounded`` with one of FETC's switches on (:data:`COMPONENTS`), so that a
  sweep shows what each change does alone (docs/agents/fetc_ablation.md).
- ``getc``, "grouped explore-then-commit" (:class:`GETCRules`; docs/agents/getc.md), and its
  ablation agents ``getc-spend``, ``getc-keep``, ``getc-relative``, ``getc-replays``
  (:data:`GETC_ABLATIONS`), each with one of GETC's switches at FETC's or Algorithm 1's value.
- ``etc-authors``: ETC as its authors' released code runs it (:class:`AuthorsRules`,
  :data:`ETC_EXACT`; docs/agents/etc-text-and-code.md).

ETC-50, the AAAI paper's "variant of UCB-CVS", is not a preset here: it never commits by
bounds, and is a preset of UCB-PSQ (:data:`agents.policies.psq.PRESETS`;
docs/design/composed-policy.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from agents.policies.etc.agent import ETCAgent
from agents.policies.etc.computation import ETC_EXACT, ETC_FRUGAL
from agents.policies.etc.cost_bounds import BernsteinCostBound
from agents.policies.etc.exploration import SpendBalanced
from agents.policies.etc.queries import ThompsonQuery
from agents.policies.etc.rules import ETC_RULES, AuthorsRules, ETCRules, FETCRules, GETCRules
from agents.policies.etc.tolerances import RelativeTolerance
from agents.policies.etc.value_bounds import SetValueBounds
from agents.policies.presets import Preset, preset_table

#: The ablation agents: name -> (what it is, the one switch that differs from ETC's, none
#: for ``etc-bounded``, a part's class where the switch chooses a part); each is
#: :data:`ETC_RULES` with that switch and FETC's computation.
ABLATIONS: Mapping[str, tuple[str, dict[str, Any]]] = MappingProxyType(
    {
        "etc-bounded": ("ETC with FETC's computation and none of its components.", {}),
        "etc-spend": ("ETC with spend-balanced exploration.", {"allocation": SpendBalanced}),
        "etc-bernstein": (
            "ETC with empirical-Bernstein cost bounds.",
            {"cost_bound": BernsteinCostBound},
        ),
        "etc-current": (
            "ETC with S1 from the current model's bounds of each set's value.",
            {"value_bounds": SetValueBounds},
        ),
        "etc-relevance": ("ETC that skips redundant sets in exploration.", {"relevance": True}),
        "etc-ts": (
            "ETC with Thompson-sampling queries in exploitation.",
            {"exploit_query": ThompsonQuery},
        ),
    }
)

#: Ablation name -> the one switch that differs from ETC (none for ``etc-bounded``).
COMPONENTS: Mapping[str, dict[str, Any]] = MappingProxyType(
    {name: component for name, (_, component) in ABLATIONS.items()}
)

#: GETC's ablation agents: name -> (what it is, the one switch that differs from GETC's, a
#: part's class where the switch chooses a part).
GETC_ABLATIONS: Mapping[str, tuple[str, dict[str, Any]]] = MappingProxyType(
    {
        "getc-spend": (
            "GETC with FETC's spend-balanced exploration.",
            {"exploration": SpendBalanced},
        ),
        "getc-keep": ("GETC without elimination in exploration.", {"eliminate": False}),
        "getc-relative": (
            "GETC with Algorithm 1's relative tolerance.",
            {"tolerance": RelativeTolerance},
        ),
        "getc-replays": ("GETC replaying a held decision's query.", {"distinct_replays": False}),
    }
)

#: The registered names of the explore-then-commit family: name -> its preset.
PRESETS: Mapping[str, Preset[ETCAgent]] = preset_table(
    Preset("etc", ETCAgent, ETCRules(), ETC_EXACT, "Algorithm 1 of Hoang, Nguyen & Tran."),
    Preset("fetc", ETCAgent, FETCRules(), ETC_FRUGAL, "Frugal explore-then-commit (FETC)."),
    *(
        Preset(name, ETCAgent, replace(ETC_RULES, **component), ETC_FRUGAL, summary)
        for name, (summary, component) in ABLATIONS.items()
    ),
    Preset("getc", ETCAgent, GETCRules(), ETC_FRUGAL, "Grouped explore-then-commit (GETC)."),
    *(
        Preset(name, ETCAgent, GETCRules(**switch), ETC_FRUGAL, summary)
        for name, (summary, switch) in GETC_ABLATIONS.items()
    ),
    Preset("etc-authors", ETCAgent, AuthorsRules(), ETC_EXACT, "ETC as its authors' code runs it."),
)
# ETCAgent(preset="fetc") looks its preset up in the policy's table.
ETCAgent.presets = PRESETS

#: The presets as values, by the names the entry points give them (the registered name with
#: ``_`` for ``-``); calling one builds its agent: ``fetc(hold=None)``.
fetc, etc_bounded, etc_spend, etc_bernstein, etc_current, etc_relevance, etc_ts = (
    PRESETS[name] for name in ("fetc", *ABLATIONS)
)
getc, getc_spend, getc_keep, getc_relative, getc_replays = (
    PRESETS[name] for name in ("getc", *GETC_ABLATIONS)
)
etc_authors = PRESETS["etc-authors"]
