"""Issue 11, redaction speed (h24t, session 24): printed commands' per-line work. A trace mark at its line's start
is judged without a call (its prefix is empty: the pattern's verdict on "" is known once); `bash -x` pipes are looked
for only where the text holds a stdin reader's word (`_traced_pipe_spans`: a scan, not a step a mark), and a traced
line's prefix is compared only beside a reader; the line loop slices a line only where the argv reading will read it.
Each test counts calls or Python lines on a repeated form against main's count; the guards compare the changed
functions with main's code (copied below) on seeded random texts. Times: docs/benchmarks.md (h24t)."""

from __future__ import annotations

import random
import re

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import layouts, printed_commands as pc
from aiperf_lab.triage.redaction.spans import Span, _lower, has, has_any


# main's code at ef839a1, the reference the guards compare with
def _main_traced_pipe_spans(text: str, lower: str, marks: list[re.Match[str]]) -> list[Span]:
    """The word an `echo`/`printf` trace line feeds to the command traced on the line next to it (above or below, the
    same prefix, its digits aside, and `+`s) where that command reads a password on its stdin (_reads_secret_from_stdin)."""
    spans: list[Span] = []
    lines = {}   # line start -> (mark end, what is before the mark end on the line)
    for m in marks:
        line_start = text.rfind("\n", 0, m.start()) + 1
        lines.setdefault(line_start, (m.end(), text[line_start:m.end()].translate(pc.DIGITS_AS_ZERO)))
    for line_start, (start, lead) in lines.items():
        end = pc._command_line_end(text, start)
        if not any(word in lower[start:end] for word in pc.STDIN_READERS):
            continue
        how = pc._stdin_reading(text[start:end])   # (once per distinct line: a log repeats its lines)
        if how is None:
            continue
        above = text.rfind("\n", 0, max(line_start - 1, 0)) + 1 if line_start else -1
        below = end + 1 if end < len(text) else -1
        for other in (above, below):
            if other < 0 or other not in lines or other == line_start or lines[other][1] != lead:
                continue
            at = lines[other][0]
            fed = pc._shell_words(text[at:pc._command_line_end(text, at)], 0)
            if len(fed) != 1 or fed[0][0][0].rpartition("/")[2] not in pc.ECHO_WORDS:
                continue
            values = [item for item in fed[0][1:] if not item[0].startswith("-") and not item[0].startswith("%")]
            span = pc._fed_value_span(*values[-1], how) if values else None
            if span is not None:
                spans.append((at + span[0], at + span[1], span[2], span[3], at + span[4]))
    return spans


