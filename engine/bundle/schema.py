"""The JSON shapes of an evidence bundle's files, typed in one place.

Each bundle file has a pydantic model here; ``docs/schemas/<file>.schema.json`` is generated
from these models (``tools/make_bundle_schemas.py``; a test keeps them equal), and
``check_file(name, obj, format)`` validates a parsed file against them. Offsets in spans and
collateral ranges count UTF-16 code units of the version's body textContent (or of the plain
text of a text document).

Format ``arl-bundle/3`` (written now) is ``arl-bundle/2`` plus optional members and fields,
each listed in ``docs/bundle.md`` ("Format arl-bundle/3"): stubs for members over the limits
(the manifest's ``stubbed``), reviewer decisions, declared checks, an external agent's
message, a revised Word file's own tracked changes. A field new in ``/3`` in an older bundle's manifest is a problem (``NEW_IN_V3``).

Format ``arl-bundle/2`` is lossless: every verdict carries its evidence (method, confidence,
similarity, note, repaired-offset, approximate and markup flags, the claim and whether it
agrees, the reopen reason), and every round record carries the same plus its unusable
comments, collateral ranges and the comments the integrity control reopened. Format
``arl-bundle/1`` files are read with the older, smaller verdict shape.

Verdict items allow further fields (a newer engine may add evidence); everything else is
closed: an unknown field is a problem. Types are strict: a number written as a string, or a
list of numbers where verdicts belong, is refused with the path of the bad value.

Why this module is long: every member's shape is typed once, here, so the JSON Schemas
generated from it (``docs/schemas/``) and the reader's validation can never disagree; a
module per member would scatter the shared pieces (spans, verdict items, the format
rules) that the members reuse.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, model_validator

from engine.bundle.formats import FORMAT_V1, FORMAT_V3, NEW_IN_V3
from engine.vocabulary import plural

VerdictWord = Literal["edited", "untouched", "deleted", "stale_anchor"]
ClaimWord = Literal["addressed", "not_addressed", "stale_anchor"]
NonNegInt = Field(ge=0)


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


# -- verdicts.json ---------------------------------------------------------------------------


class SpanJson(_Closed):
    """``text[start:end]`` of one version; offsets in UTF-16 code units."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


class VerdictItemV1(_Open):
    """A verdict as format ``arl-bundle/1`` stored it (the ``arl score --json`` item)."""

    comment_id: str
    verdict: VerdictWord
    v1: SpanJson | None
    v2: SpanJson | None
    method: str
    markup_changed: bool
    claim: ClaimWord | None
    claim_agrees: bool | None
    message: str | None


class VerdictItem(VerdictItemV1):
    """A verdict with all its evidence (format ``arl-bundle/2``).

    ``confidence``: the re-anchoring method's confidence in [0, 1]; ``similarity``: the
    Indel similarity of the v1 and v2 text where one was measured, else null;
    ``offsets_repaired``: the stored v1 offsets did not match the quote;
    ``approximate``: the v2 span was found approximately; ``note``: a plain sentence;
    ``reopen_reason``: why the integrity control reopened the comment, else null.
    ``token_edit`` / ``token_edit_kind`` (``arl-bundle/3``, present only on a token edit):
    an ``edited`` span whose only change is letter case, punctuation, spacing or at most
    two characters, and which, in plain words (docs/verdicts.md, "Token edits").
    ``hidden_only`` (``arl-bundle/3``, present only when true): an ``untouched`` span whose
    text changed only where the reader cannot see it (docs/verdicts.md, "Hidden text")."""

    confidence: float = Field(ge=0, le=1)
    offsets_repaired: bool
    approximate: bool
    note: str
    similarity: float | None = None
    reopen_reason: str | None = None
    token_edit: bool | None = None
    token_edit_kind: str | None = None
    hidden_only: bool | None = None


class UnusableJson(_Closed):
    """A comment that could not be scored, and why."""

    comment_id: str
    reason: str


