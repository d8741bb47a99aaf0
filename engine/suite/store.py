"""The suites' results store: one SQLite file beside the workspace (``<home>/suites.sqlite``)
with every suite run and every run in it, so a suite can be resumed after a kill and its
history charted.

Tables (schema version in ``PRAGMA user_version``):

- ``suite_runs``: one row per suite run — id, suite name, file path, fingerprint, seed,
  shard, program version, start and end (UTC ISO 8601), status (``running`` | ``finished``
  | ``stopped`` | ``interrupted``), the stop reason, the output folder.
- ``suite_items``: one row per run of a suite run (primary key: suite id + item key) with
  its document, size class, model, endpoint, variant, instructions hash, repeat, status
  (``queued`` | ``running`` | ``finished`` | ``failed`` | ``stopped``), the run's own status
  and reason, bundle path, metrics (JSON, the ``arl score --json`` metric objects), tokens
  (total, prompt, completion), cost (user's currency, or NULL) and seconds.

``ItemResult`` is the one shape the report reads, whether rows come from this store or
from a shard's ``suite-results.json``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.atomic import write_atomic
from engine.workspace import default_home, now_iso

__all__ = [
    "RESULTS_FILE",
    "ItemResult",
    "SuiteRunRow",
    "SuiteStore",
    "SuiteStoreError",
    "read_results",
    "results_items",
    "write_results",
]

RESULTS_FILE = "suite-results.json"
"""A suite run's portable results, written into its output folder: the suite's name,
fingerprint, seed, shard and program version, and every run as an ``ItemResult`` with its
bundle path relative to that folder (format ``arl-suite-results/1``)."""
MAX_RESULTS_BYTES = 64_000_000

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS suite_runs (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, suite_path TEXT, fingerprint TEXT NOT NULL,
  seed INTEGER NOT NULL, shard TEXT, app_version TEXT NOT NULL, started_at TEXT NOT NULL,
  finished_at TEXT, status TEXT NOT NULL, stop_reason TEXT NOT NULL DEFAULT '',
  out_dir TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS suite_items (
  suite_id TEXT NOT NULL REFERENCES suite_runs(id), key TEXT NOT NULL,
  document TEXT NOT NULL, size TEXT NOT NULL, model TEXT NOT NULL, model_id TEXT NOT NULL,
  base_url TEXT NOT NULL, variant TEXT NOT NULL, instructions_hash TEXT NOT NULL,
  repeat INTEGER NOT NULL, status TEXT NOT NULL, run_status TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '', bundle TEXT, metrics TEXT, tokens INTEGER,
  prompt_tokens INTEGER, completion_tokens INTEGER, cost REAL, seconds REAL,
  started_at TEXT, finished_at TEXT, mode TEXT NOT NULL DEFAULT '', token_edits TEXT,
  PRIMARY KEY (suite_id, key)
);
"""


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """Columns added since schema 1 (``token_edits``), added to a store that lacks them;
    their rows read None ("not counted")."""
    have = {r[1] for r in db.execute("PRAGMA table_info(suite_items)")}
    if "token_edits" not in have:
        db.execute("ALTER TABLE suite_items ADD COLUMN token_edits TEXT")


def _write_ahead(db: sqlite3.Connection, wait: float = 10.0) -> None:
    """Put the store in write-ahead-log mode (readers never block the writer). Another
    program switching a new file at the same moment makes SQLite answer "database is
    locked" at once, without its busy wait: asked again every 20 ms for up to ``wait``
    seconds; a store left in rollback mode still works (the other program's switch
    persists in the file)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc):
                raise
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)


class SuiteStoreError(RuntimeError):
    """The store cannot be opened or used; the message is one line for people."""


@dataclass
class ItemResult:
    """One run of a suite, as the report sees it. ``metrics``: metric name -> ``{value,
    numerator, denominator}`` or ``{value: None, reason}``; None until the run finished."""

    key: str
    document: str
    size: str
    model: str
    model_id: str
    base_url: str
    variant: str
    instructions_hash: str
    repeat: int
    status: str = "queued"
    run_status: str = ""
    reason: str = ""
    bundle: str | None = None
    metrics: dict[str, dict[str, Any]] | None = None
    tokens: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    seconds: float | None = None
    started_at: str | None = None
    finished_at: str | None = None
    mode: str = ""
    #: ``{"edited", "token_edits"}``: the run's edited final verdicts and the token edits
    #: among them (``engine.suite.token_share``); None: not counted (an older row).
    token_edits: dict[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> ItemResult:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in obj.items() if k in names})


@dataclass
class SuiteRunRow:
    """One suite run's row; ``settings`` holds the CLI limits and options (JSON)."""

    id: str
    name: str
    suite_path: str | None
    fingerprint: str
    seed: int
    shard: str | None
    app_version: str
    started_at: str
    finished_at: str | None
    status: str
    stop_reason: str
    out_dir: str
    settings: dict[str, Any] = field(default_factory=dict)


