"""Issue 11, redaction speed (h25t, session 25): printed flags, command passwords and folded secrets' per-match work.
A secret flag's match is judged by its flag and value once a call (`_flag_verdict`), a short flag's tools are looked for
only where the text holds a literal of their names (TOOL_SHORT_FLAG_LITERALS), a password flag's value is judged once a
call and its tools' places found in C, and a span whose next line cannot continue a folded secret is passed over before
its line is measured (MAY_CONTINUE). Each counting test counts calls on a repeated form against main's count; the
guards compare the changed functions with main's code (copied below) on seeded random texts. Times: docs/benchmarks.md
(h25t)."""

from __future__ import annotations

import bisect
import random
import re

import pytest

from counted_calls import Counted, python_lines_run

from aiperf_lab.triage.redact import Redactor, StreamRedactor
from aiperf_lab.triage.redaction import commands as cm
from aiperf_lab.triage.redaction import keys
from aiperf_lab.triage.redaction import wraps
from aiperf_lab.triage.redaction.spans import REDACTED, Span, has, has_any


# ---- main's code at 9f704c5, the reference the guards compare with ----------------------------------------------

def _main_printed_flag_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    kept = cm._KeptFlagValues()
    for m in cm._printed_flags(text):
        value, flag = m.group("value", "flag")
        if cm._secret_flag_cached(flag) and not kept[value] and value.rstrip(",;)]}") != cm._metavar(flag):
            if flag == "secret" and cm.names_a_gcloud_secret(text, m.start(), value.rstrip(",;)]}\\")):
                continue
            gap = m.group("gap")
            if gap is not None and len(gap) > cm.ALIGNED_FLAG_GAP and not (
                    cm.LINE_END_AFTER_VALUE.match(text, m.end()) and cm._secret_shaped(value.rstrip(",;)]}"))):
                continue
            end = m.end() - (len(value) - len(value.rstrip(",;)]}")))
            spans.append((m.start("value"), end, REDACTED, "secret-named value", m.start()))
            if cm._takes_key_list(flag):
                spans += cm._nargs_spans(text, m.end(), m.start(), kept)
    tool_places: dict[str, list[int]] = {}
    quoted = "'" in text or '"' in text
    for m in (cm.TOOL_SHORT_FLAG if quoted else cm.TOOL_SHORT_FLAG_BARE).finditer(text):
        flag = m.group("flag")
        tools, glued, after = cm.TOOL_SHORT_FLAGS[flag]
        if not m.group("sep") and not glued and not (quoted and (m.group("sq") or m.group("dq"))):
            continue
        where = tool_places.get(flag)
        if where is None:
            where = tool_places[flag] = [t.end() for t in tools.finditer(text)]
        if not where:
            continue
        start = m.start()
        index = bisect.bisect_right(where, start) - 1
        if index < 0 or where[index] < start - 300 or text.find("\n", where[index], start) >= 0:
            continue
        first, end = m.span("value")
        if after:
            cut = text.find(after, first, end)
            if cut < 0:
                continue
            first = cut + 1
        if first < end and not kept[text[first:end]]:
            spans.append((first, end, REDACTED, "command-line password", start))
    if has(text, "login"):
        spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                     for m in cm.TOOL_LOGIN_VALUE.finditer(text) if not kept[m.group("value")])
        if has(text, "password-stdin"):
            spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                         for m in cm.ECHO_TO_STDIN.finditer(text) if not kept[m.group("value")])
    if has_any(text, ("mc alias set", "config host add")):
        spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                     for m in cm.MC_ALIAS.finditer(text) if not kept[m.group("value")])
    if "put-parameter" in text:
        for m in cm.PUT_PARAMETER_VALUE.finditer(text):
            line_end = text.find("\n", m.end())
            line = text[text.rfind("\n", 0, m.start()) + 1:line_end if line_end >= 0 else len(text)]
            named = cm.PUT_PARAMETER_NAME.search(line)
            if ("SecureString" in line or (named is not None and cm._secret_name_cached(named.group("name").rsplit("/", 1)[-1]))) and (
                    not kept[m.group("value")]):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    for m in cm.CONFIG_SET_VALUE.finditer(text):
        if cm._secret_name_cached(m.group("name")) and not kept[m.group("value")]:
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    if has(text, '"value"') and has(text, "/secrets/"):
        spans += cm._secret_json_value_spans(text)
    return spans


