"""Publishing scorecards to a folder others can open: a shared drive, a synced folder, a
repository checkout.

The folder (chosen once: ``published_folder()`` / ``set_published_folder()``, kept in
``<data folder>/published.json``; ``ARL_PUBLISHED_FOLDER`` overrides it) holds::

    index.html                      every published run, newest first: date, model,
                                    document, status, the five metrics, signature and
                                    verification; links to each scorecard and bundle
    index.json                      the same list for programs (``PublishedEntry`` items)
    <stamp>-<run id>/scorecard.html this program's own scorecard of the run
                                    (``engine.bundle.own_scorecard``): self-contained
    <stamp>-<run id>/bundle.zip     a copy of the evidence bundle itself, so whoever opens
                                    the shared folder reaches the evidence (the index links
                                    it relatively, never as a file:// path of this machine)

Every page is static HTML with inline CSS and a CSP that forbids every fetch and script:
it reads the same in any browser with no network and no scripts. A signed bundle publishes
its fingerprint and verification status; a tampered or forged one is published marked
TAMPERED (in the index and on its scorecard), never silently, with the figures this
program re-derives from its documents (``engine.bundle.shown``), not the ones it states.

The folder is shared, so ``index.json`` is not trusted: reading the folder (``entries``,
and so ``arl published list``, the Published view and every index page written) verifies
each entry's bundle copy again (``engine.publish.check``, cached by the copy's hash) and
takes every figure, trust mark and signer name from it. ``index.json`` only says where
each entry is and when it was published.

``publish(bundle_path) -> PublishedEntry``; ``entries() -> list[PublishedEntry]`` (newest
first); ``export(dest)`` copies the published folder elsewhere; ``render_index(entries)``
(``engine.publish.index``) is the index page. Raises ``PublishError``
(one line) when the folder cannot be written.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.atomic import replacing, write_atomic
from engine.publish.entry import PublishedEntry
from engine.publish.index import render_index

INDEX_HTML = "index.html"
INDEX_JSON = "index.json"
BUNDLE_COPY = "bundle.zip"


class PublishError(ValueError):
    """Publishing failed; ``str()`` is one line naming the folder and the problem."""


# -- the folder ------------------------------------------------------------------------------


def _config_path() -> Path:
    from engine.workspace import default_home

    return default_home() / "published.json"


def published_folder() -> Path | None:
    """The folder chosen for publishing, or None when none was chosen yet."""
    env = os.environ.get("ARL_PUBLISHED_FOLDER")
    if env:
        return Path(env)
    try:
        obj = json.loads(_config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    folder = obj.get("folder") if isinstance(obj, dict) else None
    return Path(folder) if isinstance(folder, str) and folder else None


def _config() -> dict[str, Any]:
    try:
        obj = json.loads(_config_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def _write_config(obj: dict[str, Any]) -> None:
    """Write ``published.json`` atomically. Raises OSError."""
    cfg = _config_path()
    cfg.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(cfg, json.dumps(obj, indent=1) + "\n")


def set_published_folder(folder: str | os.PathLike[str]) -> Path:
    """Remember ``folder`` as the publishing folder (created). Raises PublishError."""
    p = Path(folder).expanduser().resolve()
    try:
        p.mkdir(parents=True, exist_ok=True)
        _write_config({**_config(), "folder": str(p)})
    except OSError as exc:
        raise PublishError(f"{p}: cannot be used for publishing ({exc.strerror or exc})") from None
    return p


def require_complete_review() -> bool:
    """The setting: publish only bundles every actionable comment of which has a
    reviewer decision (``published.json``'s ``require_complete_review``; off by default)."""
    return _config().get("require_complete_review") is True


def review_gate(awaiting: int, actionable: int, doing: str, strict: bool | None = None) -> str:
    """Why ``doing`` ("publishing", "sending back") is refused: "" when a complete review
    is not required (``strict``; None: the setting, ``require_complete_review``) or no
    actionable comment awaits a decision; else one line with the counts. The one rule for
    publishing and sending back, in the desktop program and ``arl``."""
    if not (require_complete_review() if strict is None else strict) or not awaiting:
        return ""
    return (
        f"awaiting review: {awaiting} of {actionable} actionable "
        f"{'comment has' if actionable == 1 else 'comments have'} no decision, and "
        f"{doing} asks for a complete review (decide them first, or turn off \u201cRequire a "
        "complete review\u201d)"
    )


def set_require_complete_review(on: bool) -> None:
    """Turn the setting on or off. Raises PublishError when it cannot be written."""
    try:
        _write_config({**_config(), "require_complete_review": bool(on)})
    except OSError as exc:
        raise PublishError(f"{_config_path()}: cannot be written ({exc.strerror or exc})") from None


def _folder(folder: str | os.PathLike[str] | None) -> Path:
    p = Path(folder) if folder is not None else published_folder()
    if p is None:
        raise PublishError(
            "no publishing folder chosen yet: give one (--folder DIR, or Publish in the "
            "program asks once)"
        )
    return p


# -- publishing -----------------------------------------------------------------------------


def _listing(folder: Path) -> list[dict[str, Any]]:
    """The entries ``index.json`` lists (objects; [] when missing or unreadable). Only
    where each entry is and when it was published are read from them (``_entry``)."""
    from engine.publish.check import read_regular

    try:  # a symbolic link planted as index.json is not followed
        data = read_regular(folder / INDEX_JSON, 16 * 1024 * 1024)
    except OSError:
        return []
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    items = obj.get("runs") if isinstance(obj, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _text(obj: dict[str, Any], key: str) -> str:
    v = obj.get(key)
    return v if isinstance(v, str) else ""


def _entry(folder: Path, listed: dict[str, Any], *, flush: bool = True) -> PublishedEntry:
    """One entry as its bundle copy says it is: every figure, trust mark and signer name
    recomputed (``engine.publish.check``), never read from ``listed``."""
    from engine.publish.check import check_copy, copy_path

    copy = _text(listed, "bundle_copy")
    path = copy_path(folder, copy)
    checked = check_copy(path, flush=flush)
    if not copy:
        checked.problem = (
            "published before bundles were copied into the folder, so there is nothing "
            "here to check: publish its bundle again"
        )
    if path is None:
        copy = ""  # never link a path the index made up
    fields = {k: v for k, v in asdict(checked).items() if k not in _NOT_SHOWN}
    if checked.problem:
        # Nothing was checked: only labels to tell the row apart, no figures, no marks.
        fields["run_id"] = _text(listed, "run_id")
        fields["document_title"] = _text(listed, "document_title")
    sub = copy.rsplit("/", 1)[0] if "/" in copy else ""
    return PublishedEntry(
        **fields,
        published_at=_text(listed, "published_at"),
        bundle=_text(listed, "bundle"),
        scorecard=f"{sub}/scorecard.html" if sub else "",
        bundle_copy=copy,
        problem=checked.problem,
    )


_NOT_SHOWN = ("problem", "page_sha256")


def _newest_first(runs: list[PublishedEntry]) -> list[PublishedEntry]:
    return sorted(runs, key=lambda e: (e.finished_at or e.created_at, e.published_at), reverse=True)


def entries(folder: str | os.PathLike[str] | None = None) -> list[PublishedEntry]:
    """Every published run of the folder, newest first (by run end, then publication).
    Each is what its bundle copy shows when verified now (``engine.publish.check``),
    whatever ``index.json`` says about it; an entry whose copy is missing or unreadable
    has ``problem`` set and no figures."""
    from engine.publish.check import flush_cache

    p = Path(folder) if folder is not None else published_folder()
    if p is None:
        return []
    seen: set[str] = set()
    out = []
    for listed in _listing(p):
        copy = _text(listed, "bundle_copy")
        if copy and copy in seen:
            continue  # two index entries naming one copy: one row
        seen.add(copy)
        out.append(_entry(p, listed, flush=False))
    flush_cache()
    return _newest_first(out)


def _stamp(text: str) -> str:
    digits = re.sub(r"[^0-9]", "", text)[:14]
    return digits or datetime.now(UTC).strftime("%Y%m%d%H%M%S")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:60] or "run"


def publish(
    bundle_path: str | os.PathLike[str],
    folder: str | os.PathLike[str] | None = None,
    *,
    require_review: bool | None = None,
) -> PublishedEntry:
    """Publish one bundle: copy it into the folder, write its scorecard page and rewrite
    the index, every entry re-checked from its own bundle copy (``entries``).
    Re-publishing a run replaces its entry; a tampered bundle never replaces an entry of
    the same run id that passes its checks. Raises ``engine.bundle.BundleError`` for an
    unreadable bundle, PublishError when the folder cannot be written or a tampered
    bundle would replace a genuine run, or when ``require_review`` (None: the setting,
    ``require_complete_review``) and a comment still awaits a reviewer decision."""
    from engine.publish.check import judge

    dest = _folder(folder)
    src = Path(bundle_path).resolve()
    checked, page = judge(src)
    gate = review_gate(
        int(checked.review.get("awaiting") or 0),
        int(checked.review.get("actionable") or 0),
        "publishing",
        require_review,
    )
    if gate:
        raise PublishError(f"{src}: {gate}")
    run_id = checked.run_id or src.name
    others = entries(dest)
    if checked.tampered and any(
        e.run_id == run_id and not e.tampered and not e.problem for e in others
    ):
        raise PublishError(
            f"{src}: TAMPERED, and run {run_id} is already published from a bundle that "
            "passes its checks; a tampered bundle does not replace it"
        )
    sub = f"{_stamp(checked.finished_at)}-{_safe(run_id)}"
    fields = {k: v for k, v in asdict(checked).items() if k not in _NOT_SHOWN}
    entry = PublishedEntry(
        **dict(fields, run_id=run_id),
        published_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        bundle=str(src),
        scorecard=f"{sub}/scorecard.html",
        bundle_copy=f"{sub}/{BUNDLE_COPY}",
    )
    runs = _newest_first(
        [entry, *(e for e in others if e.run_id != run_id and e.bundle_copy != entry.bundle_copy)]
    )
    from engine.publish.check import LINK_WORDS, link_in

    for name in (sub, f"{sub}/{BUNDLE_COPY}", f"{sub}/scorecard.html", INDEX_JSON, INDEX_HTML):
        linked = link_in(dest, name)
        if linked is not None:  # writing through it would write outside the folder
            raise PublishError(f"{dest}: {linked} {LINK_WORDS}; remove it and publish again")
    _write_entry(dest, sub, src, checked, page, entry, runs)
    return entry


def _write_entry(
    dest: Path,
    sub: str,
    src: Path,
    checked: Any,
    page: str,
    entry: PublishedEntry,
    runs: list[PublishedEntry],
) -> None:
    """Write the entry's folder (bundle copy, page), the pages of the others that need it,
    then the index. A failure (a full disk) removes the entry's folder when this publish
    created it, so no empty or half-written run folder is left behind; the index files are
    each replaced whole or not at all. Raises PublishError."""
    from engine.publish.check import remember

    folder = dest / sub
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _copy_bundle(src, folder / BUNDLE_COPY)
        remember(folder / BUNDLE_COPY, checked)
        _write(folder / "scorecard.html", page)
        for e in runs:
            if e is not entry:
                _rewrite_page_if_changed(dest, e)
        _write(dest / INDEX_JSON, json.dumps({"runs": [asdict(e) for e in runs]}, indent=1))
        _write(dest / INDEX_HTML, render_index(runs))
    except (OSError, PublishError) as exc:
        if created and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, PublishError):
            raise
        raise PublishError(f"{dest}: cannot write ({exc.strerror or exc})") from None


