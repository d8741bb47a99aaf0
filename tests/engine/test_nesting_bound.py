"""The cheap nesting bound before the fast path's depth scan (docs/engine.md, "Text"): it
is never below the scan's depth on markup of every kind the scan reads (comments, raw
text, attributes, stray end tags, foreign content, any letter case), so a page the scan
would send to the reference parser still goes there; a shallow page over a megabyte skips
the scan."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.text import html_text
from engine.text.nesting_bound import nesting_bound

NAMES = ["div", "DIV", "span", "b", "p", "li", "br", "section", "header", "head", "svg", "math"]
NAMES += ["path", "x-a", "custom-element-a", "custom-element-b", "table", "td", "img"]
NAMES += ["colgroup", "optgroup", "abcdefgh", "abcdefg"]

_piece = st.one_of(
    st.sampled_from(NAMES).map(lambda n: f"<{n}>"),
    st.sampled_from(NAMES).map(lambda n: f"</{n}>"),
    st.sampled_from(NAMES).map(lambda n: f"<{n}/>"),
    st.sampled_from(NAMES).map(lambda n: f"<{n} title='a<b</{n}'>"),
    st.sampled_from(NAMES).map(lambda n: f"<{n}\tclass=x>"),
    st.sampled_from(
        ["script", "style", "textarea", "title", "SCRIPT", "noscript", "plaintext"]
    ).map(lambda n: f"<{n}>x</div><div>y</{n}>"),
    st.sampled_from(["<!-- </div> -->", "<!-->", "<!--->", "<!-- <div> --!>", "<!doctype html>"]),
    st.sampled_from(["text", "a < b", "3<4", "&lt;", "naïve", "中文", "\U0001f600"]),
)


def bound(markup: str) -> int:
    return nesting_bound(markup.encode("utf-8"), html_text._NOT_NESTING)


def scan(markup: str) -> int:
    return html_text._nesting_depth(markup.encode("utf-8"), 10**9)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_piece, max_size=80))
def test_the_bound_is_never_below_the_scan(pieces):
    markup = "".join(pieces)
    assert bound(markup) >= scan(markup), markup


@pytest.mark.parametrize(
    "markup",
    [
        "<div>" * 20000,
        "<div></b>" * 20000,  # stray end tags close nothing
        "<div>" * 20000 + "</div>" * 20000,
        "<div><!-- </div> -->" * 20000,
        "<div><script>'</div>'</script>" * 20000,
        "<div title='</div>'>" * 20000,
        "<DIV>" * 20000,
        "<svg>" + "<g>" * 20000,
    ],
)
def test_deep_shapes_exceed_the_limit(markup):
    assert bound(markup) > html_text._MAX_DEPTH


def test_real_pages_bound_near_their_depth():
    pages = sorted(Path("/work/shared/data/standardebooks").glob("*/*.xhtml"))
    if not pages:
        pytest.skip("the shared Standard Ebooks pages are not on this machine")
    for page in pages:
        data = page.read_bytes()
        assert html_text._nesting_depth(data, 10**9) <= nesting_bound(data, html_text._NOT_NESTING)
        assert nesting_bound(data, html_text._NOT_NESTING) < 100


def test_a_shallow_page_over_a_megabyte_skips_the_scan(monkeypatch):
    page = "<html><body>" + "<div><p>Some words, <b>bold</b>.</p><br></div>" * 30_000
    assert len(page) > html_text._BOUND_FROM

    def no_scan(*_):
        raise AssertionError("the exact scan ran on a shallow page")

    monkeypatch.setattr(html_text, "_nesting_depth", no_scan)
    assert not html_text._lexbor_would_be_slow(page, page.encode())


def test_a_deep_page_over_a_megabyte_still_declines_the_fast_path():
    page = "<html><body>" + "<div>" * 220_000 + "x"
    assert len(page) > html_text._BOUND_FROM
    assert html_text._lexbor_would_be_slow(page, page.encode())
