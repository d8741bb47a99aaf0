"""The SQLite workspace: versions, conflicts, comments and threads, events, crash safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.models import Comment, Reply
from engine.scoring import Version
from engine.workspace import ConflictError, UnknownComment, Workspace, WorkspaceError, default_path
from tests.helpers.scripted_server import (
    SAMPLE_HTML,
    FixEverything,
    ScriptedServer,
    sample_comments,
)

ROOT = Path(__file__).resolve().parents[2]


def _doc(ws: Workspace) -> str:
    text = Version.from_source(SAMPLE_HTML).text
    doc, vid = ws.create_document("Memo", SAMPLE_HTML, "html")
    assert vid == "v1"
    ws.add_comments(doc, [Comment.from_json(c) for c in sample_comments(text)])
    return doc


def test_default_location_follows_arl_home(arl_home):
    assert default_path() == arl_home / "workspace.sqlite3"
    with Workspace() as ws:
        assert ws.path == arl_home / "workspace.sqlite3"
        assert ws._q("PRAGMA journal_mode")[0][0] == "wal"


def test_versions_and_stale_base_conflict(tmp_path):
    with Workspace(tmp_path / "w.db") as ws:
        doc = _doc(ws)
        v2 = ws.push_version(doc, "<p>two</p>", "v1", summary="c1: x")
        assert v2.version_id == "v2" and v2.base_version_id == "v1"
        with pytest.raises(ConflictError) as err:
            ws.push_version(doc, "<p>stale</p>", "v1")
        assert "v1 is not the latest" in str(err.value) and err.value.head == "v2"
        assert [v.version_id for v in ws.versions(doc)] == ["v1", "v2"]
        assert ws.head(doc).raw == "<p>two</p>"


def test_concurrent_pushes_on_one_base_only_one_wins(tmp_path):
    path = tmp_path / "w.db"
    with Workspace(path) as ws:
        doc = _doc(ws)
    results = []

    def push(n):
        with Workspace(path) as w:
            try:
                results.append(w.push_version(doc, f"<p>{n}</p>", "v1").version_id)
            except ConflictError:
                results.append("conflict")

    threads = [threading.Thread(target=push, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict", "conflict", "conflict", "v2"]


def test_comments_status_and_threads(tmp_path):
    with Workspace(tmp_path / "w.db") as ws:
        doc = _doc(ws)
        assert ws.comment_ids(doc) == ["c1", "c2", "c3"]
        ws.set_status(doc, "c1", "resolved", reply=Reply("agent", "fixed", kind="resolve"))
        ws.add_reply(doc, "c2", Reply("agent", "I disagree"))
        c1, c2 = ws.comment(doc, "c1"), ws.comment(doc, "c2")
        assert c1.status == "resolved" and c1.thread[0].kind == "resolve"
        assert c2.status == "open" and c2.thread[0].body == "I disagree"
        assert c2.thread[0].created_at  # stamped
        with pytest.raises(UnknownComment):
            ws.set_status(doc, "nope", "resolved")
        with pytest.raises(UnknownComment):
            ws.add_reply(doc, "nope", Reply("a", "b"))
        with pytest.raises(WorkspaceError):
            ws.add_comments(doc, [ws.comment(doc, "c1")])  # duplicate id
        # native shape round trip
        again = Comment.from_json(json.loads(json.dumps(c1.to_json())))
        assert again == c1


def test_runs_and_event_log(tmp_path):
    with Workspace(tmp_path / "w.db") as ws:
        doc = _doc(ws)
        run = ws.start_run(doc, "m", "http://x/v1")
        ws.log_event(run, {"type": "RoundStarted", "round": 1})
        ws.finish_run(run, "completed", "done", "/b")
        assert ws.run(run).status == "completed"
        assert ws.events(run) == [{"type": "RoundStarted", "round": 1}]
        assert [r.id for r in ws.runs(doc)] == [run]


def test_unwritable_location_is_a_plain_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(WorkspaceError) as err:
        Workspace(blocker / "sub" / "w.db")
    assert "cannot open the workspace" in str(err.value)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_mid_run_loses_nothing_committed(tmp_path):
    """A run in a child process is killed (SIGKILL) after its first push; the workspace
    reopens intact with the push, the comments and the run's event log."""
    db = tmp_path / "w.db"
    doc_path = tmp_path / "memo.html"
    doc_path.write_text(SAMPLE_HTML, encoding="utf-8")
    comments_path = tmp_path / "comments.json"
    comments_path.write_text(json.dumps(sample_comments(Version.from_source(SAMPLE_HTML).text)))
    with ScriptedServer(FixEverything(), latency=0.4) as srv:
        env = dict(os.environ, ARL_HOME=str(tmp_path / "home"))
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "engine.cli",
                "run",
                "--doc",
                str(doc_path),
                "--comments",
                str(comments_path),
                "--base-url",
                srv.base_url,
                "--model",
                srv.model,
                "--workspace",
                str(db),
                "--out",
                str(tmp_path / "bundles"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            pushed = False
            while time.monotonic() < deadline and not pushed:
                time.sleep(0.1)
                assert proc.poll() is None, proc.stderr.read()
                if db.exists():
                    with Workspace(db) as peek:
                        docs = peek.documents()
                        pushed = bool(docs) and len(peek.versions(docs[0].id)) > 1
            assert pushed, "the child never pushed"
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    with Workspace(db) as ws:
        assert ws.integrity_ok()
        doc = ws.documents()[0].id
        versions = ws.versions(doc)
        assert [v.version_id for v in versions][:2] == ["v1", "v2"]
        assert versions[1].raw != SAMPLE_HTML
        assert len(ws.comments(doc)) == 3
        run = ws.runs(doc)[0]
        assert run.status == "running"  # it never finished
        types = [e["type"] for e in ws.events(run.id)]
        assert "RoundStarted" in types and "VersionPushed" in types
        # the store still works: a push on the head succeeds, on a stale base conflicts
        head = ws.head(doc).version_id
        ws.push_version(doc, "<p>after</p>", head)
        with pytest.raises(ConflictError):
            ws.push_version(doc, "<p>stale</p>", head)
