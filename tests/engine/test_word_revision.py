"""The agent's revision back into Word as tracked changes (engine.word_revision,
engine.text.docx_track): accepting every change gives the agent's text, rejecting every
change gives the reviewed file's, the changes are the program's diff by "Revision agent"
over the original's runs, and the file opens in python-docx and LibreOffice."""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.text.docx import read_docx
from engine.word_revision import REVISION_AUTHOR, revision_edits, word_revision
from tests.helpers.word_files import make_docx, para, run
from tests.helpers.word_tracked import changes_in, resolve_all

REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "docx"
WHEN = "2026-12-01T12:00:00Z"


def _real_files() -> list[Path]:
    return sorted(REAL.glob("*.docx")) if REAL.is_dir() else []


def _mixed() -> bytes:
    """Runs split mid-word, a hyperlink, a complex field, a simple field, a footnote
    reference, a tab, and Chinese, Arabic, Thai and emoji text."""
    bold = "<w:rPr><w:b/></w:rPr>"
    body = (
        para(run("Intro"), run("duc", bold), run("tion: the ce"), run("ntre", bold), run(" holds."))
        + para(
            run("See "),
            '<w:hyperlink w:anchor="top">' + run("the linked words") + "</w:hyperlink>",
            run(" and "),
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> DATE </w:instrText>'
            '</w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>',
            run("1 December"),
            '<w:r><w:fldChar w:fldCharType="end"/></w:r>',
            run(" page "),
            '<w:fldSimple w:instr=" PAGE ">' + run("7") + "</w:fldSimple>",
            run("."),
        )
        + para(
            run("A note"),
            '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
            '<w:footnoteReference w:id="1"/></w:r>',
            run(" here\tand a tab."),
        )
        + para(run("中文的句子在这里。"), run("العربية نص هنا"), run(" ภาษาไทยที่นี่ 😀👍🏽 end."))
        + para(run("Last paragraph of the body."), ppr='<w:pPr><w:jc w:val="center"/></w:pPr>')
    )
    foot = '<w:footnote w:id="1"><w:p>' + run("The footnote text.") + "</w:p></w:footnote>"
    return make_docx(body, footnotes=foot)


def _documents() -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in _real_files()] + [("mixed", _mixed())]


DOCS = _documents()
READ = {name: read_docx(data) for name, data in DOCS}

_WORDS = st.sampled_from(
    ["new", "words", " ", "\n", "\t", "中文", "العربية", "ไทย", "😀", "👍🏽", "Fix.", "ß", "é"]
)


@st.composite
def revised(draw: st.DrawFn) -> tuple[str, str]:
    """A document and a random edit of its text: a few deletions, replacements and
    insertions (paragraph breaks and other scripts among them)."""
    name = draw(st.sampled_from([n for n, _ in DOCS]))
    text = READ[name].text
    n = draw(st.integers(1, 4))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2 * n, max_size=2 * n)))
    out, last = [], 0
    for k in range(n):
        a, b = cuts[2 * k], cuts[2 * k + 1]
        b = min(b, a + draw(st.integers(0, 40)))
        new = "".join(draw(st.lists(_WORDS, max_size=4)))
        out.append(text[last:a])
        out.append(new)
        last = b
    out.append(text[last:])
    return name, "".join(out)


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(revised())
def test_accepting_gives_the_agents_text_and_rejecting_the_original(
    case: tuple[str, str],
) -> None:
    name, new = case
    doc = READ[name]
    rev = word_revision(dict(DOCS)[name], doc, new, WHEN)
    rejected = read_docx(resolve_all(rev.data, accept=False)).text
    assert rejected == doc.text
    accepted = read_docx(resolve_all(rev.data, accept=True)).text
    if not rev.notes:
        assert accepted == new
        # the reader reads a tracked file with every change accepted: the same text
        assert read_docx(rev.data).text == accepted
    for note in rev.notes:
        assert 1 <= note.paragraph <= doc.text.count("\n") + 1
        assert note.reason and note.words().startswith(f"Paragraph {note.paragraph} ")
    assert all(author == REVISION_AUTHOR for _, author in changes_in(rev.data))


