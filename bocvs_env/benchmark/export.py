"""Stored runs as tidy pandas DataFrames, and as CSV or Parquet files.

- :func:`runs_frame`: one row per run: its configuration, the final figures of
  :func:`bocvs_env.metrics.summarize` (``spend_share_<i>`` per control set), the oracle values
  and mean costs per set (``set_max_<i>``, ``cost_mean_<i>``) and provenance (code version
  included, see :mod:`bocvs_env.benchmark.versions`).
- :func:`steps_frame`: one row per evaluated step of a run: the set, the query (``x_<l>``, NaN
  past a problem's dimension), ``y``, cost, cost spent, ``g`` and the regrets so far.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bocvs_env import metrics
from bocvs_env.benchmark.atomic import write_file
from bocvs_env.benchmark.store import StoredRun, to_json
from bocvs_env.benchmark.versions import KEY_DEPENDENCIES

if TYPE_CHECKING:
    import pandas as pd

#: Provenance entries of a run copied into :func:`runs_frame`'s columns (the numerics entries
#: are :func:`bocvs_env.numerics.numerics_in_force`'s).
PROVENANCE_COLUMNS = (
    "package_version",
    "git_commit",
    *KEY_DEPENDENCIES,
    "python",
    "host",
    "cpu",
    "numerics",
    "cpu_capability",
    "mkl_cbwr",
    "openblas_coretype",
    "openblas_threads",
    "numpy_simd",
    "torch_threads",
    "started_at",
    "finished_at",
    "wall_s",
    "cpu_s",
)


def require_pandas() -> Any:
    """The pandas module, or an ``ImportError`` saying how to install it."""
    try:
        import pandas
    except ImportError as err:
        raise ImportError('exporting needs pandas: pip install "bocvs[plot]"') from err
    return pandas


def _config_columns(run: StoredRun) -> dict[str, Any]:
    c = run.config
    return {
        "key": run.key,
        "sweep": run.sweep,
        "problem": c.problem,
        "cost_set": c.cost_set,
        "variance": c.variance,
        "budget": c.budget,
        "agent": c.agent,
        "seed": c.seed,
    }


def runs_frame(runs: Sequence[StoredRun], alpha: float = 0.1) -> pd.DataFrame:
    """One row per run (see the module docstring)."""
    rows = []
    for run in runs:
        summary = metrics.summarize(run.record, alpha)
        shares = summary["spend_share"]
        rec = run.record
        rows.append(
            {
                **_config_columns(run),
                "agent_params": to_json(dict(run.config.agent_params)),
                "problem_options": to_json(dict(run.config.problem_options)),
                **{k: v for k, v in summary.items() if k != "spend_share"},
                **{f"spend_share_{i}": v for i, v in enumerate(shares)},
                **{f"set_max_{i}": v for i, v in enumerate(rec.set_max.tolist())},
                **{f"cost_mean_{i}": v for i, v in enumerate(rec.cost_means.tolist())},
                **{k: run.provenance.get(k) for k in PROVENANCE_COLUMNS},
                "agent_settings": to_json(run.provenance.get("agent_params", {})),
                "problem_config": to_json(rec.config),
            }
        )
    return require_pandas().DataFrame(rows)


def steps_frame(runs: Sequence[StoredRun], alpha: float = 0.1) -> pd.DataFrame:
    """One row per evaluated step of every run (see the module docstring)."""
    pd = require_pandas()
    frames = []
    for run in runs:
        rec = run.record
        T = rec.n_evaluations
        columns: dict[str, Any] = {k: [v] * T for k, v in _config_columns(run).items()}
        columns |= {
            "step": np.arange(1, T + 1),
            "control_set": rec.control_set,
            **{f"x_{l}": rec.x[:, l] for l in range(rec.x.shape[1])},
            "y": rec.y,
            "cost": rec.cost,
            "spent": rec.spent,
            "g": rec.g,
            "simple_regret": metrics.simple_regret(rec),
            "quality_regret": metrics.quality_regret(rec, alpha),
            "cost_regret": metrics.cost_regret(rec, alpha),
        }
        frames.append(pd.DataFrame(columns))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def write_frame(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` as ``.csv`` or ``.parquet`` (by the suffix), whole or not at all
    (:func:`bocvs_env.benchmark.atomic.write_file`: a failure leaves a previous file as it was).

    Raises:
        ValueError: for another suffix.
        OSError: a full disk (``ENOSPC``, naming ``path``).
    """
    path = Path(path)
    if path.suffix == ".csv":
        return write_file(path, lambda tmp: frame.to_csv(tmp, index=False))
    if path.suffix == ".parquet":
        return write_file(path, lambda tmp: frame.to_parquet(tmp, index=False))
    raise ValueError(f"export to .csv or .parquet, got {path.name}")
