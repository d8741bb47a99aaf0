"""The Suites tab: open or start a review suite, watch its runs, read its report and charts.

Everything it shows comes from the engine (``engine.suite.suite*``): the estimate, the runs'
states, the report with its intervals and what the ranking can say, the history. The view only lays them
out. Charts use Qt Charts with the Okabe-Ito colours the verdicts use, a marker shape per
combination as well as a colour, values on hover, and export to PNG or SVG.

- "Open suite file…" loads a suite (.toml/.json) and shows its estimate; "Start" runs it
  (concurrency and a token limit), with Cancel; what finished is kept and resumable.
- "Open suite results…" opens a suite run's folder (``suite-results.json``), e.g. a CI
  shard or the shipped example ("Open the example suite").
- Double-clicking a run opens its evidence bundle in the Verdicts view.

Why this file is over 500 lines: one tab with four panes (planning, runs, report, charts)
and its run coroutine; the charts live in ``app.suites.charts``, the words in the engine.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.headers import ElidingHeader, rows_height
from app.jobs import run_in_thread
from app.settings import Settings
from app.suites.charts import ChartPanel, combo_key, draw_spread, draw_trend
from app.suites.document import DocumentVerdicts
from engine.vocabulary import error_words, plural, when_words


def example_suite_path() -> Path:
    """The shipped example suite run's folder (resources/suites/example/<id>/)."""
    from importlib import resources

    root = Path(str(resources.files("resources").joinpath("suites", "example")))
    found = sorted(p for p in root.glob("*/suite-results.json"))
    return found[-1].parent if found else root


WORDY_RUN_COLUMNS = (3, 5)  # status (a failure says why) and tokens (N/A says why)
REASON_ROOM = "failed: TAMPERED"  # the widest those columns grow: this text's width
RUN_ROWS_LEAST = 4  # rows of the runs table always shown, however short the tab


def _plain(label: QLabel, text: str) -> QLabel:
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


