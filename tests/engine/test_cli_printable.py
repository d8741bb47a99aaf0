"""``engine.cli.common.printable``'s fast path: a line that ``str.isprintable`` holds none of
the characters it escapes, so it is returned unchanged without a regular expression."""

from __future__ import annotations

import re

from engine.cli.common import _UNSAFE_CHARS, printable


def test_every_unsafe_character_is_outside_isprintable() -> None:
    unsafe = re.compile(_UNSAFE_CHARS)
    for n in range(0x110000):
        ch = chr(n)
        if unsafe.match(ch):
            assert not ch.isprintable(), hex(n)


def test_printable_line_is_returned_as_it_is() -> None:
    line = '  c17: EDITED " shadow displayed sa…" [re-anchored approximately (fuzzy)]'
    assert printable(line) == line
    assert printable(42) == "42"


def test_line_with_a_control_is_escaped() -> None:
    assert printable("a\tb\u200fc\u2028") == "a\\x09b\\u200fc\\u2028"
