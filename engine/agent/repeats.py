"""A model going round in circles: the same tool call, with the same arguments, made again
and again while nothing changes.

``RepeatWatch.see(name, arguments, ok)`` counts each (tool, arguments) pair since the last
call that changed something (a successful ``push_version``, ``reply_comment`` or
``resolve_comment``); the pair's count reaching ``REPEAT_LIMIT`` returns it, once. So four
``list_comments`` with nothing done between them are a loop, also when each comes with a
``pull_document`` (the calls need not be back to back, only without change between them).
Arguments are compared as JSON values (key order and spacing do not matter).
"""

from __future__ import annotations

import json

#: The same call this many times with nothing changed between: said to the user.
REPEAT_LIMIT = 4
#: The tools whose successful call changes the document or the comments.
CHANGING = frozenset({"push_version", "reply_comment", "resolve_comment"})


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments or "{}"), sort_keys=True, ensure_ascii=False)
    except ValueError:
        return arguments


class RepeatWatch:
    """Counts repeated calls for one run (see the module docstring)."""

    def __init__(self, limit: int = REPEAT_LIMIT) -> None:
        self.limit = limit
        self._counts: dict[tuple[str, str], int] = {}

    def see(self, name: str, arguments: str, ok: bool) -> int | None:
        """Count one tool call; the count when it just reached the limit, else None."""
        if ok and name in CHANGING:
            self._counts.clear()
            return None
        key = (name, _canonical(arguments))
        n = self._counts.get(key, 0) + 1
        self._counts[key] = n
        return n if n == self.limit else None


def repeat_words(name: str, times: int) -> str:
    """The plain sentence for the user (the tool's name kept as it is)."""
    return (
        f"The model has made the same call ({name}, with the same arguments) {times} times "
        "without changing anything in between: it may be going round in circles. You can "
        "stop the run now (what it did so far is kept in the evidence bundle) or let it go on."
    )
