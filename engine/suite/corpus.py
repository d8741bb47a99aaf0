"""The built-in corpus of review suites and how documents are sized and sampled.

``resources/corpus/`` ships with the program: ``f1000rd/<paper>/`` (real papers and their
reviewers' sentences, CC-BY-SA 4.0) and ``briefs/<name>/`` (short documents written for this
project), each with ``document.*``, ``comments.json`` and ``meta.json`` (text length in code
points). See ``docs/suites.md``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BUILTIN_CORPUS",
    "SIZE_CLASSES",
    "DocumentSpec",
    "builtin_documents",
    "sample_stratified",
    "size_class",
]


class CorpusError(Exception):
    """The built-in corpus is damaged or missing (an installation problem)."""


def _corpus_root() -> Path:
    from importlib import resources

    return Path(str(resources.files("resources").joinpath("corpus")))


BUILTIN_CORPUS = _corpus_root()
"""The built-in corpus: ``f1000rd/<paper>/`` (real papers and reviewers' sentences,
CC-BY-SA 4.0) and ``briefs/<name>/`` (short documents written for this project, one per
one-click brief), each with ``document.*`` and ``comments.json``."""

SIZE_CLASSES = ("small", "medium", "large")
SMALL_MAX_CHARS = 8_000
"""Documents up to this many characters of text are ``small``; up to ``MEDIUM_MAX_CHARS``
``medium``; larger ``large``. Chosen so the built-in corpus has members in every class
(the briefs are small, most papers medium, the longest papers large)."""
MEDIUM_MAX_CHARS = 30_000


def size_class(chars: int) -> str:
    """``small`` | ``medium`` | ``large`` for a document of ``chars`` text characters."""
    if chars <= SMALL_MAX_CHARS:
        return "small"
    return "medium" if chars <= MEDIUM_MAX_CHARS else "large"


@dataclass(frozen=True)
class DocumentSpec:
    """One document of a suite. ``name`` is unique in the suite; ``doc`` and ``comments``
    are file paths; ``chars``: the length of its text (code points), for size classes."""

    name: str
    doc: Path
    comments: Path
    chars: int = 0
    source: str = "file"  # "file" | "builtin"

    @property
    def size(self) -> str:
        return size_class(self.chars)


def builtin_documents(corpus: str = "builtin") -> list[DocumentSpec]:
    """The built-in corpus's documents (``builtin`` = ``f1000rd`` + ``briefs``), sorted by
    name. Raises SuiteError when the corpus is not shipped (a damaged install)."""
    parts = ("f1000rd", "briefs") if corpus == "builtin" else (corpus,)
    out: list[DocumentSpec] = []
    for part in parts:
        root = BUILTIN_CORPUS / part
        if not root.is_dir():
            raise CorpusError(f"{root}: the built-in corpus is missing from this installation")
        for d in sorted(x for x in root.iterdir() if x.is_dir()):
            doc = next(iter(sorted(d.glob("document.*"))), None)
            meta = json.loads((d / "meta.json").read_text(encoding="utf-8"))
            if doc is None:
                raise CorpusError(f"{d}: no document file")
            out.append(
                DocumentSpec(
                    f"{part}/{d.name}", doc, d / "comments.json", int(meta["chars"]), "builtin"
                )
            )
    return out


def sample_stratified(docs: list[DocumentSpec], n: int, seed: int) -> list[DocumentSpec]:
    """``n`` documents stratified by size class in the corpus's proportions, fixed by
    ``seed`` (the same seed gives the same documents on any machine and Python version:
    ``random.Random`` with an integer seed is stable, and the input is sorted by name).

    Each class gets ``n * share`` documents rounded by largest remainder; within a class
    the choice is a seeded shuffle. ``n`` at least the corpus size returns all of them.
    """
    docs = sorted(docs, key=lambda d: d.name)
    if n >= len(docs):
        return docs
    by_class: dict[str, list[DocumentSpec]] = {c: [] for c in SIZE_CLASSES}
    for d in docs:
        by_class[d.size].append(d)
    quotas = {c: n * len(v) / len(docs) for c, v in by_class.items()}
    take = {c: int(q) for c, q in quotas.items()}
    rest = n - sum(take.values())
    for c in sorted(SIZE_CLASSES, key=lambda c: (-(quotas[c] - take[c]), SIZE_CLASSES.index(c))):
        if rest <= 0:
            break
        if take[c] < len(by_class[c]):
            take[c] += 1
            rest -= 1
    rng = random.Random(seed)
    chosen: list[DocumentSpec] = []
    for c in SIZE_CLASSES:
        members = list(by_class[c])
        rng.shuffle(members)
        chosen.extend(members[: take[c]])
    return sorted(chosen, key=lambda d: d.name)