@pytest.mark.parametrize("name", [n for n, _ in DOCS])
def test_edits_of_words_and_paragraph_breaks_are_exact_with_no_note(name: str) -> None:
    data = dict(DOCS)[name]
    doc = READ[name]
    text = doc.text
    words = [
        (p.start, p.end)
        for p in doc.pieces
        if p.end - p.start >= 4 and p.part == "word/document.xml"
    ]
    assert words, name
    a, _ = words[0]
    _, d = words[-1]
    # a letter replaced and a paragraph break added inside a word, words added at the end
    # of the last words of the body
    new = text[: a + 1] + "X\nnew paragraph " + text[a + 2 : d] + " 中文 😀" + text[d:]
    rev = word_revision(data, doc, new, WHEN)
    assert rev.notes == ()
    assert read_docx(resolve_all(rev.data, accept=True)).text == new
    assert read_docx(resolve_all(rev.data, accept=False)).text == text


def test_a_replacement_keeps_the_runs_formatting_and_says_so_when_it_cannot() -> None:
    bold = "<w:rPr><w:b/></w:rPr>"
    data = make_docx(para(run("Plain "), run("bold", bold), run(" tail.")) + para(run("Next.")))
    doc = read_docx(data)
    rev = word_revision(data, doc, doc.text.replace("bold", "strong"), WHEN)
    xml = zipfile.ZipFile(io.BytesIO(rev.data)).read("word/document.xml").decode()
    ins = xml[xml.index("<w:ins ") : xml.index("</w:ins>")]
    assert "<w:b/>" in ins and "strong" in ins and rev.notes == ()
    # the words replaced had two formattings: the note names the paragraph and why
    rev = word_revision(data, doc, doc.text.replace("Plain bold", "Other"), WHEN)
    assert [n.paragraph for n in rev.notes] == [1]
    assert "more than one formatting" in rev.notes[0].reason
    assert rev.notes[0].words().startswith("Paragraph 1 (\u201cPlain bold tail.\u201d)")


def test_joining_two_paragraphs_is_a_deleted_paragraph_mark() -> None:
    data = make_docx(para(run("First.")) + para(run("Second.")))
    doc = read_docx(data)
    rev = word_revision(data, doc, "First. Second.", WHEN)
    xml = zipfile.ZipFile(io.BytesIO(rev.data)).read("word/document.xml").decode()
    assert "<w:pPr><w:rPr><w:del " in xml
    assert read_docx(resolve_all(rev.data, accept=True)).text == "First. Second."
    assert read_docx(resolve_all(rev.data, accept=False)).text == doc.text


def test_a_removed_footnote_mark_is_kept_with_a_note() -> None:
    doc = read_docx(_mixed())
    text = doc.text
    mark = text.index("note") + 4
    new = text[:mark] + text[mark + 1 :]  # the footnote mark "[1]" loses a character
    rev = word_revision(_mixed(), doc, new, WHEN)
    assert rev.notes and rev.notes[0].paragraph == 3
    assert "footnote mark" in rev.notes[0].reason
    assert read_docx(resolve_all(rev.data, accept=False)).text == text


def test_the_edits_are_the_programs_diff() -> None:
    old, new = "The cat sat on the mat.\nEnd.", "The dog sat on a mat.\nEnd."
    edits = revision_edits(old, new)
    rebuilt, last = [], 0
    for e in edits:
        rebuilt += [old[last : e.start], e.text]
        last = e.end
    assert "".join([*rebuilt, old[last:]]) == new
    assert all(e.start < 9 or e.start > 10 for e in edits)  # " sat on " kept


def test_nothing_changed_is_no_tracked_change() -> None:
    data = make_docx(para(run("Same.")))
    doc = read_docx(data)
    rev = word_revision(data, doc, doc.text, WHEN)
    assert (rev.insertions, rev.deletions, changes_in(rev.data)) == (0, 0, [])


