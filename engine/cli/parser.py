"""How ``arl``'s parser is built: in full only for the command being run.

Building every command's options takes about 25 ms (some 40 parsers, 200 options), more
than reading a 0.1 MB pair; ``arl score`` and ``arl text`` should not pay it
(docs/engine.md, "Speed"). ``OneCommand`` stands in for the subparsers action of ``arl``:
the command being run is added in full; any other command gets a bare parser with its help
line (what ``arl --help`` and an unknown command's list of choices show, which are the
same as with every parser built), and its registration stops there (``NotThisCommand``),
so none of its options are built and nothing it would import is imported.

A registrar is a function that adds one command of ``arl``, its first call being
``subparsers.add_parser(name, help=...)``; ``register_each`` runs a list of them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from typing import Any

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

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """The command's parser, as ``argparse``'s ``add_parser``; for a command not being
        run, a bare parser with the same name, aliases and help line, then
        ``NotThisCommand``."""
        if self.command is None or name == self.command:
            parser: argparse.ArgumentParser = self.action.add_parser(name, **kwargs)
            return parser
        bare: dict[str, Any] = {"aliases": kwargs.get("aliases", ()), "add_help": False}
        if "help" in kwargs:
            bare["help"] = kwargs["help"]
        self.action.add_parser(name, **bare)
        raise NotThisCommand(name)


def register_each(subparsers: Any, registrars: Iterable[Registrar], command: str | None) -> None:
    """Run each registrar on ``subparsers``, building in full only ``command``'s parser
    (every one when ``command`` is None)."""
    one = OneCommand(subparsers, command)
    for register in registrars:
        try:
            register(one)
        except NotThisCommand:
            pass


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
