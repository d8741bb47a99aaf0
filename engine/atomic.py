"""Writing a file whole or not at all: the one write-then-rename of the program.

``replacing(path)`` gives a binary file open on a fresh temporary file beside ``path``
(``tmp``: another name, e.g. one outside a bundle folder or one per process); when the
block ends normally the file is flushed (``durable``: and synced to the disk) and renamed
over ``path`` in one step (``os.replace``), so a reader finds the old file or the new
one, never a part of it. When the block raises, or the rename fails, the temporary file is
removed and ``path`` is left as it was. The temporary file is created exclusively and
never through a link (whatever is left under its name is removed first; ``O_EXCL``,
``O_NOFOLLOW``), and the rename replaces a link at ``path``, never the file it points to.

``write_atomic(path, data)`` writes ``data`` so: bytes as they are, a str as its UTF-8
bytes exactly (no newline translation on any system).

Both raise OSError (the caller names the file in its own words). The folder must exist.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["replacing", "write_atomic"]

_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)  # Windows: no newline translation
)


@contextmanager
def replacing(
    path: str | os.PathLike[str],
    *,
    tmp: str | os.PathLike[str] | None = None,
    durable: bool = False,
) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content into (see the module docstring);
    ``tmp`` defaults to ``<path>.tmp`` beside it; ``durable`` syncs the data to the disk
    before the rename. Raises OSError."""
    dest = Path(path)
    temp = Path(tmp) if tmp is not None else dest.with_name(dest.name + ".tmp")
    temp.unlink(missing_ok=True)
    try:
        with os.fdopen(os.open(temp, _FLAGS, 0o666), "wb") as fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(temp, dest)
    finally:
        try:
            temp.unlink(missing_ok=True)
        except OSError:
            pass


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes | str,
    *,
    tmp: str | os.PathLike[str] | None = None,
    durable: bool = False,
) -> None:
    """Write ``data`` (bytes; a str as UTF-8) to ``path`` whole or not at all
    (``replacing``). Raises OSError."""
    with replacing(path, tmp=tmp, durable=durable) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
