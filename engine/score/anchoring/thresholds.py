"""Every threshold and bound of locating and re-anchoring, defined once: what it measures
and the cases that pin it (docs/verdicts.md, docs/engine.md "Locate and re-anchor").

A change to one of these is a change of verdict rules: the tests named beside it fail
first, and the shipped bundles' figures may re-derive differently.
"""

from __future__ import annotations

FUZZY_WINDOW = 200
"""Characters searched either side of the span's estimated place (reference design,
docs/verdicts.md). Pinned by tests/engine/test_reanchor_failure_kinds.py
(test_rewritten_in_place_is_edited_and_approximate,
test_lookalike_sentence_elsewhere_is_not_the_rewritten_one) and the generated shapes
(tests/engine/test_generated_shapes.py)."""


FUZZY_THRESHOLD = 0.5
"""Minimum normalised Indel similarity of a fuzzy hit (reference design, docs/verdicts.md).
Pinned by tests/engine/test_anchoring_kinds.py
(test_a_document_rewritten_from_scratch_is_deleted_not_whole_document_edits) and the
VPN 3.1 -> 3.2 case (tests/engine/test_deleted_places.py)."""


CONTEXT_THRESHOLD = 0.7
"""Minimum context similarity for a moved copy of the quote found far from its place. Pinned by tests/engine/test_locate_repeats.py and tests/engine/test_anchoring_kinds.py
(test_offsets_on_another_copy_lose_to_the_context)."""


NEAR_COPY = 0.85
"""Indel similarity (``similarity``, by characters) at which a v2 sentence is a near copy of
a v1 sentence: where two v1 sentences tie for it by words, it is the edit of the one it is
a near copy of, if only one ("Software availability" and "Software axailability", 0.95,
against "Software available from :", 0.7: a letter changed in a heading beside a deleted
paragraph read `deleted`; the long property run on F1000RD 8-1459). Pinned by
tests/engine/test_equal_copies.py (test_a_near_copy_breaks_a_tie_of_words)."""


MOVED_SIDE_THRESHOLD = 0.85
"""Minimum agreement of the context that travels with a moved copy (``side_score``): a
moved sentence keeps its own words around the quote, where a chance copy in rewritten text
shares only some. Pinned by tests/engine/test_anchoring_kinds.py
(test_sentence_moved_to_another_paragraph_far_away_is_moved_untouched,
test_a_copy_kept_from_elsewhere_is_never_a_move)."""


CONTEXT_MARGIN = 0.15
"""How much better another copy's context must agree before it wins over the offsets or
over the copy the diff kept. Pinned by tests/engine/test_locate_repeats.py (test_a_tie_in_context_keeps_the_offsets) and
tests/engine/test_anchoring_kinds.py (test_the_copy_the_context_names_counts_when_the_other_copy_is_removed)."""


CONTEXT_CHARS = 32
"""Characters of v1 context compared around a candidate (the anchor contract's 32)."""


NEAR_HITS = 64
"""Occurrences of a quote examined, nearest to the expected place first."""


MAX_HITS = 256
"""Occurrences examined when there is no expected place at all (no usable offsets, and the
quote with its context is not in the text)."""


KEPT_GAP = 12
"""An equal run shorter than this between two changes is chance (a shared " the "), not
surviving text: the changes count as one replaced region. Also the least kept text that makes a block survive, or a v2 block another v1
block's image, and the least kept text of a sentence that counts (``KEPT_SHARE``) when two sentences
claim one v2 sentence (``_Reanchor._kept_counts``; docs/verdicts.md, "What may never be a span's new place"). Pinned by T01,
the renumbered Markdown list (tests/engine/test_deleted_places.py) and the property test
(a deleted sentence whose six kept letters " have " landed in its neighbour's rewrite)."""


LOCAL_CHANGE = 400
"""A replaced region counts as the span's own place when it reaches at most this many
characters beyond the span on either side (a rewritten sentence), and kept text of at
least ``KEPT_GAP`` characters bounds it. Pinned by tests/engine/test_anchoring_kinds.py
(test_a_paragraph_deleted_from_a_long_document_is_deleted,
test_a_sentence_rewritten_in_place_with_few_shared_letters_is_edited)."""


QUOTE_DICE = 0.25
"""Weight of the quote's own words beside its whole sentence's when choosing the v2
sentence a rewritten sentence became (a sentence split in two: the quote goes with its
words). Pinned by the generated shapes (tests/engine/test_generated_shapes.py,
test_a_rewritten_quote_lands_in_its_own_rewritten_sentence)."""


