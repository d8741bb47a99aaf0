"""Whether Word hides a run's text (``w:vanish``, ``w:specVanish``), resolved through Word's
style hierarchy (ECMA-376 Part 1, 17.7.2, "Style Hierarchy"): the document defaults
(``w:docDefaults/w:rPrDefault``), then the table style of the table the paragraph is in
(its ``w:tblStyle``, else the default table style), then the paragraph style (its
``w:pStyle``, else the default paragraph style, the one with ``w:default="1"``), then the
run's character style (``w:rStyle``), then the run's direct properties. Each style's value
is its own, else that of the nearest style of its ``basedOn`` chain that sets one. The
last level that sets ``w:vanish`` wins, so ``w:vanish w:val="0"`` at a later level shows
the text again; ``w:specVanish`` at any level hides it.

ECMA-376 17.7.3 calls ``w:vanish`` a toggle property (hidden in the paragraph style and
again in the character style would show); LibreOffice does not apply that, and neither
does this reader: two levels that hide read hidden.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.text.docx_marks import W
from engine.text.docx_package import Package, parse_xml

__all__ = ["MAX_STYLE_DEPTH", "HiddenStyles", "hidden_styles"]

MAX_STYLE_DEPTH = 16
"""How many ``basedOn`` links a style's hidden-text setting is looked up through (a loop
or a longer chain stops there, as if unset)."""

_TRUE = (None, "1", "true", "on")
_KINDS = ("character", "paragraph", "table")


def _setting(rpr: Any) -> bool | None:
    """What a ``w:rPr`` (or None) says of hiding: True (``w:specVanish``, or ``w:vanish``
    on), False (``w:vanish`` off), None (nothing)."""
    if rpr is None:
        return None
    spec = rpr.find(W + "specVanish")
    if spec is not None and spec.get(W + "val") in _TRUE:
        return True
    vanish = rpr.find(W + "vanish")
    if vanish is None:
        return None
    return vanish.get(W + "val") in _TRUE


@dataclass(frozen=True)
class HiddenStyles:
    """The hidden-text settings of one document's styles part."""

    styles: dict[tuple[str, str], bool] = field(default_factory=dict)
    """``(style type, styleId) -> hides``, for the character, paragraph and table styles
    whose ``basedOn`` chain sets ``w:vanish`` or ``w:specVanish`` (nearest first)."""
    defaults: bool | None = None
    """What ``w:docDefaults/w:rPrDefault/w:rPr`` says, or None."""
    default_paragraph: str = ""
    """The styleId of the default paragraph style, or ""."""
    default_table: str = ""
    """The styleId of the default table style, or ""."""

    def table_style(self, paragraph: Any) -> str:
        """The styleId of the table style over ``paragraph`` (a ``w:p``): its nearest
        ``w:tbl``'s ``w:tblStyle``, else the default table style; "" outside a table."""
        table = next(paragraph.iterancestors(W + "tbl"), None)
        if table is None:
            return ""
        style = table.find(f"{W}tblPr/{W}tblStyle")
        if style is None:
            return self.default_table
        return style.get(W + "val") or ""

    def paragraph_setting(self, pstyle: Any, table_style: str) -> bool:
        """Whether a paragraph's text hides before its runs' own formatting: docDefaults,
        then the table style (``table_style``, a styleId or ""), then the paragraph style
        (``pstyle``, its ``w:pStyle`` element or None for the default one)."""
        hidden = bool(self.defaults)
        got = self.styles.get(("table", table_style)) if table_style else None
        if got is not None:
            hidden = got
        name = self.default_paragraph if pstyle is None else pstyle.get(W + "val") or ""
        got = self.styles.get(("paragraph", name))
        return hidden if got is None else got

    def run_hidden(self, run: Any, inherited: bool) -> bool:
        """Whether Word hides ``run`` (a ``w:r``) in a paragraph whose setting is
        ``inherited`` (:meth:`paragraph_setting`): its character style, then its direct
        properties, override it; ``w:specVanish`` always hides."""
        rpr = run.find(W + "rPr")
        if rpr is None:
            return inherited
        hidden = inherited
        style = rpr.find(W + "rStyle")
        if style is not None:
            got = self.styles.get(("character", style.get(W + "val") or ""))
            if got is not None:
                hidden = got
        own = _setting(rpr)
        return hidden if own is None else own


def hidden_styles(package: Package) -> HiddenStyles:
    """The hidden-text settings of ``package``'s styles part (none when it has none).
    Raises PackageError when the part is not well-formed XML."""
    name = package.related(package.main, "styles")
    if name is None or name not in package.files:
        return HiddenStyles()
    root = parse_xml(package.files[name], "styles part")
    own: dict[tuple[str, str], bool | None] = {}
    based: dict[tuple[str, str], str] = {}
    defaults: dict[str, str] = {}
    for style in root.iter(W + "style"):
        kind = style.get(W + "type") or "paragraph"
        if kind not in _KINDS:
            continue
        key = (kind, style.get(W + "styleId") or "")
        if style.get(W + "default") in ("1", "true", "on") and kind != "character":
            defaults.setdefault(kind, key[1])
        own.setdefault(key, _setting(style.find(W + "rPr")))
        parent = style.find(W + "basedOn")
        if parent is not None and parent.get(W + "val"):
            based.setdefault(key, parent.get(W + "val") or "")
    out: dict[tuple[str, str], bool] = {}
    for key in own:
        at: tuple[str, str] | None = key
        for _ in range(MAX_STYLE_DEPTH):
            if at is None or at not in own:
                break
            if own[at] is not None:
                out[key] = bool(own[at])
                break
            at = (key[0], based[at]) if at in based else None
    doc_defaults = root.find(f"{W}docDefaults/{W}rPrDefault/{W}rPr")
    return HiddenStyles(
        out,
        _setting(doc_defaults),
        defaults.get("paragraph", ""),
        defaults.get("table", ""),
    )
