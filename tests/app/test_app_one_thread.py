"""A comment's thread is shown once, from one source: the workspace's when the run is in
it, else the bundle's record, both in the thread box; the detail pane shows none of its
own (it said "No replies." while the box below showed a reply)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from app.thread_box import NOT_IN_WORKSPACE, ThreadBox, recorded_thread_html, thread_html
from app.window import MainWindow
from engine.models import Comment, Reply

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "remote-work-policy-scripted"


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def test_the_demo_shows_each_thread_once_in_the_thread_box(qtbot, window):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_demo()
    view = window.verdicts
    assert view.v2_title.text().endswith("the agent's last version, after 2 rounds")
    box = view.thread
    qtbot.waitUntil(lambda: box.continue_btn.isVisible(), timeout=10000)
    view.select_comment("c4")  # the stale anchor: the agent replied the same each round
    detail = view.detail.toPlainText()
    assert "No replies" not in detail and "Thread" not in detail
    text = box.state.text()
    assert text.count("This wording is not in the current version.") == 1
    assert "(reply, twice)" in text and "As this run left it" in text
    assert text.endswith(NOT_IN_WORKSPACE)


def test_a_recorded_thread_and_a_workspace_thread_read_alike():
    replies = [("Pat", "reply", "Please add the visitor count"), ("agent", "resolve", "done")]
    ws = Comment.from_json(
        {
            "id": "c4",
            "body": "b",
            "status": "resolved",
            "anchor": {"quote": "q"},
            "thread": [{"author": a, "kind": k, "body": b} for a, k, b in replies],
        }
    )
    recorded = {"status": "resolved", "thread": [r.to_json() for r in ws.thread]}
    mine, theirs = thread_html(ws), recorded_thread_html(recorded)
    assert mine.split(",", 1)[1] == theirs.split(",", 1)[1]
    assert "<b title='Pat'>Pat</b> <small>(reply)</small>: Please add the visitor count" in mine


def test_an_author_that_is_an_id_reads_as_a_reviewer(qtbot, window):
    """The shipped example's comments are by "report51975" (the corpus's report id): the
    detail and thread say "a reviewer", the id only in the tooltip."""
    from engine.vocabulary import author_words

    assert author_words("report51975") == "a reviewer" and author_words("user_123") == "a reviewer"
    for name in ("Pat", "Ana  María", "山田 太郎", "محمد رضا", "R2 D2", "O'Neil"):
        assert author_words(name) == " ".join(name.split())
    assert author_words(None) == "" and author_words("  ") == ""
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_example()
    view = window.verdicts
    view.select_comment(view.rows[0]["id"])
    assert " by a reviewer: " in view.detail.toPlainText()
    assert "report51975" not in view.detail.toPlainText()
    assert "title='report51975'>A reviewer<" in recorded_thread_html(
        {"thread": [{"author": "report51975", "kind": "reply", "body": "x"}]}
    )


def test_a_repeat_is_counted_only_when_it_follows_itself():
    say = Reply(author="agent", body="Same.", kind="reply")
    other = Reply(author="Pat", body="Why?", kind="reply")
    c = Comment.from_json({"id": "c1", "body": "b", "anchor": {"quote": "q"}})
    c.thread = [say, say, say, other, say]
    text = thread_html(c)
    assert "(reply, 3 times)" in text and text.count("Same.") == 2


def test_a_broken_recorded_thread_is_read_as_far_as_it_goes(qtbot):
    box = ThreadBox()
    qtbot.addWidget(box)
    box.show_comment("c1", {"status": 7, "thread": [None, {"body": "<b>hi</b>"}, "x"]})
    text = box.state.text()
    assert "&lt;b&gt;hi&lt;/b&gt;" in text and "status now <b>7</b>" in text


def test_a_stale_anchor_says_where_it_was_made_once(qtbot, window):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_demo()
    view = window.verdicts
    view.select_comment("c4")
    text = view.detail.toPlainText()
    assert text.count("draft-1") == 1 and "made on version" not in text
    assert (
        "made on a draft this run does not have (the comments call it \u201cdraft-1\u201d)" in text
    )
    # Said once: not by the verdict's meaning, the method, the exact message, the note and
    # an empty v1 / v2 table again; then what the reviewer can do.
    assert text.count("not counted") == 1 and text.count("not in the version") == 1
    assert "Found in v2 by" not in text and "not located in v1" not in text
    assert "Stale anchor:" not in text and "current version" not in text
    assert "What you can do: if the comment still applies, add it again" in text
    assert "Agent's claim: stale anchor" in text


def test_the_agent_signs_its_replies_in_words(qtbot, window):
    """The demo's replies are by "agent" (a role in lower case): the thread says who in
    words, "The scripted agent" for the demo, the model's name for a run of a model."""
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.open_demo()
    view = window.verdicts
    view.select_comment("c4")
    text = view.thread.state.text()
    assert "<b title='agent'>The scripted agent</b>" in text
    assert ">agent<" not in text
    thread = {"thread": [{"author": "agent", "kind": "reply", "body": "x"}]}
    assert "<b title='agent'>gpt-4o-mini</b>" in recorded_thread_html(thread, "gpt-4o-mini")
    assert "<b title='agent'>The agent</b>" in recorded_thread_html(thread)


def test_the_programs_own_reopen_is_signed_in_words_in_old_and_new_bundles():
    """An older bundle's reopen is by "review harness"; a new one's by "Agent Review
    Loop": both read "Agent Review Loop's own check", the stored name in the tooltip."""
    for stored in ("review harness", "Agent Review Loop"):
        text = recorded_thread_html(
            {"status": "open", "thread": [{"author": stored, "kind": "reopen", "body": "b"}]}
        )
        assert f"<b title='{stored}'>Agent Review Loop&#x27;s own check</b>" in text
    # an older bundle's reopen reason opens as a new one does; the rest is the record
    old = "Reopened by the review harness: this comment was marked resolved"
    text = recorded_thread_html(
        {"status": "open", "thread": [{"author": "review harness", "kind": "reopen", "body": old}]}
    )
    assert "harness" not in text.split("title=")[1].split("</b>", 1)[1]
    assert "Reopened by Agent Review Loop&#x27;s own check: this comment was marked" in text
    # someone else's words are never rewritten
    text = recorded_thread_html(
        {"status": "open", "thread": [{"author": "Pat", "kind": "reply", "body": old}]}
    )
    assert html.escape(old, quote=True) in text
