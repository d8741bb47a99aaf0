"""What goes back to the agent after a review: the next round's document, its comments,
and a brief in words (``arl bundle send-back``).

``send_back(bundle, decided) -> SendBack``. The next round works on the run's last
version (v2). Every comment of the run is in exactly one of three lists, by the first of
these rules that applies (``_place_of``; docs/bundle.md, "Send back"):

1. **settled** (goes along resolved, not work for the agent): the reviewer said it was
   addressed (accepted as edited, ``addressed``, ``deletion-is-fix``) or ``declined`` it
   (won't fix); the decision is a ``resolve`` entry of its thread, so the next round's
   bundle keeps it.
2. **left** (not sent, not carried), a stale anchor: its words are neither in the version
   the agent was given nor in the last one, so it cannot be placed on the text the next
   agent gets; sending it would only make another stale anchor. It is not sent, whatever
   other decision it has, and the words say so and how to send it (add it again on the
   last version's text).
3. **comments** (sent): the reviewer overrode it to ``not-addressed`` or ``another-round``
   (the reason travels word for word: a ``reopen`` entry by the reviewer in its thread,
   which the agent's ``list_comments`` shows, and quoted in the brief).
4. **left**: resolved by the run with no decision that sends it (a passage the agent
   deleted and resolved says the reviewer has not said whether the deletion was the fix:
   never "resolved" alone, which would credit a deletion as a fix), or a remark (not
   actionable).
5. **comments**: every other comment (still open after the run).

``decided``: comment id -> the decision that counts
(``engine.bundle.decisions.DecisionsCheck.latest()``; empty when none or when they fail
their checks).

Each comment sent is anchored again on v2, where the run's final verdict found it: the
quote, 32 characters of context each side and the offsets (UTF-16 units) of its v2 span,
made on the new document (``created_on_version_id`` null). A comment sent with no v2 span
(its passage was deleted and the reviewer sent it back) goes with its old quote, marked as
made on ``<run id>/<version>`` (a version the next run does not have), so the next run
reports it as a stale anchor rather than place it on other text; ``SendBack.unplaced``
names them (a mark on comments sent, not a fourth list) and the brief asks the agent to
say what it did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine.bundle.decisions import DECISION_WORDS, Decision
from engine.models import Anchor, Comment, Reply
from engine.vocabulary import comment_numbers, comment_title, plural

#: Decisions that send a comment back, with the reviewer's reason.
SEND_AGAIN = ("not-addressed", "another-round")
#: Decisions after which a comment is not sent again.
SETTLED = ("addressed", "deletion-is-fix", "declined")
CONTEXT = 32


@dataclass
class SendBack:
    """``document``: v2's source (``kind`` html | text). Every comment is in exactly one
    of ``comments`` (sent, anchored on v2), ``settled`` (carried resolved with the
    reviewer's decision as a ``resolve`` entry of its thread, so the next round's bundle
    keeps them and the decision without giving them to the agent as work) and ``left``
    (comment id -> why it is neither sent nor carried, in words). ``reasons``: comment id
    -> the override's reason, word for word (comments sent); ``unplaced``: the ids of
    comments sent with their old quote (no v2 span); ``stale``: the ids in ``left`` that
    are stale anchors. ``all_comments()``: what the next run starts with (``comments``
    then ``settled``). ``bundle_path``: the bundle it was made from (None when not from
    one)."""

    title: str
    kind: str
    document: str
    comments: list[Comment] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)
    settled: list[Comment] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    bundle_path: Path | None = None
    #: comment id -> the reviewer's replies said after the run (word for word, oldest
    #: first); those on a comment sent back travel in its thread and the brief.
    replies: dict[str, list[str]] = field(default_factory=dict)
    #: comment id -> what people call it, "Comment 1 “Uppercase the title”"
    #: (``engine.vocabulary.comment_title``, numbered as the Verdicts view numbers them).
    names: dict[str, str] = field(default_factory=dict)

    def name(self, cid: str) -> str:
        """What people call comment ``cid`` (never the raw id, unless it has no name)."""
        return self.names.get(cid) or "a comment"

    def replied_only(self) -> list[str]:
        """The comments left behind (not sent, not settled, not a stale anchor) that have
        the reviewer's reply and no decision that sends them: a reply is not a decision."""
        return [cid for cid in self.left if self.replies.get(cid) and cid not in self.stale]

    def settled_decision(self, c: Comment) -> str:
        """The decision that settled ``c`` (one of ``settled``), in words: its thread's
        last entry, the ``resolve`` entry ``send_back`` added."""
        return c.thread[-1].body if c.thread else "settled"

    def settled_words(self) -> str:
        """ "Comment 2 “…”, settled by your decision, goes along resolved, with the
        decision in its thread." (each named, the verb agreeing); "" for none."""
        n = len(self.settled)
        if not n:
            return ""
        names = ", ".join(self.name(c.id) for c in self.settled)
        if n == 1:
            return f"{names}, settled by your decision, goes along resolved, with the decision in its thread."
        return (
            f"{names}, settled by your decisions, go along resolved, each with its decision "
            "in its thread."
        )

    def left_words(self) -> str:
        """ "Not sent again: Comment 1 “…” (resolved); …", with, for a comment that has
        only the reviewer's reply, how to send it back; "" when every comment goes."""
        if not self.left:
            return ""
        return "Not sent again: " + "; ".join(self.left_lines()) + "." + self.replied_words()

    def left_lines(self) -> list[str]:
        """Each comment of ``left`` as "Comment 1 “…” (why)", in order."""
        return [f"{self.name(k)} ({v})" for k, v in self.left.items()]

    def replied_words(self) -> str:
        """ " Comment 1 “…” has your reply but no decision that sends it back: …" for the
        comments of ``replied_only``; "" for none."""
        out = ""
        replied = self.replied_only()
        if replied:
            names = ", ".join(self.name(k) for k in replied)
            out += (
                f" {names} {'has' if len(replied) == 1 else 'have'} your reply but no "
                "decision that sends it back: a reply is not a decision, so "
                f"{'it stays' if len(replied) == 1 else 'they stay'} as the run left "
                f"{'it' if len(replied) == 1 else 'them'}. Mark it Not addressed (or "
                "Another round) to send it back, with your reason."
            )
        return out

    def unplaced_words(self) -> str:
        """ "Comment 3 “…” goes with its old quote: its text is gone from the last version
        (the agent is asked to say what it did; the next run reports it as a stale
        anchor)." for the comments sent with no v2 span; "" for none."""
        n = len(self.unplaced)
        if not n:
            return ""
        names = ", ".join(self.name(c) for c in self.unplaced)
        it, goes, its = ("it", "goes", "its") if n == 1 else ("them", "go", "their")
        return (
            f"{names} {goes} with {its} old quote: {its} text is gone from the last version "
            f"(the agent is asked to say what it did; the next run reports {it} as "
            f"{'a stale anchor' if n == 1 else 'stale anchors'})."
        )

    def all_comments(self) -> list[Comment]:
        return [*self.comments, *self.settled]

    def brief(self) -> str:
        """The brief in words, to paste into an agent that runs elsewhere."""
        lines = [
            f"Review of {self.title or 'the document'}: "
            f"{plural(len(self.comments), 'comment')} to work on.",
            "Work on the attached version (the last one). For each comment, change the text "
            "it points at so the comment is addressed; where the reviewer gave a reason, "
            "it says what is still wrong.",
            "",
        ]
        for n, c in enumerate(self.comments, 1):
            called = self.name(c.id).split(" \u201c")[0] if c.id in self.names else "Comment"
            lines.append(f"{n}. {called}: {c.body}")
            lines.append(f"   On the text: \u201c{c.anchor.quote or ''}\u201d")
            if c.id in self.reasons:
                lines.append(f"   The reviewer says: {self.reasons[c.id]}")
            for said in self.replies.get(c.id, []):
                lines.append(f"   The reviewer replied: {said}")
            if c.id in self.unplaced:
                lines.append(
                    "   (Its text is no longer in this version; this is its old quote: "
                    "say what you did.)"
                )
            lines.append("")
        if self.settled:
            lines.append(
                "Settled by the reviewer, resolved, not to work on: "
                + "; ".join(f"{self.name(c.id)} ({self.settled_decision(c)})" for c in self.settled)
            )
        if self.left:
            lines.append(
                "Not sent again: "
                + "; ".join(f"{self.name(k)} ({v})" for k, v in self.left.items())
            )
        return "\n".join(lines).rstrip() + "\n"


