"""A long document's blocks grouped for Chromium (resources/web/arl-early.js, docs/gui.md
"Long documents"): grouped only where no rule of the document's CSS reads differently and
every block stands exactly where it stood; the same text; a block counts as shown only
while its group is; a held page's first part is never moved."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.docview import LAZY_BYTES, DocumentView
from tests.app.test_app_viewer_lazy import js, long_page, show

FILLER = " ".join(["review the budget of the regional office"] * 10)


@pytest.fixture
def view(qtbot):
    v = DocumentView()
    qtbot.addWidget(v)
    v.resize(900, 700)
    v.show()
    return v


def mixed_page(style: str = "", container: str = "body") -> str:
    """A page past LAZY_BYTES of blocks of several kinds and margins under ``container``
    (``body`` or ``div``): paragraphs, headings, a paragraph class without margins, one
    with a wide margin of its own, lists, quotations, comments and bare white space, and
    now and then a <pre> and <hr> (not blocks a group holds: each ends a run)."""
    parts = []
    k = 0
    while sum(len(p) for p in parts) < LAZY_BYTES + 50_000:
        i = len(parts)
        if i % 89 == 0:
            parts.append(f"<pre>pre {i}</pre><hr>\n")  # no block of ours: a run ends
        elif i % 37 == 0:
            parts.append(f"<h2>Part {i}</h2>\n")
        elif i % 11 == 0:
            parts.append(f"<ul><li>item {i} {FILLER}</li><li>two</li></ul>")
        elif i % 13 == 0:
            parts.append(f"<blockquote>quoted {i} {FILLER}</blockquote><!-- note -->\n")
        elif i % 7 == 0:
            parts.append(f'<p class="tight">tight {i} {FILLER}</p>\n')
        elif i % 29 == 0:
            parts.append(f'<p style="margin: 3em 0 0.5em">wide {i} {FILLER}</p>  \n')
        else:
            parts.append(f"<p>para {i} {FILLER}</p>\n")
        k += 1
    blocks = "".join(parts)
    if container == "div":
        blocks = f"<div>{blocks}</div>"
    return (
        "<!doctype html><html><head><meta charset=utf-8><style>p.tight{margin:0}"
        f"h2{{margin:2em 0 .4em}}{style}</style></head><body>{blocks}</body></html>"
    )


def grouping(qtbot, view) -> dict:
    return js(qtbot, view, "({groups: __arlEarly.groups, why: __arlEarly.ungrouped})")


def block_places(qtbot, view) -> list[list[float]]:
    """[top, height] of every block (page CSS px), every block and group laid out with
    the containment content-visibility:auto gives them when shown (layout containment
    keeps a group's first and last margins inside it)."""
    return js(
        qtbot,
        view,
        "(function(){var all=document.querySelectorAll(__arlEarly.blocks + ',' +"
        " __arlEarly.group);"
        "all.forEach(function(e){e.style.setProperty('content-visibility','visible',"
        "'important');e.style.setProperty('contain','layout style paint','important');});"
        "var out=[];document.querySelectorAll('p,h2,ul,blockquote').forEach(function(e){"
        "var r=e.getBoundingClientRect();out.push([r.top+scrollY, r.height]);});"
        "return out;})()",
    )


@pytest.mark.parametrize("container", ["body", "div"])
def test_grouped_blocks_stand_where_they_stood_ungrouped(qtbot, view, container):
    # An empty rule that reads each block's parent keeps the same page ungrouped.
    show(qtbot, view, mixed_page(container=container), [])
    got = grouping(qtbot, view)
    assert got["groups"] > 10, got
    with qtbot.waitCallback(timeout=20000) as cb:
        view.body_text(cb)
    grouped_text = cb.args[0]
    grouped = block_places(qtbot, view)
    show(qtbot, view, mixed_page(f"{container} > p {{}}", container), [])
    got = grouping(qtbot, view)
    assert got["groups"] == 0 and "would read differently" in got["why"], got
    with qtbot.waitCallback(timeout=20000) as cb:
        view.body_text(cb)
    assert cb.args[0] == grouped_text
    plain = block_places(qtbot, view)
    assert len(plain) == len(grouped) > 1000
    off = [(i, a, b) for i, (a, b) in enumerate(zip(grouped, plain)) if abs(a[0] - b[0]) > 0.01]
    assert not off, off[:5]


@pytest.mark.parametrize(
    "rule",
    [
        "p + p {text-indent: 2em}",
        "h2 ~ ul {color: navy}",
        "body > p {color: navy}",
        "p:nth-child(odd) {color: navy}",
        "p:first-child {color: navy}",
        "body > :not(h2) {color: navy}",
        "body :is(*) > p {color: navy}",
        "p:has(+ p) {color: navy}",
    ],
)
def test_a_rule_that_reads_structure_keeps_the_page_ungrouped(qtbot, view, rule):
    show(qtbot, view, mixed_page(rule), [])
    got = grouping(qtbot, view)
    assert got["groups"] == 0 and "would read differently" in got["why"], got


def test_a_rule_that_reads_no_changed_structure_keeps_the_grouping(qtbot, view):
    rules = (
        "*, *::before, *::after {box-sizing: border-box}"
        "ul > li::before {content: ''} li:first-child {color: navy} p b {color: red}"
        "div p {color: green} ul li:nth-child(2) {color: gray}"
    )
    show(qtbot, view, mixed_page(rules), [])
    got = grouping(qtbot, view)
    assert got["groups"] > 10, got


def test_a_sibling_rule_reads_the_same_grouped_or_not(qtbot, view):
    """Groups start and end where margins allow, which may never part a heading from its
    paragraph: then the page may be grouped, and every paragraph after a heading is still
    bold (the rule matched again by Chromium found the same elements)."""
    show(qtbot, view, mixed_page("h2 + p {font-weight: bold}"), [])
    got = js(
        qtbot,
        view,
        "(function(){var out=[];document.querySelectorAll('h2').forEach(function(h){"
        "var p=h.nextElementSibling;if(p&&p.localName==='p')out.push(getComputedStyle(p)"
        ".fontWeight);});return out;})()",
    )
    assert len(got) > 10 and set(got) == {"700"}


def test_descendant_rules_through_a_group_keep_the_page_ungrouped(qtbot, view):
    show(qtbot, view, mixed_page("div * p {color: navy}", container="div"), [])
    assert grouping(qtbot, view)["groups"] == 0


def test_a_linked_stylesheet_keeps_the_page_ungrouped(qtbot, view):
    html = mixed_page().replace("</head>", "<link rel=stylesheet href='data:text/css,p{}'></head>")
    show(qtbot, view, html, [])
    got = grouping(qtbot, view)
    assert got["groups"] == 0 and "linked" in got["why"]


def test_a_block_counts_shown_only_while_its_group_is(qtbot, view):
    """Chromium says nothing of the blocks of a group it skips: after a trip to the end
    and back, no block far from the view counts as shown (a badge drawn there would lay
    out that part of the page)."""
    html, _text, spans = long_page()
    show(qtbot, view, html, spans)
    assert grouping(qtbot, view)["groups"] > 10
    far = (
        "(function(){var h=innerHeight,out=[];__arlEarly.shown.forEach(function(b){"
        "var r=b.getBoundingClientRect();if(r.bottom<-3*h||r.top>4*h)out.push(r.top);});"
        "return out;})()"
    )
    for y in ("document.documentElement.scrollHeight", "0"):
        js(qtbot, view, f"(window.scrollTo(0,{y}), 0)")
        qtbot.wait(600)
        assert js(qtbot, view, "__arlEarly.shown.size") > 0
        assert js(qtbot, view, far) == []


def test_a_held_pages_first_part_is_never_grouped(qtbot, view):
    from tests.app.test_app_viewer_first_part import show_held

    html, _text, spans = long_page(seed=5, size=LAZY_BYTES + 200_000)
    first, whole = show_held(qtbot, view, html, spans)
    assert first.get("first") is True and whole["failed"] == []
    assert grouping(qtbot, view)["groups"] > 10
    # Every group follows the last node the first part's marks were drawn in.
    assert js(
        qtbot,
        view,
        "(function(){var f=__arlEarly.fixed;if(!f)return false;"
        "var gs=document.querySelectorAll(__arlEarly.group);"
        "return gs.length>0&&[].every.call(gs,function(g){"
        "return !!(f.compareDocumentPosition(g)&Node.DOCUMENT_POSITION_FOLLOWING)"
        "&&!g.contains(f);});})()",
    )


@pytest.mark.parametrize("rule", ["", "p + p {text-indent: 2em}"])
def test_names_that_shadow_the_documents_methods_change_nothing(qtbot, view, rule):
    """<img name="styleSheets"> is document.styleSheets: the grouping reads the page's
    rules and finds its blocks through the prototypes all the same."""
    clobber = (
        '<img name="styleSheets" alt=""><img name="querySelectorAll" alt="">'
        '<form name="createElementNS"></form><img name="querySelector" alt="">'
    )
    show(qtbot, view, mixed_page(rule).replace("<body>", "<body>" + clobber), [])
    got = grouping(qtbot, view)
    if rule:
        assert got["groups"] == 0 and "would read differently" in got["why"], got
    else:
        assert got["groups"] > 10, got


def test_a_mark_between_two_groups_belongs_to_the_block_beside_it(qtbot, view):
    """A deleted paragraph's caret mark in the white space between two groups is drawn
    with the block beside it (while that block is shown), not always."""
    show(qtbot, view, mixed_page(), [])
    assert grouping(qtbot, view)["groups"] > 10
    offsets = js(
        qtbot,
        view,
        "(function(){var w=document.createTreeWalker(document.body,NodeFilter.SHOW_TEXT),"
        "n,at=0,out=[];while((n=w.nextNode())){var p=n.previousSibling;"
        "if(n.parentNode===document.body&&p&&p.localName===__arlEarly.group)out.push(at);"
        "at+=n.data.length;}return out;})()",
    )
    assert len(offsets) > 10
    spans = [
        {"id": f"d{i}", "kind": "deleted", "start": at, "end": at, "label": "gone"}
        for i, at in enumerate(offsets)
    ]
    with qtbot.waitSignal(view.highlighted, timeout=60000) as blocker:
        view.set_highlights(spans)
    assert blocker.args[0]["made"] == len(spans)
    assert js(qtbot, view, "__arl.drawStats().always") == 0
