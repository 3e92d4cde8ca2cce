"""Sweep configurations: one run's configuration, the sweep grid, presets and config files.

A sweep is the product problems x cost sets x variances x budgets x agents x seeds. Each point
is a :class:`RunConfig` whose :meth:`~RunConfig.key` (a digest of its canonical JSON, with every
default resolved) identifies the run in the result store, so that resuming skips finished runs
and several sweeps can share one store.

A config file is TOML (``.toml``) or JSON (``.json``) with the fields of :class:`SweepConfig`::

    name = "my-sweep"
    problems = ["hartmann3"]
    cost_sets = ["cheap"]
    variances = [0.02]
    budgets = [10]            # omit for each problem's default budget
    agents = ["random", "etc"]
    seeds = 3                 # 0, 1, 2; or an explicit list [0, 7, 9]
    numerics = "reproducible" # omit for "fast" (see bocvs_env.numerics)
    run_timeout = 3600        # seconds a run may take; omit for no limit
    [agent_params.etc]        # keyword arguments of make_agent("etc", ...)
    beta = 2.0
    # agents = ["etc", "etc@beta1"] runs a variant of etc as an agent of its own, with the
    # parameters of [agent_params."etc@beta1"]
    [problem_options]         # keyword arguments of bocvs_env.problems.make_problem
    n_initial = 5

A config file is the user's own input, trusted as a script is: its agents are imported and the
model files its ``agent_params`` name are loaded as given (``model = "ppo.zip"`` of ``sb3`` or
``neural-af``: a saved SB3 model is a pickle, and loading one runs code from it). A sweep
recorded in a store is not: resumed with ``bocvs run --sweep NAME``, it is checked as
:mod:`bocvs_env.benchmark.trust` says.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from bocvs_env.numerics import Numerics, check_mode
from bocvs_env.problems import make_problem
from bocvs_env.problems.costs import COST_SETS
from bocvs_env.problems.distributions import UNIFORM_VARIANCE
from bocvs_env.problems.registry import PROBLEMS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Bump when the meaning of a configuration changes, so that old store rows are not reused.
#: 2: the model-based agents' defaults became the fast computation settings (``exact=True`` is
#: the old; docs/design/computation-settings.md).
CONFIG_VERSION = 2

#: ``make_problem`` options that are part of a run's configuration, with their defaults.
_PROBLEM_DEFAULTS: dict[str, Any] = {
    name: p.default
    for name, p in inspect.signature(make_problem).parameters.items()
    if name in ("noise_std", "cost_noise_std", "n_initial")
}
#: Options that locate files and do not change a run's outcome.
_LOCATION_OPTIONS = frozenset({"data_dir"})
#: ``make_problem`` arguments that are axes of the sweep (or not JSON), never problem options.
_NOT_OPTIONS = frozenset({"name", "cost_set", "variance", "budget", "cost_model"})
#: A sweep's name: it names a folder of plots, so it is a name and never a path.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class RunConfig:
    """One run of the benchmark: a problem setting, an agent and a seed.

    Attributes:
        problem: a key of :data:`bocvs_env.problems.PROBLEMS`.
        cost_set: ``cheap``, ``moderate`` or ``expensive``.
        variance: the truncated variance of every input distribution.
        budget: total cost (the problem's default is resolved by :meth:`SweepConfig.runs`).
        agent: a name registered in the ``bocvs.agents`` entry-point group, or
            ``"module:Class"`` (:mod:`bocvs_env.agent_registration`).
        seed: seeds the environment and the agent.
        agent_params: keyword arguments of the agent.
        problem_options: further keyword arguments of ``make_problem`` (``noise_std``,
            ``cost_noise_std``, ``n_initial`` with defaults resolved; ``function_seed``, ...).
    """

    problem: str
    cost_set: str
    variance: float
    budget: float
    agent: str
    seed: int
    agent_params: Mapping[str, Any] = field(default_factory=dict)
    problem_options: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dictionary (the inverse of :meth:`from_dict`)."""
        out = asdict(self)
        out["agent_params"] = dict(self.agent_params)
        out["problem_options"] = dict(self.problem_options)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunConfig:
        """Rebuild a configuration written by :meth:`to_dict`."""
        return cls(**{f.name: data[f.name] for f in fields(cls)})

    def key(self, version: int = CONFIG_VERSION) -> str:
        """A digest of the configuration: equal for equal runs, whoever asks for them.

        Options that only locate files (``data_dir``) are left out. ``version``: the
        :data:`CONFIG_VERSION` to digest with (an older one gives the key of a run recorded
        under it).
        """
        data = self.to_dict()
        data["problem_options"] = {
            k: v for k, v in data["problem_options"].items() if k not in _LOCATION_OPTIONS
        }
        data["version"] = version
        return hashlib.sha256(_canonical(data).encode()).hexdigest()[:32]

    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :class:`bocvs_env.env.BOCVSEnv` for this run."""
        return {
            "problem": self.problem,
            "cost_set": self.cost_set,
            "variance": self.variance,
            "budget": self.budget,
            **self.problem_options,
        }

    def label(self) -> str:
        """A short human-readable name, for progress bars and errors."""
        return f"{self.problem}/{self.cost_set}/v{self.variance:g}/C{self.budget:g}/{self.agent}/s{self.seed}"


def _as_list(value: Any, name: str, kind: type | tuple[type, ...]) -> list[Any]:
    items = [value] if isinstance(value, (str, int, float)) else value
    if not isinstance(items, Sequence) or isinstance(items, str) or len(items) == 0:
        raise ValueError(f"{name} must be a non-empty list, got {value!r}")
    for v in items:
        if not isinstance(v, kind) or isinstance(v, bool):
            raise TypeError(f"{name} must hold {kind}, got {v!r}")
    return list(items)


#: The most seeds a sweep may have: each is a run of every agent on every panel, and the papers
#: use 5 to 10; 10^5 runs of one agent on one panel are already days of computing, so a count or
#: range beyond it is a typo (``--seeds 0-99999999999``), refused before it fills the memory.
MAX_SEEDS = 100_000


def _seeds(value: Sequence[int] | int) -> list[int]:
    """A sweep's seeds: a count ``n`` (``0..n-1``) or a list of distinct integers >= 0, at most
    :data:`MAX_SEEDS` of them."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= MAX_SEEDS:
            raise ValueError(f"seeds must be a count from 1 to {MAX_SEEDS}, got {value}")
        return list(range(value))
    if isinstance(value, Sequence) and len(value) > MAX_SEEDS:
        raise ValueError(f"a sweep has at most {MAX_SEEDS} seeds, got {len(value)}")
    seeds = _as_list(value, "seeds", int)
    if any(s < 0 for s in seeds):
        raise ValueError(f"seeds must be integers >= 0, got {seeds}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds repeat: {seeds}")
    return seeds


def check_run_timeout(value: Any) -> float | None:
    """A run's time limit in seconds (``None``: no limit), checked: a finite number > 0.

    Raises:
        ValueError: naming the value as given.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"run_timeout must be a number of seconds, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"run_timeout must be a finite number of seconds > 0, got {value!r}")
    return float(value)


def _check_name(name: Any) -> None:
    """A sweep's name: 1-100 letters, digits, ``.``, ``_`` or ``-``, starting with a letter or
    digit."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"a sweep's name is 1-100 letters, digits, '.', '_' or '-', starting with a "
            f"letter or digit (it names a plot folder, never a path), got {name!r}"
        )