#: Why a stale anchor is not sent (rule 2 of the module docstring).
STALE_LEFT = (
    "a stale anchor, so it cannot be placed: its words are in neither the version the agent "
    "was given nor the last one; to send it, add it again on the last version's text"
)
#: Why a passage the agent deleted and resolved, with no decision, is not sent.
DELETED_RESOLVED_LEFT = (
    "the agent deleted its text and resolved it; you have not said whether the deletion was the fix"
)

Place = tuple[str, str | None]


def _place_of(c: Comment, verdict: str, d: Decision | None) -> Place:
    """Where ``c`` goes (the rules of the module docstring, in order): ("settled", None),
    ("sent", None) or ("left", why in words)."""
    if d is not None and (
        d.decision in SETTLED or (d.decision == "accept" and verdict == "edited")
    ):
        return ("settled", None)
    if verdict == "stale_anchor":
        return ("left", STALE_LEFT)
    if d is not None and d.decision in SEND_AGAIN:
        return ("sent", None)
    if c.status == "resolved":
        return ("left", DELETED_RESOLVED_LEFT if verdict == "deleted" else "resolved")
    if not c.actionable:
        return ("left", "a remark, not actionable")
    return ("sent", None)


def made_on(bundle: Any, c: Comment) -> str:
    """The version ``c`` was made on, named so the next run cannot take it for one of its
    own: ``<run id>/<version id>`` (the run's given version when the comment names none; a
    name already qualified by an earlier continuation is kept)."""
    vid = c.created_on_version_id
    if vid and "/" in vid:
        return vid
    given = str(bundle.manifest.get("given_version_id") or "v1")
    return f"{bundle.manifest.get('run_id') or 'run'}/{vid or given}"


