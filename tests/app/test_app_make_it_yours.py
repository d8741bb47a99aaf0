"""Make it yours: selections made in this program snap to whole words (in every script,
the browser's ICU word breaks) and lose their end spaces, Alt keeps them exact; the user's
name, asked once, is on their comments; the document does not jump when a comment just
added is selected; the trust dialog says whose key it is."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from wizard_helpers import u16

from app.docview import DocumentView
from app.settings import Settings
from app.wizard import SetupWizard

TEXT = (
    "Submit it on the portal at least 21 days before leaving. "
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ "
    "日本語の文章です。 "
    "مرحبا بالعالم"
)
PAGE = f"<!doctype html><meta charset=utf-8><body><p>{TEXT}</p></body>"


@pytest.fixture
def view(qtbot):
    v = DocumentView()
    qtbot.addWidget(v)
    v.resize(900, 500)
    v.show()
    with qtbot.waitSignal(v.rendered, timeout=20000):
        v.show_document(PAGE, snap=True)
    return v


def _js(qtbot, view, source):
    box = {}
    view.run_js(source, lambda v: box.setdefault("v", v))
    qtbot.waitUntil(lambda: "v" in box, timeout=10000)
    return box["v"]


def _snapped(qtbot, view, s, e):
    a, b = _js(qtbot, view, f"__arl.snapped({s}, {e})")
    return TEXT[a:b]  # the sample has no astral characters: UTF-16 = code points


def test_a_drag_inside_words_becomes_whole_words_without_spaces(qtbot, view):
    s = TEXT.index("tal at least")  # the end of "portal", as a tester dragged
    e = TEXT.index("21 days") + 2
    assert _snapped(qtbot, view, s, e) == "portal at least 21"
    s = TEXT.index(" before")  # a leading space and half a word
    assert _snapped(qtbot, view, s, s + 4) == "before"


def test_scripts_without_spaces_snap_to_dictionary_words(qtbot, view):
    thai = "ภาษาไทยไม่มีช่องว่างระหว่างคำ"
    t0 = TEXT.index(thai)
    got = _snapped(qtbot, view, t0 + 1, t0 + 3)  # inside the first word
    assert got and thai.startswith(got) and len(got) < len(thai)
    assert got == "ภาษา"  # a dictionary word, not the whole run of letters
    j0 = TEXT.index("日本語")
    got = _snapped(qtbot, view, j0 + 1, j0 + 2)
    assert got.startswith("日本") and "の" not in got
    a0 = TEXT.index("بالعالم")
    assert _snapped(qtbot, view, a0 + 2, a0 + 4) == "بالعالم"


def test_the_mouse_selection_snaps_and_alt_keeps_it_exact(qtbot, view):
    s, e = TEXT.index("tal at"), TEXT.index("tal at") + 6
    view.select_offsets(s, e)
    qtbot.wait(100)
    _js(qtbot, view, "document.dispatchEvent(new MouseEvent('mouseup', {altKey: true}))")
    exact = _js(qtbot, view, "__arl.selectionAnchor().quote")
    assert exact == "tal at"
    _js(qtbot, view, "document.dispatchEvent(new MouseEvent('mouseup', {altKey: false}))")
    assert _js(qtbot, view, "__arl.selectionAnchor().quote") == "portal at"


def test_views_of_a_bundle_never_change_a_selection(qtbot):
    v = DocumentView()
    qtbot.addWidget(v)
    v.show()
    with qtbot.waitSignal(v.rendered, timeout=20000):
        v.show_document(PAGE)  # no snap: the Verdicts panes
    s = TEXT.index("tal at")
    v.select_offsets(s, s + 6)
    assert _js(qtbot, v, "__arl.snapSelection(false)") is False
    assert _js(qtbot, v, "__arl.selectionAnchor().quote") == "tal at"


def test_focusing_a_span_on_screen_does_not_scroll(qtbot, view):
    view.set_highlights([{"id": "a", "kind": "comment", "start": 4, "end": 10, "label": ""}])
    qtbot.wait(300)
    assert _js(qtbot, view, "__arl.focus('a')") is True
    assert _js(qtbot, view, "window.scrollY") == 0


def _to_comments_page(qtbot, wizard):
    from wizard_helpers import SAMPLE

    wizard.show()
    wizard.model_page.url.setText("http://127.0.0.1:9/v1")
    wizard.model_page.model.setEditText("m")
    wizard.next()
    wizard.document_page.set_document("Memo", SAMPLE, "html")
    with qtbot.waitSignal(wizard.comments_page.view.rendered, timeout=20000):
        wizard.next()
    return wizard.comments_page


def test_comments_carry_the_users_name_asked_once(qtbot):
    from wizard_helpers import SAMPLE_TEXT

    settings = Settings()
    w = SetupWizard(settings)
    qtbot.addWidget(w)
    page = _to_comments_page(qtbot, w)
    assert page.name.text() == ""
    page.name.setText("  Ana   Lima ")
    page.name.editingFinished.emit()
    s, e = u16(SAMPLE_TEXT, "by email")
    c = page.add_comment({"quote": "by email", "start_offset": s, "end_offset": e}, "Form?")
    assert c.author == "Ana Lima"
    assert Settings().user_name == "Ana Lima"  # kept: the next wizard asks no more
    w2 = SetupWizard(Settings())
    qtbot.addWidget(w2)
    page2 = _to_comments_page(qtbot, w2)
    assert page2.name.text() == "Ana Lima"


def test_the_trust_dialog_says_whose_key_it_is(qtbot):
    from pathlib import Path

    from app.bundledata import load_bundle
    from app.scorecard import ScorecardView

    sc = ScorecardView()
    qtbot.addWidget(sc)
    sc.data = load_bundle(Path(__file__).resolve().parents[1] / "data" / "bundle-min")
    if sc.data.signature is None:
        pytest.skip("fixture bundle carries no signature")
    sc.ask_trust()
    text = sc._dialog.labelText()
    assert "not this computer's own key" in text and "signed by you on this computer" in text
    assert "Who holds it?" in text


def test_the_badges_on_the_document_use_the_lists_numbers(qtbot, monkeypatch):
    """The wizard's badges read "c1".."c4" while its list said "Comment 1": one name."""
    from wizard_helpers import SAMPLE_TEXT

    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    page = _to_comments_page(qtbot, w)
    page.name.setText("Ana")
    page.name.editingFinished.emit()
    shown = []
    monkeypatch.setattr(page.view, "set_highlights", lambda spans: shown.append(spans))
    for quote in ("by email", "three days"):
        if quote in SAMPLE_TEXT:
            s, e = u16(SAMPLE_TEXT, quote)
            page.add_comment({"quote": quote, "start_offset": s, "end_offset": e}, "Fix.")
    spans = shown[-1]
    assert spans and [sp["label"] for sp in spans] == [
        f"\u270d {i}" for i in range(1, len(spans) + 1)
    ]
    assert all(page.list.item(i).text().startswith(f"Comment {i + 1}:") for i in range(len(spans)))
