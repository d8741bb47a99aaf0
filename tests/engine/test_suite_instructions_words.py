"""A suite's instructions are said by their variant's name, never by their hash; a
variant whose instructions changed between suite runs says which version each run used."""

from __future__ import annotations

from hypothesis import given, strategies as st

from engine.suite.report import instructions_names, instructions_text, render_report


def _report(*combos: tuple[str, list[str]]) -> dict:
    return {"combinations": [{"variant": v, "instructions_hash": h} for v, h in combos]}


def test_names_follow_first_use_per_variant():
    history = [
        _report(("default", ["aaa111"]), ("terse", ["bbb222"])),
        _report(("default", ["aaa111"]), ("terse", ["ccc333"])),
    ]
    names = instructions_names(history)
    assert names[("default", "aaa111")] == "the program's own instructions"
    assert names[("terse", "bbb222")] == "the \u201cterse\u201d instructions"
    assert names[("terse", "ccc333")] == "the \u201cterse\u201d instructions, changed (version 2)"
    both = {"variant": "terse", "instructions_hash": ["bbb222", "ccc333"]}
    assert instructions_text(both, names) == (
        "the \u201cterse\u201d instructions and the \u201cterse\u201d instructions, changed "
        "(version 2)"
    )


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=12),  # any script: names from a suite file
            st.lists(st.text("0123456789abcdef", min_size=12, max_size=12), min_size=1, max_size=3),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_no_hash_is_ever_in_the_words(combos):
    names = instructions_names([_report(*combos)])
    for variant, hashes in combos:
        words = instructions_text({"variant": variant, "instructions_hash": hashes}, names)
        for h in hashes:
            if h not in variant:
                assert h not in words


def test_the_printed_report_says_no_hash():
    from engine.suite.report import build_report
    from engine.suite.store import ItemResult

    rows = [
        ItemResult(
            f"k{i}",
            "d",
            "small",
            "m",
            "m-1",
            "http://x",
            "terse",
            h,
            i,
            status="failed",
            reason="no server",
        )
        for i, h in enumerate(["0123456789ab", "ba9876543210"])
    ]
    text = render_report(build_report(rows, name="s"))
    assert "0123456789ab" not in text and "ba9876543210" not in text, text
    assert "(version 2)" in text and "(s)" not in text and "2 runs" in text
