"""One picker for an evidence bundle, whatever its form: a bundle folder, a ``.zip``, or the
``manifest.json`` inside a folder. Used by the Start tab, File > Open and Compare.

A plain file dialog cannot choose a folder and a file in one mode, so this one is Qt's own
dialog (the same on every desktop) in existing-file mode whose Open button also accepts a
selected folder that holds a ``manifest.json``, or the folder it is showing when that is a
bundle, instead of going into it. ``bundle_path_from_pick`` turns what was picked into the
bundle's path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QGridLayout, QLabel, QWidget

MANIFEST = "manifest.json"
HINT = "Choose a bundle folder, a bundle .zip, or the manifest.json inside a bundle folder"


def bundle_path_from_pick(picked: str) -> Path:
    """What the bundle picker returned -> the bundle: a picked ``manifest.json`` means its
    folder; anything else (a ``.zip``, a folder) is the bundle itself."""
    p = Path(picked)
    return p.parent if p.name == MANIFEST else p


def is_bundle_folder(path: Path) -> bool:
    return path.is_dir() and (path / MANIFEST).is_file()


class BundlePicker(QFileDialog):
    """``bundlePicked`` is not a signal: ``on_pick(Path)`` is called with the bundle's path
    (a folder or a zip) once, when the user opens one."""

    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        start_dir: str,
        on_pick: Callable[[Path], None],
    ):
        super().__init__(parent, title, start_dir, "Evidence bundles (*.zip manifest.json)")
        self._on_pick = on_pick
        self.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        self.setFileMode(QFileDialog.FileMode.ExistingFile)
        self.setLabelText(QFileDialog.DialogLabel.Accept, "&Open bundle")
        self.setLabelText(QFileDialog.DialogLabel.FileName, "Bundle:")
        self.setToolTip(HINT)
        self.hint = QLabel(HINT + ".")
        self.hint.setWordWrap(True)
        grid = self.layout()
        if isinstance(grid, QGridLayout):  # Qt's own dialog: a row under its buttons
            grid.addWidget(self.hint, grid.rowCount(), 0, 1, grid.columnCount())
        self.resize(820, 500)

    def _chosen_folder(self) -> Path | None:
        """A bundle folder the Open button means: the selected entry, else the folder shown."""
        for picked in self.selectedFiles():
            p = Path(picked)
            if is_bundle_folder(p):
                return p
        here = Path(self.directory().absolutePath())
        typed = [Path(p) for p in self.selectedFiles() if Path(p) != here]
        if not typed and is_bundle_folder(here):
            return here
        return None

    def accept(self) -> None:
        folder = self._chosen_folder()
        if folder is not None:
            self.done(QFileDialog.DialogCode.Accepted)
            self._on_pick(folder)
            return
        super().accept()

    def _file_selected(self, picked: str) -> None:
        self._on_pick(bundle_path_from_pick(picked))


def pick_bundle(
    parent: QWidget, title: str, start_dir: str, on_pick: Callable[[Path], None]
) -> BundlePicker:
    """Open the picker (window-modal, ``open()``) and return it (keep a reference)."""
    dlg = BundlePicker(parent, title, start_dir, on_pick)
    dlg.fileSelected.connect(dlg._file_selected)
    dlg.open()
    return dlg
