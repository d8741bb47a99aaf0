"""Evidence bundles: the format; write, verify, open, export as zip.

Safe reading of a bundle's files (caps, no traversal) is ``engine.bundle_archive``; the
scorecard page is rendered by ``engine.scorecard``.

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
import json
import os
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from engine.bundle_archive import (
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    MAX_TOTAL_BYTES,
    BundleError,
    _check_name,
    _read_folder,
    _read_zip,
    check_sizes,
    load_json,
    load_json_size_check,
    read_files,
    text_as_html,
)
from engine.bundle_schema import FORMAT_V1, FORMAT_V2, FORMATS, check_file
from engine.models import Claim, ClaimItem, ClaimReport, Comment, Metric
from engine.rederive import engine_identity
from engine.scorecard import METHOD_WORDS, METRIC_LABELS, VERDICT_LABELS, render_scorecard
from engine.vocabulary import DOCUMENT_KINDS, DocumentKind, one_of

__all__ = [
    "FORMAT",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "METHOD_WORDS",
    "METRIC_LABELS",
    "VERDICT_LABELS",
    "Bundle",
    "BundleContent",
    "BundleError",
    "BundleVersion",
    "VerifyResult",
    "claims_from_json",
    "content_of",
    "export_zip",
    "extract_zip",
    "open_bundle",
    "own_scorecard",
    "publish_scorecard",
    "read_files",
    "render_scorecard",
    "sha256",
    "text_as_html",
    "trust_marks",
    "verify_bundle",
    "write_bundle",
]

FORMAT = FORMAT_V2
OLD_FORMATS = (FORMAT_V1,)
SIGNATURE_FILE = "signature.json"
REDACTED = "[redacted]"


@dataclass
class BundleContent:
    """Everything a run hands to ``write_bundle``. ``rounds``: the pushed versions in
    order as ``(version_id, raw, summary, round)``. ``verdicts``/``metrics``: the shapes of
    ``engine.bundle_schema.VerdictsFile``/``MetricsFile`` (extended verdict items; a
    verdict's ``reopen_reason`` is filled from its round's ``reopened`` when absent).
    ``secrets``: strings scrubbed from every file (the API key), as a last line of defence.
    ``signing_key``: 32 bytes of Ed25519 private key material, or None for an unsigned
    bundle (``engine.signing``)."""

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
    signing_key: bytes | None = field(default=None, repr=False)
    agent_mode: dict[str, Any] | None = None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    files["trace.json"] = _fit_trace(content.trace)
    files["verdicts.json"] = _dump(_with_reopen_reasons(content.verdicts)).encode()
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
        "engine": engine_identity(),
    }
    if content.agent_mode is not None:
        manifest["agent_mode"] = content.agent_mode
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
    check_sizes({**files, "manifest.json": mdata}, root)
    if content.signing_key is not None:
        from engine import signing

        files[SIGNATURE_FILE] = _dump(signing.sign_manifest(mdata, content.signing_key)).encode()
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


def _fit_trace(trace: Any) -> bytes:
    """``trace.json`` within the reader's JSON budget: as it is when it fits; else every
    string over 2,000 characters is cut (and said so); else only what re-derivation needs
    (each model call's round, usage and whether it answered) and the usage totals."""
    data = _dump(trace).encode()
    try:
        load_json_size_check(data, "trace.json")
        return data
    except BundleError:
        pass

    def cut(x: Any) -> Any:
        if isinstance(x, str) and len(x) > 2000:
            return x[:2000] + f"... [{len(x) - 2000:,} characters cut to fit the bundle's limits]"
        if isinstance(x, list):
            return [cut(i) for i in x]
        if isinstance(x, dict):
            return {k: cut(v) for k, v in x.items()}
        return x

    data = _dump(cut(trace)).encode()
    try:
        load_json_size_check(data, "trace.json")
        return data
    except BundleError:
        pass
    entries = trace.get("entries") if isinstance(trace, dict) else None
    slim = {
        "started_at": trace.get("started_at") if isinstance(trace, dict) else None,
        "note": "the full trace was over the bundle's limits; only model-call usage is kept",
        "entries": [
            {k: e.get(k) for k in ("seq", "t", "kind", "round", "purpose", "usage", "duration_s")}
            | {"response": {} if e.get("response") is not None else None}
            for e in entries or []
            if isinstance(e, dict) and e.get("kind") == "model_call"
        ],
        "usage": trace.get("usage") if isinstance(trace, dict) else None,
    }
    return _dump(slim).encode()


def _with_reopen_reasons(verdicts: dict[str, Any]) -> dict[str, Any]:
    """``verdicts`` with each verdict item's ``reopen_reason`` set from its round's
    ``reopened`` list (the final verdicts take the last round's, when the final version is
    that round's version); items keep a reason they already carry."""
    if not isinstance(verdicts, dict):
        return verdicts
    out = dict(verdicts)
    rounds = [dict(r) for r in verdicts.get("rounds") or [] if isinstance(r, dict)]

    def fill(items: Any, reasons: dict[str, str]) -> Any:
        if not isinstance(items, list):
            return items
        filled = []
        for v in items:
            if isinstance(v, dict) and "confidence" in v:
                v = {
                    **v,
                    "reopen_reason": v.get("reopen_reason", reasons.get(str(v.get("comment_id")))),
                }
            filled.append(v)
        return filled

    last: dict[str, str] = {}
    for r in rounds:
        last = {
            str(x.get("comment_id")): str(x.get("reason"))
            for x in r.get("reopened") or []
            if isinstance(x, dict)
        }
        r["verdicts"] = fill(r.get("verdicts"), last)
    if rounds:
        out["rounds"] = rounds
    out["final"] = fill(verdicts.get("final"), last)
    return out


def _scrub(data: bytes, secrets: list[str]) -> bytes:
    for s in secrets:
        for form in {s, json.dumps(s)[1:-1]}:
            b = form.encode("utf-8")
            if b in data:
                data = data.replace(b, REDACTED.encode())
    return data


# -- reading -------------------------------------------------------------------------------


def _manifest(path: Path, files: dict[str, bytes]) -> dict[str, Any]:
    data = files.get("manifest.json")
    if data is None:
        raise BundleError(f"{path}: not an evidence bundle (no manifest.json)")
    try:
        manifest = load_json(data, "manifest.json")
    except BundleError as exc:
        raise BundleError(f"{path}: {exc}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise BundleError(f'{path}: manifest.json has no "files" table')
    if manifest.get("format") not in FORMATS:
        raise BundleError(
            f"{path}: format {manifest.get('format')!r} is not one this program reads "
            f"({', '.join(FORMATS)})"
        )
    return manifest


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
        if name not in ("manifest.json", SIGNATURE_FILE) and name not in listed:
            bad.append((name, "not listed in the manifest"))
    return bad


@dataclass
class VerifyResult:
    """``bad``: (file, problem) for each file failing the manifest check; ``problems``:
    files that do not fit their schema (``engine.bundle_schema``); ``rederivation``: the
    verdicts and metrics scored again and compared (None when not asked for or when files
    fail the manifest check); ``signature``: ``engine.signing.SignatureStatus`` or None
    when not checked."""

    path: Path
    ok: bool
    bad: list[tuple[str, str]]
    problems: list[str] = field(default_factory=list)
    rederivation: Any = None
    format: str = FORMAT
    signature: Any = None


def verify_bundle(path: str | os.PathLike[str], *, deep: bool = True) -> VerifyResult:
    """Check a bundle: every file against its manifest hash, every JSON file against its
    schema, and (``deep``) every verdict and metric re-derived from its own files
    (``engine.rederive``), and its signature (``engine.signing``). Raises BundleError if
    the bundle cannot be read at all (not a bundle, unsafe zip, no manifest)."""
    p = Path(path)
    if not deep:
        files = read_files(p)
        manifest = _manifest(p, files)
        bad = _check_hashes(manifest, files)
        return VerifyResult(p, not bad, bad, format=str(manifest.get("format")))
    b = open_bundle(p)
    bad = b.tampered_detail
    result = VerifyResult(p, False, bad, list(b.problems), format=b.format)
    from engine import signing

    result.signature = signing.check_bundle(b)
    if not bad:
        from engine.rederive import rederive

        result.rederivation = rederive(b)
    result.ok = (
        not bad
        and not result.problems
        and result.rederivation is not None
        and result.rederivation.ok
        and not result.signature.bad
    )
    return result


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
    kind: DocumentKind

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
    format: str = FORMAT
    manifest_bytes: bytes = b""
    signature: dict[str, Any] | None = None
    tampered_detail: list[tuple[str, str]] = field(default_factory=list)
    signature_present: bool = False

    @property
    def old_format(self) -> bool:
        """True for an ``arl-bundle/1`` bundle: its verdicts lack their evidence, so views
        show what it stores and re-derive the rest, and say so."""
        return self.format in OLD_FORMATS

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
            cast(Claim, c.get("claim")),  # as stored; the bundle's schema checks the word
            str(c.get("change_summary", "")),
            str(c.get("rationale", "")),
        )
        for c in obj.get("comments", [])
        if isinstance(c, dict)
    ]
    return ClaimReport(comments=items, notes=str(obj.get("notes", "")))


