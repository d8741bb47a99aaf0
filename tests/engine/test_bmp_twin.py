"""A ``BmpTwin`` (engine.text.bmp_twin) finds what its pattern as written finds, match for
match, on every text: its twin (the classes' characters above U+FFFF taken out) where the
part of the text a scan may see holds none of them, the pattern as written where it
does. Random text of the patterns' own characters, in other scripts, with and without
characters above U+FFFF, at any start and end of the scan; and every pattern of the engine
whose classes hold such characters is a twin, so no scan walks them letter by letter."""

from __future__ import annotations

import importlib
import pkgutil
import re
import re._constants as sre_constants
import re._parser as sre_parse
from typing import Any
from unittest import mock

from hypothesis import given, settings, strategies as st

import engine
from engine.agent_message import _SENTENCE_END as MESSAGE_END
from engine.diff import tokens
from engine.diff.cleanup import _KEEP_EQUAL
from engine.diff.tokens import _CHUNK_RE, _chunks, split_sentences
from engine.score.anchoring.sentences import _SENTENCE_END
from engine.text.bmp_twin import BmpTwin, bmp_only
from engine.text.utf16 import has_astral

TWINS = {
    "sentences._SENTENCE_END": _SENTENCE_END,
    "tokens._CHUNK_RE": _CHUNK_RE,
    "cleanup._KEEP_EQUAL": _KEEP_EQUAL,
    "agent_message._SENTENCE_END": MESSAGE_END,
}

# The patterns' own characters and their neighbours: Latin, CJK, Devanagari, Arabic,
# Armenian, Myanmar, Khmer, Tibetan and Thai stops, closing marks, note numbers, spaces and
# line breaks, letters of several scripts, and characters above U+FFFF: stops (Brahmi,
# Chakma, Sharada), an emoji with its modifier and joiner, a CJK extension B ideograph.
ALPHABET = list(
    ".!?;:\u2026\u3002\uff01\uff1f\uff1b\u0964\u0965\u061f\u06d4\u0589\u104b\u17d4\u0f0d"
    "\u203d\uff61\uff0e\ufe52\u2024\n \t\u00a0\u3000)]\"\u201d\u2019'*\u00b2\u300d[,13ab"
    "\u0e01\u0e2b\u0e81\u4e00\u05d0\u0627\u0641\u0434"
)
ASTRAL = list("\U00011047\U00011048\U000111c5\U000111de\U0001f600\U0001f3fd\u200d\U00020000")


def _spans(p: Any, text: str, a: int, b: int) -> tuple[list[tuple[int, int]], Any, list[str]]:
    m = p.search(text, a, b)
    return [m.span() for m in p.finditer(text, a, b)], m and m.span(), p.findall(text, a, b)


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(ALPHABET + ASTRAL), max_size=24),
    st.integers(0, 24),
    st.integers(0, 30),
)
def test_a_twin_finds_what_its_pattern_finds_on_any_text(chars: list[str], a: int, b: int) -> None:
    text = "".join(chars)
    a = min(a, len(text))
    for name, twin in TWINS.items():
        assert _spans(twin, text, a, b) == _spans(twin.full, text, a, b), (name, text, a, b)
        assert twin.split(text) == twin.full.split(text), (name, text)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=24), st.integers(0, 24), st.integers(0, 30))
def test_the_twin_itself_matches_as_the_pattern_on_text_up_to_u_ffff(
    chars: list[str], a: int, b: int
) -> None:
    """Not through the dispatch: the twin alone, on text with no character above U+FFFF."""
    text = "".join(chars)
    a = min(a, len(text))
    for name, twin in TWINS.items():
        assert _spans(twin.bmp, text, a, b) == _spans(twin.full, text, a, b), (name, text, a, b)


def test_a_character_above_u_ffff_just_before_the_scan_is_seen() -> None:
    """A look-behind reaches before ``pos``: the part the dispatch looks at starts there."""
    brahmi_stop = "\U00011047"
    text = f"a{brahmi_stop} b"
    assert [m.span() for m in MESSAGE_END.finditer(text, 2)] == [(2, 3)]
    assert [m.span() for m in MESSAGE_END.bmp.finditer(text, 2)] == []


def test_the_twins_differ_only_in_the_characters_above_u_ffff() -> None:
    for name, twin in TWINS.items():
        astral = [c for c in twin.full.pattern if c > "\uffff"]
        assert astral, name  # else it needs no twin
        assert twin.bmp.pattern == bmp_only(twin.full.pattern), name


def _lookbehind_reach(tree: Any) -> int:
    """The longest look-behind of a parsed pattern (re._parser), in characters."""
    reach = 0
    for op, av in tree:
        if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            direction, sub = av
            if direction < 0:
                reach = max(reach, sub.getwidth()[1])
            reach = max(reach, _lookbehind_reach(sub))
            continue
        for part in av if isinstance(av, (list, tuple)) else ():
            if isinstance(part, sre_parse.SubPattern):
                reach = max(reach, _lookbehind_reach(part))
            elif isinstance(part, list):
                for sub in part:
                    if isinstance(sub, sre_parse.SubPattern):
                        reach = max(reach, _lookbehind_reach(sub))
    return reach


def test_each_twin_looks_back_no_further_than_it_says() -> None:
    for name, twin in TWINS.items():
        assert _lookbehind_reach(sre_parse.parse(twin.full.pattern)) <= twin.behind, name
    assert _lookbehind_reach(sre_parse.parse("(?<=ab)c|(?:x(?<!d))")) == 2


