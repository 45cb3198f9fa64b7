"""Credentials in URLs: userinfo (`scheme://user:PASSWORD@host`, one span a run of URLs back to back), the
user of a login scheme, odd and quoted passwords, schemeless `user:PASSWORD@host`, escaped URLs."""

from __future__ import annotations

import bisect
import itertools
import operator
import re

from .names import NO_VOWEL_OR_FOUR_CONSONANTS, looks_generated
from .references import URL_REFERENCE
from .spans import REDACTED, Span, _minus, _split_matches, has, has_any


# The password part of scheme://user:password@host (the user part too when it is token-long and
# stands alone, as in https://TOKEN@github.com): the last "@" of the run after "://" that holds no
# "/", space or quote ends it (passwords may hold "@"). A password that holds "/", "#" or a space
# (https://user:ab/cd@host) ends at the first "@" instead; a port and path ("host:8080/a@b") is told
# apart in code. Each "://" looks no further than the next one, so no character is read twice.
URL_USERINFO = re.compile(r"://(?P<userinfo>[^\s/?#\"'<>\\]{1,4096})@")
URL_USERINFO_WHOLE = re.compile("(" + URL_USERINFO.pattern.replace("(?P<userinfo>", "(?:") + ")")   # (_split_matches)
URL_REDACTED_USER = "://[REDACTED]@"
# URLs back to back, each followed by the next one's "://" (so each one's user info is what URL_USERINFO finds there):
# those with a user alone (not one already redacted) or a password, neither holding "@"; the scheme of each is
# nothing (an "@" is before its "://"), so no login scheme. Replaced by one substitution: a password's user stays.
URL_USERINFO_RUN = re.compile(r"(?:://(?:(?!\[REDACTED\]@)[^\s/?#\"'<>\\:@]{1,4096}|[^\s/?#\"'<>\\:@]{0,4096}:"
                              r"[^\s/?#\"'<>\\@]{1,4096})@(?=://))+")
# In such a run, a password (after the first ":" not of a "://") and a user alone; replaced with constant strings (a
# template with a group costs 1.3 us a URL in CPython, a constant 0.2 us)
URL_RUN_PASSWORD = re.compile(r":[^/@][^@]*@")
URL_RUN_USER = re.compile(r"://[^:@]+@")
# Schemes whose user part is a login name (ssh://git@host, sftp://alice@files): kept; in any other scheme a
# user with no password is a token (https://TOKEN@github.com), however short.
LOGIN_SCHEMES = ("ssh", "sftp", "scp", "rsync", "git", "git+ssh", "ssh+git", "svn+ssh", "ftp", "ftps")
LOGIN_SCHEME_ENDS = frozenset("hpctsHPCTS")  # the last letters of those: any other needs no look
# A "://" after one of them in any letter case (one look-behind each, led by the literal): where none is, no user is a
# login's
LOGIN_URL_HINT = re.compile("://(?:" + "|".join(f"(?<=(?i:{re.escape(scheme)})://)" for scheme in LOGIN_SCHEMES) + ")")
# matched on the reversed text before "://", anchored: one try, not one per position
REVERSED_LOGIN_SCHEME = re.compile("(?i)(?:" + "|".join(re.escape(s[::-1]) for s in sorted(LOGIN_SCHEMES, key=len,
                                                                                          reverse=True))
                                   + r")(?![A-Za-z0-9+.-])")
URL_ODD_PASSWORD = re.compile(r"://(?P<user>[^\s/?#:@\"'<>\\]{0,256}):(?P<password>(?:[^\n\"'<>\\@:]|:(?!//)){1,256})"
                              r"@(?=[\w\[])")
# A password holding a raw "@" and then a "#" (https://bob:p@ss#word@host/x), which the patterns above end at its first
# "@" (a "#" ends the user info there): up to the last "@" before a host, the run after its first "@" holding a "#"
# (a host holds none) and no "/", "?" or blank. Read only where the text holds a "#". (Each run but the last stops at the
# first character it may not hold: a try backtracks over one run of 256 characters at most.)
URL_RAW_AT_PASSWORD = re.compile(r"://[^\s/?#:@\"'<>\\]{0,256}:(?P<password>[^\s/?#@\"'<>\\]{0,256}@[^\s/?@#\"'<>\\]{0,256}#"
                                 r"[^\s/?\"'<>\\]{0,256})@(?=[\w\[])")
