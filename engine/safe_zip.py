"""Reading a zip within limits: the one mechanism of the evidence-bundle reader
(``engine.bundle.archive``) and the Word package reader (``engine.text.docx_package``).

A zip's central directory says how many members it has and how large each is once
inflated; a hostile zip lies or asks for too much (a zip bomb inflates about 1,000 times
its size). So every header is checked before a byte is inflated (:func:`check_totals`,
:func:`check_member`), then each member is inflated ``CHUNK_BYTES`` at a time and stopped
as soon as it passes its declared size or the zip passes ``MAX_TOTAL_BYTES`` in all
(:func:`inflate`): a member that lies costs at most one chunk more than it declared.

The limits are :class:`Limits` (the program's are its defaults; a caller may pass its own,
as the bundle reader does from its module so tests can lower them). Problems are
:class:`ZipLimitError` (a ``ValueError``) whose ``str()`` is one plain phrase naming the
member as the caller calls it (``noun``: ``"entry"``, ``"part"``) and never the file: the
caller adds the file's name and raises its own error. Sizes are bytes; stdlib only.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass

__all__ = [
    "CHUNK_BYTES",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MAX_RATIO",
    "MAX_TOTAL_BYTES",
    "RATIO_FLOOR",
    "Limits",
    "ZipLimitError",
    "check_member",
    "check_totals",
    "inflate",
]

#: Limits that the bundle writer (``engine.bundle.write_bundle``) and both readers share: a
#: bundle the program writes always opens. Chosen so a bundle opens in well under a second
#: per 10 MB and a few hundred MB of memory at most.
MAX_ENTRIES = 2000
MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_TOTAL_BYTES = 300 * 1024 * 1024
#: A member over ``RATIO_FLOOR`` bytes may declare at most ``MAX_RATIO`` times its
#: compressed size. Deflate reaches about 1,000:1 on repeated bytes (a zip bomb); the
#: program's own bundles stay under 20:1, and ``engine.bundle.export_zip`` stores a member
#: uncompressed rather than pass this, so a bundle the program exports always opens.
MAX_RATIO = 200
RATIO_FLOOR = 1024 * 1024
#: A member is inflated this many bytes at a time, never more than its declared size plus
#: one chunk.
CHUNK_BYTES = 1024 * 1024

#: What zipfile raises while inflating a damaged member.
_READ_FAILURES = (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError)


class ZipLimitError(ValueError):
    """A zip over a limit, or a member that cannot be inflated: ``str()`` is one phrase
    without the file's name."""


@dataclass(frozen=True)
class Limits:
    """The limits one reading applies (bytes; ``max_entries`` members)."""

    max_entries: int = MAX_ENTRIES
    max_file_bytes: int = MAX_FILE_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_ratio: int = MAX_RATIO
    ratio_floor: int = RATIO_FLOOR
    chunk_bytes: int = CHUNK_BYTES


def check_totals(infos: list[zipfile.ZipInfo], limits: Limits) -> None:
    """The zip's member count and declared bytes in all, from its headers. Raises
    ZipLimitError."""
    if len(infos) > limits.max_entries:
        raise ZipLimitError(
            f"{len(infos):,} entries, more than the limit of {limits.max_entries:,}"
        )
    declared = sum(i.file_size for i in infos)
    if declared > limits.max_total_bytes:
        raise ZipLimitError(
            f"{declared:,} bytes uncompressed, more than the limit of {limits.max_total_bytes:,}"
        )


def check_member(info: zipfile.ZipInfo, zip_size: int, noun: str, limits: Limits) -> None:
    """One member's declared size and its ratio to its compressed size (at most the
    zip's ``zip_size``, so a header cannot claim a larger compressed size than the file
    has). Raises ZipLimitError naming it as ``noun`` ("entry", "part")."""
    if info.file_size > limits.max_file_bytes:
        raise ZipLimitError(
            f"{noun} {info.filename!r} is {info.file_size:,} bytes, more than the limit "
            f"of {limits.max_file_bytes:,}"
        )
    packed = max(1, min(info.compress_size, zip_size))
    if info.file_size > limits.ratio_floor and info.file_size > limits.max_ratio * packed:
        raise ZipLimitError(
            f"{noun} {info.filename!r} inflates {info.file_size // packed:,} times its "
            f"compressed size, more than the limit of {limits.max_ratio} (a zip bomb?)"
        )


def inflate(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, total: int, noun: str, limits: Limits
) -> bytes:
    """One member's bytes, inflated ``limits.chunk_bytes`` at a time and stopped as soon
    as it passes its declared size (checked by :func:`check_member` already) or takes the
    zip past ``limits.max_total_bytes`` (``total``: bytes of the members inflated before
    it). Raises ZipLimitError naming it as ``noun``, also when zipfile cannot read it."""
    limit = info.file_size
    parts: list[bytes] = []
    size = 0
    try:
        with zf.open(info) as fh:
            while chunk := fh.read(min(limits.chunk_bytes, limit - size + 1)):
                size += len(chunk)
                if size > limit:
                    raise ZipLimitError(
                        f"{noun} {info.filename!r} is larger than declared ({limit:,} "
                        "bytes); nothing more is inflated"
                    )
                if total + size > limits.max_total_bytes:
                    raise ZipLimitError(f"more than {limits.max_total_bytes:,} bytes uncompressed")
                parts.append(chunk)
    except _READ_FAILURES as exc:
        raise ZipLimitError(f"{noun} {info.filename!r} cannot be read ({exc})") from None
    return b"".join(parts)
