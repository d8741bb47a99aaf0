"""Reading an evidence bundle: ``open_bundle``, ``verify_bundle`` and the ``Bundle`` it
returns; the manifest and hash checks both share.

The format is described in ``engine.bundle.bundle``; ``engine.bundle`` names the documented
entry points. The files are read through ``engine.bundle.archive`` (caps, no traversal) and
their shapes checked by ``engine.bundle.schema``; nothing here raises for a damaged member
file: it is a line in ``Bundle.problems`` or ``Bundle.tampered``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.bundle.archive import (
    SIGNATURE_FILE,
    WHAT_A_BUNDLE_IS,
    BundleError,
    ManifestCheck,
    _check_name,
    load_json,
    read_files,
    sha256,
)
from engine.bundle.decisions import DECISION_FILES
from engine.bundle.formats import FORMAT_V1, FORMAT_V3, FORMATS
from engine.bundle.members import FileReader, stubs_of
from engine.models import ClaimReport, Comment, Metric, claims_from_json
from engine.text.text_page import text_as_html
from engine.vocabulary import DOCUMENT_KINDS, DocumentKind, one_of

FORMAT = FORMAT_V3
OLD_FORMATS = (FORMAT_V1,)


def _manifest(path: Path, files: dict[str, bytes]) -> dict[str, Any]:
    data = files.get("manifest.json")
    if data is None:
        raise BundleError(
            f"{path}: not an evidence bundle: it has no manifest.json ({WHAT_A_BUNDLE_IS})"
        )
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


def manifest_check(path: Path) -> ManifestCheck:
    """The check ``read_files`` runs on ``manifest.json`` before reading anything else:
    ``_manifest``'s (present, JSON within the budget, a ``files`` table, a known format)."""

    def check(data: bytes | None) -> None:
        _manifest(path, {} if data is None else {"manifest.json": data})

    return check


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
        if name not in ("manifest.json", SIGNATURE_FILE, *DECISION_FILES) and name not in listed:
            bad.append((name, "not listed in the manifest"))
    return bad


@dataclass
class VerifyResult:
    """The engine's verdict on a bundle; every view (``arl bundle verify|show|publish``,
    the GUI) reads ``tampered`` and ``level`` from here and decides nothing itself.

    ``bad``: (file, problem) for each file failing the manifest check; ``problems``: files
    that do not fit their schema (``engine.bundle.schema``) or do not agree with each other;
    ``rederivation``: the verdicts and metrics scored again and compared (None when not
    asked for); ``signature``:
    ``engine.bundle.signing.SignatureStatus`` or None when not checked. ``level``: ``verified``
    (every check passed), ``rescored`` (the figures differ only as an engine change a
    trusted signature vouches for: not tampered, but not this program's figures either)
    or ``tampered``; ``ok`` is ``level == "verified"``."""

    path: Path
    ok: bool
    bad: list[tuple[str, str]]
    problems: list[str] = field(default_factory=list)
    rederivation: Any = None
    format: str = FORMAT
    signature: Any = None
    level: str = "tampered"
    #: ``engine.bundle.decisions.DecisionsCheck``: the reviewer decisions and their
    #: signatures (``present`` false when the bundle carries none).
    decisions: Any = None

    @property
    def tampered(self) -> bool:
        """Any check failed or could not run: exit 3, a TAMPERED mark in every view."""
        return self.level == "tampered"


def judge_bundle(b: Bundle, rederivation: Any = None, signature: Any = None) -> VerifyResult:
    """The full verdict on an opened bundle: hashes, schemas, signature and re-derivation
    (computed here unless given). A bundle with files failing the manifest check is
    tampered whatever it re-derives (it is still re-derived: the views show the recomputed
    figures, ``engine.bundle.shown``)."""
    from engine.bundle import signing
    from engine.bundle.rederive import rederive  # lazy: scoring and checks, about 1 s

    sig = signature if signature is not None else signing.check_bundle(b)
    result = VerifyResult(b.path, False, b.tampered_detail, list(b.problems), format=b.format)
    result.signature = sig
    if rederivation is None:
        rederivation = rederive(b, sig)
    result.rederivation = rederivation
    red = result.rederivation
    from engine.bundle.decisions import check_decisions

    result.decisions = dec = check_decisions(b, red)
    if (
        b.tampered_detail
        or result.problems
        or sig.bad
        or red is None
        or red.tampered
        or dec.tampered
    ):
        result.level = "tampered"
    else:
        result.level = "rescored" if "rescored" in (red.level, dec.level) else "verified"
    result.ok = result.level == "verified"
    return result


