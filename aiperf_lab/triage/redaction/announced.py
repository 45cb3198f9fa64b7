"""Secrets printed where no `name=value` rule reads them (issue 11, h21b):

- an HTTP header whose dashed name ends in a secret word (`Ocp-Apim-Subscription-Key: V`, `X-Figma-Token: V`,
  `api-key: V`) as a line, in curl's `-H '...'`, in a requests/http.client `send: b'...\\r\\n...'` dump, in a dict's
  repr or JSON (`'Ocp-Apim-Subscription-Key': 'V'`): the value when it holds a digit or reads as a password (a
  header built from a variable, `{'X-Api-Key': key}`, stays);
- a dotted config key whose secret word is not its last (`fs.azure.account.key.ACCOUNT.blob.core.windows.net=V`,
  `spark.hadoop.fs.gs.auth.service.account.private.key V`): after `=`, `:` or blanks, a value with a digit;
- a value alone on its line after a line that announces it (Jenkins' `... the following password to proceed to
  installation:` then a blank line, Elasticsearch's `Password for the elastic user (reset with ...):`), or after a
  command that prints a secret decoded (`kubectl get secret ... | base64 -d`, `argocd admin initial-password`,
  go-template's `base64decode`); the lines read behind a log prefix or in a JSON record per line, and a few words that
  name a secret with no colon announce too (Grafana's `Admin password`, then a value that reads as one: h22a);
- a secret in a sentence: `Using token V for authentication`, `with api key V`, `Your password is: V`, `password set
  to V`, `the client secret is V`: a token's, a key's or a secret's value when it reads as generated (12+ letters and
  digits), a password's when it reads as one (looks_like_password). `Using token ids [1, 2]`, `Using auth token from
  ~/.cache`, `the eos token is </s>` stay; two blanks or brackets around the value too (`Using token  V  for auth`,
  `api key [V]`: h22a);
- an answer typed for a prompt that asks a secret (expect's `send "V\\r"` after `expect "Password:"`, a REPL's echo of
  `os.environ['API_KEY']`), and a secret store's bootstrap print with a two-word label (`Unseal Key 1: V`, nomad's
  `Secret ID = V`) (h22a).

Each form is led by a literal the engine skips to (or a str.find gate); a stream holds an announcing line until its
value's line is read (announced_hold)."""

from __future__ import annotations

import json
import re

from .line_views import PREFIX_HINTS, prefix_alone, without_log_prefix
from .names import cannot_be_secret, is_location, is_secret_name, looks_like_password, says_absent
from .distinct_lines import few_distinct_lines
from .spans import REDACTED, Span, has

LABEL = "secret-named value"

# ---- headers ------------------------------------------------------------------------------------------------------
HEADER_GATES = ("-key", "-token", "-secret", "apikey", "pass:")
# the header name's last word and what follows it: a quote closing a repr/JSON key, `:`, blanks, a quote opening the value
HEADER_TAIL = re.compile(r"(?P<word>-key|-token|-secret|apikey|pass(?=[\"']?:))(?P<q>[\"']?)[ \t]{0,4}:[ \t]{0,16}(?P<open>[\"']?)"
                         r"(?P<value>[^\s'\"\\,;{}()\[\]<>]{6,512})")
NOT_SECRET_HEADERS = frozenset({"sec-websocket-key", "idempotency-key", "x-idempotency-key", "x-cache-key", "cache-key",
                                "x-request-key", "sec-websocket-accept"})


# Each gate holds one of these words; a long text is asked for the word first (spans.has: memoized within one
# Redactor.spans call, where other rules ask for `secret` and `passw` already), and for the gates only where it holds
# it: a plain log holding none of them pays a few scans, not one scan a gate (22 gates, ~1.3 ms a scan of 2 MB).
GATE_ROOTS = ("key", "token", "pass", "secret")


def _any_gate(lower: str, gates: tuple[str, ...]) -> bool:
    """Whether lower holds any of gates (each holding a word of GATE_ROOTS)."""
    return any(gate in lower for root in GATE_ROOTS if has(lower, root) for gate in gates if root in gate)


