"""The TOML problem file: a process described in its own units (see docs/own-process.md).

::

    [experiment]
    budget = 20.0            # in the cost's units
    alpha = 0.1              # the paper's tolerance (optional)
    maximize = true          # optional, default true
    lower_bound = 0.0        # optional: the maximized value never falls below it
    name = "my process"      # optional

    [[variable]]
    name = "temperature"
    low = 20.0
    high = 80.0
    log = false              # optional
    random = { kind = "truncnorm", mean = 50.0, sd = 8.0 }

    [control_sets]
    sets = [["temperature"], ...]

Laws (``random``) are ``uniform``, ``truncnorm`` (``mean``, ``sd``) or ``empirical`` (``csv``, a
path relative to the problem file, and ``column``), in the variable's units
(:mod:`bocvs_env.experiment.laws`); a variable that every set controls needs none. Every mistake
raises :class:`ProblemFileError`, one line naming the key and the value as given.
"""

from __future__ import annotations

import csv
import io
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from bocvs_env.experiment.laws import KINDS, MappedLaw
from bocvs_env.experiment.variables import Variable
from bocvs_env.problems.distributions import InputDistribution, Uniform


class ProblemFileError(ValueError):
    """A mistake in a problem file; the message names the key and the value."""


@dataclass(frozen=True)
class ProcessSpec:
    """A problem file, checked.

    Attributes:
        name: the process's name (the file's ``name``, else its file name).
        budget: what the experiment may spend, in the cost's units.
        alpha: the tolerance, given to agents that take ``alpha0``; ``None`` if the file has none.
        maximize: whether larger ``y`` is better.
        lower_bound: a value the maximized quantity (``y``, or ``-y`` when not maximizing)
            never falls below; ``None`` if the file has none (then it is estimated,
            :func:`bocvs_env.experiment.values.estimated_lower_bound`).
        variables: the ``d`` variables in file order.
        distributions: their ``d`` laws on ``[0, 1]`` (uniform for one every set controls).
        control_sets: ``m`` sorted tuples of variable indices.
    """

    name: str
    budget: float
    alpha: float | None
    maximize: bool
    lower_bound: float | None
    variables: tuple[Variable, ...]
    distributions: tuple[InputDistribution, ...]
    control_sets: tuple[tuple[int, ...], ...]


_EXPERIMENT_KEYS = {"budget", "alpha", "maximize", "lower_bound", "name"}
_VARIABLE_KEYS = {"name", "low", "high", "log", "random"}
_LAW_KEYS = {"uniform": {"kind"}, "truncnorm": {"kind", "mean", "sd"},
             "empirical": {"kind", "csv", "column"}}  # fmt: skip


def _fail(key: str, value: Any, problem: str) -> ProblemFileError:
    return ProblemFileError(f"{key} = {value!r}: {problem}")


def _number(table: dict[str, Any], key: str, where: str) -> float:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(f"{where}.{key}", value, "must be a number")
    if not math.isfinite(value):
        raise _fail(f"{where}.{key}", value, "must be finite")
    return float(value)


def _table(data: dict[str, Any], key: str, allowed: set[str], where: str) -> dict[str, Any]:
    table = data.get(key)
    if not isinstance(table, dict):
        raise _fail(where, table, "must be a table")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise _fail(f"{where}.{unknown[0]}", table[unknown[0]], f"unknown key (known: "
                    f"{', '.join(sorted(allowed))})")  # fmt: skip
    return table