def _rewrite_page_if_changed(folder: Path, e: PublishedEntry) -> None:
    """Write an entry's scorecard page again from its bundle copy when the page in the
    folder is not this program's rendering of it (edited in the shared folder, or
    missing). Raises OSError when it cannot be written."""
    from engine.publish.check import check_copy, copy_path, judge, link_in, remember, sha256_of

    copy = copy_path(folder, e.bundle_copy)
    if e.problem or copy is None or not e.scorecard or link_in(folder, e.scorecard):
        return
    page_path = folder / e.scorecard
    want = check_copy(copy).page_sha256
    try:
        if want and sha256_of(page_path) == want:
            return
    except OSError:
        pass  # missing: written below
    from engine.bundle.archive import BundleError

    try:
        checked, page = judge(copy)
    except BundleError:
        return
    _write(page_path, page)
    remember(copy, checked)


def _copy_bundle(src: Path, dest: Path) -> None:
    """The bundle as one zip in the published folder: a zip is copied byte for byte, a
    folder exported (``engine.bundle.export_zip``: its files byte for byte, so a signed
    bundle still verifies). Raises PublishError."""
    from engine.bundle.archive import BundleError
    from engine.bundle.bundle import export_zip

    try:
        # a link planted as the temporary name is removed, never written through
        dest.with_name(dest.name + ".tmp").unlink(missing_ok=True)
        if src.is_dir():
            export_zip(src, dest, overwrite=True)
        else:
            with replacing(dest) as fh, open(src, "rb") as source:
                shutil.copyfileobj(source, fh)
    except BundleError as exc:
        raise PublishError(f"{dest.parent}: cannot copy the bundle ({exc})") from None
    except OSError as exc:
        raise PublishError(f"{dest}: cannot write ({exc.strerror or exc})") from None


