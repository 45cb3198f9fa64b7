"""Secrets that code gives by name, as a traceback's source line, a notebook cell or a printed script shows them:
a call whose first argument is a secret's name and whose second is a quoted value (`os.environ.setdefault("HF_TOKEN",
"X")`, `monkeypatch.setenv`, Go's `os.Setenv`, Java's `System.setProperty("db.password", "X")`, PowerShell's
`SetEnvironmentVariable`), a subscript under a secret's name given a quoted value (`os.environ["HF_TOKEN"] = "X"`,
`headers["X-Api-Key"] = "X"`), Go's `:=` and R's `<-` (`password := "X"`), a login's `key=` (`wandb.login(key="X")`),
the password of an `auth=(user, password)` pair or a `BasicAuth(user, password)` call, a Dockerfile's legacy
`ENV NAME VALUE` and Windows' `setx NAME VALUE`; and the rows that list a secret's name and its value: a markdown
item (`- `HF_TOKEN`: X`, as `transformers env` prints), an HTML table row (`<td>HF_TOKEN</td><td>X</td>`), and a label
of two words (`API key: X`, `Secret key = X`) before a value no person would type as a word (names.looks_generated).

Only a quoted value counts in code (`os.environ["HF_TOKEN"] = token` names a variable), and a value that cannot be a
secret (`""`, `None`, `${HF_TOKEN}`, `<your token here>`) or says there is none (`(missing)`) stays, and so do a
template (`"Basic %s" % auth`) and a piece with a blank at its edge that code joins to more (`"Basic " + b64encode(x)`)."""

from __future__ import annotations

import functools
import re

from .assignments import NOT_A_SECRET_REFERENCE
from .judged_once import each_match_judged_once
from .names import _secret_name_cached, cannot_be_secret, looks_generated, looks_like_password, says_absent
from .spans import REDACTED, Span, has

# A quoted value: to its closing quote on the same line, a backslash escaping the next character.
_QUOTED = r"(?P<q>[\"'`])(?P<value>(?:(?!(?P=q))[^\\\n]|\\[^\n]){1,4096})(?P=q)"
_NAME = r"(?P<name>[A-Za-z_][\w.:/-]{0,127})"
# setter("NAME", "X"): a call that sets or stores a value under a name, or reads one with a default (`os.getenv("API_KEY",
# "X")`), its two arguments (a tuple of names, `("next_token", "position")`, is no call; the name never a flag)
# (each pattern starts with a literal character, which the regex engine skips to; the callee or name before it is
# read back from there, as _name_before reads one: a run matched on the reversed text before it, CALLEE_REVERSED,
# NAME_REVERSED)
SETTER_CALL = re.compile(r"\([ \t]{0,4}(?P<nq>[\"'])" + _NAME + r"(?P=nq)[ \t]{0,4},[ \t]{0,4}" + _QUOTED)
# x["NAME"] = "X" (`==` compares)
SUBSCRIPT_SET = re.compile(r"\[[ \t]{0,4}(?P<nq>[\"'])" + _NAME + r"(?P=nq)[ \t]{0,4}\][ \t]{0,4}:?=(?!=)[ \t]{0,4}" + _QUOTED)
# Perl's `$ENV{PGPASSWORD}='X'` / `$ENV{'HF_TOKEN'} = "X"` (a `perl -e` one-liner on a command line, a script's line)
PERL_ENV_SET = re.compile(r"\$ENV\{[ \t]{0,4}(?P<nq>[\"']?)" + _NAME.replace("[\\w.:/-]", "\\w") + r"(?P=nq)[ \t]{0,4}\}[ \t]{0,4}"
                          r"(?:\|\|)?=(?!=)[ \t]{0,4}" + _QUOTED)
# Go's short declaration and R's assignment arrow
ARROW_SET = re.compile(r"(?::=|<<?-)[ \t]{0,4}" + _QUOTED)

