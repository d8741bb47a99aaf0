"""The project's words and number formats, in one place (docs/conventions.md, one vocabulary).

The verdict, method, claim and status values the engine writes into its JSON; the words
people read for them; the five metric names, titles and meanings; and the one format each
metric is written in (docs/metrics.md, "How numbers are written"). The CLI, the scorecard
and the desktop program read this module, so a number reads the same in every view:
``33% (1 of 3)`` everywhere, never ``33.3%`` in one place and ``0.3333 (1 / 3)`` in another.

Values are ``Literal`` types with a tuple of all of them (``VERDICTS``, ``METHODS``...), so a
type checker catches a misspelt value and code can iterate the set.

This module imports nothing from the engine: every layer may use it.

Why this module is long: it is the one vocabulary (docs/conventions.md); split by section,
the same word would again be written in two places, which is what it exists to prevent.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar, get_args

# -- values the engine writes ----------------------------------------------------------------

Verdict = Literal["edited", "untouched", "deleted", "stale_anchor"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

Claim = Literal["addressed", "not_addressed", "stale_anchor"]
CLAIMS: tuple[Claim, ...] = get_args(Claim)

Method = Literal["exact", "moved", "context", "fuzzy", "diff", "none"]
"""How a v2 span was found (docs/verdicts.md, step 2). ``exact``: the v1 span's image in
text the diff kept; ``moved``: the quote unchanged, moved elsewhere (new text in v2, never a
copy kept from v1); ``context``: found by its surrounding text (the copy of a repeated
passage the context names, or the text between the quote's surviving prefix and suffix);
``fuzzy``: an approximate match of a rewritten quote near the mapped place; ``diff``: the
text the diff put in the span's place; ``none``: not found."""
METHODS: tuple[Method, ...] = get_args(Method)
APPROXIMATE_METHODS: frozenset[Method] = frozenset({"fuzzy", "diff"})
"""Methods whose v2 span is an approximation; views say so."""

CommentStatus = Literal["open", "resolved"]
COMMENT_STATUSES: tuple[CommentStatus, ...] = get_args(CommentStatus)

ReplyKind = Literal["reply", "reopen", "resolve"]
REPLY_KINDS: tuple[ReplyKind, ...] = get_args(ReplyKind)

RunStatus = Literal["running", "completed", "cancelled", "failed"]
"""A run's status in the workspace; a bundle records one of the three endings."""
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)

DocumentKind = Literal["html", "text", "markdown"]
"""How a document is read: HTML (its body text), plain text (itself), or Markdown (the
body text of its rendering, engine.text.markdown)."""
DOCUMENT_KINDS: tuple[DocumentKind, ...] = get_args(DocumentKind)
DOCUMENT_KIND_WORDS: dict[DocumentKind, str] = {
    "html": "HTML",
    "text": "plain text",
    "markdown": "Markdown",
}
"""Each kind as people read it ("Ready: Memo (Markdown, 2,310 characters)")."""

MetricName = Literal[
    "attribution_rate",
    "collateral_churn",
    "claim_accuracy",
    "cost_per_attributed_fix",
    "rounds_to_converge",
]
METRIC_NAMES: tuple[MetricName, ...] = get_args(MetricName)
RATIO_METRICS: frozenset[str] = frozenset(
    {"attribution_rate", "collateral_churn", "claim_accuracy"}
)
"""Metrics that are a share, written as a percentage with their fraction."""

_V = TypeVar("_V", bound=str)


#: Bidi embeddings, overrides and isolates (UAX #9): in a page cell they would reorder
#: what follows them (a title with U+202E reads backwards, and so would the cells after it).
_BIDI_FORMATTING = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def html_text(x: object) -> str:
    """``x`` as HTML text or an attribute value: escaped (``& < > " '``), and each bidi
    embedding, override or isolate control written visibly as ``[U+202E]`` (a reader sees
    it was there; it reorders nothing). Letters of right-to-left scripts are unchanged."""
    import html

    text = html.escape("" if x is None else str(x))
    return _BIDI_FORMATTING.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def one_of(value: object, values: tuple[_V, ...]) -> _V | None:
    """``value`` as one of ``values`` (typed as that Literal), or None when it is not one.

    For values read from JSON: ``one_of(obj.get("claim"), CLAIMS)``."""
    for v in values:
        if value == v:
            return v
    return None


# -- exact messages (docs/verdicts.md) -------------------------------------------------------

STALE_ANCHOR_MESSAGE = (
    "ATTRIBUTION: STALE ANCHOR - quote not found in current version; comment left unresolved"
)
VERIFICATION_MESSAGE = "VERIFICATION: MODEL CLAIMED ADDRESSED - ANCHORED TEXT UNCHANGED"


def message_sentence(message: str, called: str | None = None) -> str:
    """The desktop program's sentence-case wording of an exact message above (the CLI and the
    bundle keep the exact line, a contract). ``called``: the words that name the comment
    ("comment 3", ``engine.events.comment_called``); None says "this comment". Any other
    message is returned unchanged."""
    which = called if called is not None else "this comment"
    if message == VERIFICATION_MESSAGE:
        return (
            f"Verification: the model claimed it addressed {which}, "
            "but the anchored text is unchanged"
        )
    if message == STALE_ANCHOR_MESSAGE:
        return (
            f"Stale anchor: the quote of {which} is not in the current version, "
            "so the comment stays unresolved"
        )
    return message


# -- notes a verdict carries (verdicts.json ``note``) and the words people read for them ----
# The stored note is the engine's record (compared by re-derivation, so its wording is a
# contract like the exact messages above); ``note_sentence`` is what every view shows.

NOTE_OFFSETS_REPAIRED = (
    "the stored offsets did not match the quote; repaired from the quote and its context"
)
NOTE_OTHER_COPY = (
    "the stored offsets point at another copy of the quote than the one its "
    "prefix and suffix name; repaired from the context"
)
NOTE_AMBIGUOUS = "the quote occurs more than once with the same context in v1"


def note_made_elsewhere(made_on: str | None, given: str) -> str:
    """The stored note of a comment made on another version and found in ``given``."""
    return f"made on version {made_on}; found in version {given} by its quote"


def note_stale(made_on: str | None, given: str) -> str:
    """The stored note of a stale anchor: made on ``made_on``, its quote absent from ``given``."""
    return f"made on version {made_on}; its quote is not in version {given}, the one the agent was given"


