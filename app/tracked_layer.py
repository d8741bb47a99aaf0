"""The v2 pane's layer of the document's own tracked changes (a revised Word file's
``w:ins``/``w:del``, as Copilot in Word and Google Docs suggestions deliver them), which
the reviewer can toggle.

The program's own diff marks stay the truth; this layer only says which of those edits the
document itself tracked: each tracked insertion outlined with its author, and each edit the
program found that no tracked change accounts for marked "changed without tracking". The
spans come from the engine (``engine.word_review.tracked_layer``, over the bundle's
``tracked_changes.json``); this widget computes nothing. It shows only for a bundle that
stores tracked changes.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox

from engine.vocabulary import plural

#: How each kind of the layer is drawn (``app.docview`` CHANGE_STYLES): never colour alone,
#: each has its own line style and a label on hover.
LAYER_WORDS = "dotted outline: tracked in the document; wavy: changed without tracking"


class TrackedToggle(QCheckBox):
    """ "Show the document's own tracked changes": hidden unless the bundle has them."""

    def __init__(self, parent=None):
        super().__init__("Show the document's own tracked changes", parent)
        self.setAccessibleName("Show the document's own tracked changes")
        self.changes: list[dict[str, Any]] | None = None
        self.setVisible(False)

    def set_bundle(self, bundle: Any) -> None:
        """The opened bundle (``engine.bundle.read.Bundle``) or None."""
        stored = getattr(bundle, "tracked_changes", None)
        self.changes = list(stored.get("changes") or []) if isinstance(stored, dict) else None
        self.setVisible(self.changes is not None)
        if self.changes is None:
            self.setChecked(False)
        else:
            self.setToolTip(
                f"{plural(len(self.changes), 'tracked change')} in the revised Word file. "
                f"{LAYER_WORDS}. The verdicts come from the program's own comparison."
            )

    def spans(self, change_view: Any) -> list[dict[str, Any]]:
        """The layer's marks for the v2 pane when shown, else []; ``change_view``: the
        engine's ``ChangeView`` of the pair (None until computed)."""
        if not self.isChecked() or self.changes is None:
            return []
        from engine.word_review import tracked_layer

        marks = change_view.marks if change_view is not None else ()
        spans, untracked = tracked_layer(self.changes, marks)
        self.setText(
            "Show the document's own tracked changes"
            + (f" ({plural(untracked, 'change')} made without tracking)" if untracked else "")
        )
        return spans
