"""Starting the desktop program on a machine that cannot show it: one clean line, exit 2,
before any Qt application exists (Qt itself would abort with exit 134)."""

from __future__ import annotations

import pytest

from app import main as app_main
from engine import system_libs


@pytest.fixture
def no_display(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app_main.sys, "platform", "linux")


@pytest.mark.parametrize("argv", [[], ["--smoke-test"]])
def test_without_a_display_one_line_and_exit_2(no_display, capsys, argv, monkeypatch):
    import engine.environment

    monkeypatch.setattr(engine.environment.sys, "platform", "linux")
    assert app_main.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith("agent-review-loop: no display")
    assert "Reinstalling" not in err
    if argv:
        assert "QT_QPA_PLATFORM=offscreen" in err


def test_missing_system_libraries_one_line_and_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(system_libs.sys, "platform", "linux")
    asked = []

    def files(platform):
        asked.append(platform)
        return ["plugin"]

    monkeypatch.setattr(system_libs, "qt_library_files", files)
    monkeypatch.setattr(
        system_libs, "missing_libraries", lambda paths: ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    )
    monkeypatch.setattr(system_libs, "package_manager", lambda: "apt")
    monkeypatch.setattr(system_libs, "_apt_available", lambda name: True)
    assert app_main.main([]) == 2
    err = capsys.readouterr().err.strip()
    assert asked == ["xcb"]
    assert err.count("\n") == 0
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in err
    assert "apt-get install libxcb-icccm4 libxcb-keysyms1" in err


def _missing(monkeypatch, sonames):
    monkeypatch.setattr(system_libs.sys, "platform", "linux")
    monkeypatch.setattr(system_libs, "qt_library_files", lambda platform: ["plugin"])
    monkeypatch.setattr(system_libs, "missing_libraries", lambda paths: sonames)
    monkeypatch.setattr(system_libs, "package_manager", lambda: "apt")
    monkeypatch.setattr(system_libs, "_apt_available", lambda name: True)


@pytest.mark.parametrize("argv", [[], ["--smoke-test"]])
def test_a_fresh_machine_without_a_display_hears_about_the_libraries_first(
    no_display, monkeypatch, capsys, argv
):
    """No display and no Qt libraries (a fresh install over ssh, a container): the libraries
    are named with the command, which comes last on the line so that it can be copied."""
    import engine.environment

    monkeypatch.setattr(engine.environment.sys, "platform", "linux")
    _missing(monkeypatch, ["libglib-2.0.so.0", "libxcb-icccm.so.4"])
    assert app_main.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Reinstalling" not in err
    assert err.startswith(
        "agent-review-loop: Qt's xcb platform plugin and QtWebEngine need system libraries "
        "that are missing: libglib-2.0.so.0, libxcb-icccm.so.4 (and no display is set here"
    )
    assert err.endswith(". Install them with: sudo apt-get install libglib2.0-0 libxcb-icccm4") or (
        err.endswith(". Install them with: apt-get install libglib2.0-0 libxcb-icccm4")
    )


def test_a_display_where_no_x_server_answers_is_one_line_not_a_silent_134(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":97")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    _missing(monkeypatch, [])

    def refuse(family, address):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(system_libs, "_connect", refuse)
    assert app_main.main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "agent-review-loop: DISPLAY is :97 but no X server answers there (No such file or "
        "directory); start it in a desktop session or fix DISPLAY. The arl command works "
        "without one."
    )


def test_the_window_imports_neither_the_run_machinery_nor_numpy(tmp_path):
    """Opening a bundle needs neither: the run defaults (app.settings), the Run view's
    request type and the Suites charts' report import them when a run or a trend needs
    them (about 2 s of a launch before). Nor pydantic: the bundle's members are checked
    once its pages have started (0.25 s of a launch before). A fresh interpreter, as a
    launch has it."""
    import subprocess
    import sys

    probe = (
        "import os, sys; os.environ['QT_QPA_PLATFORM'] = 'offscreen';"
        "from PySide6 import QtWebEngineWidgets;"
        "from PySide6.QtWidgets import QApplication; app = QApplication([]);"
        "from app.window import MainWindow; w = MainWindow();"
        "from app.settings import Settings; s = Settings(); s.preset; s.recent_bundles;"
        "print(sorted(m for m in ('engine.run.start', 'engine.run', 'numpy',"
        " 'engine.suite.report', 'pydantic', 'engine.bundle.schema') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr
    # ... and a run's defaults are still the engine's own
    from app.settings import Settings, defaults
    from engine.run.start import ReviewRequest

    engine_rounds = ReviewRequest.__dataclass_fields__["rounds"].default
    assert defaults()["run/rounds"] == engine_rounds
    assert Settings(tmp_path / "settings.ini").rounds == engine_rounds