def _main_command_password_spans(text: str) -> list[Span]:
    spans: list[Span] = cm._glued_pass_spans(text) if has(text, "PASS=") else []
    if "#!" in text:
        spans += cm._askpass_echo_spans(text)
    if has(text, "=$(echo ") or has(text, "=$(printf "):
        spans += cm._echo_substitution_spans(text)
    if has(text, "| |") or has(text, "Z |") or has(text, "\"|") or has(text, "\" |"):
        spans += cm.prefixed_row_spans(text)
    if any(has(text, gate) for gate in cm.PROMPT_GATES):
        spans += cm.typed_prompt_spans(text, text.lower())
    places: dict[str, list[int]] = {}
    present_tools = cm._present_tools(text)
    for tools, reach, pattern in cm.COMMAND_PASSWORD_FLAGS:
        present = [tool for tool in tools if tool in present_tools]
        if not present:
            continue
        for tool in present:
            if tool not in places:
                found, at = [], text.find(tool)
                while at >= 0:
                    found.append(at)
                    at = text.find(tool, at + len(tool))
                places[tool] = found
        for m in pattern.finditer(text):
            start = m.start()
            if not m.group("value").strip(", \t"):
                continue
            if cm.NOT_A_SECRET_REFERENCE.fullmatch(m.group("value").strip("\"' \t")) is not None:
                continue
            for tool in present:
                where = places[tool]
                index = bisect.bisect_right(where, start - len(tool)) - 1
                if index >= 0 and where[index] >= start - reach and text.find("\n", where[index], start) < 0:
                    spans.append((m.start("value"), m.end("value"), REDACTED, "command-line password", where[index]))
                    break
    return spans