def _on_v2(
    c: Comment, item: dict[str, Any], text: str, version: str | None = None
) -> Comment | None:
    """``c`` anchored on its v2 span (made on ``version``: None, the new document), or
    None when the verdict has none."""
    from engine.text.utf16 import to_codepoint

    span = item.get("v2")
    if not isinstance(span, dict) or not isinstance(span.get("start"), int):
        return None
    s16, e16 = span["start"], span["end"]
    s, e = to_codepoint(text, s16), to_codepoint(text, e16)
    anchor = Anchor(
        quote=text[s:e],
        prefix=text[max(0, s - CONTEXT) : s],
        suffix=text[e : e + CONTEXT],
        dom_path=c.anchor.dom_path,
        start_offset=s16,
        end_offset=e16,
    )
    return replace(c, anchor=anchor, created_on_version_id=version, status="open")


def send_back(
    bundle: Any, decided: dict[str, Decision], replies: dict[str, list[Reply]] | None = None
) -> SendBack:
    """The next round of ``bundle`` (an opened ``engine.bundle.Bundle``) after the
    reviewer's decisions (see the module docstring). ``replies``: comment id -> the
    reviewer's replies after the run (``engine.threads.replies_after``): a reply is not a
    decision and sends nothing back, but on a comment sent back it goes in its thread and
    the brief, word for word. Raises KeyError when the bundle has no v2
    (``engine.bundle.BundleError`` would have refused it on open)."""
    v2 = bundle.version("v2")
    text = v2.to_version().text
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    final = {
        str(v.get("comment_id")): v for v in verdicts.get("final") or [] if isinstance(v, dict)
    }
    out = SendBack(bundle.document_title, v2.kind, v2.source, bundle_path=bundle.path)
    said = replies or {}
    out.replies = {cid: [r.body for r in rs] for cid, rs in said.items() if rs}
    out.names = names_of(bundle)
    for c in bundle.comments_after:
        item = final.get(c.id, {})
        d = decided.get(c.id)
        verdict = str(item.get("verdict") or "")
        where, why = _place_of(c, verdict, d)
        if where == "settled" and d is not None:
            out.settled.append(_settled(bundle, c, item, text, d))
            continue
        if where == "left":
            out.left[c.id] = why or ""
            if verdict == "stale_anchor":
                out.stale.append(c.id)
            continue
        thread = [*c.thread, *said.get(c.id, [])]
        if d is not None and d.decision in SEND_AGAIN and d.reason:
            out.reasons[c.id] = d.reason
            thread.append(Reply(d.reviewer, d.reason, d.decided_at, "reopen"))
        placed = _on_v2(c, item, text)
        if placed is None:
            out.unplaced.append(c.id)
            placed = replace(c, status="open", created_on_version_id=made_on(bundle, c))
        out.comments.append(replace(placed, thread=thread))
    return out


