"""The changes view: one document with what the agent changed, as Word's Compare shows it.

Deleted text is struck through, inserted text underlined (and a moved passage marked
as moved), each with its words in a tooltip and in the legend line, so colour is never
the only cue (WCAG 1.4.1). The comments' anchored spans and their badges are painted on
top. A picker chooses the two versions: v1 to the last version, or one round's push
(v1 to round 1, round 1 to round 2, ...).

Nothing is computed here: the change spans, their places in the merged text and the
alignment of the two versions come from ``engine.diff.marks.change_view`` (run off the UI
thread); this module writes them as HTML (every text escaped) and maps the verdict
spans, which count UTF-16 units of each version's body text, through the engine's
``ChangeView.merged_span``.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.docview import CHANGE_STYLES, DocumentView
from app.jobs import run_in_thread
from engine.vocabulary import error_words

# The merged text is written inside one <pre>, whose first newline the HTML parser drops:
# one is always written after the tag, so the page's text is exactly the merged text.
_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Changes</title><style>"
    "pre{{white-space:{ws};font:15px/1.6 system-ui,sans-serif;max-width:52em;"
    "margin:1em auto;padding:0 1em;color:#1a1a1a}}"
    "del{{text-decoration:line-through 2px {del_line};background:{del_bg};color:#5c0c0c}}"
    "ins{{text-decoration:underline 3px {ins_line};text-underline-offset:3px;"
    "background:{ins_bg};color:#002a57}}"
    "del.m,ins.m{{text-decoration-style:double;text-decoration-color:#006D3C;"
    "background:rgba(0,109,60,.12);color:#00331c}}"
    "</style></head><body><pre>\n{body}</pre></body></html>"
)
WHERE_MS = 80  # scroll events within this time are followed once by the "You are in" line
LEGEND = (
    "<span style='text-decoration:line-through;color:#5c0c0c;background:#f6e3e3'>"
    "&nbsp;struck through&nbsp;</span> deleted &nbsp;&nbsp; "
    "<span style='text-decoration:underline;color:#002a57;background:#e3ecf6'>"
    "&nbsp;underlined&nbsp;</span> inserted &nbsp;&nbsp; "
    "<span style='text-decoration:underline;color:#00331c;background:#e0efe7'>"
    "&nbsp;double line, green&nbsp;</span> moved &nbsp;&nbsp; "
    "badges: the comments, as in the side-by-side view"
)


@dataclass(frozen=True)
class VersionPair:
    """Two versions to compare: their names for people and their HTML to read."""

    label: str
    left: str  # "v1", "round N"
    right: str  # "round N", "final"
    a_html: str
    b_html: str


def version_pairs(v1: str, v2: str, rounds: list[tuple[int, str]]) -> list[VersionPair]:
    """v1 to the last version first, then each round's push in order."""
    pairs = [VersionPair("All changes: v1 to the agent's last version", "v1", "final", v1, v2)]
    prev_name, prev_html = "v1", v1
    for n, doc in sorted(rounds):
        pairs.append(
            VersionPair(
                f"Round {n}: {prev_name} to round {n}", prev_name, f"round {n}", prev_html, doc
            )
        )
        prev_name, prev_html = f"round {n}", doc
    return pairs


def compute(pair: VersionPair) -> tuple[Any, list[Any]]:
    """The engine's change spans for ``pair``, diffed with each version's block edges as
    the verdicts are, and the merged text's headings (``engine.diff.marks.merged_outline``):
    ``(ChangeView, [Heading])``. CPU-bound: run off the UI thread."""
    from engine.diff.marks import change_view, merged_outline
    from engine.text.outline import structure

    a, b = structure(pair.a_html), structure(pair.b_html)
    cv = change_view(a.text, b.text, breaks=(a.breaks, b.breaks))
    return cv, merged_outline(cv, a.headings, b.headings)


def where_words(heads: list[Any], offset: int | None, text: str | None = None) -> str:
    """Where the reader is, for the line above the document: the headings the text at the
    top of the view (merged UTF-16 ``offset``) is under, outermost first ("You are in:
    Policy ▸ Equipment"), a deleted one said so; before the first heading, or with none,
    the start of the document (``text``, the merged text: white space before the first
    heading is under it)."""
    from engine.text.outline import under

    if not heads:
        return "This document has no headings."
    path = under(heads, offset, text) if offset is not None else []
    if not path:
        return "You are at the start, before the first heading."
    names = [f"{h.text} (deleted)" if h.removed else h.text for h in path]
    return "You are in: " + " \u25b8 ".join(names)