def test_the_chunks_still_join_to_the_text() -> None:
    text = "第一句。第二句！\U00011047 Third. 𑁇Fourth\n\U0001f600 last"
    assert "".join(split_sentences(text)) == text
    assert split_sentences(text) == _CHUNK_RE.full.findall(text)


def test_has_astral_over_a_part_of_the_text() -> None:
    text = "ab\U0001f600cd"
    assert has_astral(text) and has_astral(text, 2, 3) and has_astral(text, 0, 3)
    assert not has_astral(text, 0, 2) and not has_astral(text, 3)
    assert not has_astral(text, 3, 99) and has_astral(text, -5, 99)
    assert not has_astral("plain ascii", 0, 5) and not has_astral("é" * 10, 2, 8)
    assert not has_astral(text, 3, 2)


def _most_astral_items(tree: Any) -> int:
    """The most items above U+FFFF (characters or ranges) of one class of a parsed pattern."""
    most = 0
    for op, av in tree:
        if op is sre_constants.IN:
            items = [
                v
                for kind, v in av
                if (kind is sre_constants.LITERAL and v > 0xFFFF)
                or (kind is sre_constants.RANGE and v[1] > 0xFFFF)
            ]
            most = max(most, len(items))
        for part in av if isinstance(av, (list, tuple)) else ():
            subs = part if isinstance(part, list) else [part]
            for sub in subs:
                if isinstance(sub, sre_parse.SubPattern):
                    most = max(most, _most_astral_items(sub))
    return most


def _engine_patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if info.name.endswith("__main__"):
            continue  # runs the command-line program
        module = importlib.import_module(info.name)
        for key, value in vars(module).items():
            values = value.values() if isinstance(value, dict) else [value]
            for v in values:
                if isinstance(v, re.Pattern) and isinstance(v.pattern, str):
                    found[f"{info.name}.{key}"] = v
    return found


def test_no_pattern_of_the_engine_walks_characters_above_u_ffff_unless_it_is_a_twin() -> None:
    """A class with a few such characters (a range or two: CJK extension B to G) costs a
    compare or two; a list of them costs every character a walk (``BmpTwin``)."""
    heavy = {
        name: n
        for name, p in _engine_patterns().items()
        if (n := _most_astral_items(sre_parse.parse(p.pattern, p.flags))) > 4
    }
    assert not heavy, f"make these engine.text.bmp_twin.BmpTwin: {heavy}"
    assert "engine.text.utf16.ASTRAL" in _engine_patterns()
    assert _most_astral_items(sre_parse.parse(_SENTENCE_END.pattern)) > 50


def test_a_twin_of_a_pattern_without_such_characters_is_the_pattern() -> None:
    twin = BmpTwin(lambda keep: f"[{keep('ab')}]+")
    assert twin.full.pattern == twin.bmp.pattern == "[ab]+"
    assert twin.findall("xaby") == ["ab"]


@settings(max_examples=800, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from(ALPHABET), st.sampled_from(ASTRAL), st.just("\n")),
        max_size=40,
    ),
    st.integers(0, 40),
    st.integers(0, 45),
)
def test_the_chunks_cut_at_the_lines_around_characters_above_u_ffff_are_the_chunks(
    chars: list[str], a: int, b: int
) -> None:
    text = "".join(chars)
    a = min(a, len(text))
    for near in (2048, 1, 3, 7):  # lines with such characters near each other read as one run
        with mock.patch.object(tokens, "_NEAR", near):
            assert _chunks(text, a, b) == _CHUNK_RE.full.findall(text, a, b), (text, a, b, near)


def test_a_line_with_an_emoji_is_read_as_written_and_the_others_by_the_twin() -> None:
    text = "One. Two.\nA \U0001f600 here. And 𑁇 there\nLast. 𠀀\nEnd."
    assert _chunks(text) == _CHUNK_RE.full.findall(text)
    assert "".join(_chunks(text, 3, 30)) == text[3:30]
    for a, b in ((-5, 99), (-1, 10), (0, -3), (40, 12)):
        assert _chunks(text, a, b) == _CHUNK_RE.full.findall(text, a, b), (a, b)


def test_a_search_to_the_end_of_a_long_block_does_not_read_the_block_each_time(monkeypatch):
    """``TextIndex.whole_sentences`` searches from past its reach to the block's end for the
    next sentence end; the twin is chosen once per text, not by reading the rest of the
    block at every search (200,000 CJK characters in one block, 60 searches)."""
    import engine.text.bmp_twin as bmp_twin
    from engine.score.anchoring.index import TextIndex

    read = []

    def counted(text: str, pos: int = 0, endpos: int | None = None) -> bool:
        read.append(min(len(text), len(text) if endpos is None else endpos) - max(0, pos))
        return has_astral(text, pos, endpos)

    monkeypatch.setattr(bmp_twin, "has_astral", counted)
    text = ("中文文本的一部分没有句号" * 420 + "。") * 40  # one block, a stop every 5,041
    index = TextIndex(text)
    for k in range(60):
        s = 1_000 + k * 3_000
        a, b = index.whole_sentences(s, s + 10)
        assert a <= s and b >= s + 10 and (b == len(text) or text[b - 1] == "。")
    assert sum(read) < 2 * len(text), sum(read)
