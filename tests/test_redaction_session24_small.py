"""Session 24's integrator: the header rule's glued `Pass` (MinIO's `RootPass: X`) read the character before the name
as text[start - 1], which at the text's start is its last character: a `Pass: X` opening the text (or a stream's
window) was judged by how the text ended."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redaction.announced import header_spans


@pytest.mark.parametrize("ending", ["log x", "log X", "log 1", ""])
def test_a_pass_header_at_the_texts_start_does_not_depend_on_its_last_character(ending):
    text = "Pass: Zq9hunter2x\n" + ending
    assert header_spans(text, text.lower()) == header_spans("\n" + text, ("\n" + text).lower()) == []


@pytest.mark.parametrize("name", ["RootPass", "AdminPass"])
def test_a_pass_glued_to_a_lower_case_word_is_still_a_secrets_name(name):
    for text in (f"{name}: Zq9hunter2x\nlog x", f"x\n{name}: Zq9hunter2x\nlog X"):
        start = text.index("Zq9")
        assert [(first, end) for first, end, *_ in header_spans(text, text.lower())] == [(start, start + 11)]