def _main_printed_command_spans(text: str, lower: str) -> list[Span]:
    """Secrets on printed command lines (see the module's docstring); every line is read at most once."""
    spans: list[Span] = pc.nul_argv_spans(text) if "\x00" in text else []
    read_from = -1
    starts: list[tuple[int, bool] | tuple[int, bool, str]] = []
    for pattern, prefix, literal in ((pc.TRACE_MARK, pc.TRACE_PREFIX, "+ "), (pc.DOLLAR_MARK, pc.DOLLAR_PREFIX, "$ "),
                                     (pc.ANGLE_MARK, pc.ANGLE_PREFIX, "> "), (pc.HASH_MARK, pc.HASH_PREFIX, "# "),
                                     (pc.PERCENT_MARK, pc.PERCENT_PREFIX, "% "), (pc.STARSHIP_MARK, pc.LINE_START_PREFIX, "\u276f "),
                                     (pc.ACTIONS_RUN_MARK, pc.ACTIONS_RUN_PREFIX, "Run "),
                                     (pc.DOCKER_RUN_MARK, pc.DOCKER_RUN_PREFIX, "RUN "), (pc.SUDO_MARK, pc.SUDO_PREFIX, "COMMAND=")):
        if has(text, literal):
            found = [m for m in pattern.finditer(text) if pc._mark_counts(text, m.start(), prefix)]
            starts += [(m.end(), True) for m in found]
            if pattern is pc.TRACE_MARK and len(found) > 1:
                spans += _main_traced_pipe_spans(text, lower, found)
    if has_any(lower, pc.MARK_WORDS):
        starts += [(m.end(), True) for m in pc.WORD_MARK.finditer(text)]
    # (ConvertTo-SecureString's value is quoted: a character first, memchr, before the word's scan)
    if has_any(lower, pc.LINE_TOOL_WORDS) or (("\"" in text or "'" in text) and has(lower, "convertto-")):
        for m in pc.LINE_TOOLS.finditer(lower):
            line_start = lower.rfind("\n", max(0, m.start() - pc.LINE_INDENT - 1), m.start()) + 1
            if (line_start or m.start() <= pc.LINE_INDENT) and not lower[line_start:m.start()].strip(" \t"):
                starts.append((m.start(), False))
            elif pc._mark_counts(lower, m.start(), pc.LINE_TOOL_PREFIX) or (
                    lower.startswith("c", m.start()) and pc._mark_counts(lower, m.start(), pc.POWERSHELL_ASSIGNED)):
                starts.append((m.start(), False))
    # (every UNIX_TOOL form has a blank after its name or its echo: a text with no blank, "\n" or "x\n" repeated, is not
    # tried a line at a time)
    if " " in lower or "\t" in lower:
        first = pc.UNIX_FIRST_LINE.match(lower)
        for m in ([first] if first is not None else []) + list(pc.UNIX_LINE.finditer(lower)):
            starts.append((m.start("tool"), True, m.group("q1")) if m.group("q1") else (m.start("tool"), True))
    if '"' in text:
        starts += [(m.start("tool"), True, '"') for m in pc.UNIX_JSON_MESSAGE.finditer(lower)]
    starts.sort()
    for start, escapes, *quoted in starts:
        if start < read_from:
            continue
        end = pc._command_line_end(text, start)
        if quoted:
            end = pc._quoted_end(text, start, end, quoted[0])
        read_from = end
        line = text[start:end]
        if escapes and not pc.ARGV_SIGNAL.search(lower, start, end):
            continue   # (nothing the argv reading takes a secret by: no secret word, tool, short flag, `@`, `<<<`)
        spans += [(start + first, start + last, pc.REDACTED, "command-line password", start + context)
                  for first, last, context in pc._line_secret_spans(line, escapes and "\\\\" not in line)]
    return spans



PREFIXES = ["", "", "+ ", "++ ", "+++ ", "[rank0]: + ", "2026-11-24 03:00:01 INFO + ", "2026-11-24 03:00:02 INFO + ",
            "12:00:01 + ", "x+ ", "$ ", "user@host:~/x$ ", "(venv) $ ", "PS C:\\x> ", "redis> ", "root@box:/# ",
            "alice@box run % ", "50% ", "Running: ", "INFO Executing: ", "cmd:\t", "\u276f ", "Run ", "##[group]Run ",
            "#7 [3/5] RUN ", "Step 3/5 : RUN ", "sudo: bob : USER=root ; COMMAND=", "'", '"', "b'", "api-1  | ",
            '{"msg": "', '{"log":"', "    ", "\t", "E   '", "$pw = ", "[x] ", "WARNING + ", "  + ", "|+ "]
COMMANDS = ["sshpass -p 'S3cr3t!x' ssh h", "docker login -u bob -p FkIM3Vak1uDSKFQs1DxB", "docker login -u bob --password-stdin",
            "echo Zq8Das1xPa55", "echo bob:Zq8Das1xPa55", "printf '%s\\n' Zq8Das1xPa55", "chpasswd", "htpasswd -b /etc/x bob A9R",
            "htpasswd -i /etc/x bob", "passwd --stdin bob", "sudo -S true", "cat -s file", "kinit bob@R", "smbpasswd -s -a bob",
            "gpg --passphrase-fd 0 x", "x --password-file /dev/fd/0", "net use Z: \\\\srv\\share /user:bob Zq8Das1x",
            "NET USE Z: \\\\srv /USER:CORP\\alice Pa55w0rd-2", "psexec \\\\srv -u alice -p Zq8Das1x cmd", "mysql -pSecret1x db",
            "curl -u a:b http://x", "ls -la", "zip -P abcd f.zip", "echo X | sudo -S cmd", "echo -e \"X\\nX\" | passwd bob",
            "chpasswd <<< bob:Zq8Das1x", "x --password-file=<(echo Zq8Das1x)", "vllm serve m --api-key Zq8Das1xPa55 a b",
            "ConvertTo-SecureString \"Zq8Das1x\" -AsPlainText", "helm repo add x --password Zq8Das1x", "rabbitmqctl add_user bob X1y2",
            "(echo X; echo X) | smbpasswd -s -a bob", "sqlplus scott/Tiger1x@db", "step 1200 loss 2.38", "", "\u0130stdin x"]
