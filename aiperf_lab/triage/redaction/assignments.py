"""`name=value` and `"name": "value"` pairs whose name says secret: the patterns, runs of them back to back (one
span a run), a value apart from its name (the next line, a log prefix), harmless values, escaped line ends."""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import operator
import re
from typing import Callable

from .names import (
    END_WORDS, NOT_SECRET_KEY_KINDS, QUALIFIER_BEFORE, QUANTITY_WORDS, SECRET_PAIRS, _NAME_CHARACTERS,
    _secret_name_cached, _weak_flag_secret, cannot_be_secret, is_named_location, is_secret_name, name_words,
)
from .spans import REDACTED, REDACTED_LOWER, Span


# `key=`, `?key=`, `"key": "..."`, `license_key: ...` with a key-shaped value (20+ characters of
# letters and digits both, checked in code); a bare `key` elsewhere is too common in ML logs to hide.
# (Inductor's autotune cache `key: mm-<64 hex>`: a hash led by its kind, no key)
KIND_PREFIXED_HASH = re.compile(r"[a-z]{1,12}-[0-9a-f]{32,128}")
KEY_ASSIGNMENT = re.compile(r"key(?<![a-z0-9]key)[\"']?[ \t]{0,3}[=:][ \t]{0,3}[\"']?(?P<value>[a-z0-9+/_-]{20,512}={0,2})"
                            r"(?![a-z0-9+/_-])")
# name=value, name: value, --name=value, "name": "value" where the name suggests a secret. ML logs
# are full of "tokens: 512", "max_tokens=64", "tokenizer: gpt2": those are not secrets and stay.
# One pattern per keyword, run on the lower-cased text (a literal start is found fast); the rest of
# the name is taken whole, never given back (the lookahead-and-backreference idiom), so a long name
# with no separator after it costs one pass.
# The value may sit on the next line (YAML "api_key:\n  VALUE").
# (a YAML block scalar's `|` / `>-` before the line break, an anchor `&k` or a tag `!!str` before the value; the
# name padded to a column, as pytest --showlocals and config dumps align them; Ruby/PHP/Perl `=>`, `->`; JSON inside
# JSON, `\"password\": \"X\"`; a fullwidth colon; after the separator a no-break space, or a carriage return, form feed,
# NEL or line separator that a terminal shows as a break but a stream does not cut at; the value aligned to a column
# after the separator, as kubectl describe, 1Password's `op item get` and vault print it: `DB_PASSWORD:         X`)
ALIGNED_BLANKS = 40
_ALIGNED = "{0,%d}" % ALIGNED_BLANKS
_ASSIGNMENT_TAIL = (r"(?=(?P<rest>[a-z0-9_.-]{0,48}))(?P=rest)(?P<sep>\\?[\"']?[ \t]{0,32}(?:=>|->|[=:\uff1a])"
                    r"(?=(?P<pad>[ \t\r\f\v\x85\xa0\u2028\u2029]" + _ALIGNED + r"))(?P=pad)"  # (taken whole: none given back)
                    r"(?:(?:[|>](?:[0-9][+-]|[+-]?[0-9]?)[ \t]{0,8})?\r?\n[ \t]{0,16}|#(?<=[ \t]#)[^\n]{0,256}\r?\n[ \t]{1,16})?"
                    r"(?:(?:&[a-z0-9_-]{1,32}|!![a-z]{1,16})[ \t]{1,4})?)"
                    # (a bytes value: b'X', rb'X', b'''X''', bytes('X', ...), bytearray( b'X' ), np.bytes_(b'X'), Go's
                    # []byte("X"), JavaScript's Buffer.from('X'))
                    r"(?P<quote>(?:(?:bytearray|memoryview|bytes|np\.bytes_|numpy\.bytes_|buffer\.from|\[\]byte)\([ \t]{0,4})?"
                    r"(?:[rb]{1,2}(?=[\"'])|\\)?(?:'''|\"\"\"|[\"'])?)"
                    r"(?P<value>[^\s'\",;\x00]{3,})")  # (nsys joins environment entries with NUL)
