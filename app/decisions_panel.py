"""The reviewer's decision on the selected comment, under the Verdicts view's detail pane.

Keyboard first: with the comment table focused, **A** accepts the verdict, **D** overrides
it to addressed, **O** not addressed, **F** the deletion was the fix, **W** declined (won't
fix), **R** needs another round. An override asks for a one-line reason (the field takes
the focus; Enter records it, Esc cancels). After a decision, and on Enter in the table, the
selection moves to the next comment that still needs a decision. **N** / **J** and **P** /
**K** (like the arrows) move to the next and previous comment and never decide anything
(``NAV_KEYS``). A ``deleted`` verdict offers no plain accept.

The decision is written by the engine (``engine.bundle.adjudicate.adjudicate``) on a worker
thread, signed with the user's own key (``arl_keys.signing``, the keyring); the reviewer's
name comes from the settings (``review/reviewer``), asked once, before the first decision,
reply or check (``ensure_name``: a small modal dialog titled "Your name as reviewer", with
the focus; the decision goes on once it is given, its reason field then taking the focus),
never in a field of the panel where the reason goes (a reason was typed into one as the
name). Edit > Your name... changes it (``ensure_name(..., again=True)``). Nothing here decides what a
decision means: the words, the rules and the figures are the engine's
(``engine.bundle.decisions``, ``engine.bundle.review``).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.flow import flow_row
from engine.bundle.decisions import DECISION_WORDS, agrees_with_machine, allowed_decisions
from engine.vocabulary import plural, when_words

#: decision -> (the key that takes it, the button's words)
KEYS: dict[str, tuple[str, str]] = {
    "accept": ("A", "&Accept"),
    "addressed": ("D", "A&ddressed"),
    "not-addressed": ("O", "N&ot addressed"),
    "deletion-is-fix": ("F", "Deletion was the &fix"),
    "declined": ("W", "Declined (&won't fix)"),
    "another-round": ("R", "Another &round"),
}
#: key -> +1 (next comment) or -1 (previous): moving only, never a decision.
NAV_KEYS: dict[str, int] = {"N": 1, "J": 1, "P": -1, "K": -1}
SETTING = "review/reviewer"
#: The Review column's short words (the detail and the tooltip say the rest).
CELL_WORDS = {
    "accept": "accepted",
    "addressed": "addressed",
    "not-addressed": "not addressed",
    "deletion-is-fix": "deletion was the fix",
    "declined": "declined",
    "another-round": "another round",
}


#: While the bundle's decisions are checked (``BundleData.decisions_pending``).
CHECKING_CELL = "checking\u2026"
CHECKING_WORDS = (
    "Checking the reviewer decisions in this bundle\u2026 (each is shown once the bundle's "
    "verdicts are re-derived, which says what it was decided on)"
)


def review_cell(row: dict[str, Any]) -> str:
    """The Review column's words for a row: its decision that counts, else "needs your
    review" (with why in the tooltip), else "no decision yet" for an actionable comment."""
    d = row.get("decision")
    if d is not None:
        mark = "\u2713" if d.agrees else "\u270e"
        return f"{mark} {CELL_WORDS.get(d.decision, d.decision)}"
    if row.get("checking") and (row.get("needs") or row.get("counted")):
        return CHECKING_CELL  # the bundle's decisions are still being checked
    if row.get("needs"):
        return "\u2691 needs review"
    return "no decision yet" if row.get("counted") else ""


def earlier_words(decisions: int) -> str:
    """What the panel says of a comment's earlier decisions: nothing for its only one;
    "; it replaces 2 earlier decisions, still in the record" (a decision is never edited,
    a new one is added and the latest counts: ``engine.bundle.decisions``)."""
    if decisions <= 1:
        return ""
    return f"; it replaces {plural(decisions - 1, 'earlier decision')}, still in the record"


def reviewer_name(settings: Any) -> str:
    """The reviewer's name as the settings keep it ("" when none was given yet)."""
    return " ".join(str(settings.get(SETTING) or "").split()) if settings is not None else ""


