"""The options of ``arl run``, ``author`` and ``doctor``, and the registration of the review-loop
commands (``engine.cli.main`` runs ``registrars()``, one per command, through
``engine.cli.parser``; the commands themselves are in ``engine.cli.loop``, imported only when
one of them runs, ``bundle``/``published`` in ``engine.cli.bundle``, ``comments`` in
``engine.cli.comments``)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.checks import add_check_options
from engine.cli.common import positive_seconds, whole_number
from engine.cli.parser import Registrar

# -- registration ----------------------------------------------------------------------------


def registrars() -> list[Registrar]:
    """The registrars of ``run``, ``author``, ``bundle``, ``published``, ``doctor`` and
    ``comments`` (in that order: ``arl --help`` lists them so)."""
    from engine.cli import bundle as cli_bundle, comments as cli_comments

    return [
        _register_run,
        _register_author,
        cli_bundle.register_bundle,
        cli_bundle.register_published,
        _register_doctor,
        cli_comments.register,
    ]


# The commands, imported when one runs: engine.cli.loop loads the review loop and the agent.


def _cmd_run(args: argparse.Namespace) -> int:
    from engine.cli.loop import cmd_run

    return cmd_run(args)


def _cmd_author(args: argparse.Namespace) -> int:
    from engine.cli.loop import cmd_author

    return cmd_author(args)


def _cmd_doctor(args: argparse.Namespace) -> int:
    from engine.cli.loop import cmd_doctor

    return cmd_doctor(args)


def _register_run(subparsers: Any) -> None:
    r = subparsers.add_parser(
        "run",
        help="run the revision agent on a document and its comments; write an evidence bundle",
    )
    r.add_argument("--doc", metavar="DOC", help="the document (HTML, text or Word .docx)")
    r.add_argument(
        "--from",
        dest="from_bundle",
        metavar="BUNDLE",
        help="run the same review again (another model or settings): the document and the "
        "comments of this evidence bundle, instead of --doc and --comments",
    )
    r.add_argument(
        "--continue",
        dest="continue_bundle",
        metavar="BUNDLE",
        help="the next review: this bundle's last version and its open comments (ids, "
        "threads and versions kept); --comments adds new ones",
    )
    r.add_argument(
        "--comments",
        metavar="FILE",
        help="comments: native JSON or W3C Web Annotation JSON (default: the comments of "
        "the --doc Word file)",
    )
    _add_endpoint_options(r)
    r.add_argument(
        "--out",
        metavar="DIR",
        help="parent folder of the evidence bundle (default: the workspace's bundles folder)",
    )
    r.add_argument(
        "--word-revision",
        metavar="OUT.docx",
        help="for a Word --doc: where to write the agent's revision, a copy of the file whose "
        "edits are tracked changes by 'Revision agent' (default: beside the bundle folder, "
        "<bundle folder>-revision.docx)",
    )
    r.add_argument(
        "--title", help="document title (default: the HTML <title> or the text's first line)"
    )
    r.add_argument("--workspace", metavar="FILE", help=argparse.SUPPRESS)
    r.add_argument(
        "--json",
        action="store_true",
        help='print only {"bundle", "status", "metrics"} on stdout (progress goes to stderr)',
    )
    r.add_argument(
        "--no-sign",
        action="store_true",
        help="do not sign the evidence bundle (runs sign with your key by default)",
    )
    r.add_argument(
        "--yes",
        action="store_true",
        help="start without asking (the estimate is printed first, as for arl suite run)",
    )
    r.add_argument(
        "--price-input",
        type=_price,
        metavar="X",
        help="price per million input tokens, for the estimate's cost",
    )
    r.add_argument(
        "--price-output",
        type=_price,
        metavar="X",
        help="price per million output tokens, for the estimate's cost",
    )
    r.add_argument("--currency", metavar="NAME", help="labels the prices, e.g. USD")
    add_check_options(r)
    r.set_defaults(func=_cmd_run)


def _price(text: str) -> float:
    """A price per million tokens: a finite number, 0 or more."""
    import math

    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(x) or x < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number of at least 0")
    return x


def _add_endpoint_options(r: argparse.ArgumentParser) -> None:
    """``arl run``'s endpoint, model, limits and agent-mode options."""
    r.add_argument(
        "--base-url",
        required=True,
        metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8089/v1",
    )
    r.add_argument("--model", required=True, metavar="NAME")
    r.add_argument(
        "--rounds", type=whole_number, default=3, metavar="N", help="round limit (default 3)"
    )
    r.add_argument(
        "--max-tokens",
        type=whole_number,
        default=None,
        metavar="N",
        help="token limit of the whole run (default: none)",
    )
    r.add_argument(
        "--turns",
        type=whole_number,
        default=16,
        metavar="N",
        help="model turns per round (default 16)",
    )
    r.add_argument(
        "--timeout",
        type=positive_seconds,
        default=120.0,
        metavar="S",
        help="request timeout in seconds (default 120)",
    )
    r.add_argument(
        "--retries",
        type=int,
        default=3,
        metavar="N",
        help="retries on 429, 5xx and timeouts (default 3)",
    )
    r.add_argument(
        "--max-output-tokens",
        type=whole_number,
        default=None,
        metavar="N",
        help="completion-token cap of each work call (default: the server's)",
    )
    r.add_argument(
        "--mode",
        choices=("tools", "no-tools", "auto"),
        default="tools",
        help="tools: the model calls the five tools (default); no-tools: one plain request "
        "per round for the revised document and a disposition per comment, the program "
        "does the tool work (models without tool calling); auto: tools, switching to "
        "no-tools when the server refuses tools or the model calls none in two turns",
    )
    r.add_argument(
        "--echo-tool-results",
        action="store_true",
        help="also repeat tool results in a user message, for servers whose chat "
        "template drops tool messages (llama-cpp-python's "
        "chatml-function-calling)",
    )


def _register_author(subparsers: Any) -> None:
    a = subparsers.add_parser("author", help="write a v1 document from a brief")
    a.add_argument(
        "--brief", metavar="NAME|FILE", help="a shipped brief (see --list-briefs) or a brief file"
    )
    a.add_argument("--base-url", metavar="URL")
    a.add_argument("--model", metavar="NAME")
    a.add_argument("--out", metavar="FILE", help="where to write the HTML document")
    a.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        metavar="S",
        help="request timeout in seconds (default: engine.author.AUTHOR_REQUEST_TIMEOUT, "
        "5 minutes, the same as the desktop program's)",
    )
    a.add_argument("--list-briefs", action="store_true", help="list the shipped briefs")
    a.set_defaults(func=_cmd_author)


def _register_doctor(subparsers: Any) -> None:
    d = subparsers.add_parser(
        "doctor", help="check Python, Qt, keyring, workspace and the model endpoint"
    )
    d.add_argument("--base-url", metavar="URL")
    d.add_argument("--model", metavar="NAME")
    d.add_argument("--no-qt", action="store_true", help=argparse.SUPPRESS)
    d.set_defaults(func=_cmd_doctor)