def _main_wrapped_continuation_spans(text: str, spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    starts = {span[0] for span in spans}
    for start, end, replacement, label, context in spans:
        if replacement != REDACTED or end - start < wraps.WRAP_FIRST_PIECE:
            continue
        newline = end + (text[end:end + 1] == "\r")
        if text[newline:newline + 1] != "\n":
            continue
        line_start = text.rfind("\n", 0, start) + 1
        width = end - line_start
        if width < wraps.WRAP_WIDTH or wraps.TOKEN_END.search(text, max(line_start, end - 20), end) is None:
            continue
        at = newline + 1
        for _ in range(wraps.WRAP_LINES):
            if at in starts:
                break
            piece = wraps._continuation(text, at, width)
            if piece is None:
                break
            out.append((at, piece[0], REDACTED, label, context))
            if not piece[1]:
                break
            at = wraps._line_end(text, at) + 1
    return out


def _main_key_spans(text: str, lower: str, in_key: bool) -> list[Span]:
    spans = []
    at = 0
    if in_key:  # the previous piece ended inside a key block
        end = _main_key_block_end(text, 0, first_line_is_key=True)
        if (begin := lower.find("-----begin", 0, end)) >= 0:
            end = text.rfind("\n", 0, begin) + 1   # a new block's BEGIN line, its log prefix too, is read as one
        if end > 0:
            spans.append((0, end, keys._line_by_line(text, 0, end), "private key block", 0))
        at = end
    # the next match of each BEGIN pattern, searched again only once the scan has passed it (linear)
    upcoming: list[tuple[int, int] | None] = [(-1, -1)] * len(keys.KEY_BEGIN_FAST)
    while True:
        for index, pattern in enumerate(keys.KEY_BEGIN_FAST):
            found = upcoming[index]
            if found is not None and found[0] < at:
                m = pattern.search(lower if index == 0 else text, at)
                upcoming[index] = None if m is None else (_main_armour_start(lower, m.start()) if index == 0
                                                          else m.start(), m.end())
        candidates = [found for found in upcoming if found is not None]
        if not candidates:
            return spans
        start, begin_end = min(candidates)
        end = _main_key_block_end(text, begin_end, begin=start)
        spans.append((start, end, keys._line_by_line(text, start, end), "private key block", start))
        at = max(end, begin_end)


def _main_prefixed_block_end(text: str, eol: int) -> int:
    """The end of a key logged with a prefix on each line: the lines that end in base64 (or are
    header lines), through the line with the END marker. Lines of another source between them (another pod's or
    rank's: line_views.line_source; interleaved logs) are passed over, and go with the block where its lines go on
    after them (as a framed block's lines between its BEGIN and END do), or where the text ends among them (a stream's
    piece: the block is open, and waits for its next lines)."""
    end = at = eol
    source = None   # the block's (its first line's), asked at the first line that would end it
    while at < len(text):
        next_eol = text.find("\n", at + 1)
        next_eol = len(text) if next_eol < 0 else next_eol
        line = text[at + 1:next_eol]
        # (a line's verdict is the line's alone: remembered for short lines, a log repeats them)
        verdict = keys._prefixed_line_verdict(line) if len(line) <= 512 else keys._prefixed_line_verdict.__wrapped__(line)
        if verdict >= 0:
            return at + 1 + verdict
        if verdict == keys.PREFIXED_BLOCK_ENDS:
            if source is None:
                source = keys.line_source(text, text.rfind("\n", 0, eol) + 1, eol)
            other = keys.line_source(text, at + 1, next_eol) if source else ""
            if not other or other == source:
                break
            if next_eol >= len(text) - 1:
                end = len(text)   # (the text ends among another source's lines: the block may go on after them)
        else:
            end = next_eol
        at = next_eol
    while end > eol and text[end - 1] in "\r\n":
        end -= 1
    return end


def _main_key_block_end(text: str, at: int, first_line_is_key: bool = False, begin: int | None = None) -> int:
    """Where a key block starting at `at` ends: its END marker if it is on the same line; else the
    rest of that line, the key-material lines after it, and the END line right after them."""
    eol = text.find("\n", at)
    eol = len(text) if eol < 0 else eol
    end_marker = keys.KEY_END.search(text, at, eol)
    if end_marker:
        return end_marker.end()
    begin = at if begin is None else begin
    line_start = text.rfind("\n", 0, begin) + 1
    prefix = text[line_start:begin].strip()
    if not first_line_is_key and (prefix or text[at:eol].strip()) and (framed := _main_framed_block_end(text, eol)):
        return framed
    if first_line_is_key and (keys._prefixed_key_line(text[at:eol]) and not re.match(r"[A-Za-z0-9+/=]*\r?$", text[at:eol])):
        return _main_prefixed_block_end(text, eol)  # a prefixed key cut between two reads
    if first_line_is_key and not re.match(keys.KEY_LINE, text[at:eol]):
        return at
    if not first_line_is_key and prefix and not prefix.endswith(("'", '"')):
        return _main_prefixed_block_end(text, eol)  # "INFO: -----BEGIN ...": every line has the prefix
    block = keys.KEY_LINES.match(text, eol)
    end = block.end() if block else eol
    if end < len(text) and text[end] == "\n":
        tail = keys.KEY_END.match(text, end + 1)
        if tail:
            return tail.end()
    while end > at and text[end - 1] in "\r\n":  # the line ends stay, so the text keeps its lines
        end -= 1
    if end == eol and prefix and not first_line_is_key:  # `E   '-----BEGIN`, `"-----BEGIN`: each line quoted
        return max(end, _main_prefixed_block_end(text, eol))
    return end


def _main_framed_block_end(text: str, eol: int) -> int:
    """A key whose BEGIN line has a frame around it (`│ -----BEGIN ... │`, `E   '-----BEGIN`, `"-----BEGIN ...",`):
    the end of its END marker when one comes within keys.FRAMED_KEY_LINES lines with no other BEGIN before it, else 0
    (the block is then read line by line)."""
    at = eol
    for _ in range(keys.FRAMED_KEY_LINES):
        if at >= len(text):
            return 0
        next_eol = text.find("\n", at + 1)
        next_eol = len(text) if next_eol < 0 else next_eol
        line = text[at + 1:next_eol]
        if "-" in line:
            marker = keys.KEY_END.search(line)
            if marker:
                return at + 1 + marker.end()
            if keys.KEY_BEGIN.search(line):
                return 0
        at = next_eol
    return 0


# ---- random texts -------------------------------------------------------------------------------------------------

FLAG_WORDS = ["--password", "--api-key", "--api-keys", "--token", "--hf_token", "--secret", "--port", "--a-b",
              "--password-stdin", "--db-password", "--wrap", "--user", "--auth", "--value", "--name", "--relogin",
              "---password", "x--token", "--TOKEN"]
VALUES = ["Zq1x", "Zq8Das1xPa55w0rd", "8000", "API_KEY", "PASSWORD", "$TOKEN", "'S3cr3t!x'", "\"Pa55 w0rd\"",
          "'python x.py --hf_token Qm7vT2xLp9Rz'", "\"--token abc\"", "on", "/etc/x", "key.pem", "Qm7vT2xLp9Rz,",
          "abc)", "team2key!x9", "meta-llama/Llama-3-8B", "id=npm,src=/run/npmrc", "|", "[REDACTED]", "Bearer",
          "a", "-", "db_name", "latest", "x" * 40, "hf_" + "Q" * 34, "$'a\\tb'", "abcd", "u:p4ssw0rd", "bob%Secr3t9"]
TOOLS = ["zip", "unzip", "openssl enc", "7z a", "7za", "az login", "mongo", "mongosh", "ssh-keygen", "smbclient",
         "rpcclient", "ldapsearch", "curl", "wget", "sshpass", "mysql", "redis-cli", "docker login", "podman login",
         "htpasswd", "net use", "NET USE", "psexec", "keytool", "twine", "oc login", "beeline", "http ", "poetry",
         "influx", "cargo login", "wandb login", "conda token set", "gh auth login", "huggingface-cli login",
         "gcloud secrets versions access", "vault login", "aws configure set", "mc alias set", "mariadb", "bcp"]
SHORT = ["-P", "-p", "-k", "-U", "-w", "-u", "-N", "-a", "-t", "-b", "-nb", "-cb", "-pX9secret", "-Pabcd", "--password",
         "-storepass", "/user:bob", "\\\\srv\\share", "<<<", "-storepass", "pypi-token.x", "http-basic.r bob"]
SEPS = [" ", " ", " ", "  ", "\t", "=", "', '", "\", \"", "          ", "\n", "\n- ", ",\n  - ", " | ", "; ", " && "]
PREFIXES = ["", "", "+ ", "$ ", "2026-11-24T00:01:02.123456Z ", "[rank0]: ", "app-1  | ", "\u2502 ", "  ", "RUN "]


def _command_text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 12)):
        words = [rng.choice(PREFIXES)]
        for _ in range(rng.randint(1, 10)):
            kind = rng.random()
            if kind < 0.3:
                words.append(rng.choice(TOOLS))
            elif kind < 0.55:
                words.append(rng.choice(FLAG_WORDS))
            elif kind < 0.75:
                words.append(rng.choice(SHORT))
            else:
                words.append(rng.choice(VALUES))
            words.append(rng.choice(SEPS))
        line = "".join(words)
        lines.extend([line] * rng.choice([1, 1, 1, 2, 5]))
    text = rng.choice(["\n", "\r\n"]).join(lines)
    if rng.random() < 0.3:
        text = text.replace("'", "").replace('"', "")
    if rng.random() < 0.2:
        cut = rng.randint(0, len(text))
        text = text[cut:]
    return text


