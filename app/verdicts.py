"""The Verdicts view: v1 and v2 side by side, spans coloured by verdict, the comment list.

Renders what the engine wrote into the bundle: verdict items in the ``arl score --json``
shape (offsets in UTF-16 units of each version's body textContent) and the collateral
ranges of v2. Nothing is computed here.

Why this module is long: the banner (every fact about the run in words), the verdict table
model and the two-pane view with its detail panel are one view's parts and change together.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app import bundledata, present
from app.bundledata import BundleData, annotate
from app.changes_view import ChangesView
from app.decisions_panel import review_cell
from app.doc_tools import DocTools
from app.docview import STYLES, DocumentView
from app.fold import Fold, Room
from app.headers import ElidingHeader
from app.inline_changes import KEY, change_cells
from app.jobs import run_in_thread
from app.review_actions import ReviewActions
from engine import vocabulary as vocab
from engine.vocabulary import comment_names, comment_numbers

COLUMNS = (
    "#",
    "Verdict",
    "Quote",
    "Comment",
    "Agent's claim",
    "Claim vs. text",
    "How it was found in v2",
    "Checked against its documents",
    "Review",
)
NOTE_COLUMN = 7  # shown only when a row's stated figures differ or are unverified
REVIEW_COLUMN = 8  # the reviewer's decision, or "needs your review" (app.decisions_panel)
DIFFERS_BG = "#fde8e0"
DIFFERS_FG = "#4a1400"
UNVERIFIED_BG = "#d9d9d9"
# Every span carries its badge: a long document draws those of the blocks on screen as it
# is scrolled, a short one up to a thousand (resources/web/arl-page.js, MAX_ALWAYS).
# The change spans start after the first screen, the re-derivation after them (both are
# Python work: run together they share one interpreter, and their memory peaks add), or
# both after this long, should a pane never answer.
CHECKS_WAIT_MS = 20000
# Unicode bidi controls (UAX #9): first strong isolate, pop directional isolate, and the
# left-to-right mark; written by code point (program strings hold only characters stock
# fonts draw, tests/app/test_app_icons.py).
_FSI, _PDI, _LRM = chr(0x2068), chr(0x2069), chr(0x200E)


DETAIL_LINES = 6  # the comment detail's least height where the documents keep their share
DETAIL_SHORT_LINES = 2  # ... and on a short window (1366 x 768 at 1.5x), where it scrolls
DOCS_SHARE = 0.5  # of the window's height, the two document panes' least (room allowing)


def detail_minimum(detail: QTextBrowser, lines: int = DETAIL_LINES) -> int:
    """``lines`` lines of ``detail``'s font with its frame and document margins, in
    pixels."""
    margin = int(detail.document().documentMargin())
    return lines * detail.fontMetrics().lineSpacing() + 2 * (detail.frameWidth() + margin)


def legend_html(collateral_known: bool = True) -> str:
    chips = []
    for key in ("edited", "untouched", "deleted", "stale_anchor", "collateral"):
        s = STYLES[key]
        chips.append(
            f"<span style='white-space:nowrap'><span style='background:{s.line};"
            f"color:{s.badge_text};font-weight:600'>&nbsp;{s.icon} {html.escape(s.label)}&nbsp;"
            f"</span>&nbsp;{html.escape(s.description)}</span>"
        )
    # What changed inside the text (engine.diff.marks), drawn over the verdict marks.
    chips.append(
        "<span style='white-space:nowrap'><span style='text-decoration:line-through;"
        "color:#5c0c0c;background:#f6e3e3'>&nbsp;struck through&nbsp;</span>&nbsp;deleted "
        "(in v1) &nbsp;<span style='text-decoration:underline;color:#002a57;"
        "background:#e3ecf6'>&nbsp;underlined&nbsp;</span>&nbsp;inserted (in v2)</span>"
    )
    text = " &nbsp;&nbsp; ".join(chips)
    if not collateral_known:
        text += (
            " &nbsp;&nbsp; <i>This bundle does not record which text changed outside "
            "the anchors.</i>"
        )
    return text


def legend_chips() -> tuple[str, str]:
    """The folded legend: (the verdicts' chips alone, rich text for one line; what each
    means, plain text for its tooltip)."""
    chips, tip = [], []
    for key in ("edited", "untouched", "deleted", "stale_anchor", "collateral"):
        s = STYLES[key]
        chips.append(
            f"<span style='background:{s.line};color:{s.badge_text};font-weight:600'>"
            f"&nbsp;{s.icon} {html.escape(s.label)}&nbsp;</span>"
        )
        tip.append(f"{s.icon} {s.label}: {s.description}")
    tip.append("struck through: deleted (in v1); underlined: inserted (in v2)")
    return " &nbsp; ".join(chips), "\n".join(tip)


_RANK = {"ok": 0, "warn": 1, "error": 2}


class _Banner:
    """The banner being written: its level (only ever raised: ok < warn < error) and its
    sentences, in order."""

    def __init__(self) -> None:
        self.level = "ok"
        self.parts: list[str] = []
        # Why the bundle is TAMPERED, one item each (differences in words, files that fail
        # the manifest): said under one headline (``tampered_block``), not once per check.
        self.reasons: list[str] = []
        self.figures = ""  # where the figures shown come from, said after the reasons
        # The folded banner's headline: (rank, phrase), the worst state first (0 TAMPERED,
        # 1 cancelled or failed, 2 changes requested, 3 awaiting review, 4 how it ended).
        self.heads: list[tuple[int, str]] = []

    def head(self, rank: int, phrase: str) -> None:
        self.heads.append((rank, phrase))

    def headline(self) -> str:
        """The states' phrases, worst first, one after the other (plain text)."""
        return " \u00b7 ".join(dict.fromkeys(p for _r, p in sorted(self.heads, key=lambda h: h[0])))

    def raise_to(self, level: str) -> None:
        if _RANK[level] > _RANK[self.level]:
            self.level = level

    def add(self, text: str, level: str = "ok", first: bool = False) -> None:
        self.raise_to(level)
        if first:
            self.parts.insert(0, text)
        else:
            self.parts.append(text)


def _names(data: BundleData) -> dict[str, str]:
    """comment id -> "comment 3", as the table numbers them (``comment_names``)."""
    return comment_names([str(c.get("id")) for c in data.comments_before])


def _reason(data: BundleData) -> str:
    return ": " + html.escape(data.reason.rstrip(". ")) if data.reason else ""


