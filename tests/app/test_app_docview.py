"""The untrusted-document view: parity of textContent, highlights by UTF-16 offsets,
selection to anchor, and the lock-down (no page scripts, no network, no navigation)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.docview import DocServer, content_type

TRICKY = (
    "<!doctype html><html><head><title>t</title>"
    "<script>document.title = 'page script ran'</script></head>"
    "<body><p>Intro \U0001f600 emoji \U0001f469\u200d\U0001f4bb then</p>"
    "<noscript><b>raw noscript</b></noscript>"
    "<template>template text</template>"
    "<script>var hidden = 1;</script><style>p{}</style>"
    "<pre>\nkept line</pre><p>The target phrase is here.</p>"
    "<img src='http://example.com/tracker.png'>"
    "<a href='http://example.com/'>a link</a></body></html>"
)
# What a browser's document.body.textContent gives for TRICKY (scripting on).
TRICKY_TEXT = (
    "Intro \U0001f600 emoji \U0001f469\u200d\U0001f4bb then"
    "<b>raw noscript</b>"
    "var hidden = 1;p{}"
    "kept lineThe target phrase is here."
    "a link"
)


def utf16_index(text: str, sub: str) -> int:
    i = text.index(sub)
    return len(text[:i].encode("utf-16-le")) // 2


def js(qtbot, view, source):
    with qtbot.waitCallback(timeout=10000) as cb:
        view.run_js(source, cb)
    return cb.args[0]


def load(qtbot, view, raw, kind="html"):
    with qtbot.waitSignal(view.rendered, timeout=20000) as blocker:
        view.show_document(raw, kind)
    assert blocker.args == [True]


def test_page_text_is_browser_text_and_page_scripts_are_blocked(qtbot, view):
    load(qtbot, view, TRICKY.encode("utf-8"))
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == TRICKY_TEXT
    assert js(qtbot, view, "document.title") == "t"  # the page's script never ran
    assert any("example.com/tracker.png" in u for u in view.blocked_requests())


def test_page_text_equals_engine_body_text(qtbot, view):
    html_text = pytest.importorskip("engine.text.html_text")
    raw = TRICKY.encode("utf-8")
    load(qtbot, view, raw)
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == html_text.body_text(raw)


def test_highlight_round_trip_after_emoji(qtbot, view):
    load(qtbot, view, TRICKY.encode("utf-8"))
    start = utf16_index(TRICKY_TEXT, "target phrase")
    end = start + len("target phrase")
    with qtbot.waitSignal(view.highlighted, timeout=10000) as blocker:
        view.set_highlights(
            [{"id": "c1", "kind": "edited", "start": start, "end": end, "label": "\u270e 1 edited"}]
        )
    assert blocker.args[0]["made"] == 1 and blocker.args[0]["failed"] == []
    with qtbot.waitCallback(timeout=10000) as cb:
        view.select_span("c1", cb)
    assert cb.args[0] is True
    with qtbot.waitCallback(timeout=10000) as cb:
        view.selection_anchor(cb)
    anchor = cb.args[0]
    assert anchor["quote"] == "target phrase"
    assert (anchor["start_offset"], anchor["end_offset"]) == (start, end)
    assert anchor["prefix"] == TRICKY_TEXT[: TRICKY_TEXT.index("target phrase")][-32:]


def test_user_selection_becomes_anchor_in_utf16_units(qtbot, view):
    load(qtbot, view, TRICKY.encode("utf-8"))
    start = utf16_index(TRICKY_TEXT, "emoji")  # after one astral emoji: code points differ
    assert start == TRICKY_TEXT.index("emoji") + 1
    with qtbot.waitSignal(
        view.anchorSelected, timeout=10000, check_params_cb=lambda a: bool(a)
    ) as blocker:
        view.select_offsets(start, start + 5)
    anchor = blocker.args[0]
    assert anchor["quote"] == "emoji"
    assert anchor["start_offset"] == start and anchor["end_offset"] == start + 5
    assert anchor["prefix"] == "Intro \U0001f600 "
    assert anchor["suffix"].startswith(" \U0001f469\u200d\U0001f4bb then")


def test_navigation_and_new_windows_are_refused(qtbot, view):
    load(qtbot, view, TRICKY.encode("utf-8"))
    url = view.url()
    # The isolated world may click; the page must not navigate away.
    js(qtbot, view, "document.querySelector('a').click(), true")
    qtbot.waitUntil(lambda: any("example.com" in u for u in view.page().refused), timeout=10000)
    assert view.url() == url
    assert view.page().createWindow(None) is None


def test_plain_text_document_keeps_its_text(qtbot, view):
    text = "Line one \U0001f600\nLine <two> & three\n"
    load(qtbot, view, text, kind="text")
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == text


def test_server_serves_only_registered_paths():
    import urllib.error
    import urllib.request

    server = DocServer.instance()
    url = server.add(b"<p>x</p>")
    with urllib.request.urlopen(url.toString(), timeout=5) as r:
        assert r.headers["Content-Security-Policy"].startswith("script-src 'none'")
        assert r.read() == b"<p>x</p>"
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(server.origin + "/d/guess/", timeout=5)
    server.remove(url)


def test_content_type_follows_the_engine_encoding_rules():
    assert content_type(b"<p>caf\xc3\xa9", "html") == "text/html; charset=UTF-8"
    assert content_type(b"<p>caf\xe9", "html") == "text/html; charset=windows-1252"
    assert content_type(b"<meta charset=koi8-r><p>x", "html") == "text/html; charset=KOI8-R"
    assert content_type(b"<meta charset=utf-16><p>x", "html") == "text/html; charset=UTF-8"
    assert content_type(b"\xef\xbb\xbf<p>x", "html") == "text/html; charset=UTF-8"
    assert content_type(b"x", "text") == "text/plain; charset=UTF-8"
    assert content_type(b"caf\xe9", "text") == "text/plain; charset=windows-1252"


def test_decoded_text_is_served_as_utf8_whatever_its_meta_says(qtbot, view):
    html_text = pytest.importorskip("engine.text.html_text")
    src = "<meta charset=windows-1252><p>caf\u00e9 \u2014 \U0001f600</p>"
    load(qtbot, view, src)
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == html_text.body_text(src) == "caf\u00e9 \u2014 \U0001f600"


def test_page_text_equals_engine_for_legacy_bytes(qtbot, view):
    html_text = pytest.importorskip("engine.text.html_text")
    for raw in (
        b"<meta charset=windows-1252><p>caf\xe9 \x80</p>",
        b"<p>caf\xe9 no declaration</p>",
        b"\xef\xbb\xbf<p>bom \xc3\xa9</p>",
        # declarations a browser could read differently without the HTTP charset
        b'<meta content="text/html; charset=windows-1252"><p>caf\xe9</p>',
        b"<meta charset=no-such-label><p>caf\xe9</p>",
        b'<?xml version="1.0" encoding="windows-1252"?><p>caf\xe9</p>',
        b"<meta charset=utf-16><p>caf\xc3\xa9</p>",
    ):
        load(qtbot, view, raw)
        with qtbot.waitCallback(timeout=10000) as cb:
            view.body_text(cb)
        assert cb.args[0] == html_text.body_text(raw), raw


def test_repainting_replaces_the_badges(qtbot, view):
    load(qtbot, view, TRICKY.encode("utf-8"))
    spans = [
        {"id": "a", "kind": "edited", "start": 0, "end": 5, "label": "A"},
        {"id": "b", "kind": "untouched", "start": 6, "end": 8, "label": "B"},
    ]
    for _ in range(3):
        with qtbot.waitSignal(view.highlighted, timeout=10000):
            view.set_highlights(spans)
    assert js(qtbot, view, "document.querySelectorAll(window.__arl.ns + '-overlay').length") == 1
    with qtbot.waitCallback(timeout=10000) as cb:
        view.focus_span("b", cb)
    assert cb.args[0] is True
    # Only one span is marked as focused, and the page text is unchanged.
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == TRICKY_TEXT


def test_the_documents_own_css_cannot_hide_the_verdict_marks(qtbot, view):
    """An agent's v2 may carry CSS aimed at the marks: their names are random per page and
    the overlay's look is pinned inline with !important."""
    hostile = (
        "<style>arl-overlay, [class*=arl], html > :not(head):not(body)"
        "{display:none !important; visibility:hidden !important; opacity:0 !important}"
        "::highlight(arl-edited), ::highlight(arl-focus)"
        "{background-color:transparent !important}</style><p>alpha beta gamma</p>"
    )
    load(qtbot, view, hostile.encode("utf-8"))
    with qtbot.waitSignal(view.highlighted, timeout=10000):
        view.set_highlights([{"id": "a", "kind": "edited", "start": 0, "end": 5, "label": "A"}])
    ns = js(qtbot, view, "window.__arl.ns")
    assert ns.startswith("arl-") and len(ns) > 8
    style = js(
        qtbot,
        view,
        "(function(){var h=document.querySelector(window.__arl.ns + "
        "'-overlay'); var c=getComputedStyle(h); return [c.display, "
        "c.visibility, c.opacity].join(' ');})()",
    )
    assert style == "block visible 1"
    assert js(qtbot, view, "CSS.highlights.has(window.__arl.ns + '-edited')") is True
    assert js(qtbot, view, "CSS.highlights.has('arl-edited')") is False


