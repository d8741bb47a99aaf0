"""Myers' diff under a step budget: diff-match-patch with its clock replaced by a count of
the steps taken (engine.diff.diffing describes the whole algorithm; engine.diff.align
calls it for a gap with no anchor, engine.diff.hunks for a short replacement).
"""

from __future__ import annotations

from diff_match_patch import diff_match_patch


class _Budget:
    def __init__(self, total: int, per_call: int) -> None:
        self.left = total
        self.per_call = per_call


class _CountedDmp(diff_match_patch):
    """diff-match-patch with its clock replaced by a step count.

    ``Diff_Timeout = 0`` turns off diff-match-patch's deadline and its half-match shortcut
    (which only runs under a timeout); ``diff_bisect`` is diff-match-patch's own middle-snake
    search (Apache-2.0, Google) with the deadline check replaced by a count of diagonals
    extended. When the count runs out, the piece is returned deleted and inserted whole
    and ``hit`` is set.
    """

    def __init__(self, budget: _Budget) -> None:
        super().__init__()
        self.Diff_Timeout = 0
        self.budget = budget
        self.call_left = 0
        self.hit = False
        self._refined: dict[tuple[str, str], tuple[list[tuple[int, int]], int]] = {}

    def run(self, a: str, b: str) -> list[tuple[int, str]]:
        self.call_left = min(self.budget.per_call, self.budget.left)
        self.hit = False
        out = self.diff_main(a, b, False)
        self.budget.left -= min(self.budget.per_call, self.budget.left) - self.call_left
        return out

    def refined(self, a: str, b: str) -> tuple[list[tuple[int, int]], bool]:
        """``run(a, b)`` followed by the library's ``diff_cleanupSemantic``, as ``(op,
        length)`` pairs, and whether the count ran out. Remembered per pair of texts:
        a result is reused only when the call may count at least the steps it took (the
        count is the only thing besides the texts the result depends on, and a run that
        did not run out takes the same steps, and returns the same, whenever it may take
        that many), and those steps are counted again, so the budget and every later
        result are exactly those of running it again."""
        key = (a, b)
        hit = self._refined.get(key)
        if hit is not None and min(self.budget.per_call, self.budget.left) >= hit[1]:
            self.budget.left -= hit[1]
            self.hit = False
            return hit[0], False
        before = self.budget.left
        fine = self.run(a, b)
        self.diff_cleanupSemantic(fine)
        out = [(op, len(t)) for op, t in fine]
        if not self.hit:
            self._refined[key] = (out, before - self.budget.left)
        return out, self.hit

    def diff_bisect(self, text1: str, text2: str, deadline: float) -> list[tuple[int, str]]:
        n1, n2 = len(text1), len(text2)
        max_d = (n1 + n2 + 1) // 2
        v_offset = max_d
        v_length = 2 * max_d
        v1 = [-1] * v_length
        v1[v_offset + 1] = 0
        v2 = v1[:]
        delta = n1 - n2
        front = delta % 2 != 0
        k1start = k1end = k2start = k2end = 0
        for d in range(max_d):
            self.call_left -= 2 * d + 1
            if self.call_left < 0:
                self.hit = True
                break
            for k1 in range(-d + k1start, d + 1 - k1end, 2):
                k1_offset = v_offset + k1
                if k1 == -d or (k1 != d and v1[k1_offset - 1] < v1[k1_offset + 1]):
                    x1 = v1[k1_offset + 1]
                else:
                    x1 = v1[k1_offset - 1] + 1
                y1 = x1 - k1
                while x1 < n1 and y1 < n2 and text1[x1] == text2[y1]:
                    x1 += 1
                    y1 += 1
                v1[k1_offset] = x1
                if x1 > n1:
                    k1end += 2
                elif y1 > n2:
                    k1start += 2
                elif front:
                    k2_offset = v_offset + delta - k1
                    if 0 <= k2_offset < v_length and v2[k2_offset] != -1:
                        x2 = n1 - v2[k2_offset]
                        if x1 >= x2:
                            return self.diff_bisectSplit(text1, text2, x1, y1, deadline)
            for k2 in range(-d + k2start, d + 1 - k2end, 2):
                k2_offset = v_offset + k2
                if k2 == -d or (k2 != d and v2[k2_offset - 1] < v2[k2_offset + 1]):
                    x2 = v2[k2_offset + 1]
                else:
                    x2 = v2[k2_offset - 1] + 1
                y2 = x2 - k2
                while x2 < n1 and y2 < n2 and text1[-x2 - 1] == text2[-y2 - 1]:
                    x2 += 1
                    y2 += 1
                v2[k2_offset] = x2
                if x2 > n1:
                    k2end += 2
                elif y2 > n2:
                    k2start += 2
                elif not front:
                    k1_offset = v_offset + delta - k2
                    if 0 <= k1_offset < v_length and v1[k1_offset] != -1:
                        x1 = v1[k1_offset]
                        y1 = v_offset + x1 - k1_offset
                        x2 = n1 - x2
                        if x1 >= x2:
                            return self.diff_bisectSplit(text1, text2, x1, y1, deadline)
        return [(self.DIFF_DELETE, text1), (self.DIFF_INSERT, text2)]
