"""Equal copies are no evidence (docs/verdicts.md, "Equal copies"): two sentences that end
(or begin) with the same text, one deleted and the other rewritten. The diff may keep the
deleted sentence's copy of the shared text at the rewrite, an alignment of equal cost to
keeping the rewritten sentence's own; that choice must not credit the deletion as a fix.

Explicit cases in plain text and HTML (the first found by the long property run on F1000RD
6-1642, the second the attacker's), and a Hypothesis property over sentences in six
scripts (CJK among them, written without spaces).
"""

from __future__ import annotations

import html

import pytest
from hypothesis import given, settings, strategies as st

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text import utf16

INTRO = "Intro sentence stays here as it was. "
OUTRO = " The end stays too, unchanged."

CASES = [
    pytest.param(
        "Such concerns are mostly heard from postdocs ( Powell, 2015; Smaglik, 2016). "
        "Conversely, the academic establishment benefits from the status quo ( Smaglik, 2016).",
        "meadow velvet are velvet heard velvet postdocs ( river, 2015; velvet, 2016).",
        {"Such concerns are": "edited", "Conversely, the academic": "deleted"},
        id="f1000rd-citation-second-deleted",
    ),
    pytest.param(
        "First, some drugs also risk hypokalaemia (e.g. thalidomide: NCT04273529 , "
        "NCT04273581 ; and bevacizumab: NCT04275414 ). Second, cardiac involvement in "
        "SARS-CoV-2 is high (44.4% of infected patients admitted to ICU experienced an "
        "arrhythmia).",
        "First, some drugs also risk copper (e.g. thalidomide: velvet , NCT04273581 ; "
        "copper bevacizumab: river ).",
        {"Second, cardiac involvement": "deleted"},
        id="f1000rd-reference-rewritten-next-sentence-deleted",
    ),
    pytest.param(
        "Dogs need long walks every morning ( Smith, 2020). "
        "Cats sleep through the warm afternoon ( Smith, 2020).",
        "Dogs want short runs at dawn ( Smith, 2020).",
        {"Dogs need long": "edited", "Cats sleep through": "deleted"},
        id="citation-second-deleted",
    ),
    pytest.param(
        "Dogs need long walks every morning ( Smith, 2020). "
        "Cats sleep through the warm afternoon ( Smith, 2020).",
        "Cats nap through the hot afternoon ( Smith, 2020).",
        {"Dogs need long": "deleted", "Cats sleep through": "edited"},
        id="citation-first-deleted",
    ),
    pytest.param(
        "However, the dogs need long walks every morning. "
        "However, the cats sleep through the warm afternoon.",
        "However, the cats nap in the hot sun.",
        {"dogs need long": "deleted", "cats sleep through": "edited"},
        id="same-start-first-deleted",
    ),
    pytest.param(
        "However, the dogs need long walks every morning. "
        "However, the cats sleep through the warm afternoon.",
        "However, the dogs want short runs.",
        {"dogs need long": "edited", "cats sleep through": "deleted"},
        id="same-start-second-deleted",
    ),
    pytest.param(
        "الكلاب تحتاج إلى مشي طويل كل صباح ( سميث، 2020). "
        "القطط تنام طوال فترة الظهيرة الدافئة ( سميث، 2020).",
        "الكلاب تريد جريا قصيرا عند الفجر ( سميث، 2020).",
        {"الكلاب تحتاج": "edited", "القطط تنام": "deleted"},
        id="arabic-citation-second-deleted",
    ),
]


def _comment(cid: str, text: str, quote: str) -> Comment:
    i = text.index(quote)
    j = i + len(quote)
    return Comment(
        cid,
        "fix this",
        Anchor(
            quote,
            text[max(0, i - 32) : i],
            text[j : j + 32],
            start_offset=utf16.to_utf16(text, i),
            end_offset=utf16.to_utf16(text, j),
        ),
    )


def _html(text: str) -> str:
    """``text`` as an HTML page, each of its paragraphs (``\n\n`` apart) a ``<p>``."""
    return "".join(f"<p>{html.escape(p)}</p>" for p in text.split("\n\n"))


