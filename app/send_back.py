"""Send back to the agent: the next round of the opened bundle, from the Verdicts view.

The engine decides what goes back (``engine.bundle.sendback.send_back``: the comments still
open or overridden, each override's reason word for word in its thread, re-anchored on the
last version). The dialog says what goes back and what does not, shows the brief, and offers:

- **Start the next round…**: the setup wizard opens on the last version with those
  comments (the model page as last used);
- **Copy the brief** / **Save for another agent…**: for an agent that runs elsewhere, the
  brief as text, or a folder with the document, ``comments.json`` and ``brief.txt``; for a
  Word review also ``document.docx``, the last version as a Word file with the brief as a
  reply on each comment sent back (``engine.bundle.sendback.next_round_in_word``), from the
  run's Word revision beside the bundle or the Word file chosen with **Word file…**.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.vocabulary import plural


def plan_for(data: Any) -> Any:
    """The engine's plan for ``data`` (an ``app.bundledata.BundleData`` whose checks ran);
    raises ValueError, in words, when it cannot be sent back."""
    if data.rederivation is None or data.decisions is None:
        raise ValueError("The bundle is still being checked; try again in a moment.")
    if data.untrustworthy:
        raise ValueError("This bundle fails its checks: nothing is sent back from it.")
    from engine.bundle.review import review_figures
    from engine.publish.published import review_gate

    fig = review_figures(data.verdicts, data.comments_before, data.decisions.latest())
    gate = review_gate(fig.awaiting, fig.actionable, "sending back")
    if gate:  # the setting "Require a complete review" (the Published tab)
        raise ValueError(gate[:1].upper() + gate[1:] + ".")
    from engine.threads import send_back_with_replies  # with the workspace's replies

    return send_back_with_replies(data.source, data.decisions.latest())


class SendBackDialog(QDialog):
    """What goes back, the brief, and the three ways on. ``start_round(plan)`` is called
    for "Start the next round…" (the window opens the wizard)."""

    def __init__(self, plan: Any, start_round: Callable[[Any], None], parent: QWidget | None):
        super().__init__(parent)
        self.plan = plan
        self.setWindowTitle("Send back to the agent")
        self.resize(760, 520)
        n, r = len(plan.comments), len(plan.reasons)
        said = (
            f"<b>{plural(n, 'comment')} go{'es' if n == 1 else ''} back</b> to the agent on "
            "the last version" + (f", {r} with your reason word for word." if r else ".")
        )
        if plan.left:  # one line each: the reason can be a sentence
            said += (
                "<br>Not sent again:<ul style='margin:0'>"
                + "".join(f"<li>{html.escape(line)}</li>" for line in plan.left_lines())
                + "</ul>"
                + html.escape(plan.replied_words().strip())
            )
        if plan.settled:
            said += "<br>" + html.escape(plan.settled_words())
        if plan.unplaced:
            said += "<br>" + html.escape(plan.unplaced_words())
        self.summary = QLabel(said)
        self.summary.setWordWrap(True)
        self.brief = QPlainTextEdit(plan.brief())
        self.brief.setReadOnly(True)
        self.brief.setAccessibleName("The brief for the agent")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.start_btn = QPushButton("&Start the next round\u2026")
        self.start_btn.setEnabled(n > 0)
        self.copy_btn = QPushButton("&Copy the brief")
        self.save_btn = QPushButton("Save for &another agent\u2026")
        self.word_btn = QPushButton("&Word file\u2026")
        self.word_btn.setToolTip(
            "The last version as a Word file (the agent's revised .docx): the saved folder "
            "then holds a Word copy with the brief as a reply on each comment sent back"
        )
        self.word_path = _known_word_file(plan)
        for b in (self.start_btn, self.copy_btn, self.save_btn, self.word_btn):
            buttons.addButton(b, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.start_btn.clicked.connect(lambda: (self.accept(), start_round(plan)))
        self.copy_btn.clicked.connect(self.copy_brief)
        self.save_btn.clicked.connect(self.ask_folder)
        self.word_btn.clicked.connect(self.ask_word_file)
        self.status = QLabel()
        self.status.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.brief, 1)
        lay.addWidget(self.status)
        lay.addWidget(buttons)
        if self.word_path is not None:
            self.status.setText(
                f"A Word copy is saved too, from {html.escape(self.word_path.name)}."
            )

    def ask_word_file(self) -> None:
        from app.word_copy import WORD_FILTER

        start = str(self.word_path.parent) if self.word_path else ""
        dlg = QFileDialog(self, "The last version as a Word file", start, WORD_FILTER)
        dlg.setFileMode(QFileDialog.FileMode.ExistingFile)
        dlg.fileSelected.connect(self.use_word_file)
        self._dialog = dlg
        dlg.open()

    def use_word_file(self, path: str) -> None:
        self.word_path = Path(path) if path else None
        if self.word_path is not None:
            self.status.setText(
                f"A Word copy is saved too, from {html.escape(self.word_path.name)}."
            )

    def copy_brief(self) -> None:
        QApplication.clipboard().setText(self.plan.brief())
        self.status.setText("The brief is on the clipboard: paste it into the agent.")

    def ask_folder(self) -> None:
        dlg = QFileDialog(self, "Folder for the next round")
        dlg.setFileMode(QFileDialog.FileMode.Directory)
        dlg.fileSelected.connect(self.save_to)
        self._dialog = dlg
        dlg.open()

    def save_to(self, folder: str) -> None:
        """Write the document, ``comments.json`` and ``brief.txt`` into ``folder``."""
        from engine.bundle.sendback import write_next_round

        if not folder:
            return
        try:
            word = self.word_path.read_bytes() if self.word_path else None
            paths = write_next_round(self.plan, Path(folder), word=word)
        except FileExistsError as exc:
            self.status.setText(f"{exc}: choose an empty folder.")
            return
        except OSError as exc:
            self.status.setText(f"Could not write {folder}: {exc.strerror or exc}")
            return
        except ValueError as exc:  # the Word file is not the last version
            name = self.word_path.name if self.word_path else "the Word file"
            self.status.setText(
                f"Nothing was written: {html.escape(name)}: {html.escape(str(exc))}."
            )
            return
        names = ", ".join(p.name for p in paths)
        self.status.setText(f"Wrote {names} to {folder}.")


def _known_word_file(plan: Any) -> Path | None:
    """The run's Word revision beside its bundle (``engine.word_revision.revision_path``),
    when there is one."""
    from engine.word_revision import revision_path

    bundle = getattr(plan, "bundle_path", None)
    if bundle is None:
        return None
    path = revision_path(bundle)
    return path if path.is_file() else None