class SuitesView(QWidget):
    """The Suites tab (see the module docstring). ``openBundle(path)`` asks the main window
    to show a run's bundle in the Verdicts view."""

    openBundle = Signal(str)
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.suite: Any = None
        self.items: list[Any] = []
        self.report: dict[str, Any] | None = None
        self.history: list[dict[str, Any]] = []
        self.source = ""
        self.meta: dict[str, Any] = {}
        """The shown suite run: ``suite_id``, ``name``, ``fingerprint``, ``seed``."""
        self.published_page: Path | None = None
        self._job: asyncio.Task[Any] | None = None
        self._shown: dict[str, Any] = {}
        self._drawn_dark = False  # the scheme the charts were drawn in
        """The shown suite run as ``trend_points`` reads it (its results-file data)."""

        self._build_header()
        self._build_planning()
        self._build_tables()
        self._build_charts()
        self._lay_out()

    def _build_header(self) -> None:
        self.new_suite_btn = QPushButton("New suite…")
        self.new_suite_btn.setToolTip(
            "Write a commented suite file (built-in documents, one model) to edit"
        )
        self.new_suite_btn.clicked.connect(self.ask_new_suite)
        self.edit_btn = QPushButton("Edit the suite file")
        self.edit_btn.setEnabled(False)
        self.edit_btn.clicked.connect(self._edit_suite)
        self.open_suite_btn = QPushButton("Open suite file…")
        self.open_results_btn = QPushButton("Open suite results…")
        self.example_btn = QPushButton("Open the example suite")
        self.open_suite_btn.clicked.connect(self.ask_open_suite)
        self.open_results_btn.clicked.connect(self.ask_open_results)
        self.example_btn.clicked.connect(lambda: self.open_results(example_suite_path()))
        self.publish_btn = QPushButton("Publish the report…")
        self.publish_btn.setToolTip(
            "Write the suite's report page (no script, every run's bundle beside it) into "
            "the publishing folder others open (arl suite report ID --html DIR)"
        )
        self.publish_btn.setEnabled(False)
        self.publish_btn.clicked.connect(self.publish)
        self.heading = _plain(QLabel(), "No suite open.")
        f = self.heading.font()
        f.setPointSizeF(f.pointSizeF() * 1.25)
        f.setBold(True)
        self.heading.setFont(f)
        self.subheading = _plain(
            QLabel(),
            (
                "A suite runs the same documents and comments against several models or "
                "instructions, repeated, and reports each metric with its 95% interval over "
                "documents x repeats. Open a suite file to see what it would cost, or open "
                "the example."
            ),
        )
        self.subheading.setWordWrap(True)

    def _build_planning(self) -> None:
        """The estimate and the run controls (shown for a suite file)."""
        self.estimate = QPlainTextEdit()
        self.estimate.setAccessibleName("The suite's estimate")
        self.estimate.setReadOnly(True)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.estimate.setFont(mono)
        self.estimate.setPlaceholderText("The estimate of a suite file appears here.")
        # A table in a fixed-width font: wrapping its lines broke its columns apart.
        self.estimate.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.concurrency = QSpinBox()
        self.concurrency.setAccessibleName("Runs at the same time")
        self.concurrency.setRange(1, 64)
        self.concurrency.setValue(1)
        self.concurrency.setToolTip("How many runs at once")
        self.token_limit = QSpinBox()
        self.token_limit.setAccessibleName("Token limit for the whole suite")
        self.token_limit.setRange(0, 2_000_000_000)
        self.token_limit.setSingleStep(100_000)
        self.token_limit.setSpecialValueText("no limit")
        self.token_limit.setToolTip("Stop starting runs once this many tokens are spent")
        self.allow_commands = QCheckBox("Let the suite's check commands run")
        self.allow_commands.setToolTip(
            "A suite's declared checks can name programs to run on each version. They run "
            "only if you tick this, never because the suite file asks; without your API "
            "key and without a shell. (CLI: arl suite run --allow-commands)"
        )
        self.allow_commands.toggled.connect(lambda _on: self._show_checks())
        self.start_btn = QPushButton("Start the suite")
        self.cancel_btn = QPushButton("Cancel")
        self.start_btn.setEnabled(False)
        self.cancel_btn.setEnabled(False)
        self.start_btn.clicked.connect(self.start_suite)
        self.cancel_btn.clicked.connect(self.cancel_suite)

    def _build_tables(self) -> None:
        self.runs = QTableWidget(0, 6)
        self.runs.setHorizontalHeader(ElidingHeader(self.runs))  # "model / v…", not "l / v"
        self.runs.setAccessibleName("The suite's runs")
        self.runs.setHorizontalHeaderLabels(
            ["document", "model / variant", "repeat", "status", "attribution", "tokens"]
        )
        self.runs.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.runs.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.runs.verticalHeader().setVisible(False)
        header = self.runs.horizontalHeader()
        for col in range(6):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        # document and model / variant: they share the room left (fit_model_column), never
        # below their headers' width; a model cell starts with its combination's letter
        for col in (0, 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        self.runs.installEventFilter(self)
        for col in WORDY_RUN_COLUMNS:  # sized in _fill_runs, at most REASON_ROOM wide
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
        # Cut at the end: the middle of "model no-tools" and "model tools" look the same.
        self.runs.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.runs.setWordWrap(False)
        self.runs.setToolTip("Double-click a run to open its evidence bundle")
        self.runs.cellDoubleClicked.connect(self._open_run)
        # Rows of one line, and RUN_ROWS_LEAST of them always shown: at 1366 x 768, 1.5x,
        # the table was left one or two rows of 30 px beside a drill-down of three.
        self.runs.verticalHeader().setDefaultSectionSize(self.runs.fontMetrics().height() + 8)
        self.runs.setMinimumHeight(rows_height(self.runs, RUN_ROWS_LEAST))
        self.report_table = QTableWidget(0, 0)
        self.report_table.setAccessibleName("The suite's report per combination")
        self.report_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.report_table.verticalHeader().setVisible(False)
        self.report_table.setWordWrap(True)
        # Its header and a few rows always show (the pane scrolls on a short screen).
        self.report_table.setMinimumHeight(self.report_table.fontMetrics().lineSpacing() * 9)
        self.noise = _plain(QLabel(), "")
        self.noise.setWordWrap(True)
        self.document_view = DocumentVerdicts()

    def _build_charts(self) -> None:
        self.chart_metric = QComboBox()  # its metrics: _fill_metrics, when first needed
        self.chart_metric.currentIndexChanged.connect(lambda _i: self._draw_charts())
        self.spread_chart = ChartPanel("Each combination: runs and the 95% interval")
        self.trend_chart = ChartPanel("Trend over suite runs (mean)")
        self.trend_caption = _plain(QLabel(), "")
        self.trend_caption.setWordWrap(True)
        self.combo_key = _plain(QLabel(), "")  # the letters on the charts, in full
        self.combo_key.setWordWrap(True)
        self.trend_chart.layout().insertWidget(1, self.trend_caption)
        for c in (self.spread_chart, self.trend_chart):
            c.message.connect(self.message)

    def _lay_out(self) -> None:
        from app.flow import FlowLayout

        # Rows that wrap onto a second line when the pane is narrow (1366 x 768, 1.5x),
        # instead of squeezing each label and button until its words are cut.
        top = FlowLayout(spacing=6)
        for w in (
            self.new_suite_btn,
            self.open_suite_btn,
            self.edit_btn,
            self.open_results_btn,
            self.example_btn,
            self.publish_btn,
        ):
            top.addWidget(w)
        # The run controls on lines of their own (limits; the permission; Start and
        # Cancel), each line's minimum width its own words', so a narrow pane never cuts
        # a label or a button to "Runs at or" or "art the sui".
        limits = QHBoxLayout()
        for words, box in (("Runs at once:", self.concurrency), ("Token limit:", self.token_limit)):
            label = QLabel(words)
            label.setBuddy(box)
            limits.addWidget(label)
            limits.addWidget(box)
        limits.addStretch(1)
        go = QHBoxLayout()
        go.addWidget(self.start_btn)
        go.addWidget(self.cancel_btn)
        go.addStretch(1)
        controls = QVBoxLayout()
        controls.addLayout(limits)
        controls.addWidget(self.allow_commands)
        controls.addLayout(go)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        self.planning = QWidget()
        pl = QVBoxLayout(self.planning)
        pl.setContentsMargins(0, 0, 0, 0)
        pl.addWidget(self.estimate, 1)
        pl.addLayout(controls)
        ll.addWidget(self.planning, 3)  # the estimate is read before any run exists
        ll.addWidget(_plain(QLabel(), "Runs (double-click one to open its bundle):"))
        ll.addWidget(self.runs, 2)
        ll.addWidget(self.document_view, 2)
        self.right_pane = self._report_pane()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.right_pane)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([560, 800])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.heading)
        lay.addWidget(self.subheading)
        lay.addWidget(split, 1)

    def _report_pane(self) -> QScrollArea:
        """The report, its notes, the chart metric, the key and the charts, scrolling."""
        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addWidget(
            _plain(
                QLabel(),
                "Report: each metric's average over every document and repeat, and the "
                "range that holds its true value with 95% confidence",
            )
        )
        rl.addWidget(self.report_table, 2)
        rl.addWidget(self.noise)
        mrow = QHBoxLayout()
        mrow.addWidget(QLabel("Chart metric:"))
        mrow.addWidget(self.chart_metric)
        mrow.addStretch(1)
        rl.addLayout(mrow)
        rl.addWidget(self.combo_key)
        charts = QSplitter(Qt.Orientation.Horizontal)
        charts.addWidget(self.spread_chart)
        charts.addWidget(self.trend_chart)
        rl.addWidget(charts, 4)
        # On a short screen (1366 x 768 at 1.5x) the report, its notes, the key and the
        # charts need more than the height there is: they scroll, each at its own height,
        # instead of being pressed onto one another (a caption over a chart).
        pane = QScrollArea()
        pane.setWidgetResizable(True)
        pane.setFrameShape(QFrame.Shape.NoFrame)
        pane.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        pane.setWidget(right)
        return pane

    def _show_planning(self, on: bool) -> None:
        """The estimate and Start controls show for a suite file, not for results."""
        self.planning.setVisible(on)

    # -- opening -------------------------------------------------------------------------

    def ask_new_suite(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "New suite file",
            str(Settings().start_folder() / "suite.toml"),
            "Suite files (*.toml)",
        )
        if path:
            self.new_suite(Path(path))

    def new_suite(self, path: Path) -> bool:
        """Write a suite template to ``path`` (replacing it: the save dialog has asked) and
        open it. Returns False with a plain message when it cannot be written."""
        from engine.suite.suite import SuiteError, write_suite_template

        if path.suffix.lower() != ".toml":
            path = path.with_suffix(".toml")
        try:
            write_suite_template(path, "http://127.0.0.1:8089/v1", "smollm2-135m", force=True)
        except SuiteError as exc:
            self._error("The suite file cannot be written", str(exc))
            return False
        self.open_suite(path)
        self.message.emit(
            f"Wrote {path}: edit its models (Edit the suite file), then open it "
            "again to see the new estimate."
        )
        return True

    def _edit_suite(self) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        if self.source and Path(self.source).is_file():
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.source))

    def ask_open_suite(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a suite file", str(Settings().start_folder()), "Suite files (*.toml *.json)"
        )
        if path:
            self.open_suite(Path(path))

    def ask_open_results(self) -> None:
        from engine.workspace import default_home

        start = default_home() / "suites"
        path = QFileDialog.getExistingDirectory(
            self,
            "Open a suite run's folder (it holds suite-results.json)",
            str(start if start.is_dir() else Path.home()),
        )
        if path:
            self.open_results(Path(path))

    def _show_checks(self) -> None:
        """The estimate, then the suite's declared checks and the commands they will run
        (or not), so what runs is listed before Start (docs/checks.md)."""
        from engine.checks.runner import planned_commands
        from engine.vocabulary import declared_check_title

        text = getattr(self, "_estimate_text", "")
        checks = getattr(self.suite, "checks", None)
        if checks is not None and not checks.empty:
            names = ", ".join(declared_check_title(n) for n in checks.check_names())
            text += f"\n\nDeclared checks on every run: {names}."
            commands = planned_commands(checks, self.allow_commands.isChecked())
            if commands:
                text += "\nCommands:\n" + "\n".join(f"  {c}" for c in commands)
        if text:
            self.estimate.setPlainText(text)

    def _error(self, title: str, text: str) -> None:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(title)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(title)
        box.setInformativeText(text)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self._box = box
        box.open()

    def open_suite(self, path: Path) -> None:
        """Load a suite file and show its estimate (off the UI thread); enables Start."""
        from engine.suite.estimate import estimate_suite, render_estimate
        from engine.suite.suite import SuiteError, expand_items, load_suite

        def work() -> tuple[Any, str, Any]:
            from engine.suite.suite import allowed_key_variables, check_key_variables

            suite = load_suite(path)
            check_key_variables(suite, allowed_key_variables())
            text = render_estimate(estimate_suite(suite, expand_items(suite)), suite)
            return suite, text, latest_results(suite.name)

        def done(value: tuple[Any, str, Any]) -> None:
            self.suite, text, last = value
            self.source = str(path)
            self._estimate_text = text
            self._show_checks()
            self.heading.setText(f"Suite: {self.suite.name}")
            self.heading.setToolTip("")
            self.subheading.setToolTip("")
            self.subheading.setText(
                f"{path} — {plural(len(expand_items(self.suite)), 'run')}. Check the estimate, "
                "then Start. Runs already finished in an earlier suite run are not repeated "
                "when you resume it from the command line (arl suite resume)."
            )
            self.start_btn.setEnabled(True)
            self.edit_btn.setEnabled(True)
            self._show_planning(True)
            if last is not None:  # run before, here or from the command line: shown at once
                self._show_last(*last)
            self.message.emit(f"Opened suite {path}")

        def failed(exc: BaseException) -> None:
            msg = str(exc) if isinstance(exc, SuiteError) else error_words(exc)
            self._error("This suite file cannot be used", msg)

        self.estimate.setPlainText("Estimating…")
        run_in_thread(work, done, failed)

    def open_results(self, folder: Path) -> bool:
        """Show a finished (or stopped) suite run from its folder. Returns False with a
        plain message when it cannot be read."""
        from engine.suite.report import build_report
        from engine.suite.store import SuiteStoreError, read_results, results_items

        try:
            data = read_results(folder)
            items = results_items(data, folder)
        except SuiteStoreError as exc:
            self._error("These suite results cannot be opened", str(exc))
            return False
        self.items = items
        self.report = build_report(
            items,
            name=data["suite"],
            fingerprint=data["fingerprint"],
            seed=int(data.get("seed") or 0),
        )
        self.history = []  # drawn once every bundle is checked (_verify_runs)
        self._shown = dict(data)
        self.meta = {
            "suite_id": str(data.get("suite_id") or folder.name),
            "name": data["suite"],
            "fingerprint": data["fingerprint"],
            "seed": int(data.get("seed") or 0),
        }
        self.source = str(folder)
        self.heading.setText(f"Suite: {data['suite']}")
        self.heading.setToolTip(f"Suite run {data.get('suite_id') or folder.name}")
        finished = sum(1 for i in items if i.status == "finished")
        self.subheading.setText(
            f"The suite run {_started(data.get('started_at'))} "
            f"({data.get('status', 'finished')}), program {data.get('app_version', '?')}: "
            f"{finished} of {plural(len(items), 'run')} finished."
        )
        self.subheading.setToolTip(
            f"Suite run {data.get('suite_id') or folder.name}\nFolder: {folder}"
        )
        self.estimate.setPlainText("")
        self.edit_btn.setEnabled(False)
        self._show_planning(False)
        self.start_btn.setEnabled(False)
        self._fill_runs()
        self._fill_report()
        self._verify_runs()
        self._draw_charts()
        # named as the heading names it; the folder (its id) is in the subheading's tooltip
        self.message.emit(
            f"Opened the results of the suite \u201c{data['suite']}\u201d, "
            f"the run {_started(data.get('started_at'))}"
        )
        return True

    def _show_last(self, row: Any, items: list[Any], report: Any, earlier: int) -> None:
        """The suite's last run from the results store (``latest_results``), below the
        estimate; its trend is drawn once every bundle is checked (``_verify_runs``)."""
        self.items, self.report, self.history = items, report, []
        self._shown = _row_results(row)
        self.meta = {
            "suite_id": row.id,
            "name": row.name,
            "fingerprint": row.fingerprint,
            "seed": row.seed,
        }
        self.subheading.setText(
            self.subheading.text()
            + f" Below: its last run ({row.status}, {_started(row.started_at)})"
            + (f", and {plural(earlier, 'earlier run')} in the trend." if earlier > 0 else ".")
        )
        self.subheading.setToolTip(f"The last suite run: {row.id}")
        self._fill_runs()
        self._fill_report()
        self._verify_runs()
        self._draw_charts()

    # -- tables ----------------------------------------------------------------------------

    def _fill_runs(self) -> None:
        from engine.suite.report import run_cells

        self.runs.setRowCount(len(self.items))
        letters = self._combo_letters()
        for r, it in enumerate(self.items):
            for c, text in enumerate(run_cells(it)):
                if c == 1 and (it.model, it.variant) in letters:
                    text = f"{letters[(it.model, it.variant)]}: {text}"
                cell = QTableWidgetItem(text)
                cell.setToolTip(f"{text}\n{it.reason}" if it.reason else text)
                if c == 0:
                    cell.setData(Qt.ItemDataRole.UserRole, it.bundle or "")
                self.runs.setItem(r, c, cell)
        # A failure's reason ("failed: TAMPERED: metrics.json: SHA-256 does not match the
        # manifest") made its column as wide as the reason and pushed attribution and
        # tokens out of sight: the column is its contents' width up to REASON_ROOM, the
        # rest elided, whole in the tooltip.
        room = self.runs.fontMetrics().horizontalAdvance(REASON_ROOM) + 16
        for col in WORDY_RUN_COLUMNS:
            self.runs.setColumnWidth(col, min(self.runs.sizeHintForColumn(col), room))
        self.fit_model_column()

    def _combo_letters(self) -> dict[tuple[str, str], str]:
        """(model, variant) -> the combination's letter on the charts and in their key
        (``charts.combo_letter``, in the report's order); {} before there is a report."""
        from app.suites.charts import combo_letter

        combos = (self.report or {}).get("combinations") or []
        return {(c["model"], c["variant"]): combo_letter(k) for k, c in enumerate(combos)}

    def fit_model_column(self) -> None:
        """The document and model / variant columns share the width the others leave, each
        at least its header's and at most its text's (the model column takes what is left
        beyond): at 1366 x 768 and 1.5x the model column was left 26 px ("…"). A cut name
        ends in "…" after its letter ("A: smollm2-13…"; the key beside the charts says it
        whole), and its tooltip holds it whole."""
        runs = self.runs
        header = runs.horizontalHeader()
        room = runs.viewport().width() - sum(runs.columnWidth(c) for c in range(2, 6))
        least = [header.sectionSizeFromContents(c).width() for c in (0, 1)]
        want = [max(runs.sizeHintForColumn(c), least[i]) for i, c in enumerate((0, 1))]
        need = sum(want) - sum(least)
        spare = room - sum(least)
        if spare >= need:  # both whole; the model column takes the rest
            widths = [want[0], room - want[0]]
        else:  # each gets its least and a share of what is left, as far as it wants
            share = max(0, spare) / need if need else 0
            widths = [least[i] + int((want[i] - least[i]) * share) for i in (0, 1)]
        for c, width in enumerate(widths):
            runs.setColumnWidth(c, width)

    def eventFilter(self, obj: Any, event: Any) -> bool:
        from PySide6.QtCore import QEvent

        if obj is self.runs and event.type() == QEvent.Type.Resize:
            self.fit_model_column()
        return super().eventFilter(obj, event)

    def _fill_report(self) -> None:
        from engine.suite.report import REPORT_ROWS, ROW_LABELS, combination_cell, noise_notes

        rep = self.report or {"combinations": [], "ranking": {}}
        combos = rep["combinations"]
        table = self.report_table
        table.clear()
        table.setColumnCount(1 + len(combos))
        table.setHorizontalHeaderLabels(
            ["metric"] + [f"{c['model']} / {c['variant']}" for c in combos]
        )
        for c in range(1, 1 + len(combos)):  # a narrow column shortens its name: whole here
            head = table.horizontalHeaderItem(c)
            if head is not None:
                head.setToolTip(head.text())
        table.setRowCount(len(REPORT_ROWS))
        for r, row in enumerate(REPORT_ROWS):
            table.setItem(r, 0, QTableWidgetItem(ROW_LABELS[row]))
            for c, combo in enumerate(combos, 1):
                text = combination_cell(combo, row)
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                table.setItem(r, c, item)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for c in range(1, 1 + len(combos)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Stretch)
        table.resizeRowsToContents()
        self.noise.setText("\n".join(noise_notes(rep)[:6]))
        self.document_view.show_items(self.items)
        self.publish_btn.setEnabled(bool(self.items and self.meta))

    def _verify_runs(self) -> None:
        """Check every finished run's bundle off the UI thread (``engine.suite.tamper``, as
        ``arl suite report`` does), and every earlier suite run's in the trend
        (``engine.suite.report.trend_points``); a TAMPERED run is left out of the
        statistics, counted as a failure with its reason, and said in the status bar."""
        from engine.suite.report import build_report, mark_tampered, trend_points
        from engine.suite.tamper import tampered_runs

        self._verify_generation = getattr(self, "_verify_generation", 0) + 1
        generation = self._verify_generation
        items, meta, shown = list(self.items), dict(self.meta), dict(self._shown)
        if not items or not meta:
            return
        self.trend_caption.setText("Checking the bundles of every suite run in the trend…")

        def work() -> Any:
            tampered = tampered_runs(items)
            report = build_report(
                items,
                name=meta["name"],
                fingerprint=meta["fingerprint"],
                seed=meta["seed"],
                tampered=tampered,
            )
            history = trend_points(shown, items, tampered)
            return tampered, report, mark_tampered(items, tampered), history

        def done(value: Any) -> None:
            if generation != self._verify_generation:
                return
            tampered, self.report, self.items, self.history = value
            self._fill_runs()
            self._fill_report()
            self._draw_charts()
            earlier = sum(len(h["tampered"]) for h in self.history) - len(tampered)
            if tampered or earlier:
                self.message.emit(
                    f"{plural(len(tampered) + earlier, 'run')} TAMPERED (its bundle fails its "
                    "checks): left out of the statistics and the trend, counted as failed."
                )

        def failed(exc: BaseException) -> None:
            if generation == self._verify_generation:
                self.trend_caption.setText(f"The trend could not be checked: {error_words(exc)}")

        run_in_thread(work, done, failed)

    def _open_run(self, row: int, _col: int) -> None:
        cell = self.runs.item(row, 0)
        path = cell.data(Qt.ItemDataRole.UserRole) if cell else ""
        if path and Path(path).exists():
            self.openBundle.emit(path)
        else:
            self.message.emit("This run has no evidence bundle (it did not start).")

    # -- publishing ------------------------------------------------------------------------

    def publish(self) -> None:
        """Publish the shown suite run's report page into the publishing folder (asked for
        once), off the UI thread; then a plain message with Open."""
        from app.published import choose_folder
        from engine.publish.published import published_folder

        if not (self.items and self.meta):
            return
        folder = published_folder()
        if folder is None:
            choose_folder(self, self.publish_to)
        else:
            self.publish_to(folder)

    def publish_to(self, folder: Path) -> None:
        from engine.publish.published import PublishError
        from engine.suite.html_report import publish_suite_page

        items, meta = list(self.items), dict(self.meta)
        self.publish_btn.setEnabled(False)
        self.message.emit(f"Publishing the report of the suite {meta['name']}…")

        def work() -> Path:
            return publish_suite_page(
                items,
                meta["suite_id"],
                name=meta["name"],
                fingerprint=meta["fingerprint"],
                seed=meta["seed"],
                folder=folder,
            )

        def done(page: Path) -> None:
            self.publish_btn.setEnabled(True)
            self.published_page = page
            self.message.emit(f"Published the suite report: {page}")
            self._published_box(page)

        def failed(exc: BaseException) -> None:
            self.publish_btn.setEnabled(True)
            msg = str(exc) if isinstance(exc, PublishError) else error_words(exc)
            self._error("The suite report was not published", msg)

        run_in_thread(work, done, failed)

    def _published_box(self, page: Path) -> None:
        from app.open_file import open_local

        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Information)
        box.setWindowTitle("Suite report published")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText("The suite report is published. Others open this page:")
        box.setInformativeText(str(page))
        open_btn = box.addButton("Open", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Close)
        open_btn.clicked.connect(lambda: open_local(self, page, "the suite report"))
        box.setWindowModality(Qt.WindowModality.WindowModal)
        self._box = box
        self.publish_box = box
        box.open()

    # -- charts ----------------------------------------------------------------------------

    def _fill_metrics(self) -> None:
        """The metric choices, from the suite report's own list: filled when the tab is
        first shown or a chart drawn, not when the window is made (the report imports
        numpy, about half a second of every launch)."""
        if self.chart_metric.count():
            return
        from engine.suite.report import LABELS, METRICS

        self.chart_metric.blockSignals(True)
        for m in METRICS:
            self.chart_metric.addItem(LABELS[m], m)
        self.chart_metric.blockSignals(False)

    def showEvent(self, event) -> None:
        self._fill_metrics()
        super().showEvent(event)

    def changeEvent(self, event) -> None:
        """When the scheme changes (light or dark), the charts are drawn again in it."""
        super().changeEvent(event)
        from PySide6.QtCore import QEvent

        from app import theme

        changed = (QEvent.Type.ApplicationPaletteChange, QEvent.Type.PaletteChange)
        if event.type() in changed and self.report and self._drawn_dark != theme.is_dark():
            self._draw_charts()

    def _draw_charts(self) -> None:
        from app import theme
        from engine.suite.report import LABELS, RATIO

        self._fill_metrics()
        self._drawn_dark = theme.is_dark()
        metric = self.chart_metric.currentData()
        self.spread_chart.clear()
        self.trend_chart.clear()
        combos = (self.report or {}).get("combinations") or []
        if not combos:
            self.trend_caption.setText("")
            self.combo_key.setText("")
            return
        label, ratio = LABELS[metric], metric in RATIO
        said = draw_spread(self.spread_chart.chart, combos, self.items, metric, label, ratio)
        self.combo_key.setText(combo_key(combos, said))
        caption = draw_trend(self.trend_chart.chart, combos, self.history, metric, label, ratio)
        self.trend_caption.setText(caption)

    # -- running ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._job is not None and not self._job.done()

    def start_suite(self) -> asyncio.Task[Any] | None:
        """Start the open suite file's runs on the running event loop."""
        if self.suite is None or self.running:
            return None
        self._job = asyncio.ensure_future(self._run_suite())
        return self._job

    def cancel_suite(self) -> None:
        if self.running and self._job is not None:
            self._job.cancel()
            self.message.emit("Cancelling the suite: runs in flight stop and keep their bundles.")

    async def _run_suite(self) -> None:
        from engine.suite.runner import SuiteLimits, execute_suite

        suite = self.suite
        suite.allow_commands = self.allow_commands.isChecked()  # the user's choice only
        store, sid, items, limit = self._begin_suite_run()

        def on_event(ev: Any) -> None:
            self.items = store.items(sid)
            self._fill_runs()
            if ev.status == "suite":
                self.message.emit(ev.text)

        try:
            status = await execute_suite(
                store,
                suite,
                sid,
                items,
                SuiteLimits(max_total_tokens=limit, concurrency=self.concurrency.value()),
                key_for=_key_for,
                on_event=on_event,
            )
            self.heading.setText(f"Suite: {suite.name} \u2014 {status}")
        except asyncio.CancelledError:
            self.heading.setText(
                f"Suite: {suite.name} \u2014 cancelled ({sid}); resume with arl suite resume {sid}"
            )
        except Exception as exc:  # shown, not swallowed: the suite run stays resumable
            logging.getLogger(__name__).warning("the suite stopped", exc_info=True)
            self._error("The suite stopped", error_words(exc))
        finally:
            self._end_suite_run(store, sid)

    def _begin_suite_run(self) -> tuple[Any, str, list[Any], int | None]:
        """Record a new suite run of the open suite file: ``(store, suite id, items, token
        limit or None)``; the runs table and buttons show it."""
        from engine.suite.runner import new_suite_run
        from engine.suite.store import SuiteStore
        from engine.suite.suite import expand_items
        from engine.workspace import default_home

        suite = self.suite
        items = expand_items(suite)
        store = SuiteStore()
        limit = self.token_limit.value() or None
        sid = new_suite_run(
            store,
            suite,
            items,
            default_home() / "suites",
            None,
            {"concurrency": self.concurrency.value(), "max_total_tokens": limit},
        )
        self.items = store.items(sid)
        self._fill_runs()
        self.start_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        self.heading.setText(f"Suite: {suite.name} \u2014 running")
        self.heading.setToolTip(f"Suite run {sid}")
        return store, sid, items, limit

    def _end_suite_run(self, store: Any, sid: str) -> None:
        """However the suite run ended: write its results, show the report and charts."""
        from engine.suite.report import build_report
        from engine.suite.store import write_results

        self.items = store.items(sid)
        row = store.run_row(sid)
        try:
            write_results(store, sid)
        except OSError:
            pass
        self.report = build_report(
            self.items, name=row.name, fingerprint=row.fingerprint, seed=row.seed
        )
        self.meta = {
            "suite_id": sid,
            "name": row.name,
            "fingerprint": row.fingerprint,
            "seed": row.seed,
        }
        self.history = []  # drawn once every bundle is checked (_verify_runs)
        self._shown = _row_results(row)
        self._fill_runs()
        self._fill_report()
        self._verify_runs()
        self._draw_charts()
        self.cancel_btn.setEnabled(False)
        self.start_btn.setEnabled(True)
        store.close()


