"""Word comments as written in a package: bodies, threads, resolved marks, durable ids.

Sources (ECMA-376 Part 1, 17.13.4; MS-DOCX 2.5.1 and 2.6): ``word/comments.xml`` holds
each ``w:comment`` (``w:id``, ``w:author``, ``w:initials``, ``w:date``, its paragraphs);
``word/commentsExtended.xml`` one ``w15:commentEx`` per comment, keyed by the
``w14:paraId`` of the comment's last paragraph, with ``w15:paraIdParent`` (the comment it
replies to) and ``w15:done`` ("1": resolved); ``word/commentsIds.xml`` the
``w16cid:durableId`` that stays with a comment across saves. A file written by an older
Word, by LibreOffice or by Google Docs may lack either of the last two: every comment is
then a thread of its own, open.

:func:`read_comment_parts` gives :class:`CommentRecord` items in ``comments.xml`` order.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.text.docx_marks import W
from engine.text.docx_package import Package, parse_xml

__all__ = ["CommentRecord", "read_comment_parts"]

W14 = "{http://schemas.microsoft.com/office/word/2010/wordml}"
W15 = "{http://schemas.microsoft.com/office/word/2012/wordml}"
W16CID = "{http://schemas.microsoft.com/office/word/2016/wordml/cid}"


@dataclass(frozen=True)
class CommentRecord:
    """One ``w:comment``: ``word_id`` its ``w:id``; ``text`` its paragraphs joined by
    ``"\\n"`` (tabs as ``"\\t"``, breaks as ``"\\n"``); ``para_id`` the ``w14:paraId`` of its
    last paragraph (None when absent); ``parent`` the ``word_id`` of the comment it
    replies to (None for the first of a thread); ``done`` its ``w15:done``;
    ``durable_id`` its ``w16cid:durableId`` (None when absent)."""

    word_id: str
    author: str
    initials: str
    date: str
    text: str
    para_id: str | None
    parent: str | None
    done: bool
    durable_id: str | None


def _paragraph_text(p: Any) -> str:
    parts: list[str] = []
    for el in p.iter(W + "t", W + "tab", W + "br", W + "cr", W + "del", W + "moveFrom"):
        if el.tag == W + "t":
            if not any(a.tag in (W + "del", W + "moveFrom") for a in el.iterancestors()):
                parts.append(el.text or "")
        elif el.tag == W + "tab":
            parts.append("\t")
        elif el.tag in (W + "br", W + "cr"):
            parts.append("\n")
    return "".join(parts)


def read_comment_parts(package: Package) -> list[CommentRecord] | None:
    """Every comment of the package's main part, in ``comments.xml`` order; None when the
    document has no comments part at all. Raises PackageError on a malformed part."""
    name = package.related(package.main, "comments")
    if name is None or name not in package.files:
        return None
    root = parse_xml(package.files[name], "comments part")
    extended = _extended(package)
    durable = _durable_ids(package)
    raw: list[tuple[Any, str | None]] = []
    by_para: dict[str, str] = {}
    for c in root.iter(W + "comment"):
        paras = list(c.iter(W + "p"))
        para_id = paras[-1].get(W14 + "paraId") if paras else None
        wid = c.get(W + "id") or ""
        raw.append((c, para_id))
        if para_id:
            by_para[para_id] = wid
    out = []
    for c, para_id in raw:
        parent_para, done = extended.get(para_id or "", (None, False))
        out.append(
            CommentRecord(
                word_id=c.get(W + "id") or "",
                author=c.get(W + "author") or "",
                initials=c.get(W + "initials") or "",
                date=c.get(W + "date") or "",
                text="\n".join(_paragraph_text(p) for p in c.iter(W + "p")).strip(),
                para_id=para_id,
                parent=by_para.get(parent_para) if parent_para else None,
                done=done,
                durable_id=durable.get(para_id or ""),
            )
        )
    return out


def _extended(package: Package) -> dict[str, tuple[str | None, bool]]:
    """paraId -> (paraIdParent, done) from commentsExtended.xml ({} when absent)."""
    name = package.related(package.main, "commentsExtended")
    if name is None or name not in package.files:
        return {}
    out: dict[str, tuple[str | None, bool]] = {}
    for ex in parse_xml(package.files[name], "comment threads part").iter(W15 + "commentEx"):
        para = ex.get(W15 + "paraId")
        if para:
            out[para] = (ex.get(W15 + "paraIdParent"), ex.get(W15 + "done") in ("1", "true"))
    return out


def _durable_ids(package: Package) -> dict[str, str]:
    """paraId -> durableId from commentsIds.xml ({} when absent)."""
    name = package.related(package.main, "commentsIds")
    if name is None or name not in package.files:
        return {}
    root = parse_xml(package.files[name], "comment ids part")
    return {
        el.get(W16CID + "paraId") or "": el.get(W16CID + "durableId") or ""
        for el in root.iter(W16CID + "commentId")
    }
