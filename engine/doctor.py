"""``arl doctor``: checks that this machine can run the program, each line PASS, FAIL,
UNVERIFIED or N/A, with the fix for each FAIL.

Qt and keyring are probed in a child Python process (``sys.executable -c``): the engine
never imports PySide6 or keyring itself, and a crashing platform plugin cannot take the
doctor down. The endpoint checks use the same ``ModelClient`` as a run.

``run_checks(base_url=None, model=None, api_key=None) -> list[Check]`` (a coroutine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

from engine.agent import AgentConfig, AgentError, ModelClient, safe_url
from engine.environment import no_display
from engine.system_libs import startup_missing

PASS, FAIL, UNVERIFIED, NA = "PASS", "FAIL", "UNVERIFIED", "N/A"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report. ``fix`` is set for FAIL (and may be for others)."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status:<10} {self.name}: {self.detail}"
        if self.fix:
            text += f" -- fix: {self.fix}"
        return text


_QT_PROBE = r"""
import json, sys
out = {}
try:
    from PySide6 import QtCore, QtGui
    out["pyside"] = QtCore.qVersion()
except Exception as e:
    print(json.dumps({"error": "import", "detail": f"{type(e).__name__}: {e}"})); sys.exit(0)
app = QtGui.QGuiApplication(sys.argv[:1])
out["platform"] = app.platformName()
print(json.dumps(out))
"""

_WEBENGINE_PROBE = r"""
import json
try:
    from PySide6 import QtWebEngineCore, QtWebEngineWidgets  # noqa: F401
    from PySide6.QtCore import qVersion
    print(json.dumps({"ok": True, "qt": qVersion()}))
except Exception as e:
    print(json.dumps({"ok": False, "detail": f"{type(e).__name__}: {e}"}))
"""

_KEYRING_PROBE = r"""
import json
try:
    import keyring
    kr = keyring.get_keyring()
    name = type(kr).__module__ + "." + type(kr).__name__
    try:
        keyring.get_password("agent-review-loop", "doctor-probe")
        readable = True
        err = ""
    except Exception as e:
        readable = False
        err = f"{type(e).__name__}: {e}"
    print(json.dumps({"backend": name, "readable": readable, "error": err}))
except Exception as e:
    print(json.dumps({"backend": None, "error": f"{type(e).__name__}: {e}"}))
"""


def _probe(
    code: str, timeout: float = 60.0, extra_env: dict[str, str] | None = None
) -> tuple[dict | None, str]:
    """Run ``code`` in a child interpreter; (its JSON output or None, stderr tail)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=os.environ.copy() | (extra_env or {}),
        )
    except subprocess.TimeoutExpired:
        return None, f"no answer within {timeout:.0f} s"
    except OSError as exc:
        return None, str(exc)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    tail = " ".join(proc.stderr.strip().splitlines()[-3:])
    if proc.returncode != 0 or not lines:
        return None, tail or f"exit status {proc.returncode}"
    try:
        return json.loads(lines[-1]), tail
    except json.JSONDecodeError:
        return None, tail


def check_python() -> Check:
    v = sys.version_info
    text = f"Python {v.major}.{v.minor}.{v.micro}"
    if (3, 11) <= (v.major, v.minor) <= (3, 13):
        return Check("Python", PASS, text)
    return Check(
        "Python",
        FAIL,
        f"{text} is not supported",
        "use Python 3.11 to 3.13 (uv run picks it from pyproject.toml)",
    )


def check_qt() -> list[Check]:
    headless = no_display()
    # With no display, Qt itself is checked offscreen; the missing display is said plainly.
    env = {"QT_QPA_PLATFORM": "offscreen"} if headless else None
    # The libraries Qt's platform plugin and QtWebEngine really lack, found as the dynamic
    # loader would (the same line the desktop program prints before it exits).
    libs = startup_missing(dict(os.environ) | (env or {}))
    if libs is not None:
        platform, missing, command = libs
        return [
            Check(
                "system libraries",
                FAIL,
                f"Qt's {platform} platform plugin and QtWebEngine need system libraries "
                f"that are missing: {', '.join(missing)}",
                command,
            )
        ]
    out, err = _probe(_QT_PROBE, extra_env=env)
    if out is None:
        return [
            Check(
                "Qt platform plugin",
                FAIL,
                f"Qt could not start: {err}",
                "'uv run agent-review-loop --debug' shows Qt's own message; on a "
                "machine without a display set QT_QPA_PLATFORM=offscreen",
            )
        ]
    if out.get("error") == "import":
        return [
            Check(
                "Qt platform plugin",
                FAIL,
                f"PySide6 is not importable: {out['detail']}",
                "run 'uv sync' to install the dependencies",
            )
        ]
    qt = [
        Check(
            "Qt platform plugin",
            PASS,
            f"PySide6 {out.get('pyside')}, platform '{out.get('platform')}'"
            + (
                " (no display here: DISPLAY and WAYLAND_DISPLAY are unset, so the desktop "
                "program cannot open a window; the arl commands need none)"
                if headless
                else ""
            ),
        )
    ]
    web, err = _probe(_WEBENGINE_PROBE, extra_env=env)
    if web is None or not web.get("ok"):
        detail = (web or {}).get("detail") or err
        qt.append(
            Check(
                "QtWebEngine",
                FAIL,
                f"not importable: {detail}",
                "install the system libraries QtWebEngine needs (libnss3, libxkbfile1, "
                "libxcomposite1, libxdamage1, libxrandr2, libasound2) and run 'uv sync'",
            )
        )
    else:
        qt.append(Check("QtWebEngine", PASS, f"importable (Qt {web.get('qt')})"))
    return qt