def test_python_docx_opens_the_tracked_copy() -> None:
    docx = pytest.importorskip("docx")
    for name, data in DOCS:
        doc = READ[name]
        rev = word_revision(data, doc, "Opening words. " + doc.text.replace("e", "E", 3), WHEN)
        d = docx.Document(io.BytesIO(rev.data))
        assert d.paragraphs, name


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
def test_libreoffice_opens_the_tracked_copy_and_keeps_every_change(tmp_path: Path) -> None:
    """LibreOffice reads the copy (no repair: it converts it) and writes the changes back
    as tracked changes: accepting them gives the agent's text, rejecting them the
    original. The built file is left out: LibreOffice updates its DATE and PAGE fields
    when it opens it."""
    cases = []
    for i, (name, data) in enumerate(DOCS):
        if name == "mixed":
            continue
        doc = READ[name]
        words = [
            (p.start, p.end)
            for p in doc.pieces
            if p.end - p.start >= 4 and p.part == "word/document.xml"
        ]
        a, b = words[0]
        new = doc.text[: a + 1] + "LO\nsplit " + doc.text[a + 2 :]
        new = new.replace(doc.text[words[-1][0] : words[-1][1]], "replaced 中文", 1)
        rev = word_revision(data, doc, new, WHEN)
        src = tmp_path / f"in{i}.docx"
        src.write_bytes(rev.data)
        cases.append((src, doc.text, new))
    proc = subprocess.run(
        ["soffice", "--headless", "--convert-to", "docx:MS Word 2007 XML"]
        + ["--outdir", str(tmp_path / "lo")]
        + [str(src) for src, _, _ in cases],
        capture_output=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    for src, old, new in cases:
        out = (tmp_path / "lo" / src.name).read_bytes()
        assert read_docx(resolve_all(out, accept=True)).text == new, src.name
        assert read_docx(resolve_all(out, accept=False)).text == old, src.name


def test_arl_run_on_a_word_review_writes_the_revision_as_tracked_changes(
    tmp_path: Path, capsys
) -> None:
    import json

    from engine.bundle.read import open_bundle
    from engine.cli.main import main
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    doc = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"
    out_docx = tmp_path / "agent.docx"
    with ScriptedServer(FixEverything()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(doc), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "bundles"), "--json", "--word-revision", str(out_docx)]
        )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert f"The agent's revision as a Word file: {out_docx}" in err
    bundle = open_bundle(json.loads(out)["bundle"])
    first, final = (v.to_version().text for v in (bundle.versions[0], bundle.versions[-1]))
    assert first != final
    data = out_docx.read_bytes()
    assert read_docx(resolve_all(data, accept=True)).text == final
    assert (
        read_docx(resolve_all(data, accept=False)).text == first == read_docx(doc.read_bytes()).text
    )
    kinds = {k for k, _ in changes_in(data)}
    assert kinds == {"ins", "del"} and {a for _, a in changes_in(data)} == {REVISION_AUTHOR}
    # the comments of the review are still there, on their words
    assert [c.text for c in read_docx(data).comments] == [
        c.text for c in read_docx(doc.read_bytes()).comments
    ]


def test_arl_run_writes_the_revision_beside_the_bundle_by_default(tmp_path: Path, capsys) -> None:
    import json

    from engine.cli.main import main
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    doc = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"
    with ScriptedServer(FixEverything()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(doc), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "bundles"), "--json"]
        )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    bundle = Path(json.loads(out)["bundle"])
    beside = bundle.parent / f"{bundle.name}-revision.docx"
    assert beside.is_file() and str(beside) in err
    from engine.bundle.read import verify_bundle

    assert verify_bundle(bundle).ok  # nothing was written into the bundle


