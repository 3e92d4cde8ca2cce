"""MkDocs hook: the pages' formulas rendered to MathML when the site is built.

``pymdownx.arithmatex`` (generic mode) marks the LaTeX of ``$...$`` and ``$$...$$`` as
``<span class="arithmatex">\\(...\\)</span>`` and ``<div class="arithmatex">\\[...\\]</div>``; this
hook replaces each with the MathML that ``latex2mathml`` converts it to, which browsers render
natively: the site shows its formulas offline, with no script and no network.

A formula that does not convert, or that uses a command the converter does not know (which it
would leave as text, ``\\arg``), stops the build with an error that names the page and the
formula.

Named in ``mkdocs.yml`` under ``hooks:``; kept out of the site by ``exclude_docs``.
"""

from __future__ import annotations

import html
import re
from typing import Any

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

#: arithmatex's generic output: an inline formula or a displayed one.
_FORMULA = re.compile(
    r'<span class="arithmatex">\\\((?P<inline>.*?)\\\)</span>'
    r'|<div class="arithmatex">\\\[(?P<block>.*?)\\\]</div>',
    re.DOTALL,
)
#: A LaTeX command the converter passed through as text (``<mi>\arg</mi>``).
_UNKNOWN_COMMAND = re.compile(r">\\[A-Za-z]+<")


def on_page_content(content: str, page: Any, config: Any, files: Any) -> str:
    """``content`` (a page's HTML) with every formula as MathML."""
    return _FORMULA.sub(lambda match: to_mathml(match, page.file.src_uri), content)


def to_mathml(match: re.Match[str], where: str) -> str:
    """The MathML of one formula matched by ``_FORMULA``; ``where`` names its page in errors."""
    display = "inline" if match["inline"] is not None else "block"
    latex = html.unescape(match["inline"] if display == "inline" else match["block"]).strip()
    try:
        mathml = convert(latex, display=display)
    except Exception as error:  # the converter's errors have no common base
        raise PluginError(f"{where}: the formula {latex!r} does not convert: {error!r}") from error
    unknown = _UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise PluginError(
            f"{where}: the formula {latex!r} uses {unknown[0][1:-1]}, which latex2mathml does not "
            "know: write it with commands it knows (\\mathrm{...} for a named operator)"
        )
    return mathml
