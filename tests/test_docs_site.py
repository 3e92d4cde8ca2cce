"""The documentation site as a reader sees it, offline: built once with ``mkdocs build --strict``
(the configuration at the repository's root), then read page by page.

- No docstring's Sphinx role is left raw (``:class:`...```): each is a link or code.
- No formula is left as LaTeX: each is MathML, and no page loads a script or a stylesheet from
  another host.
- Every parameter of every registered agent has a description on its generated page.
- Every relative link of the README resolves in the repository (it is read there, on the
  repository's host or in a clone), and every relative link of the hand-written pages of
  ``docs/`` resolves in the repository or in the built site (the generated pages exist only
  there).
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES_MD = sorted(DOCS.rglob("*.md"))

#: A Sphinx role as a reader would see it raw, ``:class:`` before its target.
RAW_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|data|attr|exc|obj):")
#: LaTeX that was not converted: ``$...$`` in the text, or arithmatex's markers.
RAW_MATH = re.compile(r"\$[^\s$][^$]*\$|\\\(|\\\[|arithmatex")
#: Elements whose text is code (shown as written) or not text at all.
NOT_TEXT = re.compile(r"<(pre|code|script|style|math)\b.*?</\1>", re.DOTALL)
#: A Markdown link's target, inline ``[text](target "title")`` or a reference definition.
MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)
#: Code in Markdown, whose brackets are not links: fenced blocks and inline spans.
MD_CODE = re.compile(r"^(```|~~~).*?^\1\s*$|``.+?``|`[^`\n]+`", re.DOTALL | re.MULTILINE)


def _build(out: Path) -> None:
    """Builds the site as CI builds it (warnings are errors) into ``out``."""
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def _pages(site: Path) -> list[Path]:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > len(PAGES_MD)  # the hand-written pages and the generated ones
    return pages


def _text(page: Path) -> str:
    """The page's prose: its HTML without code, scripts and math, tags removed."""
    return html.unescape(re.sub(r"<[^>]+>", " ", NOT_TEXT.sub(" ", page.read_text())))


def raw_roles(site: Path) -> dict[str, list[str]]:
    """The pages that show a role raw, and the roles."""
    found = {p.relative_to(site).as_posix(): RAW_ROLE.findall(_text(p)) for p in _pages(site)}
    return {page: roles for page, roles in found.items() if roles}


def raw_math(site: Path) -> dict[str, list[str]]:
    """The pages that show LaTeX unconverted, and what of it."""
    found = {p.relative_to(site).as_posix(): RAW_MATH.findall(_text(p)) for p in _pages(site)}
    return {page: latex for page, latex in found.items() if latex}


def from_other_hosts(site: Path) -> list[str]:
    """The pages that load a script or a stylesheet from another host (a CDN)."""
    outside = re.compile(r"<(?:script|link)\b[^>]*\b(?:src|href)=\"(?:https?:)?//", re.I)
    return [p.relative_to(site).as_posix() for p in _pages(site) if outside.search(p.read_text())]


