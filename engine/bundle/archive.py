"""Reading a bundle's files safely, from a folder or a ``.zip``.

``read_files(path) -> {bundle-relative POSIX path: bytes}``. Every check happens before a
byte is kept: no path traversal (``..``, absolute or drive paths, backslashes, NUL), no
symbolic links, at most ``MAX_ENTRIES`` files, at most ``MAX_FILE_BYTES`` per file and
``MAX_TOTAL_BYTES`` in all, at most ``MAX_RATIO`` times its compressed size per zip member,
measured on what is actually inflated (a zip's headers are checked first, then each member
is inflated in chunks and stopped at its declared size: a zip bomb is refused having
inflated at most one chunk past what it declared, and a zip without a bundle's manifest
before anything but the manifest is inflated). A zip whose members sit in one top-level
folder is read as if that folder were the root. Raises ``BundleError`` (one line).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from engine import safe_zip
from engine.caps import MAX_JSON_BYTES, MAX_JSON_NODES
from engine.safe_zip import (
    CHUNK_BYTES,
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    MAX_RATIO,
    MAX_TOTAL_BYTES,
    RATIO_FLOOR,
)
from engine.text.documents import signature_kind

#: Called with a bundle's ``manifest.json`` bytes (None when it has none) before any other
#: file is read; raises BundleError when they are not a bundle's manifest.
ManifestCheck = Callable[[bytes | None], None]

#: The detached signature of a signed bundle (``engine.bundle.signing``); not in the manifest's
#: ``files`` table, since it signs the manifest.
SIGNATURE_FILE = "signature.json"


class BundleError(ValueError):
    """A bundle cannot be read or written. ``str()`` is one line naming the problem."""


def sha256(data: bytes) -> str:
    """SHA-256 of ``data`` as 64 lowercase hex digits (the manifest's ``files`` values)."""
    return hashlib.sha256(data).hexdigest()


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


#: What an evidence bundle is, for messages refusing something else.
WHAT_A_BUNDLE_IS = "an evidence bundle is a folder with manifest.json, or a .zip of one"


def looks_like(path: Path) -> str | None:
    """What a file that is not a zip looks like, from its first bytes ("a PDF document",
    "an HTML page", "a JSON file", "a text file", "a binary file"), or None when it cannot
    be read or is a damaged zip. Never raises."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if head.startswith(b"PK"):
        return None  # a zip, damaged: zipfile's own reason says more
    what = signature_kind(head)  # the document reader's table of file signatures
    if what is not None:
        return what
    if not head:
        return "an empty file"
    if b"\0" in head:
        return "a binary file"
    try:
        text = head.decode("utf-8", errors="strict" if len(head) < 4096 else "ignore")
    except UnicodeDecodeError:
        return "a binary file"
    start = text.lstrip("\ufeff \t\r\n")[:200].lower()
    if start.startswith(("<!doctype html", "<html")) or "<body" in start:
        return "an HTML page"
    if start.startswith(("{", "[")):
        return "a JSON file"
    return "a text file"


def _read_zip(path: Path, manifest_check: ManifestCheck | None = None) -> dict[str, bytes]:
    """Members of a bundle zip, names relative to the bundle root. Raises BundleError.

    Every header is checked before a byte is inflated (``_check_headers``); then
    ``manifest.json`` is inflated first and given to ``manifest_check`` (a zip that is not a
    bundle is refused before its other members are inflated); then each member is inflated
    in chunks and stopped at its declared size, so a member that lies about its size
    costs at most one chunk more than it declared."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        if path.name == "manifest.json":
            raise BundleError(
                f"{path}: a bundle's manifest, not the bundle; give the folder that holds "
                f"it ({path.parent})"
            ) from None
        looks = looks_like(path)
        if looks is not None:
            raise BundleError(
                f"{path}: looks like {looks}, not an evidence bundle ({WHAT_A_BUNDLE_IS})"
            ) from None
        raise BundleError(f"{path}: not a readable zip file ({exc}); {WHAT_A_BUNDLE_IS}") from None
    with zf:
        members = _check_headers(path, zf.infolist(), path.stat().st_size)
        if manifest_check is not None:
            manifest = next((info for name, info in members if name == "manifest.json"), None)
            manifest_check(None if manifest is None else _inflate(path, zf, manifest, 0))
        out: dict[str, bytes] = {}
        total = 0
        for name, info in members:
            data = _inflate(path, zf, info, total)
            total += len(data)
            out[name] = data
    return out


def _limits() -> safe_zip.Limits:
    """This module's limits as they stand (tests lower them here)."""
    return safe_zip.Limits(
        MAX_ENTRIES, MAX_FILE_BYTES, MAX_TOTAL_BYTES, MAX_RATIO, RATIO_FLOOR, CHUNK_BYTES
    )


def _check_headers(
    path: Path, infos: list[zipfile.ZipInfo], zip_size: int
) -> list[tuple[str, zipfile.ZipInfo]]:
    """The members as (bundle-relative name, info), ``manifest.json`` first, once every
    header passed: the entry count, the declared sizes (per file, in all, and their ratio to
    the compressed size: ``engine.safe_zip``), safe names, no links, no duplicates. Raises
    BundleError."""
    limits = _limits()
    try:
        safe_zip.check_totals(infos, limits)
    except safe_zip.ZipLimitError as exc:
        raise BundleError(f"{path}: {exc}") from None
    names = [i.filename for i in infos if not i.is_dir()]
    prefix = ""
    if "manifest.json" not in names:
        tops = {n.split("/", 1)[0] for n in names}
        if len(tops) == 1 and f"{next(iter(tops))}/manifest.json" in names:
            prefix = next(iter(tops)) + "/"
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        if info.is_dir():
            continue
        problem = _check_name(info.filename)
        if problem:
            raise BundleError(f"{path}: entry {info.filename!r} {problem}")
        mode = info.external_attr >> 16
        if mode and stat.S_ISLNK(mode):
            raise BundleError(f"{path}: entry {info.filename!r} is a symbolic link")
        try:
            safe_zip.check_member(info, zip_size, "entry", limits)
        except safe_zip.ZipLimitError as exc:
            raise BundleError(f"{path}: {exc}") from None
        name = info.filename[len(prefix) :] if info.filename.startswith(prefix) else None
        if name is None:
            raise BundleError(
                f"{path}: entry {info.filename!r} is outside the bundle folder {prefix!r}"
            )
        if name in members:
            raise BundleError(f"{path}: entry {info.filename!r} appears twice")
        members[name] = info
    return sorted(members.items(), key=lambda item: item[0] != "manifest.json")


def _inflate(path: Path, zf: zipfile.ZipFile, info: zipfile.ZipInfo, total: int) -> bytes:
    """One member's bytes (``engine.safe_zip.inflate``: in chunks, stopped past its
    declared size or past ``MAX_TOTAL_BYTES`` in all; ``total``: bytes of the members read
    before it). Raises BundleError."""
    try:
        return safe_zip.inflate(zf, info, total, "entry", _limits())
    except safe_zip.ZipLimitError as exc:
        raise BundleError(f"{path}: {exc}") from None


def _read_folder(path: Path, manifest_check: ManifestCheck | None = None) -> dict[str, bytes]:
    """Every file under ``path`` within the limits (sizes from the file system, checked
    before each file is read); ``manifest.json`` is read and checked first."""
    if manifest_check is not None:
        manifest = path / "manifest.json"
        ok = manifest.is_file() and not manifest.is_symlink()
        if ok and manifest.stat().st_size > MAX_FILE_BYTES:
            raise BundleError(f"{path}: manifest.json makes the bundle larger than the limit")
        try:
            data = manifest.read_bytes() if ok else None
        except OSError as exc:
            raise BundleError(
                f"{path}: manifest.json cannot be read ({exc.strerror or exc})"
            ) from None
        manifest_check(data)
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
        name = p.relative_to(path).as_posix()
        try:
            out[name] = p.read_bytes()
        except OSError as exc:
            raise BundleError(f"{path}: {name} cannot be read ({exc.strerror or exc})") from None
    return out


def read_files(
    path: str | os.PathLike[str], manifest_check: ManifestCheck | None = None
) -> dict[str, bytes]:
    """Every file of a bundle folder or zip, by bundle-relative POSIX path. BundleError.

    ``manifest_check`` (optional) is called with ``manifest.json``'s bytes (None when
    there is none) before any other file is read or inflated: a zip that is not a bundle is
    refused having inflated its manifest only."""
    p = Path(path)
    if not p.exists():
        raise BundleError(f"{p}: no such file or folder")
    if p.is_dir():
        return _read_folder(p, manifest_check)
    if not p.is_file():
        raise BundleError(f"{p}: not a regular file or folder (a device, pipe or socket)")
    return _read_zip(p, manifest_check)


def load_json(data: bytes, name: str) -> Any:
    """Parse one bundle JSON file within the JSON budget: the value count here, then
    ``engine.safe_io.load_json`` (size, depth, huge integers, NaN). Raises BundleError
    naming ``name`` and the problem."""
    load_json_size_check(data, name)
    from engine.safe_io import BoundedInputError, load_json as bounded

    try:
        return bounded(data, name, max_bytes=MAX_JSON_BYTES)
    except BoundedInputError as exc:
        raise BundleError(str(exc)) from None


def check_sizes(files: dict[str, bytes], where: str | os.PathLike[str]) -> None:
    """Refuse (BundleError) a set of bundle files the reader would refuse: the writer calls
    this before writing anything, so the two agree on every limit."""
    if len(files) > MAX_ENTRIES:
        raise BundleError(f"{where}: {len(files)} files, more than the limit of {MAX_ENTRIES}")
    total = 0
    for name, data in files.items():
        if len(data) > MAX_FILE_BYTES:
            raise BundleError(
                f"{where}: {name} would be {len(data):,} bytes, over the limit of {MAX_FILE_BYTES:,}"
            )
        if name.endswith(".json"):
            load_json_size_check(data, name, where)
        total += len(data)
    if total > MAX_TOTAL_BYTES:
        raise BundleError(
            f"{where}: the bundle would be {total:,} bytes, over the limit of {MAX_TOTAL_BYTES:,}"
        )


def load_json_size_check(data: bytes, name: str, where: Any = "") -> None:
    """The size and value-count part of ``load_json``'s budget, without parsing."""
    prefix = f"{where}: " if where else ""
    if len(data) > MAX_JSON_BYTES:
        raise BundleError(
            f"{prefix}{name} is {len(data):,} bytes, over the limit of {MAX_JSON_BYTES:,} "
            "for a JSON file"
        )
    if data.count(b"[") + data.count(b"{") + data.count(b",") > MAX_JSON_NODES:
        raise BundleError(f"{prefix}{name} holds more than {MAX_JSON_NODES:,} JSON values")


#: ``StubFile.reason`` of a member over a per-file limit, and over the whole bundle's.
STUB_REASON = "member too large"


def stub_of(data: bytes, why: str) -> bytes:
    """The stub written in place of a member too large for the bundle's limits:
    ``{"stub": true, "size", "sha256", "reason"}`` (``engine.bundle.schema.StubFile``)."""
    obj = {"stub": True, "size": len(data), "sha256": sha256(data), "reason": why}
    return (json.dumps(obj, indent=1) + "\n").encode()


def stub_oversized(files: dict[str, bytes]) -> list[str]:
    """Replace (in place) every member the reader would refuse for its size by its stub
    (``stub_of``); returns the stubbed names, sorted. A member over ``MAX_FILE_BYTES``, or
    a JSON member over ``MAX_JSON_BYTES`` or ``MAX_JSON_NODES`` values, is stubbed; then,
    while the whole is over ``MAX_TOTAL_BYTES``, the largest member left. So a bundle is
    always written, and verifies; what depends on a stubbed member reads "unverified:
    member too large" (``engine.bundle.rederive``)."""
    stubbed: list[str] = []
    for name, data in list(files.items()):
        why = None
        if len(data) > MAX_FILE_BYTES:
            why = f"{STUB_REASON}: {len(data):,} bytes, over the limit of {MAX_FILE_BYTES:,}"
        elif name.endswith(".json"):
            try:
                load_json_size_check(data, name)
            except BundleError as exc:
                why = f"{STUB_REASON}: {str(exc).removeprefix(name + ' ')}"
        if why is not None:
            files[name] = stub_of(data, why)
            stubbed.append(name)
    while sum(len(d) for d in files.values()) > MAX_TOTAL_BYTES:
        left = [n for n in files if n not in stubbed]
        if not left:
            break  # check_sizes names the limit
        name = max(left, key=lambda n: len(files[n]))
        total = sum(len(d) for d in files.values())
        files[name] = stub_of(
            files[name],
            f"{STUB_REASON}: the bundle would be {total:,} bytes, over the limit of "
            f"{MAX_TOTAL_BYTES:,}",
        )
        stubbed.append(name)
    return sorted(stubbed)


def read_stub(data: bytes) -> dict[str, Any] | None:
    """The stub ``data`` holds (``StubFile``'s shape), or None when it is not one."""
    from engine.bundle.schema import check_file  # pydantic: only when a stub is read

    if len(data) > 4096:
        return None
    try:
        obj = json.loads(data)
    except ValueError:
        return None
    if not isinstance(obj, dict) or check_file("stub.json", obj):
        return None
    return obj
