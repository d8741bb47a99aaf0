"""A ``.docx`` shaped like Google Docs' *File > Download > Microsoft Word (.docx)*: built by
this project, NOT a real Google export (none was available to verify against).

What is modelled, from what that export is documented to keep: comments with their ranges
(``w:commentRangeStart``/``w:commentRangeEnd`` and a ``w:commentReference`` run) in
``word/comments.xml`` and no ``commentsExtended.xml``/``commentsIds.xml`` (no threads or
resolved marks), suggestions as tracked changes (``w:ins``/``w:del``, and an inserted
paragraph mark) whose ``w:author`` is the suggester; and the export's habits: every run
spelled out with its font (``w:rFonts`` Arial, ``w:sz``, ``w:rtl w:val="0"``), each
paragraph with its spacing, ``kix.``-named bookmarks, comment ids from 0, a comment
paragraph with no ``w:annotationRef``.
"""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
NS = f'xmlns:w="{W_NS}" xmlns:r="{R_NS}"'
RPR = (
    '<w:rPr><w:rFonts w:ascii="Arial" w:cs="Arial" w:eastAsia="Arial" w:hAnsi="Arial"/>'
    '<w:sz w:val="22"/><w:szCs w:val="22"/><w:rtl w:val="0"/></w:rPr>'
)
PPR = '<w:pPr><w:spacing w:after="0" w:before="0" w:line="276" w:lineRule="auto"/><w:rPr/></w:pPr>'
SUGGESTER = "Sam Suggester"
WHEN = "2026-12-01T09:00:00Z"


def g_run(text: str) -> str:
    return f'<w:r>{RPR}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def g_para(*content: str, ppr: str = PPR) -> str:
    return f"<w:p>{ppr}{''.join(content)}</w:p>"


def g_start(n: int) -> str:
    return f'<w:commentRangeStart w:id="{n}"/>'


def g_end(n: int) -> str:
    return f'<w:commentRangeEnd w:id="{n}"/><w:r>{RPR}<w:commentReference w:id="{n}"/></w:r>'


def suggest_insert(text: str, n: int, author: str = SUGGESTER) -> str:
    return f'<w:ins w:author="{author}" w:id="{n}" w:date="{WHEN}">{g_run(text)}</w:ins>'


def suggest_delete(text: str, n: int, author: str = SUGGESTER) -> str:
    return (
        f'<w:del w:author="{author}" w:id="{n}" w:date="{WHEN}"><w:r>{RPR}'
        f'<w:delText xml:space="preserve">{escape(text)}</w:delText></w:r></w:del>'
    )


def suggested_paragraph(*content: str, n: int, author: str = SUGGESTER) -> str:
    """A paragraph the suggester added (its mark is an insertion)."""
    mark = (
        '<w:pPr><w:spacing w:after="0" w:before="0" w:line="276" w:lineRule="auto"/>'
        f'<w:rPr><w:ins w:author="{author}" w:id="{n}" w:date="{WHEN}"/></w:rPr></w:pPr>'
    )
    return g_para(*content, ppr=mark)


def google_docx(body: str, comments: list[tuple[int, str, str]]) -> bytes:
    """The package: ``body`` in ``w:body``; ``comments`` (id, author, text)."""
    comments_xml = "".join(
        f'<w:comment w:id="{n}" w:author="{escape(a)}" w:date="2026-11-30T10:12:00Z" '
        f'w:initials="{escape(a[:1])}"><w:p><w:pPr><w:spacing w:after="0" w:before="0" '
        f'w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:rPr><w:rFonts w:ascii="Arial" '
        f'w:cs="Arial" w:eastAsia="Arial" w:hAnsi="Arial"/><w:color w:val="000000"/>'
        f'<w:sz w:val="22"/></w:rPr><w:t xml:space="preserve">{escape(t)}</w:t></w:r></w:p>'
        "</w:comment>"
        for n, a, t in comments
    )
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
            '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>'
            '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>'
            '<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>'
            "</Types>"
        ),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{R_NS}/officeDocument" Target="word/document.xml"/>'
            "</Relationships>"
        ),
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{R_NS}/styles" Target="styles.xml"/>'
            f'<Relationship Id="rId2" Type="{R_NS}/settings" Target="settings.xml"/>'
            f'<Relationship Id="rId3" Type="{R_NS}/comments" Target="comments.xml"/>'
            "</Relationships>"
        ),
        "word/styles.xml": (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles {NS}>'
            '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="normal"/>'
            "</w:style></w:styles>"
        ),
        "word/settings.xml": (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:settings {NS}>'
            '<w:displayBackgroundShape w:val="1"/><w:defaultTabStop w:val="720"/>'
            "</w:settings>"
        ),
        "word/comments.xml": (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments {NS}>'
            f"{comments_xml}</w:comments>"
        ),
        "word/document.xml": (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}><w:body>'
            f'{body}<w:sectPr><w:pgSz w:h="15840" w:w="12240" w:orient="portrait"/>'
            '<w:pgMar w:bottom="1440" w:top="1440" w:left="1440" w:right="1440" w:header="720" '
            'w:footer="720"/></w:sectPr></w:body></w:document>'
        ),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in parts.items():
            zf.writestr(name, text)
    return buf.getvalue()


def review_and_suggestions() -> tuple[bytes, bytes]:
    """A reviewed export (three comments on words, one across two paragraphs) and the same
    document after a suggester's edits: a replacement inside comment 0, a deletion inside
    comment 2, a new paragraph; comment 1's words untouched."""
    bookmark = '<w:bookmarkStart w:id="0" w:name="kix.8s1ay4j2ls"/><w:bookmarkEnd w:id="0"/>'
    reviewed = (
        g_para(bookmark, g_run("Quarterly report"))
        + g_para(g_run("Revenue "), g_start(0), g_run("grew strongly"), g_end(0), g_run(" in Q3."))
        + g_para(g_start(1), g_run("Costs were flat."), g_end(1))
        + g_para(g_run("We "), g_start(2), g_run("will probably maybe"))
        + g_para(g_run("hire two people"), g_end(2), g_run(" next year."))
    )
    comments = [
        (0, "Ana Reviewer", "By how much?"),
        (1, "Ana Reviewer", "Source?"),
        (2, "Ben", "Be firm."),
    ]
    revised = (
        g_para(bookmark, g_run("Quarterly report"))
        + g_para(
            g_run("Revenue "),
            g_start(0),
            suggest_delete("grew strongly", 11),
            suggest_insert("grew by 12 %", 12),
            g_end(0),
            g_run(" in Q3."),
        )
        + suggested_paragraph(suggest_insert("Margins held at 30 %.", 13), n=14)
        + g_para(g_start(1), g_run("Costs were flat."), g_end(1))
        + g_para(g_run("We "), g_start(2), g_run("will "), suggest_delete("probably maybe", 15))
        + g_para(g_run("hire two people"), g_end(2), g_run(" next year."))
    )
    return google_docx(reviewed, comments), google_docx(revised, comments)