ECHOES = ["echo Zq8Das1xPa55", "echo bob:Zq8Das1xPa55", "printf '%s\\n' Zq8Das1xPa55", "echo -n Zq8Das1x", "echo", "echo a b"]
READERS = ["docker login -u bob --password-stdin", "chpasswd", "htpasswd -i /etc/x bob", "passwd --stdin bob", "sudo -S true",
           "kinit bob@R", "smbpasswd -s -a bob", "gpg --passphrase-fd 0 x", "x --password-file /dev/fd/0", "cat -s file",
           "gh auth login --with-token", "htpasswd -b /etc/x bob A9R"]
JUNK = ["", " ", "\t", "\r", "'", '"', "\\", "\\\\", "+", "-s", "\u0130", "\x00", "|", ";", "passwd", "stdin", "\u03a3", "="]


def _random_text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 14)):
        prefix = rng.choice(PREFIXES)
        line = prefix + rng.choice(COMMANDS)
        if rng.random() < 0.3:   # (an echo and a reader traced side by side, the same prefix: a `bash -x` pipe)
            pair = [prefix + rng.choice(ECHOES), prefix + rng.choice(READERS)]
            lines += pair[::rng.choice([1, -1])] * rng.choice([1, 2])
        if rng.random() < 0.3:
            at = rng.randint(0, len(line))
            line = line[:at] + rng.choice(JUNK) + line[at:]
        lines += [line] * (rng.choice([1, 1, 1, 2, 3, 7]))
    text = "\n".join(lines) + rng.choice(["", "\n", "\r\n"])
    if rng.random() < 0.1:
        text = "\x00".join(text.split(" ")[:6]) + "\n" + text
    return text


@pytest.mark.parametrize("seed", range(8))
def test_printed_command_spans_are_mains_on_random_texts(seed):
    rng = random.Random(seed)
    for _ in range(400):
        text = _random_text(rng)
        lower = _lower(text)
        assert pc.printed_command_spans(text, lower) == _main_printed_command_spans(text, lower), text


@pytest.mark.parametrize("seed", range(8))
def test_traced_pipe_spans_are_mains_on_random_texts(seed):
    rng = random.Random(100 + seed)
    for _ in range(400):
        text = _random_text(rng)
        lower = _lower(text)
        marks = [m for m in pc.TRACE_MARK.finditer(text) if pc._mark_counts(text, m.start(), pc.TRACE_PREFIX)]
        assert pc._traced_pipe_spans(text, lower, marks) == _main_traced_pipe_spans(text, lower, marks), text
        every = list(pc.TRACE_MARK.finditer(text))   # (marks that do not count too: the function takes what it is given)
        assert pc._traced_pipe_spans(text, lower, every) == _main_traced_pipe_spans(text, lower, every), text


@pytest.mark.parametrize("line", ["+ sshpass -p 'S3cr3t!x' ssh h\n", "+ docker login -u bob -p FkIM3Vak1uDSKFQs1DxB\n",
                                  "$ htpasswd -b /etc/x bob A9RelOxOPbbNcRV7\n", "\u276f mysql -pSecret1x db\n"])
def test_marks_at_line_starts_are_judged_without_a_call(monkeypatch, line):
    # (main: _mark_counts once a mark, 2,000 calls; its verdict on an empty prefix is the pattern's on "")
    text = line * 2000
    counted = Counted(pc._mark_counts)
    monkeypatch.setattr(pc, "_mark_counts", counted)
    pc.printed_command_spans(text, text.lower())
    assert counted.calls == 0


@pytest.mark.parametrize("line", ["+ sshpass -p 'S3cr3t!x' ssh h\n", "+ docker login -u bob -p FkIM3Vak1uDSKFQs1DxB\n",
                                  "[rank0]: + vllm serve m --api-key Zq8Das1xPa55 --port 8000\n"])
