"""Opening evidence bundles in the main window: verdicts, metrics, scorecard, tampered and
failed bundles, stale anchors in words, N/A never a zero."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtWebEngineWidgets")

from PySide6.QtCore import Qt

from app.bundledata import BundleError, load_bundle
from app.window import MainWindow

DATA = Path(__file__).resolve().parents[1] / "data"


def _fixture_module():
    spec = importlib.util.spec_from_file_location(
        "make_fixture_bundle",
        Path(__file__).resolve().parents[2] / "tools" / "make_fixture_bundle.py",
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


def open_and_wait(qtbot, window, path):
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        assert window.open_bundle(path)


def test_fixture_bundle_is_intact():
    data = load_bundle(DATA / "bundle-min")
    assert data.tampered == [] and data.problems == []
    assert [v["verdict"] for v in data.verdicts] == [
        "edited",
        "untouched",
        "deleted",
        "stale_anchor",
    ]


def test_open_bundle_shows_verdicts_metrics_and_scorecard(qtbot, window):
    open_and_wait(qtbot, window, DATA / "bundle-min")
    assert window.tabs.currentIndex() == window.TAB_VERDICTS
    table = window.verdicts.table
    assert table.rowCount() == 4
    verdict_cells = [table.item(r, 1).text() for r in range(4)]
    assert verdict_cells == [
        "\u270e edited",
        "\u25cb untouched",
        "\u2715 deleted",
        "? stale anchor",
    ]
    # Claim vs. text, in words.
    assert table.item(1, 5).text() == "\u2717 disagrees"
    # Stale anchors in plain words, both in the row and in the banner.
    assert "not counted" in table.item(3, 6).text()
    assert "stale anchor" in window.verdicts.banner.text()
    assert "Scripted demonstration" in window.verdicts.banner.text()
    # The banner names the document first, then when it ran, in words; the folder name
    # and the run id only in its tooltip (and the status bar's).
    title = window.data.manifest["document_title"]
    banner = window.verdicts.banner.text()
    run_id = window.data.manifest["run_id"]
    assert title and banner.index(title) < banner.index(", the run of ")
    assert window.data.path.name not in banner and run_id not in banner
    tip = window.verdicts.banner.toolTip()
    assert window.data.path.name in tip and run_id in tip
    said = window.statusBar().currentMessage()
    assert said.startswith(f"Opened \u201c{title}\u201d, the run of ") and "/" not in said
    assert str(DATA / "bundle-min") in window.statusBar().toolTip()
    # isolated (FSI title PDI) after a left-to-right mark: a Persian or Arabic title must
    # not turn the English line around it right to left
    assert f"\u200e<b>\u2068{title}\u2069</b>, the run of " in banner
    # Every located span was painted, in v1 and in v2 (with the collateral range).
    hl = window.verdicts.last_highlight
    # (v1 also has one strike-through mark per deleted piece, engine.diff.marks)
    removed, _added = window.verdicts._change_spans()
    assert removed and hl["v1"]["made"] == 3 + len(removed) and hl["v1"]["failed"] == []
    assert hl["v2"]["failed"] == [] and hl["v2"]["made"] >= 3
    # Metrics: numbers with numerator and denominator; N/A with its reason, never 0.
    cells = window.metrics.cells
    assert cells[("attribution_rate", "Whole run")].startswith("33% (1 of 3")
    rounds_cell = cells[("rounds_to_converge", "Whole run")]
    assert rounds_cell.startswith("N/A \u2014 did not converge")
    assert "0" not in rounds_cell.split("(")[0]
    assert ("claim_accuracy", "After round 1") in cells
    assert window.scorecard.publish_btn.isEnabled()


def test_selecting_a_comment_shows_both_texts_and_thread(qtbot, window):
    open_and_wait(qtbot, window, DATA / "bundle-min")
    with qtbot.waitSignal(window.verdicts.commentSelected, timeout=5000) as blocker:
        window.verdicts.select_comment("c2")
    assert blocker.args == ["c2"]
    text = window.verdicts.detail.toPlainText()
    # The title is "Comment N"; the raw id only in its tooltip.
    assert text.startswith("Comment 2") and "c2" not in text
    assert window.verdicts.detail.document().begin().begin().fragment().charFormat().toolTip() == (
        "id c2"
    )
    assert (
        window.verdicts.table.model().data(
            window.verdicts.table.model().index(1, 0), Qt.ItemDataRole.ToolTipRole
        )
        == "Comment 2 (id c2)"
    )
    assert (
        "Verification: the model claimed it addressed this comment, "
        "but the anchored text is unchanged." in text
    )
    assert "MODEL CLAIMED ADDRESSED" not in text
    assert "reopened" in text and "by email" in text
    with qtbot.waitCallback(timeout=10000) as cb:
        window.verdicts.v2.run_js(
            "window.scrollY >= 0 && CSS.highlights.has(window.__arl.ns + '-focus')", cb
        )
    assert cb.args[0] is True


def test_tampered_bundle_opens_with_a_warning_naming_the_file(qtbot, window, tmp_path):
    copy = tmp_path / "tampered"
    shutil.copytree(DATA / "bundle-min", copy)
    p = copy / "document" / "v2.html"
    p.write_bytes(p.read_bytes().replace(b"three days", b"four days"))
    open_and_wait(qtbot, window, copy)
    assert window.data.tampered == ["document/v2.html"]
    assert "integrity check" in window.verdicts.banner.text()
    assert "Warning: this bundle fails" not in window.verdicts.banner.text()
    assert "document/v2.html" in window.verdicts.banner.text()
    # Said once, in the banner: no dialog on top of it.
    assert getattr(window, "_message_box", None) is None or not window._message_box.isVisible()


def test_failed_run_is_said_in_words(qtbot, window, tmp_path):
    mod = _fixture_module()
    path = mod.build(
        tmp_path / "failed", status="failed", reason="the model endpoint refused the key (401)"
    )
    open_and_wait(qtbot, window, path)
    banner = window.verdicts.banner.text()
    assert "This run failed" in banner and "refused the key (401)" in banner
    assert "Run failed" in window.metrics.intro.text()


def test_unreadable_bundle_is_one_plain_message(qtbot, window, tmp_path):
    bad = tmp_path / "not-a-bundle.zip"
    bad.write_bytes(b"this is not a zip")
    with pytest.raises(BundleError):
        load_bundle(bad)
    with qtbot.waitSignal(window.bundleFailed, timeout=10000) as failed:
        window.open_bundle(bad)
    assert "not-a-bundle.zip" in failed.args[0]
    assert window._message_box.isVisible()
    assert window.data is None
    window._message_box.close()


@pytest.mark.parametrize(
    ("versions", "why"),
    [
        ("oops", "(manifest.json: versions: Input should be a valid list)"),
        ([], '(no entry named "v1" in its versions)'),
    ],
)
@pytest.mark.parametrize("tokens", [None, "many"])
def test_a_manifest_without_v1_says_why_with_the_bundles_path(tmp_path, versions, why, tokens):
    """The message names the bundle by its path, as every other does, and says what the
    manifest got wrong in the words `arl bundle verify` uses ("the bundle has no
    document/v1" named neither)."""
    import json
    import shutil

    demo = next((Path(__file__).resolve().parents[2] / "resources" / "demo").glob("*/"))
    copy = tmp_path / "b"
    shutil.copytree(demo, copy)
    manifest = json.loads((copy / "manifest.json").read_text("utf-8"))
    manifest["versions"] = versions
    if tokens is not None:  # another field's problem, listed first, is no reason for this
        manifest["tokens"] = tokens
    (copy / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    with pytest.raises(BundleError) as raised:
        load_bundle(copy)
    assert str(raised.value) == f"{copy}: its manifest names no version v1 to show {why}"


def test_zip_bundle_opens(qtbot, window, tmp_path):
    from engine.bundle.bundle import export_zip

    z = export_zip(DATA / "bundle-min", tmp_path / "b.zip")
    open_and_wait(qtbot, window, z)
    assert window.data.tampered == []
    assert str(z.resolve()) in window.settings.recent_bundles


def test_publish_scorecard_into_the_workspace(qtbot, window, tmp_path):
    from engine.workspace import Workspace

    open_and_wait(qtbot, window, DATA / "bundle-min")
    with qtbot.waitSignal(window.scorecard.published, timeout=5000) as blocker:
        window.scorecard.publish()
    doc_id = blocker.args[0]
    with Workspace() as ws:
        doc = ws.document(doc_id)
    assert doc.title.startswith("Scorecard: Remote work policy")


def test_export_scorecard_html_and_pdf(qtbot, window, tmp_path):
    open_and_wait(qtbot, window, DATA / "bundle-min")
    html_path = tmp_path / "card.html"
    window.scorecard.export_html(str(html_path))
    assert "Scorecard" in html_path.read_text(encoding="utf-8")
    pdf_path = tmp_path / "card.pdf"
    with qtbot.waitSignal(window.scorecard.exported, timeout=30000):
        window.scorecard.export_pdf(str(pdf_path))
    assert pdf_path.read_bytes().startswith(b"%PDF")
    # Both exports get the same, ordinary file mode (Chromium writes PDFs owner-only).
    assert (pdf_path.stat().st_mode & 0o777) == (html_path.stat().st_mode & 0o777)


def test_window_state_and_recent_bundles_persist(qtbot, tmp_path):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.resize(1111, 777)
    w.settings.add_recent_bundle(str(DATA / "bundle-min"))
    w.close()
    geometry, state = w.settings.window_state()
    assert geometry is not None and state is not None
    w2 = MainWindow()
    qtbot.addWidget(w2)
    assert w2.start.recent.count() == 1


def test_real_run_facts_in_the_banner(qtbot, window, tmp_path):
    """A run that pushed nothing and whose report was unusable says so in words."""

    from engine.bundle.read import open_bundle
    from engine.bundle.write import content_of, write_bundle

    src = open_bundle(DATA / "bundle-min")
    content = content_of(
        src,
        reason="the round limit of 1 was reached",
        rounds=[],
        claims={
            "rounds": [],
            "final": {
                "comments": [],
                "notes": "",
                "usable": False,
                "problem": 'the report has no "comments" list',
            },
        },
    )
    path = write_bundle(tmp_path / "b", content)
    open_and_wait(qtbot, window, path)
    banner = window.verdicts.banner.text()
    assert "pushed no revision" in banner
    assert "report could not be used" in banner and "comments" in banner
    assert json.loads((path / "manifest.json").read_text())["status"] == "completed"


def test_the_banner_gives_the_plain_reason_not_the_parsers(qtbot, window):
    from app.main import example_bundle_path

    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_bundle(example_bundle_path(), remember=False)
    banner = window.verdicts.banner.text()
    assert "report could not be used (the report was cut off at its limit" in banner
    assert "unterminated" not in banner and "character" not in banner


def test_publish_asks_first_naming_the_document(qtbot, window):
    from PySide6.QtWidgets import QMessageBox

    open_and_wait(qtbot, window, DATA / "bundle-min")
    window.scorecard.ask_publish()
    box = window.scorecard._confirm
    assert "Scorecard: Remote work policy (scripted-model)" in box.text()
    with qtbot.waitSignal(window.scorecard.published, timeout=5000):
        box.done(QMessageBox.StandardButton.Yes)


def test_drop_a_bundle_on_the_window(qtbot, window):
    from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(DATA / "bundle-min"))])
    event = QDropEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with qtbot.waitSignal(window.verdicts.rendered, timeout=30000):
        window.dropEvent(event)
    assert window.data is not None and window.data.title == "Remote work policy"


