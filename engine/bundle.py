"""Evidence bundles: write, export as zip, verify, open safely, and the scorecard.

Layout of a bundle folder (or of the root of its ``.zip``), format ``arl-bundle/1``::

    manifest.json          see below; not listed in its own "files"
    document/v1.html       the version the agent was given
    document/v2.html       the last pushed version (a copy of v1 if nothing was pushed)
    document/round-N.html  each pushed version, N = round ("round-N-K.html" when a round
                           pushed K > 1 times)
    document/*.txt         plain-text documents only: the exact text of each version
    comments.before.json   {"comments": [native comment shape, with status and thread]}
    comments.after.json    the same after the run
    claims.json            {"rounds": [{"round", "report", "raw"}], "final": report | null}
    trace.json             every model call, tool call, timing and usage; no key
    verdicts.json          {"rounds": [{"round", "version_id", "tokens", "verdicts": [...],
                            "metrics": {...}}], "final": [...], "unusable": [[comment id,
                            reason], ...], "collateral": [{"v2_start", "v2_end", "deleted",
                            "inserted"}]} (collateral: text changed outside every anchor,
                            v2 offsets in UTF-16 units)
    metrics.json           the "metrics" object of ``arl score --json``
    scorecard.html         self-contained page: no script, inline CSS

``manifest.json``: ``{"format": "arl-bundle/1", "app_version", "created_at", "finished_at",
"run_id", "model", "base_url" (no key, no query), "status": "completed|cancelled|failed",
"reason", "scripted": bool, "document_kind": "html|text", "document_title",
"given_version_id", "tokens": int|null, "rounds": int, "versions": [{"name", "file",
"text_file"?, "version_id", "round", "summary"}], "settings": {...}, "text_note"?,
"files": {path: sha256 hex}}``.

For a plain-text document, ``document/<name>.txt`` holds the exact text (it is what scoring
reads when the bundle is reopened) and ``document/<name>.html`` wraps it in ``<pre>`` for
display: its body ``textContent`` equals the text whenever the text has no CR or NUL.

Reading API (for the GUI, no network, no key)::

    b = open_bundle(path)      # folder or .zip; raises BundleError (one line) if malformed
    b.tampered                 # files whose SHA-256 differs from the manifest, or missing,
                               # or present but not listed: show the bundle as tampered
    b.problems                 # other plain-sentence problems (unparseable JSON file...)
    b.manifest, b.status, b.reason, b.model, b.scripted, b.document_kind
    b.versions                 # [BundleVersion(name, version_id, round, source, html, kind)]
    b.version("v1").to_version()   # engine.scoring.Version for re-scoring
    b.comments_before, b.comments_after   # list[Comment]
    b.claims (dict), b.final_claims (ClaimReport | None)
    b.verdicts (dict), b.metrics (dict[str, Metric]), b.trace (dict), b.scorecard_html (str)
    b.rescore()                # ScoreResult of v1 vs v2 computed again from the files

``verify_bundle(path) -> VerifyResult`` (``ok``, ``bad``: [(file, problem)]).
``export_zip(folder, zip_path)``, ``extract_zip(zip_path, target)`` (safe: no path traversal,
no links, at most ``MAX_ENTRIES`` entries, ``MAX_FILE_BYTES`` per file, ``MAX_TOTAL_BYTES``
in all). ``publish_scorecard(workspace, bundle) -> document id``.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from engine.models import (
    METRIC_NAMES,
    STALE_ANCHOR_MESSAGE,
    VERIFICATION_MESSAGE,
    ClaimItem,
    ClaimReport,
    Comment,
    Metric,
)

FORMAT = "arl-bundle/1"
MAX_ENTRIES = 2000
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_TOTAL_BYTES = 300 * 1024 * 1024
REDACTED = "[redacted]"


class BundleError(ValueError):
    """A bundle cannot be read or written. ``str()`` is one line naming the problem."""


@dataclass
class BundleContent:
    """Everything a run hands to ``write_bundle``. ``rounds``: the pushed versions in
    order as ``(version_id, raw, summary, round)``. ``secrets``: strings scrubbed from every
    file (the API key), as a last line of defence."""

    run_id: str
    status: str
    reason: str
    app_version: str
    created_at: str
    finished_at: str
    model: str
    base_url: str
    document_title: str
    document_kind: str
    given_version_id: str
    v1: str
    rounds: list[tuple[str, str, str, int]]
    comments_before: list[dict[str, Any]]
    comments_after: list[dict[str, Any]]
    claims: dict[str, Any]
    trace: dict[str, Any]
    verdicts: dict[str, Any]
    metrics: dict[str, Any]
    tokens: int | None
    rounds_run: int
    scripted: bool = False
    settings: dict[str, Any] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list, repr=False)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_as_html(text: str, title: str = "") -> str:
    """A plain text wrapped so a browser renders it and body ``textContent`` == ``text``.

    The newline right after ``<pre>`` is dropped by the HTML parser, so one is always
    written (a text that starts with a newline keeps it). Nothing follows ``</html>``.
    """
    esc = html.escape(text, quote=False)
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
        + html.escape(title)
        + "</title><style>pre{white-space:pre-wrap;"
        "font:15px/1.5 system-ui,sans-serif;max-width:48em;margin:1em auto}</style>"
        "</head><body><pre>\n" + esc + "</pre></body></html>"
    )


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1, default=str) + "\n"


def write_bundle(folder: str | os.PathLike[str], content: BundleContent) -> Path:
    """Write the bundle into ``folder`` (created; must not already hold a manifest).

    Returns the folder. Raises BundleError on a file system failure.
    """
    root = Path(folder)
    if (root / "manifest.json").exists():
        raise BundleError(f"{root}: already holds a bundle")
    files: dict[str, bytes] = {}
    text = content.document_kind == "text"
    versions: list[dict[str, Any]] = []

    def add_version(name: str, source: str, version_id: str, rnd: int | None, summary: str) -> None:
        entry: dict[str, Any] = {
            "name": name,
            "file": f"document/{name}.html",
            "version_id": version_id,
            "round": rnd,
            "summary": summary,
        }
        if text:
            files[f"document/{name}.html"] = text_as_html(source, name).encode("utf-8")
            files[f"document/{name}.txt"] = source.encode("utf-8")
            entry["text_file"] = f"document/{name}.txt"
        else:
            files[f"document/{name}.html"] = source.encode("utf-8")
        versions.append(entry)

    add_version("v1", content.v1, content.given_version_id, None, "")
    per_round: dict[int, int] = {}
    for _, _, _, rnd in content.rounds:
        per_round[rnd] = per_round.get(rnd, 0) + 1
    seen: dict[int, int] = {}
    for vid, raw, summary, rnd in content.rounds:
        seen[rnd] = seen.get(rnd, 0) + 1
        name = f"round-{rnd}" if per_round[rnd] == 1 else f"round-{rnd}-{seen[rnd]}"
        add_version(name, raw, vid, rnd, summary)
    if content.rounds:
        vid, raw, summary, rnd = content.rounds[-1]
        add_version("v2", raw, vid, rnd, summary)
    else:
        add_version("v2", content.v1, content.given_version_id, None, "")

    files["comments.before.json"] = _dump({"comments": content.comments_before}).encode()
    files["comments.after.json"] = _dump({"comments": content.comments_after}).encode()
    files["claims.json"] = _dump(content.claims).encode()
    files["trace.json"] = _dump(content.trace).encode()
    files["verdicts.json"] = _dump(content.verdicts).encode()
    files["metrics.json"] = _dump(content.metrics).encode()
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "app_version": content.app_version,
        "created_at": content.created_at,
        "finished_at": content.finished_at,
        "run_id": content.run_id,
        "model": content.model,
        "base_url": content.base_url,
        "status": content.status,
        "reason": content.reason,
        "scripted": content.scripted,
        "document_kind": content.document_kind,
        "document_title": content.document_title,
        "given_version_id": content.given_version_id,
        "tokens": content.tokens,
        "rounds": content.rounds_run,
        "versions": versions,
        "settings": content.settings,
    }
    if content.scripted:
        manifest["scripted_note"] = (
            "A scripted demonstration: the agent's answers were "
            "played by a script, not produced by a real model."
        )
    if text:
        manifest["text_note"] = (
            "Plain-text document: document/<name>.txt holds the exact "
            "text that is scored; document/<name>.html wraps it in "
            "<pre> for display."
        )
    card = render_scorecard(
        manifest,
        content.verdicts,
        content.metrics,
        content.comments_before,
        content.comments_after,
        content.claims,
    )
    files["scorecard.html"] = card.encode("utf-8")
    secrets = [s for s in content.secrets if s and len(s) >= 4]
    if secrets:
        for name, data in list(files.items()):
            files[name] = _scrub(data, secrets)
    manifest["files"] = {name: sha256(data) for name, data in sorted(files.items())}
    mdata = _dump(manifest).encode("utf-8")
    if secrets:
        mdata = _scrub(mdata, secrets)
    try:
        root.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        tmp = root / "manifest.json.tmp"
        tmp.write_bytes(mdata)
        tmp.replace(root / "manifest.json")
    except OSError as exc:
        raise BundleError(f"{root}: cannot write the bundle: {exc.strerror or exc}") from exc
    return root


def _scrub(data: bytes, secrets: list[str]) -> bytes:
    for s in secrets:
        for form in {s, json.dumps(s)[1:-1]}:
            b = form.encode("utf-8")
            if b in data:
                data = data.replace(b, REDACTED.encode())
    return data


# -- reading -------------------------------------------------------------------------------


def _check_name(name: str) -> str | None:
    """The problem with a zip member name, or None."""
    if not name or "\x00" in name or "\\" in name:
        return "has an invalid name"
    p = PurePosixPath(name)
    if p.is_absolute() or re.match(r"^[A-Za-z]:", name):
        return "has an absolute path"
    if any(part == ".." for part in p.parts):
        return "points outside the bundle (..)"
    return None


def _read_zip(path: Path) -> dict[str, bytes]:
    """Members of a bundle zip, names relative to the bundle root. Raises BundleError."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BundleError(f"{path}: not a readable zip file ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise BundleError(f"{path}: {len(infos)} entries, more than the limit of {MAX_ENTRIES}")
        declared = sum(i.file_size for i in infos)
        if declared > MAX_TOTAL_BYTES:
            raise BundleError(
                f"{path}: {declared} bytes uncompressed, more than the limit of {MAX_TOTAL_BYTES}"
            )
        names = [i.filename for i in infos if not i.is_dir()]
        prefix = ""
        if "manifest.json" not in names:
            tops = {n.split("/", 1)[0] for n in names}
            if len(tops) == 1 and f"{next(iter(tops))}/manifest.json" in names:
                prefix = next(iter(tops)) + "/"
        out: dict[str, bytes] = {}
        total = 0
        for info in infos:
            if info.is_dir():
                continue
            problem = _check_name(info.filename)
            if problem:
                raise BundleError(f"{path}: entry {info.filename!r} {problem}")
            mode = info.external_attr >> 16
            if mode and stat.S_ISLNK(mode):
                raise BundleError(f"{path}: entry {info.filename!r} is a symbolic link")
            if info.file_size > MAX_FILE_BYTES:
                raise BundleError(
                    f"{path}: entry {info.filename!r} is {info.file_size} "
                    f"bytes, more than the limit of {MAX_FILE_BYTES}"
                )
            name = info.filename[len(prefix) :] if info.filename.startswith(prefix) else None
            if name is None:
                raise BundleError(
                    f"{path}: entry {info.filename!r} is outside the bundle folder {prefix!r}"
                )
            if name in out:
                raise BundleError(f"{path}: entry {info.filename!r} appears twice")
            try:
                with zf.open(info) as fh:
                    data = fh.read(MAX_FILE_BYTES + 1)
            except (
                zipfile.BadZipFile,
                OSError,
                EOFError,
                RuntimeError,
                NotImplementedError,
            ) as exc:
                raise BundleError(
                    f"{path}: entry {info.filename!r} cannot be read ({exc})"
                ) from None
            if len(data) > MAX_FILE_BYTES:
                raise BundleError(
                    f"{path}: entry {info.filename!r} is larger than declared "
                    f"and over the limit of {MAX_FILE_BYTES}"
                )
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise BundleError(f"{path}: more than {MAX_TOTAL_BYTES} bytes uncompressed")
            out[name] = data
    return out