def latest_results(name: str) -> tuple[Any, list[Any], Any, int] | None:
    """The last run of the suite called ``name`` in the user's results store (made here or
    by ``arl suite run``): ``(row, items, report, number of earlier runs)``, or None when it
    has none or the store cannot be read. Reads a database: run it off the UI thread."""
    from engine.suite.report import build_report
    from engine.suite.store import SuiteStore, SuiteStoreError

    try:
        with SuiteStore() as store:
            runs = [r for r in store.runs() if r.name == name]
            if not runs:
                return None
            row = runs[-1]  # oldest first
            items = store.items(row.id)
    except (SuiteStoreError, OSError):
        return None
    report = build_report(items, name=row.name, fingerprint=row.fingerprint, seed=row.seed)
    return row, items, report, len(runs) - 1


def _row_results(row: Any) -> dict[str, Any]:
    """A results-store row as the results-file data ``trend_points`` reads."""
    return {
        "suite": row.name,
        "suite_id": row.id,
        "started_at": row.started_at,
        "app_version": row.app_version,
        "fingerprint": row.fingerprint,
        "seed": row.seed,
    }


def _started(iso: Any) -> str:
    """ "started 30 Nov 2026, 21:12 UTC", or "(start not recorded)"."""
    return f"started {when_words(str(iso))}" if iso else "(its start not recorded)"


def _key_for(spec: Any) -> str | None:
    """The API key for one model of a suite: its ``api_key_env`` variable, else the one
    key rule of ``app.secrets`` (None when there is none)."""
    if spec.api_key_env:
        return os.environ.get(spec.api_key_env) or None
    try:
        from app.secrets import get_key

        return get_key()[0]
    except Exception:
        return None
