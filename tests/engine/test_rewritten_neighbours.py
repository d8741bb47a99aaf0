"""A deleted sentence is not a new sentence beside the join of its neighbours
(docs/verdicts.md, "The shape alone is no image" and "Not past a rewritten neighbour";
``Mapped._image_evidence``, ``KeptNeighbours._out_of_order``).

The kind, left open at the end of the last stop: "The budget rose by ten percent last year.
Staff numbers fell sharply in March. Costs were cut in every office." became "The budget
rose while costs were cut in every office. A new office opened in May." The deleted
"Staff numbers fell sharply in March" read ``edited`` at the new sentence: the only v2
sentence of new text near its place, sharing one short word ("in") with it. Tried beyond
the example, the same kind came back in Hindi and Japanese (the new sentence before the
join, where the diff laid its replaced region over both), and in Thai (a fuzzy likeness in
the new sentence: "staff" and "office" share five letters in Thai), where a quote right
after a space also lost its sentence start (Thai's end looks ahead at the next letter).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, strategies as st

from engine.score.anchoring.mapped import _count_dice
from engine.score.anchoring.sentences import _sentence_bounds, sentence_ends_before
from engine.score.anchoring.words import _word_set
from tests.engine.test_kept_neighbours import _verdict, draw_sentences

# (sentence before, the deleted one, sentence after, the two joined, a new sentence that
# shares a short word, or a few letters, with the deleted one)
JOINS = [
    (
        "The budget rose by ten percent last year.",
        "Staff numbers fell sharply in March.",
        "Costs were cut in every office.",
        "The budget rose while costs were cut in every office.",
        "A new office opened in May.",
    ),
    (
        "The river flooded the valley in spring.",
        "It was the worst flood of the decade.",
        "Farmers lost most of their crops.",
        "The river flooded the valley and farmers lost most of their crops.",
        "It was a hard year for the town.",
    ),
    (
        "Our app stores data on the device.",
        "We do not send it to any server.",
        "Users can delete it at any time.",
        "Our app stores data on the device and users can delete it at any time.",
        "We are proud of it.",
    ),
    (
        "El presupuesto subió un diez por ciento.",
        "El personal cayó en marzo.",
        "Los costes se recortaron en cada oficina.",
        "El presupuesto subió y los costes se recortaron en cada oficina.",
        "Una oficina nueva abrió en mayo.",
    ),
    (
        "بودجه سال گذشته ده درصد افزایش یافت.",
        "تعداد کارکنان در ماه مارس به شدت کاهش یافت.",
        "هزینه ها در هر دفتر کاهش یافت.",
        "بودجه افزایش یافت در حالی که هزینه ها در هر دفتر کاهش یافت.",
        "یک دفتر جدید در ماه مه افتتاح شد.",
    ),
    (
        "ارتفعت الميزانية بنسبة عشرة بالمئة العام الماضي.",
        "انخفض عدد الموظفين بشكل حاد في مارس.",
        "تم خفض التكاليف في كل مكتب.",
        "ارتفعت الميزانية بينما تم خفض التكاليف في كل مكتب.",
        "افتتح مكتب جديد في مايو.",
    ),
    (
        "बजट पिछले साल दस प्रतिशत बढ़ा।",
        "मार्च में कर्मचारियों की संख्या तेज़ी से गिरी।",
        "हर दफ़्तर में लागत घटाई गई।",
        "बजट बढ़ा जबकि हर दफ़्तर में लागत घटाई गई।",
        "मई में एक नया दफ़्तर खुला।",
    ),
    (
        "予算は昨年十パーセント増えた。",
        "三月に職員数が急減した。",
        "各事務所で経費が削減された。",
        "予算は増えたが各事務所で経費が削減された。",
        "五月に新しい事務所が開いた。",
    ),
    (
        "预算去年增长了百分之十。",
        "员工人数在三月急剧下降。",
        "每个办公室都削减了成本。",
        "预算增长而每个办公室都削减了成本。",
        "五月开设了一个新办公室。",
    ),
    (
        "งบประมาณเพิ่มขึ้นร้อยละสิบเมื่อปีที่แล้ว",
        "จำนวนพนักงานลดลงอย่างมากในเดือนมีนาคม",
        "ค่าใช้จ่ายถูกตัดในทุกสำนักงาน",
        "งบประมาณเพิ่มขึ้นขณะที่ค่าใช้จ่ายถูกตัดในทุกสำนักงาน",
        "สำนักงานใหม่เปิดในเดือนพฤษภาคม",
    ),
    (
        "The budget 📈 rose by ten percent.",
        "Staff 👥 numbers fell in March.",
        "Costs 💸 were cut in every office.",
        "The budget 📈 rose while costs 💸 were cut in every office.",
        "A new 🏢 office opened in May.",
    ),
]


def _frame(first: str) -> tuple[str, str]:
    if "\u0e00" <= first[0] <= "\u0e7f":
        return "ประโยคแรกยังอยู่ที่เดิม", "ประโยคสุดท้ายไม่เปลี่ยน"
    return "Intro sentence stays here as it was.", "The end stays too, unchanged."


def _sources_of(before, middle, after, sep=" "):
    return sep.join([before, *middle, after])


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize("shape", ["join, new", "new, join", "join"])
@pytest.mark.parametrize("case", JOINS, ids=[c[1][:12] for c in JOINS])
def test_a_deleted_sentence_beside_the_join_of_its_neighbours_reads_deleted(case, shape, kind):
    s1, s2, s3, joined, new = case
    intro, end = _frame(s1)
    middle2 = {"join, new": [joined, new], "new, join": [new, joined], "join": [joined]}[shape]
    src1 = _sources_of(intro, [s1, s2, s3], end)
    src2 = _sources_of(intro, middle2, end)
    if kind == "html":
        src1, src2 = f"<p>{src1}</p>", f"<p>{src2}</p>"
    quote = s2.rstrip(".。।")
    v = _verdict(kind, src1, src2, quote)
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def _paragraphs(paras: list[str], kind: str) -> str:
    if kind == "html":
        return "".join(f"<p>{p}</p>" for p in paras)
    return "\n\n".join(paras)


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(
    "new", ["A new office opened in May.", "Our new office opened.", "Offices were opened in May."]
)
@pytest.mark.parametrize(
    "frame",
    [
        ("Intro paragraph stays here as it was.", "The end paragraph stays too, unchanged."),
        ("Intro sentence stays here as it was.", "The end stays too, unchanged."),
    ],
)
def test_a_new_paragraph_before_the_join_of_paragraphs_is_no_rewrite(frame, new, kind):
    """The deleted sentence ends its paragraph and the one after it starts the next; v2
    joins them in one paragraph and adds a new paragraph before it. In plain text the diff
    pairs the paragraphs in order and keeps the deleted sentence's full stop and paragraph
    break at the new paragraph's: kept punctuation is no kept text
    (``KeptNeighbours._with_new_blocks``), so the new paragraph lies before the neighbour
    before the deleted sentence (an attacker's brief: "Our new office opened." read
    `edited`, plain text)."""
    s1, s2, s3, _joined, _new = JOINS[0]
    intro, end = frame
    src1 = _paragraphs([intro, f"{s1} {s2}", s3, end], kind)
    joined = "The budget rose by ten percent last year and costs were cut in every office."
    src2 = _paragraphs([intro, new, joined, end], kind)
    v = _verdict(kind, src1, src2, s2.rstrip("."))
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


# Open (docs/verdicts.md, "Not past a rewritten neighbour"): in Thai, the character diff
# keeps letters "staff" and "office" share at the new paragraph. (Hindi: "One place, two
# sentences"; Japanese: the deleted sentence's kept "た" is its shape,
# ``KeptNeighbours._holds_kept_words``.)
_OPEN_PARAGRAPH_CASES = {("จำนวน", "new, join", "text"), ("จำนวน", "new, join", "html")}


def _paragraph_params():
    for case in JOINS:
        for shape in ("new, join", "join, new"):
            for kind in ("text", "html"):
                is_open = any(
                    case[1].startswith(w) and (shape, kind) == (sh, k)
                    for w, sh, k in _OPEN_PARAGRAPH_CASES
                )
                marks = [pytest.mark.xfail(strict=True, reason="open kind")] if is_open else []
                yield pytest.param(
                    case, shape, kind, marks=marks, id=f"{case[1][:12]}-{shape}-{kind}"
                )


@pytest.mark.parametrize(("case", "shape", "kind"), list(_paragraph_params()))
def test_a_new_paragraph_beside_the_join_of_paragraphs_is_no_rewrite(case, shape, kind):
    """The same shape in 11 scripts, the new paragraph before or after the join."""
    s1, s2, s3, joined, new = case
    intro, end = _frame(s1)
    src1 = _paragraphs([intro, f"{s1} {s2}", s3, end], kind)
    middle = [new, joined] if shape == "new, join" else [joined, new]
    src2 = _paragraphs([intro, *middle, end], kind)
    v = _verdict(kind, src1, src2, s2.rstrip(".。।"))
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def _markdown_shapes(s1, s2, s3, joined, new):
    """Markdown shapes of the same deletion: (v1, v2) by name."""
    heading = new.rstrip(".。।")
    return {
        "heading": (
            f"# Title\n\n{s1} {s2}\n\n{s3}\n\nEnd.",
            f"# Title\n\n## {heading}\n\n{joined}\n\nEnd.",
        ),
        "list": (
            f"Intro.\n\n- {s1}\n- {s2}\n- {s3}\n\nEnd.",
            f"Intro.\n\n- {new}\n- {joined}\n\nEnd.",
        ),
        "list-after": (
            f"Intro.\n\n- {s1}\n- {s2}\n- {s3}\n\nEnd.",
            f"Intro.\n\n- {joined}\n- {new}\n\nEnd.",
        ),
        "block-quote": (
            f"Intro.\n\n> {s1} {s2}\n\n> {s3}\n\nEnd.",
            f"Intro.\n\n> {new}\n\n> {joined}\n\nEnd.",
        ),
        "paragraphs": (
            f"Intro.\n\n{s1}\n\n{s2}\n\n{s3}\n\nEnd.",
            f"Intro.\n\n{new}\n\n{joined}\n\nEnd.",
        ),
        "paragraphs-after": (
            f"Intro.\n\n{s1}\n\n{s2}\n\n{s3}\n\nEnd.",
            f"Intro.\n\n{joined}\n\n{new}\n\nEnd.",
        ),
    }


# Open: 8 of these 66 read `edited` (6141738: 25; 15 until the neighbours of other blocks
# bounded a sentence that is a block of its own, ``KeptNeighbours._neighbour_extents``, and
# the spaces of a kept " It was " counted as its own sentence's). Japanese shares "月に",
# Chinese "五月"/"三月" no pair, Hindi's sentence before is rewritten in the join keeping
# only short runs, and Thai's character diff keeps shared letters.
_OPEN_MARKDOWN = {
    ("मार्च में कर", "block-quote"),
    ("三月に職員数が急減した。", "heading"),
    ("三月に職員数が急減した。", "list"),
    ("三月に職員数が急減した。", "paragraphs"),
    ("员工人数在三月急剧下降。", "block-quote"),
    ("จำนวนพนักงาน", "heading"),
    ("จำนวนพนักงาน", "list"),
    ("จำนวนพนักงาน", "block-quote"),
}


def _block_params(shapes, open_kinds):
    """(case, shape) of every case of ``JOINS`` in every shape ``shapes`` makes of it, those
    in ``open_kinds`` (by the deleted sentence's first 12 characters) a strict xfail."""
    for case in JOINS:
        for shape in shapes(*case):
            marks = []
            if (case[1][:12], shape) in open_kinds:
                marks = [pytest.mark.xfail(strict=True, reason="open kind")]
            yield pytest.param(case, shape, marks=marks, id=f"{case[1][:12]}-{shape}")


@pytest.mark.parametrize(("case", "shape"), list(_block_params(_markdown_shapes, _OPEN_MARKDOWN)))
def test_a_new_block_beside_the_join_in_markdown_is_no_rewrite(case, shape):
    """The deletion of the shapes above in Markdown: a heading, list items, block quotes,
    each sentence a paragraph of its own. A new block's kept short words of the deleted
    sentence are its shape, and do not stop the neighbour's bound
    (``KeptNeighbours._holds_kept_words``: the block quote in Japanese read `edited`)."""
    src1, src2 = _markdown_shapes(*case)[shape]
    v = _verdict("text", src1, src2, case[1].rstrip(".。।"))
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(
    "new",
    [
        "A new branch opened in March.",
        "We opened a new branch in March.",
        "In March a new branch opened.",
        "March brought a new branch.",
    ],
)
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_new_paragraph_sharing_one_word_with_the_deleted_sentence_is_no_rewrite(kind, new, where):
    """The diff kept " in March." of "Staff numbers fell sharply in March." (deleted) at a
    new paragraph before the join of its neighbours: one content word, kept by chance,
    stopped the neighbour's bound, and the new paragraph read as its rewrite (the
    attacker's brief, stop 38; ``MOVED_OWN_WORDS``)."""
    s1, s2, s3, _joined, _new = JOINS[0]
    joined = "The budget rose while costs were cut in every office."
    middle = [new, joined] if where == "before" else [joined, new]
    src1 = _paragraphs([f"{s1} {s2} {s3}"], kind)
    v = _verdict(kind, src1, _paragraphs(middle, kind), s2.rstrip("."))
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_new_paragraph_repeating_the_deleted_sentences_figure_is_no_rewrite(kind):
    """The same with a figure: "4.2 million" of "Revenue from grants reached 4.2 million."
    (deleted) in a new paragraph after the join; the span read `edited` was "The"."""
    src1 = _paragraphs(
        [
            "Membership grew to 1,200 households. Revenue from grants reached 4.2 million. "
            "The website moved to a new server."
        ],
        kind,
    )
    src2 = _paragraphs(
        [
            "Membership grew to 1,200 households, and the website moved to a new server.",
            "The 4.2 million figure is in the annex.",
        ],
        kind,
    )
    v = _verdict(kind, src1, src2, "Revenue from grants")
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_sentence_moved_before_the_join_keeping_two_of_its_words_is_edited(kind):
    """The control: two of the sentence's content words kept in the new paragraph make it
    the sentence moved there and rewritten."""
    s1, s2, s3, _joined, _new = JOINS[0]
    joined = "The budget rose while costs were cut in every office."
    src1 = _paragraphs([f"{s1} {s2} {s3}"], kind)
    src2 = _paragraphs(["In March, staff numbers dropped.", joined], kind)
    v = _verdict(kind, src1, src2, s2.rstrip("."))
    assert v.verdict == "edited" and "dropped" in v.v2.text, (v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_sentence_rewritten_as_a_paragraph_before_the_join_is_edited(kind):
    """The control: the new paragraph keeps the deleted sentence's words."""
    s1, s2, s3, joined, _new = JOINS[0]
    intro, end = _frame(s1)
    src1 = _paragraphs([intro, f"{s1} {s2}", s3, end], kind)
    src2 = _paragraphs([intro, "Staff numbers fell steeply in April.", joined, end], kind)
    v = _verdict(kind, src1, src2, s2.rstrip("."))
    assert v.verdict == "edited" and "April" in v.v2.text, (v.method, v.v2, v.note)


def test_a_sentence_replaced_in_place_between_its_neighbours_is_still_edited():
    """The diff put the new sentence in the place of the deleted one, and nowhere else:
    that is its rewrite, however unlike (docs/verdicts.md, the `diff` method)."""
    s1, s2, s3, _joined, new = JOINS[0]
    v = _verdict("text", " ".join([s1, s2, s3]), " ".join([s1, new, s3]), s2.rstrip("."))
    assert v.verdict == "edited" and v.v2.text.startswith("A new office"), v


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_sentence_rewritten_into_the_join_is_edited(kind):
    """The join keeps the commented sentence's words: its rewrite is there."""
    s1, s2, s3, _joined, new = JOINS[0]
    intro, end = _frame(s1)
    src1 = " ".join([intro, s1, s2, s3, end])
    src2 = " ".join([intro, "The budget rose while staff numbers fell in April.", s3, new, end])
    if kind == "html":
        src1, src2 = f"<p>{src1}</p>", f"<p>{src2}</p>"
    v = _verdict(kind, src1, src2, s2.rstrip("."))
    assert v.verdict == "edited" and "numbers fell in April" in v.v2.text, v


def test_a_sentence_moved_before_its_neighbour_and_rewritten_is_edited():
    """Out of order, but keeping many of its words (``MOVED_REWRITE_DICE``): moved and
    rewritten, not deleted."""
    s1, s2, s3, joined, _new = JOINS[0]
    intro, end = _frame(s1)
    src1 = " ".join([intro, s1, s2, s3, end])
    src2 = " ".join([intro, "Staff numbers fell sharply in April.", joined, end])
    v = _verdict("text", src1, src2, s2.rstrip("."))
    assert v.verdict == "edited" and "April" in v.v2.text, v


def test_a_thai_sentence_starts_after_the_space_before_it():
    text = "ประโยคแรกยังอยู่ที่เดิม งบประมาณเพิ่มขึ้น จำนวนพนักงานลดลง"
    s = text.index("จำนวน")
    assert sentence_ends_before(text, 0, s)[-1] == s
    assert _sentence_bounds(text, s, len(text))[0] == s
    # the full stop and spaces of other scripts end where they did
    latin = "One. Two three."
    assert sentence_ends_before(latin, 0, latin.index("Two")) == [latin.index("Two")]
    assert sentence_ends_before(latin, 0, 4) == []


NEW_SENTENCES = [
    "A new office opened in the town in May.",
    "It was a quiet year for most of the people there.",
    "Lanterns hung over the gates of the orchard.",
    "Sales of copper kettles doubled in the spring.",
]


@st.composite
def join_cases(draw):
    name, sents = draw_sentences(draw, 3)
    i = draw(st.integers(1, len(sents) - 2))
    before, after = sents[i - 1], sents[i + 1]
    assume(before.endswith(".") and after[:1].isupper() and not after.startswith("I "))
    # sentences of three words or more (an interjection "Ha!" lowercased into the join
    # keeps nothing of itself there, and bounds nothing: docs/verdicts.md)
    assume(all(len(x.split()) >= 3 for x in (before, after)) and len(sents[i].split()) >= 4)
    # whole sentences: the splitter cuts "He is a Mr. Godfrey Norton …" after "Mr.", and a
    # new sentence put there stands inside a sentence, in the deleted one's place
    assume(not any(re.search(r"\b[A-Z][a-z]{0,2}\.$", x) for x in (before, sents[i], after)))
    link = draw(st.sampled_from([" while ", ", and ", " but "]))
    # the joining word taken from the deleted sentence is kept text of it, for the diff
    # ("… while there was …": a known limit, docs/verdicts.md)
    assume(link.strip(" ,") not in sents[i].lower().split())
    # likewise the second sentence's first word, lowercased at the join, where the deleted
    # sentence has it lowercased: the diff keeps the deleted one's copy ("… but angiotensin")
    first_word = re.match(r"\w*", after).group().lower()
    assume(not first_word or not re.search(rf"\b{first_word}\b", sents[i]))
    joined = before[:-1] + link + after[0].lower() + after[1:]
    new = draw(st.sampled_from(NEW_SENTENCES))
    # a new sentence that keeps many of the deleted one's words may be its rewrite
    assume(_count_dice(_word_set(sents[i]), _word_set(new)) < 0.5)
    first = draw(st.booleans())
    middle = [new, joined] if first else [joined, new]
    rest = sents[: i - 1] + middle + sents[i + 2 :]
    return name, sents, i, rest, draw(st.sampled_from(["text", "html"]))


@given(join_cases())
def test_a_deleted_sentence_is_not_a_new_one_beside_its_neighbours_join_in_real_text(case):
    name, sents, i, rest, kind = case
    quote = sents[i]
    src1, src2 = " ".join(sents), " ".join(rest)
    assume(src1.count(quote) == 1 and quote not in src2)
    if kind == "html":
        assume("<" not in src1 + src2 and "&" not in src1 + src2)
        src1, src2 = f"<p>{src1}</p>", f"<p>{src2}</p>"
    v = _verdict(kind, src1, src2, quote)
    assert v.verdict == "deleted", (name, quote, v.method, v.v2, v.note)


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize("close", [".”", '."', ".'", ".)", ".[1]", ".[12, 14]", ".²", ".**"])
def test_a_sentence_ends_after_its_closing_marks(close, kind):
    """The attacker's brief: a full stop followed by a closing quote, a bracket, a note
    number or Markdown bold ended no sentence, so the sentence before the deleted one ran
    on into it, and the join's linking words (", while costs") read as its rewrite."""
    s1, s2, s3 = JOINS[0][:3]
    intro, end = "Intro here stays.", "End stays."
    lead = "**" if close == ".**" else ""
    src1 = " ".join([intro, lead + s1[:-1] + close, s2, s3, end])
    src2 = " ".join([intro, lead + s1[:-1] + ", while costs were cut in every office.", end])
    if kind == "html":
        src1, src2 = f"<p>{src1}</p>", f"<p>{src2}</p>"
    v = _verdict(kind, src1, src2, s2.rstrip("."))
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


@pytest.mark.parametrize(
    ("src1", "src2", "quote"),
    [
        (
            "Revenue grew by a third.[3] Staff numbers fell sharply in March.[4] Costs were"
            " cut in every office.[5]",
            "Revenue grew by a third, while costs were cut in every office.[5]",
            "Staff numbers fell sharply in March",
        ),
        (
            'The report was titled "Growth and Change." Staff numbers fell sharply in March.'
            " Costs were cut in every office.",
            'The report was titled "Growth and Change," but costs were cut in every office.',
            "Staff numbers fell sharply in March",
        ),
        (
            "Intro here stays. Бюджет вырос на десять процентов в прошлом году.» Численность"
            " персонала резко сократилась в марте. Расходы были урезаны в каждом офисе. End"
            " stays.",
            "Intro here stays. Бюджет вырос на десять процентов в прошлом году, а расходы были"
            " урезаны в каждом офисе. End stays.",
            "Численность персонала резко сократилась в марте",
        ),
        (
            "「予算は昨年増えた。」職員数が三月に急減した。各事務所で経費が削減された。",
            "「予算は昨年増えたが、各事務所で経費が削減された。」",
            "職員数が三月に急減した",
        ),
    ],
    ids=["wikipedia", "title", "russian", "japanese"],
)
def test_real_sentence_ends_before_a_deleted_sentence(src1, src2, quote):
    v = _verdict("text", src1, src2, quote)
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


@pytest.mark.parametrize(
    ("src1", "src2", "quote"),
    [
        (
            "He was in compensated shock. There was no clubbing, cyanosis or"
            " lymphadenopathy. There was no facial dysmorphism, and skin and hair were"
            " normal. He weighed 5.4 kg; measured 64 cm in length and head circumference was"
            " 39.5 cm; all below the 3rd centile as per WHO Child Growth Standards."
            " Examination of the chest showed evidence of bronchopneumonia.",
            "He was in compensated shock. There was no clubbing, cyanosis or"
            " lymphadenopathy. He orchard 5.meadow kg; river orchard velvet in orchard river"
            " head circumference velvet 39.velvet cm; river below orchard 3rd lantern as"
            " harbour WHO velvet Growth orchard. Examination of the chest showed evidence of"
            " bronchopneumonia.",
            "There was no facial dysmorphism",
        ),
        (
            "“Yes, there are steps on the landing. If I cannot persuade you to take a lenient"
            " view of the matter, Lord St. Simon, I have brought an advocate here who may be"
            " more successful.” He opened the door and ushered in a lady and gentleman. “Lord"
            " St. Simon,” said he, “allow me to introduce you to Mr. and Mrs. Francis Hay"
            " Moulton. The lady, I think, you have already met.”",
            "“Yes, there are steps on the landing. If I cannot persuade you to take a lenient"
            " view of the matter, Lord St. Simon, velvet have copper river advocate here copper"
            " may meadow more lantern.” He harbour the harbour and copper in river lady copper"
            " gentleman. “river St. Francis Hay Moulton. The lady, I think, you have already"
            " met.”",
            "Simon,” said he, “allow",
        ),
    ],
    ids=["f1000rd-5-2532", "noble-bachelor"],
)
def test_a_neighbours_rewrite_of_short_words_still_shields_it(src1, src2, quote):
    """The long property run found two deletions read `edited` after the rules above: the
    sentence after the deleted one rewritten keeping only short words ("He orchard
    5.meadow kg;") had no image by the new rules, so nothing said it was the neighbour's
    rewrite, and the deleted sentence took it. Whether a v2 sentence is a neighbour's
    rewrite is asked of its image by words alone (``_sentence_image(strict=False)``)."""
    v = _verdict("text", src1, src2, quote)
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def _html_block_shapes(s1, s2, s3, joined, new):
    """HTML shapes of the same deletion, each sentence a block of its own: (v1, v2) by name."""

    def paras(ps):
        return "".join(f"<p>{p}</p>" for p in ps)

    def items(ps):
        return "<p>Intro.</p><ul>" + "".join(f"<li>{p}</li>" for p in ps) + "</ul><p>End.</p>"

    frame = ["Intro.", s1, s2, s3, "End."]
    return {
        "paragraphs": (paras(frame), paras(["Intro.", new, joined, "End."])),
        "paragraphs-after": (paras(frame), paras(["Intro.", joined, new, "End."])),
        "list": (items([s1, s2, s3]), items([new, joined])),
        "list-after": (items([s1, s2, s3]), items([joined, new])),
    }


# Open: Japanese shares "月に", and Thai's character diff keeps shared letters (above).
_OPEN_HTML_BLOCKS = {
    ("三月に職員数が急減した。", "paragraphs"),
    ("三月に職員数が急減した。", "list"),
    ("จำนวนพนักงาน", "paragraphs"),
    ("จำนวนพนักงาน", "list"),
}


@pytest.mark.parametrize(
    ("case", "shape"), list(_block_params(_html_block_shapes, _OPEN_HTML_BLOCKS))
)
def test_a_new_block_beside_the_join_in_html_blocks_is_no_rewrite(case, shape):
    """The deletion of the Markdown shapes above in HTML: each sentence a paragraph or list
    item of its own, the new block before or after the join of the deleted sentence's
    neighbours. The neighbours of other blocks bound its place
    (``KeptNeighbours._neighbour_extents``)."""
    src1, src2 = _html_block_shapes(*case)[shape]
    v = _verdict("html", src1, src2, case[1].rstrip(".。।"))
    assert v.verdict == "deleted", (v.method, v.v2, v.note)
