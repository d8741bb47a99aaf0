"""The verdicts back into Word (engine.word_verdicts, engine.text.docx_write): a copy of the
revised file with a reply per comment, resolved-but-unchanged comments reopened, lost
comments re-created; the copy opens in python-docx and LibreOffice, and reading it back
loses no comment and no reply."""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.score.scoring import Version, score
from engine.text import utf16
from engine.text.docx import WordDocument, read_docx
from engine.word_review import word_claims, word_comments
from engine.word_verdicts import verdicts_into_word
from tests.helpers.word_files import (
    Note,
    end as end_mark,
    make_docx,
    para,
    run,
    start as start_mark,
)

WORD = Path(__file__).resolve().parents[2] / "resources" / "word"
WHEN = "2026-12-01T12:00:00Z"


def scored(v1: bytes, v2: bytes) -> tuple[WordDocument, WordDocument, bytes, object]:
    d1, d2 = read_docx(v1), read_docx(v2)
    comments, _ = word_comments(d1)
    found = word_claims(d1, d2)
    result = score(
        Version.from_source(d1.html, "html", "v1"),
        Version.from_source(d2.html, "html", "v2"),
        comments,
        claims=found.claims,
    )
    out, report = verdicts_into_word(v2, d1, d2, result, WHEN)
    return d1, d2, out, report


def words(doc: WordDocument, start: int | None, end: int | None) -> str | None:
    if start is None or end is None:
        return None
    return doc.text[utf16.to_codepoint(doc.text, start) : utf16.to_codepoint(doc.text, end)]


def test_round_trip_keeps_every_comment_and_reply() -> None:
    v2 = (WORD / "revised.docx").read_bytes()
    _, revised, out, report = scored((WORD / "review.docx").read_bytes(), v2)
    back = read_docx(out)
    assert back.text == revised.text
    assert report.replies == 4 and report.reopened == ["2"] and report.recreated == []
    assert len(back.comments) == len(revised.comments)
    for before, after in zip(revised.comments, back.comments, strict=True):
        assert after.text == before.text
        assert words(back, after.start, after.end) == words(revised, before.start, before.end)
        assert [r.text for r in after.replies][:-1] == [r.text for r in before.replies]
        assert after.replies[-1].author == "Agent Review Loop"
    by_text = {c.text: c for c in back.comments}
    reopened = by_text["Say how many days."]
    assert not reopened.done and "VERIFICATION" in reopened.replies[-1].text
    assert by_text["Reasonable is not a rule: give the limits."].done  # edited: stays resolved
    assert "edited" in by_text["Reasonable is not a rule: give the limits."].replies[-1].text


def test_a_fresh_revised_file_gets_every_comment_back() -> None:
    body = (
        para(run("The budget "), start_mark(0), run("rose a lot"), end_mark(0), run(" this year."))
        + para(start_mark(1), run("Old sentence to drop."), end_mark(1), run(" Kept words."))
        + para(run("Staff "), start_mark(2), run("numbers are fine"), end_mark(2), run("."))
        + para(run("Closing line."))
    )
    notes = [
        Note(0, "How much?", para_id="00000001"),
        Note(1, "Cut this.", para_id="00000002"),
        Note(2, "Check.", para_id="00000003"),
        Note(3, "Seconded.", author="Ana", para_id="00000004", parent="00000001"),
    ]
    v1 = make_docx(body, notes)
    fresh = make_docx(
        para(run("The budget rose by 12 % this year."))
        + para(run(" Kept words."))
        + para(run("Staff numbers are fine."))
        + para(run("Closing line, now longer."))
    )
    _, revised, out, report = scored(v1, fresh)
    assert not revised.has_comments
    assert sorted(report.recreated) == ["1", "2", "3"]
    assert report.changes == 1
    back = read_docx(out)
    # counted as written: each re-created comment carries its verdict reply ("0 verdict
    # replies, 3 lost comments put back" while the file held 3 replies)
    written = sum(1 for c in back.comments for r in c.replies if r.author == "Agent Review Loop")
    assert report.replies == written == 3
    from engine.word_verdicts import report_words

    assert report_words(report).startswith(
        "3 verdict replies written, all 3 on comments the revised file had lost, put back in place"
    )
    got = {c.text: c for c in back.comments}
    assert words(back, got["How much?"].start, got["How much?"].end) == "rose by 12 %"
    assert got["How much?"].replies[0].text == "Seconded."
    assert "edited" in got["How much?"].replies[-1].text
    assert got["Cut this."].problem is not None  # deleted: a comment on the point it stood
    assert "deleted" in got["Cut this."].replies[-1].text
    assert words(back, got["Check."].start, got["Check."].end) == "numbers are fine"
    change = got["Agent Review Loop: changed, though no comment asked for it."]
    assert words(back, change.start, change.end) == ", now longer"
    assert back.text == revised.text