# wandb.login(key="X"), comet's login(api_key=...) has its own name: `key` alone is a secret only in a login call
LOGIN_KEY = re.compile(r"login\((?:[^()\n]{0,240}?[,( \t])?key[ \t]{0,4}=[ \t]{0,4}" + _QUOTED)
# requests' auth=('user', 'X'), HTTPBasicAuth('user', 'X'), aiohttp's BasicAuth('user', 'X')
_USER_THEN_VALUE = r"[ \t]{0,4}(?P<uq>[\"'])[^\"'\n]{0,256}(?P=uq)[ \t]{0,4},[ \t]{0,4}" + _QUOTED
# (the name padded to a column, as pytest -l prints its locals: `auth       = ('admin', 'X')`)
AUTH_PAIR = re.compile(r"auth[ \t]{0,40}=[ \t]{0,4}[(\[]" + _USER_THEN_VALUE)   # (not `oauth=(`: the character before is read)
BASIC_AUTH_CALL = re.compile(r"BasicAuth\(" + _USER_THEN_VALUE)
# (session 23) Elasticsearch's `api_key=('id', 'X')`: an id and its key, the second the secret
API_KEY_PAIR = re.compile(r"api_key[ \t]{0,40}=[ \t]{0,4}[(\[]" + _USER_THEN_VALUE)
# (session 23) the pair unquoted, as a repr or a log prints it (`auth=(bob, X)`): X where it reads as a password
# (names.looks_like_password: `auth=(user, password)`, `(self.user, pw)` name variables and stay)
AUTH_PAIR_BARE = re.compile(r"auth[ \t]{0,40}[=:][ \t]{0,4}\([ \t]{0,4}[\w.@-]{1,256}[ \t]{0,4},[ \t]{0,4}"
                            r"(?P<value>[^\s'\"`(),\[\]]{1,256})[ \t]{0,4}\)")
# a login call given a user and a quoted password (ftplib's, smtplib's, imaplib's `login(user, "X")`, `ftp.login("bob",
# "X")`): the second argument, a literal (a name passes a variable)
LOGIN_CALL = re.compile(r"login\([ \t]{0,4}(?:[\w.]{1,128}|(?P<uq>[\"'])[^\"'\n]{0,256}(?P=uq))[ \t]{0,4},[ \t]{0,4}" + _QUOTED
                        + r"[ \t]{0,4}[,)]")
# huggingface_hub's `login("X")`: a login's one literal argument, where it reads as generated (a token)
LOGIN_TOKEN = re.compile(r"login\([ \t]{0,4}" + _QUOTED + r"[ \t]{0,4}[,)]")
# the client's own word before `_auth` (Elasticsearch's `http_auth=('elastic', 'X')`, `basic_auth=(...)`, aiohttp's
# `proxy_auth=`): read back from the pair's start
AUTH_PAIR_OWNERS = frozenset({"http", "basic", "proxy", "client", "api", "user"})
# JDBC's `DriverManager.getConnection(url, "user", "X")` (the URL a name or a literal without a quote or comma in it)
GET_CONNECTION = re.compile(r"getConnection\([ \t]{0,4}(?:\"[^\"\n,]{1,1024}\"|[\w.]{1,128})[ \t]{0,4}," + _USER_THEN_VALUE
                            + r"[ \t]{0,4}\)")
# Go's MySQL driver DSN, `user:X@tcp(host:3306)/db` (also `unix(`, `udp(`): its user and password before the protocol
GO_DSN = re.compile(r"@(?:tcp6?|udp|unix)\(")
GO_DSN_USERINFO_REVERSED = re.compile(r"(?P<value>[^\s:@\"'`/\\]{1,256}):[\w.%+-]{1,64}(?![^\s\"'`(=,])")
# Dockerfile's `ENV NAME VALUE` (the legacy form without `=`: the value is the rest of the line) and `setx NAME VALUE`
DOCKER_ENV = re.compile(r"(?<![\w-])ENV[ \t]{1,4}(?P<name>[A-Za-z_]\w{0,127})[ \t]{1,8}(?P<value>[^\s=][^\n]{0,4095})")
SETX = re.compile(r"(?<![\w-])setx(?:\.exe)?[ \t]{1,4}(?:/[ms][ \t]{1,4}(?:[^\s/]{1,256}[ \t]{1,4})?)?(?P<name>[A-Za-z_]\w{0,127})[ \t]{1,4}"
                  r"(?P<value>\"[^\"\n]{1,4096}\"|[^\s\"]{1,4096})", re.IGNORECASE)

# `- `HF_TOKEN`: X` (a markdown item of a name in backticks) and `<td>HF_TOKEN</td><td>X</td>`
MARKDOWN_NAMED = re.compile(r"`(?P<name>[A-Za-z_][\w.-]{0,127})`[ \t]{0,4}[:=][ \t]{0,4}`?(?P<value>[^\s`|]{1,4096})")
HTML_ROW = re.compile(r"<t[dh][^<>\n]{0,64}>[ \t]{0,4}(?P<name>[A-Za-z_][\w.-]{0,127})[ \t]{0,4}</t[dh]>[ \t]{0,8}"
                      r"<td[^<>\n]{0,64}>[ \t]{0,4}(?P<value>[^<\n]{1,4096}?)[ \t]{0,4}</td>")