# A password holding a quote or a backslash (postgres://app:Pw'x@db, as a shell or a repr prints it), which
# the two patterns above stop at. The run before the first quote or backslash cannot hold one, so a failed
# try gives back nothing it could match with: at most two bounded runs per "://".
URL_QUOTED_PASSWORD = re.compile(r"://[^\s/?#:@\"'<>\\]{0,256}:(?P<password>[^\s@/'\\]{0,256}['\\][^\s@/]{0,256})"
                                 r"@(?=[\w\[])")
# user:PASSWORD@host:port and //user:PASSWORD@host/path printed without a scheme (a proxy as curl and pip
# take it, a protocol-relative DSN): the user starts a word (each pattern is led by the character before it:
# a class the regex engine skips to in C), the host is followed by a port, a path or scp's and rsync's `:dir/`
# or `:~/` (`rsync bob:X@host:/p`, `git clone bob:X@host:org/repo`), or the whole is led by
# "//", so that e-mail addresses (mailto:bob@example.com) and image digests (name:tag@sha256:...) stay; a
# password no secret can be (3:4@host:80, on@host/x) stays, as cannot_be_secret has it.
_SCHEMELESS_PASSWORD = (r"(?P<user>[A-Za-z0-9._~%+-]{1,64}):(?!(?:-?[0-9]{1,4}|-?[0-9]*\.[0-9]+|(?i:true|false|yes|no|"
                        r"none|null|nil|on|off|enabled|disabled|auto|default|unset|undefined))@)"
                        r"(?P<password>[^\s:@/\"'<>\\]{1,256})@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,16}")
SCHEMELESS_PASSWORDS = (re.compile(r"[\s\"'=(,;\[{<|]" + _SCHEMELESS_PASSWORD
                                   + r"(?::[0-9]{1,5}(?![\w.:])|/|:[A-Za-z0-9._~-]{0,128}[/~])"),
                        re.compile(r"[\s\"'=(,;\[{<|]//" + _SCHEMELESS_PASSWORD))
# What each of those holds: a ":", the password, an "@" (led by its literal: where none is, neither pattern can match,
# and their scans, which try every blank and quote, are spared)
SCHEMELESS_HINT = re.compile(r":[^\s:@/\"'<>\\]{1,256}@")
# The password of a URL-encoded URL (%3A%2F%2Fuser%3APASSWORD%40, any hex case) and of a JSON-escaped one
# (:\/\/user:PASSWORD@), each with the test that spares its scan when its "://" is not in the text.
ESCAPED_URL_PASSWORDS = [
    (lambda text: has_any(text, ("%2F%2F", "%2f%2f")),
     re.compile(r"(?i)%3a%2f%2f(?:[^\s&%:/?#@]|%(?!3a|40|2f)[0-9a-f]{2}){0,256}%3a"
                r"(?P<password>(?:[^\s&%]|%(?!40)[0-9a-f]{2}){1,256})%40")),
    (lambda text: has(text, ":\\/\\/"),
     re.compile(r":\\/\\/[^\s/\\\"'<>@:]{0,256}:(?P<password>[^\s\"'<>@\\]{1,256})@")),
]


def _url_run_replacement(run: str) -> str:
    """What a run of URLs back to back (URL_USERINFO_RUN) becomes, less its first "://" and its last "@": each
    URL's password, or its user where it has none, [REDACTED]."""
    urls = run.count("://")
    if run.count(":") == urls:  # users alone (`://x@` repeated)
        return "@://".join([REDACTED] * urls)
    return URL_RUN_USER.sub("://" + REDACTED + "@", URL_RUN_PASSWORD.sub(":" + REDACTED + "@", run))[3:-1]


