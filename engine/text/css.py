"""The document's own style sheets, read for what decides whether a reader sees text and
whether its whitespace renders (docs/verdicts.md, "Hidden text" and "Whitespace that
renders").

Only five properties matter here: ``display`` (``none`` hides an element and everything in
it), ``visibility`` (``hidden``/``collapse``, inherited, undone by ``visible``),
``font-size`` (and the ``font`` shorthand: a size of zero hides text, the "font: 0/0 a"
trick), ``content-visibility`` (``hidden`` hides an element's contents) and ``white-space``
/ ``white-space-collapse`` (``pre``, ``pre-wrap``, ``break-spaces`` keep whitespace,
``pre-line`` keeps line breaks). ``unicode-bidi`` is read only to say that an override
is not applied (``engine.text.css_hiding``). Sheets are parsed with tinycss2 (CSS Syntax Level 3) and
selectors compiled with cssselect2 (Selectors Level 4).

``StyleSheets.parse(sheets)`` reads ``(css text, attributes)`` of each ``<style>`` element;
``declarations(block)`` reads a ``style`` attribute; the ``*_value`` functions read one
declaration's value. Selectors this program does not apply (sibling combinators ``+``/``~``,
``:has()``, structural pseudo-classes such as ``:nth-child`` or ``:first-child``, nested
rules) are counted in ``StyleSheets.skipped`` when their rule sets one of the five
properties, so a verdict that depends on them can say so. Budgets keep a hostile sheet
cheap: at most ``MAX_CSS_CHARS`` of CSS are parsed, ``@media`` nests at most
``MAX_AT_DEPTH`` deep, a selector that breaks the parser (too deeply nested, malformed) is
dropped.

Why this module is long: sheets, ``@import``, nesting and the value readers share one
token model (tinycss2's, cut at top-level commas by ``_top_level_split``) and one budget;
split, each half would re-read the other's tokens.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.text import css_hiding as hiding

MAX_CSS_CHARS = 128 * 1024
"""Characters of CSS parsed per document (all its ``<style>`` elements together): a real
page's own sheet is far smaller; past this, the rest is not applied (``StyleSheets.skipped``)."""
MAX_AT_DEPTH = 8
"""How deep ``@media``/``@supports``/``@layer`` blocks are followed."""

PROPERTIES = frozenset(
    {
        "display",
        "visibility",
        "font-size",
        "font",
        "content-visibility",
        "white-space",
        "white-space-collapse",
        "unicode-bidi",
    }
)
_MENTIONS = re.compile(
    r"display|visibility|font|white-space|bidi|transform|scale|overflow|@import|@scope|\\",
    re.IGNORECASE,
)
"""A sheet that names none of the properties (nor escapes a name, nor imports) is skipped
unparsed; tinycss2 unescapes identifiers (``d\\69splay`` is ``display``)."""
MAX_NEST_DEPTH = 8
"""How deep CSS Nesting rules (``.a { & .b {...} }``) are followed."""
_NOT_SCREEN = frozenset({"print", "speech", "aural", "braille", "embossed", "tty"})
_UNSUPPORTED_PSEUDO = frozenset(
    {
        *("first-child", "last-child", "only-child", "first-of-type", "last-of-type"),
        *("only-of-type", "empty", "nth-child", "nth-last-child", "nth-of-type"),
        "nth-last-of-type",
    }
)

COLLAPSE, PRESERVE, BREAKS = 0, 1, 2
"""White-space modes: runs fold to one space; every space, tab and line break renders;
line breaks render and runs of spaces fold (``pre-line``)."""

Declaration = tuple[str, list[Any], bool]
"""(property name lower-cased, tinycss2 value tokens, ``!important``)."""


@dataclass
class Rule:
    """One selector of a style rule and the declarations that matter here; compiled
    (cssselect2's ``CompiledSelector``) the first time it is tested."""

    selector: Any
    specificity: tuple[int, int, int]
    order: int
    declarations: list[Declaration]
    descendant: bool
    _test: Any = None

    def test(self, element: Any) -> bool:
        """Whether the selector matches ``element`` (a cssselect2 ``ElementWrapper``)."""
        if self._test is None:
            from cssselect2.compiler import CompiledSelector

            try:
                self._test = CompiledSelector(self.selector).test
            except (RecursionError, ValueError, TypeError, NotImplementedError):
                self._test = _never
        return bool(self._test(element))


def _never(element: Any) -> bool:
    return False


