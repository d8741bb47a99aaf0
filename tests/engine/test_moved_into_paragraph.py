"""A paragraph moved into another one, in HTML whose paragraphs have no space between them
in ``body.textContent``: its quote stands in v2 word for word and reads `untouched`.

Found by the long profile of tests/engine/test_deleted_span_properties.py on F1000RD 8-1459
(CC BY 4.0, /work/shared/data/f1000rd), paragraph 35: "Software available from :
http://bioconductor.org/…" moved to the end of the paragraph after next read `deleted`, and
`deleted` agrees with a claim of "addressed". The rule it broke: the context that travels
with a moved passage (the part of its prefix and suffix inside its own sentence) ran on into
the next paragraph, glued to it with no character between ("…/HDCytoDataSource code…"), so
the moved copy's suffix disagreed and no copy counted as moved. A block's edge ends a
sentence (``_Reanchor.block_context``). The same kind is tried here in six scripts, with the
quote at the start, inside and at the end of the moved paragraph, moved to the end of
another paragraph, to its start, and to a paragraph of its own; and with paragraphs that do
have a line between them, which read the same."""

from __future__ import annotations

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16

# (the paragraphs, quotes in the moved one) per script: the moved paragraph (the second) has
# a quote right after a sentence end, whose travelling context is its suffix alone
_SCRIPTS: dict[str, tuple[list[str], list[str]]] = {
    "english": (
        [
            "Licence : MIT License",
            "Software available from : http://bioconductor.org/packages/HDCytoData",
            "Source code available from : https://github.com/lmweber/HDCytoData",
            "Archived source code at time of publication : https://doi.org/10.5281/zenodo.3362847 26",
        ],
        ["http://bioconductor.org", "Software available", "HDCytoData"],
    ),
    "chinese": (
        [
            "许可证：MIT 许可证",
            "软件可从生物导体项目的网站获得。它每季度发布一次新版本",
            "源代码可从代码托管平台获得。作者会回答那里的问题",
            "出版时的存档源代码保存在芝诺多数据库中",
        ],
        ["生物导体项目的网站", "软件可从", "每季度发布一次新版本", "它每季度"],
    ),
    "arabic": (
        [
            "الترخيص : رخصة معهد ماساتشوستس",
            "البرنامج متاح من موقع المشروع على الشبكة. ويصدر كل ثلاثة أشهر",
            "الشفرة المصدرية متاحة من منصة الاستضافة ويجيب المؤلفون هناك",
            "الشفرة المؤرشفة وقت النشر محفوظة في قاعدة البيانات",
        ],
        ["موقع المشروع على الشبكة", "البرنامج متاح", "ثلاثة أشهر", "ويصدر كل"],
    ),
    "persian": (
        [
            "مجوز : مجوز ام‌آی‌تی",
            "نرم‌افزار از وب‌سایت پروژه در دسترس است. هر سه ماه منتشر می‌شود",
            "کد منبع از سکوی میزبانی در دسترس است و نویسندگان آنجا پاسخ می‌دهند",
            "کد بایگانی‌شده در زمان انتشار در پایگاه داده نگهداری می‌شود",
        ],
        ["وب‌سایت پروژه در دسترس", "نرم‌افزار از", "منتشر می‌شود", "هر سه ماه"],
    ),
    "thai": (
        [
            "สัญญาอนุญาต : เอ็มไอที",
            "ซอฟต์แวร์หาได้จากเว็บไซต์ของโครงการ ออกรุ่นใหม่ทุกสามเดือน",
            "รหัสต้นฉบับหาได้จากแพลตฟอร์มโฮสต์ซึ่งผู้เขียนตอบคำถามที่นั่น",
            "รหัสที่เก็บถาวรตอนตีพิมพ์อยู่ในฐานข้อมูล",
        ],
        ["เว็บไซต์ของโครงการ", "ซอฟต์แวร์หาได้", "ทุกสามเดือน", "ออกรุ่นใหม่"],
    ),
    "emoji": (
        [
            "📜 Licence : MIT 📜",
            "📦 Software 📦 from the project's site 🌐. Released every quarter 🗓️",
            "🧑‍💻 Source code from the hosting platform 🧑‍💻, where the authors answer",
            "🗄️ Archived code at the time of publication 🗄️",
        ],
        ["from the project's site 🌐", "📦 Software 📦", "every quarter 🗓️", "Released every"],
    ),
}

