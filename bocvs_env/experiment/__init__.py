"""Ask/tell experiments: the paper's agents on a process of one's own (docs/own-process.md).

:class:`Experiment` journals every suggestion and answer (:mod:`.journal`) and resumes where
it stopped; a process is described by a TOML problem file (:mod:`.problem_file`), or is a
built-in problem; :mod:`.operator` simulates the person answering. The names below load on
first use (:mod:`bocvs_env.lazy`), so that the ``bocvs`` command starts without SciPy or torch.
"""

from typing import TYPE_CHECKING

from bocvs_env.lazy import lazy_exports

if TYPE_CHECKING:
    from bocvs_env.experiment.experiment import Experiment
    from bocvs_env.experiment.journal import JournalError
    from bocvs_env.experiment.loop import Answer, Suggestion, TellError
    from bocvs_env.experiment.problem_file import ProblemFileError

__getattr__, __dir__ = lazy_exports(
    globals(),
    {
        "Experiment": "bocvs_env.experiment.experiment",
        "JournalError": "bocvs_env.experiment.journal",
        "Answer": "bocvs_env.experiment.loop",
        "Suggestion": "bocvs_env.experiment.loop",
        "TellError": "bocvs_env.experiment.loop",
        "ProblemFileError": "bocvs_env.experiment.problem_file",
    },
)

__all__ = ["Answer", "Experiment", "JournalError", "ProblemFileError", "Suggestion", "TellError"]
