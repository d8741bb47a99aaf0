"""engine.vocabulary: one word and one number format per concept (docs/metrics.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from engine import vocabulary as vocab
from engine.models import Metric
from engine.score.scoring import CLAIM_AGREES


def test_every_value_has_its_words():
    assert set(vocab.VERDICT_LABELS) == set(vocab.VERDICTS) == set(vocab.VERDICT_ICONS)
    assert set(vocab.VERDICT_MEANINGS) == set(vocab.VERDICTS)
    assert set(vocab.METHOD_WORDS) == set(vocab.METHODS)
    assert set(vocab.CLAIM_WORDS) == set(vocab.CLAIMS) == set(CLAIM_AGREES)
    assert set(vocab.RUN_STATUS_WORDS) == set(vocab.RUN_STATUSES)
    assert set(vocab.METRIC_TITLES) == set(vocab.METRIC_NAMES) == set(vocab.METRIC_MEANINGS)
    assert vocab.APPROXIMATE_METHODS.issubset(vocab.METHODS)
    assert vocab.RATIO_METRICS.issubset(vocab.METRIC_NAMES)


def test_icons_tell_verdicts_apart():
    assert len(set(vocab.VERDICT_ICONS.values())) == len(vocab.VERDICTS)
    assert vocab.verdict_label("edited") == "\u270e edited"
    assert vocab.verdict_label("stale_anchor") == "? stale anchor"
    assert vocab.verdict_label("mystery_value") == "mystery value"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0%"),
        (1 / 3, "33%"),
        (2 / 3, "67%"),
        (1.0, "100%"),
        (0.004, "<1%"),  # never reads as zero
        (0.996, ">99%"),  # never reads as all
        (0.005, "<1%"),
        (0.995, ">99%"),
    ],
)
def test_percent_never_rounds_to_none_or_all(value, text):
    assert vocab.percent(value) == text


def test_one_format_for_a_ratio_metric_from_object_or_json():
    m = Metric.ratio(1, 3)
    for form in (m, m.to_json()):
        assert vocab.metric_text("attribution_rate", form) == "33% (1 of 3)"
        assert vocab.metric_value("claim_accuracy", form) == "33%"
        assert vocab.metric_detail("attribution_rate", form) == "1 of 3 actionable comments edited"
    big = Metric.ratio(1234, 5678)
    assert vocab.metric_text("collateral_churn", big) == "22% (1,234 of 5,678)"


def test_cost_and_rounds_formats():
    cost = Metric.ratio(2468, 2)
    assert vocab.metric_text("cost_per_attributed_fix", cost) == (
        "1,234 tokens per fix (2,468 tokens / 2 edited)"
    )
    assert vocab.metric_detail("cost_per_attributed_fix", Metric.ratio(900, 1)) == (
        "900 tokens / 1 edited comment"
    )
    one = Metric(value=1, numerator=1, denominator=1)
    assert vocab.metric_text("rounds_to_converge", one) == "1 push"
    assert vocab.metric_text("rounds_to_converge", Metric(2, 2, 1).to_json()) == "2 pushes"


def test_na_is_never_a_number():
    na = Metric.na("there are no actionable comments")
    for name in vocab.METRIC_NAMES:
        for form in (na, na.to_json()):
            assert vocab.metric_is_na(form)
            assert vocab.metric_value(name, form) == "N/A"
            assert vocab.metric_fraction(name, form) == ""
            assert vocab.metric_text(name, form) == "N/A \u2014 there are no actionable comments"
    assert vocab.metric_text("claim_accuracy", None) == "N/A \u2014 not recorded"
    # A measured zero is a number, not N/A.
    zero = Metric.ratio(0, 4)
    assert not vocab.metric_is_na(zero)
    assert vocab.metric_text("attribution_rate", zero) == "0% (0 of 4)"


def test_claim_words():
    assert vocab.claim_words(None) == "no claim"
    assert vocab.claim_words("not_addressed") == "not addressed"


def test_one_of_reads_a_value_from_json():
    assert vocab.one_of("resolved", vocab.COMMENT_STATUSES) == "resolved"
    assert vocab.one_of("Resolved", vocab.COMMENT_STATUSES) is None
    assert vocab.one_of(None, vocab.CLAIMS) is None
    assert vocab.one_of(["addressed"], vocab.CLAIMS) is None


def test_times_read_as_people_write_them():
    from engine.vocabulary import when_words

    assert when_words("2026-12-01T10:23:05Z") == "1 Dec 2026, 10:23 UTC"
    assert when_words("2026-12-01T10:23:05+02:00") == "1 Dec 2026, 10:23 +0200"
    assert when_words("not a time") == "not a time"


def test_a_difference_in_words_keeps_its_exact_line():
    from engine.bundle.differences import Difference

    d = Difference("final", "c2", "claim_agrees", True, False)
    assert d.plain() == (
        "final version, comment c2: whether the claim agrees with the text: "
        "the bundle says yes, its documents show no"
    )
    assert d.line() == "final: comment c2: claim_agrees: stored True, recomputed False"
    m = Difference("round 1", None, "metric attribution_rate", 0.5, 0.25)
    assert "the metric attribution rate" in m.plain() and "50" in m.plain()


def test_a_servers_traceback_is_its_last_line():
    from engine.vocabulary import server_words

    tb = (
        'Traceback (most recent call last):\n  File "server.py", line 3, in handle\n'
        "    raise ValueError(x)\nValueError: Unexpected empty grammar stack\n"
    )
    assert server_words(tb) == (
        "ValueError: Unexpected empty grammar stack (the server's traceback is in the log)"
    )
    assert server_words("refused the API key\nmore detail") == "refused the API key \u2026"
    assert server_words("ok") == "ok" and server_words("") == ""
    assert len(server_words("x" * 1000)) == 300


# -- counts in words: no "(s)" in what the command line and the bundle say ------------------

_PAREN_PLURAL = __import__("re").compile(r"[a-z]\((?:s|es|ies)\)")
_PLAIN_WORD_SOURCES = (
    "engine/cli",
    "engine/bundle",
    "engine/publish",
    "engine/word_verdicts.py",
    "engine/agent/notools.py",  # what the model reads
    "engine/run",
    "engine/doctor.py",
    "engine/events.py",
    "app",
)


def parenthesised_plurals(source: str) -> list[str]:
    """The string constants (f-string parts too) of ``source`` holding ``comment(s)``,
    ``push(es)``, ``repl(ies)``; ``http(s)`` is a URL scheme, not a count."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.replace("http(s)", "")
            found += [m.group() for m in _PAREN_PLURAL.finditer(text)]
    return found


