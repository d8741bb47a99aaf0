"""What goes back to the agent after a review: the next round's document, its comments,
and a brief in words (``arl bundle send-back``).

``send_back(bundle, decided) -> SendBack``. The next round works on the run's last
version (v2). A comment goes back when it is still open after the run, or when the
reviewer overrode it to ``not-addressed`` or ``another-round``; it is not sent again when
the reviewer said it was addressed (accepted as edited, ``addressed``, ``deletion-is-fix``)
or ``declined`` it (won't fix), nor when it is resolved with no override. Each override's
reason travels word for word: it is added to the comment's thread as a ``reopen`` entry by
the reviewer (the agent's ``list_comments`` shows a thread's last entries) and quoted in the
brief. ``decided``: comment id -> the decision that counts
(``engine.bundle.decisions.DecisionsCheck.latest()``; empty when none or when they fail
their checks).

Each comment sent is anchored again on v2, where the run's final verdict found it: the
quote, 32 characters of context each side and the offsets (UTF-16 units) of its v2 span,
made on the new document (``created_on_version_id`` null). A comment with no v2 span (its
passage was deleted, or its anchor was stale) keeps its old anchor, marked as made on
``<run id>/<version>`` (a version the next run does not have), so the next run reports it
as a stale anchor rather than place it on other text; ``SendBack.unplaced`` names them.
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
    """``document``: v2's source (``kind`` html | text); ``comments``: the comments sent,
    anchored on v2; ``reasons``: comment id -> the override's reason, word for word;
    ``left``: comment id -> why it is not sent, in words; ``unplaced``: ids sent with their
    old anchor (no v2 span); ``settled``: the comments a reviewer's decision settled,
    carried resolved with that decision as a ``resolve`` entry of their thread, so the next
    round's bundle keeps them and the decision without giving them to the agent as work.
    ``all_comments()``: what the next run starts with (``comments`` then ``settled``).
    ``bundle_path``: the bundle it was made from (None when not from one)."""

    title: str
    kind: str
    document: str
    comments: list[Comment] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)
    settled: list[Comment] = field(default_factory=list)
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
        """The comments not sent again that have the reviewer's reply and no decision
        that sends them: a reply is not a decision."""
        return [cid for cid in self.left if self.replies.get(cid)]

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
        out = (
            "Not sent again: "
            + "; ".join(f"{self.name(k)} ({v})" for k, v in self.left.items())
            + "."
        )
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
                lines.append("   (Its text is no longer in this version: say what you did.)")
            lines.append("")
        if self.left:
            lines.append(
                "Not sent again: "
                + "; ".join(f"{self.name(k)} ({v})" for k, v in self.left.items())
            )
        return "\n".join(lines).rstrip() + "\n"


def _why_left(c: Comment, verdict: str, d: Decision | None) -> str | None:
    """Why ``c`` is not sent again, or None when it goes back."""
    if d is not None and d.decision in SEND_AGAIN:
        return None
    if d is not None and d.decision in SETTLED:
        return DECISION_WORDS[d.decision]
    if d is not None and d.decision == "accept" and verdict == "edited":
        return "accepted as addressed"
    if c.status == "resolved":
        return "resolved"
    if not c.actionable:
        return "a remark, not actionable"
    return None


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
        why = _why_left(c, str(item.get("verdict") or ""), d)
        if why is not None:
            out.left[c.id] = why
            if d is not None and d.decision != "another-round":
                out.settled.append(_settled(bundle, c, item, text, d))
            continue
        thread = [*c.thread, *said.get(c.id, [])]
        if d is not None and d.decision in SEND_AGAIN:
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
        said = c.thread[-1].body if c.thread else plan.left.get(c.id, "settled")
        copy.add_reply(thread, WORD_AUTHOR, when, f"Not sent again: {said}")
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
