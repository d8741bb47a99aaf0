"""A long document's blocks grouped for Chromium (resources/web/arl-early.js, docs/gui.md
"Long documents"): grouped only where no rule of the document's CSS reads differently and
every block stands exactly where it stood; the same text; a block counts as shown only
while its group is; a held page's first part is never moved."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from app.docview import LAZY_BYTES
from tests.app.test_app_viewer_lazy import js, long_page, show

FILLER = " ".join(["review the budget of the regional office"] * 10)


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


def block_places(qtbot, view) -> list[list]:
    """[top, height, left, width, and the computed colour, direction, left border and
    left padding] of every block (page CSS px), every block and group laid out with the
    containment content-visibility:auto gives them when shown (layout containment keeps a
    group's first and last margins inside it)."""
    return js(
        qtbot,
        view,
        "(function(){var all=document.querySelectorAll(__arlEarly.blocks + ',' +"
        " __arlEarly.group);"
        "all.forEach(function(e){e.style.setProperty('content-visibility','visible',"
        "'important');e.style.setProperty('contain','layout style paint','important');});"
        "var out=[];document.querySelectorAll('p,h2,ul,blockquote').forEach(function(e){"
        "var r=e.getBoundingClientRect(),c=getComputedStyle(e);"
        "out.push([r.top+scrollY,r.height,r.left,r.width,c.color,c.direction,"
        "c.borderLeftStyle+' '+c.borderLeftColor,c.paddingLeft]);});"
        "return out;})()",
    )


def same_places(grouped: list[list], plain: list[list]) -> list:
    """The blocks that differ: index, grouped, ungrouped (positions to 0.01 CSS px)."""
    assert len(plain) == len(grouped) > 1000

    def same(a: list, b: list) -> bool:
        return all(abs(x - y) <= 0.01 for x, y in zip(a[:4], b[:4])) and a[4:] == b[4:]

    return [(i, a, b) for i, (a, b) in enumerate(zip(grouped, plain)) if not same(a, b)]


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
    off = same_places(grouped, block_places(qtbot, view))
    assert not off, off[:5]


# CSS under which a group would change what a reader sees unless grouping heeds it (an
# attacker's brief): each page reads the same as the same page kept ungrouped.
HOSTILE_CSS = [
    "body > :not(p) {--c: red} p {color: var(--c, black)}",  # a custom property on a group
    "body > :not(p) {direction: rtl} p {width: 50%}",  # all: unset leaves direction
    # (rules that match a group and no other element)
    "body :not(p, h2, ul, li, blockquote, pre, hr) {--c: red} p {color: var(--c, black)}",
    "body :not(p, h2, ul, li, blockquote, pre, hr) {direction: rtl} p {width: 50%}",
    "p {border-left: inherit; padding-left: inherit} body {border-left: 3px solid red;"
    " padding-left: 30px}",  # inherit reads the parent
    "p {margin: inherit} body {margin: 8px 20px}",
    "p {height: 0.005%} body {height: 600000px}",  # a percentage of the container's height
    "p.tight {writing-mode: vertical-rl; height: 5em; margin: 1em 0}",  # orthogonal flow
    "p.tight {zoom: 2; margin: 10px 0}",  # margins read before zoom
    "p {margin: 0 0 0.1in}",  # end margins only (LibreOffice, Bootstrap)
    "p, p.tight, h2, ul, blockquote {margin: 0 0 0.1in !important}",
    "p {margin: -4px 0 12px} h2 {margin: 0 0 -2px}",  # negative margins
    # (a second attacker's brief)
    "body :dir(ltr) p {color: red}",  # a group is ltr, as its container
    "body :read-only p {color: red}",  # and never editable
    "body {justify-items: center} p {max-width: 500px}",  # blocks align by their parent's
    "html {columns: 2} h2 {column-span: all}",  # a multi-column ancestor
]


@pytest.mark.parametrize("rule", HOSTILE_CSS)
def test_a_page_reads_the_same_grouped_as_not(qtbot, view, rule):
    show(qtbot, view, mixed_page(rule), [])
    groups = grouping(qtbot, view)
    grouped = block_places(qtbot, view)
    show(qtbot, view, mixed_page(rule + " body > p {}"), [])
    assert grouping(qtbot, view)["groups"] == 0
    off = same_places(grouped, block_places(qtbot, view))
    assert not off, (groups, off[:3])


def test_end_margins_alone_still_group(qtbot, view):
    """Paragraphs with only an end margin (0 0 0.1in) are grouped: an edge keeps both
    margins where one is zero."""
    every = "p, p.tight, h2, ul, blockquote {margin: 0 0 0.1in !important}"
    show(qtbot, view, mixed_page(every), [])
    got = grouping(qtbot, view)
    assert got["groups"] > 10, got


def test_a_float_beside_the_blocks_keeps_the_page_ungrouped(qtbot, view):
    html = mixed_page().replace(
        "<body>", '<body><div style="float:right;width:300px;height:30000px"></div>'
    )
    show(qtbot, view, html, [])
    got = grouping(qtbot, view)
    assert got["groups"] == 0, got


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
        "body > :not(p)::before {content: 'INJECTED'; display: block}",
        "[style]::before {content: attr(style); display: block}",
        "body > :not(p)::first-letter {font-size: 3em}",
        ":hover::before {content: 'HOVERED'}",
        "body {counter-reset: h} h2 {counter-increment: h} h2::before {content: counter(h)}",
    ],
)
def test_a_rule_that_reads_structure_keeps_the_page_ungrouped(qtbot, view, rule):
    """Ungrouped, or (a counter) no group holds an element that counts."""
    show(qtbot, view, mixed_page(rule), [])
    got = grouping(qtbot, view)
    if "counter" in rule:
        assert js(qtbot, view, "document.querySelectorAll(__arlEarly.group + ' h2').length") == 0
        return
    assert got["groups"] == 0 and got["why"], got


