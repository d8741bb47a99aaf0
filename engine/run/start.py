"""The start of a review run: ``ReviewRequest`` (what a run needs) and the two entry points.

``start_review(request)`` is the one start the CLI (``arl run``) and the GUI's Run view
share: it opens the workspace, finishes runs an earlier process left interrupted
(``engine.run.recovery``), stores the document and its comments, and runs a ``ReviewRun``
on them. ``run_review(workspace, document_id, config, ...)`` runs one on a document already
in a workspace. Both are coroutines; run them as a task on the application's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import __version__
from engine.agent.config import AgentConfig
from engine.checks.config import ChecksConfig
from engine.checks.runner import suffix_for
from engine.events import RunEvent, WordRevisionWritten
from engine.models import Comment
from engine.run.checking import RunChecks
from engine.run.records import RunHandle, RunOutcome
from engine.run.recovery import recover_interrupted
from engine.run.review import ReviewRun
from engine.workspace import Workspace

__all__ = [
    "ReviewRequest",
    "prepare_document",
    "run_review",
    "start_review",
    "word_revision_of_run",
]


@dataclass
class ReviewRequest:
    """Everything needed to start a run on a new document (the CLI's arguments, the GUI
    wizard's pages).

    ``raw``: the document source; ``kind``: ``html`` | ``text``; ``comments``: the
    ``engine.models.Comment`` list made on it. ``config`` holds the API key in memory only.
    ``rounds``: the round limit (>= 1). ``out_dir``: parent folder of the bundle (default
    ``<workspace home>/bundles``). ``workspace_path``: the workspace database (default
    ``engine.workspace.default_path()``). ``scripted``: mark the bundle as a scripted
    demonstration. ``key_source``: where the key came from, in words for ``RunStarted``
    (``env``, ``keyring``, ``session``, ``none``; empty: not said).
    """

    config: AgentConfig
    title: str
    raw: str
    kind: str
    comments: list[Comment]
    rounds: int = 3
    out_dir: Path | None = None
    workspace_path: Path | None = None
    scripted: bool = False
    key_source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: 32 bytes of Ed25519 key material to sign the bundle with (``engine.bundle.signing``);
    #: None: unsigned. Callers outside engine/ keep the key (``arl_keys.signing``).
    signing_key: bytes | None = field(default=None, repr=False)
    #: The reviewer's declared checks (docs/checks.md); None: none. ``allow_commands``:
    #: the user let its command checks run (never the checks file's own choice);
    #: ``doc_suffix``: the file suffix a command sees (``.md``, ``.html``...).
    checks: ChecksConfig | None = None
    allow_commands: bool = False
    doc_suffix: str = ""
    #: The reviewed Word file's bytes when the run starts from a ``.docx`` (``raw`` is then
    #: the page it renders to): the agent's final version is written back as a copy of it
    #: whose edits are tracked changes (``engine.word_revision``), to ``word_out`` (default:
    #: beside the bundle folder, ``<bundle folder>-revision.docx``). None: not a Word run.
    word_source: bytes | None = field(default=None, repr=False)
    word_out: Path | None = None


def prepare_document(
    workspace: Workspace, title: str, raw: str, kind: str, comments: list[Comment]
) -> str:
    """Store a document (its first version ``v1``) and its comments; returns the id."""
    doc_id, _ = workspace.create_document(title, raw, kind)
    workspace.add_comments(doc_id, comments)
    return doc_id


async def run_review(
    workspace: Workspace,
    document_id: str,
    config: AgentConfig,
    *,
    rounds: int = 3,
    out_dir: str | Path | None = None,
    handle: RunHandle | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    scripted: bool = False,
    app_version: str = __version__,
    key_source: str = "",
    signing_key: bytes | None = None,
    checks: RunChecks | None = None,
    word_versions: tuple[str, ...] = (),
) -> RunOutcome:
    """Run the review loop on a workspace document; write the evidence bundle.

    ``ReviewRun(...).run()``; see ``ReviewRun`` and the module docstring.
    """
    review = ReviewRun(
        workspace,
        document_id,
        config,
        rounds=rounds,
        out_dir=out_dir,
        handle=handle,
        on_event=on_event,
        scripted=scripted,
        app_version=app_version,
        key_source=key_source,
        signing_key=signing_key,
        checks=checks,
        word_versions=word_versions,
    )
    return await review.run()


async def start_review(
    request: ReviewRequest,
    *,
    handle: RunHandle | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    app_version: str = __version__,
) -> RunOutcome:
    """Open the workspace, store the request's document and comments, run the review loop
    on them, close the workspace. The one start of a run for ``arl run`` and the GUI.

    The workspace work runs in a worker thread (the GUI's loop stays responsive). Raises
    ``WorkspaceError`` when the workspace cannot be opened or the document not stored
    (before any run exists); otherwise as ``ReviewRun.run``.
    """
    loop = asyncio.get_running_loop()

    def open_and_store() -> tuple[Workspace, str]:
        ws = Workspace(request.workspace_path) if request.workspace_path else Workspace()
        try:
            recover_interrupted(
                ws, out_dir=request.out_dir, on_event=held.append, signing_key=request.signing_key
            )
            doc_id = prepare_document(
                ws, request.title, request.raw, request.kind, request.comments
            )
        except BaseException:
            ws.close()
            raise
        return ws, doc_id

    held: list[RunEvent] = []  # recovery events, handed on from the loop's thread
    ws, doc_id = await loop.run_in_executor(None, open_and_store)
    if on_event is not None:
        for ev in held:
            on_event(ev)
    try:
        outcome = await run_review(
            ws,
            doc_id,
            request.config,
            rounds=request.rounds,
            out_dir=request.out_dir,
            handle=handle,
            on_event=on_event,
            scripted=request.scripted,
            app_version=app_version,
            key_source=request.key_source,
            signing_key=request.signing_key,
            checks=None
            if request.checks is None or request.checks.empty
            else RunChecks(
                request.checks,
                request.allow_commands,
                request.doc_suffix or suffix_for(request.kind),
            ),
            # the reviewed version was a Word file; the agent's versions are pages
            word_versions=("v1",) if request.word_source is not None else (),
        )
    finally:
        ws.close()
    if request.word_source is not None and outcome.bundle is not None:
        written = await loop.run_in_executor(None, word_revision_of_run, request, outcome)
        outcome.word_revision = Path(written.path) if written.path else None
        if on_event is not None:
            on_event(written)
    return outcome


def word_revision_of_run(request: ReviewRequest, outcome: RunOutcome) -> WordRevisionWritten:
    """Write the run's final version as tracked changes over ``request.word_source``
    (``engine.word_revision.write_word_revision``); the event says where, or why not."""
    from engine.bundle.read import open_bundle
    from engine.models import InputError
    from engine.text.docx import page_text
    from engine.vocabulary import never_reached_of, plural
    from engine.word_revision import revision_path, revision_words, write_word_revision

    assert outcome.bundle is not None and request.word_source is not None
    never = never_reached_of(outcome.metrics)
    if never:  # no agent work to show as tracked changes: no copy, and why
        return WordRevisionWritten(
            outcome.run_id, path="", text=f"No Word copy of the agent's revision: {never}"
        )
    out = request.word_out or revision_path(outcome.bundle)
    try:
        b = open_bundle(outcome.bundle)
        # as the Word page reads: a page the agent re-indented or wrote on one line keeps
        # its paragraph breaks (engine.text.docx.page_text)
        first, final = page_text(b.versions[0].source), page_text(b.versions[-1].source)
        rev = write_word_revision(request.word_source, first, final, out)
    except (InputError, ValueError, OSError, IndexError) as exc:
        return WordRevisionWritten(
            outcome.run_id,
            path="",
            text=f"The agent's revision was not written as a Word file: {exc}",
        )
    except Exception:  # a defect in writing the copy never fails a run that finished
        import logging

        logging.getLogger(__name__).exception("writing the Word revision failed")
        return WordRevisionWritten(
            outcome.run_id,
            path="",
            text="The agent's revision was not written as a Word file: an unexpected problem "
            "(the log has the details); the evidence bundle is complete",
        )
    notes = tuple(n.words() for n in rev.notes)
    return WordRevisionWritten(
        outcome.run_id,
        path=str(out),
        text=(
            f"The agent's revision as a Word file: {out} ({revision_words(rev, notes=False)}"
            + (f"; {plural(len(notes), 'paragraph note')} below" if notes else "")
            + ")"
        ),
        notes=notes,
    )