def _escaped_url_spans(text: str) -> list[Span]:
    """URL passwords in a URL that is itself URL-encoded (`redirect=postgres%3A%2F%2Fapp%3APW%40db`) or
    JSON-escaped (`"https:\\/\\/app:PW@db\\/x"`); each form is looked for only when its "://" is there."""
    spans: list[Span] = []
    for literal, pattern in ESCAPED_URL_PASSWORDS:
        if literal(text):
            spans.extend((m.start("password"), m.end("password"), REDACTED, "url password", m.start())
                         for m in pattern.finditer(text))
    return spans

# A URL template's fields (`f"postgresql://{user}:{password}@{host}/{db}"`): code, not a credential; and Hadoop KMS's
# `kms://http@kms:9600/kms`, whose "user" is the transport.
URL_TEMPLATE_FIELD = re.compile(r"\{[A-Za-z_][\w.]{0,63}(?:![rsa])?(?::[^{}\s@/]{0,16})?\}")
LOGIN_NAME = re.compile(r"[a-z][a-z._-]{0,31}[0-9]{0,4}")   # (a login's name; a token as the user goes: `https://TOKEN@host`)
LOGIN_WORDS = re.compile(r"[._-]")
GIT_PROMPT = re.compile(r"(?:Password|Username) for '[a-z][a-z0-9+.-]{0,15}://\Z")


def _url_userinfo_spans(text: str) -> list[Span]:
    """_url_credential_spans but a URL template's fields and KMS's transport (URL_TEMPLATE_FIELD)."""
    spans = _url_credential_spans(text)
    if spans and has(text, " for '"):   # git's prompt names the login: `Password for 'https://bob@github.com':`
        spans = [span for span in spans if not (text.startswith("@", span[1]) and "://" in text[span[0] - 3:span[0]]
                                                and GIT_PROMPT.search(text, max(0, span[0] - 40), span[0]) is not None
                                                and LOGIN_NAME.fullmatch(text, span[0], span[1]) is not None
                                                and _reads_as_login(text[span[0]:span[1]]))]
    if spans and ("{" in text or "$" in text or has(text, "kms://")):
        spans = [span for span in spans if not (
            (text[span[0]] == "{" and URL_TEMPLATE_FIELD.fullmatch(text, span[0], span[1]) is not None)
            or (text[span[0]] == "$" and URL_REFERENCE.fullmatch(text, span[0], span[1]) is not None)
            or (text[span[0]:span[1]] in ("http", "https") and text.startswith("kms://", span[0] - 6)))]
    return spans


def _reads_as_login(user: str) -> bool:
    """A login's name (LOGIN_NAME: `bob`, `bob.smith2`, `svc-ci`): each of its words of 4+ letters has a vowel and no 4
    consonants in a row, and none is generated (a token as the user, `https://TOKEN@host`, goes)."""
    if LOGIN_NAME.fullmatch(user) is None or looks_generated(user):
        return False
    return not any(len(word) > 3 and NO_VOWEL_OR_FOUR_CONSONANTS.search(word) for word in LOGIN_WORDS.split(user.rstrip("0123456789")))


def _url_credential_spans(text: str) -> list[Span]:
    """URL_USERINFO's passwords and users (_url_userinfo_bulk), URL_QUOTED_PASSWORD's and URL_ODD_PASSWORD's.
    Neither run can cross the next "://" (the first holds no "/", the second stops at "://"), so
    no character is read for two URLs."""
    spans: list[Span] = []
    if "://" not in text:
        return spans
    append = spans.append
    if text.count("@://") * 16 > text.count("://"):   # URLs back to back are common: their runs, one at a time
        _url_userinfo_loop(text, spans)
    else:
        at: int | None = 0
        while at is not None:
            at = _url_userinfo_bulk(text, at, spans)
    if "'" in text or "\\" in text:
        spans.extend((m.start("password"), m.end("password"), REDACTED, "url password", m.start())
                     for m in URL_QUOTED_PASSWORD.finditer(text))
    if "#" in text:
        spans.extend((m.start("password"), m.end("password"), REDACTED, "url password", m.start())
                     for m in URL_RAW_AT_PASSWORD.finditer(text))
    odd = list(URL_ODD_PASSWORD.finditer(text))
    if not odd:
        return spans
    done = {span[4] for span in spans}
    password = URL_ODD_PASSWORD.groupindex["password"]
    count = text.count
    for m in odd:
        first, last = m.span(password)
        start = m.start()
        if (done and start in done) or count(" ", first, last) > 3:
            continue  # prose with an "@" further on
        if text[first].isdigit():
            port = text[first:last].partition("/")[0]
            if port.isdigit() and len(port) <= 5:
                continue  # host:8080/path@x
        append((first, last, REDACTED, "url password", start))
    return spans


