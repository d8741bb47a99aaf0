"""The Verdicts view's review actions: show the selected comment's decision, record one
(on a worker thread, through the engine), move to the next comment needing a decision.

A mixin of ``app.verdicts.VerdictsView`` (it reads ``self.data``, ``self.rows``,
``self.table``, ``self.decision``, ``self.settings``); kept apart so the view's module
stays about showing verdicts.
"""

from __future__ import annotations

from typing import Any

from app.decisions_panel import KEYS, NAV_KEYS, ensure_name, reviewer_name
from app.jobs import run_in_thread

BY_KEY = {key: decision for decision, (key, _words) in KEYS.items()}


class ReviewActions:
    """Accept / Override for the Verdicts view (see the module docstring)."""

    data: Any
    rows: list[dict[str, Any]]
    table: Any
    decision: Any
    settings: Any
    thread: Any
    send_back_btn: Any
    another_btn: Any
    continue_btn: Any
    _writing: bool

    def _review_side(self, detail: Any) -> Any:
        """The right-hand side under the documents: the comment's ``detail`` over the
        decision panel, the thread box and Send back / Continue / Run with another model
        (a splitter: the reviewer moves the line; the panels scroll when the pane is
        short, as at 1.5x scale on 1366 x 768, instead of being cut; button rows wrap
        onto a second line when the pane is narrow, ``app.flow``)."""
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import (
            QFrame,
            QPushButton,
            QScrollArea,
            QSplitter,
            QVBoxLayout,
            QWidget,
        )

        from app.decisions_panel import DecisionPanel
        from app.flow import flow_row
        from app.thread_box import ThreadBox

        self.decision = DecisionPanel()
        self.decision.decide.connect(self._decide)
        self.decision.with_name = self._with_name  # asks nothing once a name is kept
        self.settings = None  # app.settings.Settings (the window sets it)
        self._writing = False
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.setContentsMargins(0, 0, 0, 0)
        panels = QWidget()
        panels.setAccessibleName("Your decision and the thread")
        inner = QVBoxLayout(panels)
        inner.setContentsMargins(0, 0, 4, 0)
        inner.addWidget(self.decision)
        self.thread = ThreadBox()
        inner.addWidget(self.thread)
        scroll = QScrollArea()
        scroll.setWidget(panels)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.side_split = QSplitter(Qt.Orientation.Vertical)
        self.side_split.addWidget(detail)
        self.side_split.addWidget(scroll)
        self.side_split.setStretchFactor(0, 1)
        self.side_split.setStretchFactor(1, 1)
        self.side_split.setChildrenCollapsible(False)
        self.side_split.setSizes([200, 300])  # the decision panel a little more than the detail
        self.panels_scroll = scroll
        lay.addWidget(self.side_split, 1)
        self.thread.author = lambda: reviewer_name(self._settings())
        self.thread.with_name = self._with_name
        self.thread.continueReview.connect(self.continueReview.emit)  # type: ignore[attr-defined]
        self.send_back_btn = QPushButton("Send &back to the agent\u2026")
        self.send_back_btn.setToolTip(
            "The next round: the comments still open or overridden, with your reasons, on "
            "the last version (or a brief for an agent that runs elsewhere)"
        )
        self.send_back_btn.clicked.connect(self.sendBack.emit)  # type: ignore[attr-defined]
        self.another_btn = QPushButton("Run with another &model\u2026")
        self.another_btn.setToolTip(
            "The same document and comments against another model or settings; Compare "
            "shows both runs when it ends"
        )
        self.another_btn.clicked.connect(self.anotherModel.emit)  # type: ignore[attr-defined]
        self.continue_btn = QPushButton("Con&tinue this review\u2026")
        self.continue_btn.setToolTip(
            "The next review: the last version, its open comments (ids, threads and "
            "versions kept), and new comments you add"
        )
        self.continue_btn.clicked.connect(self.continueReview.emit)  # type: ignore[attr-defined]
        inner.addWidget(flow_row(self.send_back_btn, self.continue_btn, self.another_btn))
        inner.addStretch(1)
        return side

    def eventFilter(self, obj: Any, event: Any) -> bool:
        """The table's keys: a letter per decision (``app.decisions_panel.KEYS``), Enter
        to the next comment needing review. Other keys go on to the table."""
        from PySide6.QtCore import QEvent, Qt

        if obj is self.table and event.type() == QEvent.Type.KeyPress:
            mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if mods == Qt.KeyboardModifier.NoModifier:
                if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                    self.next_to_review()
                    return True
                step = NAV_KEYS.get(event.text().upper())
                if step is not None:  # moving, never a decision
                    self.step_comment(step)
                    return True
                decision = BY_KEY.get(event.text().upper())
                if decision is not None:
                    self.decision.choose(decision)
                    return True
        return super().eventFilter(obj, event)  # type: ignore[misc]

    def _with_name(self, then: Any) -> None:
        """``then()`` once the reviewer has a name (asked first when there is none)."""
        ensure_name(self.table, self._settings(), then)

    def step_comment(self, step: int) -> None:
        """Select the next (+1) or previous (-1) comment in the table, staying at the ends."""
        if not self.rows:
            return
        r = self._selected()
        r = (-1 if step > 0 else len(self.rows)) if r is None else r
        self.table.selectRow(max(0, min(len(self.rows) - 1, r + step)))
        self.table.setFocus()

    def _settings(self) -> Any:
        """The settings (the window's; the program's own when the view stands alone)."""
        if self.settings is None:
            from app.settings import Settings

            self.settings = Settings()
        return self.settings

    def _writable(self) -> str:
        """ "" when a decision can be recorded on the open bundle, else why not."""
        data = self.data
        if data is None:
            return "No bundle is open."
        if self._writing:
            return "Recording the decision\u2026"
        if data.rederivation is None:
            return "Checking the bundle first (every verdict is re-derived)\u2026"
        if data.untrustworthy:
            return "This bundle fails its checks: a decision on it would vouch for figures that are not its own."
        return ""

    def _show_decision(self, row: dict[str, Any]) -> None:
        history = []
        if self.data is not None and self.data.decisions is not None:
            history = [d for d in self.data.decisions.decisions if d.comment_id == row["id"]]
        self.decision.show_comment(row, history, self._writable())

    def _selected(self) -> int | None:
        sel = self.table.selectionModel().selectedRows()
        return sel[0].row() if sel and sel[0].row() < len(self.rows) else None

    def next_to_review(self) -> None:
        """Select the next comment (after the selected one, wrapping) with no decision that
        needs one: needs your review, or counted by the attribution; stay when there is none."""
        if not self.rows:
            return
        start = self._selected()
        start = -1 if start is None else start
        n = len(self.rows)
        for step in range(1, n + 1):
            r = (start + step) % n
            row = self.rows[r]
            if row.get("decision") is None and (row.get("needs") or row.get("counted")):
                self.table.selectRow(r)
                self.table.setFocus()
                return
        self.table.setFocus()

    def _decide(self, decision: str, reason: str) -> None:
        """Record ``decision`` on the selected comment (the panel asked for the reason)."""
        r = self._selected()
        if r is None or self._writable():
            return
        data = self.data
        name = reviewer_name(self._settings())
        if not name:  # asked before the decision was taken (DecisionPanel.choose)
            return self._with_name(lambda: self._decide(decision, reason))
        cid = self.rows[r]["id"]
        self._writing = True
        self._show_decision(self.rows[r])
        red = data.rederivation

        def work() -> Any:
            from arl_keys.signing import signing_key
            from engine.bundle.adjudicate import adjudicate
            from engine.bundle.decisions import check_decisions
            from engine.bundle.read import open_bundle

            key = signing_key()
            done = adjudicate(
                data.path, cid, decision, reason, name, key.material, rederivation=red
            )
            fresh = open_bundle(done.home.bundle)  # the user's copy of a shipped bundle
            return fresh.decision_files, check_decisions(fresh, red), done.home

        run_in_thread(work, lambda res: self._decided(data, cid, res), self._decide_failed)

    def _decided(self, data: Any, cid: str, result: Any) -> None:
        self._writing = False
        if data is not self.data:
            return
        from app.bundledata import follow_copy

        data.source.decision_files, data.decisions, home = result
        moved = follow_copy(data, home)
        keep = next((i for i, row in enumerate(self.rows) if row["id"] == cid), 0)
        self.rows = self._rows(data)  # type: ignore[attr-defined]
        self.table.fill(self.rows)
        self.table.selectRow(keep)
        self.next_to_review()
        if moved:  # the first decision on a shipped or read-only bundle: say where it went
            from html import escape

            self.decision.state.setText(
                self.decision.state.text() + f"<br><b>{escape(data.kept_copy)}</b>"
            )
        self.show_banner(data)  # type: ignore[attr-defined]
        self.decided.emit()  # type: ignore[attr-defined]

    def _decide_failed(self, exc: BaseException) -> None:
        self._writing = False
        r = self._selected()
        if r is not None:
            self._show_decision(self.rows[r])
        from html import escape

        from engine.vocabulary import error_words

        self.decision.state.setText(
            self.decision.state.text() + f"<br><b>Not recorded:</b> {escape(error_words(exc))}"
        )
