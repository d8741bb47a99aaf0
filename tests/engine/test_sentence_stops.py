"""One list of full stops for the whole program, and it is Unicode's: Sentence_Terminal as
the ``regex`` module knows it, and the Tibetan shad."""

from __future__ import annotations

import pytest
import regex

from engine.text.sentence_stops import SENTENCE_TERMINATORS, TIBETAN_SHADS, UNICODE_STERM


def test_the_list_is_unicodes_sentence_terminal() -> None:
    want = [chr(c) for c in range(0x110000) if regex.match(r"\p{Sentence_Terminal}", chr(c))]
    missing = sorted(set(want) - set(UNICODE_STERM))
    extra = sorted(set(UNICODE_STERM) - set(want))
    assert not missing, "add to UNICODE_STERM: " + " ".join(f"U+{ord(c):04X}" for c in missing)
    assert not extra, "not Sentence_Terminal: " + " ".join(f"U+{ord(c):04X}" for c in extra)
    assert list(UNICODE_STERM) == sorted(UNICODE_STERM)


def test_the_shads_are_terminal_punctuation_and_the_list_holds_them() -> None:
    for c in TIBETAN_SHADS:
        assert regex.match(r"\p{Terminal_Punctuation}", c)
        assert c in SENTENCE_TERMINATORS
    assert len(set(SENTENCE_TERMINATORS)) == len(SENTENCE_TERMINATORS)


# -- the verdicts: a deleted sentence between two kept ones, in every script's full stop -----

from engine.models import Anchor, Comment  # noqa: E402
from engine.score.scoring import Version, score  # noqa: E402
from engine.text.utf16 import to_utf16  # noqa: E402


def _verdict(t1: str, t2: str, quote: str) -> str:
    v1, v2 = Version.from_source(t1, "text", "v1"), Version.from_source(t2, "text", "v2")
    i = v1.text.index(quote)
    anchor = Anchor(
        quote,
        v1.text[max(0, i - 32) : i],
        v1.text[i + len(quote) : i + len(quote) + 32],
        start_offset=to_utf16(v1.text, i),
        end_offset=to_utf16(v1.text, i + len(quote)),
    )
    return score(v1, v2, [Comment("c1", "fix", anchor)]).verdicts[0].verdict


