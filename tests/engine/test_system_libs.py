"""engine.system_libs: the libraries Qt's platform plugin really lacks, found by the dynamic
loader, and the install command for each package manager."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
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
    # on a fresh machine the untouched plugin lacks libraries too: the broken one lacks
    # exactly those and the library no machine has
    baseline = sl.missing_libraries(sl.qt_library_files("xcb"))
    assert sl.missing_libraries(files) == sorted({*baseline, "libxcb-nonex.so.4"})


def test_the_loader_check_agrees_with_qt_itself():
    """Nothing missing for offscreen exactly when Qt really starts offscreen with
    QtWebEngine loaded (a fresh machine: both say no; CI and a desktop: both say yes)."""
    real = sl.qt_library_files("offscreen")
    if not real or shutil.which("ldd") is None:
        pytest.skip("needs Linux, PySide6 and ldd")
    code = (
        "from PySide6 import QtWebEngineWidgets\n"
        "from PySide6.QtGui import QGuiApplication\n"
        "app = QGuiApplication([])\n"
        "print('QT STARTED')\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    started = proc.returncode == 0 and "QT STARTED" in proc.stdout
    assert (sl.missing_libraries(real) == []) == started, proc.stderr[-500:]


def test_startup_problem_is_one_line_with_the_command(tmp_path, monkeypatch):
    root = _broken_plugin(tmp_path)
    monkeypatch.setattr(
        sl, "qt_library_files", lambda platform: [root / "plugins/platforms/libqxcb.so"]
    )
    monkeypatch.setattr(sl, "package_manager", lambda: "apt")
    monkeypatch.setattr(sl, "_apt_available", lambda name: True)
    line = sl.startup_problem({"DISPLAY": ":0"}, also=" (and no display is set here)")
    assert line is not None and "\n" not in line
    assert "xcb platform plugin" in line and "libxcb-nonex.so.4" in line
    # the command comes last, so that it can be copied whole; the note goes before it
    before, _, command = line.partition(". Install them with: ")
    assert before.endswith(" (and no display is set here)")
    assert command.startswith("apt-get install ") or command.startswith("sudo apt-get install ")
    assert "libxcb-nonex4" in command.split()


def test_missing_for_is_the_union_of_the_platforms_with_one_command(monkeypatch):
    monkeypatch.setattr(sl.sys, "platform", "linux")
    files = {"offscreen": [Path("off.so"), Path("web.so")], "xcb": [Path("xcb.so"), Path("web.so")]}
    monkeypatch.setattr(sl, "qt_library_files", lambda platform: files[platform])
    ldd = {
        "off.so": "\tlibfontconfig.so.1 => not found\n",
        "web.so": "\tlibnss3.so => not found\n\tlibc.so.6 => /lib/libc.so.6 (0x1)\n",
        "xcb.so": "\tlibxcb-icccm.so.4 => not found\n\tlibfontconfig.so.1 => not found\n",
    }
    asked = []
    real_missing = sl.missing_libraries

    def missing(paths):
        paths = list(paths)
        asked.extend(p.name for p in paths)
        return real_missing(paths, ldd=lambda p: ldd[p.name])

    monkeypatch.setattr(sl, "missing_libraries", missing)
    monkeypatch.setattr(sl, "package_manager", lambda: "apt")
    monkeypatch.setattr(sl, "_apt_available", lambda name: True)
    monkeypatch.setattr(sl.os, "geteuid", lambda: 1000)
    found = sl.missing_for(["offscreen", "xcb"])
    assert asked == ["off.so", "web.so", "xcb.so"]  # each file asked once
    assert found == (
        ["libfontconfig.so.1", "libnss3.so", "libxcb-icccm.so.4"],
        "sudo apt-get install libfontconfig1 libnss3 libxcb-icccm4",
    )
    monkeypatch.setattr(sl, "missing_libraries", lambda paths: [])
    assert sl.missing_for(["offscreen"]) is None
    monkeypatch.setattr(sl.sys, "platform", "darwin")
    assert sl.missing_for(["cocoa"]) is None


@pytest.mark.parametrize(
    ("display", "addresses"),
    [
        (":0", [(socket.AF_UNIX, "\0/tmp/.X11-unix/X0"), (socket.AF_UNIX, "/tmp/.X11-unix/X0")]),
        (":1.0", [(socket.AF_UNIX, "\0/tmp/.X11-unix/X1"), (socket.AF_UNIX, "/tmp/.X11-unix/X1")]),
        (
            "unix:2",
            [(socket.AF_UNIX, "\0/tmp/.X11-unix/X2"), (socket.AF_UNIX, "/tmp/.X11-unix/X2")],
        ),
        ("localhost:10.0", [(socket.AF_INET, ("localhost", 6010))]),
        ("tcp/example.org:3", [(socket.AF_INET, ("example.org", 6003))]),
        ("not a display", None),
    ],
)
def test_x_display_names_as_libxcb_reads_them(display, addresses):
    assert sl._x_socket_addresses(display) == addresses


def test_a_display_where_no_x_server_answers_is_one_line(monkeypatch):
    monkeypatch.setattr(sl.sys, "platform", "linux")
    with socket.socket() as server:  # a real listener: DISPLAY=127.0.0.1:N is port 6000+N
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert port > 6000
        env = {"DISPLAY": f"127.0.0.1:{port - 6000}"}
        assert sl.display_problem(env) is None
    line = sl.display_problem(env)
    assert line is not None and "\n" not in line
    assert line.startswith(f"DISPLAY is 127.0.0.1:{port - 6000} but no X server answers there")

    def refuse(family, address):
        raise ConnectionRefusedError(111, "Connection refused")

    line = sl.display_problem({"DISPLAY": ":7"}, connect=refuse)
    assert line is not None and "(Connection refused)" in line
    # nothing said when Qt will not use X, or no display is named
    assert sl.display_problem({"DISPLAY": ":7", "QT_QPA_PLATFORM": "offscreen"}, refuse) is None
    assert sl.display_problem({}, connect=refuse) is None
    assert sl.display_problem({"DISPLAY": ":7"}, connect=lambda f, a: None) is None


def test_doctor_names_the_missing_libraries_and_the_command(monkeypatch):
    from engine import doctor

    monkeypatch.setattr(
        doctor,
        "startup_missing",
        lambda environ=None: ("xcb", ["libxcb-icccm.so.4"], "sudo apt-get install libxcb-icccm4"),
    )
    checks = doctor.check_qt()
    assert [c.status for c in checks] == ["FAIL"]
    assert "libxcb-icccm.so.4" in checks[0].detail
    assert checks[0].fix == "sudo apt-get install libxcb-icccm4"
    assert "libxcb-cursor0" not in checks[0].line()


def test_doctor_without_a_display_checks_what_the_window_needs(monkeypatch):
    """With no display the doctor names the xcb plugin's libraries, as the program does
    (it used to check the offscreen set, a smaller list than the program then printed)."""
    from engine import doctor

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    asked = []

    def missing_for(platforms):
        asked.append(list(platforms))
        return ["libxcb-icccm.so.4"], "sudo apt-get install libxcb-icccm4"

    monkeypatch.setattr(sl.sys, "platform", "linux")
    monkeypatch.setattr(sl, "missing_for", missing_for)
    checks = doctor.check_qt()
    assert asked == [["xcb"]]
    assert [c.status for c in checks] == ["FAIL"]
    assert checks[0].detail.startswith("Qt's xcb platform plugin and QtWebEngine need")


def test_doctor_says_when_no_x_server_answers(monkeypatch):
    from engine import doctor

    monkeypatch.setenv("DISPLAY", ":97")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(sl.sys, "platform", "linux")
    monkeypatch.setattr(sl, "missing_for", lambda platforms: None)

    def refuse(family, address):
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(sl, "_connect", refuse)
    checks = doctor.check_qt()
    assert [(c.name, c.status) for c in checks] == [("Qt platform plugin", "FAIL")]
    assert checks[0].detail == "DISPLAY is :97 but no X server answers there (Connection refused)"
    assert "desktop session" in checks[0].fix


def _pytest_as_on_a_fresh_machine(*args: str, **env: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.helpers.pretend_no_qt_libs", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


def test_without_qt_libraries_the_gui_tests_skip_with_one_reason():
    """A fresh machine: pytest-qt would stop the run with an INTERNALERROR; instead each GUI
    test module is skipped unimported, the engine tests run, and one line at the end names
    the libraries and the install command."""
    proc = _pytest_as_on_a_fresh_machine(
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/app/test_app_main.py",
        "tests/app/test_packaging.py",
        "tests/engine/test_vocabulary.py",
        ARL_REQUIRE_QT_TESTS="",
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert "INTERNALERROR" not in out and "Traceback" not in out
    assert re.search(r"\d+ passed, 2 skipped", out), out[-800:]
    summary = [ln for ln in out.splitlines() if ln.startswith("GUI tests (tests/app) skipped")]
    assert summary == [
        "GUI tests (tests/app) skipped: Qt needs system libraries that are missing here: "
        "libxcb-icccm.so.4, libnss3.so. Install them with: sudo apt-get install libxcb-icccm4 "
        "libnss3"
    ]


def test_ci_requires_the_gui_tests():
    proc = _pytest_as_on_a_fresh_machine(
        "-q", "-p", "no:cacheprovider", "tests/app/test_app_main.py", ARL_REQUIRE_QT_TESTS="1"
    )
    assert proc.returncode != 0
    assert "the GUI tests cannot run (ARL_REQUIRE_QT_TESTS): Qt needs system libraries" in (
        proc.stderr + proc.stdout
    )
    assert "passed" not in proc.stdout


# What a stock Debian 12 (bookworm) lacked for Qt's xcb plugin and QtWebEngine (PySide6
# 6.12), found by this module in a fresh debootstrap root; the apt command below installed
# them all there and the program then started.
FRESH_DEBIAN_12 = [
    "libEGL.so.1",
    "libGL.so.1",
    "libX11-xcb.so.1",
    "libXcomposite.so.1",
    "libXdamage.so.1",
    "libXfixes.so.3",
    "libXrandr.so.2",
    "libXtst.so.6",
    "libasound.so.2",
    "libdbus-1.so.3",
    "libfontconfig.so.1",
    "libfreetype.so.6",
    "libgbm.so.1",
    "libglib-2.0.so.0",
    "libgthread-2.0.so.0",
    "libnspr4.so",
    "libnss3.so",
    "libnssutil3.so",
    "libsmime3.so",
    "libxcb-cursor.so.0",
    "libxcb-dri3.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-randr.so.0",
    "libxcb-render-util.so.0",
    "libxcb-render.so.0",
    "libxcb-shape.so.0",
    "libxcb-shm.so.0",
    "libxcb-sync.so.1",
    "libxcb-util.so.1",
    "libxcb-xfixes.so.0",
    "libxcb-xkb.so.1",
    "libxkbcommon-x11.so.0",
    "libxkbcommon.so.0",
    "libxkbfile.so.1",
]


def test_the_fresh_debian_list_gives_the_command_that_installed_it():
    assert sl.install_command(FRESH_DEBIAN_12, "apt", root=False, apt_available=lambda n: True) == (
        "sudo apt-get install libegl1 libgl1 libx11-xcb1 libxcomposite1 libxdamage1 libxfixes3 "
        "libxrandr2 libxtst6 libasound2 libdbus-1-3 libfontconfig1 libfreetype6 libgbm1 "
        "libglib2.0-0 libnspr4 libnss3 libxcb-cursor0 libxcb-dri3-0 libxcb-icccm4 libxcb-image0 "
        "libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-render0 libxcb-shape0 "
        "libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0 "
        "libxkbcommon0 libxkbfile1"
    )


def test_the_same_list_on_arch_names_packages_only():
    """Arch packages by the files they ship (libxcb holds every X protocol extension
    library; xcb-util-wm holds icccm and ewmh; nss and nspr hold their helper libraries):
    no soname is left for the user to look up."""
    command = sl.install_command(FRESH_DEBIAN_12, "pacman", root=True)
    assert "pacman -F" not in command
    assert command.split()[:3] == ["pacman", "-S", "--needed"]
    assert command.split()[3:] == [
        "libglvnd", "libx11", "libxcomposite", "libxdamage", "libxfixes", "libxrandr",
        "libxtst", "alsa-lib", "dbus", "fontconfig", "freetype2", "mesa", "glib2", "nspr",
        "nss", "xcb-util-cursor", "libxcb", "xcb-util-wm", "xcb-util-image",
        "xcb-util-keysyms", "xcb-util-renderutil", "xcb-util", "libxkbcommon-x11",
        "libxkbcommon", "libxkbfile",
    ]  # fmt: skip


def test_rpm_managers_install_by_the_sonames_themselves():
    """dnf and zypper resolve an RPM's automatic soname provides, so every library is named
    exactly (``libxcb-cursor.so.0()(64bit)`` is xcb-util-cursor on Fedora and libxcb-cursor0
    on openSUSE)."""
    for manager in ("dnf", "zypper"):
        command = sl.install_command(FRESH_DEBIAN_12, manager, root=False, machine="x86_64")
        assert command.startswith(f"sudo {manager} install 'libEGL.so.1()(64bit)' ")
        assert command.count("()(64bit)'") == len(FRESH_DEBIAN_12)
    assert "'libnss3.so()'" in sl.install_command(["libnss3.so"], "dnf", root=True, machine="i686")