def test_no_parenthesised_plural_in_cli_and_bundle_text():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    bad = {}
    for where in _PLAIN_WORD_SOURCES:
        p = root / where
        for f in [p] if p.is_file() else sorted(p.rglob("*.py")):
            hits = parenthesised_plurals(f.read_text(encoding="utf-8"))
            if hits:
                bad[f.relative_to(root).as_posix()] = hits
    assert not bad, f"use engine.vocabulary.plural: {bad}"


def test_the_plural_scan_sees_an_f_string_part():
    assert parenthesised_plurals('x = f"{n} comment(s) and {m} repl(ies)"') == [
        "t(s)",
        "l(ies)",
    ]
    assert parenthesised_plurals('y = "an http(s) URL"; z = len(s)') == []


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "no verdict reply written"),
        (1, "1 verdict reply written"),
        (2, "2 verdict replies written"),
    ],
)
def test_word_copy_counts_in_words(n, words):
    from engine.word_verdicts import WordCopyReport, report_words

    report = WordCopyReport(replies=n, reopened=["c1"] * n, recreated=[], changes=n, untracked=n)
    text = report_words(report)
    assert text.startswith(words)
    if n:
        assert f"; {vocab.plural(n, 'comment')} reopened" in text
        assert f"; {vocab.plural(n, 'change')} no comment asked for marked, {n} of them" in text


