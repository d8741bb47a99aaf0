"""The reviewer answers in a comment's thread (engine.threads): the workspace keeps the
reply, the resolve and the reopen, which the agent reads in the next round."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.bundle.read import open_bundle
from engine.threads import answer, run_document
from engine.workspace import UnknownComment, Workspace

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def ws(tmp_path):
    with Workspace(tmp_path / "ws.sqlite3") as w:
        yield w


def _document(ws) -> tuple[str, str]:
    b = open_bundle(DATA / "bundle-min")
    doc, _ = ws.create_document(b.document_title, b.version("v1").source, "html")
    ws.add_comments(doc, b.comments_before)
    return doc, ws.start_run(doc, "m", "http://127.0.0.1:1/v1")


def test_reply_resolve_reopen_are_kept_by_the_workspace(ws):
    doc, run = _document(ws)
    assert run_document(ws, run) == doc
    assert run_document(ws, "run-elsewhere") is None and run_document(ws, "") is None
    c = answer(ws, doc, "c2", "reply", "  Say which form: the HR portal.  ", "Ann")
    assert (c.thread[-1].author, c.thread[-1].body, c.thread[-1].kind) == (
        "Ann",
        "Say which form: the HR portal.",
        "reply",
    )
    c = answer(ws, doc, "c2", "resolve", "", "Ann")
    assert c.status == "resolved" and c.thread[-1].kind == "resolve"
    c = answer(ws, doc, "c2", "reopen", "still says email", "Ann")
    assert c.status == "open" and c.thread[-1].body == "still says email"
    # the next round's agent reads the comments, threads included, from the workspace
    again = {x.id: x for x in ws.comments(doc)}["c2"]
    assert [r.kind for r in again.thread][-3:] == ["reply", "resolve", "reopen"]


@pytest.mark.parametrize("text", ["مرحبا بالمراجع", "请说明使用哪个表格", "ok 👍🏽", "x\u202ey"])
def test_replies_in_any_script_are_kept_word_for_word(ws, text):
    doc, _ = _document(ws)
    assert answer(ws, doc, "c1", "reply", text, "Ann").thread[-1].body == text


def test_refusals(ws):
    doc, _ = _document(ws)
    with pytest.raises(ValueError, match="write the reply"):
        answer(ws, doc, "c1", "reply", "   ", "Ann")
    with pytest.raises(ValueError, match="not one of"):
        answer(ws, doc, "c1", "delete", "x", "Ann")
    with pytest.raises(ValueError, match="at most"):
        answer(ws, doc, "c1", "reply", "x" * 20_001, "Ann")
    with pytest.raises(UnknownComment):
        answer(ws, doc, "nope", "reply", "x", "Ann")


def test_replies_after_are_the_workspace_replies_the_bundle_thread_lacks(ws):
    """What the reviewer said after the run (engine.threads.replies_after), for Send
    back: replies only (a resolve or reopen is the status, not a reply), in any script."""
    from engine.threads import replies_after

    doc, run = _document(ws)
    b = open_bundle(DATA / "bundle-min")
    assert replies_after(ws, run, b.comments_after) == {}
    answer(ws, doc, "c1", "reply", "Uppercasing is not a fix", "Ann")
    answer(ws, doc, "c1", "reply", "请说明使用哪个表格", "Ann")
    answer(ws, doc, "c2", "resolve", "", "Ann")
    got = replies_after(ws, run, b.comments_after)
    assert {k: [r.body for r in v] for k, v in got.items()} == {
        "c1": ["Uppercasing is not a fix", "请说明使用哪个表格"]
    }
    assert replies_after(ws, "run-elsewhere", b.comments_after) == {}