def _known_names(value: Any, name: str, known: Mapping[str, Any], what: str) -> list[str]:
    """``value`` as a non-empty list of keys of ``known`` (``what`` names them in errors)."""
    names = _as_list(value, name, str)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {what} {unknown}; expected some of {sorted(known)}")
    return names


def _variances(value: Any) -> list[float]:
    """Input variances, each in ``(0, 1/12)``."""
    variances = [float(v) for v in _as_list(value, "variances", (int, float))]
    if not all(0 < v < UNIFORM_VARIANCE for v in variances):
        raise ValueError(f"variances must lie in (0, 1/12), got {variances}")
    return variances


def _budgets(value: Any) -> list[float] | None:
    """Budgets, each finite and positive; ``None`` stays ``None`` (each problem's default)."""
    if value is None:
        return None
    budgets = [float(b) for b in _as_list(value, "budgets", (int, float))]
    if not all(math.isfinite(b) and b > 0 for b in budgets):
        raise ValueError(f"budgets must be finite and positive, got {budgets}")
    return budgets


def _check_problem_options(options: Mapping[str, Any]) -> None:
    """Shared problem options may not set the sweep's own axes."""
    axes = sorted(_NOT_OPTIONS & set(options))
    if axes:
        raise ValueError(
            f"problem_options may not set {axes}: cost sets, variances and budgets are the "
            "sweep's own fields"
        )


