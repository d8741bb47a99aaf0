"""Word text a reader never sees (docs/anchor.md, "Word documents"): ``w:vanish`` from a
paragraph style and through a style's ``basedOn`` chain, ``w:specVanish``, ``w:t`` in a
complex field's code, ``mc:AlternateContent`` read as Word shows it. A sentence rewritten
there reads ``deleted``, never ``edited``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.docx import read_docx
from engine.text.docx_styles import MAX_STYLE_DEPTH
from tests.helpers.word_files import make_docx, para, run

MC = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
STYLES = (
    '<w:style w:type="paragraph" w:styleId="HidP"><w:name w:val="HidP"/>'
    "<w:rPr><w:vanish/></w:rPr></w:style>"
    '<w:style w:type="paragraph" w:styleId="HidChild"><w:basedOn w:val="HidP"/></w:style>'
    '<w:style w:type="character" w:styleId="BaseHid"><w:rPr><w:vanish/></w:rPr></w:style>'
    '<w:style w:type="character" w:styleId="Derived"><w:basedOn w:val="BaseHid"/></w:style>'
    '<w:style w:type="character" w:styleId="Shown"><w:basedOn w:val="BaseHid"/>'
    '<w:rPr><w:vanish w:val="0"/></w:rPr></w:style>'
    '<w:style w:type="character" w:styleId="Loop1"><w:basedOn w:val="Loop2"/></w:style>'
    '<w:style w:type="character" w:styleId="Loop2"><w:basedOn w:val="Loop1"/></w:style>'
)
NEW = "Pay the fee promptly by the end of June."
QUOTE = "Pay the fee secret by the end of May."


def field(code: str, result: str) -> str:
    return (
        '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        + code
        + '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        + run(result)
        + '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>'
    )


def alternate(requires: str, choice: str, fallback: str) -> str:
    return (
        f'<w:p><mc:AlternateContent {MC}><mc:Choice Requires="{requires}">{choice}'
        f"</mc:Choice><mc:Fallback>{fallback}</mc:Fallback></mc:AlternateContent></w:p>"
    )


HIDDEN = {
    "paragraph style": para(run(NEW), ppr='<w:pPr><w:pStyle w:val="HidP"/></w:pPr>'),
    "paragraph style based on": para(run(NEW), ppr='<w:pPr><w:pStyle w:val="HidChild"/></w:pPr>'),
    "character style based on": para(run(NEW, '<w:rPr><w:rStyle w:val="Derived"/></w:rPr>')),
    "specVanish": para(run(NEW, "<w:rPr><w:specVanish/></w:rPr>")),
}
SHOWN = {
    "run undoes the paragraph style": para(
        run(NEW, '<w:rPr><w:vanish w:val="false"/></w:rPr>'),
        ppr='<w:pPr><w:pStyle w:val="HidP"/></w:pPr>',
    ),
    "character style undoes its base": para(run(NEW, '<w:rPr><w:rStyle w:val="Shown"/></w:rPr>')),
    "a basedOn loop sets nothing": para(run(NEW, '<w:rPr><w:rStyle w:val="Loop1"/></w:rPr>')),
}


def text_and_html(body: str) -> tuple[str, str]:
    doc = read_docx(make_docx(para(run("Start.")) + body + para(run("End.")), styles=STYLES))
    return doc.text, doc.html


@pytest.mark.parametrize("name", HIDDEN)
def test_hidden_by_style_is_drawn_hidden(name):
    text, html = text_and_html(HIDDEN[name])
    assert NEW in text and f"<span hidden>{NEW}</span>" in html, name


@pytest.mark.parametrize("name", SHOWN)
def test_shown_by_style_is_drawn(name):
    text, html = text_and_html(SHOWN[name])
    assert NEW in text and f"<span hidden>{NEW}</span>" not in html, name


@pytest.mark.parametrize(
    "body",
    [
        field(run(NEW), "7"),  # a w:t in the field code
        field(f"<w:r><w:instrText>QUOTE {NEW}</w:instrText></w:r>", "7"),
        '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>'  # a field in a field's code
        + field(run(NEW), "x")[5:-6]
        + '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        + run("7")
        + '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
        alternate("w14", run("7"), run(NEW)),
        alternate("w14 w15", run("7"), run(NEW)),
        alternate("zz", run(NEW), run("7")),  # an undeclared prefix: the fallback
    ],
)
def test_what_word_does_not_show_is_not_text(body):
    text, _ = text_and_html(body)
    assert NEW not in text and "7" in text, text


def test_field_results_still_count():
    text, _ = text_and_html(field(run("PAGE"), NEW))
    assert NEW in text and "PAGE" not in text


def word_verdict(v2_body: str):
    def version(body: str, vid: str) -> Version:
        data = make_docx(
            para(run("The first paragraph stays.")) + body + para(run("The end.")), styles=STYLES
        )
        return Version.from_source(read_docx(data).html, "html", vid)

    v1, v2 = version(para(run(QUOTE)), "v1"), version(v2_body, "v2")
    s = v1.text.index(QUOTE)
    anchor = Anchor(quote=QUOTE, prefix="", suffix="", start_offset=s, end_offset=s + len(QUOTE))
    return score(v1, v2, [Comment(id="c1", body="fix", anchor=anchor)]).verdicts[0]


@pytest.mark.parametrize("name", HIDDEN)
def test_a_sentence_rewritten_where_word_hides_it_is_deleted(name):
    v = word_verdict(HIDDEN[name])
    assert v.verdict == "deleted", (name, v.note)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    depth=st.integers(1, MAX_STYLE_DEPTH + 4),
    at=st.integers(0, MAX_STYLE_DEPTH + 4),
    value=st.booleans(),
    kind=st.sampled_from(["character", "paragraph"]),
    word=st.sampled_from(
        ["Gebühr", "плата", "रसोई", "رسوم", "ค่าธรรมเนียม", "費用", "수수료", "\U0001f4b6"]
    ),
)
def test_property_vanish_is_inherited_through_basedOn(depth, at, value, kind, word):
    styles = ""
    for i in range(depth):
        based = f'<w:basedOn w:val="S{i + 1}"/>' if i + 1 < depth else ""
        rpr = f'<w:rPr><w:vanish w:val="{int(value)}"/></w:rPr>' if i == at else ""
        styles += f'<w:style w:type="{kind}" w:styleId="S{i}">{based}{rpr}</w:style>'
    if kind == "character":
        body = para(run(word, '<w:rPr><w:rStyle w:val="S0"/></w:rPr>'))
    else:
        body = para(run(word), ppr='<w:pPr><w:pStyle w:val="S0"/></w:pPr>')
    doc = read_docx(make_docx(para(run("Start.")) + body, styles=styles))
    expected = value and at < min(depth, MAX_STYLE_DEPTH)
    assert (f"<span hidden>{word}</span>" in doc.html) == expected
    assert word in doc.text
