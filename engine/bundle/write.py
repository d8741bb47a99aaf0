"""Writing an evidence bundle: ``write_bundle(folder, BundleContent)``.

The format is described in ``engine.bundle.bundle``; ``engine.bundle`` names the documented
entry points.
The writer builds every file in memory, scrubs the run's secrets from each, writes a member
too large for the reader's limits as a stub listed in the manifest's ``stubbed``
(``engine.bundle.archive.stub_oversized``: a bundle is always written), checks the set
against the reader's limits (``engine.bundle.archive.check_sizes``), optionally signs
the manifest (``engine.bundle.signing``), and writes the manifest last, so a folder holding a
``manifest.json`` is always a whole bundle.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.atomic import write_atomic
from engine.bundle.archive import (
    SIGNATURE_FILE,
    BundleError,
    check_sizes,
    load_json_size_check,
    sha256,
    stub_oversized,
)
from engine.bundle.formats import FORMAT_V3
from engine.bundle.rederive import engine_identity
from engine.bundle.scorecard import render_scorecard
from engine.bundle.scorecard_checks import checks_parts
from engine.redact import mask_known
from engine.text.text_page import text_as_html

FORMAT = FORMAT_V3
#: The member holding an external agent's message, word for word.
MESSAGE_FILE = "agent/message.txt"
#: A revised Word file's own tracked changes (docs/bundle.md, "Tracked changes").
TRACKED_FILE = "tracked_changes.json"
REDACTED = "[redacted]"


@dataclass
class BundleContent:
    """Everything a run hands to ``write_bundle``. ``rounds``: the pushed versions in
    order as ``(version_id, raw, summary, round)``. ``verdicts``/``metrics``: the shapes of
    ``engine.bundle.schema.VerdictsFile``/``MetricsFile`` (extended verdict items; a
    verdict's ``reopen_reason`` is filled from its round's ``reopened`` when absent).
    ``secrets``: strings scrubbed from every file (the API key), as a last line of defence.
    ``signing_key``: 32 bytes of Ed25519 private key material, or None for an unsigned
    bundle (``engine.bundle.signing``)."""

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
    #: The declared checks file as the reviewer wrote it (``checks.toml``) and the results
    #: (``checks.json``, ``engine.run.checking.RunChecks.to_json``); None: no checks.
    checks_toml: str | None = None
    checks: dict[str, Any] | None = None
    #: What an agent that ran elsewhere said, word for word (``agent/message.txt``;
    #: ``engine.run.external``); None for a run of this program's own agent.
    agent_message: str | None = None
    #: The revised Word file's own tracked changes on the last version's text
    #: (``tracked_changes.json``, ``engine.bundle.schema.TrackedChangesFile`` items); None:
    #: not a Word revision, or one whose file has none.
    tracked_changes: list[dict[str, Any]] | None = None
    #: The versions read from Word files (.docx): "v1" (the reviewed version) and / or
    #: "v2" (the revised one), as the manifest's ``word_versions``; () for none.
    word_versions: tuple[str, ...] = ()


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=1, default=str) + "\n"


def write_bundle(folder: str | os.PathLike[str], content: BundleContent) -> Path:
    """Write the bundle into ``folder`` (created; must not already hold a manifest).

    Returns the folder. Raises BundleError on a file system failure.
    """
    root = Path(folder)
    if (root / "manifest.json").exists():
        raise BundleError(f"{root}: already holds a bundle")
    files, versions = _document_files(content)
    files.update(_record_files(content))
    manifest = _manifest_of(content, versions)
    card = render_scorecard(
        manifest,
        content.verdicts,
        content.metrics,
        content.comments_before,
        content.comments_after,
        content.claims,
        checks_card=checks_parts(content.checks),
    )
    files["scorecard.html"] = card.encode("utf-8")
    secrets = [s for s in content.secrets if s and len(s) >= 4]
    if secrets:
        for name, data in list(files.items()):
            files[name] = _scrub(data, secrets, encoded=not name.startswith("document/"))
    stubbed = stub_oversized(files)
    if stubbed:
        manifest["stubbed"] = stubbed
    manifest["files"] = {name: sha256(data) for name, data in sorted(files.items())}
    mdata = _dump(manifest).encode("utf-8")
    if secrets:
        mdata = _scrub(mdata, secrets)
    check_sizes({**files, "manifest.json": mdata}, root)
    if content.signing_key is not None:
        from engine.bundle import signing

        files[SIGNATURE_FILE] = _dump(signing.sign_manifest(mdata, content.signing_key)).encode()
    _write_files(root, files, mdata)
    return root


def _document_files(content: BundleContent) -> tuple[dict[str, bytes], list[dict[str, Any]]]:
    """The ``document/`` files (v1, each push as ``round-N`` or ``round-N-K``, v2) and the
    manifest's ``versions`` entries naming them."""
    files: dict[str, bytes] = {}
    text = content.document_kind == "text"
    markdown = content.document_kind == "markdown"
    if markdown:
        from engine.text.markdown import markdown_page
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
        elif markdown:
            files[f"document/{name}.html"] = markdown_page(source, name).encode("utf-8")
            files[f"document/{name}.md"] = source.encode("utf-8")
            entry["source_file"] = f"document/{name}.md"
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
    return files, versions


