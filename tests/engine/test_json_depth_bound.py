"""The cheap nesting-depth bound of ``engine.safe_io.load_json`` (docs/engine.md, "Speed"):
never below the exact depth of what the parser accepted, so the guard never lets through a
document the exact walk refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from engine.safe_io import BoundedInputError, _depth_bound, _too_deep, load_json

# Strings that fight the bound: brackets, quotes and backslash runs, in several scripts.
_TRICKY = st.lists(
    st.sampled_from(
        list('[]{}"\\\\/,:')
        + list("abc 日本語テキスト")
        + list("مرحبا")
        + list("ภาษาไทย")
        + ["😀", "👩‍💻", "\u200d", "\n", "\t", "\u2028"]
    ),
    max_size=12,
).map("".join)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    _TRICKY,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_TRICKY, inner, max_size=4)
    ),
    max_leaves=40,
)


def _depth(obj: Any) -> int:
    if isinstance(obj, dict):
        return 1 + max((_depth(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((_depth(v) for v in obj), default=0)
    return 0


def _nest(obj: Any, levels: int, keys: str) -> Any:
    for i in range(levels):
        obj = {keys * (i % 3): obj} if i % 2 else [obj, keys]
    return obj


@settings(max_examples=400, deadline=None)
@given(_VALUES, st.booleans(), st.sampled_from([None, 0, 2]))
def test_bound_is_never_below_the_exact_depth(value: Any, ascii_only: bool, indent: Any) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert _depth_bound(text.encode("utf-8")) >= _depth(value)


@settings(max_examples=200, deadline=None)
@given(_VALUES, st.integers(0, 30), _TRICKY, st.integers(1, 12))
def test_guard_refuses_exactly_what_the_exact_walk_refuses(
    value: Any, levels: int, keys: str, cap: int
) -> None:
    doc = _nest(value, levels, keys)
    text = json.dumps(doc, ensure_ascii=False)
    exact_refuses = _too_deep(json.loads(text), cap)
    assert exact_refuses == (_depth(doc) > cap)
    for data in (text, text.encode("utf-8"), bytearray(text.encode("utf-8"))):
        if exact_refuses:
            with pytest.raises(BoundedInputError, match="nested too deeply"):
                load_json(data, "x.json", max_depth=cap)
        else:
            assert load_json(data, "x.json", max_depth=cap) == json.loads(text)


def test_bound_is_exact_on_plain_documents() -> None:
    assert _depth_bound(b"1") == 0
    assert _depth_bound(b'"[[[["') == 0
    assert _depth_bound(b'{"a": [1, {"b": "]]]\\\\"}, "\\"[["]}') == 3
    assert _depth_bound(b"[" * 65 + b"]" * 65) == 65
