"""Surgery on WordprocessingML runs and paragraphs for tracked changes
(:mod:`engine.text.docx_track`): a run split at a character with its formatting copied, a
run made to hold one ``w:t`` alone, a paragraph mark marked inserted or deleted, a paragraph
cut in two at a point (the containers it is in, such as a hyperlink, cut with it).

Elements are lxml elements of a part as :func:`engine.text.docx_package.parse_xml` gives
them. No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from engine.text.docx_marks import W

__all__ = [
    "SPLITTABLE",
    "containers",
    "cut_before",
    "el",
    "mark_paragraph",
    "outer_run",
    "paragraph_of",
    "rpr_key",
    "run_alone",
    "shows_text",
    "split_run",
]

_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
#: Containers a run may sit in that can be cut in two when its paragraph is split.
SPLITTABLE = frozenset(W + t for t in ("hyperlink", "smartTag", "customXml", "ins", "moveTo"))


def el(tag: str, attrs: dict[str, str] | None = None, text: str | None = None) -> Any:
    """A new element ``tag`` with ``attrs`` and ``text``."""
    from lxml import etree

    made = etree.Element(tag, attrs or {})
    if text is not None:
        made.text = text
    return made


def rpr_key(rpr: Any) -> bytes:
    """The formatting of a run (its ``w:rPr``, or None), for comparing: revision ids and
    formatting changes left out."""
    from lxml import etree

    if rpr is None:
        return b""
    c = deepcopy(rpr)
    for el in c.iter():
        for a in list(el.attrib):
            if "rsid" in a:
                del el.attrib[a]
    for ch in c.findall(W + "rPrChange"):
        c.remove(ch)
    return bytes(etree.tostring(c))


def paragraph_of(node: Any) -> Any:
    return next(node.iterancestors(W + "p"), None)


def containers(node: Any, para: Any) -> list[Any]:
    out = []
    for a in node.iterancestors():
        if a is para:
            break
        out.append(a)
    return out


def outer_run(run: Any) -> Any:
    """The node new words go beside: ``run``, or the tracked insertion it is in (one
    insertion never holds another)."""
    node = run
    while node.getparent() is not None and node.getparent().tag in (W + "ins", W + "moveTo"):
        node = node.getparent()
    return node


def run_alone(t: Any) -> Any:
    """The run of ``t``, split so that it holds ``t`` and nothing else but its formatting."""
    run = t.getparent()
    rpr = run.find(W + "rPr")
    before = [c for c in run if c is not t and c is not rpr and _precedes(c, t)]
    after = [c for c in run if c is not t and c is not rpr and not _precedes(c, t)]
    if before:
        left = el(W + "r", dict(run.attrib))
        if rpr is not None:
            left.append(deepcopy(rpr))
        for c in before:
            left.append(c)
        run.addprevious(left)
    if after:
        right = el(W + "r", dict(run.attrib))
        if rpr is not None:
            right.append(deepcopy(rpr))
        for c in after:
            right.append(c)
        run.addnext(right)
    return run


def _precedes(a: Any, b: Any) -> bool:
    parent = a.getparent()
    return bool(parent.index(a) < parent.index(b))


def split_run(run: Any, t: Any, k: int) -> Any:
    """Split ``run`` at code point ``k`` of its ``w:t`` ``t``: the run keeps what comes
    before, a copy of it with the same ``w:rPr`` takes the rest. Returns the new run."""
    right = el(W + "r", dict(run.attrib))
    rpr = run.find(W + "rPr")
    if rpr is not None:
        right.append(deepcopy(rpr))
    tail = el(W + "t", {_XML_SPACE: "preserve"})
    tail.text = (t.text or "")[k:]
    t.text = (t.text or "")[:k]
    t.set(_XML_SPACE, "preserve")
    right.append(tail)
    after = False
    for child in list(run):
        if child is t:
            after = True
        elif after:
            right.append(child)
    run.addnext(right)
    return right


def mark_paragraph(p: Any, change: Any) -> None:
    """Mark ``p``'s paragraph mark inserted or deleted (``w:pPr/w:rPr/w:ins|w:del``)."""
    ppr = p.find(W + "pPr")
    if ppr is None:
        ppr = el(W + "pPr")
        p.insert(0, ppr)
    rpr = ppr.find(W + "rPr")
    if rpr is None:
        rpr = el(W + "rPr")
        later = [ppr.find(W + t) for t in ("sectPr", "pPrChange")]
        later = [x for x in later if x is not None]
        if later:
            later[0].addprevious(rpr)
        else:
            ppr.append(rpr)
    pos = 1 if change.tag == W + "del" and rpr.find(W + "ins") is not None else 0
    rpr.insert(pos, change)


def cut_before(para: Any, point: Any, left: Any) -> Any:
    """Move everything of ``para`` before ``point`` into ``left`` (a new paragraph put
    before ``para``), cutting the containers ``point`` is in (a hyperlink...) in two."""
    path = [point, *containers(point, para)][::-1]  # para's child level down to point
    target, parent = left, para
    dups = []
    for node in path:
        for sib in list(parent):
            if sib is node:
                break
            if sib.tag == W + "pPr":
                continue
            target.append(sib)
        if node is point:
            break
        dup = el(node.tag, dict(node.attrib))
        for prop in node:
            if isinstance(prop.tag, str) and prop.tag.endswith("Pr") and prop.tag != W + "rPr":
                dup.append(deepcopy(prop))
        target.append(dup)
        dups.append(dup)
        target, parent = dup, node
    para.addprevious(left)
    # containers cut to nothing on the left are dropped
    for dup in reversed(dups):
        if not any(c.tag != W + "rPr" and not c.tag.endswith("Pr") for c in dup):
            dup.getparent().remove(dup)
    return left


def shows_text(p: Any) -> bool:
    for t in p.iter(W + "t", W + "tab", W + "br", W + "sym", W + "footnoteReference"):
        if t.tag != W + "t" or t.text:
            if not any(a.tag == W + "del" for a in t.iterancestors()):
                return True
    return False