def ensure_name(
    parent: QWidget, settings: Any, then: Callable[[], None], *, again: bool = False
) -> QInputDialog | None:
    """Call ``then()`` once the reviewer has a name: at once when the settings hold one,
    else after asking for it in a modal dialog that has the focus (opened, never ``exec``;
    kept in the settings). ``again``: ask even so, with the name kept filled in (Edit >
    Your name...). Cancelling calls nothing. A second ask while the dialog is open is
    dropped. Returns the dialog when one was opened."""
    kept = reviewer_name(settings)
    if kept and not again:
        then()
        return None
    top = parent.window()
    if getattr(top, "_name_dialog", None) is not None:
        return None
    dlg = QInputDialog(top)
    dlg.setWindowTitle("Your name as reviewer")
    dlg.setLabelText(
        (
            "The decisions and replies you make from now on carry this name\n(those "
            "already signed keep theirs)."
            if kept
            else "Before your first decision or reply: your name.\nYour decisions and "
            "replies are signed with your own key and carry it.\nAsked once; Edit \u25b8 Your "
            "name\u2026 changes it."
        )
        + "\n\nYour name:"
    )
    dlg.setTextValue(kept)
    dlg.setOkButtonText("Save name" if kept else "Save name and go on")
    dlg.setWindowModality(Qt.WindowModality.ApplicationModal)
    dlg.setAccessibleName("Your name as reviewer")
    top._name_dialog = dlg  # type: ignore[attr-defined]

    def done(result: int) -> None:
        top._name_dialog = None  # type: ignore[attr-defined]
        name = " ".join(dlg.textValue().split())
        dlg.deleteLater()
        if result == QInputDialog.DialogCode.Accepted and name and settings is not None:
            settings.set(SETTING, name)
            settings.sync()
            # After the dialog has gone and Qt has given the focus back: what ``then`` focuses
            # (the reason field) keeps it.
            QTimer.singleShot(0, lambda: (top.activateWindow(), then()))

    dlg.finished.connect(done)
    dlg.open()
    dlg.activateWindow()
    return dlg