def merged_page(cv: Any, kind: str = "html") -> str:
    """The merged text as one page: ``<del>``/``<ins>`` around the changed pieces (every
    text escaped). ``kind`` text keeps spaces as they are; HTML's runs of spaces from its
    source are collapsed, its line breaks kept."""
    parts = []
    marks = iter(cv.marks)
    for piece_kind, text in cv.pieces:
        t = html.escape(text, quote=False)
        if piece_kind == "equal":
            parts.append(t)
            continue
        m = next(marks)
        tag = "del" if piece_kind == "deleted" else "ins"
        words = ("moved from here" if tag == "del" else "moved here") if m.moved else piece_kind
        cls = " class='m'" if m.moved else ""
        parts.append(f"<{tag}{cls} title='{words}'>{t}</{tag}>")
    return _PAGE.format(
        ws="pre-wrap" if kind == "text" else "pre-line",
        del_line=CHANGE_STYLES["removed"]["line"],
        del_bg=CHANGE_STYLES["removed"]["bg"],
        ins_line=CHANGE_STYLES["added"]["line"],
        ins_bg=CHANGE_STYLES["added"]["bg"],
        body="".join(parts),
    )


def merged_spans(
    cv: Any, pair: VersionPair, v1_spans: list[dict], v2_spans: list[dict]
) -> list[dict]:
    """The comments' spans placed in the merged text: a span known on both sides covers
    both its v1 and its v2 text (what was deleted and what replaced it). Spans of v1 count
    only when the pair starts at v1, of v2 only when it ends at the last version."""
    by_id: dict[str, dict] = {}
    sides = []
    if pair.left == "v1":
        sides.append(("a", v1_spans))
    if pair.right == "final":
        sides.append(("b", v2_spans))
    for side, spans in sides:
        for sp in spans:
            if sp.get("kind") == "collateral":
                continue  # the changes themselves are drawn here
            try:
                s, e = cv.merged_span(side, sp["start"], sp["end"])
            except ValueError:
                continue  # outside this version's text: the table still lists it
            old = by_id.get(sp["id"])
            if old is None:
                by_id[sp["id"]] = dict(sp, start=s, end=e)
            else:
                old["start"], old["end"] = min(old["start"], s), max(old["end"], e)
    return sorted(by_id.values(), key=lambda sp: sp["start"])


def _name(version: str) -> str:
    return "the last version" if version == "final" else version


def summary_words(cv: Any, pair: VersionPair) -> str:
    """One plain line: how many places changed, and what the marks are."""
    if cv.identical:
        return f"No change from {_name(pair.left)} to {_name(pair.right)}."
    c = cv.counts()

    def n(k: int, one: str, many: str) -> str:
        return f"{k} {one if k == 1 else many}"

    parts = [n(c["deleted"], "deletion", "deletions"), n(c["inserted"], "insertion", "insertions")]
    if c["moved"]:
        parts.append(n(c["moved"], "moved piece", "moved pieces"))
    line = f"From {_name(pair.left)} to {_name(pair.right)}: " + ", ".join(parts) + "."
    if pair.left != "v1" and pair.right != "final":
        line += " Comment marks are shown on comparisons with v1 or the last version."
    if cv.approximate:
        line += " Part of this comparison is approximate (a long changed passage)."
    return line


