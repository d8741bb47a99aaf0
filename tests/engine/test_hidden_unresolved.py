"""Ways of hiding text that the style reader does not resolve say so (docs/verdicts.md,
"Hidden text"): a ``var()`` in ``display``, ``visibility`` or a font size, ``calc()`` /
``max()`` / ``clamp()`` sizes that are not plain sums, a ``transform`` scaled by zero, a
zero width or height with ``overflow: hidden``, rules inside ``@scope``. A rewrite there
is never silently read as visible: its verdict carries the note "the page's style sheet
has rules this program does not apply". Ordinary values carry no such note."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from engine.score.seen import PARTIAL_NOTE
from tests.engine.test_hidden_text import verdict

V1 = "<p>Welcome. <span>{}</span> Call us.</p>"
QUOTE = "Members must renew before May."
NEW = "Members should renew before June."

UNRESOLVED = {
    "display var": ('<span style="--d:none;display:var(--d)">{}</span>', ""),
    "display var fallback": (
        '<span class="a">{}</span>',
        "<style>.a{display:var(--no, none)}</style>",
    ),
    "root custom property": (
        '<span class="a">{}</span>',
        "<style>:root{--h:none} .a{display:var(--h)}</style>",
    ),
    "visibility var fallback": ('<span style="visibility:var(--v, hidden)">{}</span>', ""),
    "font-size var": ('<span style="font-size:var(--z, 0)">{}</span>', ""),
    "calc difference": ('<span style="font-size:calc(1px - 1px)">{}</span>', ""),
    "calc product": ('<span style="font-size:calc(5px * 0)">{}</span>', ""),
    "max": ('<span style="font-size:max(0px, -1px)">{}</span>', ""),
    "font shorthand calc": ('<span style="font:calc(2px - 2px) serif">{}</span>', ""),
    "transform scale": ('<span style="display:inline-block;transform:scale(0)">{}</span>', ""),
    "transform scaleY var": (
        '<span class="t">{}</span>',
        "<style>.t{transform:scaleY(var(--s))}</style>",
    ),
    "zero width clipped": (
        '<span style="display:inline-block;width:0;height:0;overflow:hidden">{}</span>',
        "",
    ),
    "scope": ("<span>{}</span>", "<style>@scope (p) { span { display:none } }</style>"),
    "bdo": ('<bdo dir="rtl">{}</bdo>', ""),
    "bidi override": ('<span style="unicode-bidi:bidi-override;direction:rtl">{}</span>', ""),
    "bidi override rule": (
        '<span class="r">{}</span>',
        "<style>.r{unicode-bidi:isolate-override}</style>",
    ),
    "starting-style": (
        "<span>{}</span>",
        "<style>@starting-style { span { visibility:hidden } }</style>",
    ),
}
ORDINARY = {
    "calc sum": '<span style="font-size:calc(1em + 2px)">{}</span>',
    "transform scale 2": '<span style="display:inline-block;transform:scale(2)">{}</span>',
    "zero width, shown overflow": '<span style="display:inline-block;width:0">{}</span>',
    "clipped, sized": '<span style="display:inline-block;width:20em;overflow:hidden">{}</span>',
    "font shorthand": '<span style="font:bold 12px serif">{}</span>',
    "bidi isolate": '<span style="unicode-bidi:isolate">{}</span>',
}


def test_reversed_letters_shown_by_bdo_are_flagged():
    v1 = "<p>We owe ten million dollars to the bank. Call us.</p>"
    v2 = '<p>We owe ten <bdo dir="rtl">noillim</bdo> dollars to the bank. Call us.</p>'
    v, _ = verdict(v1, v2, "million")
    assert PARTIAL_NOTE in (v.note or ""), v.note


def test_the_note_is_for_the_element_it_styles_only():
    v1 = "<p>Welcome. <span>{}</span> Call us.</p><p>Other text stays here.</p>"
    v2 = (
        f"<p>Welcome. <span>{NEW}</span> Call us.</p>"
        '<p><span style="display:var(--d)">Other text stays here.</span></p>'
    )
    v, _ = verdict(v1.format(QUOTE), v2, QUOTE)
    assert v.verdict == "edited" and PARTIAL_NOTE not in (v.note or ""), v.note


@pytest.mark.parametrize("name", UNRESOLVED)
def test_an_unresolved_hiding_says_so(name):
    hider, head = UNRESOLVED[name]
    v, _ = verdict(V1.format(QUOTE), head + f"<p>Welcome. {hider.format(NEW)} Call us.</p>", QUOTE)
    assert v.verdict in ("edited", "deleted") and PARTIAL_NOTE in (v.note or ""), (name, v.note)


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_values_carry_no_note(name):
    page = f"<p>Welcome. {ORDINARY[name].format(NEW)} Call us.</p>"
    v, _ = verdict(V1.format(QUOTE), page, QUOTE)
    assert v.verdict == "edited" and PARTIAL_NOTE not in (v.note or ""), (name, v.note)


def test_calc_that_is_provably_zero_still_hides():
    page = '<p>Welcome. <span style="font-size:calc(0px + 0em)">{}</span> Call us.</p>'
    v, _ = verdict(V1.format(QUOTE), page.format(NEW), QUOTE)
    assert v.verdict == "deleted", v.note


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(UNRESOLVED)),
    word=st.sampled_from(
        ["Gebühr", "плата", "रसोई", "رسوم", "هزینه", "ค่าธรรมเนียม", "費用", "수수료", "\U0001f4b6"]
    ),
)
def test_property_never_silently_visible(name, word):
    hider, head = UNRESOLVED[name]
    quote = f"Pay the {word} fee."
    v, _ = verdict(
        V1.format(quote),
        head + f"<p>Welcome. {hider.format(f'Pay a {word} sum.')} Call us.</p>",
        quote,
    )
    assert v.verdict == "deleted" or PARTIAL_NOTE in (v.note or ""), (name, v.note)
