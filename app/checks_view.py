"""The Checks view: the reviewer's declared checks (docs/checks.md) as the engine computed
them: one row per check per round (PASS, FAIL, UNVERIFIED, N/A, in words, never by colour
alone), the check's output on click, a line saying whether approval is blocked, and the
rate that leaves N/A out. The rows are the re-derived results once the bundle has been
checked (``engine.bundle.scorecard_checks.shown_check_sets``); nothing is computed here.

**Accept this FAIL with a reason…** records the reviewer's acceptance of the selected
final-version FAIL, signed like any decision, through the engine's
``engine.bundle.adjudicate.adjudicate_check`` (as ``arl bundle adjudicate BUNDLE --check
NAME --decision accept --reason TEXT``), on a worker thread; the engine refuses what it
must (a check that is not FAIL, no reason, a bundle that fails its checks) and its words
are shown. The reviewer's name is asked first when there is none
(``app.decisions_panel.ensure_name``).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bundledata import BundleData
from engine import vocabulary as vocab

#: Okabe-Ito colours (the Verdicts view's banner palette), the word always beside them.
STATUS_COLOURS = {
    "pass": QColor("#006e4f"),
    "fail": QColor("#b03c00"),
    "unverified": QColor("#8a5a00"),
    "na": QColor("#555555"),
}
STATUS_WORDS = {
    "pass": "PASS",
    "fail": "FAIL",
    "unverified": "UNVERIFIED (could not be checked)",
    "na": "N/A (nothing to check)",
}


class ChecksView(QWidget):
    """The declared checks of an opened bundle."""

    COLUMNS = ("Round", "Check", "Result", "What it found")
    decided = Signal()  # a check's FAIL was accepted (the other views refresh)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings: Any = None  # app.settings.Settings (the window sets it)
        self.accept_btn = QPushButton("&Accept this FAIL with a reason\u2026")
        self.accept_btn.setToolTip(
            "Record that you accept the selected check's FAIL on the final version, with "
            "a one-line reason, signed with your key: it no longer blocks approval"
        )
        self.accept_btn.setEnabled(False)
        self.accept_btn.clicked.connect(self.ask_accept)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAccessibleName("Accepting a check: what happened")
        self._writing = False
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setAccessibleName("Declared checks: the outcome")
        self.rate = QLabel()
        self.rate.setWordWrap(True)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        self.table.setAccessibleName("Declared checks, one row per check per round")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)  # the check's output as plain text, never HTML
        self.output.setPlaceholderText("Click a row to see that check's output.")
        self.output.setAccessibleName("The selected check's output")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.output)
        split.setSizes([420, 220])
        lay = QVBoxLayout(self)
        lay.addWidget(self.headline)
        lay.addWidget(self.rate)
        lay.addWidget(split, 1)
        lay.addWidget(self.accept_btn, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.status)
        self.rows: list[Any] = []  # CheckResult per table row
        self.data: BundleData | None = None
        self.table.currentCellChanged.connect(lambda row, *_: self._show_output(row))

    def show_bundle(self, data: BundleData) -> None:
        """Show ``data``'s checks now, and again once its re-derivation is in."""
        from app.bundledata import start_checks

        self.data = data
        self._fill(data)
        start_checks(data, lambda _r: self.data is data and self._fill(data))

    def _fill(self, data: BundleData) -> None:
        from engine.bundle.scorecard_checks import (
            accepted_line,
            shown_check_rows,
            shown_check_sets,
        )

        recomputed = getattr(data.rederivation, "checks", None)
        accepted = data.decisions.accepted_checks() if data.decisions is not None else None
        sets = shown_check_sets(data.checks, recomputed, accepted)
        self.rows = []
        self.final_fails: set[str] = set()  # names of the final version's FAILs not accepted
        self.table.setRowCount(0)
        self.output.clear()
        self.accept_btn.setEnabled(False)
        self.accept_btn.setVisible(bool(sets))  # nothing to accept in a run without checks
        if not sets:
            self.headline.setText(
                (
                    "No checks were declared for this revision."
                    if data.external
                    else "This run declared no checks."
                )
                + " A reviewer declares them in the setup's "
                "<i>Checks</i> page, or in a checks file given to the command line."
            )
            self.rate.setText("")
            return
        final = next((s for label, s in sets if label == "Final"), sets[-1][1])
        gate = final.gate()
        if gate.blocked:
            self.headline.setText(
                "<b>Changes requested.</b> "
                + html.escape(_sentence(gate.reason()))
                + ": approval is blocked whatever the verdicts say."
            )
            self.headline.setStyleSheet(
                "background:#fde8e0;color:#4a1400;border:2px solid #D55E00;padding:6px;"
            )
        else:
            self.headline.setText("No declared check blocks approval.")
            self.headline.setStyleSheet(
                "background:#e8f4fb;color:#102a43;border:1px solid #56B4E9;padding:6px;"
            )
        rate = f"Checks passed on the final version: {final.rate()}, N/A left out."
        for r, why in gate.accepted:  # a FAIL the reviewer accepted, with their reason
            rate += "\n" + accepted_line(r, why)
        self.rate.setText(rate)
        self.final_fails = {r.name for r in final.revised if r.status == "fail"} - set(
            accepted or {}
        )
        for label, r in shown_check_rows(data.checks, recomputed):
            self._add_row(label, r)
        if self.rows:
            self.table.selectRow(0)

    def _add_row(self, label: str, r: Any) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        where = label
        notes = []
        if r.already:
            notes.append(vocab.ALREADY_IN_REVIEWED)
        if r.kind == "command":
            notes.append(vocab.RECORDED_NOT_RERUN)
        found = r.summary + (f" ({'; '.join(notes)})" if notes else "")
        cells = (where, r.title, STATUS_WORDS[r.status], found)
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            if col == 2:
                item.setForeground(STATUS_COLOURS[r.status])
                font = item.font()
                font.setBold(r.status in ("fail", "unverified"))
                item.setFont(font)
            self.table.setItem(row, col, item)
        self.rows.append(r)

    def _show_output(self, row: int) -> None:
        self.accept_btn.setEnabled(False)
        if not 0 <= row < len(self.rows):
            self.output.clear()
            return
        r = self.rows[row]
        data = self.data
        final = getattr(self, "final_fails", set())
        self.accept_btn.setEnabled(
            r.status == "fail"
            and r.name in final
            and not self._writing
            and data is not None
            and data.rederivation is not None
            and not data.untrustworthy
        )
        head = f"{r.title} on version {r.version_id}: {vocab.CHECK_STATUS_WORDS[r.status]}"
        if r.kind == "command":
            head += f" ({vocab.RECORDED_NOT_RERUN})"
        body = r.output or "(no output)"
        self.output.setPlainText(f"{head}\n{r.summary}\n\n{body}")

    # -- accepting a FAIL (the engine's adjudicate_check) --------------------------------------

    def _selected(self) -> Any:
        row = self.table.currentRow()
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def ask_accept(self) -> None:
        """The reviewer's name (asked once), then the reason, then the engine records it."""
        r = self._selected()
        if r is None or not self.accept_btn.isEnabled():
            return
        from app.decisions_panel import ensure_name

        if self.settings is None:
            from app.settings import Settings

            self.settings = Settings()
        ensure_name(self, self.settings, lambda: self._ask_reason(r))

    def _ask_reason(self, r: Any) -> None:
        dlg = QInputDialog(self.window())
        dlg.setWindowTitle("Accept this FAIL")
        dlg.setLabelText(
            f"Why do you accept that \u201c{r.title}\u201d failed? One line; it is kept "
            "with your decision and shown wherever the check is."
        )
        dlg.setWindowModality(Qt.WindowModality.ApplicationModal)
        self._reason_dialog = dlg

        def done(result: int) -> None:
            reason = " ".join(dlg.textValue().split())
            dlg.deleteLater()
            self._reason_dialog = None
            if result == QInputDialog.DialogCode.Accepted and reason:
                self.accept_fail(r.name, reason)
            elif result == QInputDialog.DialogCode.Accepted:
                self.status.setText("Nothing recorded: accepting a FAIL needs a reason.")

        dlg.finished.connect(done)
        dlg.open()

    def accept_fail(self, check: str, reason: str) -> None:
        """Record the acceptance of ``check``'s FAIL with ``reason`` (engine, worker thread)."""
        from app.decisions_panel import reviewer_name
        from app.jobs import run_in_thread

        data = self.data
        name = reviewer_name(self.settings)
        if data is None or not name:
            return
        red = data.rederivation
        self._writing = True
        self.accept_btn.setEnabled(False)
        self.status.setText("Recording your decision\u2026")

        def work() -> Any:
            from arl_keys.signing import signing_key
            from engine.bundle.adjudicate import adjudicate_check
            from engine.bundle.decisions import check_decisions
            from engine.bundle.read import open_bundle

            key = signing_key()
            done = adjudicate_check(
                data.path, check, "accept", reason, name, key.material, rederivation=red
            )
            fresh = open_bundle(done.home.bundle)  # the user's copy of a shipped bundle
            return fresh.decision_files, check_decisions(fresh, red), done.home

        def done(result: Any) -> None:
            from app.bundledata import follow_copy

            self._writing = False
            data.source.decision_files, data.decisions, home = result
            moved = follow_copy(data, home)
            self.status.setText(
                f"Recorded: you accepted this FAIL ({reason})."
                + (f" {data.kept_copy}" if moved else "")
            )
            if self.data is data:
                self._fill(data)
            self.decided.emit()

        def failed(exc: BaseException) -> None:
            self._writing = False
            self.status.setText(f"Not recorded: {vocab.error_words(exc)}.")
            self._show_output(self.table.currentRow())

        run_in_thread(work, done, failed)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
