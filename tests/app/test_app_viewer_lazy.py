"""Long documents laid out as they are seen (resources/web/arl-early.js, docs/gui.md):
the same text and offsets, every mark drawn where its text is once scrolled or jumped to,
Find reaching text not yet laid out, and the Verdicts view on a long bundle."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from app.docview import LAZY_BYTES

# Words in several scripts (Latin, CJK, Arabic, Thai, emoji beyond the BMP), so offsets in
# UTF-16 units and code points differ and lines break in different ways.
WORDS = (
    "review",
    "budget",
    "\u9810\u7b97",
    "\u5ba1\u67e5",
    "\u0645\u0631\u0627\u062c\u0639\u0629",
    "\u0e07\u0e1a\u0e1b\u0e23\u0e30\u0e21\u0e32\u0e13",
    "\U0001f4c4",
    "\U0001f469\u200d\U0001f4bb",
    "caf\u00e9",
)


def u16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def long_page(seed: int = 1, size: int = LAZY_BYTES + 100_000) -> tuple[str, str, list[dict]]:
    """(html, body text, spans): paragraphs of mixed scripts past LAZY_BYTES, a unique
    marker word per paragraph; one span on each tenth marker (UTF-16 offsets)."""
    rnd = random.Random(seed)
    parts, text, spans = [], [], []
    n16 = 0
    k = 0
    while sum(len(p) for p in parts) < size:
        words = [rnd.choice(WORDS) for _ in range(rnd.randint(20, 60))]
        marker = f"marker{k:05d}"
        words.insert(rnd.randrange(len(words)), marker)
        body = " ".join(words)
        before = body[: body.index(marker)]
        head = f"<h2>Part {k}</h2>" if k % 25 == 0 else ""
        if head:
            text.append(f"Part {k}")
            n16 += u16(f"Part {k}")
        if k % 10 == 0:
            s = n16 + u16(before)
            spans.append(
                {
                    "id": f"c{k}",
                    "kind": ("edited", "untouched", "deleted")[k % 3],
                    "start": s,
                    "end": s + len(marker),
                    "label": f"\u270e {k}",
                    "quote": marker,
                }
            )
        parts.append(f"{head}<p>{body}</p>")
        text.append(body)
        n16 += u16(body)
        k += 1
    html = (
        "<!doctype html><html><head><meta charset=utf-8><title>long</title></head><body>"
        + "".join(parts)
        + "<p>The last words: zebraquartz here.</p></body></html>"
    )
    return html, "".join(text) + "The last words: zebraquartz here.", spans


def js(qtbot, view, source):
    with qtbot.waitCallback(timeout=20000) as cb:
        view.run_js(source, cb)
    return cb.args[0]


def show(qtbot, view, html, spans):
    with qtbot.waitSignal(view.rendered, timeout=60000):
        view.show_document(html)
    with qtbot.waitSignal(view.highlighted, timeout=60000) as blocker:
        view.set_highlights([{k: v for k, v in sp.items() if k != "quote"} for sp in spans])
    return blocker.args[0]


def block_shown(qtbot, view, sp) -> bool:
    """Whether the block holding ``sp`` is laid out (not skipped by content-visibility),
    as the page's contentvisibilityautostatechange events say."""
    return js(
        qtbot,
        view,
        f"__arlEarly.shown.has(__arl.rangeFor({sp['start']},{sp['end']}).startContainer"
        ".parentElement)",
    )


def badge_at_its_text(qtbot, view, sp) -> bool:
    """The badge of ``sp`` is on screen, standing where the first box of its text is."""
    got = js(
        qtbot,
        view,
        f"(function(){{var b=__arl.badgesOnScreen()[{sp['id']!r}];"
        f"var r=__arl.rangeFor({sp['start']},{sp['end']}).getClientRects()[0];"
        "return b ? [b[0], b[1], r.left, r.top] : null;})()",
    )
    return got is not None and abs(got[0] - got[2]) <= 3 and abs(got[1] - (got[3] - 1)) <= 3


def painted_text(qtbot, view, sp) -> str | None:
    """The text of the painted range of ``sp``'s kind that starts at its offset."""
    return js(
        qtbot,
        view,
        f"(function(){{var h=CSS.highlights.get(__arl.ns+'-{sp['kind']}');"
        f"var want=__arl.rangeFor({sp['start']},{sp['end']});"
        "var out=null; h.forEach(function(r){ if (r.compareBoundaryPoints(Range.START_TO_START,"
        " want)===0 && r.compareBoundaryPoints(Range.END_TO_END, want)===0) out=r.toString();});"
        "return out;})()",
    )


@pytest.fixture(scope="module")
def page():
    return long_page()


