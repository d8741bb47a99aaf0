"""Reading a bundle's files safely, from a folder or a ``.zip``.

``read_files(path) -> {bundle-relative POSIX path: bytes}``. Every check happens before a
byte is kept: no path traversal (``..``, absolute or drive paths, backslashes, NUL), no
symbolic links, at most ``MAX_ENTRIES`` files, at most ``MAX_FILE_BYTES`` per file and
``MAX_TOTAL_BYTES`` in all, measured on what is actually inflated (a zip's declared sizes
are checked first, then enforced while reading). A zip whose members sit in one top-level
folder is read as if that folder were the root. Raises ``BundleError`` (one line).
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

#: Limits that the writer (``engine.bundle.write_bundle``) and the reader share: a bundle
#: the program writes always opens. Chosen so a bundle opens in well under a second per
#: 10 MB and a few hundred MB of memory at most.
MAX_ENTRIES = 2000
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_TOTAL_BYTES = 300 * 1024 * 1024
#: A JSON file of a bundle: at most this many bytes, and at most ``MAX_JSON_NODES`` arrays,
#: objects and commas (an upper bound of the values json.loads would build, counted on the
#: bytes before parsing: 99 MB of ``[],[],`` is refused in milliseconds, not parsed).
MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_JSON_NODES = 5_000_000
#: The document versions of one bundle (v1, every push, v2; a text document counts its
#: ``.txt`` and its ``.html`` wrapper) may take at most half of ``MAX_TOTAL_BYTES``; the
#: revision agent's push tool refuses a push that would go over (``push_refusal``).
MAX_DOCUMENTS_BYTES = MAX_TOTAL_BYTES // 2
#: The detached signature of a signed bundle (``engine.signing``); not in the manifest's
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
    if not p.is_file():
        raise BundleError(f"{p}: not a regular file or folder (a device, pipe or socket)")
    return _read_zip(p)


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


def stored_size(raw: str, kind: str) -> int:
    """Bytes a document version takes in a bundle: its UTF-8 bytes, and for a text document
    also those of its ``<pre>`` wrapper (``engine.bundle.text_as_html``)."""
    size = len(raw.encode("utf-8"))
    if kind == "text":
        size += len(text_as_html(raw).encode("utf-8"))
    return size


def text_as_html(text: str, title: str = "") -> str:
    """A plain text wrapped so a browser renders it and body ``textContent`` == ``text``.

    The newline right after ``<pre>`` is dropped by the HTML parser, so one is always
    written (a text that starts with a newline keeps it). Nothing follows ``</html>``.
    """
    esc = html.escape(text, quote=False)
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
        + html.escape(title)
        + "</title><style>pre{white-space:pre-wrap;"
        "font:15px/1.5 system-ui,sans-serif;max-width:48em;margin:1em auto}</style>"
        "</head><body><pre>\n" + esc + "</pre></body></html>"
    )


def push_refusal(raw: str, kind: str, stored_so_far: int) -> str | None:
    """Why a pushed version cannot go into the run's bundle, or None when it fits.

    ``stored_so_far``: ``stored_size`` of v1 plus every earlier push of the run. A push is
    stored twice at most (its round file and v2), so it fits when ``stored_so_far`` plus
    twice its size stays within ``MAX_DOCUMENTS_BYTES`` and one copy within
    ``MAX_FILE_BYTES``. The sentence names the limit, for the model."""
    size = stored_size(raw, kind)
    if size > MAX_FILE_BYTES:
        return (
            f"the document is {size:,} bytes as stored in the evidence bundle, over the "
            f"limit of {MAX_FILE_BYTES:,} bytes per version; push a shorter document"
        )
    if stored_so_far + 2 * size > MAX_DOCUMENTS_BYTES:
        return (
            f"this push would take the run's document versions to "
            f"{stored_so_far + 2 * size:,} bytes in the evidence bundle, over the limit of "
            f"{MAX_DOCUMENTS_BYTES:,} bytes for all versions of a run; push fewer, smaller versions"
        )
    return None