#: ``<run id>/<version id>``, the name a comment carried into a next round is made on.
_EARLIER_RUN_VERSION = re.compile(r"((?:run|check)-[0-9a-f]{6,32})/(\S.*)", re.S)


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")


def _earlier_version_words(version: str) -> str:
    """An earlier run's version in words: "v1" "the first version", "v12" "version 12",
    "revised" "the revised version", any other name "a version (its “name”)"."""
    number = re.fullmatch(r"v(\d{1,6})", version)
    if number:
        n = int(number.group(1))
        return f"the {_ORDINALS[n - 1]} version" if 1 <= n <= len(_ORDINALS) else f"version {n}"
    if version == "revised":
        return "the revised version"
    version = version if len(version) <= 40 else version[:39] + "\u2026"
    return f"a version (its \u201c{version}\u201d)"


def version_words(version_id: object) -> str:
    """A version a comment was made on that is not in the bundle, as people know it: "a
    draft this run does not have (the comments call it “draft-1”)" (the name the comments
    file gives it, for the reader who has that draft, cut to 40 characters with an
    ellipsis, spaces and line breaks as one space); "a draft this run does not have"
    without one; a version of an earlier run (``run-901a758c16f4/v3``, as a comment sent
    back or continued is made on) "the third version of an earlier run" (a check's
    ``check-…/revised``: "the revised version of an earlier check"), without the run's
    raw id, which told a reader nothing. Never the bare id: "another draft (draft-1)" left
    the reader to guess which draft "draft-1" is."""
    text = " ".join(str(version_id or "").split())
    earlier = _EARLIER_RUN_VERSION.fullmatch(text)
    if earlier:  # sent back or continued from a bundle: ``engine.bundle.sendback.made_on``
        run, version = earlier.group(1), earlier.group(2)
        whose = "an earlier check" if run.startswith("check-") else "an earlier run"
        return f"{_earlier_version_words(version)} of {whose}"
    text = text if len(text) <= 40 else text[:39] + "\u2026"
    known = "a draft this run does not have"
    if not text or text == "None":
        return known
    return f"{known} (the comments call it \u201c{text}\u201d)"


#: ``note_stale``'s stored words as a pattern: the version made on, the version given.
_STALE_NOTE = (
    r"made on version (.*?); its quote is not in version (.*?), the one the agent was given"
)


@functools.cache
def _note_words() -> tuple[tuple[re.Pattern[str], Any], ...]:
    """Each note of the engine that ``note_sentence`` rewords, with its words; compiled on
    first use (the screens and the scorecard need them, ``arl score`` does not)."""
    return (
        (
            re.compile(re.escape(NOTE_OFFSETS_REPAIRED)),
            lambda m: "the comment's saved position had shifted; it was found again by its words",
        ),
        (
            re.compile(re.escape(NOTE_OTHER_COPY)),
            lambda m: (
                "the comment's saved position pointed at another copy of its words than "
                "the one its surrounding text names; it was found by that text"
            ),
        ),
        (
            re.compile(re.escape(NOTE_AMBIGUOUS)),
            lambda m: "the quoted words occur more than once in v1 with the same words around them",
        ),
        (
            re.compile(r"made on version (.*?); found in version (.*?) by its quote", re.S),
            lambda m: (
                f"made on {version_words(m.group(1))}; found in the version the agent was "
                "given by its words"
            ),
        ),
        (
            re.compile(_STALE_NOTE, re.S),
            lambda m: (
                f"made on {version_words(m.group(1))}; its words are not in the version "
                "the agent was given"
            ),
        ),
        (
            re.compile(r"(?:^|(?<=; ))token edit: "),
            lambda m: "a token edit \u2014 ",
        ),
    )


def note_sentence(note: object) -> str:
    """A verdict's stored ``note`` (its parts joined by "; ") in the words people read, for
    every view; a part this vocabulary does not know is kept as it is. "" for no note.
    A token edit is named and explained: "a token edit \u2014 only the letter case changed"."""
    text = str(note or "")
    for pattern, words in _note_words():
        text = pattern.sub(words, text)
    return text


#: How a stale anchor's place in v2 was looked for (the "How it was found" column and the
#: detail's "Found in v2 by"): it was not, and it is not counted. Why (the draft it was made
#: on) is the verdict's note (``note_sentence``), said once.
STALE_METHOD_WORDS = "not looked for, as its words are not in v1; not counted"


#: What a reviewer can do about a stale anchor, said once after what it is
#: (``stale_anchor_words``); the same step Send back names (``engine.bundle.sendback``).
STALE_NEXT_STEP = (
    "What you can do: if the comment still applies, add it again on the words of the last "
    "version (Continue this review\u2026 lets you add comments); sent back as it is, it "
    "would be a stale anchor again."
)


def stale_anchor_words(note: object) -> str:
    """A stale anchor said once, in plain words, for the detail pane (which follows it
    with ``STALE_NEXT_STEP``): what happened and why, from its stored ``note``
    (``note_stale``: the version it was made on, said by ``version_words``). "Not
    checked, not counted: this comment was made on a draft this run does not have (the
    comments call it “draft-1”), and the words it points at are not in the version the
    agent was given, so it could not be placed; it stays open." A note without those
    words (an older bundle) says "another version"."""
    found = re.search(_STALE_NOTE, str(note or ""), re.S)
    where = version_words(found.group(1)) if found else "another version"
    return (
        f"Not checked, not counted: this comment was made on {where}, and the words it "
        "points at are not in the version the agent was given, so it could not be placed; "
        "it stays open."
    )


# -- words people read -----------------------------------------------------------------------

VERDICT_ICONS: dict[str, str] = {
    "edited": "\u270e",  # ✎
    "untouched": "\u25cb",  # ○
    "deleted": "\u2715",  # ✕
    "stale_anchor": "?",
}
"""One icon per verdict, shown beside its colour and label (never colour alone)."""

VERDICT_LABELS: dict[str, str] = {
    "edited": "edited",
    "untouched": "untouched",
    "deleted": "deleted",
    "stale_anchor": "stale anchor",
}

VERDICT_MEANINGS: dict[str, str] = {
    "edited": "the anchored text was changed",
    "untouched": "the anchored text is unchanged",
    "deleted": "the quoted text is gone from the new version",
    "stale_anchor": "made on another version and absent from the one the agent was given; "
    "not counted",
}

