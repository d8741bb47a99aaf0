"""Word comment ranges whose marks are broken are read as Word shows them or reported in
one line naming the file and the comment, never read as a wrong range
(engine.text.docx_ranges; docs/anchor.md, "Word documents").

Checked against LibreOffice headless (the file converted to .fodt): a range's marks twice
show the comment twice, once per pair (here skipped, naming both places: the reader took
the first start to the last end, the text between included); two comments with one id are
merged into one (here the first is read, the later skipped, naming the first); a range
with no comment shows nothing (here left out, with the document's notice).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.text.documents import open_document
from engine.text.docx import read_docx
from engine.word_review import word_comments
from tests.helpers.word_files import Note, make_docx, para, run

WORDS = [
    "Alpha beta.",
    "Ünïcödé wörds.",
    "会议在星期一。",
    "اجتماع يوم الاثنين.",
    "การประชุม",
    "😀 emoji 👍",
    "नमस्ते दुनिया।",
]


def S(n: int) -> str:
    return f'<w:commentRangeStart w:id="{n}"/>'


def E(n: int) -> str:
    return f'<w:commentRangeEnd w:id="{n}"/><w:r><w:commentReference w:id="{n}"/></w:r>'


def read(body: str, notes: list[Note]):
    return read_docx(make_docx(body, comments=notes))


def test_range_marks_twice_are_reported_never_merged() -> None:
    doc = read(
        para(S(1), run("Alpha beta."), E(1), run(" Gamma delta. "), S(1), run("Epsilon."), E(1)),
        [Note(1, "Check this.")],
    )
    (c,) = doc.comments
    assert c.start is None and c.problem is not None
    assert "twice" in c.problem and "“Alpha beta.”" in c.problem and "“Epsilon.”" in c.problem
    comments, unusable = word_comments(doc)
    assert comments == [] and unusable == [("1", c.problem)]


def test_an_end_before_its_start_is_reported() -> None:
    doc = read(para(run("Alpha "), E(1), run("beta "), S(1), run("gamma.")), [Note(1, "Crossed.")])
    assert doc.comments[0].problem == "its range ends before it starts"


def test_two_comments_with_one_id_read_the_first_and_name_it() -> None:
    doc = read(
        para(S(1), run("Alpha beta."), E(1), run(" Gamma.")),
        [Note(1, "First."), Note(1, "Second.")],
    )
    first, second = doc.comments
    assert (first.text, first.problem) == ("First.", None)
    assert doc.text[first.start : first.end] == "Alpha beta."
    assert second.start is None and "(Reviewer: “First.”)" in (second.problem or "")


def test_a_range_with_no_comment_is_left_out_with_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "orphan.docx"
    path.write_bytes(
        make_docx(
            para(S(1), run("Alpha beta."), E(1), run(" Gamma "), S(7), run("delta."), E(7)),
            comments=[Note(1, "Has one.")],
        )
    )
    doc = open_document(path)
    assert doc.word is not None and [c.text for c in doc.word.comments] == ["Has one."]
    assert doc.notice == (
        "1 comment range with no comment in the comments part (the first on “delta.”) left "
        "out, as Word shows no comment there"
    )


def test_a_comment_with_no_range_is_reported() -> None:
    doc = read(para(S(1), run("Alpha."), E(1)), [Note(1, "Ranged."), Note(2, "Floating.")])
    assert doc.comments[1].problem is not None and "range is missing" in doc.comments[1].problem
    assert doc.notice is None


def test_overlapping_ranges_are_read_as_they_are() -> None:
    doc = read(
        para(S(1), run("Alpha "), S(2), run("beta "), E(1), run("gamma."), E(2)),
        [Note(1, "One."), Note(2, "Two.")],
    )
    assert [doc.text[c.start : c.end] for c in doc.comments] == ["Alpha beta ", "beta gamma."]


# A Hypothesis property: marks of a few ids, each put down any number of times in any
# order between runs of text in several scripts, some ids with a comment and some without.
@st.composite
def layouts(draw: st.DrawFn):
    ids = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4, unique=True))
    commented = draw(st.lists(st.sampled_from(ids), unique=True))
    items = []
    for wid in ids:
        for _ in range(draw(st.integers(0, 2))):
            items.append(("S", wid))
        for _ in range(draw(st.integers(0, 2))):
            items.append(("E", wid))
    items = draw(st.permutations(items))
    texts = [draw(st.sampled_from(WORDS)) for _ in range(len(items) + 1)]
    return ids, commented, items, texts


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_every_comment_is_read_on_its_one_pair_or_reported(layout) -> None:
    ids, commented, items, texts = layout
    body, plain, marks = [], "", {}
    for i, (kind, wid) in enumerate(items):
        body.append(run(texts[i]))
        plain += texts[i]
        body.append(S(wid) if kind == "S" else E(wid))
        marks.setdefault(wid, []).append((kind, len(plain)))
    body.append(run(texts[-1]))
    plain += texts[-1]
    doc = read(para(*body), [Note(w, f"Note {w}.") for w in commented])
    assert doc.text == plain
    for c in doc.comments:
        mine = marks.get(int(c.word_id), [])
        kinds = [k for k, _ in mine]
        if kinds.count("S") == 1 and kinds.count("E") == 1 and kinds.index("S") < kinds.index("E"):
            start, end = (at for _, at in sorted(mine, key=lambda m: m[0] != "S"))
            if start == end:
                assert c.problem is not None and "empty" in c.problem
            else:
                assert c.problem is None and doc.text[c.start : c.end] == plain[start:end]
        else:
            assert c.start is None and c.problem
    orphans = [w for w in ids if w not in commented and marks.get(w)]
    if orphans:
        assert doc.notice is not None and doc.notice.startswith(f"{len(orphans)} comment range")
    else:
        assert doc.notice is None


@pytest.mark.skipif(not Path("/usr/bin/soffice").exists(), reason="LibreOffice not installed")
def test_libreoffice_shows_a_twice_marked_range_twice(tmp_path: Path) -> None:
    import subprocess

    src = tmp_path / "twice.docx"
    src.write_bytes(
        make_docx(
            para(
                S(1), run("Alpha beta."), E(1), run(" Gamma delta. "), S(1), run("Epsilon."), E(1)
            ),
            comments=[Note(1, "Check this.")],
        )
    )
    subprocess.run(
        ["soffice", "--headless", "--convert-to", "fodt", "--outdir", str(tmp_path), str(src)],
        check=True,
        capture_output=True,
        timeout=180,
    )
    flat = (tmp_path / "twice.fodt").read_text(encoding="utf-8")
    # Two annotations with the comment's text: no one range holds the words between.
    assert flat.count("<office:annotation ") + flat.count("<office:annotation>") == 2
    assert flat.count("Check this.") == 2
