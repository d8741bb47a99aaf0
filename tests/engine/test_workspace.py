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
from engine.score.scoring import Version
from engine.workspace import (
    SCHEMA_VERSION,
    ConflictError,
    UnknownComment,
    Workspace,
    WorkspaceError,
    default_path,
)
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
                "engine.cli.main",
                "run",
                "--yes",
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
                        runs = peek.runs()
                        # the push is committed before its event: wait for the event
                        pushed = bool(runs) and any(
                            e["type"] == "VersionPushed" for e in peek.events(runs[0].id)
                        )
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


# -- schema version -------------------------------------------------------------------------

_SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents (id TEXT PRIMARY KEY, title TEXT NOT NULL, kind TEXT NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE versions (document_id TEXT NOT NULL REFERENCES documents(id),
    version_id TEXT NOT NULL, seq INTEGER NOT NULL, base_version_id TEXT, raw TEXT NOT NULL,
    summary TEXT NOT NULL, author TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (document_id, version_id), UNIQUE (document_id, seq));
CREATE TABLE comments (document_id TEXT NOT NULL REFERENCES documents(id),
    comment_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL,
    PRIMARY KEY (document_id, comment_id));
CREATE TABLE replies (document_id TEXT NOT NULL, comment_id TEXT NOT NULL,
    seq INTEGER PRIMARY KEY AUTOINCREMENT, author TEXT NOT NULL, body TEXT NOT NULL,
    kind TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE runs (id TEXT PRIMARY KEY, document_id TEXT NOT NULL, model TEXT NOT NULL,
    base_url TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
    bundle TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL, finished_at TEXT);
CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL,
    type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1');
INSERT INTO documents VALUES ('doc-1', 'Old memo', 'text', '2025-01-01T00:00:00Z');
INSERT INTO versions VALUES ('doc-1', 'v1', 1, NULL, 'Hello.', '', 'user',
    '2025-01-01T00:00:00Z');
INSERT INTO runs VALUES ('run-old', 'doc-1', 'm', 'http://127.0.0.1:1/v1', 'completed', '',
    '', '2025-01-01T00:00:00Z', '2025-01-01T00:01:00Z');
"""


def _sqlite_file(path, script):
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript(script)
    db.commit()
    db.close()
    return path.read_bytes()


def test_an_older_schema_is_migrated_with_its_data(tmp_path):
    path = tmp_path / "old.sqlite3"
    _sqlite_file(path, _SCHEMA_1)
    with Workspace(path) as ws:
        assert ws.schema_version() == SCHEMA_VERSION == "2"
        assert ws.head("doc-1").raw == "Hello."
        assert ws.run("run-old").status == "completed"
        run = ws.start_run("doc-1", "m", "http://127.0.0.1:1/v1")  # the new columns work
        ws.save_checkpoint(run, {"round": 1})
        assert ws.checkpoint(run) == {"round": 1}
    with Workspace(path) as ws:  # opening again: nothing left to migrate
        assert ws.schema_version() == "2" and len(ws.runs()) == 2


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("CREATE TABLE foo (x); INSERT INTO foo VALUES (1);", "not a workspace of this program"),
        (_SCHEMA_1.replace("'schema', '1'", "'schema', '99'"), "schema '99'"),
        ("CREATE TABLE meta (key TEXT, value TEXT); CREATE TABLE photos (x);", "not a workspace"),
    ],
    ids=["foreign", "newer", "meta-without-schema"],
)
def test_a_foreign_or_newer_database_is_refused_untouched(tmp_path, script, words):
    from engine.workspace import ForeignWorkspace

    path = tmp_path / "other.sqlite3"
    before = _sqlite_file(path, script)
    with pytest.raises(ForeignWorkspace) as info:
        Workspace(path)
    assert words in str(info.value) and "nothing was changed" in str(info.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("other")) == [
        "other.sqlite3"
    ]  # no -wal or -shm file either


def test_arl_run_on_a_foreign_workspace_is_one_line_and_exit_2(tmp_path, capsys):
    import json as _json

    from engine.cli.main import main as arl
    from engine.score.scoring import Version
    from tests.helpers.scripted_server import SAMPLE_HTML, sample_comments

    doc = tmp_path / "memo.html"
    doc.write_text(SAMPLE_HTML, encoding="utf-8")
    comments = tmp_path / "comments.json"
    comments.write_text(
        _json.dumps(sample_comments(Version.from_source(SAMPLE_HTML).text)), encoding="utf-8"
    )
    for name, content in (("foreign.db", None), ("notes.txt", b"just some text\n" * 200)):
        path = tmp_path / name
        if content is None:
            before = _sqlite_file(path, "CREATE TABLE foo (x);")
        else:
            path.write_bytes(content)
            before = content
        code = arl(
            [
                "run",
                "--yes",
                "--doc",
                str(doc),
                "--comments",
                str(comments),
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--workspace",
                str(path),
            ]
        )
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.count("\n") == 1 and err.startswith("arl: ") and str(path) in err
        assert "Traceback" not in err and "OperationalError" not in err
        assert path.read_bytes() == before