SECRET_ASSIGNMENTS = [re.compile(keyword + _ASSIGNMENT_TAIL) for keyword in (
    r"token(?!s|iz|is)", "secret", r"passw(?:or)?d", r"pwd(?:(?<=[_.-]pwd)|(?=[_.-]))", r"api[_-]?key", "apikey",
    r"access[_-]?key", r"private[_-]?key", "credential", "cookie", r"session[_-]?id", r"auth[_-]?key",
    # pass=X, passphrase: X, &pw=X, ODBC ;Pwd=X; Azure AccountKey= / SharedAccessKey=, a SAS URL's sig=,
    # Docker's "auth": "<base64>" (whole words: bypass, compass, passage, oauth stay)
    r"pass(?<![a-z0-9]pass)(?:phrase)?(?![a-z])", r"pw(?<![a-z0-9]pw)(?![a-z])", r"pwd(?:(?<=;pwd)|(?<=; pwd))",
    "accountkey", "sharedaccesskey", r"sig(?<=[?&]sig)(?==)", r"auth(?<![a-z0-9]auth)(?=[\"']?[ \t]{0,3}[=:])")]
TOKEN_ASSIGNMENT = SECRET_ASSIGNMENTS[0]
MAX_TOKEN_COUNT_DIGITS = 6   # token=128000 is an id or a count (a vocabulary has under a million); more digits may be a credential
# Assignments back to back (`pass pass=` repeated, `token=abc,token=abd`): after one, a run of more of the same
# keyword, each after 1 to 4 blanks, commas or semicolons, with no more to its name (nothing to judge there), its
# value right after its `=` or `:` and holding neither (so a substitution finds each value). One span for the run.
_ASSIGNMENT_RUN_VALUE = r"[=:][^\s'\",;\x00=:]{3,256}(?![^\s'\",;\x00])"
ASSIGNMENT_RUNS = {pattern: re.compile(rf"(?:[ \t,;]{{1,4}}(?:{pattern.pattern[:-len(_ASSIGNMENT_TAIL)]}){_ASSIGNMENT_RUN_VALUE})+")
                   for pattern in SECRET_ASSIGNMENTS if pattern.pattern.endswith(_ASSIGNMENT_TAIL)}
# ... and lines of them, each name on a line of its own and its value on the next (`api_key:\nVALUE\n` repeated)
ASSIGNMENT_LINE_RUNS = {pattern: re.compile(rf"(?:\n(?:{pattern.pattern[:-len(_ASSIGNMENT_TAIL)]})[=:]\n"
                                            r"[^\s'\",;\x00]{3,256}(?=\n))+")
                        for pattern in SECRET_ASSIGNMENTS if pattern.pattern.endswith(_ASSIGNMENT_TAIL)}
ASSIGNMENT_RUN_VALUES = re.compile(r"[=:]([^\s'\",;\x00=:]+)")
# ... and kept apart by a little text (`pass=abcd x ` repeated, `api_key: abcd` lines): after one, the next ones of
# the plain form that the match-at-a-time loop judges by the value alone, read in bulk (_assignment_apart): the
# keyword right after a character that is no name character and right before `=` or `:`, up to 3 blanks, then a
# value of 3 characters or more that starts with none of the characters that open another form (a quote, `\`, an
# anchor `&` or tag `!`, a block scalar `|` / `>`, `=>`, a flow sequence `[`, which the loop judges by what follows
# it) and ends with none the loop reads the line around (`:`, a YAML key; `)`, `]`, `}`, a call's or a list's). Between two: no character that begins the keyword (no other match of it starts there), and more than blanks,
# commas and semicolons (which _assignment_run takes as a run).
# The split of what the scan found takes the keyword without its look-behinds; each distinct separator (gap,
# keyword, `=`) is then read whole (where its keyword starts).
_APART_VALUE = r"[^\s'\",;\x00|>&!\\\[][^\s'\",;\x00]{2,}(?<![:)\]}])(?![^\s'\",;\x00])"
_LOOKBEHIND_GROUP = re.compile(r"\(\?<[=!][^()]*\)")


