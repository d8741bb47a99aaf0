"""Render the app icon from ``agent-review-loop.svg`` into what each platform wants.

    uv run python packaging/icons/make_icons.py

Writes, beside this file:

- ``agent-review-loop-<N>.png`` for N in 16 32 48 64 128 256 512 (Linux hicolor theme sizes,
  also the window icon);
- ``agent-review-loop.ico`` (Windows: 16-256 px, PNG-compressed entries, valid since
  Windows Vista);
- ``agent-review-loop.icns`` (macOS: PNG-compressed ``ic07``-``ic10`` entries, 128-1024 px).

The outputs are committed, so a build needs neither this script nor Pillow. Uses only Qt
(QtSvg renders, QtGui encodes PNG); the ICO and ICNS containers are written by hand (ICO:
Microsoft "Icons" file format, ICONDIR/ICONDIRENTRY; ICNS: Apple icon family, big-endian
type + length records).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SVG = HERE / "agent-review-loop.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_TYPES = ((b"ic07", 128), (b"ic08", 256), (b"ic09", 512), (b"ic10", 1024))


def render_png(size: int) -> bytes:
    """The SVG rendered at ``size`` x ``size`` px, as PNG bytes (straight alpha)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.convertToFormat(QImage.Format.Format_ARGB32).save(buf, "PNG")
    buf.close()
    return bytes(data)


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file holding one PNG-compressed image per size (256 is stored as 0)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    entries, blobs = b"", b""
    for s in sizes:
        png = pngs[s]
        dim = 0 if s >= 256 else s
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    return header + entries + blobs


def icns_bytes(pngs: dict[bytes, bytes]) -> bytes:
    """An ICNS file: ``icns`` + total length, then type + length + PNG per entry."""
    body = b"".join(t + struct.pack(">I", 8 + len(p)) + p for t, p in pngs.items())
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841
    cache: dict[int, bytes] = {}

    def png(size: int) -> bytes:
        if size not in cache:
            cache[size] = render_png(size)
        return cache[size]

    for s in PNG_SIZES:
        (HERE / f"agent-review-loop-{s}.png").write_bytes(png(s))
    (HERE / "agent-review-loop.ico").write_bytes(ico_bytes({s: png(s) for s in ICO_SIZES}))
    (HERE / "agent-review-loop.icns").write_bytes(icns_bytes({t: png(s) for t, s in ICNS_TYPES}))
    print(f"wrote {len(PNG_SIZES)} PNGs, agent-review-loop.ico, agent-review-loop.icns in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