def _check_agent_params(params: Mapping[str, Any], agents: list[str]) -> None:
    """Agent parameters may only name agents of the sweep."""
    stray = sorted(set(params) - set(agents))
    if stray:
        raise ValueError(f"agent_params names agents not in the sweep: {stray}")


@dataclass(frozen=True)
class SweepConfig:
    """A sweep: the grid of runs and its name.

    Attributes:
        name: the sweep's name, recorded in the store and naming its plot folder: 1-100
            letters, digits, ``.``, ``_`` or ``-``, starting with a letter or digit.
        problems: problem names.
        cost_sets: cost-set names.
        variances: input variances, in ``(0, 1/12)``.
        budgets: budgets (> 0); ``None`` for each problem's default budget.
        agents: agent names or ``"module:Class"`` paths, each optionally ``name@variant`` (an
            agent of its own with the parameters of ``agent_params["name@variant"]``; checked
            when the sweep runs).
        seeds: the seeds (integers >= 0); an int ``n`` means ``0..n-1``.
        agent_params: agent name -> keyword arguments.
        problem_options: keyword arguments of ``make_problem`` shared by all runs (not its
            sweep axes ``cost_set``, ``variance``, ``budget``, nor ``name`` or ``cost_model``).
        numerics: the numerics mode its runs are made in unless ``bocvs run --numerics`` or
            ``BOCVS_NUMERICS`` says otherwise (:func:`bocvs_env.numerics.worker_numerics`);
            ``None`` for the default, ``fast``. The sweeps meant for publishing say
            ``reproducible``. How the runs are computed, not which: not part of
            :meth:`digest`.
        run_timeout: seconds each run may take before its worker is killed and the run is
            recorded as failed (unless ``bocvs run --run-timeout`` says otherwise); ``None``:
            no limit. Not part of :meth:`digest` either.

    The fields are checked here; that the problems can be built with these options and the
    agents with these parameters is checked by :func:`bocvs_env.benchmark.sweep.check_sweep`.
    """

    name: str
    problems: Sequence[str]
    cost_sets: Sequence[str] = ("cheap",)
    variances: Sequence[float] = (0.02,)
    budgets: Sequence[float] | None = None
    agents: Sequence[str] = ("random",)
    seeds: Sequence[int] | int = 1
    agent_params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    problem_options: Mapping[str, Any] = field(default_factory=dict)
    numerics: Numerics | None = None
    run_timeout: float | None = None

    def __post_init__(self) -> None:
        _check_name(self.name)
        problems = _known_names(self.problems, "problems", PROBLEMS, "problems")
        cost_sets = _known_names(self.cost_sets, "cost_sets", COST_SETS, "cost sets")
        variances = _variances(self.variances)
        budgets = _budgets(self.budgets)
        agents = _as_list(self.agents, "agents", str)
        seeds = _seeds(self.seeds)
        _check_problem_options(self.problem_options)
        _check_agent_params(self.agent_params, agents)
        if self.numerics is not None:
            check_mode(self.numerics)
        object.__setattr__(self, "run_timeout", check_run_timeout(self.run_timeout))
        for attr, value in (
            ("problems", problems),
            ("cost_sets", cost_sets),
            ("variances", variances),
            ("budgets", budgets),
            ("agents", agents),
            ("seeds", seeds),
        ):
            object.__setattr__(self, attr, tuple(value) if value is not None else None)
        object.__setattr__(self, "agent_params", {k: dict(v) for k, v in self.agent_params.items()})
        object.__setattr__(self, "problem_options", dict(self.problem_options))

    def runs(self) -> list[RunConfig]:
        """Every run of the grid, in a fixed order (problems outermost, seeds innermost)."""
        options = {**_PROBLEM_DEFAULTS, **self.problem_options}
        seeds = _seeds(self.seeds)  # already a tuple (__post_init__); this narrows its type
        out = []
        for problem, cost_set, variance in itertools.product(
            self.problems, self.cost_sets, self.variances
        ):
            budgets = self.budgets or (PROBLEMS[problem].default_budget,)
            for budget, agent, seed in itertools.product(budgets, self.agents, seeds):
                out.append(
                    RunConfig(
                        problem=problem,
                        cost_set=cost_set,
                        variance=float(variance),
                        budget=float(budget),
                        agent=agent,
                        seed=int(seed),
                        agent_params=dict(self.agent_params.get(agent, {})),
                        problem_options=dict(options),
                    )
                )
        return out

    def keys(self) -> list[str]:
        """The configuration digests of :meth:`runs`, in the same order: how every report
        selects a sweep's runs from a store, whichever sweep recorded them (a run two sweeps
        share is recorded once)."""
        return [c.key() for c in self.runs()]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dictionary, as in a config file (without ``run_timeout`` when there
        is no limit, as the sweeps recorded before it existed)."""
        out = asdict(self)
        if out["run_timeout"] is None:
            del out["run_timeout"]
        for key in ("problems", "cost_sets", "variances", "budgets", "agents", "seeds"):
            out[key] = list(out[key]) if out[key] is not None else None
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SweepConfig:
        """Build from a mapping with the fields of :class:`SweepConfig`.

        Raises:
            ValueError: for unknown fields, a missing ``problems`` or a bad value.
            TypeError: for a value of the wrong type (e.g. a seed that is not an integer).
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown sweep fields {unknown}; expected some of {sorted(known)}")
        if "problems" not in data:
            raise ValueError("a sweep configuration needs 'problems'")
        return cls(**{"name": "sweep", **data})

    @classmethod
    def from_file(cls, path: str | Path) -> SweepConfig:
        """Read a ``.toml`` or ``.json`` config file (see the module docstring).

        Raises:
            FileNotFoundError: if the file does not exist.
            ValueError: for another suffix, a syntax error or bad fields.
            TypeError: for a value of the wrong type (as :meth:`from_dict`).
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no sweep config file at {path}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"sweep config {path} is not UTF-8 text: {err}") from None
        try:
            if path.suffix == ".toml":
                data = tomllib.loads(text)
            elif path.suffix == ".json":
                data = json.loads(text)
            else:
                raise ValueError(f"a sweep config file is .toml or .json, got {path.name}")
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"cannot parse sweep config {path}: {err}") from err
        if not isinstance(data, dict):
            raise ValueError(f"sweep config {path} must hold a table/object at the top level")
        return cls.from_dict({"name": path.stem, **data})

    def digest(self) -> str:
        """Eight hex digits of the definition, its name, numerics mode and time limit left
        out: equal definitions, equal digests (``budgets=None`` and the explicit default
        budgets define the same runs but differ as definitions)."""
        how = ("numerics", "run_timeout")
        data = {k: v for k, v in self.to_dict().items() if k not in how} | {"name": None}
        return hashlib.sha256(_canonical(data).encode()).hexdigest()[:8]

    def with_overrides(self, **overrides: Any) -> SweepConfig:
        """A copy with the given fields replaced (``None`` values are ignored)."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


