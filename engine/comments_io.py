"""Reading and writing comments and claims: the native shape and W3C Web Annotation.

Native (docs/anchor.md, "The comment"): a JSON list of comments, or ``{"comments": [...]}``, each
``{id, body, author?, created_on_version_id?, status?, actionable?, anchor: {quote, prefix,
suffix, dom_path, start_offset, end_offset}}`` with offsets in UTF-16 code units.

W3C Web Annotation Data Model (https://www.w3.org/TR/annotation-model/): one Annotation, a
list of them, or an AnnotationCollection with ``items`` or ``first.items``. The target's
``TextQuoteSelector`` (4.2.4) gives quote, prefix and suffix; its ``TextPositionSelector``
(4.2.5) gives start and end in Unicode code points, converted here to UTF-16 units against
the document text the annotations were made on.

Loading is lenient per comment and strict per file: a file that is missing, not JSON or
not of any known shape raises ``InputError``; one bad comment among good ones is returned
in the ``unusable`` list with its reason and the rest load.
"""

from __future__ import annotations

import os
import re
from typing import Any

from engine.comments_hypothesis import comments_from_hypothesis, is_hypothesis
from engine.models import Anchor, ClaimItem, ClaimReport, Comment, InputError, json_type
from engine.safe_io import BoundedInputError, read_json_file
from engine.text import utf16
from engine.vocabulary import CLAIMS


def read_json(path: str | os.PathLike) -> Any:
    """Parse a comments, claims or annotations file within ``engine.safe_io``'s budget.

    Raises InputError naming the file and the problem: missing, not a regular file
    (folder, FIFO, device), over 50 MB, not UTF-8, not JSON, nested too deeply, an
    integer of more than 30 digits, NaN or an overflowing number.
    """
    try:
        return read_json_file(path)
    except BoundedInputError as e:
        raise InputError(e.source, e.problem) from None


def _is_w3c(obj: Any) -> bool:
    def ann(o: Any) -> bool:
        return isinstance(o, dict) and (o.get("type") == "Annotation" or "target" in o)

    if isinstance(obj, list):
        return bool(obj) and all(ann(o) for o in obj)
    if isinstance(obj, dict):
        if obj.get("type") == "AnnotationCollection" or "first" in obj:
            return True
        return ann(obj) or ("items" in obj and "comments" not in obj)
    return False


def parse_comments(
    obj: Any, source: str = "", text: str | None = None
) -> tuple[list[Comment], list[tuple[str, str]]]:
    """Comments from parsed JSON in any shape the program reads, auto-detected: native,
    W3C Web Annotation, or Hypothesis (its API's ``{"rows": [...]}`` or its client's
    export; :mod:`engine.comments_hypothesis`).

    ``text`` is the document text W3C positions refer to (needed to convert code points
    to UTF-16; without it W3C positions are dropped and the quote locates the anchor).
    Returns ``(comments, unusable)`` where ``unusable`` lists ``(id or "#index", reason)``.
    Raises InputError when ``obj`` is no known shape.
    """
    if is_hypothesis(obj):
        return comments_from_hypothesis(obj, text, source)
    if _is_w3c(obj):
        return comments_from_w3c(obj, text, source)
    items = obj.get("comments") if isinstance(obj, dict) else obj
    if not isinstance(items, list):
        raise InputError(
            source,
            'not a list of comments, {"comments": [...]}, W3C Web Annotation JSON or a '
            'Hypothesis export ({"rows": [...]})',
        )
    comments: list[Comment] = []
    unusable: list[tuple[str, str]] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        label = str(item.get("id")) if isinstance(item, dict) and item.get("id") else f"#{i + 1}"
        try:
            c = Comment.from_json(item)
        except ValueError as e:
            why = str(e)
            if why.startswith(f"comment {label}: "):  # the id is said once, by the caller
                why = why[len(f"comment {label}: ") :]
            unusable.append((label, why))
            continue
        if c.id in seen:
            unusable.append((label, "duplicate comment id"))
            continue
        seen.add(c.id)
        comments.append(c)
    return comments, unusable


def load_comments(
    path: str | os.PathLike, text: str | None = None
) -> tuple[list[Comment], list[tuple[str, str]]]:
    """Read a comments file (native or W3C). See ``parse_comments``. Raises InputError,
    also for a Word document given as the comments file ("is a Word document; comments are
    read from a Word file given as --v1", the reviewed version)."""
    from engine.text.documents import WORD_EXTENSIONS

    try:
        obj = read_json(path)
    except InputError:
        is_word = os.path.splitext(os.fspath(path))[1].lower() in WORD_EXTENSIONS
        if is_word or _starts_as_zip(path):
            raise InputError(
                os.fspath(path),
                "this is a Word document; comments are read from a Word file given as --v1 "
                "(the reviewed version), not as the comments file",
            ) from None
        raise
    return parse_comments(obj, os.fspath(path), text)