def _verdicts(v1_text: str, v2_text: str, quotes: list[str], kind: str) -> dict[str, str]:
    if kind == "html":
        v1_text, v2_text = _html(v1_text), _html(v2_text)
    v1 = Version.from_source(v1_text, kind, "v1")
    v2 = Version.from_source(v2_text, kind, "v2")
    comments = [_comment(f"c{k}", v1.text, q) for k, q in enumerate(quotes)]
    by = {v.comment_id: v for v in score(v1, v2, comments).verdicts}
    return {q: by[f"c{k}"].verdict for k, q in enumerate(quotes)}


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(("pair", "rewrite", "expected"), CASES)
def test_a_shared_ending_or_start_credits_no_deletion(pair, rewrite, expected, kind):
    got = _verdicts(INTRO + pair + OUTRO, INTRO + rewrite + OUTRO, list(expected), kind)
    assert got == expected


# Words of five scripts written with spaces; the citation each sentence ends with.
SCRIPTS = {
    "latin": (
        [
            "river",
            "lantern",
            "orchard",
            "velvet",
            "copper",
            "meadow",
            "harbour",
            "walks",
            "morning",
            "sleeps",
            "warm",
            "afternoon",
            "garden",
            "window",
            "letter",
            "silver",
            "winter",
        ],
        "( Smith, 2020).",
    ),
    "arabic": (
        [
            "نهر",
            "فانوس",
            "بستان",
            "مخمل",
            "نحاس",
            "مرج",
            "ميناء",
            "صباح",
            "ظهيرة",
            "حديقة",
            "نافذة",
            "رسالة",
        ],
        "( سميث، 2020).",
    ),
    "persian": (
        [
            "رود",
            "فانوس",
            "باغ",
            "مخمل",
            "مس",
            "چمن",
            "بندر",
            "صبح",
            "عصر",
            "پنجره",
            "نامه",
            "زمستان",
        ],
        "( اسمیت، ۲۰۲۰).",
    ),
    "cyrillic": (
        [
            "река",
            "фонарь",
            "сад",
            "бархат",
            "медь",
            "луг",
            "гавань",
            "утро",
            "вечер",
            "окно",
            "письмо",
            "зима",
        ],
        "( Смит, 2020).",
    ),
    "emoji": (
        [
            "river🌊",
            "lantern🏮",
            "orchard🍎",
            "velvet",
            "copper🪙",
            "meadow🌼",
            "harbour⚓",
            "walks",
            "morning🌅",
            "warm",
        ],
        "( Smith, 2020) 🙂.",
    ),
    # written without spaces: each character a word, the sentences joined with nothing
    "cjk": (list("河灯果丝绒铜草地港早晨午花窗信银冬猫狗"), "（史密斯，2020）。"),
}


@st.composite
def pairs(draw):
    words, cite = SCRIPTS[draw(st.sampled_from(sorted(SCRIPTS)))]
    # two sentences of different words, and a rewrite of one of them: its first word kept,
    # its other words new (none of either sentence's), the citation kept
    pool = draw(st.permutations(words))
    a, b, fresh = pool[:4], pool[4:8], pool[8:]
    deleted = draw(st.sampled_from("ab"))
    kept = a if deleted == "b" else b
    new = [kept[0]] + draw(st.lists(st.sampled_from(fresh), min_size=2, max_size=4))
    return a, b, new, deleted, cite


@settings(max_examples=150, deadline=None)
@given(pairs())
def test_a_deleted_sentence_sharing_its_citation_is_never_a_fix(case):
    a, b, new, deleted, cite = case
    sp = "" if cite.startswith("（") else " "
    sa, sb = sp.join(a) + sp + cite, sp.join(b) + sp + cite
    v1 = INTRO + sa + " " + sb + OUTRO
    v2 = INTRO + sp.join(new) + sp + cite + OUTRO
    gone = sa if deleted == "a" else sb
    quote = sp.join((gone.split() if sp else list(gone))[:3])
    if v1.count(quote) != 1:
        return  # the quote must point at one place
    for kind in ("text", "html"):
        got = _verdicts(v1, v2, [quote], kind)[quote]
        assert got == "deleted", (kind, v1, v2, quote, got)


