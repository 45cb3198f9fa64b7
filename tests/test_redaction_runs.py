"""The fast paths of redaction on texts made of nothing but matches (benchmarks/redaction_speed.py): a run of URLs or
of assignments back to back is one span whose replacement is what each match would have given, so the output is the
same as with one span per match; the dump hint and the pieces of a known secret find what the former forms found."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor
from aiperf_lab.triage.redaction import assignments as assignment_rules, dumps as dump_rules, spans as span_helpers
from aiperf_lab.triage.redaction import urls as url_rules

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "redaction_speed.py"
ENVIRON = {"HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
           "HUGGING_FACE_HUB_TOKEN": "hf_" + "Q" * 34, "DATABASE_URL": "postgres://u:pa55word@db/x",
           "HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice"}
# runs the benchmark has no case for: mixed users and passwords, harmless values inside a run, other separators
RUN_TEXTS = [
    "://x@://y@://z@ q",
    "a://u:p@://v:q@://w:@://x@://[REDACTED]@://k@://c:d:e@://:f@://g@h rest",
    "ssh://git@://b@://c@x https://u:p@h/a@b://x@://c:d:e@://f@g",
    "pass pass=pass pass=pass pass=pass pass=abc,pass=False;pass=xyz pass=/usr/lib/x pass=qq pass=rrr",
    "token=abc,token=abd;token=False token=xyz token: abc token: def token:ghi token:jkl\n",
    "x\napi_key:\nabc\napi_key:\ndef\napi-key=\nfalse\napi_key:\nghi:\napi_key:\njkl\napi_key:\nnone\napi_key:\nmno\nz",
    "api_key:\n" * 40,
    "secret=a:b secret=ccc secret=ddd=e secret=fff\tsecret=ggg  secret=" + "h" * 300 + " secret=iii",
]


def _cases(size: int) -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("redaction_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts = {name: module._text(case, size) for name, case in module.CASES.items()}
    texts.update({f"run {i}": text * (size // len(text) + 1) for i, text in enumerate(RUN_TEXTS)})
    return texts


CASES = _cases(3000)


# texts of runs cut by the stream where no span crosses (as a line over 1 MiB is): longer than max_line below
LONG = {name: text * (15000 // len(text) + 1) for name, text in CASES.items()
        if name.startswith(("run ", "(dense)", "'://x@'", "'pass pass='", "'api_key:'"))}


def _outputs(text: str, hosts: bool, max_line: int = 1 << 20) -> tuple[str, str]:
    redactor = Redactor(ENVIRON, redact_hosts=hosts, extra_secrets=["AvoCMF1ZIDKtxODiDeDeFF"])
    sink = StreamRedactor(redactor, max_line=max_line)
    stream = "".join([sink.feed(text[at:at + 700]) for at in range(0, len(text), 700)] + [sink.close()])
    return redactor.text(text), stream


def _without_runs(monkeypatch) -> None:
    monkeypatch.setattr(url_rules, "URL_USERINFO_RUN", re.compile(r"(?!)"))
    monkeypatch.setattr(assignment_rules, "ASSIGNMENT_RUNS", {})
    monkeypatch.setattr(assignment_rules, "ASSIGNMENT_LINE_RUNS", {})


@pytest.mark.parametrize("hosts", [False, True])
def test_runs_give_the_output_of_one_span_per_match(monkeypatch, hosts):
    fast = {name: _outputs(text, hosts) for name, text in CASES.items()}
    fast_cut = {name: _outputs(text, hosts, max_line=6000) for name, text in LONG.items()}
    with monkeypatch.context() as patch:
        _without_runs(patch)
        slow = {name: _outputs(text, hosts) for name, text in CASES.items()}
        slow_cut = {name: _outputs(text, hosts, max_line=6000) for name, text in LONG.items()}
    assert [name for name in CASES if fast[name] != slow[name]] == []
    assert [name for name in LONG if fast_cut[name] != slow_cut[name]] == []


def test_the_runs_are_taken():
    """The texts above are redacted through the run paths (one span for many matches), not match by match."""
    for text, fewer_than in (("://x@" * 600, 10), ("://u:p@" * 400, 10), (" pass=abcd" * 300, 10),
                             ("api_key:\nabcd\n" * 200, 10)):
        spans = Redactor({}).spans(text)
        assert 0 < len(spans) < fewer_than
        assert Redactor({}).text(text).count(REDACTED) >= 200


def test_a_run_in_the_environment_gives_each_secret():
    """Values found in the environment become known secrets one by one, also where a run made them one span."""
    values = ["abcdef", "ghijkl", "mnopqr", "stuvwx"]
    for environ in ({"X": "https://" + "@://".join(values) + "@host"},
                    {"X": "https://q:" + "@://r:".join(values) + "@host"},
                    {"X": "cfg pass=" + " pass=".join(values)},
                    {"X": "a\npass:\n" + "\npass:\n".join(values) + "\nb"}):
        redactor = Redactor(environ)
        assert set(values) <= set(redactor._secret_values), environ
        assert redactor.text(" ".join(values)) == " ".join([REDACTED] * len(values))


FORMER_DUMP_HINT = re.compile(r"(?:^|\n)[0-9a-fA-F]{4}|[0-9A-Fa-f]{2}[ :,-] ?(?:0[xX])?[0-9A-Fa-f]{2}[ :,-]|\[[0-9]")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789abcdefABxX:,- [\n", max_size=40))
def test_dump_hint_is_the_former_one_or_a_bare_dump(text):
    """The literal-led hints say what the former alternation said, or that a bare dump (`xxd -p`, `od -An -tx1`)
    may be there: a line of 5 bare bytes, or two bare lines in a row."""
    assert dump_rules._may_hold_dump(text) == (FORMER_DUMP_HINT.search(text) is not None
                                           or dump_rules.BARE_HINT.search("\n" + text) is not None)


def test_dump_hint_on_the_benchmark_texts():
    assert [name for name, text in CASES.items()
            if dump_rules._may_hold_dump(text) != (FORMER_DUMP_HINT.search(text) is not None
                                               or dump_rules.BARE_HINT.search("\n" + text) is not None)] == []


@settings(max_examples=300, deadline=None)
@given(rest=st.text(alphabet="ab.*(", max_size=12), text=st.text(alphabet="ab.*(", max_size=16))
def test_longest_first_matches_the_longest_leading_part(rest, text):
    """_longest_first's nested form matches what an alternation of every length, longest first, matched."""
    former = "(?:" + "|".join(re.escape(rest[:size]) for size in range(len(rest), 0, -1)) + ")?" if rest else ""
    assert re.match(span_helpers._longest_first(rest), text).group(0) == re.match(former, text).group(0)
