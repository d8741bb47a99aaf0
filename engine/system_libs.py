"""Which system libraries Qt really lacks on this machine, and the command that installs them.

Qt's own message when its xcb platform plugin cannot load ("xcb-cursor0 or libxcb-cursor0 is
needed ... Reinstalling the application may fix this problem") names one library whatever is
missing and then aborts the process. Before any Qt import, this module resolves the shared
library dependencies of the plugin the program is about to use (and of QtWebEngine) exactly
as the dynamic loader would, by asking the loader itself (``ldd``, i.e. ``ld.so --list``,
which follows NEEDED entries, RUNPATH/RPATH, ``LD_LIBRARY_PATH`` and the ld.so cache
recursively), and turns the ``not found`` entries into one line with the install command of
the machine's package manager (apt, dnf, pacman or zypper).

Pure standard library; never imports PySide6 (the PySide6 folder is found with
``importlib.util.find_spec``, which does not execute the package).

    missing_libraries(paths, ldd=None) -> list[str]          # sorted sonames, e.g. libxcb-icccm.so.4
    qt_library_files(platform) -> list[Path]                 # plugin + QtWebEngineCore
    planned_platform(environ) -> str                         # "xcb", "wayland", "offscreen", ...
    package_manager(os_release, which) -> str | None         # "apt" | "dnf" | "pacman" | "zypper"
    install_command(sonames, manager, ...) -> str
    startup_missing(environ=None) -> (platform, sonames, command) | None
    startup_problem(environ=None) -> str | None              # the one line, or None when all is there
"""

from __future__ import annotations

import importlib.util
import os
import platform as _platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$")

# Debian/Ubuntu package names that do not follow the shared-library naming rule
# (Debian Policy 8.1: soname "libfoo.so.N" -> package "libfooN", "libfoo-N" when the name
# ends in a digit).
_APT_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libgmodule-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libbrotlidec.so.1": "libbrotli1",
    "libbrotlienc.so.1": "libbrotli1",
    "libbrotlicommon.so.1": "libbrotli1",
    "libnssutil3.so": "libnss3",
    "libsmime3.so": "libnss3",
    "libssl3.so": "libnss3",
    "libplc4.so": "libnspr4",
    "libplds4.so": "libnspr4",
    "libxcb-ewmh.so.2": "libxcb-ewmh2",
}

# Arch Linux packages by soname stem (the part before ".so").
_PACMAN = {
    "libxcb-icccm": "xcb-util-wm",
    "libxcb-ewmh": "xcb-util-wm",
    "libxcb-keysyms": "xcb-util-keysyms",
    "libxcb-cursor": "xcb-util-cursor",
    "libxcb-image": "xcb-util-image",
    "libxcb-render-util": "xcb-util-renderutil",
    "libxcb-util": "xcb-util",
    "libxkbcommon": "libxkbcommon",
    "libxkbcommon-x11": "libxkbcommon-x11",
    "libX11": "libx11",
    "libX11-xcb": "libx11",
    "libXext": "libxext",
    "libXfixes": "libxfixes",
    "libXcomposite": "libxcomposite",
    "libXdamage": "libxdamage",
    "libXrandr": "libxrandr",
    "libXtst": "libxtst",
    "libxkbfile": "libxkbfile",
    "libxshmfence": "libxshmfence",
    "libGL": "libglvnd",
    "libEGL": "libglvnd",
    "libOpenGL": "libglvnd",
    "libGLX": "libglvnd",
    "libgbm": "mesa",
    "libfontconfig": "fontconfig",
    "libfreetype": "freetype2",
    "libnss3": "nss",
    "libnssutil3": "nss",
    "libsmime3": "nss",
    "libnspr4": "nspr",
    "libplc4": "nspr",
    "libplds4": "nspr",
    "libdbus-1": "dbus",
    "libasound": "alsa-lib",
    "libglib-2.0": "glib2",
    "libgobject-2.0": "glib2",
    "libgio-2.0": "glib2",
    "libexpat": "expat",
    "libbrotlidec": "brotli",
    "libbrotlicommon": "brotli",
    "libudev": "systemd-libs",
    "libgssapi_krb5": "krb5",
    "libwayland-client": "wayland",
    "libwayland-cursor": "wayland",
    "libwayland-egl": "wayland",
}

_MANAGERS = {
    # os-release ID or ID_LIKE word -> package manager
    "debian": "apt",
    "ubuntu": "apt",
    "fedora": "dnf",
    "rhel": "dnf",
    "centos": "dnf",
    "arch": "pacman",
    "suse": "zypper",
    "opensuse": "zypper",
}