class CollateralJson(_Closed):
    """Text changed outside every anchor: v2 ``[v2_start, v2_end)`` in UTF-16 units;
    ``deleted``/``inserted``: the text removed from v1 and the text put in its place."""

    v2_start: int = Field(ge=0)
    v2_end: int = Field(ge=0)
    deleted: str
    inserted: str


class ReopenJson(_Closed):
    """A comment the integrity control reopened after a round; ``message`` is the
    VERIFICATION or STALE ANCHOR line."""

    comment_id: str
    reason: str
    message: str


class MetricJson(_Closed):
    """A number with its numerator and denominator, or N/A (``value`` null) with the
    reason. Never a zero standing in for "not measurable"."""

    value: float | None
    numerator: float | None = None
    denominator: float | None = None
    reason: str = ""


class RoundJsonV1(_Closed):
    round: int = Field(ge=0)
    version_id: str
    tokens: int | None = None
    verdicts: list[VerdictItemV1]
    metrics: dict[str, MetricJson]


class RoundJson(_Closed):
    """One round: the version it ended on, the tokens it used (null: not reported), its
    verdicts and metrics against v1, and what the integrity control reopened."""

    round: int = Field(ge=1)
    version_id: str
    tokens: int | None
    verdicts: list[VerdictItem]
    metrics: dict[str, MetricJson]
    unusable: list[UnusableJson]
    collateral: list[CollateralJson]
    reopened: list[ReopenJson]


class VerdictsFileV1(_Closed):
    rounds: list[RoundJsonV1]
    final: list[VerdictItemV1]
    unusable: list[tuple[str, str]] = []
    collateral: list[CollateralJson] = []


class VerdictsFile(_Closed):
    """``verdicts.json``: per round, and the final verdicts of v1 against v2."""

    rounds: list[RoundJson]
    final: list[VerdictItem]
    unusable: list[UnusableJson]
    collateral: list[CollateralJson]


class MetricsFile(RootModel[dict[str, MetricJson]]):
    """``metrics.json``: metric name -> metric (the five metrics of the final scoring)."""


# -- claims.json, comments.*.json --------------------------------------------------------------


class ClaimItemJson(_Closed):
    comment_id: str
    claim: ClaimWord
    change_summary: str = ""
    rationale: str = ""


class ClaimReportJson(_Closed):
    """The agent's report; ``usable`` false: claim accuracy is N/A with ``problem``."""

    comments: list[ClaimItemJson]
    notes: str = ""
    usable: bool = True
    problem: str = ""


class ClaimRoundJson(_Closed):
    round: int = Field(ge=1)
    report: ClaimReportJson
    raw: str


class ClaimsFile(_Closed):
    """``claims.json``: each round's report (parsed and raw), and the last one."""

    rounds: list[ClaimRoundJson]
    final: ClaimReportJson | None


class AnchorJson(_Closed):
    """W3C TextQuoteSelector + TextPositionSelector; offsets in UTF-16 units."""

    quote: str | None
    prefix: str = ""
    suffix: str = ""
    dom_path: str = "body"
    start_offset: int | None = None
    end_offset: int | None = None


class ReplyJson(_Closed):
    author: str
    body: str
    created_at: str = ""
    kind: Literal["reply", "reopen", "resolve"] = "reply"


class CommentJson(_Closed):
    id: str
    body: str
    author: str = ""
    created_on_version_id: str | None = None
    status: Literal["open", "resolved"] = "open"
    actionable: bool = True
    anchor: AnchorJson
    thread: list[ReplyJson] = []


class CommentsFile(_Closed):
    """``comments.before.json`` / ``comments.after.json``."""

    comments: list[CommentJson]


# -- trace.json -----------------------------------------------------------------------------


class UsageJson(_Open):
    """Token usage of the whole run; ``total_tokens`` null when a call reported none."""

    calls: int = Field(ge=0)
    total_tokens: int | None
    calls_without_usage: int = Field(ge=0)


class TraceEntryJson(_Open):
    """One trace entry; ``model_call`` entries carry ``round`` and ``usage``
    (``{"total_tokens": int, ...}`` or null)."""

    seq: int
    kind: str