@dataclass
class StyleSheets:
    """The applied rules of a document's ``<style>`` elements, indexed like cssselect2's
    ``Matcher`` by the rightmost compound's id, class or tag name. ``skipped``: rules
    that set one of ``PROPERTIES`` and were not applied (an unsupported selector, past a
    budget, or a nested rule)."""

    by_id: dict[str, list[Rule]] = field(default_factory=dict)
    by_class: dict[str, list[Rule]] = field(default_factory=dict)
    by_name: dict[str, list[Rule]] = field(default_factory=dict)
    other: list[Rule] = field(default_factory=list)
    skipped: int = 0
    count: int = 0

    @classmethod
    def parse(cls, sheets: Iterable[tuple[str, dict[str, str]]]) -> StyleSheets:
        """The rules of ``sheets``: ``(css text, the <style> element's attributes)`` in
        tree order. A sheet with a ``type`` other than CSS or a ``media`` that names no
        screen is left out. Never raises on malformed CSS: what cannot be read is dropped,
        as a browser drops it."""
        out = cls()
        budget = MAX_CSS_CHARS
        for css, attrs in sheets:
            kind = attrs.get("type", "").strip().lower()
            if kind not in ("", "text/css") or not media_applies(attrs.get("media", "")):
                continue
            if not _MENTIONS.search(css):
                continue
            if len(css) > budget:
                css, budget = css[:budget], 0
                out.skipped += 1
            else:
                budget -= len(css)
            import tinycss2  # lazy: only a quote whose text changed needs the sheets

            rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
            rules, budget = out._imported(rules, budget, 0)
            out._rules(rules, 0)
        return out

    def _imported(self, rules: list[Any], budget: int, depth: int) -> tuple[list[Any], int]:
        """``rules`` with each leading ``@import`` of a ``data:`` URL (the viewer loads
        those; nothing else) replaced by the imported sheet's rules, as the cascade orders
        them, and the CSS budget left. An ``@import`` after any other rule is ignored, as
        browsers ignore it."""
        import tinycss2

        out: list[Any] = []
        leading = True
        for rule in rules:
            if rule.type == "at-rule" and rule.lower_at_keyword == "import":
                if not leading or depth >= MAX_AT_DEPTH:
                    continue
                url, media = _import_target(rule.prelude)
                text = data_url_text(url) if url else None
                if text is None or not media_applies(media):
                    continue
                text = text[: max(0, budget)]
                budget -= len(text)
                inner = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
                imported, budget = self._imported(inner, budget, depth + 1)
                out += imported
                continue
            if not (rule.type == "at-rule" and rule.lower_at_keyword in ("charset", "layer")):
                leading = False
            out.append(rule)
        return out, budget

    def _rules(self, rules: list[Any], depth: int) -> None:
        import tinycss2

        for rule in rules:
            if rule.type == "qualified-rule":
                self._qualified(rule.prelude, rule.content, 0)
            elif rule.type == "at-rule" and rule.content is not None and depth < MAX_AT_DEPTH:
                name = rule.lower_at_keyword
                if name == "media" and not media_applies(_serialized(rule.prelude)):
                    continue
                if name in ("media", "supports", "layer", "container", "document"):
                    self._rules(
                        tinycss2.parse_rule_list(
                            rule.content, skip_comments=True, skip_whitespace=True
                        ),
                        depth + 1,
                    )
                elif name not in hiding.NO_STYLE_RULES and _MENTIONS.search(
                    _serialized(rule.content)
                ):
                    self.skipped += 1  # @scope, @starting-style...: rules not applied

    def _qualified(self, prelude: list[Any], content: list[Any], depth: int) -> None:
        """A style rule, and its nested rules (CSS Nesting: ``&`` stands for the parent's
        selector, as ``:is(parent)``; a nested selector without ``&`` is a descendant of
        it). Nested at-rules and nesting past ``MAX_NEST_DEPTH`` are not applied."""
        decls, nested = declarations_of(content)
        if nested:
            import tinycss2

            items = tinycss2.parse_blocks_contents(
                content, skip_comments=True, skip_whitespace=True
            )
            for item in items:
                if item.type == "at-rule" and item.content is not None:
                    self.skipped += 1
                elif item.type == "qualified-rule":
                    if depth >= MAX_NEST_DEPTH:
                        self.skipped += 1
                        continue
                    composed = _nested_prelude(prelude, item.prelude)
                    if composed is None:
                        self.skipped += 1
                    else:
                        self._qualified(composed, item.content, depth + 1)
        if not decls:
            return
        for selector in _compiled(prelude):
            if selector is None:
                self.skipped += 1
                continue
            parsed, descendant = selector
            if parsed.pseudo_element is not None:
                continue  # ::before text is not in textContent
            self.count += 1
            entry = Rule(parsed, parsed.specificity, self.count, decls, descendant)
            kind, key = _rightmost_key(parsed.parsed_tree)
            if key is None:
                self.other.append(entry)
            else:
                getattr(self, kind).setdefault(key, []).append(entry)

    def candidates(self, name: str, element_id: str | None, classes: Iterable[str]) -> list[Rule]:
        """The rules whose rightmost compound may match an element (to be tested)."""
        out = list(self.other)
        if element_id is not None:
            out += self.by_id.get(element_id, ())
        for c in classes:
            out += self.by_class.get(c, ())
        out += self.by_name.get(name.lower(), ())
        return out


