"""The listing of the built-in problems beside their gymnasium ids
(:func:`bocvs_env.registration.problem_listing`), as the README and ``bocvs run --help`` show
it."""

from __future__ import annotations

from pathlib import Path

from bocvs_env.problems.registry import PROBLEMS
from bocvs_env.registration import ENV_IDS, FAMILY_IDS, problem_listing

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_problem_is_listed_beside_its_ids_cost_sets_and_variances() -> None:
    table = problem_listing()
    for name, info in PROBLEMS.items():
        (row,) = [line for line in table.splitlines() if line.startswith(f"| `{name}` |")]
        assert f"`bocvs/{info.env_name}-v1`" in row
        assert "cheap, moderate, expensive" in row and "(0, 1/12)" in row
    listed = [i for i in ENV_IDS if i not in FAMILY_IDS]
    assert all(f"`{i}`" in table for i in listed)
    assert "hartmann6_12d" in problem_listing(markdown=False)


def test_the_readme_shows_the_listing_as_generated() -> None:
    assert problem_listing() in README.read_text()
