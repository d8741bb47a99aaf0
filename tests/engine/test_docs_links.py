"""Every relative link in the README and docs/*.md resolves inside the repository.

A link is ``[text](target)``; ``http(s):`` and ``mailto:`` targets are outside this test.
A ``#fragment`` must name a heading of the target page, in GitHub's slug form (lower case,
punctuation dropped, spaces to hyphens).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped,
    spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)}


def links(page: Path) -> list[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return [m.group(1) for m in _LINK.finditer(text)]


def test_slug_matches_github():
    assert slug("Rounds to converge counts pushes") == "rounds-to-converge-counts-pushes"
    assert slug("1. Locate in the version") == "1-locate-in-the-version"
    assert slug("Format `arl-bundle/1`") == "format-arl-bundle1"


def test_the_checker_finds_a_broken_link(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Head\n[ok](#head) [bad](missing.md) [web](https://x.org/y)\n")
    assert links(page) == ["#head", "missing.md", "https://x.org/y"]
    assert anchors(page) == {"head"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path):
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        path, _, frag = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
            continue
        if frag and dest.suffix == ".md" and frag not in anchors(dest):
            broken.append(f"{target}: no heading #{frag} in {dest.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_docs_index_lists_every_page():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    missing = [
        p.name
        for p in (ROOT / "docs").glob("*.md")
        if p.name != "README.md" and p.name not in index
    ]
    assert not missing, f"docs/README.md does not list {missing}"


# Citations a clone cannot follow: documents that are not in the repository, and issue
# numbers of a tracker the repository does not carry. Cite a docs/ page instead.
_OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|\bissues? #?\d+|§\s?\d")
_CITING = [
    "engine",
    "app",
    "tools",
    "benchmarks",
    "packaging",
    "tests/engine",
    "tests/app",
    "tests/helpers",
    "docs",
    "resources/web",
]


def test_citations_point_inside_the_repository():
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "tests" / "conftest.py"]
    for d in _CITING:
        files += [p for p in (ROOT / d).rglob("*") if p.suffix in {".py", ".md", ".js", ".sh"}]
    me = Path(__file__).resolve()
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()[:80]}"
        for p in files
        if p.resolve() != me
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if _OUTSIDE.search(line)
    ]
    assert not found, "cite a docs/ page instead of:\n" + "\n".join(found)