def test_keyboard_reaches_every_view(qtbot, window):
    from PySide6.QtCore import Qt

    open_and_wait(qtbot, window, DATA / "bundle-min")
    for n, index in (
        (4, window.TAB_METRICS),
        (5, window.TAB_SCORECARD),
        (3, window.TAB_VERDICTS),
        (1, window.TAB_START),
    ):
        qtbot.keyClick(window, Qt.Key(Qt.Key.Key_0 + n), Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentIndex() == index
    shortcuts = {a.shortcut().toString() for a in window.findChildren(type(window.act_open))}
    assert {"Ctrl+O", "Ctrl+N", "Ctrl+E", "Ctrl+Q"} <= shortcuts


def test_unhandled_errors_become_a_plain_message_and_a_log_line(qtbot, window, arl_home):
    import sys

    from app.main import install_excepthook, setup_logging

    log_file = setup_logging()
    old = sys.excepthook
    try:
        install_excepthook(lambda: window)
        # A file error is said in words with its path; anything else is "something
        # unexpected" and never Python's own text (engine.vocabulary.error_words).
        try:
            raise OSError(28, "No space left on device", "/data/run/verdicts.json")
        except OSError:
            sys.excepthook(*sys.exc_info())
        box = sys.excepthook._boxes[-1]
        assert "/data/run/verdicts.json: no space left on device" in box.text()
        assert str(log_file) in box.informativeText()
        box.close()
        try:
            raise RuntimeError("internal detail: dict index 7")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
        box = sys.excepthook._boxes[-1]
        assert "internal detail" not in box.text() and "unexpected" in box.text()
        box.close()
        import logging

        for h in logging.getLogger().handlers:
            h.flush()
        assert "Traceback" in log_file.read_text(encoding="utf-8")
    finally:
        sys.excepthook = old
        import logging

        root = logging.getLogger()
        for h in list(root.handlers):
            if getattr(h, "baseFilename", "") == str(log_file):
                root.removeHandler(h)
                h.close()


def test_plain_text_bundle_renders_its_text_exactly(qtbot, window, tmp_path):
    from engine.bundle.write import BundleContent, write_bundle
    from engine.models import Anchor, Comment
    from engine.score.scoring import Version, score

    t1 = "Notes \U0001f4dd\n\nThe launch is on Monday.\n  Indented <b>not bold</b> & more.\n"
    t2 = t1.replace("Monday", "Tuesday")
    i = t1.index("Monday")
    u = len(t1[:i].encode("utf-16-le")) // 2
    c = Comment(
        id="c1", body="Which day?", anchor=Anchor(quote="Monday", start_offset=u, end_offset=u + 6)
    )
    j = score(Version.from_source(t1, "text"), Version.from_source(t2, "text", "v2"), [c]).to_json(
        extended=True
    )
    path = write_bundle(
        tmp_path / "t",
        BundleContent(
            run_id="r",
            status="completed",
            reason="",
            app_version="0",
            created_at="",
            finished_at="",
            model="m",
            base_url="http://x/v1",
            document_title="Notes",
            document_kind="text",
            given_version_id="v1",
            v1=t1,
            rounds=[("v2", t2, "", 1)],
            comments_before=[c.to_json()],
            comments_after=[c.to_json()],
            claims={"rounds": [], "final": None},
            trace={
                "entries": [],
                "usage": {"calls": 0, "total_tokens": 0, "calls_without_usage": 0},
            },
            verdicts={
                "rounds": [],
                "final": j["verdicts"],
                "unusable": j["unusable"],
                "collateral": j["collateral"],
            },
            metrics=j["metrics"],
            tokens=None,
            rounds_run=1,
        ),
    )
    open_and_wait(qtbot, window, path)
    for view, text in ((window.verdicts.v1, t1), (window.verdicts.v2, t2)):
        with qtbot.waitCallback(timeout=10000) as cb:
            view.body_text(cb)
        assert cb.args[0] == text
    removed, _added = window.verdicts._change_spans()
    assert window.verdicts.last_highlight["v1"]["made"] == 1 + len(removed)
    assert window.verdicts.table.item(0, 1).text() == "\u270e edited"


def test_the_shipped_example_run_opens_offline_and_intact(qtbot, window):
    from app.main import example_bundle_path

    path = example_bundle_path()
    assert path is not None, "the example run must ship in resources/example"
    assert window.start.example_btn.isEnabled()
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        assert window.open_example()
    data = window.data
    assert data.tampered == [] and data.problems == []
    for side in ("v1", "v2"):
        assert window.verdicts.last_highlight[side].get("failed") == []
    assert window.verdicts.table.rowCount() == len(data.verdicts) > 0
    # Every metric reads as a number with its parts, or N/A with its reason, in the one
    # format of engine.vocabulary.
    from engine import vocabulary

    for name, m in data.metrics.items():
        cell = window.metrics.cells[(name, "Whole run")]
        assert cell == vocabulary.metric_text(name, m)
        if m.get("value") is None:
            assert cell == f"N/A \u2014 {vocabulary.plain_reason(m['reason'])}" and m["reason"]
            # the parser's detail stays in the files, not in the view
            assert "unterminated" not in cell and "character" not in cell


def test_the_scripted_demonstration_opens_from_the_start_page_and_says_so(qtbot, window):
    assert window.start.demo_btn.isVisibleTo(window.start)
    with qtbot.waitSignal(window.verdicts.rendered, timeout=60000):
        window.start.demo_btn.click()
    data = window.data
    assert data.manifest.get("scripted") is True
    assert "Scripted demonstration" in window.verdicts.banner.text()
    labels = {
        window.verdicts.table.item(r, 1).text() for r in range(window.verdicts.table.rowCount())
    }
    # The demonstration shows every verdict, each with its icon and label.
    assert labels == {"\u270e edited", "\u25cb untouched", "\u2715 deleted", "? stale anchor"}
    assert data.collateral  # changed outside every anchor, read from the bundle
    for side in ("v1", "v2"):
        assert window.verdicts.last_highlight[side].get("failed") == []


def test_metrics_panel_shows_claim_coverage_beside_claim_accuracy(qtbot):
    from app.metrics_panel import MetricsPanel

    panel = MetricsPanel()
    qtbot.addWidget(panel)
    panel.show_metrics(
        {"claim_accuracy": {"value": 1.0, "numerator": 1, "denominator": 1}},
        [],
        coverage="no claim for 3 of 4 comments",
    )
    cell = next(t for (name, _col), t in panel.cells.items() if name == "claim_accuracy")
    assert cell.startswith("100%") and cell.endswith("no claim for 3 of 4 comments")


def test_opening_a_bundle_reads_it_off_the_ui_thread(qtbot, window, monkeypatch):
    """Reading and hashing a bundle never blocks the window: open_bundle returns at once
    with the panes covered, and a later open supersedes a slower earlier one."""
    import threading
    import time

    import app.window as window_module

    real = window_module.load_bundle
    threads = []

    def slow_load(path, on_documents=None):
        threads.append(threading.current_thread())
        if Path(path).name == "slow":
            time.sleep(1.0)
        return real(DATA / "bundle-min", on_documents=on_documents)

    monkeypatch.setattr(window_module, "load_bundle", slow_load)
    t0 = time.perf_counter()
    assert window.open_bundle(Path("slow"), remember=False)
    assert time.perf_counter() - t0 < 0.5  # it did not wait for the second of reading
    assert not window.verdicts.v1.cover.isHidden() and not window.verdicts.v2.cover.isHidden()
    assert "Opening" in window.statusBar().currentMessage()
    with qtbot.waitSignal(window.bundleOpened, timeout=10000) as opened:
        window.open_bundle(Path("fast"), remember=False)
    assert opened.args[0].path == DATA / "bundle-min"
    assert threads and all(t is not threading.main_thread() for t in threads)
    shown = []
    window.bundleOpened.connect(shown.append)
    qtbot.wait(1500)  # the slow one finishes reading: superseded, not shown
    assert shown == []


def test_garbage_is_collected_on_the_ui_thread_only(qtbot):
    import gc

    from PySide6.QtCore import QObject

    from app import jobs

    owner = QObject()
    timer = jobs.collect_garbage_on_ui_thread(owner, interval_ms=10)
    try:
        assert not gc.isenabled() and timer.isActive()
        junk = []
        for _ in range(gc.get_threshold()[0] + 10):  # enough new objects to be due
            a, b = [], []
            a.append(b)
            b.append(a)
            junk.append(a)
        del junk, a, b
        assert gc.get_count()[0] > gc.get_threshold()[0]
        qtbot.waitUntil(lambda: gc.get_count()[0] < gc.get_threshold()[0], timeout=2000)
        assert jobs.collect_due() == -1  # nothing due right after a collection
    finally:
        timer.stop()


def test_the_quote_and_comment_take_a_wider_tables_width(qtbot):
    from app.verdicts import VerdictTable

    table = VerdictTable()
    qtbot.addWidget(table)
    table.resize(800, 300)
    table.show()
    qtbot.waitExposed(table)
    narrow = (table.columnWidth(2), table.columnWidth(3), table.columnWidth(6))
    table.resize(1600, 300)
    qtbot.waitUntil(lambda: table.columnWidth(2) > narrow[0] + 200)
    assert table.columnWidth(3) > narrow[1] + 200  # the comment grows too
    assert table.columnWidth(6) == narrow[2]  # not the last column


def test_the_documents_are_shown_while_the_records_are_read(qtbot, window, gated_load):
    """Chromium lays a page out only in a view that is shown: the Verdicts tab is shown (its
    panes covered) as a bundle starts opening, so its pages are laid out while the records
    are read and the first screen is ready when they are. A bundle that then fails to open
    takes the user back where they were, the Verdicts tab disabled again when no bundle is
    open."""
    window.show_start()
    assert not window.tabs.isTabEnabled(window.TAB_VERDICTS)
    window.open_bundle(Path("broken-late"), remember=False)
    qtbot.waitUntil(lambda: window.tabs.currentIndex() == window.TAB_VERDICTS, timeout=5000)
    assert window.tabs.isTabEnabled(window.TAB_VERDICTS)
    assert not window.verdicts.v1.cover.isHidden()
    gated_load.set()
    qtbot.waitUntil(lambda: window.tabs.currentIndex() == window.TAB_START, timeout=5000)
    assert not window.tabs.isTabEnabled(window.TAB_VERDICTS)
    window._message_box.close()

    gated_load.clear()
    with qtbot.waitSignal(window.bundleOpened, timeout=10000):
        window.open_bundle(Path("fine"), remember=False)
        qtbot.waitUntil(lambda: window.tabs.currentIndex() == window.TAB_VERDICTS, timeout=5000)
        assert window.data is None  # shown before the records are in
        gated_load.set()
    assert window.tabs.currentIndex() == window.TAB_VERDICTS


@pytest.fixture
def gated_load(monkeypatch):
    """load_bundle held until the returned event is set: a path named "broken..." then
    fails (after its documents, for "broken-late"), any other reads bundle-min."""
    import threading

    import app.window as window_module

    real = window_module.load_bundle
    go_on = threading.Event()

    def load(path, on_documents=None):
        name = Path(path).name
        if name.startswith("broken"):
            if name == "broken-late" and on_documents:
                on_documents("<p>one</p>", "<p>two</p>")
            go_on.wait(10)
            raise window_module.BundleError(f"{name}: manifest.json is damaged")

        def early(v1, v2):
            on_documents(v1, v2)
            go_on.wait(10)

        return real(DATA / "bundle-min", on_documents=early if on_documents else None)

    monkeypatch.setattr(window_module, "load_bundle", load)
    return go_on


def _failed_state(qtbot, window, go_on):
    go_on.set()
    qtbot.waitUntil(lambda: getattr(window, "_message_box", None) is not None, timeout=10000)
    qtbot.wait(200)
    window._message_box.close()
    return window.tabs.currentIndex(), window.tabs.isTabEnabled(window.TAB_VERDICTS)


@pytest.mark.parametrize("first", ["broken-a", "fine"])
def test_a_failed_opening_that_superseded_another_goes_back_where_the_user_was(
    qtbot, window, gated_load, first
):
    """Two opens in a row (a double activation of a Recent row; a good bundle still being
    read when another is opened) from the Start page, the last one failing: back to Start,
    the Verdicts tab disabled again (the second open found the tab the first had shown)."""
    window.show_start()
    window.open_bundle(Path(first), remember=False)
    window.open_bundle(Path("broken-b"), remember=False)
    assert window.data is None
    assert _failed_state(qtbot, window, gated_load) == (window.TAB_START, False)


def test_a_failed_opening_goes_back_to_the_tab_the_user_was_on_with_a_bundle_open(
    qtbot, window, gated_load
):
    """With a bundle shown, opening a broken one from the Run tab comes back to the Run
    tab (not to the earlier bundle's verdicts), which stay open in their tab."""
    gated_load.set()
    with qtbot.waitSignal(window.bundleOpened, timeout=20000):
        window.open_bundle(Path("fine"), remember=False)
    shown = window.data
    window.tabs.setCurrentIndex(window.TAB_RUN)
    gated_load.clear()
    window.open_bundle(Path("broken-x"), remember=False)
    assert window.tabs.currentIndex() == window.TAB_VERDICTS
    assert _failed_state(qtbot, window, gated_load) == (window.TAB_RUN, True)
    assert window.data is shown


def test_a_failed_opening_leaves_a_user_who_moved_on_where_they_are(qtbot, window, gated_load):
    window.show_start()
    window.open_bundle(Path("broken-late"), remember=False)
    qtbot.waitUntil(lambda: window.verdicts._preloaded is not None, timeout=10000)
    window.tabs.setCurrentIndex(window.TAB_COMPARE)
    assert _failed_state(qtbot, window, gated_load) == (window.TAB_COMPARE, False)


def test_the_comment_table_has_the_keys_once_a_bundle_opens(qtbot, window):
    """Opened from the Start page, a bundle's comments answer the keyboard at once (N, P,
    the arrows): the table takes the focus, which stayed on the Start page before."""
    window.show_start()
    window.activateWindow()
    window.start.setFocus()
    open_and_wait(qtbot, window, DATA / "bundle-min")
    qtbot.waitUntil(window.verdicts.table.hasFocus, timeout=5000)


def test_a_bundle_that_cannot_be_opened_is_one_line_in_the_log(qtbot, window, tmp_path, caplog):
    """Its message is what the user reads, so the log says it without a traceback (a new
    user found a traceback for each "not a bundle"); a real failure keeps its traceback."""
    import logging

    from app.jobs import run_in_thread

    caplog.set_level(logging.INFO, logger="app.jobs")
    bad = tmp_path / "empty"
    bad.mkdir()
    with qtbot.waitSignal(window.bundleFailed, timeout=10000):
        window.open_bundle(bad)
    window._message_box.close()
    said = [r for r in caplog.records if r.name == "app.jobs"]
    assert said and all(r.exc_info is None for r in said)
    assert str(bad) in said[-1].getMessage()
    caplog.clear()
    failed = []

    def boom():
        raise KeyError("a bug")

    run_in_thread(boom, lambda _v: None, failed.append)
    qtbot.waitUntil(lambda: bool(failed), timeout=5000)
    assert [r.exc_info is not None for r in caplog.records if r.name == "app.jobs"] == [True]
