"""What re-derivation (``engine.bundle.rederive``) and its parts (the trace cross-check
``engine.bundle.rederive_trace``, the declared checks ``engine.bundle.rederive_checks``)
share, below all of them: ``Difference``, one field a bundle states differently from its
re-derivation, and ``round_version``, the bundle version a round's record names."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Difference:
    """One field the bundle states differently from the re-derivation. ``where``:
    ``final`` or ``round N``; ``comment_id`` None for a metric or a run-level value."""

    where: str
    comment_id: str | None
    field: str
    stored: Any
    recomputed: Any

    def line(self) -> str:
        """One line for people: where, which comment, stored vs recomputed."""
        who = f"comment {self.comment_id}: " if self.comment_id is not None else ""
        return (
            f"{self.where}: {who}{self.field}: stored {_short(self.stored)}, "
            f"recomputed {_short(self.recomputed)}"
        )

    def plain(self, names: Mapping[str, str] | None = None) -> str:
        """The same in words (``engine.vocabulary``): "final version, comment 2: whether
        the claim agrees with the text: the bundle says yes, its documents show no".
        ``names``: comment id -> what the program calls it ("comment 2",
        ``engine.vocabulary.comment_names``); an id it lacks is quoted ("comment “z9”"),
        and without ``names`` the id is said as it is."""
        from engine.vocabulary import field_words, value_words

        where = "final version" if self.where == "final" else self.where
        who = ""
        if self.comment_id is not None:
            called = f"comment {self.comment_id}"
            if names is not None:
                called = names.get(self.comment_id, f"comment \u201c{self.comment_id}\u201d")
            who = f"{called}: "
        return (
            f"{where}, {who}{field_words(self.field)}: the bundle says "
            f"{value_words(self.stored)}, its documents show {value_words(self.recomputed)}"
        )


def _short(x: Any, limit: int = 80) -> str:
    if isinstance(x, dict) and "text" in x and "start" in x:
        x = f"{x.get('start')}-{x.get('end')} {x.get('text')!r}"
        text = str(x)
    else:
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def round_version(bundle: Any, vid: str) -> Any:
    """The bundle version a round's record names, or None: a round's own push, else v2 or
    v1 (a round that pushed nothing ends on an earlier version)."""
    by_vid = {v.version_id: v for v in bundle.versions if v.name.startswith("round-")}
    if vid in by_vid:
        return by_vid[vid]
    for name in ("v2", "v1"):
        if bundle.version(name).version_id == vid:
            return bundle.version(name)
    return None
