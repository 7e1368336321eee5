"""Each rule and requirement the code cites has a heading in docs/rules.md or requirements.md."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "drivers", "display", "simulators", "floor")


def _headings(name: str) -> list[str]:
    text = (REPO / "docs" / name).read_text(encoding="utf-8")
    return [m.group(1).strip() for m in re.finditer(r"^#{1,6}\s+(.+)$", text, re.M)]


def _source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for pkg in PACKAGES
                     for p in sorted((REPO / pkg).rglob("*.py")))


LAST = 20
"""The last requirement docs/requirements.md states."""


def test_requirements_r1_to_r20_each_have_one_heading():
    ids = [m.group(1) for h in _headings("requirements.md") if (m := re.match(r"(R\d+):", h))]
    assert ids == [f"R{n}" for n in range(1, LAST + 1)]


def test_every_requirement_the_code_cites_exists():
    cited = {int(n) for n in re.findall(r"\bR(\d+)\b", _source())}
    assert cited, "the code cites no requirement: the pattern is wrong"
    assert cited <= set(range(1, LAST + 1)), sorted(cited - set(range(1, LAST + 1)))


def test_every_rules_section_the_code_quotes_is_a_heading():
    # e.g. RULES.md "Rule profiles", docs/rules.md "power loss or crash mid-round"
    quoted = set(re.findall(r'rules\.md,?\s+"([^"]+)"', _source(), re.I))
    assert quoted, "the code quotes no section: the pattern is wrong"
    headings = {h.lower() for h in _headings("rules.md")}
    assert sorted(q for q in quoted if q.lower() not in headings) == []


def test_rules_sections_the_code_names_unquoted_are_headings():
    headings = set(_headings("rules.md"))
    for name in ("Cards and hands", "Round", "Rule profiles", "Numbers a correct engine reproduces",
                 "Irregularities", "Void", "Misread", "Card pulled back", "One card exposed",
                 "Dealer's cards exposed", "Duplicate or unknown card",
                 "Shoe unplugged or silent mid-deal", "Malfunction after the outcome is fixed",
                 "Power loss or crash mid-round", "Burn cards"):
        assert name in headings, name


def test_citations_point_into_the_repository():
    # a citation names a file the repository holds: docs/rules.md or docs/requirements.md
    stray = re.findall(r"(?<!docs/)\b(?:RULES\.md|REQUIREMENTS(?:\.md)?\s+R\d+)", _source())
    assert stray == []
    assert (REPO / "docs" / "rules.md").is_file() and (REPO / "docs" / "requirements.md").is_file()
