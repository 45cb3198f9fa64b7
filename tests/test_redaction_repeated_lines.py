"""Issue 11, redaction speed on texts whose lines repeat (a log prints the same forms over and over): the stream's
hold and the line views judge each distinct line once, and what they answer is what the former per-line reading
answered. The times are in benchmarks/redaction_speed.py, not here."""

from __future__ import annotations

import collections

import functools
import random

import pytest

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import line_views, stream
from aiperf_lab.triage.redaction.blocks import PREFIXED_OPENER, YAML_BLOCK_KEY, YAML_LINE_OPENER, _opener_prefix
from aiperf_lab.triage.redaction.layouts import LOGURU_ARROW, PRINTED_FORM_HOLD_LINES, _secret_name_columns, _names_token_list
from aiperf_lab.triage.redaction.names import _secret_name_cached
from aiperf_lab.triage.redaction.spans import CSI, has_any

ENVIRON = {"HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz", "PATH": "/usr/bin"}

# lines of the forms the hold and the line views look at: YAML openers and items, block scalars, prefixed and
# quoted lines, JSON records, env items, loguru arrows, coloured lines, blanks, plain log lines
LINES = [
    "password:\n", "  - Zq8Das1x\n", "- Zq8Das1x\n", "api_tokens: &t\n", "tokens:\n", "secret: |\n", "  Pa55w0rd-2\n",
    "    deeper\n", "\n", "  \n", "[rank0]: password:\n", "[rank0]:   - Zq8Das1x\n", "[rank0]: ? password\n",
    "[rank0]: : Zq8Das1x\n", "2026-11-24T00:01:02.123456Z AUTH hunter22x\n", "app-1  | Zq8Das1x = password\n",
    '{"level": "info", "msg": "password: Pa55w0rd-2"}\n', '{"msg": "api_key:\\n  - Zq8Das1x"}\n',
    '"db_password = \\"x1y2z3w4\\""\n', "'token: abc123def'\n", "- name: DB_PASSWORD\n", "  value: Zq8Das1x\n",
    "    login(user, api_token)\n", f"    {LOGURU_ARROW} 'Zq8Das1x'\n", "\x1b[36mpassword\x1b[0m:\n",
    "\x1b[32m[rank0]:\x1b[0m secrets:\n", "step 1200 loss 2.3817 lr 3.0e-04\n", "password = <<EOT\n", "EOT\n",
    "<name>db.password</name>\n", "<value>Zq8Das1x</value>\n", "key: value\n", "  nested: 1\n", "x: |\n",
]


# ---- the former hold's walk, as it was written before the verdicts were remembered per line ----

def _former_yaml_block_open(line, below):
    key = YAML_LINE_OPENER.fullmatch(line.rstrip("\r\n"))
    if key is None and (opener := PREFIXED_OPENER.search(line)) is not None and opener.end() == len(line) and (
            _opener_prefix(line[:opener.start()], opener.group("xml") is not None) is not None):
        return True
    if key is None:
        key = YAML_BLOCK_KEY.match(line)
        return (key is not None and line.startswith(":", key.end()) and below[2] > len(key.group("indent"))
                and _secret_name_cached(key.group("name")))
    if not (_secret_name_cached(key.group("name")) or _names_token_list(key.group("name"))):
        return False
    indent = len(key.group("indent"))
    if "|" in line[key.end("name"):] or ">" in line[key.end("name"):]:
        return below[2] > indent
    return below[0] and below[1] >= indent


def _former_below_add(below, line):
    content = line.rstrip("\r\n").lstrip(" \t")
    depth = len(line) - len(line.lstrip(" \t"))
    if content:
        below[2] = min(below[2], depth)
        if content.startswith("- "):
            below[1] = min(below[1], depth)
        else:
            below[0] = False


def _former_hold(buffer, cut):
    if cut <= 0:
        return 0
    floor = max(0, cut - stream.PRINTED_FORM_HOLD_CHARS)
    last = buffer.rfind("\n", floor, cut - 1) + 1
    hold = last if (last or not floor) and (buffer.startswith("    ", last)
                                          or _secret_name_columns(buffer[last:cut].rstrip("\r\n"))) else cut
    tail = buffer[floor:cut]
    coloured = "\x1b" in tail
    if not has_any(tail, stream.PRINTED_FORM_OPENERS) and not (
            coloured and has_any(CSI.sub("", tail), stream.PRINTED_FORM_OPENERS)):
        return hold
    reach = PRINTED_FORM_HOLD_LINES
    end = cut
    above_arrow = False
    below = [True, 1 << 30, 1 << 30]
    distance = 0
    while distance < reach:
        if end <= floor:
            break
        start = buffer.rfind("\n", floor, end - 1) + 1
        if start == 0 and floor:
            break
        distance += 1
        line = buffer[start:end]
        if coloured and "\x1b" in line:
            line = CSI.sub("", line)
        line = line_views.without_log_prefix(line)
        if above_arrow or stream._opens_printed_form(line) or (":" in line and _former_yaml_block_open(line, below)):
            hold = start
            reach = min(distance + PRINTED_FORM_HOLD_LINES, 4 * PRINTED_FORM_HOLD_LINES)
        above_arrow = LOGURU_ARROW in line
        _former_below_add(below, line)
        end = start
    return hold


def _text(rng: random.Random, lines: int, pool: list[str]) -> str:
    return "".join(rng.choice(pool) for _ in range(lines))


