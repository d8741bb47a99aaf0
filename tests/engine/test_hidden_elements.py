"""Text a browser never draws, as docs/verdicts.md ("Hidden text") lists it: fallback
content, popovers, shadow roots without a slot, MathML annotations, a closed drop-down's
other options, SVG outside ``<text>``; style sheets read through escapes, nesting and
``data:`` imports and links; the note for rules not applied. A sentence rewritten where no
reader sees it reads ``deleted``, never ``edited``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from test_hidden_text import verdict

from engine.score.scoring import Version
from engine.score.seen import NOW_HIDDEN_NOTE, PARTIAL_NOTE
from engine.text.css import data_url_text, font_size_zero

V1 = (
    "<p>The first paragraph stays as it is.</p><p>Pay the fee secret by the end of May.</p>"
    "<p>The last paragraph stays as well.</p>"
)
QUOTE = "Pay the fee secret by the end of May."
NEW = "Pay the fee promptly by the end of June."


def put(markup: str, text: str) -> str:
    return markup.replace("{}", text)


NEVER_DRAWN = [
    "<canvas>{}</canvas>",
    "<video>{}</video>",
    "<audio controls>{}</audio>",
    "<div popover>{}</div>",
    "<div popover=manual><b>{}</b></div>",
    "<svg><text display='none'>{}</text></svg>",
    "<svg><text visibility='hidden'>{}</text></svg>",
    "<svg><text font-size='0'>{}</text></svg>",
    "<svg><defs><text>{}</text></defs></svg>",
    "<svg><symbol><text>{}</text></symbol></svg>",
    "<svg><clipPath><text>{}</text></clipPath></svg>",
    "<svg><mask><text>{}</text></mask></svg>",
    "<svg><pattern><text>{}</text></pattern></svg>",
    "<svg><marker><text>{}</text></marker></svg>",
    "<svg>{}</svg>",
    "<svg><g>{}</g></svg>",
    "<math><semantics><mi>x</mi><annotation>{}</annotation></semantics></math>",
    "<math><semantics><mi>x</mi><annotation-xml>{}</annotation-xml></semantics></math>",
    "<select><option>a</option><option>{}</option></select>",
    "<select><option>a</option><optgroup label=g><option>{}</option></optgroup></select>",
    "<select><option>{}</option><option selected>a</option></select>",
    "<div><template shadowrootmode=open><slot name=none></slot></template>{}</div>",
    "<div><template shadowrootmode=open><b>x</b></template><span>{}</span></div>",
    "<div><template shadowrootmode=closed><slot></slot></template><i slot=q>{}</i></div>",
    "<span style='font-size:calc(0px)'>{}</span>",
    "<span style='font-size:calc(0em + 0%)'>{}</span>",
    "<span style='font-size:min(0px, 2em)'>{}</span>",
    "<style>.z{d\\69splay:none}</style><span class=z>{}</span>",
    "<style>.\\7a{display:none}</style><span class=z>{}</span>",
    "<style>.y{ & .z{display:none} }</style><span class=y><span class=z>{}</span></span>",
    "<style>.y{ .z{display:none} }</style><span class=y><span class=z>{}</span></span>",
    "<style>.y{ &.z{visibility:hidden} }</style><span class='y z'>{}</span>",
    "<style>@import url('data:text/css,.z{display:none}');</style><span class=z>{}</span>",
    "<style>@import 'data:text/css,.z{display:none}';</style><span class=z>{}</span>",
    "<link rel=stylesheet href='data:text/css,.z%7Bdisplay:none%7D'><span class=z>{}</span>",
    "<link rel=stylesheet href='data:text/css;base64,Lnp7ZGlzcGxheTpub25lfQ=='><span class=z>{}</span>",
]

DRAWN = [
    "<object data='x.png' type='image/png'>{}</object>",  # object-src 'none': fallback shows
    "<svg><text>{}</text></svg>",
    "<svg><text><tspan>{}</tspan></text></svg>",
    "<svg><text><a href='#'>{}</a></text></svg>",
    "<svg><foreignObject><p>{}</p></foreignObject></svg>",
    "<svg><text display='none' style='display:inline'>{}</text></svg>",  # author beats attr
    "<math><semantics><mi>{}</mi><annotation>x</annotation></semantics></math>",
    "<select><option>{}</option><option>a</option></select>",
    "<select><option>a</option><option selected>{}</option></select>",
    "<select multiple><option>a</option><option>{}</option></select>",
    "<select size=3><option>a</option><option>{}</option></select>",
    "<div><template shadowrootmode=open><slot></slot></template>{}</div>",
    "<div><template shadowrootmode=open><slot name=q></slot></template><i slot=q>{}</i></div>",
    "<div><template>x</template>{}</div>",  # no shadow root: a plain template
    "<span style='font-size:calc(1px)'>{}</span>",
    "<span style='font-size:max(0px, 1em)'>{}</span>",
    "<style>.y{ & .z{display:none} }</style><span class=z>{}</span>",  # not under .y
    "<style>.z{color:red} @import url('data:text/css,.z{display:none}');</style>"
    "<span class=z>{}</span>",  # an @import after a rule is ignored
    "<style>@import url('data:text/css,.z{display:none}') print;</style><span class=z>{}</span>",
    "<link rel='alternate stylesheet' href='data:text/css,.z%7Bdisplay:none%7D'>"
    "<span class=z>{}</span>",
    "<link rel=stylesheet href='https://example.com/a.css'><span class=z>{}</span>",
]


@pytest.mark.parametrize("hider", NEVER_DRAWN)
def test_a_sentence_rewritten_where_no_reader_sees_it_is_deleted(hider):
    v, _ = verdict(V1, V1.replace(QUOTE, put(hider, NEW)), QUOTE)
    assert v.verdict == "deleted", (hider, v.note)
    assert NOW_HIDDEN_NOTE in v.note


@pytest.mark.parametrize("hider", NEVER_DRAWN)
def test_a_change_inside_text_never_drawn_is_only_hidden(hider):
    h = "<p>Start here.</p><p>Pay the fee " + hider + " by the end of May.</p><p>End.</p>"
    text = Version.from_source(put(h, "secret"), "html", "v1").text
    quote = text[text.index("Pay the fee") : text.index("of May.") + 7]
    v, _ = verdict(put(h, "secret"), put(h, "other"), quote)
    assert v.verdict == "untouched" and v.hidden_only, (hider, v.note)


@pytest.mark.parametrize("shown", DRAWN)
def test_the_same_rewrite_where_a_reader_sees_it_is_edited(shown):
    v, _ = verdict(V1, V1.replace(QUOTE, put(shown, NEW)), QUOTE)
    assert v.verdict == "edited", (shown, v.note)
    assert not v.hidden_only


@pytest.mark.parametrize(
    "rule",
    [
        "<style>span:has(b){display:none}</style><span class=z><b></b>{}</span>",
        "<style>i + span{display:none}</style><i></i><span>{}</span>",
        "<style>p span:first-child{display:none}</style><span>{}</span>",
        "<style>.y{ @media screen { .z{display:none} } }</style><span class=y>{}</span>",
    ],
)
def test_a_verdict_near_a_rule_not_applied_says_so(rule):
    for text, expected in ((NEW, "edited"), (QUOTE, "untouched")):
        v, _ = verdict(V1, V1.replace(QUOTE, put(rule, text)), QUOTE)
        assert v.verdict == expected, v.note
        assert PARTIAL_NOTE in v.note, (rule, v.note)


def test_no_note_where_every_rule_is_applied():
    h = "<style>.z{display:none}</style><span>{}</span>"
    v, _ = verdict(V1, V1.replace(QUOTE, put(h, NEW)), QUOTE)
    assert v.verdict == "edited" and PARTIAL_NOTE not in v.note


def test_data_urls():
    assert data_url_text("data:text/css,.a%7Bx:y%7D") == ".a{x:y}"
    assert data_url_text("DATA:;base64,LmF7fQ==") == ".a{}"
    assert data_url_text("data:text/html,<p>") is None
    assert data_url_text("https://example.com/a.css") is None
    assert data_url_text("data:text/css") is None


def test_math_font_sizes():
    import tinycss2

    def read(v):
        return font_size_zero(
            [t for t in tinycss2.parse_component_value_list(v) if t.type != "whitespace"]
        )

    assert read("calc(0px)") is True and read("calc((0px) + 0%)") is True
    assert read("clamp(0px, 0px, 0px)") is True and read("min(1em, 0px)") is True
    assert read("calc(1px)") is False and read("max(0px, 1px)") is False
    assert read("calc(var(--x))") is False


WORDS = st.sampled_from(
    [
        "Gebühr",
        "плата",
        "τέλος",
        "शुल्क",
        "رسوم",
        "ค่าธรรมเนียม",
        "费用",
        "料金",
        "수수료",
        "\U0001f4b6",
        "fee",
    ]
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(a=WORDS, b=WORDS, c=WORDS, hider=st.sampled_from(NEVER_DRAWN))
def test_property_a_rewrite_never_drawn_is_never_a_fix(a, b, c, hider):
    v1 = f"<p>Opening line stays.</p><p>Please {a} the {b} today.</p><p>Closing line.</p>"
    quote = f"Please {a} the {b} today."
    rewritten = f"Kindly {c} the {a} {b} tomorrow instead."
    v, _ = verdict(v1, v1.replace(quote, put(hider, rewritten)), quote)
    assert v.verdict == "deleted", (hider, v.note)
