"""engine.system_libs: the libraries Qt's platform plugin really lacks, found by the dynamic
loader, and the install command for each package manager."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from engine import system_libs as sl

LDD_OUT = """\
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /x/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f)
\tlibxcb-keysyms.so.1 => not found
"""


def test_missing_libraries_reads_the_loaders_not_found_lines():
    seen = []

    def fake(path):
        seen.append(path)
        return LDD_OUT

    assert sl.missing_libraries([Path("a"), Path("b")], ldd=fake) == [
        "libxcb-icccm.so.4",
        "libxcb-keysyms.so.1",
    ]
    assert seen == [Path("a"), Path("b")]


def test_without_a_loader_to_ask_nothing_is_guessed():
    def no_ldd(path):
        raise FileNotFoundError("ldd")

    assert sl.missing_libraries([Path("a")], ldd=no_ldd) == []


@pytest.mark.parametrize(
    ("soname", "package"),
    [
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libX11-xcb.so.1", "libx11-xcb1"),
        ("libX11.so.6", "libx11-6"),
        ("libgssapi_krb5.so.2", "libgssapi-krb5-2"),
        ("libnss3.so", "libnss3"),
        ("libsmime3.so", "libnss3"),
        ("libglib-2.0.so.0", "libglib2.0-0"),
        ("libbrotlidec.so.1", "libbrotli1"),
        ("libEGL.so.1", "libegl1"),
    ],
)
def test_debian_package_names(soname, package):
    assert sl.apt_package(soname) == package


def test_install_commands_for_each_package_manager():
    missing = ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    always = lambda name: True  # noqa: E731
    assert (
        sl.install_command(missing, "apt", root=False, apt_available=always)
        == "sudo apt-get install libxcb-icccm4 libxcb-keysyms1"
    )
    assert (
        sl.install_command(missing, "apt", root=True, apt_available=always)
        == "apt-get install libxcb-icccm4 libxcb-keysyms1"
    )
    assert sl.install_command(missing, "dnf", root=False, machine="x86_64") == (
        "sudo dnf install 'libxcb-icccm.so.4()(64bit)' 'libxcb-keysyms.so.1()(64bit)'"
    )
    assert sl.install_command(missing, "zypper", root=True, machine="aarch64") == (
        "zypper install 'libxcb-icccm.so.4()(64bit)' 'libxcb-keysyms.so.1()(64bit)'"
    )
    assert (
        sl.install_command(missing, "pacman", root=False)
        == "sudo pacman -S --needed xcb-util-wm xcb-util-keysyms"
    )
    odd = sl.install_command(["libodd.so.3"], "pacman", root=True)
    assert "pacman -F" in odd and "libodd.so.3" in odd
    assert "libxcb-icccm.so.4" in sl.install_command(missing, None)


def test_apt_takes_the_t64_name_where_the_archive_renamed_the_package():
    have = {"libasound2t64"}
    assert (
        sl.install_command(["libasound.so.2"], "apt", root=True, apt_available=have.__contains__)
        == "apt-get install libasound2t64"
    )


@pytest.mark.parametrize(
    ("os_release", "manager"),
    [
        ('ID=debian\nVERSION_ID="12"', "apt"),
        ('ID=linuxmint\nID_LIKE="ubuntu debian"', "apt"),
        ("ID=fedora\nVERSION_ID=40", "dnf"),
        ('ID="rocky"\nID_LIKE="rhel centos fedora"', "dnf"),
        ("ID=arch", "pacman"),
        ("ID=endeavouros\nID_LIKE=arch", "pacman"),
        ('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"', "zypper"),
    ],
)
def test_package_manager_from_os_release(os_release, manager):
    assert sl.package_manager(os_release, which=lambda c: None) == manager


def test_package_manager_falls_back_to_the_commands_on_path():
    assert sl.package_manager("ID=unknown", which=lambda c: c == "zypper" or None) == "zypper"
    assert sl.package_manager("", which=lambda c: None) is None


def test_planned_platform():
    assert sl.planned_platform({"DISPLAY": ":0"}) == "xcb"
    assert sl.planned_platform({"WAYLAND_DISPLAY": "wayland-0"}) == "wayland"
    assert sl.planned_platform({"DISPLAY": ":0", "WAYLAND_DISPLAY": "w"}) == "xcb"
    assert sl.planned_platform({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}) == "offscreen"
    assert sl.planned_platform({"QT_QPA_PLATFORM": "wayland;xcb"}) == "wayland"


def _broken_plugin(tmp_path: Path) -> Path:
    """A copy of the real xcb plugin whose NEEDED entry for libxcb-icccm.so.4 names a library
    no machine has (same length), next to the real Qt libraries (its RUNPATH is
    $ORIGIN/../../lib)."""
    base = sl.pyside_dir()
    if base is None or not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        pytest.skip("needs Linux, PySide6 and ldd")
    plugin = base / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        pytest.skip("no xcb plugin in this PySide6")
    data = plugin.read_bytes()
    assert data.count(b"libxcb-icccm.so.4\x00") == 1
    root = tmp_path / "Qt"
    (root / "plugins" / "platforms").mkdir(parents=True)
    (root / "lib").symlink_to(base / "Qt" / "lib")
    target = root / "plugins" / "platforms" / "libqxcb.so"
    target.write_bytes(data.replace(b"libxcb-icccm.so.4\x00", b"libxcb-nonex.so.4\x00"))
    return root


def test_the_real_loader_names_what_a_plugin_lacks(tmp_path):
    root = _broken_plugin(tmp_path)
    files = sl.qt_library_files("xcb", qt_root=root)
    assert files and files[0].name == "libqxcb.so"
    assert sl.missing_libraries(files) == ["libxcb-nonex.so.4"]
    # the untouched plugin lacks nothing on this machine (the test suite's own Qt runs)
    real = sl.qt_library_files("offscreen")
    assert real and sl.missing_libraries(real) == []


def test_startup_problem_is_one_line_with_the_command(tmp_path, monkeypatch):
    root = _broken_plugin(tmp_path)
    monkeypatch.setattr(
        sl, "qt_library_files", lambda platform: [root / "plugins/platforms/libqxcb.so"]
    )
    monkeypatch.setattr(sl, "package_manager", lambda: "apt")
    monkeypatch.setattr(sl, "_apt_available", lambda name: True)
    line = sl.startup_problem({"DISPLAY": ":0"})
    assert line is not None and "\n" not in line
    assert "xcb platform plugin" in line and "libxcb-nonex.so.4" in line
    assert "apt-get install libxcb-nonex4" in line


def test_doctor_names_the_missing_libraries_and_the_command(monkeypatch):
    from engine import doctor

    monkeypatch.setattr(
        doctor,
        "startup_missing",
        lambda env: ("xcb", ["libxcb-icccm.so.4"], "sudo apt-get install libxcb-icccm4"),
    )
    checks = doctor.check_qt()
    assert [c.status for c in checks] == ["FAIL"]
    assert "libxcb-icccm.so.4" in checks[0].detail
    assert checks[0].fix == "sudo apt-get install libxcb-icccm4"
    assert "libxcb-cursor0" not in checks[0].line()