def _name_start(lower: str, end: int) -> int:
    """Where a name of [a-z0-9-] that ends at `end` starts (96 characters back at most)."""
    start = end
    floor = max(0, end - 96)
    while start > floor and (lower[start - 1].isalnum() or lower[start - 1] == "-") and lower[start - 1].isascii():
        start -= 1
    if start and lower[start - 1] == "\\" and lower[start] in "nrt":
        start += 1   # (an escaped line break before the name: `\r\nOcp-Apim-Subscription-Key: X` in a send: b'...' dump)
    return start


def _credential_value(value: str) -> bool:
    """A value worth hiding under a name that says secret: not a setting, number, path, URL, placeholder or absence,
    and it holds a digit or reads as a password."""
    if (value == REDACTED or value.startswith(REDACTED) or cannot_be_secret(value) or says_absent(value)
            or is_location(value) or "://" in value or value.startswith(("$", "%", "<", "{", "*")) or value.endswith("*")):
        return False
    return any(c.isdigit() for c in value) or looks_like_password(value)


def header_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    if not _any_gate(lower, HEADER_GATES):
        return spans
    for m in HEADER_TAIL.finditer(lower):
        if m.group("q") != m.group("open") and m.group("q"):
            continue   # (`'X-Key': value` with no quote on the value: a variable in code)
        start = _name_start(lower, m.start())
        name = lower[start:m.end("word")]
        if start and lower[start - 1] in "._":
            continue   # (part of a longer name: `foo.x-key:` is a config key, the assignment rules')
        if m.group("word") == "pass":   # (a name whose last word is Pass: MinIO's `RootPass: X`, `Admin-Pass: X`)
            if not (text.startswith("Pass", m.start()) and text[m.start() - 1:m.start()].islower()
                    or lower[m.start() - 1:m.start()] == "-"):
                continue
        elif "-" not in name and name != "apikey":
            continue
        if name in NOT_SECRET_HEADERS or not is_secret_name(text[start:m.end("word")]):
            continue
        value_start, value_end = m.span("value")
        value = text[value_start:value_end].rstrip(".")
        if _credential_value(value) and not value.endswith(":"):   # (`X-Key: Name:`: another name, no value)
            spans.append((value_start, value_start + len(value), REDACTED, LABEL, start))
    return spans


# ---- dotted config keys -------------------------------------------------------------------------------------------
DOTTED_GATES = ("account.key", "private.key", "encryption.key", "signing.key", "master.key", ".password", ".passwd",
                ".secret", ".token")
# (every branch led by a letter or the dot, the look-behind after it, so that the engine skips to those characters: a
# branch led by a group or a look-behind made it try the whole alternation at every character, 0.09 s/MB where a text
# holds a gate, h23t)
_DOTTED_KEY_REST = r"(?:\.[a-z0-9_-]{1,63}){0,8}(?:[ \t]{0,4}[=:][ \t]{0,4}|[ \t]{1,32})"   # (more parts, then = : or blanks)
DOTTED_KEY = re.compile("(?:" + "".join(rf"{word}\.key{_DOTTED_KEY_REST}|" for word in ("account", "private", "encryption",
                                                                                      "signing", "master"))
                        # (a dotted key that ends in its secret word, its value after blanks: spark-defaults.conf, hive's)
                        + r"\.(?<=[a-z0-9]\.)(?:password|passwd|secret|token)(?P<blanks>[ \t]{1,32}))"
                        r"[\"']?(?P<value>[^\s'\"<>,;]{6,1024})")


def dotted_key_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    if not _any_gate(lower, DOTTED_GATES):
        return spans
    for m in DOTTED_KEY.finditer(lower):
        start = m.start()
        if m.group("blanks") is None and (not start or lower[start - 1] not in ".-"):
            continue   # (a config key has parts before: `fs.azure.account.key.`; prose `account.key` alone stays)
        value_start, value_end = m.span("value")
        value = text[value_start:value_end]
        if m.group("blanks") is not None and not (_reads_as_password(value) or _generated(value)):
            continue   # (`model.token 12345`: a number; the value of a key that ends in its secret word reads as one)
        if _credential_value(value) and not value.startswith(("--", "-")):
            spans.append((value_start, value_end, REDACTED, LABEL, start))
    return spans


