"""Slow bombs are refused where they come in, in one line naming the file and the problem
(docs/anchor.md, "Limits at intake").

- HTML nested past ``MAX_HTML_NESTING`` (10,000): 100,000 nested ``<div>`` took 26 s of
  wall time in ``arl score`` (9 s of CPU: the pure-Python reference parser, twice, and the
  style cascade of 100,000 ancestors); now refused in under a second.
- A Word file with more than ``MAX_WORD_NOTES`` footnotes and endnotes.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.caps import push_refusal
from engine.text.documents import DocumentError, open_document
from engine.text.html_text import MAX_HTML_NESTING, too_deep

DATA = Path(__file__).parents[2] / ".." / "shared" / "data"
TAGS = ["div", "span", "section", "b", "blockquote", "ul", "font", "em", "article"]


def nested(depth: int, tag: str = "div", word: str = "deep", close: bool = True) -> str:
    inner = f"<{tag}>" * depth + word + (f"</{tag}>" * depth if close else "")
    return f"<!DOCTYPE html><html><head><title>t</title></head><body>{inner}</body></html>"


def dom_depth(source: str) -> int:
    """The depth of the deepest element under <body>, as lexbor's tree builder nests it."""
    from selectolax.lexbor import LexborHTMLParser

    body = LexborHTMLParser(source.encode("utf-8")).body
    assert body is not None
    deepest, stack = 0, [(body, 0)]
    while stack:
        node, depth = stack.pop()
        child = node.child
        while child is not None:
            if child.tag != "-text":
                stack.append((child, depth + 1))
                deepest = max(deepest, depth + 1)
            child = child.next
    return deepest


@pytest.mark.parametrize("close", [True, False])
def test_html_nested_past_the_cap_is_refused_in_one_line(tmp_path: Path, close: bool) -> None:
    path = tmp_path / "deep.html"
    path.write_text(nested(100_000, close=close), encoding="utf-8")
    start = time.process_time()
    with pytest.raises(DocumentError) as err:
        open_document(path)
    assert time.process_time() - start < 10  # 26 s of wall time in arl score before
    line = str(err.value)
    assert "\n" not in line and line.startswith(str(path))
    assert "100,000 levels deep" in line and "10,000" in line


def test_html_at_the_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_text(nested(MAX_HTML_NESTING, word="глубоко 深い"), encoding="utf-8")
    assert "глубоко 深い" in open_document(path).content
    path.write_text(nested(MAX_HTML_NESTING + 1), encoding="utf-8")
    with pytest.raises(DocumentError, match="10,001 levels deep"):
        open_document(path)


def test_a_too_deep_push_is_refused_for_the_model() -> None:
    why = push_refusal(nested(20_000, "span"), "html", 0)
    assert why is not None and "20,000 levels deep" in why and "flatter" in why
    assert push_refusal(nested(5_000, "span"), "html", 0) is None


def test_real_pages_are_not_refused() -> None:
    pages = sorted((DATA / "standardebooks").glob("*/*.xhtml"))
    assert pages
    for page in pages:
        assert too_deep(page.read_text(encoding="utf-8")) is None
        assert too_deep(page.read_text(encoding="utf-8") * 30) is None  # over a megabyte


@st.composite
def trees(draw: st.DrawFn) -> str:
    """Nested runs of several tags, each run closed or left open, around words."""
    parts, closers = [], []
    for _ in range(draw(st.integers(1, 4))):
        tag = draw(st.sampled_from(TAGS))
        depth = draw(st.integers(1, 4_000))
        parts.append(f"<{tag}>" * depth + draw(st.sampled_from(["x", "ข้อ", "نص", "😀"])))
        if draw(st.booleans()):
            closers.insert(0, f"</{tag}>" * depth)
    return "<!DOCTYPE html><html><body>" + "".join(parts) + "".join(closers) + "</body></html>"


@settings(max_examples=25, deadline=None)
@given(trees())
def test_the_refusal_follows_the_tree_a_parser_builds(source: str) -> None:
    # Well-formed or left open, runs of nesting tags: refused exactly when the parsed tree
    # is deeper than the cap.
    assert (too_deep(source) is not None) == (dom_depth(source) > MAX_HTML_NESTING)


def notes_docx(n: int, kind: str = "footnote") -> bytes:
    from tests.helpers.word_files import make_docx, para, run

    ref = "footnoteReference" if kind == "footnote" else "endnoteReference"
    refs = "".join(f'<w:r><w:{ref} w:id="{i}"/></w:r>' for i in range(1, n + 1))
    notes = "".join(
        f'<w:{kind} w:id="{i}"><w:p>{run(f"Note {i}.")}</w:p></w:{kind}>' for i in range(1, n + 1)
    )
    return make_docx(para(run("Body text with notes."), refs), footnotes=notes)


def test_a_word_file_with_too_many_notes_is_refused_in_one_line(tmp_path: Path) -> None:
    from engine.text.docx import MAX_WORD_NOTES

    path = tmp_path / "notes.docx"
    path.write_bytes(notes_docx(50_000))
    start = time.process_time()
    with pytest.raises(DocumentError) as err:
        open_document(path)
    assert time.process_time() - start < 15  # 59 s before
    line = str(err.value)
    assert "\n" not in line and line.startswith(str(path))
    assert f"50,000 footnotes and endnotes or more, past the {MAX_WORD_NOTES:,}" in line


def test_a_word_file_with_many_notes_is_read(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_bytes(notes_docx(300))
    doc = open_document(path)
    assert doc.word is not None and "Note 300." in doc.word.text


def test_markdown_carrying_deep_raw_html_is_refused(tmp_path: Path) -> None:
    # CommonMark passes raw HTML through: 100,000 nested <div> in a .md reach the page.
    path = tmp_path / "deep.md"
    path.write_text("# Title\n\n" + "<div>" * 100_000 + "\n\ndeep\n", encoding="utf-8")
    with pytest.raises(DocumentError, match="100,000 levels deep"):
        open_document(path)
    assert push_refusal("<span>" * 20_000 + "x", "markdown", 0) is not None


@pytest.mark.parametrize(
    "ending",
    [
        '<script src="https://cdn.example.com/assets/app.min.js',  # a page cut off in a tag
        '<script src="https://cdn.example.com/assets/app.min.js"/></p>',  # XHTML style
        "<style media=" + "screen and print " * 40,
        "<title " + "a b " * 200,
    ],
)
def test_a_raw_text_tag_without_its_end_is_read_at_once(ending: str) -> None:
    # The depth scan matched a raw-text start tag's attributes with a plain "*": with no
    # ">" after them it tried every split of every run of characters before failing, twice
    # as long for each character more (minutes for the first of these).
    words = "<!DOCTYPE html><html><body>" + "<p>some words here</p>" * 2_000
    start = time.process_time()
    assert too_deep(words + ending) is None
    assert too_deep(words + "<div>" * 20_000 + ending) is not None  # still seen deep
    assert time.process_time() - start < 2
