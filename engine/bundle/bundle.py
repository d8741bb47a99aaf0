"""Evidence bundles: the format; export as zip, extract, trust marks, this program's
scorecard of a bundle. The one import for every bundle name.

Writing is ``engine.bundle.write``, opening and verifying ``engine.bundle.read``, safe
reading of a bundle's files (caps, no traversal) ``engine.bundle.archive``, the files'
shapes ``engine.bundle.schema``; the scorecard page is rendered by ``engine.bundle.scorecard``.
Every public name of those is importable from here.

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
"reason", "scripted": bool, "document_kind": "html|text|markdown", "document_title",
"given_version_id", "tokens": int|null, "rounds": int, "versions": [{"name", "file",
"text_file"?, "source_file"?, "version_id", "round", "summary"}], "settings": {...},
"text_note"?, "markdown_renderer"?, "markdown_note"?, "files": {path: sha256 hex}}``.

For a plain-text document, ``document/<name>.txt`` holds the exact text (it is what scoring
reads when the bundle is reopened) and ``document/<name>.html`` wraps it in ``<pre>`` for
display: its body ``textContent`` equals the text whenever the text has no CR or NUL.
For a Markdown document, ``document/<name>.md`` holds the source the agent was given and
pushed, and ``document/<name>.html`` its rendering (``engine.text.markdown.markdown_page``),
whose body text is what is scored, on reopening too.

Reading API (for the GUI, no network, no key)::

    b = open_bundle(path)      # folder or .zip; raises BundleError (one line) if malformed
    b.tampered                 # files whose SHA-256 differs from the manifest, or missing,
                               # or present but not listed: show the bundle as tampered
    b.problems                 # other plain-sentence problems (unparseable JSON file...)
    b.manifest, b.status, b.reason, b.model, b.scripted, b.document_kind
    b.versions                 # [BundleVersion(name, version_id, round, source, html, kind)]
    b.version("v1").to_version()   # engine.score.scoring.Version for re-scoring
    b.comments_before, b.comments_after   # list[Comment]
    b.claims (dict), b.final_claims (ClaimReport | None)
    b.verdicts (dict), b.metrics (dict[str, Metric]), b.trace (dict), b.scorecard_html (str)
    b.rescore()                # ScoreResult of v1 vs v2 computed again from the files

``verify_bundle(path) -> VerifyResult`` (``ok``, ``bad``: [(file, problem)], ``level``:
verified | rescored | tampered, ``tampered``); ``judge_bundle(bundle)`` gives the same for
an opened bundle: the one verdict every view reads.
``export_zip(folder, zip_path)``, ``extract_zip(zip_path, target)`` (safe: no path traversal,
no links, at most ``MAX_ENTRIES`` entries, ``MAX_FILE_BYTES`` per file, ``MAX_TOTAL_BYTES``
in all). ``publish_scorecard(workspace, bundle) -> document id``.
"""

from __future__ import annotations

import base64
import os
import stat
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from engine.atomic import replacing
from engine.bundle import signing
from engine.bundle.archive import WHAT_A_BUNDLE_IS, BundleError, _read_folder, _read_zip
from engine.bundle.read import Bundle, _manifest, judge_bundle, manifest_check, open_bundle
from engine.bundle.scorecard import render_scorecard
from engine.safe_zip import MAX_RATIO, RATIO_FLOOR
from engine.vocabulary import plural


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
        raise BundleError(
            f"{src}: not an evidence bundle: it has no manifest.json ({WHAT_A_BUNDLE_IS})"
        )
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
    files = _read_folder(src, manifest_check(src))
    _manifest(src, files)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with replacing(dest) as fh:
            write_zip(fh, files)
    except OSError as exc:
        raise BundleError(f"{dest}: cannot write ({exc.strerror or exc})") from None
    return dest


def write_zip(fh: BinaryIO, files: dict[str, bytes]) -> None:
    """A bundle's files as a zip into ``fh`` (a binary file open for writing): members in
    name order, each dated 2020-01-01 (the same files make the same zip), a regular file's
    mode, deflated unless that would pass the reader's ratio (``_compression_for``)."""
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = _compression_for(files[name])
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            zf.writestr(info, files[name])


def _compression_for(data: bytes) -> int:
    """``ZIP_DEFLATED``, or ``ZIP_STORED`` for a file so repetitive that deflating it would
    pass the reader's ``MAX_RATIO`` (it would be refused as a zip bomb)."""
    if len(data) > RATIO_FLOOR:
        packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        packed = len(packer.compress(data)) + len(packer.flush())
        if len(data) > MAX_RATIO * max(1, packed):
            return zipfile.ZIP_STORED
    return zipfile.ZIP_DEFLATED


