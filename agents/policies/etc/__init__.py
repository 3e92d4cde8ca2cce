"""Explore-then-commit: Algorithm 1 of Hoang, Nguyen & Tran (AAAI 2025, "ETC"), FETC, GETC and
the ablation agents between them, as one policy (:class:`ETCAgent`) composed of parts and a
table of named presets (:data:`PRESETS`).

The package (docs/design/etc-package.md):

- :mod:`.agent`: the policy, which runs the phases and logs the decisions;
- :mod:`.state`: the episode's explicit state (bars, counts, exploration progress) and the
  view of one decision the parts receive (:class:`~agents.policies.etc.state.Round`);
- :mod:`.port`: what the parts see of the agent, the data observed and the model port;
  :mod:`.model` implements the port on the agent's GP;
- the parts: :mod:`.exploration`, :mod:`.groups`, :mod:`.relevance`, :mod:`.cost_bounds`,
  :mod:`.value_bounds`, :mod:`.queries`, :mod:`.tolerances`, :mod:`.surrogates` (the model),
  composed in :mod:`.parts`;
  the authors' code's parts in :mod:`.authors`;
- :mod:`.rules`: the rules of ETC, FETC and GETC, which choose the parts;
- :mod:`.computation`: how much the policy computes; :mod:`.presets`: the registered names.
"""

from agents.policies.etc.agent import ETCAgent
from agents.policies.etc.computation import (
    ETC_EXACT,
    ETC_EXACT_SETTINGS,
    ETC_FAST_SETTINGS,
    ETC_FRUGAL,
    ETCComputation,
)
from agents.policies.etc.presets import (
    ABLATIONS,
    COMPONENTS,
    GETC_ABLATIONS,
    PRESETS,
    etc_authors,
    etc_bernstein,
    etc_bounded,
    etc_current,
    etc_relevance,
    etc_spend,
    etc_ts,
    fetc,
    getc,
    getc_keep,
    getc_relative,
    getc_replays,
    getc_spend,
)
from agents.policies.etc.rules import (
    ETC_RULES,
    ETC_SWITCHES,
    AuthorsRules,
    ETCRules,
    FETCRules,
    GETCRules,
)

__all__ = [
    "ABLATIONS",
    "COMPONENTS",
    "ETC_EXACT",
    "ETC_EXACT_SETTINGS",
    "ETC_FAST_SETTINGS",
    "ETC_FRUGAL",
    "ETC_RULES",
    "ETC_SWITCHES",
    "GETC_ABLATIONS",
    "PRESETS",
    "AuthorsRules",
    "ETCAgent",
    "ETCComputation",
    "ETCRules",
    "FETCRules",
    "GETCRules",
    "etc_authors",
    "etc_bernstein",
    "etc_bounded",
    "etc_current",
    "etc_relevance",
    "etc_spend",
    "etc_ts",
    "fetc",
    "getc",
    "getc_keep",
    "getc_relative",
    "getc_replays",
    "getc_spend",
]