def _url_userinfo_loop(text: str, spans: list[Span]) -> None:
    """URL_USERINFO's matches one at a time, for a text where URLs back to back are common (`://x@` repeated): each
    run of them (URL_USERINFO_RUN) is one match in C, which a split of every URL first (_url_userinfo_bulk) would
    not be. The same spans as _url_userinfo_bulk."""
    append = spans.append
    find = text.find
    login_scheme = REVERSED_LOGIN_SCHEME.match
    size = len(REDACTED)
    search = URL_USERINFO.search
    startswith = text.startswith
    at = 0
    # (the cheapest tests first: a text may hold a million of these, "://x@" repeated)
    while (m := search(text, at)) is not None:
        start, end = m.span(1)
        at = end + 1
        colon = find(":", start, end)
        if colon >= 0:
            if colon + 1 < end:
                append((colon + 1, end, REDACTED, "url password", start - 3))
        elif (start < 4 or text[start - 4] not in LOGIN_SCHEME_ENDS
              or not login_scheme(text[start - 12 if start > 12 else 0:start - 3][::-1])) and (
                end - start != size or text[start:end] != REDACTED):
            append((start, end, REDACTED, "url credential", start - 3))
        if startswith("://", at) and (run := URL_USERINFO_RUN.match(text, at)) is not None:
            # URLs back to back (`://x@` repeated): those followed by another are one span, its replacement the
            # one each would have had (made by one substitution in C), not a span each
            append((at + 3, run.end() - 1, _url_run_replacement(run.group(0)), "url credential", at))
            at = run.end()


def _url_userinfo_bulk(text: str, at: int, spans: list[Span]) -> int | None:
    """URL_USERINFO's matches from `at` on, judged in bulk (a million `https://x@h ` apart cost a Python loop 2 us
    each): a password after the first ":", else the user alone unless it is a login scheme's or
    already [REDACTED]. URLs back to back (URL_USERINFO_RUN after a match) are one span a run, and the search goes
    on after the run, as a search match by match does: Python runs per match followed by "://" only. Returns where
    the search must start again (a match of the bulk search crosses a run's end: only for user info over 4,096
    characters), or None when the text is done."""
    values, starts, ends = _split_matches(URL_USERINFO_WHOLE, text, at)
    if not values:
        return None
    # matches followed by "://", in order: where a run may start; a run ends the matches taken from this search
    stop = len(values)
    resume = None
    skip = 0
    dropped = False
    for i in itertools.compress(range(stop), map(text.startswith, itertools.repeat("://"), ends)) \
            if text.find("@://", at) >= 0 else ():
        if i < skip:
            continue   # inside a run
        run = URL_USERINFO_RUN.match(text, ends[i])
        if run is None:
            continue
        run_end = run.end()
        spans.append((ends[i] + 3, run_end - 1, _url_run_replacement(run.group(0)), "url credential", ends[i]))
        after = bisect.bisect_left(starts, run_end, i + 1)   # the first match at or after the run's end
        if ends[after - 1] > run_end:   # a match taken crosses it: search again from the run's end
            stop, resume = i + 1, run_end
            break
        # the matches inside the run are not the search's: drop them (marked by an empty value)
        values[i + 1:after] = [""] * (after - i - 1)
        dropped = dropped or after > i + 1
        skip = after
    if stop < len(values):
        del values[stop:], starts[stop:], ends[stop:]
    if text.count(":", at) == text.count("://", at):   # every ":" is a "://": no user info holds one, all are users
        users = None
        user_starts, user_ends, user_values = starts, ends, values
    else:
        colons = list(map(str.find, values, itertools.repeat(":"), itertools.repeat(3)))
        spans += [(start + colon + 1, end - 1, REDACTED, "url password", start) for start, end, colon, value
                  in zip(starts, ends, colons, values) if colon >= 0 and colon + 2 < len(value)]
        users = list(itertools.compress(range(len(values)), map(operator.lt, colons, itertools.repeat(0))))
        if not users:
            return resume
        user_starts = list(map(starts.__getitem__, users))
        user_ends, user_values = list(map(ends.__getitem__, users)), list(map(values.__getitem__, users))
    if LOGIN_URL_HINT.search(text, at) is None and not dropped and text.find(URL_REDACTED_USER, at) < 0:
        # (no login scheme, nothing dropped, none [REDACTED] already: every user goes)
        spans += [(start + 3, end - 1, REDACTED, "url credential", start) for start, end in zip(user_starts, user_ends)]
        return resume
    # the 9 characters before a "://" say whether its scheme is a login's: judged once per distinct 9
    befores = list(map(text.__getitem__, map(slice, _minus(user_starts, 9), user_starts)))
    logins = {before: _login_scheme_before(before) for before in set(befores)}
    spans += [(start + 3, end - 1, REDACTED, "url credential", start)
              for start, end, value, login in zip(user_starts, user_ends, user_values, map(logins.__getitem__, befores))
              if not login and value and value != URL_REDACTED_USER]
    return resume


