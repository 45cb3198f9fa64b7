"""Known secrets at scale (h17r: 5,000 secret-named variables made every text cost ~40 ms and triage 16-50 s, and a
Ctrl-C during it took effect 44.7 s later): the work a text costs does not grow with the number of known secrets
(counted: regexes compiled, searches made by them, literal gates asked), and a stop signal while the secrets are
gathered ends triage at once. Outputs are compared with the former code by benchmarks/redaction_known_secrets.py's
--baseline and h18k's differential (docs/benchmarks.md, "Issue 11, h18k")."""

from __future__ import annotations

import json
import os
import random
import re
import string
import subprocess
import sys

import pytest

from aiperf_lab.triage.redact import KNOWN_VALUE, Redactor, StreamRedactor
from aiperf_lab.triage.redaction import redactor as redactor_module
from aiperf_lab.triage.redaction import spans as spans_module
from conftest import REPO

LOG = "".join(f"step {i} loss {2.38 - i / 1e4:.4f} lr 3.0e-04 grad_norm 0.84 tokens/s 51234.7 mem 61.2 GiB "
              f"shard /data/shards/part-{i:05d}.arrow\n" for i in range(120))   # over 4,096 characters: gated


def environment(count: int, seed: int = 5) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"SECRET_{i:04d}": "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24))
            for i in range(count)}


class _CountedPattern:
    """A compiled pattern whose searches are counted (every method that scans a text)."""

    def __init__(self, pattern: re.Pattern, counter: list[int]):
        self._pattern, self._counter = pattern, counter

    def __getattr__(self, name):
        attribute = getattr(self._pattern, name)
        if name in ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"):
            def counted(*args, **kwargs):
                self._counter[0] += 1
                return attribute(*args, **kwargs)
            return counted
        return attribute


def _built(count: int, monkeypatch) -> tuple[Redactor, list[int], list[int]]:
    """A Redactor of `count` secrets built with re.compile counted: (redactor, [compiles], [searches by them])."""
    compiles, searches = [0], [0]
    real = re.compile

    def counting_compile(pattern, flags=0):
        compiles[0] += 1
        return _CountedPattern(real(pattern, flags), searches)
    with monkeypatch.context() as patched:
        patched.setattr(re, "compile", counting_compile)
        redactor = Redactor(environment(count))
    return redactor, compiles, searches


def test_building_a_redactor_compiles_no_regex_per_known_secret(monkeypatch):
    """Main compiled one regex per needle of every secret and of its base64 forms (55,000 for 5,000 secrets: 7.5 s)."""
    few = _built(20, monkeypatch)[1][0]
    many = _built(400, monkeypatch)[1][0]
    assert many <= few + 4, (few, many)


@pytest.mark.parametrize("text", [LOG, LOG[:300], LOG[:2000] + "\n" + LOG[:2000]], ids=["long", "short", "lines"])
def test_the_searches_a_text_costs_do_not_grow_with_the_known_secrets(monkeypatch, text):
    """Per text, the patterns made for the known secrets search a fixed number of times (main: every needle's regex
    searched every text, Redactor.text and each stream cut alike)."""
    counts = []
    for count in (100, 1000):
        redactor, _compiles, searches = _built(count, monkeypatch)
        searches[0] = 0
        assert redactor.text(text) == text
        stream = StreamRedactor(redactor, piece=256)
        assert "".join(stream.feed(text[k:k + 500]) for k in range(0, len(text), 500)) + stream.close() == text
        counts.append(searches[0])
    assert counts[1] <= counts[0], counts


def test_the_literal_gates_a_long_text_asks_do_not_grow_with_the_known_secrets(monkeypatch):
    """A long text's known values were each gated (a test of each of its characters) and its needles each looked for:
    ~10 literals and ~20 needles a secret, every text."""
    asked = [0]
    for module in (spans_module, redactor_module, sys.modules.get("aiperf_lab.triage.redaction.known_secrets")):
        for name in ("has", "has_characters"):
            if module is not None and hasattr(module, name):
                real = getattr(module, name)

                def counting(*args, _real=real):
                    asked[0] += 1
                    return _real(*args)
                monkeypatch.setattr(module, name, counting)
    counts = []
    for count in (100, 1000):
        redactor = Redactor(environment(count))
        asked[0] = 0
        assert redactor.text(LOG) == LOG
        counts.append(asked[0])
    assert counts[1] == counts[0], counts


def test_many_known_secrets_are_still_found_in_every_form():
    """The one-pass candidates miss none: each of 300 secrets printed whole, in part, wrapped and upper-cased."""
    env = environment(300, seed=9)
    redactor = Redactor(env)
    for value in list(env.values())[::29]:
        text = (f"{LOG[:5000]}token {value} part {value[:12]} mid {value[6:20]}\n{value[:10]}\n{value[10:]}\n"
                f"{value.upper()} end\n")
        out = redactor.text(text)
        assert value[:12] not in out and value[-12:] not in out and value.upper() not in out, value
        assert redactor.counts[KNOWN_VALUE] > 0


DRIVER = r"""
import json, os, signal, sys
from aiperf_lab.triage import cli, pipeline
from aiperf_lab.triage.redaction import redactor
pipeline.GATHER_GRACE_S = 0   # (the grace a signal gives a gathering about to end: none, so nothing here is timed)
calls = [0]
real = redactor.escaped_forms
def forms(value):
    calls[0] += 1
    if calls[0] == 50:   # a stop signal while the known secrets are gathered
        os.kill(os.getpid(), signal.SIGINT)
    return real(value)
redactor.escaped_forms = forms
rc = cli.main(["--duration", "0.5", "--no-nsys", "--output", sys.argv[1]])
print(json.dumps({"rc": rc, "calls": calls[0], "written": sorted(os.listdir(sys.argv[1])) if os.path.isdir(sys.argv[1]) else []}))
"""


def test_a_stop_signal_while_the_known_secrets_are_gathered_ends_triage_at_once(tmp_path):
    """h17r: SIGINT 6 s into a triage of 5,000 secret-named variables took effect 44.7 s later. The signal is sent
    from inside the gathering (the 50th secret's forms) with no grace (GATHER_GRACE_S), so what follows it is
    counted, not timed: no further secret is read, nothing is written, exit 130 with one line."""
    env = {**os.environ, **environment(2000), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", DRIVER, str(tmp_path / "out")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["rc"] == 130, done.stderr
    assert result["calls"] == 50, result
    assert result["written"] == [], result
    assert done.stderr.strip().splitlines() == ["aiperf-triage: interrupted"], done.stderr
