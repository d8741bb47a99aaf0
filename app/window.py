"""The main window: Start, Run, Verdicts, Metrics, Scorecard and Compare tabs, File menu,
drag and drop of bundles, recent bundles, remembered window state.

Why this module is long: it is where every tab is made and wired to the others (opening a
bundle reaches each view, a run's end reaches Verdicts and Recent bundles, quitting asks the
Run tab); the views themselves live in their own modules.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QTabWidget,
    QWidget,
)

from app.bundle_picker import bundle_path_from_pick  # noqa: F401  (re-exported)
from app.bundledata import BundleData, BundleError, load_bundle
from app.checks_view import ChecksView
from app.jobs import on_ui_thread, run_in_thread
from app.metrics_panel import MetricsPanel
from app.published import PublishedView
from app.scorecard import ScorecardView
from app.settings import Settings
from app.start_page import StartPage
from app.verdicts import VerdictsView
from engine import vocabulary as vocab


class MainWindow(QMainWindow):
    bundleOpened = Signal(object)  # BundleData
    bundleFailed = Signal(str)  # why the bundle could not be opened, in words

    (
        TAB_START,
        TAB_RUN,
        TAB_VERDICTS,
        TAB_METRICS,
        TAB_SCORECARD,
        TAB_CHECKS,
        TAB_COMPARE,
        TAB_SUITES,
        TAB_PUBLISHED,
    ) = range(9)

    def __init__(self, settings: Settings | None = None):
        super().__init__()
        self.settings = settings or Settings()
        self.data: BundleData | None = None
        self._jobs: set[asyncio.Task] = set()
        self.setWindowTitle("Agent Review Loop")
        self.setAcceptDrops(True)
        self.fit_to_screen()

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.start = StartPage()
        self.verdicts = VerdictsView()
        self.verdicts.settings = self.settings  # the reviewer's name, asked once
        self.metrics = MetricsPanel()
        self.scorecard = ScorecardView()
        self.verdicts.decided.connect(self.scorecard.refresh)
        self.verdicts.decided.connect(self._kept_in_copy)
        self.verdicts.sendBack.connect(self.send_back)
        self.verdicts.anotherModel.connect(self.run_with_another_model)
        self.verdicts.continueReview.connect(self.continue_review)
        self.checks = ChecksView()
        self.checks.settings = self.settings  # the reviewer's name, asked once
        self.checks.decided.connect(self._check_decided)
        self.checks.decided.connect(self._kept_in_copy)
        self.run_view = self._make_run_view()
        self.compare = self._make_compare_view()
        self.suites = self._make_suites_view()
        self.published = PublishedView()
        self.tabs.addTab(self.start, "&Start")
        self.tabs.addTab(self.run_view, "&Run")
        self.tabs.addTab(self.verdicts, "&Verdicts")
        self.tabs.addTab(self.metrics, "&Metrics")
        self.tabs.addTab(self.scorecard, "S&corecard")
        self.tabs.addTab(self.checks, "C&hecks")
        self.tabs.addTab(self.compare, "Com&pare")
        self.tabs.addTab(self.suites, "S&uites")
        self.tabs.addTab(self.published, "Pu&blished")
        for i in (self.TAB_VERDICTS, self.TAB_METRICS, self.TAB_SCORECARD, self.TAB_CHECKS):
            self.tabs.setTabEnabled(i, False)
        self.setCentralWidget(self.tabs)
        self.statusBar().showMessage("Ready. Open the example run or an evidence bundle.")
        self._said = ""  # the message the status bar's tooltip belongs to (``_say``)
        # The tab the user was on before an opening showed the Verdicts tab (``open_bundle``),
        # while that opening, or a later one that superseded it, is pending; else None.
        self._back_to: int | None = None
        self.statusBar().messageChanged.connect(
            lambda m: m == self._said or self.statusBar().setToolTip("")
        )

        self.start.example_btn.clicked.connect(self.open_example)
        self.start.demo_btn.clicked.connect(self.open_demo)
        self.start.open_btn.clicked.connect(self.ask_open_bundle)
        self.start.setup_btn.clicked.connect(self.start_setup)
        self.start.check_btn.clicked.connect(self.check_revision)
        self.start.recent.itemActivated.connect(
            lambda it: self.open_bundle(Path(it.data(Qt.ItemDataRole.UserRole) or it.text()))
        )
        self.scorecard.message.connect(lambda m: self.statusBar().showMessage(m, 10000))
        self.scorecard.publishedToFolder.connect(lambda _p: self.published.refresh())
        self.published.openBundle.connect(lambda p: self.open_bundle(Path(p)))
        self.published.message.connect(lambda m: self.statusBar().showMessage(m, 10000))
        self._build_menus()
        self._refresh_start()
        geometry, state = self.settings.window_state()
        if geometry is not None:
            self.restoreGeometry(geometry)  # the user's own size and place
            self.fit_to_screen(keep_size=True)  # ... unless the screen got smaller
        if state is not None:
            self.restoreState(state)

    PREFERRED_SIZE = (1400, 900)
    MINIMUM_SIZE = (900, 600)

    def fit_to_screen(self, keep_size: bool = False) -> None:
        """Size the window to fit the screen's available area (without the panels and
        taskbars): the preferred 1400 x 900 where it fits, else what the screen offers;
        ``keep_size`` keeps a restored size and only shrinks and moves it onto the screen."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            self.resize(*self.PREFERRED_SIZE)
            return
        avail = screen.availableGeometry()
        frame_w = max(0, self.frameGeometry().width() - self.geometry().width())
        frame_h = max(0, self.frameGeometry().height() - self.geometry().height())
        max_w, max_h = avail.width() - frame_w, avail.height() - frame_h
        self.setMinimumSize(min(self.MINIMUM_SIZE[0], max_w), min(self.MINIMUM_SIZE[1], max_h))
        want_w, want_h = (self.width(), self.height()) if keep_size else self.PREFERRED_SIZE
        w, h = min(want_w, max_w), min(want_h, max_h)
        self.resize(w, h)
        geo = self.frameGeometry()
        x = min(max(geo.x(), avail.x()), avail.right() - geo.width() + 1)
        y = min(max(geo.y(), avail.y()), avail.bottom() - geo.height() + 1)
        if not keep_size:  # a first start: centred on the screen
            x = avail.x() + (avail.width() - geo.width()) // 2
            y = avail.y() + (avail.height() - geo.height()) // 2
        self.move(max(x, avail.x()), max(y, avail.y()))

    # -- pieces built elsewhere ------------------------------------------------------------

    def _make_run_view(self) -> QWidget:
        try:
            from app.runview import RunView
        except ImportError:
            w = QLabel("Runs are not available in this build.")
            w.setAlignment(Qt.AlignmentFlag.AlignCenter)
            return w
        view = RunView(self.settings)
        view.runFinished.connect(self._run_finished)
        view.runStarted.connect(self._run_started)
        return view

    def _make_suites_view(self) -> QWidget:
        try:
            from app.suites import SuitesView
        except ImportError:  # a build without Qt Charts
            w = QLabel("Review suites are not available in this build (no Qt Charts).")
            w.setAlignment(Qt.AlignmentFlag.AlignCenter)
            return w
        view = SuitesView()
        view.message.connect(lambda m: self.statusBar().showMessage(m, 10000))
        view.openBundle.connect(lambda p: self.open_bundle(Path(p)))
        return view

    def _make_compare_view(self) -> QWidget:
        try:
            from app.compare import CompareView
        except ImportError:
            w = QLabel("Comparing bundles is not available in this build.")
            w.setAlignment(Qt.AlignmentFlag.AlignCenter)
            return w
        view = CompareView()
        view.start_dir = self.settings.last_dir
        view.message.connect(lambda m: self.statusBar().showMessage(m, 10000))
        return view

    # -- menus -------------------------------------------------------------------------------

    def _build_menus(self) -> None:
        from app.menus import build_menus

        build_menus(self)

    def _recent_described(self, pairs: list[tuple[str, str]]) -> None:
        described = dict(pairs)
        shown = [
            self.start.recent.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.start.recent.count())
        ]
        if set(shown) <= set(described):
            self.start.set_recent(shown, described)
            for action in self.recent_menu.actions():
                if action.text() in described:
                    action.setToolTip(action.text())
                    action.setText(described[action.text()])

    def _go(self, index: int) -> None:
        if self.tabs.isTabEnabled(index):
            self.tabs.setCurrentIndex(index)

    def _refresh_start(self) -> None:
        from app.about import example_bundle_path

        recent = [p for p in self.settings.recent_bundles if Path(p).exists()]
        self.start.set_recent(recent)
        self.recent_menu.clear()
        for p in recent:
            self.recent_menu.addAction(p, lambda p=p: self.open_bundle(Path(p)))
        if not recent:  # a submenu that says why it is empty, not a greyed-out one
            self.recent_menu.addAction(
                "No bundles opened yet: the ones you open are listed here"
            ).setEnabled(False)
        if recent:
            from app.bundle_summary import summaries

            run_in_thread(lambda: summaries(recent), self._recent_described)
        self.recent_menu.setEnabled(True)
        self.start.demo_btn.setVisible(example_bundle_path("demo") is not None)
        ex = example_bundle_path()
        self.start.example_btn.setEnabled(ex is not None)
        self.act_example.setEnabled(ex is not None)
        if ex is None:
            self.start.example_note.setText("<i>The example run is not included in this build.</i>")
        else:
            try:
                from app.bundle_summary import read_manifest

                m = read_manifest(ex)  # the manifest only: no hashing on the UI thread
                if m is None:
                    raise ValueError("unreadable manifest")
                self.start.example_note.setText(
                    f"<span>A recorded run of "
                    f"<b>{html.escape(str(m.get('model', 'a model')))}</b> on "
                    f"\u201c{html.escape(str(m.get('document_title', 'a document')))}\u201d"
                    + (" (a scripted demonstration)" if m.get("scripted") else "")
                    + ": see how the program reports what an agent really did. Opens "
                    "offline.</span>"
                )
            except Exception:
                self.start.example_note.setText("")

    # -- opening bundles --------------------------------------------------------------------

    def show_start(self) -> None:
        self.tabs.setCurrentIndex(self.TAB_START)

    def open_example(self) -> bool:
        from app.about import example_bundle_path

        p = example_bundle_path()
        if p is None:
            self.statusBar().showMessage("The example run is not included in this build.")
            return False
        return self.open_bundle(p)  # listed in Recent bundles like any bundle opened

    def open_demo(self) -> bool:
        """Open the scripted demonstration shipped in ``resources/demo``."""
        from app.about import example_bundle_path

        p = example_bundle_path("demo")
        if p is None:
            self.statusBar().showMessage(
                "The scripted demonstration is not included in this build."
            )
            return False
        return self.open_bundle(p)  # listed in Recent bundles like any bundle opened

    def ask_open_bundle(self, zip_file: bool = False) -> None:
        """One picker for every form of bundle (``app.bundle_picker``): a bundle folder, a
        ``.zip``, or the ``manifest.json`` in a folder. ``zip_file`` is kept for old callers."""
        from app.bundle_picker import pick_bundle

        start = self.settings.last_dir or str(Path.home())
        if not Path(start).is_dir():
            start = str(Path.home())
        self._dialog = pick_bundle(
            self,
            "Open an evidence bundle: a folder, a .zip, or its manifest.json",
            start,
            self.open_bundle,
        )

    def _check_decided(self) -> None:
        """A check's FAIL was accepted in the Checks tab: the banner and scorecard follow."""
        if self.data is not None:
            self.verdicts.show_banner(self.data)
            self.scorecard.refresh()

    def _kept_in_copy(self) -> None:
        """A decision went to the user's copy of a shipped or read-only bundle
        (``app.bundledata.follow_copy``): say so once, and list the copy in Recent bundles."""
        data = self.data
        if data is None or not data.kept_copy or getattr(self, "_copy_said", None) is data:
            return
        self._copy_said = data
        self._remember(data)
        self._refresh_start()
        self._say(data.kept_copy, str(data.path))

    def open_bundle(
        self,
        path: Path,
        remember: bool = True,
        then: Callable[[BundleData], None] | None = None,
    ) -> bool:
        """Open a bundle folder or zip and show its verdicts. Reading and hashing it runs
        off the UI thread (``app.jobs``); the Verdicts tab shows at once, its document panes
        saying "Loading" (a bundle that cannot be read takes the user back). When it
        is read, ``bundleOpened(data)`` is emitted (and ``then(data)`` called); when it
        cannot be read, a plain message is shown and ``bundleFailed(reason)`` emitted.
        Returns True once the opening has started (a later open supersedes it)."""
        token = object()
        self._opening = token
        self.verdicts.show_loading()
        self._say("Opening the bundle\u2026", str(path))

        def done(data: BundleData) -> None:
            if not shiboken6.isValid(self):  # the window closed while the bundle was read
                return
            if self._opening is token:
                self._back_to = None
                self._show_loaded(data, Path(data.path), remember)
                if then is not None:
                    then(data)

        def failed(exc: BaseException) -> None:
            if not shiboken6.isValid(self) or self._opening is not token:
                return
            self.verdicts.show_loading(False)
            self.verdicts.preload_failed()
            back, self._back_to = self._back_to, None
            if back is not None and self.tabs.currentIndex() == self.TAB_VERDICTS:
                self.tabs.setCurrentIndex(back)  # where the user was, unless they moved on
            if self.data is None:  # enabled for this opening only
                self.tabs.setTabEnabled(self.TAB_VERDICTS, False)
            why = str(exc) if isinstance(exc, BundleError) else vocab.error_words(exc)
            self._plain_message("This bundle cannot be opened", why)
            self._say("Could not open the bundle.", str(path))
            self.bundleFailed.emit(why)

        def documents(pair: tuple[str, str]) -> None:
            # The pages start while the records are read (app.bundledata.load_bundle).
            if shiboken6.isValid(self) and self._opening is token:
                self.verdicts.preload(*pair)

        def start() -> None:
            if shiboken6.isValid(self) and self._opening is token:
                early = on_ui_thread(documents)
                run_in_thread(lambda: _load_or_copy(path, lambda a, b: early((a, b))), done, failed)

        # The Verdicts tab is shown at once, and the reading starts once it is laid out:
        # Chromium lays a page out only in a view that is shown (in a hidden tab the first
        # screen waited for the records), and a layout of this window calls into Python
        # for each widget, which a thread reading the bundle would starve of the GIL
        # (half a second: the pages' navigation waited for it).
        # A bundle that fails takes the user back (``_back_to``: an opening that superseded
        # a pending one keeps the tab that one came from).
        if self.tabs.currentIndex() != self.TAB_VERDICTS:
            self._back_to = self.tabs.currentIndex()
            self.tabs.setTabEnabled(self.TAB_VERDICTS, True)
            self.tabs.setCurrentIndex(self.TAB_VERDICTS)
        QTimer.singleShot(0, self, start)
        return True

    def _remember(self, data: BundleData, path: Path | None = None) -> None:
        """List ``data`` (at ``path``, else its own) first in Recent bundles; the original
        of a copy is taken off the list (opening it opens the copy: one row, not two)."""
        original = str(Path(data.copied_from).resolve()) if data.copied_from else ""
        self.settings.add_recent_bundle(str((path or Path(data.path)).resolve()), original)

    def _show_loaded(self, data: BundleData, path: Path, remember: bool) -> None:
        """Show a bundle that has been read: every view, the tabs, the window title."""
        self.data = data
        if remember:
            self._remember(data, path)
            self.settings.last_dir = str(path.resolve().parent)
            if hasattr(self.compare, "start_dir"):
                self.compare.start_dir = self.settings.last_dir
            self._refresh_start()
        self.verdicts.show_bundle(data)
        self.metrics.show_bundle(data)
        self.scorecard.show_bundle(data)
        self.checks.show_bundle(data)
        for i in (self.TAB_VERDICTS, self.TAB_METRICS, self.TAB_SCORECARD, self.TAB_CHECKS):
            self.tabs.setTabEnabled(i, True)
        for a in (self.act_publish, self.act_export_html, self.act_export_pdf):
            a.setEnabled(bool(data.scorecard))
        self.tabs.setCurrentIndex(self.TAB_VERDICTS)
        # The comments' keys (N, P, arrows) work at once: the table takes the focus (Qt gave
        # it to the tab's first button) unless the user is typing in the Verdicts view (the
        # find bar, a reason, a reply).
        focus = QApplication.focusWidget()
        typing = isinstance(focus, QLineEdit) and self.verdicts.isAncestorOf(focus)
        if not typing:
            self.verdicts.table.setFocus(Qt.FocusReason.OtherFocusReason)
        self.setWindowTitle(f"Agent Review Loop \u2014 {data.title}")
        # One line however the title is written (the status bar does not wrap).
        title = " ".join(str(data.manifest.get("document_title") or "").split())
        title = title if len(title) <= 100 else title[:99] + "\u2026"
        msg = (
            f"Opened \u201c{title}\u201d, " if title else "Opened a document with no title, "
        ) + vocab.run_words(data.manifest)
        if data.tampered:
            msg += (
                f" \u2014 WARNING: {vocab.plural(len(data.tampered), 'file')} "
                + ("fails" if len(data.tampered) == 1 else "fail")
                + " the integrity check"
            )
            # No dialog on top: the banner says it first, with the files (one place).
        if data.kept_copy:  # a shipped or read-only bundle: the copy with the decisions
            msg = f"{data.kept_copy} Showing the copy. {msg}"
        self._say(msg, f"{path}\nrun id {data.manifest.get('run_id') or 'not recorded'}")
        shower = getattr(self.run_view, "show_bundle", None)
        if shower is not None:
            shower(data)  # the Run tab says what this bundle's run was
        self.bundleOpened.emit(data)

    def _say(self, message: str, tip: str = "") -> None:
        """Show ``message`` in the status bar in plain words; ``tip`` (the exact path, the
        run id) is the bar's tooltip while that message shows."""
        self._said = message
        self.statusBar().showMessage(message)
        self.statusBar().setToolTip(tip)

    def _plain_message(self, title: str, text: str) -> None:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setTextFormat(Qt.TextFormat.PlainText)  # names and reasons come from files
        box.setWindowTitle(title)
        box.setText(title)
        box.setInformativeText(text)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self._message_box = box
        box.open()

    # -- runs and comparison ---------------------------------------------------------------

    def check_revision(self) -> None:
        """Check a revision made elsewhere (``app.check_revision``); its bundle opens."""
        from app.check_revision import CheckRevisionDialog

        dlg = CheckRevisionDialog(self.settings, self)
        dlg.checked.connect(lambda p: self.open_bundle(Path(p)))
        self._check_dialog = dlg
        dlg.open()

    def start_setup(self) -> None:
        starter = getattr(self.run_view, "start_setup", None)
        if starter is None:
            self.statusBar().showMessage("Runs are not available in this build.")
            return
        self.tabs.setCurrentIndex(self.TAB_RUN)
        starter(self)

    def send_back(self) -> None:
        """Send back to the agent: what goes back, the brief, the next round
        (``app.send_back``)."""
        from app.send_back import SendBackDialog, plan_for

        data = self.verdicts.data
        if data is None:
            self.statusBar().showMessage("Open a bundle first.")
            return
        try:
            plan = plan_for(data)
        except ValueError as exc:
            self.statusBar().showMessage(str(exc))
            return
        self._send_back = SendBackDialog(plan, self.start_next_round, self)
        self._send_back.open()

    def start_next_round(self, plan) -> None:
        """The setup wizard on the last version, with the comments sent back."""
        self.start_setup()
        wiz = getattr(self.run_view, "_wizard", None)
        if wiz is None:
            return
        wiz.document_page.set_document(plan.title, plan.document, plan.kind)
        wiz.comments_page.carry(plan.all_comments())
        data = self.verdicts.data
        if data is not None:  # the provider and model of the run it came from
            wiz.model_page.use_run(data.manifest)

    def _run_started(self) -> None:
        self.tabs.setCurrentIndex(self.TAB_RUN)
        self.statusBar().showMessage(
            "A run is in progress: the window stays usable; Esc on the Run tab cancels it."
        )

    def _run_finished(self, bundle_path: str) -> None:
        if getattr(self, "_close_after_run", False):
            if bundle_path:  # every bundle a run wrote is in Recent bundles
                self.settings.add_recent_bundle(str(Path(bundle_path).resolve()))
            return  # closing: the window goes away now
        if not bundle_path:
            self.statusBar().showMessage(
                "The run ended without an evidence bundle; see the Run tab for the reason."
            )
            return

        def live_rounds(data: BundleData) -> None:
            # The bundle stores the run's metrics; the live events had each round's.
            rounds = list(getattr(self.run_view, "round_metrics", []))
            if rounds and not data.round_metrics:
                data.round_metrics = rounds
                self.metrics.show_bundle(data)

        earlier = getattr(self, "_compare_with", None)
        self._compare_with = None

        def opened(data: BundleData) -> None:
            live_rounds(data)
            if earlier is not None:  # "Run with another model": both runs side by side
                if self.compare.set_bundle("a", earlier) and self.compare.set_bundle(
                    "b", Path(bundle_path)
                ):
                    self.tabs.setCurrentIndex(self.TAB_COMPARE)

        self.open_bundle(Path(bundle_path), then=opened)

    def run_with_another_model(self) -> None:
        """The opened bundle's document (v1) and comments against another model or
        settings: the wizard opens with them; when the run ends, Compare shows both."""
        data = self.verdicts.data
        if data is None:
            self.statusBar().showMessage("Open a bundle first.")
            return
        if data.untrustworthy:
            self.statusBar().showMessage(
                "This bundle fails its checks: its document and comments are not taken."
            )
            return
        b = data.source
        self.start_setup()
        wiz = getattr(self.run_view, "_wizard", None)
        if wiz is None:
            return
        v1 = b.version("v1")
        wiz.document_page.set_document(b.document_title or data.title, v1.source, v1.kind)
        wiz.comments_page.carry(b.comments_before)
        self._compare_with = data.path

    def continue_review(self) -> None:
        """The next review of the opened bundle (``engine.bundle.sendback.continue_review``):
        the wizard opens on its last version with its open comments; new ones can be
        added on the comments page."""
        from engine.bundle.sendback import continue_review

        data = self.verdicts.data
        if data is None or data.untrustworthy:
            self.statusBar().showMessage(
                "Open a bundle first."
                if data is None
                else "This bundle fails its checks: its document and comments are not taken."
            )
            return
        plan = continue_review(data.source)
        self.start_next_round(plan)

    def show_compare(self) -> None:
        self.tabs.setCurrentIndex(self.TAB_COMPARE)
        asker = getattr(self.compare, "ask_bundles", None)
        if asker is not None:
            asker()

    def show_reading_help(self) -> None:
        """Help > How to read the verdicts: the verdicts, the agent's claims and the five
        metrics, in the words of ``engine.vocabulary``."""
        from app.help import ReadingHelp

        dlg = ReadingHelp(self)
        self._help = dlg
        dlg.show()

    def open_readme(self) -> None:
        from app.help import open_readme, readme_path

        if readme_path() is None:
            self.statusBar().showMessage(
                "The README is not included in this build; see the project's repository.", 10000
            )
        elif not open_readme():  # no program on this desktop opens it: say where it is
            self._plain_message(
                "The README could not be opened",
                f"No program on this desktop opens it. It is the file {readme_path()}; "
                "open it in any text editor.",
            )

    def show_about(self) -> None:
        from app.about import versions_text

        box = QMessageBox(self)
        box.setWindowTitle("About Agent Review Loop")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText("Agent Review Loop")
        box.setInformativeText(versions_text())
        self._message_box = box
        box.open()

    def _ask_quit_during_run(self) -> None:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("A run is in progress")
        box.setText("A run is in progress. Cancel it and quit?")
        box.setInformativeText(
            "The run stops after its current step and its evidence bundle, marked "
            "cancelled, is written before the window closes."
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.button(QMessageBox.StandardButton.Yes).setText("Cancel the run and &quit")
        box.button(QMessageBox.StandardButton.No).setText("&Keep running")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.buttonClicked.connect(
            lambda b: b is box.button(QMessageBox.StandardButton.Yes) and self._quit_after_run()
        )
        self._quit_box = box
        box.open()

    def _quit_after_run(self) -> None:
        run_view = self.run_view
        if getattr(self, "_close_after_run", False) or not getattr(run_view, "running", False):
            return
        self._close_after_run = True
        # The run's task ends right after it reports; close on the next turn.
        run_view.runFinished.connect(lambda _path: QTimer.singleShot(0, self.close))
        run_view.cancel()
        self.statusBar().showMessage(
            "Cancelling the run before closing; its evidence bundle is written first\u2026"
        )

    # -- drag and drop ----------------------------------------------------------------------

    def dragEnterEvent(self, event):
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event):
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.open_bundle(Path(urls[0].toLocalFile()))
            event.acceptProposedAction()

    # -- lifecycle ---------------------------------------------------------------------------

    def loop_ready(self) -> None:
        """Called once the qasync loop runs (async work may start now)."""

    async def shutdown(self) -> None:
        stopper = getattr(self.run_view, "shutdown", None)
        if stopper is not None:
            await stopper()

    def closeEvent(self, event):
        run_view = self.run_view
        if getattr(run_view, "running", False):
            # A run may be paid for: ask first; on Yes, cancel cooperatively and close once
            # the run has written its bundle.
            event.ignore()
            if not getattr(self, "_close_after_run", False):
                self._ask_quit_during_run()
            return
        self.settings.save_window_state(self.saveGeometry(), self.saveState())
        self.settings.sync()
        super().closeEvent(event)


def _load_or_copy(path: Path, on_documents: Callable[[str, str], None]) -> BundleData:
    """``load_bundle`` of ``path``, or of the user's copy of it holding their decisions
    when the bundle is shipped with the program or read-only (``engine.bundle.own_copy``)."""
    from engine.bundle.own_copy import find_copy

    home = find_copy(path)
    data = load_bundle(home.bundle if home is not None else path, on_documents=on_documents)
    if home is not None:
        data.kept_copy = home.words()
        data.copied_from = str(home.copied_from)
    return data
