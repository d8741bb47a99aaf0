"""The semantic cleanup of a hunk's word ops (engine.diff.diffing describes the whole
algorithm): small equalities between changes fold into the changes around them, in one
linear pass, so a replaced phrase is one deletion and one insertion; and ``_merge``, which
joins neighbouring ops of the same kind.
"""

from __future__ import annotations

import re
from array import array

from engine.diff.align import DELETE, EQUAL, INSERT
from engine.diff.tokens import _C, _CLOSERS
from engine.text.bmp_twin import BmpTwin
from engine.text.sentence_stops import SENTENCE_TERMINATORS

_KEEP_EQUAL = BmpTwin(
    lambda keep: rf"\n|[{re.escape(keep(SENTENCE_TERMINATORS))}][{_C}]*\s|\w{{4}}"
)
"""What an equality both versions keep holds that is never folded into the change around
it: a line break, a sentence end, or a word of four letters or more (a ``BmpTwin``: see
engine.text.bmp_twin)."""


def _ends_sentence(parts: list[str]) -> bool:
    last = next((t for t in reversed(parts) if t), "")
    return bool(last) and last[-1] in _ENDS


_ENDS = set(SENTENCE_TERMINATORS + _CLOSERS)


_SPACE = re.compile(r"\s")


def _semantic_merge(ops: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Fold small equalities between changes into the changes around them.

    The rule of diff-match-patch's ``diff_cleanupSemantic``: an equality is removed when it
    is no longer than the larger side (deleted or inserted characters) of the changes
    before it and no longer than that of the changes after it, the changes before being
    everything since the last equality kept. Done in one pass with a stack, so linear in
    the number of ops (the library's list edits make it quadratic on long hunks).
    Within a change group the deleted text comes first. One departure: an equality both
    versions keep that holds a line break, a sentence end, or a word of four or more
    letters is never folded (``_KEEP_EQUAL``), nor a space after deleted text that ended a
    v1 sentence: a change does not spread past a sentence boundary or a kept word into its
    neighbour, so a quote's image stays in its own sentence.
    """
    # Stack of alternating change groups and equalities: [group, eq, group, eq, group...];
    # a group is [deleted parts, inserted parts, deleted length, inserted length].
    stack: list = [[[], [], 0, 0]]
    pending_eq: str | None = None
    group = stack[0]

    def close(eq: str, grp: list) -> None:
        # ``eq`` stands between stack[-1] (a group) and ``grp``; fold while allowed.
        while True:
            before = stack[-1]
            if (
                (before[2] or before[3])
                and (grp[2] or grp[3])
                and not _KEEP_EQUAL.search(eq)
                and not (eq[:1].isspace() and _ends_sentence(before[0]))
                and len(eq) <= max(before[2], before[3])
                and len(eq) <= max(grp[2], grp[3])
            ):
                before[0].append(eq)
                before[0].extend(grp[0])
                before[1].append(eq)
                before[1].extend(grp[1])
                before[2] += len(eq) + grp[2]
                before[3] += len(eq) + grp[3]
                if len(stack) >= 3:  # re-check the equality before the grown group
                    grp = stack.pop()
                    eq = stack.pop()
                    continue
                return
            stack.append(eq)
            stack.append(grp)
            return

    for op, t in ops:
        if op == EQUAL:
            if pending_eq is not None and not (group[2] or group[3]):
                pending_eq += t  # two equalities in a row are one
                continue
            if pending_eq is not None:
                close(pending_eq, group)
            pending_eq = t
            group = [[], [], 0, 0]
        elif op == DELETE:
            group[0].append(t)
            group[2] += len(t)
        else:
            group[1].append(t)
            group[3] += len(t)
    if pending_eq is not None:
        close(pending_eq, group)
    out: list[tuple[int, str]] = []
    for k, item in enumerate(stack):
        if k % 2:
            if item:
                out.append((EQUAL, item))
        else:
            if item[2]:
                out.append((DELETE, "".join(item[0])))
            if item[3]:
                out.append((INSERT, "".join(item[1])))
    return out


def _merge(tags: array, lens: array) -> None:
    """Join neighbouring ops of the same kind; within each changed run, deletions come
    first. In place over the parallel arrays of ops (``tags``: EQUAL, DELETE or INSERT;
    ``lens``: their lengths): a merged op never outnumbers the ops it was made of, so each
    is written at or before the place being read, and a diff of millions of ops is not
    held twice."""
    w = 0  # ops[:w] is the merged output so far
    dels = ins = 0
    n_ops = len(tags)
    for r in range(n_ops + 1):
        op, n = (tags[r], lens[r]) if r < n_ops else (EQUAL, 0)
        if op == DELETE:
            dels += n
        elif op == INSERT:
            ins += n
        else:
            if dels:
                tags[w], lens[w] = DELETE, dels
                w += 1
            if ins:
                tags[w], lens[w] = INSERT, ins
                w += 1
            dels = ins = 0
            if n:
                if w and tags[w - 1] == EQUAL:
                    lens[w - 1] += n
                else:
                    tags[w], lens[w] = EQUAL, n
                    w += 1
    del tags[w:], lens[w:]
