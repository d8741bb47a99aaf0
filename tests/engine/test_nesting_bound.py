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


# Markup crafted to hide end tags from a cheap reading: in quoted values holding ">",
# after a "<!--" or "<script" inside a value, in a CDATA section or a bogus comment, behind
# names the scan reads whole (a vertical tab or NUL in them), after "</script" without its
# ">". The bound counts such an end tag only where the scan certainly reads it.
_hostile = st.one_of(
    _piece,
    st.sampled_from(NAMES).map(lambda n: f'<{n} title="></{n}>">'),
    st.sampled_from(NAMES).map(lambda n: f"<{n} title='></{n}>'>"),
    st.sampled_from(NAMES).map(lambda n: f'<{n} a = "x>" </{n}>'),
    st.sampled_from(NAMES).map(lambda n: f'<{n} a=">" b=">"></{n}>'),
    st.sampled_from(NAMES).map(lambda n: f'<{n} a=b=">" </{n}>'),
    st.sampled_from(NAMES).map(lambda n: f"<{n}\x0b></{n}>"),
    st.sampled_from(NAMES).map(lambda n: f"<{n}\x00></{n}>"),
    st.sampled_from(NAMES).map(lambda n: f"<![CDATA[></{n}>]]>"),
    st.sampled_from(NAMES).map(lambda n: f"<!x </{n}>>"),
    st.sampled_from(NAMES).map(lambda n: f"<?x </{n}>?>"),
    st.sampled_from(NAMES).map(lambda n: f"</1 </{n}>>"),
    st.sampled_from(NAMES).map(lambda n: f'<a title="<!--"></{n}>-->'),
    st.sampled_from(NAMES).map(lambda n: f'<a title="<script>"></{n}></script>'),
    st.sampled_from(NAMES).map(lambda n: f"<script>x</script<{n}>"),
    st.sampled_from(NAMES).map(lambda n: f"<{n} x='\"'>"),
    st.sampled_from(['"', "'", "=", '="', "='", "/>", ">", "<", "</", "<!--", "-->"]),
    st.sampled_from(["<svg>", "</svg>", "<math>", "<svg/>", '<g d="/>">', "<g/>"]),
    st.sampled_from(["<script/>", '<script src="/a.js"/>', "<title x='>'>", "<noscript"]),
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(_hostile, max_size=60))
def test_the_bound_is_never_below_the_scan_on_crafted_markup(pieces):
    markup = "".join(pieces)
    assert bound(markup) >= scan(markup), markup


@pytest.mark.parametrize(
    "markup",
    [
        '<div title="></div>">x' * 20000,  # the end tag is in the value: the scan reads so
        "<div title='></div>'>x" * 20000,
        '<div a=">" b="></div>">' * 20000,
        "<div\x0b></div>" * 20000,  # the name is "div\x0b": "</div>" closes nothing
        "<div\x00></div>" * 20000,
        '<a title="<!--">' + "<div>" * 20000 + "-->",
        "<div><!x </div>>" * 20000,
        '<div><path d="/>" >' * 20000,  # not self-closing: the "/>" is in the value
    ],
)
def test_crafted_deep_shapes_exceed_the_limit(markup):
    assert scan(markup) > html_text._MAX_DEPTH
    assert bound(markup) > html_text._MAX_DEPTH


def test_a_page_hiding_end_tags_in_values_is_refused_and_declined():
    # 60,000 nested <div>, each with "></div>" in a quoted value: the former bound read
    # each value's end tag as closing its div and let the page through to lexbor.
    page = "<html><body>" + '<div title="></div>">x' * 60_000 + "</body></html>"
    assert html_text.too_deep(page) is not None
    assert html_text._lexbor_would_be_slow(page, page.encode())


