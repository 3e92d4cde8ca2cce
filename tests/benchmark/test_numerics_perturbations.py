"""Reproducible numerics hold under each CPU-dependent kernel choice another machine would make:
``bocvs run --numerics reproducible`` gives bit-identical traces for one agent of each family
on a synthetic and a data problem whichever of the choices is perturbed (each alone), while
``fast`` runs change under at least one of them (so that the first check can fail).

The perturbations force the kernels of other kinds of x86-64 CPU through the variables the
libraries read when they load: MKL's code branch, the core type of numpy's and SciPy's
OpenBLAS, and torch's CPU capability. Forcing AVX-512 kernels needs a CPU that has them.
"""

from __future__ import annotations

import itertools
import os
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bocvs_env.benchmark.store import ResultStore
from bocvs_env.numerics import ENV_VAR, PERTURBATIONS, PINS

#: One agent of each family.
AGENTS = ["etc", "ucb-psq", "ts-psq", "fetc", "sadcbo", "ei-cost", "random"]
#: The per-step values compared, bit for bit.
TRACE = ("control_set", "x", "y", "cost", "g")


def _has_avx512() -> bool:
    try:
        return " avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        platform.machine() != "x86_64" or not _has_avx512(),
        reason="perturbs x86-64 kernels up to AVX-512: needs a CPU with AVX-512",
    ),
]


#: The synthetic problem and the data problem checked.
SYNTHETIC, DATA = "hartmann6_12d", "plant"


def _traces(
    folder: Path, problems: list[str], agents: list[str], mode: str, extra: dict[str, str]
) -> dict[tuple[str, str], tuple[np.ndarray, ...]]:
    """One ``bocvs run`` of ``agents`` on ``problems`` (cheap costs, budget 3, seed 0) in
    ``mode`` with the variables ``extra`` in its environment; each (problem, agent)'s trace.
    (One invocation for every problem: a process's start, about a third of a short sweep's
    CPU time, is paid once per perturbation.)"""
    store = folder / f"{mode}-{len(list(folder.iterdir()))}.db"
    env = {k: v for k, v in os.environ.items() if k not in PINS and k != ENV_VAR}
    cmd = [sys.executable, "-m", "bocvs_env.benchmark", "run", "--problems", *problems]
    cmd += ["--cost-sets", "cheap", "--variances", "0.02", "--budgets", "3", "--seeds", "1"]
    cmd += ["--agents", *agents, "--store", str(store), "--workers", "2", "--numerics", mode]
    done = subprocess.run(
        [*cmd, "--no-plot", "-q"], env={**env, **extra}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    with ResultStore(store, readonly=True) as s:
        runs = s.runs()
    assert {r.provenance["numerics"] for r in runs} == {mode}
    return {
        (r.config.problem, r.config.agent): tuple(getattr(r.record, f) for f in TRACE) for r in runs
    }


def _differ(
    a: dict[tuple[str, str], tuple[np.ndarray, ...]],
    b: dict[tuple[str, str], tuple[np.ndarray, ...]],
) -> list[tuple[str, str]]:
    """The (problem, agent) pairs whose traces differ (in length or any bit)."""
    return sorted(
        run
        for run in a
        if run not in b
        or not all(
            np.array_equal(x, y, equal_nan=True) for x, y in zip(a[run], b[run], strict=True)
        )
    )


def test_reproducible_traces_ignore_every_perturbation(tmp_path: Path) -> None:
    """Both problems in each ``bocvs run`` (the data problem reads the shipped data files, or
    ``$BOCVS_DATA_DIR``)."""
    problems = [SYNTHETIC, DATA]
    base = _traces(tmp_path, problems, AGENTS, "reproducible", {})
    assert sorted(base) == sorted(itertools.product(problems, AGENTS))
    changed = {
        name: _differ(base, _traces(tmp_path, problems, AGENTS, "reproducible", extra))
        for name, extra in PERTURBATIONS.items()
    }
    assert changed == {name: [] for name in PERTURBATIONS}


def test_fast_traces_change_under_a_perturbation(tmp_path: Path) -> None:
    """Without the pins, some perturbation changes a GP agent's trace (each is tried until one
    does): what the reproducible check above would catch if a pin stopped taking effect."""
    agents = ["ucb-psq", "etc"]
    base = _traces(tmp_path, [SYNTHETIC], agents, "fast", {})
    for extra in PERTURBATIONS.values():
        if _differ(base, _traces(tmp_path, [SYNTHETIC], agents, "fast", extra)):
            return
    pytest.fail("no perturbation changed a fast-mode trace: the check of reproducible mode is moot")


#: Prints the digest of the airfoil objective's fit to the data folder ``sys.argv[1]``.
_FIT_DIGEST = (
    "import sys; from bocvs_env.problems.airfoil import airfoil; "
    "print(airfoil(sys.argv[1], cache=False).fit_digest)"
)


def _fit_digest(data: Path, mode: str, extra: dict[str, str]) -> str:
    """The airfoil fit's digest, fitted afresh by a process started in ``mode`` with the
    variables ``extra`` in its environment."""
    env = {k: v for k, v in os.environ.items() if k not in PINS and k != ENV_VAR}
    cmd = [sys.executable, "-m", "bocvs_env.numerics", mode, sys.executable, "-c", _FIT_DIGEST]
    done = subprocess.run([*cmd, str(data)], env={**env, **extra}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_airfoil_fit_ignores_every_perturbation_in_reproducible_mode(
    quick_data_dir: Path,
) -> None:
    """Airfoil's objective is a GP fitted to the data on the machine that runs it, so its values
    are the fit's bits: pinned, the fit is the same under each perturbation; with the machine's
    kernels it is not (on the thinned file, to fit in seconds)."""
    pinned = {
        name: _fit_digest(quick_data_dir, "reproducible", e) for name, e in PERTURBATIONS.items()
    }
    assert len(set(pinned.values())) == 1, pinned
    fast = {_fit_digest(quick_data_dir, "fast", e) for e in PERTURBATIONS.values()}
    assert len(fast) > 1
