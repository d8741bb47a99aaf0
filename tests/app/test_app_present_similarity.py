"""The verdict list labels a similarity as "% similar" and never the method's confidence
(docs/verdicts.md: confidence is how sure the place is, not a similarity)."""

from app import present


def test_similarity_is_shown_as_similar_and_confidence_is_not():
    item = {"method": "fuzzy", "confidence": 0.8, "similarity": 0.55}
    text = present.method_text(item)
    assert "55% similar" in text and "80% similar" not in text
    assert "place confidence 80%" in text


def test_a_method_confidence_alone_is_never_called_similar():
    text = present.method_text({"method": "diff", "confidence": 0.4, "similarity": None})
    assert "similar" not in text and "place confidence 40%" in text
    assert "similar" not in present.method_text({"method": "exact", "confidence": 1.0})