def _experiment(data: dict[str, Any]) -> dict[str, Any]:
    exp = _table(data, "experiment", _EXPERIMENT_KEYS, "[experiment]")
    if "budget" not in exp:
        raise _fail("[experiment].budget", None, "is required (the total cost, in its units)")
    out: dict[str, Any] = {"budget": _number(exp, "budget", "[experiment]")}
    if out["budget"] <= 0:
        raise _fail("[experiment].budget", exp["budget"], "must be positive")
    out["alpha"] = _number(exp, "alpha", "[experiment]") if "alpha" in exp else None
    if out["alpha"] is not None and not 0.0 <= out["alpha"] < 1.0:
        raise _fail("[experiment].alpha", exp["alpha"], "must be in [0, 1)")
    maximize = exp.get("maximize", True)
    if not isinstance(maximize, bool):
        raise _fail("[experiment].maximize", maximize, "must be true or false")
    out["maximize"] = maximize
    has_bound = "lower_bound" in exp
    out["lower_bound"] = _number(exp, "lower_bound", "[experiment]") if has_bound else None
    name = exp.get("name", "")
    if not isinstance(name, str):
        raise _fail("[experiment].name", name, "must be a string")
    out["name"] = name
    return out


def _variable(k: int, table: Any) -> Variable:
    where = f"variable[{k}]"
    if not isinstance(table, dict):
        raise _fail(where, table, "must be a table")
    unknown = sorted(set(table) - _VARIABLE_KEYS)
    if unknown:
        raise _fail(f"{where}.{unknown[0]}", table[unknown[0]], "unknown key (known: "
                    f"{', '.join(sorted(_VARIABLE_KEYS))})")  # fmt: skip
    for key in ("name", "low", "high"):
        if key not in table:
            raise _fail(f"{where}.{key}", None, "is required")
    name = table["name"]
    if not isinstance(name, str) or not name.strip():
        raise _fail(f"{where}.name", name, "must be a non-empty string")
    low, high = _number(table, "low", where), _number(table, "high", where)
    if not low < high:
        raise _fail(f"{where}.high", table["high"], f"must be above low = {table['low']!r}")
    log = table.get("log", False)
    if not isinstance(log, bool):
        raise _fail(f"{where}.log", log, "must be true or false")
    if log and low <= 0:
        raise _fail(f"{where}.low", table["low"], "must be positive on a log scale (log = true)")
    return Variable(name, low, high, log)


def _column(text: str, column: str, where: str) -> list[float]:
    """The numbers of ``column`` in CSV ``text``."""
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or column not in rows[0]:
        raise _fail(f"{where}.column", column, "is not a column of the CSV file")
    values = []
    for n, row in enumerate(rows, 2):
        try:
            value = float(row[column])
        except (TypeError, ValueError):
            raise _fail(f"{where}.csv", f"line {n}: {row[column]}", "is not a number") from None
        if not math.isfinite(value):
            raise _fail(f"{where}.csv", f"line {n}: {row[column]}", "is not finite")
        values.append(value)
    if len(values) < 2:
        raise _fail(f"{where}.csv", len(values), "needs at least 2 measurements")
    return sorted(values)


def _law_kind(where: str, law: Any) -> str:
    """The kind of law table ``law``, its keys checked."""
    if not isinstance(law, dict) or law.get("kind") not in KINDS:
        given = law.get("kind") if isinstance(law, dict) else law
        raise _fail(f"{where}.kind", given, f"must be one of {', '.join(KINDS)}")
    kind = str(law["kind"])
    unknown = sorted(set(law) - _LAW_KEYS[kind])
    if unknown:
        raise _fail(f"{where}.{unknown[0]}", law[unknown[0]], f"unknown key of a {kind} law")
    missing = sorted(_LAW_KEYS[kind] - set(law))
    if missing:
        raise _fail(f"{where}.{missing[0]}", None, f"is required by a {kind} law")
    return kind


def _empirical(
    where: str, var: Variable, law: dict[str, Any], read: Callable[[str], str]
) -> MappedLaw:
    """An empirical law: the measurements of ``law``'s CSV column, inside the bounds."""
    if not isinstance(law["csv"], str) or not isinstance(law["column"], str):
        raise _fail(f"{where}.csv", law["csv"], "csv and column must be strings")
    try:
        text = read(law["csv"])
    except OSError as err:
        raise _fail(f"{where}.csv", law["csv"], f"cannot be read ({err.strerror})") from None
    values = _column(text, law["column"], where)
    outside = [v for v in values if not var.inside(v)]
    if outside:
        raise _fail(f"{where}.csv", outside[0], f"lies outside [{var.low!r}, {var.high!r}]")
    return MappedLaw(var, "empirical", tuple(values))


