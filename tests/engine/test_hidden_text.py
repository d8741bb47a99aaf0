"""Hidden text and whitespace that renders, as the reader sees them (docs/verdicts.md,
"Hidden text" and "Whitespace that renders"): a change only inside text hidden from the
reader reads ``untouched`` flagged ``hidden_only`` and the integrity control reopens it; a
quote visible in v1 and hidden in v2 reads ``deleted``; whitespace inside ``<pre>``,
``<textarea>`` or ``white-space: pre*`` is part of the words. Cases, hostile pages, then
Hypothesis properties in several scripts."""

from __future__ import annotations

import time

import pytest
from hypothesis import assume, given, settings, strategies as st

from engine.models import Anchor, ClaimItem, ClaimReport, Comment
from engine.score.integrity import unchanged_claims
from engine.score.scoring import Version, score
from engine.text.css import media_applies


def verdict(h1: str, h2: str, quote: str, kind: str = "html"):
    v1, v2 = Version.from_source(h1, kind, "v1"), Version.from_source(h2, kind, "v2")
    s = v1.text.index(quote)
    anchor = Anchor(
        quote=quote,
        prefix=v1.text[max(0, s - 32) : s],
        suffix=v1.text[s + len(quote) : s + len(quote) + 32],
        start_offset=s,
        end_offset=s + len(quote),
    )
    result = score(v1, v2, [Comment(id="c1", body="fix", anchor=anchor)])
    return result.verdicts[0], result


PAGE = (
    "<p>The first paragraph stays as it is.</p>"
    "<p>Pay the fee {x} by the end of May.</p>"
    "<p>The last paragraph stays as well.</p>"
)
QUOTE = "Pay the fee secret by the end of May."


def page(hider: str, word: str, head: str = "") -> str:
    return head + PAGE.format(x=hider.format(word))


HIDERS = [
    "<span hidden>{}</span>",
    "<span hidden=until-found>{}</span>",
    "<span style='display:none'>{}</span>",
    "<span style='DISPLAY: None !important'>{}</span>",
    "<span style='visibility:hidden'>{}</span>",
    "<span style='visibility:collapse'>{}</span>",
    "<span style='font-size:0'>{}</span>",
    "<span style='font-size:0px'>{}</span>",
    "<span style='font: 0/0 a'>{}</span>",
    "<span style='font-size:0'><b style='font-size:2em'>{}</b></span>",  # 2em of 0 is 0
    "<span style='display:none'><b style='display:inline'>{}</b></span>",
    "<noscript>{}</noscript>",
    "<span class=h>{}</span>",
    "<span id=h1>{}</span>",
    "<em data-x=1>{}</em>",
    "<i class='a b'>{}</i>",
]
SHEET = (
    "<style>.h{display:none} #h1{visibility:hidden} em[data-x]{font-size:0}"
    " p .a.b{display:none} @media screen{.m{display:none}}</style>"
)


@pytest.mark.parametrize("hider", HIDERS)
def test_a_change_inside_hidden_text_is_untouched_and_flagged(hider):
    v, result = verdict(page(hider, "secret", SHEET), page(hider, "other", SHEET), QUOTE)
    assert v.verdict == "untouched", v.note
    assert v.hidden_only and "only hidden text changed" in v.note
    item = result.to_json()["verdicts"][0]
    assert item["hidden_only"] is True
    assert result.to_json(extended=True)["verdicts"][0]["hidden_only"] is True


@pytest.mark.parametrize(
    "shown",
    [
        "<span>{}</span>",
        "<span style='visibility:hidden'><b style='visibility:visible'>{}</b></span>",
        "<span style='font-size:0'><b style='font-size:12px'>{}</b></span>",
        "<span class=h style='display:inline'>{}</span>",  # inline style beats the rule
        "<span class=p>{}</span>",  # a print-only rule
        "<span class=s>{}</span>",  # a sibling combinator is not applied
        "<span style='color:red'>{}</span>",
        "<span style='display:none !imp'>{}</span>",  # malformed: dropped as a browser does
    ],
)
def test_a_change_inside_visible_text_is_edited(shown):
    head = "<style>.h{display:none} @media print{.p{display:none}} b + .s{display:none}</style>"
    v, result = verdict(page(shown, "secret", head), page(shown, "other", head), QUOTE)
    assert v.verdict == "edited", v.note
    assert not v.hidden_only and "hidden_only" not in result.to_json()["verdicts"][0]


