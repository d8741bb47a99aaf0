"""The fast path of engine.text.html_text (lexbor) against the reference (justhtml).

The fast path may serve only where it is proven equal to the reference. "Equal" is the
whole Extraction: the same ``document.body.textContent``, the same elements in tree order
with the same namespace, tag name, attributes, parent and text span (so every markup
signature is the same), on

- every html5lib tree-construction input the conformance suite checks (1,573), and
- the real pages under ``tests/data`` (Standard Ebooks XHTML, F1000RD texts as HTML),
- hand-made inputs aimed at the places where the fast path infers instead of reading
  (namespaces after the adoption agency moved foreign elements, integration points).

Where the fast path declines (``_lexbor_body`` returns None) the reference serves, and the
case still checks that ``extract`` and ``body_text`` give the reference's answer.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.text import html_text
from engine.text.encoding import decode_html
from tests.engine.test_html5lib_conformance import CHECKED, expected_body_text

DATA = Path(__file__).resolve().parents[1] / "data"


def _elements(x: html_text.Extraction) -> list[tuple]:
    return [
        (x._el_parent[i], x._el_start[i], x._el_end[i]) + x._describe(i)
        for i in range(len(x._el_names))
    ]


def _both(source: str) -> tuple[html_text.Extraction, html_text.Extraction | None]:
    reference = html_text._reference_walk(html_text._reference_body(source), None)
    body = html_text._lexbor_body(source)
    if body is None:
        return reference, None
    foreign = bool(html_text._HAS_FOREIGN.search(source))
    return reference, html_text._fast_walk(None if body is False else body, None, foreign)


def _assert_same(source: str) -> bool:
    """Assert the fast path equals the reference on ``source``; False if it declined."""
    reference, fast = _both(source)
    got = html_text.extract(source)
    assert got.text == reference.text
    assert _elements(got) == _elements(reference)
    assert html_text.body_text(source) == reference.text
    if fast is None:
        return False
    assert fast.text == reference.text
    assert _elements(fast) == _elements(reference)
    n = len(reference.text)
    rng = random.Random(n)
    for _ in range(min(20, n + 1)):
        a = rng.randrange(n + 1)
        b = rng.randrange(a, n + 1)
        assert fast.markup_signature(a, b) == reference.markup_signature(a, b), (a, b)
    return True


@pytest.mark.parametrize("case", CHECKED, ids=lambda c: c.case_id)
def test_fast_path_equals_reference_on_html5lib_inputs(case) -> None:
    _assert_same(case.data)
    assert html_text.body_text(case.data) == expected_body_text(case.document)


def test_fast_path_serves_nearly_every_html5lib_input() -> None:
    """The fast path is the rule, not the exception: count where it declines."""
    declined = [c.case_id for c in CHECKED if html_text._lexbor_body(c.data) is None]
    # Declined: inputs with <frameset or annotation-xml (see _FAST_PATH_DECLINES).
    assert all(
        "frameset" in c.data.lower() or "annotation-xml" in c.data.lower()
        for c in CHECKED
        if c.case_id in declined
    )
    assert len(declined) < 150, len(declined)


def _real_pages() -> list[tuple[str, bytes]]:
    pages = [
        (str(p.relative_to(DATA)), p.read_bytes())
        for p in sorted((DATA / "standardebooks").rglob("*.xhtml"))
    ]
    assert pages, "no Standard Ebooks pages under tests/data"
    return pages


@pytest.mark.parametrize("name,data", _real_pages(), ids=lambda v: v if isinstance(v, str) else "")
def test_fast_path_equals_reference_on_real_pages(name: str, data: bytes) -> None:
    source, _ = decode_html(data)
    assert _assert_same(source), f"{name}: the fast path declined a plain page"


@pytest.mark.parametrize(
    "name,data", _real_pages()[:6], ids=lambda v: v if isinstance(v, str) else ""
)
def test_a_real_page_with_stray_nul_bytes_is_read_as_a_browser_reads_it(
    tmp_path: Path, name: str, data: bytes
) -> None:
    """A page with stray NUL bytes in its body text (docs/engine.md) is opened, not refused
    as binary, and both parsers drop every NUL
    from body text (HTML Standard, "in body": a U+0000 character token is ignored), so the
    text is the page's text without them."""
    from engine.text.documents import open_document

    rng = random.Random(len(data))
    # Before a space of body text (not inside a tag or a character reference, where a NUL
    # changes the markup itself, as it does in a browser).
    text_spaces = [
        i
        for i in range(len(data) // 4, len(data))
        if data[i] == 0x20
        and data.rfind(b">", 0, i) > max(data.rfind(b"<", 0, i), data.rfind(b"&", 0, i))
    ]
    spots = sorted(rng.sample(text_spaces, min(12, len(text_spaces))))
    assert spots, name
    nul = bytearray(data)
    for i in reversed(spots):
        nul[i:i] = b"\x00"
    path = tmp_path / "page.html"
    path.write_bytes(bytes(nul))
    doc = open_document(path)
    assert doc.content.count("\x00") == len(spots)
    _assert_same(doc.content)
    clean = html_text.extract(decode_html(data)[0]).text
    got = html_text.extract(doc.content).text
    assert "\x00" not in got
    # Where a NUL fell in body text it is dropped; in RCDATA or an attribute it would be
    # U+FFFD, and these pages have neither: the text is the page's own.
    assert got.replace("\ufffd", "") == clean.replace("\ufffd", ""), name


def test_fast_path_equals_reference_on_a_large_page() -> None:
    """Every Standard Ebooks body, one after another, in one page (about 1 MB)."""
    bodies = []
    for _, data in _real_pages():
        source, _ = decode_html(data)
        start = source.find("<body")
        end = source.rfind("</body>")
        if start >= 0 and end > start:
            bodies.append(source[source.index(">", start) + 1 : end])
    page = "<!DOCTYPE html><html><head><title>all</title></head><body>" + "".join(bodies)
    assert len(page) > 500_000
    assert _assert_same(page)


FOREIGN_CASES = [
    # Nodes that are not elements: comments, a processing instruction (a bogus comment),
    # a doctype in the body (ignored), CDATA outside foreign content.
    "<p>a<!--c-->b<?pi x?>c<!DOCTYPE html>d<![CDATA[e]]>f<svg><![CDATA[g]]></svg>",
    # An HTML title in the body (in-head rules) in a page that has SVG elsewhere.
    "<svg><title>s</title></svg><title>t</title><p>u",
    # Integration points and breakouts.
    "<svg><foreignObject><svg><title><math><mi><svg><desc><b>x</b></desc></svg></mi></math>"
    "</title></svg></foreignObject></svg>",
    "<math><mi><mglyph><b>x</b></mglyph><malignmark>y</malignmark></mi><svg><math>z</math>"
    "</svg></math>",
    "<svg><g><p>breakout</p><circle></svg><math><ms><svg><path/></svg></ms></math>",
    "<svg><clipPath><linearGradient viewbox=1 XLINK:HREF=2 XML:LANG=3></linearGradient>"
    "</clipPath></svg>",
    "<math definitionurl=x><mrow><mi>a</mi></mrow></math><svg><foreignobject><p>q</p>"
    "</foreignobject></svg>",
    "<table><svg><g>foster</g></svg><tr><td><math><mi>c</mi></math></td></tr></table>",
    "<SVG><DESC><FONT color=red>f</FONT></DESC><font>g</font></SVG>",
    "<template><svg><title>t</title></svg></template><svg>after</svg>",
    "<p><b><math><mo><b>z</p>w",
]

# Inputs where the reference (justhtml 3.16) departs from the HTML Standard and lexbor does
# not: an end tag of a formatting element outside an integration point, with the element
# opened inside it. SVG title, desc, foreignObject and MathML mi, mo, mn, ms, mtext,
# annotation-xml bound "has an element in scope" (HTML Standard, 13.2.4.2), so the
# formatting element is not in scope and the end tag is ignored ("adoption agency
# algorithm", step 4: "not in scope: parse error; return"); justhtml runs the algorithm
# across the boundary and moves the block out. The text is the same; the trees differ.
# Each expected tree is derived by hand from the standard: (parent, start, end, namespace,
# tag) per element in tree order.
SPEC_TREES = {
    "<b><svg><title><div>x</b>y": [
        (-1, 0, 2, "html", "body"),
        (0, 0, 2, "html", "b"),
        (1, 0, 2, "svg", "svg"),
        (2, 0, 2, "svg", "title"),
        (3, 0, 2, "html", "div"),
    ],
    "<b><svg><foreignObject><div>x</b>y": [
        (-1, 0, 2, "html", "body"),
        (0, 0, 2, "html", "b"),
        (1, 0, 2, "svg", "svg"),
        (2, 0, 2, "svg", "foreignObject"),
        (3, 0, 2, "html", "div"),
    ],
    "<a><math><mi><div>x</a>y<mglyph>z": [
        (-1, 0, 3, "html", "body"),
        (0, 0, 3, "html", "a"),
        (1, 0, 3, "math", "math"),
        (2, 0, 3, "math", "mi"),
        (3, 0, 3, "html", "div"),
        (4, 2, 3, "html", "mglyph"),
    ],
    # <mglyph> after the ignored </b>: the current node is the HTML <p>, so "in body"
    # makes an HTML mglyph there.
    "<b><math><mtext><p>x</b><mglyph>g</mglyph>": [
        (-1, 0, 2, "html", "body"),
        (0, 0, 2, "html", "b"),
        (1, 0, 2, "math", "math"),
        (2, 0, 2, "math", "mtext"),
        (3, 0, 2, "html", "p"),
        (4, 1, 2, "html", "mglyph"),
    ],
    # The inner </i> is in scope (no boundary between it and the current node): the
    # adoption agency moves <p> under the common ancestor, the SVG title; the outer </i>
    # is then outside the title's scope and ignored.
    "<i><svg><title><i><p>x</i></i>y": [
        (-1, 0, 2, "html", "body"),
        (0, 0, 2, "html", "i"),
        (1, 0, 2, "svg", "svg"),
        (2, 0, 2, "svg", "title"),
        (3, 0, 0, "html", "i"),
        (3, 0, 2, "html", "p"),
        (5, 0, 1, "html", "i"),
    ],
}


@pytest.mark.parametrize("source", sorted(SPEC_TREES))
def test_fast_path_follows_the_standard_where_the_reference_does_not(source: str) -> None:
    x = html_text.extract(source)
    assert x._lexbor
    got = [
        (x._el_parent[i], x._el_start[i], x._el_end[i], x._el_ns[i], x._el_names[i])
        for i in range(len(x._el_names))
    ]
    assert got == SPEC_TREES[source]
    reference, _ = _both(source)
    assert x.text == reference.text  # the text never differed


@pytest.mark.parametrize("source", FOREIGN_CASES)
def test_fast_path_namespaces_equal_reference(source: str) -> None:
    assert _assert_same(source)


@pytest.mark.parametrize(
    "source",
    [
        "<frameset><frame></frameset>",
        "<p>x<FRAMESET>",
        "<math><annotation-xml encoding=text/html><div>x</div></annotation-xml></math>",
        "a\ud800b<p>c",  # a lone surrogate: lexbor cannot take it
        # Inputs that make lexbor's tree builder quadratic (see _lexbor_would_be_slow).
        "<div>" * 30_000 + "x",
        "<span>" * 25_000 + "<div></div>" * 5_000 + "x",
        "<ul>a" * 25_000,
        # Nested and closed: the stack is as deep as if unclosed.
        "<div>" * 12_000 + "x" + "</div>" * 12_000,
        "<ul><li>" * 11_000 + "x" + "</li></ul>" * 11_000,
        # End tags that close nothing: hidden in a comment, a script, an attribute value,
        # or of elements that are not open.
        "<div><!--</div>-->" * 12_000,
        "<div><script></div></script>" * 12_000,
        '<div title="</div>">' * 12_000,
        '<div title="<!--">' + "<div>" * 14_000 + "-->",
        "<div></span>" * 12_000,
        "<path/><div>" * 12_000,
        "<p " + " ".join(f"a{i}=1" for i in range(5_000)) + ">x",
        "<p " + "/".join(f"a{i}" for i in range(5_000)) + ">x",
    ],
)
def test_fast_path_declines_where_not_proven_or_slow(source: str) -> None:
    assert html_text._lexbor_body(source) is None
    assert not _assert_same(source)


@pytest.mark.parametrize(
    "source",
    [
        "<p>" + "a<br>" * 30_000,  # many void elements are not nesting
        "<div>x</div>" * 30_000,  # balanced
        "<ul>" + "<li>x" * 30_000 + "</ul>",  # implicitly closed
        "<p>x" * 30_000,
        "<svg>" + '<path d="M0 0"/>' * 30_000 + "</svg><div>x</div>",  # self-closing in SVG
        "<div><!-- <div> -->x</div>" * 30_000,
        '<img src="data:image/png;base64,' + "A" * 20_000 + '=="><p>x',  # a long tag, 2 attributes
    ],
)
def test_fast_path_keeps_large_ordinary_pages(source: str) -> None:
    assert html_text._lexbor_body(source) is not None
