"""What every ``arl`` command of the review loop shares: exit codes, the one error line,
the option types, reading a document and its comments, and the stop signals of a run.

``fail`` prints one line on stderr, secrets redacted (``engine.redact``), and returns the
exit code. ``whole_number`` and ``positive_seconds`` are argparse option types (errors in
one line, the value quoted and shortened). ``StopSignals`` is the Ctrl-C/SIGTERM/SIGHUP
rule of ``arl run`` and ``arl suite run``.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.credentials import KeyChoice

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_TAMPERED, EXIT_CANCELLED = 0, 1, 2, 3, 130

#: ``() -> (key material, where, note)``: the user's own key (``arl_keys.signing``
#: installs the keyring one through ``set_signing_provider``). It signs
#: the bundles of runs and the reviewer's decisions (``arl bundle adjudicate``).
SigningProvider = Callable[[], tuple[bytes, str, str]]
signing_provider: list[SigningProvider] = []

#: ``base_url -> KeyChoice``: the stored-key look-up (``arl_keys.api_key_for``, installed
#: by the ``arl`` entry point through ``set_key_provider``); empty: the environment only.
KeyProvider = Callable[[str | None], "KeyChoice"]
key_provider: list[KeyProvider] = []


def set_key_provider(provider: KeyProvider | None) -> None:
    """Install the stored-key look-up (``arl_keys.api_key_for``); None: environment only.
    Kept here, not in ``engine.cli.loop``, so that installing it loads nothing a command
    without a key (``arl score``) does not need."""
    key_provider.clear()
    if provider is not None:
        key_provider.append(provider)


def set_signing_provider(provider: SigningProvider | None) -> None:
    """Install the signing-key look-up (``arl_keys.signing``); None: a session key. Kept
    in ``signing_provider`` (``arl run`` and ``arl bundle adjudicate`` sign with it)."""
    signing_provider.clear()
    if provider is not None:
        signing_provider.append(provider)


#: Characters a terminal acts on rather than shows, or that reorder what it shows: C0
#: controls (tab and newline too: one printed line stays one line), DEL, C1 controls, the
#: Unicode bidirectional controls (Unicode Standard Annex 9: LRM, RLM, ALM, the embeddings,
#: overrides and isolates) and the line and paragraph separators. Every one is outside
#: ``str.isprintable`` (categories Cc, Cf, Zl, Zp; tested on every code point in
#: tests/engine/test_cli_printable.py), so a printable line needs no look.
_UNSAFE_CHARS = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"


@functools.cache
def _unsafe() -> re.Pattern[str]:
    """``_UNSAFE_CHARS`` compiled, on first use: only a line that is not ``isprintable``
    needs it (its compilation is 0.4 ms of every command's start-up otherwise)."""
    return re.compile(_UNSAFE_CHARS)


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: every character of ``_UNSAFE_CHARS`` written
    as a visible escape (``\\x1b``, ``\\u202e``), so data from a bundle (a comment id, a
    title, a model name) can neither move the cursor, erase or hide a line, nor reorder
    it. A text that ``str.isprintable`` holds none of them and is returned as it is."""
    line = str(text)
    if line.isprintable():
        return line

    def esc(m: re.Match[str]) -> str:
        n = ord(m.group())
        return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"

    return _unsafe().sub(esc, line)


def say(line: object = "", *, err: bool = False) -> None:
    """Print one line of output that may carry data from a file (``printable``)."""
    print(printable(line), file=sys.stderr if err else sys.stdout)


def fail(message: str, code: int = EXIT_INPUT) -> int:
    """Print ``arl: <message>`` on stderr (secrets redacted, terminal controls escaped:
    ``printable``); return ``code``."""
    from engine.redact import redact

    say(f"arl: {redact(message)}", err=True)
    return code


def shown(text: str) -> str:
    """A command-line value as an error shows it: quoted, at most 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def whole_number(text: str) -> int:
    """A whole number from 1 to 10^9 (argparse type; ArgumentTypeError otherwise)."""
    try:
        n = int(text)
    except ValueError:  # also over CPython's 4,300-digit conversion limit
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{shown(text)} must be at least 1")
    if n > 10**9:
        raise argparse.ArgumentTypeError(f"{shown(text)} is too large")
    return n


def positive_seconds(text: str) -> float:
    """A number of seconds above 0: finite (not nan, inf) and at most a day."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not a number of seconds") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"{shown(text)} must be a number of seconds above 0")
    if x > 86400:
        raise argparse.ArgumentTypeError(f"{shown(text)} is more than a day (86400 seconds)")
    return x


def read_doc_and_comments(doc: str, comments_path: str | None) -> tuple[str, str, Any, list, list]:
    """(kind, raw, Version, comments, unusable). Without ``comments_path`` the comments
    are those of ``doc``, a Word file (``engine.word_review.word_comments``). Raises
    DocumentError or InputError."""
    from engine.comments_io import load_comments
    from engine.models import InputError
    from engine.score.scoring import Version
    from engine.text.documents import open_document

    document = open_document(doc)
    if document.notice is not None:
        print(f"{os.fspath(doc)}: {document.notice}", file=sys.stderr)
    kind, raw = document.kind, document.content
    version = Version.from_source(raw, kind, "v1")
    if comments_path:
        comments, unusable = load_comments(comments_path, version.text)
    elif document.word is not None:
        from engine.word_review import word_comments

        comments, unusable = word_comments(document.word)
    else:
        raise InputError(
            doc, "give --comments FILE (the comments come from the file only for a Word document)"
        )
    return kind, raw, version, comments, unusable


def _ending(signum: int, frame: Any) -> None:
    """A stop signal after a run (SIGTERM, SIGHUP, SIGQUIT...): the process is ending; let
    it end normally."""


class StopSignals:
    """Ctrl-C, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 while a review run runs (a
    context manager): every signal whose default action ends the process (SIGKILL aside,
    which nothing can catch; a run killed so is finished at the next start,
    ``engine.run.recovery``).

    The first signal cancels the run's task (``run(coro)``): the run stops at once and
    writes its bundle marked cancelled, then ``asyncio.CancelledError`` is raised from
    ``run``. Every further signal is only counted (a note on stderr): finalisation (final
    scoring, bundle write, the workspace record of the ending) and the last output lines
    are never interrupted, so two kills in quick succession still leave a bundle and no run
    stuck at ``running``. (``asyncio.run``'s own SIGINT handling raises KeyboardInterrupt on
    the second Ctrl-C wherever the code is; it stays out because a handler is installed.)
    On exit SIGINT's previous handler comes back; a SIGTERM or SIGHUP that arrives after
    the run, while the process ends, is ignored (the process is ending anyway, and its last
    lines are still printed).
    """

    NAMES = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")

    def __init__(self) -> None:
        self.signals = 0
        self._cancel: Callable[[], object] | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        import signal  # here: only a review run installs handlers

        for name in self.NAMES:
            sig = getattr(signal, name, None)
            if sig is not None:
                self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        for sig, handler in self._previous.items():
            signal.signal(sig, handler if sig == signal.SIGINT else _ending)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.signals += 1
        if self.signals == 1 and self._cancel is not None:
            self._cancel()
        elif self.signals > 1:  # os.write: print() is not safe inside a signal handler
            os.write(2, b"arl: already stopping; the evidence bundle is written first\n")

    def run(self, coro: Any) -> Any:
        """``asyncio.run(coro)`` as a task the first signal cancels."""
        import asyncio

        async def main() -> Any:
            loop = asyncio.get_running_loop()
            task = asyncio.ensure_future(coro)
            self._cancel = lambda: loop.call_soon_threadsafe(task.cancel)
            if self.signals:  # a signal came before the task existed
                task.cancel()
            try:
                return await task
            finally:
                self._cancel = None

        return asyncio.run(main())


def confirm(text: str, yes: bool) -> bool:
    """Ask ``text [y/N]`` on the terminal before spending (an estimate shown first); True
    at once with ``--yes``. With no terminal to answer, says on stderr to confirm with
    ``--yes`` and returns False: ``arl suite run`` and ``arl run`` alike."""
    if yes:
        return True
    if not sys.stdin.isatty():
        print(
            "arl: not started: confirm the estimate with --yes when no one can answer "
            "the question (no terminal)",
            file=sys.stderr,
        )
        return False
    # The question goes to stderr: with --json, stdout holds the JSON alone.
    print(f"{text} [y/N] ", end="", file=sys.stderr, flush=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")