@pytest.mark.parametrize("seed", range(40))
def test_hold_answers_what_the_former_walk_answered(seed):
    rng = random.Random(seed)
    pool = rng.sample(LINES, rng.randint(2, len(LINES)))
    buffer = _text(rng, rng.randint(1, 400), pool)
    newlines = [at + 1 for at, c in enumerate(buffer) if c == "\n"]
    for cut in rng.sample(newlines, min(20, len(newlines))) + [len(buffer)]:
        stream.HOLD_VERDICTS.clear() if seed % 2 else None   # (half the runs with what earlier seeds left remembered)
        assert stream._printed_form_hold(buffer, cut) == _former_hold(buffer, cut), (seed, cut)


@pytest.mark.parametrize("seed", range(40))
def test_line_edits_by_line_are_those_read_in_place(seed):
    rng = random.Random(seed)
    text = _text(rng, 200, LINES)
    at = 0
    while at < len(text):
        newline = text.find("\n", at)
        end = len(text) if newline < 0 else newline
        assert line_views._line_edits_at(text, at, end) == line_views._line_edits(text, at, end), text[at:end]
        at = end + 1


def _counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args):
        calls.append(args)
        return real(*args)
    monkeypatch.setattr(module, name, counted)
    return calls


# the h14b dense cases of benchmarks/redaction_speed.py: every line a form behind a prefix or in a JSON record
DENSE = {
    "yaml behind [rank0]": "".join(f"[rank0]: {line}\n" for line in (
        "? password", ": Zq8Das1x", "password: # the db", "  Pa55w0rd-2", "api_tokens: &t", "  - Zq8Das1x")),
    "json records": "".join(f'{{"level": "info", "msg": "{line}"}}\n' for line in (
        "password:\\n  - Zq8Das1x", "AUTH hunter22x", "db_password = \\\"x1y2z3w4\\\"")),
}


@pytest.mark.parametrize("name", DENSE)
def test_stream_hold_reads_each_distinct_line_once(monkeypatch, name):
    """A stream of one repeated block: its hold walks hundreds of lines back from every cut (every line opens a form),
    and each distinct line is read through its line view a few times at most (as a line, as a line's view, by a
    quoted line's name waiting: session 26), not once a walk: twice the copies cost no more reads."""
    counts = []
    for copies in (1, 2):
        getattr(stream, "HOLD_VERDICTS", {}).clear()
        getattr(stream, "VIEW_NAME_WAITS", {}).clear()
        calls = _counting(monkeypatch, stream, "without_log_prefix")
        text = DENSE[name] * (copies * 300_000 // len(DENSE[name]))
        sink = StreamRedactor(Redactor(ENVIRON))
        out = "".join(sink.feed(text[at:at + (1 << 16)]) for at in range(0, len(text), 1 << 16)) + sink.close()
        assert out == Redactor(ENVIRON).text(text)
        monkeypatch.undo()
        counts.append(len(calls))
        assert max(collections.Counter(calls).values()) <= 3, collections.Counter(calls).most_common(3)
    assert counts[1] == counts[0], counts


@pytest.mark.parametrize("name", DENSE)
def test_line_views_read_each_distinct_line_once(monkeypatch, name):
    getattr(line_views, "LINE_EDITS", {}).clear()
    calls = _counting(monkeypatch, line_views, "_line_edits")
    text = DENSE[name] * 2000
    Redactor(ENVIRON).text(text)
    assert len(calls) <= 2 * len(set(text.splitlines())), len(calls)   # (a view's own lines: read once more)


def test_list_items_are_judged_once_per_name_and_value(monkeypatch):
    """Items under a secret's name (YAML sequences, `? name` keys, listings' labels) repeated through a text: each
    distinct name and value is judged once, and the same ones go."""
    from aiperf_lab.triage.redaction import layouts
    getattr(layouts, "_item_verdict_cached", functools.lru_cache()(lambda: None)).cache_clear()
    calls = _counting(monkeypatch, layouts, "_assigned_secret_at")
    block = "? password\n: Zq8Das1x\napi_tokens: &t\n  - Zq8Das1x\nFields:\n  api key:    Zq8Das1xPa55\n"
    out = Redactor(ENVIRON).text(block * 2000)
    assert "Zq8Das1x" not in out
    assert len(calls) <= 6, len(calls)


def test_remembered_lines_stay_bounded():
    """A text of distinct lines (none repeats) keeps the tables within their bounds, and a line of many escapes (an
    edit each) is not kept: their memory stays a few MB whatever the text."""
    line_views.LINE_EDITS.clear()
    stream.HOLD_VERDICTS.clear()
    text = "".join(f'[rank0]: "password: {n} ' + "\\n" * (n % 50) + '"\n' for n in range(12_000))
    sink = StreamRedactor(Redactor(ENVIRON))
    out = "".join(sink.feed(text[at:at + (1 << 16)]) for at in range(0, len(text), 1 << 16)) + sink.close()
    assert out == Redactor(ENVIRON).text(text)
    assert 0 < len(line_views.LINE_EDITS) <= line_views.LINE_EDITS_MOST_LINES
    assert 0 < len(stream.HOLD_VERDICTS) <= stream.HOLD_VERDICT_MOST_LINES
    assert all(len(edits) <= line_views.LINE_EDITS_MOST_EDITS for edits in line_views.LINE_EDITS.values())
    many = '[rank0]: "password: x' + "\\n" * 100 + '"'
    line_views._line_edits_at(many, 0, len(many))
    assert many not in line_views.LINE_EDITS