def content_of(bundle: Bundle, **changes: Any) -> BundleContent:
    """The ``BundleContent`` an opened bundle was written from (the documents, comments,
    claims, trace, verdicts and metrics as stored), with ``changes`` applied: for writing it
    again signed (``signing_key=...``) or, in test fixtures, with another status."""
    m = bundle.manifest
    fields: dict[str, Any] = dict(
        run_id=str(m.get("run_id", "")),
        status=bundle.status,
        reason=bundle.reason,
        app_version=str(m.get("app_version", "")),
        created_at=str(m.get("created_at", "")),
        finished_at=str(m.get("finished_at", "")),
        model=bundle.model,
        base_url=str(m.get("base_url", "")),
        document_title=bundle.document_title,
        document_kind=bundle.document_kind,
        given_version_id=str(m.get("given_version_id", "")),
        v1=bundle.version("v1").source,
        rounds=[
            (v.version_id, v.source, v.summary, int(v.round or 0))
            for v in bundle.versions
            if v.name.startswith("round-")
        ],
        comments_before=[c.to_json() for c in bundle.comments_before],
        comments_after=[c.to_json() for c in bundle.comments_after],
        claims=bundle.claims,
        trace=bundle.trace,
        verdicts=bundle.verdicts,
        metrics={k: v.to_json() for k, v in bundle.metrics.items()},
        tokens=m.get("tokens"),
        rounds_run=m["rounds"] if isinstance(m.get("rounds"), int) else 0,
        scripted=bundle.scripted,
        settings=dict(m["settings"]) if isinstance(m.get("settings"), dict) else {},
        agent_mode=m.get("agent_mode"),
    )
    fields.update(changes)
    return BundleContent(**fields)