def test_a_removal_mark_stands_beside_its_text_not_in_the_corner(qtbot, view):
    """A zero-width 'text removed here' mark at the end of a paragraph's text node."""
    load(qtbot, view, b"<h1>Title</h1>\n<p>First paragraph ends here.</p>\n<p>Second.</p>")
    end = len("Title\nFirst paragraph ends here.")
    with qtbot.waitSignal(view.highlighted, timeout=10000):
        view.set_highlights(
            [{"id": "x", "kind": "collateral", "start": end, "end": end, "label": "", "mark": True}]
        )
    boxes = js(qtbot, view, "window.__arl.markBoxes()")
    assert len(boxes) == 1
    left, top = boxes[0]
    assert left > 100 and top > 40  # beside "here.", not at the page's top-left corner


@pytest.mark.parametrize(
    "refresh",
    ['content="1"', 'content="0; url=https://example.com/"'],
    ids=["itself-after-a-second", "elsewhere-at-once"],
)
def test_a_refused_meta_refresh_is_not_a_failed_load(qtbot, view, refresh):
    """Chromium reports the refused refresh as loadFinished(False); the document is still
    shown and its marks stand, so no "could not be loaded" notice appears."""
    raw = (
        '<!doctype html><html><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" {refresh}></head>'
        "<body><p>Hello world, this is a test page.</p></body></html>"
    ).encode()
    failures = []
    view.rendered.connect(lambda ok: ok or failures.append("rendered(False)"))
    load(qtbot, view, raw)
    with qtbot.waitSignal(view.highlighted, timeout=10000) as blocker:
        view.set_highlights([{"id": "c1", "kind": "untouched", "start": 0, "end": 5}])
    assert blocker.args[0]["made"] == 1
    qtbot.waitUntil(lambda: bool(view.page().refused), timeout=10000)  # the refresh came
    qtbot.wait(300)  # and its failed load was reported
    assert view.problem == "" and failures == []