def _status_part(b: _Banner, data: BundleData) -> None:
    """How the run ended, and that it was scripted."""
    status = data.status
    if status == "failed":
        b.head(1, "This run failed")
        b.add(
            "<b>This run failed</b>: "
            + html.escape((data.reason or "no reason given").rstrip(". "))
            + ". The verdicts below cover only what happened before the failure; "
            "metrics that could not be measured say N/A.",
            "error",
        )
    elif status == "cancelled":
        b.head(1, "This run was cancelled before it finished")
        b.add(
            "<b>This run was cancelled</b> before it finished"
            + _reason(data)
            + ". The verdicts cover the versions pushed until then.",
            "warn",
        )
    elif status == "completed" and getattr(data, "external", False):
        b.head(4, "A revision made elsewhere, checked here")
        b.add(
            "<b>A revision made elsewhere</b>, checked here: the agent ran outside this "
            "program, and what it said is read as its claims."
        )
    elif status == "completed":
        b.head(4, f"Run completed with model {data.model}")
        b.add(f"<b>Run completed</b> with model <b>{html.escape(data.model)}</b>{_reason(data)}.")
    else:
        b.add(f"Run status: {html.escape(status)}.", "warn")
    if data.scripted:
        b.add("<b>Scripted demonstration</b>: no real model wrote this revision.", "warn")


def _rederivation_part(b: _Banner, data: BundleData) -> None:
    """What re-deriving every verdict from the bundle's own documents found (or that it
    is still running, or could not run)."""
    rd = data.rederivation
    if rd is not None and rd.differences:
        # In words here; the exact lines (field names, stored/recomputed) are the banner's
        # tooltip, `arl bundle verify` and the bundle (banner_tooltip).
        said = [html.escape(d.plain(_names(data))) for d in rd.differences[:8]]
        lines = "".join(f"<li>{s}</li>" for s in said)
        more = f"<li>and {len(rd.differences) - 8} more</li>" if len(rd.differences) > 8 else ""
        if rd.forged:
            b.reasons.extend(said)
            if len(rd.differences) > 8:
                b.reasons.append(f"and {len(rd.differences) - 8} more differences")
            return
        b.add(  # an engine change a trusted signer vouches for
            f"<b>{html.escape(rd.headline())}</b> What the bundle says, and what its "
            f"documents show:<ul>{lines}{more}</ul>",
            "warn",
            first=True,
        )
    elif rd is not None and rd.forged:
        # Nothing differs, but something could not be checked (a file that does not fit
        # its shape, the files failing the manifest): the engine's verdict is tampered.
        b.reasons.append(html.escape(rd.headline()))
    elif rd is None and not data.rederive_error:
        b.add("<i>Re-deriving every verdict from the documents\u2026</i>")
    elif data.rederive_error:
        b.add(
            "The verdicts could not be re-derived: " + html.escape(data.rederive_error) + ".",
            "warn",
        )


def _checks_part(b: _Banner, data: BundleData) -> None:
    """The declared checks' outcome ("changes requested"), right after TAMPERED: the
    re-derived result once the bundle has been checked (``engine.bundle.scorecard_checks``)."""
    from engine.bundle.scorecard_checks import shown_check_sets

    accepted = data.decisions.accepted_checks() if data.decisions is not None else None
    sets = shown_check_sets(data.checks, getattr(data.rederivation, "checks", None), accepted)
    final = next((s for label, s in sets if label == "Final"), None)
    if final is not None and final.gate().blocked:
        reason = final.gate().reason()
        b.head(2, "Changes requested")
        b.add(
            f"<b>Changes requested:</b> {html.escape(reason)} (the Checks tab shows each "
            "check's output).",
            "error",
            first=True,
        )


def _figures_part(b: _Banner, data: BundleData) -> None:
    """Where the figures shown come from, when they are not the bundle's stated ones."""
    if data.figures_headline:
        b.figures = html.escape(data.figures_headline)


def _signature_part(b: _Banner, data: BundleData) -> None:
    """The bundle's name and signature, first of all."""
    sig = data.signature
    if sig is None:
        return
    # The check mark only for a signer the trusted-keys store names; a valid signature by
    # an unknown key proves nothing about who made it: a neutral mark.
    mark = {"signed": "\u2022", "unsigned": "\u25cb", "bad": "\u26a0"}[sig.state]
    if sig.trusted:
        mark = "\u2714"
    # In words, no fingerprint (the exact line is the banner's tooltip: banner_tooltip).
    line = f"<b>{html.escape(sig.words())}</b>" if sig.bad else html.escape(sig.words())
    b.add(
        f"{_LRM}{bundle_name_html(data)} \u2014 {mark} {line}.",
        "error" if sig.bad else "ok",
        first=True,
    )


def bundle_name_html(data: BundleData) -> str:
    """The bundle as people name it: its document's title and when it ran ("<b>Remote
    work policy</b>, the run of 1 Dec 2026, 00:31 UTC"); the folder name and the run id
    only in the tooltip (``banner_tooltip``)."""
    title = data.named_title  # the manifest's, else the document's first heading
    # The title isolated (FSI ... PDI): a title in Persian or Arabic must not turn the
    # English line around it right to left.
    title = f"{_FSI}{html.escape(title)}{_PDI}" if title else "A document with no title"
    return f"<b>{title}</b>, {html.escape(vocab.run_words(data.manifest))}"


def _file_parts(b: _Banner, data: BundleData) -> None:
    """An older format, files that fail the integrity check."""
    if data.old_format:
        b.add(
            f"<b>Older bundle format</b> ({html.escape(data.format)}): its verdicts carry no "
            "evidence; confidence and notes shown here are re-derived by this program.",
            "warn",
        )
    if data.tampered:
        names = ", ".join(html.escape(n) for n in data.tampered[:12])
        more = f" and {len(data.tampered) - 12} more" if len(data.tampered) > 12 else ""
        b.reasons.append(
            f"these files fail the integrity check (they do not match the manifest): {names}{more}"
        )