def check_keyring() -> Check:
    out, err = _probe(_KEYRING_PROBE)
    if out is None or not out.get("backend"):
        detail = (out or {}).get("error") or err
        return Check(
            "keyring backend",
            FAIL,
            f"keyring unavailable: {detail}",
            "run 'uv sync'; or set OPENAI_API_KEY for this session",
        )
    backend = out["backend"]
    if "fail" in backend.lower() or "null" in backend.lower() or not out.get("readable"):
        # Not a failure of the program: it keeps a key in memory for the session, or reads
        # OPENAI_API_KEY. Storing keys across sessions is what is unavailable here.
        return Check(
            "keyring backend",
            NA,
            f"no usable keyring ({backend}"
            f"{': ' + out['error'] if out.get('error') else ''}): keys are kept for "
            "the session only, or read from OPENAI_API_KEY. To store keys, install "
            "and unlock a Secret Service (e.g. gnome-keyring) or KWallet",
        )
    return Check("keyring backend", PASS, backend)


def check_workspace() -> Check:
    from engine.workspace import Workspace, WorkspaceError, default_path

    path = default_path()
    try:
        with Workspace(path) as ws:
            ws.check_writable()
    except WorkspaceError as exc:
        return Check(
            "workspace writable",
            FAIL,
            str(exc),
            "make the folder writable, or set ARL_HOME to a writable folder",
        )
    return Check("workspace writable", PASS, str(path))


async def check_endpoint(
    base_url: str | None, model: str | None, api_key: str | None, timeout: float = 30.0
) -> list[Check]:
    """Endpoint reachable, model present, tool calling works."""
    names = ("endpoint reachable", "model present", "tool calling works")
    if not base_url:
        return [Check(n, NA, "no --base-url given") for n in names]
    url = safe_url(base_url)
    config = AgentConfig(
        base_url=base_url,
        model=model or "",
        api_key=api_key,
        request_timeout=timeout,
        max_retries=1,
        backoff_initial=0.2,
        backoff_max=1.0,
    )
    out: list[Check] = []
    async with ModelClient(config) as client:
        try:
            models = await client.list_models()
        except AgentError as exc:
            if exc.kind == "timeout":
                out.append(
                    Check(
                        names[0],
                        UNVERIFIED,
                        str(exc),
                        "run the doctor again when the server is idle",
                    )
                )
                out += [
                    Check(n, UNVERIFIED, "the endpoint did not answer in time") for n in names[1:]
                ]
                return out
            fix = (
                "check the key (keyring entry or OPENAI_API_KEY)"
                if exc.kind == "auth"
                else "start the server, or check the base URL (it usually ends in /v1)"
            )
            out.append(Check(names[0], FAIL, str(exc), fix))
            out += [Check(n, UNVERIFIED, "the endpoint could not be reached") for n in names[1:]]
            return out
        out.append(Check(names[0], PASS, f"{url} answers, {len(models)} model(s) listed"))
        if not model:
            out += [Check(n, NA, "no --model given") for n in names[1:]]
            return out
        if model in models:
            out.append(Check(names[1], PASS, f"'{model}' is served"))
        elif not models:
            out.append(Check(names[1], UNVERIFIED, "the endpoint lists no models"))
        else:
            shown = ", ".join(models[:8]) + (" ..." if len(models) > 8 else "")
            out.append(
                Check(
                    names[1],
                    FAIL,
                    f"'{model}' is not among the served models",
                    f"use one of: {shown}",
                )
            )
            out.append(Check(names[2], UNVERIFIED, "the model is not served"))
            return out
        tool = {
            "type": "function",
            "function": {
                "name": "record_number",
                "description": "Record a number.",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                    "required": ["n"],
                },
            },
        }
        ask = [{"role": "user", "content": "Record the number 7 with the record_number tool."}]
        refused_required = ""
        try:
            res = await client.chat(
                ask,
                purpose="check",
                round_no=0,
                conversation="doctor",
                tools=[tool],
                tool_choice="required",
            )
        except AgentError as exc:
            if exc.kind in ("auth", "model"):
                out.append(Check(names[2], FAIL, str(exc), "see above"))
                return out
            # Some servers (llama.cpp's chatml-function-calling) refuse a forced tool call
            # but call tools when free to; the agent falls back the same way.
            refused_required = (
                " (this server refuses tool_choice=required; the agent falls back to auto)"
            )
            try:
                res = await client.chat(
                    ask,
                    purpose="check",
                    round_no=0,
                    conversation="doctor",
                    tools=[tool],
                    tool_choice="auto",
                )
            except AgentError as exc2:
                out.append(
                    Check(
                        names[2],
                        UNVERIFIED,
                        f"{exc2}{refused_required}",
                        "check the server's log; tool calls need a function-calling chat format",
                    )
                )
                return out
        calls = res.message.get("tool_calls") or []
        if any(c["function"]["name"] == "record_number" for c in calls):
            out.append(
                Check(names[2], PASS, "the model called a tool when asked" + refused_required)
            )
        else:
            out.append(
                Check(
                    names[2],
                    FAIL,
                    "the model answered with text instead of a tool call",
                    "use a model with tool-calling support (and a server with it "
                    "enabled, e.g. llama.cpp --jinja or a function-calling chat format)",
                )
            )
    return out


async def run_checks(
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    *,
    qt: bool = True,
) -> list[Check]:
    """All checks, in report order. ``qt=False`` skips the Qt probes (tests)."""
    import asyncio

    loop = asyncio.get_running_loop()
    checks = [check_python()]
    if qt:
        checks += await loop.run_in_executor(None, check_qt)
    checks.append(await loop.run_in_executor(None, check_keyring))
    checks.append(await loop.run_in_executor(None, check_workspace))
    checks += await check_endpoint(base_url, model, api_key)
    return checks
