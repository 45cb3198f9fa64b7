"""Issue 11, redaction speed on adversarial text (h17q): what _assignment_spans works out per match that the value
or the name alone decides, or that a match's separator already decides, is worked out once per distinct value or
name, or not at all. Each test counts calls on a repeated form against a bound that does not grow with the text; the
guards check that the verdicts are those of before. The times are in benchmarks/redaction_speed.py
(docs/benchmarks.md, h17q), not here."""

from __future__ import annotations

import pytest

from counted_calls import Counted

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction import assignments, names, python_source


def _spans(text: str):
    return assignments._assignment_spans(text, text.lower())


def test_block_scalar_openers_behind_a_log_prefix_read_no_next_line(monkeypatch):
    # `[rank0]: password: |` repeated: each opener's value on the next line is the next line's log prefix, and a block
    # scalar's header (`|`, `>`) keeps it whatever that line holds, so the next line's value is not matched
    text = "[rank0]: password: |\n" * 2000
    expected = _spans(text)
    counted = Counted(assignments.PREFIXED_NEXT_VALUE, "match")
    monkeypatch.setattr(assignments, "PREFIXED_NEXT_VALUE", counted)
    assert _spans(text) == expected
    assert counted.calls <= 10


@pytest.mark.parametrize("text, kept, gone", [
    ("[rank0]: password: |\n[rank0]:   Zq8Das1x-2\n", [], ["Zq8Das1x-2"]),
    ("[rank0]: password: >-\n[rank0]:   Zq8Das1x-2\n", [], ["Zq8Das1x-2"]),
    ("app-1  | password:\napp-1  |   Zq8Das1x-2\n", [], ["Zq8Das1x-2"]),
    ("app-1  | password:\napp-1  | Zq8Das1x-2\n", ["app-1"], []),
])
def test_values_under_a_prefixed_name_are_judged_as_before(text, kept, gone):
    out = Redactor({}).text(text * 3)
    for word in kept:
        assert word in out
    for word in gone:
        assert word not in out


def test_negation_tests_run_once_per_distinct_value(monkeypatch):
    # `password: 'abc\' ` repeated: whether a value opens a negation (`not set`) or starts one read on (`not X`) was
    # asked of every match; the value alone decides it
    text = "password: 'abc\\' " * 2000 + "\npassword: Zq8Das1x\n" * 500
    expected = _spans(text)
    ends = Counted(assignments._negated_value_end)
    opens = Counted(names.opens_a_negation)
    monkeypatch.setattr(assignments, "_negated_value_end", ends)
    monkeypatch.setattr(assignments, "opens_a_negation", opens)
    monkeypatch.setattr(names, "opens_a_negation", opens)
    assert _spans(text) == expected
    assert ends.calls + opens.calls <= 10


@pytest.mark.parametrize("line, kept, gone", [
    ("password: not set", ["not set"], []),
    ("password: not Hunter2x9", [], ["Hunter2x9"]),
    ("password: none (default)", ["none"], []),
    ("password: no Zq8Das1x!", [], ["Zq8Das1x!"]),
    ("password: [not] Zq8Das1x", [], ["Zq8Das1x"]),
    ("password: Zq8Das1x", [], ["Zq8Das1x"]),
])
def test_negations_are_judged_as_before_when_repeated(line, kept, gone):
    out = Redactor({}).text((line + "\n") * 5)
    for word in kept:
        assert out.count(word) == 5
    for word in gone:
        assert word not in out


def test_when_names_are_read_once_per_distinct_name(monkeypatch):
    # `secrets: [X, Y] ` repeated: whether the whole name says when (`password_last_set`) was worked out from its
    # words at every match; the name alone decides it
    if hasattr(names, "_names_a_when"):
        names._names_a_when.cache_clear()
    assignments._quantity_name.cache_clear()
    text = "secrets: [Zq8Das1x, Pa55w0rd-2] " * 2000
    expected = _spans(text)
    words = Counted(names.name_words)
    monkeypatch.setattr(names, "name_words", words)
    monkeypatch.setattr(assignments, "name_words", words)
    if hasattr(names, "_names_a_when"):
        names._names_a_when.cache_clear()
    assignments._quantity_name.cache_clear()
    assert _spans(text) == expected
    assert words.calls <= 10


@pytest.mark.parametrize("line, kept", [
    ("password_last_set: 2026-11-02", "2026-11-02"),
    ("Password_Last_Set: never", "never"),
    ("password_changed_at: 12:30:01", "12:30:01"),
])
def test_when_names_keep_their_dates_when_repeated(line, kept):
    out = Redactor({}).text((line + "\n") * 5 + (line.replace(kept, "Zq8Das1x") + "\n") * 5)
    assert out.count(kept) == 5
    assert "Zq8Das1x" not in out


def test_names_are_not_read_back_where_no_signature_or_field_can_be(monkeypatch):
    # `password: [x!9Kq2]abc` lines: the signature/docstring test read each match's whole name back before finding
    # that the line holds no `def`, no `:field` and no annotation
    text = "password: [x!9Kq2]abc\n" * 2000
    expected = _spans(text)
    counted = Counted(assignments._name_before)
    # (read by the assignment rules and by Python's source verdicts, which live in python_source)
    monkeypatch.setattr(assignments, "_name_before", counted)
    monkeypatch.setattr(python_source, "_name_before", counted)
    assert _spans(text) == expected
    assert len(expected) == 2000
    assert counted.calls <= 10


@pytest.mark.parametrize("text, kept", [
    ("def login(self, password: str) -> None:\n", "str"),
    ("    def push(self, token: Token) -> None:\n", "Token"),
    ('    """\n    :param password: The passphrase for the key.\n', "The"),
    ("    self.token: Token | None = None\n", "Token"),
    ("x" * 400 + "\n    def f(password: Secret):\n", "Secret"),
    ("password: Zq8Das1x\n", None),
])
def test_signatures_and_fields_are_kept_as_before(text, kept):
    out = Redactor({}).text(text * 3)
    if kept is None:
        assert "Zq8Das1x" not in out
    else:
        assert out.count(kept) >= 3