def _login_scheme_before(before: str) -> bool:
    """Whether the (up to 9) characters before a "://" end with a login scheme (REVERSED_LOGIN_SCHEME: ssh://git@x)."""
    return bool(before) and before[-1] in LOGIN_SCHEME_ENDS and REVERSED_LOGIN_SCHEME.match(before[::-1]) is not None


def _schemeless_credential_spans(text: str) -> list[Span]:
    """Passwords of user:PASSWORD@host:port and //user:PASSWORD@host/path (SCHEMELESS_PASSWORDS), also at
    the text's start. A run stops at the next ":" or space, so no character is read for two of them."""
    spans: list[Span] = []
    if SCHEMELESS_HINT.search(text) is None:
        return spans
    head = " " + text[:400]  # each pattern is led by the character before the user: one for the start
    for pattern in SCHEMELESS_PASSWORDS if "//" in text else SCHEMELESS_PASSWORDS[:1]:   # (the second holds "//")
        password = pattern.groupindex["password"]   # (by number: less time than by name)
        spans += [(m.start(password), m.end(password), REDACTED, "url password", m.start())
                  for m in pattern.finditer(text)]
        first = pattern.match(head)
        if first:
            spans.append((first.start("password") - 1, first.end("password") - 1, REDACTED, "url password", 0))
    return spans


# A URL query's `key=` (Google's and others' API keys not shaped as a known token) and `code=` (an OAuth authorization
# code in a callback's request line): a credential when the value is long, holds letters and digits and no dot
# (`key=cache`, `code=200`, `key=data/part-0001.parquet` stay). The other secret-named parameters (`api_key=`,
# `access_token=`, `sig=`) are the assignment rules'.
QUERY_KEY = re.compile(r"[?&](?:key|code)=(?P<value>[^&\s#'\"<>\\]{12,4096})")
# (session 24) `?jwt=X` (a websocket's or a dashboard's link): X is the credential whatever its shape, 8+ characters of
# letters and digits both (a JWT's shape is hidden by the token rules already; `?jwt=true`, `?jwt=1` stay)
QUERY_JWT = re.compile(r"[?&]jwt=(?P<value>[^&\s#'\"<>\\]{8,4096})")


def query_key_spans(text: str) -> list[Span]:
    if "?" not in text and "&" not in text:
        return []   # (a character first: memchr)
    spans: list[Span] = []
    if has(text, "jwt="):
        spans += [(m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                  for m in QUERY_JWT.finditer(text)
                  if any(c.isdigit() for c in m.group("value")) and any(c.isalpha() for c in m.group("value"))]
    if not (has(text, "key=") or has(text, "code=")):
        return spans
    return spans + [(m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
            for m in QUERY_KEY.finditer(text)
            if any(c.isdigit() for c in m.group("value")) and any(c.isalpha() for c in m.group("value"))
            and "." not in m.group("value")]   # (an object's key, `key=data/part-0001.parquet`, names a file)