class DecisionPanel(QWidget):
    """Accept / Override for one comment. ``decide(decision, reason)`` fires when the
    reviewer has chosen (an override only once its reason is typed)."""

    decide = Signal(str, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        # (then) -> None: call ``then`` once the reviewer has a name (the view sets it to
        # ``ensure_name`` with its settings; standing alone, nothing is asked).
        self.with_name: Callable[[Callable[[], None]], None] = lambda then: then()
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.state.setTextFormat(Qt.TextFormat.RichText)
        self.state.setAccessibleName("Your decision on this comment")
        self.buttons: dict[str, QPushButton] = {}
        for decision, (key, words) in KEYS.items():
            b = QPushButton(words)
            b.setToolTip(f"{DECISION_WORDS[decision].capitalize()} (key {key})")
            b.clicked.connect(lambda _=False, d=decision: self.choose(d))
            self.buttons[decision] = b
        # Wraps onto a second line in a narrow pane (1.5x scale) instead of widening it.
        row = flow_row(*self.buttons.values())
        self.reason = QLineEdit()
        self.reason.setPlaceholderText(
            "Reason (one line, required to override): Enter records it, Esc cancels"
        )
        self.reason.setMaxLength(1000)
        self.reason.setAccessibleName("Reason for the override")
        self.reason.returnPressed.connect(self._reason_done)
        self.pending: str | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
        lay.setSpacing(3)
        # The buttons first: at 1366 x 768 (1x) the pane under the detail shows them whole
        # without scrolling; the state and the keys' help follow (and scroll when short).
        lay.addWidget(row)
        lay.addWidget(self.state)
        lay.addWidget(self.reason)
        self.verdict = ""
        self.set_enabled(False)

    def set_enabled(self, on: bool, why: str = "") -> None:
        for b in self.buttons.values():
            b.setEnabled(on)
        self.reason.setEnabled(on)
        if not on:
            self.state.setText(html.escape(why))

    def show_comment(self, row: dict[str, Any], history: list[Any], writable: str = "") -> None:
        """Show ``row``'s decision state; ``history``: its decisions, oldest first;
        ``writable``: "" when a decision can be recorded, else why not (in words)."""
        self.pending = None
        self.reason.clear()
        self.reason.setPlaceholderText(
            "Reason (one line, required to override): Enter records it, Esc cancels"
        )
        self.verdict = str(row.get("verdict") or "")
        allowed = allowed_decisions(self.verdict) if self.verdict else ()
        for decision, b in self.buttons.items():
            b.setEnabled(not writable and decision in allowed)
        self.reason.setEnabled(not writable)
        parts = []
        if row.get("needs"):
            why = "; ".join(row["needs"])
            decided = row.get("decision") is not None or row.get("checking")
            head = "Flagged for review" if decided else "Needs your review"
            parts.append(
                f"<b>\u2691 {head}:</b> " + html.escape(why + ("" if why.endswith("?") else "."))
            )
        d = row.get("decision")
        if d is not None:
            why = f": {html.escape(d.reason)}" if d.reason else ""
            parts.append(
                f"<b>Decided:</b> {html.escape(DECISION_WORDS.get(d.decision, d.decision))}"
                f"{why} <small>({html.escape(d.reviewer)}, "
                f"{html.escape(when_words(d.decided_at))}{earlier_words(len(history))})</small>"
            )
        elif row.get("checking"):
            parts.append(f"<i>{html.escape(CHECKING_WORDS)}</i>")
        elif row.get("counted"):
            parts.append("No decision yet.")
        if writable:
            if not row.get("checking"):  # (the checking line says it already)
                parts.append(f"<i>{html.escape(writable)}</i>")
        else:
            no_accept = " (a deletion has no plain accept)" if self.verdict == "deleted" else ""
            parts.append(
                f"<small>Keys in the table: the underlined letter decides{no_accept}; N / P "
                "next / previous comment; Enter the next one needing review.</small>"
            )
        self._said = "<br>".join(parts)
        self.state.setText(self._said)

    def choose(self, decision: str) -> None:
        """Take a decision: an accept (or what the verdict says) at once; an override once
        its reason is typed. The reviewer's name is asked first, in its own dialog, when
        there is none yet (``with_name``)."""
        if not self.buttons[decision].isEnabled():
            return
        self.with_name(lambda: self._choose(decision))

    def _choose(self, decision: str) -> None:
        if not self.buttons[decision].isEnabled():
            return
        if agrees_with_machine(self.verdict, decision):  # an accept in other words: no reason
            self.decide.emit(decision, "")
            return
        self.pending = decision
        self.reason.setPlaceholderText(
            f"Why {DECISION_WORDS[decision]}? One line, then Enter (Esc cancels)"
        )
        self.state.setText(
            f"<b>Overriding to: {html.escape(DECISION_WORDS[decision])}.</b> Type the reason "
            "below (one line), then Enter to record it; Esc cancels."
        )
        self.reason.setFocus()
        self._scroll_to(self.reason)
        if self.reason.text().strip():
            self._reason_done()

    def _scroll_to(self, widget: QWidget) -> None:
        """Bring ``widget`` into view when the panel sits in a scroll area (a short pane)."""
        from PySide6.QtWidgets import QScrollArea

        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        if parent is not None:
            parent.ensureWidgetVisible(widget)

    def _reason_done(self) -> None:
        text = " ".join(self.reason.text().split())
        if self.pending and text:
            decision, self.pending = self.pending, None
            self.decide.emit(decision, text)

    def keyPressEvent(self, event: Any) -> None:
        if event.matches(QKeySequence.StandardKey.Cancel) and self.pending:
            self.pending = None
            self.reason.clear()
            self.state.setText(getattr(self, "_said", ""))
            self.focusNextPrevChild(False)
            return
        super().keyPressEvent(event)