# Two blocks that begin alike, one deleted and the other rewritten (the long property run's
# case, from the realworld email templates: the diff kept the deleted block's ", thanks for "
# at the rewrite, so the rewrite read as another block's image and `deleted`).
_BEFORE = "Submit the form on our website. Refunds are issued within 30 days.\n\n"
_AFTER = "\n\nThe blue kettle sat beside the blue teapot on the shelf."
_LONG = "Hi {{FirstName}}, thanks for joining us at the annual partner summit last week in Berlin."
_SHORT = "Hi, thanks for joining the Berlin summit."
_Q_LONG, _Q_SHORT = "the annual partner summit", "joining the Berlin summit"
_SHORT_REWRITE = "Hi, thanks for copper lantern Berlin harbour."
_LONG_REWRITE = "Hi {{FirstName}}, thanks for coming to the yearly partner summit in Berlin."

BLOCKS = [
    pytest.param(
        [_LONG.replace("Berlin.", "Berlin.Unsubscribe"), _SHORT],
        _SHORT_REWRITE,
        {"last week in Berlin.Unsubscribe": "deleted", _Q_SHORT: "edited"},
        id="glued-first-deleted",
    ),
    pytest.param(
        [_LONG, _SHORT],
        _LONG_REWRITE,
        {_Q_LONG: "edited", _Q_SHORT: "deleted"},
        id="second-deleted",
    ),
    pytest.param(
        [_SHORT, _LONG],
        _SHORT_REWRITE,
        {_Q_LONG: "deleted", _Q_SHORT: "edited"},
        id="second-deleted-short-first",
    ),
    pytest.param(
        [_SHORT, _LONG],
        _LONG_REWRITE,
        {_Q_LONG: "edited", _Q_SHORT: "deleted"},
        id="first-deleted-short-first",
    ),
    pytest.param(
        [_LONG, _SHORT],
        _SHORT_REWRITE,
        {_Q_LONG: "deleted", _Q_SHORT: "edited"},
        id="first-deleted-diff-aligns-it",
        marks=pytest.mark.xfail(
            strict=True,
            reason="known limit (docs/verdicts.md): the word diff ties between the two blocks and "
            "keeps the first one's words, so the deleted block holds all the kept text",
        ),
    ),
]


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(("blocks", "rewrite", "expected"), BLOCKS)
def test_blocks_that_begin_alike(blocks, rewrite, expected, kind):
    v1 = _BEFORE + "\n\n".join(blocks) + _AFTER
    v2 = _BEFORE + rewrite + _AFTER
    assert _verdicts(v1, v2, list(expected), kind) == expected


# The attacker's cases across a paragraph break (and list items): two paragraphs that end
# alike, one deleted and the other rewritten. The diff's image of the deleted paragraph
# held the shared ending it kept, so the other paragraph could not claim the rewrite.
PARAGRAPHS = [
    pytest.param(
        "Dogs walk of the data.\n\nCats sleep of the data.",
        "Dogs run of the data.",
        {"Cats sleep": "deleted"},
        id="shortest",
    ),
    pytest.param(
        "Dogs walk of the data.\n\nCats sleep of the data.\n\nBirds sing of the data.",
        "Cats nap of the data.",
        {"Dogs walk": "deleted", "Birds sing": "deleted"},
        id="three-two-deleted",
    ),
    pytest.param(
        "Intro sentence stays here as it was.\n\nDogs need long walks every morning, and the "
        "rest of it too.\n\nCats sleep through the warm afternoon, and the rest of it too.\n\n"
        "The end stays too, unchanged.",
        "Intro sentence stays here as it was.\n\nHounds prefer brief jogs, and the rest of it "
        "too.\n\nThe end stays too, unchanged.",
        {"Cats sleep through": "deleted"},
        id="rewrite-shares-no-word",
    ),
    pytest.param(
        "Dogs need long walks, as Smith argued in 2020, every morning.\n\n"
        "Cats sleep, as Smith argued in 2020, all afternoon.",
        "Dogs want runs, as Smith argued in 2020, at dawn.",
        {"Cats sleep": "deleted", "Dogs need long": "edited"},
        id="shared-middle",
    ),
    pytest.param(
        "狗每天早上都需要长时间散步（史密斯，2020）。\n\n猫在温暖的下午一直睡觉（史密斯，2020）。",
        "狗喜欢在黎明短跑（史密斯，2020）。",
        {"猫在温暖": "deleted"},
        id="chinese",
    ),
]


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(("v1_text", "v2_text", "expected"), PARAGRAPHS)
def test_paragraphs_that_end_alike(v1_text, v2_text, expected, kind):
    assert _verdicts(v1_text, v2_text, list(expected), kind) == expected