METHOD_WORDS: dict[str, str] = {
    "exact": "found in the same place",
    "moved": "moved elsewhere, text unchanged",
    "context": "found by its surrounding text",
    "fuzzy": "found approximately (rewritten in place)",
    "diff": "compared with the text that replaced it",
    "none": "not found in the new version",
}

CLAIM_WORDS: dict[str, str] = {
    "addressed": "addressed",
    "not_addressed": "not addressed",
    "stale_anchor": "stale anchor",
}

RUN_STATUS_WORDS: dict[str, str] = {
    "running": "Run in progress",
    "completed": "Run completed",
    "cancelled": "Run cancelled before it finished",
    "failed": "Run failed",
}

METRIC_TITLES: dict[str, str] = {
    "attribution_rate": "Attribution rate",
    "collateral_churn": "Collateral churn",
    "claim_accuracy": "Claim accuracy",
    "cost_per_attributed_fix": "Cost per attributed fix",
    "rounds_to_converge": "Rounds to converge",
}

METRIC_MEANINGS: dict[str, str] = {
    "attribution_rate": "Actionable comments whose anchored text was really edited, out of "
    "all actionable comments (stale anchors not counted). Higher is better.",
    "collateral_churn": "Characters changed outside every anchored passage, out of all "
    "characters changed. Lower is better: the agent should only touch what a comment "
    "points at.",
    "claim_accuracy": "The agent's claims that agree with the measured verdict, out of the "
    "claims it made about actionable comments. Higher is better.",
    "cost_per_attributed_fix": "API usage tokens of the whole run, per comment actually "
    "edited. No currency is assumed.",
    "rounds_to_converge": "Pushes until no unresolved actionable comment remained.",
}

#: Cost per attributed fix for a revision made elsewhere and checked here: no run of this
#: program's, so not "of the whole run"; its tokens are those typed when it was checked.
CHECKED_COST_MEANING = (
    "API usage tokens the agent took to make the revision elsewhere (only when they were "
    "typed in when it was checked here), per comment actually edited. No currency is assumed."
)


def metric_meaning(name: str, external: bool = False) -> str:
    """What ``name`` measures (``METRIC_MEANINGS``); for a revision made elsewhere and
    checked here (``external``), cost per attributed fix says a check, not a run."""
    if external and name == "cost_per_attributed_fix":
        return CHECKED_COST_MEANING
    return METRIC_MEANINGS[name]


_FRACTION_NOUNS: dict[str, str] = {
    "attribution_rate": "actionable comments edited",
    "collateral_churn": "changed characters outside every anchor",
    "claim_accuracy": "claims agree with the measured verdict",
}


def verdict_label(verdict: str) -> str:
    """Icon and label, e.g. ``✎ edited``; an unknown value is shown as itself."""
    label = VERDICT_LABELS.get(verdict, verdict.replace("_", " "))
    icon = VERDICT_ICONS.get(verdict)
    return f"{icon} {label}" if icon else label


def claim_words(claim: str | None) -> str:
    """``addressed``, ``not addressed``, ``stale anchor``; ``no claim`` for None."""
    if not claim:
        return "no claim"
    return CLAIM_WORDS.get(claim, claim.replace("_", " "))


CHECK_LABELS: dict[str, str] = {
    "endpoint reachable": "the server answers",
    "model present": "the server has this model",
    "tool calls": "the model can call a tool",
    "tool_choice required": "the server can be made to call a tool",
    "json_object": "the server can return a JSON report",
    "json_schema": "the server can return a JSON report in a set shape",
    "reasoning output": "the model's thinking is kept apart from its answer",
    "usage reported": "the server reports the tokens it used",
    "context length": "how much text the model can read at once",
}
"""Plain words for the connection checks (``engine.doctor``'s check names, which stay the
machine keys of endpoints.json and the CLI's ``arl doctor`` lines)."""

CHECK_TECHNICAL: dict[str, str] = {
    "tool_choice required": "tool_choice=required",
    "json_object": "response_format=json_object",
    "json_schema": "response_format=json_schema",
}
"""The OpenAI-API names behind a check, shown after its plain words (or in a tooltip)."""


def check_label(name: str) -> str:
    """A connection check in plain words, capitalised; the name itself when unknown."""
    words = CHECK_LABELS.get(name, name)
    return words[:1].upper() + words[1:]


def similarity_words(item: Mapping[str, Any]) -> str:
    """How alike a verdict item's v1 and v2 texts are, in words: "55% similar" from its
    ``similarity`` (Indel, in [0, 1], characters compared as they are); "only the letter
    case changed" (or "... letter case and spacing ...") when the two texts differ in
    nothing else, where a character similarity would read misleadingly low (a sentence
    put in capitals scores near 0%). "" when the item has no similarity."""
    sim = item.get("similarity")
    if not isinstance(sim, (int, float)) or isinstance(sim, bool):
        return ""
    t1 = (item.get("v1") or {}).get("text")
    t2 = (item.get("v2") or {}).get("text")
    if isinstance(t1, str) and isinstance(t2, str) and t1 != t2:
        if t1.casefold() == t2.casefold():
            return "only the letter case changed"
        if " ".join(t1.casefold().split()) == " ".join(t2.casefold().split()):
            return "only the letter case and spacing changed"
    return f"{percent(sim)} similar"


def token_edits_words(kinds: list[str]) -> str:
    """How many of the edited verdicts are token edits, and of which kind, from their
    ``token_edit_kind`` words (docs/verdicts.md, "Token edits"): "3 of them token edits:
    only the letter case changed"; kinds that differ are listed most frequent first, each
    with its count. "" for none."""
    if not kinds:
        return ""
    n = len(kinds)
    head = f"{n} of them token edits" if n != 1 else "1 of them a token edit"
    counts = Counter(kinds).most_common()
    if len(counts) == 1:
        return f"{head}: {counts[0][0]}"
    return f"{head}: " + "; ".join(f"{kind} ({k})" for kind, k in counts)


def token_edit_items(items: Iterable[Any]) -> tuple[int, list[str]]:
    """(edited verdicts, the token-edit kinds among them) of verdict items (the bundle's
    ``final`` / ``arl score --json`` dicts)."""
    edited, kinds = 0, []
    for v in items:
        if isinstance(v, Mapping) and v.get("verdict") == "edited":
            edited += 1
            if v.get("token_edit") is True:
                kind = v.get("token_edit_kind")
                kinds.append(kind if isinstance(kind, str) and kind else "token edit")
    return edited, kinds


