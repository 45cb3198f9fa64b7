"""Issue 11, redaction speed on adversarial text: work a rule does per match that does not grow with the text. Each
test counts what a rule reads (characters searched, calls made) on a repeated form and checks it against a bound
linear in the text, and that the spans are those the text gives as a plain str. The times are in
benchmarks/redaction_speed.py (docs/benchmarks.md, h17p), not here."""

from __future__ import annotations

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import assignments


class MeteredText(str):
    """A str that counts the characters its find/rfind calls for a line break may search (end - start)."""

    searched = 0

    def _count(self, sub, start=None, end=None):
        if sub == "\n":
            lo = 0 if start is None else (start if start >= 0 else max(0, len(self) + start))
            hi = len(self) if end is None else (end if end >= 0 else max(0, len(self) + end))
            MeteredText.searched += max(0, min(hi, len(self)) - lo)

    def rfind(self, sub, *args):
        self._count(sub, *args)
        return str.rfind(self, sub, *args)

    def find(self, sub, *args):
        self._count(sub, *args)
        return str.find(self, sub, *args)


def _assignment_work(unit: str, count: int) -> tuple[int, list]:
    text = unit * count
    MeteredText.searched = 0
    spans = assignments._assignment_spans(MeteredText(text), text.lower())
    return MeteredText.searched, spans


def test_flow_lists_on_one_line_search_back_a_bounded_reach():
    # `secrets: [X, Y] ` repeated on one line (the stream's lines reach 1 MiB): each match's signature/docstring
    # test looked for the line's start back to the text's start, a search that grew with the line
    unit = "secrets: [Zq8Das1x, Pa55w0rd-2] "
    searched, spans = _assignment_work(unit, 4000)
    text = unit * 4000
    assert spans == assignments._assignment_spans(text, text.lower())
    assert len(spans) >= 3999   # (the last value, at the text's end, is read as the others)
    assert searched <= 300 * 4000 + len(text)


def test_signature_and_docstring_reads_are_kept_on_long_lines():
    # what the test reads is the line's last 256 characters before the name, as before: a `def` line and a
    # docstring's field still keep their values, and a long line before them changes nothing
    for head in ("", "x" * 300 + "\n", "x" * 100000 + "\n", "z\n" * 10):
        redactor = Redactor({})
        assert redactor.text(head + "def push(self, token: Token) -> None:\n") == head + "def push(self, token: Token) -> None:\n"
        field = head + "    :param password: The passphrase for the key\n"
        assert redactor.text(field) == field
        assert "Zq8Das1x" not in redactor.text(head + "password: Zq8Das1x\n")
    # text before the `def` on its line: no signature, the value goes (within the 256 characters read or not)
    for before in ("a" * 250 + " ", "a" * 100000 + " "):
        assert "Token)" not in Redactor({}).text(before + "def push(self, token: Token) -> None:\n")