def verify_bundle(path: str | os.PathLike[str], *, deep: bool = True) -> VerifyResult:
    """Check a bundle: every file against its manifest hash, every JSON file against its
    schema, and (``deep``) every verdict and metric re-derived from its own files
    (``engine.bundle.rederive``), and its signature (``engine.bundle.signing``): ``judge_bundle``.
    ``deep=False`` checks the hashes only (its ``ok`` says nothing about the figures).
    Raises BundleError if the bundle cannot be read at all (not a bundle, unsafe zip, no
    manifest)."""
    p = Path(path)
    if not deep:
        files = read_files(p, manifest_check(p))
        manifest = _manifest(p, files)
        bad = _check_hashes(manifest, files)
        level = "tampered" if bad else "verified"
        return VerifyResult(p, not bad, bad, format=str(manifest.get("format")), level=level)
    return judge_bundle(open_bundle(p))


@dataclass
class BundleVersion:
    """One document version of a bundle. ``source``: exact original (text for a text
    document, the Markdown source for a Markdown one, HTML otherwise); ``html``: what to
    render; ``kind``: ``html`` | ``text`` | ``markdown``."""

    name: str
    version_id: str
    round: int | None
    summary: str
    source: str
    html: str
    kind: DocumentKind

    def to_version(self) -> Any:
        """``engine.score.scoring.Version`` of this version (for re-anchoring or re-scoring)."""
        from engine.score.scoring import Version

        if self.kind == "markdown":  # scored from the page the reader saw
            return Version.from_markdown(self.source, self.html, self.version_id)
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
    stubbed: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Members written as stubs (too large for the bundle's limits): name -> the stub
    (``size``, ``sha256``, ``reason``). Read as absent; what depends on them is
    "unverified: member too large" (``engine.bundle.rederive``), never tampered."""
    #: The reviewer's decision files (``engine.bundle.decisions``) as read, outside the
    #: manifest; checked by ``judge_bundle``.
    decision_files: dict[str, bytes] = field(default_factory=dict)
    #: The declared checks (docs/checks.md): ``checks.toml`` as written and ``checks.json``
    #: (None when the run declared none).
    checks_toml: str | None = None
    checks: dict[str, Any] | None = None
    #: ``agent/message.txt``: what an agent that ran elsewhere said (None: not an
    #: external revision, or the member is absent).
    agent_message: str | None = None
    #: ``tracked_changes.json``: the revised Word file's own tracked changes on the last
    #: version (``{"format", "version", "changes"}``); None: the bundle has none.
    tracked_changes: dict[str, Any] | None = None

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
        from engine.score.scoring import score

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


def open_bundle(
    path: str | os.PathLike[str], on_versions: Callable[[list[BundleVersion]], None] | None = None
) -> Bundle:
    """Open a bundle folder or zip, offline; ``on_versions(versions)`` once its documents are
    read. Raises BundleError (one line) when it is not a readable bundle; one whose files
    fail the manifest check opens with ``tampered`` naming them, unreadable ones in problems."""
    p = Path(path)
    files = read_files(p, manifest_check(p))
    manifest = _manifest(p, files)
    tampered_detail = _check_hashes(manifest, files)
    listed = manifest["files"]
    fmt = str(manifest.get("format"))
    stubs, stub_problems = stubs_of(manifest, files)
    reader = FileReader(files, fmt, stub_problems)
    reader.stubs = stubs
    versions = _versions(manifest, reader)
    if on_versions is not None:
        on_versions(versions)
    # The manifest's shape is a problem to show, not a gate: checked once the documents
    # are on their way (pydantic and the models: 0.25 s to import), and listed first.
    from engine.bundle.schema import check_file

    reader.problems[:0] = check_file("manifest.json", manifest, fmt)
    metrics: dict[str, Metric] = {}
    mobj = reader.json("metrics.json", {})
    if isinstance(mobj, dict):
        for k, v in mobj.items():
            if isinstance(v, dict):
                metrics[k] = Metric.from_json(v)
    signature = reader.json(SIGNATURE_FILE, None) if SIGNATURE_FILE in files else None
    return Bundle(
        path=p,
        manifest=manifest,
        format=fmt,
        manifest_bytes=files["manifest.json"],
        signature=signature,
        versions=versions,
        comments_before=reader.comments("comments.before.json"),
        comments_after=reader.comments("comments.after.json"),
        claims=reader.json("claims.json", {}),
        verdicts=reader.json("verdicts.json", {}),
        metrics=metrics,
        trace=reader.json("trace.json", {}),
        scorecard_html=reader.text("scorecard.html"),
        tampered=[name for name, _ in tampered_detail],
        problems=reader.problems,
        tampered_detail=tampered_detail,
        signature_present=SIGNATURE_FILE in files,
        stubbed=stubs,
        decision_files={n: files[n] for n in DECISION_FILES if n in files and n not in listed},
        checks_toml=reader.text("checks.toml") if "checks.json" in files else None,
        checks=reader.json("checks.json", None) if "checks.json" in files else None,
        agent_message=reader.text("agent/message.txt") if "agent/message.txt" in listed else None,
        tracked_changes=reader.json("tracked_changes.json", None)
        if "tracked_changes.json" in listed
        else None,
    )


def _rendering_problem(
    manifest: dict[str, Any], entry: dict[str, Any], name: str, source: str, page: str
) -> str | None:
    """Whether a Markdown version's page is the rendering of its source, as far as this
    program can tell: only a bundle rendered by the same renderer (the manifest's
    ``markdown_renderer``) can be rendered again to the same bytes. Scoring reads the page
    either way (:meth:`BundleVersion.to_version`)."""
    from engine.text.markdown import markdown_page, renderer_identity, too_large

    big = too_large(source)
    if big is not None:  # this program would not have rendered it
        return f"{entry['source_file']} {big}"
    if manifest.get("markdown_renderer") != renderer_identity():
        return None
    if page == markdown_page(source, name):
        return None
    return (
        f"{entry.get('file')} is not the rendering of {entry['source_file']}: what a view "
        "shows would differ from the source the agent was given"
    )


def _versions(manifest: dict[str, Any], reader: FileReader) -> list[BundleVersion]:
    """The document versions the manifest lists, read from their files."""
    # An unknown kind is a shape problem reported above; the text then reads as HTML.
    kind = one_of(manifest.get("document_kind", "html"), DOCUMENT_KINDS) or "html"
    versions = []
    listed = manifest.get("versions")
    if listed is not None and not isinstance(listed, list):
        reader.problems.append("manifest.json: 'versions' is not a list")
        listed = []
    seen: set[str] = set()
    for entry in listed or []:
        if not isinstance(entry, dict):
            continue
        name = str(entry.get("name", ""))
        if name in seen:
            # version("v2") would read the first and a view might show another
            reader.problems.append(f"manifest.json: version {name!r} is listed twice")
        seen.add(name)
        html_src = reader.text(str(entry.get("file", "")))
        source = html_src
        if kind == "text" and entry.get("text_file"):
            source = reader.text(str(entry["text_file"]))
            # What is shown (the .html) must be what is scored (the .txt).
            stubbed = reader.stubs.keys() & {str(entry.get("file")), str(entry["text_file"])}
            if not stubbed and html_src != text_as_html(source, name):
                reader.problems.append(
                    f"{entry.get('file')} is not the display of {entry['text_file']}: "
                    "what a view shows would differ from what is scored"
                )
        elif kind == "markdown" and entry.get("source_file"):
            source = reader.text(str(entry["source_file"]))
            stubbed = reader.stubs.keys() & {str(entry.get("file")), str(entry["source_file"])}
            problem = (
                None if stubbed else _rendering_problem(manifest, entry, name, source, html_src)
            )
            if problem:
                reader.problems.append(problem)
        versions.append(
            BundleVersion(
                name,
                str(entry.get("version_id", "")),
                entry.get("round"),
                str(entry.get("summary", "")),
                source,
                html_src,
                kind,
            )
        )
    if not any(v.name == "v1" for v in versions) or not any(v.name == "v2" for v in versions):
        reader.problems.append("the manifest does not name document/v1 and document/v2")
    return versions
