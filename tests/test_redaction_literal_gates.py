"""Issue 11, redaction speed: the literal gates (spans.has, has_any, has_characters) answer exactly what `in` answers,
and every rule gated by them finds in a long text (where the gates apply) what it finds with no gate at all. The
times are in benchmarks/redaction_speed.py and docs/benchmarks.md, not here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor
from aiperf_lab.triage.redaction import spans as span_helpers

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "redaction_speed.py"
ENVIRON = {"HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
           "HUGGING_FACE_HUB_TOKEN": "hf_" + "Q" * 34, "DATABASE_URL": "postgres://u:pa55word@db/x",
           "HOSTNAME": "gpunode17.acme-corp.example", "USER": "alice"}
EXTRA = ["AvoCMF1ZIDKtxODiDeDeFF"]
PLAIN_LINE = "step 1200 loss 2.3817 lr 3.0e-04 grad_norm 0.84 tokens/s 51234.7 mem 61.2 GiB\n"
# One line per gated rule, each holding a secret only that rule (or its family) finds: behind a long plain log the
# gates decide whether the rule runs at all.
PLANTED = {
    "+ mysql -uroot -pZq9xWv7u db\n": "Zq9xWv7u",
    "$ sshpass -p Hq4tLm8wQz ssh host\n": "Hq4tLm8wQz",
    "Running: net use \\\\srv\\share /user:bob Pw7qRt5yXc\n": "Pw7qRt5yXc",
    "+ redis-cli -a Rk3dFv8mQp ping\n": "Rk3dFv8mQp",
    "mysql> CREATE USER 'u'@'%' IDENTIFIED BY 'Id9eNt4fYq';\n": "Id9eNt4fYq",
    "127.0.0.1:6379> AUTH Ra8uTh3kWv\n": "Ra8uTh3kWv",
    "db.auth('admin', 'Mg5oPw2dLx')\n": "Mg5oPw2dLx",
    "Cookie: sessionid=Ck7oOk4iEq9z\n": "Ck7oOk4iEq9z",
    "https://b.example/o?X-Amz-Signature=5f3a9c1e7b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a\n": "5f3a9c1e7b2d4f6a8c0e2b4d6f8a0c2e",
    "kaggle key 0123456789abcdef0123456789abcdef\n": "0123456789abcdef0123456789abcdef",
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n": "AKIAIOSFODNN7EXAMPLE",
    "token ghp_" + "a1B2" * 9 + "\n": "ghp_" + "a1B2" * 9,
    "nvapi-" + "Xy9" * 20 + "\n": "Xy9" * 20,
    "  <name>db.password</name>\n  <value>Hd5pXm2lQw</value>\n": "Hd5pXm2lQw",
    "  - name: DB_PASSWORD\n    value: Ev8nVi3tRw\n": "Ev8nVi3tRw",
    "export DB_PASS=\"Sq4uOt7eDx\"\n": "Sq4uOt7eDx",
    "resource \"x\" {\n  \"sensitive\": true,\n  \"value\": \"Tf6sEn1sVq\"\n": "Tf6sEn1sVq",
    "password: |\n  Yb3lOc2kSc\n": "Yb3lOc2kSc",
    "%70%61%73%73%77%6F%72%64%3D%50%65%35%63%45%6E%34%63%4F%64\n": "%50%65%35%63",
    "db: postgres%3A%2F%2Fu%3AUr7lEn2cPw%40host%2Fdb\n": "Ur7lEn2cPw",
    "kubectl create secret generic s --from-literal=password=Kc6tLs9eCr\n": "Kc6tLs9eCr",
    "\x1b]8;;https://u:Os8cLi3nKp@h/\x07link\x1b]8;;\x07\n": "Os8cLi3nKp",
    "HF token hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345 and its start hf_Qw3rTy7uIoPa\n": "Qw3rTy7uIoPa",
    "| db_password | Az9cLiTb4lEq |\n": "Az9cLiTb4lEq",
    "license " + "0123456789abcdef" * 2 + "0123NRAL\n": "0123456789abcdef0123",
    "jira ATATT3" + "xY7z" * 30 + "\n": "xY7z" * 30,
}


def _redacted(text: str) -> tuple[str, str]:
    redactor = Redactor(ENVIRON, extra_secrets=EXTRA)
    sink = StreamRedactor(redactor)
    stream = "".join([sink.feed(text[at:at + 5000]) for at in range(0, len(text), 5000)] + [sink.close()])
    return Redactor(ENVIRON, extra_secrets=EXTRA).text(text), stream


TEXT = st.text(alphabet="ab$+ -_:xyé\u4e00\n", min_size=0, max_size=64)
LITERAL = st.text(alphabet="ab$+ -_:xyé\u4e00\nQ", min_size=0, max_size=6)


@settings(max_examples=300, deadline=None)
@given(head=TEXT, literal=LITERAL, tail=TEXT, planted=st.booleans())
def test_gates_answer_what_in_answers(head, literal, tail, planted):
    text = head * (span_helpers.GATED_LENGTH // max(1, len(head)) + 1) + (literal if planted else "") + tail
    assert len(text) >= span_helpers.GATED_LENGTH or not head
    assert span_helpers.has(text, literal) == (literal in text)
    assert span_helpers.has_any(text, (literal, "Q$")) == (literal in text or "Q$" in text)
    assert span_helpers.has_characters(text, literal) == (len(text) < span_helpers.GATED_LENGTH
                                                          or set(literal) <= set(text))


class _Counted(str):
    """A text that counts the scans for literals of more than one character (a one-character test is a memchr)."""
    scans = 0

    def __contains__(self, literal):
        if len(literal) > 1:
            type(self).scans += 1
        return str.__contains__(self, literal)


def test_a_literal_whose_character_the_text_lacks_is_not_scanned_for():
    text = _Counted(PLAIN_LINE * 100)
    assert not span_helpers.has(text, "$ ") and not span_helpers.has_any(text, ("</name>", "\\u", "%2F%2F"))
    assert _Counted.scans == 0
    assert span_helpers.has(text, "grad_norm") and not span_helpers.has(text, "norm grad")
    assert _Counted.scans == 2
    short = _Counted(PLAIN_LINE)   # below GATED_LENGTH: scanned directly
    assert not span_helpers.has(short, "$ ") and _Counted.scans == 3


@pytest.mark.parametrize("line", list(PLANTED))
def test_each_gated_rule_finds_its_secret_behind_a_long_log(line):
    secret = PLANTED[line]
    text = PLAIN_LINE * 200 + line + PLAIN_LINE * 200
    assert len(text) > span_helpers.GATED_LENGTH
    whole, stream = _redacted(text)
    assert secret not in whole and secret not in stream
    assert whole == stream
    assert REDACTED in whole


def _benchmark_texts(size: int) -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("redaction_speed", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    texts = {name: module._text(case, size) for name, case in module.CASES.items()}
    texts.update({f"planted {i}": PLAIN_LINE * 3 + line + PLAIN_LINE for i, line in enumerate(PLANTED)})
    return texts


def test_gated_everywhere_gives_what_no_gate_gives(monkeypatch):
    """Every text of the speed benchmark (each rule's shapes) and the planted lines, short enough to run fast: with
    the gates on every text (GATED_LENGTH 0) the output, whole and streamed, is what it is with no gate at all."""
    texts = _benchmark_texts(2500)
    monkeypatch.setattr(span_helpers, "GATED_LENGTH", 1 << 60)
    ungated = {name: _redacted(text) for name, text in texts.items()}
    monkeypatch.setattr(span_helpers, "GATED_LENGTH", 0)
    gated = {name: _redacted(text) for name, text in texts.items()}
    assert [name for name in texts if gated[name] != ungated[name]] == []
