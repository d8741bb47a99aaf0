"""The setup wizard's declared checks (docs/checks.md): a checks file the reviewer chose,
read by the engine (``engine.checks.config.load_checks``; a bad file is its one line here
and the page cannot go on), and the user's own choice to let its commands run, kept in the
settings (``checks/allow_commands``), never taken from the file. The commands a run will
execute are listed here, before it starts (``engine.checks.runner.planned_commands``).
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)


class ChecksBox(QGroupBox):
    """The checks file, the commands permission and what will run."""

    changed = Signal()

    def __init__(self, settings: Any = None, parent: Any = None):
        super().__init__("Declared checks (optional)", parent)
        self.settings = settings
        self.file = QLineEdit()
        self.file.setPlaceholderText("A checks file (TOML): placeholders, links, sections...")
        self.file.setAccessibleName("Checks file")
        self.browse = QPushButton("C&hoose\u2026")
        self.allow = QCheckBox("Let the checks' &commands run on this computer")
        self.allow.setToolTip(
            "A checks file can name programs to run on each version (a style checker such "
            "as Vale). They run only if you tick this: never because a file asks. They run "
            "without a shell and without your API key. (CLI: --allow-commands)"
        )
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAccessibleName("What the checks file declares")
        self.commands = QLabel()  # plain text: the argument lists come from the file
        self.commands.setTextFormat(Qt.TextFormat.PlainText)
        self.commands.setWordWrap(True)
        self.commands.setStyleSheet("font-family: monospace;")
        self.commands.setAccessibleName("The commands the run will execute")
        row = QHBoxLayout()
        row.addWidget(self.file, 1)
        row.addWidget(self.browse)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.allow)
        lay.addWidget(self.status)
        lay.addWidget(self.commands)
        self.config: Any = None
        self.problem = ""
        if settings is not None:
            self.file.setText(str(settings.get("checks/file") or ""))
            self.allow.setChecked(bool(settings.get("checks/allow_commands")))
        self.file.editingFinished.connect(self.reload)
        self.allow.toggled.connect(lambda _on: self._say())
        self.browse.clicked.connect(self._ask)
        self.reload()

    def _ask(self) -> None:
        dialog = QFileDialog(self, "Choose a checks file")
        dialog.setNameFilters(["Checks files (*.toml)", "All files (*)"])
        dialog.fileSelected.connect(lambda p: (self.file.setText(p), self.reload()))
        self._dialog = dialog
        dialog.open()

    def reload(self) -> None:
        """Read the file named (nothing named: no checks)."""
        from engine.checks.config import load_checks
        from engine.models import InputError

        path = self.file.text().strip()
        self.config, self.problem = None, ""
        if path:
            try:
                self.config = load_checks(path)
            except InputError as exc:
                self.problem = str(exc)
        self._say()

    @property
    def ok(self) -> bool:
        """No file, or one the engine reads."""
        return not self.problem

    def _say(self) -> None:
        from engine.checks.runner import planned_commands
        from engine.vocabulary import declared_check_title

        commands: list[str] = []
        if self.problem:
            self.status.setText(
                f"<b>This checks file cannot be used:</b> {html.escape(self.problem)}"
            )
        elif self.config is None or self.config.empty:
            self.status.setText("No declared checks: the verdicts alone decide.")
        else:
            names = ", ".join(declared_check_title(n) for n in self.config.check_names())
            text = f"Checks on every version: {html.escape(names)}."
            commands = planned_commands(self.config, self.allow.isChecked())
            if commands:
                text += "<br>" + (
                    "These commands will run on each version:"
                    if self.allow.isChecked()
                    else "These commands will <b>not</b> run (their checks read UNVERIFIED):"
                )
            self.status.setText(text)
        self.commands.setText("\n".join(commands))
        self.commands.setVisible(bool(commands))
        self.changed.emit()

    def store(self) -> None:
        """Keep the choices in the settings (the file's path and the permission)."""
        if self.settings is not None:
            self.settings.set("checks/file", self.file.text().strip())
            self.settings.set("checks/allow_commands", self.allow.isChecked())
