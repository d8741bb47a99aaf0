"""Accepting or rejecting every tracked change of a ``.docx`` by XML, as Word's Accept All /
Reject All do for the changes this program writes (ECMA-376 Part 1, 17.13.5): a test's
independent check of ``engine.text.docx_track``.

Accept: ``w:del`` and ``w:moveFrom`` dropped, ``w:ins`` and ``w:moveTo`` unwrapped, a
paragraph whose mark is deleted joined to the next; reject: the reverse (``w:delText``
back to ``w:t``)."""

from __future__ import annotations

import io
import zipfile

from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_PARTS = ("word/document.xml", "word/footnotes.xml", "word/endnotes.xml")


def _next_paragraph(p):
    node = p.getnext()
    while node is not None and node.tag != W + "p":
        node = node.getnext()
    return node


def _resolve_root(root, accept: bool) -> None:
    drop, keep = (
        (("del", "moveFrom"), ("ins", "moveTo"))
        if accept
        else (
            ("ins", "moveTo"),
            ("del", "moveFrom"),
        )
    )
    # paragraph marks first: a paragraph whose mark goes is joined to the next one
    for p in list(root.iter(W + "p")):
        rpr = p.find(f"{W}pPr/{W}rPr")
        if rpr is None:
            continue
        for tag in keep:
            for m in rpr.findall(W + tag):
                rpr.remove(m)
        if any(rpr.find(W + tag) is not None for tag in drop):
            nxt = _next_paragraph(p)
            if nxt is None:
                for tag in drop:
                    for m in rpr.findall(W + tag):
                        rpr.remove(m)
                continue
            content = [c for c in p if c.tag != W + "pPr"]
            ppr = nxt.find(W + "pPr")
            at = 0 if ppr is None else nxt.index(ppr) + 1
            for c in content:
                nxt.insert(at, c)
                at += 1
            p.getparent().remove(p)
    for tag in drop:
        for el in list(root.iter(W + tag)):
            par = el.getparent()
            if par is not None and par.tag != W + "rPr":
                par.remove(el)
    for tag in keep:
        for el in list(root.iter(W + tag)):
            par = el.getparent()
            if par is None or par.tag == W + "rPr":
                continue
            i = par.index(el)
            for ch in list(el):
                par.insert(i, ch)
                i += 1
            par.remove(el)
    for t in list(root.iter(W + "delText")):
        t.tag = W + "t"


def resolve_all(data: bytes, accept: bool) -> bytes:
    """``data`` (a .docx) with every tracked change accepted (or rejected)."""
    zin = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            d = zin.read(name)
            if name in _PARTS:
                root = etree.fromstring(d)
                _resolve_root(root, accept)
                d = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
            zout.writestr(name, d)
    return buf.getvalue()


def changes_in(data: bytes) -> list[tuple[str, str]]:
    """(tag, author) of every w:ins/w:del of the main part."""
    root = etree.fromstring(zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml"))
    return [
        (el.tag.split("}")[1], el.get(W + "author") or "") for el in root.iter(W + "ins", W + "del")
    ]
