"""A document's title for people (``engine.text.titles.document_title``): a Word
document's core-properties title, else its first heading, else its file name, never
"travel_v1.docx" when the document says what it is called."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from engine.text.documents import open_document
from engine.text.titles import document_title

docx = pytest.importorskip("docx")


def _word(tmp_path: Path, title: str = "", heading: str = "") -> Path:
    d = docx.Document()
    d.core_properties.title = title
    d.add_paragraph("An opening line in the body.")
    if heading:
        d.add_heading(heading, level=2)
    d.add_paragraph("More text.")
    buf = io.BytesIO()
    d.save(buf)
    path = tmp_path / "travel_v1.docx"
    path.write_bytes(buf.getvalue())
    return path


@pytest.mark.parametrize(
    ("title", "heading", "expected"),
    [
        ("Travel policy 2027", "Travel expenses", "Travel policy 2027"),
        ("", "Travel expenses policy", "Travel expenses policy"),
        ("   ", "Travel   expenses", "Travel expenses"),
        ("", "", "travel_v1.docx"),
    ],
)
def test_a_word_documents_title(tmp_path, title, heading, expected):
    path = _word(tmp_path, title, heading)
    doc = open_document(path)
    assert document_title(path, doc.kind, doc.content) == expected


def test_an_html_page_without_a_title_is_named_by_its_first_heading():
    page = (
        "<html><head><title> </title></head><body><p>x</p><h3>Rota <b>2027</b></h3><h1>Later</h1>"
    )
    assert document_title("p.html", "html", page) == "Rota 2027"
    assert (
        document_title("p.html", "html", "<title>Kept &amp; read</title><h1>No</h1>")
        == "Kept & read"
    )
    assert document_title("p.html", "html", "<p>nothing</p>") == "p.html"


@given(
    st.text(
        st.characters(blacklist_categories=("Cc", "Cs")),  # the parser drops NUL, as browsers do
        min_size=1,
        max_size=60,
    ).filter(lambda t: t.split())
    | st.sampled_from(
        ["出張旅費規程", "سياسة السفر", "سیاست سفر", "นโยบายการเดินทาง", "✈️ Travel 🧾"]
    )
)
def test_any_heading_text_in_any_script_is_the_title(text):
    import html

    page = f"<body><h1>{html.escape(text)}</h1></body>"
    got = document_title("p.html", "html", page)
    words = " ".join(text.split())
    assert got == (words if len(words) <= 120 else "p.html")