def _record_files(content: BundleContent) -> dict[str, bytes]:
    """The JSON files: comments before and after, claims, trace, verdicts, metrics."""
    return (
        {
            "comments.before.json": _dump({"comments": content.comments_before}).encode(),
            "comments.after.json": _dump({"comments": content.comments_after}).encode(),
            "claims.json": _dump(content.claims).encode(),
            "trace.json": _fit_trace(content.trace),
            "verdicts.json": _dump(_with_reopen_reasons(content.verdicts)).encode(),
            "metrics.json": _dump(content.metrics).encode(),
        }
        | _checks_files(content)
        | _message_files(content)
        | _tracked_files(content)
    )


def _tracked_files(content: BundleContent) -> dict[str, bytes]:
    """``tracked_changes.json`` when the revised Word file carries tracked changes."""
    if not content.tracked_changes:
        return {}
    doc = {"format": 1, "version": "v2", "changes": content.tracked_changes}
    return {TRACKED_FILE: _dump(doc).encode()}


def _message_files(content: BundleContent) -> dict[str, bytes]:
    """``agent/message.txt`` of a revision made elsewhere: the agent's message as given."""
    if content.agent_message is None:
        return {}
    return {MESSAGE_FILE: content.agent_message.encode("utf-8", "surrogatepass")}


def _checks_files(content: BundleContent) -> dict[str, bytes]:
    """``checks.toml`` and ``checks.json`` when the run declared checks (docs/checks.md);
    both are listed in the manifest's ``files`` like every member."""
    if content.checks is None:
        return {}
    return {
        "checks.toml": (content.checks_toml or "").encode("utf-8"),
        "checks.json": _dump(content.checks).encode(),
    }


def _manifest_of(content: BundleContent, versions: list[dict[str, Any]]) -> dict[str, Any]:
    """``manifest.json`` without its ``files`` table (added once every file is final)."""
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
    if content.word_versions:
        manifest["word_versions"] = [v for v in ("v1", "v2") if v in content.word_versions]
    if content.scripted:
        manifest["scripted_note"] = (
            "A scripted demonstration: the agent's answers were "
            "played by a script, not produced by a real model."
        )
    if content.document_kind == "markdown":
        from engine.text.markdown import renderer_identity

        manifest["markdown_renderer"] = renderer_identity()
        manifest["markdown_note"] = (
            "Markdown document: document/<name>.md holds the source the agent was "
            "given and pushed; document/<name>.html is its rendering, what the reader "
            "saw, whose body text is what is scored."
        )
    if content.document_kind == "text":
        manifest["text_note"] = (
            "Plain-text document: document/<name>.txt holds the exact "
            "text that is scored; document/<name>.html wraps it in "
            "<pre> for display."
        )
    return manifest


def _write_files(root: Path, files: dict[str, bytes], mdata: bytes) -> None:
    """Every file, then the manifest last (through a temporary name), so a folder with a
    ``manifest.json`` is a whole bundle. Raises BundleError on a file system failure."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        write_atomic(root / "manifest.json", mdata)
    except OSError as exc:
        raise BundleError(f"{root}: cannot write the bundle: {exc.strerror or exc}") from exc


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


def _scrub(data: bytes, secrets: list[str], *, encoded: bool = True) -> bytes:
    """``data`` with each secret replaced by ``[redacted]``: as it is, JSON-escaped, and
    (``encoded``, for every file but the document versions, which are only searched for
    the plain forms) split, URL-encoded or base64 (``engine.redact.mask_known``)."""
    for s in secrets:
        for form in {s, json.dumps(s)[1:-1]}:
            b = form.encode("utf-8")
            if b in data:
                data = data.replace(b, REDACTED.encode())
    if encoded:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return data
        masked = mask_known(text, secrets, REDACTED)
        if masked != text:
            data = masked.encode("utf-8")
    return data


def content_of(bundle: Any, **changes: Any) -> BundleContent:
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
        agent_message=bundle.agent_message,
        word_versions=tuple(m.get("word_versions") or ()),
    )
    fields.update(changes)
    return BundleContent(**fields)
