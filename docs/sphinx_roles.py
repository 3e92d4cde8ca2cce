"""The docstrings' Sphinx roles as cross-references of the documentation site.

The docstrings name other objects with Sphinx roles (``:class:`~pkg.Class```, ``:meth:``,
``:func:``, ``:mod:``, ``:data:``, ``:attr:``, ``:exc:``, ``:obj:``); mkdocstrings renders
Markdown and would show them raw. Each role becomes an optional mkdocs-autorefs reference,
``<autoref identifier="pkg.Class" optional><code>Class</code></autoref>``: a link to the object's
API page where the site renders it, the name as code where it does not (a builtin, another
library's object, a private helper), without a warning either way.

- :class:`SphinxRoles`, a Griffe extension named in ``mkdocs.yml``
  (``plugins: mkdocstrings: handlers: python: options: extensions``), rewrites every docstring of
  a package once Griffe has loaded it, resolving names relative to the object's scope (its
  members, its module's imports) as Python would.
- :func:`render_roles` rewrites any Markdown text; the hook ``docs/gen_pages.py`` uses it for the
  docstring text it puts into the generated agent pages.

The title follows Sphinx: the target as written, its last component for ``~target``, and the
title of ``title <target>``. Roles inside code spans stay as they are.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from griffe import Extension, Module, NameResolutionError, Object

#: A role (``:kind:`target``` or ``:kind:`title <target>```), or a code span, which is kept.
_ROLE_OR_CODE = re.compile(
    r"(?P<role>:(?:py:)?(?:class|meth|func|mod|data|attr|exc|obj):`(?P<body>[^`]+)`)"
    r"|(?P<code>``.+?``|`[^`]+`)",
    re.DOTALL,
)
#: A role's body with an explicit title, ``title <target>``.
_TITLED = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)


def render_roles(text: str, resolve: Callable[[str], str]) -> str:
    """``text`` with each role replaced by an optional autoref; ``resolve`` maps a target as
    written (``Class.method``, ``pkg.func``) to its full dotted path."""

    def replace(match: re.Match[str]) -> str:
        if match["role"] is None:
            return match[0]
        body = match["body"].strip()
        titled = _TITLED.match(body)
        target = (titled["target"] if titled else body).lstrip("~!.").strip()
        if titled:
            title = titled["title"]
        elif body.startswith("~"):
            title = target.rsplit(".", 1)[-1]
        else:
            title = target
        identifier = html.escape(resolve(target), quote=True)
        code = f"<code>{html.escape(title)}</code>"
        return f'<autoref identifier="{identifier}" optional>{code}</autoref>'

    return _ROLE_OR_CODE.sub(replace, text)


def scope_resolver(obj: Object) -> Callable[[str], str]:
    """Resolves a target in ``obj``'s scope: its first component as a member or an import of
    ``obj`` or of its parents, the rest appended; a target that does not resolve (a builtin, a
    full path from another package) is kept as written."""

    def resolve(target: str) -> str:
        head, _, rest = target.partition(".")
        try:
            found = obj.resolve(head)
        except NameResolutionError:
            return target
        return f"{found}.{rest}" if rest else found

    return resolve


def _objects(obj: Object) -> list[Object]:
    """``obj`` and the objects defined in it, depth first; imported names (aliases) left out,
    since their own package's loading rewrites them."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            found += _objects(member)  # type: ignore[arg-type]
    return found


class SphinxRoles(Extension):
    """Rewrites the roles of every docstring of a package loaded by Griffe (see the module)."""

    def on_package(self, *, pkg: Module, **kwargs: Any) -> None:
        """Rewrites the docstrings of ``pkg`` once its object tree is complete."""
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = render_roles(obj.docstring.value, scope_resolver(obj))
