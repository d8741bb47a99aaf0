"""``arl doctor``: checks that this machine can run the program, each line PASS, FAIL,
UNVERIFIED or N/A, with the fix for each FAIL.

Qt and keyring are probed in a child Python process (``sys.executable -c``): the engine
never imports PySide6 or keyring itself, and a crashing platform plugin cannot take the
doctor down. The endpoint checks use the same ``ModelClient`` as a run.

``run_checks(base_url=None, model=None, api_key=None) -> list[Check]`` (a coroutine).

Why this module is long: it is the one report of ``arl doctor``: a check per concern
(Python, Qt, keyring, workspace, endpoint, model, seven capability probes), each with its
own wording for PASS, FAIL and the fix; split up, the report's order and words would be
scattered over several files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from engine.agent import capabilities
from engine.agent.client import CallResult, ModelClient
from engine.agent.config import AgentConfig, AgentError, safe_url
from engine.agent.failures import KEY_ADVICE
from engine.agent.jsonsafe import JSONProblem, load_json
from engine.environment import no_display
from engine.system_libs import display_problem, startup_missing
from engine.vocabulary import plural

PASS, FAIL, UNVERIFIED, NA = "PASS", "FAIL", "UNVERIFIED", "N/A"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report. ``fix`` is set for FAIL (and may be for others)."""

    name: str
    status: str
    detail: str
    fix: str = ""
    handled: bool = False
    """A FAIL the program works around by itself (the fix says how): it does not make
    ``arl doctor`` exit non-zero."""

    def line(self) -> str:
        text = f"{self.status:<10} {self.name}: {self.detail}"
        if self.fix:
            text += f" -- {'the program' if self.handled else 'fix'}: {self.fix}"
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

# The probe reports the kind of a failure (the exception's class name), never its text: the
# doctor's line says it in words (``KEYRING_FAILURES``), not as a Python exception.
_KEYRING_PROBE = r"""
import json
try:
    import keyring
except Exception as e:
    print(json.dumps({"backend": None, "kind": "import"}))
    raise SystemExit
try:
    kr = keyring.get_keyring()
    name = getattr(kr, "name", None) or type(kr).__name__
    module = type(kr).__module__
    try:
        keyring.get_password("agent-review-loop", "doctor-probe")
        readable, kind = True, ""
    except Exception as e:
        readable, kind = False, type(e).__name__
    print(json.dumps({"backend": name, "module": module, "readable": readable, "kind": kind}))
except Exception as e:
    print(json.dumps({"backend": None, "kind": type(e).__name__}))
"""

#: What a keyring failure means, by the exception's class (keyring.errors), in words.
KEYRING_FAILURES = {
    "import": "the keyring library could not be loaded",
    "NoKeyringError": "none is installed for keyring to use",
    "KeyringLocked": "it is locked",
    "InitError": "it could not be opened",
    "PasswordSetError": "it refused to store a key",
}
KEYRING_FAILURE_OTHER = "it did not answer a read"


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


def check_system_libraries() -> list[Check]:
    """What stops the desktop program before Qt starts, as the program itself says it: system
    libraries its platform plugin and QtWebEngine lack (``engine.system_libs``), or a
    ``DISPLAY`` where no X server answers; [] when neither."""
    # The libraries Qt's platform plugin and QtWebEngine really lack, found as the dynamic
    # loader would: the same check and line the desktop program prints before it exits,
    # for the platform the program would use here (xcb with no display, not offscreen).
    libs = startup_missing()
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
    x_server = display_problem()
    if x_server is not None:
        return [
            Check(
                "Qt platform plugin",
                FAIL,
                x_server.split("; ")[0],
                "start it in a desktop session or fix DISPLAY",
            )
        ]
    return []


