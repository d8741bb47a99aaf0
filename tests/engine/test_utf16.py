"""UTF-16 <-> code-point offsets (engine.text.utf16), including the shortcut for texts without
astral characters."""

from engine.text import utf16


def test_offsets_count_astral_characters_twice():
    text = "a😀b𝔸c"
    m = utf16.OffsetMap(text)
    assert m.astral == [1, 3] and m.utf16_length == len(text.encode("utf-16-le")) // 2
    assert [m.to_utf16(i) for i in range(len(text) + 1)] == [0, 1, 3, 4, 6, 7]
    assert m.to_codepoint(3) == 2 and m.to_codepoint(2, "floor") == 1


def test_texts_without_astral_characters_map_one_to_one():
    for text in ("plain ascii", "naïve café — “quoted”", "lone \ud800 surrogate", ""):
        m = utf16.OffsetMap(text)
        assert m.astral == [] and m.utf16_length == len(text)


def test_an_astral_character_past_the_first_megabyte_is_found():
    text = "é" * (3 * (1 << 20) + 5) + "😀" + "x"
    m = utf16.OffsetMap(text)
    assert m.astral == [len(text) - 2]
    assert m.to_utf16(len(text)) == len(text) + 1