def _starts_as_zip(path: str | os.PathLike) -> bool:
    """Whether the file begins with a ZIP signature (a .docx is a ZIP). Never raises."""
    if not os.path.isfile(path):  # never open a pipe or a device: it could block
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"PK\x03\x04"
    except OSError:
        return False


# -- W3C -------------------------------------------------------------------------------


def _w3c_items(obj: Any, source: str = "") -> list[Any]:
    """The annotations of a W3C document. Raises InputError when ``items`` is no list."""
    if isinstance(obj, list):
        return obj
    first = obj.get("first")
    items = (
        obj["items"]
        if "items" in obj
        else (
            first.get("items")
            if isinstance(first, dict)
            else first
            if isinstance(first, list)
            else [obj]
        )
    )
    if not isinstance(items, list):
        raise InputError(source, "the annotation collection's items are not a list")
    return items


def _selectors(target: Any) -> list[dict]:
    out: list[dict] = []
    targets = target if isinstance(target, list) else [target]
    for t in targets:
        if not isinstance(t, dict):
            continue
        sel = t.get("selector")
        sels = sel if isinstance(sel, list) else [sel]
        for s in sels:
            if isinstance(s, dict):
                out.append(s)
                ref = s.get("refinedBy")
                if isinstance(ref, dict):
                    out.append(ref)
    return out


def _body_text(body: Any) -> str:
    if isinstance(body, str):
        return body
    if isinstance(body, dict):
        return str(body.get("value") or "")
    if isinstance(body, list):
        return "\n".join(t for t in (_body_text(b) for b in body) if t)
    return ""


def _w3c_problem(ann: dict) -> str | None:
    """What makes an annotation unusable, in words, or None (types only; W3C Web
    Annotation Data Model 4.2.4 and 4.2.5: ``exact``, ``prefix`` and ``suffix`` are
    strings, ``start`` and ``end`` non-negative integers)."""
    for s in _selectors(ann.get("target")):
        kind = s.get("type")
        if kind == "TextQuoteSelector":
            for name in ("exact", "prefix", "suffix"):
                v = s.get(name)
                if v is not None and not isinstance(v, str):
                    return f"TextQuoteSelector {name} is {json_type(v)}, not text"
        elif kind == "TextPositionSelector":
            for name in ("start", "end"):
                v = s.get(name)
                if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                    return f"TextPositionSelector {name} {v!r} is not a non-negative integer"
    for name in ("arl:created_on_version_id", "arl:status"):
        v = ann.get(name)
        if v is not None and not isinstance(v, str):
            return f"{name} is {json_type(v)}, not text"
    v = ann.get("arl:actionable")
    if v is not None and not isinstance(v, bool):
        return f"arl:actionable is {json_type(v)}, not true or false"
    return None


def comments_from_w3c(
    obj: Any, text: str | None = None, source: str = ""
) -> tuple[list[Comment], list[tuple[str, str]]]:
    """W3C annotations to native comments (positions code points -> UTF-16 units)."""
    omap = utf16.OffsetMap(text) if text is not None else None
    comments: list[Comment] = []
    unusable: list[tuple[str, str]] = []
    for i, ann in enumerate(_w3c_items(obj, source)):
        label = f"#{i + 1}"
        if not isinstance(ann, dict):
            unusable.append((label, "annotation is not a JSON object"))
            continue
        raw_id = ann.get("id")
        if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, (str, int))):
            unusable.append((label, f"annotation id is {json_type(raw_id)}, not text"))
            continue
        own = ann.get("arl:comment_id")  # the native id this program exported it with
        cid = own if isinstance(own, str) and own.strip() else str(raw_id or label)
        problem = _w3c_problem(ann)
        if problem:
            unusable.append((cid, problem))
            continue
        quote = prefix = suffix = None
        start = end = None
        for s in _selectors(ann.get("target")):
            if s.get("type") == "TextQuoteSelector":
                quote, prefix, suffix = s.get("exact"), s.get("prefix"), s.get("suffix")
            elif s.get("type") == "TextPositionSelector":
                start, end = s.get("start"), s.get("end")
        if (
            quote is None
            and text is not None
            and isinstance(start, int)
            and isinstance(end, int)
            and 0 <= start < end <= len(text)
        ):
            # Only a TextPositionSelector: the quote and its context are read from the text.
            quote, prefix, suffix = (
                text[start:end],
                text[max(0, start - 32) : start],
                text[end : end + 32],
            )
        if quote is None:
            unusable.append((cid, "annotation has no TextQuoteSelector"))
            continue
        if (
            omap is not None
            and isinstance(start, int)
            and isinstance(end, int)
            and 0 <= start <= end <= len(omap.text)
        ):
            start, end = omap.to_utf16(start), omap.to_utf16(end)
        else:
            start = end = None
        creator = ann.get("creator")
        author = creator.get("name", "") if isinstance(creator, dict) else str(creator or "")
        comments.append(
            Comment(
                id=cid,
                body=_body_text(ann.get("body")),
                anchor=Anchor(
                    quote=quote,
                    prefix=prefix or "",
                    suffix=suffix or "",
                    start_offset=start,
                    end_offset=end,
                ),
                author=author,
                created_on_version_id=(ann.get("arl:created_on_version_id") or None),
                status="resolved" if ann.get("arl:status") == "resolved" else "open",
                actionable=bool(ann.get("arl:actionable", True)),
            )
        )
    return comments, unusable


