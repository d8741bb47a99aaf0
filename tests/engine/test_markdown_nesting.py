"""Deeply nested Markdown is rendered whole or refused in one line, never rendered short.

markdown-it's ``commonmark`` preset stops at 20 levels and drops what lies deeper without a
word: a quote 21 deep rendered blank. The cap is now ``MAX_MARKDOWN_NESTING`` (100 levels;
each block quote one, each list two), and a deeper source is refused where it comes in
(engine.text.markdown.too_large; docs/anchor.md, "Markdown").
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.caps import push_refusal
from engine.text.documents import DocumentError, open_document
from engine.text.html_text import extract
from engine.text.markdown import (
    MAX_MARKDOWN_NESTING,
    _deepest,
    _parser,
    markdown_page,
    render_body,
    too_large,
)

# A word per script, so a dropped level is a missing word whatever the script.
WORDS = ["deep", "глубоко", "深い", "깊은", "عميق", "عمیق", "ลึก", "🌊🌊", "गहरा"]

# container marker, its continuation on the lines after, its markdown-it levels
CONTAINERS = {
    "quote": ("> ", "> ", 1),
    "bullet": ("- ", "  ", 2),
    "ordered": ("1. ", "   ", 2),
    "tab": ("-\t", "\t", 2),
}


def text_of(source: str) -> str:
    return extract(markdown_page(source)).text


def one_line(kinds: list[str], word: str) -> str:
    return "".join(CONTAINERS[k][0] for k in kinds) + word + "\n"


def line_per_level(kinds: list[str], words: list[str]) -> str:
    """Each container opens on a line of its own, under the ones before it."""
    lines = []
    for i, kind in enumerate(kinds):
        prefix = "".join(CONTAINERS[k][1] for k in kinds[:i])
        lines.append(prefix + CONTAINERS[kind][0] + words[i % len(words)] + f" {i}")
    return "\n".join(lines) + "\n"


def levels(kinds: list[str]) -> int:
    return sum(CONTAINERS[k][2] for k in kinds) + 1  # and the paragraph


@pytest.mark.parametrize("word", WORDS)
def test_a_quote_nested_past_twenty_renders_its_words(word: str) -> None:
    # The attacker's case: 21 levels rendered as a blank page.
    for depth in (20, 21, 50, MAX_MARKDOWN_NESTING - 2):
        source = one_line(["quote"] * depth, word)
        assert too_large(source) is None
        assert word in text_of(source), depth


def test_the_cap_is_exact_for_quotes_and_lists() -> None:
    deepest_quote = ["quote"] * (MAX_MARKDOWN_NESTING - 2)
    assert levels(deepest_quote) == MAX_MARKDOWN_NESTING - 1
    assert "deep" in text_of(one_line(deepest_quote, "deep"))
    for kinds in (["quote"] * (MAX_MARKDOWN_NESTING - 1), ["bullet"] * (MAX_MARKDOWN_NESTING // 2)):
        source = one_line(kinds, "deep")
        assert too_large(source) is not None
        with pytest.raises(ValueError, match="levels deep"):
            render_body(source)
    lists = ["bullet"] * (MAX_MARKDOWN_NESTING // 2 - 1)
    assert "deep 48" in text_of(line_per_level(lists, ["deep"]))


@st.composite
def nestings(draw: st.DrawFn) -> tuple[str, list[str]]:
    kinds = draw(st.lists(st.sampled_from(sorted(CONTAINERS)), min_size=1, max_size=70))
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
    layout = draw(st.sampled_from(["one line", "line per level"]))
    if layout == "one line":
        return one_line(kinds, words[0]), [words[0]]
    return line_per_level(kinds, words), [f"{words[i % len(words)]} {i}" for i in range(len(kinds))]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(nestings())
def test_nested_markdown_is_rendered_whole_or_refused(case: tuple[str, list[str]]) -> None:
    source, expected = case
    refused = too_large(source)
    # The cheap bound never lets a source past that the parse would find too deep.
    assert (refused is None) == (_deepest(_parser().parse(source)) < MAX_MARKDOWN_NESTING)
    if refused is not None:
        assert "levels deep" in refused
        with pytest.raises(ValueError):
            render_body(source)
        return
    text = text_of(source)
    assert [w for w in expected if w not in text] == []


def test_a_too_deep_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "nested.md"
    path.write_text("# Title\n\n" + one_line(["quote"] * 150, "deep"), encoding="utf-8")
    with pytest.raises(DocumentError) as err:
        open_document(path)
    line = str(err.value)
    assert "\n" not in line and line.startswith(str(path))
    assert "100 levels deep" in line and "flatten" in line


def test_a_too_deep_push_is_refused_for_the_model() -> None:
    why = push_refusal(one_line(["bullet"] * 60, "deep"), "markdown", 0)
    assert why is not None and "levels deep" in why and "flatter" in why
    assert push_refusal(one_line(["bullet"] * 40, "deep"), "markdown", 0) is None


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_hostile_depths_are_refused_quickly(depth: int) -> None:
    # Measured: 1,000 levels 0.002 s, 100,000 levels 0.03 s of CPU; raising markdown-it's
    # cap instead hits Python's recursion limit at about 490 levels.
    for source in (one_line(["quote"] * depth, "deep"), one_line(["quote", "bullet"] * depth, "x")):
        start = time.process_time()
        assert too_large(source) is not None
        assert time.process_time() - start < 5


def test_a_real_document_skips_the_parse() -> None:
    readme = (Path(__file__).parents[1] / "data" / "markdown" / "ruff.md").read_text("utf-8")
    from engine.text import markdown

    assert markdown._prefix_columns(readme) + 2 < MAX_MARKDOWN_NESTING
    assert too_large(readme) is None
