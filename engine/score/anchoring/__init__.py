"""Locate an anchor in v1 and re-anchor it in v2 (docs/verdicts.md; docs/engine.md, "Locate
and re-anchor").

Everything here works in code points on body ``textContent`` strings; ``engine.text.utf16``
converts the contract's UTF-16 offsets before they arrive. Entry points:
``engine.score.anchoring.locate.locate`` (step 1, in the version the comment was made on)
and ``engine.score.anchoring.reanchor.reanchor`` (step 2, in the new version), with the
per-pair indexes ``index.TextIndex`` and ``changes.ChangeIndex``.

Re-anchoring lets the diff say where each v2 character came from, and tries the stages
below in this order (``_Reanchor.run``; tests/engine/test_anchoring_stages.py pins it). The
first answer that decides wins; every answer for the span's place passes the gates of
``gates.admits`` (what may never be a span's new place). Each stage is a module of its own;
every threshold is defined once, in ``thresholds``, with what it measures and the cases that
pin it.
"""

STAGES: tuple[tuple[str, str, str], ...] = (
    # (module, method of _Reanchor, what it decides)
    ("stage_kept", "_kept_copy_names_other", "1. the diff kept the span: another copy's place"),
    ("stage_kept", "_boundary_word_replaced", "1. the diff kept the span: its edge word replaced"),
    ("reanchor", "moved_to", "1. the diff's own moved-text detection: moved"),
    ("stage_repeated", "_kept_copy_named_here", "2a. a kept copy the context names: context"),
    ("stage_moved", "_moved_copy", "2b. a verbatim copy in new text nearby: moved"),
    ("stage_place", "_in_place", "3. what stands at the span's place (STAGES_IN_PLACE)"),
    ("stage_moved", "_moved_copy", "4. a verbatim copy moved far away: moved"),
    ("stage_place", "_gone", "5. nothing: deleted"),
)
"""The stages ``_Reanchor.run`` tries, in its order."""

STAGES_IN_PLACE: tuple[tuple[str, str, str], ...] = (
    ("stage_rewritten", "_verbatim_in", "the quote verbatim in the sentence it became: moved"),
    ("stage_place", "_what_the_diff_put_there", "the text the diff put there: diff"),
    ("stage_context", "_between_context_here", "between the surviving context: context"),
    ("stage_fuzzy", "_folded_copy_near", "the quote equal after normalisation: exact"),
    ("stage_fuzzy", "_fuzzy_at_place", "the best approximate match: fuzzy"),
    ("stage_rewritten", "_rewritten_in_place", "the sentence rewritten in place: diff"),
    ("stage_rewritten", "_travelled_sentence", "its sentence moved with its context: context"),
    ("stage_rewritten", "_moved_and_rewritten", "its sentence moved and rewritten: context"),
    ("stage_rewritten", "_share_of_mapped", "its sentence rewritten, nothing at the place: diff"),
)
"""The stages ``_Reanchor._in_place`` tries at the span's place, in its order."""
