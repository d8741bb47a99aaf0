"""Reading a bundle's files safely, from a folder or a ``.zip``.

``read_files(path) -> {bundle-relative POSIX path: bytes}``. Every check happens before a
byte is kept: no path traversal (``..``, absolute or drive paths, backslashes, NUL), no
symbolic links, at most ``MAX_ENTRIES`` files, at most ``MAX_FILE_BYTES`` per file and
``MAX_TOTAL_BYTES`` in all, measured on what is actually inflated (a zip's declared sizes
are checked first, then enforced while reading). A zip whose members sit in one top-level
folder is read as if that folder were the root. Raises ``BundleError`` (one line).
"""

from __future__ import annotations

import os
import re
import stat
import zipfile
from pathlib import Path, PurePosixPath

MAX_ENTRIES = 2000
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_TOTAL_BYTES = 300 * 1024 * 1024


class BundleError(ValueError):
    """A bundle cannot be read or written. ``str()`` is one line naming the problem."""


def _check_name(name: str) -> str | None:
    """The problem with a zip member name, or None."""
    if not name or "\x00" in name or "\\" in name:
        return "has an invalid name"
    p = PurePosixPath(name)
    if p.is_absolute() or re.match(r"^[A-Za-z]:", name):
        return "has an absolute path"
    if any(part == ".." for part in p.parts):
        return "points outside the bundle (..)"
    return None


def _read_zip(path: Path) -> dict[str, bytes]:
    """Members of a bundle zip, names relative to the bundle root. Raises BundleError."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BundleError(f"{path}: not a readable zip file ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise BundleError(f"{path}: {len(infos)} entries, more than the limit of {MAX_ENTRIES}")
        declared = sum(i.file_size for i in infos)
        if declared > MAX_TOTAL_BYTES:
            raise BundleError(
                f"{path}: {declared} bytes uncompressed, more than the limit of {MAX_TOTAL_BYTES}"
            )
        names = [i.filename for i in infos if not i.is_dir()]
        prefix = ""
        if "manifest.json" not in names:
            tops = {n.split("/", 1)[0] for n in names}
            if len(tops) == 1 and f"{next(iter(tops))}/manifest.json" in names:
                prefix = next(iter(tops)) + "/"
        out: dict[str, bytes] = {}
        total = 0
        for info in infos:
            if info.is_dir():
                continue
            problem = _check_name(info.filename)
            if problem:
                raise BundleError(f"{path}: entry {info.filename!r} {problem}")
            mode = info.external_attr >> 16
            if mode and stat.S_ISLNK(mode):
                raise BundleError(f"{path}: entry {info.filename!r} is a symbolic link")
            if info.file_size > MAX_FILE_BYTES:
                raise BundleError(
                    f"{path}: entry {info.filename!r} is {info.file_size} "
                    f"bytes, more than the limit of {MAX_FILE_BYTES}"
                )
            name = info.filename[len(prefix) :] if info.filename.startswith(prefix) else None
            if name is None:
                raise BundleError(
                    f"{path}: entry {info.filename!r} is outside the bundle folder {prefix!r}"
                )
            if name in out:
                raise BundleError(f"{path}: entry {info.filename!r} appears twice")
            try:
                with zf.open(info) as fh:
                    data = fh.read(MAX_FILE_BYTES + 1)
            except (
                zipfile.BadZipFile,
                OSError,
                EOFError,
                RuntimeError,
                NotImplementedError,
            ) as exc:
                raise BundleError(
                    f"{path}: entry {info.filename!r} cannot be read ({exc})"
                ) from None
            if len(data) > MAX_FILE_BYTES:
                raise BundleError(
                    f"{path}: entry {info.filename!r} is larger than declared "
                    f"and over the limit of {MAX_FILE_BYTES}"
                )
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise BundleError(f"{path}: more than {MAX_TOTAL_BYTES} bytes uncompressed")
            out[name] = data
    return out


def _read_folder(path: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    total = 0
    for p in sorted(path.rglob("*")):
        if p.is_symlink():
            raise BundleError(f"{path}: {p.relative_to(path).as_posix()} is a symbolic link")
        if not p.is_file():
            continue
        if len(out) >= MAX_ENTRIES:
            raise BundleError(f"{path}: more than {MAX_ENTRIES} files")
        size = p.stat().st_size
        total += size
        if size > MAX_FILE_BYTES or total > MAX_TOTAL_BYTES:
            raise BundleError(f"{path}: {p.name} makes the bundle larger than the limit")
        out[p.relative_to(path).as_posix()] = p.read_bytes()
    return out


def read_files(path: str | os.PathLike[str]) -> dict[str, bytes]:
    """Every file of a bundle folder or zip, by bundle-relative POSIX path. BundleError."""
    p = Path(path)
    if not p.exists():
        raise BundleError(f"{p}: no such file or folder")
    if p.is_dir():
        return _read_folder(p)
    return _read_zip(p)
