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