def test_a_long_document_is_laid_out_as_seen_with_the_same_text(qtbot, view, page):
    from engine.text.html_text import body_text

    html, text, spans = page
    assert body_text(html) == text
    result = show(qtbot, view, html, spans)
    assert result["made"] == len(spans) and result["failed"] == []
    assert view.lazy and js(qtbot, view, "__arl.lazy()") is True
    with qtbot.waitCallback(timeout=20000) as cb:
        view.body_text(cb)
    assert cb.args[0] == text  # the layout changed, not one character
    assert not block_shown(qtbot, view, spans[-1])  # far down: not laid out yet
    assert spans[-1]["id"] not in js(qtbot, view, "__arl.badgesOnScreen()")


def test_a_mark_far_down_is_drawn_once_jumped_to(qtbot, view, page):
    html, _text, spans = page
    show(qtbot, view, html, spans)
    far = spans[-2]
    assert far["id"] not in js(qtbot, view, "__arl.badgesOnScreen()")
    # At once: asked in the task that jumps (what DocumentView.focus_span runs), before
    # any frame. A separate ask may come after a frame has laid out the blocks above it
    # and the page settled down to its text, with its badge not yet drawn again there.
    got = js(qtbot, view, f"[__arl.focus({far['id']!r}), {far['id']!r} in __arl.badgesOnScreen()]")
    assert got == [True, True]
    # And still right after the page settles.
    qtbot.waitUntil(lambda: badge_at_its_text(qtbot, view, far), timeout=10000)
    assert painted_text(qtbot, view, far) == far["quote"]


# Each frame's start, from a requestAnimationFrame callback: the badge's box top (CSS px
# from the view's top; null: not drawn) and whether it is whole in view.
WATCH_BADGE = """(function (id) {
  var log = window.__frames = [];
  function f() {
    var b = __arl.badgeBoxes()[id];
    log.push([b ? Math.round(b[0]) : null, !!b && b[0] >= 0 && b[1] <= innerHeight, scrollY]);
    if (log.length < 70) requestAnimationFrame(f);
  }
  requestAnimationFrame(f);
  return 0;
})"""


def test_a_jumped_to_badge_stays_at_its_text_while_the_blocks_above_are_laid_out(qtbot, view, page):
    """After a jump far down the blocks above the view are laid out in the next frames
    and scroll anchoring moves the page under the text; the badges stand in page
    coordinates, so they are drawn again in the frame of that layout (a ResizeObserver,
    told before the paint): never a frame with the badge away from its text (it was off
    screen for a frame or two, 2,500-3,000 CSS px above, on the 5 MB benchmark)."""
    html, _text, spans = page
    show(qtbot, view, html, spans)
    far = spans[-3]
    js(qtbot, view, WATCH_BADGE + f"({far['id']!r})")
    assert js(qtbot, view, f"__arl.focus({far['id']!r})") is True
    qtbot.waitUntil(lambda: len(js(qtbot, view, "window.__frames")) >= 70, timeout=20000)
    frames = js(qtbot, view, "window.__frames")
    first = next(i for i, f in enumerate(frames) if f[1])
    assert len({f[2] for f in frames[first:]}) > 1  # the page did move under it
    tops = [f[0] for f in frames[first:]]
    assert all(f[1] for f in frames[first:]), frames
    assert max(tops) - min(tops) <= 2, tops


def test_scroll_anchoring_is_no_move_of_the_text_for_the_scroll_link(qtbot, view, page):
    """Content added above the view: Chromium's scroll anchoring moves the page and the
    text in view stays put, so the page counts no move for the scroll link; a scroll by
    the reader is one."""
    html, _text, spans = page
    show(qtbot, view, html, spans)
    js(qtbot, view, "(window.scrollTo(0, document.documentElement.scrollHeight / 2), 0)")
    qtbot.wait(500)
    before = js(qtbot, view, "[__arl.topPlace(), window.scrollY]")
    js(
        qtbot,
        view,
        "(function () { var d = document.createElement('div'); d.style.height = '500px';"
        " document.body.insertBefore(d, document.body.firstChild); return 0; })()",
    )
    qtbot.wait(300)
    after = js(qtbot, view, "[__arl.topPlace(), window.scrollY]")
    assert after[1] - before[1] >= 500  # the page moved under the text (and a margin)
    assert after[0]["off"] == before[0]["off"] and abs(after[0]["y"] - before[0]["y"]) <= 1
    assert after[0]["moves"] == before[0]["moves"]
    js(qtbot, view, "(window.scrollBy(0, 90), 0)")
    qtbot.wait(300)
    assert js(qtbot, view, "__arl.topPlace().moves") == before[0]["moves"] + 1


