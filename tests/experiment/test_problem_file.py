"""The problem file: the issue's keys, values mapped to [0, 1], laws in the variables' units,
and one line naming the key and the value for every mistake, with no journal written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bocvs_env.experiment import Experiment, ProblemFileError
from bocvs_env.experiment.laws import MappedLaw
from bocvs_env.experiment.problem_file import ProcessSpec, parse_problem
from bocvs_env.experiment.variables import Variable

DATA = Path(__file__).parent / "data"
PROCESS_TOML = (DATA / "process.toml").read_text()


def write_process(folder: Path, text: str) -> Path:
    """``text`` as ``process.toml`` beside the example's ``flow.csv`` in ``folder``."""
    (folder / "flow.csv").write_text((DATA / "flow.csv").read_text())
    (folder / "process.toml").write_text(text)
    return folder / "process.toml"


def _spec(text: str = PROCESS_TOML, flow: str = "flow\n2.1\n3.5\n2.8\n4.0\n") -> ProcessSpec:
    return parse_problem(text, {"flow.csv": flow}.__getitem__)


def test_the_issues_file_is_read_in_its_units() -> None:
    spec = _spec()
    assert [v.name for v in spec.variables] == ["temperature", "flow", "ph"]
    assert spec.control_sets == ((0,), (1, 2), (0, 1, 2))
    assert (spec.budget, spec.alpha, spec.maximize, spec.lower_bound) == (20.0, 0.1, True, None)
    temperature, flow, ph = spec.distributions
    # The truncated normal's median is its mean (50, symmetric in [20, 80]): 0.5 on [0, 1].
    assert float(temperature.icdf(np.array(0.5))) == pytest.approx(0.5)
    # The empirical law's quantiles are the measurements', on the log scale of flow.
    assert float(flow.icdf(np.array(0.0))) == pytest.approx(np.log(2.1) / np.log(10.0))
    assert float(flow.icdf(np.array(1.0))) == pytest.approx(np.log(4.0) / np.log(10.0))
    assert float(ph.icdf(np.array(0.25))) == 0.25


def test_log_scale_maps_the_geometric_middle_to_one_half() -> None:
    v = Variable("flow", 1.0, 100.0, log=True)
    assert float(v.to_unit(10.0)) == pytest.approx(0.5)
    assert float(v.from_unit(0.5)) == pytest.approx(10.0)
    assert (float(v.from_unit(0.0)), float(v.from_unit(1.0))) == (1.0, 100.0)


def test_a_uniform_law_on_a_log_variable_is_uniform_in_its_units() -> None:
    law = MappedLaw(Variable("flow", 1.0, 100.0, log=True), "uniform")
    # Half of the values lie below 50.5 (the middle in units), mapped to log(50.5)/log(100).
    assert float(law.icdf(np.array(0.5))) == pytest.approx(np.log(50.5) / np.log(100.0))
    assert 0.5 < law.mean < 1.0


def test_a_variable_every_set_controls_needs_no_law() -> None:
    text = PROCESS_TOML.replace('random = { kind = "uniform" }\n', "").replace(
        '[["temperature"], ["flow", "ph"], ["temperature", "flow", "ph"]]',
        '[["temperature", "ph"], ["flow", "ph"]]',
    )
    assert len(_spec(text).distributions) == 3


def _replace(old: str, new: str) -> str:
    assert old in PROCESS_TOML
    return PROCESS_TOML.replace(old, new, 1)


