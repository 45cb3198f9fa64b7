"""Redaction applied to every text before it is written into a bundle: the public names of the
aiperf_lab.triage.redaction package (its docstring says what is redacted and which module does what).
Code outside the package imports from here; tests that check one rule's internals import its module."""

from __future__ import annotations

from aiperf_lab.triage.redaction.argv import argv_secret_pieces
from aiperf_lab.triage.redaction.argv_values import argv_secret_values
from aiperf_lab.triage.redaction.names import (
    cannot_be_secret, is_location, is_secret_flag, is_secret_name, names_a_model, reads_as_words, secret_env_names,
)
from aiperf_lab.triage.redaction.redactor import Redactor
from aiperf_lab.triage.redaction.spans import KEY_BLOCK, KNOWN_VALUE, REDACTED, Span
from aiperf_lab.triage.redaction.stream import StreamRedactor

__all__ = ["KEY_BLOCK", "KNOWN_VALUE", "REDACTED", "Redactor", "Span", "StreamRedactor", "argv_secret_pieces",
           "argv_secret_values", "cannot_be_secret", "is_location", "is_secret_flag", "is_secret_name", "names_a_model",
           "reads_as_words", "secret_env_names"]
