"""Markdown is read as rendered text (engine.text.markdown; docs/anchor.md, "Markdown").

On real Markdown written by others (tests/data/markdown: READMEs shipped in wheels) and on
generated text in many scripts: re-wrapping lines, re-numbering a list and re-padding a
table leave the rendered text as it was; raw HTML that could run, load or swallow the
page is text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.text.html_text import extract
from engine.text.markdown import (
    PAGE_CSP,
    markdown_page,
    render_body,
    renderer_identity,
    too_large,
)
from tests.helpers.markdown_edits import renumber, repad, rewrap

DATA = Path(__file__).parents[1] / "data" / "markdown"
READMES = sorted(DATA.glob("*.md"))
README_IDS = [p.stem for p in READMES]


def text_of(source: str) -> str:
    """What offsets index: body textContent of the rendered page."""
    return extract(markdown_page(source)).text


def test_the_readmes_are_there() -> None:
    assert {"selectolax", "ruff", "justhtml", "platformdirs", "markdown_it_py"} <= set(README_IDS)


@pytest.mark.parametrize("path", READMES, ids=README_IDS)
@pytest.mark.parametrize("width", [28, 50, 200])
def test_rewrapping_a_real_readme_leaves_its_text(path: Path, width: int) -> None:
    source = path.read_text(encoding="utf-8")
    wrapped = rewrap(source, width)
    if width == 28:  # the edit did something: the test would see a change
        assert wrapped != source
    assert text_of(wrapped) == text_of(source)


@pytest.mark.parametrize("path", READMES, ids=README_IDS)
@pytest.mark.parametrize("scheme", ["same", "count"])
def test_renumbering_a_real_readmes_lists_leaves_its_text(path: Path, scheme: str) -> None:
    source = path.read_text(encoding="utf-8")
    assert text_of(renumber(source, scheme)) == text_of(source)


def test_ruffs_numbered_list_is_really_renumbered() -> None:
    source = (DATA / "ruff.md").read_text(encoding="utf-8")
    counted = renumber(source, "count")
    assert "1. [Getting Started]" in source and "2. [Configuration]" in counted
    assert text_of(counted) == text_of(source)


def test_repadding_selectolaxs_table_leaves_its_text() -> None:
    source = (DATA / "selectolax.md").read_text(encoding="utf-8")
    for extra in (0, 1, 7):
        padded = repad(source, extra)
        assert padded != source
        assert text_of(padded) == text_of(source)
    text = text_of(source)
    assert "selectolax (Lexbor)\n2.39 sec." in text  # the cells, trimmed, one a line


def test_rendered_text_is_the_words_not_the_syntax() -> None:
    source = (DATA / "selectolax.md").read_text(encoding="utf-8")
    text = text_of(source)
    assert "## Installation" in source and "\nInstallation\n" in text
    assert "[Lexbor](https://github.com/lexbor/lexbor)" in source
    assert "using the Lexbor engine." in text and "](" not in text.split("```")[0]
    assert "|---" not in text and "**" not in text


def test_a_real_readmes_raw_html_is_parsed_as_html() -> None:
    source = (DATA / "ruff.md").read_text(encoding="utf-8")
    body = render_body(source)
    assert '<p align="center">' in body and "<img alt=" in body
    text = text_of(source)
    assert "Linting the CPython codebase from scratch." in text
    assert "<!-- Begin section" not in text  # a comment is not text


# -- soft line breaks: CSS Text 3 segment break transformation -------------------------------


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("one\ntwo", "one two"),
        ("中文\n内容", "中文内容"),  # both wide: removed
        ("日本語の\nテキスト", "日本語のテキスト"),
        ("全角\uff01\n次", "全角\uff01次"),  # fullwidth punctuation is wide too
        ("한국어\n문장", "한국어 문장"),  # Hangul keeps a space
        ("中文\nand", "中文 and"),
        ("zero\u200b\nwidth", "zero\u200bwidth"),
        ("مرحبا\nبالعالم", "مرحبا بالعالم"),
        ("สวัสดี\nครับ", "สวัสดี ครับ"),  # Thai is not East Asian Wide: a space, as browsers show
        ("emoji 😀\nnext", "emoji 😀 next"),
        ("*中文*\n内容", "中文内容"),  # the characters around the break, across markup
        ("a  \nb", "a\nb"),  # a hard break stays a line break
    ],
)
def test_a_soft_break_renders_as_a_browser_shows_it(source: str, text: str) -> None:
    assert text_of(source).strip("\n") == text


_WORDS = {
    "latin": st.sampled_from(["review", "budget", "Résumé", "naïve", "policy", "2026"]),
    "cjk": st.sampled_from(["中文", "内容", "日本語", "テキスト", "预算", "。", "，"]),
    "hangul": st.sampled_from(["한국어", "문장", "예산"]),
    "arabic": st.sampled_from(["مرحبا", "بالعالم", "بودجه", "سیاست"]),
    "thai": st.sampled_from(["สวัสดี", "ครับ", "งบประมาณ"]),
    "emoji": st.sampled_from(["😀", "👩‍💻", "🇫🇷"]),
}
_WORD = st.one_of(*_WORDS.values())


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(st.tuples(_WORD, st.booleans()), min_size=2, max_size=30),
    st.integers(min_value=1, max_value=40),
)
def test_any_rewrap_at_a_space_or_between_wide_characters_keeps_the_text(words, width):
    # A paragraph of words, each followed by a space or not (CJK runs join without one);
    # breaking the source line at a space, or between two wide characters, renders the
    # same text. (A space written between two wide characters is the one exception: a
    # line break there shows no space, CSS Text 3, so the text does change.)
    joined = "".join(w + (" " if sp else "") for w, sp in words).strip()
    base = text_of(joined)

    def breakable(k: int) -> bool:
        if joined[k] == " ":
            return not (_wide(joined[k - 1]) and _wide(joined[k + 1]))
        return _wide(joined[k - 1]) and _wide(joined[k])

    breaks = [k for k in range(1, len(joined) - 1) if breakable(k)]
    chosen = breaks[width % max(1, len(breaks)) :: max(1, width // 3)]
    source = joined
    for k in sorted(chosen, reverse=True):
        source = (
            source[:k] + "\n" + source[k + 1 :]
            if joined[k] == " "
            else (source[:k] + "\n" + source[k:])
        )
    assert text_of(source) == base


def _wide(c: str) -> bool:
    from engine.text.markdown import _is_wide

    return _is_wide(c)


# -- raw HTML: inert --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "<script>document.title='ran'</script>",
        "<SCRIPT src=https://evil.example/x.js></SCRIPT>",
        "<style>body{background:url(https://evil.example/t)}</style>",
        "<iframe src=https://evil.example></iframe>",
        "<textarea>swallows</textarea>",
        "<title>x</title>",
        "<xmp>x</xmp>",
        "<noembed>x</noembed>",
        "<noframes>x</noframes>",
        "before <script>inline()</script> after",
    ],
)
def test_gfm_tag_filter_turns_dangerous_tags_into_text(raw: str) -> None:
    body = render_body(f"Intro.\n\n{raw}\n\nAfter it.\n")
    lower = body.lower()
    for tag in ("script", "style", "iframe", "textarea", "title", "xmp", "noembed", "noframes"):
        assert f"<{tag}" not in lower and f"</{tag}" not in lower
    text = text_of(f"Intro.\n\n{raw}\n\nAfter it.\n")
    assert "After it." in text  # nothing swallowed the rest


def test_plaintext_cannot_swallow_the_rest_of_the_page() -> None:
    text = text_of("Intro.\n\n<plaintext>\n\n# Later heading\n")
    assert "Later heading" in text and "# Later" not in text


def test_the_page_carries_a_policy_that_loads_and_runs_nothing() -> None:
    page = markdown_page("![x](https://evil.example/p.png)\n", title="A <b>title</b>")
    assert f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">' in page
    assert "default-src 'none'" in PAGE_CSP and "script-src" not in PAGE_CSP
    assert "<title>A &lt;b&gt;title&lt;/b&gt;</title>" in page
    # the policy comes before anything the document wrote
    assert page.index("Content-Security-Policy") < page.index("<body>")


def test_title_does_not_change_the_text() -> None:
    assert extract(markdown_page("x", "one")).text == extract(markdown_page("x", "two")).text


def test_gfm_extensions_render() -> None:
    source = (
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [ ] todo\n- [x] done\n\n"
        "~~gone~~ and a note[^n].\n\n> [!NOTE]\n> Careful.\n\n[^n]: The note.\n"
    )
    body = render_body(source)
    assert "<table>" in body and 'type="checkbox"' in body and "<s>gone</s>" in body
    assert 'class="footnote-ref"' in body and "markdown-alert-note" in body
    text = text_of(source)
    assert "todo" in text and "[ ]" not in text and "The note." in text and "Careful." in text


def test_renderer_identity_names_both_packages() -> None:
    import markdown_it
    import mdit_py_plugins

    ident = renderer_identity()
    assert ident == (
        f"markdown-it-py {markdown_it.__version__}, mdit-py-plugins {mdit_py_plugins.__version__}"
    )


def test_hostile_markdown_renders_in_bounded_time() -> None:
    import time

    for source in (
        "[" * 50_000 + "a" + "]" * 50_000,
        "*a " * 30_000,
        "> " * 5_000 + "deep",
        "- " * 5_000 + "deep",
        "`" * 20_000,
        "<" * 50_000,
    ):
        t = time.perf_counter()
        if too_large(source) is None:  # the 5,000-deep ones are refused (test_markdown_nesting)
            text_of(source)
        assert time.perf_counter() - t < 10
    assert too_large("> " * 5_000 + "deep") and too_large("- " * 5_000 + "deep")


def test_markdown_over_the_cap_is_refused_where_it_comes_in(tmp_path, monkeypatch) -> None:
    from engine import caps
    from engine.text import markdown
    from engine.text.documents import DocumentError, open_document

    monkeypatch.setattr(markdown, "MAX_MARKDOWN_CHARS", 1000)
    path = tmp_path / "big.md"
    path.write_text("word " * 300, encoding="utf-8")
    with pytest.raises(
        DocumentError, match=r"big\.md: is 1,500 characters of Markdown, over the 1,000"
    ):
        open_document(path)
    refusal = caps.push_refusal("word " * 300, "markdown", 0)
    assert refusal and "over the 1,000 this program renders" in refusal
    assert caps.push_refusal("word " * 100, "markdown", 0) is None
    # plain text of the same size is not Markdown: no such cap
    (tmp_path / "big.txt").write_text("word " * 300, encoding="utf-8")
    assert open_document(tmp_path / "big.txt").kind == "text"