class ChangesView(QWidget):
    """The picker, a summary line, the legend and one document with the changes.

    ``computed(cv)`` fires with the engine's ``ChangeView`` of the pair shown (the
    Verdicts view aligns the side-by-side panes with the first one, v1 to final)."""

    computed = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.picker = QComboBox()
        self.picker.setAccessibleName("Which versions to compare")
        self.picker.setToolTip("Compare v1 with the agent's last version, or see one round's push")
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("What changed, in numbers")
        self.legend = QLabel(LEGEND)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setAccessibleName("How changes are marked")
        self.view = DocumentView()
        self.view.setAccessibleName("The document with the changes marked")
        # Where the reader is: the headings above the top of the view, followed as the
        # view scrolls (the engine's outline of the merged text, ``compute``).
        self.where = QLabel()
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        self.where.setWordWrap(True)
        self.where.setAccessibleName("Where you are in the document")
        font = self.where.font()
        font.setBold(True)
        self.where.setFont(font)
        self._where_timer = QTimer(self)
        self._where_timer.setSingleShot(True)
        self._where_timer.setInterval(WHERE_MS)
        self._where_timer.timeout.connect(self._ask_where)
        self.view.page().scrollPositionChanged.connect(lambda _p: self._where_timer.start())
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("Compare:"))
        top.addWidget(self.picker, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addLayout(top)
        # Where the reader is and what changed share a line (at 1.5x scale every line above
        # the document is taken from it); each wraps when long.
        said = QHBoxLayout()
        said.setContentsMargins(0, 0, 0, 0)
        said.setSpacing(12)
        said.addWidget(self.where, 1)
        said.addWidget(self.summary, 1)
        lay.addLayout(said)
        lay.addWidget(self.legend)
        lay.addWidget(self.view, 1)
        self.pairs: list[VersionPair] = []
        self.kind = "html"
        self.cv: Any = None
        self._cache: dict[int, Any] = {}
        self._outlines: dict[int, list[Any]] = {}  # by pair: the merged text's headings
        self._merged = ""  # the merged text shown
        self._spans: tuple[list[dict], list[dict]] = ([], [])
        self._token = 0
        self._shown = -1
        self._held = False
        self.picker.currentIndexChanged.connect(self._pick)

    def set_bundle(
        self, v1: str, v2: str, rounds: list[tuple[int, str]], kind: str, hold: bool = False
    ) -> None:
        """A new bundle: its version pairs in the picker; the first pair is computed at once
        (its alignment links the side-by-side panes), drawn when this view is shown.
        ``hold``: the first pair waits for ``release`` (or for this view to be shown): the
        Verdicts view holds it until its first screen, whose CPU it would take."""
        self.pairs = version_pairs(v1, v2, rounds)
        self.kind = kind
        self._cache = {}
        self._outlines = {}
        self._shown = -1
        self.cv = None
        self._token += 1
        self.picker.blockSignals(True)
        self.picker.clear()
        for p in self.pairs:
            self.picker.addItem(p.label)
        self.picker.setCurrentIndex(0)
        self.picker.blockSignals(False)
        self.summary.setText("Comparing the versions\u2026")
        # The page of the bundle shown before is never left under this one's picker: the
        # view says it is comparing until this bundle's first pair is drawn.
        self.where.setText("")
        self._merged = ""
        self.view.show_message("Comparing the versions\u2026")
        self._held = hold
        if not hold:
            self._compute(0, self._first_in)

    def release(self) -> None:
        """Start the first pair held by ``set_bundle(hold=True)`` (nothing when it was not
        held, or has started)."""
        if self._held:
            self._held = False
            self._compute(0, self._first_in)

    def _first_in(self, cv: Any) -> None:
        """The first pair (v1 to the last version) is in: said to the Verdicts view, and
        drawn when this view is on screen with that pair picked (a bundle opened while the
        changes are shown is drawn here, not only on the next switch to this view)."""
        self.computed.emit(cv)
        if self.isVisible() and self.picker.currentIndex() == 0 and self._shown in (-1, 0):
            self._shown = 0
            self._draw(0)

    def set_spans(self, v1_spans: list[dict], v2_spans: list[dict]) -> None:
        """The comments' spans (UTF-16 offsets of v1 and v2), to paint on top."""
        self._spans = (v1_spans, v2_spans)
        if self._shown >= 0 and self._shown in self._cache:
            self._paint(self._shown)

    def show_current(self) -> None:
        """Draw the pair picked, if not drawn yet (the view became visible)."""
        i = self.picker.currentIndex()
        if i >= 0 and i != self._shown:
            self._pick(i)

    def _compute(self, i: int, then: Callable[[Any], None]) -> None:
        if i in self._cache:
            then(self._cache[i])
            return
        token, pair = self._token, self.pairs[i]

        def done(result: tuple[Any, list[Any]]) -> None:
            if token != self._token:
                return  # another bundle was opened meanwhile
            cv, self._outlines[i] = result
            self._cache[i] = cv
            then(cv)

        def failed(exc: BaseException) -> None:
            if token == self._token:
                words = f"The versions could not be compared: {error_words(exc)}"
                self.summary.setText(words)
                self.view.show_message(words)
                if i == 0:
                    self.computed.emit(None)

        run_in_thread(lambda: compute(pair), done, failed)

    def _pick(self, i: int) -> None:
        if not 0 <= i < len(self.pairs) or not self.isVisible():
            return
        self._shown = i
        if self._held and i == 0:  # shown before it was released: one computation for both
            self._held = False
            self._compute(0, lambda cv: (self.computed.emit(cv), self._draw(0)))
            return
        self._compute(i, lambda _cv: self._draw(i))

    def _draw(self, i: int) -> None:
        if i != self.picker.currentIndex():
            return
        cv, pair = self._cache[i], self.pairs[i]
        self.cv = cv
        self.summary.setText(summary_words(cv, pair))
        self._merged = cv.merged  # once: a long text is joined from its pieces
        self.where.setText(where_words(self.outline(), 0, self._merged))
        self.view.show_document(merged_page(cv, self.kind), "html")
        self._paint(i)

    def outline(self) -> list[Any]:
        """The headings of the merged text shown (``engine.text.outline.Heading``)."""
        return self._outlines.get(self._shown, [])

    def _ask_where(self) -> None:
        if self.cv is not None:
            text = self._merged
            self.view.top_offset(
                lambda off: self.where.setText(where_words(self.outline(), off, text))
            )

    def _paint(self, i: int) -> None:
        cv, pair = self._cache[i], self.pairs[i]
        spans = merged_spans(cv, pair, *self._spans)
        self.view.set_highlights(spans, underline=False)