_MOVED = 1


def _html(paras: list[str], sep: str) -> str:
    return "<!DOCTYPE html><html><body>" + sep.join(f"<p>{p}</p>" for p in paras) + "</body></html>"


def _v2_paragraphs(paras: list[str], where: str) -> tuple[list[str], str]:
    """The paragraphs with the moved one placed ``where``, and the paragraph that holds it."""
    moved = paras[_MOVED]
    rest = [p for i, p in enumerate(paras) if i != _MOVED]
    last = rest[-1]
    if where == "end of another":
        holder = f"{last} {moved}"
    elif where == "start of another":
        holder = f"{moved} {last}"
    else:
        holder = moved
    return [*rest[:-1], holder] if where != "own paragraph" else [*rest, holder], holder


def _anchor(text: str, quote: str) -> Anchor:
    s = text.index(quote)
    e = s + len(quote)
    return Anchor(
        quote,
        text[max(0, s - 32) : s],
        text[e : e + 32],
        start_offset=to_utf16(text, s),
        end_offset=to_utf16(text, e),
    )


@pytest.mark.parametrize("sep", ["", "\n"], ids=["glued", "line-between"])
@pytest.mark.parametrize("where", ["end of another", "start of another", "own paragraph"])
@pytest.mark.parametrize("script", sorted(_SCRIPTS))
def test_a_moved_paragraphs_quotes_read_untouched_where_they_now_stand(
    script: str, where: str, sep: str
) -> None:
    paras, quotes = _SCRIPTS[script]
    v2_paras, holder = _v2_paragraphs(paras, where)
    v1 = Version.from_source(_html(paras, sep), "html", "v1")
    v2 = Version.from_source(_html(v2_paras, sep), "html", "v2")
    comments = [Comment(f"c{i}", "fix", _anchor(v1.text, q)) for i, q in enumerate(quotes)]
    block = v2.text.index(holder)
    moved_at = block + holder.index(paras[_MOVED])
    for q, verdict in zip(quotes, score(v1, v2, comments).verdicts, strict=True):
        assert verdict.verdict == "untouched", (q, verdict.note)
        assert verdict.v2 is not None and verdict.v2.text == q
        # the moved paragraph's copy, not a chance copy elsewhere
        v2_start = v2.text.index(q, moved_at)
        assert (verdict.v2.start, verdict.v2.end) == (v2_start, v2_start + len(q))


# A quote with no context of its own inside its block: the block is the quote, or the quote
# follows "Label:" (a colon ends a sentence), or fills a table cell. An attacker's brief
# found that cutting the travelling context at the block's edge left it empty, and an empty
# context "travelled" with any copy: the deleted block read `untouched` at a chance copy in
# a new sentence far away (57 of 77 shapes). With no context on either side, the quote now
# travels only to a copy at a block's edge (``TextIndex.edges``).
_FILLER = [
    "The committee met on Tuesday to review the budget for the coming year.",
    "Several members raised concerns about the timing of the annual audit.",
    "It was agreed that a working group would report back in the spring.",
    "The chair thanked the staff for their careful preparation of the papers.",
]
_BARE = ["Jose Menendez", "12.5 mg daily", "Москва, 2019", "🎉 Party time 🎉", "خوسيه مينينديز"]
_BLOCKS = {
    "paragraph": ("text", "{q}"),
    "heading": ("text", "## {q}"),
    "list item": ("text", "1. {q}"),
    "table cell": ("text", "| Dose | {q} |\n|---|---|"),
    "label": ("text", "Contact: {q}"),
    "html paragraph": ("html", "<p>{q}</p>"),
    "html heading": ("html", "<h2>{q}</h2>"),
    "html cell": ("html", "<table><tr><td>Dose</td><td>{q}</td></tr></table>"),
}


