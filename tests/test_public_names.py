"""One name per concept: no two public classes of ``agents`` and ``bocvs_env`` share a name, so
that a name in a docstring, a log or an error means one thing (a class of a private module,
or whose name starts with ``_``, is not public)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agents", "bocvs_env")


def public_classes(root: Path, packages: tuple[str, ...]) -> dict[str, list[str]]:
    """Class name -> the modules (paths relative to ``root``) that define a public class of
    that name at their top level."""
    found: dict[str, list[str]] = defaultdict(list)
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).parts
            if any(p.startswith("_") and p != "__init__.py" for p in parts):
                continue
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    found[node.name].append("/".join(parts))
    return dict(found)


def shared_names(root: Path, packages: tuple[str, ...]) -> dict[str, list[str]]:
    """The public class names defined more than once, with where."""
    return {k: v for k, v in public_classes(root, packages).items() if len(v) > 1}


def test_no_two_public_classes_share_a_name() -> None:
    assert shared_names(ROOT, PACKAGES) == {}


def test_a_shared_name_is_found_and_a_private_one_is_not(tmp_path: Path) -> None:
    for module, text in {
        "a/__init__.py": "",
        "a/one.py": "class Score:\n    pass\n\nclass _Hidden:\n    pass\n",
        "a/two.py": "class Score:\n    pass\n\nclass _Hidden:\n    pass\n",
        "a/_private.py": "class Score:\n    pass\n",
        "b/three.py": "def f():\n    class Score:\n        pass\n",
    }.items():
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text(text)
    assert shared_names(tmp_path, ("a", "b")) == {"Score": ["a/one.py", "a/two.py"]}
