"""The workspace: documents, their versions, comments with threads, runs and their event log.

Storage is one SQLite database (stdlib ``sqlite3``, WAL journal, every write in its own
transaction), so a process killed mid-run loses nothing already committed. Its file is
``$ARL_HOME/workspace.sqlite3`` when ``ARL_HOME`` is set, else
``platformdirs.user_data_dir("agent-review-loop")/workspace.sqlite3``.

Why this file is over 500 lines: it is the whole store — one class owning one SQLite
connection, with every table's reads and writes, the schema check and migration, and the
run checkpoints, so every transaction rule lives in one place.

Shapes:

- A document has an id (``doc-<12 hex>``), a title and a kind (``html``, ``text`` or
  ``markdown``).
- Its versions have ids ``v1``, ``v2``, ... unique within the document, in push order; each
  stores the raw source as pushed (str; never executed), the version it was based on, the
  push summary and its author. ``head(doc)`` is the latest.
- Comments are the native shape of ``engine.models.Comment`` (anchor offsets in UTF-16
  units of the version named by ``created_on_version_id``), with ``status`` (``open`` |
  ``resolved``) and a thread of ``Reply`` objects. Comment ids are unique within a document.
- A run has an id (``run-<12 hex>``), the model and endpoint (never a key: run reasons,
  replies and the event log are stored with secrets redacted, ``engine.redact``), a status
  (``running`` | ``completed`` | ``cancelled`` | ``failed``) and an event log of JSON objects.

Errors: ``WorkspaceError`` (base), ``ConflictError`` (a push on a stale base),
``UnknownComment`` and ``UnknownDocument``.

Thread safety: one connection guarded by a lock; methods may be called from a worker
thread (``loop.run_in_executor``) as well as from the event loop's thread.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.models import Comment, Reply
from engine.redact import redact, redact_json, redact_known
from engine.vocabulary import AGENT_AUTHOR, DOCUMENT_KINDS, DocumentKind, RunStatus

DB_NAME = "workspace.sqlite3"
APP_NAME = "agent-review-loop"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, kind TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
    document_id TEXT NOT NULL REFERENCES documents(id), version_id TEXT NOT NULL,
    seq INTEGER NOT NULL, base_version_id TEXT, raw TEXT NOT NULL, summary TEXT NOT NULL,
    author TEXT NOT NULL, created_at TEXT NOT NULL,
    PRIMARY KEY (document_id, version_id), UNIQUE (document_id, seq));
CREATE TABLE IF NOT EXISTS comments (
    document_id TEXT NOT NULL REFERENCES documents(id), comment_id TEXT NOT NULL,
    seq INTEGER NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL,
    PRIMARY KEY (document_id, comment_id));
CREATE TABLE IF NOT EXISTS replies (
    document_id TEXT NOT NULL, comment_id TEXT NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT,
    author TEXT NOT NULL, body TEXT NOT NULL, kind TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, document_id TEXT NOT NULL, model TEXT NOT NULL, base_url TEXT NOT NULL,
    status TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', bundle TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL, finished_at TEXT,
    pid INTEGER, host TEXT NOT NULL DEFAULT '', checkpoint TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, type TEXT NOT NULL,
    data TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_run ON events(run_id, seq);
CREATE INDEX IF NOT EXISTS replies_comment ON replies(document_id, comment_id, seq);
"""
SCHEMA_VERSION = "2"
"""The layout version this code writes (``meta`` key ``schema``). 1: the first layout;
2: runs record the process (``pid``, ``host``) and a ``checkpoint`` (the run's state after
each phase), so the next start can finish a run whose process died."""

# How to bring an older layout up to date, one step per version (a transaction each).
_MIGRATIONS: dict[str, list[str]] = {
    "1": [
        "ALTER TABLE runs ADD COLUMN pid INTEGER",
        "ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE runs ADD COLUMN checkpoint TEXT NOT NULL DEFAULT ''",
    ],
}
_OUR_TABLES = {"meta", "documents", "versions", "comments", "replies", "runs", "events"}


class WorkspaceError(RuntimeError):
    """A workspace operation failed; ``str()`` is one plain sentence."""