# ---- a value alone on a line after the line that announces it -------------------------------------------------------
ANNOUNCING_WORDS = re.compile(r"password|passphrase|passwd|secret|(?<![a-z])token(?![a-z])|api[ _-]?key")
# a command whose output is the secret itself, decoded
DECODING = re.compile(r"base64 (?:-d|--decode|-D)\b|base64decode|\binitial-password\b|\bget-secret-value\b")
ALONE = re.compile(r"[ \t]{0,16}(?P<value>[^\s]{6,512})[ \t]{0,16}\r?$")
ANNOUNCE_LINES = 2   # blank lines between the announcement and its value at most
# A line of words alone (no colon) that names a secret: Grafana's and Keycloak's first-start `Admin password`, `Initial
# admin password`, `Please use the following password to proceed to installation` (h22a): its value must read as one
NAMING_LINE = re.compile(r"(?:[a-z]{1,24}[ \t]){1,11}[a-z]{1,24}")
NAMING_NOUN = re.compile(r"(?<![a-z])(?:password|passphrase|passwd|secret|token|api[ _-]?key)(?![a-z])")
# where such lines end, each led by its noun (the engine skips to it): the line's end, or a JSON record's message's end
# (`{"msg": "Admin password"}`, Docker's `{"log":"Admin password\n",...}`)
_LINE_OR_MESSAGE_END = r"[ \t]{0,8}(?:\r?$|(?:\\r)?(?:\\n)?\"[ \t]{0,4}[,}])"
NAMING_ENDS = [(root, re.compile(noun + _LINE_OR_MESSAGE_END, re.M)) for root, noun in (
    ("pass", r"pass(?:word|phrase|wd)(?: to proceed to installation)?"), ("secret", "secret"), ("token", "token"), ("key", r"key(?:(?<=api[ _-]key)|(?<=apikey))"))]
# a JSON record's message that ends with `:` (`{"level": "info", "message": "Your API token is:"}`), led by its quote
JSON_COLON_END = re.compile(r"\"(?:(?<=:\")|(?<=: \")|(?<=:\\n\")|(?<=:\\r\\n\"))[ \t]{0,4}[,}]")
VIEW_HINTS = PREFIX_HINTS + ("{", "'", '"')


def _view(line: str) -> str:
    """line as the announcing rules read it: without its log prefix, its JSON record or its repr (line_views)."""
    return without_log_prefix(line) if any(hint in line for hint in VIEW_HINTS) else line


def _names_alone(stripped: str) -> bool:
    """`Admin password`: 2 to 12 words of letters alone, one of them a secret's noun (lower-cased, stripped)."""
    return len(stripped) <= 120 and NAMING_LINE.fullmatch(stripped) is not None and NAMING_NOUN.search(stripped) is not None


def _announces(line: str) -> bool:
    """A line that says the next line (maybe after blank ones) is a secret: it ends with `:` and names a password,
    token, secret or API key, or it runs a command that prints one decoded, or it is a few words that name one."""
    stripped = line.rstrip(" \t\r")
    if stripped.endswith(":"):
        return ANNOUNCING_WORDS.search(stripped) is not None and len(stripped.lstrip(" \t")) > 1   # (session 23:
        # `password:` alone too, its value then judged as after words alone: _strictly_judged)
    if DECODING.search(line) is not None:
        return "secret" in line or "password" in line or "token" in line
    return _names_alone(stripped.lstrip(" \t"))


def _blank(line: str) -> bool:
    """A line with nothing on it but blanks, or a log prefix (`[rank0]: `, `api-1  | `: a blank line behind one)."""
    return not line.strip(" \t\r") or prefix_alone(line)


def _value_line(text: str, at: int, read: dict | None = None) -> tuple[int, int, str] | None:
    """The value alone on the first non-blank line from `at` (ANNOUNCE_LINES blank ones before it at most), read
    behind its log prefix or in its JSON record (_view): its place in text and the value as read. `read`: what each
    line gave (_line_value), by its text, kept by the caller (a line repeated is read once)."""
    for _ in range(ANNOUNCE_LINES + 1):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        raw = text[at:end]
        if read is None:
            found = _line_value(raw)
        elif (found := read.get(raw, read)) is read:
            found = read[raw] = _line_value(raw)
        if found is not False:
            return None if found is None else (at + found[0], at + found[1], found[2])
        if end >= len(text):
            return None
        at = end + 1
    return None


