"""Packaging: fast checks of the PyInstaller spec and the desktop metadata. Nothing is
built here: `.ci/run` builds the frozen app and runs its --smoke-test after these pass.

The spec is executed with stand-ins for PyInstaller's Analysis/PYZ/EXE/COLLECT/BUNDLE, which
record what the real build would get.
"""

from __future__ import annotations

import ast
import configparser
import importlib
import importlib.metadata
import pkgutil
import plistlib
import shutil
import struct
import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "agent-review-loop.spec"
ICONS = PACKAGING / "icons"
DESKTOP = PACKAGING / "linux" / "agent-review-loop.desktop"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)


class _Recorder:
    """Stands in for one PyInstaller build target; keeps its arguments."""

    made: list[_Recorder] = []

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        self.datas: list = []
        self.binaries: list = []
        self.pure: list = []
        self.scripts: list = []
        _Recorder.made.append(self)


def _kind(name: str) -> type:
    return type(name, (_Recorder,), {})


def _stub_hooks() -> types.ModuleType:
    """What the spec uses of PyInstaller.utils.hooks, for when PyInstaller is not installed
    (it is in the `packaging` group, not the default one)."""

    def collect_submodules(package: str) -> list[str]:
        mod = importlib.import_module(package)
        names = [package]
        for info in pkgutil.walk_packages(getattr(mod, "__path__", []), package + "."):
            names.append(info.name)
        return names

    def copy_metadata(dist: str) -> list[tuple[str, str]]:
        d = importlib.metadata.distribution(dist)
        path = Path(str(d.locate_file(""))) / f"{d.metadata['Name']}-{d.version}.dist-info"
        return [(str(path), path.name)]

    mod = types.ModuleType("PyInstaller.utils.hooks")
    mod.collect_submodules = collect_submodules
    mod.copy_metadata = copy_metadata
    return mod


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    """The spec's namespace after running it once, plus the recorded build targets."""
    work = tmp_path_factory.mktemp("pyinstaller")
    with pytest.MonkeyPatch.context() as mp:
        try:
            import PyInstaller.utils.hooks  # noqa: F401
        except ImportError:
            for name in ("PyInstaller", "PyInstaller.utils"):
                mp.setitem(sys.modules, name, types.ModuleType(name))
            mp.setitem(sys.modules, "PyInstaller.utils.hooks", _stub_hooks())
        _Recorder.made = []
        kinds = {n: _kind(n) for n in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE")}
        ns = {
            "__name__": "__main__",
            "__file__": str(SPEC),
            "SPECPATH": str(PACKAGING),
            "workpath": str(work / "work"),
            "distpath": str(work / "dist"),
            **kinds,
        }
        mp.setattr(sys, "path", list(sys.path))  # the spec inserts the project root
        exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), ns)
        made = {type(r).__name__: r for r in _Recorder.made}
        yield ns, made


def test_spec_is_a_one_folder_build_without_upx(spec):
    ns, made = spec
    assert {"Analysis", "PYZ", "EXE", "COLLECT"} <= set(made)
    exe, coll = made["EXE"], made["COLLECT"]
    assert exe.kwargs["exclude_binaries"] is True  # one-folder: binaries go to COLLECT
    assert exe.kwargs["upx"] is False and coll.kwargs["upx"] is False
    assert exe.kwargs["name"] == coll.kwargs["name"] == "agent-review-loop"
    analysis = made["Analysis"]
    assert analysis.args[0] == [str(PACKAGING / "launch.py")]
    launch = ast.parse((PACKAGING / "launch.py").read_text(encoding="utf-8"))
    assert any(
        isinstance(n, ast.ImportFrom)
        and n.module == "app.main"
        and [a.name for a in n.names] == ["main"]
        for n in launch.body
    )


def test_spec_takes_the_version_from_the_package(spec):
    ns, _ = spec
    assert ns["__version__"] == engine.__version__
    info = ns["macos_info_plist"]()
    assert info["CFBundleShortVersionString"] == engine.__version__


