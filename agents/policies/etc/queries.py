"""Exploitation queries of the explore-then-commit policy: the query played on the committed
set, what a held decision plays next, and what the decision log says of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import numpy as np

from agents.policies.etc.port import ModelPort


class ExploitQuery(Protocol):
    """The query played on the committed set."""

    def note(self) -> dict[str, Any]:
        """What the decision log says of the query."""

    def query(self, model: ModelPort, i: int, x: np.ndarray) -> np.ndarray:
        """The ``(d,)`` query to play on set ``i``, from the maximizer ``x`` that admitted it."""

    def replay(self, model: ModelPort, i: int, x: np.ndarray) -> np.ndarray:
        """A held decision's next play on set ``i``, whose last query was ``x``."""


@dataclass(frozen=True)
class UCBQuery:
    """Algorithm 1's query (Hoang, Nguyen & Tran, AAAI 2025): the committed set at the
    maximizer of the bound that admitted it, polished on all samples
    (:meth:`~agents.policies.model_based.ModelBasedAgent.played`). ``logged``: the decision log
    names the query (``query="ucb"``), as FETC's does; Algorithm 1's log does not."""

    name: ClassVar[str] = "ucb"
    logged: bool = True

    def note(self) -> dict[str, Any]:
        return {"query": "ucb"} if self.logged else {}

    def query(self, model: ModelPort, i: int, x: np.ndarray) -> np.ndarray:
        return model.played(i, x)

    def replay(self, model: ModelPort, i: int, x: np.ndarray) -> np.ndarray:
        """The same query."""
        return x.copy()


@dataclass(frozen=True)
class ThompsonQuery:
    """FETC's query: the committed set at the maximizer of one posterior sample path's
    expectation (Thompson sampling, Russo & Van Roy, 2014), polished on all samples.

    ``distinct``: each play of a held decision (``hold``) maximizes a fresh sample path, so a
    decision's plays are distinct queries (GETC's); otherwise they replay the decision's query,
    and ``g_i`` at one query, known after its first play, cannot lower the simple regret again.
    """

    name: ClassVar[str] = "ts"
    distinct: bool = False

    def note(self) -> dict[str, Any]:
        return {"query": "ts"}

    def query(self, model: ModelPort, i: int, x: np.ndarray) -> np.ndarray:
        path = model.sample_path()
        return model.played(i, model.set_maxima([i], path)[i][1], path)

    def replay(self, model: ModelPort, i: int, x: np.ndarray) -> np.ndarray:
        """A fresh Thompson query with ``distinct``, else ``x`` again."""
        return self.query(model, i, x) if self.distinct else x.copy()
