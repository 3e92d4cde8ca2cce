"""An experiment's figure: the best ``y`` reached against the cost spent, and the spend per
control set (matplotlib, without pyplot's global state)."""

from __future__ import annotations

from typing import Any

import numpy as np


def best_so_far(history: Any, maximize: bool) -> tuple[np.ndarray, np.ndarray]:
    """The cost spent after each evaluated answer and the best ``y`` told by then: two
    ``(T,)`` arrays."""
    told = history[history["evaluated"]]
    y = told["y"].to_numpy(float)
    best = np.maximum.accumulate(y) if maximize else np.minimum.accumulate(y)
    return told["spent"].to_numpy(float), best


def experiment_figure(history: Any, maximize: bool, title: str) -> Any:
    """The figure of ``history`` (:func:`~bocvs_env.experiment.report.history_frame`): left,
    the best ``y`` against the cost spent (a step per answer); right, the spend per set."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    spent, best = best_so_far(history, maximize)
    left.step(spent, best, where="post", marker="o", color="C0")
    left.set_xlabel("cost spent")
    left.set_ylabel(f"best y ({'max' if maximize else 'min'} so far)")
    told = history[history["evaluated"]]
    spend = told.groupby("set", sort=False)["cost"].sum()
    right.barh(list(spend.index), spend.to_numpy(float), color="C1")
    right.set_xlabel("spend per control set")
    fig.suptitle(title)
    return fig