def copies() -> list[bytes]:
    pair = [(WORD / "review.docx").read_bytes(), (WORD / "revised.docx").read_bytes()]
    return [scored(*pair)[2]]


def test_python_docx_opens_the_copy() -> None:
    docx = pytest.importorskip("docx")
    for out in copies():
        d = docx.Document(io.BytesIO(out))
        texts = [c.text for c in d.comments]
        assert len(texts) == 10 and sum("Agent Review Loop" in t for t in texts) == 4


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_opens_the_copy_with_every_comment(tmp_path: Path) -> None:
    for i, out in enumerate(copies()):
        src = tmp_path / f"copy{i}.docx"
        src.write_bytes(out)
        proc = subprocess.run(
            ["soffice", "--headless", "--convert-to", "odt", "--outdir", str(tmp_path), str(src)],
            capture_output=True,
            timeout=180,
        )
        odt = tmp_path / f"copy{i}.odt"
        assert proc.returncode == 0 and odt.exists(), proc.stderr
        content = zipfile.ZipFile(odt).read("content.xml").decode()
        with zipfile.ZipFile(io.BytesIO(out)) as zf:
            written = zf.read("word/comments.xml").decode().count("<w:comment ")
        assert (
            content.count("<office:annotation ") + content.count("<office:annotation>") == written
        )


def test_ranges_inside_runs_of_one_paragraph_split_each_run_once() -> None:
    from engine.text.docx_write import WordCopy

    data = make_docx(
        para(run("Alpha "), run("beta ", "<w:rPr><w:b/></w:rPr>"), run("gamma delta"))
        + para(run("Second "), run("line"))
    )
    doc = read_docx(data)
    copy = WordCopy(data, doc)
    spans = {"ph": "Alpha ", "amm": "gamma delta", "a gam": "beta gamma", "cond li": "Second line"}
    for i, (quote, inside) in enumerate(spans.items()):
        base = doc.text.index(inside)
        at = base + inside.index(quote) if quote in inside else doc.text.index(quote)
        copy.add_comment(at, at + len(quote), "A", WHEN, f"c{i}")
    back = read_docx(copy.to_bytes())
    assert back.text == doc.text
    assert {c.text: words(back, c.start, c.end) for c in back.comments} == {
        "c0": "ph",
        "c1": "amm",
        "c2": "a gam",
        "c3": "cond li",
    }
    with zipfile.ZipFile(io.BytesIO(copy.to_bytes())) as zf:
        xml = zf.read("word/document.xml").decode()
    assert xml.count("<w:b/>") == 2  # the bold run split in two keeps its formatting


