"""Values and rules that may hide text in a way :mod:`engine.text.css` does not resolve
(docs/verdicts.md, "Hidden text"): a ``var()`` (custom properties are not substituted), a
font size whose ``calc()``/``max()``/``clamp()`` is not a plain sum, a ``transform``
scaled by zero, a zero width or height with ``overflow`` hidden or clipped, and at-rules
holding style rules that are not applied (``@scope``, ``@starting-style``); and what
reorders the text as displayed: ``<bdo>`` and ``unicode-bidi: bidi-override``. The cascade
marks a verdict over such an element ``partial`` (``engine.text.rendering``), so it says
"the page's style sheet has rules this program does not apply" instead of reading the
text as visible without a word.

Values are tinycss2 tokens, as :mod:`engine.text.css` reads them. No Qt import here: this
module belongs to ``engine/``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BOX_SIZES",
    "NO_STYLE_RULES",
    "OVERFLOWS",
    "UNRESOLVED",
    "may_be_zero",
    "scaled_to_zero",
    "unresolved",
]

UNRESOLVED = "-arl-unresolved"
"""The property name of a declaration that may hide text in a way this program does not
read: a verdict over an element it applies to says the style sheet has rules not applied
(``Seen.partial``)."""
NO_STYLE_RULES = frozenset(
    {"font-face", "keyframes", "-webkit-keyframes", "page", "counter-style", "property"}
    | {"font-feature-values", "font-palette-values", "namespace", "charset", "import"}
)
BOX_SIZES = frozenset({"width", "height", "max-width", "max-height"})
OVERFLOWS = frozenset({"overflow", "overflow-x", "overflow-y", "overflow-clip-margin"})
_SCALES = frozenset({"scale", "scalex", "scaley", "scalez", "scale3d", "matrix", "matrix3d"})


def scaled_to_zero(value: list[Any]) -> bool:
    """A ``transform`` with a scale (or matrix) function one of whose numbers may be zero."""
    return any(
        t.type == "function" and t.lower_name in _SCALES and may_be_zero(t.arguments) for t in value
    )


def may_be_zero(value: list[Any]) -> bool:
    """Whether a value (tokens) may be a zero size: a zero number, a ``var()``, or math
    that is not a plain sum."""
    for t in value:
        if t.type in ("number", "dimension", "percentage") and t.value == 0:
            return True
        if t.type == "function" and (t.lower_name == "var" or unresolved("font-size", [t])):
            return True
    return False


_OVERRIDES = frozenset({"bidi-override", "isolate-override"})


def unresolved(prop: str, value: list[Any]) -> bool:
    """Whether the value of ``prop`` (one of ``PROPERTIES``; tokens) may change what a
    reader sees in a way the value readers cannot tell: a ``unicode-bidi`` override (the
    characters display in another order than the text holds them), or it holds a ``var()`` (custom properties are not
    substituted), or, for a size (``font-size``, ``font``), a ``calc()``, ``max()`` or
    ``clamp()`` with a minus, a product, a quotient or a nested ``max()``/``clamp()``
    that is not provably zero (``calc(1px - 1px)`` is zero; a plain sum of sizes is zero
    only when every term is, which ``font_size_zero`` reads)."""
    from engine.text.css import _MATH_FUNCTIONS, _math_zero  # css imports this module

    if prop == "unicode-bidi":
        return any(t.type == "ident" and t.lower_value in _OVERRIDES for t in value)
    for t in value:
        if t.type != "function":
            continue
        if _holds_var(t, 0):
            return True
        if prop in ("font-size", "font") and t.lower_name in _MATH_FUNCTIONS:
            if not _math_zero(t, 0) and _not_a_plain_sum(t, 0):
                return True
    return False


def _holds_var(token: Any, depth: int) -> bool:
    if token.type == "function" and token.lower_name in ("var", "env", "attr"):
        return True
    inner = getattr(token, "arguments", None) or getattr(token, "content", None) or []
    return depth < 16 and any(_holds_var(t, depth + 1) for t in inner if hasattr(t, "type"))


def _not_a_plain_sum(token: Any, depth: int) -> bool:
    """A math function whose value is not a sum (or ``min()``) of its terms."""
    if depth > 16:
        return True
    if token.type == "function" and token.lower_name in ("max", "clamp"):
        return True
    for t in getattr(token, "arguments", None) or getattr(token, "content", None) or []:
        if t.type == "literal" and t.value in "-*/":
            return True
        if t.type in ("number", "dimension", "percentage") and t.value < 0:
            return True
        if t.type in ("function", "() block") and _not_a_plain_sum(t, depth + 1):
            return True
    return False
