"""Typed events of a review run: one stream, two consumers (the ``arl`` CLI and the GUI).

A run (``engine.run.ReviewRun``) calls its ``on_event`` callback with one of these frozen
dataclasses at each step, on the event loop's thread, in this order::

    RunStarted -> RoundStarted -> (ModelCalled | ToolCalled | NarrationNudged | VersionPushed)*
                 -> ReportReceived -> VerdictsComputed -> ChecksComputed?
                 -> (CommentReopened | ClaimUnchanged)*
                 -> RoundFinished
    ... more rounds ...
    RunFinished (status "completed" or "cancelled")  |  RunFailed

``RunRecovered`` (an earlier, interrupted run finished from the workspace) may come before
``RunStarted``; its ``run_id`` is that earlier run's.

Why this module is long: it is the run's one event vocabulary, a dataclass per event with
its two wordings; split, the CLI and the GUI would import the stream from several places.

Every event has:

- ``run_id``: the workspace run id (str);
- ``at``: wall-clock time of the event, seconds since the epoch (float);
- ``describe() -> str``: one plain sentence for a person (the CLI prints it);
- ``plain(names) -> str``: the desktop program's wording of it: counts in words ("1
  comment", "3 comments"), and each comment called by ``names[comment id]`` ("comment 3",
  the number the Verdicts view shows) instead of its raw id; an id ``names`` lacks is
  quoted ("comment “x9”");
- ``to_json() -> dict``: ``{"type": <class name>, ...fields}``, JSON-serialisable. The
  workspace's event log stores this shape.

Counts are plain integers; ``tokens`` fields count API usage tokens and are ``None`` when the
provider reported no usage (never a zero standing for "unknown"). Offsets never appear here.
A GUI consumer must not block in the callback: copy what it needs and return.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.vocabulary import (
    CHECK_STATUS_WORDS,
    STALE_ANCHOR_MESSAGE,
    VERIFICATION_MESSAGE,
    RunStatus,
    declared_check_title,
    message_sentence,
    plural,
    tool_words,
)


@dataclass(frozen=True)
class RunEvent:
    """Base class. ``run_id`` names the run; ``at`` is seconds since the epoch."""

    run_id: str
    at: float = field(default_factory=time.time, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        out = {"type": type(self).__name__}
        out.update(asdict(self))
        return out

    def describe(self) -> str:  # pragma: no cover - every subclass overrides
        return type(self).__name__

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        """The desktop program's sentence (see the module docstring); ``describe()`` where
        it names no comment and counts nothing."""
        return self.describe()


def comment_called(comment_id: str, names: Mapping[str, str] | None) -> str:
    """What the desktop program calls a comment: ``names[comment_id]`` ("comment 3"),
    else the id quoted ("comment “x9”")."""
    return (names or {}).get(comment_id) or f"comment \u201c{comment_id}\u201d"


@dataclass(frozen=True)
class RunStarted(RunEvent):
    """The run is recorded in the workspace and about to start round 1.

    ``workspace``: the workspace database path; ``comments``: how many comments the
    document has; ``base_url``: the endpoint with any user info masked; ``key_source``:
    where the API key came from (``env``, ``keyring``, ``session``, ``none``; "" when the
    caller did not say). Never the key itself. ``url_note``: what was removed from the
    base URL as given before it was stored or shown (``engine.redact.url_note``; "" when
    nothing was).
    """

    workspace: str
    document_id: str
    comments: int
    model: str
    base_url: str
    max_rounds: int
    key_source: str = ""
    url_note: str = ""

    def describe(self) -> str:
        key = f" (API key: {self.key_source})" if self.key_source else ""
        note = f"; {self.url_note}" if self.url_note else ""
        return (
            f"Workspace {self.workspace}: document {self.document_id}, "
            f"{plural(self.comments, 'comment')}; model {self.model} at {self.base_url}{key}{note}"
        )

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        key = f" (API key: {self.key_source})" if self.key_source else ""
        note = f"; {self.url_note}" if self.url_note else ""
        return (
            f"Run started on {plural(self.comments, 'comment')} with model {self.model} at "
            f"{self.base_url}{key}{note}; kept in the workspace {self.workspace}"
        )


@dataclass(frozen=True)
class RoundStarted(RunEvent):
    """A round begins. ``unresolved``: actionable comments still open (stale ones excluded)."""

    round: int
    max_rounds: int
    version_id: str
    unresolved: int

    def describe(self) -> str:
        return (
            f"Round {self.round} of {self.max_rounds}: {plural(self.unresolved, 'comment')} "
            f"to address, document at version {self.version_id}"
        )

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        return (
            f"Round {self.round} of {self.max_rounds}: {plural(self.unresolved, 'comment')} "
            f"to address, document at version {self.version_id}"
        )


@dataclass(frozen=True)
class ModelCalled(RunEvent):
    """One chat-completions call returned.

    ``purpose``: ``work`` | ``nudge`` | ``report`` | ``author`` | ``check``.
    ``tokens``: total usage tokens of this call, or None when the provider reported none.
    ``run_tokens``: the run's total so far, None once any call reported no usage.
    ``seconds``: wall time of the call including retries.
    """

    round: int
    purpose: str
    tokens: int | None
    run_tokens: int | None
    seconds: float
    retries: int = 0

    def describe(self) -> str:
        used = "no usage reported" if self.tokens is None else f"{self.tokens} tokens"
        total = "unknown" if self.run_tokens is None else str(self.run_tokens)
        extra = (
            f", after {self.retries} retr{'y' if self.retries == 1 else 'ies'}"
            if self.retries
            else ""
        )
        return (
            f"Model call ({self.purpose}) took {self.seconds:.1f} s, {used}{extra}; "
            f"run total {total} tokens"
        )


@dataclass(frozen=True)
class ToolCalled(RunEvent):
    """The agent called a tool. ``ok`` False means an error string went back to the model.

    ``arguments`` is the parsed argument object, with any ``content`` field shortened to its
    length (the pushed document is in the bundle, not in the event). ``comment_id`` is set
    for the comment tools. ``result`` is the first 200 characters of what the model got back.
    """

    round: int
    name: str
    arguments: dict[str, Any]
    ok: bool
    result: str
    comment_id: str | None = None

    def describe(self) -> str:
        target = f" on {self.comment_id}" if self.comment_id else ""
        if self.ok:
            return f"Agent called {self.name}{target}"
        return f"Agent called {self.name}{target}: refused ({self.result})"

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        target = comment_called(self.comment_id, names) if self.comment_id else None
        return tool_words(self.name, target, self.ok, self.result)


@dataclass(frozen=True)
class NarrationNudged(RunEvent):
    """The model ended its turn with talk and no tool call before pushing; the same
    conversation continues with a forced tool call. ``nudge`` counts from 1."""

    round: int
    nudge: int
    max_nudges: int
    narration: str

    def describe(self) -> str:
        return (
            f"The model answered with talk instead of a tool call; nudged "
            f"({self.nudge} of {self.max_nudges}) to use its tools"
        )


@dataclass(frozen=True)
class AgentNotice(RunEvent):
    """Something the run does differently for this server or model, said once per run:
    ``topic`` ``tool_choice`` (the endpoint refused ``tool_choice="required"``: nudges use
    ``auto``), ``report_format:<type>`` (a report format was refused: the next one is
    tried), ``mode`` (auto mode switched to no-tools), ``repeating:<tool>:<arguments>``
    (the same call made ``engine.agent.repeats.REPEAT_LIMIT`` times with nothing changed
    between: the model may be looping; the GUI offers to stop). ``text``: one plain
    sentence that quotes the server where it explained itself."""

    round: int
    topic: str
    text: str

    def describe(self) -> str:
        return self.text


@dataclass(frozen=True)
class VersionPushed(RunEvent):
    """The agent pushed a new version. ``characters``: length of the pushed source."""

    round: int
    version_id: str
    base_version_id: str
    characters: int
    summary: str

    def describe(self) -> str:
        return (
            f"Agent pushed version {self.version_id} (based on {self.base_version_id}, "
            f"{self.characters} characters)"
        )


@dataclass(frozen=True)
class ReportReceived(RunEvent):
    """The agent's structured report for the round. ``usable`` False: claim accuracy is N/A
    with ``problem`` as the reason. ``claims``: comment id -> claim, for usable reports."""

    round: int
    usable: bool
    problem: str
    claims: dict[str, str]

    def describe(self) -> str:
        if not self.usable:
            return f"The agent's report cannot be used: {self.problem}"
        n = len(self.claims)
        addressed = sum(1 for c in self.claims.values() if c == "addressed")
        return f"The agent reported on {plural(n, 'comment')}, claiming {addressed} addressed"

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        if not self.usable:
            return f"The agent's report cannot be used: {self.problem}"
        addressed = sum(1 for c in self.claims.values() if c == "addressed")
        return (
            f"The agent reported on {plural(len(self.claims), 'comment')}, claiming "
            f"{addressed} addressed"
        )


@dataclass(frozen=True)
class VerdictsComputed(RunEvent):
    """Verdicts of every comment, the given version against the latest pushed one.

    ``counts``: verdict -> number (``edited``, ``untouched``, ``deleted``, ``stale_anchor``).
    ``verdicts``: the ``arl score --json`` verdict items. ``metrics``: name -> the metric
    object of ``arl score --json`` (``{"value", "numerator", "denominator"}`` or
    ``{"value": null, "reason"}``). ``stale`` lists the stale-anchor comment ids (each is
    reported with ``STALE_ANCHOR_MESSAGE``). ``unusable``: ``[comment id, reason]`` pairs.
    """

    round: int
    version_id: str
    counts: dict[str, int]
    verdicts: list[dict[str, Any]]
    metrics: dict[str, dict[str, Any]]
    stale: list[str] = field(default_factory=list)
    unusable: list[list[str]] = field(default_factory=list)

    def describe(self) -> str:
        parts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in self.counts.items() if n)
        text = f"Verdicts after round {self.round} (version {self.version_id}): {parts or 'none'}"
        for cid in self.stale:
            text += f"\n{cid}: {STALE_ANCHOR_MESSAGE}"
        return text

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        parts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in self.counts.items() if n)
        text = f"Verdicts after round {self.round} (version {self.version_id}): {parts or 'none'}"
        for cid in self.stale:
            text += "\n" + message_sentence(STALE_ANCHOR_MESSAGE, comment_called(cid, names))
        return text


@dataclass(frozen=True)
class ChecksComputed(RunEvent):
    """The declared checks (docs/checks.md) on the given version and the latest pushed
    one, after the verdicts. ``results``: the revised version's ``CheckResult.to_json()``
    items; ``blocked``: the gate blocks approval ("changes requested"); ``rate``: the
    share of checks that passed, N/A left out, in words."""

    round: int
    version_id: str
    results: list[dict[str, Any]]
    blocked: bool
    rate: str = ""

    def describe(self) -> str:
        head = "changes requested" if self.blocked else "no check blocks"
        lines = [f"Declared checks after round {self.round} (version {self.version_id}): {head}"]
        for r in self.results:
            word = CHECK_STATUS_WORDS.get(str(r.get("status")), "?")
            tail = " (already in the reviewed version)" if r.get("already") else ""
            lines.append(
                f"  {word} {declared_check_title(str(r.get('name')))}: {r.get('summary')}{tail}"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class CommentReopened(RunEvent):
    """Integrity control reopened a comment the agent resolved. ``reason`` is the reply
    posted on its thread; ``message`` is the exact VERIFICATION line of docs/verdicts.md
    (``VERIFICATION_MESSAGE``, or ``STALE_ANCHOR_MESSAGE`` for a stale anchor)."""

    round: int
    comment_id: str
    reason: str
    message: str = VERIFICATION_MESSAGE

    def describe(self) -> str:
        return f"{self.message} (comment {self.comment_id} reopened)"

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        """``describe()`` in sentence case, for the desktop program (the CLI keeps the line)."""
        return f"{message_sentence(self.message, comment_called(self.comment_id, names))}: reopened"


@dataclass(frozen=True)
class ClaimUnchanged(RunEvent):
    """The agent's report claims a comment addressed while its anchored text is unchanged,
    and the agent did not resolve it (so there is nothing to reopen): the VERIFICATION line
    still prints (docs/verdicts.md). ``lookalike_only``: the only change is look-alike
    characters; ``invisible_only``: characters a reader cannot see; ``hidden_only``: text
    hidden from the reader.
    A comment it resolved is a ``CommentReopened`` instead (one line each)."""

    round: int
    comment_id: str
    lookalike_only: bool = False
    message: str = VERIFICATION_MESSAGE
    invisible_only: bool = False
    hidden_only: bool = False

    def _flags(self) -> list[str]:
        on = (self.lookalike_only, self.invisible_only, self.hidden_only)
        words = (
            "look-alike characters only",
            "invisible characters only",
            "only hidden text changed",
        )
        return [w for w, flag in zip(words, on, strict=True) if flag]

    def describe(self) -> str:
        how = "".join(f"; {w}" for w in self._flags())
        return f"{self.message} (comment {self.comment_id}: claimed addressed in the report{how})"

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        """``describe()`` in sentence case, for the desktop program (the CLI keeps the line)."""
        how = "".join(f" ({w})" for w in self._flags())
        return message_sentence(self.message, comment_called(self.comment_id, names)) + how


@dataclass(frozen=True)
class RoundFinished(RunEvent):
    """A round ended. ``seconds``: its wall time; ``model_seconds``: the part spent waiting
    on the model (so the engine's own time is the difference). ``tokens``: usage tokens of
    this round's calls (work, nudges, report), ``run_tokens``: of the run so far; either is
    None when a call reported no usage. ``converged``: no unresolved actionable comment
    remains."""

    round: int
    seconds: float
    model_seconds: float
    tokens: int | None
    converged: bool
    run_tokens: int | None = None

    def describe(self) -> str:
        used = "unknown" if self.tokens is None else f"{self.tokens:,}"
        total = "unknown" if self.run_tokens is None else f"{self.run_tokens:,}"
        state = "all comments resolved" if self.converged else "comments remain open"
        return (
            f"Round {self.round} done in {self.seconds:.1f} s "
            f"({self.model_seconds:.1f} s waiting on the model), {used} tokens this round "
            f"({total} in the run); {state}"
        )


@dataclass(frozen=True)
class RunFinished(RunEvent):
    """The run ended and its bundle is written. ``status``: ``completed`` | ``cancelled``.
    ``reason``: why it stopped, in words (round limit, convergence, cancel...).
    ``metrics``: as in ``VerdictsComputed``. ``bundle``: the bundle folder path."""

    status: RunStatus
    reason: str
    bundle: str
    metrics: dict[str, dict[str, Any]]
    tokens: int | None

    def describe(self) -> str:
        return f"Run {self.status}: {self.reason}. Evidence bundle: {self.bundle}"


@dataclass(frozen=True)
class RunFailed(RunEvent):
    """The run failed (model, network, workspace). A bundle marked ``failed`` was still
    written when possible (``bundle`` is then its path, else empty)."""

    reason: str
    bundle: str = ""

    def describe(self) -> str:
        where = f" Evidence bundle: {self.bundle}" if self.bundle else ""
        return f"Run failed: {self.reason.rstrip('. ')}.{where}"


@dataclass(frozen=True)
class WordRevisionWritten(RunEvent):
    """After a run that started from a ``.docx``: the agent's final version written as a
    copy of it whose edits are tracked changes (``engine.word_revision``). ``path``: the
    file (``""`` when it could not be written); ``text``: one plain sentence saying where,
    what it holds, or why not; ``notes``: the paragraphs whose formatting or text could
    not be kept exactly, each ``Paragraph N ("first words…"): why``."""

    path: str
    text: str
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        return "\n".join([self.text, *(f"  {n}" for n in self.notes)])


@dataclass(frozen=True)
class RunRecovered(RunEvent):
    """Before a new run starts: an earlier run of the workspace whose process died
    (killed, power lost) was finished from the workspace — recorded ``failed`` with
    ``reason`` ("interrupted: ...") and its evidence bundle written (``bundle``; "" when none
    could be). ``run_id`` is that earlier run's id."""

    reason: str
    bundle: str = ""

    def describe(self) -> str:
        where = f" Evidence bundle: {self.bundle}" if self.bundle else ""
        return f"An earlier run ({self.run_id}) was {self.reason}.{where}"


EVENT_TYPES: dict[str, type[RunEvent]] = {
    cls.__name__: cls
    for cls in (
        RunStarted,
        RoundStarted,
        ModelCalled,
        ToolCalled,
        AgentNotice,
        NarrationNudged,
        VersionPushed,
        ReportReceived,
        VerdictsComputed,
        ChecksComputed,
        CommentReopened,
        ClaimUnchanged,
        RoundFinished,
        RunFinished,
        RunFailed,
        RunRecovered,
        WordRevisionWritten,
    )
}

EventSink = Callable[[RunEvent], None]


def event_from_json(obj: dict[str, Any]) -> RunEvent:
    """Rebuild an event from ``to_json()`` output. Raises ValueError on an unknown type."""
    kind = obj.get("type")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    fields = {k: v for k, v in obj.items() if k != "type"}
    return cls(**fields)
