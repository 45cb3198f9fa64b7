"""A text of few distinct lines (adversarial text, a log's repeated lines): a rule that judges lines one at a time can
judge each distinct line once and prove in C (a split and a set) that nothing is there, where a Python step a line (or a
match) would cost the most: `api_key:` lines, `- secrets:` lines, a listing's lines that are no header (issue 11, h23t).
A leaf: it imports nothing from the package."""

from __future__ import annotations

FEW_LINES_FROM = 1024   # lines a text must have before its distinct lines are asked for (a split and a set: ~5 ms a MB)
FEW_LINES_MOST = 64     # distinct lines at most (and one in 8 of the text's lines) for the text to be one of few lines
_last: tuple = (None, None)   # (the last text asked about and its answer: the rules of one Redactor.spans call share it)


def few_distinct_lines(text: str) -> frozenset[str] | None:
    """The distinct lines of text (without their "\\n") where it has FEW_LINES_FROM lines or more and few distinct ones
    (FEW_LINES_MOST, one in 8 at most), else None."""
    global _last
    last = _last
    if last[0] is text:
        return last[1]
    lines = text.count("\n")
    found = None
    if lines >= FEW_LINES_FROM and len(set(head := text[:8192].split("\n"))) <= len(head) // 4 + 8:   # (a glance first)
        distinct = set(text.split("\n"))
        if len(distinct) <= min(FEW_LINES_MOST, lines // 8):
            found = frozenset(distinct)
    _last = (text, found)
    return found