# A Persian line ends with a full stop; an English line follows it.
PERSIAN = "این یک جملهٔ فارسی است.\nAn English line follows.\n"
# Where the Persian line's first letter and its full stop stand, and each line's direction.
LINE_LAYOUT = (
    "(function(){var pre=document.body.firstElementChild;var t=pre.firstChild;"
    "function x(i){var r=document.createRange();r.setStart(t,i);r.setEnd(t,i+1);"
    "return r.getBoundingClientRect().left;}"
    "var s=t.data, stop=s.indexOf('.'), e=s.indexOf('An English');"
    "return {first:x(0), stop:x(stop), en:x(e), enEnd:x(s.indexOf('follows')),"
    "bidi:getComputedStyle(pre).unicodeBidi, text:document.body.textContent};})()"
)


@pytest.mark.parametrize("shape", ["text", "bundle-wrapper"])
def test_a_right_to_left_plain_text_is_laid_out_right_to_left(qtbot, view, shape):
    from engine.text.text_page import text_as_html

    if shape == "text":
        load(qtbot, view, PERSIAN, kind="text")
    else:  # a bundle's document/vN.html, verified equal to text_as_html(vN.txt)
        load(qtbot, view, text_as_html(PERSIAN, "v1").encode("utf-8"))
    got = js(qtbot, view, LINE_LAYOUT)
    assert got["bidi"] == "plaintext"
    # right to left: the full stop stands left of the line's first letter
    assert got["stop"] < got["first"]
    # the English line keeps left to right
    assert got["en"] < got["enEnd"]
    assert got["text"].endswith(PERSIAN)  # the text (and so every offset) is unchanged


def test_an_html_pre_with_markup_keeps_its_own_direction(qtbot, view):
    load(qtbot, view, b"<!doctype html><body><pre class='code'>x = 1</pre><p>y</p></body>")
    assert js(qtbot, view, "getComputedStyle(document.querySelector('pre')).unicodeBidi") != (
        "plaintext"
    )


def test_the_dark_mark_reaches_the_page_and_the_scorecards_dark_rules(qtbot, view):
    """``show_document(dark=True)`` marks the page's root ``arl-dark`` before it is drawn,
    so this program's scorecard takes its dark rules; without it, the page is as written."""
    from engine.bundle.scorecard_css import CSS as _CSS

    page = f"<!DOCTYPE html><html><head><style>{_CSS}</style></head><body>x</body></html>"
    background = "getComputedStyle(document.body).backgroundColor"
    with qtbot.waitSignal(view.rendered, timeout=20000):
        view.show_document(page.encode("utf-8"), labels=False, dark=True)
    assert js(qtbot, view, "document.documentElement.className") == "arl-dark"
    assert js(qtbot, view, background) == "rgb(31, 31, 31)"
    with qtbot.waitSignal(view.rendered, timeout=20000):
        view.show_document(page.encode("utf-8"), labels=False)
    assert js(qtbot, view, "document.documentElement.className") == ""
    assert js(qtbot, view, background) == "rgb(246, 246, 244)"
