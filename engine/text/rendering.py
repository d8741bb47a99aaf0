"""What a reader sees of a range of the body text: which Text nodes are hidden and where
whitespace renders (docs/verdicts.md, "Hidden text" and "Whitespace that renders").

``Rendering(extraction).seen(start, end) -> Seen`` for a code-point range of
``extraction.text``. Styles are resolved lazily, only for the elements that hold the range
and their ancestors, and kept: extraction itself never pays for them.

The cascade, per element and property (CSS Cascade 4, simplified to the origins a page
under review has): the user-agent rules of the HTML standard's rendering section (below),
then the document's own ``<style>`` rules by specificity and order (``engine.text.css``),
then its ``style`` attribute; ``!important`` author declarations above those, and the
user agent's ``noscript`` rule above everything (scripting is on). A page's linked style
sheets are read only from ``data:`` URLs, the one kind the viewer loads.

User-agent rules applied: ``display: none`` for ``[hidden]``, ``script``, ``style``,
``noscript``, ``template``, ``title``, ``datalist``, ``rp``, ``iframe``, ``noembed``,
``noframes``, ``param``, ``area``, ``input[type=hidden]``, ``dialog:not([open])``,
``[popover]``, MathML's ``annotation``/``annotation-xml`` and SVG's ``title``/``desc``/
``metadata``/``style``/``script`` and never-drawn containers (``_SVG_NONE``), with SVG's
presentation attributes above them; the contents of a closed ``<details>`` other than its
``<summary>`` and of ``<canvas>``/``<video>``/``<audio>`` are not rendered, nor a closed
drop-down's options but the one it shows, nor a declarative shadow host's children no slot
takes, nor character data in SVG outside ``<text>``; ``white-space: pre`` for
``pre``, ``listing``, ``xmp``, ``plaintext`` and ``pre-wrap`` for ``textarea``.

A hostile page stays cheap: matching is indexed by the rightmost id, class and tag, each
element is resolved once, ancestors are walked without recursion, and past
``MATCH_BUDGET`` selector tests (weighted by depth for descendant selectors) the style
sheet stops being applied (``Seen.partial``).

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.text import css, css_hiding as hiding
from engine.text.html_markup import Extraction

MATCH_BUDGET = 500_000
"""Selector tests (a descendant selector on an element ``d`` deep counts ``d``) one
document may spend; past it, its style sheet is no longer applied (``Seen.partial``)."""

_XHTML = "http://www.w3.org/1999/xhtml"
_NS_URL = {
    "html": _XHTML,
    "svg": "http://www.w3.org/2000/svg",
    "math": "http://www.w3.org/1998/Math/MathML",
}
_UA_NONE = frozenset(
    {
        *("script", "style", "noscript", "template", "title", "datalist", "rp", "iframe"),
        *("noembed", "noframes", "param", "area", "head", "meta", "link", "base"),
    }
)
_SVG_NONE = frozenset(
    {
        *("title", "desc", "metadata", "style", "script", "defs", "symbol", "clippath"),
        *("mask", "pattern", "marker", "lineargradient", "radialgradient", "filter"),
    }
)
"""SVG elements never drawn where they stand (lower-cased: parsers differ on ``clipPath``)."""
_SVG_TEXT = frozenset({"text", "tspan", "textpath"})
"""SVG elements whose character data is drawn; elsewhere in an ``<svg>`` it is not."""
_SLOT = re.compile(r"<slot\b([^>]*)>", re.IGNORECASE)
_SLOT_NAME = re.compile(r"\bname\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_MATH_NONE = frozenset({"annotation", "annotation-xml"})
_NO_FALLBACK = frozenset({"canvas", "video", "audio"})
"""HTML elements whose fallback content is not rendered (scripting is on; the media
elements are supported)."""
_UA_PRE = {"pre": css.PRESERVE, "listing": css.PRESERVE, "xmp": css.PRESERVE}
_UA_PRE |= {"plaintext": css.PRESERVE, "textarea": css.PRESERVE}

# Cascade levels (higher wins), then specificity, then order. SVG presentation attributes
# sit above the user agent and below every author rule.
_UA, _PRESENTATION, _AUTHOR, _INLINE, _AUTHOR_IMPORTANT, _INLINE_IMPORTANT, _UA_IMPORTANT = range(7)


@dataclass(frozen=True)
class Seen:
    """What a reader sees of a range. ``pieces``: ``(text, white-space mode)`` of each
    visible Text node piece, in order (``css.COLLAPSE``, ``PRESERVE`` or ``BREAKS``);
    ``hidden``: some of the range's text is hidden; ``partial``: a rule of the page's own
    style sheets that could bear on it was not applied (``engine.text.css``)."""

    pieces: tuple[tuple[str, int], ...]
    hidden: bool
    partial: bool

    @property
    def visible(self) -> str:
        """The visible text, as ``textContent`` holds it (code points)."""
        return "".join(p for p, _ in self.pieces)


@dataclass
class _Style:
    """An element's resolved style: ``none`` (it or an ancestor is not rendered),
    ``invisible`` (``visibility: hidden``, inherited), ``zero`` (font size zero,
    inherited), ``ws`` (white-space mode, inherited), ``hides_contents`` (a closed
    ``<details>``, ``content-visibility: hidden``, a ``<canvas>``/``<video>``/``<audio>``'s
    fallback), ``drops_text`` (an SVG element outside ``<text>``: its own character data is
    not drawn), ``in_svg_text`` (inside an SVG ``<text>``)."""

    none: bool
    invisible: bool
    zero: bool
    ws: int
    hides_contents: bool
    name: str
    drops_text: bool = False
    in_svg_text: bool = False
    unsure: bool = False
    """A style this program does not resolve applies to it or an ancestor (a ``var()``, a
    bidi override...: ``engine.text.css_hiding``): what a reader sees may differ."""

    @property
    def hidden(self) -> bool:
        return self.none or self.invisible or self.zero


_ROOT_STYLE = _Style(False, False, False, css.COLLAPSE, False, "html")


class _Proxy:
    """The ElementTree element cssselect2 reads: a tag and attributes, no children."""

    __slots__ = ("attrib", "tag", "text")

    def __init__(self, tag: str, attrib: dict[str, str]) -> None:
        self.tag, self.attrib, self.text = tag, attrib, None

    def get(self, key: str, default: Any = None) -> Any:
        return self.attrib.get(key, default)

    def iter(self, tag: str | None = None) -> Iterator[Any]:
        return iter(())

    def __iter__(self) -> Iterator[Any]:
        return iter(())


def _wrapper_class() -> Any:
    """cssselect2's ElementWrapper with parent links only (no sibling data: selectors that
    need it are not applied), ancestors and ``lang`` walked without recursion."""
    from cssselect2 import ElementWrapper

    class Wrapper(ElementWrapper):
        def __init__(self, proxy: _Proxy, parent: Any) -> None:
            self.etree_element, self.parent = proxy, parent
            self.previous, self.index, self.etree_siblings = None, 0, [proxy]
            self.in_html_document, self.transport_content_language = True, None
            self._ancestors = self._previous_siblings = None
            self.depth = 0 if parent is None else parent.depth + 1

        @property
        def ancestors(self) -> Iterator[Any]:
            el = self.parent
            while el is not None:
                yield el
                el = el.parent

        @property
        def previous_siblings(self) -> tuple[()]:
            return ()

        @property
        def etree_children(self) -> list[Any]:
            return []

        @property
        def lang(self) -> str:
            el = self
            while el is not None:
                value = el.etree_element.get("lang")
                if value is not None:
                    return str(value).lower()
                el = el.parent
            return ""

        @property
        def in_disabled_fieldset(self) -> bool:
            return False

    return Wrapper


class Rendering:
    """Resolved styles of one extraction's elements, computed as ranges ask for them."""

    def __init__(self, extraction: Extraction) -> None:
        self.ext = extraction
        self._styles: dict[int, _Style] = {}
        self._wrappers: dict[int, Any] = {}
        self._sheets: css.StyleSheets | None = None
        self._html_attrs: dict[str, str] = {}
        self._sheet_texts: tuple[str, ...] | None = None
        self._raw_sheets: list[tuple[str, dict[str, str]]] = []
        self._spent = 0
        self.partial = False
        self._shown_options: tuple[set[int], set[int]] | None = None
        self._hosts: dict[int, tuple[bool, frozenset[str]]] | None = None

    def sheet_texts(self) -> tuple[str, ...]:
        """The text of each of the document's ``<style>`` elements (to tell whether two
        versions' style sheets differ)."""
        if self._sheet_texts is None:
            sheets, self._html_attrs = self.ext.document_styles()
            self._sheet_texts = tuple(t for t, _ in sheets)
            self._raw_sheets = sheets
        return self._sheet_texts

    def seen(self, start: int, end: int) -> Seen:
        """What a reader sees of ``text[start:end]`` (code points; see :class:`Seen`)."""
        pieces: list[tuple[str, int]] = []
        hidden = unsure = False
        text = self.ext.text
        for a, b, parent in self.ext.text_pieces(start, end):
            style = self._style(parent)
            unsure = unsure or style.unsure
            if style.hidden or style.hides_contents or style.drops_text:
                hidden = True
            else:
                pieces.append((text[a:b], style.ws))
        return Seen(tuple(pieces), hidden, self.partial or unsure)

    # -- the cascade ---------------------------------------------------------------------------

    def _sheets_ready(self) -> css.StyleSheets:
        if self._sheets is None:
            self.sheet_texts()
            self._sheets = css.StyleSheets.parse(self._raw_sheets)
            if self._sheets.skipped:
                self.partial = True
        return self._sheets

    def _style(self, index: int) -> _Style:
        """The resolved style of element ``index`` (its ancestors first, without recursion)."""
        chain = []
        e = index
        while e >= 0 and e not in self._styles:
            chain.append(e)
            e = self.ext.element(e)[2]
        parent_style = self._styles[e] if e >= 0 else _ROOT_STYLE
        for e in reversed(chain):
            parent_style = self._styles[e] = self._resolve(e, parent_style)
        return self._styles[index] if index >= 0 else _ROOT_STYLE

    def _resolve(self, index: int, parent: _Style) -> _Style:
        ns, name, parent_index, attrs = self.ext.element(index)
        decls = self._cascade(index, ns, name, attrs)
        summary = name == "summary" and parent.name == "details"
        none = parent.none or (parent.hides_contents and not summary)
        if ns == "html" and name == "option" and self._unshown_option(index):
            none = True
        host = self._shadow_hosts().get(parent_index)
        if host is not None and name != "template":
            default, names = host
            slot = attrs.get("slot")
            none = none or not ((slot is None and default) or (slot is not None and slot in names))
        unsure = (
            parent.unsure
            or (ns == "html" and name == "bdo")
            or hiding.UNRESOLVED in decls
            or any(hiding.unresolved(p, v) for p, v in decls.items())
        )
        if "display" in decls:
            none = none or css.display_none(decls["display"])
        invisible = _inherited(decls.get("visibility"), css.visibility_value, parent.invisible)
        zero = parent.zero
        if "font-size" in decls:
            zero = _inherited(decls["font-size"], css.font_size_zero, parent.zero)
        elif "font" in decls:
            zero = _inherited(decls["font"], css.font_shorthand_zero, parent.zero)
        ws = parent.ws
        for prop in ("white-space", "white-space-collapse"):
            if prop in decls:
                mode = css.white_space_mode(decls[prop])
                ws = parent.ws if mode == css.INHERIT else ws if mode is None else int(mode)
        hides = ns == "html" and (
            (name == "details" and "open" not in attrs) or name in _NO_FALLBACK
        )
        if "content-visibility" in decls:
            hides = hides or css.content_hidden(decls["content-visibility"])
        in_text = ns == "svg" and (name.lower() in _SVG_TEXT or parent.in_svg_text)
        drops = ns == "svg" and not in_text
        own = self._shadow_hosts().get(index)
        drops = drops or (own is not None and not own[0])
        return _Style(none, invisible, zero, ws, hides, name, drops, in_text, unsure)

    def _shadow_hosts(self) -> dict[int, tuple[bool, frozenset[str]]]:
        """Elements with a declarative shadow root (their first ``<template
        shadowrootmode=open|closed>`` child): whether its markup has a default ``<slot>``
        and the names of its named slots. A host's children (and its own character data)
        show only through a slot: a child with no ``slot`` attribute through the default
        one, one with ``slot=x`` through ``<slot name=x>``."""
        if self._hosts is None:
            self._hosts = {}
            namespaces, names, parents = self.ext.tree()
            for i, name in enumerate(names):
                host = parents[i]
                if name != "template" or namespaces[i] != "html" or host < 0:
                    continue
                if host in self._hosts:
                    continue
                mode = self.ext.element(i)[3].get("shadowrootmode", "").strip().lower()
                if mode not in ("open", "closed"):
                    continue
                default, slots = False, set()
                markup = self.ext.markup_of(i)
                for m in _SLOT.finditer(markup[markup.find(">") + 1 :]):
                    named = _SLOT_NAME.search(m.group(1))
                    value = named.group(1) if named else ""
                    value = value[1:-1] if value[:1] in "\"'" and len(value) > 1 else value
                    if value:
                        slots.add(value)
                    else:
                        default = True
                self._hosts[host] = (default, frozenset(slots))
        return self._hosts

    def _unshown_option(self, index: int) -> bool:
        """An ``<option>`` of a closed drop-down (a ``<select>`` with neither ``multiple``
        nor a ``size`` over 1) other than the one it shows: the last with ``selected``,
        else the first not ``disabled``, else the first."""
        if self._shown_options is None:
            self._shown_options = self._options_shown()
        return index in self._shown_options[0] and index not in self._shown_options[1]

    def _options_shown(self) -> tuple[set[int], set[int]]:
        """(every option of a closed drop-down, the one each shows)."""
        by_select: dict[int, list[int]] = {}
        namespaces, names, parents = self.ext.tree()
        for i, name in enumerate(names):
            parent = parents[i]
            if name != "option" or namespaces[i] != "html" or parent < 0:
                continue
            if names[parent] == "optgroup" and parents[parent] >= 0:
                parent = parents[parent]
            if names[parent] == "select":
                by_select.setdefault(parent, []).append(i)
        options: set[int] = set()
        shown: set[int] = set()
        for select, opts in by_select.items():
            attrs = self.ext.element(select)[3]
            size = attrs.get("size", "").strip()
            if "multiple" in attrs or (size.isdigit() and int(size) > 1):
                continue
            described = [(o, self.ext.element(o)[3]) for o in opts]
            chosen = [o for o, a in described if "selected" in a]
            enabled = [o for o, a in described if "disabled" not in a]
            shown.add(chosen[-1] if chosen else enabled[0] if enabled else opts[0])
            options.update(opts)
        return options, shown

    def _cascade(self, index: int, ns: str, name: str, attrs: dict[str, str]) -> dict[str, list]:
        """The winning value of each property of ``css.PROPERTIES`` set on the element."""
        won: dict[str, tuple[tuple, list]] = {}

        def offer(prop: str, value: list, key: tuple) -> None:
            if prop not in won or key >= won[prop][0]:
                won[prop] = (key, value)

        for prop, value, level in _user_agent(ns, name, attrs):
            offer(prop, value, (level, (0, 0, 0), 0))
        if self.sheet_texts():
            for rule in self._matching(index, name, attrs):
                for prop, value, important in rule.declarations:
                    level = _AUTHOR_IMPORTANT if important else _AUTHOR
                    offer(prop, value, (level, rule.specificity, rule.order))
        style = attrs.get("style")
        if style:
            for prop, value, important in css.declarations_of(style)[0]:
                offer(prop, value, (_INLINE_IMPORTANT if important else _INLINE, (0, 0, 0), 0))
        return {prop: value for prop, (_, value) in won.items()}

    def _matching(self, index: int, name: str, attrs: dict[str, str]) -> list[css.Rule]:
        sheets = self._sheets_ready()
        if not sheets.count or self._spent > MATCH_BUDGET:
            return []
        classes = attrs.get("class", "").split()
        candidates = sheets.candidates(name, attrs.get("id"), classes)
        if not candidates:
            return []
        wrapper = self._wrapper(index)
        cost = sum(wrapper.depth if r.descendant else 1 for r in candidates)
        if self._spent + cost > MATCH_BUDGET:
            self.partial = True
            self._spent = MATCH_BUDGET + 1  # spent: no more rules for this document
            return []
        self._spent += cost
        return [r for r in candidates if r.test(wrapper)]

    def _wrapper(self, index: int) -> Any:
        """cssselect2's view of element ``index``, parents first, without recursion."""
        wrapper_class = self._wrappers.get(-2)
        if wrapper_class is None:
            wrapper_class = self._wrappers[-2] = _wrapper_class()
            self._wrappers[-1] = wrapper_class(_Proxy(f"{{{_XHTML}}}html", self._html_attrs), None)
        chain = []
        e = index
        while e not in self._wrappers:
            chain.append(e)
            e = self.ext.element(e)[2]
        for e in reversed(chain):
            ns, name, parent, attrs = self.ext.element(e)
            tag = f"{{{_NS_URL.get(ns, _XHTML)}}}{name}"
            self._wrappers[e] = wrapper_class(_Proxy(tag, attrs), self._wrappers[parent])
        return self._wrappers[index]