@pytest.mark.parametrize("seed", range(8))
def test_printed_flag_spans_as_main(seed: int) -> None:
    rng = random.Random(2500 + seed)
    for _ in range(400):
        text = _command_text(rng)
        assert cm._printed_flag_spans(text) == _main_printed_flag_spans(text), text


@pytest.mark.parametrize("seed", range(8))
def test_command_password_spans_as_main(seed: int) -> None:
    rng = random.Random(2600 + seed)
    for _ in range(400):
        text = _command_text(rng)
        assert cm._command_password_spans(text) == _main_command_password_spans(text), text


def test_repeated_forms_as_main() -> None:
    for unit in ("zip -P abcd ", "--password Zq1x ", "htpasswd -b ", "sshpass -p 'S3cr3t!x' ssh h\n",
                 "  --password        Zq8Das1xPa55w0rd\n  --token          The token to use\n  --port            8000\n",
                 "+ vllm serve m --api-key Zq8Das1xPa55 Qm7vT2xLp9Rz team2key!x9 --port 8000 --api-key a b c d\n",
                 "psexec \\\\srv -u alice -p Zq8Das1x cmd\n", "net use Z: \\\\srv\\share /user:bob Zq8Das1x\n",
                 "sshpasshpass -p x\nsshpassshpass -p Secr3t99 h\n"):
        for count in (1, 2, 7, 300):
            text = unit * count
            assert cm._printed_flag_spans(text) == _main_printed_flag_spans(text)
            assert cm._command_password_spans(text) == _main_command_password_spans(text)


