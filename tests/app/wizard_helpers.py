"""Shared data of the wizard tests (imported by name: pytest puts tests/app on sys.path)."""

from __future__ import annotations

SAMPLE = (
    "<!doctype html><html><head><meta charset=utf-8><title>Memo</title></head><body>"
    "<h1>Hybrid work \U0001f3e2 memo</h1><p>Staff come to the office two days a week.</p>"
    "<p>Requests for exceptions go to HR by email.</p>"
    "<p>The policy starts on the first of next month.</p></body></html>"
)
SAMPLE_TEXT = (
    "Hybrid work \U0001f3e2 memoStaff come to the office two days a week."
    "Requests for exceptions go to HR by email."
    "The policy starts on the first of next month."
)


def u16(text: str, sub: str) -> tuple[int, int]:
    i = text.index(sub)
    s = len(text[:i].encode("utf-16-le")) // 2
    return s, s + len(sub.encode("utf-16-le")) // 2
