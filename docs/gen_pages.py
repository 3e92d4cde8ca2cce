"""MkDocs hooks: pages generated from the code at build time, so that they cannot drift from it.

- ``benchmark/cli.md``: the ``bocvs`` command's reference, every subcommand's help as its
  argparse parser (:func:`bocvs_env.benchmark.cli.build_parser`) formats it.
- ``agents/by-name/<name>.md``: one page per agent registered in the ``bocvs.agents`` entry-point
  group: its class, the paper its module names, a table of its parameters with their defaults
  (``make_agent(name).params()``) and their descriptions (the ``Args:`` sections of the class's
  docstrings), and the class's docstring rendered by mkdocstrings. The pages join the "Agents"
  section of the navigation.

- In any page, the marker ``<!-- generated: env-ids -->`` becomes the table of the registered
  Gymnasium ids with their problem names, and ``<!-- generated: agents -->`` the table of the
  registered agents.

Named in ``mkdocs.yml`` under ``hooks:``; kept out of the site by ``exclude_docs``.
"""

from __future__ import annotations

import inspect
import io
import os
import re
from contextlib import redirect_stdout
from typing import Any

from mkdocs.structure.files import File, Files

#: Where the generated agent pages live, relative to docs/.
AGENT_PAGES = "agents/by-name"
#: The generated CLI reference, relative to docs/.
CLI_PAGE = "benchmark/cli.md"
#: The navigation section the agent pages join, and the page they follow.
AGENTS_SECTION = "Agents"

#: A Google-style docstring's argument line: ``name: text`` (``**name:`` for a catch-all).
_ARG = re.compile(r"^(\*{0,2}\w+)(?: \([^)]*\))?: (.*)$")


def _registered() -> dict[str, str]:
    from bocvs_env.agent_registration import registered_agents

    return dict(sorted(registered_agents().items()))


def on_config(config: Any) -> Any:
    """Adds one navigation entry per registered agent to the "Agents" section."""
    entries = [{name: f"{AGENT_PAGES}/{name}.md"} for name in _registered()]
    for item in config["nav"] or []:
        if isinstance(item, dict) and AGENTS_SECTION in item:
            item[AGENTS_SECTION] = [*item[AGENTS_SECTION], {"Every agent": entries}]
            return config
    raise ValueError(f"mkdocs.yml: the nav has no {AGENTS_SECTION!r} section for the agent pages")