def test_send_back_of_a_word_review_writes_a_word_copy_carrying_the_brief(
    tmp_path: Path, capsys
) -> None:
    import json

    from engine.cli.main import main
    from tests.helpers.scripted_server import ClaimWithoutEditing, ScriptedServer

    doc = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"
    with ScriptedServer(ClaimWithoutEditing()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(doc), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "bundles"), "--json", "--rounds", "1"]
        )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    bundle = json.loads(out)["bundle"]
    code = main(["bundle", "send-back", bundle, "--out", str(tmp_path / "next")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "document.docx" in out + err
    copy = (tmp_path / "next" / "document.docx").read_bytes()
    plan = json.loads((tmp_path / "next" / "comments.json").read_text(encoding="utf-8"))
    sent = [c for c in plan["comments"] if c["status"] == "open"]
    assert sent
    back = read_docx(copy)
    briefed = [
        c
        for c in back.comments
        if any(r.author == "Agent Review Loop" and "still to do" in r.text for r in c.replies)
    ]
    assert len(briefed) == len(sent) and not any(c.done for c in briefed)
    assert {c.text for c in briefed} == {c["body"] for c in sent}
    # every comment of the review is still there, none lost; python-docx opens the copy
    assert len(back.comments) == len(read_docx(doc.read_bytes()).comments)
    docx = pytest.importorskip("docx")
    assert docx.Document(io.BytesIO(copy)).paragraphs
    # a Word file that is not the last version: one line, nothing written
    code = main(
        ["bundle", "send-back", bundle, "--out", str(tmp_path / "bad")]
        + ["--word", str(REAL / "mammoth-tables.docx")]
    )
    out, err = capsys.readouterr()
    assert code == 2 and "not the text of the review's last version" in err
    assert not (tmp_path / "bad" / "document.docx").exists()


def test_page_text_reads_a_page_as_the_word_page_reads() -> None:
    from engine.text.docx import page_text

    for name, _ in DOCS:
        assert page_text(READ[name].html) == READ[name].text, name
    doc = READ["mammoth-simple-list.docx"]
    pretty = doc.html.replace("<li>", "\n    <li>").replace("</ul>", "\n</ul>\n")
    one_line = doc.html.replace("\n", "")
    assert page_text(pretty) == page_text(one_line) == doc.text
    assert page_text("<p><b>x</b> </p><p>y<br>z</p>") == "x \ny\nz"  # a space alone is text


@pytest.mark.parametrize("layout", ["indented", "one line"])
def test_a_page_the_agent_relaid_out_keeps_its_paragraphs_in_word(
    tmp_path: Path, capsys, layout: str
) -> None:
    import re

    from engine.cli.main import main
    from engine.text.docx import page_text
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    class Relayout(FixEverything):
        def edit(self, content, comments):
            out = super().edit(content, comments)
            if layout == "indented":
                return re.sub(r"(<(?:p|li|h\d|ul|ol)\b)", r"\n    \1", out)
            return out.replace("\n", "")

    doc = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"
    with ScriptedServer(Relayout()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(doc), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "b"), "--json", "--rounds", "1"]
            + ["--word-revision", str(tmp_path / "agent.docx")]
        )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    bundle = open_bundle_json(out)
    final = page_text(bundle.versions[-1].source)
    data = (tmp_path / "agent.docx").read_bytes()
    xml = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    # no paragraph joined or split, no layout space written as words
    assert "<w:pPr><w:rPr><w:del " not in xml and "<w:rPr><w:ins " not in xml
    assert read_docx(resolve_all(data, accept=True)).text == final
    assert read_docx(resolve_all(data, accept=False)).text == read_docx(doc.read_bytes()).text
    # Send back makes its Word copy from it too
    code = main(
        ["bundle", "send-back", str(bundle.path), "--out", str(tmp_path / "n")]
        + ["--word", str(tmp_path / "agent.docx")]
    )
    out, err = capsys.readouterr()
    assert code == 0 and (tmp_path / "n" / "document.docx").is_file(), out + err


def open_bundle_json(out: str):
    import json

    from engine.bundle.read import open_bundle

    return open_bundle(json.loads(out)["bundle"])


def test_a_failure_to_write_the_word_revision_never_fails_the_run(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    import json

    import engine.word_revision as wr
    from engine.cli.main import main
    from tests.helpers.scripted_server import FixEverything, ScriptedServer

    def broken(*a, **k):
        raise KeyError("defect")

    monkeypatch.setattr(wr, "write_word_revision", broken)
    doc = Path(__file__).resolve().parents[2] / "resources" / "word" / "review.docx"
    with ScriptedServer(FixEverything()) as srv:
        code = main(
            ["run", "--yes", "--doc", str(doc), "--base-url", srv.base_url, "--model", srv.model]
            + ["--out", str(tmp_path / "b"), "--json"]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["status"] == "completed"
    assert "was not written as a Word file: an unexpected problem" in err
    assert "KeyError" not in err and "Traceback" not in err
