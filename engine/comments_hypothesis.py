"""Hypothesis annotations as comments: its API's search results and its client's export.

Two shapes carry the same annotation objects (Hypothesis API reference, the ``Annotation``
schema of ``hypothesis-v1.yaml``):

- the API's search response, ``GET /api/search``: ``{"total": N, "rows": [annotation...]}``;
- the sidebar's JSON export (client ``AnnotationsExporter``): ``{"export_date",
  "export_userid", "client_version", "annotations": [annotation...]}``.

Each annotation is ``{id, created, user: "acct:<name>@<authority>", user_info:
{display_name}, text, target: [{source, selector: [...]}], references?}``. Its selectors
are the W3C Web Annotation types: ``TextQuoteSelector`` gives quote, prefix and suffix;
``TextPositionSelector`` gives start and end, which the Hypothesis client computes in
JavaScript over the page's ``document.body.textContent``, so they count UTF-16 code units:
the native anchor's own units (docs/anchor.md), kept when ``text[start:end]`` is the
quote, dropped otherwise (the quote and its context then locate the anchor).

An annotation whose ``references`` is not empty is a reply: it joins the thread of the
annotation its first reference names (the thread's root), oldest first. What cannot be a
comment is listed as unusable with its reason: a page note (no selector: not anchored to
any words), a highlight without a note (no text: nothing was asked), a reply whose root is
not in the file, an annotation that is not an object or has no id.
"""

from __future__ import annotations

from typing import Any

from engine.models import Anchor, Comment, InputError, Reply, json_type
from engine.text import utf16

__all__ = ["comments_from_hypothesis", "is_hypothesis"]


def is_hypothesis(obj: Any) -> bool:
    """True for a Hypothesis search response (``rows``) or client export
    (``annotations`` beside ``export_userid`` or ``client_version``). Never raises."""
    if not isinstance(obj, dict) or "comments" in obj:
        return False
    if isinstance(obj.get("rows"), list):
        return True
    return isinstance(obj.get("annotations"), list) and (
        "export_userid" in obj or "client_version" in obj
    )


def _author(ann: dict[str, Any]) -> str:
    """The display name, else the user name of ``acct:<name>@<authority>``."""
    info = ann.get("user_info")
    name = info.get("display_name") if isinstance(info, dict) else None
    if isinstance(name, str) and name.strip():
        return name.strip()
    user = ann.get("user")
    if not isinstance(user, str):
        return ""
    return user.removeprefix("acct:").split("@", 1)[0]


def _selectors(ann: dict[str, Any]) -> list[dict[str, Any]]:
    targets = ann.get("target")
    out: list[dict[str, Any]] = []
    for t in targets if isinstance(targets, list) else [targets]:
        sel = t.get("selector") if isinstance(t, dict) else None
        out.extend(s for s in (sel if isinstance(sel, list) else [sel]) if isinstance(s, dict))
    return out


def _anchor(ann: dict[str, Any], text: str | None) -> Anchor | str:
    """The anchor of an annotation, or why it has none (a sentence)."""
    quote = prefix = suffix = None
    start: Any = None
    end: Any = None
    for s in _selectors(ann):
        if s.get("type") == "TextQuoteSelector":
            quote, prefix, suffix = s.get("exact"), s.get("prefix"), s.get("suffix")
        elif s.get("type") == "TextPositionSelector":
            start, end = s.get("start"), s.get("end")
    for name, v in (("exact", quote), ("prefix", prefix), ("suffix", suffix)):
        if v is not None and not isinstance(v, str):
            return f"TextQuoteSelector {name} is {json_type(v)}, not text"
    if not quote:
        if not _selectors(ann):
            return "a page note, not anchored to any words"
        return "annotation has no TextQuoteSelector"
    integers = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (start, end))
    if not integers or (text is not None and not _quote_at(text, start, end, quote)):
        start = end = None
    return Anchor(quote, prefix or "", suffix or "", start_offset=start, end_offset=end)


def _quote_at(text: str, start: int, end: int, quote: str) -> bool:
    """Whether UTF-16 units ``[start, end)`` of ``text`` are ``quote``."""
    omap = utf16.OffsetMap(text)
    if not 0 <= start <= end <= omap.utf16_length:
        return False
    try:
        s, e = omap.to_codepoint(start), omap.to_codepoint(end)
    except ValueError:  # inside a surrogate pair
        return False
    return text[s:e] == quote


def _reply(ann: dict[str, Any]) -> Reply:
    created = ann.get("created")
    return Reply(
        author=_author(ann),
        body=str(ann.get("text") or ""),
        created_at=created if isinstance(created, str) else "",
    )


def comments_from_hypothesis(
    obj: dict[str, Any], text: str | None = None, source: str = ""
) -> tuple[list[Comment], list[tuple[str, str]]]:
    """Hypothesis annotations (see the module docstring) to native comments.

    ``text`` is the document text the annotations were made on (positions are checked
    against it; without it they are kept as they are). Returns ``(comments, unusable)``,
    ``unusable`` listing ``(id or "#index", reason)``. Raises InputError when ``obj`` holds
    no list of annotations.
    """
    rows = obj.get("rows") if isinstance(obj.get("rows"), list) else obj.get("annotations")
    if not isinstance(rows, list):
        raise InputError(source, "the Hypothesis file holds no list of annotations")
    comments: dict[str, Comment] = {}
    replies: list[tuple[str, str, dict[str, Any]]] = []
    unusable: list[tuple[str, str]] = []
    for i, ann in enumerate(rows):
        label = f"#{i + 1}"
        if not isinstance(ann, dict):
            unusable.append((label, "annotation is not a JSON object"))
            continue
        cid = ann.get("id")
        if not isinstance(cid, str) or not cid:
            unusable.append((label, "annotation has no id"))
            continue
        refs = ann.get("references")
        if isinstance(refs, list) and refs:
            replies.append((cid, str(refs[0]), ann))
            continue
        if not str(ann.get("text") or "").strip():
            unusable.append((cid, "a highlight without a note: nothing to address"))
            continue
        anchor = _anchor(ann, text)
        if isinstance(anchor, str):
            unusable.append((cid, anchor))
        elif cid in comments:
            unusable.append((cid, "duplicate annotation id"))
        else:
            comments[cid] = Comment(cid, str(ann["text"]), anchor, author=_author(ann))
    for cid, root, ann in sorted(replies, key=lambda r: str(r[2].get("created") or "")):
        if root in comments:
            comments[root].thread.append(_reply(ann))
        else:
            unusable.append((cid, f"a reply to annotation {root}, which is not in the file"))
    return list(comments.values()), unusable