def check_qt() -> list[Check]:
    headless = no_display()
    # With no display, Qt itself is checked offscreen; the missing display is said plainly.
    env = {"QT_QPA_PLATFORM": "offscreen"} if headless else None
    blocked = check_system_libraries()
    if blocked:
        return blocked
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
    if headless:
        # Qt itself works (offscreen), but whether a window opens cannot be seen here: not
        # a PASS for the desktop program.
        qt = [
            Check(
                "Qt platform plugin",
                UNVERIFIED,
                f"PySide6 {out.get('pyside')} works offscreen, but there is no display here "
                "(DISPLAY and WAYLAND_DISPLAY are unset), so whether the desktop program "
                "can open a window is not checked; the arl commands need none",
                "run 'arl doctor' in the desktop session to check the window",
            )
        ]
    else:
        qt = [
            Check(
                "Qt platform plugin",
                PASS,
                f"PySide6 {out.get('pyside')}, platform '{out.get('platform')}'",
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
    """The keyring line: PASS with the backend's name, N/A when no password store works
    (the program keeps keys for the session and the signing key in a file), FAIL when the
    keyring library cannot be loaded. Said in words (``KEYRING_FAILURES``), never with the
    text of a Python exception."""
    out, err = _probe(_KEYRING_PROBE)
    if out is None or (not out.get("backend") and out.get("kind") in (None, "import")):
        why = (
            KEYRING_FAILURES["import"]
            if out is not None
            else "its check " + (err if err.startswith("no answer") else "did not finish")
        )
        return Check(
            "keyring backend",
            FAIL,
            f"keyring unavailable: {why}",
            "run 'uv sync'; or set OPENAI_API_KEY for this session",
        )
    backend = str(out.get("backend") or "")
    module = str(out.get("module") or "")
    if (
        not backend
        or module.startswith(("keyring.backends.fail", "keyring.backends.null"))
        or (not out.get("readable"))
    ):
        # Not a failure of the program: it keeps a key in memory for the session, or reads
        # OPENAI_API_KEY. Storing keys across sessions is what is unavailable here.
        kind = str(out.get("kind") or "")
        if module.startswith(("keyring.backends.fail", "keyring.backends.null")):
            why = KEYRING_FAILURES["NoKeyringError"]
        else:
            why = KEYRING_FAILURES.get(kind, KEYRING_FAILURE_OTHER)
        return Check(
            "keyring backend",
            NA,
            f"no password store (keyring) works on this computer: {why}. API keys are "
            "kept for the session only, or read from OPENAI_API_KEY, and the signing key is "
            "kept in a file in the data folder only you can read. To store keys, install "
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


PROBE_TOOL = {
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
_PROBE_ASK = [{"role": "user", "content": "Record the number 7 with the record_number tool."}]
_JSON_ASK = [
    {
        "role": "user",
        "content": 'Answer with this JSON object and nothing else: {"ok": true}',
    }
]
_JSON_SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "probe",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
            "additionalProperties": False,
        },
    },
}
PROBE_MAX_TOKENS = 200
"""Completion-token cap of each capability probe (enough for a short reasoning block)."""


_PASSED_ON = ("auth", "model", "network", "timeout")
"""AgentError kinds a probe does not judge: the endpoint lines above report them."""


class _Prober:
    """Sends the tiny probe requests and counts the answers (see ``probe_capabilities``)."""

    def __init__(self, client: ModelClient):
        self.client = client
        self.answers = 0

    async def ask(self, **kw: Any) -> CallResult:
        res = await self.client.chat(
            purpose="check",
            round_no=0,
            conversation=f"doctor-{len(self.client.trace.entries)}",
            max_tokens=PROBE_MAX_TOKENS,
            retry_server_errors=False,
            **kw,
        )
        self.answers += 1
        return res

    @staticmethod
    def called(res: CallResult) -> bool:
        calls = res.message.get("tool_calls") or []
        return any(c["function"]["name"] == "record_number" for c in calls)

    async def tool_calls(self) -> Check:
        try:
            res = await self.ask(messages=_PROBE_ASK, tools=[PROBE_TOOL], tool_choice="auto")
        except AgentError as exc:
            if exc.kind in _PASSED_ON:
                raise
            return Check(
                "tool calls",
                FAIL,
                f"the server refused a request with tools: {exc}",
                "run with --mode no-tools (or auto): the program does the tool work itself",
            )
        if not self.called(res):
            return Check(
                "tool calls",
                FAIL,
                "the model answered with text instead of a tool call",
                "run with --mode auto (switches to no-tools when the model calls no tool) "
                "or --mode no-tools; or use a model and server with tool calling "
                "(llama.cpp --jinja, a function-calling chat format)",
            )
        as_text = any(q.startswith("tool calls read") for q in res.quirks)
        return Check(
            "tool calls",
            PASS,
            "the model called a tool when asked"
            + (" (written as text in the answer; the program reads that form)" if as_text else ""),
        )

    async def required(self) -> Check:
        try:
            res = await self.ask(messages=_PROBE_ASK, tools=[PROBE_TOOL], tool_choice="required")
        except AgentError as exc:
            if exc.kind in _PASSED_ON:
                raise
            return Check(
                "tool_choice required",
                FAIL,
                f"refused: {exc}",
                "sends its reminders to call a tool without forcing one (tool_choice=auto) instead",
                handled=True,
            )
        if self.called(res):
            return Check("tool_choice required", PASS, "a forced tool call was made")
        return Check(
            "tool_choice required",
            FAIL,
            "accepted but answered without a tool call",
            "sends its nudges anyway; with --mode auto it switches to no-tools when "
            "the model calls no tool",
            handled=True,
        )

    async def json_format(self, name: str, fmt: dict[str, Any], fallback: str) -> Check:
        try:
            res = await self.ask(messages=_JSON_ASK, response_format=fmt)
        except AgentError as exc:
            if exc.kind in _PASSED_ON:
                raise
            return Check(
                name,
                FAIL,
                f"refused: {exc}",
                f"asks for the report {fallback} instead (remembered for this endpoint and model)",
                handled=True,
            )
        try:
            obj = load_json(res.message.get("content") or "")
        except JSONProblem:
            obj = None
        if isinstance(obj, dict):
            return Check(name, PASS, "answered with a JSON object")
        return Check(
            name,
            FAIL,
            "accepted, but the answer is not a JSON object",
            "leaves claim accuracy N/A with the reason when a report is unreadable; "
            "the verdicts do not depend on it",
            handled=True,
        )

    def from_answers(self) -> list[Check]:
        """Reasoning output and usage, judged on the answers the probes got."""
        if not self.answers:
            return [
                Check("reasoning output", UNVERIFIED, "no probe was answered"),
                Check("usage reported", UNVERIFIED, "no probe was answered"),
            ]
        c = self.client
        out = [
            Check(
                "reasoning output",
                PASS,
                f"{c.reasoning_seen} of {plural(self.answers, 'answer')} carried reasoning "
                "(<think> or a reasoning field): stripped before reading, kept in the trace",
            )
            if c.reasoning_seen
            else Check("reasoning output", PASS, "no reasoning mixed into the answers")
        ]
        u = c.usage
        if u.unreported:
            problem = f" ({c.usage_problems[0]})" if c.usage_problems else ""
            out.append(
                Check(
                    "usage reported",
                    FAIL,
                    u.reason() + problem,
                    "shows cost per attributed fix as N/A with the reason",
                    handled=True,
                )
            )
        else:
            every = "the answer" if u.calls == 1 else f"all {plural(u.calls, 'answer')}"
            out.append(Check("usage reported", PASS, f"{every} reported usage"))
        return out


async def probe_capabilities(client: ModelClient, models_detail: list[dict]) -> list[Check]:
    """One tiny request per capability (``capabilities.CAPABILITIES``), one ``Check``
    each: PASS / FAIL / UNVERIFIED, every FAIL saying what the program does about it
    (``handled``) or what the user should do. Raises AgentError only for ``auth``/``model``
    failures and an endpoint gone silent (the earlier lines report those)."""
    p = _Prober(client)
    out = [await p.tool_calls(), await p.required()]
    out.append(
        await p.json_format(
            "json_object",
            {"type": "json_object"},
            "in a set JSON shape (json_schema), then as plain text",
        )
    )
    out.append(
        await p.json_format(
            "json_schema", _JSON_SCHEMA, "as plain text, with the JSON asked for in the prompt"
        )
    )
    out += p.from_answers()
    limit = _context_from_models(models_detail, client.config.model)
    if limit:
        out.append(Check("context length", PASS, f"{limit:,} tokens, as the server says"))
    else:
        out.append(
            Check(
                "context length",
                UNVERIFIED,
                "the server does not say it; a document over the model's context stops the "
                "run with the sizes and what to do",
            )
        )
    return out


def _context_from_models(models: list[dict], model: str) -> int | None:
    """The context size the model list states for ``model``: vLLM ``max_model_len``,
    OpenRouter/LM Studio ``context_length``/``max_context_length``, llama.cpp
    ``meta.n_ctx_train`` / ``n_ctx``."""
    for m in models:
        if not isinstance(m, dict) or m.get("id") not in (model, None):
            continue
        meta = m.get("meta")
        for src in (m, meta if isinstance(meta, dict) else {}):
            for key in (
                "max_model_len",
                "context_length",
                "max_context_length",
                "n_ctx",
                "n_ctx_train",
            ):
                v = src.get(key)
                if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 100_000_000:
                    return v
    return None


ENDPOINT_CHECKS = ("endpoint reachable", "model present") + capabilities.CAPABILITIES
"""The endpoint lines of the report, in order."""

CLI_KEY_FIX = (
    "set the right key in OPENAI_API_KEY (it overrides the keyring) or in the keyring "
    "entry for this server (saved by the desktop program's key box), then run arl doctor "
    "again"
)
"""The fix ``arl doctor`` gives when the server refused the API key."""

GUI_KEY_FIX = "re-type the key in the key box above, then test the connection again"
"""The fix the desktop program's Test connection gives when the server refused the key."""

#: Why the lines after a failed one were not checked, by ``AgentError.kind`` (the first
#: failure is its own line; the others say they were not checked and why, never a false
#: "could not be reached" for an endpoint that answered).
NOT_CHECKED = {
    "auth": "not checked: the server refused the API key",
    "model": "not checked: the server does not know the model",
    "network": "not checked: the endpoint could not be reached",
    "timeout": "not checked: the endpoint did not answer in time",
}
_NOT_CHECKED_OTHER = "not checked: the model list could not be read"


def _without_cli_advice(exc: AgentError) -> str:
    """``str(exc)`` without the command line's key advice (the caller's fix replaces it)."""
    text = str(exc)
    return text.removesuffix("; " + KEY_ADVICE) if exc.kind == "auth" else text


async def check_endpoint(
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    timeout: float = 30.0,
    *,
    key_fix: str = CLI_KEY_FIX,
) -> list[Check]:
    """Endpoint reachable, model present, then one line per capability
    (``probe_capabilities``). The findings are remembered for the endpoint and model
    (``engine.agent.capabilities``); a run writes them into its trace.

    When a check fails in a way that stops the others (the key refused, the model
    unknown, the endpoint silent), that check is the one FAIL (or UNVERIFIED for a
    timeout) and every later line is UNVERIFIED "not checked: <why>" (``NOT_CHECKED``).
    ``key_fix``: the fix named when the server refused the key (``CLI_KEY_FIX``, or
    ``GUI_KEY_FIX`` for the desktop program's key box)."""
    names = ENDPOINT_CHECKS
    if not base_url:
        return [Check(n, NA, "no --base-url given") for n in names]
    config = AgentConfig(
        base_url=base_url,
        model=model or "",
        api_key=api_key,
        request_timeout=timeout,
        max_retries=1,
        backoff_initial=0.2,
        backoff_max=1.0,
    )
    async with ModelClient(config) as client:
        out, detail = await _reachable(client, key_fix)
        if detail is None:
            return out
        if not model:
            return out + [Check(n, NA, "no --model given") for n in names[1:]]
        present = _model_present(model, [m["id"] for m in detail])
        out.append(present)
        if present.status == FAIL:
            return out + [Check(n, UNVERIFIED, "the model is not served") for n in names[2:]]
        try:
            probes = await probe_capabilities(client, detail)
        except AgentError as exc:
            done = {c.name for c in out}
            rest = [n for n in names if n not in done]
            return out + _stopped(rest, exc, key_fix, model)
        capabilities.remember_findings(
            base_url, model, {c.name: (c.status, c.detail) for c in probes}, source="doctor"
        )
    return out + probes


async def _reachable(
    client: ModelClient, key_fix: str = CLI_KEY_FIX
) -> tuple[list[Check], list[dict] | None]:
    """The "endpoint reachable" line from the model list: ([that line], the list's
    entries); when it cannot be read, (every endpoint line, None): the failure, then the
    others "not checked" with the reason (``_stopped``)."""
    names = ENDPOINT_CHECKS
    try:
        detail = await client.list_models_detail()
    except AgentError as exc:
        return _stopped(list(names), exc, key_fix, client.config.model), None
    url = safe_url(client.config.base_url)
    listed = f"{plural(len(detail), 'model')} listed"
    return [Check(names[0], PASS, f"{url} answers, {listed}")], detail


def _stopped(names: list[str], exc: AgentError, key_fix: str, model: str) -> list[Check]:
    """The lines ``names`` when ``exc`` stopped the checks: the first names the failure
    and its fix, the others say they were not checked and why (``NOT_CHECKED``)."""
    listing = names[0] == ENDPOINT_CHECKS[0]  # the model list itself failed
    why = NOT_CHECKED.get(exc.kind, _NOT_CHECKED_OTHER)
    if exc.kind == "timeout":
        first = Check(
            names[0], UNVERIFIED, str(exc), "run the doctor again when the server is idle"
        )
    elif exc.kind == "auth":
        first = Check(names[0], FAIL, _without_cli_advice(exc), key_fix)
    elif listing:
        first = Check(
            names[0],
            FAIL,
            str(exc),
            "start the server, or check the base URL (it usually ends in /v1)",
        )
        why = NOT_CHECKED["network"] if exc.kind == "network" else _NOT_CHECKED_OTHER
    elif exc.kind == "model":
        first = Check(names[0], FAIL, str(exc), f"check the model name ('{model}')")
    else:
        first = Check(names[0], UNVERIFIED, f"the probe failed: {exc}", "check the server's log")
    return [first] + [Check(n, UNVERIFIED, why) for n in names[1:]]


def nothing_answered(checks: list[Check]) -> Check | None:
    """The one line to show when nothing answered at the address: the endpoint check's
    FAIL (its detail names the host and port, e.g. "could not connect to
    127.0.0.1:36877 (nothing answered)", and its fix) when the model list could not be
    reached and every later endpoint line is the UNVERIFIED "not checked" it caused; None
    otherwise (the full list is worth reading). ``checks``: ``check_endpoint``'s lines."""
    if not checks or checks[0].name != ENDPOINT_CHECKS[0] or checks[0].status != FAIL:
        return None
    rest = checks[1:]
    if rest and all(c.status == UNVERIFIED and c.detail == NOT_CHECKED["network"] for c in rest):
        return checks[0]
    return None


def _model_present(model: str, models: list[str]) -> Check:
    """The "model present" line: PASS when ``model`` is among ``models``, UNVERIFIED when
    the endpoint lists none, else FAIL naming the served ones."""
    name = ENDPOINT_CHECKS[1]
    if model in models:
        return Check(name, PASS, f"'{model}' is served")
    if not models:
        return Check(name, UNVERIFIED, "the endpoint lists no models")
    shown = ", ".join(models[:8]) + (" ..." if len(models) > 8 else "")
    return Check(name, FAIL, f"'{model}' is not among the served models", f"use one of: {shown}")


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
