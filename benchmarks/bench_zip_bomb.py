"""Memory and time of refusing zip bombs as bundles. Prints, per zip, the peak resident
memory (``ru_maxrss``) of a fresh process that imports the engine and calls
``open_bundle`` on it, the memory after the imports alone, the time, and the outcome.

The zips are built in a temporary folder, each a few hundred KB:

- ``honest``: a member of 99 MB of zeros three times (297 MB, within the total limit,
  about 1,000:1), with a manifest that is not a bundle's;
- ``honest-bundle-manifest``: the same with a manifest that looks like a bundle's;
- ``liar``: members of 150 MB of zeros whose central directory declares 1,000 bytes;
- ``liar-bundle-manifest``: the same with a manifest that looks like a bundle's.

Run: ``uv run python benchmarks/bench_zip_bomb.py``. To measure another engine, run it
with ``PYTHONPATH=<a folder holding that engine/>`` from outside the repository.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MB = 1024 * 1024
BUNDLE_MANIFEST = b'{"format": "arl-bundle/2", "files": {}}'

PROBE = r"""
import resource, sys, time
t = time.monotonic()
from engine.bundle import BundleError, open_bundle
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    open_bundle(sys.argv[1])
    outcome = "opened"
except BundleError as exc:
    outcome = "refused: " + str(exc).split(": ", 1)[-1][:90]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{peak / 1024:6.0f} MB peak ({base / 1024:.0f} MB after imports) "
      f"{time.monotonic() - t:5.2f} s  {outcome}")
"""


def zeros_zip(path: Path, manifest: bytes, members: dict[str, int], declared: int | None) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("manifest.json", manifest)
        for name, size in members.items():
            with zf.open(name, "w") as fh:
                for _ in range(size // MB):
                    fh.write(bytes(MB))
    if declared is not None:  # rewrite the central directory's uncompressed sizes
        data = bytearray(path.read_bytes())
        i = data.find(b"PK\x01\x02")
        while i >= 0:
            name_len = int.from_bytes(data[i + 28 : i + 30], "little")
            if bytes(data[i + 46 : i + 46 + name_len]).decode() in members:
                data[i + 24 : i + 28] = declared.to_bytes(4, "little")
            i = data.find(b"PK\x01\x02", i + 4)
        path.write_bytes(bytes(data))
    return path


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        honest = {f"{c}.json": 99 * MB for c in "abc"}
        liar = {f"{c}.json": 150 * MB for c in "abc"}
        zips = [
            zeros_zip(folder / "honest.zip", b"{}", honest, None),
            zeros_zip(folder / "honest-bundle-manifest.zip", BUNDLE_MANIFEST, honest, None),
            zeros_zip(folder / "liar.zip", b"{}", liar, 1000),
            zeros_zip(folder / "liar-bundle-manifest.zip", BUNDLE_MANIFEST, liar, 1000),
        ]
        for z in zips:
            run = subprocess.run(
                [sys.executable, "-c", PROBE, str(z)], capture_output=True, text=True, cwd=tmp
            )
            line = (run.stdout or run.stderr).strip().splitlines()[-1]
            print(f"{z.name:<28} {z.stat().st_size / 1024:5.0f} KB  {line}")


if __name__ == "__main__":
    main()