@pytest.mark.parametrize("open_, expected", [("", "untouched"), (" open", "edited")])
def test_the_contents_of_a_closed_details_are_hidden(open_, expected):
    h = "<div>Read this first.</div><details{}><summary>More</summary>Pay {} now.</details>"
    quote = "MorePay secret now."
    v, _ = verdict(h.format(open_, "secret"), h.format(open_, "other"), quote)
    assert v.verdict == expected, v.note


def test_important_beats_inline_style_and_specificity_orders_rules():
    head = "<style>#k{display:none !important} span.q{display:inline} .q{display:none}</style>"
    v, _ = verdict(
        page("<span id=k style='display:inline'>{}</span>", "secret", head),
        page("<span id=k style='display:inline'>{}</span>", "other", head),
        QUOTE,
    )
    assert v.verdict == "untouched" and v.hidden_only
    v, _ = verdict(
        page("<span class=q>{}</span>", "secret", head),
        page("<span class=q>{}</span>", "other", head),
        QUOTE,
    )
    assert v.verdict == "edited"


def test_a_quote_visible_in_v1_and_hidden_in_v2_is_deleted():
    v1 = page("<span>{}</span>", "secret")
    for v2 in (
        v1.replace("<p>Pay", "<p hidden>Pay"),
        v1.replace("<p>Pay", "<p style='display:none'>Pay"),
        v1.replace("<p>Pay", "<p class=gone>Pay").replace(
            "<p>", "<style>.gone{display:none}</style><p>", 1
        ),
        v1.replace("<p>Pay", "<p hidden>Pay").replace("secret", "other"),
    ):
        v, _ = verdict(v1, v2, QUOTE)
        assert v.verdict == "deleted", (v2, v.note)
        assert v.v2 is None and "hidden from the reader" in v.note


def test_the_same_quote_hidden_by_a_new_style_sheet_rule_is_deleted():
    v1 = "<style>p{color:black}</style>" + page("<span class=k>{}</span>", "secret")
    v2 = "<style>.k, p:nth-of-type(2) {display:none} p{color:black}</style>" + v1[29:]
    v, _ = verdict(v1, v2.replace(".k, ", "p .k, ").replace("p .k, p:nth", "p .k,p:nth"), QUOTE)
    # only part of the quote is hidden now: the words a reader sees changed
    assert v.verdict == "edited", v.note


def test_hidden_text_shown_with_the_words_unchanged_is_edited():
    v1 = page("<span hidden>{}</span>", "secret")
    v, _ = verdict(v1, v1.replace(" hidden", ""), QUOTE)
    assert v.verdict == "edited" and "text was hidden or shown" in v.note


def test_the_integrity_control_reopens_a_hidden_only_change():
    h = "<span style='display:none'>{}</span>"
    v, result = verdict(page(h, "secret"), page(h, "other"), QUOTE)
    report = ClaimReport(
        comments=[ClaimItem(comment_id="c1", claim="addressed")], notes="", usable=True
    )
    got = unchanged_claims(result.verdicts, report, {"c1"})
    assert [(u.comment_id, u.by, u.hidden_only) for u in got] == [("c1", "resolved+report", True)]


def test_the_cli_summary_and_review_list_say_so():
    from engine.bundle.review import needs_review
    from engine.cli.main import render_summary

    h = "<span hidden>{}</span>"
    _, result = verdict(page(h, "secret"), page(h, "other"), QUOTE)
    assert "only hidden text changed" in render_summary(result, [])
    assert "only hidden text changed" in needs_review(result.to_json(extended=True)["verdicts"][0])


# -- whitespace that renders --------------------------------------------------------------

ADDRESS_1 = "Ada Lovelace, 12 St James's Square, London"
ADDRESS_3 = "Ada Lovelace,\n12 St James's Square,\nLondon"


@pytest.mark.parametrize(
    "wrap",
    [
        "<pre>{}</pre>",
        "<textarea>{}</textarea>",
        "<div style='white-space:pre-wrap'>{}</div>",
        "<div style='white-space:pre-line'>{}</div>",
        "<div style='white-space:break-spaces'>{}</div>",
        "<div class=w>{}</div>",
        "<pre><b>{}</b></pre>",
    ],
)
def test_an_address_put_on_three_lines_is_an_edit_where_whitespace_renders(wrap):
    head = "<style>.w{white-space:pre}</style><p>Send it to:</p>"
    v, result = verdict(head + wrap.format(ADDRESS_1), head + wrap.format(ADDRESS_3), ADDRESS_1)
    assert v.verdict == "edited", v.note
    assert v.token_edit and v.token_edit_kind == "only the spacing changed"
    assert result.to_json()["verdicts"][0]["token_edit"] is True