# a label of two words naming a secret (lower-cased text)
SPACED_LABEL = re.compile(r"(?:api|secret|secret access|app|client|private)[ \t]key[ \t]{0,4}[:=][ \t]{0,4}[\"']?"
                          r"(?P<value>[^\s'\",;]{1,4096})")
# `Using credentials: bob / X` (a user, then its password after a spaced slash; lower-cased text)
CREDENTIALS_PAIR = re.compile(r"credentials?[ \t]{0,4}[:=][ \t]{0,4}[^\s/:]{1,64}[ \t]{1,4}/[ \t]{1,4}[\"']?"
                              r"(?P<value>[^\s'\",;]{3,256})")
# a sentence that gives a credential (`your API token is X`, `The access key is: X`), X shaped as a password
# (names.looks_like_password: no plain word, number or path; a full stop after it is the sentence's)
# (led by its literal ` is`, the words before it read back: one scan of the text, not one a word)
CREDENTIAL_SENTENCE = re.compile(r" is(?:(?<=token is)|(?<=key is)):?[ \t]{1,4}[\"'`]?(?P<value>[^\s'\"`,;]{6,256}?)\.?"
                                 r"(?![^\s'\"`,;])")
CREDENTIAL_KIND_BEFORE = re.compile(r"(?:^|(?<=[^\w-]))(?:api|access|auth|bot|personal access|refresh|secret|session|deploy)"
                                    r"[ \t](?:token|key)\Z")
# `The password is X`, `password for user bob is X` (lower-cased text; read only where it holds `password`): the words
# before ` is` read back from there, X shaped as a password
PASSWORD_SENTENCE = re.compile(r" is:?[ \t]{1,4}[\"'`]?(?P<value>[^\s'\"`,;]{6,256}?)\.?(?![^\s'\"`,;])")
PASSWORD_BEFORE = re.compile(r"(?:^|(?<=[^\w-]))password(?:[ \t]for[ \t](?:the[ \t])?(?:user|account)?[ \t]?[\w.@-]{1,64})?\Z")
# NCCL's and UCX's echo of a variable read from the environment: `NCCL INFO DB_PASSWORD set by environment to X` (led
# by its literal; the name read back from there, CALLEE_REVERSED)
ENVIRONMENT_ECHO = re.compile(r" set by environment to (?P<value>[^\s]{1,4096})")
# (its scan costs 8 to 28 ms per MB: read only where a text holds ` key`; `access token: X`, `client secret: X` are the
# assignment rules', whose names end in a secret word)
LABEL_GATE = " key"