def test_an_edit_made_without_tracking_is_said_so() -> None:
    from tests.helpers.word_files import deleted, ins

    body = para(run("Intro. "), start_mark(0), run("The claim"), end_mark(0), run(" stands."))
    body += para(run("Alpha beta gamma.")) + para(run("Delta epsilon zeta."))
    notes = [Note(0, "Source?", para_id="00000001")]
    revised = para(run("Intro. "), start_mark(0), run("The claim"), end_mark(0), run(" stands."))
    revised += para(run("Alpha "), deleted("beta"), ins(run("BETA")), run(" gamma."))
    revised += para(run("Delta EPSILON zeta."))  # changed, but not as a tracked change
    _, doc2, out, report = scored(make_docx(body, notes), make_docx(revised, notes))
    assert len(doc2.changes) == 2 and report.changes == 2 and report.untracked == 1
    back = read_docx(out)
    notes_by_words = {
        words(back, c.start, c.end): c.text
        for c in back.comments
        if c.author == "Agent Review Loop"
    }
    assert notes_by_words["BETA"].endswith("no comment asked for it.")
    assert notes_by_words["EPSILON"].endswith("This edit was made without tracking changes.")


def test_tracked_accounts_for_overlaps_and_points() -> None:
    from engine.text.docx_changes import TrackedChange
    from engine.word_review import tracked

    ins = TrackedChange("insertion", 10, 14, "abcd", "A", "")
    dele = TrackedChange("deletion", 20, 20, "gone", "A", "")
    assert tracked(11, 12, (ins,)) and tracked(14, 14, (ins,)) and not tracked(15, 18, (ins,))
    assert tracked(20, 20, (dele,)) and tracked(18, 22, (dele,)) and not tracked(21, 22, (dele,))


def test_comments_on_footnote_marks_and_inside_footnotes() -> None:
    from engine.text.docx_write import WordCopy

    data = (
        Path(__file__).resolve().parents[1] / "data" / "docx" / "mammoth-footnotes.docx"
    ).read_bytes()
    doc = read_docx(data)
    assert doc.text.startswith("Ouch[1].[2]\n A tachyon walks into a bar. ↑")
    copy = WordCopy(data, doc)
    t = doc.text
    cases = {
        "with its mark": (0, len("Ouch[1]"), "Ouch[1]"),
        "from the mark": (t.index("[1]"), t.index(".["), "[1]"),
        "in the footnote": (t.index("tachyon"), t.index(" walks"), "tachyon"),
        "across parts": (t.index("Ouch"), t.index("tachyon"), "Ouch[1].[2]"),
    }
    for note, (a, b, _) in cases.items():
        copy.add_comment(a, b, "A", WHEN, note)
    back = read_docx(copy.to_bytes())
    assert back.text == doc.text
    got = {c.text: words(back, c.start, c.end) for c in back.comments}
    assert got == {note: want for note, (_, _, want) in cases.items()}
    with zipfile.ZipFile(io.BytesIO(copy.to_bytes())) as zf:
        foot = zf.read("word/footnotes.xml").decode()
    assert foot.count("<w:commentReference ") == 1  # the footnote's comment lives there


def _python_docx_pair(drop_comment: bool) -> tuple[bytes, bytes]:
    """A review made with python-docx (a comment on each of three paragraphs, the second
    with a reply-free thread), and the agent's revision with the second paragraph deleted:
    its range marks go with it; ``drop_comment`` removes its ``w:comment`` too."""
    docx = pytest.importorskip("docx")
    d = docx.Document()
    texts = ["The budget rose a lot this year.", "Drop this old sentence.", "Staff are fine."]
    notes = ["How much?", "Cut this paragraph.", "Check the count."]
    for text, note in zip(texts, notes, strict=True):
        p = d.add_paragraph(text)
        d.add_comment(p.runs, text=note, author="Ana", initials="A")
    buf = io.BytesIO()
    d.save(buf)
    v1 = buf.getvalue()
    d2 = docx.Document(io.BytesIO(v1))
    gone = d2.paragraphs[1]._p
    gone.getparent().remove(gone)
    d2.paragraphs[0].runs[0].text = "The budget rose by 12 % this year."
    if drop_comment:
        comments = d2.part._comments_part.element
        victim = next(c for c in comments if "Cut this" in "".join(c.itertext()))
        comments.remove(victim)
    buf = io.BytesIO()
    d2.save(buf)
    return v1, buf.getvalue()