# The attacker's Hindi case: nearly every Hindi sentence ends with a short auxiliary ("हैं",
# "है"), so a deleted sentence's "हैं" before the citation both sentences end with is kept at
# the neighbour's rewrite. Keeping the neighbour's citation instead loses only that short
# word: the kept run is no evidence for the deleted sentence (a near-equal copy). And the
# word sets once cut Hindi words at their vowel signs ("बिल्लियाँ" into "ब", "ल", "य").
SHORT_ENDINGS = [
    pytest.param(
        "कुत्तों को हर सुबह लंबी सैर चाहिए ( स्मिथ, 2020)।\n\nबिल्लियाँ गर्म दोपहर में सोती हैं ( स्मिथ, 2020)।",
        "कुत्ते भोर में छोटी दौड़ पसंद करते हैं ( स्मिथ, 2020)।",
        {"बिल्लियाँ गर्म": "deleted"},
        id="hindi-paragraphs",
    ),
    pytest.param(
        "कुत्तों को हर सुबह लंबी सैर चाहिए ( स्मिथ, 2020)। बिल्लियाँ गर्म दोपहर में सोती हैं ( स्मिथ, 2020)।",
        "कुत्ते भोर में छोटी दौड़ पसंद करते हैं ( स्मिथ, 2020)।",
        {"बिल्लियाँ गर्म": "deleted"},
        id="hindi-one-paragraph",
    ),
    pytest.param(
        "কুকুরদের প্রতিদিন সকালে লম্বা হাঁটা দরকার ( স্মিথ, 2020)।\n\nবিড়ালরা উষ্ণ বিকেলে ঘুমায় করে ( স্মিথ, 2020)।",
        "কুকুর ভোরে ছোট দৌড় পছন্দ করে ( স্মিথ, 2020)।",
        {"বিড়ালরা উষ্ণ": "deleted"},
        id="bengali-paragraphs",
    ),
    pytest.param(
        "Dogs need long walks every morning ( Smith, 2020).\n\n"
        "Cats sleep through the warm afternoon, so do I ( Smith, 2020).",
        "Dogs want short runs at dawn, so do I ( Smith, 2020).",
        {"Cats sleep through": "deleted"},
        id="english-short-words-before-the-citation",
    ),
    # a citation cut at its semicolon: the v2 paragraph is two sentence pieces, and keeps
    # text of the first paragraph alone (the second deleted with the break before it)
    pytest.param(
        "Dogs need long walks every morning ( Powell, 2015; Smaglik, 2016).\n\n"
        "Cats sleep through the warm afternoon ( Powell, 2015; Smaglik, 2016).",
        "Dogs want runs ( Powell, 2015; Smaglik, 2016).",
        {"Cats sleep through": "deleted"},
        id="semicolon-citation-paragraphs",
    ),
    pytest.param(
        "Dogs need long walks every morning ( Powell, 2015; Smaglik, 2016).\n\n"
        "Cats sleep through the warm afternoon ( Powell, 2015; Smaglik, 2016).",
        "Dogs want short runs at dawn ( Powell, 2015; Smaglik, 2016).",
        {"Cats sleep through": "deleted"},
        id="semicolon-citation-paragraphs-longer",
    ),
]


