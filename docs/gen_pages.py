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

import dataclasses
import inspect
import io
import os
import re
from collections.abc import Callable
from contextlib import redirect_stdout
from typing import Any

from mkdocs.structure.files import File, Files

# docs/sphinx_roles.py: MkDocs puts a hook's folder on the path while it loads the hook.
from sphinx_roles import render_roles

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
        doc = render_roles(doc, module_resolver(policy.__module__))
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

    # argparse wraps at the terminal's width: 80 columns, a default terminal's, fit the page.
    os.environ["COLUMNS"] = "80"
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
    return f"```{{.text .cli-help}}\n{out.getvalue().rstrip()}\n```\n"


# --- the agent pages ---------------------------------------------------------------------------


def agent_page(name: str, target: str) -> str:
    """The page of the agent registered as ``name`` (``target``: its ``"module:Class"``)."""
    import importlib

    from bocvs_env.agent_registration import agent_class

    cls = agent_class(name)
    policy = _policy(cls)
    module = importlib.import_module(policy.__module__)
    dotted = f"{policy.__module__}.{policy.__qualname__}"
    summary = render_roles(_first_paragraph(module.__doc__ or ""), module_resolver(module.__name__))
    agent = _built(name, cls)
    defaults, required = agent_defaults(name, cls, agent)
    described = argument_descriptions(policy)
    for config in _config_types(cls, agent):  # a policy's configuration: its own descriptions
        described = {**described, **argument_descriptions(config)}
    rows = [
        "| parameter | default | description |",
        "| --- | --- | --- |",
        *(
            f"| `{key}` | {'required' if key in required else f'`{value!r}`'} | "
            f"{_cell(described.get(key, ''))} |"
            for key, value in defaults.items()
        ),
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
            *(rows if defaults else ["It takes none."]),
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


#: Stand-ins for the parameters an agent cannot be built without, where one can stand for it.
_PLACEHOLDERS = {"costs": (1.0,)}


def _built(name: str, cls: Any) -> Any | None:
    """The agent ``make_agent(name)`` builds, its ``required_params`` given placeholders;
    ``None`` for one that needs a parameter no placeholder can stand for (a trained model)."""
    from bocvs_env.agent_registration import make_agent

    required = tuple(getattr(cls, "required_params", ()))
    if not all(key in _PLACEHOLDERS for key in required):
        return None
    return make_agent(name, **{key: _PLACEHOLDERS[key] for key in required})


def _config_types(cls: Any, agent: Any | None) -> list[type]:
    """The dataclasses whose fields are the agent's parameters: its class's (or preset's)
    rules and computation, and the parts of the built agent's ``config`` (the GP's and the
    acquisition's options too)."""
    found = []
    for part in ("rules", "computation"):
        config = getattr(cls, part, None) or getattr(cls, f"default_{part}", None)
        if config is not None:
            found.append(type(config))
    config = getattr(agent, "config", None)
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        values = (getattr(config, field.name) for field in dataclasses.fields(config))
        found += [type(v) for v in values if dataclasses.is_dataclass(v)]
    return found


def agent_defaults(
    name: str, cls: Any, agent: Any | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The agent's parameters and defaults (``agent.params()``, ``agent`` as :func:`_built`
    builds it), and the names of those it cannot be built without (``required_params``), which
    the table marks required.

    An agent that cannot be built with placeholders, or that has no ``params()`` (the
    :class:`~bocvs_env.agent.Agent` protocol does not ask for one), is described by its
    constructor's signature instead."""
    required = tuple(getattr(cls, "required_params", ()))
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
    """``name -> description`` from the ``Args:`` and ``Attributes:`` sections of the
    docstrings of ``cls`` and its bases (class and ``__init__``), the most derived first, their
    roles as cross-references."""
    found: dict[str, str] = {}
    for klass in cls.__mro__:
        resolve = module_resolver(klass.__module__)
        for doc in (
            klass.__dict__.get("__doc__"),
            getattr(klass.__dict__.get("__init__"), "__doc__", None),
        ):
            for key, text in _args_section(inspect.cleandoc(doc or "")).items():
                found.setdefault(key, render_roles(text, resolve))
    return found


#: The Google-style sections that describe parameters: a constructor's arguments and a
#: configuration dataclass's fields (its attributes).
_PARAMETER_SECTIONS = ("Args:", "Attributes:")


def _args_section(doc: str) -> dict[str, str]:
    """``name -> description`` from the parameter sections of a cleaned docstring."""
    args: dict[str, str] = {}
    current, inside = None, False
    for line in doc.splitlines():
        if line and not line.startswith(" "):  # a section's heading, or text between sections
            current, inside = None, line in _PARAMETER_SECTIONS
            continue
        if not inside:
            continue
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


def module_resolver(module_name: str) -> Callable[[str], str]:
    """Resolves a role's target as the module ``module_name`` sees it: its first component
    among the module's names (a class, a function, an imported module), the rest appended; a
    target that is none of them (a full path, a builtin) is kept as written."""
    import sys

    namespace = vars(sys.modules[module_name])

    def resolve(target: str) -> str:
        head, _, rest = target.partition(".")
        if head not in namespace:
            return target
        value = namespace[head]
        if inspect.ismodule(value):
            found = value.__name__
        elif hasattr(value, "__qualname__") and hasattr(value, "__module__"):
            found = f"{value.__module__}.{value.__qualname__}"
        else:  # a constant of the module
            found = f"{module_name}.{head}"
        return f"{found}.{rest}" if rest else found

    return resolve


def _cell(text: str) -> str:
    """Docstring text for a Markdown table cell: pipes are escaped."""
    return text.replace("|", "\\|")


def _call(name: str, required: tuple[str, ...]) -> str:
    args = "".join(f", {key}=..." for key in required)
    return f"make_agent({name!r}{args})"