def hidden_only_words(items: Iterable[Any]) -> str:
    """ "2 untouched comments changed only in text hidden from the reader" for the verdict
    items flagged ``hidden_only`` (docs/verdicts.md, "Hidden text"), "" for none."""
    n = sum(1 for v in items if isinstance(v, Mapping) and v.get("hidden_only") is True)
    if not n:
        return ""
    return f"{plural(n, 'untouched comment')} changed only in text hidden from the reader"


def agent_mode_words(mode: Mapping[str, Any]) -> str:
    """A run's agent mode in plain words, from the manifest's ``agent_mode`` record
    (``{"requested", "ran", "reason"}``; docs/providers.md), e.g. "The model worked with
    tools (as asked)". The stored reason is kept where it says why auto mode switched."""
    requested = str(mode.get("requested") or "")
    ran = str(mode.get("ran") or requested)
    reason = str(mode.get("reason") or "")
    if ran == "tools":
        if requested == "auto":
            return "The model worked with tools (auto mode: it called them)"
        return "The model worked with tools (as asked)"
    if ran == "external":
        return (
            "The agent ran elsewhere, outside this program; what it said is kept word for "
            "word and read as its claims"
        )
    if ran == "no-tools":
        did = "; the program did the tool work for it"
        if requested == "no-tools":
            return "The model worked without tools (as asked)" + did
        why = reason.split("switched to no-tools: ", 1)[-1] if reason else ""
        if not why or (why == reason and "no-tools" in why):
            why = "its server or the model could not use tools"
        return f"The model worked without tools (auto mode switched: {why})" + did
    return f"{ran}: {reason}" if reason else ran


EXTERNAL_USAGE = "the agent ran elsewhere: no usage was reported"
"""Why the tokens of a revision made outside this program are N/A, as bundles store it
(``metrics.json``, re-derived word for word); people read ``EXTERNAL_USAGE_WORDS``
(``plain_reason``): there was no provider to report anything."""

EXTERNAL_AGENT = "the revision was made by an agent outside this program"
"""The one cause of every fact a revision checked here lacks (``agent_mode.ran``
``external``): no model, endpoint, usage or round of this program's was involved."""

EXTERNAL_USAGE_WORDS = f"no tokens were measured: {EXTERNAL_AGENT}"
"""What people read for ``EXTERNAL_USAGE`` (a metric's N/A reason)."""

#: A fact of the "About this run" kind for a revision checked here, said with its true
#: cause, never "not reported by the provider" (there was none), never a zero. The keys are
#: the manifest's fields.
EXTERNAL_FACT_WORDS: dict[str, str] = {
    "model": "not known: the agent ran outside this program",
    "base_url": "none: the agent ran outside this program",
    "tokens": f"not measured: {EXTERNAL_AGENT}",
    "rounds": "none: the agent ran outside this program; its revision was checked here",
}


def is_external(manifest: Mapping[str, Any]) -> bool:
    """True for a bundle of a revision made outside this program and checked here (its
    agent mode, ``agent_mode.ran`` or ``settings.agent_mode.ran``, is ``external``)."""
    mode = manifest.get("agent_mode")
    settings = manifest.get("settings")
    if not isinstance(mode, Mapping) and isinstance(settings, Mapping):
        mode = settings.get("agent_mode")
    return isinstance(mode, Mapping) and mode.get("ran") == "external"


#: How a revision made elsewhere and checked here ended (its status is ``completed``),
#: never "Run completed" (no run took place in this program), and why.
EXTERNAL_STATUS_WORDS = "A revision made elsewhere, checked here"
EXTERNAL_NO_RUN = "the agent ran outside this program; no run took place in it"


def status_words(manifest: Mapping[str, Any], status: str | None = None) -> str:
    """How a bundle's run ended, as a headline: ``RUN_STATUS_WORDS`` ("Run completed"),
    ``EXTERNAL_STATUS_WORDS`` for a completed revision checked here (``is_external``);
    ``status`` defaults to the manifest's."""
    status = str(manifest.get("status") or "") if status is None else status
    if status == "completed" and is_external(manifest):
        return EXTERNAL_STATUS_WORDS
    return RUN_STATUS_WORDS.get(status, f"Run status: {status}")


def untitled_words(manifest: Mapping[str, Any]) -> str:
    """A bundle whose document has no title, named in words, never by its folder
    ("run-20261201-..."): "Untitled check of 2 Dec 2026, 14:29 UTC" (``when_words`` of its
    start), "Untitled run of ..."; "Untitled document" when no time is recorded."""
    for key in ("created_at", "finished_at"):
        iso = manifest.get(key)
        if isinstance(iso, str) and iso.strip() and when_words(iso) != iso:
            return f"Untitled {run_or_check(manifest)} of {when_words(iso)}"
    return "Untitled document"


def run_or_check(manifest: Mapping[str, Any]) -> str:
    """What a bundle records, in one word: "check" for a revision checked here
    (``is_external``), else "run"."""
    return "check" if is_external(manifest) else "run"


def external_fact(manifest: Mapping[str, Any], field: str, value: Any) -> Any:
    """``value`` of the manifest's ``field`` ("model", "base_url", "tokens", "rounds") as
    a run's facts show it: for a revision checked here (``is_external``) the true cause
    (``EXTERNAL_FACT_WORDS``) when the bundle holds no value of its own (a model, endpoint or
    token count; its ``rounds``, always 1, is not a round this program ran); else ``value``
    unchanged."""
    if not is_external(manifest) or field not in EXTERNAL_FACT_WORDS:
        return value
    if field != "rounds" and value not in (None, ""):
        return value
    return EXTERNAL_FACT_WORDS[field]


def plural(n: float, one: str, many: str | None = None) -> str:
    """``1 push``, ``2 pushes``: the count (thousands separated) and its noun."""
    return f"{count(n)} {one if n == 1 else (many or one + 's')}"


# -- numbers -----------------------------------------------------------------------------------


def count(x: float | int) -> str:
    """A count with thousands separators: ``1,234``; a non-whole number keeps two decimals."""
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.2f}"


NEVER_REACHED = "the model was never reached"
"""The start of every metric's N/A reason for a run that failed before any model answer
(``engine.score.metrics.never_reached_reason``; docs/metrics.md)."""


