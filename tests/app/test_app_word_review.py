"""A Word review in the window: the pane's textContent is the text the engine scores, each
comment of the file is highlighted on exactly its words, and the wizard brings the
comments in without re-selecting any (docs/anchor.md, "Word documents")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.settings import Settings
from app.wizard import SetupWizard
from engine.text import utf16
from engine.text.documents import open_document
from engine.text.docx import read_docx
from tests.engine.test_docx import built


def test_the_pane_shows_the_text_the_engine_scores(qtbot, view):
    doc = read_docx(built()[0])
    with qtbot.waitSignal(view.rendered, timeout=20000):
        view.show_document(doc.html, "html")
    with qtbot.waitCallback(timeout=10000) as cb:
        view.body_text(cb)
    assert cb.args[0] == doc.text
    spans = [
        {"id": str(c.number), "kind": "comment", "start": c.start, "end": c.end, "label": ""}
        for c in doc.comments
        if c.start is not None
    ]
    with qtbot.waitSignal(view.highlighted, timeout=10000) as blocker:
        view.set_highlights(spans)
    assert blocker.args[0]["made"] == len(spans) and blocker.args[0]["failed"] == []
    for c in doc.comments:
        if c.start is None:
            continue
        with qtbot.waitCallback(timeout=10000) as cb:
            view.select_span(str(c.number), cb)
        assert cb.args[0] is True
        with qtbot.waitCallback(timeout=10000) as cb:
            view.selection_anchor(cb)
        a, b = (utf16.to_codepoint(doc.text, x) for x in (c.start, c.end))
        assert cb.args[0]["quote"] == doc.text[a:b]
        assert (cb.args[0]["start_offset"], cb.args[0]["end_offset"]) == (c.start, c.end)


def test_the_wizard_takes_the_comments_from_the_word_file(qtbot, tmp_path):
    path = tmp_path / "review.docx"
    path.write_bytes(built()[0])
    wizard = SetupWizard(Settings())
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.model_page.url.setText("http://127.0.0.1:9/v1")
    wizard.model_page.model.setEditText("m")
    wizard.next()
    page = wizard.document_page
    page._loaded(str(path), open_document(path))
    assert "Budget memo" in page.status.text() and "8 comments come with it" in page.status.text()
    view = wizard.comments_page.view
    with qtbot.waitSignal(view.rendered, timeout=20000):
        wizard.next()
    comments = wizard.comments_page
    assert [c.id for c in comments.comments] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    assert comments.comments[0].anchor.quote == "first words and bold"
    assert "1 comment of the Word file could not be used" in comments.count.text()
    assert "resolved already" in comments.list.item(3).text()
    assert comments.isComplete()


def test_check_a_revision_reads_the_claims_of_a_revised_word_file(tmp_path):
    import json

    from app.check_revision import check_files

    word = Path(__file__).resolve().parents[2] / "resources" / "word"
    path = check_files(str(word / "review.docx"), "", str(word / "revised.docx"), "", tmp_path)
    final = json.loads((path / "verdicts.json").read_text(encoding="utf-8"))["final"]
    assert {v["comment_id"]: v["claim"] for v in final} == {
        "1": "addressed",
        "2": "addressed",
        "3": "addressed",
        "4": None,
    }
    said = (path / "agent" / "message.txt").read_text(encoding="utf-8")
    assert "resolved in the revised Word file" in said
