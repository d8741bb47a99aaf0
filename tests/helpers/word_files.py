"""Building Word (.docx) files for tests: a minimal package from WordprocessingML snippets.

``make_docx(body, comments=..., footnotes=...)`` writes a package Word and LibreOffice open:
``[Content_Types].xml``, the relationships, ``word/document.xml`` with ``body`` inside
``w:body``, and, when comments are given, ``word/comments.xml``, ``word/commentsExtended.xml``
(threads and resolved marks) and ``word/commentsIds.xml`` (durable ids). ``Note`` is a
comment to write; its ``parent`` is the ``para_id`` of the comment it replies to.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from xml.sax.saxutils import escape

NS = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
    'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" '
    'xmlns:w16cid="http://schemas.microsoft.com/office/word/2016/wordml/cid" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'mc:Ignorable="w14 w15 w16cid"'
)
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


@dataclass
class Note:
    """One w:comment: ``wid`` its w:id; ``para_id`` the w14:paraId of its paragraph."""

    wid: int
    text: str
    author: str = "Reviewer"
    date: str = "2026-11-30T10:00:00Z"
    para_id: str | None = None
    parent: str | None = None
    done: bool = False
    durable: str | None = None


def para(*runs: str, ppr: str = "") -> str:
    return f"<w:p>{ppr}{''.join(runs)}</w:p>"


def run(text: str, rpr: str = "") -> str:
    return f'<w:r>{rpr}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def start(n: int) -> str:
    return f'<w:commentRangeStart w:id="{n}"/>'


def end(n: int) -> str:
    return (
        f'<w:commentRangeEnd w:id="{n}"/>'
        f'<w:r><w:rPr><w:rStyle w:val="CommentReference"/></w:rPr>'
        f'<w:commentReference w:id="{n}"/></w:r>'
    )


def ins(inner: str, n: int = 100) -> str:
    return f'<w:ins w:id="{n}" w:author="Agent" w:date="2026-12-01T09:00:00Z">{inner}</w:ins>'


def deleted(text: str, n: int = 200) -> str:
    return (
        f'<w:del w:id="{n}" w:author="Agent" w:date="2026-12-01T09:00:00Z"><w:r>'
        f'<w:delText xml:space="preserve">{escape(text)}</w:delText></w:r></w:del>'
    )


def _comments_xml(notes: list[Note]) -> str:
    items = []
    for c in notes:
        pid = f' w14:paraId="{c.para_id}"' if c.para_id else ""
        paras = "".join(
            f"<w:p{pid if i == len(c.text.split(chr(10))) - 1 else ''}>{run(line)}</w:p>"
            for i, line in enumerate(c.text.split("\n"))
        )
        items.append(
            f'<w:comment w:id="{c.wid}" w:author="{escape(c.author)}" w:date="{c.date}" '
            f'w:initials="R">{paras}</w:comment>'
        )
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments {NS}>{"".join(items)}</w:comments>'


def _extended_xml(notes: list[Note]) -> str:
    items = []
    for c in notes:
        if not c.para_id:
            continue
        parent = f' w15:paraIdParent="{c.parent}"' if c.parent else ""
        items.append(f'<w15:commentEx w15:paraId="{c.para_id}"{parent} w15:done="{int(c.done)}"/>')
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w15:commentsEx {NS}>{"".join(items)}</w15:commentsEx>'


def _ids_xml(notes: list[Note]) -> str:
    items = "".join(
        f'<w16cid:commentId w16cid:paraId="{c.para_id}" w16cid:durableId="{c.durable}"/>'
        for c in notes
        if c.para_id and c.durable
    )
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w16cid:commentsIds {NS}>{items}</w16cid:commentsIds>'


def _reply_marks(body: str, notes: list[Note]) -> str:
    """Each reply's range marks and reference beside its parent's, as Word writes them (a
    comment with no reference in the document is dropped by LibreOffice)."""
    by_para = {c.para_id: c for c in notes if c.para_id}
    for c in notes:
        parent = by_para.get(c.parent) if c.parent else None
        if parent is None:
            continue
        pw, rw = parent.wid, c.wid
        body = body.replace(
            f'<w:commentRangeStart w:id="{pw}"/>',
            f'<w:commentRangeStart w:id="{pw}"/><w:commentRangeStart w:id="{rw}"/>',
        )
        body = body.replace(
            f'<w:commentRangeEnd w:id="{pw}"/>',
            f'<w:commentRangeEnd w:id="{pw}"/><w:commentRangeEnd w:id="{rw}"/>',
        )
        body = body.replace(
            f'<w:commentReference w:id="{pw}"/></w:r>',
            f'<w:commentReference w:id="{pw}"/></w:r><w:r><w:commentReference w:id="{rw}"/></w:r>',
        )
    return body


def make_docx(
    body: str,
    comments: list[Note] | None = None,
    footnotes: str | None = None,
    styles: str | None = None,
    title: str | None = None,
) -> bytes:
    """A .docx whose w:body holds ``body`` (paragraphs, tables...), with ``comments``
    (None: no comments part at all), ``footnotes`` (w:footnote elements, ids from 1) and
    ``styles`` (w:style elements)."""
    parts: dict[str, str] = {}
    body = _reply_marks(body, comments or [])
    rels = [("rId1", "styles", "styles.xml")]
    types = [
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
        '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>',
    ]
    parts["word/styles.xml"] = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles {NS}>{styles or ""}</w:styles>'
    )
    if comments is not None:
        parts["word/comments.xml"] = _comments_xml(comments)
        parts["word/commentsExtended.xml"] = _extended_xml(comments)
        parts["word/commentsIds.xml"] = _ids_xml(comments)
        rels += [
            ("rId2", "comments", "comments.xml"),
            (
                "rId3",
                "http://schemas.microsoft.com/office/2011/relationships/commentsExtended",
                "commentsExtended.xml",
            ),
            (
                "rId4",
                "http://schemas.microsoft.com/office/2016/09/relationships/commentsIds",
                "commentsIds.xml",
            ),
        ]
        types += [
            '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>',
            '<Override PartName="/word/commentsExtended.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml"/>',
            '<Override PartName="/word/commentsIds.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.commentsIds+xml"/>',
        ]
    if footnotes is not None:
        parts["word/footnotes.xml"] = (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes {NS}>'
            '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
            '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>'
            f"{footnotes}</w:footnotes>"
        )
        rels.append(("rId5", "footnotes", "footnotes.xml"))
        types.append(
            '<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/>'
        )
    parts["word/document.xml"] = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>{body}'
        '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>'
    )
    parts["word/_rels/document.xml.rels"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + "".join(
            f'<Relationship Id="{i}" Type="{t if t.startswith("http") else _REL + "/" + t}" Target="{target}"/>'
            for i, t, target in rels
        )
        + "</Relationships>"
    )
    root_rels = [
        f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="word/document.xml"/>'
    ]
    if title is not None:
        parts["docProps/core.xml"] = (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties '
            'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
            f'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{escape(title)}</dc:title></cp:coreProperties>'
        )
        root_rels.append(
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
        )
        types.append(
            '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
        )
    parts["_rels/.rels"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + "".join(root_rels)
        + "</Relationships>"
    )
    parts["[Content_Types].xml"] = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>' + "".join(types) + "</Types>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in [
            "[Content_Types].xml",
            *sorted(n for n in parts if n != "[Content_Types].xml"),
        ]:
            zf.writestr(name, parts[name])
    return buf.getvalue()