@pytest.mark.parametrize("drop_comment", [False, True])
def test_a_comment_whose_paragraph_was_deleted_is_put_back_where_it_stood(
    drop_comment: bool,
) -> None:
    v1, v2 = _python_docx_pair(drop_comment)
    _, revised, out, report = scored(v1, v2)
    assert report.recreated == ["2"]
    back = read_docx(out)
    assert back.text == revised.text
    got = [c for c in back.comments if c.text == "Cut this paragraph."]
    assert len(got) == 1  # put back once, not a second copy beside the orphan
    cut = got[0]
    assert cut.problem is not None  # a comment on the point it stood, of no length
    body = zipfile.ZipFile(io.BytesIO(out)).read("word/document.xml").decode()
    mark = body.index(f'<w:commentRangeStart w:id="{cut.word_id}"/>')
    assert "this year." in body[:mark] and "Staff are fine." in body[mark:]
    assert f'<w:commentReference w:id="{cut.word_id}"/>' in body
    assert "deleted" in cut.replies[-1].text and cut.replies[-1].author == "Agent Review Loop"
    assert {c.text for c in back.comments} >= {"How much?", "Check the count."}
    assert all(
        c.replies and c.replies[-1].author == "Agent Review Loop"
        for c in back.comments
        if c.author == "Ana"
    )
    docx = pytest.importorskip("docx")
    assert (
        len(docx.Document(io.BytesIO(out)).comments)
        == len(
            zipfile.ZipFile(io.BytesIO(out)).read("word/comments.xml").decode().split("<w:comment ")
        )
        - 1
    )


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_opens_the_copy_of_a_deleted_paragraphs_comment(tmp_path: Path) -> None:
    src = tmp_path / "copy.docx"
    src.write_bytes(scored(*_python_docx_pair(False))[2])
    proc = subprocess.run(
        ["soffice", "--headless", "--convert-to", "odt", "--outdir", str(tmp_path), str(src)],
        capture_output=True,
        timeout=180,
    )
    odt = tmp_path / "copy.odt"
    assert proc.returncode == 0 and odt.exists(), proc.stderr
    content = zipfile.ZipFile(odt).read("content.xml").decode()
    annotations = content.count("<office:annotation ") + content.count("<office:annotation>")
    assert annotations == 6  # three comments of Ana's, each with its verdict reply
    assert "Cut this paragraph." in content


def test_a_comment_that_cannot_be_written_is_named_by_its_number_and_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.text.docx_package import PackageError
    from engine.text.docx_write import WordCopy

    def refuse(self: object, *args: object) -> None:
        raise PackageError("its comment has no place in the document to reply at")

    monkeypatch.setattr(WordCopy, "add_reply", refuse)
    with pytest.raises(PackageError) as caught:
        scored(*_python_docx_pair(False))
    # the program's number ("Comment 1" in the Verdicts view), never Word's w:id (0 here)
    assert str(caught.value) == (
        "comment 1 (Ana: \u201cHow much?\u201d): its comment has no place in the document "
        "to reply at"
    )


_SCRIPTS = st.text(
    st.sampled_from(list("Tighten this 預算增加 الميزانية งบประมาณ 😀👍🏽 \n\t")), max_size=120
)


@settings(max_examples=200, deadline=None)
@given(number=st.integers(1, 10_000), author=_SCRIPTS, text=_SCRIPTS, wid=st.integers(10_001))
def test_comment_name_says_the_number_and_first_words_never_the_word_id(
    number: int, author: str, text: str, wid: int
) -> None:
    from engine.text.docx import WordComment
    from engine.word_verdicts import comment_name

    c = WordComment(str(wid), number, author, "", "", text, None, None, None, False, (), None, None)
    name = comment_name(c)
    assert name.startswith(f"comment {number}") and str(wid) not in name
    words = " ".join(text.split())
    assert "\n" not in name and "\t" not in name
    assert len(name) <= len(f"comment {number} ()") + 40 + 2 + 2 + 41
    if words:
        assert words[:20] in name