def _serialized(tokens: list[Any]) -> str:
    """tinycss2's serialisation of a prelude, or "print" (applies nowhere) for one nested
    too deep to serialise."""
    import tinycss2

    try:
        return str(tinycss2.serialize(tokens))
    except RecursionError:
        return "print"


def media_applies(media: str) -> bool:
    """A media query list applies on screen: empty, or one of its queries names no media
    type other than screen or all (``print``, ``speech`` ... do not; ``not print`` does).
    Features (``(min-width: ...)``) are taken to hold."""
    media = media.strip().lower()
    if not media:
        return True
    for query in media.split(","):
        words = query.replace("(", " (").split()
        negated = bool(words) and words[0] == "not"
        words = [w for w in words if w not in ("only", "not")]
        kind = words[0] if words and not words[0].startswith("(") else "all"
        if (kind in _NOT_SCREEN) == negated:
            return True
    return False


def declarations_of(content: list[Any] | str) -> tuple[list[Declaration], bool]:
    """The declarations of ``PROPERTIES`` in a block (tinycss2 tokens, or a ``style``
    attribute's text), and whether the block held nested rules (CSS Nesting, not applied:
    applied by ``StyleSheets``). A block that may hide text in a way not read here (a
    ``transform`` scaled by zero; a zero ``width`` or ``height`` with ``overflow`` hidden
    or clipped) adds an ``UNRESOLVED`` declaration."""
    import tinycss2

    out: list[Declaration] = []
    nested = False
    zero_box = clipped = False
    for item in tinycss2.parse_blocks_contents(content, skip_comments=True, skip_whitespace=True):
        if item.type == "declaration":
            value = [t for t in item.value if t.type not in ("whitespace", "comment")]
            name = item.lower_name
            if name in PROPERTIES:
                out.append((name, value, item.important))
            elif name == "transform" and hiding.scaled_to_zero(value):
                out.append((hiding.UNRESOLVED, [], item.important))
            elif name in hiding.BOX_SIZES:
                zero_box = zero_box or hiding.may_be_zero(value)
            elif name in hiding.OVERFLOWS:
                clipped = clipped or any(
                    t.type == "ident" and t.lower_value in ("hidden", "clip") for t in value
                )
        elif item.type == "qualified-rule" or (item.type == "at-rule" and item.content is not None):
            nested = True
    if zero_box and clipped:
        out.append((hiding.UNRESOLVED, [], False))
    return out, nested


def _nested_prelude(parent: list[Any], child: list[Any]) -> list[Any] | None:
    """A nested rule's selector written out in full (``&`` is ``:is(parent)``; no ``&``
    means a descendant of it), as tokens; None when it cannot be read."""
    import tinycss2

    try:
        outer = str(tinycss2.serialize(parent)).strip()
        inner = str(tinycss2.serialize(child)).strip()
    except RecursionError:
        return None
    if not outer or not inner or len(outer) + len(inner) > 4096:
        return None
    parts = []
    for piece in _top_level_split(child):
        text = str(tinycss2.serialize(piece)).strip()
        if not text:
            return None
        if "&" in text:
            parts.append(text.replace("&", f":is({outer})"))
        else:
            parts.append(f":is({outer}) {text}")
    return list(tinycss2.parse_component_value_list(", ".join(parts)))


def _top_level_split(tokens: list[Any]) -> list[list[Any]]:
    """A selector list's tokens cut at its top-level commas."""
    out: list[list[Any]] = [[]]
    for token in tokens:
        if token.type == "literal" and token.value == ",":
            out.append([])
        else:
            out[-1].append(token)
    return out


def _import_target(prelude: list[Any]) -> tuple[str | None, str]:
    """An ``@import`` prelude's URL (``url(...)`` or a string) and its media list."""
    import tinycss2

    tokens = [t for t in prelude if t.type not in ("whitespace", "comment")]
    if not tokens:
        return None, ""
    first, url = tokens[0], None
    if first.type in ("url", "string"):
        url = first.value
    elif first.type == "function" and first.lower_name == "url":
        args = [t for t in first.arguments if t.type == "string"]
        url = args[0].value if args else None
    try:
        media = str(tinycss2.serialize(tokens[1:]))
    except RecursionError:
        media = "print"
    if any(t.type == "function" for t in tokens[1:]):  # layer(), supports(): still applies
        media = ""
    return url, media


