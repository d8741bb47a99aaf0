"""The Start page, Help and the Metrics tab say what they mean: one picker for folders and
zips, Qt icons (no emoji), recent bundles by title/model/date/outcome, a page on reading
the verdicts; a finished run's last round never says "not finished", the scripted demo says
it is scripted, and the explanations wrap instead of being cut off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from app.bundle_summary import read_manifest, summary
from app.window import MainWindow, bundle_path_from_pick

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def _bundle(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "bundles" / "one"
    shutil.copytree(DATA / "bundle-min", folder)
    zipped = Path(shutil.make_archive(str(tmp_path / "bundles" / "two"), "zip", folder))
    return folder, zipped


def _pick(qtbot, dlg, select: Path | None, directory: Path) -> None:
    dlg.setDirectory(str(directory))
    if select is not None:
        dlg.selectFile(str(select))
    qtbot.wait(50)
    dlg.accept()


@pytest.mark.parametrize("how", ["folder", "inside", "manifest", "zip"])
def test_one_picker_opens_a_folder_a_zip_or_a_manifest(qtbot, window, tmp_path, how):
    folder, zipped = _bundle(tmp_path)
    window.ask_open_bundle()
    dlg = window._dialog
    assert isinstance(dlg, QFileDialog) and dlg.isVisible()
    assert dlg.fileMode() == QFileDialog.FileMode.ExistingFile
    assert "*.zip" in dlg.nameFilters()[0] and "manifest.json" in dlg.nameFilters()[0]
    assert "folder" in dlg.windowTitle() and ".zip" in dlg.windowTitle()
    with qtbot.waitSignal(window.bundleOpened, timeout=10000) as opened:
        if how == "folder":  # the bundle folder selected in its parent: Open opens it
            _pick(qtbot, dlg, folder, folder.parent)
        elif how == "inside":  # Open while the dialog shows the bundle folder itself
            _pick(qtbot, dlg, None, folder)
        elif how == "manifest":
            _pick(qtbot, dlg, folder / "manifest.json", folder)
        else:
            _pick(qtbot, dlg, zipped, zipped.parent)
    want = zipped if how == "zip" else folder
    assert Path(opened.args[0].path).resolve() == want.resolve()
    assert not dlg.isVisible()


def test_the_picker_goes_into_a_folder_that_is_not_a_bundle(qtbot, window, tmp_path):
    folder, _zipped = _bundle(tmp_path)
    window.ask_open_bundle()
    dlg = window._dialog
    _pick(qtbot, dlg, folder.parent, tmp_path)  # "bundles" holds bundles; it is not one
    assert dlg.isVisible()  # still choosing, now inside that folder
    assert window.data is None
    dlg.close()


def test_pick_result_and_the_same_picker_everywhere(qtbot, window, tmp_path):
    assert bundle_path_from_pick(str(tmp_path / "b" / "manifest.json")) == tmp_path / "b"
    assert bundle_path_from_pick(str(tmp_path / "b.zip")) == tmp_path / "b.zip"
    from app.bundle_picker import BundlePicker

    window.start.open_btn.click()
    assert isinstance(window._dialog, BundlePicker)
    window._dialog.close()
    window.act_open.trigger()
    assert isinstance(window._dialog, BundlePicker)
    window._dialog.close()
    window.compare.pick_a.click()
    assert isinstance(window.compare._dialog, BundlePicker)
    window.compare._dialog.close()


def test_start_page_buttons_use_qt_icons_not_emoji(window):
    for b in (window.start.example_btn, window.start.setup_btn, window.start.open_btn):
        assert not b.icon().isNull()
        assert all(ord(ch) < 0x2190 for ch in b.text()), b.text()


def test_recent_bundles_show_title_model_date_and_outcome(qtbot, tmp_path):
    src = DATA / "bundle-min"
    folder = tmp_path / "bundle"
    shutil.copytree(src, folder)
    zipped = Path(shutil.make_archive(str(tmp_path / "z"), "zip", folder))
    m = read_manifest(folder)
    assert m is not None and read_manifest(zipped) == m
    line = summary(folder)
    assert str(m["document_title"])[:20] in line and str(m["model"]) in line
    assert str(m["status"]) in line
    assert "cannot be read" in summary(tmp_path / "nothing.zip")

    w = MainWindow()
    qtbot.addWidget(w)
    w.settings.add_recent_bundle(str(folder))
    w._refresh_start()
    qtbot.waitUntil(lambda: w.start.recent.item(0).text() == line, timeout=5000)
    item = w.start.recent.item(0)
    assert item.toolTip() == f"{line}\n{folder}"  # the full line, then the path
    assert item.data(Qt.ItemDataRole.UserRole) == str(folder)


def test_two_copies_of_one_run_in_recent_bundles_say_their_folders(qtbot, tmp_path):
    """Two rows that would read the same ("Remote work policy · 1 Dec 2026 · completed
    (scripted)" twice) each say the folder they are in (a lone one does not: the test
    above); a bundle opened again is still one row."""
    a, b = tmp_path / "mine" / "bundle", tmp_path / "theirs" / "bundle"
    for f in (a, b):
        shutil.copytree(DATA / "bundle-min", f)
    line = summary(a)
    w = MainWindow()
    qtbot.addWidget(w)
    for f in (a, b, DATA / "bundle-min"):
        w.settings.add_recent_bundle(str(f))
    w.settings.add_recent_bundle(str(a))  # opened again: still one row
    w._refresh_start()
    assert w.start.recent.count() == 3
    paths = [a, DATA / "bundle-min", b]  # newest first
    want = [f"{line}\nin {p.parent}" for p in paths]
    qtbot.waitUntil(lambda: [w.start.recent.item(i).text() for i in range(3)] == want, timeout=5000)
    assert want[0] in [act.text() for act in w.recent_menu.actions()]


def test_a_chinese_titles_detail_line_is_not_cut_in_recent_bundles(qtbot, tmp_path):
    import json

    from app.start_page import StartPage

    title = "关于大型语言模型在科学论文审稿中的应用与评估：一项系统性研究报告（第二版修订稿）"
    folder = tmp_path / "zh"
    folder.mkdir()
    manifest = {"document_title": title, "model": "m", "finished_at": "2026-11-30", "status": "x"}
    (folder / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    page = StartPage()
    qtbot.addWidget(page)
    page.resize(420, 768)  # narrow enough for the title to wrap (the column is 760 at most)
    page.show()
    page.set_recent([str(folder)], {str(folder): summary(folder)})
    item = page.recent.item(0)
    rect = page.recent.visualItemRect(item)
    # the title wraps to two lines at this width; the detail line needs a third
    lines = page.recent.fontMetrics().lineSpacing()
    assert rect.height() >= 3 * lines, (rect.height(), lines, rect.width(), page.width())
    assert item.toolTip().startswith(summary(folder))


def test_help_explains_the_verdicts_in_the_vocabulary_words(qtbot, window):
    from engine import vocabulary as vocab

    window.show_reading_help()
    text = window._help.browser.toPlainText()
    for v in vocab.VERDICTS:
        assert vocab.VERDICT_LABELS[v] in text and vocab.VERDICT_MEANINGS[v] in text
    for name in vocab.METRIC_NAMES:
        assert vocab.METRIC_TITLES[name] in text
    assert "N/A" in text
    window._help.close()
    titles = [a.text() for a in window.menuBar().actions()[-1].menu().actions()]
    assert any("verdicts" in t for t in titles) and any("README" in t for t in titles)


def _metric(value=None, reason=""):
    return {"value": value, "reason": reason} if value is None else {"value": value}


def test_a_finished_runs_rounds_never_say_not_finished(qtbot, window):
    run = {
        "attribution_rate": {"value": 0.5, "numerator": 1, "denominator": 2},
        "collateral_churn": _metric(None, "nothing changed"),
        "claim_accuracy": {"value": 1.0, "numerator": 2, "denominator": 2},
        "cost_per_attributed_fix": {"value": 100, "numerator": 100, "denominator": 1},
        "rounds_to_converge": {"value": 2},
    }
    rounds = [
        (n, {"rounds_to_converge": _metric(None, "the run has not finished")}) for n in (1, 2, 3)
    ]
    panel = window.metrics
    panel.show_metrics(run, rounds, "completed", "")
    assert not [t for t in panel.cells.values() if "not finished" in t]
    for n in (1, 2):  # earlier rounds of a finished run: said plainly, not "not finished"
        cell = panel.cells[("rounds_to_converge", f"After round {n}")]
        assert cell.startswith("N/A") and "not measured after each round" in cell
    last = panel.cells[("rounds_to_converge", "After round 3")]
    assert last == panel.cells[("rounds_to_converge", "Whole run")] == "2 pushes"
    # while the run is still going, the engine's own reason is true and is shown
    panel.show_metrics(run, rounds, "running", "")
    assert "the run has not finished" in panel.cells[("rounds_to_converge", "After round 1")]
    assert panel.table.textElideMode() == Qt.TextElideMode.ElideNone
    help_col = panel.table.columnCount() - 1
    assert panel.table.item(0, help_col).toolTip()


def test_the_scripted_demo_metrics_say_it_is_scripted(qtbot, window):
    from app.about import example_bundle_path

    demo = example_bundle_path("demo")
    if demo is None:
        pytest.skip("no demo bundle in this checkout")
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_bundle(demo, remember=False)
    assert "Scripted demonstration" in window.metrics.intro.text()


def test_opening_a_bundle_covers_the_old_documents_at_once(qtbot, window):
    from app.about import example_bundle_path

    first, second = DATA / "bundle-min", example_bundle_path()
    if second is None:
        pytest.skip("no example bundle")
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_bundle(first, remember=False)
    assert not window.verdicts.v1.cover.isVisible()
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_bundle(second, remember=False)
        # the previous bundle's pages are hidden before the new ones are painted
        assert window.verdicts.v1.cover.isVisible() and window.verdicts.v2.cover.isVisible()
        assert "Loading" in window.verdicts.v1.cover.text()
    qtbot.waitUntil(lambda: not window.verdicts.v2.cover.isVisible(), timeout=10000)
    assert not window.verdicts.v1.cover.isVisible()


def test_the_view_menu_reaches_every_tab(window):
    (view_menu,) = [a.menu() for a in window.menuBar().actions() if a.text() == "&View"]
    tabs = [a for a in view_menu.actions() if not a.isSeparator() and a.menu() is None]
    names = [a.text() for a in tabs]
    assert names == [window.tabs.tabText(i).replace("&", "") for i in range(window.tabs.count())]
    assert [a.text() for a in view_menu.actions() if a.menu() is not None] == ["&Theme"]
    tabs[-1].trigger()  # Ctrl+9
    assert window.tabs.currentIndex() == window.TAB_PUBLISHED


def _contrast(fg, bg) -> float:
    def lum(c):
        def ch(v):
            v = v / 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue())

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_metric_explanations_read_on_white(window):
    from PySide6.QtGui import QColor

    panel = window.metrics
    panel.show_metrics({}, [], "completed", "")
    item = panel.table.item(0, panel.table.columnCount() - 1)
    assert item.text()
    assert _contrast(item.foreground().color(), QColor("white")) >= 4.5  # WCAG AA


def test_readme_with_no_program_to_open_it_says_where_it_is(window, monkeypatch, tmp_path):
    from app import help as app_help

    readme = tmp_path / "README.md"
    readme.write_text("# Agent Review Loop\n", encoding="utf-8")
    monkeypatch.setattr(app_help, "readme_path", lambda: readme)
    monkeypatch.setattr(app_help, "open_readme", lambda: False)  # xdg-open failed
    window.open_readme()
    box = window._message_box
    assert box.isVisible() and str(readme) in box.informativeText()
    box.close()


def test_export_dialogs_open_in_the_last_folder_used(qtbot, window, tmp_path):
    from app.settings import Settings

    here = tmp_path / "exports"
    here.mkdir()
    Settings().remember_folder_of(str(here / "earlier.pdf"))
    assert Settings().start_folder() == here.resolve()
    window.scorecard._ask_path("Export", "pdf", "PDF files (*.pdf)", lambda _p: None)
    dlg = window.scorecard._dialog
    assert Path(dlg.directory().absolutePath()).resolve() == here.resolve()
    dlg.close()


def test_the_start_page_paragraphs_are_never_cut_mid_line(qtbot):
    """At 1366 x 768 and 1.5x (fonts 1.5 times as wide, 911 x 512 px of room) each wrapped
    paragraph gets the height its words need at its width, and the page scrolls."""
    from PySide6.QtWidgets import QLabel, QScrollArea

    from app.start_page import StartPage

    page = StartPage()
    qtbot.addWidget(page)
    big = page.font()
    big.setPointSizeF(big.pointSizeF() * 1.5)
    page.setFont(big)
    page.example_note.setText(
        "A recorded run of <b>smollm2-135m</b> on \u201cCase Report: Concurrent primary CNS "
        "lymphoma and meningothelial meningioma\u201d: see how the program reports what an "
        "agent really did. Opens offline."
    )
    page.resize(911, 512)
    page.show()
    qtbot.waitExposed(page)
    assert page.findChild(QScrollArea) is not None
    for label in page.findChildren(QLabel):
        if label.isVisible() and label.wordWrap() and label.text():
            assert label.height() >= label.heightForWidth(label.width()), label.text()[:40]


def test_the_words_under_the_metrics_table_never_cover_it(qtbot, window):
    """At 1366x768 and 150 % (911x512) "Awaiting review: 3 of 3 …" was drawn over the
    table's last row: the table had a fixed height, so the panel could not be shorter than
    every row plus the words, and the screen clamped it. The table now takes the room left
    (it scrolls), and with room to spare it shows every row above the words."""
    from app.about import example_bundle_path

    demo = example_bundle_path("demo")
    if demo is None:
        pytest.skip("no demo bundle in this checkout")
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_bundle(demo, remember=False)
    window.resize(911, 900)
    window._go(3)
    panel = window.metrics
    qtbot.waitUntil(lambda: panel.isVisible() and panel.review.text() != "")
    qtbot.wait(200)
    table, review = panel.table.geometry(), panel.review.geometry()
    assert review.top() > table.bottom(), (table, review)
    full = sum(panel.table.rowHeight(r) for r in range(panel.table.rowCount()))
    assert panel.table.viewport().height() >= full
    # Short: the panel fits in what a 512-pixel-high window leaves it.
    room = 512 - (window.height() - panel.height())
    assert panel.minimumSizeHint().height() <= room, (panel.minimumSizeHint(), room)
