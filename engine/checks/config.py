"""The checks file: TOML the reviewer writes, read with ``tomllib`` (docs/checks.md).

``load_checks(path) -> ChecksConfig`` reads a file; ``checks_from_table(table, source)``
reads the same keys from a table already parsed (a suite file's ``[checks]``, the desktop
program's settings). Every key is known: an unknown key, a value of the wrong type or a
pattern that does not compile is an ``InputError`` whose one line names the file and the
key (``checks.toml: unknown key "lenght" (known: ...)``); nothing is half-read.

A check whose key is absent is not run: the reviewer declares what they want checked.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from typing import Any, Literal

import regex

from engine.models import InputError, json_type
from engine.safe_io import BoundedInputError, read_regular_file

CHECKS_MAX_BYTES = 1024 * 1024
"""A checks file larger than this is refused (it is a few lines of settings)."""

UnverifiedPolicy = Literal["block", "show"]
PreexistingPolicy = Literal["show", "block"]

DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 3600.0
"""A command's timeout: at most an hour (a checks file cannot hold a run forever)."""
MAX_COMMANDS = 20
MAX_ARGV = 200
MAX_PATTERNS = 100

BUILTIN_PLACEHOLDERS: tuple[tuple[str, str], ...] = (
    ("{{...}}", r"\{\{[^{}\n]{1,200}\}\}"),
    ("[TODO]", r"\[(?:TODO|todo|To ?do)\b[^\]\n]{0,200}\]"),
    ("TBD", r"\bTBD\b"),
    ("XXX", r"\bXXX\b"),
    ("lorem ipsum", r"(?i)\blorem ipsum\b"),
)
"""The built-in placeholder patterns (``placeholders = true``): name -> regular expression
(the ``regex`` module's syntax, which is Python's ``re`` syntax)."""

_TOP_KEYS = (
    "placeholders",
    "placeholders_strict",
    "links",
    "sections",
    "section_similarity",
    "max_length_drop",
    "numbers_outside_comments",
    "unverified",
    "preexisting",
    "command",
)
_COMMAND_KEYS = ("name", "argv", "timeout_s")


@dataclass(frozen=True)
class CommandSpec:
    """A command check: ``argv`` run without a shell, ``{file}`` in any argument replaced
    by the path of the version's file; stopped after ``timeout_s`` seconds."""

    name: str
    argv: tuple[str, ...]
    timeout_s: float = DEFAULT_TIMEOUT_S

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "argv": list(self.argv), "timeout_s": self.timeout_s}


