"""Numerics modes: the variables each sets, that they take effect when a process starts in the
mode (launcher, ``BOCVS_NUMERICS`` before the libraries load), and that a process whose
libraries already run other kernels is refused rather than run in a mode it is not in."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from bocvs_env.env import BOCVSEnv
from bocvs_env.evaluation import run_episode
from bocvs_env.numerics import (
    ENV_VAR,
    PINNED_SETTINGS,
    PINS,
    NumericsError,
    child_environment,
    numerics_env,
    requested_numerics,
    use_numerics,
    worker_numerics,
)

#: Prints the settings in force of a fresh process, after loading numpy, SciPy and torch.
_REPORT = (
    "import numpy, scipy.linalg, torch; from bocvs_env.numerics import numerics_in_force; "
    "print(numerics_in_force())"
)


def _python(code: str, env: dict[str, str], *head: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in PINS and k != ENV_VAR}
    return subprocess.run(
        [*head, sys.executable, "-c", code],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_modes_variables() -> None:
    assert numerics_env("fast") == {ENV_VAR: "fast"}
    reproducible = numerics_env("reproducible")
    assert reproducible[ENV_VAR] == "reproducible"
    assert reproducible["MKL_CBWR"] == "COMPATIBLE"
    assert reproducible["OPENBLAS_CORETYPE"] == "Haswell"
    assert reproducible["ATEN_CPU_CAPABILITY"] == "avx2"
    assert {reproducible[k] for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")} == {"1"}
    with pytest.raises(ValueError, match="numerics mode must be one of"):
        numerics_env("exact")  # type: ignore[arg-type]


def test_the_mode_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert requested_numerics() == "fast"
    assert worker_numerics() == "fast" == worker_numerics("fast", sweep="reproducible")
    assert worker_numerics(sweep="reproducible") == "reproducible"  # the sweep's own mode
    monkeypatch.setenv(ENV_VAR, "fast")
    assert requested_numerics() == "fast" == worker_numerics(sweep="reproducible")
    assert worker_numerics("reproducible") == "reproducible"  # --numerics first
    monkeypatch.setenv(ENV_VAR, "exact")
    with pytest.raises(ValueError, match=f"{ENV_VAR}='exact'"):
        requested_numerics()


def test_a_child_environment_is_undone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MKL_CBWR", "AVX512")
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    with child_environment("reproducible"):
        assert os.environ["MKL_CBWR"] == "COMPATIBLE"
        assert os.environ["OPENBLAS_CORETYPE"] == "Haswell"
    assert os.environ["MKL_CBWR"] == "AVX512" and "OPENBLAS_CORETYPE" not in os.environ
    with child_environment("fast"):
        assert os.environ["MKL_CBWR"] == "AVX512"  # the user's own choice, left alone


def test_reproducible_is_refused_once_torch_runs_other_kernels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """This process loaded torch without MKL's pin: asking for the mode now is an error in one
    line that says how to start the process instead, and leaves the environment as it was."""
    import torch  # noqa: F401  (loaded, as in a script that imported it first)

    monkeypatch.delenv("MKL_CBWR", raising=False)
    monkeypatch.delenv(ENV_VAR, raising=False)
    names = numerics_env("reproducible")
    before = {k: os.environ.get(k) for k in names}
    with pytest.raises(NumericsError) as err:
        use_numerics("reproducible")
    message = str(err.value)
    assert "\n" not in message and "MKL_CBWR unset" in message
    assert "python -m bocvs_env.numerics reproducible" in message
    assert {k: os.environ.get(k) for k in names} == before
    env = BOCVSEnv(problem="hartmann3", cost_set="cheap", budget=1.0)
    with pytest.raises(NumericsError):
        run_episode(env, object(), seed=0, numerics="reproducible")  # type: ignore[arg-type]


def test_the_launcher_starts_a_process_with_every_pin_in_force() -> None:
    launcher = (sys.executable, "-m", "bocvs_env.numerics", "reproducible")
    done = _python(_REPORT, {}, *launcher)
    assert done.returncode == 0, done.stderr
    report = ast.literal_eval(done.stdout)
    assert report == {**PINNED_SETTINGS, "numerics": "reproducible"}
    exports = subprocess.run([*launcher], capture_output=True, text=True, timeout=60).stdout
    assert "export MKL_CBWR=COMPATIBLE" in exports.splitlines()


def test_bocvs_numerics_pins_a_script_that_imports_bocvs_env_first() -> None:
    done = _python("import bocvs_env; " + _REPORT, {ENV_VAR: "reproducible"})
    assert done.returncode == 0, done.stderr
    assert ast.literal_eval(done.stdout)["openblas_coretype"] == "Haswell"
    late = _python(
        _REPORT.replace("print(", "use_numerics('reproducible'); print(").replace(
            "import numerics_in_force", "import numerics_in_force, use_numerics"
        ),
        {ENV_VAR: "reproducible"},
    )
    assert late.returncode != 0 and "NumericsError" in late.stderr  # numpy loaded first


def test_fast_mode_leaves_the_machine_its_kernels() -> None:
    done = _python(
        _REPORT, {"MKL_CBWR": "AVX2"}, sys.executable, "-m", "bocvs_env.numerics", "fast"
    )
    assert done.returncode == 0, done.stderr
    report = ast.literal_eval(done.stdout)
    assert report["numerics"] == "fast" and report["mkl_cbwr"] == "AVX2"
