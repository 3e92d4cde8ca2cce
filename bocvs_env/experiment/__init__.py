"""Ask/tell experiments: the paper's agents on a process of one's own (docs/own-process.md).

:class:`Experiment` journals every suggestion and answer (:mod:`.journal`) and resumes where
it stopped; a process is described by a TOML problem file (:mod:`.problem_file`), or is a
built-in problem; :mod:`.operator` simulates the person answering.
"""

from bocvs_env.experiment.experiment import Experiment
from bocvs_env.experiment.journal import JournalError
from bocvs_env.experiment.loop import Answer, Suggestion, TellError
from bocvs_env.experiment.problem_file import ProblemFileError

__all__ = ["Answer", "Experiment", "JournalError", "ProblemFileError", "Suggestion", "TellError"]
