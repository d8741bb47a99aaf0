"""A sentence's rewrite stays between its kept neighbours (docs/verdicts.md, "Not text kept
from elsewhere"; ``KeptNeighbours._between_kept_neighbours``, ``MOVED_REWRITE_DICE``).

An attacker's brief found the worst error back: delete the commented sentence, keep the
sentences after it, and add any new sentence one or two sentences on, and the comment read
``edited``, its new place the unrelated sentence ("Members must renew their cards before
May." deleted, "Coffee cards taste better outside." added: they share "cards"). In plain
text, HTML, a Markdown list, a table row, Arabic, Hindi, Thai, real papers and ebooks. A v2
sentence past a sentence the diff kept from the other side of the quote's is its rewrite
only if it keeps many of its words (a sentence moved past its neighbours and rewritten).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16
from tests.engine.test_deleted_span_properties import _SENTENCE, _sources


def _verdict(kind: str, src1: str, src2: str, quote: str):
    v1, v2 = Version.from_source(src1, kind, "v1"), Version.from_source(src2, kind, "v2")
    t = v1.text
    s = t.index(quote)
    e = s + len(quote)
    anchor = Anchor(
        quote,
        t[max(0, s - 32) : s],
        t[e : e + 32],
        start_offset=to_utf16(t, s),
        end_offset=to_utf16(t, e),
    )
    return score(v1, v2, [Comment("c1", "fix", anchor)]).verdicts[0]


Q = "Members must renew their cards before May."
KEPT = ["The office opens at nine every weekday.", "Parking is free for all visitors."]
NEW = "Coffee cards taste better outside."


def test_the_attackers_cases_read_deleted():
    cases = [
        (
            "text",
            " ".join(["Welcome.", Q, *KEPT, "Bring a friend."]),
            " ".join(["Welcome.", *KEPT, "Bring a friend.", NEW]),
        ),
        (
            "text",
            "\n".join(
                f"{i}. {s}"
                for i, s in enumerate(["Open the form.", Q, *KEPT, "Bring a friend."], 1)
            ),
            "\n".join(
                f"{i}. {s}"
                for i, s in enumerate(["Open the form.", *KEPT, NEW, "Bring a friend."], 1)
            ),
        ),
        (
            "html",
            "<table>"
            + "".join(
                f"<tr><td>{s}</td><td>Rule {i}</td></tr>" for i, s in enumerate([Q, *KEPT], 1)
            )
            + "</table>",
            "<table>"
            + "".join(
                f"<tr><td>{s}</td><td>Rule {i}</td></tr>" for i, s in enumerate([*KEPT, NEW], 2)
            )
            + "</table>",
        ),
        (
            "text",
            "مرحبا بكم في النادي. يجب على الأعضاء تجديد بطاقاتهم قبل مايو. يفتح المكتب في التاسعة كل يوم. موقف السيارات مجاني للزوار. أحضر صديقا.",
            "مرحبا بكم في النادي. يفتح المكتب في التاسعة كل يوم. موقف السيارات مجاني للزوار. القهوة بطاقاتهم أفضل في الخارج. أحضر صديقا.",
        ),
        (
            "html",
            "<p>बैठक तीसरी मंजिल के बड़े हॉल में होगी। कार्यालय हर कार्यदिवस सुबह नौ बजे खुलता है। शुल्क मई के अंत से पहले जमा करना होगा।</p><p>आगंतुक इमारत के पीछे मुफ्त में पार्क कर सकते हैं।</p>",
            "<p>बैठक तीसरी मंजिल के बड़े हॉल में होगी। कल मौसम अच्छा रहेगा। कार्यालय हर कार्यदिवस सुबह नौ बजे खुलता है।</p><p>आगंतुक इमारत के पीछे मुफ्त में पार्क कर सकते हैं।</p>",
        ),
    ]
    quotes = [
        Q,
        Q,
        Q,
        "يجب على الأعضاء تجديد بطاقاتهم قبل مايو.",
        "शुल्क मई के अंत से पहले जमा करना होगा।",
    ]
    for (kind, v1, v2), q in zip(cases, quotes, strict=True):
        v = _verdict(kind, v1, v2, q)
        assert v.verdict == "deleted", (q, v.method, v.v2, v.note)


def test_a_sentence_moved_past_its_neighbours_and_rewritten_is_still_edited():
    v1 = " ".join(["Welcome.", Q, *KEPT])
    v2 = " ".join(["Welcome.", *KEPT, "Members must renew their passes before June."])
    v = _verdict("text", v1, v2, Q)
    assert v.verdict == "edited" and "their passes before" in v.v2.text, v


UNRELATED = [
    # no function word ("the", "was") a real sentence shares with every other
    "Coffee tastes better outside.",
    "Lanterns hung over orchard gates.",
    "Copper kettles sing softly.",
    "Velvet moss covers old stones.",
]


def draw_sentences(draw, least: int) -> tuple[str, list[str]]:
    """A real paragraph of ``least`` sentences or more from tests/data (``_sources``), as
    (its source's name, its sentences)."""
    name, paras = draw(st.sampled_from(_sources()))
    para = draw(st.sampled_from([p for p in paras if len(_SENTENCE.split(p)) >= least] or [""]))
    assume(para)
    return name, [s for s in _SENTENCE.split(para) if s]


@st.composite
def paragraph_cases(draw):
    name, sents = draw_sentences(draw, 4)
    i = draw(st.integers(0, len(sents) - 3))
    # the new sentence: unrelated, or unrelated words with one word of the deleted one
    # where that is chance (a sentence of eight words or more: a short one sharing a word
    # and a "was" with it may be its rewrite, MOVED_REWRITE_DICE)
    words = [w for w in sents[i].split() if w.isalpha() and len(w) >= 4]
    if len(sents[i].split()) < 8:
        words = []
    new = draw(st.sampled_from(UNRELATED))
    if words and draw(st.booleans()):
        w = draw(st.sampled_from(words))
        new = new.replace(new.split()[1], w, 1)
    at = draw(st.integers(i + 2, len(sents)))
    return name, sents, i, at, new, draw(st.sampled_from(["text", "html"]))


@given(paragraph_cases())
def test_a_deleted_sentence_is_not_the_new_sentence_two_on_in_real_paragraphs(case):
    name, sents, i, at, new, kind = case
    quote = sents[i]
    rest = sents[:i] + sents[i + 1 :]
    rest.insert(at - 1, new)
    src1, src2 = " ".join(sents), " ".join(rest)
    assume(src1.count(quote) == 1 and quote not in src2)
    if kind == "html":
        src1, src2 = f"<p>{src1}</p>", f"<p>{src2}</p>"
        assume("<" not in quote and "&" not in quote)
    v = _verdict(kind, src1, src2, quote)
    assert v.verdict == "deleted", (name, quote, new, v.method, v.v2, v.note)


def test_the_rule_holds_on_a_seeded_sample_of_real_paragraphs():
    """The same on a fixed sample, so a regression shows without Hypothesis' luck."""
    rnd = random.Random(7)
    checked = 0
    for name, paras in _sources():
        for para in paras:
            sents = [s for s in _SENTENCE.split(para) if s]
            if len(sents) < 4 or rnd.random() > 0.05:
                continue
            i = rnd.randrange(len(sents) - 2)
            quote = sents[i]
            rest = sents[:i] + sents[i + 1 :]
            rest.insert(rnd.randrange(i + 1, len(rest) + 1), rnd.choice(UNRELATED))
            src1, src2 = " ".join(sents), " ".join(rest)
            if src1.count(quote) != 1 or quote in src2:
                continue
            v = _verdict("text", src1, src2, quote)
            assert v.verdict == "deleted", (name, quote, v.method, v.v2, v.note)
            checked += 1
    assert checked >= 50


def test_a_rewrite_beside_a_neighbour_moved_into_the_block_before_is_edited():
    """The long Hypothesis profile's case (f1000rd/9-295): the sentence after the quote's
    moved up into the paragraph before, and the quote's sentence was rewritten in place;
    the diff keeps the moved neighbour, so the rewrite lies past it, in another block: a
    neighbour that left the block bounds nothing of the quote's place."""
    s1 = "Research software has become a central asset in academic research."
    s2 = "It optimizes existing and enables new research methods."
    s3 = "Research software must be sustainable in order to understand."
    v1 = f"<p>Abstract</p>\n<p>{s1} {s2} {s3}</p>"
    v2 = f"<p>Abstract {s2}</p>\n<p>orchard velvet has velvet a harbour asset velvet academic copper. {s3}</p>"
    v = _verdict("html", v1, v2, "Research software has")
    assert v.verdict == "edited", (v.method, v.v2, v.note)
    assert v.v2.text.startswith("orchard velvet"), v.v2


def test_two_content_words_shared_by_chance_are_no_rewrite():
    """The long profile's case (Standard Ebooks, A Scandal in Bohemia, public domain): the
    new sentence took one word of the deleted one and shared another by chance, half of the
    short sentence's content words (MOVED_REWRITE_SHARED)."""
    q = "I love and am loved by a better man than he."
    before = "And yet, with a smile, she went on."
    kept = ["The photograph is safe.", "My husband and I leave tonight.", "He may rest easy."]
    for new in ("Coffee love better outside.", "Das Kaffee love better draußen."):
        src1 = " ".join([before, q, *kept])
        src2 = " ".join([before, *kept[:2], new, kept[2]])
        for kind, a, b in (("text", src1, src2), ("html", f"<p>{src1}</p>", f"<p>{src2}</p>")):
            v = _verdict(kind, a, b, q)
            assert v.verdict == "deleted", (kind, new, v.method, v.v2, v.note)


_P0 = (
    "We had reached Baker Street and had stopped at the door. He was searching his pockets"
    " for the key when someone passing said:"
)
_A = (
    "There were several people on the pavement at the time, but the greeting appeared to"
    " come from a slim youth in an ulster who had hurried by."
)
_B = (
    "“I’ve heard that voice before,” said Holmes, staring down the dimly lit street. “Now,"
    " I wonder who the deuce that could have been.”"
)
_C = (
    "I slept at Baker Street that night, and we were engaged upon our toast and coffee in"
    " the morning when the King of Bohemia rushed into the room."
)
_D = "“You have really got it!” he cried, grasping Sherlock Holmes by either shoulder."
_REWRITES = {
    # the property's rewrite: most words replaced, the sentence's shape kept
    "rewritten": "“orchard’copper heard lantern velvet meadow,” said river, staring river the"
    " velvet lit harbour. “Now, velvet wonder river the copper that harbour have river.”",
    "nothing": None,
}


def test_a_neighbour_that_moved_past_the_sentence_bounds_nothing():
    """The long profile's case (Standard Ebooks, A Scandal in Bohemia, public domain): the
    paragraph before the quote's moved below the one after it, and the quote's sentence was
    rewritten where it stood. The diff keeps the moved paragraph and deletes and re-inserts
    the one it jumped, so the kept one is no bound of the rewrite's place
    (``KeptNeighbours._jumped``): the verdict is the one it has with the neighbour left in place."""
    quote = "I’ve heard that voice"
    t1 = [_P0, _A, _B, _C, _D]
    for name, new in _REWRITES.items():
        mid = [new] if new else []
        moved = [_P0, *mid, _C + " " + _A, _D]
        in_place = [_P0, _A, *mid, _C, _D]
        for kind, join in (
            ("text", "\n\n".join),
            ("html", lambda ps: "".join(f"<p>{p}</p>" for p in ps)),
        ):
            got = _verdict(kind, join(t1), join(moved), quote)
            want = _verdict(kind, join(t1), join(in_place), quote)
            assert got.verdict == want.verdict, (name, kind, got, want)
            assert got.verdict == ("edited" if new else "deleted"), (name, kind, got)
            if new:
                assert got.v2.text in new, (name, kind, got)


def test_a_neighbour_that_jumped_leaves_the_other_side_bounded():
    """The long profile's case (F1000RD 8-103, CC BY 4.0): the quote's sentence deleted and
    the sentence before it moved under the table heading after the paragraph. The moved
    neighbour bounds nothing, but the sentence after the quote's, where it stands, still
    bounds that side: the heading "Table 1." the diff re-inserted past it is no rewrite."""
    note = "Of note, his physical exam remained consistent with a euvolemic hyponatremia."
    a = (
        "His liver enzymes were within normal limits (AST = 22 IU/L) and his kidney"
        " function remained normal (Cr = 0.7 mg/dL)."
    )
    b = (
        "Further, his thyroid stimulating hormone and cortisol levels were normal ( Table"
        " 1), and his urine sodium (128 mmol/L) remained high."
    )
    c = "A computed tomography (CT) scan of the brain revealed no evidence of hemorrhage."
    src1 = f"{note} {a} {b} {c}\n\nTable 1.\n\nThe end of the case."
    src2 = f"{note} {c}\n\nTable 1. {a}\n\nThe end of the case."
    for kind, s1, s2 in (
        ("text", src1, src2),
        ("html", *("".join(f"<p>{p}</p>" for p in s.split("\n\n")) for s in (src1, src2))),
    ):
        v = _verdict(kind, s1, s2, "Further, his thyroid")
        assert v.verdict == "deleted", (kind, v.method, v.v2, v.note)


def test_a_sentence_that_moved_far_past_kept_text_leaves_its_neighbour_a_bound():
    """The long profile's case (Standard Ebooks, A Scandal in Bohemia, public domain): the
    sentence after the quote's moved up three paragraphs, past text that stayed in order; so
    it is the one that moved, the kept sentence before the quote's still bounds, and the
    quote's sentence rewritten where it stood reads edited (``KeptNeighbours._jumped``)."""
    road = "We turned down one of the quiet streets which lead towards the Edgeware Road."
    mid = [
        "“You did it very nicely, Doctor,” he remarked. “Nothing could have been better.”",
        "“And how did you find out?”",
        "“She showed me, as I told you she would.”",
    ]
    head = "“I do not wish to make a mystery,” said he, laughing. “The matter was perfectly simple."
    quote_sentence = "You, of course, saw that everyone in the street was an accomplice."
    moved = "They were all engaged for the evening.”"
    rewrite = "copper, copper course, river orchard river in copper street harbour an lantern."
    v1 = [road, *mid, f"{head} {quote_sentence} {moved}"]
    v2 = [f"{road} {moved}", *mid, f"{head} {rewrite}"]
    for kind, join in (
        ("text", "\n\n".join),
        ("html", lambda ps: "".join(f"<p>{p}</p>" for p in ps)),
    ):
        v = _verdict(kind, join(v1), join(v2), "You, of course, saw that")
        assert v.verdict == "edited" and v.v2.text in rewrite, (kind, v.method, v.v2, v.note)


def test_a_new_block_after_the_paragraph_is_past_its_kept_neighbours():
    """The long profile's case (F1000RD 9-295, CC BY 4.0, a boxed text): the quote's sentence
    deleted, the sentences after it kept, and a new sentence sharing a word with it added as
    a block of its own after the paragraph. A kept neighbour's bound covers the blocks of only
    new text beside its own (``KeptNeighbours._with_new_blocks``), as it covers a sentence added
    inside the paragraph."""
    sents = [
        "Together with the dean she develops a course for the curriculum.",
        "As a lesson from her own career, she starts the course with sessions on the shell.",
        "This is very fruitful, and Kim is able to hire one of the course students.",
        "Kim gets to travel the world to visit the groups who are using the library.",
    ]
    new = "Coffee lesson better outside."
    kept = [sents[0], *sents[2:]]
    cases = [
        ("html", f"<p>{' '.join(sents)}</p>", f"<p>{' '.join(kept)}</p><p>{new}</p>"),
        ("html", f"<p>{' '.join(sents)}</p>", f"<p>{' '.join(kept)}</p><p>{new}</p><p>Bye.</p>"),
        ("text", " ".join(sents), " ".join(kept) + "\n\n" + new),
    ]
    for kind, src1, src2 in cases:
        v = _verdict(kind, src1, src2, sents[1])
        assert v.verdict == "deleted", (kind, v.method, v.v2, v.note)


def test_a_quote_over_several_deleted_items_is_bounded_by_the_whole_quotes_neighbours():
    """The long profile's case (F1000RD 9-295, CC BY 4.0): a quote over three list items, all
    deleted, and a new sentence sharing its first word added after the sentence that followed
    the quote. Each sentence of the quote is bounded by the kept neighbours of the whole
    quote: its inner sentences' own neighbours were deleted with it."""
    head = "- Infrastructure issues : there is not yet enough evidence for either kind."
    items = [
        "This in turn leads to a lack of infrastructure as a whole.",
        "- Legal issues : Many obstacles for research software pertain to legal issues, such as"
        " applicable licensing and compatibility of licenses 45 , and decisions about license"
        " types.",
        "- Funding issues : Despite some individual initiatives 46 – 49 , funding for the"
        " creation, maintenance, and support of sustainable research software is still scarce.",
        "- Slow adoption : Career options for research software work are not fully determined.",
    ]
    after = [
        "Initially, the RSE initiative in the UK has made progress in this area.",
        "In Germany , the US , and the Netherlands , this is still work in progress.",
    ]
    quote = "\n".join(items)
    src1 = head[:-1] + " 42 – 44 . " + quote + " " + " ".join(after)
    src2 = head[:-1] + " 42 – 44 . " + after[0] + " Coffee This better outside. " + after[1]
    v = _verdict("text", src1, src2, quote)
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def test_the_attackers_second_brief_reads_deleted():
    """An attacker's cases against the rules above: a neighbour that jumped leaves the next
    kept sentence on its side as the bound ("Welcome to the club house."), and a new sentence
    that shares only short words with the deleted one ("the", "is", "in") is no moved
    rewrite of it, however alike their shapes (``_count_dice``)."""
    q = "Members must renew their cards before May."
    v1 = (
        f"Welcome to the club house. The office opens at nine every weekday. {q} Parking is"
        " free for all visitors of the club. Bring a friend to the summer party."
    )
    v2 = (
        "Coffee cards taste better outside. Welcome to the club house. Parking is free for"
        " all visitors of the club. The office opens at nine every weekday. Bring a friend"
        " to the summer party."
    )
    kept = " ".join(
        f"Rule {i} says the office {w} open."
        for i, w in enumerate(["is", "was", "will be", "may be", "must be"] * 2)
    )
    fee1 = f"Welcome. The fee is due in May. {kept} Bye now."
    fee2 = f"Welcome. {kept} The sun is out in June. Bye now."
    for quote, a, b in ((q, v1, v2), ("The fee is due in May.", fee1, fee2)):
        for kind, x, y in (("text", a, b), ("html", f"<p>{a}</p>", f"<p>{b}</p>")):
            v = _verdict(kind, x, y, quote)
            assert v.verdict == "deleted", (quote, kind, v.method, v.v2, v.note)


_REPORTED = (
    "Here we report the case of a middle-age man with known small cell carcinoma of the lung, "
    "who developed a progressive, profound hyponatremia despite strict fluid restriction and "
    "ADH-antagonist therapy."
)
_LABORATORY = (
    "Laboratory analysis revealed elevated urine osmoles, very low levels of ADH, "
    "inappropriately low levels of aldosterone, and elevated serum ANP despite no known "
    "history of heart failure and no clinical signs of volume overload."
)


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_heading_edited_past_a_neighbour_that_stayed_is_no_rewrite(kind):
    """The long Hypothesis profile's case (f1000rd/3-195): the paragraph's first sentence
    deleted, the sentence after it kept in place, and the heading after the paragraph
    edited ("Case description" to "Case zephyr"). The heading shares "case" with the
    deleted sentence, and the kept neighbour bounded only its own v2 block, so the deleted
    sentence read `edited` at "zephyr". A neighbour that stayed in its block's image, in a
    v2 block of that block's text alone, bounds the rewrite however far."""
    src1 = f"{_REPORTED} {_LABORATORY}\n\nCase description"
    src2 = f"{_LABORATORY}\n\nCase zephyr"
    if kind == "html":
        src1, src2 = ("".join(f"<p>{p}</p>" for p in s.split("\n\n")) for s in (src1, src2))
    v = _verdict(kind, src1, src2, "of the lung, who developed")
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


# Standard Ebooks (public domain text, CC0 markup): the colophon of tests/data/standardebooks
# 69ebbee, and three paragraphs of "The Adventure of the Noble Bachelor" (8afef18)
_SWAPPED = {
    "english": (
        "This ebook was produced for the",
        "and is based on a transcription produced in 1999 by",
        "An Anonymous Volunteer and Jose Menendez",
        "and on digital scans available at the",
        "The cover page is adapted from",
        "velvet copper Volunteer river Jose river",
        "An Anonymous Volunteer",
    ),
    "arabic": (
        "أنتج هذا الكتاب الإلكتروني من أجل المشروع",
        "وهو مبني على نسخة أعدها في عام ١٩٩٩ متطوع",
        "متطوع مجهول الاسم وخوسيه مينينديز معا",
        "وعلى صور رقمية متاحة في الأرشيف",
        "صفحة الغلاف مقتبسة من لوحة",
        "نحاس نهر مجهول بستان مينينديز فانوس",
        "متطوع مجهول الاسم",
    ),
    "chinese": (
        "本电子书为标准电子书项目制作",
        "它根据一九九九年一位志愿者的转录本",
        "匿名志愿者与何塞梅南德斯合作完成",
        "以及档案馆网上的数字扫描件",
        "封面改编自一幅一九零四年的画",
        "铜河志愿者与天鹅绒果园合作完成",
        "匿名志愿者",
    ),
}


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize("script", sorted(_SWAPPED))
def test_neighbours_that_swapped_either_may_have_moved(script: str, kind: str) -> None:
    """The long profile's case (the Standard Ebooks colophon): the paragraph before the
    quote's moved below the one after it, and the quote's sentence was rewritten where it
    stood. The diff kept the paragraph after it (not the one that moved) and re-inserted
    the one before: either of two neighbours that swapped places may be the one that moved,
    and a rewrite between the ones that stayed is the sentence's (``_jumped``, two
    readings). Deleted, with nothing new where it stood, it reads deleted."""
    x, a, q, b, c, rewrite, quote = _SWAPPED[script]
    join = "\n\n".join if kind == "text" else lambda ps: "".join(f"<p>{p}</p>" for p in ps)
    v = _verdict(kind, join([x, a, q, b, c]), join([x, rewrite, f"{b} {a}", c]), quote)
    assert v.verdict == "edited" and v.v2.text in rewrite, (v.method, v.v2, v.note)
    v = _verdict(kind, join([x, a, q, b, c]), join([x, f"{b} {a}", c]), quote)
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


_BACHELOR = [
    "“Oh, indeed! Then you think that the Serpentine plays no part in the matter?”",
    "“Then perhaps you will kindly explain how it is that we found this in it?” He opened his"
    " bag as he spoke, and tumbled onto the floor a wedding-dress of watered silk, a pair of"
    " white satin shoes and a bride’s wreath and veil, all discoloured and soaked in water."
    " “There,” said he, putting a new wedding-ring upon the top of the pile. “There is a little"
    " nut for you to crack, Master Holmes.”",
    "“Oh, indeed!” said my friend, blowing blue rings into the air. “You dragged them from the"
    " Serpentine?”",
    "“No. They were found floating near the margin by a park-keeper. They have been identified"
    " as her clothes, and it seemed to me that if the clothes were there the body would not be"
    " far off.”",
    "“By the same brilliant reasoning, every man’s body is to be found in the neighbourhood of"
    " his wardrobe. And pray what did you hope to arrive at through this?”",
]


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_block_that_moved_but_for_a_short_sentence_carries_its_neighbours_place(kind):
    """The long profile's case ("The Adventure of the Noble Bachelor"): the paragraph before
    the quote's moved below the one after it ("“No. They were found …"), which the diff
    took for moved but for its first sentence, "“No.", too short to move and aligned on
    its own; the quote's sentence, rewritten where it stood, is just before that block's
    copy (``TextDiff.moved_part``)."""
    x, a, q, b, c = _BACHELOR
    rewrite = (
        "“velvet, lantern!” said harbour friend, harbour blue harbour into harbour air."
        " “lantern dragged copper from meadow Serpentine?”"
    )
    join = "\n\n".join if kind == "text" else lambda ps: "".join(f"<p>{p}</p>" for p in ps)
    v = _verdict(
        kind, join([x, a, q, b, c]), join([x, rewrite, f"{b} {a}", c]), "Oh, indeed!” said my"
    )
    assert v.verdict == "edited" and v.v2.text in rewrite, (v.method, v.v2, v.note)