@dataclass(frozen=True)
class ChecksConfig:
    """The declared checks. ``placeholders``: the regular expressions of the placeholder
    check (empty: not run), with a name each for people; ``placeholders_strict``: FAIL on
    any placeholder left, not only on one lost. ``section_similarity``: the near-match
    threshold of the sections check (docs/checks.md). ``max_length_drop``: a fraction in
    [0, 1), None when the length check is off. ``source``: where it was read from (for
    messages). ``text``: the file's own text when read from a file (the bundle keeps it)."""

    placeholders: tuple[tuple[str, str], ...] = ()
    placeholders_strict: bool = False
    links: bool = False
    sections: bool = False
    section_similarity: float = 0.85
    max_length_drop: float | None = None
    numbers_outside_comments: bool = False
    unverified: UnverifiedPolicy = "block"
    preexisting: PreexistingPolicy = "show"
    commands: tuple[CommandSpec, ...] = ()
    source: str = ""
    text: str = field(default="", repr=False)

    @property
    def empty(self) -> bool:
        """No check is declared."""
        return not self.check_names()

    def check_names(self) -> list[str]:
        """The names of the declared checks, in the order they run and are shown."""
        names = []
        if self.placeholders:
            names.append("placeholders")
        if self.links:
            names.append("links")
        if self.sections:
            names.append("sections")
        if self.max_length_drop is not None:
            names.append("length")
        if self.numbers_outside_comments:
            names.append("numbers")
        names.extend(f"command:{c.name}" for c in self.commands)
        return names

    def to_toml(self) -> str:
        """The checks as a checks file (TOML) that reads back to the same checks: what a
        bundle keeps as ``checks.toml`` when they came from a table (a suite file's
        ``[checks]``), not from a file of their own. Strings are written as JSON strings,
        which are TOML basic strings."""
        import json

        def q(x: str) -> str:
            # TOML wants DEL escaped too (JSON leaves it as it is)
            return json.dumps(x, ensure_ascii=False).replace("\x7f", "\\u007f")

        lines = []
        if self.placeholders:
            if self.placeholders == BUILTIN_PLACEHOLDERS:
                lines.append("placeholders = true")
            else:
                pats = [p for _, p in self.placeholders]
                lines.append(f"placeholders = [{', '.join(q(p) for p in pats)}]")
        lines.append(f"placeholders_strict = {str(self.placeholders_strict).lower()}")
        lines.append(f"links = {str(self.links).lower()}")
        lines.append(f"sections = {str(self.sections).lower()}")
        lines.append(f"section_similarity = {self.section_similarity!r}")
        if self.max_length_drop is not None:
            lines.append(f"max_length_drop = {self.max_length_drop!r}")
        lines.append(f"numbers_outside_comments = {str(self.numbers_outside_comments).lower()}")
        lines.append(f"unverified = {q(self.unverified)}")
        lines.append(f"preexisting = {q(self.preexisting)}")
        for c in self.commands:
            argv = ", ".join(q(a) for a in c.argv)
            lines += ["", "[[command]]", f"name = {q(c.name)}", f"argv = [{argv}]"]
            lines.append(f"timeout_s = {c.timeout_s!r}")
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON (the suite report, the GUI's settings)."""
        return {
            "placeholders": [p for _, p in self.placeholders],
            "placeholders_strict": self.placeholders_strict,
            "links": self.links,
            "sections": self.sections,
            "section_similarity": self.section_similarity,
            "max_length_drop": self.max_length_drop,
            "numbers_outside_comments": self.numbers_outside_comments,
            "unverified": self.unverified,
            "preexisting": self.preexisting,
            "commands": [c.to_json() for c in self.commands],
        }


def load_checks(path: str | os.PathLike[str]) -> ChecksConfig:
    """Read a checks file. Raises ``InputError`` (one line naming the file and the key or
    the TOML error) on anything unusable."""
    source = os.fspath(path)
    try:
        data = read_regular_file(path, max_bytes=CHECKS_MAX_BYTES)
    except BoundedInputError as exc:
        raise InputError(source, exc.problem) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(source, "not UTF-8 text (a checks file is TOML)") from None
    return parse_checks(text, source)


def parse_checks(text: str, source: str) -> ChecksConfig:
    """A checks file's text (TOML). Raises ``InputError`` naming ``source``."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, f"not valid TOML: {str(exc).splitlines()[0]}") from None
    config = checks_from_table(table, source)
    return ChecksConfig(**{**_fields(config), "text": text})


def checks_from_table(table: dict[str, Any], source: str) -> ChecksConfig:
    """The checks declared by an already-parsed table (a checks file, a suite file's
    ``[checks]`` table, the desktop program's settings). Raises ``InputError``."""
    if not isinstance(table, dict):
        raise InputError(source, f"the checks are {json_type(table)}, not a table")
    for key in table:
        if key not in _TOP_KEYS:
            raise InputError(source, f'unknown key "{key}" (known: {", ".join(_TOP_KEYS)})')
    config = ChecksConfig(
        placeholders=_placeholders(table.get("placeholders", False), source),
        placeholders_strict=_bool(table, "placeholders_strict", source),
        links=_bool(table, "links", source),
        sections=_bool(table, "sections", source),
        section_similarity=_fraction(table, "section_similarity", source, 0.85, low=0.5),
        max_length_drop=_length_drop(table.get("max_length_drop"), source),
        numbers_outside_comments=_bool(table, "numbers_outside_comments", source),
        unverified=_choice(table, "unverified", ("block", "show"), source),  # type: ignore[arg-type]
        preexisting=_choice(table, "preexisting", ("show", "block"), source),  # type: ignore[arg-type]
        commands=_commands(table.get("command", []), source),
        source=source,
    )
    # The text a bundle keeps: a table of its own has none, so it is written out.
    return ChecksConfig(**{**_fields(config), "text": config.to_toml()})


def _fields(config: ChecksConfig) -> dict[str, Any]:
    return {name: getattr(config, name) for name in config.__dataclass_fields__}


def _bool(table: dict[str, Any], key: str, source: str) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise InputError(source, f'"{key}" is {json_type(value)}, not true or false')
    return value


def _choice(table: dict[str, Any], key: str, allowed: tuple[str, ...], source: str) -> str:
    value = table.get(key, allowed[0])
    if value not in allowed:
        raise InputError(
            source, f'"{key}" is {value!r}, not one of {", ".join(repr(a) for a in allowed)}'
        )
    return str(value)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _fraction(
    table: dict[str, Any], key: str, source: str, default: float, low: float = 0.0
) -> float:
    value = table.get(key, default)
    x = _number(value)
    if x is None or not low <= x <= 1:
        raise InputError(source, f'"{key}" is {value!r}, not a number from {low:g} to 1')
    return x


def _length_drop(value: Any, source: str) -> float | None:
    if value is None or value is False:
        return None
    x = _number(value)
    if x is None or not 0 <= x < 1:
        raise InputError(
            source,
            f'"max_length_drop" is {value!r}, not a fraction from 0 to below 1 '
            "(0.3: FAIL when the revised text is more than 30% shorter) or false",
        )
    return x


def _placeholders(value: Any, source: str) -> tuple[tuple[str, str], ...]:
    if value is True:
        return BUILTIN_PLACEHOLDERS
    if value is False:
        return ()
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise InputError(
            source,
            '"placeholders" is neither true, false nor a list of regular expressions (text)',
        )
    if len(value) > MAX_PATTERNS:
        raise InputError(
            source, f'"placeholders" lists {len(value)} patterns (at most {MAX_PATTERNS})'
        )
    out: list[tuple[str, str]] = []
    for pattern in value:
        if pattern == "builtin":  # the built-in set beside the reviewer's own
            out.extend(BUILTIN_PLACEHOLDERS)
            continue
        try:
            regex.compile(pattern)
        except regex.error as exc:
            raise InputError(
                source, f'"placeholders": {pattern!r} is not a regular expression ({exc})'
            ) from None
        out.append((pattern, pattern))
    return tuple(out)


def _commands(value: Any, source: str) -> tuple[CommandSpec, ...]:
    if not isinstance(value, list) or not all(isinstance(c, dict) for c in value):
        raise InputError(source, '"command" must be [[command]] tables')
    if len(value) > MAX_COMMANDS:
        raise InputError(source, f"{len(value)} [[command]] tables (at most {MAX_COMMANDS})")
    out: list[CommandSpec] = []
    for i, table in enumerate(value, 1):
        where = f"[[command]] {i}"
        for key in table:
            if key not in _COMMAND_KEYS:
                raise InputError(
                    source,
                    f'{where}: unknown key "{key}" (known: {", ".join(_COMMAND_KEYS)})',
                )
        name = table.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 80:
            raise InputError(source, f'{where}: "name" must be text of 1 to 80 characters')
        if any(c.name == name for c in out):
            raise InputError(source, f'{where}: the name "{name}" is used twice')
        argv = table.get("argv")
        if (
            not isinstance(argv, list)
            or not argv
            or not all(isinstance(a, str) for a in argv)
            or not argv[0].strip()
        ):
            raise InputError(
                source, f'{where} ("{name}"): "argv" must be a list of text, the program first'
            )
        if len(argv) > MAX_ARGV or any("\0" in a for a in argv):
            raise InputError(source, f'{where} ("{name}"): "argv" is too long or holds a NUL')
        timeout = table.get("timeout_s", DEFAULT_TIMEOUT_S)
        t = _number(timeout)
        if t is None or not 0 < t <= MAX_TIMEOUT_S:
            raise InputError(
                source,
                f'{where} ("{name}"): "timeout_s" is {timeout!r}, not a number of seconds '
                f"above 0 and at most {MAX_TIMEOUT_S:g}",
            )
        out.append(CommandSpec(name=name, argv=tuple(argv), timeout_s=t))
    return tuple(out)
