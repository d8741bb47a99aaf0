"""Send back's one rule (``engine.bundle.sendback``, docs/bundle.md "Send back"), over any
mix of verdicts, statuses and decisions: every comment is in exactly one of the lists the
dialog and the brief name (sent, settled and carried resolved, left behind); a stale anchor
is never sent; a deletion is never taken as a fix without the reviewer saying so."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from engine.bundle.decisions import DECISIONS, Decision, rule_problem
from engine.bundle.sendback import SEND_AGAIN, SETTLED, STALE_LEFT, send_back
from engine.models import Anchor, Comment, Reply

V2 = "Employees may work remotely up to three days a week. Requests go through HR."
VERDICTS = ("edited", "untouched", "deleted", "stale_anchor")


class _Version:
    kind, source = "text", V2

    def to_version(self):
        return SimpleNamespace(text=V2)


def _bundle(rows):
    comments, final = [], []
    for i, (verdict, status, actionable, _decision, _replied) in enumerate(rows):
        cid = f"c{i + 1}"
        comments.append(
            Comment(
                cid,
                f"Comment body {i}",
                Anchor("up to three days", "", "", start_offset=28, end_offset=44),
                status=status,
                actionable=actionable,
                created_on_version_id="draft-1" if verdict == "stale_anchor" else None,
            )
        )
        item = {"comment_id": cid, "verdict": verdict}
        if verdict in ("edited", "untouched"):  # found in v2; deleted and stale are not
            item["v2"] = {"start": 28, "end": 44}
        final.append(item)
    return SimpleNamespace(
        version=lambda name: _Version(),
        verdicts={"final": final},
        document_title="Policy",
        path=None,
        manifest={"run_id": "run-x", "given_version_id": "v1"},
        comments_after=comments,
        comments_before=comments,
    )


def _decision(cid, verdict, word):
    return Decision(cid, 1, verdict, word, "a reason", "Ann", "k", "2026-12-01T10:00:00Z")


rows = st.lists(
    st.tuples(
        st.sampled_from(VERDICTS),
        st.sampled_from(("open", "resolved")),
        st.booleans(),
        st.none() | st.sampled_from(DECISIONS),
        st.booleans(),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(rows)
def test_every_comment_is_in_exactly_one_list(mix):
    bundle = _bundle(mix)
    decided = {
        f"c{i + 1}": _decision(f"c{i + 1}", verdict, word)
        for i, (verdict, _s, _a, word, _r) in enumerate(mix)
        # only the decisions the writer accepts (a deleted verdict offers no plain accept)
        if word is not None and rule_problem(verdict, word, "a reason") is None
    }
    replies = {
        f"c{i + 1}": [Reply("Ann", "a reply", "2026-12-01T11:00:00Z", "reply")]
        for i, row in enumerate(mix)
        if row[4]
    }
    plan = send_back(bundle, decided, replies)
    sent = [c.id for c in plan.comments]
    settled = [c.id for c in plan.settled]
    left = list(plan.left)
    every = [c.id for c in bundle.comments_after]
    # exactly one list each: no comment twice, none missing
    assert sorted(sent + settled + left) == sorted(every)
    assert set(plan.unplaced) <= set(sent) and set(plan.stale) <= set(left)
    assert set(plan.reasons) <= set(sent) and set(plan.replied_only()) <= set(left)
    # the dialog's and the brief's lists name each comment once
    brief = plan.brief()
    for cid in every:
        said = [plan.left_words(), plan.settled_words()]
        assert sum(plan.name(cid) in w for w in said) <= 1
        assert brief.count(plan.name(cid)) <= 1
    for (verdict, status, actionable, _w, _r), c in zip(mix, bundle.comments_after):
        d = decided.get(c.id)
        word = d.decision if d else None
        if word in SETTLED or (word == "accept" and verdict == "edited"):
            assert c.id in settled
        elif verdict == "stale_anchor":
            # never sent: its words are not in the text the next agent gets
            assert plan.left[c.id] == STALE_LEFT and c.id in plan.stale
        elif word in SEND_AGAIN:
            assert c.id in sent and plan.reasons[c.id] == "a reason"
        elif status == "resolved":
            assert c.id in left
            if verdict == "deleted":  # the agent's deletion is not taken as the fix
                assert "not said whether the deletion was the fix" in plan.left[c.id]
        elif not actionable:
            assert c.id in left
        else:
            assert c.id in sent
        if c.id in sent:
            assert (c.id in plan.unplaced) == (verdict not in ("edited", "untouched"))
        # a deletion is settled only by the reviewer's word, never by the agent's resolve
        if verdict == "deleted" and c.id in settled:
            assert word in SETTLED
    # the settled go along resolved with the decision in their thread; the sent are open
    assert all(c.status == "resolved" and c.thread[-1].kind == "resolve" for c in plan.settled)
    assert all(c.status == "open" for c in plan.comments)
    assert [c.id for c in plan.all_comments()] == sent + settled
