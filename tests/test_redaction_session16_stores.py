"""The secret stores' bare prints (session 16, h16l) under the rules h16f gave the older stores: a command whose
output goes to a file prints no value, so the next line (`saved`, `done`) is kept; a store asked for a field that is
not secret (`op item get X --fields username --reveal`) prints a user name. Each in text and in a stream fed in
small pieces; the value printed to the terminal still goes."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads

from aiperf_lab.triage.redact import REDACTED, Redactor

VALUE = "Hunter2x9Q"
PRINTED = [   # the command; its next line is the secret
    "$ op item get DB --fields password --reveal",
    "$ pass show prod/db",
    "$ doppler secrets get DB_PASSWORD --plain",
    "$ security find-generic-password -s svc -w",
    "$ bw get password item 2>/dev/null",
    "$ gopass show -o prod/db",
    "$ sops -d --extract '[\"db\"][\"password\"]' secrets.yaml 2>&1",
]
TO_A_FILE = [   # the same commands with their output sent to a file: the next line is the shell's or a script's
    "$ op item get DB --fields password --reveal > pw.txt",
    "$ pass show prod/db > pw.txt",
    "$ doppler secrets get DB_PASSWORD --plain > .env.pw",
    "$ security find-generic-password -s svc -w >> keys.txt",
    "$ bw get password item 1> pw.txt",
    "$ gopass show -o prod/db &> pw.txt",
    "$ sops -d --extract '[\"db\"][\"password\"]' secrets.yaml > out.txt",
]
PLAIN_FIELD = ["$ op item get DB --fields username --reveal", "$ op item get DB --fields label=username --reveal"]


def _streamed(text: str, size: int = 7) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


@pytest.mark.parametrize("command", PRINTED)
@pytest.mark.parametrize("prefix", ["", "[rank0]: "])
def test_a_stores_print_to_the_terminal_goes(command, prefix):
    text = f"{prefix}{command}\n{prefix}{VALUE}\n"
    assert VALUE not in Redactor({}).text(text) and VALUE not in _streamed(text)
    assert f"{prefix}{REDACTED}\n" in Redactor({}).text(text)


@pytest.mark.parametrize("command", TO_A_FILE)
@pytest.mark.parametrize("next_line", ["saved", "done"])
def test_the_line_after_a_store_command_sent_to_a_file_is_kept(command, next_line):
    text = f"{command}\n{next_line}\n"
    assert Redactor({}).text(text) == text and _streamed(text) == text


@pytest.mark.parametrize("command", PLAIN_FIELD)
def test_a_plain_field_printed_by_op_item_get_is_kept(command):
    text = f"{command}\nalice\n"
    assert Redactor({}).text(text) == text and _streamed(text) == text