def on_files(files: Files, config: Any) -> Files:
    """Adds the CLI reference and the agent pages to the site's files."""
    files.append(File.generated(config, CLI_PAGE, content=cli_reference()))
    for name, target in _registered().items():
        files.append(
            File.generated(config, f"{AGENT_PAGES}/{name}.md", content=agent_page(name, target))
        )
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Replaces the markers of generated tables in a page."""
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make(page.file.src_uri))
    return markdown


def env_ids_table(src_uri: str) -> str:
    """Every registered id: its problem (the name ``bocvs run --problems`` and sweep files take),
    dimension, control sets, default budget, and what else the id fixes."""
    from bocvs_env.problems.registry import PROBLEMS
    from bocvs_env.registration import FAMILY_IDS, PRESET_IDS, VERSION

    rows = [
        "| id | problem name | d | sets | default budget | notes |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    specs: list[tuple[str, str, dict[str, Any]]] = [
        (f"bocvs/{p.env_name}-v{VERSION}", p.name, {}) for p in PROBLEMS.values()
    ]
    specs += [(env_id, name, fixed) for env_id, (name, fixed) in PRESET_IDS.items()]
    for env_id, name, fixed in specs:
        info = PROBLEMS[name]
        dim = 1 + max(max(s) for s in info.control_sets)
        notes = ", ".join(f"`{k}={v!r}`" for k, v in fixed.items())
        if info.needs_data:
            notes = "needs the data files" + (f"; {notes}" if notes else "")
        rows.append(
            f"| `{env_id}` | `{name}` | {dim} | {len(info.control_sets)} | "
            f"{info.default_budget:g} | {notes} |"
        )
    for env_id, options in FAMILY_IDS.items():
        rows.append(
            f"| `{env_id}` | (family `{options['family']}`, {options['split']} split) | | | | "
            "a new function per reset; not a benchmark problem |"
        )
    return "\n".join(rows)


def agents_table(src_uri: str) -> str:
    """Every registered agent: its name, class, and its class docstring's first line, linked to
    its page."""
    from bocvs_env.agent_registration import agent_class

    prefix = "../" * src_uri.count("/")
    rows = ["| agent | class | what it does |", "| --- | --- | --- |"]
    for name in _registered():
        cls = agent_class(name)
        policy = _policy(cls)
        doc = getattr(cls, "summary", None) or _first_paragraph(policy.__doc__ or "")
        rows.append(
            f"| [`{name}`]({prefix}{AGENT_PAGES}/{name}.md) | "
            f"`{policy.__module__}.{policy.__qualname__}` | {_cell(doc)} |"
        )
    return "\n".join(rows)


MARKERS = {"<!-- generated: env-ids -->": env_ids_table, "<!-- generated: agents -->": agents_table}


# --- the CLI reference -------------------------------------------------------------------------


def cli_reference() -> str:
    """The ``bocvs`` command's help and every subcommand's, as Markdown."""
    import argparse

    from bocvs_env.benchmark.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width; fix it for the page
    parser = build_parser()
    parts = [
        "# `bocvs` command reference\n",
        "Generated from the command's argument parser (`bocvs_env.benchmark.cli.build_parser`) "
        "when the site is built. `python -m bocvs_env.benchmark` is the same command.\n",
        _help_block(parser),
    ]
    # argparse has no public accessor for its subcommands: the subparsers action holds them.
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                parts += [f"## `bocvs {name}`\n", _help_block(sub)]
    return "\n".join(parts)


def _help_block(parser: Any) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        parser.print_help()
    return f"```text\n{out.getvalue().rstrip()}\n```\n"


# --- the agent pages ---------------------------------------------------------------------------


def agent_page(name: str, target: str) -> str:
    """The page of the agent registered as ``name`` (``target``: its ``"module:Class"``)."""
    import importlib

    from agents.config import AcquisitionConfig, SurrogateConfig
    from agents.policies.model_based import ModelBasedAgent
    from bocvs_env.agent_registration import agent_class

    cls = agent_class(name)
    policy = _policy(cls)
    module = importlib.import_module(policy.__module__)
    dotted = f"{policy.__module__}.{policy.__qualname__}"
    summary = _first_paragraph(module.__doc__ or "")
    defaults, required = agent_defaults(name, cls)
    described = argument_descriptions(policy)
    for part in ("rules", "computation"):  # a policy's configuration: its own descriptions
        config = getattr(cls, part, None) or getattr(cls, f"default_{part}", None)
        if config is not None:
            described = {**described, **argument_descriptions(type(config))}
    if issubclass(policy, ModelBasedAgent):  # the model's options, shared by the GP policies
        for model_config in (SurrogateConfig, AcquisitionConfig):
            described = {**described, **argument_descriptions(model_config)}
    rows = [
        f"| `{key}` | {'required' if key in required else f'`{value!r}`'} | "
        f"{_cell(described.get(key, ''))} |"
        for key, value in defaults.items()
    ]
    return "\n".join(
        [
            f"# `{name}`\n",
            f"`make_agent({name!r})`, `bocvs run --agents {name}`: class `{dotted}` "
            f"(entry point `{target}`).\n",
            f"**From its module:** {summary}\n",
            "## Parameters\n",
            f"Keyword arguments of `make_agent({name!r}, ...)` and, in a sweep file, of "
            f'`[agent_params."{name}"]`, with their defaults (`{_call(name, required)}.params()` '
            "when the site was built).\n",
            "| parameter | default | description |",
            "| --- | --- | --- |",
            *rows,
            "",
            "## Class\n",
            f"::: {dotted}",
            "    options:",
            "      members: false",
            "      show_root_heading: false",
            "      show_docstring_parameters: false",  # the table above has them, with defaults
            "      show_source: false",
            "",
        ]
    )


def _policy(cls: Any) -> Any:
    """The class an entry point's object builds: the object itself, or for a named preset of a
    policy (:class:`agents.policies.presets.Preset`) its ``policy``."""
    return getattr(cls, "policy", cls)


def agent_defaults(name: str, cls: Any) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The agent's parameters and defaults (``make_agent(name).params()``), and the names of
    those it cannot be built without (``required_params``), which the table marks required.

    An agent that needs a parameter no placeholder can stand for (a trained model), or that has
    no ``params()`` (the :class:`~bocvs_env.agent.Agent` protocol does not ask for one), is
    described by its constructor's signature instead."""
    from bocvs_env.agent_registration import make_agent

    required = tuple(getattr(cls, "required_params", ()))
    placeholders = {"costs": (1.0,)}
    if all(key in placeholders for key in required):
        agent = make_agent(name, **{key: placeholders[key] for key in required})
        params = getattr(agent, "params", None)
        if callable(params):
            return dict(params()), required
    parameters = inspect.signature(cls).parameters.values()
    return {
        p.name: None if p.default is inspect.Parameter.empty else p.default
        for p in parameters
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    }, required


def argument_descriptions(cls: Any) -> dict[str, str]:
    """``name -> description`` from the ``Args:`` sections of the docstrings of ``cls`` and its
    bases (class and ``__init__``), the most derived first."""
    found: dict[str, str] = {}
    for klass in cls.__mro__:
        for doc in (
            klass.__dict__.get("__doc__"),
            getattr(klass.__dict__.get("__init__"), "__doc__", None),
        ):
            for key, text in _args_section(inspect.cleandoc(doc or "")).items():
                found.setdefault(key, text)
    return found


def _args_section(doc: str) -> dict[str, str]:
    args: dict[str, str] = {}
    lines = doc.splitlines()
    if "Args:" not in lines:
        return args
    current = None
    for line in lines[lines.index("Args:") + 1 :]:
        if line and not line.startswith(" "):
            break  # the next section
        stripped = line.strip()
        match = (
            _ARG.match(stripped)
            if line.startswith("    ") and not line.startswith("     ")
            else None
        )
        if match:
            current = match.group(1)
            args[current] = match.group(2)
        elif current is not None and stripped:
            args[current] += " " + stripped
    return {key: text for key, text in args.items() if not key.startswith("*")}


def _first_paragraph(doc: str) -> str:
    return " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())


#: A Sphinx cross-reference role in a docstring, ``:meth:`~pkg.Class.name```.
_ROLE = re.compile(r":\w+:`~?([^`]+)`")


def _cell(text: str) -> str:
    """Docstring text for a Markdown table cell: roles become code, pipes are escaped."""
    return _ROLE.sub(r"`\1`", text).replace("|", "\\|")


def _call(name: str, required: tuple[str, ...]) -> str:
    args = "".join(f", {key}=..." for key in required)
    return f"make_agent({name!r}{args})"