def test_traced_pipes_not_read_where_no_reader_word_is(line):
    # (main: a Python step a mark and a line, 30,005 lines for 2,000 copies; no line of these holds `stdin`, `-s`,
    # `passwd`, `-fd` or `/dev/fd/0`)
    text = line * 2000
    marks = list(pc.TRACE_MARK.finditer(text))
    spans, lines = python_lines_run(pc._traced_pipe_spans, text, text.lower(), marks)
    assert spans == [] and lines <= 5


def test_printed_command_lines_cost_fewer_python_lines():
    # (main: 85,595 Python lines for 2,000 copies of a traced sshpass line, 43 a line)
    pc._line_secret_spans.cache_clear()
    text = "+ sshpass -p 'S3cr3t!x' ssh h\n" * 2000
    spans, lines = python_lines_run(pc.printed_command_spans, text, text.lower())
    assert len(spans) == 2000 and lines <= 60_000


@pytest.mark.parametrize("text, gone, kept", [
    ("+ echo Zq8Das1xPa55\n+ docker login -u bob --password-stdin\n" * 3, ["Zq8Das1xPa55"], ["bob"]),
    ("[rank0]: + echo bob:Zq8Das1xPa55\n[rank0]: + chpasswd\n", ["Zq8Das1xPa55"], ["bob:"]),
    ("12:00:01 + echo Zq8Das1xPa55\n12:00:02 + htpasswd -i /etc/x bob\n", ["Zq8Das1xPa55"], ["/etc/x"]),
    ("+ sshpass -p 'S3cr3t!x' ssh h\n" * 50, ["S3cr3t!x"], ["ssh h"]),
    ("$ docker login -u bob -p FkIM3Vak1uDSKFQs1DxB\n" * 50, ["FkIM3Vak1uDSKFQs1DxB"], ["bob"]),
])
def test_printed_commands_still_redacted_text_and_stream(text, gone, kept):
    redactor = Redactor({})
    out = redactor.text(text)
    sink = StreamRedactor(redactor)
    streamed = "".join(sink.feed(text[at:at + 7]) for at in range(0, len(text), 7)) + sink.close()
    assert streamed == out
    for word in gone:
        assert word not in out
    for word in kept:
        assert word in out


# UNIX_LINE's blank runs and its word before a bar are possessive now; main's pattern is the same text without the `+`s
MAIN_UNIX_LINE_BODY = pc._UNIX_LINE_BODY.replace("{0,16}+", "{0,16}").replace("{0,62}+", "{0,62}")
MAIN_UNIX_LINE, MAIN_UNIX_FIRST_LINE = re.compile(r"\n" + MAIN_UNIX_LINE_BODY), re.compile(MAIN_UNIX_LINE_BODY)
LINE_PIECES = [" ", "  ", "    ", "\t", " " * 17, "\t" * 20, "[rank0]:", "[rank0]: ", "2026-11-24t03:00:01.123z ",
               "2026-11-24 03:00:01 info ", "api-1", "api-1  | ", "w" * 70 + " | ", "'", '"', "b'", "+ ", "$ ", "%%% ",
               "htpasswd -b x bob y", "mysql -px", "echo x | chpasswd", "(echo x; echo y) | passwd bob", "zip(a, b)",
               "mysql: x", "net user bob x", "f(password)", "\u2502 \u2514 'x'", "k: v", "sshpass", " -p x", "\n", "\n\n"]


@pytest.mark.parametrize("seed", range(6))
def test_unix_line_matches_are_mains_on_random_texts(seed):
    rng = random.Random(200 + seed)
    for _ in range(1500):
        lower = "".join(rng.choice(LINE_PIECES) for _ in range(rng.randint(1, 16)))
        new = [(m.span(), m.span("tool"), m.group("q1")) for m in pc.UNIX_LINE.finditer(lower)]
        old = [(m.span(), m.span("tool"), m.group("q1")) for m in MAIN_UNIX_LINE.finditer(lower)]
        assert new == old, lower
        first, main_first = pc.UNIX_FIRST_LINE.match(lower), MAIN_UNIX_FIRST_LINE.match(lower)
        assert (first and (first.span(), first.span("tool"), first.group("q1"))) == (
            main_first and (main_first.span(), main_first.span("tool"), main_first.group("q1"))), lower