def extract_zip(zip_path: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Extract a bundle zip into ``target`` safely (every check of ``open_bundle``: nothing
    is written outside ``target``; a zip without a valid manifest is refused before anything
    is written). Returns ``target``. Raises BundleError."""
    files = _read_zip(Path(zip_path), manifest_check(Path(zip_path)))
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
    files that fail the manifest, files that do not fit their schema, figures
    re-derivation does not reproduce or cannot check (``engine.bundle.rederive``: an engine
    change counts only under a trusted signature), a bad signature (``engine.bundle.signing``).
    Non-empty exactly when ``judge_bundle(bundle, rederivation, signature).tampered``
    (given a re-derivation)."""
    out = [f"{name}: {problem}" for name, problem in bundle.tampered_detail]
    if rederivation is not None and rederivation.tampered:
        out.append(rederivation.headline())
        out.extend(d.line() for d in rederivation.differences[:30])
        if len(rederivation.differences) > 30:
            out.append(f"and {plural(len(rederivation.differences) - 30, 'more difference')}")
        out.extend(rederivation.problems[:30])
    elif bundle.problems:
        out.extend(bundle.problems[:30])
    if signature is not None and signature.bad:
        out.append(signature.line())
    if rederivation is not None:
        from engine.bundle.decisions import check_decisions

        out.extend(check_decisions(bundle, rederivation).problems[:30])
    return out


def own_scorecard(
    bundle: Bundle,
    rederivation: Any = None,
    signature: Any = None,
    *,
    rederive_missing: bool = True,
) -> str:
    """This program's scorecard page of ``bundle`` (never the bundle's own
    ``scorecard.html``): rendered from the bundle's stated figures when it passes its
    checks, from the figures re-derived from its own documents when it fails them (each
    differing row says what the bundle states: ``engine.bundle.shown``), with a TAMPERED
    banner naming every failed check and the checks' results among the facts. No script, inline
    CSS, a CSP that forbids every fetch. Pass the results of ``engine.bundle.rederive.rederive``
    and ``engine.bundle.signing.check_bundle`` when known (they are computed here otherwise;
    ``rederive_missing=False`` renders without the re-derivation, for a first paint)."""
    if signature is None:
        from engine.bundle import signing

        signature = signing.check_bundle(bundle)
    if rederivation is None and rederive_missing:
        from engine.bundle.rederive import rederive

        rederivation = rederive(bundle)
    checks = [("Signature", signature.line())]
    if bundle.old_format:
        checks.append(("Bundle format", f"{bundle.format} (older: verdicts carry no evidence)"))
    if rederivation is not None:
        checks.append(("Checked by this program", rederivation.headline()))
    else:
        checks.append(("Checked by this program", "re-deriving the verdicts..."))
    from engine.bundle.shown import shown_figures

    shown = shown_figures(bundle, rederivation, signature)
    from engine.bundle.decisions import check_decisions
    from engine.bundle.scorecard_checks import checks_parts
    from engine.bundle.scorecard_review import review_parts

    decisions = check_decisions(bundle, rederivation) if rederivation is not None else None
    before = [c.to_json() for c in bundle.comments_before]
    review = review_parts(shown.final, before, shown.metrics, decisions)
    verdicts = dict(bundle.verdicts) if isinstance(bundle.verdicts, dict) else {}
    verdicts.update(final=shown.final, unusable=shown.unusable, rounds=shown.rounds)
    from engine.bundle.typed_tokens import typed_tokens_words

    typed = typed_tokens_words(bundle.manifest, shown.metrics)
    if typed:
        checks.append(("Tokens typed by the user", typed))
    return render_scorecard(
        bundle.manifest,
        verdicts,
        shown.metrics,
        [c.to_json() for c in bundle.comments_before],
        [c.to_json() for c in bundle.comments_after],
        bundle.claims if isinstance(bundle.claims, dict) else {},
        tampered=trust_marks(bundle, rederivation, signature),
        checks=checks,
        figures_note=shown.headline,
        row_notes=shown.row_notes if shown.source != "stated" else {},
        metric_notes=shown.metric_notes if shown.source != "stated" else {},
        review=review,
        checks_card=checks_parts(
            bundle.checks,
            rederivation.checks if rederivation is not None else None,
            decisions.accepted_checks() if decisions is not None else None,
        ),
    )


def publish_scorecard(
    workspace: Any, bundle: Bundle | str | os.PathLike[str], judged: Any = None
) -> str:
    """Store the bundle's scorecard in the workspace as a document of its own (kind html,
    title "Scorecard: <document title> (<model>)", "[TAMPERED BUNDLE]" added when it does
    not verify). ``judged``: the bundle's ``judge_bundle`` result when the caller has it
    (its re-derivation and signature check are used, not made again). Returns the new
    document id."""
    from engine.bundle import signing
    from engine.bundle.rederive import rederive

    b = bundle if isinstance(bundle, Bundle) else open_bundle(bundle)
    if judged is not None and judged.rederivation is not None:
        sig, red = judged.signature, judged.rederivation
    else:
        sig, red = signing.check_bundle(b), rederive(b)
    title = f"Scorecard: {b.document_title or 'document'} ({b.model or 'unknown model'})"
    if trust_marks(b, red, sig):
        title += " [TAMPERED BUNDLE]"
    page = own_scorecard(b, red, sig)
    doc_id, _ = workspace.create_document(title, page, "html", author="scorecard")
    return doc_id


def trust_signer(bundle: Any, name: str, path: Path | None = None) -> tuple[str, str]:
    """Trust the key that signed ``bundle`` (an opened ``engine.bundle.Bundle``) as
    ``name``, by its full ``key_id`` (``signing.trust_key``); returns (fingerprint, key id). Raises ValueError when
    the bundle's signature does not verify (nothing to trust: a weak key or signature is
    refused, ``weak_signature``), when the bundle does not verify whole (its files, shapes
    and re-derivation: ``engine.bundle.read.judge_bundle``; a signer is never trusted on a
    bundle that fails) or the name is empty, OSError when the store cannot be written."""
    status = signing.check_bundle(bundle, {})
    where = getattr(bundle, "path", "the bundle")
    if status.state != "signed":
        raise ValueError(f"{where}: {status.line()}")
    whole = judge_bundle(bundle, signature=status)
    if whole.level != "verified":
        red = whole.rederivation
        why = red.headline() if red is not None and red.tampered else "it fails verification"
        raise ValueError(
            f"{where}: not trusted: only a bundle that verifies whole can make its signer "
            f"trusted, and this one does not ({why.rstrip('.')}); arl bundle verify lists "
            "every finding"
        )
    if not name.strip():
        raise ValueError("give the signer a name")
    pub = base64.b64decode(str(bundle.signature["public_key"]), validate=True)
    ident = signing.trust_key(pub, name, path)
    return status.fingerprint, ident