def never_reached_of(metrics: Mapping[str, Any] | None) -> str:
    """The "the model was never reached: <why>" reason a run's final metrics carry (its
    cost per attributed fix, as ``Metric`` or its JSON), "" when they carry none."""
    m = (metrics or {}).get("cost_per_attributed_fix")
    if m is None or not metric_is_na(m):
        return ""
    reason = metric_reason(m)
    return reason if reason.startswith(NEVER_REACHED) else ""


def tokens_text(tokens: Any, never_reached: str = "") -> str:
    """A run's token count as people read it: ``12,345 tokens``, or N/A with the reason
    when the provider reported none (never a zero); N/A with ``never_reached`` (a run
    that failed before any model answer: ``never_reached_of``) whatever ``tokens`` says."""
    if never_reached:
        return f"tokens N/A \u2014 {never_reached}"
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        return f"{count(tokens)} tokens"
    return "N/A — the provider reported no token usage"


#: What a run says when a server sent token usage that is not plain whole numbers (numbers
#: as strings, decimals, negatives, a string instead of the usage object).
USAGE_NOT_WHOLE_NUMBERS = "token usage came in a form that is not whole numbers"


def usage_reason(calls: int, unreported: int, not_whole: int = 0) -> str:
    """Why a run's token count is unknown, in words ("" when every call's usage counted).
    ``calls``: model calls answered; ``unreported``: calls with no usage at all;
    ``not_whole``: calls whose usage came as something else than whole numbers. The run
    (``engine.agent.config.Usage``) and re-derivation (``engine.bundle.rederive``) both say it
    with this function, so the reason in a bundle re-derives word for word; that is why its
    words stay as bundles store them ("model call(s)"): every view shows a reason through
    ``plain_reason``, which says "1 of 3 model calls"."""
    parts = []
    if unreported:
        parts.append(
            f"the provider reported no token usage for {unreported} of {calls} model call(s)"
        )
    if not_whole:
        parts.append(f"{USAGE_NOT_WHOLE_NUMBERS} for {not_whole} of {calls} model call(s)")
    return "; ".join(parts)


def percent(value: float) -> str:
    """A share in [0, 1] as a whole percentage.

    A rounding never reads as none or as all: a value above 0 that rounds to 0 is ``<1%``,
    and a value below 1 that rounds to 100 is ``>99%``.
    """
    p = round(value * 100)
    if p == 0 and value > 0:
        return "<1%"
    if p == 100 and value < 1:
        return ">99%"
    return f"{p}%"


def _field(m: Any, key: str) -> Any:
    if isinstance(m, Mapping):
        return m.get(key)
    return getattr(m, key, None)


def metric_is_na(m: Any) -> bool:
    """True for a metric the engine marked N/A (value None), or a missing one."""
    return m is None or _field(m, "value") is None


def metric_reason(m: Any) -> str:
    """Why a metric is N/A, in words."""
    if m is None:
        return "not recorded"
    return plain_reason(str(_field(m, "reason") or "no reason given"))


def metric_value(name: str, m: Any) -> str:
    """The headline: ``33%``, ``1,234 tokens per fix``, ``2 pushes``, or ``N/A``.

    ``m``: an ``engine.models.Metric`` or its JSON object."""
    if metric_is_na(m):
        return "N/A"
    v = _field(m, "value")
    if name in RATIO_METRICS:
        return percent(float(v))
    if name == "cost_per_attributed_fix":
        return f"{count(round(v))} tokens per fix"
    if name == "rounds_to_converge":
        return plural(v, "push", "pushes")
    return count(v)


def metric_fraction(name: str, m: Any) -> str:
    """The numbers behind the headline: ``1 of 3``, ``2,468 tokens / 2 edited``; empty
    when the headline says it all (rounds to converge) or the metric is N/A."""
    if metric_is_na(m):
        return ""
    num, den = _field(m, "numerator"), _field(m, "denominator")
    if num is None or den is None or name == "rounds_to_converge":
        return ""
    if name == "cost_per_attributed_fix":
        return f"{count(num)} tokens / {count(den)} edited"
    return f"{count(num)} of {count(den)}"


def metric_text(name: str, m: Any) -> str:
    """The one way a metric is written: ``33% (1 of 3)``, ``1,234 tokens per fix (2,468
    tokens / 2 edited)``, ``2 pushes``, or ``N/A — <reason>``."""
    if metric_is_na(m):
        return f"N/A \u2014 {metric_reason(m)}"
    head, frac = metric_value(name, m), metric_fraction(name, m)
    return f"{head} ({frac})" if frac else head


def metric_detail(name: str, m: Any) -> str:
    """The fraction in words (``1 of 3 actionable comments edited``), or the N/A reason."""
    if metric_is_na(m):
        return metric_reason(m)
    frac = metric_fraction(name, m)
    if name in _FRACTION_NOUNS and frac:
        return f"{frac} {_FRACTION_NOUNS[name]}"
    if name == "cost_per_attributed_fix" and frac:
        den = _field(m, "denominator")
        return f"{count(_field(m, 'numerator'))} tokens / {plural(den, 'edited comment')}"
    if name == "rounds_to_converge":
        return metric_value(name, m)
    return frac


_JSON_DETAIL = re.compile(r"the report is not valid JSON\b[^()]*?(?=\)|$)")
_CUT_OFF_JSON = re.compile(
    r"(cut off at its limit of [\d,]+ tokens) \(the report is not valid JSON\b[^()]*\)"
)
#: The plain words for a report the JSON parser could not read ("not valid JSON" stays in
#: claims.json, metrics.json and the CLI).
REPORT_UNREADABLE = "the report could not be read: it is not in the form the agent was asked for"


#: A count's noun with a parenthesised plural, as bundles store some reasons word for word
#: ("3 comment(s) unresolved", "1 of 3 model call(s)", "2 push(es)", "1 repl(ies)"): the
#: count is the nearest number before the noun, at most three words before it. English
#: nouns only (the endings are English); anything else is left as it is.
_COUNTED_NOUN = re.compile(r"\b(\d[\d,]*)((?: [A-Za-z-]+){0,3}?) ([A-Za-z]+)\((s|es|ies)\)")