def test_tool_literals_cover_the_tools() -> None:
    """Every name a short flag's tools pattern matches holds one of the flag's literals (the gate is exact)."""
    rng = random.Random(27)
    names = ["openssl", "zip", "unzip", "sqlcmd", "bcp", "ssh-keygen", "7z", "7za", "7zr", "az", "mongo", "mongosh",
             "mongodump", "mongorestore", "mongoexport", "mongoimport", "smbclient", "rpcclient", "smbmap", "ldapsearch",
             "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "curl", "wget", "zi", "mong", "ldap"]
    for flag, (tools, _glued, _after) in cm.TOOL_SHORT_FLAGS.items():
        for _ in range(3000):
            text = "".join(rng.choice([" ", "/", "'", '"', "\n", "x"] + names) for _ in range(rng.randint(1, 8)))
            if tools.search(text) is not None:
                assert any(literal in text for literal in cm.TOOL_SHORT_FLAG_LITERALS[flag]), (flag, text)
        for name in names:
            if tools.search(f" {name} ") is not None:
                assert any(literal in name for literal in cm.TOOL_SHORT_FLAG_LITERALS[flag]), (flag, name)


def _spans_text(rng: random.Random) -> tuple[str, list[Span]]:
    """A text of lines (full-width token lines, dumps, short lines, CRLF) and random spans over it."""
    width = rng.choice([60, 61, 64, 70, 80])
    lines = []
    for _ in range(rng.randint(1, 30)):
        kind = rng.random()
        if kind < 0.3:
            lines.append("".join(rng.choice("ABCxyz019+/_.-") for _ in range(width)))
        elif kind < 0.45:
            lines.append("".join(rng.choice("ABCxyz019") for _ in range(rng.randint(1, width))) + rng.choice(["", "\"", "\",", "==", ")"]))
        elif kind < 0.6:
            lines.append("00000000: 6866 5f51 5151 5151 5151 5151 5151 5151  hf_QQQQQQQQQQQQQ")
        elif kind < 0.7:
            lines.append("")
        elif kind < 0.8:
            lines.append("Done")
        else:
            lines.append("x " * rng.randint(0, 40) + "".join(rng.choice("ABCxyz019") for _ in range(rng.randint(0, 30))))
    text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n"])
    spans: list[Span] = []
    for _ in range(rng.randint(0, 40)):
        if rng.random() < 0.6 and "\n" in text:
            end = rng.choice([i for i, c in enumerate(text) if c in "\r\n"] + [len(text)])
        else:
            end = rng.randint(0, len(text))
        start = max(0, end - rng.choice([4, 15, 16, 20, 40, 80, 200]))
        spans.append((start, end, rng.choice([REDACTED, REDACTED, "[HOST]"]), "label", start))
    if spans and rng.random() < 0.3:
        spans.append(spans[0])
    return text, spans


@pytest.mark.parametrize("seed", range(6))
def test_wrapped_continuation_spans_as_main(seed: int) -> None:
    rng = random.Random(2700 + seed)
    for _ in range(1500):
        text, spans = _spans_text(rng)
        assert wraps.wrapped_continuation_spans(text, spans) == _main_wrapped_continuation_spans(text, spans)


# ---- the work counted ---------------------------------------------------------------------------------------------

def test_flag_judged_once_per_flag_and_value(monkeypatch) -> None:
    """2,000 repeats of `--password Zq1x`: main asks _secret_flag_cached at every match; now once a (flag, value)."""
    counted = Counted(cm._secret_flag_cached)
    monkeypatch.setattr(cm, "_secret_flag_cached", counted)
    text = "--password Zq1x " * 2000
    spans = cm._printed_flag_spans(text)
    assert len(spans) == 2000
    assert counted.calls <= 2


def test_no_tool_literal_no_tool_scan(monkeypatch) -> None:
    """`psexec ... -p X` lines: `-p`'s tools (7z, az, mongo...) are not in the text; main scans for them (a pattern that
    tries the names at every character) once a call; now none."""
    tools, glued, after = cm.TOOL_SHORT_FLAGS["p"]
    counted = Counted(tools, "finditer")
    monkeypatch.setitem(cm.TOOL_SHORT_FLAGS, "p", (counted, glued, after))
    text = "2026-11-24T00:01:02.123456Z psexec \\\\srv -u alice -p Zq8Das1x cmd\n" * 200
    assert cm._printed_flag_spans(text) == []
    assert counted.calls == 0
    assert cm._printed_flag_spans("7z a -p x.7z -pSecr3t99 f\n")   # (a tool present: still read)
    assert counted.calls == 1


def test_command_value_judged_once(monkeypatch) -> None:
    """2,000 `htpasswd -b` matches of one value: main asks NOT_A_SECRET_REFERENCE at each; now once a value."""
    counted = Counted(cm.NOT_A_SECRET_REFERENCE, "fullmatch")
    monkeypatch.setattr(cm, "NOT_A_SECRET_REFERENCE", counted)
    text = "htpasswd -b " * 4000
    spans = cm._command_password_spans(text)
    assert spans
    assert counted.calls <= 2


def test_tool_places_found_in_c() -> None:
    """The places of a tool's name: main steps a Python `find` loop over each (4,000 places here); now a C scan. Python
    lines run: main 34,679, now 28,695 (the matches' own loop is the rest)."""
    text = "htpasswd -b " * 4000
    _, lines = python_lines_run(cm._command_password_spans, text)
    assert lines < 31_000


def test_no_continuation_line_not_measured(monkeypatch) -> None:
    """xxd lines ending in a known secret's piece: main measures each span's line (TOKEN_END) though the next line holds
    blanks and cannot continue it; now no span's line is measured."""
    counted = Counted(wraps.TOKEN_END, "search")
    monkeypatch.setattr(wraps, "TOKEN_END", counted)
    line = "00000000: 6866 5f51 5151 5151 5151 5151 5151 5151  hf_QQQQQQQQQQQQQ\n"
    text = line * 500
    spans = [(at + len(line) - 17, at + len(line) - 1, REDACTED, "known value", at) for at in range(0, len(text), len(line))]
    assert wraps.wrapped_continuation_spans(text, spans) == []
    assert counted.calls == 0


# ---- forms still redacted, text and stream ------------------------------------------------------------------------

@pytest.mark.parametrize("text, secret", [
    ("zip -P abcd x.zip f\n" * 3, "abcd"),
    ("--password Zq1x --password Zq1x\n", "Zq1x"),
    ("+ vllm serve m --api-key Zq8Das1xPa55 Qm7vT2xLp9Rz --port 8000\n", "Qm7vT2xLp9Rz"),
    ("  --password        Zq8Das1xPa55w0rd\n  --port            8000\n", "Zq8Das1xPa55w0rd"),
    ("+ htpasswd -b /etc/x bob A9RelOxOPbbNcRV7\n" * 4, "A9RelOxOPbbNcRV7"),
    ("7z a -pSecr3t99x out.7z f\n", "Secr3t99x"),
    ("psexec \\\\srv -u alice -p Zq8Das1x cmd\n", "Zq8Das1x"),
    ("token: " + "A" * 50 + "Zq8Das1xPa55w0rdQm7vT2xL\nQm7vT2xLp9RzZq8Das1xPa55w0rd9\n", "Qm7vT2xLp9RzZq8Das1xPa55w0rd9"),
])
def test_still_hidden(text: str, secret: str) -> None:
    redactor = Redactor({})
    assert secret not in redactor.text(text)
    sink = StreamRedactor(Redactor({}))
    out = "".join(sink.feed(text[i:i + 7]) for i in range(0, len(text), 7)) + sink.close()
    assert secret not in out
    assert out == redactor.text(text)


# ---- private key blocks ---------------------------------------------------------------------------------------------

KEY_LINES_POOL = ["-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----",
                  "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", "-----BEGIN PGP PRIVATE KEY BLOCK-----",
                  "-----END PGP PRIVATE KEY BLOCK-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "MIIEabcdefghABCDEFGH0123456789+/",
                  "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,ABCDEF", "# a comment", "", "step 1 loss 0.3",
                  "PuTTY-User-Key-File-2: ssh-rsa", "Private-Lines: 14", "Private-MAC: abc123", "AAAA==", "x-y-z",
                  "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "-----begin rsa private key-----", "--"]
KEY_PREFIXES = ["", "", "INFO: ", "[rank0]: ", "[rank1]: ", "\u2502 ", "E   '", "\"", "2026-11-24T00:01:02Z ", "app-1  | ",
                "pod/trainer-0 "]
KEY_SUFFIXES = ["", "", " \u2502", "\",", "'", " |"]


def _key_text(rng: random.Random) -> str:
    unit = []
    for _ in range(rng.randint(1, 6)):
        unit.append(rng.choice(KEY_PREFIXES) + rng.choice(KEY_LINES_POOL) + rng.choice(KEY_SUFFIXES))
    lines = []
    for _ in range(rng.randint(1, 6)):
        lines.extend(unit * rng.choice([1, 2, 3, 10]))
        if rng.random() < 0.4:
            lines.append(rng.choice(KEY_PREFIXES) + rng.choice(KEY_LINES_POOL))
    text = rng.choice(["\n", "\n", "\r\n"]).join(lines) + rng.choice(["", "\n", "\n\n"])
    if rng.random() < 0.3:
        text = text[rng.randint(0, len(text)):]
    if rng.random() < 0.3:
        text = text[:rng.randint(0, len(text))]
    return text


@pytest.mark.parametrize("seed", range(8))
def test_key_spans_as_main(seed: int) -> None:
    rng = random.Random(2800 + seed)
    for _ in range(500):
        text = _key_text(rng)
        lower = text.lower()
        for in_key in (False, True):
            assert keys._key_spans(text, lower, in_key) == _main_key_spans(text, lower, in_key), (text, in_key)


def test_key_block_ends_as_main() -> None:
    rng = random.Random(29)
    for _ in range(2000):
        text = _key_text(rng)
        for at in sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 6))):
            assert keys._key_block_end(text, at, True) == _main_key_block_end(text, at, True)
            assert keys._key_block_end(text, at, False) == _main_key_block_end(text, at, False)
            assert keys._prefixed_block_end(text, at) == _main_prefixed_block_end(text, at)
            assert keys._framed_block_end(text, at) == _main_framed_block_end(text, at)