def _join(kind: str, blocks: list[str]) -> str:
    if kind == "text":
        return "\n\n".join(blocks)
    return "<html><body>" + "".join(b if b.startswith("<") else f"<p>{b}</p>" for b in blocks)


def _verdict_of(kind: str, v1_blocks: list[str], v2_blocks: list[str], quote: str):
    """The verdict of a comment on ``quote`` (its first copy) for the two versions."""
    v1 = Version.from_source(_join(kind, v1_blocks), kind, "v1")
    v2 = Version.from_source(_join(kind, v2_blocks), kind, "v2")
    (verdict,) = score(v1, v2, [Comment("c0", "fix", _anchor(v1.text, quote))]).verdicts
    return verdict


@pytest.mark.parametrize("shape", sorted(_BLOCKS))
@pytest.mark.parametrize("quote", _BARE)
def test_a_quote_with_no_context_of_its_own_is_not_moved_to_a_chance_copy(shape, quote):
    kind, block = _BLOCKS[shape]
    chance = f"In a separate note the editors wrote {quote} on the form by mistake."
    verdict = _verdict_of(kind, [block.format(q=quote), *_FILLER], [*_FILLER, chance], quote)
    assert verdict.verdict == "deleted", (verdict.method, verdict.v2, verdict.note)


@pytest.mark.parametrize("shape", ["paragraph", "heading", "html paragraph", "html heading"])
@pytest.mark.parametrize("quote", _BARE)
def test_a_block_that_is_its_quote_moved_whole_reads_untouched(shape, quote):
    kind, block = _BLOCKS[shape]
    moved = block.format(q=quote)
    verdict = _verdict_of(kind, [moved, *_FILLER], [*_FILLER[:2], moved, *_FILLER[2:]], quote)
    assert verdict.verdict == "untouched", (verdict.method, verdict.v2, verdict.note)


# The second attacker's brief on the rule above: a sentence end is no block edge (an
# abbreviation's full stop, a semicolon, a colon, a line break inside a paragraph), and a
# block moved into a new block with a marker around its words is still that block.
_FALSE_EDGES = [
    "Sponsors include e.g. {q}: see the list.",
    "See part 2. {q}; they paid the rest.",
    "We paid the city; {q}; and a bank in the end.",
]
# (Left open, as at 9f8693c: a copy on a line of its own inside a hard-wrapped paragraph,
# "The list was long, and\n{q}\nwas on it twice.", reads `untouched` by another stage.)
_MARKED = ["- {q}", "## {q}", "> {q}", "💡 {q}", "• {q}", "({q})", "“{q}”", "{q} 🎉", "— {q}"]


@pytest.mark.parametrize("sentence", _FALSE_EDGES)
@pytest.mark.parametrize("quote", _BARE)
def test_a_sentence_end_inside_a_new_sentence_is_no_block_edge(sentence, quote):
    verdict = _verdict_of("text", [quote, *_FILLER], [*_FILLER, sentence.format(q=quote)], quote)
    assert verdict.verdict == "deleted", (verdict.method, verdict.v2, verdict.note)


@pytest.mark.parametrize("marked", _MARKED)
@pytest.mark.parametrize("quote", _BARE)
def test_a_block_moved_with_a_marker_around_it_reads_untouched(marked, quote):
    verdict = _verdict_of("text", [quote, *_FILLER], [*_FILLER, marked.format(q=quote)], quote)
    assert verdict.verdict == "untouched", (verdict.method, verdict.v2, verdict.note)