def open_bundle(path: str | os.PathLike[str]) -> Bundle:
    """Open a bundle folder or zip, offline. Raises BundleError (one line) when it is not a
    readable bundle; a bundle whose files fail the manifest check opens with ``tampered``
    naming them, and unreadable member files are named in ``problems``."""
    p = Path(path)
    files = read_files(p)
    manifest = _manifest(p, files)
    tampered_detail = _check_hashes(manifest, files)
    tampered = [name for name, _ in tampered_detail]
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

    fmt = str(manifest.get("format"))
    problems.extend(check_file("manifest.json", manifest, fmt))

    def json_of(name: str, default: Any) -> Any:
        """The parsed file when it fits its shape; else ``default`` and a problem line (a
        view never sees a value of the wrong type)."""
        data = files.get(name)
        if data is None:
            problems.append(f"{name} is missing")
            return default
        try:
            obj = load_json(data, name)
        except BundleError as exc:
            problems.append(str(exc))
            return default
        shape = check_file(name, obj, fmt)
        if shape:
            problems.extend(shape)
            return default
        return obj

    # An unknown kind is a shape problem reported above; the text then reads as HTML.
    kind = one_of(manifest.get("document_kind", "html"), DOCUMENT_KINDS) or "html"
    versions = []
    listed = manifest.get("versions")
    if listed is not None and not isinstance(listed, list):
        problems.append("manifest.json: 'versions' is not a list")
        listed = []
    for entry in listed or []:
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
    signature = json_of(SIGNATURE_FILE, None) if SIGNATURE_FILE in files else None
    return Bundle(
        path=p,
        manifest=manifest,
        format=fmt,
        manifest_bytes=files["manifest.json"],
        signature=signature,
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
        tampered_detail=tampered_detail,
        signature_present=SIGNATURE_FILE in files,
    )


