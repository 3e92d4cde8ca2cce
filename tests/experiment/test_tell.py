"""Ask and tell on a problem file: what a suggestion says, what ``tell`` refuses (one line,
nothing stored), the budget's end, and reopening a journal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bocvs_env.experiment import Experiment, JournalError, TellError
from bocvs_env.experiment import experiment as experiment_module
from bocvs_env.experiment.journal import Journal
from bocvs_env.experiment.loop import Loop
from bocvs_env.experiment.plot import best_so_far
from bocvs_env.experiment.process import ProblemSource, build_process


def _rows(journal: Path) -> tuple[int, int]:
    """Suggestions and answers in the journal file."""
    with sqlite3.connect(journal) as conn:
        asked = conn.execute("SELECT COUNT(*) FROM suggestions").fetchone()[0]
        told = conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    return asked, told


def _measured(exp: Experiment, s: Any) -> dict[str, float]:
    """Mid-range values of the variables ``s`` leaves to chance."""
    return {v.name: (v.low + v.high) / 2 for v in exp.variables if v.name in s.leave_random}


def test_a_suggestion_says_what_to_set_and_what_to_measure(
    process_file: Path, tmp_path: Path
) -> None:
    with Experiment.create(tmp_path / "j", problem=process_file, agent="random", seed=0) as exp:
        s = exp.ask()
        assert exp.ask() is s  # pending: the same suggestion
        names = {v.name: v for v in exp.variables}
        assert set(s.set_values) | set(s.leave_random) == set(names)
        assert not set(s.set_values) & set(s.leave_random)
        for name, value in s.set_values.items():
            assert names[name].low <= value <= names[name].high
        assert (exp.spent, exp.remaining, exp.done) == (0.0, 20.0, False)
        exp.tell(s, _measured(exp, s), y=0.5, cost=2.5)
        assert (exp.spent, exp.remaining) == (2.5, 17.5)
        assert exp.ask().number == 2


def _bad_tells(exp: Experiment) -> dict[str, tuple[Any, str]]:
    """A bad ``tell`` -> a call making it, and what its one-line message says."""
    s = exp.pending
    assert s is not None and s.leave_random
    name = s.leave_random[0]
    var = next(v for v in exp.variables if v.name == name)
    good = _measured(exp, s)
    return {
        "out of bounds": (lambda: exp.tell(s, {**good, name: var.high + 1}, y=1.0, cost=1.0),
                          f"measured {name!r} = {var.high + 1!r}: outside its bounds"),
        "measured NaN": (lambda: exp.tell(s, {**good, name: float("nan")}, y=1.0, cost=1.0),
                         f"measured {name!r} = nan: must be finite"),
        "y NaN": (lambda: exp.tell(s, good, y=float("nan"), cost=1.0), "y = nan: must be finite"),
        "cost infinite": (lambda: exp.tell(s, good, y=1.0, cost=float("inf")),
                          "cost = inf: must be finite"),
        "cost negative": (lambda: exp.tell(s, good, y=1.0, cost=-1.0), "cost = -1.0: must be >= 0"),
        "y not a number": (lambda: exp.tell(s, good, y="high", cost=1.0),  # type: ignore[arg-type]
                           "y = 'high': must be a number"),
        "a value missing": (lambda: exp.tell(s, {}, y=1.0, cost=1.0),
                            f"measured {sorted(s.leave_random)[0]!r} is missing"),
        "a set variable measured": (lambda: exp.tell(s, {**good, **s.set_values}, y=1.0, cost=1.0),
                                    "not left to chance by this suggestion"),
        "an old suggestion": (lambda: exp.tell(s.number - 1, good, y=1.0, cost=1.0),
                              f"suggestion {s.number - 1} is not the pending one ({s.number})"),
    }  # fmt: skip


BAD = ("out of bounds", "measured NaN", "y NaN", "cost infinite", "cost negative",
       "y not a number", "a value missing", "a set variable measured", "an old suggestion")  # fmt: skip


@pytest.mark.parametrize("bad", BAD)
def test_a_bad_tell_is_one_line_and_nothing_is_stored(
    bad: str, process_file: Path, tmp_path: Path
) -> None:
    journal = tmp_path / "j"
    with Experiment.create(journal, problem=process_file, agent="random", seed=0) as exp:
        first = exp.ask()
        exp.tell(first, _measured(exp, first), y=0.5, cost=1.0)
        while not (s := exp.ask()).leave_random:  # one that leaves something to chance
            exp.tell(s, {}, y=0.5, cost=1.0)
        before = _rows(journal), exp.spent
        call, expected = _bad_tells(exp)[bad]
        with pytest.raises(TellError) as err:
            call()
        assert expected in str(err.value) and "\n" not in str(err.value)
        assert (_rows(journal), exp.spent) == before
        exp.tell(s, _measured(exp, s), y=0.5, cost=1.0)  # the loop goes on
        assert exp.pending is None


def test_tell_without_a_pending_suggestion_is_refused(process_file: Path, tmp_path: Path) -> None:
    with Experiment.create(tmp_path / "j", problem=process_file, agent="random") as exp:
        with pytest.raises(TellError, match="no suggestion is pending: ask first"):
            exp.tell(1, {}, y=1.0, cost=1.0)
        assert _rows(tmp_path / "j") == (0, 0)


def test_the_budget_ends_the_experiment_as_in_the_environment(
    process_file: Path, tmp_path: Path
) -> None:
    with Experiment.create(tmp_path / "j", problem=process_file, agent="random") as exp:
        for _ in range(3):
            s = exp.ask()
            exp.tell(s, _measured(exp, s), y=1.0, cost=6.0)
        s = exp.ask()
        exp.tell(s, _measured(exp, s), y=9.0, cost=2.5)  # 2 left: not paid, the last play
        assert exp.done and exp.spent == 18.0 and exp.remaining == 2.0
        history = exp.history()
        assert list(history["evaluated"]) == [True, True, True, False]
        with pytest.raises(TellError, match="the experiment is done"):
            exp.tell(s, _measured(exp, s), y=1.0, cost=1.0)
        with pytest.raises(TellError, match="the experiment is done"):
            exp.ask()
        assert _rows(tmp_path / "j") == (4, 4)


@pytest.mark.parametrize(
    ("agent", "resumed_by"),
    [("etc", "state"), ("etc", "replay"), ("ei-cost", "state"), ("sadcbo", "state"),
     ("ucb-cvs-est", "state"), ("pbgi-sets", "state")],
)  # fmt: skip
def test_reopening_resumes_to_the_same_next_suggestion(
    process_file: Path, tmp_path: Path, agent: str, resumed_by: str
) -> None:
    def play(exp: Experiment, n: int) -> None:
        for k in range(n):
            s = exp.ask()
            exp.tell(s, _measured(exp, s), y=0.1 * k, cost=1.0)

    with Experiment.create(tmp_path / "a", problem=process_file, agent=agent, seed=2) as a:
        play(a, 4)
        uninterrupted = a.ask()
    with Experiment.create(tmp_path / "b", problem=process_file, agent=agent, seed=2) as b:
        play(b, 4)
    if resumed_by == "replay":  # a journal without a kept state is replayed from the start
        with sqlite3.connect(tmp_path / "b") as conn:
            conn.execute("DELETE FROM agent_states")
    with Experiment.open(tmp_path / "b") as b:
        resumed = b.ask()
        assert b.resumed_by == resumed_by and b.spent == 4.0
    assert resumed.number == uninterrupted.number == 5
    assert resumed.control_set == uninterrupted.control_set
    assert resumed.x.tobytes() == uninterrupted.x.tobytes()


def test_a_journal_that_replays_otherwise_is_refused(process_file: Path, tmp_path: Path) -> None:
    journal = tmp_path / "j"
    with Experiment.create(journal, problem=process_file, agent="random", seed=0) as exp:
        s = exp.ask()
        exp.tell(s, _measured(exp, s), y=1.0, cost=1.0)
    with sqlite3.connect(journal) as conn:
        conn.execute("UPDATE suggestions SET x = '[0.5, 0.5, 0.5]'")
        conn.execute("DELETE FROM agent_states")  # so the tampered suggestion is replayed
    with pytest.raises(JournalError, match="gives another suggestion 1 than the journal's"):
        Experiment.open(journal)


def test_another_file_is_not_opened_as_a_journal(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a journal, but long enough to have a header " * 3)
    with pytest.raises(JournalError, match="is not an experiment journal"):
        Experiment.open(tmp_path / "notes.txt")
    with pytest.raises(JournalError, match="no such journal"):
        Experiment.open(tmp_path / "missing")


def test_an_existing_journal_is_never_overwritten(process_file: Path, tmp_path: Path) -> None:
    Experiment.create(tmp_path / "j", problem=process_file, agent="random").close()
    with pytest.raises(JournalError, match="exists"):
        Experiment.create(tmp_path / "j", problem=process_file, agent="random")


def test_the_recommendation_is_a_played_set_with_its_interval(
    process_file: Path, tmp_path: Path
) -> None:
    with Experiment.create(tmp_path / "j", problem=process_file, agent="random", seed=0) as exp:
        assert exp.recommendation() is None
        for _ in range(6):
            s = exp.ask()
            values = {**s.set_values, **_measured(exp, s)}
            exp.tell(s, _measured(exp, s), y=values["ph"] / 9.0, cost=1.0)
        r = exp.recommendation()
        assert r is not None and r.low <= r.expected <= r.high
        assert set(r.set_values) == {
            exp.variables[l].name for l in exp.task.control_sets[r.control_set]
        }
        status = exp.status()
        assert status.best == r and status.tells == 6
        assert "belief of i*" in status.text()


def test_an_agent_needing_privileged_knowledge_is_refused(
    process_file: Path, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="needs privileged knowledge \\['costs'\\]"):
        Experiment.create(tmp_path / "j", problem=process_file, agent="ucb-cvs")
    assert not (tmp_path / "j").exists()


def test_an_agent_state_is_kept_as_arrays_and_json(process_file: Path, tmp_path: Path) -> None:
    with Experiment.create(tmp_path / "j", problem=process_file, agent="random") as exp:
        assert exp.journal.latest_state() is None
        s = exp.ask()
        exp.tell(s, _measured(exp, s), y=1.0, cost=1.0)
        exp.journal.save_state(
            1, {"counts": np.arange(3), "bars": np.ones((2, 2))}, {"phase": "explore"}
        )
        with pytest.raises(ValueError, match="an array of objects needs a pickle"):
            exp.journal.save_state(1, {"bad": np.array([{}], dtype=object)}, {})
    journal = Journal.open(tmp_path / "j")
    state = journal.latest_state()
    journal.close()
    assert state is not None
    number, arrays, meta = state
    assert number == 1 and meta == {"phase": "explore"}
    np.testing.assert_array_equal(arrays["counts"], np.arange(3))
    np.testing.assert_array_equal(arrays["bars"], np.ones((2, 2)))


class _Recorder:
    """An agent that plays the full set at the middle and keeps the rewards it observes."""

    name = "recorder"

    def reset(self, task: Any, observation: Any, info: Any, seed: int | None = None) -> None:
        self.task = task
        self.rewards: list[tuple[float, float]] = []

    def act(self, observation: Any) -> dict[str, Any]:
        return {"control_set": self.task.n_sets - 1, "x": np.full(self.task.dim, 0.5)}

    def observe(self, action: Any, observation: Any, reward: float, *rest: Any) -> None:
        self.rewards.append((reward, float(observation["y"][0])))


def _seen(text: str, answers: list[float]) -> list[tuple[float, float]]:
    """What the recorder observes (reward, observation's y) for answers ``y`` of ``text``."""
    source = ProblemSource("file", "process.toml", text, {"flow.csv": "flow\n2.0\n3.0\n"})
    agent = _Recorder()
    loop = Loop(build_process(source, 0), agent, seed=0)
    for y in answers:
        loop.ask()
        loop.apply(loop.check(loop.asked, {}, y, 1.0))
    return agent.rewards


def test_the_agents_maximize_y_above_its_lower_bound(process_file: Path) -> None:
    text = process_file.read_text()
    assert _seen(text.replace("maximize = true", "maximize = true\nlower_bound = -1.0"), [2.0]) == [
        (3.0, 3.0)
    ]
    minimize = text.replace("maximize = true", "maximize = false\nlower_bound = -10.0")
    assert _seen(minimize, [4.0, 2.0]) == [(6.0, 6.0), (8.0, 8.0)]  # -y - (-10)


def test_without_a_lower_bound_the_first_answer_sets_it(process_file: Path) -> None:
    text = process_file.read_text()
    # The first value -3 gives the bound 2 * -3 = -6, kept for every later answer.
    assert _seen(text, [-3.0, 1.0]) == [(3.0, 3.0), (7.0, 7.0)]
    # A positive first value gives the paper's bound, 0.
    assert _seen(text, [2.0, 5.0]) == [(2.0, 2.0), (5.0, 5.0)]


def test_the_plot_draws_the_best_y_so_far() -> None:
    history = pd.DataFrame({"evaluated": [True, True, False, True], "y": [3.0, 1.0, 9.0, 2.0],
                            "spent": [1.0, 2.0, 2.0, 4.0]})  # fmt: skip
    spent, best = best_so_far(history, maximize=True)
    assert spent.tolist() == [1.0, 2.0, 4.0] and best.tolist() == [3.0, 3.0, 3.0]
    assert best_so_far(history, maximize=False)[1].tolist() == [3.0, 1.0, 1.0]


def test_two_processes_cannot_both_answer_a_suggestion(process_file: Path, tmp_path: Path) -> None:
    journal = tmp_path / "j"
    Experiment.create(journal, problem=process_file, agent="random", seed=0).close()
    with Experiment.open(journal) as first, Experiment.open(journal) as second:
        s1, s2 = first.ask(), second.ask()
        assert (s1.number, s1.control_set, s1.x.tolist()) == (
            s2.number,
            s2.control_set,
            s2.x.tolist(),
        )
        first.tell(s1, _measured(first, s1), y=1.0, cost=1.0)
        with pytest.raises(JournalError, match="suggestion 1 was already answered"):
            second.tell(s2, _measured(second, s2), y=2.0, cost=1.0)
    assert _rows(journal) == (1, 1)
    with Experiment.open(journal) as exp:
        assert exp.history()["y"].tolist() == [1.0]


def test_reopening_from_a_saved_state_gives_the_uninterrupted_suggestion(
    process_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def play(exp: Experiment, n: int) -> None:
        for k in range(n):
            s = exp.ask()
            exp.tell(s, _measured(exp, s), y=0.3 * k, cost=1.0)

    with Experiment.create(tmp_path / "a", problem=process_file, agent="random", seed=4) as a:
        play(a, 5)
        uninterrupted = [a.ask()]
        play(a, 1)
        uninterrupted.append(a.ask())
    with Experiment.create(tmp_path / "b", problem=process_file, agent="random", seed=4) as b:
        play(b, 4)
        # A kill after the fifth answer and before its state: the fourth state, then one replay.
        monkeypatch.setattr(experiment_module, "save_agent_state", lambda *args: None)
        play(b, 1)
        monkeypatch.undo()
    with sqlite3.connect(tmp_path / "b") as conn:
        assert conn.execute("SELECT number FROM agent_states").fetchall() == [(4,)]
    with Experiment.open(tmp_path / "b") as b:
        assert b.resumed_by == "state" and b.spent == 5.0
        resumed = [b.ask()]
        play(b, 1)
        resumed.append(b.ask())
    for r, u in zip(resumed, uninterrupted, strict=True):
        assert (r.number, r.control_set, r.x.tobytes()) == (u.number, u.control_set, u.x.tobytes())


def test_a_state_that_does_not_load_is_refused_in_one_line(
    process_file: Path, tmp_path: Path
) -> None:
    with Experiment.create(tmp_path / "j", problem=process_file, agent="random") as exp:
        s = exp.ask()
        exp.tell(s, _measured(exp, s), y=1.0, cost=1.0)
        exp.journal.save_state(1, {"counts": np.arange(3)}, {})
    with pytest.raises(JournalError, match="state after answer 1 does not load"):
        Experiment.open(tmp_path / "j")


def _set_header(journal: Path, **values: Any) -> None:
    """Edit a journal's header by hand, as someone who sends a tampered journal would."""
    with sqlite3.connect(journal) as conn:
        for key, value in values.items():
            conn.execute("UPDATE header SET value = ? WHERE key = ?", (json.dumps(value), key))


def test_a_journal_never_imports_code_it_names(
    process_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal is data: an agent it names by import path, or a model file outside the
    agent's package, is refused in one line before anything is imported or loaded."""
    marker = tmp_path / "MARKER"
    (tmp_path / "planted_agent.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).touch()\nclass Planted:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "j"
    Experiment.create(path, problem=process_file, agent="random", seed=0).close()
    _set_header(path, agent="planted_agent:Planted", params={})
    with pytest.raises(ValueError, match=r"refusing agent .planted_agent:Planted.*--allow-agent"):
        Experiment.open(path)
    assert not marker.exists()
    _set_header(path, agent="neural-af", params={"model": str(tmp_path / "payload.zip")})
    with pytest.raises(ValueError, match=r"refusing agent 'neural-af''s model=.*--allow-model"):
        Experiment.open(path)