def names_of(bundle: Any) -> dict[str, str]:
    """comment id -> "Comment 1 “Uppercase the title”" for every comment of ``bundle``
    (numbered as the Verdicts view numbers them: ``engine.vocabulary.comment_numbers``)."""
    bodies = {c.id: c.body for c in bundle.comments_before}
    for c in bundle.comments_after:
        bodies.setdefault(c.id, c.body)
    return {cid: comment_title(n, bodies[cid]) for cid, n in comment_numbers(list(bodies)).items()}


def _settled(bundle: Any, c: Comment, item: dict[str, Any], text: str, d: Decision) -> Comment:
    """``c`` resolved by the reviewer's decision ``d`` (a ``resolve`` entry saying it),
    anchored on v2 where it can be, else on its old anchor and version."""
    words = DECISION_WORDS.get(d.decision, d.decision)
    entry = Reply(
        d.reviewer, f"{words}: {d.reason}" if d.reason else words, d.decided_at, "resolve"
    )
    placed = _on_v2(c, item, text) or replace(c, created_on_version_id=made_on(bundle, c))
    return replace(placed, status="resolved", thread=[*c.thread, entry])


def continue_review(bundle: Any) -> SendBack:
    """ "Continue this review" (``arl run --continue``): the bundle's last version becomes
    the reviewed version and its open comments come along (resolved ones do not), each
    keeping its id, its thread and the version it was made on (``made_on``), its anchor
    moved to where the run's final verdict found it in v2 (the next run finds that text in
    its given version; a comment whose text is gone keeps its old anchor and is reported
    as a stale anchor)."""
    v2 = bundle.version("v2")
    text = v2.to_version().text
    verdicts = bundle.verdicts if isinstance(bundle.verdicts, dict) else {}
    final = {
        str(v.get("comment_id")): v for v in verdicts.get("final") or [] if isinstance(v, dict)
    }
    out = SendBack(bundle.document_title, v2.kind, v2.source, names=names_of(bundle))
    for c in bundle.comments_after:
        if c.status == "resolved":
            out.left[c.id] = "resolved"
            continue
        version = made_on(bundle, c)
        placed = _on_v2(c, final.get(c.id, {}), text, version)
        if placed is None:
            out.unplaced.append(c.id)
            placed = replace(c, created_on_version_id=version)
        out.comments.append(placed)
    return out


#: The author of the replies that carry the brief in a Word copy.
WORD_AUTHOR = "Agent Review Loop"


def brief_reply(plan: SendBack, c: Comment) -> str:
    """The brief's words for one comment sent back, as a reply on its Word thread."""
    lines = ["Sent back to the agent: this comment is still to do."]
    if c.id in plan.reasons:
        lines.append(f"The reviewer says: {plan.reasons[c.id]}")
    if c.id in plan.unplaced:
        lines.append("Its text is no longer in this version: say what you did.")
    return "\n".join(lines)