# The same in other languages whose sentences end in short grammar words, and with
# citations of other forms: Japanese writes its auxiliaries in hiragana ("ます", "のです"),
# which carry no content; a numbered citation "[12]." holds no content word at all, so
# the kept run " as we do [12]." is short words and marks alone.
SHORT_ENDINGS += [
    pytest.param(
        "犬は毎朝長い散歩が必要です（スミス、2020）。\n\n猫は暖かい午後ずっと眠るのです（スミス、2020）。",
        "犬は夜明けに短く走るのです（スミス、2020）。",
        {"猫は暖かい": "deleted"},
        id="japanese-auxiliary",
    ),
    pytest.param(
        "犬は毎朝長い散歩が必要です（スミス、2020）。猫は暖かい午後ずっと眠ります（スミス、2020）。",
        "犬は夜明けに短く走ります（スミス、2020）。",
        {"猫は暖かい": "deleted"},
        id="japanese-one-paragraph",
    ),
    pytest.param(
        "کتوں کو ہر صبح لمبی سیر کی ضرورت ہے ( اسمتھ، 2020)۔\n\n"
        "بلیاں گرم دوپہر میں سوتی ہیں ( اسمتھ، 2020)۔",
        "کتے صبح سویرے چھوٹی دوڑ پسند کرتے ہیں ( اسمتھ، 2020)۔",
        {"بلیاں گرم": "deleted"},
        id="urdu",
    ),
    pytest.param(
        "Köpeklerin her sabah uzun yürüyüşe ihtiyacı var ( Smith, 2020). "
        "Kediler sıcak öğleden sonra uyur ve de ( Smith, 2020).",
        "Köpekler şafakta kısa koşmayı sever ve de ( Smith, 2020).",
        {"Kediler sıcak": "deleted"},
        id="turkish",
    ),
    pytest.param(
        "Dogs need long walks every morning [12].\n\n"
        "Cats sleep through the warm afternoon as we do [12].",
        "Dogs want short runs at dawn as we do [12].",
        {"Cats sleep through": "deleted"},
        id="numbered-citation",
    ),
    pytest.param(
        "Dogs need long walks every morning (see: Smith, 2020; Li, 2019). "
        "Cats sleep through the warm afternoon so it is (see: Smith, 2020; Li, 2019).",
        "Dogs want short runs at dawn so it is (see: Smith, 2020; Li, 2019).",
        {"Cats sleep through": "deleted"},
        id="colon-and-semicolon-citation",
    ),
]


# A rewrite that keeps its sentence's first word and takes only the deleted neighbour's
# short last words or its numbered citation (real sentences, F1000RD 9-295 and 3-195): the
# neighbour's kept " of use." or " 7, 8 ." touches no content word, and is no evidence.
SHORT_ENDINGS += [
    pytest.param(
        "This is not automatically the case for students, freelancers, and individual "
        "external cooperation partners. Employment and service contracts with contributors "
        "could contain regulations regarding the transfer of rights of use.",
        "This orchard river meadow of use.",
        {"Employment and service": "deleted"},
        id="chance-short-ending",
    ),
    pytest.param(
        "Further support for this hypothesis arose when researchers demonstrated ectopic "
        "production of ANP mRNA in both tumors and tumor cells of patients with hyponatremia "
        "of malignancy from small cell carcinoma.\n\nThis has been shown using a number of "
        "techniques including northern blot, PCR, and nuclease protection assays 1, 7, 23 , "
        "and the ANP peptide itself has been detected in small cell lung cancer tumors 7, "
        "22, 29, 30 .",
        "Further harbour meadow lantern 7, 22, 29, 30 .",
        {"This has been": "deleted"},
        id="numbered-citation-of-the-deleted-paragraph",
    ),
]


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(("v1_text", "v2_text", "expected"), SHORT_ENDINGS)
def test_short_words_or_a_semicolon_before_a_shared_citation(v1_text, v2_text, expected, kind):
    assert _verdicts(v1_text, v2_text, list(expected), kind) == expected


def test_word_sets_keep_combining_marks_inside_words():
    from engine.score.anchoring.words import _word_set

    assert _word_set("बिल्लियाँ गर्म दोपहर में सोती हैं") == {
        "बिल्लियाँ",
        "गर्म",
        "दोपहर",
        "में",
        "सोती",
        "हैं",
    }
    # a decomposed accent and Persian's zero-width non-joiner stay inside their words
    assert _word_set("cafe\u0301 می\u200cخواهم x²") == {"cafe\u0301", "می\u200cخواهم", "x²"}