def _inherited(value: list | None, read: Any, parent: bool) -> bool:
    """An inherited boolean property: the declared value read by ``read`` (True, False,
    ``css.INHERIT``, None for unreadable), else the parent's."""
    if value is None:
        return parent
    got = read(value)
    return parent if got is None or got == css.INHERIT else bool(got)


def _ident(word: str) -> list:
    import tinycss2

    return [t for t in tinycss2.parse_component_value_list(word) if t.type == "ident"]


_NONE_VALUE: list = []
_PRE_VALUES: dict[int, list] = {}


def _user_agent(ns: str, name: str, attrs: dict[str, str]) -> list[tuple[str, list, int]]:
    """The HTML standard's rendering rules for the element (see the module docstring), as
    ``(property, value tokens, cascade level)``."""
    global _NONE_VALUE
    out = []
    if ns == "html":
        hidden_input = name == "input" and attrs.get("type", "").lower() == "hidden"
        closed_dialog = name == "dialog" and "open" not in attrs
        popover = "popover" in attrs  # not shown until opened, and no script opens it
        if name in _UA_NONE or "hidden" in attrs or hidden_input or closed_dialog or popover:
            if not _NONE_VALUE:
                _NONE_VALUE = _ident("none")
            out.append(("display", _NONE_VALUE, _UA_IMPORTANT if name == "noscript" else _UA))
        mode = _UA_PRE.get(name)
        if mode is not None:
            if mode not in _PRE_VALUES:
                _PRE_VALUES[mode] = _ident("pre")
            out.append(("white-space", _PRE_VALUES[mode], _UA))
    elif (ns == "svg" and name.lower() in _SVG_NONE) or (ns == "math" and name in _MATH_NONE):
        if not _NONE_VALUE:
            _NONE_VALUE = _ident("none")
        out.append(("display", _NONE_VALUE, _UA))
    if ns == "svg":
        for prop in ("display", "visibility", "font-size"):
            value = attrs.get(prop)
            if value is not None:
                out.append((prop, _presentation(value), _PRESENTATION))
    return out


def _presentation(value: str) -> list:
    """An SVG presentation attribute's value as tokens (a declaration's value)."""
    import tinycss2

    tokens = tinycss2.parse_component_value_list(value, skip_comments=True)
    return [t for t in tokens if t.type not in ("whitespace", "comment")]