def next_round_in_word(plan: SendBack, data: bytes, when: str) -> bytes:
    """A copy of ``data``, the run's last version as a Word file (its text must be the last
    version's: the revised ``.docx``, or the run's tracked revision with every change
    accepted), carrying the brief: each comment sent back a reply on its own thread (the
    file's comment with the same author and text, reopened if resolved; else re-created on
    its place in the last version), each settled one resolved with the decision in a reply.
    ``when``: the replies' date (ISO 8601). Raises ``engine.text.docx_package.PackageError``,
    or ValueError when the file's text is not the last version's."""
    from engine.text import utf16
    from engine.text.docx import page_text, read_docx
    from engine.text.docx_write import WordCopy
    from engine.text.html_text import body_text

    doc = read_docx(data)
    scored = body_text(plan.document) if plan.kind == "html" else None
    place: Any = None  # last version's offsets -> the Word file's (UTF-16)
    if scored is not None and doc.text == scored:
        place = int
    elif scored is not None and doc.text == page_text(plan.document):
        # the agent's page re-indented or on one line: the Word file reads it as the Word
        # page does (engine.text.docx.page_text); only the breaks between blocks differ
        from engine.diff.marks import change_view

        place = change_view(scored, doc.text).b_for_a
    if place is None:
        raise ValueError("its text is not the text of the review's last version")
    copy = WordCopy(data, doc)
    index: dict[tuple[str, str], list[Any]] = {}
    for wc in doc.comments:
        index.setdefault((wc.author, wc.text.strip()), []).append(wc)
    length = utf16.utf16_length(doc.text)

    def thread_of(c: Comment) -> Any:
        hits = index.get((c.author or "", c.body.strip()), [])
        if len(hits) == 1:
            return hits[0]
        a = c.anchor
        top = utf16.utf16_length(scored or "")
        start = min(max(place(min(max(a.start_offset or 0, 0), top)), 0), length)
        end = min(max(place(min(max(a.end_offset or 0, 0), top)), start), length)
        return copy.add_comment(start, end, c.author or "Reviewer", when, c.body)

    for c in plan.comments:
        thread = thread_of(c)
        copy.add_reply(thread, WORD_AUTHOR, when, brief_reply(plan, c))
        copy.reopen(thread)
    for c in plan.settled:
        thread = thread_of(c)
        copy.add_reply(thread, WORD_AUTHOR, when, f"Not sent again: {plan.settled_decision(c)}")
        copy.reopen(thread, done=True)
    return copy.to_bytes()


def write_next_round(
    plan: SendBack,
    out: Path,
    *,
    force: bool = False,
    word: bytes | None = None,
    when: str = "",
) -> list[Path]:
    """Write ``plan`` into the folder ``out``: ``document.html`` (``.txt`` for a text
    document), ``comments.json`` (native shape) and ``brief.txt``, and with ``word`` (the
    last version as a ``.docx``, :func:`next_round_in_word`) ``document.docx`` carrying the
    brief, each through a temporary file renamed into place. Refuses (FileExistsError,
    nothing written) a file already there unless ``force``. Returns the paths; raises
    OSError, and ValueError or PackageError (nothing written) for a ``word`` file that is
    not the last version."""
    doc = out / ("document.txt" if plan.kind == "text" else "document.html")
    comments = {"comments": [c.to_json() for c in plan.all_comments()]}
    files: dict[Path, str | bytes] = {
        doc: plan.document,
        out / "comments.json": json.dumps(comments, indent=1, ensure_ascii=False) + "\n",
        out / "brief.txt": plan.brief(),
    }
    if word is not None:
        import datetime

        stamp = when or datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        files[out / "document.docx"] = next_round_in_word(plan, word, stamp)
    out.mkdir(parents=True, exist_ok=True)
    for path in files:
        if path.exists() and not force:
            raise FileExistsError(f"{path}: already exists; nothing was written")
    from engine.atomic import write_atomic

    for path, text in files.items():
        write_atomic(path, text)
    return list(files)