MOVED_REWRITE_DICE = 0.5
"""Least likeness (``mapped._count_dice``: the word sets' Dice coefficient by count, or
that of their words of ``SURVIVING_WORD`` letters or more, whichever is higher) of a v1
sentence and a v2 sentence that lies past a sentence the diff kept from the other side of
it, for the v2 sentence to be its rewrite (``KeptNeighbours._between_kept_neighbours``). A
sentence moved past its neighbours and rewritten keeps many of its words ("Bravo sentence
two is commented." to "Bravo said two is updated.", 0.6: tests/engine/test_moved_rewritten.py;
"I am delighted to see you, said she, pressing my hand warmly." rewritten in place while
the diff kept its moved neighbour below it, 0.57: tests/engine/test_deleted_places.py); a
new sentence added beside a deleted one shares a word or a few by chance ("Members must
renew their cards before May." and "Coffee cards taste better outside.", 0.18; an
attacker's shuffle of a Standard Ebooks sentence's words, 0.43; "Respondents' anonymity
was kept." and "The anonymity was quiet that evening.", 0.4:
tests/engine/test_kept_neighbours.py)."""


MOVED_REWRITE_SHARED = 3
"""Least number of content words (``SURVIVING_WORD`` letters or more, or words of a script
written without spaces) that a v1 sentence and a v2 sentence past its kept neighbours must
share for the Dice of their content words to count towards ``MOVED_REWRITE_DICE``. A short
sentence has few content words, and two shared by chance ("love", "better") gave "I love
and am loved by a better man than he." and the unrelated "Coffee love better outside."
0.57 (the long property run on a Standard Ebooks chapter: tests/engine/test_kept_neighbours.py).
A sentence moved and rewritten keeps more ("I am delighted to see you, said she, pressing
my hand warmly." keeps four: tests/engine/test_deleted_places.py), or its shape (the Dice
of all its words)."""


NEW_BLOCKS_REACH = 4
"""Most v2 blocks of only new text beside a kept neighbour's block that its bound covers
(``KeptNeighbours._with_new_blocks``): a block or a few added after the paragraph are past the
neighbour; the bound stays local, so its cost stays bounded."""


MOVED_OWN_WORDS = 2
"""Least number of a sentence's content words that the text it kept in a new block beside
a kept neighbour must hold (or all of them, for a sentence with fewer) for that block to be
where the sentence moved, so that it stops ``NEW_BLOCKS_REACH``'s widening. One word is
chance: "March" of "Staff numbers fell sharply in March.", deleted, at "A new branch opened
in March.", a new paragraph before the join of its neighbours (the attacker's brief, stop
38), as a sentence's short words are ("It was " of "It was the worst flood of the
decade."). A sentence moved into a block of its own keeps more of itself ("In March,
staff numbers fell." keeps "staff numbers fell")."""


KEPT_SHARE = 0.25
"""Weight of the share of the sentence's kept text (the diff's equal runs) that lies in a
candidate v2 sentence: the diff's own evidence beside the words' similarity. Pinned by the generated shapes (tests/engine/test_generated_shapes.py) and
tests/engine/test_deleted_span_properties.py."""


DISTANCE_COST = 0.1
"""How much a candidate v2 sentence's distance from the estimated place costs, per
``FUZZY_WINDOW`` characters, against its word-set similarity. Pinned by the generated shapes (tests/engine/test_generated_shapes.py)."""


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
match (``_passage``). Also the least piece of new text that, found word for word in v1
outside the span's sentence, counts as moved text from elsewhere (``_Reanchor.moved_in``)."""


INDEX_AFTER = 64
"""Far searches done by scanning the inserted text (copies wholly inside one inserted run)
before later ones look for copies whose first word starts in inserted text
(``ChangeIndex._far_copies``)."""


INDEX_KEY = 8
"""Characters a quote must have from its first word start on for the later far searches
(``ChangeIndex._far_copies``; shorter quotes keep the scan of the inserted text)."""


REGION_REACH = 4 * LOCAL_CHANGE
"""How far beyond a span the replaced region around it is followed."""


DICTIONARY_REACH = 48
"""Characters each side of an edge segmented by the dictionary word breaker (a word of a
script written without spaces is far shorter)."""