def _work_parts(b: _Banner, data: BundleData) -> None:
    """What the agent did and said: no revision, an unusable or missing report, stale
    anchors, no verdicts, the bundle's own problems."""
    status = data.status
    if status in ("completed", "cancelled") and not data.rounds:
        b.add("<b>The agent pushed no revision</b>: v2 is the same as v1.", "warn")
    final_claims = data.claims.get("final") if isinstance(data.claims, dict) else None
    if isinstance(final_claims, dict) and final_claims.get("usable") is False:
        problem = str(final_claims.get("problem") or "no reason given")
        # The plain first clause for people; the parser's detail stays in claims.json.
        b.add(
            "The agent's report could not be used ("
            + html.escape(vocab.plain_reason(problem))
            + "), so no claim is compared with the text.",
            "warn",
        )
    elif final_claims is None and data.verdicts and status != "failed":
        b.add("The agent made no report, so no claim is compared with the text.")
    stale = [v for v in data.verdicts if v.get("verdict") == "stale_anchor"]
    if stale:
        b.add(
            f"{vocab.plural(len(stale), 'comment')} "
            + ("has" if len(stale) == 1 else "have")
            + " a <b>stale anchor</b> (made on another "
            "version, quote not found): left unresolved and not counted in any metric."
        )
    if not data.verdicts:
        b.add("This bundle has no verdicts: nothing was scored.", "warn")
    edited, kinds = vocab.token_edit_items(data.verdicts)
    if kinds:  # docs/verdicts.md, "Token edits"
        b.add(
            f"<b>Token edits:</b> {edited} edited, {html.escape(vocab.token_edits_words(kinds))}"
            " (marked “needs your review” below).",
            "warn",
        )
    if hidden := vocab.hidden_only_words(data.verdicts):  # docs/verdicts.md, "Hidden text"
        b.add(f"<b>Hidden text:</b> {html.escape(hidden)} (marked “needs your review” below).")
    for p in data.problems[:5]:
        b.add(html.escape(p) + ".")


def _outcome_part(b: _Banner, data: BundleData) -> None:
    """Awaiting review or token edits, before how the run ended (the engine's one
    headline, ``engine.vocabulary.outcome_headline``): a run whose comments await review
    never leads with "every actionable comment was resolved". TAMPERED and changes
    requested have their own parts, placed before this one."""
    from engine.bundle.review import review_figures

    dec = data.decisions
    if dec is None or dec.tampered:
        return
    fig = review_figures(data.verdicts, data.comments_before, dec.latest())
    edited, kinds = vocab.token_edit_items(data.verdicts)
    line = vocab.outcome_headline(
        awaiting=fig.awaiting, actionable=fig.actionable, token_edits=len(kinds), edited=edited
    )
    if not line:
        return
    said = (
        "no reviewer decision yet; the machine's word alone for those below"
        if fig.awaiting
        else "only the letter case, spacing or punctuation changed; check each is the fix"
    )
    b.head(3, line)
    b.add(f"<b>{html.escape(line)}</b>: {said}.", "ok" if fig.awaiting else "warn", first=True)


def banner_for(data: BundleData) -> tuple[str, str]:
    """(level, html) for the message above the documents; level: ok, warn, error."""
    b = _banner(data)
    return b.level, " ".join(b.parts)


def banner_headline(data: BundleData) -> str:
    """The folded banner's one phrase (plain text): its states, the worst first
    (TAMPERED, cancelled or failed, changes requested, awaiting review, how it ended)."""
    return _banner(data).headline()


def _banner(data: BundleData) -> _Banner:
    b = _Banner()
    _status_part(b, data)
    _outcome_part(b, data)
    _checks_part(b, data)
    _rederivation_part(b, data)
    _figures_part(b, data)
    _signature_part(b, data)
    _file_parts(b, data)
    _work_parts(b, data)
    _decisions_part(b, data)
    tampered_block(b)
    return b


def tampered_block(b: _Banner) -> None:
    """One headline and one list for everything that makes the bundle TAMPERED, first of
    all; where the figures shown come from after it."""
    if b.reasons:
        b.head(0, "TAMPERED: do not trust what this bundle states")
        items = "".join(f"<li>{r}</li>" for r in b.reasons)
        after = f"<b>{b.figures}</b>" if b.figures else ""
        b.add(
            "<b>TAMPERED: do not trust what this bundle states.</b> What its own files "
            f"show:<ul>{items}</ul>{after}",
            "error",
            first=True,
        )
    elif b.figures:
        b.add(f"<b>{b.figures}</b>", "error", first=True)


def _decisions_part(b: _Banner, data: BundleData) -> None:
    """The reviewer decisions: TAMPERED when they fail their checks, else how many
    actionable comments still await a decision (``engine.bundle.review``)."""
    dec = data.decisions
    if dec is None:
        return
    if dec.tampered:
        b.head(0, "TAMPERED: the reviewer decisions fail their checks")
        b.add(
            "<b>TAMPERED: the reviewer decisions fail their checks</b> and count for nothing: "
            + html.escape(dec.problem_words(_names(data))[0])
            + ".",
            "error",
        )
        return
    # How many await a decision leads the banner (``_outcome_part``).


def banner_tooltip(data: BundleData) -> str:
    """The exact lines behind the banner's words: the bundle's folder and run id, the
    signature with its key fingerprint (``SignatureStatus.line``) and what a fingerprint
    is, and the differences (``Difference.line``: field names, stored and recomputed
    values) as ``arl bundle verify`` prints them."""
    from engine.bundle.signing import FINGERPRINT_MEANS

    run_id = str(data.manifest.get("run_id") or "not recorded")
    out = [f"Bundle: {data.path.name} ({vocab.run_or_check(data.manifest)} id {run_id})"]
    sig = data.signature
    if sig is not None:
        out.append(f"Signature: {sig.line()}")
        if sig.fingerprint:
            out.append(FINGERPRINT_MEANS)
    rd = data.rederivation
    if rd is not None and rd.differences:
        out.extend(d.line() for d in rd.differences[:20])
    return "\n".join(out)


BANNER_STYLE = {
    "ok": "background:#e8f4fb;color:#102a43;border:1px solid #56B4E9;",
    "warn": "background:#fff4e0;color:#3d2600;border:1px solid #E69F00;",
    "error": "background:#fde8e0;color:#4a1400;border:2px solid #D55E00;",
}


