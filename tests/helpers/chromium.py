"""Open a local page in headless Chromium (Debian's ``chromium``) offline and say what it
requested: the DOM after loading (``--dump-dom``) and every network request the page made,
read from Chromium's own network log (``--log-net-log``): a request whose network
isolation key is the page's ``file://`` site is the page's, not the browser's own
background traffic (component updates, the clock). Names resolve nowhere
(``--host-resolver-rules``), so nothing leaves the machine either way.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = next(
    (p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None
)


def open_offline(page: Path, timeout: float = 90.0) -> tuple[str, list[str]]:
    """(DOM text, URLs the page requested over the network) for ``page`` opened as a
    file. Raises RuntimeError when Chromium fails."""
    assert CHROMIUM, "no chromium on this machine"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "net.json"
        cmd = [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            f"--user-data-dir={tmp}/profile",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--log-net-log={log}",
            "--net-log-capture-mode=Default",
            "--dump-dom",
            page.resolve().as_uri(),
        ]
        if os.geteuid() == 0:
            cmd.insert(2, "--no-sandbox")
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0 or not log.is_file():
            raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-500:]}")
        data = json.loads(log.read_text(encoding="utf-8"))
    start = data["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    asked = []
    for ev in data["events"]:
        p = ev.get("params") or {}
        if ev.get("type") == start and str(p.get("network_isolation_key", "")).startswith(
            "file://"
        ):
            asked.append(str(p.get("url")))
    return done.stdout, asked