def _apart_scans(keyword: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    first = keyword[0]
    assert first.isalpha() and first.islower()   # (every keyword starts with its literal)
    loose = rf"[\s'\",;\x00][^{first}]{{0,63}}(?:{_LOOKBEHIND_GROUP.sub('', keyword)})[=:][ \t]{{0,{ALIGNED_BLANKS}}}"
    whole = (rf"(?=[ \t,;]{{0,64}}[^ \t,;{first}])[\s'\",;\x00][^{first}]{{0,63}}(?<![a-z0-9_.\-])"
             rf"(?P<keyword>(?:{keyword})[=:][ \t]{{0,{ALIGNED_BLANKS}}})")
    # (the scan takes whole separators: where one fails, the scan ends there, so a try reads no further than the
    # matches it adds and the next one; a scan of loose ones ran on to the end of a text of `client_secret=X` lines
    # at every try, then added none)
    return (re.compile(rf"(?:{whole.replace('(?P<keyword>', '(?:')}{_APART_VALUE})+"), re.compile(f"({loose})"),
            re.compile(whole))


ASSIGNMENTS_APART = {pattern: _apart_scans(pattern.pattern[:-len(_ASSIGNMENT_TAIL)])
                     for pattern in SECRET_ASSIGNMENTS if pattern.pattern.endswith(_ASSIGNMENT_TAIL)}
# A line ending with a name SECRET_ASSIGNMENTS takes a value after on the next line (`cookie:`, `github_token_ro:`,
# `password: |`): a stream holds it back until that line is read (lower-cased text, the line's last 120 characters).
NAME_ENDS_LINE = re.compile("(?:" + "|".join(pattern.pattern[:-len(_ASSIGNMENT_TAIL)] for pattern in SECRET_ASSIGNMENTS
                                             if pattern.pattern.endswith(_ASSIGNMENT_TAIL)) + ")"
                            + r"(?=(?P<rest>[a-z0-9_.-]{0,48}))(?P=rest)[\"']?[ \t]{0,32}[=:][ \t]" + _ALIGNED +
                              r"(?:[|>](?:[0-9][+-]|[+-]?[0-9]?)[ \t]{0,8})?(?:#[^\n]{0,256})?\r?\n\Z")
ASSIGNMENT_RUN_EQUALS = re.compile(r"=[^\s'\",;\x00=:]+")
ASSIGNMENT_RUN_COLON = re.compile(r":[^\s'\",;\x00=:]+")
ASSIGNMENT_RUN_GAPS = (" ", "\t", ",", ";")
# Authorization: <scheme> <credential>, whatever the scheme (Token, Negotiate, Digest, ...), and .netrc's
# "login NAME password VALUE".
AUTHORIZATION = re.compile(r"authorization[\"']?[ \t]{0,3}(?P<sep>[:=])[ \t]{0,3}(?:(?:bytearray\(|memoryview\()?b(?=[\"']))?[\"']?(?P<value>[a-z0-9._~+/=-]{1,64}"
                           r"(?:[ \t]{1,4}[^\s'\",;]{1,4096})?)")
NETRC_PASSWORD = re.compile(r"login[ \t]{1,4}[^\s]{1,256}[ \t]{1,4}password[ \t]{1,4}(?P<value>[^\s'\"]+)")
# A Cookie: header's every cookie (the name=value rule takes the first), to the line's end or a quote; HTTP Digest's
# nonce, cnonce and response (an offline-crackable hash of the password) after `Authorization: Digest`; a signed URL's
# signature (S3 X-Amz-Signature, GCS X-Goog-Signature, Signature=) (lower-cased text)
COOKIE_HEADER = re.compile(r"cookie[\"']?[ \t]{0,3}:[ \t]{0,3}(?=[^\n\"'=;]{1,256}=)(?P<value>[^\r\n\"']{1,8192})")
DIGEST_PARAM = re.compile(r"(?<![a-z0-9_-])(?:c?nonce|response)=\"?(?P<value>[^\s\",]{4,512})")
URL_SIGNATURE = re.compile(r"signature=(?<=[?&]signature=|-signature=)(?P<value>[0-9a-z%_.~+/=-]{16,4096})")
# A secret name ending a piece of a stream, its value on the next line.
# (also a YAML block scalar's `password: |`, and a secret flag ending a line of a list: k8s `- --password`)
# A printed `kubectl get secret NAME -o jsonpath='{.data.KEY}' | base64 -d` (or its base64 value alone, or
# go-template's): the next line is the secret's value, printed bare (lower-cased text, a line's last 120 characters)
KUBECTL_SECRET_PRINT = (r"kubectl[ \t][^\n]{0,100}?secrets?[ \t][^\n]{0,100}?(?:\|[ \t]{0,4}base64[ \t]{1,4}(?:-d|-D|--decode)"
                        r"|(?:jsonpath|go-template|template)=[^\n]{0,80}?\.data[^\n]{0,80}?)[ \t'\"]{0,4}\r?\n\Z")
KUBECTL_SECRET_LINE = re.compile(KUBECTL_SECRET_PRINT)
VALUE_ON_NEXT_LINE = re.compile(r"(?:token|secret|passw(?:or)?d|api[_-]?key|apikey|pass(?:phrase)?|credential|accountkey)"
                                r"[\"']?[ \t]{0,32}[=:][ \t]" + _ALIGNED + r"(?:[|>](?:[0-9][+-]|[+-]?[0-9]?)[ \t]{0,8})?(?:#[^\n]{0,256})?\r?\n\Z"
                                r"|--[a-z0-9_-]{0,48}(?:token|secret|passw(?:or)?d|api[_-]?key|pass(?:phrase)?)[\"']?,?[ \t]{0,8}"
                                r"\r?\n\Z|" + KUBECTL_SECRET_PRINT)


# A word that gives a name a value: a Hydra/OmegaConf override (`db.password=X`, `+trainer.api_key=X`, `++x.token=X`),
# helm's `--set auth.token=X`, `VAR=X` before a command (env, docker -e, a shell). The name is judged by is_secret_name.
NAME_ASSIGNED = re.compile(r"[+~]{0,2}(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,127})=")


def _unquoted(value: str) -> str:
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def _assigned_secret_at(word: str) -> int | None:
    """Where the value of a secret-named assignment (`db.password=X`) starts in word; None when the word is
    none, or its value is a setting, a number, a path, a reference (`${oc.env:PW}`, `$PW`) or a model's special token."""
    m = NAME_ASSIGNED.match(word)
    if m is None or not is_secret_name(m.group("name")):
        return None
    value = _unquoted(word[m.end():])
    words = name_words(m.group("name"))
    if (cannot_be_secret(value) or is_named_location(value) or value.startswith("$") or _code_reference(value)
            or value.lower() in AUTH_SCHEMES
            or NOT_A_SECRET_REFERENCE.fullmatch(value) or (value.isdigit() and "token" in words)):
        return None
    if (words[-1] in END_WORDS and (words[-2] if len(words) > 1 else "", "key" if words[-1] == "keys" else words[-1])
            not in SECRET_PAIRS and not _weak_flag_secret(value)):
        return None  # dataset.key=train, {"key": "label"}: a bare KEY or PIN names a secret only with a key-like value
    return m.end()


def _span_values(text: str, spans: list[Span]) -> set[str]:
    """What spans hide; for the one span of URLs back to back (URL_USERINFO_RUN), each URL's user or password, and
    for that of assignments back to back (ASSIGNMENT_RUNS, ASSIGNMENT_LINE_RUNS), each value."""
    values = set()
    for start, end, replacement, label, _ in spans:
        piece = text[start:end]
        if replacement != REDACTED and label == "url credential" and "@://" in piece:
            values.update(part.partition(":")[2] if ":" in part else part for part in piece.split("@://"))
        elif replacement != REDACTED and label == "secret-named value":  # a run of assignments
            values.update(piece.split("\n")[2::2] if piece.startswith("\n") else ASSIGNMENT_RUN_VALUES.findall(piece))
        else:
            values.add(piece)
    return values


NAME_RUN_REVERSED = re.compile(r"[A-Za-z0-9_.-]{0,64}")


def _name_before(text: str, start: int, end: int) -> str:
    """The whole name a keyword found at start belongs to: the name characters before it (64 at most)
    through end (`per_token_latency_ms` for the "token" in it, `outputTokenThroughput`)."""
    before = NAME_RUN_REVERSED.match(text[max(0, start - 64):start][::-1]).end()
    return text[start - before:end]


@functools.lru_cache(maxsize=4096)
def _quantity_name(name: str) -> bool:
    words = name_words(name)
    token_index = "token" in words and ("id" in words or "ids" in words)  # eos_token_id: 50256
    return (token_index or not (QUANTITY_WORDS.isdisjoint(words) and QUALIFIER_BEFORE.isdisjoint(words))) and (
        not is_secret_name(name))


def _names_a_quantity(text: str, start: int, end: int) -> bool:
    """Whether the name of a secret-sounding assignment is a quantity, a setting or a label instead
    (`"output_token_throughput": 1234.5`, `token_count: 512`, `num_pass: 100`, `max_token_len`); a log
    repeats its names, so the verdict is remembered per name."""
    return _quantity_name(_name_before(text, start, end))


def _names_harmless_key(text: str, start: int) -> bool:
    """`sort_key=`, `cache_key: ...`, `cache key: ...`: a key named for what it sorts or caches, not a secret key."""
    words = name_words(_name_before(text, start, start + 3))
    if len(words) == 1 and start > 1 and text[start - 1] == " ":  # two words: "cache key"
        words = name_words(_name_before(text, start - 1, start - 1)) + words
    return len(words) > 1 and words[-2] in NOT_SECRET_KEY_KINDS


class _HarmlessValues(dict):
    """value -> whether it cannot be a secret whatever its name says (secret=False, token: 0,
    gpu_pw=350.2, a path, one already redacted); worked out once per value (a log repeats them)."""

    def __missing__(self, value: str) -> bool:
        verdict = self[value] = (value.lower() == REDACTED_LOWER or (value[0] in "/~." and is_named_location(value))
                                 or (len(value) < 16 and cannot_be_secret(value.rstrip(")]}>")))
                                 or (value[0] in "<[$%" and NOT_A_SECRET_REFERENCE.fullmatch(value) is not None)
                                 or value.lower().rstrip(")]}>") in AUTH_SCHEMES or _code_reference(value)
                                 or (value[0] in "|>" and YAML_BLOCK_HEADER.fullmatch(value) is not None))
        return verdict


# A YAML block scalar's header with nothing under it yet (`password: >2-`): no value.
YAML_BLOCK_HEADER = re.compile(r"[|>](?:[0-9][+-]|[+-][0-9]?|[0-9])")


# Code that names where a secret comes from, printed in a traceback's source line or given as `python -c` (`token =
# get_token()`, `os.environ[` before a quote, `tok[0]`, `cfg.api_key`, `self.secret`): a call or a subscript of a
# name, or an attribute named as a secret is.
CODE_CALL = re.compile(r"[A-Za-z_][\w.]{0,127}[(\[](?:\)|[0-9]{1,4}\]|[A-Za-z_]\w{0,63}[\])]|(?P<q>[\"'])[\w.-]{1,128}(?P=q)[\])])?")
ATTRIBUTE_PATH = re.compile(r"[a-z_]\w{0,63}(?:\.[A-Za-z_]\w{0,63}){1,8}")


def _code_reference(value: str) -> bool:
    if CODE_CALL.fullmatch(value) is not None:
        return True
    return ATTRIBUTE_PATH.fullmatch(value) is not None and _secret_name_cached(value.rpartition(".")[2])


# A model's special tokens (`bos_token: <|begin_of_text|>`, `</s>`, `[PAD]`) and a variable's reference
# (`api_key: ${OPENAI_API_KEY}`, `$HF_TOKEN`, `%API_KEY%`, OmegaConf's `${oc.env:PW}`): named like secrets, they are none.
# (unbraced, only in capitals: a password may start with "$")
NOT_A_SECRET_REFERENCE = re.compile(r"<\|?/?[A-Za-z0-9_.-]{0,64}\|?>|\[[A-Z_]{2,16}\]|\$\{[A-Za-z_][A-Za-z0-9_.:-]{0,127}\}"
                                    r"|\$[A-Z_][A-Z0-9_]{0,127}|%[A-Z_][A-Z0-9_]{0,127}%")
# Authentication schemes: `auth: kerberos`, `--auth basic` name how, not with what.
AUTH_SCHEMES = frozenset({"basic", "bearer", "kerberos", "oauth", "oauth2", "digest", "ntlm", "negotiate", "saml",
                          "oidc", "ldap", "iam", "sigv4", "gssapi", "spnego", "sso", "mtls", "x509", "none",
                          "publickey", "hostbased", "keyboard-interactive", "gssapi-with-mic"})   # (and ssh's methods)


def _assignment_spans(text: str, lower: str) -> list[Span]:
    """Values of SECRET_ASSIGNMENTS. A text may hold a million (`pass pass=` repeated): a value is judged
    once (a verdict per distinct value), and a name is looked at only when it is longer than its keyword
    (`output_token_throughput`); assignments back to back are one span a run (_assignment_run). (Chains of map()
    over the matches measured slower than this loop.)"""
    spans: list[Span] = []
    harmless = _HarmlessValues()
    append = spans.append
    for pattern in SECRET_ASSIGNMENTS:
        rest_group, value_group = pattern.groupindex["rest"], pattern.groupindex["value"]
        runs = (ASSIGNMENT_RUNS[pattern].match, ASSIGNMENT_LINE_RUNS[pattern].match) if pattern in ASSIGNMENT_RUNS else None
        wait, backoff = 0, 1  # after a try for a run that found none, the next few matches try none (texts of matches apart)
        apart_wait, apart_backoff = 0, 1   # (the same for a try of _assignment_apart)
        matches = pattern.finditer(lower)
        counts = pattern is TOKEN_ASSIGNMENT
        while (m := next(matches, None)) is not None:
            value_start, value_end = m.span(value_group)
            if text[value_end - 1] == "\\" and text.startswith('"', value_end) and m.group("quote") == '\\"':
                value_end -= 1  # JSON inside JSON: the value's closing quote is escaped too
            # (_assignment_apart makes these verdicts in bulk for the plain form: a test added here that reads more
            # than the value must keep that form out of ASSIGNMENTS_APART, or be made there too)
            if "\\" in text[value_start:value_end] and (cut := _escaped_line_end(text, value_start, value_end)):
                value_end = cut  # repr()/JSON of lines: 'password: X\\nhost: db' ends X at the escaped break
            if "\n" in m.group("sep") and (behind := _value_is_log_prefix(text, m.start(), value_start)):
                # `app-1  | password:` / `app-1  |   X`: the next line's log prefix is no value; X, indented under the
                # name, is (a block scalar's lines: _prefixed_block_spans)
                nested = PREFIXED_NEXT_VALUE.match(text, behind[0])
                if (nested is None or len(nested.group("indent")) <= behind[1] or "|" in m.group("sep")
                        or ">" in m.group("sep") or nested.group("value").endswith(":") or nested.group("value") == "-"):
                    continue   # (`X:` a mapping under the name: names; `- X` items: _prefixed_block_spans)
                value_start, value_end = nested.span("value")
            if harmless[text[value_start:value_end]]:
                continue  # secret=False, token: 0, gpu_pw=350.2, a path, one already redacted
            if text[value_start] == "[" and not m.group("quote") and 0 <= (close := text.find("]", value_start, value_start + 4096)) and text.find(
                    "\n", value_start, close) < 0:
                continue  # `secrets: [X, Y]`: a flow sequence, its items redacted one by one (_yaml_block_spans)
            if text[value_end - 1] in ")]}" and _closes_bracket(text, m.start(), value_start, value_end):
                value_end -= 1  # connect(user=app, password=X): the ")" is the call's
            if counts and (digits := text[value_start:value_end].rstrip(")]}>")).isdigit() and len(
                    digits) <= MAX_TOKEN_COUNT_DIGITS:
                continue  # token=128000: a token id or count
            if text[value_end - 1] == ":" and text.startswith(" ", value_end) and "\n" in m.group("sep"):
                continue  # a YAML mapping under the name (secretKeyRef:\n  name: db), not its value
            start = m.start()
            rest_start, rest_end = m.span(rest_group)
            if (rest_end > rest_start or start and text[start - 1] in _NAME_CHARACTERS) and _names_a_quantity(
                    text, start, rest_end):
                continue  # output_token_throughput: 1234.5
            if text[value_end - 1] == ":" and text.startswith(" ", value_end):  # a YAML mapping's key on the line
                if FLOW_MAPPING_KEY.fullmatch(text, value_start, value_end) is not None:
                    continue  # imagePullSecrets: [{name: regcred}]: a list of names
                nested = NESTED_VALUE.match(text, value_end)  # secret: name: X: X is the value
                if nested is not None and not harmless[nested.group("value")]:
                    append((nested.start("value"), nested.end("value"), REDACTED, "secret-named value", m.start()))
                continue
            append((value_start, value_end, REDACTED, "secret-named value", start))
            if text.startswith("\n", value_end + (text[value_end:value_end + 1] == "\r")) and ":" in m.group("sep"):
                _continued_scalar(text, start, value_end, harmless, append)   # `password: first` then `  X`
            if runs is None:
                continue
            if wait:
                wait -= 1
            elif run_end := _assignment_run(text, lower, value_end, runs, harmless, append):
                matches = pattern.finditer(lower, run_end)
                backoff = 1
                continue
            else:
                wait, backoff = backoff, min(2 * backoff, 64)
            if apart_wait:
                apart_wait -= 1
            elif apart := _assignment_apart(text, lower, m.end(), pattern, harmless, counts, spans):
                resume, accepted = apart
                wait, backoff = _tries_skipped(wait, backoff, accepted)
                matches = pattern.finditer(lower, resume)
                apart_backoff = 1
            else:
                apart_wait, apart_backoff = apart_backoff, min(2 * apart_backoff, 64)
    return spans


# A YAML plain scalar continued on the lines under its name (`password: first` then `  X`): each next line indented
# deeper than the name's, one word (a secret holds no blank; a traceback's or a table's line does), neither a
# comment, an item nor a key, goes (8 lines at most).
NAME_OPENS_LINE = re.compile(r"[ \t]{0,64}(?:- )?[\"']?[A-Za-z0-9_.-]{0,128}")
CONTINUED_SCALAR_LINES = 8


def _continued_scalar(text: str, start: int, value_end: int, harmless: _HarmlessValues, append: Callable) -> None:
    line_start = text.rfind("\n", 0, start) + 1
    if NAME_OPENS_LINE.fullmatch(text, line_start, start) is None:
        return
    indent = len(text[line_start:start]) - len(text[line_start:start].lstrip(" \t"))
    at = text.find("\n", value_end) + 1
    for _ in range(CONTINUED_SCALAR_LINES):
        end = text.find("\n", at)
        line = text[at:end if end >= 0 else len(text)].rstrip("\r")
        content = line.lstrip(" \t")
        depth = len(line) - len(content)
        if (depth <= indent or not content or content[0] in "#-" or content.endswith(":") or ": " in content
                or any(c.isspace() for c in content) or harmless[content]):
            return
        append((at + depth, at + len(line), REDACTED, "secret-named value", start))
        if end < 0:
            return
        at = end + 1


# A line break or tab escaped in a repr() or JSON string (`\\n`, `\\r\\n`, `\\t`, `\\\\n` in JSON inside JSON) and the next
# line's name after it (`host:`, `Content-Length:`, `DB_HOST=`) or the string's end: the value ended at the break.
ESCAPED_LINE_END = re.compile(r"(?:\\{1,2}[nrt])+(?=[A-Za-z_][A-Za-z0-9_.-]{0,127}[ \t]{0,8}[:=]|\\{0,2}[\"']|\Z|\s)")


def _escaped_line_end(text: str, value_start: int, value_end: int) -> int:
    """Where a value read up to a space ends at an escaped line break inside it; 0 where none ends it."""
    m = ESCAPED_LINE_END.search(text, value_start + 1, value_end)
    return m.start() if m is not None else 0


FLOW_MAPPING_KEY = re.compile(r"[\[{]{1,2}[A-Za-z_][A-Za-z0-9_-]{0,63}:")
NESTED_VALUE = re.compile(r" {1,8}[\"']?(?P<value>[^\s'\",;\x00]{3,4096})")
BRACKET_PAIRS = {")": "(", "]": "[", "}": "{"}


def _closes_bracket(text: str, start: int, value_start: int, value_end: int) -> bool:
    """Whether the bracket ending a value closes one opened before its name on the line, not in the value."""
    close = text[value_end - 1]
    opening = BRACKET_PAIRS[close]
    if opening in text[value_start:value_end]:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    return before.count(opening) > before.count(close)


def _tries_skipped(wait: int, backoff: int, accepted: int) -> tuple[int, int]:
    """The run-try counters of _assignment_spans after `accepted` more matches whose tries find no run."""
    while accepted:
        if wait:
            step = min(wait, accepted)
            wait -= step
            accepted -= step
        else:
            accepted -= 1
            wait, backoff = backoff, min(2 * backoff, 64)
    return wait, backoff


def _assignment_apart(text: str, lower: str, at: int, pattern: re.Pattern[str], harmless: _HarmlessValues,
                      counts: bool, spans: list[Span]) -> tuple[int, int] | None:
    """After a match of pattern that ends at `at`, the assignments of the same keyword that follow it in the plain
    form (ASSIGNMENTS_APART) but the last one, their spans added in bulk where the loop would add them (a value
    judged once): where the loop goes on (the end of the last value added: the next keyword is judged by it), and
    how many were added; None where fewer than two follow."""
    scan, split, check = ASSIGNMENTS_APART[pattern]
    run = scan.match(lower, at)
    if run is None:
        return None
    parts = split.split(lower[at:run.end()])   # "", separator, value, separator, value, ...
    del parts[-2:]   # the last one: the loop judges it, and tries a run after it
    separators = parts[1::2]
    keyword_lengths = {}
    for separator in set(separators):
        whole = check.fullmatch(separator)
        keyword_lengths[separator] = len(whole.group("keyword")) if whole else 0
    if not all(keyword_lengths.values()):
        # up to the one before the first whose separator fails (the loop tries a run after that one's value)
        del parts[max(1, 2 * next(i for i, separator in enumerate(separators) if not keyword_lengths[separator]) - 1):]
        separators = parts[1::2]
    if len(parts) < 3:
        return None
    bounds = list(itertools.accumulate(map(len, parts), initial=at))
    firsts, ends = bounds[2::2], bounds[3::2]
    keywords = list(map(operator.sub, firsts, map(keyword_lengths.__getitem__, separators)))
    values = parts[2::2]
    if text[at:ends[-1]] != lower[at:ends[-1]]:   # (the verdicts read the values as written)
        values = list(map(text.__getitem__, map(slice, firsts, ends)))
    verdicts = {value: harmless[value] or (counts and (digits := value.rstrip(")]}>")).isdigit()
                                          and len(digits) <= MAX_TOKEN_COUNT_DIGITS) for value in set(values)}
    found = zip(firsts, ends, itertools.repeat(REDACTED), itertools.repeat("secret-named value"), keywords)
    if any(verdicts.values()):
        found = itertools.compress(found, map(operator.not_, map(verdicts.__getitem__, values)))
    found = list(found)
    spans += found
    return ends[-1], len(found)


@contextlib.contextmanager
def _collector_paused():
    """The cyclic garbage collector off while the rules make a tuple or more per match (none of which can be in a
    cycle; a text of real matches makes a million): its passes over them made a zip of 333,000 spans take 7 times
    as long. (Only switched back on where it was on: a nested or concurrent use leaves it as it found it.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _assignment_run(text: str, lower: str, at: int, runs: tuple[Callable, Callable], harmless: _HarmlessValues,
                    append: Callable) -> int:
    """After an assignment that ends at `at`, more of the same keyword back to back (ASSIGNMENT_RUNS, on one line, or
    ASSIGNMENT_LINE_RUNS) as one span whose replacement has each value [REDACTED]: where its end is, or 0 for none
    (or one holding a value that cannot be a secret, which the matches one by one judge)."""
    if lower.startswith(ASSIGNMENT_RUN_GAPS, at) and (run := runs[0](lower, at)) is not None:
        end = run.end()
        if not any(harmless[value] for value in set(ASSIGNMENT_RUN_VALUES.findall(text, at, end))):
            append((at, end, _assignment_run_replacement(text[at:end]), "secret-named value", at))
            return end
    elif lower.startswith("\n", at) and (run := runs[1](lower, at)) is not None:
        end = run.end()
        lines = text[at:end].split("\n")  # "", name, value, name, value, ...
        if not any(harmless[value] for value in set(lines[2::2])):
            lines[2::2] = [REDACTED] * (len(lines) // 2)
            append((at, end, "\n".join(lines), "secret-named value", at))
            return end
    return 0


def _assignment_run_replacement(run: str) -> str:
    """A run of assignments (ASSIGNMENT_RUNS) with each value [REDACTED], by substitutions of constant strings."""
    if "=" in run:
        run = ASSIGNMENT_RUN_EQUALS.sub("=" + REDACTED, run)
    if ":" in run:
        run = ASSIGNMENT_RUN_COLON.sub(":" + REDACTED, run)
    return run


PREFIX_DIGITS = str.maketrans("123456789", "000000000")


PREFIXED_NEXT_VALUE = re.compile(r"(?P<indent>[ \t]{1,64})[\"']?(?P<value>-(?= )|[^\s'\",;\x00]{3,4096})")


def _value_is_log_prefix(text: str, name_start: int, value_start: int) -> tuple[int, int] | None:
    """When a value read on the line after its name starts that line with the log prefix the name's line has
    before the name (its digits free): where that prefix ends on the value's line, and the blanks between the
    prefix and the name (its indent); None when it does not."""
    line_start = text.rfind("\n", 0, name_start) + 1
    before = text[line_start:name_start].rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-\"'")
    prefix = before.rstrip(" \t")
    if not prefix:
        return None
    value_line = text.rfind("\n", 0, value_start) + 1
    if not text.startswith(prefix, value_line) and text[value_line:value_line + len(prefix)].translate(
            PREFIX_DIGITS) != prefix.translate(PREFIX_DIGITS):
        return None
    return value_line + len(prefix), len(before) - len(prefix)