class ConflictError(WorkspaceError):
    """A push named a base version that is no longer the latest. Nothing was written."""

    def __init__(self, document_id: str, base: str, head: str):
        self.document_id = document_id
        self.base = base
        self.head = head
        super().__init__(
            f"conflict: version {base} is not the latest version of "
            f"{document_id} (the latest is {head}); pull it and push again"
        )


class UnknownDocument(WorkspaceError):
    pass


class WorkspaceFull(WorkspaceError):
    """The disk (or the quota) holding the workspace is full: nothing of the failed write
    was kept; what was committed before is intact."""


class ForeignWorkspace(WorkspaceError):
    """The file is not a workspace this version can use (not SQLite, another program's
    database, or a newer layout). The file was not changed."""


class UnknownComment(WorkspaceError):
    pass


def _as_workspace_error(exc: BaseException, context: str) -> WorkspaceError:
    """A plain one-line error for an SQLite or OS failure; a full disk says so."""
    text = str(exc)
    full = (
        (isinstance(exc, OSError) and exc.errno == errno.ENOSPC)
        or "database or disk is full" in text
        or "SQLITE_FULL" in text
    )
    if full:
        return WorkspaceFull(
            f"the disk holding the workspace {context.rsplit(' ', 1)[-1]} is full; "
            "free some space (nothing committed before was lost)"
        )
    return WorkspaceError(f"{context}: {text}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def now_iso() -> str:
    """UTC now as ISO 8601 with seconds, e.g. ``2025-01-31T12:00:00Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def default_home() -> Path:
    """The workspace folder: ``$ARL_HOME`` if set, else the user's data folder."""
    env = os.environ.get("ARL_HOME")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def default_path() -> Path:
    return default_home() / DB_NAME


@dataclass(frozen=True)
class VersionRow:
    """One stored version. ``raw`` is the source exactly as pushed."""

    document_id: str
    version_id: str
    seq: int
    base_version_id: str | None
    raw: str
    summary: str
    author: str
    created_at: str


@dataclass(frozen=True)
class DocumentRow:
    id: str
    title: str
    kind: DocumentKind
    created_at: str


@dataclass(frozen=True)
class RunRow:
    id: str
    document_id: str
    model: str
    base_url: str
    status: RunStatus
    reason: str
    bundle: str
    started_at: str
    finished_at: str | None


class Workspace:
    """A handle on one workspace database. Use as a context manager or call ``close()``.

    ``path``: the database file (created with its folder if missing); None means
    ``default_path()``. Raises WorkspaceError when the file cannot be opened.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_path()
        existed = self.path.is_file() and self.path.stat().st_size > 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=10.0
            )
        except (OSError, sqlite3.Error) as exc:
            raise WorkspaceError(f"cannot open the workspace {self.path}: {exc}") from exc
        self._lock = threading.RLock()
        try:
            version = self._schema_of_existing() if existed else None
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            if version is not None and version != SCHEMA_VERSION:
                self._migrate(version)
            self._db.executescript(_SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,)
            )
        except WorkspaceError:
            self._db.close()
            raise
        except (OSError, sqlite3.Error) as exc:
            self._db.close()
            raise _as_workspace_error(exc, f"cannot open the workspace {self.path}") from exc

    def _schema_of_existing(self) -> str | None:
        """The layout version of an existing file, read without writing anything. None: an
        empty database (set up as new). Raises ForeignWorkspace (file untouched)."""
        try:
            tables = {
                r[0]
                for r in self._db.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
                )
            }
        except sqlite3.DatabaseError as exc:
            raise ForeignWorkspace(
                f"{self.path} is not a workspace: it is not an SQLite database ({exc}); "
                "nothing was changed"
            ) from exc
        if not tables:
            return None
        version = None
        if "meta" in tables:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            version = row[0] if row else None
        if version is None or not tables <= _OUR_TABLES:
            names = ", ".join(sorted(tables)[:6])
            raise ForeignWorkspace(
                f"{self.path} is not a workspace of this program (an SQLite database with "
                f"the tables {names}); nothing was changed"
            )
        if version != SCHEMA_VERSION and version not in _MIGRATIONS:
            raise ForeignWorkspace(
                f"{self.path} has workspace schema {version!r}, which this version cannot "
                f"read (it reads {', '.join(sorted(_MIGRATIONS))} and {SCHEMA_VERSION}); "
                "use the program version that wrote it; nothing was changed"
            )
        return str(version)

    def _migrate(self, version: str) -> None:
        """Bring the layout from ``version`` up to ``SCHEMA_VERSION``, one transaction per
        step; a failed step leaves the file at the previous version."""
        while version != SCHEMA_VERSION:
            steps = _MIGRATIONS[version]
            nxt = str(int(version) + 1)
            with self._tx() as db:
                for sql in steps:
                    db.execute(sql)
                db.execute("UPDATE meta SET value=? WHERE key='schema'", (nxt,))
            version = nxt

    def schema_version(self) -> str:
        """The layout version recorded in the file (``SCHEMA_VERSION`` once opened)."""
        row = self._q("SELECT value FROM meta WHERE key='schema'")
        return str(row[0][0]) if row else ""

    # -- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on error).

        SQLite rolls a transaction back by itself on some errors (a full disk among them):
        the rollback here then has nothing to undo and is skipped, so the real error is the
        one reported. A full disk is ``WorkspaceFull``; other SQLite errors
        ``WorkspaceError``; what was committed before stays intact either way."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise _as_workspace_error(
                    exc, f"the workspace {self.path} is busy or read-only"
                ) from exc
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as exc:
                if self._db.in_transaction:
                    try:
                        self._db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                if isinstance(exc, sqlite3.Error) and not isinstance(exc, sqlite3.IntegrityError):
                    raise _as_workspace_error(
                        exc, f"cannot write to the workspace {self.path}"
                    ) from exc
                raise

    def _q(self, sql: str, args: tuple[Any, ...] = ()) -> list[sqlite3.Row | tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def check_writable(self) -> None:
        """Raise WorkspaceError unless a write transaction can be opened (for ``arl doctor``)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('probe', ?)", (now_iso(),)
                )
                self._db.execute("ROLLBACK")
            except sqlite3.Error as exc:
                raise WorkspaceError(f"the workspace {self.path} is not writable: {exc}") from exc

    def integrity_ok(self) -> bool:
        """SQLite's own ``PRAGMA integrity_check`` says ok."""
        return self._q("PRAGMA integrity_check")[0][0] == "ok"

    # -- documents and versions -------------------------------------------------------------

    def create_document(
        self,
        title: str,
        raw: str,
        kind: str = "html",
        *,
        author: str = "user",
        version_id: str = "v1",
    ) -> tuple[str, str]:
        """Store a new document with its first version. Returns ``(document id, version id)``.

        ``kind``: ``html``, ``text`` or ``markdown``. ``version_id`` names the first version (default
        ``v1``; later pushes get ``v<n>`` after the highest stored number).
        """
        if kind not in DOCUMENT_KINDS:
            raise WorkspaceError(f"unknown document kind {kind!r}")
        doc_id = f"doc-{uuid.uuid4().hex[:12]}"
        stamp = now_iso()
        with self._tx() as db:
            db.execute(
                "INSERT INTO documents(id, title, kind, created_at) VALUES (?,?,?,?)",
                (doc_id, title, kind, stamp),
            )
            db.execute(
                "INSERT INTO versions VALUES (?,?,?,?,?,?,?,?)",
                (doc_id, version_id, 1, None, raw, "", author, stamp),
            )
        return doc_id, version_id

    def document(self, document_id: str) -> DocumentRow:
        rows = self._q(
            "SELECT id, title, kind, created_at FROM documents WHERE id=?", (document_id,)
        )
        if not rows:
            raise UnknownDocument(f"no document {document_id} in the workspace")
        return DocumentRow(*rows[0])

    def documents(self) -> list[DocumentRow]:
        return [
            DocumentRow(*r)
            for r in self._q(
                "SELECT id, title, kind, created_at FROM documents ORDER BY created_at"
            )
        ]

    def versions(self, document_id: str) -> list[VersionRow]:
        """Every version of the document, oldest first."""
        return [
            VersionRow(*r)
            for r in self._q(
                "SELECT document_id, version_id, seq, base_version_id, raw, summary, author, "
                "created_at FROM versions WHERE document_id=? ORDER BY seq",
                (document_id,),
            )
        ]

    def version(self, document_id: str, version_id: str) -> VersionRow:
        rows = self._q(
            "SELECT document_id, version_id, seq, base_version_id, raw, summary, author, "
            "created_at FROM versions WHERE document_id=? AND version_id=?",
            (document_id, version_id),
        )
        if not rows:
            raise WorkspaceError(f"no version {version_id} of document {document_id}")
        return VersionRow(*rows[0])

    def head(self, document_id: str) -> VersionRow:
        """The latest version. Raises UnknownDocument."""
        rows = self._q(
            "SELECT document_id, version_id, seq, base_version_id, raw, summary, author, "
            "created_at FROM versions WHERE document_id=? ORDER BY seq DESC LIMIT 1",
            (document_id,),
        )
        if not rows:
            raise UnknownDocument(f"no document {document_id} in the workspace")
        return VersionRow(*rows[0])

    def push_version(
        self,
        document_id: str,
        raw: str,
        base_version_id: str,
        *,
        summary: str = "",
        author: str = AGENT_AUTHOR,
    ) -> VersionRow:
        """Store a new version based on ``base_version_id``; returns the new row.

        Raises ConflictError (nothing written) if the base is not the latest version.
        The check and the insert are one transaction, so two pushers cannot both win.
        The run's secrets are masked in ``raw`` (``redact_known``: the registered keys,
        also spread with invisible characters) and in ``summary`` (``redact``), as in the
        bundle, stdout and the trace.
        """
        raw, summary = redact_known(raw), redact(summary)
        with self._tx() as db:
            row = db.execute(
                "SELECT version_id, seq FROM versions WHERE document_id=? "
                "ORDER BY seq DESC LIMIT 1",
                (document_id,),
            ).fetchone()
            if row is None:
                raise UnknownDocument(f"no document {document_id} in the workspace")
            head_id, seq = row
            if base_version_id != head_id:
                raise ConflictError(document_id, base_version_id, head_id)
            taken = {
                r[0]
                for r in db.execute(
                    "SELECT version_id FROM versions WHERE document_id=?", (document_id,)
                )
            }
            n = seq + 1
            while f"v{n}" in taken:
                n += 1
            new_id = f"v{n}"
            stamp = now_iso()
            db.execute(
                "INSERT INTO versions VALUES (?,?,?,?,?,?,?,?)",
                (document_id, new_id, seq + 1, base_version_id, raw, summary, author, stamp),
            )
        return VersionRow(
            document_id, new_id, seq + 1, base_version_id, raw, summary, author, stamp
        )

    # -- comments ---------------------------------------------------------------------------

    def add_comments(self, document_id: str, comments: list[Comment]) -> None:
        """Store comments (with their status and thread). Raises WorkspaceError on a
        duplicate id."""
        self.document(document_id)
        with self._tx() as db:
            self._insert_comments(db, document_id, comments)

    @staticmethod
    def _insert_comments(db: sqlite3.Connection, document_id: str, comments: list[Comment]) -> None:
        start = db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM comments WHERE document_id=?", (document_id,)
        ).fetchone()[0]
        for i, c in enumerate(comments, start + 1):
            data = c.to_json()
            thread = data.pop("thread")
            try:
                db.execute(
                    "INSERT INTO comments VALUES (?,?,?,?,?)",
                    (document_id, c.id, i, json.dumps(data, ensure_ascii=False), c.status),
                )
            except sqlite3.IntegrityError as exc:
                raise WorkspaceError(f"comment id {c.id!r} is already in the document") from exc
            for r in thread:
                db.execute(
                    "INSERT INTO replies(document_id, comment_id, author, body, kind, "
                    "created_at) VALUES (?,?,?,?,?,?)",
                    (document_id, c.id, r["author"], r["body"], r["kind"], r["created_at"]),
                )

    def record_check(
        self,
        run_id: str,
        title: str,
        kind: str,
        versions: tuple[tuple[str, str], tuple[str, str]],
        comments: list[Comment],
        reason: str,
        bundle: str,
    ) -> str:
        """Record a revision made elsewhere and checked here (``engine.run.external``) as a
        finished run of a new document, in one transaction (all or nothing): the reviewed
        and the revised version (``versions``: ``((id, source), (id, source))``, stored as
        given; the revised one by ``agent``), the comments as they stand after the check
        (status and thread), and the run ``run_id`` (``completed``, ``reason``, its bundle
        folder). So the check's bundle is found as the user's own (``run``), its threads
        answerable. Returns the document id. Raises WorkspaceError (the run id or a
        comment id already there, an unknown kind, the store busy or full)."""
        if kind not in DOCUMENT_KINDS:
            raise WorkspaceError(f"unknown document kind {kind!r}")
        doc_id, stamp = f"doc-{uuid.uuid4().hex[:12]}", now_iso()
        (given_id, given), (revised_id, revised) = versions
        with self._tx() as db:
            db.execute(
                "INSERT INTO documents(id, title, kind, created_at) VALUES (?,?,?,?)",
                (doc_id, title, kind, stamp),
            )
            for seq, (vid, raw, base, author) in enumerate(
                (
                    (given_id, given, None, "user"),
                    (revised_id, redact_known(revised), given_id, "agent"),
                ),
                1,
            ):
                db.execute(
                    "INSERT INTO versions VALUES (?,?,?,?,?,?,?,?)",
                    (doc_id, vid, seq, base, raw, "", author, stamp),
                )
            self._insert_comments(db, doc_id, comments)
            try:
                db.execute(
                    "INSERT INTO runs(id, document_id, model, base_url, status, reason, bundle, "
                    "started_at, finished_at, host) VALUES (?,?,'','','completed',?,?,?,?,?)",
                    (run_id, doc_id, redact(reason), bundle, stamp, stamp, socket.gethostname()),
                )
            except sqlite3.IntegrityError as exc:
                raise WorkspaceError(f"run {run_id} is already in the workspace") from exc
        return doc_id

    def comments(self, document_id: str) -> list[Comment]:
        """Every comment of the document in insertion order, with current status and thread."""
        replies: dict[str, list[Reply]] = {}
        for cid, author, body, kind, created in self._q(
            "SELECT comment_id, author, body, kind, created_at FROM replies "
            "WHERE document_id=? ORDER BY seq",
            (document_id,),
        ):
            replies.setdefault(cid, []).append(Reply(author, body, created, kind))
        out = []
        for cid, data, status in self._q(
            "SELECT comment_id, data, status FROM comments WHERE document_id=? ORDER BY seq",
            (document_id,),
        ):
            obj = json.loads(data)
            obj["status"] = status
            c = Comment.from_json(obj)
            c.thread = replies.get(cid, [])
            out.append(c)
        return out

    def comment(self, document_id: str, comment_id: str) -> Comment:
        for c in self.comments(document_id):
            if c.id == comment_id:
                return c
        raise UnknownComment(f"no comment with id {comment_id!r}")

    def comment_ids(self, document_id: str) -> list[str]:
        return [
            r[0]
            for r in self._q(
                "SELECT comment_id FROM comments WHERE document_id=? ORDER BY seq", (document_id,)
            )
        ]

    def set_status(
        self, document_id: str, comment_id: str, status: str, *, reply: Reply | None = None
    ) -> None:
        """Set a comment's status (``open`` | ``resolved``), adding ``reply`` to its thread in
        the same transaction. Raises UnknownComment."""
        if status not in ("open", "resolved"):
            raise WorkspaceError(f"status {status!r} is not open or resolved")
        with self._tx() as db:
            cur = db.execute(
                "UPDATE comments SET status=? WHERE document_id=? AND comment_id=?",
                (status, document_id, comment_id),
            )
            if cur.rowcount == 0:
                raise UnknownComment(f"no comment with id {comment_id!r}")
            if reply is not None:
                self._insert_reply(db, document_id, comment_id, reply)

    def add_reply(self, document_id: str, comment_id: str, reply: Reply) -> None:
        """Append ``reply`` to the comment's thread. Raises UnknownComment."""
        with self._tx() as db:
            if (
                db.execute(
                    "SELECT 1 FROM comments WHERE document_id=? AND comment_id=?",
                    (document_id, comment_id),
                ).fetchone()
                is None
            ):
                raise UnknownComment(f"no comment with id {comment_id!r}")
            self._insert_reply(db, document_id, comment_id, reply)

    @staticmethod
    def _insert_reply(
        db: sqlite3.Connection, document_id: str, comment_id: str, reply: Reply
    ) -> None:
        db.execute(
            "INSERT INTO replies(document_id, comment_id, author, body, kind, created_at) "
            "VALUES (?,?,?,?,?,?)",
            (
                document_id,
                comment_id,
                reply.author,
                redact(reply.body),
                reply.kind,
                reply.created_at or now_iso(),
            ),
        )

    # -- runs and events --------------------------------------------------------------------

    def start_run(self, document_id: str, model: str, base_url: str) -> str:
        """Record a new run as ``running``; returns its id. ``base_url`` must carry no key."""
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        with self._tx() as db:
            db.execute(
                "INSERT INTO runs(id, document_id, model, base_url, status, started_at, pid, "
                "host) VALUES (?,?,?,?, 'running', ?,?,?)",
                (
                    run_id,
                    document_id,
                    redact(model),
                    redact(base_url),
                    now_iso(),
                    os.getpid(),
                    socket.gethostname(),
                ),
            )
        return run_id

    def save_checkpoint(self, run_id: str, state: dict[str, Any]) -> None:
        """Store the run's state (JSON, secrets redacted) so that the next start can write
        its bundle if this process dies."""
        data = json.dumps(redact_json(state), ensure_ascii=False, default=str)
        with self._tx() as db:
            db.execute("UPDATE runs SET checkpoint=? WHERE id=?", (data, run_id))

    def checkpoint(self, run_id: str) -> dict[str, Any] | None:
        """The last stored state of the run, or None."""
        rows = self._q("SELECT checkpoint FROM runs WHERE id=?", (run_id,))
        if not rows or not rows[0][0]:
            return None
        try:
            value = json.loads(rows[0][0])
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def interrupted_runs(self) -> list[RunRow]:
        """Runs still marked ``running`` whose process is gone: recorded on this host by a
        process id that no longer exists (or recorded before processes were, schema 1). A
        run of this very process, or of a live one, is not interrupted."""
        out = []
        me, host = os.getpid(), socket.gethostname()
        for r in self._q(
            "SELECT id, pid, host FROM runs WHERE status='running' ORDER BY started_at"
        ):
            run_id, pid, run_host = r
            if pid is not None:
                if run_host != host or pid == me or _alive(int(pid)):
                    continue
            out.append(self.run(run_id))
        return out

    def finish_run(self, run_id: str, status: str, reason: str = "", bundle: str = "") -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE runs SET status=?, reason=?, bundle=?, finished_at=? WHERE id=?",
                (status, redact(reason), bundle, now_iso(), run_id),
            )

    def run(self, run_id: str) -> RunRow:
        rows = self._q(
            "SELECT id, document_id, model, base_url, status, reason, bundle, "
            "started_at, finished_at FROM runs WHERE id=?",
            (run_id,),
        )
        if not rows:
            raise WorkspaceError(f"no run {run_id}")
        return RunRow(*rows[0])

    def runs(self, document_id: str | None = None) -> list[RunRow]:
        sql = (
            "SELECT id, document_id, model, base_url, status, reason, bundle, started_at, "
            "finished_at FROM runs"
        )
        args: tuple[Any, ...] = ()
        if document_id is not None:
            sql += " WHERE document_id=?"
            args = (document_id,)
        return [RunRow(*r) for r in self._q(sql + " ORDER BY started_at", args)]

    def log_event(self, run_id: str, event: dict[str, Any]) -> None:
        """Append one event (the ``RunEvent.to_json()`` shape) to the run's log, secrets
        redacted (``engine.redact``)."""
        event = redact_json(event)
        with self._tx() as db:
            db.execute(
                "INSERT INTO events(run_id, type, data, created_at) VALUES (?,?,?,?)",
                (
                    run_id,
                    str(event.get("type", "")),
                    json.dumps(event, ensure_ascii=False, default=str),
                    now_iso(),
                ),
            )

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's event log, oldest first."""
        return [
            json.loads(r[0])
            for r in self._q("SELECT data FROM events WHERE run_id=? ORDER BY seq", (run_id,))
        ]
