"""What an endpoint and model can do, remembered per endpoint + model.

Two kinds of facts, both keyed by ``(safe_url(base_url), model)``:

- ``report_format``: the ``response_format`` the report call last got through with
  (``json_object`` | ``json_schema`` | ``text``), so later reports of the run and later
  runs start with it instead of being refused again (LM Studio refuses ``json_object``).
- ``findings``: capability -> ``{"status": PASS|FAIL|UNVERIFIED|N/A, "detail", "at",
  "source": "doctor" | "run"}``, from ``arl doctor`` / the wizard's Test connection probes
  (``engine.doctor.probe_capabilities``) and from what runs observed. A run writes the
  findings it started with and the ones it ended with into its trace (and so its bundle).

Kept in memory for the process and in ``<ARL_HOME>/endpoints.json`` (a small JSON file,
written atomically, read with ``engine.safe_io.read_json_file``: a file that is not a
regular file, oversized or not JSON is ignored, a failed write is not an error: memory is
an optimisation, never a requirement).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from engine.agent.config import safe_url
from engine.safe_io import BoundedInputError, read_json_file
from engine.workspace import default_home, now_iso

FILE_NAME = "endpoints.json"
MAX_FILE_BYTES = 1_000_000
REPORT_FORMATS = ("json_object", "json_schema", "text")

#: The capabilities ``arl doctor`` probes, in report order.
CAPABILITIES = (
    "tool calls",
    "tool_choice required",
    "json_object",
    "json_schema",
    "reasoning output",
    "usage reported",
    "context length",
)

_lock = threading.Lock()
_memory: dict[str, dict[str, Any]] = {}
_loaded_from: Path | None = None


def _key(base_url: str, model: str) -> str:
    return f"{safe_url(base_url)} {model}"


def _path() -> Path:
    return default_home() / FILE_NAME


def _load() -> None:
    """Read the file once per ARL_HOME (a changed ARL_HOME starts a fresh memory)."""
    global _loaded_from, _memory
    path = _path()
    if _loaded_from == path:
        return
    _loaded_from = path
    _memory = {}
    if not path.exists():
        return
    try:
        obj = read_json_file(path, max_bytes=MAX_FILE_BYTES)
    except BoundedInputError:  # not a regular file, too large, not JSON: start afresh
        return
    if isinstance(obj, dict) and isinstance(obj.get("endpoints"), dict):
        # Keys written before base URLs were cleaned of credentials are cleaned on load
        # (the next save rewrites the file without them).
        _memory = {_clean_key(k): v for k, v in obj["endpoints"].items() if isinstance(v, dict)}


def _clean_key(key: str) -> str:
    """A stored ``"<base url> <model>"`` key with its URL passed through ``safe_url``."""
    url, sep, model = key.partition(" ")
    return f"{safe_url(url)}{sep}{model}"


def _save() -> None:
    from engine.atomic import write_atomic

    path = _path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(
            path, json.dumps({"version": 1, "endpoints": _memory}, indent=1, ensure_ascii=False)
        )
    except OSError:
        pass  # a cache: a read-only data folder only costs the next probe


def recall(base_url: str, model: str) -> dict[str, Any]:
    """A copy of what is remembered for the endpoint and model (``{}`` when nothing)."""
    with _lock:
        _load()
        return json.loads(json.dumps(_memory.get(_key(base_url, model), {})))


def report_format(base_url: str, model: str) -> str | None:
    """The remembered report ``response_format`` type, or None."""
    fmt = recall(base_url, model).get("report_format")
    return fmt if fmt in REPORT_FORMATS else None


def remember_report_format(base_url: str, model: str, fmt: str) -> None:
    if fmt not in REPORT_FORMATS:
        raise ValueError(f"unknown report format {fmt!r}")
    with _lock:
        _load()
        entry = _memory.setdefault(_key(base_url, model), {})
        if entry.get("report_format") == fmt:
            return
        entry["report_format"] = fmt
        _save()


def remember_findings(
    base_url: str, model: str, findings: dict[str, tuple[str, str]], source: str
) -> None:
    """Store ``capability -> (status, detail)`` findings from ``source`` (``doctor`` |
    ``run``). A run's UNVERIFIED never overwrites an earlier verdict."""
    at = now_iso()
    with _lock:
        _load()
        entry = _memory.setdefault(_key(base_url, model), {})
        known = entry.setdefault("findings", {})
        for name, (status, detail) in findings.items():
            if source == "run" and status == "UNVERIFIED" and name in known:
                continue
            known[name] = {"status": status, "detail": detail, "at": at, "source": source}
        _save()


def forget_all() -> None:
    """Clear the in-process memory (tests); the file is left alone."""
    global _loaded_from, _memory
    with _lock:
        _memory = {}
        _loaded_from = None
