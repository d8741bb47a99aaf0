"""A visible rewrite with the old sentence kept hidden beside it (docs/verdicts.md,
"Hidden text"): the reader sees the new sentence in the old one's place, so the verdict is
``edited`` (as if the hidden copy were not there), never ``deleted`` because the old words
still match exactly where no reader sees them. A quote hidden with nothing put beside it
still reads ``deleted``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from engine.score.seen import BESIDE_NOTE
from tests.engine.test_hidden_text import verdict

OLD = "Members must renew before May."
NEW = "Members should renew before June."
V1 = f"<p>Welcome. {OLD} Call us.</p>"

HIDERS = {
    "hidden attribute": "<span hidden>{}</span>",
    "display none": '<span style="display:none">{}</span>',
    "visibility hidden": '<span style="visibility:hidden">{}</span>',
    "font size zero": '<span style="font-size:0">{}</span>',
}


@pytest.mark.parametrize("name", HIDERS)
@pytest.mark.parametrize("before", [False, True])
@pytest.mark.parametrize("space", [" ", ""])
def test_a_rewrite_beside_its_hidden_old_copy_is_edited(name, before, space):
    hidden = HIDERS[name].format(OLD)
    body = f"{NEW}{space}{hidden}" if before else f"{hidden}{space}{NEW}"
    v, result = verdict(V1, f"<p>Welcome. {body} Call us.</p>", OLD)
    assert v.verdict == "edited" and BESIDE_NOTE in (v.note or ""), (name, v.note)
    assert v.v2 is not None and "should renew before June" in v.v2.text
    assert result.metrics["attribution_rate"].value == 1.0


@pytest.mark.parametrize("name", HIDERS)
def test_hidden_with_nothing_beside_it_is_still_deleted(name):
    hidden = HIDERS[name].format(OLD)
    v, _ = verdict(V1, f"<p>Welcome. {hidden} Call us.</p>", OLD)
    assert v.verdict == "deleted", (name, v.note)


def test_hidden_with_a_sentence_added_a_paragraph_away_is_still_deleted():
    page = f"<p>Welcome. <span hidden>{OLD}</span> Call us.</p><p>{NEW}</p>"
    v, _ = verdict(V1, page, OLD)
    assert v.verdict == "deleted", v.note


WORDS = ["Gebühr", "плата", "रसोई", "رسوم", "هزینه", "ค่าธรรมเนียม", "費用", "수수료", "\U0001f4b6"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(HIDERS)),
    old=st.sampled_from(WORDS),
    new=st.sampled_from(WORDS),
    before=st.booleans(),
)
def test_property_the_visible_rewrite_wins(name, old, new, before):
    quote, rewrite = f"Pay the {old} fee by May.", f"Pay a {new} sum by June."
    hidden = HIDERS[name].format(quote)
    body = f"{rewrite} {hidden}" if before else f"{hidden} {rewrite}"
    v, _ = verdict(f"<p>Welcome. {quote} Call us.</p>", f"<p>Welcome. {body} Call us.</p>", quote)
    assert v.verdict == "edited", (name, v.note)