#: A mistake -> the file's text with it, and what the one-line message names.
MISTAKES = {
    "not toml": ("[experiment\n", "not valid TOML"),
    "unknown table": (PROCESS_TOML + "[extra]\na = 1\n", "extra = {'a': 1}: unknown table"),
    "no budget": (_replace("budget = 20.0\n", ""), "[experiment].budget = None: is required"),
    "budget not a number": (_replace("budget = 20.0", 'budget = "20"'),
                            "[experiment].budget = '20': must be a number"),
    "budget negative": (_replace("budget = 20.0", "budget = -1.0"),
                        "[experiment].budget = -1.0: must be positive"),
    "budget infinite": (_replace("budget = 20.0", "budget = inf"),
                        "[experiment].budget = inf: must be finite"),
    "alpha out of range": (_replace("alpha = 0.1", "alpha = 1.5"),
                           "[experiment].alpha = 1.5: must be in [0, 1)"),
    "maximize not a bool": (_replace("maximize = true", 'maximize = "yes"'),
                            "[experiment].maximize = 'yes': must be true or false"),
    "unknown experiment key": (_replace("alpha = 0.1", "alpah = 0.1"),
                               "[experiment].alpah = 0.1: unknown key"),
    "lower bound not a number": (_replace("maximize = true", "maximize = true\nlower_bound = []"),
                                 "[experiment].lower_bound = []: must be a number"),
    "no variables": (PROCESS_TOML.split("[[variable]]")[0] + "[control_sets]\nsets = [['a']]\n",
                     "[[variable]] = None: needs at least one variable"),
    "variable without name": (_replace('name = "ph"\n', ""), "variable[2].name = None: is required"),
    "variable without low": (_replace("low = 4.0\n", ""), "variable[2].low = None: is required"),
    "empty name": (_replace('name = "ph"', 'name = ""'),
                   "variable[2].name = '': must be a non-empty string"),
    "high below low": (_replace("high = 9.0", "high = 3.0"),
                       "variable[2].high = 3.0: must be above low = 4.0"),
    "low not a number": (_replace("low = 4.0", "low = true"),
                         "variable[2].low = True: must be a number"),
    "log not a bool": (_replace("log = true", "log = 1"), "variable[1].log = 1: must be true or false"),
    "log of a non-positive low": (_replace("low = 1.0", "low = 0.0"),
                                  "variable[1].low = 0.0: must be positive on a log scale"),
    "unknown variable key": (_replace("high = 9.0", "high = 9.0\nunit = 'pH'"),
                             "variable[2].unit = 'pH': unknown key"),
    "same name twice": (_replace('name = "ph"', 'name = "flow"'),
                        "variable.name = 'flow': names two variables"),
    "unknown law": (_replace('kind = "uniform"', 'kind = "normal"'),
                    "variable[2].random.kind = 'normal': must be one of uniform, truncnorm, empirical"),
    "truncnorm without sd": (_replace(", sd = 8.0", ""),
                             "variable[0].random.sd = None: is required by a truncnorm law"),
    "truncnorm sd not positive": (_replace("sd = 8.0", "sd = 0.0"),
                                  "variable[0].random.sd = 0.0: must be positive"),
    "unknown law key": (_replace('kind = "uniform"', 'kind = "uniform", mean = 5.0'),
                        "variable[2].random.mean = 5.0: unknown key of a uniform law"),
    "csv missing": (_replace('csv = "flow.csv"', 'csv = "nope.csv"'),
                    "variable[1].random.csv = 'nope.csv': cannot be read"),
    "csv column missing": (_replace('column = "flow"', 'column = "rate"'),
                           "variable[1].random.column = 'rate': is not a column of the CSV file"),
    "no law for a variable left to chance": (_replace('random = { kind = "uniform" }\n', ""),
                                             "variable[2].random = None: 'ph' is left to chance"),
    "no control sets": (PROCESS_TOML.split("[control_sets]")[0],
                        "[control_sets] = None: must be a table"),
    "empty set list": (_replace('sets = [["temperature"], ["flow", "ph"], ["temperature", "flow", "ph"]]', "sets = []"),
                       "[control_sets].sets = []: must be a non-empty list"),
    "unknown variable in a set": (_replace('[["temperature"],', '[["temp"],'),
                                  "[control_sets].sets[0] = 'temp': is not a variable"),
    "variable twice in a set": (_replace('[["temperature"],', '[["temperature", "temperature"],'),
                                "[control_sets].sets[0] = ['temperature', 'temperature']: names a variable twice"),
    "set repeated": (_replace('["flow", "ph"]', '["temperature"]'),
                     "[control_sets].sets[1] = ['temperature']: repeats set 0"),
    "empty set": (_replace('["flow", "ph"]', "[]"), "[control_sets].sets[1] = []: must be a non-empty list"),
}  # fmt: skip

#: Mistakes in the CSV an empirical law reads -> its text and the message.
CSV_MISTAKES = {
    "not a number": ("flow\n2.0\nabc\n", "variable[1].random.csv = 'line 3: abc': is not a number"),
    "outside the bounds": ("flow\n2.0\n12.0\n", "variable[1].random.csv = 12.0: lies outside [1.0, 10.0]"),
    "one measurement": ("flow\n2.0\n", "variable[1].random.csv = 1: needs at least 2 measurements"),
    "not finite": ("flow\n2.0\nnan\n", "variable[1].random.csv = 'line 3: nan': is not finite"),
}  # fmt: skip


def _refused(path: Path, tmp_path: Path, expected: str) -> None:
    journal = tmp_path / "run.journal"
    with pytest.raises(ProblemFileError) as err:
        Experiment.create(journal, problem=path, agent="random")
    message = str(err.value)
    assert expected in message and "\n" not in message
    assert not journal.exists() and not list(tmp_path.glob(".run.journal*"))


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_mistake_in_the_file_is_one_line_and_nothing_is_stored(
    mistake: str, tmp_path: Path
) -> None:
    text, expected = MISTAKES[mistake]
    _refused(write_process(tmp_path, text), tmp_path, expected)


@pytest.mark.parametrize("mistake", sorted(CSV_MISTAKES))
def test_a_mistake_in_the_csv_is_one_line_and_nothing_is_stored(
    mistake: str, tmp_path: Path
) -> None:
    path = write_process(tmp_path, PROCESS_TOML)
    text, expected = CSV_MISTAKES[mistake]
    (tmp_path / "flow.csv").write_text(text)
    _refused(path, tmp_path, expected)