@pytest.mark.parametrize(
    "wrap",
    [
        "<p>{}</p>",
        "<div style='white-space:nowrap'>{}</div>",
        "<pre style='white-space:normal'>{}</pre>",
        "<pre><span style='white-space:normal'>{}</span></pre>",
    ],
)
def test_elsewhere_whitespace_folds_as_before(wrap):
    head = "<p>Send it to:</p>"
    v, _ = verdict(head + wrap.format(ADDRESS_1), head + wrap.format(ADDRESS_3), ADDRESS_1)
    assert v.verdict == "untouched", v.note
    assert not v.token_edit


def test_a_code_line_reindented_is_an_edit_and_its_spaces_count():
    code = "def f(x):\n    return x + 1\n"
    v1 = f"<p>The function:</p><pre><code>{code}</code></pre><p>Done.</p>"
    v, _ = verdict(v1, v1.replace("    return", "        return"), "return x + 1")
    assert v.verdict == "untouched"  # the quote itself holds no whitespace run that changed
    v, _ = verdict(v1, v1.replace("    return", "  return"), "def f(x):\n    return x + 1")
    assert v.verdict == "edited" and v.token_edit_kind == "only the spacing changed"
    v, _ = verdict(v1, v1.replace("x + 1", "x  +  1"), "return x + 1")
    assert v.verdict == "edited"
    v, _ = verdict(v1, v1.replace("x + 1", "x\t+ 1"), "return x + 1")
    assert v.verdict == "edited"
    v, _ = verdict(v1, v1.replace("x + 1", "x + 1"), "return x + 1")
    assert v.verdict == "untouched"


def test_pre_line_folds_spaces_but_keeps_line_breaks():
    head = "<p>Send it to:</p><div style='white-space:pre-line'>{}</div>"
    v, _ = verdict(
        head.format(ADDRESS_1), head.format(ADDRESS_1.replace(" 12", "   12")), ADDRESS_1
    )
    assert v.verdict == "untouched"
    v, _ = verdict(
        head.format(ADDRESS_3), head.format(ADDRESS_3.replace(",\n", ",  \n  ")), ADDRESS_3
    )
    assert v.verdict == "untouched"


def test_a_markdown_code_block_reindented_is_an_edit():
    md1 = "Intro text here.\n\n```\nif ready:\n    go()\n```\n\nAfter the code.\n"
    v, _ = verdict(md1, md1.replace("    go()", "  go()"), "if ready:\n    go()", "markdown")
    assert v.verdict == "edited" and v.token_edit
    v, _ = verdict(
        md1, md1.replace("Intro text here.", "Intro  text\nhere."), "Intro text here.", "markdown"
    )
    assert v.verdict == "untouched"


def test_plain_text_whitespace_still_folds():
    t1 = "Send it to:\n\n" + ADDRESS_1 + "\n\nThanks.\n"
    v, _ = verdict(t1, t1.replace(ADDRESS_1, ADDRESS_3), ADDRESS_1, "text")
    assert v.verdict == "untouched"


# -- hostile pages ------------------------------------------------------------------------


def _timed(h1: str, h2: str, quote: str) -> tuple[object, float]:
    t0 = time.process_time()
    v, _ = verdict(h1, h2, quote)
    return v, time.process_time() - t0


def test_deep_nesting_with_descendant_rules_stays_cheap():
    depth = 5000
    nest = "<div>" * depth + PAGE.format(x="<span class=h>@@</span>") + "</div>" * depth
    head = (
        "<style>div div .h{display:none} div{white-space:normal} :lang(en) b{font-size:0}</style>"
    )
    h = head + "<p lang=en>Start here.</p>" + nest
    v, cpu = _timed(h.replace("@@", "secret"), h.replace("@@", "other"), QUOTE)
    assert v.verdict in ("untouched", "edited")
    assert cpu < 10