def _read_folder(path: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    total = 0
    for p in sorted(path.rglob("*")):
        if p.is_symlink():
            raise BundleError(f"{path}: {p.relative_to(path).as_posix()} is a symbolic link")
        if not p.is_file():
            continue
        if len(out) >= MAX_ENTRIES:
            raise BundleError(f"{path}: more than {MAX_ENTRIES} files")
        size = p.stat().st_size
        total += size
        if size > MAX_FILE_BYTES or total > MAX_TOTAL_BYTES:
            raise BundleError(f"{path}: {p.name} makes the bundle larger than the limit")
        out[p.relative_to(path).as_posix()] = p.read_bytes()
    return out


def read_files(path: str | os.PathLike[str]) -> dict[str, bytes]:
    """Every file of a bundle folder or zip, by bundle-relative POSIX path. BundleError."""
    p = Path(path)
    if not p.exists():
        raise BundleError(f"{p}: no such file or folder")
    if p.is_dir():
        return _read_folder(p)
    return _read_zip(p)


def _manifest(path: Path, files: dict[str, bytes]) -> dict[str, Any]:
    data = files.get("manifest.json")
    if data is None:
        raise BundleError(f"{path}: not an evidence bundle (no manifest.json)")
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise BundleError(f"{path}: manifest.json is not valid JSON ({exc})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise BundleError(f'{path}: manifest.json has no "files" table')
    if manifest.get("format") != FORMAT:
        raise BundleError(f"{path}: format {manifest.get('format')!r} is not {FORMAT}")
    return manifest


@dataclass
class VerifyResult:
    """``bad``: (file, problem) for each file failing the manifest check."""

    path: Path
    ok: bool
    bad: list[tuple[str, str]]


def _check_hashes(manifest: dict[str, Any], files: dict[str, bytes]) -> list[tuple[str, str]]:
    bad = []
    listed = manifest["files"]
    for name, digest in sorted(listed.items()):
        if not isinstance(name, str) or _check_name(name):
            bad.append((str(name), "listed with an unsafe path"))
        elif name not in files:
            bad.append((name, "missing"))
        elif sha256(files[name]) != digest:
            bad.append((name, "SHA-256 does not match the manifest"))
    for name in sorted(files):
        if name != "manifest.json" and name not in listed:
            bad.append((name, "not listed in the manifest"))
    return bad


def verify_bundle(path: str | os.PathLike[str]) -> VerifyResult:
    """Check every file of a bundle against its manifest. Raises BundleError if the
    bundle cannot be read at all (not a bundle, unsafe zip, no manifest)."""
    p = Path(path)
    files = read_files(p)
    manifest = _manifest(p, files)
    bad = _check_hashes(manifest, files)
    return VerifyResult(p, not bad, bad)


@dataclass
class BundleVersion:
    """One document version of a bundle. ``source``: exact original (text for a text
    document, HTML otherwise); ``html``: what to render; ``kind``: ``html`` | ``text``."""

    name: str
    version_id: str
    round: int | None
    summary: str
    source: str
    html: str
    kind: str

    def to_version(self) -> Any:
        """``engine.scoring.Version`` of this version (for re-anchoring or re-scoring)."""
        from engine.scoring import Version

        return Version.from_source(self.source, self.kind, self.version_id)


@dataclass
class Bundle:
    """An opened bundle. See the module docstring for the fields' meaning."""

    path: Path
    manifest: dict[str, Any]
    versions: list[BundleVersion]
    comments_before: list[Comment]
    comments_after: list[Comment]
    claims: dict[str, Any]
    verdicts: dict[str, Any]
    metrics: dict[str, Metric]
    trace: dict[str, Any]
    scorecard_html: str
    tampered: list[str]
    problems: list[str]

    @property
    def status(self) -> str:
        return str(self.manifest.get("status", ""))

    @property
    def reason(self) -> str:
        return str(self.manifest.get("reason", ""))

    @property
    def model(self) -> str:
        return str(self.manifest.get("model", ""))

    @property
    def scripted(self) -> bool:
        return bool(self.manifest.get("scripted", False))

    @property
    def document_kind(self) -> str:
        return str(self.manifest.get("document_kind", "html"))

    @property
    def document_title(self) -> str:
        return str(self.manifest.get("document_title", ""))

    @property
    def ok(self) -> bool:
        return not self.tampered and not self.problems

    def version(self, name: str) -> BundleVersion:
        """The version named ``v1``, ``v2`` or ``round-N``. Raises KeyError."""
        for v in self.versions:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def final_claims(self) -> ClaimReport | None:
        return claims_from_json(self.claims.get("final"))

    def rescore(self) -> Any:
        """Score v1 against v2 again from the bundle's own files (``ScoreResult``)."""
        from engine.scoring import score

        v1 = self.version("v1").to_version()
        v2 = self.version("v2").to_version()
        rtc = self.metrics.get("rounds_to_converge")
        rounds = int(rtc.value) if rtc is not None and rtc.value is not None else None
        return score(
            v1,
            v2,
            self.comments_before,
            claims=self.final_claims,
            given_version_id=str(self.manifest.get("given_version_id") or v1.version_id),
            tokens=self.manifest.get("tokens"),
            rounds_to_converge=rounds,
            rounds_reason=rtc.reason if rtc is not None else "",
        )


def claims_from_json(obj: Any) -> ClaimReport | None:
    """A ``ClaimReport`` from its ``to_json()`` shape (None stays None)."""
    if not isinstance(obj, dict):
        return None
    if obj.get("usable") is False:
        return ClaimReport.unusable(str(obj.get("problem", "")))
    items = [
        ClaimItem(
            str(c.get("comment_id")),
            c.get("claim"),
            str(c.get("change_summary", "")),
            str(c.get("rationale", "")),
        )
        for c in obj.get("comments", [])
        if isinstance(c, dict)
    ]
    return ClaimReport(comments=items, notes=str(obj.get("notes", "")))


def open_bundle(path: str | os.PathLike[str]) -> Bundle:
    """Open a bundle folder or zip, offline. Raises BundleError (one line) when it is not a
    readable bundle; a bundle whose files fail the manifest check opens with ``tampered``
    naming them, and unreadable member files are named in ``problems``."""
    p = Path(path)
    files = read_files(p)
    manifest = _manifest(p, files)
    tampered = [name for name, _ in _check_hashes(manifest, files)]
    problems: list[str] = []

    def text_of(name: str) -> str:
        data = files.get(name)
        if data is None:
            problems.append(f"{name} is missing")
            return ""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{name} is not UTF-8")
            return data.decode("utf-8", "replace")

    def json_of(name: str, default: Any) -> Any:
        raw = text_of(name)
        if not raw:
            return default
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(f"{name} is not valid JSON ({exc.msg})")
            return default
        except RecursionError:
            problems.append(f"{name} is JSON nested too deeply")
            return default

    kind = str(manifest.get("document_kind", "html"))
    versions = []
    for entry in manifest.get("versions") or []:
        if not isinstance(entry, dict):
            continue
        html_file = str(entry.get("file", ""))
        html_src = text_of(html_file)
        source = (
            text_of(str(entry["text_file"]))
            if kind == "text" and entry.get("text_file")
            else html_src
        )
        versions.append(
            BundleVersion(
                str(entry.get("name", "")),
                str(entry.get("version_id", "")),
                entry.get("round"),
                str(entry.get("summary", "")),
                source,
                html_src,
                kind,
            )
        )
    if not any(v.name == "v1" for v in versions) or not any(v.name == "v2" for v in versions):
        problems.append("the manifest does not name document/v1 and document/v2")

    def comments_of(name: str) -> list[Comment]:
        obj = json_of(name, {"comments": []})
        items = obj.get("comments", []) if isinstance(obj, dict) else obj
        out = []
        for item in items if isinstance(items, list) else []:
            try:
                out.append(Comment.from_json(item))
            except ValueError as exc:
                problems.append(f"{name}: {exc}")
        return out

    metrics: dict[str, Metric] = {}
    mobj = json_of("metrics.json", {})
    if isinstance(mobj, dict):
        for k, v in mobj.items():
            if isinstance(v, dict):
                metrics[k] = Metric.from_json(v)
    return Bundle(
        path=p,
        manifest=manifest,
        versions=versions,
        comments_before=comments_of("comments.before.json"),
        comments_after=comments_of("comments.after.json"),
        claims=json_of("claims.json", {}),
        verdicts=json_of("verdicts.json", {}),
        metrics=metrics,
        trace=json_of("trace.json", {}),
        scorecard_html=text_of("scorecard.html"),
        tampered=tampered,
        problems=problems,
    )


def export_zip(folder: str | os.PathLike[str], zip_path: str | os.PathLike[str]) -> Path:
    """Write the bundle folder as one zip (members at its root). Raises BundleError if
    ``folder`` is not a bundle."""
    src = Path(folder)
    if not src.is_dir():
        raise BundleError(f"{src}: not a folder")
    if not (src / "manifest.json").is_file():
        raise BundleError(f"{src}: not an evidence bundle (no manifest.json)")
    files = _read_folder(src)
    _manifest(src, files)
    dest = Path(zip_path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, files[name])
    tmp.replace(dest)
    return dest


def extract_zip(zip_path: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Extract a bundle zip into ``target`` safely (every check of ``open_bundle``: nothing
    is written outside ``target``; a zip without a valid manifest is refused before anything
    is written). Returns ``target``. Raises BundleError."""
    files = _read_zip(Path(zip_path))
    _manifest(Path(zip_path), files)
    root = Path(target).resolve()
    for name in files:
        dest = (root / name).resolve()
        if root != dest and root not in dest.parents:
            raise BundleError(f"{zip_path}: entry {name!r} points outside the target")
    for name, data in files.items():
        dest = root / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return root


def publish_scorecard(workspace: Any, bundle: Bundle | str | os.PathLike[str]) -> str:
    """Store the bundle's scorecard in the workspace as a document of its own (kind html,
    title "Scorecard: <document title> (<model>)"). Returns the new document id."""
    b = bundle if isinstance(bundle, Bundle) else open_bundle(bundle)
    title = f"Scorecard: {b.document_title or 'document'} ({b.model or 'unknown model'})"
    if b.tampered:
        title += " [TAMPERED BUNDLE]"
    doc_id, _ = workspace.create_document(title, b.scorecard_html, "html", author="scorecard")
    return doc_id


# -- scorecard -----------------------------------------------------------------------------

VERDICT_LABELS = {
    "edited": ("\u270e", "Edited", "The commented text was changed."),
    "untouched": ("\u25cb", "Untouched", "The commented text is the same as before."),
    "deleted": ("\u2716", "Deleted", "The commented text was removed."),
    "stale_anchor": (
        "\u26a0",
        "Stale anchor",
        "The comment's quote is not in the version the agent was given.",
    ),
}
METHOD_WORDS = {
    "exact": "found in the same place",
    "context": "found elsewhere by its surrounding text (moved)",
    "fuzzy": "found approximately (rewritten in place)",
    "diff": "compared with the text that replaced it",
    "none": "",
}
METRIC_LABELS = {
    "attribution_rate": (
        "Attribution rate",
        "Share of actionable comments whose text was actually edited.",
    ),
    "collateral_churn": (
        "Collateral churn",
        "Share of all changed characters that lie outside every commented "
        "passage (lower is better).",
    ),
    "claim_accuracy": (
        "Claim accuracy",
        "Share of the agent's claims that agree with what the text shows.",
    ),
    "cost_per_attributed_fix": (
        "Cost per attributed fix",
        "API tokens the whole run used, per comment actually edited.",
    ),
    "rounds_to_converge": (
        "Rounds to converge",
        "Pushes until no actionable comment was left unresolved.",
    ),
}

_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1c1c;margin:0;
background:#f6f6f4}main{max-width:70em;margin:0 auto;padding:1.5em}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ccc}
.banner{padding:.7em 1em;border-radius:6px;margin:.8em 0;font-weight:600}
.completed{background:#e8eef6;border:1px solid #5a7ca8}.cancelled{background:#fff4d6;
border:1px solid #c9a227}.failed{background:#fbe3e1;border:1px solid #c0463b}
.scripted{background:#e9e4f7;border:2px dashed #6a4fb3;color:#3b2a73}
.tampered{background:#fbe3e1;border:2px solid #c0463b;color:#7a1d14}
table{border-collapse:collapse;width:100%;background:#fff;margin:.5em 0}
table.verdicts{table-layout:fixed}
th,td{border:1px solid #ddd;padding:.45em .6em;text-align:left;vertical-align:top}
th{background:#eeeeea;font-weight:600}td.num{white-space:nowrap;font-weight:600}
.facts th{width:14em}.na{color:#7a4b00;font-weight:600}.muted{color:#555;font-size:.92em}
.v{white-space:nowrap;font-weight:600;padding:.1em .4em;border-radius:4px}
.v-edited{background:#dcefdc;color:#1e5e27}.v-untouched{background:#fde2cf;color:#8a3a00}
.v-deleted{background:#e3e3f7;color:#2f2f7a}.v-stale_anchor{background:#eee;color:#444}
.quote{font-family:ui-serif,Georgia,serif;white-space:pre-wrap;word-break:break-word}
.line{font-family:ui-monospace,monospace;font-size:.9em}
"""


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _fmt_num(x: Any) -> str:
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.2f}"
    if isinstance(x, (int, float)):
        return f"{int(x):,}"
    return _e(x)


def _metric_row(name: str, m: dict[str, Any]) -> str:
    label, meaning = METRIC_LABELS.get(name, (name, ""))
    if m.get("value") is None:
        value = '<span class="na">N/A</span>'
        detail = f'<span class="na">Not measurable:</span> {_e(m.get("reason", ""))}'
    else:
        v, n, d = m.get("value"), m.get("numerator"), m.get("denominator")
        if name in ("attribution_rate", "collateral_churn", "claim_accuracy"):
            value = f"{float(v) * 100:.1f}%"
            words = {
                "attribution_rate": "actionable comments edited",
                "collateral_churn": "changed characters outside every anchor",
                "claim_accuracy": "claims agree with the text",
            }[name]
            detail = f"{_fmt_num(n)} of {_fmt_num(d)} {words}"
        elif name == "cost_per_attributed_fix":
            value = f"{_fmt_num(float(v))} tokens"
            detail = f"{_fmt_num(n)} tokens / {_fmt_num(d)} edited comment(s)"
        else:
            value = _fmt_num(v)
            detail = f"{_fmt_num(v)} push(es)"
    return (
        f"<tr><th>{_e(label)}<div class='muted'>{_e(meaning)}</div></th>"
        f"<td class='num'>{value}</td><td>{detail}</td></tr>"
    )


def render_scorecard(
    manifest: dict[str, Any],
    verdicts: dict[str, Any],
    metrics: dict[str, Any],
    comments_before: list[dict[str, Any]],
    comments_after: list[dict[str, Any]],
    claims: dict[str, Any],
    *,
    tampered: list[str] | None = None,
) -> str:
    """The scorecard page: one self-contained HTML document, no script, inline CSS, a CSP
    that forbids every fetch. For people who never read JSON."""
    status = str(manifest.get("status", ""))
    title = str(manifest.get("document_title") or "document")
    bodies = {c.get("id"): c.get("body", "") for c in comments_before}
    final = verdicts.get("final") or []
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "style-src 'unsafe-inline'\">",
        f"<title>Scorecard: {_e(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>Scorecard: {_e(title)}</h1>",
    ]
    if tampered:
        out.append(
            "<div class='banner tampered'>This evidence bundle failed its integrity "
            "check: " + _e(", ".join(tampered)) + ". Do not trust these figures.</div>"
        )
    if manifest.get("scripted"):
        out.append(
            "<div class='banner scripted'>SCRIPTED DEMONSTRATION: the agent's answers "
            "were played by a script, not produced by a real model. The verdicts and "
            "metrics are computed exactly as for a real run.</div>"
        )
    status_words = {
        "completed": "The run completed",
        "cancelled": "The run was cancelled",
        "failed": "The run failed",
    }.get(status, f"Run status: {status}")
    reason = manifest.get("reason")
    out.append(
        f"<div class='banner {_e(status)}'>{_e(status_words)}"
        + (f": {_e(reason)}" if reason else "")
        + ".</div>"
    )
    tokens = manifest.get("tokens")
    facts = [
        ("Model", manifest.get("model")),
        ("Endpoint", manifest.get("base_url")),
        ("Run started", manifest.get("created_at")),
        ("Run finished", manifest.get("finished_at")),
        ("Rounds run", manifest.get("rounds")),
        (
            "Tokens used",
            f"{tokens:,}" if isinstance(tokens, int) else "not reported by the provider",
        ),
        ("Document", f"{title} ({manifest.get('document_kind', 'html')})"),
        ("Program", f"Agent Review Loop {manifest.get('app_version', '')}"),
        ("Run id", manifest.get("run_id")),
    ]
    out.append("<h2>About this run</h2><table class='facts'>")
    out.extend(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in facts)
    out.append("</table>")

    # "Completed" says the run ended normally, not that the agent did well: the banner is
    # neutral, and this sentence says what the text shows for the comments that counted.
    open_actionable = {
        c.get("id")
        for c in comments_before
        if c.get("actionable", True) and c.get("status", "open") == "open"
    }
    counts = {k: 0 for k in VERDICT_LABELS}
    for v in final:
        if v.get("comment_id") in open_actionable or v.get("verdict") == "stale_anchor":
            counts[v.get("verdict")] = counts.get(v.get("verdict"), 0) + 1
    actionable = counts["edited"] + counts["untouched"] + counts["deleted"]
    claimed = sum(1 for v in final if v.get("claim") == "addressed")
    summary = (
        f"Of {actionable} comment(s) the agent had to address, the text shows "
        f"{counts['edited']} edited, {counts['deleted']} deleted and "
        f"{counts['untouched']} untouched."
    )
    if counts["stale_anchor"]:
        summary += f" {counts['stale_anchor']} comment(s) had a stale anchor and were not counted."
    if claimed:
        summary += f" The agent claimed {claimed} comment(s) addressed."
    out.append(f"<p>{_e(summary)}</p>")

    out.append(
        "<h2>Metrics</h2><table><tr><th>Metric</th><th>Value</th><th>How it was measured</th></tr>"
    )
    for name in METRIC_NAMES:
        if name in metrics:
            out.append(_metric_row(name, metrics[name]))
    out.append(
        "</table><p class='muted'>N/A means the metric could not be measured; the "
        "reason is given. It never stands for zero.</p>"
    )

    out.append(
        "<h2>Verdicts, comment by comment</h2><table class='verdicts'><colgroup>"
        "<col style='width:24%'><col style='width:14%'><col style='width:22%'>"
        "<col style='width:22%'><col style='width:18%'></colgroup><tr><th>Comment</th>"
        "<th>Verdict</th><th>Before (v1)</th><th>After (v2)</th>"
        "<th>Agent's claim</th></tr>"
    )
    for v in final:
        icon, label, meaning = VERDICT_LABELS.get(v.get("verdict"), ("?", v.get("verdict"), ""))
        cid = v.get("comment_id")
        body = str(bodies.get(cid, ""))
        body = body if len(body) <= 300 else body[:297] + "..."
        before = (v.get("v1") or {}).get("text")
        after = (v.get("v2") or {}).get("text")
        claim = v.get("claim")
        if claim is None:
            claim_cell = "<span class='muted'>no claim</span>"
        else:
            agrees = v.get("claim_agrees")
            verdict_word = (
                "agrees with the text"
                if agrees
                else "contradicted by the text"
                if agrees is False
                else ""
            )
            claim_cell = f"{_e(claim.replace('_', ' '))}<div class='muted'>{_e(verdict_word)}</div>"
        method = v.get("method")
        how_words = METHOD_WORDS.get(str(method), str(method or ""))
        how = f"<div class='muted'>{_e(how_words)}</div>" if how_words else ""
        msg = v.get("message")
        extra = f"<div class='line'>{_e(msg)}</div>" if msg else ""
        out.append(
            f"<tr><td><b>{_e(cid)}</b><div class='quote'>{_e(body)}</div></td>"
            f"<td><span class='v v-{_e(v.get('verdict'))}' title='{_e(meaning)}'>"
            f"{icon} {_e(label)}</span>{how}{extra}</td>"
            f"<td class='quote'>{_e(before) if before is not None else '<i>not found</i>'}</td>"
            f"<td class='quote'>{_e(after) if after is not None else '<i>gone</i>'}</td>"
            f"<td>{claim_cell}</td></tr>"
        )
    if not final:
        out.append("<tr><td colspan='5'>No verdicts were computed.</td></tr>")
    out.append("</table>")

    reopened = []
    for c in comments_after:
        for r in c.get("thread") or []:
            if r.get("kind") == "reopen":
                reopened.append((c.get("id"), r.get("body", "")))
    if reopened:
        out.append(
            "<h2>Integrity control</h2><p>Comments the agent marked resolved although "
            "their text did not change were reopened:</p><ul>"
        )
        for cid, body in reopened:
            line = STALE_ANCHOR_MESSAGE if "not in the version" in body else VERIFICATION_MESSAGE
            out.append(
                f"<li><b>{_e(cid)}</b>: <span class='line'>{_e(line)}</span>"
                f"<div class='muted'>{_e(body)}</div></li>"
            )
        out.append("</ul>")
    unusable = verdicts.get("unusable") or []
    if unusable:
        out.append("<h2>Comments that could not be scored</h2><ul>")
        out.extend(
            f"<li><b>{_e(u[0])}</b>: {_e(u[1])}</li>"
            for u in unusable
            if isinstance(u, (list, tuple)) and len(u) == 2
        )
        out.append("</ul>")
    final_claims = claims.get("final") if isinstance(claims, dict) else None
    if isinstance(final_claims, dict) and final_claims.get("usable") is False:
        out.append(
            f"<p><b>The agent's report could not be used:</b> {_e(final_claims.get('problem'))}</p>"
        )
    out.append(
        "<p class='muted'>Verdicts are computed from the text of the two versions, "
        "never from the agent's word. Offsets and evidence are in the bundle's "
        "verdicts.json and trace.json.</p></main></body></html>"
    )
    return "".join(out)
