"""Unit tests for engine.text.html_text: each rule of the anchor contract's text, one by one.

The html5lib conformance suite (test_html5lib_conformance.py) covers the parser at large;
these tests name the rules the anchor contract states and the parts that are ours: byte
decoding, the document body, the markup signature, and reading files.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from engine.text import documents, encoding, html_text
from engine.text.html_text import body_text, extract

# ----------------------------------------------------------------------------------------
# What counts as text
# ----------------------------------------------------------------------------------------


def test_script_and_style_text_count() -> None:
    html = "<p>a</p><script>if (x < 1) y = '&amp;';</script><style>p { color: red }</style>b"
    assert body_text(html) == "aif (x < 1) y = '&amp;';p { color: red }b"


def test_noscript_is_raw_text_with_scripting_on() -> None:
    assert body_text("<p>a<noscript><b>no &amp; js</b></noscript>z") == "a<b>no &amp; js</b>z"


def test_comments_are_not_text() -> None:
    assert body_text("a<!-- hidden -->b<!---->c") == "abc"


def test_attributes_are_not_text() -> None:
    assert body_text('<a href="x" title="t" onclick="f()">link</a><img alt="alt">') == "link"


def test_template_contents_are_not_text() -> None:
    assert body_text("a<template>T<b>u</b><template>v</template></template>b") == "ab"


def test_template_in_svg_is_an_ordinary_element() -> None:
    # Only the HTML template element has separate contents.
    assert body_text("<svg><template>q</template></svg>") == "q"


def test_hidden_elements_count() -> None:
    assert body_text('<div hidden>h</div><span style="display:none">d</span>') == "hd"


def test_head_text_is_not_body_text() -> None:
    html = "<html><head><title>T</title><noscript>n</noscript></head><body>b</body></html>"
    assert body_text(html) == "b"
    # A script before any body content belongs to the head, as in a browser.
    assert body_text("<script>s</script><p>b") == "b"


def test_br_and_blocks_add_no_character() -> None:
    assert body_text("<p>one</p><p>two<br>three</p><div>four</div>") == "onetwothreefour"


# ----------------------------------------------------------------------------------------
# Input stream preprocessing and tree construction
# ----------------------------------------------------------------------------------------


def test_crlf_and_lone_cr_become_lf() -> None:
    assert body_text("a\r\nb\rc\n\rd") == "a\nb\nc\n\nd"


def test_cr_in_bytes_and_in_script_and_character_reference() -> None:
    assert body_text(b"<p><script>x\r\ny</script>\r") == "x\ny\n"
    # A CR written as a character reference is a character, not a line break.
    assert body_text("a&#13;b&#x0D;\r\nc") == "a\rb\r\nc"


@pytest.mark.parametrize("tag", ["pre", "listing", "textarea"])
def test_newline_right_after_pre_listing_textarea_is_dropped(tag: str) -> None:
    assert body_text(f"<{tag}>\nfirst\n</{tag}>") == "first\n"
    assert body_text(f"<{tag}>\r\n\nsecond</{tag}>") == "\nsecond"  # only the first one
    assert body_text(f"<{tag}> \nthird</{tag}>") == " \nthird"  # only right after the tag


def test_foster_parenting_implied_body_and_text_after_body() -> None:
    assert body_text("<table>x<tr><td>c</td></tr>y</table>") == "xyc"
    assert body_text("just text") == "just text"
    assert body_text("<html><body>a</body>b</html>c") == "abc"


def test_xhtml_prologue_is_not_text() -> None:
    # An XHTML file served as text/html: the XML declaration is a bogus comment.
    html = (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        '<head><title>T</title></head>\n<body epub:type="bodymatter">\n<p>x</p>\n</body>\n</html>\n'
    )
    assert body_text(html) == "\nx\n\n\n"


def test_misnested_tags() -> None:
    assert body_text("<b>1<i>2</b>3</i>4") == "1234"
    assert body_text("<p>a<div>b</p>c</div>") == "abc"


def test_frameset_document_body_is_the_frameset() -> None:
    # document.body is the frameset element: its textContent is the whitespace it keeps.
    assert body_text("<frameset> <frame> </frameset>") == "  "
    assert body_text("<frameset><frame></frameset>after") == ""
    assert extract("<frameset> </frameset>").markup_signature(0, 1) == (
        (("html", "frameset", ()),),
        (" ",),
    )


def test_leading_feff_of_a_str_is_a_character() -> None:
    # A str has no BOM: U+FEFF at its start is a character, which the tokenizer keeps.
    assert body_text("\ufeffabc") == "\ufeffabc"
    # In bytes the first U+FEFF is the BOM and goes; a second one is a character.
    assert body_text(b"\xef\xbb\xbf\xef\xbb\xbfabc") == "\ufeffabc"
    assert body_text(b"\xef\xbb\xbfabc") == "abc"


# ----------------------------------------------------------------------------------------
# Character references and NUL
# ----------------------------------------------------------------------------------------


def test_named_references_with_and_without_semicolon() -> None:
    assert body_text("&amp;&lt;&gt;&quot;&nbsp;&eacute;") == '&<>"\xa0é'
    assert body_text("&amp &lt x &copy 2024") == "& < x © 2024"  # legacy names
    assert body_text("I'm &notit; I tell you") == "I'm ¬it; I tell you"
    assert body_text("&notin; &bogus; &") == "∉ &bogus; &"


def test_numeric_references() -> None:
    assert body_text("&#65;&#x42;&#X43;") == "ABC"
    # 128-159 through the windows-1252 table (HTML Standard, numeric character reference
    # end state); 0x81 is not in that table and stays a C1 control.
    assert body_text("&#128;&#150;&#x9F;&#129;") == "€–Ÿ\x81"
    # NUL, surrogates and values beyond U+10FFFF are U+FFFD.
    assert body_text("&#0;&#xD800;&#x110000;&#99999999999;") == "\ufffd" * 4
    assert body_text("&#x1F600;") == "\U0001f600"


def test_nul_handling() -> None:
    assert body_text("a\0b") == "ab"  # ignored in body text
    assert body_text("<p><script>a\0b</script>") == "a\ufffdb"
    assert body_text("<textarea>a\0b</textarea>") == "a\ufffdb"
    assert body_text("<svg><text>a\0b</text></svg>") == "a\ufffdb"
    assert body_text("<p><noscript>a\0b</noscript>") == "a\ufffdb"


# ----------------------------------------------------------------------------------------
# markup_signature
# ----------------------------------------------------------------------------------------


def _signature(html: str, quote: str) -> tuple:
    x = extract(html)
    start = x.text.index(quote)
    return x.markup_signature(start, start + len(quote))


QUOTE = "the selected words"


def test_signature_identical_markup() -> None:
    v1 = f"<p>Before {QUOTE} after.</p>"
    assert _signature(v1, QUOTE) == _signature(v1, QUOTE)
    assert hash(_signature(v1, QUOTE)) == hash(_signature(v1, QUOTE))


def test_signature_link_added() -> None:
    v1 = "<p>Before the selected words after.</p>"
    v2 = '<p>Before the <a href="https://example.org">selected</a> words after.</p>'
    v3 = '<p>Before <a href="https://example.org">the selected words</a> after.</p>'
    assert extract(v1).text == extract(v2).text == extract(v3).text
    assert _signature(v1, QUOTE) != _signature(v2, QUOTE)
    assert _signature(v1, QUOTE) != _signature(v3, QUOTE)
    assert _signature(v2, QUOTE) != _signature(v3, QUOTE)


def test_signature_tag_changed() -> None:
    v1 = "<p>Before the <em>selected</em> words after.</p>"
    v2 = "<p>Before the <strong>selected</strong> words after.</p>"
    assert _signature(v1, QUOTE) != _signature(v2, QUOTE)


def test_signature_attribute_changed() -> None:
    v1 = '<p>Before the <span class="a">selected</span> words after.</p>'
    v2 = '<p>Before the <span class="b">selected</span> words after.</p>'
    v3 = '<p>Before the <span class="a" id="x">selected</span> words after.</p>'
    assert _signature(v1, QUOTE) != _signature(v2, QUOTE)
    assert _signature(v1, QUOTE) != _signature(v3, QUOTE)


def test_signature_attribute_order_does_not_matter() -> None:
    v1 = '<p>Before the <span class="a" id="x">selected</span> words after.</p>'
    v2 = "<p>Before the <span id=x class='a'>selected</span> words after.</p>"
    assert _signature(v1, QUOTE) == _signature(v2, QUOTE)


def test_signature_br_inserted() -> None:
    v1 = "<p>Before the selected words after.</p>"
    v2 = "<p>Before the selected<br>words after.</p>".replace("<br>words", "<br> words")
    assert extract(v2).text == extract(v1).text
    assert _signature(v1, QUOTE) != _signature(v2, QUOTE)


def test_signature_container_changed() -> None:
    # An ancestor counts by its own tag and attributes.
    v1 = '<p class="a">Before the selected words after.</p>'
    v2 = '<p class="b">Before the selected words after.</p>'
    v3 = '<div class="a">Before the selected words after.</div>'
    assert _signature(v1, QUOTE) != _signature(v2, QUOTE)
    assert _signature(v1, QUOTE) != _signature(v3, QUOTE)


def test_signature_ignores_markup_and_text_outside_the_range() -> None:
    v1 = "<p>Before the selected words after.</p>"
    v2 = "<p><b>Be</b>fore, edited: the selected words <i>after</i>!</p>"
    v3 = "<p>Before <br>the selected words<br> after.</p>"  # empty elements at the edges
    assert _signature(v1, QUOTE) == _signature(v2, QUOTE) == _signature(v3, QUOTE)


def test_signature_ignores_comments_and_template_contents() -> None:
    v1 = "<p>Before the selected words after.</p>"
    v2 = "<p>Before the sel<!-- note -->ected words after.</p>"
    assert _signature(v1, QUOTE) == _signature(v2, QUOTE)
    v3 = "<p>Before the sel<template>a</template>ected words after.</p>"
    v4 = "<p>Before the sel<template>b</template>ected words after.</p>"
    assert _signature(v3, QUOTE) == _signature(v4, QUOTE) != _signature(v1, QUOTE)


def test_signature_partial_overlap_is_balanced() -> None:
    # Elements cut by the range edges are opened and closed at the edges, like
    # Range.cloneContents: where they end outside the range does not matter.
    v1 = "<p>Before <em>the selected</em> words after.</p>"
    v2 = "<p><em>Before the selected</em> words after.</p>"
    assert _signature(v1, QUOTE) == _signature(v2, QUOTE)
    containers, contents = _signature(v1, QUOTE)
    assert containers == (("html", "body", ()), ("html", "p", ()))
    assert contents == (("<", "html", "em", ()), "the selected", ("/", "em"), " words")
    v3 = "<p>Before the selected <em>words after.</em></p>"
    v4 = "<p>Before the selected <em>words</em> after.</p>"
    assert _signature(v3, QUOTE) == _signature(v4, QUOTE)


def test_signature_nesting_is_described() -> None:
    v1 = "<p>Before <em>the </em><b>selected</b> words after.</p>"
    v2 = "<p>Before <em>the <b>selected</b></em> words after.</p>"
    assert _signature(v1, QUOTE) != _signature(v2, QUOTE)


def test_signature_keeps_every_attribute() -> None:
    # justhtml sanitizes by default; with sanitize=False nothing is dropped or rewritten.
    html = (
        '<p>x<a href="javascript:alert(1)" onclick="f()" style="color:red" data-k="v" '
        'target=_blank>selected</a><iframe srcdoc="<b>">i</iframe></p>'
    )
    containers, _ = _signature(html, "selected")
    assert containers[-1] == (
        "html",
        "a",
        (
            ("data-k", "v"),
            ("href", "javascript:alert(1)"),
            ("onclick", "f()"),
            ("style", "color:red"),
            ("target", "_blank"),
        ),
    )
    assert _signature(html, "i")[0][-1] == ("html", "iframe", (("srcdoc", "<b>"),))


def test_signature_namespaces_count() -> None:
    v1 = "<p>x<a>selected</a></p>"
    v2 = "<p>x<svg><a>selected</a></svg></p>"
    assert _signature(v1, "selected") != _signature(v2, "selected")


def test_signature_text_pieces_cover_exactly_the_range() -> None:
    html = (
        "<div id=d>Al<b>pha <i>be</i></b>ta <!--c-->gam<a href=u>ma</a><br>del"
        "<table>ta<tr><td>ep</td></tr></table>si<span></span>lon</div>"
    )
    x = extract(html)
    n = len(x.text)
    for start, end in itertools.combinations_with_replacement(range(n + 1), 2):
        containers, contents = x.markup_signature(start, end)
        assert containers[0] == ("html", "body", ())
        assert "".join(c for c in contents if isinstance(c, str)) == x.text[start:end]
        depth = 0
        for item in contents:
            if isinstance(item, tuple):
                depth += 1 if item[0] == "<" else -1
                assert depth >= 0
        assert depth == 0


def test_signature_rejects_ranges_outside_the_text() -> None:
    x = extract("<p>abc</p>")
    for start, end in [(-1, 2), (2, 1), (0, 4)]:
        with pytest.raises(ValueError):
            x.markup_signature(start, end)
    assert x.markup_signature(0, 3) == ((("html", "body", ()), ("html", "p", ())), ("abc",))


def test_extract_text_equals_body_text() -> None:
    html = "<p>a<script>s</script><template>t</template><table>f<tr><td>c</td></tr></table>"
    assert extract(html).text == body_text(html) == "asfc"
    assert extract(html).encoding is None
    assert extract(html.encode()).encoding == "UTF-8"


def test_document_without_text() -> None:
    x = extract("")
    assert x.text == ""
    assert x.markup_signature(0, 0) == ((("html", "body", ()),), ())


@pytest.mark.parametrize("module", [html_text, encoding, documents])
def test_engine_module_has_no_gui_imports(module) -> None:
    source = Path(module.__file__).read_text(encoding="utf-8")
    for name in ("PySide6", "qasync", "keyring"):
        assert name not in source


# ----------------------------------------------------------------------------------------
# markup_signature with a fold: text-only changes are not markup changes
# ----------------------------------------------------------------------------------------


def _sig(html: str, quote: str, fold=None) -> tuple:
    x = extract(html)
    start = x.text.index(quote)
    return x.markup_signature(start, start + len(quote), fold)


def _fold(text: str) -> str:
    from engine.score.scoring import _signature_fold

    return _signature_fold(text)


@pytest.mark.parametrize(
    "v1,v2,q1,q2",
    [
        # NBSP for a space, a soft hyphen, a decomposed accent, a ligature, a line break
        (
            "<p>the <b>big\u00a0cat</b> sat</p>",
            "<p>the <b>big cat</b> sat</p>",
            "big\u00a0cat",
            "big cat",
        ),
        (
            "<p>a <i>won\u00adderful</i> day</p>",
            "<p>a <i>wonderful</i> day</p>",
            "won\u00adderful",
            "wonderful",
        ),
        (
            "<p><a href=x>cafe\u0301</a></p>",
            "<p><a href=x>caf\u00e9</a></p>",
            "cafe\u0301",
            "caf\u00e9",
        ),
        (
            "<p>the <em>\ufb01nal</em> word</p>",
            "<p>the <em>final</em> word</p>",
            "\ufb01nal",
            "final",
        ),
        (
            "<p>one\n   <b>two</b>\n three</p>",
            "<p>one <b>two</b> three</p>",
            "one\n   two\n three",
            "one two three",
        ),
    ],
)
def test_signature_with_fold_ignores_text_only_changes(v1, v2, q1, q2) -> None:
    assert _sig(v1, q1) != _sig(v2, q2)  # the raw text pieces differ
    assert _sig(v1, q1, _fold) == _sig(v2, q2, _fold)


@pytest.mark.parametrize(
    "v1,v2,q1,q2",
    [
        # The same folded text, but the markup changed too: still a markup change.
        ("<p>big\u00a0<b>cat</b></p>", "<p><b>big cat</b></p>", "big\u00a0cat", "big cat"),
        ("<p><b>ab</b>c</p>", "<p><b>a</b>bc</p>", "abc", "abc"),
        (
            "<p><a href=x>caf\u00e9</a></p>",
            "<p><a href=y>caf\u00e9</a></p>",
            "caf\u00e9",
            "caf\u00e9",
        ),
        ("<p>a\u00a0b</p>", "<p>a<br>b</p>", "a\u00a0b", "ab"),
        # Whitespace moved out of an element (Standard Ebooks 8afef18, "Typogrify").
        (
            "<p>on <time>1888\u200a</time>\u200a\u2014I</p>",
            "<p>on <time>1888</time>\u200a\u2014I</p>",
            "1888\u200a\u200a\u2014I",
            "1888\u200a\u2014I",
        ),
    ],
)
def test_signature_with_fold_still_sees_markup_changes(v1, v2, q1, q2) -> None:
    assert _sig(v1, q1, _fold) != _sig(v2, q2, _fold)


def test_signature_fold_drops_pieces_that_fold_to_nothing() -> None:
    x = extract("<p>a</p>\u00ad<p>b</p>")
    y = extract("<p>a</p><p>b</p>")
    assert x.markup_signature(0, len(x.text), _fold) == y.markup_signature(0, len(y.text), _fold)
    assert x.markup_signature(0, len(x.text)) != y.markup_signature(0, len(y.text))
