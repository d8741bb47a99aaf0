"""Reading Word reviews (engine.text.docx, engine.word_review; docs/anchor.md, "Word
documents"): every comment lands on exactly the words Word highlighted, tracked changes
are read accepted, threads and resolved marks come along, bad files are one line."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from engine.text import utf16
from engine.text.documents import DocumentError, open_document
from engine.text.docx import WordDocument, read_docx
from engine.text.docx_marks import W
from engine.text.docx_package import PackageError
from engine.word_review import word_claims, word_comments
from tests.helpers.word_files import Note, deleted, end, ins, make_docx, para, run, start

DATA = Path(__file__).resolve().parents[1] / "data" / "docx"


def quoted(doc: WordDocument) -> dict[str, str | None]:
    """comment text -> the words its range covers (None when unusable)."""
    out: dict[str, str | None] = {}
    for c in doc.comments:
        if c.start is None or c.end is None:
            out[c.text] = None
        else:
            a = utf16.to_codepoint(doc.text, c.start)
            b = utf16.to_codepoint(doc.text, c.end)
            out[c.text] = doc.text[a:b]
    return out


# -- real files written by Word -------------------------------------------------------------


def test_python_docx_rich_para_comments_land_on_the_highlighted_words() -> None:
    doc = read_docx((DATA / "python-docx-comments-rich-para.docx").read_bytes())
    assert doc.text == (
        "Document text\nSome text worthy of note.\nOther document text.\n"
        "Other text worthy of note.\nParagraph 5\nParagraph 6\nParagraph 7"
    )
    assert quoted(doc) == {
        "Text with hyperlink https://google.com embedded.": "Some text worthy of note.",
        "Text with inline image  in the middle.": "Other text worthy of note.",
        "Text with character style.": "Paragraph 5",
        "Paragraph with Heading 2 paragraph style.": "Paragraph 6",
    }
    assert [c.number for c in doc.comments] == [1, 2, 3, 4]
    assert doc.comments[0].author == "Steve Canny"
    assert [c.word_id for c in doc.comments] == ["0", "1", "2", "4"]  # Word's ids, kept
    assert not any(c.done for c in doc.comments)
    assert doc.has_comments


def test_mammoth_comments_one_range_one_point() -> None:
    doc = read_docx((DATA / "mammoth-comments.docx").read_bytes())
    assert doc.text == "Ouch."
    assert quoted(doc) == {"A tachyon walks into a bar.": "Ouch", "Fin.": None}
    point = doc.comments[1]
    assert point.problem is not None and "range is missing" in point.problem


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("mammoth-tables.docx", "Above\nTop left\nTop right\nBottom left\nBottom right\nBelow"),
        ("mammoth-simple-list.docx", "Apple\nBanana"),
        ("mammoth-footnotes.docx", "Ouch[1].[2]\n A tachyon walks into a bar. ↑\n Fin. ↑"),
    ],
)
def test_real_structures_read_as_their_words(name: str, text: str) -> None:
    doc = read_docx((DATA / name).read_bytes())
    assert doc.text == text
    assert not doc.has_comments and doc.comments == ()


# -- built reviews: ranges across runs, paragraphs, tables, fields, links, scripts ----------

BODY = (
    para(
        run("Intro "),
        start(0),
        run("first words"),
        run(" and bold", "<w:rPr><w:b/></w:rPr>"),
        end(0),
        run(" tail."),
    )
    + start(1)
    + para(run("Whole paragraph selected."))
    + para(run("Second one"))
    + end(1)
    + "<w:tbl><w:tr><w:tc><w:p>"
    + start(2)
    + run("cell A")
    + "</w:p></w:tc><w:tc><w:p>"
    + run("cell B")
    + end(2)
    + "</w:p></w:tc></w:tr></w:tbl>"
    + para(run("Old "), deleted("removed "), ins(run("added ")), start(3), run("kept"), end(3))
    + para(
        run("See "),
        '<w:hyperlink w:anchor="top">' + start(4) + run("the link") + end(4) + "</w:hyperlink>",
        run(" now"),
    )
    + para(
        run("Field: "),
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> DATE </w:instrText>'
        '</w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>',
        start(5),
        run("1 Dec 2026"),
        end(5),
        '<w:r><w:fldChar w:fldCharType="end"/></w:r>',
    )
    + para(run("Hidden: "), run("secret", "<w:rPr><w:vanish/></w:rPr>"), run(" shown"))
    + para(run("中文 عربي 😀 "), start(6), run("emoji 😀 end"), end(6))
    + para(
        run("Note"), '<w:r><w:footnoteReference w:id="1"/></w:r>', start(7), run(" after"), end(7)
    )
    + para(start(8), end(8), run("nothing selected"))
)
FOOTNOTES = '<w:footnote w:id="1"><w:p>' + run("A footnote.") + "</w:p></w:footnote>"


def built(**notes_changes: object) -> tuple[bytes, list[Note]]:
    notes = [Note(i, f"comment {i}", para_id=f"0000000{i}", durable=f"1000{i}") for i in range(9)]
    notes.append(Note(9, "a reply", author="Agent", para_id="00000009", parent="00000000"))
    notes[3].done = True
    return make_docx(BODY, notes, footnotes=FOOTNOTES, title="Budget memo"), notes


def test_every_comment_lands_on_exactly_the_highlighted_words() -> None:
    doc = read_docx(built()[0])
    assert quoted(doc) == {
        "comment 0": "first words and bold",
        "comment 1": "Whole paragraph selected.\nSecond one",
        "comment 2": "cell A\ncell B",
        "comment 3": "kept",
        "comment 4": "the link",
        "comment 5": "1 Dec 2026",
        "comment 6": "emoji 😀 end",
        "comment 7": " after",
        "comment 8": None,
    }
    assert doc.title == "Budget memo"
    assert "<title>Budget memo</title>" in doc.html
    empty = next(c for c in doc.comments if c.text == "comment 8")
    assert empty.problem == "its range is empty (it covers no text)"
    # Offsets count UTF-16 units: the emoji before comment 6 takes two.
    six = next(c for c in doc.comments if c.text == "comment 6")
    assert six.start == utf16.to_utf16(doc.text, doc.text.index("emoji"))


def test_text_is_the_document_with_every_change_accepted_and_hidden_text_hidden() -> None:
    doc = read_docx(built()[0])
    assert "Old added kept" in doc.text and "removed" not in doc.text
    assert "DATE" not in doc.text and "Field: 1 Dec 2026" in doc.text
    assert "Hidden: secret shown" in doc.text
    assert "<span hidden>secret</span>" in doc.html
    assert doc.text.endswith("A footnote. ↑")
    assert doc.tracked_changes == 2


def test_threads_and_resolved_marks() -> None:
    doc = read_docx(built()[0])
    first = doc.comments[0]
    assert [(r.author, r.text) for r in first.replies] == [("Agent", "a reply")]
    assert [c.done for c in doc.comments][:4] == [False, False, False, True]
    assert all(c.text != "a reply" for c in doc.comments)
    comments, unusable = word_comments(doc)
    assert [c.id for c in comments] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert unusable == [("9", "its range is empty (it covers no text)")]
    assert comments[3].status == "resolved"
    assert comments[0].thread[0].body == "a reply"
    a = comments[6].anchor
    assert a.quote == "emoji 😀 end"
    assert (a.start_offset, a.end_offset) == (six_start(doc), six_start(doc) + 12)
    assert a.prefix.endswith("中文 عربي 😀 ") and a.suffix.startswith("\nNote")


def six_start(doc: WordDocument) -> int:
    return utf16.to_utf16(doc.text, doc.text.index("emoji"))


def test_text_pieces_point_back_at_the_w_t_elements() -> None:
    data = built()[0]
    doc = read_docx(data)
    parts = {
        name: etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read(name))
        for name in ("word/document.xml", "word/footnotes.xml")
    }
    assert len(doc.pieces) > 20
    for piece in doc.pieces:
        p = list(parts[piece.part].iter(W + "p"))[piece.paragraph]
        runs = [r for r in p.iter(W + "r") if next(r.iterancestors(W + "p")) is p]
        t = list(runs[piece.run].iterchildren("{*}*"))[piece.child]
        assert t.tag == W + "t"
        a = utf16.to_codepoint(doc.text, piece.start)
        b = utf16.to_codepoint(doc.text, piece.end)
        assert doc.text[a:b] == t.text


def test_claims_from_the_revised_file_resolved_marks() -> None:
    reviewed = read_docx(built()[0])
    notes = [Note(i, f"comment {i}", para_id=f"0000000{i}", durable=f"1000{i}") for i in range(9)]
    notes.append(Note(9, "a reply", author="Agent", para_id="00000009", parent="00000000"))
    notes[3].done = True  # resolved by the reviewer already: no claim
    notes[1].done = True  # resolved by the agent
    notes.append(Note(10, "Rewrote it", author="Agent", para_id="0000000A", parent="00000001"))
    # Word renumbers w:id on save: the revised file's ids differ, durable ids do not.
    for n in notes:
        n.wid += 50
    body = BODY
    for tag in ("commentRangeStart", "commentRangeEnd", "commentReference"):
        body = body.replace(f'<w:{tag} w:id="', f'<w:{tag} w:id="5')
    revised = read_docx(make_docx(body, notes, footnotes=FOOTNOTES))
    found = word_claims(reviewed, revised)
    assert found.resolved == {"2"}
    assert found.claims is not None
    assert [(c.comment_id, c.claim, c.change_summary) for c in found.claims.comments] == [
        ("2", "addressed", "Rewrote it")
    ]
    assert [r.body for r in found.replies["2"]] == ["Rewrote it"]
    assert found.found == 9


def test_a_fresh_revised_file_makes_no_claim() -> None:
    reviewed = read_docx(built()[0])
    fresh = read_docx(make_docx(para(run("All new text."))))
    found = word_claims(reviewed, fresh)
    assert (found.claims, found.resolved, found.found) == (None, set(), 0)
    assert not fresh.has_comments


def test_libreoffice_tracked_changes_and_resolved_comment() -> None:
    doc = read_docx((DATA / "lo-tracked.docx").read_bytes())
    assert doc.text.startswith("The budget is newly revised figures here.\n")
    assert "very old" not in doc.text
    assert quoted(doc)["Too vague"] == "Second paragraph words"
    assert quoted(doc)["Fixed already"] == "Third"
    assert [c.done for c in doc.comments if c.text == "Fixed already"] == [True]
    assert doc.tracked_changes == 2


def test_python_docx_review_ranges_across_runs() -> None:
    docx = pytest.importorskip("docx")
    d = docx.Document()
    p = d.add_paragraph()
    runs = [p.add_run(t) for t in ("Alpha ", "beta ", "gamma ", "delta.")]
    runs[1].bold = True
    d.add_paragraph("Second paragraph, 東京 and القاهرة.")
    q = d.paragraphs[1]
    d.add_comment(runs[1:3], text="Say which beta.", author="Ana", initials="A")
    d.add_comment(q.runs, text="Whole paragraph.", author="Ana", initials="A")
    buf = io.BytesIO()
    d.save(buf)
    doc = read_docx(buf.getvalue())
    assert quoted(doc) == {
        "Say which beta.": "beta gamma ",
        "Whole paragraph.": "Second paragraph, 東京 and القاهرة.",
    }


# -- bad input: one line naming the file, nothing else ---------------------------------------


def refusal(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(DocumentError) as info:
        open_document(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


def test_old_doc_and_encrypted_docx_are_named(tmp_path: Path) -> None:
    old = (DATA / "old-binary.doc").read_bytes()
    assert "old Word document (.doc)" in refusal(tmp_path, "memo.doc", old)
    # Renamed .docx, the compound file's directory says what it is.
    assert "an old binary Word document (.doc), not a .docx" in refusal(tmp_path, "old.docx", old)
    assert "password-protected" in refusal(
        tmp_path, "memo.docx", (DATA / "encrypted.docx").read_bytes()
    )


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_not_a_package_zip_bomb_dtd(tmp_path: Path) -> None:
    said = refusal(tmp_path, "a.docx", b"hello, not a zip")
    assert "a.docx: is not a Word document (its name ends in .docx, but inside it is not" in said
    assert "not a zip file" not in said  # the zip module's words, not a reader's
    said = refusal(tmp_path, "b.docx", _zip({"x.txt": b"x"}))
    assert "b.docx: is not a Word document that can be read (it is a zip file, but its" in said
    words = said.split("b.docx: ", 1)[1]
    assert "Content_Types" not in words and "package" not in words
    said = refusal(tmp_path, "c.docx", _zip({"[Content_Types].xml": b"<Types/>"}))
    assert said.endswith(
        "c.docx: is not a Word document that can be read (it is a zip file, but its main "
        "text is missing)"
    ), said
    assert "part" not in said.split("c.docx: ", 1)[1]
    bomb = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": bytes(5 << 20)})
    assert len(bomb) < 100_000
    assert "a zip bomb?" in refusal(tmp_path, "d.docx", bomb)
    good = built()[0]
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["word/document.xml"] = members["word/document.xml"].replace(
        b"?>", b'?><!DOCTYPE w:document [<!ENTITY a "aaaa">]>', 1
    )
    assert "declares a DTD" in refusal(tmp_path, "e.docx", _zip(members))


def test_a_document_using_the_marker_plane_is_refused() -> None:
    data = make_docx(para(run("private \U00100001 use")))
    with pytest.raises(PackageError, match="Private Use Area-B"):
        read_docx(data)


def test_a_docx_opens_as_its_rendered_page(tmp_path: Path) -> None:
    path = tmp_path / "review.DOCX"
    path.write_bytes(built()[0])
    doc = open_document(path)
    assert doc.kind == "html" and doc.word is not None
    assert doc.content == doc.word.html


def test_moves_simple_fields_styles_footnotes_containers() -> None:
    move = 'w:id="{n}" w:author="Agent" w:date="2026-12-01T09:00:00Z"'
    body = (
        para(
            run("A "),
            f"<w:moveFrom {move.format(n=301)}>" + run("moved away ") + "</w:moveFrom>",
            start(0),
            run("stays"),
            end(0),
        )
        + para(
            f"<w:moveTo {move.format(n=302)}>"
            + start(1)
            + run("moved away ")
            + end(1)
            + "</w:moveTo>",
            run("here."),
        )
        + para(
            run("Page "),
            '<w:fldSimple w:instr=" PAGE ">' + start(2) + run("7") + end(2) + "</w:fldSimple>",
        )
        + para(
            run("Styled "), run("hidden", '<w:rPr><w:rStyle w:val="Secret"/></w:rPr>'), run(" end")
        )
        + para(
            '<w:dir w:val="rtl">' + start(3) + run("مرحبا") + end(3) + "</w:dir>",
            "<w:ruby><w:rt>"
            + run("とうきょう")
            + "</w:rt><w:rubyBase>"
            + run("東京")
            + "</w:rubyBase></w:ruby>",
        )
        + start(4)
        + "<w:sdt><w:sdtContent>"
        + para(run("In a content control."))
        + "</w:sdtContent></w:sdt>"
        + end(4)
        + para(run("Note"), '<w:r><w:footnoteReference w:id="1"/></w:r>')
    )
    foot = (
        '<w:footnote w:id="1"><w:p>'
        + run("See ")
        + start(5)
        + run("the annex")
        + end(5)
        + "</w:p></w:footnote>"
    )
    styles = (
        '<w:style w:type="character" w:styleId="Secret"><w:name w:val="Secret"/>'
        "<w:rPr><w:vanish/></w:rPr></w:style>"
    )
    doc = read_docx(
        make_docx(body, [Note(i, f"c{i}") for i in range(6)], footnotes=foot, styles=styles)
    )
    assert doc.text.startswith(
        "A stays\nmoved away here.\nPage 7\nStyled hidden end\nمرحبا東京\nIn a content control.\n"
    )
    assert "とうきょう" not in doc.text
    assert "<span hidden>hidden</span>" in doc.html
    assert quoted(doc) == {
        "c0": "stays",
        "c1": "moved away ",
        "c2": "7",
        "c3": "مرحبا",
        "c4": "In a content control.",
        "c5": "the annex",
    }
    assert doc.tracked_changes == 2
    assert {p.part for p in doc.pieces} == {"word/document.xml", "word/footnotes.xml"}


def test_tracked_changes_are_placed_on_the_accepted_text() -> None:
    doc = read_docx((DATA / "lo-tracked.docx").read_bytes())
    kinds = [(c.kind, c.text, c.author) for c in doc.changes]
    assert kinds == [("deletion", "very old ", "Agent"), ("insertion", "newly revised ", "Agent")]
    deletion, insertion = doc.changes
    assert deletion.start == deletion.end == len("The budget is ")
    assert doc.text[insertion.start : insertion.end] == "newly revised "
    built_doc = read_docx(built()[0])
    assert [(c.kind, c.text) for c in built_doc.changes] == [
        ("deletion", "removed "),
        ("insertion", "added "),
    ]
    a, b = (
        utf16.to_codepoint(built_doc.text, x)
        for x in (built_doc.changes[1].start, built_doc.changes[1].end)
    )
    assert built_doc.text[a:b] == "added "


def test_a_word_package_over_the_limits_is_refused_as_a_bundle_is(tmp_path, monkeypatch) -> None:
    """One reading for both (engine.safe_zip): the same zip bomb, the same phrase."""
    from engine.bundle.archive import BundleError, read_files
    from engine.text.docx_package import read_package

    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", b"0" * (3 * 1024 * 1024))
    with pytest.raises(PackageError) as word:
        read_package(bomb.read_bytes())
    with pytest.raises(BundleError) as bundle:
        read_files(bomb)
    said = "inflates 1,0"
    assert said in str(word.value) and "(a zip bomb?)" in str(word.value)
    assert str(bundle.value) == f"{bomb}: " + str(word.value).replace("part", "entry", 1)


def test_strict_open_xml_reads_as_transitional() -> None:
    data = built()[0]
    strict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    for name in ("word/document.xml", "word/comments.xml", "word/footnotes.xml"):
        members[name] = members[name].replace(
            b"http://schemas.openxmlformats.org/wordprocessingml/2006/main", strict.encode()
        )
    doc = read_docx(_zip(members))
    assert quoted(doc) == quoted(read_docx(data))
    assert doc.text == read_docx(data).text


@pytest.mark.parametrize("depth", [1000, 5000])
def test_deeply_nested_xml_is_one_line(depth: int) -> None:
    body = '<w:customXml w:element="x">' * depth + para(run("deep")) + "</w:customXml>" * depth
    with pytest.raises(PackageError, match="nested too deeply"):
        read_docx(make_docx(body))
    shallow = '<w:customXml w:element="x">' * 100 + para(run("deep")) + "</w:customXml>" * 100
    assert read_docx(make_docx(shallow)).text == "deep"