def code_secret_spans(text: str, lower: str) -> list[Span]:
    """The quoted value given to a secret's name by code, and the value of `ENV NAME VALUE` / `setx NAME VALUE`
    under a secret's name; each rule read only where its marks are in the text."""
    spans: list[Span] = []
    if '"' in text or "'" in text or "`" in text:   # (code's values are quoted: a character first, memchr)
        if "(" in text and (has(text, "(\"") or has(text, "('") or has(text, "( ")):
            spans += _setter_spans(text)
        if "[" in text and (has(text, "[\"") or has(text, "['")):
            spans += _named(SUBSCRIPT_SET, text)
        if "=" in text and (has(text, ":= ") or has(text, ":=\"") or has(text, ":='")) or has(text, "<-"):
            spans += _arrow_spans(text)
        if has(text, "login("):
            spans += _values(LOGIN_KEY, text)
            spans += [span for span in _values(LOGIN_CALL, text) if _starts_a_word(text, span[4], "-")]
            spans += [span for span in _values(LOGIN_TOKEN, text) if _starts_a_word(text, span[4], "-")
                      and _generated(text[span[0]:span[1]])]
        if "(" in text and has(lower, "auth"):
            spans += [span for span in _values(AUTH_PAIR, text)
                      if _starts_a_word(text, span[4], "_.") or (text[span[4] - 1] == "_" and _word_before(
                          text, span[4] - 1, CALLEE_REVERSED).lower() in AUTH_PAIR_OWNERS)]
            if has(text, "BasicAuth("):
                spans += _values(BASIC_AUTH_CALL, text)
        if "(" in text and has(text, "api_key"):
            spans += [span for span in _values(API_KEY_PAIR, text) if _starts_a_word(text, span[4], ".")]
        if "`" in text:
            spans += _named(MARKDOWN_NAMED, text)
        if has(text, "$ENV{"):
            spans += _named(PERL_ENV_SET, text)
        if has(text, "getConnection("):
            spans += _values(GET_CONNECTION, text)
        if "@" in text and (has(text, "@tcp") or has(text, "@unix(") or has(text, "@udp(")):
            spans += _go_dsn_spans(text)
    if "(" in text and has(lower, "auth") and has(text, ", "):
        spans += [span for span in _values(AUTH_PAIR_BARE, lower) if _password_shaped(text[span[0]:span[1]])
                  and (_starts_a_word(text, span[4], "_.") or (text[span[4] - 1] == "_" and _word_before(
                      text, span[4] - 1, CALLEE_REVERSED).lower() in AUTH_PAIR_OWNERS))]
    if has(text, "ENV "):
        spans += _named(DOCKER_ENV, text, bare=True)
    if has(lower, "setx"):
        spans += _named(SETX, text, bare=True)
    if "<" in text and has(lower, "<td"):
        spans += _named(HTML_ROW, text)
    if has(lower, "credential") and " / " in text:
        spans += _values(CREDENTIALS_PAIR, lower)
    spans += [span for span in _values(CREDENTIAL_SENTENCE, lower) if _password_shaped(text[span[0]:span[1]])
              and CREDENTIAL_KIND_BEFORE.search(lower, max(0, span[4] - 24), span[4]) is not None]
    if has(lower, "password") and has(lower, " is"):
        spans += [span for span in _values(PASSWORD_SENTENCE, lower) if _password_shaped(text[span[0]:span[1]])
                  and PASSWORD_BEFORE.search(lower, max(0, span[4] - 96), span[4]) is not None]
    if has(text, " set by environment to "):
        spans += [span for span in _values(ENVIRONMENT_ECHO, text) if _secret_name_cached(
            _word_before(text, span[4], CALLEE_REVERSED))]
    if has(lower, LABEL_GATE):
        spans += _spaced_label_spans(text, lower)
    return spans


def _spaced_label_spans(text: str, lower: str) -> list[Span]:
    """SPACED_LABEL's values (lower: text lower-cased) that are generated or passwords of symbols."""
    spans: list[Span] = []
    for m in SPACED_LABEL.finditer(lower):
        if m.end("value") - m.start("value") > 256 or not _starts_a_word(lower, m.start(), "_-"):
            continue
        kind = _label_value_kind(text[m.start("value"):m.end("value")])
        if kind == 1:
            spans += _value_span(m, False)
        elif kind == 2:
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


@functools.lru_cache(maxsize=4096)
def _label_value_kind(value: str) -> int:
    """SPACED_LABEL's reading of a value alone, once a distinct value (a log repeats its labels): 1 generated (its span
    is _value_span's), 2 (session 23) one with symbols that reads as a password, a `%3r` in it no template (Django's
    key), 0 neither."""
    if _generated(value):
        return 1
    return 2 if _symbols_password(value) and not (cannot_be_secret(value) or says_absent(value)) else 0


def _symbols_password(value: str) -> bool:
    """(session 23) A value of 12+ characters with letters, digits and 2+ symbols that reads as a password (Django's
    `SECRET KEY: h2@#!&$k9...`, which looks_generated's letters-and-digits reading turns down)."""
    return (len(value) >= 12 and sum(not c.isalnum() for c in value) >= 2 and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value) and _password_shaped(value))


_generated = functools.lru_cache(maxsize=4096)(looks_generated)   # (of 256 characters at most: longer ones are not)
_password_shaped = functools.lru_cache(maxsize=4096)(looks_like_password)
TEMPLATE_FIELD = re.compile(r"%[-#0 +]?[0-9]{0,3}[sdr]|%\(|\{[\w.]{0,64}\}")
SETTER_WORDS = frozenset({"set", "setenv", "setdefault", "putenv", "setproperty", "setenvironmentvariable", "getenv",
                          "get", "put", "setitem", "set_secret", "setsecret", "put_secret", "store", "add_secret",
                          "define", "log_param"})   # (PHP's define('DB_PASSWORD', 'X'); mlflow's log_param)


def _is_setter(callee: str) -> bool:
    folded = callee.lower()
    return folded in SETTER_WORDS or folded.startswith(("set_", "put_")) or folded.endswith("setenv")


# (each verdict below reads the match and, at most, the WORD_BACK characters before it: a log's copies of a line are
# judged once, judged_once.each_match_judged_once)
def _named(pattern: re.Pattern[str], text: str, bare: bool = False) -> list[Span]:
    return each_match_judged_once(text, pattern.finditer(text), _bare_named_verdict if bare else _named_verdict, 0)