def counted_words(text: str) -> str:
    """``text`` with each count's noun said as the count asks: ``1 of 3 model call(s)`` ->
    ``1 of 3 model calls``, ``1 comment(s)`` -> ``1 comment``, ``2 push(es)`` -> ``2
    pushes``, ``1 repl(ies)`` -> ``1 reply``; a "(s)" with no count before it is left."""

    def one(m: re.Match[str]) -> str:
        n, between, noun, ending = m.groups()
        said = ("y" if ending == "ies" else "") if n == "1" else ending
        return f"{n}{between} {noun}{said}"

    return _COUNTED_NOUN.sub(one, text)


#: A no-tools answer's problems as bundles before 2 Dec 2026 stored them (the example suite's
#: runs among them), in the words ``engine.agent.notools.parse_answer`` says them now.
_OLD_ANSWER_PROBLEMS = {
    "the answer has no document between the markers": "the model's answer held no revised document",
    "the document has no end marker (cut off?), so it was not pushed": (
        "the revised document in the answer has no end line (it may have been cut off), "
        "so it was not saved"
    ),
    "no document markers; the <html> document in the answer was used": (
        "the answer did not mark where the document starts and ends; the HTML document in "
        "it was used"
    ),
}


def plain_reason(reason: str) -> str:
    """A reason in plain words for people: the JSON parser's detail ("unterminated string
    starting at character 5257 of 5279") is left out (it stays in claims.json and
    metrics.json). ``"the report was cut off at its limit of 1400 tokens (the report is not
    valid JSON: unterminated ...)"`` -> ``"the report was cut off at its limit of 1400
    tokens, so it could not be read"``; "the report is not valid JSON: ..." ->
    ``REPORT_UNREADABLE``; a revision made elsewhere's ``EXTERNAL_USAGE`` ->
    ``EXTERNAL_USAGE_WORDS``; a no-tools answer's problem in an older bundle's words
    ("the answer has no document between the markers") -> today's plain words ("the
    model's answer held no revised document"). Counts read in words (``counted_words``): reasons a
    bundle stores, and re-derives word for word, keep their "model call(s)"."""
    text = _CUT_OFF_JSON.sub(r"\1, so it could not be read", reason)
    text = _JSON_DETAIL.sub(REPORT_UNREADABLE, text)
    text = text.replace(EXTERNAL_USAGE, EXTERNAL_USAGE_WORDS)
    for stored, words in _OLD_ANSWER_PROBLEMS.items():
        text = text.replace(stored, words)
    return counted_words(text)


# -- declared checks (docs/checks.md) --------------------------------------------------------

CheckStatus = Literal["pass", "fail", "unverified", "na"]
"""A declared check's result on one version: PASS, FAIL, UNVERIFIED (it timed out, could
not start, its tool is missing, commands were not allowed), N/A (nothing to check)."""
CHECK_STATUSES: tuple[CheckStatus, ...] = get_args(CheckStatus)
CHECK_STATUS_WORDS: dict[str, str] = {
    "pass": "PASS",
    "fail": "FAIL",
    "unverified": "UNVERIFIED",
    "na": "N/A",
}
DECLARED_CHECK_TITLES: dict[str, str] = {
    "placeholders": "Placeholders kept",
    "links": "Links kept",
    "sections": "Sections kept",
    "length": "Length kept",
    "numbers": "Numbers and dates outside comments",
}
ALREADY_IN_REVIEWED = "already in the reviewed version"
RECORDED_NOT_RERUN = "recorded, not re-run"
CHANGES_REQUESTED = "changes requested"

