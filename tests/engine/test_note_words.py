"""A verdict's stored note (the engine's record, re-derived and compared) and the words
every view shows for it (``engine.vocabulary.note_sentence``): no "offsets", no "made on
version draft-1", each part said once."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from engine import vocabulary as vocab
from engine.models import Anchor, Comment
from engine.score.scoring import Version, score


def test_a_stale_anchor_names_the_draft_as_people_know_it():
    note = vocab.note_stale("draft-1", "v1")
    words = vocab.note_sentence(note)
    assert words == (
        "made on a draft this run does not have (the comments call it \u201cdraft-1\u201d); "
        "its words are not in the version the agent was given"
    )
    assert "made on version" not in words and "another draft" not in words


def test_a_comment_made_elsewhere_and_found_is_said_in_words():
    words = vocab.note_sentence(vocab.note_made_elsewhere("draft-1", "v1") + "; " + "x y")
    assert words.startswith(
        "made on a draft this run does not have (the comments call it \u201cdraft-1\u201d); "
        "found in the version the agent"
    )
    assert words.endswith("; x y")  # an unknown part is kept as it is


def test_the_scorer_writes_the_named_notes():
    """The engine writes its notes from the named templates, so the words above apply to
    every note it makes (a repaired place, a stale anchor)."""
    v1 = "Alpha beta gamma. The kitchen will close. Delta epsilon."
    v2 = v1.replace("will close", "stays open")
    q = "kitchen will close"
    i = v1.index(q)
    moved = Anchor(
        q, v1[i - 4 : i], v1[i + len(q) : i + len(q) + 4], start_offset=0, end_offset=len(q)
    )
    stale = Anchor("not in this text", "", "", start_offset=0, end_offset=16)
    res = score(
        Version.from_source(v1, "text", "v1"),
        Version.from_source(v2, "text", "v2"),
        [
            Comment("c1", "Reword.", moved),
            Comment("c2", "Old.", stale, created_on_version_id="draft-1"),
        ],
    )
    notes = {v.comment_id: v.note for v in res.verdicts}
    assert vocab.NOTE_OFFSETS_REPAIRED in notes["c1"]
    assert notes["c2"] == vocab.note_stale("draft-1", "v1")
    shown = vocab.note_sentence(notes["c1"])
    assert "offset" not in shown and "saved position had shifted" in shown


@given(st.text(max_size=40))
def test_any_version_name_reads_in_brackets_once(name):
    words = vocab.note_sentence(vocab.note_stale(name, "v1"))
    assert words == (
        f"made on {vocab.version_words(name)}; its words are not in the version the agent was given"
    )
    said = vocab.version_words(name)
    assert len(said) <= 120
    assert (
        len(said) <= len("a draft this run does not have (the comments call it \u201c\u201d)") + 40
    )
    assert said.count("\u201c") <= 1  # the name in quotes once, or no name at all


def test_a_version_of_an_earlier_run_is_said_as_one():
    """A comment sent back or continued is made on ``<run id>/<version>``: the note said
    "another draft (run-901a758c16f4/v3)"."""
    from engine.bundle.sendback import made_on

    class B:
        manifest = {"run_id": "run-901a758c16f4", "given_version_id": "v1"}

    c = Comment("c1", "b", Anchor("q", "", "", start_offset=0, end_offset=1))
    said = vocab.version_words(made_on(B(), c))
    assert said == "the first version of an earlier run"  # no raw run id on screen
    words = vocab.note_sentence(vocab.note_stale("check-0123456789ab/revised", "v1"))
    assert words.startswith("made on the revised version of an earlier check;")
    assert "0123456789ab" not in words
    assert vocab.version_words("run-901a758c16f4/v3") == "the third version of an earlier run"
    assert vocab.version_words("run-901a758c16f4/v12") == "version 12 of an earlier run"
    assert vocab.version_words("run-901a758c16f4/draft-1") == (
        "a version (its \u201cdraft-1\u201d) of an earlier run"
    )


def test_the_programs_own_replies_name_it_in_words():
    """A reopen by the integrity control was signed "review harness" on screen."""
    for stored in (vocab.PROGRAM_AUTHOR, "review harness", " review  harness "):
        assert vocab.author_words(stored) == "Agent Review Loop's own check"
    assert vocab.author_words("Pat") == "Pat"
    assert vocab.author_words("report51975") == "a reviewer"


def test_v2_is_named_for_what_it_is():
    external = {"agent_mode": {"ran": "external"}}
    assert vocab.revised_version_words(external, 1) == "the revision you checked (made elsewhere)"
    assert vocab.revised_version_words({}, 1) == "the agent's last version, after 1 round"
    assert vocab.revised_version_words({"agent_mode": "x"}, 3).endswith("after 3 rounds")
    assert "push" not in vocab.revised_version_words({}, 0)


def test_the_scorecard_says_its_warnings_in_sentences_the_exact_line_as_title():
    """The scorecard showed "ATTRIBUTION: STALE ANCHOR - quote not found…" and
    "VERIFICATION: MODEL CLAIMED ADDRESSED - ANCHORED TEXT UNCHANGED" as its words."""
    import html

    from engine.bundle.scorecard import render_scorecard

    comments = [{"id": "c1", "body": "fix"}, {"id": "c2", "body": "old"}]
    final = [
        {
            "comment_id": "c1",
            "verdict": "untouched",
            "message": vocab.VERIFICATION_MESSAGE,
            "v1": {"text": "a"},
            "v2": {"text": "a"},
        },
        {"comment_id": "c2", "verdict": "stale_anchor", "message": vocab.STALE_ANCHOR_MESSAGE},
    ]
    after = [
        {
            "id": "c1",
            "thread": [{"kind": "reopen", "body": "Reopened: the text did not change."}],
        }
    ]
    page = render_scorecard(
        {"status": "completed", "document_title": "t"}, {"final": final}, {}, comments, after, {}
    )
    shown = re.sub(r"<[^>]+>", " ", re.sub(r"title='[^']*'", "", page))
    for exact in (vocab.VERIFICATION_MESSAGE, vocab.STALE_ANCHOR_MESSAGE):
        assert exact not in html.unescape(shown)  # not in the words on the page
        assert f"title='{html.escape(exact)}'" in page  # kept where the hover reads it
    assert vocab.message_sentence(vocab.VERIFICATION_MESSAGE) in page
    assert html.escape(vocab.message_sentence(vocab.STALE_ANCHOR_MESSAGE)) in page


def test_the_run_log_says_what_the_agent_did():
    from engine.events import ToolCalled

    def said(name, cid=None, ok=True, result=""):
        ev = ToolCalled(
            run_id="r", round=1, name=name, arguments={}, ok=ok, result=result, comment_id=cid
        )
        return ev.plain({"c2": "comment 2"})

    assert said("list_comments") == "The agent listed the comments"
    assert said("push_version") == "The agent saved a new version"
    assert said("resolve_comment", "c2") == "The agent marked comment 2 resolved"
    assert said("reply_comment", "x9") == "The agent replied on comment \u201cx9\u201d"
    assert said("push_version", ok=False, result="empty content") == (
        "The agent tried to save a new version; the program refused: empty content"
    )
    assert said("dance", "c2") == "The agent used the tool \u201cdance\u201d (comment 2)"
    for name in vocab.TOOL_WORDS:
        assert name not in said(name, "c2") and name not in said(name, None, False, "no")
    # the CLI's line keeps the tool's name (its tests and scripts read it)
    ev = ToolCalled(run_id="r", round=1, name="push_version", arguments={}, ok=True, result="")
    assert ev.describe() == "Agent called push_version"


def test_the_scorecard_names_the_run_by_when_it_ran():
    from engine.bundle.scorecard import render_scorecard

    manifest = {
        "status": "completed",
        "document_title": "t",
        "run_id": "run-901a758c16f4",
        "created_at": "2026-12-02T04:49:26Z",
    }
    page = render_scorecard(manifest, {"final": []}, {}, [], [], {})
    shown = re.sub(r"<[^>]+>", " ", re.sub(r"title='[^']*'", "", page))
    assert "run-901a758c16f4" not in shown and "Run id" not in shown
    assert "the run of 2 Dec 2026, 04:49 UTC" in shown
    assert "title='run-901a758c16f4'" in page
