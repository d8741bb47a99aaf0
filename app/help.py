"""Help: "How to read the verdicts" (a short page built from ``engine.vocabulary``, so its
words are the ones every view uses) and the README's sections on disk."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

from engine import vocabulary as vocab


def reading_help_html() -> str:
    """The page: the verdicts, the agent's claims, the five metrics, and how they relate."""
    e = html.escape
    out = [
        "<h2>How to read the verdicts</h2>",
        "<p>The agent revised v1 into v2 and says which comments it addressed. The program "
        "does not take its word for it: every comment's quoted text is found again in v2, "
        "and the comment gets a <b>verdict</b> from the text itself.</p>",
        "<table cellpadding='4'>",
    ]
    for v in vocab.VERDICTS:
        out.append(
            f"<tr><td><b>{e(vocab.VERDICT_ICONS.get(v, ''))} {e(vocab.VERDICT_LABELS[v])}"
            f"</b></td><td>{e(vocab.VERDICT_MEANINGS[v])}</td></tr>"
        )
    out.append("</table>")
    out.append(
        "<p>In the Verdicts tab each verdict has its own colour <i>and</i> underline style "
        "and a numbered badge; text the agent changed outside every comment has a dashed "
        "underline. Select a comment in the table to see its v1 and v2 text and thread.</p>"
    )
    claims = ", ".join(f"<i>{e(w)}</i>" for w in vocab.CLAIM_WORDS.values())
    out.append(
        "<h3>The agent's claim</h3><p>The agent's report says, for each comment, one of: "
        f"{claims}. The Verdicts table puts the claim beside the verdict and says whether "
        "the two agree. A comment claimed as addressed whose anchored text is unchanged is "
        "reopened.</p>"
    )
    out.append("<h3>The five metrics</h3><table cellpadding='4'>")
    for name in vocab.METRIC_NAMES:
        out.append(
            f"<tr><td><b>{e(vocab.METRIC_TITLES[name])}</b></td>"
            f"<td>{e(vocab.METRIC_MEANINGS[name])}</td></tr>"
        )
    out.append(
        "</table><p>A metric that cannot be measured says <b>N/A</b> and why; it is never "
        "shown as a zero.</p>"
    )
    return "".join(out)


class ReadingHelp(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("How to read the verdicts")
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.setHtml(reading_help_html())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser)
        lay.addWidget(buttons)
        self.resize(640, 560)


def readme_path() -> Path | None:
    """The project's README.md beside the package (source installs), or None."""
    p = Path(__file__).resolve().parent.parent / "README.md"
    return p if p.is_file() else None


def open_readme() -> bool:
    """Open the README in the desktop's viewer for Markdown; False when it is not there."""
    p = readme_path()
    if p is None:
        return False
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(p)))