@pytest.mark.parametrize("unit", ["INFO: -----BEGIN RSA PRIVATE KEY-----\nINFO: MIIEabcdefghABCDEFGH0123456789+/\n",
                                  "\u2502 -----BEGIN RSA PRIVATE KEY----- \u2502\n\u2502 MIIEvQIBADANBgkqhkiG9w0BAQEFAASC \u2502\n"])
def test_repeated_key_blocks_read_once(monkeypatch, unit: str) -> None:
    """2,000 copies of a key's BEGIN line and a body line (a log prefix, a frame): main reads each block's lines
    (_prefixed_line_verdict twice a block); now the first block's, the others being the same text."""
    text = unit * 2000
    expected = _main_key_spans(text, text.lower(), False)
    counted = Counted(keys._prefixed_line_verdict)
    monkeypatch.setattr(keys, "_prefixed_line_verdict", counted)
    assert keys._key_spans(text, text.lower(), False) == expected
    assert len(expected) == 2000
    assert counted.calls <= 4


def _main_armour_start(lower: str, begin: int) -> int:
    at = begin - 1 if lower[begin - 1:begin] == " " else begin
    dashes = 0
    while at > 0 and dashes < 5 and lower[at - 1] == "-":
        at -= 1
        dashes += 1
    return at


def test_armour_start_as_main() -> None:
    rng = random.Random(31)
    for _ in range(20000):
        lower = "".join(rng.choice("-- -x") for _ in range(rng.randint(0, 12)))
        for begin in range(len(lower) + 1):
            assert keys._armour_start(lower, begin) == _main_armour_start(lower, begin), (lower, begin)
