"""``body_text`` against the html5lib tree-construction conformance tests.

Each test in ``tests/data/html5lib-tests/tree-construction/*.dat`` gives an input and the DOM
tree the WHATWG parsing algorithm must build from it. From that tree this module derives the
expected ``document.body.textContent`` (the data of every Text node under the html element's
first ``body`` or ``frameset`` child, in tree order, without comments and without the
subtree below a template's ``content`` marker) and checks ``engine.text.html_text.body_text``
returns exactly that for the same input.

Which tests count:

- every ``#document`` test whose scripting mode includes "on": ``#script-on`` or no marker
  (a test without a marker must pass in both modes, so it holds with scripting on);
- not the ``#script-off`` tests: the anchor contract runs with scripting on, where those
  inputs build a different tree;
- not the ``#document-fragment`` tests: they parse with a context element (innerHTML), and a
  fragment has no ``document.body``.

Of the 1,792 tests: 192 are fragment tests, 27 more are script-off; the remaining 1,573 are
checked, all of them (``CHECKED_CASES``; ``test_case_counts`` pins the numbers). There are no
exclusions (``EXCLUDED`` is empty; an entry there needs its reason next to it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.text.html_text import body_text

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "html5lib-tests" / "tree-construction"

HEADINGS = frozenset(
    {
        "#data",
        "#errors",
        "#new-errors",
        "#document",
        "#document-fragment",
        "#script-off",
        "#script-on",
    }
)

TOTAL_CASES = 1792
FRAGMENT_CASES = 192
SCRIPT_OFF_CASES = 27
CHECKED_CASES = TOTAL_CASES - FRAGMENT_CASES - SCRIPT_OFF_CASES

#: "file.dat#index" -> why the case is not checked. Empty: every case passes.
EXCLUDED: dict[str, str] = {}


@dataclass(frozen=True)
class Case:
    """One tree-construction test: its input and its expected ``#document`` tree lines."""

    case_id: str  # "tests1.dat#0": file name and the test's index in it
    data: str
    document: tuple[str, ...]
    fragment: bool
    scripting: str | None  # "on", "off", or None (both modes)


def read_cases(path: Path) -> list[Case]:
    """Split a .dat file into its tests (format: tree-construction/README.md).

    Lines are split on LF only: the inputs hold CR, FF and other characters that
    ``str.splitlines`` would also split on.
    """
    lines = path.read_bytes().decode("utf-8").split("\n")
    cases: list[Case] = []
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None

    def finish() -> None:
        document = sections.get("#document", [])
        if document and document[-1] == "":
            document = document[:-1]  # the blank line that separates tests
        cases.append(
            Case(
                case_id=f"{path.name}#{len(cases)}",
                data="\n".join(sections["#data"]),
                document=tuple(document),
                fragment="#document-fragment" in sections,
                scripting="off"
                if "#script-off" in sections
                else "on"
                if "#script-on" in sections
                else None,
            )
        )

    for line in lines:
        if line in HEADINGS:
            if line == "#data" and sections:
                finish()
                sections = {}
            current = sections.setdefault(line, [])
        elif current is not None:
            current.append(line)
    if sections:
        finish()
    return cases


def expected_body_text(document: tuple[str, ...]) -> str:
    """``document.body.textContent`` from a ``#document`` tree dump.

    Node lines start with ``"| "`` plus two spaces per depth; a text node is ``"..."`` and
    may run over several lines (the lines that do not start with ``"| "`` continue the
    node above). Raises AssertionError on a dump this reader does not understand.
    """
    nodes: list[tuple[int, str]] = []
    for line in document:
        if line.startswith("| "):
            rest = line[2:]
            stripped = rest.lstrip(" ")
            indent = len(rest) - len(stripped)
            assert indent % 2 == 0, f"odd indentation: {line!r}"
            nodes.append((indent // 2, stripped))
        else:
            assert nodes, f"continuation line before any node: {line!r}"
            depth, content = nodes[-1]
            nodes[-1] = (depth, content + "\n" + line)

    body_depth = None
    html_seen = False
    parts: list[str] = []
    skip_below: int | None = None
    for depth, content in nodes:
        if content.startswith('"'):
            assert len(content) >= 2 and content.endswith('"'), f"unterminated text: {content!r}"
        if body_depth is None:
            if depth == 0:
                html_seen = content == "<html>"
            elif depth == 1 and html_seen and content in ("<body>", "<frameset>"):
                body_depth = 1
            continue
        if depth <= body_depth:
            break
        if skip_below is not None:
            if depth > skip_below:
                continue
            skip_below = None
        if content == "content":  # a template's contents: a separate fragment
            skip_below = depth
        elif content.startswith('"'):
            parts.append(content[1:-1])
    return "".join(parts)


def _all_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(DATA_DIR.glob("*.dat")):
        cases.extend(read_cases(path))
    return cases


ALL_CASES = _all_cases()
CHECKED = [
    case
    for case in ALL_CASES
    if not case.fragment and case.scripting != "off" and case.case_id not in EXCLUDED
]


def test_case_counts() -> None:
    """The number of cases checked is stated and pinned, so none silently drop out."""
    fragment = sum(case.fragment for case in ALL_CASES)
    script_off = sum(not case.fragment and case.scripting == "off" for case in ALL_CASES)
    print(
        f"html5lib tree-construction: {len(ALL_CASES)} tests, {len(CHECKED)} checked "
        f"({fragment} fragment, {script_off} script-off, {len(EXCLUDED)} excluded)"
    )
    assert len(ALL_CASES) == TOTAL_CASES
    assert fragment == FRAGMENT_CASES
    assert script_off == SCRIPT_OFF_CASES
    assert len(CHECKED) == CHECKED_CASES - len(EXCLUDED)
    assert len(CHECKED) >= 1573


def test_reader_understands_the_format() -> None:
    """Spot checks of the tree reader on cases whose answer is known by heart."""
    by_id = {case.case_id: case for case in ALL_CASES}
    assert by_id["tests1.dat#0"].data == "Test"
    assert expected_body_text(by_id["tests1.dat#0"].document) == "Test"
    # A comment is not text; a template's content is not in the body's text.
    assert (
        expected_body_text(
            (
                "| <html>",
                "|   <head>",
                "|   <body>",
                '|     "a"',
                "|     <!-- c -->",
                "|     <template>",
                "|       content",
                '|         "t"',
                '|     "b"',
                '|     "multi',
                'line"',
            )
        )
        == "ab" + "multi\nline"
    )
    # Attributes and text outside the body do not count; a frameset is document.body.
    assert (
        expected_body_text(
            (
                "| <html>",
                "|   <head>",
                '|     "h"',
                "|   <frameset>",
                '|     x="y"',
                '|     " "',
                '| "after"',
            )
        )
        == " "
    )
    assert expected_body_text(("| <!DOCTYPE html>", "| <html>", "|   <head>")) == ""


@pytest.mark.parametrize("case", CHECKED, ids=lambda case: case.case_id)
def test_body_text_matches_the_tree(case: Case) -> None:
    assert body_text(case.data) == expected_body_text(case.document)