@pytest.mark.parametrize(
    "extra",
    [
        "<style>p:has(~ .zz) {color: navy}</style>",
        '<div><template shadowrootmode="closed"><slot></slot></template></div>',
        "<style>@container (min-width: 1px) {p {color: navy}}</style>",
    ],
)
def test_what_grouping_cannot_tell_keeps_the_page_ungrouped(qtbot, view, extra):
    show(qtbot, view, mixed_page().replace("<body>", "<body>" + extra), [])
    got = grouping(qtbot, view)
    assert got["groups"] == 0 and got["why"], got


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
    got = grouping(qtbot, view)
    assert got["groups"] > 10, got
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


def test_a_list_numbered_across_its_lists_is_not_contained(qtbot, view):
    """A Google Docs export numbers one list cut into an <ol> per item with a counter of
    its own: content-visibility's style containment would count from 1 in each, so a block
    holding an element that counts is laid out whole, and is in no group."""
    css = (
        ".lst-kix_1 > li {counter-increment: lst-ctn-kix_1}"
        " ol.lst-kix_1.start {counter-reset: lst-ctn-kix_1 0}"
        " .lst-kix_1 > li::before {content: counter(lst-ctn-kix_1, decimal) '. '}"
    )
    page = (
        mixed_page(css)
        .replace("<ul><li>item", '<ol class="lst-kix_1"><li>item')
        .replace("<li>two</li></ul>", "</li></ol>")
    )
    show(qtbot, view, page, [])
    got = js(
        qtbot,
        view,
        "(function(){var ols=document.querySelectorAll('ol.lst-kix_1');"
        "return [ols.length, [].filter.call(ols,function(o){return getComputedStyle(o)"
        ".contentVisibility!=='visible';}).length, document.querySelectorAll("
        "__arlEarly.group+' ol').length, "
        "getComputedStyle(document.querySelector('p')).contentVisibility];})()",
    )
    assert got[0] > 100 and got[1] == 0 and got[2] == 0 and got[3] == "auto", got


MARGINS = st.sampled_from(["0", "3px", "10px", "1em", "24px", "-2px", "-8px", "0.5em", "2%"])


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # two page loads an example
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kinds=st.lists(
        st.tuples(st.sampled_from(["p", "h2", "blockquote", "ul"]), MARGINS, MARGINS),
        min_size=2,
        max_size=5,
    ),
    seed=st.integers(0, 10_000),
)
def test_any_margins_stand_the_same_grouped_or_not(qtbot, view, kinds, seed):
    """Property: blocks of a few kinds with any start and end margins (positive, zero,
    negative, em, a percentage), in any order, stand where they stood ungrouped."""
    rnd = random.Random(seed)
    css = " ".join(
        f".k{i} {{margin: {top} 0 {bottom}}}" for i, (_tag, top, bottom) in enumerate(kinds)
    )
    blocks: list[str] = []
    i = 0
    while sum(len(b) for b in blocks) < LAZY_BYTES + 30_000:
        if rnd.random() < 0.3:  # runs of one kind, as real pages have
            i = rnd.randrange(len(kinds))
        tag = kinds[i][0]
        inner = f"<li>{FILLER}</li>" if tag == "ul" else FILLER
        blocks.append(f'<{tag} class="k{i}">{len(blocks)} {inner}</{tag}>\n')
    page = (
        "<!doctype html><html><head><meta charset=utf-8><style>{}</style></head>"
        "<body>{}</body></html>"
    )
    show(qtbot, view, page.format(css, "".join(blocks)), [])
    groups = grouping(qtbot, view)
    grouped = block_places(qtbot, view)
    show(qtbot, view, page.format(css + " body > * {}", "".join(blocks)), [])
    assert grouping(qtbot, view)["groups"] == 0
    off = same_places(grouped, block_places(qtbot, view))
    assert not off, (groups, off[:3])


