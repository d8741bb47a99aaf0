"""Every threshold and bound of locating and re-anchoring, defined once: what it measures
and the cases that pin it (docs/verdicts.md, docs/engine.md "Locate and re-anchor").

A change to one of these is a change of verdict rules: the tests named beside it fail
first, and the shipped bundles' figures may re-derive differently.
"""

from __future__ import annotations

FUZZY_WINDOW = 200
"""Characters searched either side of the span's estimated place (reference design,
docs/verdicts.md)."""


FUZZY_THRESHOLD = 0.5
"""Minimum normalised Indel similarity of a fuzzy hit (reference design, docs/verdicts.md)."""


CONTEXT_THRESHOLD = 0.7
"""Minimum context similarity for a moved copy of the quote found far from its place."""


MOVED_SIDE_THRESHOLD = 0.85
"""Minimum agreement of the context that travels with a moved copy (``side_score``): a
moved sentence keeps its own words around the quote, where a chance copy in rewritten text
shares only some."""


CONTEXT_MARGIN = 0.15
"""How much better another copy's context must agree before it wins over the offsets or
over the copy the diff kept."""


CONTEXT_CHARS = 32
"""Characters of v1 context compared around a candidate (the anchor contract's 32)."""


NEAR_HITS = 64
"""Occurrences of a quote examined, nearest to the expected place first."""


MAX_HITS = 256
"""Occurrences examined when there is no expected place at all (no usable offsets, and the
quote with its context is not in the text)."""


KEPT_GAP = 12
"""An equal run shorter than this between two changes is chance (a shared " the "), not
surviving text: the changes count as one replaced region."""


LOCAL_CHANGE = 400
"""A replaced region counts as the span's own place when it reaches at most this many
characters beyond the span on either side (a rewritten sentence), and kept text of at
least ``KEPT_GAP`` characters bounds it."""


QUOTE_DICE = 0.25
"""Weight of the quote's own words beside its whole sentence's when choosing the v2
sentence a rewritten sentence became (a sentence split in two: the quote goes with its
words)."""


KEPT_SHARE = 0.25
"""Weight of the share of the sentence's kept text (the diff's equal runs) that lies in a
candidate v2 sentence: the diff's own evidence beside the words' similarity."""


DISTANCE_COST = 0.1
"""How much a candidate v2 sentence's distance from the estimated place costs, per
``FUZZY_WINDOW`` characters, against its word-set similarity."""


SURVIVING_WORD = 4
"""Letters of the shortest word that, shared by a quote's v1 sentence and the v2 sentence
it became, shows that the sentence's place survived a rewrite of everything around it
(``_Reanchor._sentence_survives``): "newsletter" in "Members recieve a newsletter every
month." -> "Every member receives a monthly newsletter." Words of three letters (the, and,
for) recur in any text, so a document rewritten from scratch that shares only "the" is
deleted (tests/engine/test_anchoring_kinds.py)."""


TRAVELLED_CONTEXT = 16
"""Characters of a quote's prefix or suffix (inside its own sentence) that, found verbatim in
new text elsewhere, show where its sentence moved (``_Reanchor._travelled_sentence``): the
anchor contract's context is 32 characters, and 16 of them are a passage, not a chance
match (``_passage``)."""


INDEX_AFTER = 64
"""Far searches done by scanning the inserted text before its word index is built."""


INDEX_KEY = 8
"""Characters from a word start that key the index of inserted text (far moved copies)."""


REGION_REACH = 4 * LOCAL_CHANGE
"""How far beyond a span the replaced region around it is followed."""


DICTIONARY_REACH = 48
"""Characters each side of an edge segmented by the dictionary word breaker (a word of a
script written without spaces is far shorter)."""