class SuiteStore:
    """A handle on the results store; a context manager. ``path`` None: ``<home>/suites.sqlite``.
    Raises SuiteStoreError when the file cannot be opened or belongs to something else."""

    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_home() / "suites.sqlite"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, timeout=10.0, check_same_thread=False
            )
            self._db.row_factory = sqlite3.Row
            _write_ahead(self._db)
            self._claim_schema()
        except sqlite3.DatabaseError as exc:
            raise SuiteStoreError(
                f"{self.path}: cannot be used as a results store ({exc})"
            ) from None
        except OSError as exc:  # a home that cannot be created or written (read-only)
            raise SuiteStoreError(
                f"{exc.filename or self.path.parent}: cannot hold the results store "
                f"({exc.strerror or exc})"
            ) from None

    def _claim_schema(self) -> None:
        """Check the file is a results store (or empty) and give it the schema, in one
        write transaction: a second program opening a new store at the same moment waits
        for it (the connection's timeout) and sees the store whole, never its tables
        without their schema version (it read "not a suites results store; move it away"
        of a good one). Raises SuiteStoreError; sqlite3.DatabaseError on a file that is
        no database."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if version > SCHEMA_VERSION:
                raise SuiteStoreError(
                    f"{self.path}: written by a newer version of this program (schema "
                    f"{version}); update the program to read it"
                )
            if tables - {"suite_runs", "suite_items"} or (tables and version == 0):
                raise SuiteStoreError(f"{self.path}: not a suites results store; move it away")
            for statement in _SCHEMA.split(";\n"):
                if statement.strip():
                    db.execute(statement)
            _add_missing_columns(db)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SuiteStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- suite runs ----------------------------------------------------------------------
    def create_run(self, row: SuiteRunRow, items: list[ItemResult]) -> None:
        with self._tx():
            self._db.execute(
                "INSERT INTO suite_runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    row.id,
                    row.name,
                    row.suite_path,
                    row.fingerprint,
                    row.seed,
                    row.shard,
                    row.app_version,
                    row.started_at,
                    row.finished_at,
                    row.status,
                    row.stop_reason,
                    row.out_dir,
                    json.dumps(row.settings),
                ),
            )
            for it in items:
                self._put_item(row.id, it)

    def run_row(self, suite_id: str) -> SuiteRunRow:
        r = self._db.execute("SELECT * FROM suite_runs WHERE id=?", (suite_id,)).fetchone()
        if r is None:
            raise SuiteStoreError(
                f"no suite run {suite_id!r} in {self.path} (arl suite history lists them)"
            )
        d = dict(r)
        d["settings"] = json.loads(d["settings"] or "{}")
        return SuiteRunRow(**d)

    def runs(self) -> list[SuiteRunRow]:
        """Every suite run, oldest first."""
        rows = self._db.execute("SELECT id FROM suite_runs ORDER BY started_at, id").fetchall()
        return [self.run_row(r[0]) for r in rows]

    def set_run_status(
        self, suite_id: str, status: str, reason: str = "", finished: bool = False
    ) -> None:
        self._db.execute(
            "UPDATE suite_runs SET status=?, stop_reason=?, finished_at=? WHERE id=?",
            (status, reason, now_iso() if finished else None, suite_id),
        )

    # -- items ---------------------------------------------------------------------------
    def items(self, suite_id: str) -> list[ItemResult]:
        rows = self._db.execute(
            "SELECT * FROM suite_items WHERE suite_id=? ORDER BY key", (suite_id,)
        ).fetchall()
        out = []
        for r in rows:
            d = dict(r)
            d.pop("suite_id")
            d["metrics"] = json.loads(d["metrics"]) if d["metrics"] else None
            d["token_edits"] = json.loads(d["token_edits"]) if d.get("token_edits") else None
            out.append(ItemResult(**d))
        return out

    def put_item(self, suite_id: str, item: ItemResult) -> None:
        with self._tx():
            self._put_item(suite_id, item)

    def _put_item(self, suite_id: str, it: ItemResult) -> None:
        d = it.to_json()
        d["metrics"] = json.dumps(d["metrics"]) if d["metrics"] is not None else None
        d["token_edits"] = json.dumps(d["token_edits"]) if d["token_edits"] is not None else None
        cols = ["suite_id", *d]
        self._db.execute(
            f"INSERT OR REPLACE INTO suite_items ({','.join(cols)}) "
            f"VALUES ({','.join('?' * len(cols))})",
            [suite_id, *d.values()],
        )

    def _tx(self) -> Any:
        db = self._db

        class _Tx:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
                if et is None:
                    db.execute("COMMIT")
                else:
                    db.execute("ROLLBACK")

        return _Tx()


# -- portable results (shards, the shipped example) ------------------------------------------


def write_results(store: SuiteStore, suite_id: str) -> Path:
    """Write ``<out>/suite-results.json`` for suite run ``suite_id`` (atomically); returns
    its path. Raises OSError when the folder cannot be written."""
    row = store.run_row(suite_id)
    out = Path(row.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    items = []
    for it in store.items(suite_id):
        d = it.to_json()
        if d["bundle"]:
            try:
                d["bundle"] = Path(os.path.relpath(d["bundle"], out)).as_posix()
            except ValueError:  # another drive (Windows): keep it absolute
                pass
        items.append(d)
    data = {
        "format": "arl-suite-results/1",
        "suite": row.name,
        "fingerprint": row.fingerprint,
        "seed": row.seed,
        "shard": row.shard,
        "app_version": row.app_version,
        "suite_id": suite_id,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "status": row.status,
        "items": items,
    }
    path = out / RESULTS_FILE
    write_atomic(path, json.dumps(data, indent=1, ensure_ascii=False))
    return path


def read_results(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """A suite run's ``suite-results.json`` (give the folder or the file), checked for its
    shape. Raises SuiteStoreError naming the file and the problem."""
    from engine.safe_io import BoundedInputError, read_json_file

    p = Path(folder)
    if p.is_dir():
        p = p / RESULTS_FILE
    if not p.exists():
        raise SuiteStoreError(f"{p}: no {RESULTS_FILE} here (choose a suite run's folder)")
    try:
        data = read_json_file(p, max_bytes=MAX_RESULTS_BYTES)
    except BoundedInputError as exc:
        raise SuiteStoreError(f"{p}: cannot be read as suite results ({exc.problem})") from None
    if not isinstance(data, dict) or data.get("format") != "arl-suite-results/1":
        raise SuiteStoreError(f"{p}: not a suite results file (format arl-suite-results/1)")
    if not isinstance(data.get("items"), list):
        raise SuiteStoreError(f"{p}: 'items' is not a list")
    for key in ("suite", "fingerprint"):
        if not isinstance(data.get(key), str):
            raise SuiteStoreError(f"{p}: '{key}' is missing or not text")
    return data


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "key": (str,),
    "document": (str,),
    "size": (str,),
    "model": (str,),
    "model_id": (str,),
    "base_url": (str,),
    "variant": (str,),
    "instructions_hash": (str,),
    "repeat": (int,),
    "status": (str,),
    "run_status": (str,),
    "reason": (str,),
    "mode": (str,),
}


def results_items(data: dict[str, Any], folder: str | os.PathLike[str]) -> list[ItemResult]:
    """The runs of a results file read by ``read_results``, bundle paths made absolute
    against ``folder``. Raises SuiteStoreError for an item of the wrong shape."""
    base = Path(folder)
    if base.is_file():
        base = base.parent
    out = []
    for n, d in enumerate(data["items"], 1):
        if not isinstance(d, dict):
            raise SuiteStoreError(f"{base}: item {n} is not an object")
        for k, types in _FIELD_TYPES.items():
            if (k in d and not isinstance(d[k], types)) or (k == "key" and k not in d):
                raise SuiteStoreError(f"{base}: item {n}: '{k}' has the wrong type or is missing")
        for k in ("metrics", "token_edits"):
            if d.get(k) is not None and not isinstance(d[k], dict):
                raise SuiteStoreError(f"{base}: item {n}: '{k}' is not an object")
        for k in ("tokens", "prompt_tokens", "completion_tokens"):
            if d.get(k) is not None and (not isinstance(d[k], int) or isinstance(d[k], bool)):
                raise SuiteStoreError(f"{base}: item {n}: '{k}' is not a whole number")
        it = ItemResult.from_json(d)
        if it.bundle:
            it.bundle = str((base / it.bundle).resolve())
        out.append(it)
    return out