# short words that end sentences before a citation, per script (auxiliaries, pronouns)
SHORT_WORDS = {
    "latin": ["so do I", "we do", "it is"],
    "hindi": ["हैं", "है", "था"],
    "arabic": ["هو", "في"],
    "cyrillic": ["это", "мы"],
}
HINDI = (
    ["नदी", "दीपक", "बाग", "मखमल", "तांबा", "घास", "बंदरगाह", "सुबह", "गर्म", "शाम", "हवा"],
    "( स्मिथ, 2020)।",
)
CITATIONS = ["( Smith, 2020).", "( Powell, 2015; Smaglik, 2016).", "[12].", "(see: Li, 2019)."]


@st.composite
def short_endings(draw):
    script = draw(st.sampled_from(sorted(SHORT_WORDS)))
    words, cite = HINDI if script == "hindi" else SCRIPTS[script]
    if script == "latin":
        cite = draw(st.sampled_from(CITATIONS))
    pool = draw(st.permutations(words))
    a, b, fresh = pool[:4], pool[4:8], pool[8:]
    short = draw(st.sampled_from(SHORT_WORDS[script]))
    # the deleted sentence ends with a short word before the citation, and the rewrite of
    # the other takes that word; paragraphs or one paragraph
    new = [a[0]] + draw(st.lists(st.sampled_from(fresh), min_size=1, max_size=3))
    sep = draw(st.sampled_from([" ", "\n\n"]))
    return a, b, new, short, cite, sep


@settings(max_examples=100, deadline=None)
@given(short_endings())
def test_a_deleted_sentence_whose_short_last_words_the_rewrite_takes_is_never_a_fix(case):
    a, b, new, short, cite, sep = case
    sa, sb = " ".join(a) + " " + cite, " ".join(b) + " " + short + " " + cite
    v1 = sa + sep + sb
    v2 = " ".join(new) + " " + short + " " + cite
    quote = " ".join(b[:2])
    if v1.count(quote) != 1:
        return
    for kind in ("text", "html"):
        got = _verdicts(v1, v2, [quote], kind)[quote]
        assert got == "deleted", (kind, v1, v2, quote, got)


# (heading, the paragraph after it that starts with the heading's first word, the heading
# with one letter changed, the paragraph with one letter changed)
_NEAR = {
    "english": (
        "Software availability",
        "Software available from : http://bioconductor.org/packages/HDCytoData",
        "Software axailability",
        "Software available from : http://bioconductor.org/packages/HDCytoDsta",
    ),
    "russian": (
        "Доступность программ",
        "Доступность программ зависит от версии : http://bioconductor.org/packages/HDCytoData",
        "Доступнасть программ",
        "Доступность программ зависит от версии : http://bioconductor.org/packages/HDCytoDsta",
    ),
    "arabic": (
        "توفر البرمجيات",
        "توفر البرمجيات من الموقع : http://bioconductor.org/packages/HDCytoData",
        "توفر البرمجيان",
        "توفر البرمجيات من الموقع : http://bioconductor.org/packages/HDCytoDsta",
    ),
}


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize("script", sorted(_NEAR))
def test_a_near_copy_breaks_a_tie_of_words(script, kind):
    """The long property run's case (F1000RD 8-1459, CC BY 4.0): a heading with one letter
    changed, and the paragraph after it, which starts with the heading's first word,
    deleted. By words the edited heading is as much the paragraph's rewrite as the
    heading's (both share "Software", the diff's kept "Software " an equal copy), and it
    read `deleted`; as a near copy of the heading by characters (``NEAR_COPY``) it is the
    heading's edit. The other way round, the heading deleted and a letter changed in the
    paragraph, the heading reads deleted."""
    head, para, head_edit, para_edit = _NEAR[script]
    before = (
        "Data availability\n\nAll data underlying the results are available as part of the article."
    )
    after = "Licence : MIT License"
    v1 = "\n\n".join([before, head, para, after])
    got = _verdicts(v1, "\n\n".join([before, head_edit, after]), [head, para], kind)
    assert got == {head: "edited", para: "deleted"}
    got = _verdicts(v1, "\n\n".join([before, para_edit, after]), [head, para], kind)
    assert got == {head: "deleted", para: "edited"}