def _write(path: Path, text: str) -> None:
    """Write ``path`` through a fresh temporary file (a link planted under the temporary
    name is removed, and the file is created exclusively, never through a link), then
    rename it over ``path`` (which replaces a link there, never its target)."""
    write_atomic(path, text)  # byte-exact UTF-8: pages are compared by hash


def export(dest: str | os.PathLike[str], folder: str | os.PathLike[str] | None = None) -> Path:
    """Copy the published folder to ``dest`` (created; must be empty or absent): only the
    known files (``index.html``, ``index.json``, and each entry's ``scorecard.html`` and
    ``bundle.zip`` that ``index.json`` names, as ``copy_path`` admits them), each a
    regular file read without following a link; a symbolic link anywhere on their path
    is skipped, and so is every other file (the folder is shared: others can plant
    anything there). Returns ``dest``; raises PublishError."""
    from engine.publish.check import copy_path, link_in, read_regular

    src = _folder(folder)
    out = Path(dest)
    if out.exists() and any(out.iterdir()):
        raise PublishError(f"{out}: not empty; export into a new folder")
    if link_in(src, INDEX_JSON) is not None or not (src / INDEX_JSON).is_file():
        raise PublishError(f"{src}: nothing is published there yet")
    names = [INDEX_HTML, INDEX_JSON]
    for listed in _listing(src):
        copy = copy_path(src, _text(listed, "bundle_copy"))
        if copy is not None:
            sub = copy.parent.name
            names += [f"{sub}/scorecard.html", f"{sub}/{BUNDLE_COPY}"]
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in dict.fromkeys(names):
            if link_in(src, name) is not None:
                continue
            try:
                data = read_regular(src / name)
            except FileNotFoundError:
                continue
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EINVAL, errno.EISDIR):
                    continue  # a link or not a regular file: not copied
                raise
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (out / name).write_bytes(data)
    except OSError as exc:
        raise PublishError(f"{out}: cannot write ({exc.strerror or exc})") from None
    return out


__all__ = [
    "BUNDLE_COPY",
    "INDEX_HTML",
    "INDEX_JSON",
    "PublishError",
    "PublishedEntry",
    "entries",
    "export",
    "publish",
    "published_folder",
    "render_index",
    "set_published_folder",
]