# Ink a block paints outside its own box: a group paints only inside its box.
INK_CSS = [
    "p {outline: 2px solid red}",
    "p {box-shadow: -8px 0 0 red}",
    "p {margin: 0 -8px}",  # hanging into the body's margin
    "p {width: 1200px}",  # wider than the view
    "p {transform: translateX(-6px)}",
    "p {margin: -6px 0 12px; background: rgba(0, 0, 200, 0.2)}",  # overlapping the one above
    "p {margin: 12px 0 -6px; background: rgba(0, 0, 200, 0.2)}",  # and the one below
]


@pytest.mark.parametrize("rule", INK_CSS)
def test_what_a_block_paints_outside_its_box_is_shown_grouped_as_not(qtbot, view, rule):
    """The first screen, as pixels, is the same grouped or kept ungrouped."""

    def screen(css: str):
        show(qtbot, view, mixed_page(css), [])
        js(qtbot, view, "(window.scrollTo(0, 900), 0)")
        qtbot.wait(400)
        return view.grab().toImage()

    grouped = screen(rule)
    groups = grouping(qtbot, view)
    plain = screen(rule + " body > p {}")
    assert grouping(qtbot, view)["groups"] == 0
    assert grouped == plain, groups


def test_a_paragraph_numbered_as_a_list_item_is_in_no_group(qtbot, view):
    """display: list-item counts with the list-item counter, which a group's style
    containment would restart."""
    show(qtbot, view, mixed_page("p {display: list-item; list-style: decimal inside}"), [])
    n = js(
        qtbot,
        view,
        "[].filter.call(document.querySelectorAll(__arlEarly.group + ' > *'), function(e){"
        "return getComputedStyle(e).display === 'list-item';}).length",
    )
    assert n == 0


@pytest.mark.parametrize("codec", ["utf-8", "utf-16-le", "utf-16-be"])
def test_a_declared_shadow_root_is_seen_in_any_encoding(codec):
    from app.docview import _declares_shadow_root

    page = '<div><template ShadowRootMode="closed"><slot></slot></template></div>'
    assert _declares_shadow_root(page.encode(codec))
    assert _declares_shadow_root(page)
    assert not _declares_shadow_root("<div>a shadow of a root</div>".encode(codec))


def test_only_ascii_letters_lower_to_the_letters_of_shadowroot():
    """_declares_shadow_root lowers the text and searches it: that finds what an ASCII
    case-blind search finds only while no other character lowers to one of the word's
    letters (U+212A KELVIN SIGN lowers to "k", U+0130 to "i" and a dot)."""
    others = [c for c in range(0x80, 0x110000) if set(chr(c).lower()) & set("shadowroot")]
    assert others == []


@pytest.mark.parametrize("rule", ["", "p {margin: -6px 0 12px} h2 {font-size: 3em}"])
def test_grouping_leaves_the_pages_height_as_it_was(qtbot, view, rule):
    """A group counts as high as its blocks did until shown (3em each and their margins):
    the page's height, and the scroll bar, barely change when its blocks are grouped
    (0.3% and 3% here; 25% when a group counted 3em a block without the margins; blocks
    shown before they were grouped keep their real height as the page remembers it)."""
    show(qtbot, view, mixed_page(rule), [])
    assert grouping(qtbot, view)["groups"] > 10
    grouped = js(qtbot, view, "document.documentElement.scrollHeight")
    show(qtbot, view, mixed_page(rule + " body > p {}"), [])
    plain = js(qtbot, view, "document.documentElement.scrollHeight")
    assert abs(grouped - plain) <= 0.05 * plain, (grouped, plain)
