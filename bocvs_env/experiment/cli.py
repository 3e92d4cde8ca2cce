"""``bocvs experiment new|ask|tell|status|plot|export|simulate``: an ask/tell experiment over a
journal from the command line (docs/own-process.md)."""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bocvs_env.benchmark.atomic import write_file

#: The subcommands' help.
HELP = "ask/tell experiments on a process of your own, over a journal"


def _pair(text: str) -> tuple[str, Any]:
    """``name=value``: the value as JSON if it parses (numbers, true, lists), else a string."""
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"expected name=value, got {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def _open(args: Any) -> Any:
    from bocvs_env.benchmark.trust import Allowed
    from bocvs_env.experiment import Experiment

    return Experiment.open(args.store, Allowed.of(args.allow_agent, args.allow_model))


def _cmd_new(args: Any) -> int:
    from bocvs_env.experiment import Experiment

    with Experiment.create(args.store, args.problem, args.agent, args.seed,
                           dict(args.param), dict(args.option)) as exp:  # fmt: skip
        print(f"{args.store}: {exp.task.name}, agent {args.agent}, seed {args.seed}, budget "
              f"{exp.task.budget:g}; next: bocvs experiment ask {args.store}")  # fmt: skip
    return 0


def _suggestion_text(journal: Path, s: Any) -> str:
    lines = [f"suggestion {s.number}: control {', '.join(s.set_values)}"]
    lines += [f"  set {k} = {v:.6g}" for k, v in s.set_values.items()]
    if s.leave_random:
        lines.append(f"  leave to chance and measure: {', '.join(s.leave_random)}")
    measured = "".join(f" {n}=VALUE" for n in s.leave_random)
    measured = f" --measured{measured}" if measured else ""
    lines.append(f"then: bocvs experiment tell {journal} --y Y --cost COST{measured}")
    return "\n".join(lines)


def _cmd_ask(args: Any) -> int:
    with _open(args) as exp:
        if exp.done:
            done = {"done": True, "spent": exp.spent, "remaining": exp.remaining}
            text = (
                f"done: the budget is spent ({exp.spent:.4g}); bocvs experiment status {args.store}"
            )
            print(json.dumps(done) if args.json else text)
            return 0
        s = exp.ask()
        if args.json:
            print(json.dumps({"done": False, "number": s.number, "control_set": s.control_set,
                              "set_values": s.set_values, "leave_random": list(s.leave_random)}))  # fmt: skip
        else:
            print(_suggestion_text(args.store, s))
    return 0


def _cmd_tell(args: Any) -> int:
    with _open(args) as exp:
        pending = exp.pending
        number = args.number if args.number is not None else (pending.number if pending else 0)
        exp.tell(number, dict(args.measured), y=args.y, cost=args.cost)
        state = (
            "done: the budget is spent" if exp.done else f"next: bocvs experiment ask {args.store}"
        )
        print(f"told {number}: spent {exp.spent:.4g}, left {exp.remaining:.4g}; {state}")
    return 0


def _cmd_status(args: Any) -> int:
    with _open(args) as exp:
        print(exp.status().text())
    return 0