# The attacker's cases (stop 38): each read `edited`, the join of the deleted sentence's
# neighbours (or a new sentence after the kept one) taken for its rewrite, because the
# script's full stop ended no sentence.
SCRIPTS = {
    "Armenian ։": (
        "Բյուջեն անցյալ տարի աճեց տաս տոկոսով։ Աշխատակիցների թիվը մարտին կտրուկ նվազեց։ "
        "Ծախսերը կրճատվեցին բոլոր գրասենյակներում։",
        "Բյուջեն աճեց, մինչդեռ ծախսերը կրճատվեցին բոլոր գրասենյակներում։",
        "Աշխատակիցների թիվը",
    ),
    "Burmese ။": (
        "ဘတ်ဂျက်သည်မနှစ်က ဆယ်ရာခိုင်နှုန်းတက်ခဲ့သည်။ ဝန်ထမ်းအရေအတွက်သည်မတ်လတွင် "
        "သိသိသာသာကျဆင်းခဲ့သည်။ ရုံးတိုင်းတွင်ကုန်ကျစရိတ်များလျှော့ချခဲ့သည်။",
        "ဘတ်ဂျက်တက်ခဲ့ပြီး ရုံးတိုင်းတွင်ကုန်ကျစရိတ်များလျှော့ချခဲ့သည်။",
        "ဝန်ထမ်းအရေအတွက်",
    ),
    "Khmer ។": (
        "ថវិកាបានកើនឡើងដប់ភាគរយកាលពីឆ្នាំមុន។ ចំនួនបុគ្គលិកបានធ្លាក់ចុះយ៉ាងខ្លាំងនៅខែមីនា។ "
        "ការចំណាយត្រូវបានកាត់បន្ថយនៅគ្រប់ការិយាល័យ។",
        "ថវិកាបានកើនឡើង ខណៈការចំណាយត្រូវបានកាត់បន្ថយនៅគ្រប់ការិយាល័យ។",
        "ចំនួនបុគ្គលិក",
    ),
    "Tibetan ། (a new sentence after the kept one)": (
        "འཆར་གཞི་ལོ་སྔོན་མར་འཕར། ལས་བྱེད་པའི་གྲངས་ཀ་ཟླ་གསུམ་པར་ཆག་སོང་། ཡིག་ཚང་ཚང་མར་འགྲོ་གྲོན་ཆུང་དུ་བཏང་།",
        "འཆར་གཞི་ལོ་སྔོན་མར་འཕར། ཡིག་ཚང་ཚང་མར་འགྲོ་གྲོན་ཆུང་དུ་བཏང་། ཟླ་གསུམ་པར་ཡིག་ཚང་གསར་པ་ཞིག་ཁ་ཕྱེ།",
        "ལས་བྱེད་པའི་གྲངས་ཀ",
    ),
    "Japanese half-width ｡": (
        "去年予算が十パーセント増えた｡三月に職員数が急減した｡すべての事務所で経費が削減された｡",
        "予算は増えたが、すべての事務所で経費が削減された｡",
        "職員数が急減",
    ),
    "Japanese full-width ．": (
        "去年予算が十パーセント増えた．三月に職員数が急減した．すべての事務所で経費が削減された．",
        "予算は増えたが、すべての事務所で経費が削減された．",
        "職員数が急減",
    ),
    "Lao (a space between sentences)": (
        "ງົບປະມານເພີ່ມຂຶ້ນສິບເປີເຊັນໃນປີກາຍ ຈຳນວນພະນັກງານຫຼຸດລົງຢ່າງໄວວາໃນເດືອນມີນາ ຄ່າໃຊ້ຈ່າຍຖືກຕັດໃນທຸກຫ້ອງການ",
        "ງົບປະມານເພີ່ມຂຶ້ນ ແຕ່ຄ່າໃຊ້ຈ່າຍຖືກຕັດໃນທຸກຫ້ອງການ",
        "ຈຳນວນພະນັກງານ",
    ),
    "English interrobang ‽": (
        "Did the budget rise by ten percent‽ Did staff numbers fall sharply in March‽ "
        "Were costs cut in every office‽",
        "The budget rose while costs were cut in every office.",
        "staff numbers fall",
    ),
}


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_a_deleted_sentence_in_each_script_reads_deleted(name: str) -> None:
    t1, t2, quote = SCRIPTS[name]
    assert _verdict(t1, t2, quote) == "deleted"


# Beyond the examples: every full stop of the list, with a space after it and without,
# ends the deleted sentence, so the join of its neighbours is no rewrite of it.
@pytest.mark.parametrize("space", [" ", ""])
@pytest.mark.parametrize("stop", list(SENTENCE_TERMINATORS))
def test_every_full_stop_ends_the_deleted_sentence(stop: str, space: str) -> None:
    if stop in ".!?" and not space:
        pytest.skip("an ASCII stop with no space after ends no sentence (3.5, e.g., a URL)")
    t1 = (
        f"The budget rose by ten percent last year{stop}{space}Staff numbers fell sharply in "
        f"March{stop}{space}Costs were cut in every office{stop}"
    )
    t2 = f"The budget rose while costs were cut in every office{stop}"
    assert _verdict(t1, t2, "Staff numbers fell") == "deleted"


def test_a_full_width_decimal_point_ends_no_sentence() -> None:
    from engine.score.anchoring.sentences import _SENTENCE_END

    assert not _SENTENCE_END.search("価格は３．５パーセント上がった")
    assert not _SENTENCE_END.search("the ratio was 3.5 in 2024")
    assert _SENTENCE_END.search("結果を示す．次に")