def _parameter_rows(page: Path) -> list[tuple[str, str]]:
    """``(name, description)`` of each row of an agent page's parameter table."""
    text = page.read_text()
    section = text[text.index('id="parameters"') : text.index('id="class"')]
    if "<table>" not in section:
        assert "It takes none." in section, page
        return []
    cells = [
        [
            html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", section, re.DOTALL)
    ]
    return [(row[0], row[2]) for row in cells if row]  # the heading row has no <td>


def undescribed_parameters(site: Path) -> dict[str, list[str]]:
    """The registered agents with parameters that have no description, and those."""
    from bocvs_env.agent_registration import registered_agents

    names = sorted(registered_agents())
    rows = {n: _parameter_rows(site / "agents" / "by-name" / n / "index.html") for n in names}
    assert sum(len(r) for r in rows.values()) > len(names)  # the tables were read
    found = {name: [param for param, text in r if not text] for name, r in rows.items()}
    return {name: params for name, params in found.items() if params}


def _relative_links(page: Path) -> list[str]:
    """The page's relative link targets (no scheme, no host, not an anchor alone), without
    their anchors and queries."""
    found = []
    for match in MD_LINK.finditer(MD_CODE.sub("", page.read_text())):
        parts = urlsplit(match[1] or match[2])
        if not (parts.scheme or parts.netloc) and parts.path:
            found.append(unquote(parts.path))
    return found


def _in_site(site: Path, page: Path, target: str) -> bool:
    """Whether ``target``, linked from the Markdown ``page`` of docs/, is a file of the built
    site: a page ``a/b.md`` is ``a/b/index.html`` (``a/index.md`` and ``a/README.md``:
    ``a/index.html``), any other file keeps its path."""
    path = (page.parent / target).resolve()
    if not path.is_relative_to(DOCS):
        return False
    built = path.relative_to(DOCS)
    if built.suffix == ".md":
        stem = built.with_suffix("")
        built = stem.parent if stem.name in ("index", "README") else stem
        built = built / "index.html"
    return (site / built).is_file()


def broken_docs_links(site: Path) -> dict[str, list[str]]:
    """The hand-written pages of docs/ with relative links that resolve neither in the
    repository nor in the built site, and those links."""
    links = {page: _relative_links(page) for page in PAGES_MD}
    assert any(links.values())  # the links were read
    found = {
        page.relative_to(ROOT).as_posix(): [
            target
            for target in targets
            if not (page.parent / target).exists() and not _in_site(site, page, target)
        ]
        for page, targets in links.items()
    }
    return {page: broken for page, broken in found.items() if broken}


def test_the_built_site_reads_as_written(tmp_path: Path) -> None:
    # One build for every check (under pytest-xdist, tests of one module may run in different
    # workers, each of which would build its own).
    _build(tmp_path)
    problems = {
        "raw Sphinx roles": raw_roles(tmp_path),
        "unconverted LaTeX": raw_math(tmp_path),
        "scripts or stylesheets from another host": from_other_hosts(tmp_path),
        "agent parameters without a description": undescribed_parameters(tmp_path),
        "links of docs/ that resolve nowhere": broken_docs_links(tmp_path),
    }
    assert not {check: found for check, found in problems.items() if found}
    # What the checks stand on is there: roles became links, formulas MathML.
    api = (tmp_path / "api" / "agents" / "index.html").read_text()
    assert 'class="autorefs autorefs-internal"' in api
    assert (tmp_path / "concepts" / "index.html").read_text().count("<math ") >= 20


def test_readme_links_resolve_in_the_repository() -> None:
    readme = ROOT / "README.md"
    links = _relative_links(readme)
    assert len(links) >= 10
    missing = [target for target in links if not (ROOT / target).exists()]
    assert not missing, (
        f"README.md links to {missing}, which are not in the repository "
        "(a generated page exists only in the built site)"
    )


def _sphinx_roles() -> ModuleType:
    """``docs/sphinx_roles.py``, loaded as MkDocs and Griffe load it: from its path."""
    spec = importlib.util.spec_from_file_location("sphinx_roles", DOCS / "sphinx_roles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_role_becomes_a_reference_titled_as_sphinx_titles_it() -> None:
    render = _sphinx_roles().render_roles
    resolve = {"Agent": "bocvs_env.agent.Agent"}.get

    def ref(identifier: str, title: str) -> str:
        return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'

    assert render(":meth:`~pkg.Class.name`", lambda t: t) == ref("pkg.Class.name", "name")
    assert render(":class:`Agent`", lambda t: resolve(t, t)) == ref(
        "bocvs_env.agent.Agent", "Agent"
    )
    assert render(":func:`the loop <pkg.run>`", lambda t: t) == ref("pkg.run", "the loop")
    # A role inside a code span is shown as written.
    assert render("``:class:`X```", lambda t: t) == "``:class:`X```"