def _cmd_plot(args: Any) -> int:
    from bocvs_env.experiment.plot import experiment_figure

    with _open(args) as exp:
        fig = experiment_figure(exp.history(), exp.maximize, exp.task.name)
    out = args.out or args.store.with_suffix(".png")
    write_file(out, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
    print(f"wrote {out}")
    return 0


def _cmd_export(args: Any) -> int:
    with _open(args) as exp:
        frame = exp.history()
    write_file(args.out, lambda tmp: frame.to_csv(tmp, index=False))
    print(f"wrote {args.out}: {len(frame)} suggestions")
    return 0


def _objective(spec: str) -> Callable[..., Any]:
    """The function ``module:function`` names (given on the command line, never read from a
    file)."""
    import importlib

    module, colon, name = spec.partition(":")
    if not colon:
        raise ValueError(f"--objective {spec!r}: expected module:function")
    function = getattr(importlib.import_module(module), name, None)
    if not callable(function):
        raise ValueError(f"--objective {spec!r}: {module!r} has no function {name!r}")
    return function


def _cmd_simulate(args: Any) -> int:
    from bocvs_env.experiment import Experiment
    from bocvs_env.experiment.operator import simulate_builtin, simulate_objective

    is_file = Path(args.problem).suffix == ".toml" or Path(args.problem).is_file()
    if is_file and args.objective is None:
        raise ValueError(
            f"simulating the problem file {args.problem} needs --objective module:function"
        )
    if args.store is None:
        args.store = Path(tempfile.mkdtemp(prefix="bocvs-simulate-")) / "simulation.journal"
    objective = _objective(args.objective) if args.objective else None
    with Experiment.create(args.store, args.problem, args.agent, args.seed,
                           dict(args.param), dict(args.option)) as exp:  # fmt: skip
        if objective is None:
            told = simulate_builtin(exp)
        else:
            told = simulate_objective(exp, objective, seed=args.seed)
        print(f"{args.store}: {told} answers told")
        print(exp.status().text())
    return 0


def _journal(p: argparse.ArgumentParser) -> None:
    """The journal's argument, and what a journal's record may build (--allow-agent/-model)."""
    from bocvs_env.benchmark.trust import add_allow_options

    p.add_argument("store", type=Path, metavar="JOURNAL", help="the experiment's journal file")
    add_allow_options(p)


def _agent_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", default="etc", help="a registered agent or module:Class (etc)")
    p.add_argument("--seed", type=int, default=0, help="the agent's seed (default 0)")
    p.add_argument("--param", type=_pair, action="append", default=[], metavar="NAME=VALUE",
                   help="an agent parameter (repeatable)")  # fmt: skip
    p.add_argument("--option", type=_pair, action="append", default=[], metavar="NAME=VALUE",
                   help="a built-in problem's option, e.g. budget=10 (repeatable)")  # fmt: skip


def add_experiment_command(sub: Any) -> None:
    """Register ``bocvs experiment`` and its subcommands on the ``bocvs`` parser's
    subparsers ``sub``."""
    parser = sub.add_parser("experiment", help=HELP, description=HELP + " (docs/own-process.md)")
    cmds = parser.add_subparsers(dest="experiment_command", required=True)
    new = cmds.add_parser("new", help="start an experiment: a problem file or a built-in problem")
    _journal(new)
    new.add_argument("--problem", required=True, help="a TOML problem file or a built-in problem")
    _agent_options(new)
    new.set_defaults(func=_cmd_new)
    ask = cmds.add_parser("ask", help="what to set and what to measure next")
    _journal(ask)
    ask.add_argument("--json", action="store_true", help="print one JSON object, for scripts")
    ask.set_defaults(func=_cmd_ask)
    tell = cmds.add_parser("tell", help="answer the pending suggestion")
    _journal(tell)
    tell.add_argument("--measured", type=_pair, nargs="+", action="extend", default=[],
                      metavar="NAME=VALUE",
                      help="each variable left to chance, as measured, in its units")  # fmt: skip
    tell.add_argument("--y", type=float, required=True, help="the outcome observed")
    tell.add_argument("--cost", type=float, required=True, help="the cost paid")
    tell.add_argument("--number", type=int, help="the suggestion answered (default: the pending)")
    tell.set_defaults(func=_cmd_tell)
    status = cmds.add_parser("status", help="budget, plays and spend per set, belief of i*")
    _journal(status)
    status.set_defaults(func=_cmd_status)
    plot = cmds.add_parser("plot", help="best y against cost spent, and spend per set (PNG)")
    _journal(plot)
    plot.add_argument("--out", type=Path, help="the PNG (default: the journal's name, .png)")
    plot.set_defaults(func=_cmd_plot)
    export = cmds.add_parser("export", help="write the history as CSV")
    _journal(export)
    export.add_argument("--out", type=Path, required=True, help="the CSV file")
    export.set_defaults(func=_cmd_export)
    sim = cmds.add_parser("simulate", help="play the loop against a simulation")
    sim.add_argument("problem", help="a TOML problem file or a built-in problem")
    sim.add_argument("--objective", metavar="MODULE:FUNCTION",
                     help="f(values, controlled) -> y or (y, cost), for a problem file")  # fmt: skip
    sim.add_argument("--journal", dest="store", type=Path, help="keep the journal here")
    _agent_options(sim)
    sim.set_defaults(func=_cmd_simulate)
