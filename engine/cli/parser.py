"""How ``arl``'s parser is built: in full only for the command being run.

Building every command's options takes about 25 ms (some 40 parsers, 200 options), more
than reading a 0.1 MB pair; ``arl score`` and ``arl text`` should not pay it
(docs/engine.md, "Speed"). ``OneCommand`` stands in for the subparsers action of ``arl``:
the command being run is added in full; any other command gets a bare parser with its help
line (what ``arl --help`` and an unknown command's list of choices show, which are the
same as with every parser built), and its registration stops there (``NotThisCommand``),
so none of its options are built and nothing it would import is imported.

A registrar is a function that adds one command of ``arl``, its first call being
``subparsers.add_parser(name, help=...)``; ``register_each`` runs a list of them. When the
command is ``arl``'s first argument nothing can list the commands (``arl``'s own help and
its unknown-command message need an option or a word before it, or no command), so
``register_each`` stops once that command is built: ``arl score`` does not import the
modules of the review-loop and suite commands to build their help lines.

``ArlParser`` is the parser class of ``arl`` and every command: a mistake on the command
line is one line naming the command and the problem, and where its help is, exit 2 (as
argparse's own), never argparse's usage block.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NoReturn

Registrar = Callable[[Any], None]


class NotThisCommand(Exception):
    """Raised by ``OneCommand.add_parser`` to stop the registration of a command that is
    not the one being run."""


class OneCommand:
    """The subparsers action of ``arl`` with only ``command`` built in full (every command
    when ``command`` is None)."""

    def __init__(self, action: Any, command: str | None) -> None:
        self.action = action
        self.command = command
        self.built = False  # ``command``'s parser was added in full

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """The command's parser, as ``argparse``'s ``add_parser``; for a command not being
        run, a bare parser with the same name, aliases and help line, then
        ``NotThisCommand``."""
        if self.command is None or name == self.command:
            parser: argparse.ArgumentParser = self.action.add_parser(name, **kwargs)
            self.built = self.built or name == self.command
            return parser
        bare: dict[str, Any] = {"aliases": kwargs.get("aliases", ()), "add_help": False}
        if "help" in kwargs:
            bare["help"] = kwargs["help"]
        self.action.add_parser(name, **bare)
        raise NotThisCommand(name)


def register_each(
    subparsers: Any, registrars: Iterable[Registrar], command: str | None, *, listed: bool = True
) -> None:
    """Run each registrar on ``subparsers``, building in full only ``command``'s parser
    (every one when ``command`` is None). ``listed=False``: nothing will list the commands
    (``command`` is ``arl``'s first argument, ``named_first``), so registration stops once
    ``command`` is built and the registrars after it are never taken from ``registrars``
    (which may be a generator that imports their modules as it goes)."""
    one = OneCommand(subparsers, command)
    for register in registrars:
        try:
            register(one)
        except NotThisCommand:
            pass
        if one.built and not listed:
            return


def registrars_from(first: Iterable[Registrar], modules: Iterable[str]) -> Iterator[Registrar]:
    """``first``, then the ``registrars()`` of each module of ``modules``, each imported
    only when its turn comes (never when ``register_each`` stops before it); a module that
    is not installed is skipped."""
    yield from first
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
        else:
            yield from module.registrars()


def named_first(argv: Sequence[str]) -> bool:
    """``arl``'s first argument is the command (``command_word``): ``arl``'s own parser
    then sees no option, so neither its help nor its unknown-command message (the only
    places the other commands are listed) can be reached once that command exists."""
    return bool(argv) and not argv[0].startswith("-")


def command_word(argv: Sequence[str]) -> str:
    """The command named on an ``arl`` command line: its first argument that is not an
    option ("" when there is none). ``arl``'s own options (``-h``, ``--version``) take no
    value, so the first other word is the command (or the word after ``--``)."""
    for i, arg in enumerate(argv):
        if arg == "--":
            return argv[i + 1] if i + 1 < len(argv) else ""
        if not arg.startswith("-"):
            return arg
    return ""


@functools.cache
def _plain() -> tuple[tuple[re.Pattern[str], str | None], ...]:
    """argparse's messages (Python 3.11-3.13) and their plain words (None: an unknown
    command or action); the rest are kept as they are. Compiled on first use: only a
    mistake on the command line needs them."""
    return (
        (re.compile(r"^unrecognized arguments: (.*)$"), r"unknown option or argument: \1"),
        (
            re.compile(r"^argument (COMMAND|ACTION): invalid choice: (.*?) \(choose from (.*)\)$"),
            None,
        ),
        (
            re.compile(r"^argument ([^:]+): invalid int value: (.*)$"),
            r"\1: \2 is not a whole number",
        ),
        (re.compile(r"^argument ([^:]+): invalid float value: (.*)$"), r"\1: \2 is not a number"),
        (
            re.compile(r"^argument ([^:]+): invalid choice: (.*?) \(choose from (.*)\)$"),
            r"\1: \2 is not one of \3",
        ),
        (re.compile(r"^argument ([^:]+): expected one argument$"), r"\1 needs a value"),
        (re.compile(r"^argument ([^:]+): (.*)$"), r"\1: \2"),
    )


def plain_message(message: str) -> str:
    """argparse's error ``message`` in plain words, on one line: ``unrecognized arguments:
    --x`` -> ``unknown option or argument: --x``; ``argument --tokens: invalid int value:
    'a'`` -> ``--tokens: 'a' is not a whole number``; an unknown command -> ``'x' is not a
    command (the commands: text, score, ...)``."""
    message = " ".join(message.split())
    for pattern, words in _plain():
        m = pattern.match(message)
        if m is None:
            continue
        if words is None:  # an unknown command or action
            names = ", ".join(n.strip().strip("'") for n in m.group(3).split(","))
            kind = "command" if m.group(1) == "COMMAND" else "action"
            return f"{m.group(2)} is not a{'n' if kind == 'action' else ''} {kind} (the {kind}s: {names})"
        return m.expand(words)
    return message


def terminal_columns() -> int:
    """The terminal's width in columns as ``shutil.get_terminal_size().columns`` finds it:
    ``COLUMNS`` when it is a whole number above 0, else the width of the terminal of
    standard output, else 80 (no terminal, or one that says 0)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class ArlFormatter(argparse.HelpFormatter):
    """argparse's help formatter with its default width found by ``terminal_columns``, the
    same width: argparse makes a formatter for every option it adds, and its own default
    imports ``shutil`` (and bz2, lzma, fnmatch), about 2 ms of ``arl score``'s start-up
    (more on a loaded machine) that no command uses (docs/engine.md, "Speed")."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2  # as argparse: two columns short of the edge
        super().__init__(prog, indent_increment, max_help_position, width)


class ArlParser(argparse.ArgumentParser):
    """The parser of ``arl`` and of each of its commands (argparse gives a command's parser
    the class of its parent): an error is one line on stderr, ``arl score: --tokens: 'a' is
    not a whole number (see arl score --help)``, and exit 2, as argparse's own. Its help is
    laid out by ``ArlFormatter`` unless a ``formatter_class`` is given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", ArlFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Print the one line (terminal controls escaped: it quotes the command line) and
        exit 2."""
        from engine.cli.common import printable

        line = f"{self.prog}: {plain_message(message)} (see {self.prog} --help)"
        self.exit(2, printable(line) + "\n")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse's, but an argument no parser took is reported by the command it was
        given to (``arl score: unknown option or argument: --x (see arl score --help)``),
        not by ``arl``."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command_parser(self, parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def command_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> Any:
    """The parser of the (sub)command ``parsed`` names, walking ``parser``'s subcommands by
    the values their ``dest`` took; ``parser`` itself when none was named."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            name = getattr(parsed, action.dest or "", None)
            if isinstance(name, str) and name in action.choices:
                return command_parser(action.choices[name], parsed)
    return parser
