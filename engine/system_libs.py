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
    missing_for(platforms) -> (sonames, command) | None      # several plugins + QtWebEngine
    startup_problem(environ=None) -> str | None              # the one line, or None when all is there
    display_problem(environ=None) -> str | None              # DISPLAY names an X server that is not there
"""

from __future__ import annotations

import importlib.util
import os
import platform as _platform
import re
import shutil
import socket
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
    "libgmodule-2.0": "glib2",
    "libgthread-2.0": "glib2",
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


def _pacman_package(soname: str) -> str | None:
    """The Arch Linux package of ``soname``, or None when not known. The X protocol
    extension libraries (``libxcb-randr``, ``-xkb``, ``-shm``, ...) all ship in ``libxcb``;
    the xcb-util ones are listed in ``_PACMAN``."""
    stem = _stem_and_version(soname)[0]
    if stem in _PACMAN:
        return _PACMAN[stem]
    if stem == "libxcb" or (stem.startswith("libxcb-") and stem.count("-") == 1):
        return "libxcb"
    return None


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
        known = [_pacman_package(so) for so in names]
        unknown = [so for so, pkg in zip(names, known, strict=True) if pkg is None]
        cmd = f"{sudo}pacman -S --needed " + " ".join(dict.fromkeys(p for p in known if p))
        if unknown:
            cmd += " (and find the package of " + ", ".join(unknown) + " with: pacman -F NAME)"
        return cmd
    return "install the packages that provide " + ", ".join(names)


def missing_for(platforms: Iterable[str]) -> tuple[list[str], str] | None:
    """``(missing sonames, install command)`` for the platform plugins ``platforms`` and
    QtWebEngine together (the union, sorted); None when nothing is missing or it cannot be
    told (not Linux, no PySide6, no ``ldd``). The GUI tests ask for ``offscreen`` and
    ``xcb`` so that one command covers the tests and the window."""
    if not sys.platform.startswith("linux"):
        return None
    files = list(dict.fromkeys(f for p in platforms for f in qt_library_files(p)))
    missing = missing_libraries(files)
    if not missing:
        return None
    return missing, install_command(missing, package_manager())


def startup_missing(environ: Mapping[str, str] | None = None) -> tuple[str, list[str], str] | None:
    """``(platform, missing sonames, install command)`` for the libraries the desktop
    program cannot start without; None when nothing is missing or it cannot be told (not
    Linux, no PySide6, no ``ldd``)."""
    platform = planned_platform(environ)
    found = missing_for([platform])
    if found is None:
        return None
    return platform, *found


def startup_problem(environ: Mapping[str, str] | None = None, also: str = "") -> str | None:
    """The one line the program and ``arl doctor`` print: which system libraries are missing
    and the command that installs them, last on the line so that it can be copied whole
    (``also``, e.g. " (and no display is set here)", goes before it); None when nothing is
    missing (see ``startup_missing``)."""
    found = startup_missing(environ)
    if found is None:
        return None
    platform, missing, command = found
    return (
        f"Qt's {platform} platform plugin and QtWebEngine need system libraries that are "
        f"missing: {', '.join(missing)}{also}. Install them with: {command}"
    )


def _x_socket_addresses(display: str) -> list[tuple[int, object]] | None:
    """Where an X client connects for ``display`` (``[protocol/][host]:N[.S]``, as libxcb
    parses ``DISPLAY``): ``(address family, address)`` pairs tried in order; None when the
    name is not one this check understands (then nothing is said)."""
    m = re.fullmatch(r"(?:(tcp|unix|inet6?)/)?([^:/]*):(\d+)(?:\.\d+)?", display.strip())
    if m is None:
        return None
    protocol, host, number = m.group(1), m.group(2), int(m.group(3))
    if protocol == "unix" or (not host and protocol is None) or host == "unix":
        path = f"/tmp/.X11-unix/X{number}"
        # Linux's abstract socket first (what libxcb tries first), then the file.
        return [(socket.AF_UNIX, "\0" + path), (socket.AF_UNIX, path)]
    return [(socket.AF_INET, (host or "localhost", 6000 + number))]


def display_problem(
    environ: Mapping[str, str] | None = None,
    connect: Callable[[int, object], None] | None = None,
) -> str | None:
    """Why the X display named by ``DISPLAY`` cannot be used, in one line (no X server
    answers there: Qt would abort with exit 134 and "could not connect to display"), or None
    when it answers, when Qt will not use X (``planned_platform`` is not ``xcb``), when no
    display is named, or when the name is not understood. ``connect(family, address)``
    raises ``OSError`` when nothing listens (default: a socket connection, 2 s timeout)."""
    env = os.environ if environ is None else environ
    display = env.get("DISPLAY") or ""
    if not sys.platform.startswith("linux") or not display or planned_platform(env) != "xcb":
        return None
    addresses = _x_socket_addresses(display)
    if not addresses:
        return None
    attempt = connect or _connect
    errors = []
    for family, address in addresses:
        try:
            attempt(family, address)
            return None
        except OSError as exc:
            errors.append(exc.strerror or str(exc))
    return (
        f"DISPLAY is {display} but no X server answers there ({errors[-1]}); start it in a "
        "desktop session or fix DISPLAY. The arl command works without one."
    )


def _connect(family: int, address: object) -> None:
    if family != socket.AF_UNIX:  # a host name: every address it resolves to (IPv4, IPv6)
        socket.create_connection(address, timeout=2.0).close()  # type: ignore[arg-type]
        return
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(2.0)
        sock.connect(address)  # type: ignore[arg-type]