def pyside_dir() -> Path | None:
    """The installed PySide6 package folder (not imported), or None."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    frozen = getattr(sys, "_MEIPASS", None)  # a PyInstaller build: Qt sits beside it
    if frozen and (Path(frozen) / "PySide6").is_dir():
        return Path(frozen) / "PySide6"
    return Path(spec.origin).parent


def planned_platform(environ: Mapping[str, str] | None = None) -> str:
    """The Qt platform plugin Qt will load: the first of ``QT_QPA_PLATFORM`` when set, else
    ``wayland`` in a Wayland session without X, else ``xcb``."""
    env = os.environ if environ is None else environ
    chosen = (env.get("QT_QPA_PLATFORM") or "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY"):
        return "wayland"
    return "xcb"


def qt_library_files(platform: str, qt_root: Path | None = None) -> list[Path]:
    """The files whose dependencies must resolve for the program to start on ``platform``:
    its platform plugin and ``libQt6WebEngineCore`` (those present in this install)."""
    if qt_root is None:
        base = pyside_dir()
        if base is None:
            return []
        qt_root = base / "Qt"
    plugin = qt_root / "plugins" / "platforms" / f"libq{platform}.so"
    web = qt_root / "lib" / "libQt6WebEngineCore.so.6"
    return [p for p in (plugin, web) if p.is_file()]


def _run_ldd(path: Path) -> str:
    exe = shutil.which("ldd")
    if exe is None:
        raise FileNotFoundError("ldd")
    proc = subprocess.run(
        [exe, str(path)],
        capture_output=True,
        text=True,
        timeout=20,
        env={**os.environ, "LC_ALL": "C"},
    )
    return proc.stdout


def missing_libraries(paths: Iterable[Path], ldd: Callable[[Path], str] | None = None) -> list[str]:
    """Sonames the dynamic loader cannot find for any of ``paths`` (their whole dependency
    tree), sorted. ``ldd(path) -> its output`` defaults to running ``ldd``. Returns [] when the
    loader cannot be asked (no ``ldd``): the check then says nothing rather than guess."""
    run = ldd or _run_ldd
    missing: set[str] = set()
    for path in paths:
        try:
            out = run(path)
        except (OSError, subprocess.SubprocessError):
            return []
        for line in out.splitlines():
            m = _NOT_FOUND.match(line)
            if m:
                missing.add(m.group(1))
    return sorted(missing)


def _read_os_release() -> str:
    for p in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            return Path(p).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return ""


def package_manager(
    os_release: str | None = None, which: Callable[[str], str | None] = shutil.which
) -> str | None:
    """``apt``, ``dnf``, ``pacman`` or ``zypper`` for this machine (from /etc/os-release's
    ID and ID_LIKE, else the first of those commands on PATH), or None."""
    text = _read_os_release() if os_release is None else os_release
    fields: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip("\"'").lower()
    for word in [fields.get("ID", ""), *fields.get("ID_LIKE", "").split()]:
        for prefix, manager in _MANAGERS.items():
            if word == prefix or word.startswith(prefix):
                return manager
    for manager, command in (
        ("apt", "apt-get"),
        ("dnf", "dnf"),
        ("pacman", "pacman"),
        ("zypper", "zypper"),
    ):
        if which(command):
            return manager
    return None


def _stem_and_version(soname: str) -> tuple[str, str]:
    stem, _, version = soname.partition(".so")
    return stem, version.lstrip(".").split(".")[0] if version else ""


def apt_package(soname: str) -> str:
    """The Debian/Ubuntu package that ships ``soname`` (Debian Policy 8.1 naming, with the
    known exceptions)."""
    if soname in _APT_EXCEPTIONS:
        return _APT_EXCEPTIONS[soname]
    stem, version = _stem_and_version(soname)
    name = stem.lower().replace("_", "-")
    if not version:
        return name
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def _apt_available(name: str) -> bool:
    exe = shutil.which("apt-cache")
    if exe is None:
        return True
    try:
        proc = subprocess.run([exe, "show", name], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return True
    return proc.returncode == 0 and bool(proc.stdout.strip())


def _rpm_capability(soname: str, machine: str) -> str:
    bits = "(64bit)" if machine in ("x86_64", "aarch64", "ppc64le", "s390x", "riscv64") else ""
    return f"'{soname}(){bits}'"


def install_command(
    sonames: Iterable[str],
    manager: str | None,
    *,
    root: bool | None = None,
    machine: str | None = None,
    apt_available: Callable[[str], bool] = _apt_available,
) -> str:
    """The exact command that installs ``sonames`` with ``manager``; a hint when no
    package manager is known. dnf and zypper install by soname capability (exact); apt and
    pacman by package name (apt: a ``t64``-renamed package is used when the plain one is not
    in the archive, as on Debian 13 and Ubuntu 24.04)."""
    names = list(dict.fromkeys(sonames))
    is_root = (os.geteuid() == 0) if root is None and hasattr(os, "geteuid") else bool(root)
    sudo = "" if is_root else "sudo "
    arch = machine or _platform.machine()
    if manager == "apt":
        pkgs = []
        for so in names:
            pkg = apt_package(so)
            if not apt_available(pkg) and apt_available(pkg + "t64"):
                pkg += "t64"
            pkgs.append(pkg)
        return f"{sudo}apt-get install " + " ".join(dict.fromkeys(pkgs))
    if manager in ("dnf", "zypper"):
        caps = " ".join(_rpm_capability(so, arch) for so in names)
        return f"{sudo}{manager} install {caps}"
    if manager == "pacman":
        known = [_PACMAN.get(_stem_and_version(so)[0]) for so in names]
        unknown = [so for so, pkg in zip(names, known, strict=True) if pkg is None]
        cmd = f"{sudo}pacman -S --needed " + " ".join(dict.fromkeys(p for p in known if p))
        if unknown:
            cmd += " (and find the package of " + ", ".join(unknown) + " with: pacman -F NAME)"
        return cmd
    return "install the packages that provide " + ", ".join(names)


def startup_missing(environ: Mapping[str, str] | None = None) -> tuple[str, list[str], str] | None:
    """``(platform, missing sonames, install command)`` for the libraries the desktop
    program cannot start without; None when nothing is missing or it cannot be told (not
    Linux, no PySide6, no ``ldd``)."""
    if not sys.platform.startswith("linux"):
        return None
    platform = planned_platform(environ)
    missing = missing_libraries(qt_library_files(platform))
    if not missing:
        return None
    return platform, missing, install_command(missing, package_manager())


def startup_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """The one line the program and ``arl doctor`` print: which system libraries are missing
    and the command that installs them; None when nothing is missing (see
    ``startup_missing``)."""
    found = startup_missing(environ)
    if found is None:
        return None
    platform, missing, command = found
    return (
        f"Qt's {platform} platform plugin and QtWebEngine need system libraries that are "
        f"missing: {', '.join(missing)}. Install them with: {command}"
    )