#: The sweeps shipped with the package, by name (``bocvs run --preset NAME``).
SWEEP_PRESETS: dict[str, SweepConfig] = {
    # The paper's point in about two minutes on two idle cores: hartmann6 in 12-D with cheap
    # costs at budget 30, where ETC leaves exploration after ~60% of the budget and exploits the
    # cheaper set of the six relevant variables (at budget 10 it never gets there). Compare with
    # ``bocvs compare --preset quick --agent etc``.
    "quick": SweepConfig(
        name="quick",
        problems=("hartmann6_12d",),
        cost_sets=("cheap",),
        variances=(0.02,),
        budgets=(30.0,),
        agents=("etc", "ucb-psq", "random"),
        seeds=4,
        numerics="reproducible",  # the README's figures, on AVX2 machines of one CPU vendor
    ),
    # The AAAI 2025 paper's grid (Hoang, Nguyen & Tran), section "Experiments".
    "paper": SweepConfig(
        name="paper",
        problems=("hartmann6_12d", "ackley6_12d", "plant", "airfoil"),
        cost_sets=("cheap", "moderate"),
        variances=(0.02, 0.04),
        budgets=(100.0,),
        agents=("etc", "ucb-psq", "ts-psq", "etc-50", "random"),
        seeds=5,
        numerics="reproducible",
    ),
}


#: The former name of :data:`SWEEP_PRESETS`, kept as an alias for one minor version.
PRESETS = SWEEP_PRESETS


def preset(name: str) -> SweepConfig:
    """A shipped sweep by name.

    Raises:
        ValueError: for an unknown name.
    """
    try:
        return SWEEP_PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown preset {name!r}; expected one of {sorted(SWEEP_PRESETS)}"
        ) from None