_SIGNAL_PIECES = st.one_of(
    _hostile,
    st.sampled_from(["<frameset>", "<FRAMESET ", "<framesetx", "</frameset>", "<annotation-xml"]),
    st.sampled_from(["<ANNOTATION-XML>", "<annotation-xm>", "<svg", "<SVG>", "<math", "</math"]),
    st.sampled_from(["<sv", "<mat", "<!-- <frameset> -->", "<p title='<svg'>", "<b" + "x" * 9000]),
    st.sampled_from(["<a href=" + "y" * 9000 + ">", "<" + "z" * 9000, "<b>" + "c" * 9000]),
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(_SIGNAL_PIECES, max_size=30))
def test_the_signals_find_what_the_patterns_find(pieces):
    from engine.text.nesting_bound import markup_signals

    markup = "".join(pieces)
    signals = markup_signals(markup.encode("utf-8"), html_text._NOT_NESTING)
    assert signals.declines == bool(html_text._FAST_PATH_DECLINES.search(markup))
    assert signals.foreign == bool(html_text._HAS_FOREIGN.search(markup))
    if html_text._LONG_TAG.search(markup):
        assert signals.long_tag


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(_SIGNAL_PIECES, max_size=30),
    st.sampled_from(["", "ſ", "K", "ı", "İ"]),
    st.sampled_from(["<p>filler words</p>", "<b>filler</b><i>x</i>", "filler words, no tags"]),
)
def test_the_guard_decides_as_the_patterns_and_the_scan(pieces, fold, filler):
    # Over 64 kB the guard asks the numpy signals first, or the patterns alone where the
    # page holds too few "<" to nest past the limit. The fillers hold 10,000 "<" (with the
    # pieces' own, either side of the limit), 20,000 (the signals) and none (the patterns).
    # It decides as the patterns over the text and the exact scan do (a character a str
    # pattern folds to ASCII included).
    markup = "".join(pieces) + fold + filler * 5_000
    utf8 = markup.encode("utf-8")
    assert len(utf8) > html_text._BOUND_FROM
    guard = html_text._guard(None, utf8, fold != "")
    assert guard.declines == bool(html_text._FAST_PATH_DECLINES.search(markup))
    assert guard.foreign == bool(html_text._HAS_FOREIGN.search(markup))
    slow = html_text._nesting_depth(utf8, html_text._MAX_DEPTH) > html_text._MAX_DEPTH
    assert guard.slow == (slow or html_text._long_tag_slow(markup))


def test_overlapping_comments_and_raw_text_give_up_in_linear_time():
    import time

    from engine.text.nesting_bound import markup_signals

    page = ('<a title="' + "<script><!--" * 50_000).encode()
    start = time.process_time()
    assert markup_signals(page, html_text._NOT_NESTING).bound >= 0
    assert time.process_time() - start < 5


@pytest.mark.parametrize(
    "page",
    [
        b"<a" * 2_000_000,  # names inside names: each "<a" starts one that runs to the end
        b"<abcdefghij>" * 400_000,  # names of 8 bytes or more, read one by one
        b"<!--" * 1_000_000,
        b"<script>" * 500_000,
        b'<a x="' * 700_000,
    ],
)
def test_hostile_pages_are_read_in_linear_time(page):
    # "<a<a<a..." made the guard quadratic twice over: each long name was matched to its
    # end, and each long tag's text (to the page's end) was cut and split again.
    import time

    start = time.process_time()
    guard = html_text._guard(None, page, False)
    assert time.process_time() - start < 10
    assert guard.slow == (
        html_text._nesting_depth(page, html_text._MAX_DEPTH) > html_text._MAX_DEPTH
        or html_text._long_tag_slow(page.decode())
    )


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(_hostile, max_size=60))
def test_the_scan_never_nests_deeper_than_the_page_has_lt(pieces):
    # The guard's cheap signal (html_text._few_tags): a page with at most _MAX_DEPTH "<"
    # skips the bound and the scan. Sound because the scan opens an element only at a
    # start tag, and each begins with its own "<": a page the signal passes is never one
    # the scan would send to the reference parser for its depth.
    markup = "".join(pieces)
    assert scan(markup) <= markup.count("<"), markup
    assert html_text._few_tags(markup.encode()) == (markup.count("<") <= html_text._MAX_DEPTH)


@pytest.mark.parametrize(
    "tags, diverted",
    [(html_text._MAX_DEPTH, False), (html_text._MAX_DEPTH + 1, True)],
)
def test_the_limit_holds_on_either_side_of_the_cheap_signal(tags, diverted):
    # As many nested <div> as the limit: the cheap signal passes the page, and the scan
    # would have too; one more "<": the bound and the scan run and divert it.
    page = ("<div>" * tags + "words " * 20_000).encode()
    assert len(page) > html_text._BOUND_FROM
    assert html_text._few_tags(page) is not diverted
    assert html_text._guard(None, page, False).slow is diverted
    assert (html_text._nesting_depth(page, html_text._MAX_DEPTH) > html_text._MAX_DEPTH) is diverted


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_SIGNAL_PIECES, max_size=30), st.sampled_from(["", "ſ", "K", "ı", "İ"]))
def test_the_guard_of_a_short_page_decides_as_the_patterns(pieces, fold):
    # Up to 64 kB the patterns alone decide, all three at once first, over the bytes where
    # no character folds to ASCII; the same as each pattern over the text.
    markup = "".join(pieces) + fold
    utf8 = markup.encode("utf-8")
    assert len(utf8) <= html_text._BOUND_FROM
    for guard in (html_text._guard(markup, utf8), html_text._guard(None, utf8, fold != "")):
        assert guard.declines == bool(html_text._FAST_PATH_DECLINES.search(markup))
        assert guard.foreign == bool(html_text._HAS_FOREIGN.search(markup))
        assert guard.slow == html_text._long_tag_slow(markup)
