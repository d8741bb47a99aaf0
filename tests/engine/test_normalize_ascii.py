"""``engine.text.normalize.normalize``'s ASCII path (its words joined by one space) equals
the general path (NFC, presentation forms, ignorables, ``\\s+`` collapsed, trimmed) on
every ASCII string: ASCII is NFC, holds no presentation form nor ignorable, and ``re``'s
``\\s`` on str patterns is ``str.isspace`` (which ``str.split`` and ``str.strip`` use)."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings, strategies as st

from engine.text import normalize as N

ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40)


def _general(text: str) -> str:
    """``normalize`` as it reads any text (its non-ASCII path)."""
    text = unicodedata.normalize("NFC", N._fold_presentation(unicodedata.normalize("NFC", text)))
    return N._WS_RE.sub(" ", N._IGNORABLE_RE.sub("", text)).strip()


@settings(max_examples=2000, deadline=None)
@given(ASCII)
def test_ascii_path_equals_the_general_one(text: str) -> None:
    assert N.normalize(text) == _general(text)


def test_every_ascii_character_alone_and_between_words() -> None:
    for n in range(128):
        for text in (chr(n), f"a{chr(n)}b", f" {chr(n)}{chr(n)} x "):
            assert N.normalize(text) == _general(text), hex(n)