def document_iri(path: str | os.PathLike | None = None, data: bytes = b"") -> str:
    """The IRI a W3C annotation's target ``source`` names a document by: its ``file:`` URI
    (the absolute path, percent-encoded, RFC 8089) when it has a path, else
    ``urn:sha256:<64 hex>`` of ``data``, its bytes. Never raises."""
    if path is not None and os.fspath(path):
        from pathlib import Path  # here: reading comments never needs it

        return Path(os.path.abspath(os.fspath(path))).as_uri()
    import hashlib  # here: reading comments never needs it (docs/engine.md, "Speed")

    return "urn:sha256:" + hashlib.sha256(data).hexdigest()


# An absolute URI by RFC 3986's grammar: a scheme, ":", then only URI characters
# (unreserved, reserved, or a percent-encoded octet).
_ABSOLUTE_URI = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})+"
)


def _annotation_iri(comment_id: str, source: str) -> str:
    """An annotation's ``id``: the comment's own id when it is already an absolute URI
    (RFC 3986 section 4.3), else ``urn:uuid:`` of a name-based UUID (RFC 9562
    version 5) of ``source`` and the id, so one document's export names it alike each
    time. The native id rides along as ``arl:comment_id``."""
    if _ABSOLUTE_URI.fullmatch(comment_id):
        return comment_id
    import uuid  # here: uuid loads platform, which reading comments never needs

    return uuid.uuid5(uuid.NAMESPACE_URL, f"{source}#{comment_id}").urn


def comments_to_w3c(comments: list[Comment], text: str, source: str = "") -> dict[str, Any]:
    """Native comments to a W3C AnnotationCollection (positions UTF-16 -> code points).

    Each annotation is the W3C model's MUSTs (checked against the W3C test suite's
    ``annotationMusts.test`` schemas in tests/engine/test_w3c_export.py): an IRI ``id``
    (:func:`_annotation_iri`; the native id as ``arl:comment_id``) and one target, a
    SpecificResource whose ``source`` is ``source``, the document's IRI
    (:func:`document_iri`), or, when it is empty, ``urn:sha256:`` of ``text``'s UTF-8
    bytes. Status, actionability and the version a comment was made on ride along as
    ``arl:`` extension properties so a round trip loses nothing.
    """
    source = source or document_iri(None, text.encode("utf-8", "surrogatepass"))
    omap = utf16.OffsetMap(text)
    items = []
    for c in comments:
        a = c.anchor
        selectors: list[dict[str, Any]] = [
            {
                "type": "TextQuoteSelector",
                "exact": a.quote or "",
                "prefix": a.prefix,
                "suffix": a.suffix,
            }
        ]
        if a.start_offset is not None and a.end_offset is not None:
            try:
                s = omap.to_codepoint(a.start_offset, "floor")
                e = omap.to_codepoint(a.end_offset, "ceil")
                selectors.append({"type": "TextPositionSelector", "start": s, "end": e})
            except ValueError:
                pass
        target: dict[str, Any] = {"type": "SpecificResource", "source": source}
        target["selector"] = selectors
        items.append(
            {
                "@context": "http://www.w3.org/ns/anno.jsonld",
                "id": _annotation_iri(c.id, source),
                "arl:comment_id": c.id,
                "type": "Annotation",
                "body": {"type": "TextualBody", "value": c.body, "format": "text/plain"},
                "creator": {"type": "Person", "name": c.author} if c.author else None,
                "target": target,
                "arl:status": c.status,
                "arl:actionable": c.actionable,
                "arl:created_on_version_id": c.created_on_version_id,
            }
        )
    for it in items:
        if it["creator"] is None:
            del it["creator"]
    return {
        "@context": "http://www.w3.org/ns/anno.jsonld",
        "type": "AnnotationCollection",
        "total": len(items),
        "first": {"type": "AnnotationPage", "items": items},
    }