def data_url_text(url: str) -> str | None:
    """The text of a ``data:`` URL naming CSS (``text/css`` or no type), percent- or
    base64-encoded; None for any other URL or one that cannot be decoded (code points)."""
    import base64
    from urllib.parse import unquote_to_bytes

    url = url.strip()
    if url[:5].lower() != "data:" or "," not in url:
        return None
    head, _, body = url[5:].partition(",")
    params = [p.strip().lower() for p in head.split(";")]
    kind = params[0] if params else ""
    if kind not in ("", "text/css"):
        return None
    try:
        raw = unquote_to_bytes(body)
        if "base64" in params[1:]:
            raw = base64.b64decode(raw, validate=False)
    except (ValueError, TypeError):
        return None
    return raw.decode("utf-8", errors="replace")


def _rightmost_key(tree: Any) -> tuple[str, str | None]:
    """Where a selector is indexed, as cssselect2's ``Matcher`` indexes it: the id, else a
    class, else the lower-cased tag of its rightmost compound (``by_id``, ``by_class``,
    ``by_name``); None for a selector tested on every element."""
    from cssselect2 import parser as p

    if isinstance(tree, p.CombinedSelector):
        tree = tree.right
    found: dict[str, str] = {}
    for simple in getattr(tree, "simple_selectors", ()):
        if isinstance(simple, p.IDSelector):
            found.setdefault("by_id", simple.ident)
        elif isinstance(simple, p.ClassSelector):
            found.setdefault("by_class", simple.class_name)
        elif isinstance(simple, p.LocalNameSelector):
            found.setdefault("by_name", simple.lower_local_name)
    for kind in ("by_id", "by_class", "by_name"):
        if kind in found:
            return kind, found[kind]
    return "other", None


def _compiled(prelude: list[Any]) -> list[tuple[Any, bool] | None]:
    """Each selector of a rule's prelude parsed, with whether it has a descendant
    combinator; None for one not applied (unsupported, or unreadable)."""
    from cssselect2 import SelectorError
    from cssselect2.parser import parse

    try:
        parsed = list(parse(prelude))
    except (SelectorError, RecursionError, ValueError, TypeError, NotImplementedError):
        return [None]
    out: list[tuple[Any, bool] | None] = []
    for selector in parsed:
        try:
            shape = _shape(selector.parsed_tree, 0)
            out.append(None if shape is None else (selector, shape))
        except (SelectorError, RecursionError, ValueError, TypeError, NotImplementedError):
            out.append(None)
    return out


def _shape(node: Any, depth: int) -> bool | None:
    """Whether a parsed selector has a descendant combinator; None when it holds a part
    this program does not apply (see the module docstring) or nests over 32 deep."""
    from cssselect2 import parser as p

    if depth > 32:
        return None
    if isinstance(node, p.CombinedSelector):
        if node.combinator not in (" ", ">"):
            return None
        left, right = _shape(node.left, depth + 1), _shape(node.right, depth + 1)
        if left is None or right is None:
            return None
        return node.combinator == " " or left or right
    if isinstance(node, p.CompoundSelector):
        found = False
        for simple in node.simple_selectors:
            shape = _shape(simple, depth + 1)
            if shape is None:
                return None
            found = found or shape
        return found
    if isinstance(node, p.RelationalSelector):
        return None
    if isinstance(node, (p.PseudoClassSelector, p.FunctionalPseudoClassSelector)):
        return None if node.name in _UNSUPPORTED_PSEUDO else False
    if isinstance(
        node, (p.NegationSelector, p.MatchesAnySelector, p.SpecificityAdjustmentSelector)
    ):
        found = False
        for sub in node.selector_list:
            shape = _shape(sub.parsed_tree, depth + 1)
            if shape is None:
                return None
            found = found or shape
        return found
    return False


# -- values ---------------------------------------------------------------------------------

INHERIT = "inherit"
_RELATIVE_UNITS = frozenset({"em", "ex", "ch", "cap", "ic", "lh"})
_FONT_SIZE_WORDS = frozenset(
    {"xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large"}
)


def _keyword(value: list[Any]) -> str | None:
    """The single identifier of a value, lower-cased, else None."""
    if len(value) == 1 and value[0].type == "ident":
        return str(value[0].lower_value)
    return None


def display_none(value: list[Any]) -> bool:
    """``display: none``."""
    return _keyword(value) == "none"