Outcome = Literal["tampered", "changes_requested", "awaiting_review", "token_edits"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
"""The outcomes a bundle's first line can say, most serious first: a view shows the first
that holds (TAMPERED, then changes requested, then awaiting review, then token edits)."""
OUTCOME_WORDS: dict[str, str] = {
    "tampered": "TAMPERED",
    "changes_requested": "Changes requested",
    "awaiting_review": "Awaiting review",
    "token_edits": "Token edits",
}


def first_outcome(holding: set[str] | frozenset[str]) -> Outcome | None:
    """The most serious outcome of those that hold (``OUTCOMES`` order); None for none."""
    for outcome in OUTCOMES:
        if outcome in holding:
            return outcome
    return None


def outcome_headline(
    *,
    tampered: bool = False,
    changes_requested: bool = False,
    awaiting: int = 0,
    actionable: int = 0,
    token_edits: int = 0,
    edited: int = 0,
) -> str:
    """A bundle's first line, the most serious outcome that holds (``first_outcome``):
    "TAMPERED", "Changes requested", "Awaiting review (2 of 2)" (actionable comments with
    no reviewer decision, of the actionable ones), "Token edits (2 of 3 edited)"; "" when
    none holds. The one wording for every view that leads with the outcome (the scorecard,
    the Verdicts banner, the Published tab and the published index)."""
    holding = {
        name
        for name, holds in (
            ("tampered", tampered),
            ("changes_requested", changes_requested),
            ("awaiting_review", awaiting > 0),
            ("token_edits", token_edits > 0),
        )
        if holds
    }
    first = first_outcome(holding)
    if first is None:
        return ""
    words = OUTCOME_WORDS[first]
    if first == "awaiting_review":
        return f"{words} ({awaiting} of {actionable})"
    if first == "token_edits":
        return f"{words} ({token_edits} of {edited} edited)"
    return words


def declared_check_title(name: str) -> str:
    """A declared check's name for people: "Links kept", "Command: style"."""
    if name.startswith("command:"):
        return f"Command: {name.split(':', 1)[1]}"
    return DECLARED_CHECK_TITLES.get(name, name)


def check_rate_text(passed: int, counted: int) -> str:
    """The share of checks that passed, N/A left out: ``75% (3 of 4)``; with nothing to
    count, ``N/A: every check was N/A`` (never 0%)."""
    if counted <= 0:
        return "N/A: no check gave PASS, FAIL or UNVERIFIED"
    return f"{percent(passed / counted)} ({passed} of {counted})"


def when_words(iso: str) -> str:
    """An ISO 8601 time (``2026-12-01T10:23:05Z``) as people read it: ``1 Dec 2026, 10:23
    UTC`` (the zone as stated; local times say no zone). ``iso`` itself when it is not one."""
    from datetime import datetime

    text = iso.strip()
    try:
        t = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        return iso
    zone = ""
    if t.tzinfo is not None:
        offset = t.utcoffset()
        zone = " UTC" if offset is not None and not offset else f" {t.strftime('%z')}"
    return f"{t.day} {t.strftime('%b %Y, %H:%M')}{zone}"


def run_words(manifest: Mapping[str, Any]) -> str:
    """A bundle's run as people name it, by when it ran (never its id or folder name):
    "the run of 1 Dec 2026, 00:31 UTC" (its start, ``when_words``), "the check of ..." for
    a revision made elsewhere (``agent_mode.ran`` ``external``); "a run whose time is not
    recorded" when the manifest holds no readable time."""
    mode = manifest.get("agent_mode")
    what = "check" if isinstance(mode, dict) and mode.get("ran") == "external" else "run"
    for key in ("created_at", "finished_at"):
        iso = manifest.get(key)
        if isinstance(iso, str) and iso.strip() and when_words(iso) != iso:
            return f"the {what} of {when_words(iso)}"
    return f"a {what} whose time is not recorded"


_KIND_WORDS = {"html": "an HTML page", "text": "plain text", "markdown": "a Markdown file"}
WORD_KIND_WORDS = "a Word document (.docx)"


def document_kind_words(manifest: Mapping[str, Any], title: str = "") -> str:
    """What a bundle's document was, in words, from its manifest: "a Word document (.docx)"
    when its versions were read from Word files (``word_versions``; the bundle keeps the
    pages they render to), with which one when only one was ("a Word document (.docx);
    the revised version was not a Word file", and for a run from a .docx "a Word document
    (.docx); the agent's versions are pages"); else "an HTML page", "plain text", "a
    Markdown file" for ``document_kind`` (an unknown kind as written). Never "(html)" for a
    Word document. ``title``: the document's title as shown beside this; one that is
    already a Word file's name ("review.docx", the title taken from the file name) says
    the extension, so the kind reads "a Word document", not "(.docx)" a second time."""
    kind = str(manifest.get("document_kind") or "html")
    said = _KIND_WORDS.get(kind, kind)
    word = manifest.get("word_versions")
    word = [v for v in word if v in ("v1", "v2")] if isinstance(word, list) else []
    if not word:
        return said
    named = WORD_KIND_WORDS
    if title.strip().lower().endswith(".docx"):
        named = WORD_KIND_WORDS.removesuffix(" (.docx)")
    if word == ["v1", "v2"]:
        return named
    if word == ["v1"] and not is_external(manifest):
        return f"{named}; the agent's versions are pages"
    other = "revised" if word == ["v1"] else "reviewed"
    return f"{named}; the {other} version was not a Word file ({said})"


def revised_version_words(manifest: Mapping[str, Any], rounds: int) -> str:
    """What v2 is, for the title over its pane: "the revision you checked (made elsewhere)"
    for a revision checked here (``agent_mode.ran`` ``external``: the agent saved nothing
    in this program); "the agent's last version, after 2 rounds" for a run; "the agent
    saved no new version: the same as v1" for a run with no round."""
    mode = manifest.get("agent_mode")
    if isinstance(mode, Mapping) and mode.get("ran") == "external":
        return "the revision you checked (made elsewhere)"
    if rounds > 0:
        return f"the agent's last version, after {plural(rounds, 'round')}"
    return "the agent saved no new version: the same as v1"


#: What the agent did with each of its tools, as the desktop Run log says it ("{target}":
#: the comment, "comment 2"; the tool's name stays in the trace and the CLI's line).
TOOL_WORDS: dict[str, tuple[str, str]] = {
    # name: (done, tried)
    "list_comments": ("The agent listed the comments", "list the comments"),
    "pull_document": ("The agent read the document", "read the document"),
    "resolve_comment": ("The agent marked {target} resolved", "mark {target} resolved"),
    "reply_comment": ("The agent replied on {target}", "reply on {target}"),
    "push_version": ("The agent saved a new version", "save a new version"),
}


def tool_words(name: str, target: str | None, ok: bool, result: str = "") -> str:
    """A tool call in words: "The agent listed the comments"; refused, "The agent tried
    to save a new version; the program refused: <result>". ``target``: what the comment
    is called ("comment 2"), None for no comment. An unknown tool is named in quotes."""
    where = target or "a comment"
    done, tried = TOOL_WORDS.get(
        name, (f"The agent used the tool \u201c{name}\u201d", f"use the tool \u201c{name}\u201d")
    )
    if "{target}" not in done and target:
        done, tried = f"{done} ({target})", f"{tried} ({target})"
    if ok:
        return done.format(target=where)
    return f"The agent tried to {tried.format(target=where)}; the program refused: {result}"


#: A verdict item's or a run's field, in words (the exact name stays in the bundle, the
#: CLI and ``Difference.line``).
FIELD_WORDS: dict[str, str] = {
    "verdict": "the verdict",
    "claim": "the agent's claim",
    "claim_agrees": "whether the claim agrees with the text",
    "similarity": "how similar the text is",
    "confidence": "how sure the place is",
    "method": "how it was found in v2",
    "message": "the warning line",
    "v1": "its place in v1",
    "v2": "its place in v2",
    "approximate": "whether the place is approximate",
    "offsets_repaired": "whether its saved place had to be found again by its quote",
    "tokens": "the tokens used",
}


def field_words(field: str) -> str:
    """``claim_agrees`` -> "whether the claim agrees with the text"; ``metric attribution_rate``
    -> "the metric attribution rate"; an unknown field as it is, underscores as spaces."""
    if field.startswith("metric "):
        return "the metric " + field[len("metric ") :].replace("_", " ")
    return FIELD_WORDS.get(field, field.replace("_", " "))


def value_words(value: object) -> str:
    """A stored or recomputed value in words: yes/no/none, a verdict's label, a span's text."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None:
        return "none"
    if isinstance(value, str) and value in VERDICT_LABELS:
        return VERDICT_LABELS[value]
    if isinstance(value, dict) and "text" in value:
        text = str(value.get("text"))
        return "\u201c" + (text if len(text) <= 60 else text[:57] + "...") + "\u201d"
    if isinstance(value, float):
        return percent(value) if 0 <= value <= 1 else f"{value:g}"
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def server_words(text: str, limit: int = 300) -> str:
    """What a server said, short enough to read on screen: a pasted Python traceback is its
    last line (the error itself), other text its first line, at most ``limit`` characters.
    The whole text stays in the log and the trace."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    if any(ln.startswith("Traceback (most recent call last)") for ln in lines):
        picked = lines[-1] + " (the server's traceback is in the log)"
    else:
        picked = lines[0] + (" \u2026" if len(lines) > 1 else "")
    return picked if len(picked) <= limit else picked[: limit - 1] + "\u2026"


# -- errors people read --------------------------------------------------------------------

#: Said for an error that carries no words meant for a person (a bug, a library's own
#: exception): the traceback goes to the program's log, never on screen.
UNEXPECTED_ERROR = "something unexpected went wrong (the program's log has the details)"

_WORDED_MODULES = ("engine", "app", "arl_keys")


def error_words(exc: BaseException) -> str:
    """One plain line for an error shown to a person, never Python's own text: a file
    error (``OSError``) as "PATH: permission denied" (its reason in lower case, the path
    when it names one); an error this program raised with its words (a class of
    ``engine``, ``app`` or ``arl_keys``, or a ``ValueError`` it raised: its message as
    written); anything else (``KeyError``, ``TypeError``, a library's exception)
    ``UNEXPECTED_ERROR``. Never raises."""
    try:
        if isinstance(exc, OSError) and (exc.strerror or exc.filename):
            why = (exc.strerror or "cannot be used").lower()
            return f"{exc.filename}: {why}" if exc.filename else why
        module = type(exc).__module__.split(".", 1)[0]
        text = str(exc).strip()
        if text and (module in _WORDED_MODULES or type(exc) is ValueError):
            return text
    except Exception:  # a broken __str__ must not break the message about it
        pass
    return UNEXPECTED_ERROR


_NUMBERED_ID = re.compile(r"[A-Za-z]{0,3}0*([1-9][0-9]{0,5})")


def comment_numbers(ids: list[str]) -> dict[str, int]:
    """The number each comment is called by ("Comment N"), from the comments file's ids in
    order. When every id is a number with at most a short letter prefix, all distinct
    (c1, c2, c5 ...), N is that number, so Comment 5 is c5 whatever the order; otherwise
    N is the comment's place in the file. The Verdicts table's rows read in N order."""
    found = [_NUMBERED_ID.fullmatch(i) for i in ids]
    if ids and all(found):
        nums = [int(m.group(1)) for m in found if m]
        if len(set(nums)) == len(nums):
            return dict(zip(ids, nums, strict=True))
    return {cid: i for i, cid in enumerate(ids, 1)}


def comment_names(ids: list[str]) -> dict[str, str]:
    """What the program calls each comment in a sentence, "comment 3" (numbered by
    ``comment_numbers``): for the Run log, the detail pane, the banner and any line that
    would otherwise quote a raw id (the id itself stays in tooltips)."""
    return {cid: f"comment {n}" for cid, n in comment_numbers(ids).items()}


_ID_LIKE_AUTHOR = re.compile(r"\S*\d\S*")


#: The author the program writes on a reply it makes itself (a reopen by the integrity
#: control), and the one bundles before it wrote ("review harness"); both read
#: ``PROGRAM_AUTHOR_WORDS`` on screen.
PROGRAM_AUTHOR = "Agent Review Loop"
OLD_PROGRAM_AUTHOR = "review harness"
PROGRAM_AUTHOR_WORDS = "Agent Review Loop's own check"


#: How bundles before ``PROGRAM_AUTHOR`` began a reopen reason (``engine.run.review``).
OLD_REOPEN_OPENING = "Reopened by the review harness: "


def reply_words(author: object, body: str) -> str:
    """A reply's body as people read it: as written, except that a reopen reason the
    program wrote itself in an older bundle ("Reopened by the review harness: …", by
    ``OLD_PROGRAM_AUTHOR``) opens as a new one does ("Reopened by Agent Review Loop's own
    check: …"); the stored body stays the record."""
    if " ".join(str(author or "").split()) == OLD_PROGRAM_AUTHOR and body.startswith(
        OLD_REOPEN_OPENING
    ):
        return f"Reopened by {PROGRAM_AUTHOR_WORDS}: " + body[len(OLD_REOPEN_OPENING) :]
    return body


#: The author the agent's tools write on its replies and resolutions
#: (``engine.agent.tools.WorkspaceTools``): a role, not a name; people read ``agent_words``.
AGENT_AUTHOR = "agent"
AGENT_WORDS = "the agent"


def agent_words(manifest: Mapping[str, Any] | None) -> str:
    """What the agent of a bundle's run is called where it signs a reply: the model's
    name as recorded ("gpt-4o-mini", "smollm2-135m"); "the scripted agent" for a scripted
    demonstration (its "model" names the script, not a model); ``AGENT_WORDS`` ("the
    agent") when no model is recorded or the agent ran outside this program."""
    m = manifest or {}
    if m.get("scripted"):
        return "the scripted agent"
    model = " ".join(str(m.get("model") or "").split())
    if not model or is_external(m):
        return AGENT_WORDS
    return model


def author_words(author: object, agent: str = AGENT_WORDS) -> str:
    """A comment's or reply's author as people read it: the name as written ("Pat", "Ana
    Lima", a name in any script), or, for an author that is an id (one word with a digit in it, as
    a review corpus's "report51975" or "user_123"), "a reviewer" (the id stays in a
    tooltip); the program's own replies (``PROGRAM_AUTHOR``, and "review harness" in
    older bundles) read "Agent Review Loop's own check"; the agent's (``AGENT_AUTHOR``,
    a lower-case role) read ``agent``, what the run's agent is called (``agent_words``:
    the model's name, else "the agent"). "" for no author."""
    text = " ".join(str(author or "").split())
    if not text:
        return ""
    if text in (PROGRAM_AUTHOR, OLD_PROGRAM_AUTHOR):
        return PROGRAM_AUTHOR_WORDS
    if text == AGENT_AUTHOR:
        return agent
    return "a reviewer" if _ID_LIKE_AUTHOR.fullmatch(text) else text


def comment_title(number: int, body: str, words: int = 6) -> str:
    """A comment as people call it in a sentence: its number and its first ``words``
    words, "Comment 1 “Uppercase the title”" (an ellipsis when cut; the number alone for
    an empty body). Never a raw id."""
    parts = body.split()
    if not parts:
        return f"Comment {number}"
    first = " ".join(parts[:words]) + ("\u2026" if len(parts) > words else "")
    return f"Comment {number} \u201c{first}\u201d"
