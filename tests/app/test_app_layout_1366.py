"""The Verdicts view and the wizard on a 1366 x 768 screen, at 1x and at 1.5x scale (911 x
512 in the program's pixels): the decision buttons show without scrolling at 1x and can
be reached at 1.5x."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import QPoint, QRect, Qt

from app import fold
from app.settings import Settings
from app.window import MainWindow

DEMO = Path(__file__).resolve().parents[2] / "resources/demo/remote-work-policy-scripted"
NEEDED = ("accept", "addressed", "not-addressed", "deletion-is-fix")


def opened(qtbot, size: tuple[int, int], settings: Settings | None = None) -> MainWindow:
    win = MainWindow(settings or Settings())
    qtbot.addWidget(win)
    win.setMinimumSize(100, 100)
    win.resize(*size)
    win.show()
    with qtbot.waitSignal(win.verdicts.rendered, timeout=30000):
        win.open_bundle(DEMO)
    win.tabs.setCurrentIndex(win.TAB_VERDICTS)
    v = win.verdicts
    v.table.selectRow(0)
    qtbot.waitUntil(lambda: not v.room._due, timeout=5000)
    qtbot.wait(100)
    return win


def shown_in(scroll, widget) -> bool:
    """``widget`` lies whole inside ``scroll``'s viewport as it is scrolled now."""
    view = scroll.viewport()
    top_left = widget.mapTo(view, QPoint(0, 0))
    return view.rect().contains(QRect(top_left, widget.size()))


@pytest.mark.parametrize("banner", ["folded", "shown"])
def test_at_1x_the_decision_buttons_show_without_scrolling(qtbot, banner):
    settings = Settings()
    if banner == "shown":  # the tester's window: Show all chosen for the run status
        settings.set(fold.FOLD_KEY + "banner", "shown")
    win = opened(qtbot, (1366, 768), settings)
    v = win.verdicts
    assert v.banner_fold.folded == (banner == "folded")
    scroll = v.panels_scroll
    assert scroll.verticalScrollBar().value() == 0
    for d in NEEDED:
        assert shown_in(scroll, v.decision.buttons[d]), (d, scroll.viewport().height())


def test_at_one_and_a_half_scale_each_decision_button_is_reached_by_the_keyboard(qtbot):
    win = opened(qtbot, (911, 512))
    v = win.verdicts
    scroll = v.panels_scroll
    for d in NEEDED:
        b = v.decision.buttons[d]
        assert b.focusPolicy() & Qt.FocusPolicy.TabFocus
        scroll.ensureWidgetVisible(b, 0, 0)  # as the scroll area does for the focused one
        assert b.height() <= scroll.viewport().height() and shown_in(scroll, b), d


def test_the_wizards_run_settings_never_overlap_at_one_and_a_half_scale(qtbot):
    """1366 x 768 at 1.5x: the wizard is at most 887 x 464 of the program's pixels. Its
    run settings page scrolls instead of pressing the estimate and the declared checks'
    box below their height (they overlapped)."""
    from app.wizard import SetupWizard
    from engine.models import Anchor, Comment

    w = SetupWizard(Settings())
    qtbot.addWidget(w)
    w.model_page.preset.setCurrentIndex(w.model_page.preset.findData("scripted"))
    w.document_page.raw = "<p>Teams meet two days a week.</p>"
    anchor = Anchor(quote="two days", prefix="", suffix="", start_offset=11, end_offset=19)
    w.comments_page.comments = [Comment(id="c1", body="Say three.", anchor=anchor)]
    w.setStartId(w.pageIds()[3])
    w.restart()
    w.setMinimumSize(100, 100)
    w.resize(887, 464)
    w.show()
    page = w.run_page
    qtbot.waitUntil(lambda: page.isVisible() and page.estimate.text() != "", timeout=5000)
    qtbot.wait(50)
    assert w.height() <= 464
    shown = [page.estimate, page.checks, page.summary, page.price_input, page.echo]
    for x in shown:
        want = x.heightForWidth(x.width()) if x.hasHeightForWidth() else -1
        want = want if want > 0 else x.minimumSizeHint().height()
        assert x.height() >= want, (x, x.height(), want)
    rects = [QRect(x.mapTo(page, QPoint(0, 0)), x.size()) for x in shown]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b), (a, b)


def whole_words_of(shown: str, whole: str) -> bool:
    """``shown`` is ``whole``, or its first words and "…" (never a word cut)."""
    if shown == whole:
        return True
    head = shown.removesuffix("\u2026")
    return shown.endswith("\u2026") and whole.startswith(head) and whole[len(head)] in " ,;:\u00b7"


@pytest.mark.parametrize("size", [(1366, 768), (911, 512)])
def test_the_folded_banner_shows_its_headline_worst_first_in_whole_words(qtbot, size):
    win = opened(qtbot, size)
    v = win.verdicts
    f = v.banner_fold
    assert f.folded and f.summary.isVisible() and not v.banner.isVisible()
    assert f.summary.text().startswith("Awaiting review (3 of 3)"), f.summary.text()
    assert whole_words_of(f.summary.text(), f.summary.whole)
    v.data.manifest.update(status="cancelled", reason="the user cancelled it")
    v.show_banner(v.data)  # as for a cancelled run: its state before the review's
    qtbot.waitUntil(lambda: not v.room._due, timeout=5000)
    said = f.summary.text()
    assert said.startswith("This run was cancelled"), said
    assert "signed" not in said and whole_words_of(said, f.summary.whole)
    assert f.summary.fontMetrics().horizontalAdvance(said) <= f.summary.width()
    f.button.click()  # Show all: the whole banner, its first sentence the signature's
    assert v.banner.isVisible() and not f.summary.isVisible()


def test_a_phrase_is_elided_between_words(qtbot):
    from PySide6.QtWidgets import QLabel

    from app.fold import elide_words

    fm = QLabel().fontMetrics()
    text = "This run was cancelled before it finished \u00b7 Awaiting review (3 of 3)"
    for width in range(fm.horizontalAdvance("This run\u2026"), fm.horizontalAdvance(text) + 5, 7):
        shown = elide_words(text, fm, width)
        assert fm.horizontalAdvance(shown) <= width and whole_words_of(shown, text), shown


@pytest.mark.parametrize("size", [(1366, 768), (911, 512)])
def test_the_folded_legend_shows_every_verdict_of_the_table(qtbot, size):
    from app.verdicts import STYLES

    win = opened(qtbot, size)
    v = win.verdicts
    f = v.legend_fold
    assert f.folded and f.summary.isVisible()
    kinds = {r["verdict"] for r in v.rows}
    assert {"edited", "untouched", "deleted"} <= kinds  # the demo's table
    for k in kinds:
        assert STYLES[k].label in f.summary.text(), k
        assert STYLES[k].description in f.summary.toolTip(), k
    assert f.summary.sizeHint().width() <= f.summary.width()  # on one line, nothing cut
    assert f.summary.height() >= f.summary.sizeHint().height()