# -- claims ----------------------------------------------------------------------------


def parse_claim_report(obj: Any) -> ClaimReport:
    """Validate the agent's report (shape: docs/agent.md, "The report"). Never raises: an unusable report is
    ``ClaimReport.unusable(reason)``; entries that are not claims make it unusable too."""
    if not isinstance(obj, dict):
        return ClaimReport.unusable("the report is not a JSON object")
    items = obj.get("comments")
    if not isinstance(items, list):
        return ClaimReport.unusable('the report has no "comments" list')
    out: list[ClaimItem] = []
    seen: set[str] = set()
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            return ClaimReport.unusable(f"entry {i + 1} is not an object")
        cid, claim = it.get("comment_id"), it.get("claim")
        if not isinstance(cid, str) or not cid:
            return ClaimReport.unusable(f"entry {i + 1} has no comment_id")
        for name in ("change_summary", "rationale"):
            v = it.get(name)
            if v is not None and not isinstance(v, str):
                return ClaimReport.unusable(f"comment {cid}: {name} is {json_type(v)}, not text")
        if claim not in CLAIMS:
            return ClaimReport.unusable(
                f"entry {i + 1} claim {claim!r} is not one of " + ", ".join(CLAIMS)
            )
        if cid in seen:
            return ClaimReport.unusable(f"comment {cid} is claimed twice")
        seen.add(cid)
        out.append(
            ClaimItem(
                cid, claim, str(it.get("change_summary") or ""), str(it.get("rationale") or "")
            )
        )
    notes = obj.get("notes")
    if notes is not None and not isinstance(notes, str):
        return ClaimReport.unusable(f"the report's notes are {json_type(notes)}, not text")
    return ClaimReport(comments=out, notes=notes or "")


def _is_bundle_claims(obj: Any) -> bool:
    """The evidence bundle's ``claims.json``: ``{"rounds": [{round, report, raw}], "final"}``."""
    return isinstance(obj, dict) and isinstance(obj.get("rounds"), list) and "comments" not in obj


def claims_from_json(obj: Any, source: str = "") -> ClaimReport:
    """The agent's report from parsed JSON in either shape the program reads.

    - the report itself (docs/agent.md, "The report"): ``{"comments": [...], "notes"}``;
    - an evidence bundle's ``claims.json`` (docs/bundle.md): ``{"rounds": [{"round",
      "report", "raw"}], "final": report | null}``: its ``final`` report, else the last
      round's. A report the run recorded as unusable (``"usable": false``) stays unusable,
      with its recorded problem, so claim accuracy reads N/A with that reason.

    Raises InputError when ``obj`` is neither, or is a report with wrong entries (the
    problem names the entry), or a bundle's claims with no report at all.
    """
    if _is_bundle_claims(obj):
        report = obj.get("final")
        if report is None:
            rounds = [r for r in obj["rounds"] if isinstance(r, dict) and r.get("report")]
            report = rounds[-1]["report"] if rounds else None
        if report is None:
            raise InputError(
                source, "the bundle's claims hold no report (the agent never reported)"
            )
        if isinstance(report, dict) and report.get("usable") is False:
            problem = report.get("problem")
            return ClaimReport.unusable(
                problem if isinstance(problem, str) and problem else "the report was unusable"
            )
        parsed = parse_claim_report(report)
        if not parsed.usable:
            raise InputError(source, f"the bundle's final report: {parsed.problem}")
        return parsed
    parsed = parse_claim_report(obj)
    if not parsed.usable:
        raise InputError(source, parsed.problem)
    return parsed


def load_claims(path: str | os.PathLike) -> ClaimReport:
    """Read a claims file: the agent's report, or an evidence bundle's ``claims.json``
    (see :func:`claims_from_json`). Raises InputError when it is missing, not a regular
    file, not JSON within ``engine.safe_io``'s budget, or holds no usable report shape."""
    return claims_from_json(read_json(path), os.fspath(path))
