"""``Experiment``: the paper's agents on a process of one's own, by ask and tell, journaled.

An experiment holds a process (a task built from a problem file, or a built-in problem), an
agent built by name (:mod:`bocvs_env.agent_registration`, as the benchmark harness builds
them) and a journal (:mod:`bocvs_env.experiment.journal`). ``ask`` is the agent's ``act``;
``tell`` builds the observation the environment would have and calls ``observe``
(:mod:`bocvs_env.experiment.loop`). An agent that can save its state has it journaled after
each tell; reopening a journal rebuilds the agent, loads its last saved state and replays only
the answers after it (all of them for an agent without that support), checking that each
replayed suggestion is the journaled one, so the next suggestion is the one an uninterrupted
run would give, bit for bit on one machine (:mod:`bocvs_env.experiment.resume`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bocvs_env.experiment.journal import Journal, JournalError
from bocvs_env.experiment.loop import Loop, Suggestion
from bocvs_env.experiment.process import ProblemSource, build_process
from bocvs_env.experiment.resume import resume, save_agent_state

if TYPE_CHECKING:
    from bocvs_env.benchmark.trust import Allowed

FORMAT = "bocvs experiment journal"


def problem_source(problem: str | Path, options: Mapping[str, Any] | None = None) -> ProblemSource:
    """The source of ``problem``: a TOML problem file (the files it names read beside it), or
    the name of a built-in problem with the keyword arguments of ``gymnasium.make``.

    Raises:
        ValueError: for options given with a problem file.
        OSError: for a problem file that cannot be read.
    """
    path = Path(problem)
    if path.suffix == ".toml" or path.is_file():
        if options:
            raise ValueError(f"options {sorted(options)} are for built-in problems, not {path}")
        attachments: dict[str, str] = {}

        def read(name: str) -> str:
            attachments[name] = (path.parent / name).read_text()
            return attachments[name]

        from bocvs_env.experiment.problem_file import parse_problem

        text = path.read_text()
        parse_problem(text, read)  # checks the file, reading what it names
        return ProblemSource("file", path.name, text, attachments)
    return ProblemSource("builtin", str(problem), options=dict(options or {}))


def _build_agent(name: str, params: Mapping[str, Any], defaults: Mapping[str, Any]) -> Any:
    """Agent ``name`` with ``params``, and the process's ``defaults`` that it takes.

    Raises:
        ValueError: for an unknown agent, or one that needs privileged knowledge.
    """
    from bocvs_env.agent_registration import (
        accepted_params,
        agent_class,
        make_agent,
        privileged_params,
    )

    wanted = privileged_params(agent_class(name))
    if wanted:
        raise ValueError(f"agent {name!r} needs privileged knowledge {list(wanted)} that a "
                         "process does not give (the true mean costs): choose another agent")  # fmt: skip
    accepted = accepted_params(name)
    taken = {k: v for k, v in defaults.items() if accepted is None or k in accepted}
    return make_agent(name, **{**taken, **params})


class Experiment:
    """An ask/tell experiment over a journal; build it with :meth:`create` or :meth:`open`::

    exp = Experiment.create("run.journal", problem="process.toml", agent="etc", seed=0)
    s = exp.ask()  # s.set_values: what to set; s.leave_random: what to measure
    exp.tell(s, measured={"flow": 3.2, "ph": 6.1}, y=0.71, cost=1.5)
    """

    def __init__(
        self, journal: Journal, loop: Loop, header: dict[str, Any], resumed_by: str
    ) -> None:
        self.journal, self._loop, self.header = journal, loop, header
        #: How the agent's state was restored: ``"new"`` (created), ``"state"`` (its last
        #: saved state, then the tells after it) or ``"replay"`` of the whole journal
        #: (:mod:`~bocvs_env.experiment.resume`).
        self.resumed_by = resumed_by

    @classmethod
    def create(
        cls,
        path: str | Path,
        problem: str | Path,
        agent: str,
        seed: int = 0,
        params: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Experiment:
        """Start an experiment and its journal at ``path`` (a new file).

        Args:
            path: the journal to create.
            problem: a TOML problem file, or a built-in problem's name.
            agent: a registered agent name or ``"module:Class"``.
            seed: the agent's seed (and, for a built-in problem, its environment's).
            params: the agent's keyword arguments.
            options: for a built-in problem, ``gymnasium.make``'s keyword arguments
                (``budget``, ``cost_set``, ...).

        Raises:
            ProblemFileError: for a mistake in the problem file.
            JournalError: if ``path`` exists.
            ValueError: for an unknown agent or problem, or a bad parameter.
        """
        from bocvs_env.benchmark.versions import this_version
        from bocvs_env.numerics import use_requested_numerics

        use_requested_numerics()
        if Path(path).exists():
            raise JournalError(f"{path} exists: open it, or choose another path")
        source = problem_source(problem, options)
        process = build_process(source, seed)
        loop = Loop(process, _build_agent(agent, params or {}, process.agent_options), seed)
        header = {
            "format": FORMAT,
            "problem": source.to_json(),
            "problem_digest": source.digest(),
            "agent": agent,
            "params": dict(params or {}),
            "seed": seed,
            "code_version": this_version(),
        }
        return cls(Journal.create(Path(path), header), loop, header, "new")

    @classmethod
    def open(cls, path: str | Path, allowed: Allowed | None = None) -> Experiment:
        """Reopen the experiment of journal ``path``, from the agent's saved state or by replay.

        A journal is data: the agent it names is built only if it is registered, or if
        ``allowed`` (the user's ``--allow-agent`` / ``--allow-model``) names its ``module:Class``
        and any model file its parameters name (:mod:`bocvs_env.benchmark.trust`).

        Raises:
            JournalError: for a file that is not a journal, or a replay that does not give the
                journaled suggestions (other code, or another machine's numerics).
            ValueError: for an agent or a model file that ``allowed`` does not allow, before
                anything is imported.
        """
        from bocvs_env.benchmark.trust import Allowed, check_recorded_agent
        from bocvs_env.benchmark.versions import this_version
        from bocvs_env.numerics import use_requested_numerics

        use_requested_numerics()
        journal = Journal.open(Path(path))
        header = journal.header()
        if header.get("format") != FORMAT:
            raise JournalError(
                f"{path} is not an experiment journal (format {header.get('format')!r})"
            )
        check_recorded_agent(header["agent"], header["params"], f"journal {path}",
                             allowed or Allowed())  # fmt: skip
        source = ProblemSource.from_json(header["problem"])
        process = build_process(source, header["seed"])
        agent = _build_agent(header["agent"], header["params"], process.agent_options)
        loop = Loop(process, agent, header["seed"])
        refusal = (f"agent {header['agent']!r} journaled by {header['code_version']}, this "
                   f"code is {this_version()}: reopen it with the code that wrote it")  # fmt: skip
        return cls(journal, loop, header, resume(loop, journal, refusal))

    def close(self) -> None:
        """Close the journal."""
        self.journal.close()

    def __enter__(self) -> Experiment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def task(self) -> Any:
        """The task the agent was given (:class:`~bocvs_env.task.Task`)."""
        return self._loop.task

    @property
    def maximize(self) -> bool:
        """Whether larger ``y`` is better."""
        return self._loop.process.maximize

    @property
    def variables(self) -> tuple[Any, ...]:
        """The process's variables (:class:`~bocvs_env.experiment.variables.Variable`)."""
        return self._loop.process.variables

    def ask(self) -> Suggestion:
        """The next suggestion (journaled), or the pending one again.

        Raises:
            TellError: when the experiment is done.
        """
        pending = self._loop.pending
        s = self._loop.ask()
        if s is not pending:
            self.journal.add_suggestion(s)
        return s

    def tell(
        self,
        suggestion: Suggestion | int,
        measured: Mapping[str, float] | None = None,
        *,
        y: float,
        cost: float,
    ) -> None:
        """Answer the pending suggestion: the measured values of the variables it left to
        chance (in their units), the outcome ``y`` and the cost paid.

        The answer is journaled before the agent learns from it. A cost above what is left of
        the budget ends the experiment, unevaluated, as the environment's last step.

        Raises:
            TellError: for a bad answer (see :meth:`~bocvs_env.experiment.loop.Loop.check`);
                nothing is stored then.
        """
        answer = self._loop.check(suggestion, measured or {}, y, cost)
        self.journal.add_answer(answer)
        self._loop.apply(answer)
        save_agent_state(self._loop, self.journal, answer.number)

    @property
    def spent(self) -> float:
        """The cost spent, in the cost's units."""
        return self._loop.ledger.spent

    @property
    def remaining(self) -> float:
        """What is left of the budget."""
        return self._loop.ledger.remaining

    @property
    def done(self) -> bool:
        """Whether the budget has ended the experiment."""
        return self._loop.done

    @property
    def pending(self) -> Suggestion | None:
        """The suggestion asked and not yet answered, if any."""
        return self._loop.pending

    def history(self) -> Any:
        """Every suggestion and answer as a ``pandas.DataFrame``, one row per suggestion
        (:func:`bocvs_env.experiment.report.history_frame`)."""
        from bocvs_env.experiment.report import history_frame

        return history_frame(self.journal.entries(), self.task, self.variables)

    def recommendation(self) -> Any:
        """The set and values of the best posterior expected value, with its interval
        (:func:`bocvs_env.experiment.recommendation.recommend`)."""
        from bocvs_env.experiment.recommendation import recommend

        return recommend(self.history(), self.task, self.variables, self._loop.process)

    def status(self) -> Any:
        """Budget spent and left, plays and spend per set, and the belief of ``i*``
        (:class:`bocvs_env.experiment.report.Status`)."""
        from bocvs_env.experiment.report import status_of

        return status_of(self._loop, self.history(), self.resumed_by)
