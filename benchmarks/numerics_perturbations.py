"""Which CPU-dependent kernel choices change a run: short episodes through the CLI (``bocvs
run``, then ``bocvs export --level steps``), once as the machine chooses and once under each
perturbation alone, as another kind of machine would choose:

- ``MKL_CBWR``: the code path of MKL (torch's BLAS and LAPACK);
- ``OPENBLAS_CORETYPE``: the kernels of the OpenBLAS that numpy and SciPy load;
- ``ATEN_CPU_CAPABILITY``: the instruction set of torch's own vectorized kernels;
- ``NPY_DISABLE_CPU_FEATURES``: numpy's own SIMD loops (here: as on a machine without AVX-512);
- ``ONEDNN_MAX_CPU_ISA``: oneDNN's kernels inside torch.

For each perturbation it prints whether the steps (set, query, observation, cost, ``g``) are
bit-identical to the unperturbed run's, and otherwise the first differing step per run.
``--numerics`` is passed to ``bocvs run``: with ``reproducible`` every row should read
identical.

Run: ``python benchmarks/numerics_perturbations.py --numerics fast`` (needs ``BOCVS_DATA_DIR``
for ``plant``; each perturbation is one ``bocvs run`` of 4 short episodes, under a minute on a
free core).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bocvs_env.numerics import PERTURBATIONS

#: name -> the environment variables it sets (each alone): the checked ones, and further
#: choices measured here.
CHOICES: dict[str, dict[str, str]] = {
    "none": {},
    **PERTURBATIONS,
    "MKL_CBWR=COMPATIBLE": {"MKL_CBWR": "COMPATIBLE"},
    "OPENBLAS_CORETYPE=Zen": {"OPENBLAS_CORETYPE": "Zen"},
    "ONEDNN_MAX_CPU_ISA=AVX2": {"ONEDNN_MAX_CPU_ISA": "AVX2"},
}
#: The step columns compared (``bocvs export --level steps``).
KEY = ["problem", "agent", "seed"]


def run(
    env_extra: dict[str, str], folder: Path, args: argparse.Namespace, name: str
) -> pd.DataFrame:
    """One ``bocvs run`` under ``env_extra``; its steps."""
    store = folder / f"{abs(hash(name))}.db"
    out = folder / f"{abs(hash(name))}.parquet"
    env = {**os.environ, **env_extra}
    bocvs = [sys.executable, "-m", "bocvs_env.benchmark"]
    sweep = ["--problems", *args.problems, "--cost-sets", "cheap", "--variances", "0.02"]
    sweep += ["--budgets", str(args.budget), "--agents", *args.agents, "--seeds", "1"]
    cmd = [*bocvs, "run", *sweep, "--store", str(store), "--no-plot", "--workers", "1", "-q"]
    if args.numerics is not None:
        cmd += ["--numerics", args.numerics]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    cmd = [*bocvs, "export", "--store", str(store), "--level", "steps", "--out", str(out)]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return pd.read_parquet(out)


def first_differences(base: pd.DataFrame, other: pd.DataFrame) -> list[str]:
    """Per run that differs, ``problem/agent: step k`` (the first differing step, or the
    length when one run is a prefix of the other); empty if every run is identical."""
    values = [c for c in base.select_dtypes("number").columns if c not in ("seed", "step")]
    others = {key: o for key, o in other.groupby(KEY)}
    out = []
    for key, b in base.groupby(KEY):
        a = b[values].to_numpy(np.float64)
        o = others[key][values].to_numpy(np.float64) if key in others else a[:0]
        n = min(len(a), len(o))
        same = [np.array_equal(a[k], o[k], equal_nan=True) for k in range(n)]
        if not all(same):
            out.append(f"{key[0]}/{key[1]}: step {same.index(False) + 1}")
        elif len(a) != len(o):
            out.append(f"{key[0]}/{key[1]}: {len(o)} steps, not {len(a)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--numerics", choices=("reproducible", "fast"))
    parser.add_argument("--problems", nargs="+", default=["hartmann6_12d", "plant"])
    parser.add_argument("--agents", nargs="+", default=["etc", "ucb-psq"])
    parser.add_argument("--budget", type=float, default=3.0)
    parser.add_argument("--only", nargs="+", help="these perturbations (names above)")
    args = parser.parse_args()
    chosen = {k: v for k, v in CHOICES.items() if args.only is None or k in args.only}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        base = run({}, folder, args, "base")
        print(f"numerics {args.numerics or '(default)'}; {len(base)} steps in "
              f"{base.groupby(KEY).ngroups} runs; base run {time.perf_counter() - t0:.0f} s")  # fmt: skip
        print("\n| perturbation | traces |\n| --- | --- |")
        for name, extra in chosen.items():
            diffs = first_differences(base, run(extra, folder, args, name))
            print(f"| `{name}` | {'identical' if not diffs else '; '.join(diffs)} |", flush=True)


if __name__ == "__main__":
    main()
