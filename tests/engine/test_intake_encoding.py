"""A file in the wrong encoding is decided at intake: decoded as every browser decodes it
(BOM, declaration, valid UTF-8), or refused in one line naming the file and the problem,
never read as a guess that later shows as a changed or missing quote (docs/engine.md,
"Decoding decisions").

Before: an undeclared Shift_JIS, UTF-16 (no BOM, CJK) or Latin-1 file was read as
windows-1252 with a notice, so a Japanese v2 read as mojibake scored its comment DELETED
with 82% churn, and the same file as v1 skipped every comment as "not in the version".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from engine.text.documents import DocumentError, open_document
from engine.text.html_text import extract

SAMPLES = {
    "ja": (
        "会議は月曜日に開かれます。場所は東京です。",
        ["shift_jis", "euc_jp", "utf-16-le", "utf-16-be"],
    ),
    "zh": ("会议将于星期一举行。请提交预算。", ["gbk", "gb18030", "utf-16-le"]),
    "zh-hant": ("會議將於星期一舉行。", ["big5"]),
    "ko": ("회의는 월요일에 열립니다.", ["euc_kr", "utf-16-le"]),
    "ru": ("Совещание состоится в понедельник.", ["cp1251", "koi8_r"]),
    "ar": ("سيعقد الاجتماع يوم الاثنين.", ["cp1256"]),
    "fa": ("جلسه روز دوشنبه برگزار می‌شود.", ["utf-16-le"]),
    "th": ("การประชุมจะจัดขึ้นในวันจันทร์", ["cp874", "utf-16-le"]),
    "fr": ("Le café est fermé le lundi. Réservez avant jeudi.", ["latin-1", "cp1252"]),
    "emoji": ("Budget 👍 approved ✅ today.", ["utf-16-le", "utf-16-be"]),
}
CASES = [(lang, enc) for lang, (_, encs) in SAMPLES.items() for enc in encs]


def page(text: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title></head><body><p>{text}</p></body></html>"


@pytest.mark.parametrize(("lang", "codec"), CASES)
@pytest.mark.parametrize("ext", [".txt", ".md", ".html"])
def test_undeclared_legacy_bytes_are_read_exactly_or_refused(tmp_path: Path, lang, codec, ext):
    # Never a wrong text: either the words written are the words read, or one line says
    # why not. UTF-16 without a BOM is read where its NUL pattern shows (mostly ASCII:
    # markup, Latin text, emoji between English words).
    text = SAMPLES[lang][0]
    path = tmp_path / f"v2{ext}"
    path.write_bytes((page(text) if ext == ".html" else text + "\n").encode(codec))
    try:
        doc = open_document(path)
    except DocumentError as err:
        line = str(err)
        assert "\n" not in line and line.startswith(f"{path}: ")
        if "no byte order mark and reads as UTF-16" in line:
            # UTF-16 of CJK without a BOM: as many control bytes as binary data has
            assert "utf-16" in codec and "save it as UTF-8" in line
            return
        assert line.startswith(f"{path}: not valid UTF-8 (")
        assert "no encoding is declared" in line and "save it as UTF-8" in line
        if "utf-16" in codec:
            assert "UTF-16 without a byte order mark" in line
        return
    assert "utf-16" in codec  # a legacy 8-bit or multi-byte encoding is always refused
    read = extract(doc.content).text if ext == ".html" else doc.content
    assert text in read


def test_the_attackers_japanese_revision_is_refused_not_scored_deleted(tmp_path: Path) -> None:
    text = "会議は月曜日に開かれます。予算は来週までに提出してください。場所は東京です。\n"
    for codec in ("shift_jis", "utf-16-le"):
        path = tmp_path / f"v2-{codec}.txt"
        path.write_bytes(text.replace("東京", "大阪").encode(codec))
        with pytest.raises(DocumentError, match=r"no encoding is declared|reads as UTF-16LE"):
            open_document(path)


LABELS = {
    "latin-1": "iso-8859-1",
    "euc_kr": "euc-kr",
    "euc_jp": "euc-jp",
    "koi8_r": "koi8-r",
    "cp874": "windows-874",
    "cp1251": "windows-1251",
    "cp1252": "windows-1252",
    "cp1256": "windows-1256",
}


@pytest.mark.parametrize(("lang", "codec"), CASES)
def test_the_same_bytes_declared_or_with_a_bom_are_read(tmp_path: Path, lang, codec) -> None:
    text = SAMPLES[lang][0]
    path = tmp_path / "v2.html"
    if codec.startswith("utf-16"):
        bom = "\ufeff".encode(codec)
        path.write_bytes(bom + page(text).encode(codec))
    else:
        meta = f'<meta charset="{LABELS.get(codec, codec.replace("_", "-"))}">'
        path.write_bytes(page(meta + text).encode(codec))
    doc = open_document(path)
    assert text in extract(doc.content).text
    assert doc.notice is None


def test_utf8_declared_as_a_legacy_encoding_is_read_as_declared_and_said(tmp_path: Path) -> None:
    path = tmp_path / "v1.html"
    path.write_bytes(page('<meta charset="iso-8859-1">Le café est fermé.').encode("utf-8"))
    doc = open_document(path)
    assert "Le cafÃ© est fermÃ©." in extract(doc.content).text  # as every browser shows it
    assert doc.notice == (
        "declares windows-1252 but its bytes are UTF-8: read as declared, as a browser does, "
        "so “é” shows as “Ã©” (2 characters beyond ASCII); if that looks wrong, declare "
        '<meta charset="utf-8">'
    )


def test_declared_utf8_with_invalid_bytes_is_read_as_a_browser_shows_it(tmp_path: Path) -> None:
    # Offsets index the decoded text: U+FFFD where a browser shows one.
    path = tmp_path / "v1.html"
    path.write_bytes(page('<meta charset="utf-8">caf\xe9').encode("latin-1"))
    doc = open_document(path)
    assert extract(doc.content).text == "caf\ufffd"
    assert (
        doc.notice
        == "1 byte is not valid UTF-8 and was replaced by U+FFFD, as a browser shows them"
    )


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=200), st.sampled_from([".txt", ".md", ".html"]))
def test_any_utf8_text_is_read_exactly(tmp_path_factory, text: str, ext: str) -> None:
    # Valid UTF-8 is never refused: the text read is the text written (NUL as a browser
    # shows it in text; HTML left to its parser).
    path = tmp_path_factory.mktemp("u") / f"doc{ext}"
    data = text.encode("utf-8", "surrogatepass")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return  # lone surrogates are not UTF-8
    path.write_bytes(data)
    try:
        doc = open_document(path)
    except DocumentError as exc:
        assert any(w in str(exc) for w in ("binary data", "looks like", "reads as UTF-16"))
        return
    expected = text.replace("\x00", "\ufffd") if ext != ".html" else text
    if not text.startswith("\ufeff") and ext != ".html" and doc.encoding == "UTF-8":
        assert doc.content == expected


def test_binary_data_is_not_taken_for_utf16(tmp_path: Path) -> None:
    import random

    rng = random.Random(7)
    path = tmp_path / "noise.txt"
    for _ in range(20):
        path.write_bytes(bytes(rng.randrange(256) for _ in range(4096)))
        try:
            open_document(path)
        except DocumentError as err:
            assert "UTF-16" not in str(err)


@pytest.mark.parametrize("codec,name", [("utf-32-le", "UTF-32LE"), ("utf-32-be", "UTF-32BE")])
@pytest.mark.parametrize("lang", ["ja", "fa", "emoji", "fr"])
@pytest.mark.parametrize("ext", [".txt", ".md", ".html"])
def test_utf32_with_its_bom_is_refused_by_name(tmp_path: Path, lang, codec, name, ext) -> None:
    """A UTF-32 file (FF FE 00 00, or 00 00 FE FF) was read as UTF-16LE, a NUL after each
    character, so an unchanged v2 read every quote as deleted and the only word was a
    notice of NUL bytes (the attacker's brief, stop 38)."""
    text = SAMPLES[lang][0]
    path = tmp_path / f"doc{ext}"
    bom = b"\xff\xfe\x00\x00" if codec.endswith("le") else b"\x00\x00\xfe\xff"
    path.write_bytes(bom + (page(text) if ext == ".html" else text).encode(codec))
    with pytest.raises(DocumentError) as err:
        open_document(path)
    assert str(err.value).splitlines() == [str(err.value)]
    assert f"is {name} text" in str(err.value) and "save it as UTF-8" in str(err.value)
    assert path.name in str(err.value)


def test_utf16le_whose_first_character_is_nul_is_still_utf16(tmp_path: Path) -> None:
    """FF FE 00 00 is also UTF-16LE's mark and a NUL: when the rest is no UTF-32 it is read
    as a browser reads it."""
    path = tmp_path / "doc.txt"
    path.write_bytes(b"\xff\xfe" + "\x00ab".encode("utf-16-le"))
    assert "ab" in open_document(path).content