def test_every_resource_folder_is_listed_and_shipped(spec):
    ns, made = spec
    listed = set(ns["RESOURCE_DIRS"])
    res = ROOT / "resources"
    folders = {p.name for p in res.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= listed, f"resources/ folders not listed in the spec: {folders - listed}"
    stray = [p.name for p in res.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert not stray, f"files directly in resources/ that the spec does not ship: {stray}"
    assert set(ns["REQUIRED_RESOURCE_DIRS"]) <= listed
    datas = made["Analysis"].kwargs["datas"]
    shipped = {Path(src).resolve() for src, _ in datas}
    for name in listed & folders:
        for f in (res / name).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts:
                assert f.resolve() in shipped, f"{f} is not in the build"
    for src, dest in datas:
        if Path(src).resolve().is_relative_to(res.resolve()):
            assert Path(dest) == Path(src).resolve().relative_to(ROOT.resolve()).parent
    assert (res / "web" / "arl-page.js").resolve() in shipped
    assert "resources" in made["Analysis"].kwargs["hiddenimports"]


def test_keyring_backends_and_lazy_imports_are_collected(spec):
    _, made = spec
    kw = made["Analysis"].kwargs
    hidden = set(kw["hiddenimports"])
    for backend in ("SecretService", "kwallet", "libsecret", "chainer", "fail"):
        assert f"keyring.backends.{backend}" in hidden
    assert any("keyring" in Path(src).name and "dist-info" in src for src, _ in kw["datas"])
    assert "justhtml.sanitizer.policy_defaults" in hidden
    assert "icu4py.breakers" in hidden  # a lazy import (engine.score.anchoring)
    assert {"mammoth", "mammoth.docx.body_xml", "lxml.etree", "olefile"} <= hidden  # Word
    assert {"app.main", "app.docview", "engine.text.html_text", "app.wizard.model_page"} <= hidden
    assert {"PySide6.QtWebEngineCore", "PySide6.QtWebEngineWidgets"} <= hidden


def test_excludes_tkinter_and_unused_qt_without_dropping_what_runs(spec):
    ns, made = spec
    excludes = set(made["Analysis"].kwargs["excludes"])
    assert {"tkinter", "_tkinter", "PySide6.QtQml", "PySide6.QtQuick"} <= excludes
    used = {
        "PySide6.QtCore",
        "PySide6.QtGui",
        "PySide6.QtWidgets",
        "PySide6.QtNetwork",
        "PySide6.QtWebEngineCore",
        "PySide6.QtWebEngineWidgets",
        "PySide6.QtWebChannel",
        "PySide6.QtPrintSupport",
        "keyring",
        "justhtml",
        "openai",
        "sqlite3",
    }
    assert not used & excludes
    dropped = ns["dropped"]
    qt = "PySide6/Qt/"
    for kept in (
        "lib/libQt6WebEngineCore.so.6",
        "libexec/QtWebEngineProcess",
        "resources/qtwebengine_resources.pak",
        "resources/icudtl.dat",
        "resources/v8_context_snapshot.bin",
        "translations/qtwebengine_locales/en-US.pak",
        "lib/libQt6Quick.so.6",
        "lib/libQt6Qml.so.6",
        "plugins/platforms/libqxcb.so",
        "plugins/platforms/libqwayland.so",
        "plugins/imageformats/libqsvg.so",
        "plugins/platforminputcontexts/libibusplatforminputcontextplugin.so",
    ):
        assert dropped(qt + kept) is None, kept
    for gone in (
        "resources/qtwebengine_devtools_resources.pak",
        "translations/qtwebengine_locales/de.pak",
        "translations/qt_de.qm",
        "plugins/imageformats/libqpdf.so",
        "lib/libQt6Pdf.so.6",
        "plugins/platforminputcontexts/libqtvirtualkeyboardplugin.so",
    ):
        assert dropped(qt + gone), gone
    # A build machine's GTK is not shipped; the GTK theme plugin is (it uses the user's GTK).
    assert dropped("libgtk-3.so.0") and dropped("libgdk-3.so.0")
    assert dropped(qt + "plugins/platformthemes/libqgtk3.so") is None
    for kept in (
        "libglib-2.0.so.0",
        "libfontconfig.so.1",
        "libxkbcommon.so.0",
        "libnss3.so",
        "libX11.so.6",
        "libxcb-cursor.so.0",
    ):
        assert dropped(kept) is None, kept
    assert dropped("resources/briefs/policy-memo.md") is None


def test_windows_version_resource_fills_from_the_package(spec, monkeypatch):
    ns, _ = spec
    monkeypatch.setattr(sys, "platform", "win32")
    path = Path(ns["windows_version_file"]())
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, mode="eval")  # PyInstaller eval()s this file
    assert isinstance(tree.body, ast.Call) and tree.body.func.id == "VSVersionInfo"
    strings = {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    assert engine.__version__ in strings and "agent-review-loop.exe" in strings
    parts = [int(p) for p in engine.__version__.split(".")[:4]]
    assert repr(tuple((parts + [0, 0, 0, 0])[:4])) in text


def test_macos_info_plist_parses():
    with open(PACKAGING / "macos" / "Info.plist", "rb") as fp:
        info = plistlib.load(fp)
    assert info["NSHighResolutionCapable"] is True
    assert info["CFBundleName"] == "Agent Review Loop"


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(DESKTOP.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def test_desktop_file_names_the_program_and_its_icon():
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Agent Review Loop"
    assert entry["Exec"].split()[0] == "agent-review-loop"
    assert entry["Terminal"] == "false"
    assert entry["Icon"] == "agent-review-loop"
    assert (ICONS / f"{entry['Icon']}.svg").is_file()
    assert entry["Categories"].endswith(";")


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="desktop-file-validate (desktop-file-utils) is not installed",
)
def test_desktop_file_validates():
    proc = subprocess.run(
        ["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_icons_exist_in_every_size_and_format():
    ET.parse(ICONS / "agent-review-loop.svg")
    for size in PNG_SIZES:
        data = (ICONS / f"agent-review-loop-{size}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", data[16:24]) == (size, size)
    ico = (ICONS / "agent-review-loop.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 5
    icns = (ICONS / "agent-review-loop.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    build = (PACKAGING / "build.sh").read_text(encoding="utf-8")
    assert " ".join(map(str, PNG_SIZES)) in build


def test_scripts_parse_and_ci_runs_the_frozen_smoke_test():
    for script in (PACKAGING / "build.sh", PACKAGING / "smoke.sh", ROOT / ".ci" / "run"):
        proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{script}: {proc.stderr}"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "uv run pytest" in ci
    assert (
        ci.index("uv run pytest") < ci.index("packaging/build.sh") < ci.index("packaging/smoke.sh")
    )
