"""Dumps behind a log prefix (issue 11, helper h12e): each line of a real `xxd`, `hexdump -C`, `od` ... dump of a known
secret (tests/data/dump_forms.json, group "prefixed") printed after a timestamp and a level, a logger's name, torchrun's
`[rank0]:`, docker compose's `svc | `, kubectl's or journalctl's or glog's prefix. A layout passes when no 6
consecutive bytes of the secret can be read back from what redaction leaves (numbers or character column), the
prefixes stay as they were, and a stream printing it line by line gives the same bytes as Redactor.text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

from test_redaction_dump_forms import readable

FORMS = json.loads((Path(__file__).parent / "data" / "dump_forms.json").read_text())
SECRET = FORMS["secret"]
PREFIXES = {
    "logging": "2026-11-23 12:00:{s:02d},123 INFO ",
    "logger name": "2026-11-23 12:00:{s:02d} INFO dump: ",
    "basicConfig": "INFO:root:",
    "torchrun": "[rank0]: ",
    "compose": "trainer-1  | ",
    "kubectl": "2026-11-23T12:00:{s:02d}.123456789Z ",
    "journalctl": "Nov 23 12:00:{s:02d} gpunode17 train[4242]: ",
    "dbg": "[dbg] ",
    "glog": "I1123 12:00:{s:02d}.123456  4242 dump.cc:42] ",
}
COLUMN = re.compile(r"  \|.*\|$|  >.*<$")   # hexdump -C's and od -t x1z's character columns
CASES = [(key, prefix) for key in FORMS["outputs"] if key.split(" | pre")[0] in FORMS["prefixed"] for prefix in PREFIXES]


def _prefixed(dump: str, prefix: str) -> str:
    return "".join(PREFIXES[prefix].format(s=k) + line + "\n" for k, line in enumerate(dump.splitlines()))


def _left(out: str, prefix: str, command: str) -> list[bytes]:
    """What of the secret can be read from the dump part of each line (its prefix taken off)."""
    lines = [line[len(PREFIXES[prefix].format(s=k)):] for k, line in enumerate(out.splitlines()[1:-1])]
    columns = "".join(m.group(0) for line in lines if (m := COLUMN.search(line)))
    numbers = "\n".join(COLUMN.sub("", line) for line in lines) + "\n"
    secret = SECRET.encode()
    flat = re.sub(r"[\s.|<>]", "", columns).encode("latin-1")
    return readable(numbers, command) + [secret[k:k + 6] for k in range(len(secret) - 5) if secret[k:k + 6] in flat]


def _line_by_line(text: str, environ: dict[str, str]) -> str:
    stream = StreamRedactor(Redactor(environ))
    return "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()


def test_the_checker_reads_every_unredacted_prefixed_layout():
    for key, prefix in CASES:
        text = "step 1\n" + _prefixed(FORMS["outputs"][key], prefix) + "step 2\n"
        assert len(set(_left(text, prefix, key.split(" | pre")[0]))) == len(SECRET) - 5, (key, prefix)


@pytest.mark.parametrize("key,prefix", CASES)
def test_a_known_secret_dumped_behind_a_log_prefix_goes(key: str, prefix: str):
    command = key.split(" | pre")[0]
    text = "step 1\n" + _prefixed(FORMS["outputs"][key], prefix) + "step 2\n"
    for environ in ({"HF_TOKEN": SECRET}, {} if key.endswith("pre0") else None):
        if environ is None:
            continue   # (a token glued to the x's before it is no token shape: only the known value finds it there)
        out = Redactor(environ).text(text)
        assert _left(out, prefix, command) == [], out
        assert REDACTED in out and out.startswith("step 1\n") and out.endswith("step 2\n")
        assert [line[:len(PREFIXES[prefix].format(s=k))] for k, line in enumerate(out.splitlines()[1:-1])] == [
            PREFIXES[prefix].format(s=k) for k in range(len(out.splitlines()) - 2)]
        assert _line_by_line(text, environ) == out


def test_the_task_example_and_ordinary_lines_with_zeros():
    environ = {"DB_PASSWORD": "Sup3rS3cret!x"}
    text = "2026-11-23 12:00:01 INFO 00000000: 5375 7033 7253 3363 7265 7421 78  Sup3rS3cret!x\n"
    assert Redactor(environ).text(text) == f"2026-11-23 12:00:01 INFO 00000000: {REDACTED}  {REDACTED}\n"
    ordinary = ("2026-11-23 12:00:01 INFO elapsed 000123 ms, 0000 12 errors\n"
                "[rank0]: 0000000 shards done | 000 ab\n"
                "2026-11-23 12:00:02 INFO 00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|\n")
    assert Redactor(environ).text(ordinary) == ordinary


def test_ordinary_bytes_dumped_behind_a_prefix_stay():
    data = b"model.safetensors: shard 3 of 8, sha256 verified, 1024 tensors\n"
    import subprocess
    for command in (["xxd"], ["hexdump", "-C"], ["od", "-c"]):
        try:
            dump = subprocess.run(command, input=data, capture_output=True, check=True).stdout.decode()
        except (OSError, subprocess.CalledProcessError):
            pytest.skip(f"{command[0]} is not installed")
        text = "".join(f"[rank0]: {line}\n" for line in dump.splitlines())
        assert Redactor({"HF_TOKEN": SECRET}).text(text) == text
