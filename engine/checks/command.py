"""A command check: a program the reviewer names, run on one version's file.

``run_command(spec, path)`` runs ``spec.argv`` with every ``{file}`` replaced by ``path``:

- **no shell**: the argument list goes to the program as it is (``subprocess.Popen`` with a
  list, ``shell=False``), so ``;``, ``|`` or ``$(...)`` in an argument reach it as text;
- **its own process group** (a new session on POSIX, a new process group on Windows); at
  the timeout the whole group is killed and the result is UNVERIFIED; after the command
  ends, whatever it left running in its group is killed too;
- **no API key in its environment** (``clean_environment``): the known key variables, every
  variable whose name looks like a credential (key, token, secret, password...), and every
  variable whose value is a secret this process knows or looks like one
  (``engine.redact``) are left out;
- **output capped at intake**: standard output and standard error together, read as they
  come, at most ``OUTPUT_CAP`` bytes kept (the last ones); the result keeps the last
  ``TAIL_LINES`` lines, each at most ``LINE_CAP`` characters, redacted;
- a program that is not found or cannot start is UNVERIFIED with the reason.

Exit status 0 is PASS; any other is FAIL with the output.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping

from engine.checks.builtin import Finding
from engine.checks.config import CommandSpec
from engine.credentials import ENV_VAR
from engine.redact import known_secrets, redact

OUTPUT_CAP = 1024 * 1024
"""Bytes of a command's output kept as it is read (the last ones)."""
TAIL_LINES = 40
"""Lines of a command's output a result keeps (the last ones)."""
LINE_CAP = 2000
"""Characters of one kept line (a longer one is cut, and says so): 40 lines stay small."""
_READ = 64 * 1024

KEY_VARIABLES = frozenset(
    {
        ENV_VAR,
        "OPENAI_ORG_ID",
        "ANTHROPIC_API_KEY",
        "AZURE_OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "MISTRAL_API_KEY",
        "GROQ_API_KEY",
        "OPENROUTER_API_KEY",
        "TOGETHER_API_KEY",
        "DEEPSEEK_API_KEY",
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    }
)
"""Variables that hold API keys of model providers and hosts, left out by name."""
_SECRET_NAME = re.compile(
    r"(?i)(KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION_ID|PRIVATE)"
)
"""A variable name that looks like it holds a credential."""


def clean_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default ``os.environ``) without any variable that may hold a key: see the
    module docstring."""
    source = os.environ if env is None else env
    secrets = {s for s in known_secrets() if s}
    out = {}
    for name, value in source.items():
        if name.upper() in KEY_VARIABLES or _SECRET_NAME.search(name):
            continue
        if value in secrets or any(s in value for s in secrets) or redact(value) != value:
            continue
        out[name] = value
    return out


def program_of(argv0: str, env: Mapping[str, str]) -> str | None:
    """The program a command names: found on the environment's PATH, or a path to an
    executable file; None when there is none."""
    if os.sep in argv0 or (os.altsep and os.altsep in argv0):
        return argv0 if os.path.isfile(argv0) and os.access(argv0, os.X_OK) else None
    return shutil.which(argv0, path=env.get("PATH", os.defpath))


def argv_for(spec: CommandSpec, path: str) -> list[str]:
    """The argument list with every ``{file}`` replaced by ``path`` (nothing else is
    interpreted)."""
    return [a.replace("{file}", path) for a in spec.argv]


def run_command(spec: CommandSpec, path: str) -> Finding:
    """Run ``spec`` on the file at ``path``; see the module docstring. Never raises for a
    command that fails, hangs or is missing: that is its result."""
    env = clean_environment()
    argv = argv_for(spec, path)
    program = program_of(argv[0], env)
    if program is None:
        return Finding("unverified", f"{argv[0]}: not found (is it installed, and on PATH?)")
    with tempfile.TemporaryDirectory(prefix="arl-check-") as cwd:
        try:
            proc = subprocess.Popen(
                [program, *argv[1:]],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=cwd,
                shell=False,
                close_fds=True,
                **_group_options(),
            )
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            return Finding("unverified", f"{argv[0]}: could not start ({why})")
        tail = _Tail(proc)
        try:
            proc.wait(timeout=spec.timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc)
            proc.wait()
            tail.join()
    output = tail.text()
    if timed_out:
        why = f"stopped at its timeout of {spec.timeout_s:g} s (its process group was killed)"
        return Finding("unverified", why, output)
    code = proc.returncode
    if code == 0:
        return Finding("pass", "exit status 0", output, exit_code=0)
    said = f"exit status {code}" if code > 0 else f"killed by signal {-code}"
    return Finding("fail", said, output, [said], exit_code=code)


def _group_options() -> dict:
    if os.name == "nt":
        return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    return {"start_new_session": True}


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the command's process group (whatever it started, too)."""
    try:
        if os.name == "nt":
            proc.kill()
        else:
            os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


class _Tail:
    """Reads a process's output in a thread as it comes, keeping the last ``OUTPUT_CAP``
    bytes."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.buf = bytearray()
        self.dropped = 0
        self._stream = proc.stdout
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        stream = self._stream
        if stream is None:
            return
        try:
            while chunk := stream.read1(_READ) if hasattr(stream, "read1") else stream.read(_READ):
                self.buf += chunk
                if len(self.buf) > OUTPUT_CAP:
                    extra = len(self.buf) - OUTPUT_CAP
                    del self.buf[:extra]
                    self.dropped += extra
        except (OSError, ValueError):
            pass

    def join(self) -> None:
        self._thread.join(timeout=5)
        if self._stream is not None:
            try:
                self._stream.close()
            except OSError:
                pass

    def text(self) -> str:
        """The last ``TAIL_LINES`` lines, decoded (UTF-8, bad bytes replaced), redacted."""
        lines = bytes(self.buf).decode("utf-8", "replace").splitlines()
        cut = len(lines) > TAIL_LINES or self.dropped
        kept = [
            x if len(x) <= LINE_CAP else x[:LINE_CAP] + f"… [{len(x) - LINE_CAP:,} more characters]"
            for x in lines[-TAIL_LINES:]
        ]
        if cut:
            kept.insert(0, f"[the last {len(kept)} lines of its output]")
        return redact("\n".join(kept))