def visibility_value(value: list[Any]) -> bool | str | None:
    """True for hidden (``hidden``, ``collapse``), False for ``visible``/``initial``,
    ``INHERIT`` for the inheriting keywords, None for anything unreadable (ignored)."""
    word = _keyword(value)
    if word in ("hidden", "collapse"):
        return True
    if word in ("visible", "initial"):
        return False
    if word in ("inherit", "unset", "revert", "revert-layer"):
        return INHERIT
    return None


def font_size_zero(value: list[Any]) -> bool | str | None:
    """True for a size of zero (``0``, ``0px``, ``0em``, ``0%``), ``INHERIT`` where the
    size is relative to the parent's (``em``, ``%``, ``smaller``, ``inherit``: zero stays
    zero), False for any other size, None when unreadable."""
    if len(value) != 1:
        return None
    token = value[0]
    if token.type in ("number", "dimension", "percentage"):
        if token.value == 0:
            return True
        if token.type == "percentage" or (
            token.type == "dimension" and token.lower_unit in _RELATIVE_UNITS
        ):
            return INHERIT
        return False
    if token.type == "function":
        return _math_zero(token, 0)
    word = _keyword(value)
    if word in ("smaller", "larger", "inherit", "unset", "revert", "revert-layer"):
        return INHERIT
    if word in _FONT_SIZE_WORDS or word == "initial":
        return False
    return None


_MATH_FUNCTIONS = frozenset({"calc", "min", "max", "clamp"})


def _math_zero(token: Any, depth: int) -> bool:
    """A ``calc()``/``min()``/``max()``/``clamp()`` size that is zero: every number in it
    is zero (``calc(0px)``, ``calc(0em + 0%)``), or a ``min()`` with such an argument
    (``min(0px, 2em)``; a font size below zero is zero). Anything else reads as not zero."""
    if token.type != "function" or token.lower_name not in _MATH_FUNCTIONS or depth > 16:
        return False
    args = _top_level_split([t for t in token.arguments if t.type not in ("whitespace", "comment")])
    if token.lower_name == "min" and any(_all_zero(a, depth) for a in args):
        return True
    return _all_zero([t for a in args for t in a], depth)


def _all_zero(tokens: list[Any], depth: int) -> bool:
    numbers = 0
    for t in tokens:
        if t.type in ("number", "dimension", "percentage"):
            if t.value != 0:
                return False
            numbers += 1
        elif t.type == "function":
            if not _math_zero(t, depth + 1):
                return False
            numbers += 1
        elif t.type == "() block":
            if not _all_zero([c for c in t.content if c.type != "whitespace"], depth + 1):
                return False
            numbers += 1
        elif not (t.type == "literal" and t.value in "+-*/"):
            return False
    return numbers > 0


def font_shorthand_zero(value: list[Any]) -> bool | str | None:
    """``font-size`` as the ``font`` shorthand sets it: the first size before the family
    ("font: 0/0 a" is zero; "font: bold 12px serif" is not); a system font or a value
    with no size reads as not zero, the inheriting keywords as ``INHERIT``."""
    word = _keyword(value)
    if word in ("inherit", "unset", "revert", "revert-layer"):
        return INHERIT
    for i, token in enumerate(value):
        if token.type == "literal" and token.value == "/":
            break
        if token.type == "number" and token.value != 0:
            continue  # a font-weight
        if token.type in ("number", "dimension", "percentage") or (
            token.type == "ident" and token.lower_value in ("smaller", "larger", *_FONT_SIZE_WORDS)
        ):
            return font_size_zero(value[i : i + 1])
    return False


def white_space_mode(value: list[Any]) -> int | str | None:
    """The white-space mode (``COLLAPSE``, ``PRESERVE``, ``BREAKS``) of a ``white-space``
    or ``white-space-collapse`` value (CSS Text 3 keywords and CSS Text 4 longhands),
    ``INHERIT``, or None when unreadable."""
    words = [t.lower_value for t in value if t.type == "ident"]
    if len(words) != len(value) or not words:
        return None
    if words[0] in ("inherit", "unset", "revert", "revert-layer"):
        return INHERIT
    for w in words:
        if w in ("pre", "pre-wrap", "break-spaces", "preserve", "preserve-spaces"):
            return PRESERVE
        if w in ("pre-line", "preserve-breaks"):
            return BREAKS
        if w in ("normal", "nowrap", "collapse", "initial"):
            return COLLAPSE
    return None


def content_hidden(value: list[Any]) -> bool:
    """``content-visibility: hidden``: the element's contents are not rendered."""
    return _keyword(value) == "hidden"