class VerdictModel(QAbstractTableModel):
    """The comment rows, read lazily by the view (1,000 rows cost nothing up front)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[dict[str, Any]] = []
        self._bold = QFont()
        self._bold.setBold(True)
        self._italic = QFont()
        self._italic.setItalic(True)

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def text(self, r: int, c: int) -> str:
        row = self.rows[r]
        return [
            f"\u26a0 {row['n']}" if row.get("note") else str(row["n"]),
            present.verdict_label(row["verdict"]),
            row["quote"],
            row["body"],
            present.claim_text(row["claim"]),
            present.agrees_text(row["agrees"]),
            row["method"],
            row.get("note", ""),
            review_cell(row),
        ][c]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        row = self.rows[r]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(r, c).replace("\n", " ")[:300]
        if role == Qt.ItemDataRole.ToolTipRole:
            if c == 0:  # the number is the title; the raw id is secondary
                return f"Comment {row['n']} (id {row['id']})"
            if c == REVIEW_COLUMN and row.get("decision") is not None:
                d = row["decision"]
                return f"Decided by {d.reviewer}, {vocab.when_words(d.decided_at)}" + (
                    f": {d.reason}" if d.reason else ""
                )
            if c == REVIEW_COLUMN and row.get("needs"):
                return "Needs your review: " + "; ".join(row["needs"])
            if c == NOTE_COLUMN and row.get("terms"):  # the words, then the exact terms
                return f"{row['note']}\n\nExactly: {row['terms']}"[:1000]
            return self.text(r, c)[:1000]
        if role == Qt.ItemDataRole.UserRole:
            return row["id"]
        if row.get("note") and c in (0, NOTE_COLUMN):
            if role == Qt.ItemDataRole.BackgroundRole:
                return QColor(DIFFERS_BG)
            if role == Qt.ItemDataRole.ForegroundRole:
                return QColor(DIFFERS_FG)
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        if c == REVIEW_COLUMN and row.get("needs") and row.get("decision") is None:
            if row.get("checking"):
                return None  # "checking...", not yet a call for the reviewer
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        if c == 1 and row.get("unverified"):
            if role == Qt.ItemDataRole.BackgroundRole:
                return QColor(UNVERIFIED_BG)
            if role == Qt.ItemDataRole.ForegroundRole:
                return QColor("#000000")
        if c == 1:
            s = STYLES.get(row["verdict"])
            if role == Qt.ItemDataRole.BackgroundRole:
                return QColor(present.verdict_colour(row["verdict"]))
            if role == Qt.ItemDataRole.ForegroundRole:
                return QColor(s.badge_text if s else "#ffffff")
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
        if role == Qt.ItemDataRole.FontRole:
            if c == 5 and row["agrees"] is False:
                return self._bold
            if c == 6 and row["approximate"]:
                return self._italic
        return None

    def refresh_rows(self, changed: list[int]) -> None:
        for r in changed:
            self.dataChanged.emit(self.index(r, 0), self.index(r, len(COLUMNS) - 1))


class _Cell:
    """``table.item(r, c).text()``, as on a QTableWidget (tests and accessibility)."""

    def __init__(self, text: str):
        self._text = text

    def text(self) -> str:
        return self._text


class VerdictTable(QTableView):
    """One row per comment; the verdict cell carries icon, label and colour."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model_ = VerdictModel(self)
        self.setModel(self.model_)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 10)
        self.setHorizontalHeader(ElidingHeader(self))  # "Comm…" with a tooltip, not "ommen"
        h = self.horizontalHeader()
        h.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # The quote and the comment take the width a larger window gives (they were cut
        # to a few words while the last column stretched).
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # The check's words sit beside the verdict they qualify (logical column 7 stays
        # last for the model and its callers).
        h.moveSection(NOTE_COLUMN, 2)
        h.moveSection(REVIEW_COLUMN, 2)  # the reviewer's decision beside the verdict
        self.setAlternatingRowColors(True)
        self.setAccessibleName("Comments and their verdicts")
        self.ids: list[str] = []
        fm = self.fontMetrics()
        bold = QFont(self.font())
        bold.setBold(True)
        from PySide6.QtGui import QFontMetrics

        bfm = QFontMetrics(bold)
        # Narrow enough that all seven columns fit the half-window table at 1366 px; the
        # quote and comment stretch, and every cell's full text is in the detail pane.
        for c, width in enumerate((4, 16, 17, 20, 12, 16, 16, 40, 18)):
            self.setColumnWidth(
                c, max(fm.averageCharWidth() * width, fm.horizontalAdvance(COLUMNS[c]) + 24)
            )
        # Verdict and agreement cells are short and must never be cut.
        self.setColumnWidth(
            1,
            max(bfm.horizontalAdvance(present.verdict_label(v)) + 20 for v in vocab.VERDICTS),
        )
        self.setColumnWidth(
            5, max(bfm.horizontalAdvance(present.agrees_text(a)) + 20 for a in (True, False, None))
        )
        self.setColumnWidth(REVIEW_COLUMN, bfm.horizontalAdvance("\u2691 needs review") + 20)

    def fill(self, rows: list[dict[str, Any]]) -> None:
        self.ids = [row["id"] for row in rows]
        self.model_.set_rows(rows)
        self.setColumnHidden(NOTE_COLUMN, not any(row.get("note") for row in rows))

    def rowCount(self) -> int:
        return self.model_.rowCount()

    def item(self, r: int, c: int) -> _Cell:
        return _Cell(self.model_.text(r, c))

    def update_method(self, rows: list[dict[str, Any]], changed: list[int]) -> None:
        """Refresh the rows whose re-anchor details arrived."""
        self.model_.refresh_rows(changed)


