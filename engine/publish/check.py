"""What a published entry shows, recomputed from its bundle copy: never read back from the
shared folder's ``index.json``.

Anyone who can write the publishing folder can edit ``index.json``; so every trust mark,
signer name and figure the index page, ``arl published list`` and the Published view show
comes from verifying the entry's copy ``<stamp>-<run id>/bundle.zip`` in the folder
(the engine's verdict ``engine.bundle.judge_bundle``, its signature check against the
local trusted-keys store, ``engine.bundle.shown.shown_figures``). ``index.json`` contributes only
where an entry is (its folder), when it was published and the path of the bundle it was
published from. An entry whose copy is missing, outside the folder or unreadable is shown
with its problem and no figures (``Checked.problem``), never as valid.

Speed: verifying re-derives every verdict (tens of milliseconds for a small bundle, more
for a large document), so results are cached by the copy's SHA-256, together with a digest
of the trusted-keys store and of this program's engine source (a change to either checks
again). The cache lives in the local data folder (``<data folder>/published-checks.json``),
never in the shared folder: it is as trusted as the trusted-keys store beside it.
``benchmarks/bench_published.py`` measures listing 50 entries.

``check_copy(path) -> Checked``; ``fields_of(bundle_path) -> Checked`` and
``judge(bundle_path) -> (Checked, scorecard page)`` (the same from any bundle path, not
cached: used when publishing); ``remember(copy, checked)`` records a result.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.atomic import write_atomic

CACHE_FILE = "published-checks.json"
#: Entries kept in the cache file (the oldest are dropped first).
CACHE_LIMIT = 2000
#: ``<stamp>-<run id>/bundle.zip``: one folder level below the publishing folder, a name
#: made by ``engine.publish.published`` (letters, digits, ``.``, ``_``, ``-``).
COPY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,120}/bundle\.zip")


@dataclass
class Checked:
    """What the bundle copy itself says, after verification. ``problem``: "" when the copy
    was read and checked (``tampered`` then says whether it passed), else one sentence
    saying why nothing could be checked (no figures, no signature are then shown).
    ``signature``: ``{"state", "fingerprint", "trusted_as", "line", "uncovered"}``;
    ``metrics``: name -> metric JSON (``figures`` says where they come from);
    ``page_sha256``: SHA-256 (hex) of this program's scorecard page of the bundle, so a
    page in the folder that differs (edited there) is written again at the next
    publish."""

    run_id: str = ""
    model: str = ""
    document_title: str = ""
    status: str = ""
    created_at: str = ""
    finished_at: str = ""
    metrics: dict[str, Any] = field(default_factory=dict)
    signature: dict[str, str] = field(default_factory=dict)
    verification: str = ""
    tampered: bool = False
    scripted: bool = False
    #: A revision made outside this program and checked here (``vocabulary.is_external``):
    #: it has no model of this program's, said so in the index.
    external: bool = False
    figures: str = "stated"
    problem: str = ""
    page_sha256: str = ""
    #: The reviewer decisions' figures (``engine.bundle.review``): ``awaiting``,
    #: ``actionable``, ``reviewed`` and ``agreement`` (metric JSON); {} when not checked.
    review: dict[str, Any] = field(default_factory=dict)
    #: The first line, the most serious outcome that holds ("Awaiting review (2 of 2)",
    #: ``engine.vocabulary.outcome_headline``); "" when none holds.
    outcome: str = ""


def fields_of(bundle_path: str | os.PathLike[str]) -> Checked:
    """Open and verify one bundle (folder or zip). Raises ``engine.bundle.BundleError``
    when it cannot be read at all."""
    return judge(bundle_path)[0]


def judge(bundle_path: str | os.PathLike[str]) -> tuple[Checked, str]:
    """``fields_of`` and this program's scorecard page of the bundle
    (``engine.bundle.own_scorecard``; ``Checked.page_sha256`` is its hash)."""
    from engine.bundle import signing
    from engine.bundle.bundle import own_scorecard, trust_marks
    from engine.bundle.read import judge_bundle, open_bundle
    from engine.bundle.rederive import rederive
    from engine.bundle.shown import shown_figures
    from engine.vocabulary import is_external

    b = open_bundle(bundle_path)
    # The engine's verdict on the bundle (one place: engine.bundle.judge_bundle); the
    # reasons shown are trust_marks', never a verdict of this module's own.
    sig = signing.check_bundle(b)
    # Re-derived even when files fail the manifest check: the figures shown are then the
    # ones its documents give (engine.bundle.shown), as every other view shows them.
    red = rederive(b, sig)
    result = judge_bundle(b, red, sig)
    shown = shown_figures(b, red, sig)
    if result.tampered:
        marks = trust_marks(b, red, sig) or result.problems or ["a check could not run"]
        verification = "TAMPERED: " + marks[0]
    else:
        verification = red.headline() if red is not None else "not re-derived"
    checked = Checked(
        run_id=str(b.manifest.get("run_id") or Path(bundle_path).name),
        model=b.model,
        document_title=b.document_title,
        status=b.status,
        created_at=str(b.manifest.get("created_at") or ""),
        finished_at=str(b.manifest.get("finished_at") or ""),
        metrics=shown.metrics,
        signature={
            "state": sig.state,
            "fingerprint": sig.fingerprint,
            "trusted_as": sig.trusted_as,
            "line": sig.line(),
            "uncovered": ", ".join(sig.uncovered),
        },
        verification=verification,
        tampered=result.tampered,
        scripted=b.scripted,
        external=is_external(b.manifest),
        figures=shown.source,
    )
    from engine.bundle.review import review_figures

    decided = result.decisions.latest() if result.decisions is not None else {}
    fig = review_figures(shown.final, b.comments_before, decided)
    checked.review = {
        "awaiting": fig.awaiting,
        "actionable": fig.actionable,
        "reviewed": fig.reviewed.to_json(),
        "agreement": fig.agreement.to_json(),
    }
    from engine.bundle.scorecard_checks import shown_check_sets
    from engine.vocabulary import outcome_headline, token_edit_items

    accepted = result.decisions.accepted_checks() if result.decisions is not None else None
    sets = shown_check_sets(b.checks, getattr(red, "checks", None), accepted)
    final = next((s for label, s in sets if label == "Final"), None)
    edited, kinds = token_edit_items(shown.final)
    checked.outcome = outcome_headline(
        tampered=result.tampered
        or bool(result.decisions is not None and result.decisions.tampered),
        changes_requested=final is not None and final.gate().blocked,
        awaiting=fig.awaiting,
        actionable=fig.actionable,
        token_edits=len(kinds),
        edited=edited,
    )
    page = own_scorecard(b, red, sig)
    checked.page_sha256 = hashlib.sha256(page.encode("utf-8")).hexdigest()
    return checked, page


#: The words for a symbolic link met inside the published folder (never followed).
LINK_WORDS = "is a symbolic link: links in the published folder are never followed or copied"
#: Open flags for a file in the shared folder: never through a link, never blocking on a
#: planted pipe (the file type is checked once open).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def link_in(folder: Path, relative: str) -> str | None:
    """The first part of ``relative`` (a path inside ``folder``, with ``/``) that is a
    symbolic link, as a relative path; None when there is none. The folder itself may be
    a link (the user chose it); nothing below it is followed."""
    here = folder
    parts = [p for p in relative.split("/") if p]
    for i, part in enumerate(parts):
        here = here / part
        if here.is_symlink():
            return "/".join(parts[: i + 1])
    return None


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, never through a symbolic link (the last
    part opened with ``O_NOFOLLOW``; a device, pipe or folder refused). Raises OSError;
    ``limit``: refuse a file larger than this many bytes (OSError EFBIG)."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if limit is not None and st.st_size > limit:
            raise OSError(errno.EFBIG, "file too large", str(path))
        return fh.read()


def copy_path(folder: Path, listed: str) -> Path | None:
    """The copy an index entry names, when it is a bundle copy directly inside ``folder``
    (``<name>/bundle.zip``); None for anything else (an absolute path, ``..``, another
    file name): the index cannot point the check at a file outside the folder."""
    if not isinstance(listed, str) or not COPY_RE.fullmatch(listed) or ".." in listed:
        return None
    return folder / listed


def check_copy(path: Path | None, *, flush: bool = True) -> Checked:
    """Verify one bundle copy (cached by its SHA-256, see the module's docstring;
    ``flush=False`` leaves writing the cache file to a later ``flush_cache()``). Never raises: a missing or unreadable copy is a ``Checked`` with ``problem`` set."""
    from engine.bundle.archive import BundleError

    if path is None:
        return Checked(problem="the index names no bundle copy in this folder")
    linked = link_in(path.parent.parent, f"{path.parent.name}/{path.name}")
    if linked is not None:
        return Checked(problem=f"its bundle copy: {linked} {LINK_WORDS}")
    try:
        digest = sha256_of(path)
    except FileNotFoundError:
        return Checked(problem=f"its bundle copy {path.parent.name}/{path.name} is missing")
    except OSError as exc:
        return Checked(problem=f"its bundle copy cannot be read ({exc.strerror or exc})")
    key = f"{digest}:{_context()}"
    hit = _cache_get(key)
    if hit is not None:
        return hit
    try:
        checked = fields_of(path)
    except BundleError as exc:
        checked = Checked(problem=f"its bundle copy is not a readable bundle ({exc})")
    _cache_put(key, checked, flush=flush)
    return checked


def remember(path: Path, checked: Checked) -> None:
    """Record ``checked`` as the result for the copy at ``path`` (its content was just
    verified, file for file, as another path: the publish step)."""
    try:
        _cache_put(f"{sha256_of(path)}:{_context()}", checked)
    except OSError:
        pass


def sha256_of(path: Path) -> str:
    """SHA-256 (hex) of a regular file's bytes, never through a symbolic link (its last
    part opened with ``O_NOFOLLOW``). Raises OSError."""
    import errno
    import stat

    h = hashlib.sha256()
    with os.fdopen(os.open(path, os.O_RDONLY | _NOFOLLOW), "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# -- the cache (local data folder) -------------------------------------------------------------

_lock = threading.Lock()
_memory: dict[str, dict[str, Any]] = {}
_engine_digest: str | None = None
_disk_mtime: int | None = None


def _engine_source_digest() -> str:
    """SHA-256 (12 hex digits) over this program's engine source: a changed checker
    checks again. ``""`` in a frozen build (no source), where the version tells it."""
    global _engine_digest
    if _engine_digest is None:
        h = hashlib.sha256()
        root = Path(__file__).resolve().parent.parent  # engine/
        try:
            for p in sorted(root.rglob("*.py")):
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
            _engine_digest = h.hexdigest()[:12]
        except OSError:
            _engine_digest = ""
    return _engine_digest


def _context() -> str:
    """What else a check depends on: the engine (version and source) and the local
    trusted-keys store (a key trusted or untrusted since changes the signer's name)."""
    from engine import __version__
    from engine.bundle import signing

    try:
        keys = signing.trusted_keys_path().read_bytes()
    except OSError:
        keys = b""
    trust = hashlib.sha256(keys).hexdigest()[:12]
    return f"{__version__}:{_engine_source_digest()}:{trust}"


def _cache_path() -> Path:
    from engine.workspace import default_home

    return default_home() / CACHE_FILE


def _sync_from_disk() -> None:
    """Merge the cache file into memory when it changed since last read (call with
    ``_lock`` held)."""
    global _disk_mtime
    p = _cache_path()
    try:
        st = p.stat()
        if st.st_mtime_ns == _disk_mtime or st.st_size > 64 * 1024 * 1024:
            return
        obj = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return
    _disk_mtime = st.st_mtime_ns
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, dict):
                _memory.setdefault(k, v)


def _cache_get(key: str) -> Checked | None:
    with _lock:
        raw = _memory.get(key)
        if raw is None:
            _sync_from_disk()
            raw = _memory.get(key)
    if not isinstance(raw, dict):
        return None
    try:
        return Checked(**{k: raw[k] for k in Checked.__dataclass_fields__ if k in raw})
    except TypeError:
        return None


def _cache_put(key: str, checked: Checked, *, flush: bool = True) -> None:
    """Keep ``checked`` in memory, and (``flush``) write the cache file."""
    with _lock:
        _memory.pop(key, None)
        _memory[key] = asdict(checked)
    if flush:
        flush_cache()


def flush_cache() -> None:
    """Write the in-memory cache to the cache file (best effort: a read-only data folder
    only costs speed). The newest ``CACHE_LIMIT`` results are kept."""
    global _disk_mtime
    with _lock:
        _sync_from_disk()
        keep = dict(list(_memory.items())[-CACHE_LIMIT:])
        p = _cache_path()
        tmp = p.with_name(f"{p.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(p, json.dumps(keep), tmp=tmp)
            _disk_mtime = p.stat().st_mtime_ns
        except OSError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