@pytest.mark.parametrize(
    ("replies", "recreated", "words"),
    [
        (1, 1, "1 verdict reply written, it on a comment the revised file had lost"),
        (3, 3, "3 verdict replies written, all 3 on comments the revised file had lost"),
        (4, 1, "4 verdict replies written, 1 of them on a comment the revised file had lost"),
    ],
)
def test_word_copy_says_which_replies_went_on_lost_comments(replies, recreated, words):
    from engine.word_verdicts import WordCopyReport, report_words

    text = report_words(WordCopyReport(replies=replies, recreated=["x"] * recreated))
    assert text == words + ", put back in place"
    assert "(" not in text


@given(
    n=st.integers(0, 10**7),
    noun=st.sampled_from(["comment", "model call", "turn", "actionable comment"]),
    before=st.sampled_from(["", "for 3 of ", "with ", "\u0645\u0631\u062d\u0628\u0627 "]),
)
def test_a_stored_parenthesised_plural_reads_by_its_count(n, noun, before):
    """What bundles store word for word ("1 of 3 model call(s)", "1 comment(s)") is said
    by its nearest count when shown (vocabulary.plain_reason), as plural() says it."""
    stored = f"{before}{vocab.count(n)} {noun}(s) unresolved"
    assert vocab.plain_reason(stored) == f"{before}{vocab.plural(n, noun)} unresolved"


def test_stored_usage_reasons_are_kept_and_shown_in_plain_words():
    """usage_reason's words are what bundles store and re-derive word for word; every view
    shows them through metric_reason, in words."""
    said = vocab.usage_reason(3, 1, 1)
    assert "model call(s)" in said  # the stored form, unchanged
    m = {"value": None, "reason": said}
    assert vocab.metric_reason(m) == (
        "the provider reported no token usage for 1 of 3 model calls; token usage came in "
        "a form that is not whole numbers for 1 of 3 model calls"
    )
    assert vocab.metric_reason({"value": None, "reason": vocab.usage_reason(1, 1)}).endswith(
        "for 1 of 1 model call"
    )
    for kept in (
        "usage field(s) total_tokens",
        "an http(s) URL",
        "3 \u062a\u0639\u0644\u064a\u0642(s)",
    ):
        assert vocab.plain_reason(kept) == kept  # no count, or not an English noun


def test_shipped_bundles_reasons_read_without_parenthesised_plurals(capsys):
    """The shipped bundles store "with 3 comment(s) unresolved": arl bundle show, the
    scorecard's banner say "3 comments"."""
    from pathlib import Path

    from engine.bundle.read import open_bundle
    from engine.bundle.scorecard import render_scorecard
    from engine.cli.main import main as arl

    root = Path(__file__).resolve().parents[2]
    runs = root / "resources" / "suites" / "example" / "S-20261130-211207-d69c83" / "runs"
    for path in sorted(runs.glob("briefs_*/*/manifest.json"))[:2]:
        b = open_bundle(path.parent)
        assert "3 comment(s)" in b.reason  # stored so, and kept
        arl(["bundle", "show", str(path.parent)])
        shown = capsys.readouterr().out
        assert "(s)" not in shown and "comments unresolved" in shown, shown
        page = render_scorecard(b.manifest, b.verdicts, {}, [], [], {})
        assert "with 3 comments unresolved" in page and "comment(s)" not in page


def test_an_older_no_tools_answer_problem_is_said_without_markers():
    """The example suite's runs store "the answer has no document between the markers";
    the Suites tab showed it word for word under claim accuracy."""
    import json
    from pathlib import Path

    from engine.suite.report import build_report
    from engine.suite.store import read_results, results_items

    stored = "the answer has no document between the markers; 2 comment(s)"
    assert vocab.plain_reason(stored) == "the model's answer held no revised document; 2 comments"
    root = Path(__file__).resolve().parents[2]
    folder = root / "resources" / "suites" / "example" / "S-20261130-211207-d69c83"
    assert "between the markers" in (folder / "suite-results.json").read_text(encoding="utf-8")
    said = json.dumps(build_report(results_items(read_results(folder), folder)))
    assert "markers" not in said and "held no revised document" in said