# main's _yaml_data_block_spans and _loguru_spans at ef839a1 (now: a block read once a call, by its text)
def _main_yaml_data_block_spans(text: str) -> list[Span]:
    """`data:` / `stringData:` and the lines indented under it (a Secret as kubectl -o yaml prints it)."""
    spans: list[Span] = []
    if not layouts.has(text, "ata:"):
        return spans
    value_is_secret = layouts._data_value_is_secret
    for m in layouts.DATA_BLOCK_YAML.finditer(text):
        kind = "stringdata" if m.group("key")[0] == "s" else "data"
        offset = m.start("body")
        for line in m.group("body").split("\n"):  # `  key: value` lines (and deeper ones, read alike)
            key, colon, value = line.partition(": ")
            if colon and value_is_secret(kind, value.strip()):
                start = offset + len(key) + 2 + len(value) - len(value.lstrip())
                spans.append((start, offset + len(line.rstrip()), layouts.REDACTED, "kubernetes secret data", m.start()))
            offset += len(line) + 1
    return spans


def _main_loguru_spans(text: str) -> list[Span]:
    """loguru's diagnose arrows: `    connect(password)` then `    │       └ 'VALUE'`. A block is a code line and
    the arrow lines under it (box characters, then one arrow); the name in the code line at an arrow's
    column says whether the value after that arrow is secret."""
    spans: list[Span] = []
    if layouts.LOGURU_ARROW not in text:
        return spans
    secret_value = layouts._secret_value
    for block in layouts.LOGURU_BLOCK.finditer(text):
        columns = layouts._secret_name_columns(block.group("code"))
        if not columns:
            continue
        at = block.start("arrows")
        for line in block.group("arrows").split("\n"):
            column = line.find(layouts.LOGURU_ARROW)
            if column in columns and not "\u2500" <= line[column + 1:column + 2] <= "\u257f":   # (`└── db`: a tree's entry)
                start = at + column + 1 + (line[column + 1:column + 2] == " ")
                end = at + len(line.rstrip())
                if end > start and secret_value(text[start:end]):
                    spans.append((start, end, layouts.REDACTED, "secret-named value", block.start("code")))
            at += len(line) + 1
    return spans


BLOCK_PIECES = ["data:\n", "stringData:\n", "  - data:\n", "  k: QUJDREVGR0g=\n", "  password: Zq8Das1xPa55\n", "    db: |\n",
                "  k: QUJD\n", "  x: \n", "k: v\n", "    f(password)\n", "    connect(api_key, user)\n", "    │ └ 'x'\n",
                "    │ └ 'Zq8Das1xPa55'\n", "    │          └ 'bob'\n", "    └── db\n", "    └ 'Pa55w0rd-2'\n", "\n", "step 1 loss 2\n",
                "  token: c2VjcmV0LXZhbHVlLTEyMw==\n", "\t\tk: QUJDREVGR0g=\n"]


@pytest.mark.parametrize("seed", range(6))
def test_yaml_data_and_loguru_blocks_are_mains_on_random_texts(seed):
    rng = random.Random(300 + seed)
    for _ in range(600):
        units = [rng.choice(BLOCK_PIECES) for _ in range(rng.randint(1, 8))]
        text = "".join(rng.choice(units) for _ in range(rng.randint(1, 40)))
        assert layouts._yaml_data_block_spans(text) == _main_yaml_data_block_spans(text), text
        assert layouts._loguru_spans(text) == _main_loguru_spans(text), text


@pytest.mark.parametrize("unit, function, judge", [
    ("data:\n  k: QUJDREVGR0g=\n", "_yaml_data_block_spans", "_data_value_is_secret"),
    ("    connect(password)\n    \u2502       \u2514 'Zq8Das1xPa55'\n", "_loguru_spans", "_secret_name_columns")])
def test_repeated_blocks_are_read_once(monkeypatch, unit, function, judge):
    # (main: each of 2,000 copies of a block split and judged: 2,000 calls of its judge, 26,054 to 28,415 Python lines)
    text = unit * 2000
    expected = getattr(layouts, function)(text)
    counted = Counted(getattr(layouts, judge))
    monkeypatch.setattr(layouts, judge, counted)
    spans, lines = python_lines_run(getattr(layouts, function), text)
    assert spans == expected and len(spans) == 2000
    assert counted.calls <= 2 and lines <= 22_000
