"""A deletion is never a fix (docs/verdicts.md, "What may never be
a span's new place" and "Blocks and words"): each case of the issue, and cases of the same
kind beyond it. The property test over real text is test_deleted_span_properties.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.models import Anchor, Comment
from engine.score.scoring import Version, score
from engine.text.utf16 import to_utf16

DATA = Path(__file__).parent.parent / "data"


def _comment(text: str, quote: str, cid: str = "c1", occurrence: int = 0) -> Comment:
    i = -1
    for _ in range(occurrence + 1):
        i = text.index(quote, i + 1)
    n = len(quote)
    return Comment(
        cid,
        "fix",
        Anchor(
            quote,
            text[max(0, i - 32) : i],
            text[i + n : i + n + 32],
            start_offset=to_utf16(text, i),
            end_offset=to_utf16(text, i + n),
        ),
    )


def _verdicts(t1: str, t2: str, quotes: list[str], kind: str = "text"):
    v1 = Version.from_source(t1, kind, "v1")
    v2 = Version.from_source(t2, kind, "v2")
    comments = [_comment(v1.text, q, f"c{k}") for k, q in enumerate(quotes)]
    return score(v1, v2, comments).verdicts


def test_t01_a_deleted_sentence_does_not_take_a_neighbouring_comments_words():
    d = DATA / "realworld" / "T01"
    v1 = Version.from_file(d / "v1.html", "v1")
    v2 = Version.from_file(d / "v2.html", "v2")
    comments = [
        Comment.from_json(c) for c in json.loads((d / "comments.json").read_text())["comments"]
    ]
    r = score(v1, v2, comments)
    got = {v.comment_id: v.verdict for v in r.verdicts}
    assert got == json.loads((d / "expected.json").read_text())["expected"]
    assert r.metrics["attribution_rate"].value == 0.25  # 1 of 4, not 2 of 4


def test_t01_deleting_the_sentence_alone_reads_deleted():
    d = DATA / "realworld" / "T01"
    v1 = Version.from_file(d / "v1.html", "v1")
    raw2 = (
        (d / "v1.html")
        .read_text()
        .replace("Hotel stays are capped at 150 euros per night in all cities. ", "")
    )
    comments = [
        Comment.from_json(c) for c in json.loads((d / "comments.json").read_text())["comments"]
    ]
    r = score(v1, Version.from_source(raw2, "html", "v2"), comments)
    assert {v.comment_id: v.verdict for v in r.verdicts}["c3"] == "deleted"


@pytest.mark.parametrize(
    "t1,t2,quote",
    [
        # the case: the bracket between "Welcome. " and " See the map." is empty
        (
            "Welcome. The fee is due in May. See the map. Call us. See the map.",
            "Welcome. See the map. Call us. See the map.",
            "The fee is due in May.",
        ),
        # the same in German, and with the sentence's words recurring later
        (
            "Willkommen. Die Gebühr ist im Mai fällig. Siehe Karte. Ruf an. Siehe Karte.",
            "Willkommen. Siehe Karte. Ruf an. Siehe Karte.",
            "Die Gebühr ist im Mai fällig.",
        ),
        (
            "Intro line here. The fee is due in May. The fee for June is lower. Bye now.",
            "Intro line here. The fee for June is lower. Bye now.",
            "The fee is due in May.",
        ),
    ],
)
def test_a_deleted_sentence_never_becomes_a_kept_sentence_from_elsewhere(t1, t2, quote):
    (v,) = _verdicts(t1, t2, [quote])
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def test_a_deleted_sentence_beside_a_rewritten_neighbour_is_deleted():
    t1 = (
        "The museum opens at nine. Tickets cost twelve euros for adults. "
        "Children under six enter for free. The café closes at five.\n\n"
        "Guided tours start every hour."
    )
    t2 = (
        "The museum opens at nine. Children younger than seven pay nothing at the door. "
        "The café closes at five.\n\nGuided tours start every hour."
    )
    v0, v1 = _verdicts(t1, t2, ["Tickets cost twelve euros", "under six enter"])
    assert v0.verdict == "deleted", (v0.method, v0.v2, v0.note)
    assert v1.verdict == "edited" and "seven" in v1.v2.text


def test_two_comments_never_share_a_place_unless_the_diff_merged_them():
    t1 = "Alpha one stays. Bravo two is here. Charlie three is here. Delta four stays."
    t2 = "Alpha one stays. A single new sentence replaces both. Delta four stays."
    a, b = _verdicts(t1, t2, ["Bravo two is here.", "Charlie three is here."])
    if a.v2 is not None and b.v2 is not None:
        overlap = min(a.v2.end, b.v2.end) - max(a.v2.start, b.v2.start)
        if overlap > 0:
            assert "shares its new place with comment c1" in a.note
            assert "shares its new place with comment c0" in b.note


def test_a_rewritten_sentence_whose_surroundings_were_rewritten_too_is_edited():
    # the "Members recieve a newsletter" note: the sentence's place survives (its
    # rewrite shares "newsletter"), its text changed: edited, not deleted
    t1 = (
        "Our club meets every Tuesday evening in the old library hall. Members recieve a "
        "newsletter every month. New members are always welcome to join us."
    )
    t2 = "Every member receives a monthly newsletter."
    (v,) = _verdicts(t1, t2, ["recieve"])
    assert v.verdict == "edited", (v.method, v.note)
    assert "receives" in v.v2.text


def test_a_markdown_list_renumbered_with_an_item_inserted():
    t1 = "Steps:\n1. Install the client.\n2. Open the settings page.\n3. Enter your password.\n"
    t2 = (
        "Steps:\n1. Install the client.\n2. Download the certificate.\n"
        "3. Open the settings panel.\n4. Enter your password.\n"
    )
    (v,) = _verdicts(t1, t2, ["Open the settings page."])
    assert v.verdict == "edited"
    assert v.v2.text == "Open the settings panel.", v.v2
    assert "\n" not in v.v2.text


def test_a_table_whose_padding_changed_keeps_the_span_in_its_cell():
    t1 = "| Name | Role | Office |\n|------|------|--------|\n| Ana | Editor | Lisbon |\n"
    t2 = (
        "| Name | Role        | Office |\n|------|-------------|--------|\n"
        "| Ana  | Lead editor | Lisbon |\n"
    )
    (v,) = _verdicts(t1, t2, ["Editor"])
    assert v.verdict == "edited"
    assert "|" not in v.v2.text and "Lisbon" not in v.v2.text, v.v2


def test_html_table_cells_are_blocks():
    t1 = "<table><tr><td>Ana</td><td>Editor</td><td>Lisbon</td></tr></table>"
    t2 = "<table><tr><td>Ana</td><td>Lead editor</td><td>Lisbon</td></tr></table>"
    (v,) = _verdicts(t1, t2, ["Editor"], "html")
    assert v.verdict == "edited"
    assert "Lisbon" not in v.v2.text and "Ana" not in v.v2.text, v.v2


@pytest.mark.parametrize("quote", ["VPN 3.1", "VPN 3.1 installed"])
def test_a_list_item_moved_to_the_top_with_its_version_bumped(quote):
    t1 = "Release notes:\n- Printer driver updated.\n- Mail client fixed.\n- VPN 3.1 installed.\n"
    t2 = "Release notes:\n- VPN 3.2 installed.\n- Printer driver updated.\n- Mail client fixed.\n"
    (v,) = _verdicts(t1, t2, [quote])
    assert v.verdict == "edited", (v.method, v.note)
    assert v.v2.text.startswith("VPN 3.2"), v.v2  # never "VPN 3." (a number cut)


@pytest.mark.parametrize(
    "t1,t2,quote,now",
    [
        ("Pay 1,500 euros by May. More.", "Pay 1,750 euros by May. More.", "1,500", "1,750"),
        ("Version 2.10 ships today.", "Version 2.11 ships today.", "2.10", "2.11"),
        ("Version 2.10 ships today.", "Version 3.10 ships today.", "10 ships", "3.10 ships"),
    ],
)
def test_a_number_is_never_cut(t1, t2, quote, now):
    # a quote that cuts a number in v1 ("10" of "2.10") may be cut the same way in v2;
    # where the first or last number was replaced, the span is the whole number now there
    (v,) = _verdicts(t1, t2, [quote])
    assert v.verdict == "edited"
    assert v.v2.text == now, v.v2


def test_a_paragraph_rewritten_wholesale_between_kept_paragraphs_is_edited():
    t1 = "The committee met on Tuesday.\n\nOur budget is tight this year.\n\nMinutes follow below."
    t2 = "The committee met on Tuesday.\n\nMoney: scarce!\n\nMinutes follow below."
    (v,) = _verdicts(t1, t2, ["budget is tight"])
    assert v.verdict == "edited", (v.method, v.note)
    assert v.v2.text in "Money: scarce!"


def test_a_deleted_paragraph_does_not_become_the_rewritten_heading_after_it():
    t1 = (
        "Results came in late.\n\n"
        "Conclusions: our findings can stimulate policy in the context of the postdoc system.\n\n"
        "Introduction\n\nPostdocs are many."
    )
    t2 = "Results came in late.\n\nzephyr\n\nPostdocs are many."
    (v,) = _verdicts(t1, t2, ["of the postdoc system"])
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def test_a_table_cell_renamed_to_another_cells_word_is_an_edit():
    t1 = "<table><tr><td>Ana</td><td>Editor</td></tr><tr><td>Bo</td><td>Writer</td></tr></table>"
    t2 = "<table><tr><td>Ana</td><td>Writer</td></tr><tr><td>Bo</td><td>Writer</td></tr></table>"
    (v,) = _verdicts(t1, t2, ["Editor"], "html")
    assert v.verdict == "edited" and v.v2.text == "Writer", (v.method, v.v2, v.note)


def test_a_deleted_paragraph_does_not_become_the_heading_before_it():
    t1 = "<p>Figure 3.</p><p>Pharmacophore</p><p>The set had been screened before.</p><p>Two were kept.</p>"
    t2 = "<p>Figure 3.</p><p>Pharmacophore</p><p>Two were kept.</p>"
    (v,) = _verdicts(t1, t2, ["The set had been"], "html")
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


def test_a_moved_sentence_longer_than_the_reach_is_a_whole_candidate():
    """A sentence moved into a block with no character at the block edges (html-tight:
    "Requirements She works ... alone anymore.Challenges") and longer than the search reach:
    the candidate sentence is whole, not cut at the reach limit just before the quote (it
    read `edited` "italic>hal9k" by fuzzy; the property test's long profile found it).
    docs/verdicts.md, "A candidate sentence is whole"."""
    s0 = (
        '&lt;boxed-text xmlns:mml="http://www.w3.org/1998/Math/MathML" '
        'xmlns:xlink="http://www.w3.org/1999/xlink" id="B5"&gt; &lt;p&gt; '
        "&lt;italic&gt;Hal9k&lt;/italic&gt; has grown into a widely used software in "
        "researchonomics, and Kim is proactively asked to apply for - and is subsequently "
        "awarded - a permanent RSE position at the institute for researchonomy at UofA, "
        "based on her work on the library."
    )
    s1 = (
        "She works closely with the central RSE team, but mostly due to bureaucracy and the "
        "high demand for her library, Kim does not have enough time to maintain and further "
        "develop &lt;italic&gt;hal9k&lt;/italic&gt; alone anymore."
    )
    s2 = (
        "This is very fruitful, and due to the implementation of a new research software "
        "funding scheme at UofA, Kim is able to hire one of the course students, who has "
        "shown great RSE skills, straight into a long-term position at her institute, where "
        "they focus on the maintenance and development of &lt;italic&gt;hal9k&lt;/italic&gt;, "
        "work with the computing center to support &lt;italic&gt;hal9k&lt;/italic&gt;-based "
        "supercomputing on a new, dedicated FGPA cluster, develop training materials for "
        "external users, and organize the yearly &lt;italic&gt;hal9k&lt;/italic&gt; users "
        "and developers conference."
    )

    def page(*ps: str) -> str:
        return "<!DOCTYPE html><html><body>" + "".join(f"<p>{p}</p>" for p in ps) + "</body></html>"

    title = "How can research software be sustainably funded?"
    t1 = page(title, f"{s0} {s1} {s2}", "Requirements", "Challenges")
    t2 = page(title, f"{s0} {s2}", f"Requirements {s1}", "Challenges")
    [v] = _verdicts(t1, t2, ["italic> alone anymore"], "html")
    assert (v.verdict, v.v2.text) == ("untouched", "italic> alone anymore")


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize(
    "paras,deleted,rewritten,rewrite,quotes",
    [
        # a one-sentence paragraph deleted, the paragraph after it rewritten: the diff
        # replaces both in one change and keeps a word of the deleted one ("organizations")
        (
            [
                "Computing centers run high-performance computing facilities for everyone.",
                "libraries (also registries, indices) Infrastructure units of research bodies "
                "such as universities, or independent organizations, which gather research "
                "outputs and their structured metadata, and provide indices, search, etc.",
                "research funding organizations Public research funding bodies but "
                "potentially also companies, foundations, associations, etc.",
                "research leaders Heads of research groups, such as professors.",
            ],
            1,
            2,
            "orchard orchard organizations velvet research harbour bodies copper "
            "potentially river companies, orchard, associations, velvet.",
            ["registries, indices) Infrastructure", "research funding organizations"],
        ),
        # the same kind in Chinese
        (
            [
                "计算中心为所有研究人员提供高性能计算设施。",
                "图书馆收集研究成果及其元数据，并提供索引和检索服务。",
                "研究资助机构包括公共资助机构，也包括公司、基金会和协会。",
                "研究负责人是研究小组的领导者。",
            ],
            1,
            2,
            "研究资助单位包括公共资助单位，也包括企业、基金会和学会。",
            ["收集研究成果及其元数据", "研究资助机构包括公共"],
        ),
    ],
)
def test_a_deleted_paragraph_beside_a_rewritten_one_is_not_its_rewrite(
    kind, paras, deleted, rewritten, rewrite, quotes
):
    # one v2 sentence is the rewrite of one v1 sentence, the one most like it, also when
    # that one is in the next block (docs/verdicts.md, "A neighbour's rewrite")
    after = list(paras)
    after[rewritten] = rewrite
    del after[deleted]

    def render(ps):
        return "\n\n".join(ps) if kind == "text" else "".join(f"<p>{p}</p>\n" for p in ps)

    v0, v1 = _verdicts(render(paras), render(after), quotes, kind)
    assert v0.verdict == "deleted", (v0.method, v0.v2, v0.note)
    assert v1.verdict == "edited", (v1.method, v1.v2, v1.note)


@pytest.mark.parametrize(
    "t1,t2,quote",
    [
        # a sentence moved into the heading paragraph after a deleted one, in HTML with no
        # character between paragraphs: the diff glues the heading and the moved sentence
        # into one new text, which v1 had in two places
        (
            "<body><p>Limitations</p><p>Furthermore, we only assessed some journal "
            "characteristics. Other traits may matter.</p><p>In conclusion, we found that "
            "academic degrees are reported in about one fourth of medical journals.</p>"
            "<p>Data availability</p><p>Underlying data are available online.</p></body>",
            "<body><p>Limitations</p><p>Other traits may matter.</p><p>Data availability "
            "Furthermore, we only assessed some journal characteristics.</p><p>Underlying "
            "data are available online.</p></body>",
            "In conclusion, we found",
        ),
        # the neighbour sentence moved under the heading after the deleted one: the diff
        # reads it as new text there, but v1 had it word for word
        (
            "Fusion of the lateral masses minimizes the risk of injury. The efficacy of this "
            "approach has been validated in a biomechanical study by Chittiboina.\n\n"
            "This study hereby highlights the importance of the treatment algorithm chosen "
            "for geriatric patients. Patients with good scores benefit from posterior "
            "fusion.\n\nConclusion\n\nAge alone should not determine the approach.",
            "Fusion of the lateral masses minimizes the risk of injury.\n\nPatients with "
            "good scores benefit from posterior fusion.\n\nConclusion The efficacy of this "
            "approach has been validated in a biomechanical study by Chittiboina.\n\nAge "
            "alone should not determine the approach.",
            "This study hereby highlights",
        ),
        # in Arabic
        (
            "يقلل دمج الكتل الجانبية من خطر الإصابة. وقد ثبتت فعالية هذا النهج في دراسة "
            "ميكانيكية حيوية.\n\nتسلط هذه الدراسة الضوء على أهمية خوارزمية العلاج المختارة "
            "للمرضى المسنين. يستفيد المرضى ذوو الدرجات الجيدة من الدمج الخلفي.\n\nالخلاصة"
            "\n\nلا ينبغي أن يحدد العمر وحده طريقة العلاج.",
            "يقلل دمج الكتل الجانبية من خطر الإصابة.\n\nيستفيد المرضى ذوو الدرجات الجيدة من "
            "الدمج الخلفي.\n\nالخلاصة وقد ثبتت فعالية هذا النهج في دراسة ميكانيكية حيوية."
            "\n\nلا ينبغي أن يحدد العمر وحده طريقة العلاج.",
            "تسلط هذه الدراسة الضوء",
        ),
    ],
)
def test_a_neighbour_that_moved_beside_a_deleted_sentence_is_not_its_rewrite(t1, t2, quote):
    # text the diff took for new that v1 had word for word elsewhere is a moved sentence,
    # never the rewrite of the one it now stands beside (docs/verdicts.md, "Text already
    # in v1")
    (v,) = _verdicts(t1, t2, [quote], "html" if t1.startswith("<") else "text")
    assert v.verdict == "deleted", (v.method, v.v2, v.note)


@pytest.mark.parametrize(
    "t1,t2,quotes,expected",
    [
        # a sentence moved two paragraphs down, the paragraph after its old place rewritten:
        # the diff keeps the moved sentence and takes the rewrite (and the paragraph it
        # moved past) for new text far from the estimated place
        (
            "“This is my friend, Dr. Watson. He has been of most vital use to me in several "
            "of my cases, and a lucky chance has made it possible for me to bring him out.”"
            "\n\n“I am delighted to see you,” said she, pressing my hand warmly. “You will, I "
            "am sure, forgive anything that may be wanting in our arrangements.”\n\n“My dear "
            "madam,” said I, “I am an old campaigner, and if I were not I can very well see "
            "that no apology is needed.”\n\n“Now, Mr. Sherlock Holmes,” said the lady, “I "
            "should very much like to ask you one or two plain questions.”",
            "“This is my friend, Dr. Watson.\n\n“orchard copper delighted harbour lantern "
            "orchard,” said copper, pressing meadow hand copper. “You copper, I copper sure, "
            "copper anything velvet may velvet wanting meadow our velvet.”\n\n“My dear "
            "madam,” said I, “I am an old campaigner, and if I were not I can very well see "
            "that no apology is needed.” He has been of most vital use to me in several of "
            "my cases, and a lucky chance has made it possible for me to bring him out.”\n\n"
            "“Now, Mr. Sherlock Holmes,” said the lady, “I should very much like to ask you "
            "one or two plain questions.”",
            ["He has been of most vital", "I am delighted to see"],
            ["untouched", "edited"],
        ),
    ],
)
def test_a_rewrite_beside_a_neighbour_that_moved_keeps_its_place(t1, t2, quotes, expected):
    # a block that moved carries its neighbour's place with it (docs/verdicts.md, "The
    # sentence a rewritten sentence became")
    got = _verdicts(t1, t2, quotes)
    assert [v.verdict for v in got] == expected, [(v.method, v.v2, v.note) for v in got]


def test_a_long_deleted_sentence_beside_a_rewritten_one_far_away_in_v1():
    # the diff replaced a long sentence (deleted) and the next one (rewritten) by one short
    # text: the neighbour lies far from the deleted sentence in v1 but beside its place in
    # v2, and claims its own rewrite (docs/verdicts.md, "Not a neighbour's rewrite")
    t1 = (
        "There is nothing so unnatural as the commonplace.\n\nI smiled and shook my head. "
        "“I can quite understand your thinking so,” I said. “Of course, in your position "
        "of unofficial adviser and helper to everybody who is absolutely puzzled, throughout "
        "three continents, you are brought in contact with all that is strange and bizarre. "
        "But here”—I picked up the morning paper from the ground—“let us put it to a "
        "practical test. Here is the first heading upon which I come.”"
    )
    t2 = (
        "There is nothing so unnatural as the commonplace.\n\ncopper harbour”—I velvet river "
        "orchard morning harbour from harbour ground—“lantern us velvet it copper a harbour "
        "test. Here is the first heading upon which I come.”"
    )
    v0, v1 = _verdicts(t1, t2, ["I smiled and shook my", "But here”—I picked up"])
    assert v0.verdict == "deleted", (v0.method, v0.v2, v0.note)
    assert v1.verdict == "edited", (v1.method, v1.v2, v1.note)


def test_a_new_place_widened_to_whole_words_stops_at_a_block_edge():
    # HTML with no character between paragraphs: "Goudy</p><p>This" reads "GoudyThis",
    # two words; widening the rewrite's edge to a whole word must not take "Goudy" from
    # the block before (it crossed the block and the quote read deleted)
    ps1 = [
        "League Spartan and Sorts Mill Goudy",
        "typefaces created in 2014 and 2009 by",
        "This is the 3rd edition of this ebook.",
        "The first edition was released on",
    ]
    ps2 = [ps1[0], "This copper the river meadow of copper harbour.", ps1[3]]
    t1 = "<body>" + "".join(f"<p>{p}</p>" for p in ps1) + "</body>"
    t2 = "<body>" + "".join(f"<p>{p}</p>" for p in ps2) + "</body>"
    v0, v1 = _verdicts(t1, t2, ["typefaces created in", "is the 3rd edition of this"], "html")
    assert v0.verdict == "deleted", (v0.method, v0.v2, v0.note)
    assert v1.verdict == "edited" and "Goudy" not in v1.v2.text, (v1.method, v1.v2, v1.note)


@pytest.mark.parametrize(
    "before,after,quote",
    [
        ("of the medical journals investigated", "of the lantern journals lantern", "Data are"),
        ("两种方法都经过了检验", "两种方法都经过了测试", "数据可以"),
    ],
)
def test_the_word_a_quote_starts_in_ends_at_its_block_edge(before, after, quote):
    # "investigated</p><p>Data" reads "investigatedData": the last word of the block
    # before was replaced, but the quote's own first word is whole and unchanged
    tail = "available under the terms of the licence."
    t1 = f"<body><p>{before}</p><p>{quote} {tail}</p></body>"
    t2 = f"<body><p>{after}</p><p>{quote} {tail}</p></body>"
    (v,) = _verdicts(t1, t2, [quote + " available"], "html")
    assert v.verdict == "untouched", (v.method, v.v2, v.note)


# A list item deleted with the line break before it, so its last sentence joins the item
# above, whose last sentence was rewritten keeping some of its words: the rewrite is that
# sentence's, in the image of the item above; the deleted quote's fuzzy likeness there
# ("exception river the meadow" for "to measure the impact", 51% by letters) is no place.
# Found by the long property run on an F1000RD paper (F1000RD, CC BY 4.0).
_MERGED_1 = (
    "- Heterogeneous community: There are differences between fields. This also makes it"
    " hard to train researchers for sustainable software development, as advanced courses"
    " for research software engineering are not widely available (with the notable"
    " exception of the CodeRefinery project). Targeted curricula must be developed and"
    " updated regularly.\n"
    "- Lack of impact measures: It is unclear how to measure the impact of research"
    " software with respect to its quality. This exceeds the implementation of software"
    " citation.\n"
    "- Legal issues: Many obstacles pertain to licensing.\n"
)
_MERGED_2 = (
    "- Heterogeneous community: There are differences between fields. meadow harbour makes"
    " harbour orchard lantern train meadow for river software orchard, as harbour courses"
    " velvet research velvet engineering river not meadow available (meadow the velvet"
    " exception river the meadow project). This exceeds the implementation of software"
    " citation.\n"
    "- Legal issues: Many obstacles pertain to licensing.\n"
)


def _as_html_list(text: str) -> str:
    items = [line[2:] for line in text.splitlines()]
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_deleted_item_joined_to_the_item_above_is_not_its_neighbours_rewrite(kind):
    t1, t2 = _MERGED_1, _MERGED_2
    if kind == "html":
        t1, t2 = _as_html_list(t1), _as_html_list(t2)
    gone, rewritten = _verdicts(t1, t2, ["to measure the impact", "This also makes it"], kind)
    assert (gone.verdict, gone.v2) == ("deleted", None), gone
    assert rewritten.verdict == "edited" and rewritten.v2.text.startswith("meadow"), rewritten


# F1000RD (CC BY 4.0), the paragraph the long property run drew: its last sentence moved into
# a paragraph after the caption "Table 1.", the one before it deleted.
_CAPTION_PARAGRAPH_V1 = (
    "Using 5-fold cross validation the Bayesian approach ( Data S1 and Data S2) performed"
    " the best for the EBOV replication data and was equivalent for the RP Forest approac"
    "h ( Table 1) and was better than SVM ( Data S3 and Data S4) for the pseudotype data."
    " The Open Bayesian models had ROC scores slightly lower than the Bayesian models bui"
    "lt with Discovery Studio. A more exhaustive cross validation for the Bayesian models"
    " is the ‘leave out 50% repeated randomly 100 times’ which produced ROC values greate"
    "r than 0.8 and were comparable to the 5-fold cross validation data. This indicated t"
    "he models are stable. For the EBOV pseudotype assay, alkoxyethylamino was a common f"
    "eature amongst active compounds in the training set, as were 1,3-diaminopropyl and s"
    "aturated six-member heterocycles with an oxygen and perhaps an additional heteroatom"
    " in the ring ( Figure 1A). Training set inactives commonly featured carboxylic acids"
    ", N,N'-disubstituted ureas, secondary and tertiary amides, pyrazoles, aromatic sulfo"
    "namides, tertiary cyclopentanols, 1,2-mercaptoethanol, and penams ( Figure 1B). For "
    "the replication assay training set, active features included piperazine, phenothiazi"
    "ne, tertiary amines, and alkoxyethylamino ( Figure 2A). Inactive features included s"
    "econdary amides, disubstituted amines, cyclopropylmethyl, carboxylic acids, 1,3-oxat"
    "hiolanes, tertiary alcohols, phenethyl, and penams ( Figure 2B). An actives feature "
    "common between both assays/models was alkoxyethylamino. Inactives features in common"
    " between both were carboxylic acids, secondary amides, penams and tertiary alcohols,"
    " which may relate to properties which prevent the molecules from accessing cellular "
    "sites of viral activity."
)
# v2: the paragraph up to the deleted sentence; its last sentence after the caption
_CAPTION_PARAGRAPH_V2 = _CAPTION_PARAGRAPH_V1[: _CAPTION_PARAGRAPH_V1.index(" An actives")]
_CAPTION_MOVED = (
    "Table 1. " + _CAPTION_PARAGRAPH_V1[_CAPTION_PARAGRAPH_V1.index("Inactives features in") :]
)
_CAPTION_V1 = "Results\n\n" + _CAPTION_PARAGRAPH_V1 + "\n\nTable 1.\n\nFigure 1.\n\nFigure 2."
_CAPTION_V2 = (
    "Results\n\n" + _CAPTION_PARAGRAPH_V2 + "\n\n" + _CAPTION_MOVED + "\n\nFigure 1.\n\nFigure 2."
)


@pytest.mark.parametrize("kind", ["text", "html"])
def test_a_caption_that_moved_beside_a_deleted_sentence_is_not_its_rewrite(kind):
    """The long property run on an F1000RD paper: the caption block "Table 1." moved up
    into the paragraph, beside a sentence deleted there; the diff kept the deleted
    sentence's full stop after the caption and took "Table 1" for its replacement
    (docs/verdicts.md, "Not text that was already in v1")."""
    t1, t2 = _CAPTION_V1, _CAPTION_V2
    if kind == "html":
        t1, t2 = ("".join(f"<p>{p}</p>" for p in t.split("\n\n")) for t in (t1, t2))
    got = _verdicts(t1, t2, ["An actives feature common", "Inactives features in"], kind)
    assert [v.verdict for v in got] == ["deleted", "untouched"], got


# Sentences with no full stop between them, each ended by a symbol (an emoji, a smiley of
# the BMP, a bullet, a bar): the whole text is one sentence to the diff and the re-anchoring.
# Three comments: the first sentence has one word changed, the second is deleted, the
# third is kept. The diff folds the kept symbol between the changed word and the deleted
# sentence into one change, so the deleted sentence's image is the changed word and its
# symbol, "June 😀", inside the first comment's new place: it read `edited` there, sharing
# the place ("the revision replaced both places with one text"; a new user's report, stop
# 41). The place belongs to the comment whose own words it keeps.
_SYMBOL_SENTENCES = [
    (
        (
            "Welcome to the team",
            "The fee is due in May",
            "Please read the handbook before Monday",
            "Our office opens at nine every day",
            "Contact HR with questions",
        ),
        ("May", "June"),
    ),
    (
        (
            "ยินดีต้อนรับสู่ทีม",
            "ค่าธรรมเนียมครบกำหนดในเดือนพฤษภาคม",
            "กรุณาอ่านคู่มือก่อนวันจันทร์",
            "สำนักงานเปิดเก้าโมงทุกวัน",
            "ติดต่อฝ่ายบุคคลหากมีคำถาม",
        ),
        ("พฤษภาคม", "มิถุนายน"),
    ),
    (
        (
            "欢迎加入团队",
            "费用在五月到期",
            "请在周一之前阅读手册",
            "办公室每天九点开门",
            "如有问题请联系人力资源部",
        ),
        ("五月", "六月"),
    ),
    (
        (
            "به تیم خوش آمدید",
            "هزینه در ماه مه سررسید می‌شود",
            "لطفاً پیش از دوشنبه راهنما را بخوانید",
            "دفتر هر روز ساعت نه باز می‌شود",
            "برای پرسش با منابع انسانی تماس بگیرید",
        ),
        ("مه", "ژوئن"),
    ),
]


@pytest.mark.parametrize("kind", ["text", "html"])
@pytest.mark.parametrize("mark", ["\U0001f600", "\u263a", "\u2022", "|"])
@pytest.mark.parametrize("case", _SYMBOL_SENTENCES, ids=["en", "th", "zh", "fa"])
def test_a_deleted_sentence_ended_by_a_symbol_is_not_the_edit_of_the_one_before(case, mark, kind):
    (s0, s1, s2, s3, s4), (old, new) = case
    t1 = f" {mark} ".join([s0, s1, s2, s3, s4])
    t2 = f" {mark} ".join([s0, s1.replace(old, new), s3, s4])
    if kind == "html":
        t1, t2 = f"<p>{t1}</p>", f"<p>{t2}</p>"
    edited, deleted, kept = _verdicts(t1, t2, [f"{s1} {mark}", f"{s2} {mark}", s3], kind)
    assert deleted.verdict == "deleted", (deleted.method, deleted.v2, deleted.note)
    assert edited.verdict == "edited" and new in edited.v2.text, (edited.method, edited.v2)
    assert kept.verdict == "untouched"
