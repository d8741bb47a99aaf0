"""The verdict list labels a similarity as "% similar" and never the method's confidence
(docs/verdicts.md: confidence is how sure the place is, not a similarity)."""

from app import present


def test_similarity_is_shown_as_similar_and_confidence_is_not():
    item = {"method": "fuzzy", "confidence": 0.8, "similarity": 0.55}
    text = present.method_text(item)
    assert "55% similar" in text and "80% similar" not in text
    assert "80% sure this is the right place" in text


def test_a_method_confidence_alone_is_never_called_similar():
    text = present.method_text({"method": "diff", "confidence": 0.4, "similarity": None})
    assert "similar" not in text and "40% sure this is the right place" in text
    assert "similar" not in present.method_text({"method": "exact", "confidence": 1.0})


def test_a_change_of_letter_case_only_is_said_not_given_a_low_percent():
    item = {
        "method": "exact",
        "similarity": 0.11,
        "v1": {"text": "the patient was admitted"},
        "v2": {"text": "THE PATIENT WAS ADMITTED"},
    }
    text = present.method_text(item)
    assert "only the letter case changed" in text and "11%" not in text
    item["v2"] = {"text": "THE  PATIENT\nWAS ADMITTED"}
    assert "only the letter case and spacing changed" in present.method_text(item)
    item["v2"] = {"text": "THE PATIENT WAS DISCHARGED"}
    assert "11% similar" in present.method_text(item)