class TraceFile(_Open):
    """``trace.json``: every model call, tool call, timing and usage; no key."""

    entries: list[TraceEntryJson]
    usage: UsageJson


# -- manifest.json, signature.json ----------------------------------------------------------


class VersionEntryJson(_Closed):
    name: str
    file: str
    text_file: str | None = None
    source_file: str | None = None
    version_id: str
    round: int | None
    summary: str


class EngineJson(_Closed):
    """The engine that scored the bundle: the program's version and a digest of its
    scoring modules (``engine.bundle.rederive.scoring_digest``; "" in a frozen build)."""

    version: str
    scoring_digest: str


class ManifestFile(_Closed):
    """``manifest.json``: what the run was, and the SHA-256 of every other file (except
    ``signature.json``, which signs this file)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    format: Literal["arl-bundle/1", "arl-bundle/2", "arl-bundle/3"]
    app_version: str
    created_at: str
    finished_at: str
    run_id: str
    model: str
    base_url: str
    status: Literal["completed", "cancelled", "failed"]
    reason: str
    scripted: bool
    scripted_note: str | None = None
    document_kind: Literal["html", "text", "markdown"]
    document_title: str
    given_version_id: str
    tokens: int | None
    rounds: int = Field(ge=0)
    versions: list[VersionEntryJson]
    settings: dict[str, Any]
    text_note: str | None = None
    markdown_renderer: str | None = None
    markdown_note: str | None = None
    engine: EngineJson | None = None
    agent_mode: dict[str, Any] | None = None
    stubbed: list[str] | None = None
    #: The versions read from Word files (.docx), by their bundle name ("v1", "v2"): the
    #: bundle keeps the page each one renders to. Absent (older bundles too): none.
    word_versions: list[Literal["v1", "v2"]] | None = Field(None, min_length=1, max_length=2)
    files: dict[str, str]

    @model_validator(mode="after")
    def _fields_of_its_format(self) -> ManifestFile:
        """A field that only ``arl-bundle/3`` defines may not stand in an older manifest."""
        if self.format != FORMAT_V3:
            for name in NEW_IN_V3:
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is a field of arl-bundle/3, not of {self.format}")
            if self.document_kind == "markdown":
                raise ValueError(f"a Markdown document is arl-bundle/3, not {self.format}")
        return self


class StubFile(_Closed):
    """A member too large for the bundle's limits, written in its place (under its own
    name; the manifest lists the name in ``stubbed`` and hashes the stub like any file).
    ``size``: bytes of the member as it would have been written; ``sha256``: hex SHA-256
    of those bytes; ``reason``: which limit it is over, in words."""

    stub: Literal[True]
    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    reason: str


class SignatureFile(_Closed):
    """``signature.json``: an Ed25519 signature over the exact bytes of ``manifest.json``.
    ``public_key``/``signature``: base64 (32 and 64 bytes); ``fingerprint``: the first 16
    hex digits of SHA-256 of the raw public key, in groups of four."""

    algorithm: Literal["Ed25519"]
    public_key: str
    fingerprint: str
    signature: str
    signed_file: Literal["manifest.json"] = "manifest.json"


# -- decisions.json, decisions.signature.json (engine.bundle.decisions) --------------------


class DecisionJson(_Closed):
    """One reviewer decision on one comment's verdict. ``round``: the run's round whose
    verdict was decided on (the manifest's ``rounds``: the final verdict); ``verdict``: the
    verdict decided on; ``reason``: one line, required for every decision but ``accept``;
    ``reviewer_key``: ``"sha256:"`` + 64 hex digits of the signer's raw public key;
    ``decided_at``: UTC ISO 8601 (``2026-12-01T19:50:00Z``). ``check``: on a decision
    whose subject is a declared check, its name (``comment_id`` is then "" and ``verdict``
    the check's result decided on, ``fail``); absent on a comment's decision."""

    comment_id: str = Field(max_length=1000)
    round: int = Field(ge=0)
    verdict: VerdictWord | Literal["fail"]
    decision: Literal[
        "accept", "addressed", "not-addressed", "deletion-is-fix", "declined", "another-round"
    ]
    reason: str = Field(max_length=1000)
    reviewer: str = Field(min_length=1, max_length=200)
    reviewer_key: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    decided_at: str = Field(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
    check: str | None = Field(None, min_length=1, max_length=200)


class DecisionsFile(_Closed):
    """``decisions.json``: every decision in the order made (revisions appended; the latest
    of a comment counts). Outside the manifest; signed in ``decisions.signature.json``."""

    decisions: list[DecisionJson]


class DecisionSignatureJson(_Closed):
    """One reviewer's Ed25519 signature over their decisions and the manifest's SHA-256
    (``engine.bundle.decisions.decision_payload``); ``previous``: the signature of their
    decisions before the last one, kept only while a write is under way."""

    algorithm: Literal["Ed25519"]
    reviewer: str
    public_key: str
    fingerprint: str
    signature: str
    previous: str | None = None


class DecisionsSignatureFile(_Closed):
    """``decisions.signature.json``: the SHA-256 of the exact ``manifest.json`` bytes the
    decisions were made on, and one signature per reviewer key."""

    manifest_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    signatures: list[DecisionSignatureJson]


# -- checks.json (declared checks, docs/checks.md) ------------------------------------------


class CheckResultJson(_Closed):
    """One declared check on one version, bound to the SHA-256 (hex, of the version's
    source as UTF-8: the manifest's hash of its file) of the version it ran on.
    ``output``: the check's output word for word (a command's last 40 lines, redacted);
    ``findings``: the items it compared; ``already``: a FAIL already in the reviewed
    version; ``exit_code``: a command's exit status (null: it did not finish)."""

    name: str
    kind: Literal["placeholders", "links", "sections", "length", "numbers", "command"]
    role: Literal["reviewed", "revised"]
    version_id: str
    sha256: str = Field(pattern="^[0-9a-f]{64}$")
    status: Literal["pass", "fail", "unverified", "na"]
    summary: str
    output: str
    findings: list[str]
    already: bool
    exit_code: int | None = None


class CheckPolicyJson(_Closed):
    unverified: Literal["block", "show"]
    preexisting: Literal["show", "block"]


class CheckSetJson(_Closed):
    """The checks of one pair: the reviewed version's results, the revised one's, and
    whether the gate blocks. ``round``/``version_id``: which round and version (the final
    set has no round)."""

    round: int | None = Field(default=None, ge=1)
    version_id: str
    policy: CheckPolicyJson
    reviewed: list[CheckResultJson]
    revised: list[CheckResultJson]
    blocked: bool


class ChecksFile(_Closed):
    """``checks.json``: the declared checks' names (as ``checks.toml`` declares them),
    whether commands were allowed, each round's results and the final ones, and the
    outcome ("changes requested" when the final gate blocks). Re-derived on verify and on
    open, except a command's results, which are recorded, not re-run."""

    format: Literal[1]
    checks: list[str]
    allow_commands: bool
    rounds: list[CheckSetJson]
    final: CheckSetJson | None
    outcome: Literal["changes requested"] | None
    reason: str


# -- tracked_changes.json (a Word revision's own tracked changes) ---------------------------


class TrackedChangeJson(_Closed):
    """One tracked change of the revised Word file, placed on the last version's text
    (``engine.text.docx_changes.TrackedChange``): ``start``/``end`` UTF-16 units into it
    (``start == end`` for a deletion: where its text stood), ``text`` the inserted or
    deleted text, ``author`` and ``date`` (``w:author``, ``w:date`` as written)."""

    kind: Literal["insertion", "deletion", "move_to", "move_from"]
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str
    author: str
    date: str


class TrackedChangesFile(_Closed):
    """``tracked_changes.json`` (``arl-bundle/3``, optional): the tracked changes the
    revised Word file itself carries (Copilot's, Google Docs suggestions), as a layer the
    reviewer can show over the last version ``version`` (``v2``); the program's own diff
    stays the truth for every verdict. Hashed like every member; not re-derived (the Word
    file is not in the bundle)."""

    format: Literal[1]
    version: str
    changes: list[TrackedChangeJson]


# -- checking -------------------------------------------------------------------------------

MODELS_V2: dict[str, type[BaseModel]] = {
    "manifest.json": ManifestFile,
    "verdicts.json": VerdictsFile,
    "metrics.json": MetricsFile,
    "claims.json": ClaimsFile,
    "comments.before.json": CommentsFile,
    "comments.after.json": CommentsFile,
    "trace.json": TraceFile,
    "signature.json": SignatureFile,
    # not a member's name: the shape of any member written as a stub (``stubbed``)
    "stub.json": StubFile,
    "decisions.json": DecisionsFile,
    "decisions.signature.json": DecisionsSignatureFile,
    "checks.json": ChecksFile,
    "tracked_changes.json": TrackedChangesFile,
}
MODELS_V1: dict[str, type[BaseModel]] = MODELS_V2 | {"verdicts.json": VerdictsFileV1}
MAX_PROBLEMS_PER_FILE = 5


def check_file(name: str, obj: Any, fmt: str = FORMAT_V3) -> list[str]:
    """Problems of the parsed JSON file ``name`` against its shape, as plain lines
    ("verdicts.json: final.2.verdict: Input should be 'edited', ..."); [] when it fits or
    when ``name`` has no shape here. At most ``MAX_PROBLEMS_PER_FILE`` lines, plus a count."""
    model = (MODELS_V1 if fmt == FORMAT_V1 else MODELS_V2).get(name)
    if model is None:
        return []
    once = _checked_once(name, obj)
    if once is not obj:
        try:
            model.model_validate(once)
            return []
        except ValidationError:
            pass  # the whole file again, for the problems' own places
    try:
        model.model_validate(obj)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        out = []
        for err in errors[:MAX_PROBLEMS_PER_FILE]:
            where = ".".join(str(p) for p in err["loc"]) or "(top level)"
            out.append(f"{name}: {where}: {err['msg']}")
        if len(errors) > MAX_PROBLEMS_PER_FILE:
            more = plural(len(errors) - MAX_PROBLEMS_PER_FILE, "more problem")
            out.append(f"{name}: and {more}")
        return out
    return []


def _checked_once(name: str, obj: Any) -> Any:
    """``verdicts.json`` with each round's verdicts that are the final ones (the last round
    of a run, every single-round run) left out: they are the same shape (a list of verdict
    items, in each format), so checking ``final`` checks them. The same values of the same
    types, told by their ``repr`` (``1``, ``1.0`` and ``true`` are equal in Python, not in
    the schema). Any other file, or nothing to leave out: ``obj`` itself."""
    if name != "verdicts.json" or not isinstance(obj, dict):
        return obj
    final, rounds = obj.get("final"), obj.get("rounds")
    if not isinstance(final, list) or not isinstance(rounds, list):
        return obj
    shown = None
    out = []
    for r in rounds:
        if isinstance(r, dict) and isinstance(r.get("verdicts"), list) and r["verdicts"] == final:
            shown = repr(final) if shown is None else shown
            if repr(r["verdicts"]) == shown:
                r = dict(r, verdicts=[])
        out.append(r)
    if all(a is b for a, b in zip(out, rounds, strict=True)):
        return obj
    return dict(obj, rounds=out)


def json_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schema (draft 2020-12) of each ``arl-bundle/3`` file, by schema file name
    (``manifest.schema.json``, ``comments.schema.json``, ...)."""
    out: dict[str, dict[str, Any]] = {}
    for name, model in MODELS_V2.items():
        stem = "comments" if name.startswith("comments.") else name.removesuffix(".json")
        schema = model.model_json_schema()
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"arl-bundle/3/{stem}.schema.json",
            **schema,
        }
        out[f"{stem}.schema.json"] = schema
    return out