def export_zip(
    folder: str | os.PathLike[str], zip_path: str | os.PathLike[str], *, overwrite: bool = False
) -> Path:
    """Write the bundle folder as one zip (members at its root, ``signature.json``
    included byte for byte, so a signed bundle stays verifiable). Raises BundleError if
    ``folder`` is not a bundle, if ``zip_path`` lies inside ``folder`` (it would overwrite
    or add to the bundle), if ``zip_path`` exists and ``overwrite`` is false (nothing is
    replaced silently), or if the zip cannot be written; a half-written ``.tmp`` file is
    always removed."""
    src = Path(folder)
    if not src.is_dir():
        raise BundleError(f"{src}: not a folder")
    if not (src / "manifest.json").is_file():
        raise BundleError(f"{src}: not an evidence bundle (no manifest.json)")
    dest = Path(zip_path)
    src_real = src.resolve()
    dest_real = dest.resolve()
    if dest_real == src_real or src_real in dest_real.parents:
        raise BundleError(
            f"{dest}: inside the bundle folder {src}; export to a file outside the bundle"
        )
    if dest_real.is_dir():
        raise BundleError(f"{dest}: is a folder; give the name of the .zip file to write")
    if dest.is_symlink() or (dest.exists() and not dest.is_file()):
        raise BundleError(
            f"{dest}: not a regular file (a link, a device or a FIFO); "
            "choose another name for the .zip"
        )
    if dest.exists() and not overwrite:
        raise BundleError(f"{dest}: already exists; nothing was written (--force replaces it)")
    files = _read_folder(src)
    _manifest(src, files)
    tmp = dest.with_name(dest.name + ".tmp")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for name in sorted(files):
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                zf.writestr(info, files[name])
        tmp.replace(dest)
    except OSError as exc:
        raise BundleError(f"{dest}: cannot write ({exc.strerror or exc})") from None
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
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


def trust_marks(bundle: Bundle, rederivation: Any = None, signature: Any = None) -> list[str]:
    """Plain lines saying why ``bundle`` must not be trusted ([] when nothing is wrong):
    files that fail the manifest, figures re-derivation does not reproduce with the same
    engine (``engine.rederive``), a bad signature (``engine.signing``)."""
    out = [f"{name}: {problem}" for name, problem in bundle.tampered_detail]
    if rederivation is not None and rederivation.forged:
        out.append(rederivation.headline())
        out.extend(d.line() for d in rederivation.differences[:30])
        if len(rederivation.differences) > 30:
            out.append(f"and {len(rederivation.differences) - 30} more difference(s)")
    if signature is not None and signature.bad:
        out.append(signature.line())
    return out


def own_scorecard(
    bundle: Bundle,
    rederivation: Any = None,
    signature: Any = None,
    *,
    rederive_missing: bool = True,
) -> str:
    """This program's scorecard page of ``bundle`` (never the bundle's own
    ``scorecard.html``): rendered from the bundle's stated figures, with a TAMPERED banner
    naming every failed check and the checks' results among the facts. No script, inline
    CSS, a CSP that forbids every fetch. Pass the results of ``engine.rederive.rederive``
    and ``engine.signing.check_bundle`` when known (they are computed here otherwise;
    ``rederive_missing=False`` renders without the re-derivation, for a first paint)."""
    if signature is None:
        from engine import signing

        signature = signing.check_bundle(bundle)
    if rederivation is None and rederive_missing and not bundle.tampered:
        from engine.rederive import rederive

        rederivation = rederive(bundle)
    checks = [("Signature", signature.line())]
    if bundle.old_format:
        checks.append(("Bundle format", f"{bundle.format} (older: verdicts carry no evidence)"))
    if rederivation is not None:
        checks.append(("Checked by this program", rederivation.headline()))
    elif not bundle.tampered:
        checks.append(("Checked by this program", "re-deriving the verdicts..."))
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    return render_scorecard(
        bundle.manifest,
        verdicts,
        {k: m.to_json() for k, m in bundle.metrics.items()},
        [c.to_json() for c in bundle.comments_before],
        [c.to_json() for c in bundle.comments_after],
        bundle.claims if isinstance(bundle.claims, dict) else {},
        tampered=trust_marks(bundle, rederivation, signature),
        checks=checks,
    )


def publish_scorecard(workspace: Any, bundle: Bundle | str | os.PathLike[str]) -> str:
    """Store the bundle's scorecard in the workspace as a document of its own (kind html,
    title "Scorecard: <document title> (<model>)"). Returns the new document id."""
    from engine import signing
    from engine.rederive import rederive

    b = bundle if isinstance(bundle, Bundle) else open_bundle(bundle)
    sig = signing.check_bundle(b)
    red = None if b.tampered else rederive(b)
    title = f"Scorecard: {b.document_title or 'document'} ({b.model or 'unknown model'})"
    if trust_marks(b, red, sig):
        title += " [TAMPERED BUNDLE]"
    page = own_scorecard(b, red, sig)
    doc_id, _ = workspace.create_document(title, page, "html", author="scorecard")
    return doc_id