def _law(k: int, var: Variable, law: Any, read: Callable[[str], str]) -> InputDistribution:
    where = f"variable[{k}].random"
    kind = _law_kind(where, law)
    if kind == "uniform":
        return Uniform() if not var.log else MappedLaw(var, kind)
    if kind == "truncnorm":
        mean, sd = _number(law, "mean", where), _number(law, "sd", where)
        if sd <= 0:
            raise _fail(f"{where}.sd", law["sd"], "must be positive")
        return MappedLaw(var, kind, (mean, sd))
    return _empirical(where, var, law, read)


def _laws(
    variables: list[Variable],
    tables: list[Any],
    sets: tuple[tuple[int, ...], ...],
    read: Callable[[str], str],
) -> tuple[InputDistribution, ...]:
    """Each variable's law on ``[0, 1]``: its ``random``, or uniform (never drawn) for one that
    every set controls."""
    laws: list[InputDistribution] = []
    for k, (var, table) in enumerate(zip(variables, tables, strict=True)):
        if "random" in table:
            laws.append(_law(k, var, table["random"], read))
        elif any(k not in s for s in sets):
            raise _fail(f"variable[{k}].random", None, f"{var.name!r} is left to chance by some "
                        "set, so it needs a law (uniform, truncnorm or empirical)")  # fmt: skip
        else:
            laws.append(Uniform())
    return tuple(laws)


def _toml(text: str) -> dict[str, Any]:
    """The TOML document, its tables checked."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ProblemFileError(f"not valid TOML: {err}") from None
    unknown = sorted(set(data) - {"experiment", "variable", "control_sets"})
    if unknown:
        raise _fail(unknown[0], data[unknown[0]], "unknown table (known: experiment, variable, "
                    "control_sets)")  # fmt: skip
    return data


def _control_sets(data: dict[str, Any], names: list[str]) -> tuple[tuple[int, ...], ...]:
    table = _table(data, "control_sets", {"sets"}, "[control_sets]")
    sets = table.get("sets")
    if not isinstance(sets, list) or not sets:
        raise _fail("[control_sets].sets", sets, "must be a non-empty list of lists of names")
    out: list[tuple[int, ...]] = []
    for k, s in enumerate(sets):
        key = f"[control_sets].sets[{k}]"
        if not isinstance(s, list) or not s:
            raise _fail(key, s, "must be a non-empty list of variable names")
        unknown = [v for v in s if v not in names]
        if unknown:
            raise _fail(key, unknown[0], f"is not a variable (variables: {', '.join(names)})")
        if len(set(s)) != len(s):
            raise _fail(key, s, "names a variable twice")
        idx = tuple(sorted(names.index(v) for v in s))
        if idx in out:
            raise _fail(key, s, f"repeats set {out.index(idx)}")
        out.append(idx)
    return tuple(out)


def parse_problem(
    text: str, read: Callable[[str], str], default_name: str = "process"
) -> ProcessSpec:
    """Check a problem file's text.

    Args:
        text: the TOML text.
        read: returns the text of a file the problem names (a CSV), by its path relative to
            the problem file.
        default_name: the name when the file gives none.

    Raises:
        ProblemFileError: for the first mistake, naming the key and the value.
    """
    data = _toml(text)
    exp = _experiment(data)
    tables = data.get("variable")
    if not isinstance(tables, list) or not tables:
        raise _fail("[[variable]]", tables, "needs at least one variable")
    variables = [_variable(k, t) for k, t in enumerate(tables)]
    names = [v.name for v in variables]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise _fail("variable.name", twice, "names two variables")
    sets = _control_sets(data, names)
    return ProcessSpec(
        name=exp["name"] or default_name,
        budget=exp["budget"],
        alpha=exp["alpha"],
        maximize=exp["maximize"],
        lower_bound=exp["lower_bound"],
        variables=tuple(variables),
        distributions=_laws(variables, tables, sets, read),
        control_sets=sets,
    )
