"""Word's style hierarchy for hidden text (docs/anchor.md, "Word documents";
engine/text/docx_styles.py): document defaults, table style, paragraph style (the default
one when a paragraph names none), character style, the run's own properties; the last
level that sets ``w:vanish`` wins. Real Word files made with python-docx, and a Hypothesis
property over every combination of the five levels."""

from __future__ import annotations

import io

import docx
import pytest
from docx.oxml.ns import qn
from docx.oxml.parser import OxmlElement
from hypothesis import given, settings, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.docx import read_docx
from tests.helpers.word_files import make_docx, para, run

QUOTE = "Members must renew their cards before May."
NEW = "Members should renew their cards before June."


def _vanish(rpr, on: bool = True) -> None:
    el = OxmlElement("w:vanish")
    if not on:
        el.set(qn("w:val"), "0")
    rpr.append(el)


def word_file(sentence: str, how: str) -> bytes:
    """A Word document (python-docx's template) whose second paragraph is ``sentence``,
    hidden by ``how``: "normal" (the default paragraph style), "defaults"
    (``w:docDefaults``), "table" (a table style over a table holding it) or "" (shown)."""
    d = docx.Document()
    d.add_paragraph("Welcome to the club.")
    if how == "table":
        table = d.add_table(rows=1, cols=1)
        table.style = d.styles["Table Grid"]
        d.styles["Table Grid"].font.hidden = True
        table.cell(0, 0).text = sentence
    else:
        d.add_paragraph(sentence)
    d.add_paragraph("See you soon.")
    if how == "normal":
        d.styles["Normal"].font.hidden = True
        for p in d.paragraphs[::2]:  # the other paragraphs shown by their runs
            p.runs[0].font.hidden = False
    if how == "defaults":
        defaults = d.styles.element.find(qn("w:docDefaults"))
        _vanish(defaults.find(qn("w:rPrDefault")).find(qn("w:rPr")))
        for p in d.paragraphs[::2]:
            p.runs[0].font.hidden = False
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


@pytest.mark.parametrize("how", ["normal", "defaults", "table"])
def test_real_word_file_hidden_by_a_style_level(how):
    doc = read_docx(word_file(NEW, how))
    assert f"<span hidden>{NEW}</span>" in doc.html, how
    assert "<span hidden>Welcome" not in doc.html and NEW in doc.text


def test_real_word_file_shown():
    doc = read_docx(word_file(NEW, ""))
    assert "<span hidden>" not in doc.html and NEW in doc.text


@pytest.mark.parametrize("how", ["normal", "defaults", "table"])
def test_a_rewrite_hidden_by_a_style_level_reads_deleted(how):
    v1 = Version.from_source(read_docx(word_file(QUOTE, "")).html, "html", "v1")
    v2 = Version.from_source(read_docx(word_file(NEW, how)).html, "html", "v2")
    s = v1.text.index(QUOTE)
    anchor = Anchor(quote=QUOTE, prefix="", suffix="", start_offset=s, end_offset=s + len(QUOTE))
    verdict = score(v1, v2, [Comment(id="c1", body="fix", anchor=anchor)]).verdicts[0]
    assert verdict.verdict == "deleted", (how, verdict.note)


LEVELS = ("defaults", "table", "paragraph", "character", "run")
SETTING = st.sampled_from([None, True, False])


def _rpr(value: bool | None) -> str:
    return "" if value is None else f'<w:rPr><w:vanish w:val="{int(value)}"/></w:rPr>'


def _hierarchy(values: dict[str, bool | None], named: bool, word: str) -> bytes:
    """One paragraph in a one-cell table, each level of ``values`` set (True, False) or
    not (None); ``named``: the paragraph and the table name their styles, else the
    default ones apply."""
    styles = (
        "<w:docDefaults><w:rPrDefault>"
        + (_rpr(values["defaults"]) or "<w:rPr/>")
        + "</w:rPrDefault></w:docDefaults>"
    )
    default = "" if named else ' w:default="1"'
    styles += f'<w:style w:type="table"{default} w:styleId="T">{_rpr(values["table"])}</w:style>'
    styles += (
        f'<w:style w:type="paragraph"{default} w:styleId="P">{_rpr(values["paragraph"])}</w:style>'
    )
    styles += f'<w:style w:type="character" w:styleId="C">{_rpr(values["character"])}</w:style>'
    ppr = '<w:pPr><w:pStyle w:val="P"/></w:pPr>' if named else ""
    tblpr = '<w:tblPr><w:tblStyle w:val="T"/></w:tblPr>' if named else "<w:tblPr/>"
    rpr = _rpr(values["run"])
    rpr = '<w:rPr><w:rStyle w:val="C"/>' + (rpr[7:-8] if rpr else "") + "</w:rPr>"
    cell = para(run(word, rpr), ppr=ppr)
    body = f"<w:tbl>{tblpr}<w:tr><w:tc>{cell}</w:tc></w:tr></w:tbl>"
    return make_docx(
        body + para(run("End.", '<w:rPr><w:vanish w:val="0"/></w:rPr>')), styles=styles
    )


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    values=st.fixed_dictionaries({level: SETTING for level in LEVELS}),
    named=st.booleans(),
    word=st.sampled_from(["Gebühr", "плата", "رسوم", "ค่าธรรมเนียม", "費用", "수수료", "\U0001f4b6"]),
)
def test_property_the_last_level_that_sets_vanish_wins(values, named, word):
    doc = read_docx(_hierarchy(values, named, word))
    set_ = [v for v in (values[level] for level in LEVELS) if v is not None]
    expected = set_[-1] if set_ else False
    assert (f"<span hidden>{word}</span>" in doc.html) == expected, values
    assert word in doc.text and "<span hidden>End." not in doc.html
