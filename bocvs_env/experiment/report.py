"""What an experiment reports: its history as a table, and its status (budget spent and left,
plays and spend per control set, the best ``y`` told, and the belief of ``i*``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bocvs_env.experiment.journal import Entry
from bocvs_env.experiment.loop import Loop
from bocvs_env.experiment.recommendation import Recommendation, per_set
from bocvs_env.task import Task


def set_label(task: Task, variables: tuple[Any, ...], i: int) -> str:
    """Set ``i``'s variables joined by ``+`` (``temperature+flow``)."""
    return "+".join(variables[l].name for l in task.control_sets[i])


def history_frame(entries: list[Entry], task: Task, variables: tuple[Any, ...]) -> Any:
    """One row per suggestion: ``number``, ``control_set``, ``set`` (its label), each
    variable's value in its units (set, or measured; NaN while pending), ``y``, ``cost``,
    ``evaluated`` (paid for by the budget), ``spent`` (the budget spent after it) and
    ``pending``."""
    import pandas as pd

    from bocvs_env.budget import Ledger

    ledger = Ledger(task.budget)
    rows = []
    for e in entries:
        row: dict[str, Any] = {"number": e.number, "control_set": e.control_set,
                               "set": set_label(task, variables, e.control_set)}  # fmt: skip
        chosen = set(task.control_sets[e.control_set])
        a = e.answer
        for l, var in enumerate(variables):
            if l in chosen:
                row[var.name] = float(var.from_unit(e.x[l]))
            else:
                row[var.name] = a.measured.get(var.name, np.nan) if a else np.nan
        if a is not None and a.evaluated:
            ledger.pay(a.cost)
        row.update(y=a.y if a else np.nan, cost=a.cost if a else np.nan,
                   evaluated=bool(a and a.evaluated), spent=ledger.spent, pending=a is None)  # fmt: skip
        rows.append(row)
    columns = ["number", "control_set", "set", *(v.name for v in variables),
               "y", "cost", "evaluated", "spent", "pending"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


@dataclass(frozen=True)
class Status:
    """An experiment's status.

    Attributes:
        budget: the budget, in the cost's units.
        spent: the cost spent.
        remaining: what is left of the budget.
        done: whether the budget has ended the experiment.
        tells: the number of evaluated answers.
        pending: the number of the pending suggestion, if any.
        sets: per set: ``(label, plays, spend, best y told or NaN)``.
        beliefs: per played set, its best candidate (:mod:`~bocvs_env.experiment.recommendation`).
        best: the belief of ``i*`` (the best of ``beliefs``), or ``None`` before two answers.
        resumed_by: how the agent's state was restored.
    """

    budget: float
    spent: float
    remaining: float
    done: bool
    tells: int
    pending: int | None
    sets: list[tuple[str, int, float, float]]
    beliefs: list[Recommendation]
    best: Recommendation | None
    resumed_by: str

    def text(self) -> str:
        """The status as printed by ``bocvs experiment status``."""
        state = "done" if self.done else (f"suggestion {self.pending} pending" if self.pending
                                          else "ready to ask")  # fmt: skip
        lines = [f"budget {self.budget:g}: spent {self.spent:.4g}, left {self.remaining:.4g} "
                 f"({self.tells} answers; {state}; resumed by {self.resumed_by})", "",
                 f"{'set':<24} {'plays':>5} {'spend':>8} {'best y':>8}  posterior E[y] (95 %)"]  # fmt: skip
        belief = {r.control_set: r for r in self.beliefs}
        for i, (label, plays, spend, top) in enumerate(self.sets):
            r = belief.get(i)
            post = f"{r.expected:.4g} [{r.low:.4g}, {r.high:.4g}]" if r else "-"
            shown = f"{top:.4g}" if plays else "-"
            lines.append(f"{label:<24} {plays:>5} {spend:>8.4g} {shown:>8}  {post}")
        if self.best is not None:
            values = ", ".join(f"{k} = {v:.4g}" for k, v in self.best.set_values.items())
            lines += ["", f"belief of i*: {self.sets[self.best.control_set][0]} at {values}: "
                      f"E[y] {self.best.expected:.4g} [{self.best.low:.4g}, {self.best.high:.4g}]"]  # fmt: skip
        return "\n".join(lines)


def status_of(loop: Loop, history: Any, resumed_by: str) -> Status:
    """The :class:`Status` of the experiment in ``loop`` with ``history``
    (:func:`history_frame`)."""
    task, variables, maximize = loop.task, loop.process.variables, loop.process.maximize
    told = history[history["evaluated"]]
    sets = []
    for i in range(task.n_sets):
        ys = told.loc[told["control_set"] == i, "y"]
        top = float("nan") if ys.empty else float(ys.max() if maximize else ys.min())
        spend = float(told.loc[told["control_set"] == i, "cost"].sum())
        sets.append((set_label(task, variables, i), len(ys), spend, top))
    beliefs = per_set(history, task, variables, loop.process)
    sign = 1.0 if maximize else -1.0
    best = max(beliefs, key=lambda r: sign * r.expected) if beliefs else None
    pending = loop.pending.number if loop.pending else None
    ledger = loop.ledger
    return Status(task.budget, ledger.spent, ledger.remaining, loop.done, len(told), pending,
                  sets, beliefs, best, resumed_by)  # fmt: skip