class VerdictsView(ReviewActions, QWidget):
    """v1 and v2 rendered side by side with verdict-coloured spans and the comment list.

    ``rendered`` fires once both documents show their highlights (after ``show_bundle``).
    """

    rendered = Signal()
    firstScreen = Signal()  # both panes show their first screen with its marks
    commentSelected = Signal(str)
    decided = Signal()  # a reviewer decision was recorded (the other views refresh)
    sendBack = Signal()  # "Send back to the agent..." (the window shows what goes back)
    anotherModel = Signal()  # "Run with another model..." (the window opens the wizard)
    continueReview = Signal()  # "Continue this review..." (the wizard on the last version)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.data: BundleData | None = None
        self.rows: list[dict[str, Any]] = []
        self._pending_views: set[str] = set()
        self._first_due: set[str] = set()  # panes whose first marks are not drawn yet
        self._preloaded: tuple[str, str] | None = None  # documents shown before the bundle
        self.last_highlight: dict[str, Any] = {}

        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner.setAccessibleName("Run status")
        self.legend = QLabel(legend_html())
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)

        self.v1 = DocumentView()
        self.v2 = DocumentView()
        self.v1.setAccessibleName("Version 1, the version the agent was given")
        self.v2.setAccessibleName("Version 2, the agent's last version")
        self.v1_title = QLabel("<b>v1</b> \u2014 the version the agent was given")
        self.v2_title = QLabel("<b>v2</b> \u2014 the agent's last version")
        self.doc_stack = self._make_docs()

        self.table = VerdictTable()
        self.detail = QTextBrowser()
        self.detail.setOpenLinks(False)
        self.detail.setAccessibleName("The selected comment: its verdict, v1 and v2 text")
        self.detail.setPlaceholderText(
            "Select a comment to see its verdict and its v1 and v2 text."
        )
        # Six lines at least where the documents still get their share (the comment's words
        # and the start of its v1/v2 text); two, scrolling, on a short window (fit_detail).
        self.detail.setMinimumHeight(detail_minimum(self.detail))
        side = self._review_side(self.detail)  # decision, thread, next round (ReviewActions)
        self.split = self._make_split(side)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        # Each folds to one line when the documents would have less than their share of
        # the window, with Show all; the reviewer's choice is kept (app.fold).
        self.banner_fold, self.legend_fold = (
            Fold(self.banner, "run status", "banner", self._settings),
            Fold(self.legend, "legend", "legend", self._settings),
        )
        self.legend.setAccessibleName("Legend: what the colours and marks mean")
        chips, tip = legend_chips()  # folded: every verdict's chip, what each means in its tip
        self.legend_fold.set_summary(chips, rich=True, tip=tip)
        self.room = Room(self, (self.banner_fold, self.legend_fold), self.spare_height)
        lay.addWidget(self.banner_fold)
        lay.addWidget(self.legend_fold)
        self.tools = self._make_tools()
        lay.addWidget(self.tools)
        lay.addWidget(self.split, 1)

        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selection())
        self.v1.highlighted.connect(lambda r: self._view_done("v1", r))
        self.v2.highlighted.connect(lambda r: self._view_done("v2", r))
        self.v1.firstDrawn.connect(lambda r: self._first_drawn("v1", r))
        self.v2.firstDrawn.connect(lambda r: self._first_drawn("v2", r))
        self.v1.rendered.connect(lambda ok: ok or self._view_done("v1", {"error": "load"}))
        self.v2.rendered.connect(lambda ok: ok or self._view_done("v2", {"error": "load"}))
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.table.setFocus)
        # A key per decision, only while the table has the focus (typing a reason in the
        # field never takes a decision); Enter moves to the next comment needing review.
        self.table.installEventFilter(self)

    def _make_split(self, side: QWidget) -> QSplitter:
        """The documents over the comment list and ``side`` (its detail and the decision
        panel). The documents get half the window's height where what is under them keeps
        its least height (``share_split``), until the reviewer moves the line between them;
        the decision panel scrolls (``_review_side``)."""
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(self.table)
        bottom.addWidget(side)
        bottom.setStretchFactor(0, 3)
        bottom.setStretchFactor(1, 2)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.doc_stack)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([440, 440])
        bottom.setSizes([820, 520])
        split.setChildrenCollapsible(False)
        self.bottom = bottom
        self.split_chosen = False  # the reviewer moved the line: their sizes are kept
        split.splitterMoved.connect(lambda *_: setattr(self, "split_chosen", True))
        split.installEventFilter(self)
        return split

    # -- room for the documents ---------------------------------------------------------

    def docs_target(self) -> int:
        """The height, in pixels, the document stack should have: ``DOCS_SHARE`` of the
        window's height for the panes, with their titles above them."""
        win = self.window()
        titles = self.v1_title.sizeHint().height() + 2
        if self.docs_split.isVisible() and self.v1.height() > 0:
            titles = max(titles, self.docs_split.height() - min(self.v1.height(), self.v2.height()))
        return round(DOCS_SHARE * (win.height() if win is not None else 0)) + titles

    def bottom_least(self) -> int:
        """The least height, in pixels, of what is under the documents: the comment list,
        the comment's detail (``DETAIL_LINES``) and the decision panel (which scrolls)."""
        return self.bottom.minimumSizeHint().height()

    def bottom_wanted(self) -> int:
        """The height, in pixels, under the documents that shows the comment's detail
        (``DETAIL_LINES``) and the decision panel whole, or ``bottom_least``."""
        whole = (
            self.detail.minimumHeight()
            + self.side_split.handleWidth()
            + self.decision.sizeHint().height()
        )
        return max(self.bottom_least(), whole)

    def spare_height(self) -> int:
        """What the banner and legend may take beyond one line each, in pixels: the split's
        height beyond the documents' share and what shows the detail and the decision panel
        whole (negative when that does not fit). ``app.fold.Room`` shares it: the documents
        and the reviewer's decision come before the rest of the banner's sentences."""
        return (
            self.split.height()
            - self.split.handleWidth()
            - self.bottom_wanted()
            - self.docs_target()
        )

    def share_split(self) -> None:
        """The documents get ``docs_target`` (at least half of the split), the rest goes
        under them, never below its least height; kept as the reviewer set it once they
        move the line."""
        total = sum(self.split.sizes())
        if total <= 0:
            return
        self.fit_detail(total)
        if self.split_chosen:
            return
        docs = max(self.docs_target(), total // 2)
        docs = max(0, min(docs, total - self.bottom_least()))
        if self.split.sizes()[0] != docs:
            self.split.setSizes([docs, total - docs])

    def fit_detail(self, total: int) -> None:
        """The comment's detail keeps ``DETAIL_LINES`` lines where what is under the
        documents still fits beside their share of the split's ``total`` height; else (at
        1366 x 768 and 1.5x the documents had 156 of 512 px) ``DETAIL_SHORT_LINES``, and it
        scrolls, as the decision panel does, so the documents get half the window."""
        self.detail.setMinimumHeight(detail_minimum(self.detail))
        for widget in (self.table, self.panels_scroll):
            widget.setMinimumHeight(0)  # their own least (minimumSizeHint)
        if total - self.docs_target() - self.split.handleWidth() >= self.bottom_least():
            return
        self.detail.setMinimumHeight(detail_minimum(self.detail, DETAIL_SHORT_LINES))
        # the comment list: its header and one row; the decision panel: one line (both scroll)
        line = self.fontMetrics().lineSpacing()
        table = self.table
        table.setMinimumHeight(
            table.horizontalHeader().sizeHint().height()
            + table.verticalHeader().defaultSectionSize()
            + table.horizontalScrollBar().sizeHint().height()
            + 2 * table.frameWidth()
        )
        self.panels_scroll.setMinimumHeight(line + 8)

    def eventFilter(self, obj: Any, event: Any) -> bool:
        from PySide6.QtCore import QEvent

        if obj is getattr(self, "split", None) and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self, self.share_split)  # once the layout has settled
        return super().eventFilter(obj, event)

    def _make_docs(self) -> QStackedWidget:
        """v1 and v2 side by side (page 0) and the changes in one document (page 1)."""
        from app.tracked_layer import TrackedToggle

        self.tracked = TrackedToggle()
        docs = QSplitter(Qt.Orientation.Horizontal)
        for title, view in ((self.v1_title, self.v1), (self.v2_title, self.v2)):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(2)
            lay.addWidget(title)
            if view is self.v2:  # the document's own tracked changes, as a layer
                lay.addWidget(self.tracked)
                self.tracked.toggled.connect(lambda _on: self._paint(("v2",)))
            lay.addWidget(view, 1)
            docs.addWidget(box)
        docs.setSizes([10_000, 10_000])  # equal halves
        self.docs_split = docs
        self.changes = ChangesView()
        stack = QStackedWidget()
        stack.addWidget(docs)
        stack.addWidget(self.changes)
        self.change_cv: Any = None  # the engine's ChangeView of v1 -> v2, once computed
        self.changes.computed.connect(self._changes_computed)
        return stack

    def _make_tools(self) -> DocTools:
        """Side by side or changes, scroll together, find and zoom (``app.doc_tools``)."""
        return DocTools(
            self,
            self.v1,
            self.v2,
            self.doc_stack,
            self.changes,
            rows=lambda: [
                [self.table.model_.text(r, c) for c in range(len(COLUMNS))]
                for r in range(len(self.rows))
            ],
            select_row=self.table.selectRow,
            current_row=lambda: (
                self.table.selectionModel().selectedRows()[0].row()
                if self.table.selectionModel().selectedRows()
                else -1
            ),
        )

    # ---------------------------------------------------------------------------------------

    def show_loading(self, on: bool = True) -> None:
        """Cover both documents with "Loading..." at once while a bundle is read (``on``
        False uncovers what was shown before, when the bundle could not be opened)."""
        for view in (self.v1, self.v2):
            view.set_loading(on)

    def preload(self, v1: str, v2: str) -> None:
        """Start rendering a bundle's two documents before its records are read (the
        window calls it from ``load_bundle``'s ``on_documents``); ``show_bundle`` then keeps
        these pages and paints their marks."""
        self._preloaded = (v1, v2)
        self.v1.show_document(v1, "html", first_part=True)
        self.v2.show_document(v2, "html", first_part=True)

    def preload_failed(self) -> None:
        """The bundle whose documents were preloaded could not be opened after all: the
        panes say so instead of showing documents without their verdicts."""
        if self._preloaded is not None:
            self._preloaded = None
            for view in (self.v1, self.v2):
                view.show_message("This bundle could not be opened.")

    def show_bundle(self, data: BundleData) -> None:
        self.data = data
        # "changes": the engine's change spans of v1 -> v2, painted with the verdicts.
        self._pending_views = {"v1", "v2", "changes"}
        self.last_highlight = {}
        # Pages first: Chromium parses them while Python fills the rest. A bundle's
        # versions are always HTML (a text document comes wrapped in <pre>). Pages the
        # window started while the bundle was read are kept.
        pre, self._preloaded = self._preloaded, None
        if pre is None or pre[0] != data.v1 or pre[1] != data.v2:
            self.v1.show_document(data.v1, "html", first_part=True)
            self.v2.show_document(data.v2, "html", first_part=True)
        self.change_cv = None
        self.tools.link.set_alignment(None)
        # The change spans of v1 -> v2 (the diff, seconds) wait for the first screen of
        # both documents, and the re-derivation (the whole scoring again, minutes of CPU on
        # a long document) for them (CHECKS_WAIT_MS): they would take the CPU from the
        # pages being laid out and the marks being drawn.
        self.changes.set_bundle(data.v1, data.v2, data.rounds, data.kind, hold=True)
        self._first_due = {"v1", "v2"}
        bundledata.hold_checks(data)
        QTimer.singleShot(CHECKS_WAIT_MS, self, lambda: self._release_held(data))
        bundledata.start_checks(data, lambda _r: self._rederived(data))
        self.thread.agent = vocab.agent_words(data.manifest)
        self.thread.set_run(str(data.manifest.get("run_id") or ""))
        self._annotating = data.collateral is None or not data.extended
        if self._annotating:
            self._pending_views.add("annotate")
            run_in_thread(
                lambda: annotate(data),
                lambda r: self._annotated(data, r),
                lambda exc: self._annotate_failed(data, exc),
            )
        level, text = banner_for(data)
        self.banner.setText(text)
        self.banner.setToolTip(banner_tooltip(data))
        # a revision made elsewhere is a check's status, not a run's (no run took place)
        what = vocab.run_or_check(data.manifest)
        self.banner_fold.what = f"{what} status"
        self.banner.setAccessibleName(f"{what.capitalize()} status")
        self.banner_fold.auto = level != "error"  # an error is never folded by itself
        self.banner_fold.set_summary(banner_headline(data))
        self.banner_fold.text_changed()
        self.banner.setStyleSheet(BANNER_STYLE[level] + "padding:6px;border-radius:4px;")
        self.legend.setText(legend_html(data.collateral is not None))
        self.banner_fold.text_changed()
        self.legend_fold.text_changed()
        self.rows = self._rows(data)
        self.tracked.set_bundle(data.source)
        self.table.fill(self.rows)
        self.detail.clear()
        words = vocab.revised_version_words(data.manifest, len(data.rounds))
        self.v2_title.setText(f"<b>v2</b> \u2014 {html.escape(words, quote=False)}")
        self._paint()
        if self.rows:
            self.table.selectRow(0)

    def _paint(self, which: tuple[str, ...] = ("v1", "v2")) -> None:
        v1_spans, v2_spans = self._spans()
        # (the places deleted text stood are v2's own: the changes view shows that text)
        self.changes.set_spans(v1_spans, [sp for sp in v2_spans if not sp.get("place")])
        removed, added = self._change_spans()
        if "v1" in which:
            self.v1.set_highlights(v1_spans + removed)
        if "v2" in which:
            self.v2.set_highlights(v2_spans + added + self.tracked.spans(self.change_cv))

    def _changes_computed(self, cv: Any) -> None:
        """The engine's change spans of v1 -> v2 are in: strike through and underline them
        in the side-by-side panes, and scroll the panes together by their alignment."""
        if self.data is None:
            return
        self.change_cv = cv
        self.tools.link.set_alignment(cv)
        if cv is not None:  # None: they could not be computed (the changes view says so)
            self._pending_views.update(("v1", "v2"))
            self._paint()
            sel = self.table.selectionModel().selectedRows()
            if sel and sel[0].row() < len(self.rows):  # a deleted text's place is known now
                self.detail.setHtml(self._detail_html(self.rows[sel[0].row()]))
        bundledata.release_checks(self.data)  # held until now (show_bundle)
        self._view_done("changes", None)

    def _change_spans(self) -> tuple[list[dict], list[dict]]:
        """The deleted pieces (v1) and inserted pieces (v2) as marks, UTF-16 offsets."""
        removed: list[dict] = []
        added: list[dict] = []
        for i, m in enumerate(self.change_cv.marks if self.change_cv is not None else ()):
            out = removed if m.kind == "deleted" else added
            out.append(
                {
                    "id": f"change-{i}",
                    "kind": "removed" if m.kind == "deleted" else "added",
                    "start": m.start,
                    "end": m.end,
                    "label": "",
                }
            )
        return removed, added

    def show_banner(self, data: BundleData) -> None:
        """The banner for ``data`` as it stands now (after the re-derivation, and again
        after each reviewer decision: the awaiting-review count follows)."""
        level, text = banner_for(data)
        self.banner.setText(text)
        self.banner.setToolTip(banner_tooltip(data))
        self.banner_fold.auto = level != "error"  # an error is never folded by itself
        self.banner_fold.set_summary(banner_headline(data))
        self.banner_fold.text_changed()
        self.banner.setStyleSheet(BANNER_STYLE[level] + "padding:6px;border-radius:4px;")

    def _rederived(self, data: BundleData) -> None:
        """The re-derivation is in: say in the banner what it found."""
        if data is not self.data:
            return
        self.show_banner(data)
        if (
            data.shown_source != "stated"
            or data.row_notes
            or data.decisions is not None
            or any(row.get("checking") for row in self.rows)
        ):
            # The figures shown changed (the engine's re-derived ones, or notes on rows):
            # the table and both documents' marks follow.
            sel = self.table.selectionModel().selectedRows()
            keep = sel[0].row() if sel else 0
            self.rows = self._rows(data)
            self.table.fill(self.rows)
            self._paint()
            if self.rows:
                self.table.selectRow(min(keep, len(self.rows) - 1))

    def _annotated(self, data: BundleData, result: tuple) -> None:
        if data is not self.data:
            return
        collateral, extended = result
        if data.collateral is None:
            data.collateral = collateral
        data.extended = extended
        changed = []
        for r, row in enumerate(self.rows):
            ext = extended.get(row["id"])
            if ext and ext.get("verdict") == row["verdict"]:
                merged = dict(ext)
                merged.update({k: v for k, v in row["item"].items() if v is not None})
                for k in ("confidence", "similarity", "offsets_repaired", "approximate", "note"):
                    merged[k] = ext.get(k)
                row["item"] = merged
                if row["verdict"] != "stale_anchor":
                    row["method"] = present.method_text(merged)
                row["approximate"] = present.is_approximate(merged)
                changed.append(r)
        self.table.update_method(self.rows, changed)
        self.legend.setText(legend_html(True))
        # Only v2 changes: it gains the collateral ranges.
        self._pending_views.add("v2")
        self._pending_views.discard("annotate")
        self._paint(("v2",))
        sel = self.table.selectionModel().selectedRows()
        if sel and sel[0].row() < len(self.rows):
            self.detail.setHtml(self._detail_html(self.rows[sel[0].row()]))

    def _annotate_failed(self, data: BundleData, exc: BaseException) -> None:
        if data is not self.data:
            return
        self.legend.setText(
            legend_html(data.collateral is not None)
            + f" &nbsp; <i>Could not re-read the changes outside anchors: "
            f"{html.escape(str(exc))}</i>"
        )
        self._view_done("annotate", None)

    def _rows(self, data: BundleData) -> list[dict[str, Any]]:
        from engine.bundle.review import actionable_ids, needs_review

        decided = data.decisions.latest() if data.decisions is not None else {}
        counted = set(actionable_ids(data.verdicts, data.comments_before))
        rows = []
        seen = set()
        order = comment_numbers([str(c.get("id")) for c in data.comments_before])
        after_all = len(order)
        for i, item in enumerate(data.verdicts, 1):
            cid = str(item.get("comment_id"))
            n = order.get(cid, after_all + i)
            seen.add(cid)
            c = data.comment(cid) or {}
            quote = (item.get("v1") or {}).get("text") or (c.get("anchor") or {}).get("quote") or ""
            verdict = str(item.get("verdict") or "")
            method = present.method_text(item)
            if verdict == "stale_anchor":
                method = vocab.STALE_METHOD_WORDS
            body = str(c.get("body") or "")
            actionable = c.get("actionable", True) is not False
            if not actionable:
                body = "(remark, not actionable) " + body
            rows.append(
                {
                    "n": n,
                    "id": cid,
                    "verdict": verdict,
                    "quote": quote,
                    "actionable": actionable,
                    "body": body,
                    "claim": item.get("claim"),
                    "agrees": item.get("claim_agrees"),
                    "method": method,
                    "approximate": present.is_approximate(item),
                    "item": item,
                    "note": data.row_notes.get(cid, ""),
                    "terms": data.row_terms.get(cid, ""),
                    "unverified": data.shown_source == "unverified",
                    "needs": needs_review(item),
                    "decision": decided.get(cid),
                    # decisions in the bundle, not checked yet: "checking", not "none yet"
                    "checking": data.decisions_pending,
                    "counted": cid in counted,  # the attribution counts it: awaits a decision
                }
            )
        # "Needs your review" first, then in the comments' own numbers.
        rows.sort(key=lambda r: (not r["needs"], r["n"]))
        return rows

    def _spans(self) -> tuple[list[dict], list[dict]]:
        v1, v2 = [], []
        for row in self.rows:
            item, verdict = row["item"], row["verdict"]
            s = STYLES.get(verdict)
            label = f"{s.icon} {row['n']} {s.label}" if s else str(row["n"])
            if row.get("note"):
                label = f"\u26a0 {label}"
            if row.get("unverified"):
                s = None  # a neutral mark: an unverified verdict is not shown as a finding
            for side, out in (("v1", v1), ("v2", v2)):
                sp = item.get(side)
                if isinstance(sp, dict) and isinstance(sp.get("start"), int):
                    out.append(
                        {
                            "id": row["id"],
                            "kind": verdict if s else "comment",
                            "start": sp["start"],
                            "end": sp["end"],
                            "label": label,
                        }
                    )
            at = self._stood_at(item)
            if at is not None:  # gone from v2: its badge and a caret where it stood
                kind = verdict if s else "comment"
                v2.append(
                    {"id": row["id"], "kind": kind, "start": at, "end": at, "label": label}
                    | {"mark": True, "place": True}
                )
        for i, r in enumerate(self.data.collateral or []):
            # A changed range is painted (dashed underline, the legend explains it); a pure
            # deletion has no text left to paint and gets a thin caret mark instead.
            empty = r["end"] <= r["start"]
            v2.append(
                {
                    "id": f"collateral-{i}",
                    "kind": "collateral",
                    "start": r["start"],
                    "end": r["end"],
                    "label": "",
                    "mark": empty,
                }
            )
        return v1, v2

    def _stood_at(self, item: dict[str, Any]) -> int | None:
        """Where in v2 (UTF-16) the text of a comment gone from v2 stood (the engine's
        ``ChangeView.place_in_b``), once the changes of v1 -> v2 are computed; None for a
        comment found in v2, one never located in v1, or before the changes are in."""
        sp1, sp2 = item.get("v1"), item.get("v2")
        if self.change_cv is None or isinstance(sp2, dict) or not isinstance(sp1, dict):
            return None
        start, end = sp1.get("start"), sp1.get("end")
        if not isinstance(start, int) or not isinstance(end, int):
            return None
        try:
            return int(self.change_cv.place_in_b(start, end))
        except ValueError:  # offsets outside this v1 (the pane says marks are missing)
            return None

    def _first_drawn(self, which: str, result: Any = None) -> None:
        """Pane ``which`` shows its first screen with its marks (``DocumentView.firstDrawn``:
        a long document's first part, or the whole page)."""
        if isinstance(result, dict) and result.get("first"):
            self._refocus((which,))  # the selected comment was picked before its mark was made
        if which in self._first_due:
            self._first_due.discard(which)
            if not self._first_due:
                self.firstScreen.emit()  # said first: the diff below starts a thread
                self.changes.release()  # the re-derivation follows the change spans

    def _view_done(self, which: str, result: Any) -> None:
        self.last_highlight[which] = result
        self._first_drawn(which)  # (a page that failed has no first screen to wait for)
        view = {"v1": self.v1, "v2": self.v2}.get(which)
        if view is not None and view.in_flight > 0:
            return  # a later paint of this pane is on its way: that one counts
        if which in self._pending_views:
            self._pending_views.discard(which)
            if not self._pending_views:
                self._refocus()
                self.rendered.emit()

    def _release_held(self, data: BundleData) -> None:
        """Start what ``show_bundle`` held for the first screen of ``data``, should it not
        come (``CHECKS_WAIT_MS``): the change spans (when ``data`` is still shown) and the
        re-derivation."""
        if data is self.data:
            self.changes.release()
        bundledata.release_checks(data)

    def _refocus(self, which: tuple[str, ...] = ("v1", "v2")) -> None:
        """Mark the selected comment again once the pages (``which``) are painted."""
        rows = self.table.selectionModel().selectedRows()
        if rows and rows[0].row() < len(self.rows):
            cid = self.rows[rows[0].row()]["id"]
            for side in which:
                (self.v1 if side == "v1" else self.v2).focus_span(cid)

    # ---------------------------------------------------------------------------------------

    def select_comment(self, cid: str) -> None:
        for r, rid in enumerate(self.table.ids):
            if rid == cid:
                self.table.selectRow(r)
                return

    def _on_selection(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        row = self.rows[rows[0].row()]
        self.tools.link.hold()
        self.v1.focus_span(row["id"])
        self.v2.focus_span(row["id"])
        self.detail.setHtml(self._detail_html(row))
        self._show_decision(row)
        recorded = self.data.comment(row["id"], after=True) if self.data is not None else None
        self.thread.show_comment(row["id"], recorded or {})
        self.commentSelected.emit(row["id"])

    def _texts_table(self, row: dict[str, Any]) -> str:
        """The detail's v1 / v2 table of the comment's text, changes marked inside it."""
        item = row["item"]
        t1 = (item.get("v1") or {}).get("text")
        t2 = (item.get("v2") or {}).get("text")
        c1, c2 = change_cells(t1, t2)
        if t2 is None:
            gone = "gone from v2" if row["verdict"] == "deleted" else "not found in v2"
            if self._stood_at(item) is not None:
                gone += "; a caret in v2 marks where it stood"
            c2 = f"<i>{gone}</i>"
        return (
            "<table width='100%' cellspacing='0' cellpadding='4' border='1'>"
            "<tr><th align='left' width='50%'>v1 (given to the agent)</th>"
            "<th align='left'>v2 (after the agent)</th></tr><tr><td valign='top'>"
            + (c1 if t1 is not None else "<i>not located in v1</i>")
            + f"</td><td valign='top'>{c2}</td></tr></table>"
            + (KEY if t1 is not None and t2 is not None and t1 != t2 else "")
        )

    def _detail_html(self, row: dict[str, Any]) -> str:
        e = html.escape
        item = row["item"]
        data = self.data
        before = data.comment(row["id"]) or {}
        s = STYLES.get(row["verdict"])
        chip = (
            f"<span style='background:{s.line};color:{s.badge_text};font-weight:600'>"
            f"&nbsp;{s.icon} {e(s.label)}&nbsp;</span>"
            if s
            else e(row["verdict"])
        )
        note = (
            f"<p style='background:{DIFFERS_BG};color:{DIFFERS_FG}' "
            f"title='Exactly: {e(row.get('terms', ''))}'><b>\u26a0 {e(row['note'])}</b></p>"
            if row.get("note")
            else ""
        )
        out = [
            note
            # Named by its number; the raw id only in the tooltip (the title attribute).
            + f"<p><b title='id {e(row['id'])}'>Comment {row['n']}</b>"
            + (
                f" by <span title='{e(str(before.get('author')))}'>"
                f"{e(vocab.author_words(before.get('author')))}</span>"
                if vocab.author_words(before.get("author"))
                else ""
            )
            + f": {e(row['body'])}</p>",
        ]
        claim = (
            f"Agent's claim: <b>{e(present.claim_text(row['claim']))}</b> "
            f"({e(present.agrees_text(row['agrees']))})."
        )
        if row["verdict"] == "stale_anchor":
            # Said once: what it is, why, what to do (vocab.stale_anchor_words). Its
            # method, exact message, note and empty v1/v2 table would each say it again.
            out.append(
                f"<p>Verdict: {chip} \u2014 {e(vocab.stale_anchor_words(item.get('note')))}"
                f"<br>{claim}</p><p><b>{e(vocab.STALE_NEXT_STEP)}</b></p>"
            )
            return "".join(out)
        out.append(
            f"<p>Verdict: {chip} \u2014 {e(present.VERDICT_WORDS.get(row['verdict'], ''))}."
            f"<br>{claim}<br>"
            f"Found in v2 by: {e(row['method'])}.</p>",
        )
        if not row.get("actionable", True):
            out.append(
                "<p><i>A remark, not an actionable comment: it is not counted in the "
                "metrics, and text changed under it counts as changed outside every "
                "anchor.</i></p>"
            )
        if item.get("message"):
            out.append(f"<p><b>{e(vocab.message_sentence(str(item['message'])))}.</b></p>")
        reopen = self.data.reopened.get(row["id"]) if self.data is not None else None
        if reopen and reopen.get("message") != item.get("message"):
            out.append(
                f"<p><b>{e(vocab.message_sentence(str(reopen.get('message', ''))))}.</b> "
                f"<small>(reopened after round {e(str(reopen.get('round', '?')))})</small></p>"
            )
        if item.get("note"):
            out.append(f"<p><i>{e(vocab.note_sentence(item['note']))}</i></p>")
        out.append(self._texts_table(row))
        return "".join(out)