def _line_value(raw: str) -> tuple[int, int, str] | bool | None:
    """What a line gives _value_line: False where it is blank (_blank), else the value alone on it (its place in the
    line and the value as read), or None."""
    view = _view(raw)
    if _blank(view):
        return False
    m = ALONE.match(view)
    if m is None:
        return None
    value = m.group("value")
    if view is raw:
        return m.start("value"), m.end("value"), value
    written = value if (place := raw.rfind(value)) >= 0 else json.dumps(value)[1:-1]
    place = raw.rfind(written) if place < 0 else place
    return (place, place + len(written), value) if place >= 0 else None


LINE_ENDS_WITH_COLON = re.compile(r":[ \t]*\r?\n")
CODE_CHARACTERS = re.compile(r"[=()\[\]{}<>\"'`\\,;]")


# A Python statement that opens a block, a test or a call in it (`if not isinstance(password, str):`, `elif token is None:`)
PYTHON_BLOCK_LINE = re.compile(r"[ \t]{0,64}(?:if|elif|while|for|with|def|except|assert)[ \t(][^\n]{0,256}"
                               r"(?:\(|[ \t](?:is|not|in)[ \t]|[=!]=)[^\n]{0,256}:[ \t\r]*\Z")


def announced_value_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    starts: list[int] = []
    roots = [root for root in GATE_ROOTS if has(lower, root)]
    if not roots or "\n" not in text:   # (an announcing line names one: ANNOUNCING_WORDS, DECODING; its value is on a
        return spans                    # line after it: one long line, `token=token=...`, has none)
    colon = ":\n" in text or ":\r\n" in text or ": \n" in text   # (lines that end with `:`, then what they name)
    decoding = "base64" in lower or "initial-password" in lower or "get-secret-value" in lower
    naming = [pattern for root, pattern in NAMING_ENDS if root in roots]   # (a few words naming a secret, no colon)
    record = "{" in text and ('"' in text) and (':"' in text or ': "' in text or ':\\n"' in text)
    # (lines repeat, in logs and in adversarial text: each distinct line is viewed and judged once, its value line read
    # once, and each value once after each announcing line)
    views: dict[str, str | None] = {}   # (a line's view where it announces, else None)
    read: dict[str, tuple[int, int, str] | bool | None] = {}
    if text.isascii() and (distinct := few_distinct_lines(text)) is not None:
        for raw in distinct:   # (the distinct lines the scans below would find, each viewed once: the same as they)
            low = raw.lower()
            if ((colon and LINE_ENDS_WITH_COLON.search(low + "\n")) or (decoding and DECODING.search(low))
                    or any(pattern.search(low) for pattern in naming) or (record and JSON_COLON_END.search(low))):
                views[raw] = _announcing_view(raw)
        if _none_announced(text, distinct, views, read):
            return spans   # (a text of few distinct lines, none announcing a value)
    if colon:
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in LINE_ENDS_WITH_COLON.finditer(lower)]
    if decoding:
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in DECODING.finditer(lower)]
    for pattern in naming:
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in pattern.finditer(lower)]
    if record:
        starts += [lower.rfind("\n", 0, m.start()) + 1 for m in JSON_COLON_END.finditer(lower)]
    judged: dict[tuple[str, str], bool] = {}
    for line_start in sorted(set(starts)):
        line_end = lower.find("\n", line_start)
        if line_end < 0:
            continue
        raw = text[line_start:line_end]
        if (line := views.get(raw, views)) is views:
            line = views[raw] = _announcing_view(raw)
        if line is None:
            continue
        found = _value_line(text, line_end + 1, read)
        if found is None:
            continue
        if (kept := judged.get((raw, found[2]))) is None:
            kept = judged[raw, found[2]] = _announced_value(raw, line, found[2])
        if kept:
            spans.append((found[0], found[1], REDACTED, LABEL, line_start))
    return spans


def _announcing_view(raw: str) -> str | None:
    """A line's view lower-cased where it announces a value on a later line, else None (`if not isinstance(password,
    str):` opens a Python block: the next line is code)."""
    line = _view(raw).lower()
    return line if _announces(line) and PYTHON_BLOCK_LINE.match(line) is None else None


def _strictly_judged(line: str) -> bool:
    """An announcing line whose value must read as generated or as a password: words alone, or a name and its colon
    alone (`password:`, 9 characters at most: a YAML key or a prompt, whose next line may be anything)."""
    stripped = line.strip(" \t\r")
    return not stripped.endswith(":") or len(stripped) <= 9