def test_a_mark_far_down_is_drawn_once_scrolled_to(qtbot, view, page):
    html, _text, spans = page
    show(qtbot, view, html, spans)
    far = spans[len(spans) * 3 // 4]
    js(
        qtbot,
        view,
        f"(__arl.rangeFor({far['start']},{far['end']}).startContainer.parentElement"
        ".scrollIntoView({block: 'center'}), 0)",
    )
    qtbot.waitUntil(lambda: badge_at_its_text(qtbot, view, far), timeout=10000)
    assert block_shown(qtbot, view, far)
    assert painted_text(qtbot, view, far) == far["quote"]
    # The marks around it are drawn too, each at its own text.
    i = spans.index(far)
    for sp in spans[i - 1 : i + 2]:
        if sp["id"] in js(qtbot, view, "__arl.badgesOnScreen()"):
            assert badge_at_its_text(qtbot, view, sp)


LAST_SHOWN = "__arlEarly.shown.has(document.body.lastElementChild)"


def test_find_reaches_text_not_yet_laid_out(qtbot, view, page):
    from app.findbar import FindBar

    html, _text, spans = page
    show(qtbot, view, html, spans)
    last = js(qtbot, view, LAST_SHOWN)
    assert last is False  # the last paragraph is not laid out
    bar = FindBar(lambda: [view], lambda: [], lambda _i: None, lambda: -1)
    qtbot.addWidget(bar)
    bar.open_bar()
    bar.field.setText("zebraquartz")
    qtbot.waitUntil(lambda: bar.matches.get("pane0") == 1, timeout=20000)
    assert bar.result.text().startswith("1 of 1 in the document")
    # Chromium scrolls to the match and lays its block out.
    qtbot.waitUntil(lambda: js(qtbot, view, LAST_SHOWN) is True, timeout=10000)
    bar.field.setText("marker00000")
    qtbot.waitUntil(lambda: bar.matches.get("pane0") == 1, timeout=20000)


def test_a_short_document_is_laid_out_whole_with_every_badge(qtbot, view):
    html, _text, spans = long_page(seed=2, size=40_000)
    show(qtbot, view, html, spans)
    assert not view.lazy and js(qtbot, view, "__arl.lazy()") is False
    assert js(qtbot, view, "__arlEarly.shown.size") == 0
    on_screen = js(qtbot, view, "__arl.badgesOnScreen()")
    assert spans[0]["id"] in on_screen and badge_at_its_text(qtbot, view, spans[0])
    # Far down, drawn from the start (the whole page is laid out).
    with qtbot.waitCallback(timeout=20000) as cb:
        view.focus_span(spans[-1]["id"], cb)
    qtbot.waitUntil(lambda: badge_at_its_text(qtbot, view, spans[-1]), timeout=10000)


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # a page load per example: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(min_value=3, max_value=10_000), pick=st.integers(0, 10_000))
def test_lazy_layout_paints_every_span_on_its_own_text(qtbot, view, seed, pick):
    """Property: in a long document of any mix of scripts, every span's painted range is
    exactly its text, and a span jumped to has its badge at its text."""
    html, text, spans = long_page(seed=seed)
    show(qtbot, view, html, spans)
    b = text.encode("utf-16-le")
    ranges = js(
        qtbot,
        view,
        "["
        + ",".join(f"__arl.rangeFor({sp['start']},{sp['end']}).toString()" for sp in spans)
        + "]",
    )
    assert ranges == [b[2 * sp["start"] : 2 * sp["end"]].decode("utf-16-le") for sp in spans]
    sp = spans[pick % len(spans)]
    with qtbot.waitCallback(timeout=20000) as cb:
        view.focus_span(sp["id"], cb)
    assert cb.args[0] is True
    qtbot.waitUntil(lambda: badge_at_its_text(qtbot, view, sp), timeout=10000)


# -------------------------------------------------------------------------------------------
# The Verdicts view on a long bundle (the engine writes it: engine.run.external)
# -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def long_bundle(tmp_path_factory):
    import importlib.util
    from pathlib import Path

    from engine.run.external import ExternalRevision, check_revision

    spec = importlib.util.spec_from_file_location(
        "bench_viewer", Path(__file__).resolve().parents[2] / "benchmarks" / "bench_viewer.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    v1, v2 = bench.make_documents(LAZY_BYTES + 150_000)
    rev = ExternalRevision(
        title="Long",
        kind="html",
        v1=v1,
        v2=v2,
        comments=bench.make_comments(v1, 300),
        message="Addressed all review comments.",
    )
    folder, _ = check_revision(rev, folder=tmp_path_factory.mktemp("long") / "bundle")
    return folder


def test_a_long_bundle_first_screen_then_a_far_comment_and_linked_scrolling(qtbot, long_bundle):
    from app.window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1366, 900)
    w.show()
    v = w.verdicts
    order: list[str] = []
    v.firstScreen.connect(lambda: order.append("first"))
    v.rendered.connect(lambda: order.append("rendered"))
    with qtbot.waitSignal(v.rendered, timeout=120000):
        w.open_bundle(long_bundle, remember=False)
    assert order[0] == "first" and "rendered" in order
    assert v.v1.lazy and v.v2.lazy
    assert v.last_highlight["v1"]["failed"] == [] and v.last_highlight["v2"]["failed"] == []
    # The comment furthest down v1: picked in the table, both panes stand on it with its
    # badge at its text, the detail pane says which it is.
    far = max(
        (
            r
            for r in range(len(v.rows))
            if isinstance((v.rows[r]["item"].get("v1") or {}).get("start"), int)
        ),
        key=lambda r: v.rows[r]["item"]["v1"]["start"],
    )
    row = v.rows[far]
    spans = {}
    for side in ("v1", "v2"):
        sp = row["item"].get(side)
        if isinstance(sp, dict) and isinstance(sp.get("start"), int):
            spans[side] = {
                "id": row["id"],
                "start": sp["start"],
                "end": sp["end"],
                "kind": row["verdict"],
            }
    v.table.selectRow(far)
    for side, sp in spans.items():
        pane = getattr(v, side)
        qtbot.waitUntil(lambda pane=pane, sp=sp: badge_at_its_text(qtbot, pane, sp), timeout=20000)
        assert painted_text(qtbot, pane, sp) == (row["item"][side].get("text") or row["quote"])
    assert f"Comment {row['n']}" in v.detail.toPlainText()
    # Linked scrolling: v1 moved to the middle of the document, v2 follows to the place
    # the engine's alignment gives.
    followed = v.tools.link.followed
    v.tools.link._quiet.clear()
    v.tools.link._moves.clear()
    js(qtbot, v.v1, "(window.scrollTo(0, document.documentElement.scrollHeight / 2), 0)")
    qtbot.waitUntil(lambda: v.tools.link.followed > followed, timeout=60000)

    def v2_there() -> bool:
        # v1's own top is read each time: blocks laid out as they come into view
        # (content-visibility) can still move it after the scroll, and v2 follows it.
        top1 = js(qtbot, v.v1, "__arl.topOffset()")
        top2 = js(qtbot, v.v2, "__arl.topOffset()")
        if not (isinstance(top1, int) and isinstance(top2, int)):
            return False
        return abs(top2 - v.change_cv.b_for_a(top1)) < 400

    qtbot.waitUntil(v2_there, timeout=60000)
    w.close()


def test_page_calls_do_not_use_up_none(qtbot, view):
    """PySide6 6.12 drops a reference to None per call of a Qt method returning nothing
    (runJavaScript, processEvents, ...): ``app`` gives None enough references once, so a
    long session (two page calls per linked scroll) never frees it."""
    import sys

    from PySide6.QtWidgets import QApplication

    html, _text, spans = long_page(seed=4, size=20_000)
    show(qtbot, view, html, spans)
    got: list = []
    for _ in range(2000):
        view.run_js("1", got.append)
    for _ in range(2000):
        QApplication.processEvents()
    qtbot.waitUntil(lambda: len(got) == 2000, timeout=60000)
    # Without the references given, None's count is some tens of thousands and each call
    # above took one.
    assert sys.getrefcount(None) > 1 << 39


def test_the_change_spans_follow_the_first_screen_and_the_rederivation_follows_them(
    qtbot, long_bundle, monkeypatch
):
    """Python work after the first screen runs one piece at a time: the diff of v1 -> v2
    starts once both panes show their first marks, the re-derivation once the change spans
    are in (run together they share one interpreter and their memory peaks add)."""
    import app.changes_view as changes_view
    import engine.bundle.rederive as rederive_mod
    from app.window import MainWindow

    order: list[str] = []
    compute, rederive = changes_view.compute, rederive_mod.rederive

    def diff(pair):
        order.append("diff starts")
        out = compute(pair)
        order.append("diff ends")
        return out

    def rederived(*args, **kwargs):
        order.append("rederive starts")
        return rederive(*args, **kwargs)

    monkeypatch.setattr(changes_view, "compute", diff)
    monkeypatch.setattr(rederive_mod, "rederive", rederived)
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1366, 900)
    w.show()
    v = w.verdicts
    v.firstScreen.connect(lambda: order.append("first screen"))
    with qtbot.waitSignal(v.rendered, timeout=120000):
        w.open_bundle(long_bundle, remember=False)
    qtbot.waitUntil(lambda: v.data.rederivation is not None, timeout=120000)
    assert order == ["first screen", "diff starts", "diff ends", "rederive starts"], order
    assert v.last_highlight["v1"]["failed"] == [] and v.last_highlight["v2"]["failed"] == []
