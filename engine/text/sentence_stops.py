"""The characters that end a sentence, in every script, for every part of the program that
cuts text into sentences (the diff's sentence chunks, re-anchoring's sentences, the checks'
context, the agent's claims).

``SENTENCE_TERMINATORS`` is Unicode's Sentence_Terminal property (PropList.txt; UAX #29,
"Sentence Boundaries", class STerm: ``.`` ``!`` ``?``, the Armenian full stop ``։``, the
Arabic and Urdu ``؟`` ``۔``, Devanagari ``।`` ``॥``, Ethiopic ``።``, Myanmar ``။``, Khmer
``។``, the CJK ``。！？｡．``, the interrobang ``‽``, and some 150 more), and the Tibetan shad
(``TIBETAN_SHADS``). Before, each part kept a list of its own, of a dozen marks or fewer:
text in a script left off every list (Armenian, Burmese, Khmer, Tibetan, the half-width
``｡``) was one sentence per paragraph, and the join of two sentences around a deleted one
read as its rewrite (the attacker's brief, stop 38). tests/engine/test_sentence_stops.py
holds the constant equal to the property as the ``regex`` module (pinned in uv.lock) knows
it: a newer Unicode there fails it, naming the characters to add.
"""

from __future__ import annotations

UNICODE_STERM = (
    "!.?\u0589\u061d\u061e\u061f\u06d4\u0700\u0701\u0702\u07f9\u0837\u0839\u083d"
    "\u083e\u0964\u0965\u104a\u104b\u1362\u1367\u1368\u166e\u1735\u1736\u17d4\u17d5"
    "\u1803\u1809\u1944\u1945\u1aa8\u1aa9\u1aaa\u1aab\u1b4e\u1b4f\u1b5a\u1b5b\u1b5e"
    "\u1b5f\u1b7d\u1b7e\u1b7f\u1c3b\u1c3c\u1c7e\u1c7f\u2024\u203c\u203d\u2047\u2048"
    "\u2049\u2cf9\u2cfa\u2cfb\u2e2e\u2e3c\u2e53\u2e54\u2e60\u2e61\u3002\ua4ff\ua60e"
    "\ua60f\ua6f3\ua6f7\ua876\ua877\ua8ce\ua8cf\ua92f\ua9c8\ua9c9\uaa5d\uaa5e\uaa5f"
    "\uaaf0\uaaf1\uabeb\ufe12\ufe15\ufe16\ufe52\ufe56\ufe57\uff01\uff0e\uff1f\uff61"
    "\U00010a56\U00010a57\U00010f55\U00010f56\U00010f57\U00010f58\U00010f59\U00010f86"
    "\U00010f87\U00010f88\U00010f89\U00011047\U00011048\U000110be\U000110bf\U000110c0"
    "\U000110c1\U00011141\U00011142\U00011143\U000111c5\U000111c6\U000111cd\U000111de"
    "\U000111df\U00011238\U00011239\U0001123b\U0001123c\U000112a9\U000113d4\U000113d5"
    "\U0001144b\U0001144c\U000115c2\U000115c3\U000115c9\U000115ca\U000115cb\U000115cc"
    "\U000115cd\U000115ce\U000115cf\U000115d0\U000115d1\U000115d2\U000115d3\U000115d4"
    "\U000115d5\U000115d6\U000115d7\U00011641\U00011642\U0001173c\U0001173d\U0001173e"
    "\U00011944\U00011946\U00011a42\U00011a43\U00011a9b\U00011a9c\U00011c41\U00011c42"
    "\U00011ef7\U00011ef8\U00011f43\U00011f44\U00016a6e\U00016a6f\U00016af5\U00016b37"
    "\U00016b38\U00016b44\U00016d6e\U00016d6f\U00016e98\U0001bc9f\U0001da88"
)
"""Every character with Sentence_Terminal=Yes (Unicode 16, as the ``regex`` module of
uv.lock knows it), in code point order."""

TIBETAN_SHADS = "\u0f0d\u0f0e\u0f0f\u0f10\u0f11"
"""The Tibetan shad and its kin (U+0F0D-U+0F11): Tibetan's full stop, which Unicode gives
Terminal_Punctuation but not Sentence_Terminal, since it also ends clauses (as ``;`` and
``:`` do, which re-anchoring counts as sentence ends too)."""

SENTENCE_TERMINATORS = UNICODE_STERM + TIBETAN_SHADS
"""What ends a sentence: ``UNICODE_STERM`` and ``TIBETAN_SHADS``."""