AFTER_MOST = 8   # announcing lines at most for _none_announced to look for the lines after them in C


def _none_announced(text: str, distinct: frozenset[str], views: dict, read: dict) -> bool:
    """Whether a text of few distinct lines (distinct_lines) surely has no value announced: no line announces, or each
    distinct line that follows an announcing one somewhere (a substring search for the two lines, in C) is read
    (_line_value) and gives no value, or one the announcing line does not take (_announced_value). False where such a
    line is blank (the value may be further on) or where a value may be taken: then the text is read line by line.
    `views`: the distinct lines the scans would find, each one's view where it announces, else None; `read`: what
    each line gave _line_value (announced_value_spans' dicts, filled here)."""
    announcing = {raw: line for raw, line in views.items() if line is not None}
    if not announcing:
        return True
    if len(announcing) > AFTER_MOST:
        return False
    framed = "\n" + text + "\n"   # (every line between two line breaks: the first and the last too)
    for raw, line in announcing.items():
        for after in distinct:
            if f"\n{raw}\n{after}\n" in framed:
                if (found := read.get(after, read)) is read:
                    found = read[after] = _line_value(after)
                if found is False or found is not None and _announced_value(raw, line, found[2]):
                    return False
    return True


def _announced_value(raw: str, line: str, value: str) -> bool:
    """Whether the value alone after an announcing line (raw, its view lower-cased: line) is its secret."""
    if ":" in value.rstrip(":") or not _credential_value(value) or value.endswith(":"):
        return False
    if _strictly_judged(line) and DECODING.search(line) is None and (
            not (_generated(value) or _reads_as_password(value)) or CODE_CHARACTERS.search(value.rstrip("=")) is not None
            or raw.rstrip(" \t\r").endswith((",", "(", "[", "{"))):
        return False   # (after words alone, a value that reads as generated or as a password, no code: `Admin
        #                password` then `Successfully` stays, and so does `Expect(` / `"style token",` / `key=r"..."`)
    return True


def announced_hold(buffer: str, start: int, cut: int) -> int:
    """Where a stream cuts so that a value comes with the line that announces it: before that line where the last
    line is one, or a blank line after one (ANNOUNCE_LINES), else the cut."""
    at = start
    for _ in range(ANNOUNCE_LINES + 1):
        line = buffer[at:cut].rstrip("\r\n")
        if not _blank(line := _view(line)):
            return at if _announces(lowered := line.lower()) or _awaits_typed(lowered) else cut
        if at == 0:
            return cut
        cut, at = at, buffer.rfind("\n", 0, at - 1) + 1
    return cut


# ---- a secret in a sentence ---------------------------------------------------------------------------------------
PROSE_GATES = ("token ", "key ", "password ", "secret ", "passphrase ", "passwd ")
# the noun, then one blank, maybe a verb (`is`, `set to`; `is:`), one blank, the value: as a sentence spaces its words
# (`password:    X`, `password    X` are a name's and a column's: the assignment and listing rules')
PROSE_NOUNS = (r"pass(?<![a-z0-9_.-]pass)(?:word|phrase|wd)", r"token(?<![a-z0-9_.-]token)", r"api(?<![a-z0-9_.-]api)[ _-]?key",
               r"secret(?<![a-z0-9_.-]secret)(?: key)?", r"access(?<![a-z0-9_.-]access) key")
PROSE_TAIL = (
                   r"(?: (?:is set to|is now|set to|changed to|reset to|is|was|to):?"
                   # (`Password for user 'admin': X`, elasticsearch-setup-passwords' `PASSWORD elastic = X`, `Password
                   # for admin was reset to X`)
                   r"| for (?:the )?(?:user )?['\"]?[a-z0-9_.@-]{1,64}['\"]?(?: user)?"
                   r"(?::| (?:is|was|has been) (?:re)?set to| (?:was|has been) changed to)| [a-z0-9_.@-]{1,64} =)?"
                   # (one blank, or two as a sentence spaced for the eye: `Using token  X  for auth`; a value in
                   # quotes or brackets: `api key [X] accepted`)
                   r" ? (?P<quote>[\"'`\[(]?)(?P<value>[^\s\"'`,;()\[\]{}<>@\\:=\x00-\x1f\x7f]{6,512})(?![^\s\"'`.,;)\]}])")
