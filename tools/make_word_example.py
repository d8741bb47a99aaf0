"""Writes the Word review example shipped in ``resources/word/``: ``review.docx`` (a memo a
reviewer commented on in Word: four comments, one reply) and ``revised.docx`` (the agent's
revision as Word delivers it: tracked changes, three comments resolved, one of them on text
it left unchanged, a reply). The smoke test of the frozen build reads and scores the pair
(``app.main``); a new user can try ``arl score --v1 review.docx --v2 revised.docx``.

Run: ``uv run python tools/make_word_example.py`` (replaces the two files). The memo text
was written for this project.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.word_files import Note, deleted, end, ins, make_docx, para, run, start

OUT = ROOT / "resources" / "word"
H1 = '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>'
STYLES = '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>'


def body(revised: bool) -> str:
    def change(old: str, new: str, n: int) -> str:
        return deleted(old, 100 + n) + ins(run(new), 200 + n) if revised else run(old)

    return (
        para(run("Travel expenses policy"), ppr=H1)
        + para(
            run("Staff may claim "),
            start(0),
            change(
                "reasonable costs", "rail fares in standard class and hotels up to €150 a night", 0
            ),
            end(0),
            run(" for travel approved in advance."),
        )
        + para(
            run("Claims are paid "),
            start(1),
            run("within a few weeks"),
            end(1),
            run(" of the receipt reaching finance."),
        )
        + para(
            start(2),
            change("Taxis are never allowed.", "Taxis are allowed after 22:00 or with luggage.", 2),
            end(2),
        )
        + "<w:tbl><w:tr><w:tc><w:p>"
        + run("Meals")
        + "</w:p></w:tc><w:tc><w:p>"
        + start(3)
        + run("€40 a day")
        + end(3)
        + "</w:p></w:tc></w:tr></w:tbl>"
        + para(run("Questions go to the finance office."))
    )


def notes(revised: bool) -> list[Note]:
    out = [
        Note(
            0, "Reasonable is not a rule: give the limits.", para_id="0A000001", durable="1A000001"
        ),
        Note(1, "Say how many days.", para_id="0A000002", durable="1A000002"),
        Note(2, "Too strict: late trains.", para_id="0A000003", durable="1A000003"),
        Note(3, "Is this per person?", para_id="0A000004", durable="1A000004"),
        Note(
            4,
            "Agreed, and night buses.",
            author="Second reviewer",
            para_id="0A000005",
            parent="0A000003",
        ),
    ]
    if revised:
        out[0].done = True  # edited: the claim agrees
        out[1].done = True  # resolved, text unchanged: VERIFICATION
        out[2].done = True
        out.append(
            Note(
                5,
                "Gave rail and hotel limits.",
                author="Revision agent",
                date="2026-12-01T09:00:00Z",
                para_id="0A000006",
                parent="0A000001",
            )
        )
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    title = "Travel expenses policy"
    (OUT / "review.docx").write_bytes(
        make_docx(body(False), notes(False), styles=STYLES, title=title)
    )
    (OUT / "revised.docx").write_bytes(
        make_docx(body(True), notes(True), styles=STYLES, title=title)
    )
    print(f"wrote {OUT / 'review.docx'} and {OUT / 'revised.docx'}")


if __name__ == "__main__":
    main()