def test_a_huge_or_malformed_style_sheet_does_not_crash_or_crawl():
    junk = "".join(f".c{i} > .d{i} {{display:none; font: bold 0/1 x}}\n" for i in range(60_000))
    bad = "{{{{ ]] @media ((( { .x{display:none} :not(" + ":not(" * 3000 + "a" + ")" * 3000
    bad += " } } }} ;;; display:none; @import url(x); .h{display:none"
    for head in (
        f"<style>{junk}</style>",
        f"<style>{bad}</style>",
        "<style>" + "{" * 50_000 + "</style>",
    ):
        hider = "<span class=h>{}</span>"
        v, cpu = _timed(page(hider, "secret", head), page(hider, "other", head), QUOTE)
        assert v.verdict in ("untouched", "edited")
        assert cpu < 15, cpu


def test_many_rules_on_many_elements_stop_at_the_budget():
    rules = "".join(f"* .k{i}, span span span {{display:none}}" for i in range(2000))
    spans = "<span>" * 200 + "@@" + "</span>" * 200
    h = f"<style>{rules}</style>" + PAGE.format(x=spans)
    v, cpu = _timed(h.replace("@@", "secret"), h.replace("@@", "other"), QUOTE)
    assert v.verdict in ("untouched", "edited")
    assert cpu < 10


def test_media_queries():
    assert media_applies("") and media_applies("screen") and media_applies("all")
    assert media_applies("(min-width: 40em)") and media_applies("not print")
    assert media_applies("print, screen") and media_applies("only screen and (color)")
    assert not media_applies("print") and not media_applies("speech")


# -- properties ---------------------------------------------------------------------------

WORDS = st.sampled_from(
    [
        "fee",
        "Gebühr",
        "плата",
        "τέλος",
        "रुपये",
        "رسوم",
        "شهریه",
        "ค่าธรรมเนียม",
        "费用",
        "料金",
        "수수료",
        "\U0001f4b6\U0001f3fd",
        "naïve",
        "x",
    ]
)
HIDE = st.sampled_from(HIDERS[:12] + ["<span class=h>{}</span>"])


@settings(max_examples=60, deadline=None, derandomize=True)
@given(a=WORDS, b=WORDS, hider=HIDE, before=WORDS, after=WORDS)
def test_property_hidden_changes_are_untouched_visible_ones_edited(a, b, hider, before, after):
    # four different words: with a repeated neighbour the diff may align the change with
    # the neighbour instead (an equally short edit), which is the re-anchoring's question
    assume(len({a, b, before, after}) == 4)
    body = f"<p>Opening line stays.</p><p>{before} {{x}} {after} ends here.</p><p>Closing line.</p>"
    quote = f"{before} {a} {after} ends here."
    hidden = SHEET + body.format(x=hider.format("@@"))
    v, _ = verdict(hidden.replace("@@", a), hidden.replace("@@", b), quote)
    assert v.verdict == "untouched" and v.hidden_only, (hider, v.note)
    shown = body.format(x="<span>@@</span>")
    v, _ = verdict(shown.replace("@@", a), shown.replace("@@", b), quote)
    assert v.verdict == "edited" and not v.hidden_only


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    words=st.lists(WORDS, min_size=3, max_size=6),
    at=st.integers(0, 10),
    ws=st.sampled_from(["\n", "  ", "\t", "\n\n  "]),
)
def test_property_whitespace_in_pre_is_part_of_the_words(words, at, ws):
    gap = 1 + at % (len(words) - 1)
    line = " ".join(words)
    changed = " ".join(words[:gap]) + ws + " ".join(words[gap:])
    for wrap, counts in (("<pre>{}</pre>", True), ("<p>{}</p>", False)):
        h = "<p>Before.</p>" + wrap + "<p>After.</p>"
        v, _ = verdict(h.format(line), h.format(changed), line)
        assert (v.verdict == "edited") is counts, (wrap, v.note)
        assert v.token_edit is counts


@pytest.mark.parametrize(
    "head, expected",
    [
        ("<style>[hidden]{display:inline}</style>", "edited"),  # the author rule wins
        ("<style media=print>[hidden]{display:inline}</style>", "untouched"),
        ("<style>@media print{[hidden]{display:inline}}</style>", "untouched"),
        ("<style type=text/less>[hidden]{display:inline}</style>", "untouched"),
    ],
)
def test_an_author_rule_can_show_the_hidden_attribute(head, expected):
    h = "<span hidden>{}</span>"
    v, _ = verdict(page(h, "secret", head), page(h, "other", head), QUOTE)
    assert v.verdict == expected, v.note