PROSE = [(noun[:noun.index("(")], re.compile(f"(?P<noun>{noun})" + PROSE_TAIL)) for noun in PROSE_NOUNS]
GENERATED_LIKE = re.compile(r"[A-Za-z0-9_+/=~.-]{12,512}")


def _reads_as_password(value: str) -> bool:
    """A password in a sentence: looks_like_password, and more than a word with a number (sha256, bf16, llama3x)."""
    if not looks_like_password(value):
        return False
    symbols = any(not c.isalnum() and c not in "-_." for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
    return symbols or mixed or (len(value) >= 12 and any(c.isdigit() for c in value))


def _generated(value: str) -> bool:
    """12+ letters and digits (and `_+/=~.-`), both kinds in it: a token or a key, not a word."""
    return (GENERATED_LIKE.fullmatch(value) is not None and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value) and not value.startswith(("-", ".")))


def _prose_value(noun: str, written: str) -> str | None:
    """The secret a sentence's value (as written, after its noun, lower-cased) is, or None where it is none."""
    value = written.rstrip(".!?")
    if not value or not _credential_value(value):
        return None
    if noun.startswith(("pass", "secret")):
        return written.rstrip(".") if _reads_as_password(written.rstrip(".")) else None
    return value if _generated(value) else None


def prose_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    if not _any_gate(lower, PROSE_GATES):
        return spans
    judged: dict[tuple[str, str], str | None] = {}   # (each distinct noun and value judged once: sentences repeat)
    for literal, pattern in PROSE:
        if literal not in lower:
            continue
        for m in pattern.finditer(lower):
            value_start, value_end = m.span("value")
            noun = m.group("noun")
            written = text[value_start:value_end]
            if (value := judged.get((noun, written), judged)) is judged:
                value = judged[noun, written] = _prose_value(noun, written)
            if value is None:
                continue
            if (lower.startswith("  ", m.start("quote") - 2) or m.group("quote") in ("[", "(")) and (
                    text.startswith(".", value_end) and text[value_end + 1:value_end + 2] not in ("", " ", "\t", "\r", "\n")):
                continue   # (spaced or bracketed: a value that a dot continues is a file's name, `token  "run-1/x.sqlite"`)
            spans.append((value_start, value_start + len(value), REDACTED, LABEL, m.start()))
    return spans


# ---- an answer typed for a prompt that asks a secret: expect's `send`, a REPL's echo -----------------------------------
# expect's `expect "Password:"` then `send "X\r"` (the next line, maybe behind the same log prefix; the answer ends with
# its `\r` or `\n`, as an expect script sends it)
EXPECT_SEND = re.compile(r"expect[ \t]{1,4}(?:-[a-z]{1,8}[ \t]{1,4})?[^\n]{0,120}?(?:pass|token|secret|key)[^\n]{0,120}\n"
                         r"[^\n]{0,64}?send[ \t]{1,4}(?:--[ \t]{1,4})?(?P<q>[\"'{])(?P<value>[^\"'{}\\\n$]{1,256})\\[rn][\"'}]")
# a REPL's echo of a secret it read (`>>> os.environ['OPENAI_API_KEY']`, `In [3]: os.getenv("HF_TOKEN")`, `>>> token`):
# the next line is its repr (`'X'`, `Out[3]: 'X'`)
REPL_ECHO = re.compile(r"(?:>>>|in \[[0-9]{1,5}\]:)[ \t]{1,4}(?P<expr>[^\n=]{1,200})\r?\n[^\n]{0,64}?(?:out\[[0-9]{1,5}\]:[ \t]{1,4})?"
                       r"(?P<q>['\"])(?P<value>[^\s'\"\\]{6,512})(?P=q)[ \t]{0,4}\r?$", re.M)