def _named_verdict(m: re.Match[str], bare: bool = False) -> tuple[int, int, int] | None:
    """The place of a match's value from its start (and the span's context, its start) where its name is a secret's
    and the value may be one; None where not."""
    if _secret_name_cached(m.group("name")) and (span := _value_span(m, bare)):
        return span[0][0] - m.start(), span[0][1] - m.start(), 0
    return None


def _bare_named_verdict(m: re.Match[str]) -> tuple[int, int, int] | None:
    return _named_verdict(m, True)


def _setter_spans(text: str) -> list[Span]:
    return each_match_judged_once(text, SETTER_CALL.finditer(text), _setter_verdict, WORD_BACK)


def _setter_verdict(m: re.Match[str]) -> tuple[int, int, int] | None:
    callee = _word_before(m.string, m.start(), CALLEE_REVERSED)   # (WORD_BACK characters back at most)
    if callee and _is_setter(callee) and _secret_name_cached(m.group("name")) and (span := _value_span(m, False)):
        return span[0][0] - m.start(), span[0][1] - m.start(), 0
    return None


# the word that ends before a match, after up to 4 blanks, 128 characters at most: a callee, or a name (dots in it)
CALLEE_REVERSED = re.compile(r"[ \t]{0,4}(?P<word>\w{0,128})")
NAME_REVERSED = re.compile(r"[ \t]{0,4}(?P<word>[\w.]{0,128})")


WORD_BACK = 132   # (what _word_before reads: its slice)


def _word_before(text: str, at: int, reversed_run: re.Pattern[str]) -> str:
    return reversed_run.match(text[max(0, at - WORD_BACK):at][::-1]).group("word")[::-1]


def _starts_a_word(text: str, at: int, also: str) -> bool:
    """Whether nothing of a word (a letter, a digit or a character of `also`) stands right before `at`."""
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] in also)


def _go_dsn_spans(text: str) -> list[Span]:
    """The password of each Go MySQL DSN (GO_DSN): the `user:X` before `@tcp(`, read back from it."""
    spans: list[Span] = []
    for m in GO_DSN.finditer(text):
        back = GO_DSN_USERINFO_REVERSED.match(text[max(0, m.start() - 324):m.start()][::-1])
        if back is None:
            continue
        start, end = m.start() - back.end("value"), m.start()
        value = text[start:end]
        if not _value_stays(value):
            spans.append((start, end, REDACTED, "secret-named value", m.start() - back.end()))
    return spans


def _arrow_spans(text: str) -> list[Span]:
    return each_match_judged_once(text, ARROW_SET.finditer(text), _arrow_verdict, WORD_BACK)


def _arrow_verdict(m: re.Match[str]) -> tuple[int, int, int] | None:
    name = _word_before(m.string, m.start(), NAME_REVERSED)   # (WORD_BACK characters back at most)
    if name and not name[0].isdigit() and _secret_name_cached(name) and (span := _value_span(m, False)):
        return span[0][0] - m.start(), span[0][1] - m.start(), 0
    return None


def _values(pattern: re.Pattern[str], text: str) -> list[Span]:
    spans: list[Span] = []
    for m in pattern.finditer(text):
        spans += _value_span(m, False)
    return spans


def _value_span(m: re.Match[str], bare: bool) -> list[Span]:
    start, end = m.span("value")
    if bare:   # (a bare value: its trailing blanks and the quotes around it are not the secret)
        value = m.group("value").rstrip(" \t\r")
        end = start + len(value)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            start, end = start + 1, end - 1
    value = m.string[start:end]
    if _value_stays(value) if len(value) <= 256 else _stays(value):
        return []
    return [(start, end, REDACTED, "secret-named value", m.start())]


def _stays(value: str) -> bool:
    """A value that is no secret: nothing, a setting, a word saying there is none, a reference, a placeholder
    (`<your token here>`), a template code fills (`"Basic %s" % auth`, `f"Bearer {token}"`), or a piece with a blank
    at its edge that code joins to more (`"Bearer " + token`)."""
    return (not value or value != value.strip() or cannot_be_secret(value) or says_absent(value)
            or NOT_A_SECRET_REFERENCE.fullmatch(value) is not None or (value[0] == "<" and value[-1] == ">")
            or TEMPLATE_FIELD.search(value) is not None)


_value_stays = functools.lru_cache(maxsize=4096)(_stays)   # (a log prints the same lines again and again)
