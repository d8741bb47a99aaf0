"""Send back: the comments still to do go to the next round on the last version, each
override's reason word for word (in the thread the agent reads, and in the brief); a
comment the reviewer settled is not sent again."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from engine.bundle import signing
from engine.bundle.adjudicate import adjudicate
from engine.bundle.read import open_bundle
from engine.bundle.sendback import STALE_LEFT, send_back
from engine.cli.main import main as arl
from tests.helpers.scripted_server import FixEverything, ScriptedServer

DATA = Path(__file__).resolve().parents[1] / "data"
REASON = "Still says email: name the HR portal form (RW-2), with its link."


def _reviewed(tmp_path) -> Path:
    b = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", b)
    key = signing.new_private_key()
    adjudicate(b, "c1", "accept", "", "Ann", key)
    adjudicate(b, "c2", "not-addressed", REASON, "Ann", key)
    adjudicate(b, "c3", "deletion-is-fix", "the appendix was obsolete", "Ann", key)
    return b


def test_what_goes_back_and_what_does_not(tmp_path):
    from engine.bundle.read import verify_bundle

    b = _reviewed(tmp_path)
    plan = send_back(open_bundle(b), verify_bundle(b).decisions.latest())
    sent = {c.id: c for c in plan.comments}
    # each comment in exactly one list: c2 sent, c1 and c3 settled, c4 (a stale anchor:
    # its words are not in the text the agent gets) left behind, said so
    assert set(sent) == {"c2"}
    assert [c.id for c in plan.settled] == ["c1", "c3"]
    assert plan.left == {"c4": STALE_LEFT} and plan.stale == ["c4"]
    assert "cannot be placed" in plan.left_words() and plan.names["c4"] in plan.left_words()
    c2 = sent["c2"]
    assert plan.reasons == {"c2": REASON}
    assert (c2.thread[-1].author, c2.thread[-1].body, c2.thread[-1].kind) == (
        "Ann",
        REASON,
        "reopen",
    )
    # anchored again on v2, made on the new document
    v2 = open_bundle(b).version("v2").to_version().text
    assert c2.anchor.quote == "by email" and c2.created_on_version_id is None
    from engine.text.utf16 import to_codepoint  # offsets count UTF-16 units (v2 has an astral)

    s, e = (to_codepoint(v2, x) for x in (c2.anchor.start_offset, c2.anchor.end_offset))
    assert v2[s:e] == "by email"
    assert plan.unplaced == []
    assert REASON in plan.brief() and "Comment 2: " in plan.brief()
    brief = plan.brief()
    assert brief.count(plan.names["c1"]) == 1 and brief.count(plan.names["c4"]) == 1
    # no raw ids in the brief: the comments are called as the Verdicts view calls them
    assert not re.search(r"\bc\d\b", plan.brief()), plan.brief()
    assert plan.names["c1"].startswith("Comment 1 \u201c")


def test_the_settled_comments_are_named_in_a_sentence(tmp_path):
    """The dialog said "1 settled by your decisions go along resolved": each settled
    comment is named, the verb agrees, no raw id."""
    from engine.bundle.read import verify_bundle

    b = _reviewed(tmp_path)
    plan = send_back(open_bundle(b), verify_bundle(b).decisions.latest())
    words = plan.settled_words()
    assert [c.id for c in plan.settled] == ["c1", "c3"]
    assert words == (
        f"{plan.names['c1']}, {plan.names['c3']}, settled by your decisions, go along "
        "resolved, each with its decision in its thread."
    )
    plan.settled = plan.settled[:1]
    assert plan.settled_words() == (
        f"{plan.names['c1']}, settled by your decision, goes along resolved, with the "
        "decision in its thread."
    )
    plan.settled = []
    assert plan.settled_words() == ""


def test_a_reply_is_not_a_decision_but_travels_with_a_comment_sent_back(tmp_path):
    """The reviewer's replies after the run (the workspace's thread) send nothing back on
    their own, and the dialog's words say so and how to send it; on a comment that goes
    back they are in its thread and the brief, word for word."""
    from engine.bundle.read import verify_bundle
    from engine.models import Reply

    b = tmp_path / "b"
    shutil.copytree(DATA / "bundle-min", b)
    adjudicate(b, "c2", "not-addressed", REASON, "Ann", signing.new_private_key())
    said = "Uppercasing is not a fix: name the form."
    replies = {
        "c1": [Reply("Ann", said, "2026-12-01T10:00:00Z", "reply")],
        "c2": [Reply("Ann", "And link it.", "2026-12-01T10:01:00Z", "reply")],
    }
    plan = send_back(open_bundle(b), verify_bundle(b).decisions.latest(), replies)
    assert plan.left["c1"] == "resolved" and plan.replied_only() == ["c1"]
    words = plan.left_words()
    assert "Mark it Not addressed" in words and "a reply is not a decision" in words
    assert plan.names["c1"] in words and not re.search(r"\bc\d\b", words)
    c2 = next(c for c in plan.comments if c.id == "c2")
    assert [r.body for r in c2.thread][-2:] == ["And link it.", REASON]
    brief = plan.brief()
    assert "The reviewer replied: And link it." in brief and said not in brief


def test_the_reason_reaches_the_scripted_servers_next_request(tmp_path, capsys):
    b = _reviewed(tmp_path)
    out = tmp_path / "next"
    assert arl(["bundle", "send-back", str(b), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert (
        "1 comment goes back (1 with the reviewer's reason), 2 settled by the reviewer "
        "(carried resolved), 1 not sent again" in said
    )
    assert "cannot be placed" in said  # the stale anchor, by name
    assert arl(["bundle", "send-back", str(b), "--out", str(out)]) == 2  # nothing replaced
    comments = json.loads((out / "comments.json").read_text(encoding="utf-8"))["comments"]
    # the work (c2), then the comments the reviewer settled, resolved by that decision;
    # the stale anchor c4 is not carried
    assert [(c["id"], c["status"]) for c in comments] == [
        ("c2", "open"),
        ("c1", "resolved"),
        ("c3", "resolved"),
    ]
    assert comments[2]["thread"][-1] == {
        "author": "Ann",
        "body": "the deletion was the fix: the appendix was obsolete",
        "created_at": comments[2]["thread"][-1]["created_at"],
        "kind": "resolve",
    }
    with ScriptedServer(FixEverything()) as srv:
        args = [
            "run",
            "--yes",
            "--doc",
            str(out / "document.html"),
            "--comments",
            str(out / "comments.json"),
        ]
        args += ["--base-url", srv.base_url, "--model", srv.model, "--out", str(tmp_path / "o")]
        assert arl([*args, "--no-sign"]) == 0
        bodies = json.dumps(srv.requests, ensure_ascii=False)
    assert REASON in bodies  # word for word, in what the agent was sent
    # the next round's bundle carries the decisions, the replies and the reasons
    nxt = open_bundle(next((tmp_path / "o").glob("*/manifest.json")).parent)
    before = {c.id: c for c in nxt.comments_before}
    assert before["c2"].thread[-1].body == REASON
    assert before["c1"].status == "resolved"
    assert before["c1"].thread[-1].body == "accepted: the verdict stands"


def test_run_the_same_review_with_another_model(tmp_path, capsys):
    """arl run --from BUNDLE: the bundle's document and comments (ids kept) against
    another model; the new bundle's comments are the old bundle's."""
    from engine.bundle.read import verify_bundle

    with ScriptedServer(FixEverything()) as srv:
        args = ["run", "--yes", "--from", str(DATA / "bundle-min"), "--base-url", srv.base_url]
        args += ["--model", srv.model, "--out", str(tmp_path / "o"), "--no-sign", "--json"]
        assert arl(args) == 0
    out, err = capsys.readouterr()
    new = json.loads(out.strip().splitlines()[-1])["bundle"]
    old, again = open_bundle(DATA / "bundle-min"), open_bundle(new)
    assert [c.to_json() for c in again.comments_before] == [
        c.to_json() for c in old.comments_before
    ]
    assert again.version("v1").source == old.version("v1").source
    assert again.document_title == old.document_title
    assert verify_bundle(new).ok
    url = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    assert arl(["run", "--yes", "--from", str(DATA / "bundle-min"), "--doc", "x.html", *url]) == 2
    assert "leave out --doc" in capsys.readouterr().err
    assert arl(["run", "--yes", *url]) == 2
    assert "give the document (--doc DOC) or a bundle (--from)" in capsys.readouterr().err


def test_continue_this_review_keeps_ids_versions_and_history(tmp_path, capsys):
    """arl run --continue BUNDLE: the last version is reviewed; the open comments come
    along with their ids, threads and the version they were made on; resolved ones do
    not; --comments adds new ones."""
    from engine.bundle.sendback import continue_review

    old = open_bundle(DATA / "bundle-min")
    plan = continue_review(old)
    run = old.manifest["run_id"]
    after = {c.id: c for c in old.comments_after}
    assert {c.id for c in plan.comments} == {i for i, c in after.items() if c.status == "open"}
    assert all(v == "resolved" for v in plan.left.values())
    for c in plan.comments:
        assert c.thread == after[c.id].thread  # history kept
        assert c.created_on_version_id.startswith(f"{run}/")  # the version it was made on
    new = tmp_path / "new.json"
    v2 = old.version("v2").to_version().text
    new.write_text(
        json.dumps(
            {
                "comments": [
                    {"id": "n1", "body": "Say who approves.", "anchor": {"quote": "line manager"}}
                ]
            }
        ),
        encoding="utf-8",
    )
    assert "line manager" in v2
    with ScriptedServer(FixEverything()) as srv:
        args = ["run", "--yes", "--continue", str(DATA / "bundle-min"), "--comments", str(new)]
        args += ["--base-url", srv.base_url, "--model", srv.model, "--no-sign", "--json"]
        assert arl([*args, "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    bundle = open_bundle(json.loads(out.strip().splitlines()[-1])["bundle"])
    carried = {c.id: c for c in bundle.comments_before}
    assert set(carried) == {c.id for c in plan.comments} | {"n1"}
    for c in plan.comments:
        assert carried[c.id].created_on_version_id == c.created_on_version_id
        assert carried[c.id].thread == c.thread
    assert bundle.version("v1").source == old.version("v2").source  # the last version
    verdicts = {v["comment_id"]: v["verdict"] for v in bundle.verdicts["final"]}
    placed = [c.id for c in plan.comments if c.id not in plan.unplaced]
    assert all(verdicts[c] != "stale_anchor" for c in placed)  # found again in v2
    dup = tmp_path / "dup.json"
    dup.write_text(
        json.dumps(
            {
                "comments": [
                    {"id": plan.comments[0].id, "body": "x", "anchor": {"quote": "line manager"}}
                ]
            }
        )
    )
    args = ["run", "--yes", "--continue", str(DATA / "bundle-min"), "--comments", str(dup)]
    assert arl([*args, "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]) == 2
    assert "already carried over" in capsys.readouterr().err


def test_the_command_line_sends_the_workspace_s_replies_as_the_desktop_program_does(
    tmp_path, capsys
):
    """``arl bundle send-back`` reads what the reviewer replied after the run from the
    workspace the run came from (engine.threads.send_back_with_replies, the desktop
    program's Send back too): in the brief and the thread, word for word, in any script;
    a workspace file that is not there adds nothing and is not created."""
    from engine.bundle.read import verify_bundle
    from engine.threads import answer, run_document, send_back_with_replies
    from engine.workspace import Workspace

    ws_file = tmp_path / "ws.sqlite3"
    doc = DATA / "bundle-min"
    with ScriptedServer(FixEverything()) as srv:
        args = ["run", "--yes", "--from", str(doc), "--base-url", srv.base_url, "--model"]
        args += [srv.model, "--out", str(tmp_path / "o"), "--no-sign", "--workspace", str(ws_file)]
        assert arl(args) == 0
    bundle = next((tmp_path / "o").glob("*/manifest.json")).parent
    b = open_bundle(bundle)
    key = signing.new_private_key()
    adjudicate(bundle, "c2", "not-addressed", REASON, "Ann", key)
    said = "请说明使用哪个表格 — and link it."
    with Workspace(ws_file) as ws:
        answer(ws, run_document(ws, b.manifest["run_id"]), "c2", "reply", said, "Ann")
    out = tmp_path / "next"
    assert (
        arl(["bundle", "send-back", str(bundle), "--out", str(out), "--workspace", str(ws_file)])
        == 0
    )
    brief = (out / "brief.txt").read_text(encoding="utf-8")
    assert f"The reviewer replied: {said}" in brief and REASON in brief
    sent = json.loads((out / "comments.json").read_text(encoding="utf-8"))["comments"]
    c2 = next(c for c in sent if c["id"] == "c2")
    assert said in [r["body"] for r in c2["thread"]]
    decided = verify_bundle(bundle).decisions.latest()
    assert send_back_with_replies(open_bundle(bundle), decided, ws_file).brief() == brief
    nowhere = tmp_path / "no-such-workspace.sqlite3"
    plan = send_back_with_replies(open_bundle(bundle), decided, nowhere)
    assert said not in plan.brief() and REASON in plan.brief() and not nowhere.exists()