# the read a REPL echoes: a variable or an attribute (`token`, `cfg.api_key`), `os.environ['X']`, `os.environ.get('X')`,
# `os.getenv('X')` (a call's result, `token_hex(16)`, `_encode_auth(...)`, is no read of a secret's name)
REPL_READ = re.compile(r"[ \t]*(?:(?:os\.)?(?:environ[ \t]*\[[ \t]*|environ\.get\([ \t]*|getenv\([ \t]*)['\"](?P<key>[A-Za-z_][A-Za-z0-9_]{0,127})['\"]"
                       r"[^\n]{0,64}|(?:[A-Za-z_][A-Za-z0-9_]{0,63}\.){0,4}(?P<name>[A-Za-z_][A-Za-z0-9_]{0,63}))[ \t]*(?:#[^\n]*)?")
EXPR_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,63}")


def _reads_secret(expr: str) -> bool:
    """Whether a REPL's input reads a secret-named variable, attribute or environment variable (REPL_READ)."""
    m = REPL_READ.fullmatch(expr)
    return m is not None and is_secret_name(m.group("key") or m.group("name"))


EXPECT_LINE = re.compile(r"expect[ \t]{1,4}[^\n]{0,120}?(?:pass|token|secret|key)")
REPL_LINE = re.compile(r"(?:>>>|in \[[0-9]{1,5}\]:)[ \t]{1,4}(?P<expr>[^\n=]{1,200})$")


def _awaits_typed(line: str) -> bool:
    """A line whose next one may be an answer typed for it (EXPECT_SEND, REPL_ECHO): a stream holds it for that line."""
    return (("expect" in line and EXPECT_LINE.search(line) is not None)
            or ((">>>" in line or "in [" in line) and (m := REPL_LINE.search(line)) is not None
                and _reads_secret(m.group("expr"))))


# A secret store's bootstrap print, its label two words (`vault operator init`'s `Unseal Key 1: X`, the dev server's
# `Unseal Key: X`; `nomad acl bootstrap`'s `Secret ID    = X`, `consul acl bootstrap`'s `SecretID:   X`), each led by
# its label and asked only where the text holds its root word (key, secret)
BOOTSTRAP_LABELS = (("key", re.compile(r"unseal key(?: [0-9]{1,2})?[ \t]{0,16}[:=][ \t]{0,16}(?P<value>[A-Za-z0-9+/=_.-]{8,512})"
                                       r"[ \t]{0,16}(?:\r?$|(?=\\?\"))", re.M | re.I)),   # (or a JSON message's end: session 23)
                    ("secret", re.compile(r"secret ?id[ \t]{0,16}[:=][ \t]{0,16}(?P<value>[A-Za-z0-9_-]{8,512})[ \t]{0,16}"
                                          r"(?:\r?$|(?=\\?\"))", re.M | re.I)))


def bootstrap_label_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    for root, pattern in BOOTSTRAP_LABELS:
        if has(lower, root) and has(lower, "unseal" if root == "key" else "id"):
            for m in pattern.finditer(text):
                if not cannot_be_secret(value := m.group("value")) or "-" in value:
                    spans.append((m.start("value"), m.end("value"), REDACTED, LABEL, m.start()))
    return spans


def typed_answer_spans(text: str, lower: str) -> list[Span]:
    spans: list[Span] = []
    # (each gate a scan of a text without it: the backslash of `\r` first, a character a plain log seldom holds)
    if has(lower, "\\") and has(lower, "expect") and has(lower, "send"):
        for m in EXPECT_SEND.finditer(lower):
            value = text[m.start("value"):m.end("value")]
            if not cannot_be_secret(value) and not says_absent(value):
                spans.append((m.start("value"), m.end("value"), REDACTED, LABEL, m.start()))
    # (IPython's `In [3]: ...` echoes as `Out[3]: 'X'`: its `]: '` asked, a quote a plain log seldom holds)
    if has(lower, ">>> ") or has(lower, "]: '") or has(lower, ']: "'):
        for m in REPL_ECHO.finditer(lower):
            expr = text[m.start("expr"):m.end("expr")]
            value = text[m.start("value"):m.end("value")]
            if _reads_secret(expr.rstrip("\r")) and _credential_value(value):
                spans.append((m.start("value"), m.end("value"), REDACTED, LABEL, m.start()))
    return spans


def announced_spans(text: str, lower: str) -> list[Span]:
    """Every form above (see the module's docstring)."""
    return header_spans(text, lower) + dotted_key_spans(text, lower) + announced_value_spans(text, lower) + prose_spans(
        text, lower) + typed_answer_spans(text, lower) + bootstrap_label_spans(text, lower)
