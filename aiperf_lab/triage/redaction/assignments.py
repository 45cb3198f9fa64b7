"""`name=value` and `"name": "value"` pairs whose name says secret: the patterns, runs of them back to back (one
span a run), a value apart from its name (the next line, a log prefix), harmless values, escaped line ends."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gc
import itertools
import operator
import re
from typing import Callable

from .references import (
    SECRET_FETCH, in_a_call, names_a_lookup_key, names_a_plain_key, names_a_reference, names_no_value, without_no_values,
)
from .names import (
    ANGLED_GENERATED, END_WORDS, NOT_SECRET_KEY_KINDS, QUALIFIER_BEFORE, QUANTITY_WORDS, SECRET_PAIRS,
    _NAME_CHARACTERS, _secret_name_cached, _weak_flag_secret, cannot_be_secret, is_hex_key, is_named_location,
    is_secret_name, looks_generated, looks_like_password, name_words, names_a_key_file, opens_a_negation,
    reads_as_words, says_absent, special_token_value, tells_when, CAMEL_RUN, negation_opens_sentence, SPACED_IN_BRACKETS,
    names_a_gcloud_secret, PLAIN_WORD, SENTENCE_GOES_ON, _negated_value_end, NegationMarks, name_word_tuple,
    SERVICE_KEY_KEYWORD, JWT_KEYWORD, names_an_environ_path,
)
from .line_views import prefix_alone, same_source_line
from .spans import PREFIX_DIGITS, REDACTED, REDACTED_LOWER, Span, copies_passed, has_any
from .store_prints import KUBECTL_SECRET_PRINT
from .assignment_memo import MEMO_AFTER, MEMO_BEFORE, recalled, remember
from .python_source import (
    PYTHON_BLOCK_OPENER, RETURN_ANNOTATION, _name_before, _pygments_style_entry, _python_reference,
    _python_signature_or_field,
)


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
# (a YAML block scalar's `|` / `>-` before the line break, an anchor `&k` or a tag `!!str`, `!ENV` before the value; the
# name padded to a column, as pytest --showlocals and config dumps align them; Ruby/PHP/Perl `=>`, `->`; JSON inside
# JSON, `\"password\": \"X\"`; a fullwidth colon; after the separator a no-break space, or a carriage return, form feed,
# NEL or line separator that a terminal shows as a break but a stream does not cut at; the value aligned to a column
# after the separator, as kubectl describe, 1Password's `op item get` and vault print it: `DB_PASSWORD:         X`)
ALIGNED_BLANKS = 128   # (kubectl describe pads to its longest name: 41 and more blanks are seen)
_ALIGNED = "{0,%d}" % ALIGNED_BLANKS
_ASSIGNMENT_TAIL = (r"(?=(?P<rest>[a-z0-9_.-]{0,48}))(?P=rest)(?P<sep>\\?[\"']?[ \t]{0,32}(?:=>|->|[=:\uff1a])"
                    r"(?=(?P<pad>[ \t\r\f\v\x85\xa0\u2028\u2029]" + _ALIGNED + r"))(?P=pad)"  # (taken whole: none given back)
                    r"(?:(?:[|>](?:[0-9][+-]|[+-]?[0-9]?)[ \t]{0,8})?\r?\n[ \t]{0,16}|#(?<=[ \t]#)[^\n]{0,256}\r?\n[ \t]{1,16})?"
                    r"(?:(?:&[a-z0-9_-]{1,32}|!{1,2}[a-z]{1,16})[ \t]{1,4})?)"
                    # (a bytes value: b'X', rb'X', b'''X''', bytes('X', ...), bytearray( b'X' ), np.bytes_(b'X'), Go's
                    # []byte("X"), JavaScript's Buffer.from('X'))
                    r"(?P<quote>(?:(?:bytearray|memoryview|bytes|np\.bytes_|numpy\.bytes_|buffer\.from|\[\]byte)\([ \t]{0,4})?"
                    r"(?:[rb]{1,2}(?=[\"'])|\\)?(?:'''|\"\"\"|[\"']|[<{][ \t]{1,4}(?=" + SPACED_IN_BRACKETS + r"))?)"
                    # (nsys joins environment entries with NUL; `no` then more: _negated_value_end)
                    r"(?P<value>[^\s'\",;\x00]{3,}|no(?=[ \t]))")
SECRET_ASSIGNMENTS = [re.compile(keyword + _ASSIGNMENT_TAIL) for keyword in (
    r"token(?!s|iz|is)", "secret", r"passw(?:(?:or)?d|ort)", r"pwd(?:(?<=[_.-]pwd)|(?=[_.-]))", r"api[_-]?key", "apikey",
    r"access[_-]?key", r"private[_-]?key", "credential", "cookie", r"session[_-]?id", r"auth[_-]?key",
    # pass=X, passphrase: X, &pw=X, ODBC ;Pwd=X; Azure AccountKey= / SharedAccessKey=, a SAS URL's sig=,
    # Docker's "auth": "<base64>" (whole words: bypass, compass, passage, oauth stay; git's sendemail.smtppass goes)
    r"pass(?:(?<![a-z0-9]pass)|(?<=smtppass))(?:phrase|e(?<=de[ _-]passe)|e(?<=ra[ _-]passe))?(?![a-z])", r"pw(?<![a-z0-9]pw)(?![a-z])", r"pwd(?:(?<=;pwd)|(?<=; pwd))",
    "accountkey", "sharedaccesskey", r"sig(?<=[?&]sig)(?==)",
    SERVICE_KEY_KEYWORD, JWT_KEYWORD,   # (session 25: openai_key: X, SLURM_JWT=X; names.SERVICE_KEY_WORDS)
    r"auth(?<![a-z0-9]auth)(?=[\"']?[ \t]{0,3}[=:])")]
TOKEN_ASSIGNMENT = SECRET_ASSIGNMENTS[0]
BARE_AUTH_ASSIGNMENT = SECRET_ASSIGNMENTS[-1]   # `auth:` alone: a logger's name too (`INFO auth: Using token X for ...`)
MAX_TOKEN_COUNT_DIGITS = 6   # token=128000 is an id or a count (a vocabulary has under a million); more digits may be a credential
# Assignments back to back (`pass pass=` repeated, `token=abc,token=abd`): after one, a run of more of the same
# keyword, each after 1 to 4 blanks, commas or semicolons, with no more to its name (nothing to judge there), its
# value right after its `=` or `:` and holding neither (so a substitution finds each value). One span for the run.
_ASSIGNMENT_RUN_VALUE = r"[=:](?![<$])[^\s'\",;\x00=:(]{3,256}(?![^\s'\",;\x00])"   # (no call, <ref> or $ref: the loop
# judges those, _value_reads_as_code)
ASSIGNMENT_RUNS = {pattern: re.compile(rf"(?:[ \t,;]{{1,4}}(?:{pattern.pattern[:-len(_ASSIGNMENT_TAIL)]}){_ASSIGNMENT_RUN_VALUE})+")
                   for pattern in SECRET_ASSIGNMENTS if pattern.pattern.endswith(_ASSIGNMENT_TAIL)}
# ... and lines of them, each name on a line of its own and its value on the next (`api_key:\nVALUE\n` repeated)
ASSIGNMENT_LINE_RUNS = {pattern: re.compile(rf"(?:\n(?:{pattern.pattern[:-len(_ASSIGNMENT_TAIL)]})[=:]\n"
                                            r"(?![<$])[^\s'\",;\x00(]{3,256}(?=\n))+")
                        for pattern in SECRET_ASSIGNMENTS if pattern.pattern.endswith(_ASSIGNMENT_TAIL)}
# A view of a text (a name spelled plainly, look-alike letters folded, bash's quoted quotes read) is read without the
# runs: a run's replacement is made of the text it reads, the view's, which would put the view's spelling in the output.
READING_A_VIEW: contextvars.ContextVar[bool] = contextvars.ContextVar("reading_a_view", default=False)
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
# The name of a secret in other languages (names.SECRET_WORDS has their words for names): a password (German, Dutch,
# Spanish, French, Portuguese, Polish, Turkish, Russian, Japanese, Chinese, Korean), a secret key, a token, as a
# `name: value` / `name = value` pair's name in text. One pattern, read only where the text holds one of its words
# (FOREIGN_NAME_ASCII, FOREIGN_NAME_OTHER), and not given the runs' and apart scans' bulk paths (the loop judges each match). Its
# value stays where it reads as prose: a plain word a sentence goes on after (`Passwort: Das Passwort muss ...`),
# or one holding Chinese, Japanese or Korean characters (`パスワード: 8文字以上で入力してください`).
# (every alternative starts with a literal, its look-behind after the word: the engine then skips the positions no
# alternative's first character is at, 3.5 times faster a scan than with `(?<![a-z])(?:senha|...)` leading a branch)
FOREIGN_SECRET_KEYWORD = (
    r"(?:kennwort|wachtwoord|contrase[ñn]a"
    r"|senha(?<![a-z]senha)|has[łl]o(?<![a-z]has[łl]o)|şifre(?<![a-z]şifre)|sifre(?<![a-z]sifre)"
    r"|jeton(?<![a-z]jeton)(?!s)|parol(?<![a-z]parol)(?![a-z])"
    r"|chiave[ _-]segreta|geheime[ _-]sleutel|geheime[rn]?[ _-]schl(?:ü|ue)ssel"
    r"|tajny[ _-]klucz|klucz[ _-]tajny|gizli[ _-]anahtar"
    r"|пароль|токен|секретный[ _-]ключ|パスワード|トークン|秘密鍵|暗証番号|密[码碼钥鑰]|口令|令牌|비밀번호|패스워드|토큰"
    r"|비밀[ _-]?키)")
FOREIGN_ASSIGNMENT = re.compile(FOREIGN_SECRET_KEYWORD + _ASSIGNMENT_TAIL)
SECRET_ASSIGNMENTS.append(FOREIGN_ASSIGNMENT)   # (after the bulk paths' tables and NAME_ENDS_LINE are made)
# (each literal is one more pass over an ASCII text, about 0.5% of plain log text's time: the words written with
# letters of ASCII alone besides `Passwort` and `mot de passe`, which the passes of `passw` and `pass` find; the
# spellings without their marks, `contrasena`, `haslo`, `sifre`, and Russian's `parol` in Latin letters, and Italian's
# `Chiave segreta` (by `segreta`) are five passes more (about 2%). Not read: `Geheime sleutel`, `Gizli anahtar`;
# `Clave secreta`, `Chave secreta`, `Clé secrète` are `secret`'s.)
FOREIGN_NAME_ASCII = ("jeton", "klucz", "kennwort", "wachtwoord", "senha", "contrasena", "segreta", "haslo", "sifre",
                      "parol")
FOREIGN_NAME_OTHER = ("contraseña", "hasło", "şifre", "schlüssel", "ключ", "пароль", "токен", "パスワード", "トークン", "秘密鍵", "暗証番号", "密", "口令",
                      "令牌", "비밀", "패스워드", "토큰")
CJK_CHARACTER = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# ... ending a line, its value on the next (a stream holds the line back as for NAME_ENDS_LINE)
FOREIGN_NAME_ENDS_LINE = re.compile(FOREIGN_SECRET_KEYWORD + NAME_ENDS_LINE.pattern[NAME_ENDS_LINE.pattern.index(")(?=(?P<rest>") + 1:])


def foreign_name_ends_line(last: str) -> bool:
    """Whether a line's lower-cased end is a name of FOREIGN_SECRET_KEYWORD and its separator (`Пароль:`)."""
    return _may_name_foreign(last) and FOREIGN_NAME_ENDS_LINE.search(last) is not None


def _led_by_its_mark(word: str) -> str:
    """A pattern of word led by its first character that is not ASCII (what comes before it read by a look-behind)."""
    first = next(at for at, character in enumerate(word) if not character.isascii())
    return re.escape(word[first:]) if not first else (
        re.escape(word[first]) + "(?<=" + re.escape(word[:first + 1]) + ")" + re.escape(word[first + 1:]))


# (FOREIGN_NAME_OTHER in one scan that skips to the characters not ASCII that lead its alternatives: a third of the
# time of a search for each word on a text of box-drawing lines, which is not ASCII and holds none)
FOREIGN_NAME_OTHER_SCAN = re.compile("|".join(map(_led_by_its_mark, FOREIGN_NAME_OTHER)))


def _may_name_foreign(lower: str) -> bool:
    """Whether a lower-cased text holds a word FOREIGN_ASSIGNMENT starts with."""
    return has_any(lower, FOREIGN_NAME_ASCII) or (not lower.isascii() and FOREIGN_NAME_OTHER_SCAN.search(lower) is not None)


def _reads_as_prose(text: str, value_start: int, value_end: int) -> bool:
    """A value under a name in another language that is a sentence's word (see FOREIGN_SECRET_KEYWORD)."""
    return CJK_CHARACTER.search(text, value_start, value_end) is not None or (
        PLAIN_WORD.fullmatch(text, value_start, value_end) is not None and SENTENCE_GOES_ON.match(text, value_end) is not None)


ASSIGNMENT_RUN_EQUALS = re.compile(r"=[^\s'\",;\x00=:]+")
ASSIGNMENT_RUN_COLON = re.compile(r":[^\s'\",;\x00=:]+")
ASSIGNMENT_RUN_GAPS = (" ", "\t", ",", ";")
# Authorization: <scheme> <credential>, whatever the scheme (Token, Negotiate, Digest, ...), and .netrc's
# "login NAME password VALUE".
AUTHORIZATION = re.compile(r"authorization[\"']?[ \t]{0,3}(?P<sep>[:=])[ \t]{0,3}(?:(?:bytearray\(|memoryview\()?b(?=[\"'])|f(?=[\"']))?[\"']?(?P<value>[a-z0-9._~+/=-]{1,64}"
                           r"(?:[ \t]{1,4}[^\s'\",;]{1,4096})?)")


def _names_scheme_only(lower: str, m: re.Match[str]) -> bool:
    """Whether an AUTHORIZATION match holds a scheme and no credential: the scheme alone (`"Bearer " + api_key`) or
    an f-string's field after it (`f"Bearer {token}"`), as code that builds the header prints."""
    scheme, _, rest = m.group("value").partition(" ")
    rest = rest.strip().removesuffix("\\")   # (`\"Bearer $TOKEN\"` in a JSON string: the escaped quote's backslash)
    return scheme in AUTH_SCHEMES and (not rest or FORMAT_FIELD.fullmatch(rest) is not None or names_a_reference(rest))



NETRC_PASSWORD = re.compile(r"login[ \t]{1,4}[^\s]{1,256}[ \t]{1,4}password[ \t]{1,4}(?P<value>[^\s'\"]+)")
# A Cookie: header's every cookie (the name=value rule takes the first), to the line's end or a quote; HTTP Digest's
# nonce, cnonce and response (an offline-crackable hash of the password) after `Authorization: Digest`; a signed URL's
# signature (S3 X-Amz-Signature, GCS X-Goog-Signature, Signature=) (lower-cased text)
COOKIE_HEADER = re.compile(r"cookie[\"']?[ \t]{0,3}:[ \t]{0,3}(?=[^\n\"'=;]{1,256}=)(?P<value>[^\r\n\"']{1,8192})")
DIGEST_PARAM = re.compile(r"(?<![a-z0-9_-])(?:c?nonce|response)=\"?(?P<value>[^\s\",]{4,512})")
URL_SIGNATURE = re.compile(r"signature=(?<=[?&]signature=|-signature=)(?P<value>[0-9a-z%_.~+/=-]{16,4096})")
# A secret name ending a piece of a stream, its value on the next line.
# (also a YAML block scalar's `password: |`, and a secret flag ending a line of a list: k8s `- --password`; a number after
# the word, `api_key2: |`; and a store's print: store_prints.KUBECTL_SECRET_PRINT)
VALUE_ON_NEXT_LINE = re.compile(r"(?:token|secret|passw(?:or)?d|api[_-]?key|apikey|pass(?:phrase)?|credential|accountkey)"
                                r"[0-9]{0,3}[\"']?[ \t]{0,32}[=:][ \t]" + _ALIGNED + r"(?:[|>](?:[0-9][+-]|[+-]?[0-9]?)[ \t]{0,8})?(?:#[^\n]{0,256})?\r?\n\Z"
                                r"|--[a-z0-9_-]{0,48}(?:token|secret|passw(?:or)?d|key|pass(?:phrase)?)[0-9]{0,3}[\"']?,?[ \t]{0,8}"
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
            or NOT_A_SECRET_REFERENCE.fullmatch(value) or (value.isdigit() and "token" in words)
            or special_token_value(m.group("name"), value)):
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


@functools.lru_cache(maxsize=4096)
def _quantity_name(name: str) -> bool:
    """Whether the whole name (_name_before) of a secret-sounding assignment is a quantity, a setting or a label
    instead (`"output_token_throughput": 1234.5`, `token_count: 512`, `num_pass: 100`, `max_token_len`); a log
    repeats its names, so the verdict is remembered per name."""
    words = name_words(name)
    token_index = "token" in words and ("id" in words or "ids" in words)  # eos_token_id: 50256
    return (token_index or not (QUANTITY_WORDS.isdisjoint(words) and QUALIFIER_BEFORE.isdisjoint(words))) and (
        not is_secret_name(name))


def _names_harmless_key(text: str, start: int) -> bool:
    """`sort_key=`, `cache_key: ...`, `cache key: ...`: a key named for what it sorts or caches, not a secret key."""
    words = name_word_tuple(_name_before(text, start, start + 3))
    if len(words) == 1 and start > 1 and text[start - 1] == " ":  # two words: "cache key"
        words = name_word_tuple(_name_before(text, start - 1, start - 1)) + words
    return len(words) > 1 and (words[-2] in NOT_SECRET_KEY_KINDS or names_a_plain_key(words))



class _HarmlessValues(dict):
    """value -> whether it cannot be a secret whatever its name says (secret=False, token: 0, gpu_pw=350.2, a path, one
    already redacted), worked out once per value (a log repeats them); and (indent, line) -> _continued_scalar's verdict."""

    def __missing__(self, value: str) -> bool:
        verdict = self[value] = (value.lower() == REDACTED_LOWER or (value[0] in "/~." and is_named_location(value))
                                 or (len(value) < 16 and cannot_be_secret(value.rstrip(")]}>:")))
                                 or (value[0] in "<[$%" and NOT_A_SECRET_REFERENCE.fullmatch(value) is not None)
                                 or value.lower().rstrip(")]}>") in AUTH_SCHEMES or _code_reference(value)
                                 or (value[0] in "|>" and YAML_BLOCK_HEADER.fullmatch(value) is not None)
                                 or _names_a_type_or_field(value) or value in NO_VALUE_SHOWN
                                 or ("." in value and names_a_key_file(value)) or says_absent(value)
                                 or (value[0] == "o" and names_an_environ_path(value)))   # (LiteLLM's os.environ/X)
        return verdict


NO_VALUE_SHOWN = frozenset({"(sensitive", "(sensitive)", *(f"({bits}" for bits in (  # terraform's `(sensitive value)`,
    255, 256, 384, 448, 512, 521, 1024, 2048, 3072, 4096, 8192))})   # openssl's `Private-Key: (2048 bit, 2 primes)`


# A YAML block scalar's header with nothing under it yet (`password: >2-`): no value.
YAML_BLOCK_HEADER = re.compile(r"[|>](?:[0-9][+-]|[+-][0-9]?|[0-9])")


# Code that names where a secret comes from, printed in a traceback's source line or given as `python -c` (`token =
# get_token()`, `os.environ[` before a quote, `tok[0]`, `cfg.api_key`, `self.secret`): a call or a subscript of a
# name, or an attribute named as a secret is.
CODE_CALL = re.compile(r"[A-Za-z_][\w.]{0,127}[(\[](?:\)|[0-9]{1,4}\]|[A-Za-z_]\w{0,63}[\])]|(?P<q>[\"'])[\w.-]{1,128}(?P=q)[\])]"
                       r"|\\)?")   # (`os.environ[\"X\"]` in a JSON string: the value ends at the escaped quote)
ATTRIBUTE_PATH = re.compile(r"[a-z_]\w{0,63}(?:\.[A-Za-z_]\w{0,63}){1,8}")


def _code_reference(value: str) -> bool:
    if CODE_CALL.fullmatch(value) is not None:
        return _names_read_as_code(value)
    return ATTRIBUTE_PATH.fullmatch(value) is not None and _secret_name_cached(value.rpartition(".")[2])


# What a value can be alone and be no secret, as code prints it: a type annotation (`password: str)`, `token:
# Optional[str] = None`), an f-string or str.format field (`f"invalid token: {token!r}"`), and a Debian
# architecture after a package's name (`libsecret-1-0:amd64`). None of these is what a generator makes.
TYPE_ANNOTATION = re.compile(r"(?:typing\.)?(?:str|bytes|bytearray|int|float|bool|Any|object|SecretStr|SecretBytes)"
                             r"|(?:typing\.)?(?:Optional|Union|List|list|Sequence|Iterable|Literal|Annotated|Dict|dict"
                             r"|Mapping|Tuple|tuple|Type|type)\[[\w., \[\]|]{1,64}\]")
FORMAT_FIELD = re.compile(r"\{[A-Za-z_][\w.]{0,63}(?:\[[\w\"']{1,32}\])?(?:![rsa])?(?::[^{}\s]{0,16})?\}")
DEBIAN_ARCHITECTURES = frozenset({"amd64", "arm64", "i386", "armhf", "armel", "ppc64el", "s390x", "riscv64", "mips64el",
                                  "all", "any", "x86_64", "aarch64", "noarch"})


def _names_a_type_or_field(value: str) -> bool:
    bare = value.rstrip(")]")
    return (TYPE_ANNOTATION.fullmatch(bare) is not None or FORMAT_FIELD.fullmatch(bare) is not None and not looks_generated(
        bare.strip("{}")) or value.rstrip(".") in DEBIAN_ARCHITECTURES)   # (`{Zq8vN2mK5pL9xR4t}`: no field's name)


# A call, as a traceback's source line or `python -c` prints it under a secret's name (`next_token =
# torch.argmax(logits[:, -1, :], dim=-1)`, `token = session.post(url, data={...}).json()["token"]`): a dotted name,
# then arguments that read as Python (names, literals, keyword arguments, brackets one level deep) each after a
# comma, then attributes, calls and subscripts; the value the assignment pattern took (cut at a blank or comma) lies
# inside it. A generated secret has no "(" (base64, hex, URL-safe, UUIDs, pronounceable ones).
_IDENT = r"[A-Za-z_]\w{0,63}"
_FLAT = r"[^()\[\]{}\n]{0,256}"
_TRAILER = rf"(?:\.{_IDENT}|\({_FLAT}\)|\[{_FLAT}\])"
_ATOM = (rf"(?:{_IDENT}|[rbfuRBFU]{{0,2}}(?:\"[^\"\\\n]{{0,256}}\"|'[^'\\\n]{{0,256}}')|-?[0-9][0-9._eEjx]{{0,23}}"
         rf"|\[{_FLAT}\]|\{{{_FLAT}\}}|\({_FLAT}\))")
_ARGUMENT = rf"(?:\*{{1,2}})?(?:{_IDENT} ?= ?)?{_ATOM}{_TRAILER}{{0,8}}"
# (or a tuple of two or more: requests' `auth=(user, password)`, its names judged as a call's)
CODE_CALL_CHAIN = re.compile(rf"(?:{_IDENT}(?:\.{_IDENT}){{0,8}}\((?:{_ARGUMENT}(?:, ?{_ARGUMENT}){{0,16}},?)?\)"
                             rf"|\({_ARGUMENT}(?:, ?{_ARGUMENT}){{1,16}},?\)){_TRAILER}{{0,8}}")
PYTHON_NAME = re.compile(rf"{_IDENT}(?:\.{_IDENT}){{0,8}}")
SNAKE_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
# kubectl describe's `HF_TOKEN:  <set to the key 'token' in secret 'hf'>`, a shell parameter expansion that names a
# variable and gives no value of its own (`${DB_PASSWORD:?required}`, `${X:?set X first}`, `${X:-}`, `${X-}`)
KUBECTL_SECRET_REFERENCE = re.compile(r"<set to the key '[^'\n]{1,253}' (?:in secret|of config map) '[^'\n]{1,253}'>")
# A placeholder of words in angle brackets that asks for the value (`password: <your password>`, `<enter token here>`)
BRACKETED_WORDS = re.compile(r"<[^<>\s]{1,64}(?: [^<>\s]{1,64}){1,15}>")   # (several words in angle brackets)
SPACED_PLACEHOLDER = re.compile(r"<(?=[^<>\n]{0,64}>)(?=(?:[A-Za-z]+ )*(?:your|enter|insert|here|paste|put|my)\b)"
                                r"(?:[A-Za-z]+ ){1,6}[A-Za-z]+>", re.IGNORECASE)
SHELL_EXPANSION = re.compile(r"\$\{[A-Za-z_]\w{0,127}(?::?\?[^{}\n]{0,128}|:?[-=]|:?[-=]\$\{?[A-Za-z_]\w{0,127}\}?)\}")


# A string in a call may be the secret itself (`password=np.bytes_(b'Xk9mQ2vL7pR4tW8z')`, `SecretStr("hunter2x")`):
# such a call is not kept as code; a setting's or a prompt's string (`algorithm="HS256"`, `.decode("UTF-8")`) is.
CALL_LITERAL = re.compile(r"\"([^\"\n]{1,256})\"|'([^'\n]{1,256})'")


# ... nor one whose names do not read as a program's names: a generated key is a valid name too
# (`password = f(TDuYbY4UpaEI4nDfO0Lxsb7EuXplWigU)`, `secret = BhEZ1Kwc7XfU.decode()`).
CODE_WORD = re.compile(r"[A-Za-z0-9_]{6,}")


@functools.lru_cache(maxsize=4096)
def _names_read_as_code(code: str) -> bool:
    return not any(is_hex_key(word) or looks_generated(word) or not reads_as_words(word) or not _reads_as_name(word)
                   for word in CODE_WORD.findall(CALL_LITERAL.sub("", code)))


def _reads_as_name(word: str) -> bool:
    """A program's name: each piece between "_" in one case, or camel-case words of 3+ letters after the first
    (`AutoModelForCausalLM`, `HTTPBasicAuth`, `toString`); random letters have short ones (`VXiVoSmntixTFLQP`)."""
    for piece in word.split("_"):
        if piece.islower() or piece.isupper() or piece.isdigit() or not piece:
            continue
        if any(len(run) < 3 and run[-1].islower() for run in CAMEL_RUN.findall(piece)[1:]):
            return False
    return True


def _call_literal_spans(call: str) -> list[tuple[int, int]]:
    """The strings that may be secrets in a call under a secret's name (a lookup's key is none: references.names_a_lookup_key)."""
    if "'" not in call and '"' not in call:
        return []
    spans = []
    for literal in CALL_LITERAL.finditer(call):
        start, end = literal.span(1) if literal.group(1) is not None else literal.span(2)
        if call[end - 1] == "\\" and call[start - 2:start - 1] == "\\":   # `tokenizer(x)[\"input_ids\"]` in a JSON
            escapes = start - 1 - len(call[:start - 1].rstrip("\\"))      # string: the quotes are escaped (in JSON
            if call.endswith("\\" * escapes, start, end):                  # inside JSON, by three backslashes)
                end -= escapes
        if start < end and not names_a_lookup_key(call, start - 1, end) and _literal_may_be_secret(call[start:end]):
            spans.append((start, end))
    return spans


@functools.lru_cache(maxsize=4096)
def _literal_may_be_secret(literal: str) -> bool:
    return (" " not in literal.strip() and not cannot_be_secret(literal)
            and (looks_like_password(literal) or looks_generated(literal) or is_hex_key(literal)))


def _may_read_as_code(value: str) -> bool:
    """Whether _value_reads_as_code can keep the value: where it cannot, the value alone decides (the bulk paths)."""
    return ("(" in value or value[0] in ":<$`" or value == "inherit" or len(value) == 3 and value[2] == ")"
            or (PYTHON_NAME.fullmatch(value) is not None and _secret_name_cached(value.rpartition(".")[2])))


def _call_verdict(text: str, value_start: int, value_end: int) -> tuple[bool, list[tuple[int, int]]]:
    """For a value holding "(": whether it lies in a call that reads as code (CODE_CALL_CHAIN) and keeps, and where
    the call's strings that may be secrets are (`password = SecretStr("X")`: the call is not kept, they go)."""
    if text.startswith("$(", value_start) and SECRET_FETCH.match(text, value_start) is not None:
        return True, []   # `HF_TOKEN=$(cat /run/secrets/hf)`: a command substitution that fetches it
    call = CODE_CALL_CHAIN.match(text, value_start)
    if call is None or call.end() < value_end:
        return False, []
    kept, literals = _call_judgement(call.group())
    return kept, [(value_start + start, value_start + end) for start, end in literals]


@functools.lru_cache(maxsize=4096)
def _call_judgement(call: str) -> tuple[bool, tuple[tuple[int, int], ...]]:
    """_call_verdict for a call's text, remembered (a log repeats its lines): the strings' places in it."""
    head, dot, rest = call.partition(".")
    if dot and rest.startswith(("encode(", "decode(")) and _secret_name_cached(head):
        return _names_read_as_code(call), ()   # `password.encode("latin1")`: the variable's, its strings an encoding
    literals = tuple(_call_literal_spans(call))
    kept = not literals and _names_read_as_code(call)
    if kept and call.startswith("("):   # a tuple: kept where it passes a secret-named variable (`(user, password)`)
        kept = any(_secret_name_cached(name.rpartition(".")[2]) for name in PYTHON_NAME.findall(call))
    return kept, literals


CODE_VALUE_FIRSTS = frozenset("$:<i`")   # (the values _value_reads_as_code may keep that no "," or ")" follows)


def _value_reads_as_code(text: str, name: Callable[[], str], sep: str, quoted: bool, value_start: int,
                         value_end: int) -> bool:
    """Whether a secret-named assignment's value is code or a reference that the text around it shows (the value alone
    does not: _HarmlessValues judges that): a call (CODE_CALL_CHAIN), a keyword argument that passes a variable on
    (`password=password,`, `token=hf_token)`, `login(token=args.hf_token)`), a pytest node id or C++ scope after a
    name (`test_secret_scan.py::test_x`), kubectl's reference to a Secret's key, a shell expansion with a message."""
    first = text[value_start]
    if first == "$" or first == "`":
        return (text.startswith("${", value_start) and SHELL_EXPANSION.match(text, value_start) is not None
                or text.startswith(("$(", "`"), value_start) and SECRET_FETCH.match(text, value_start) is not None)
    if quoted:
        return False
    if text.find("(", value_start, value_end) >= 0:
        return _call_verdict(text, value_start, value_end)[0]
    if first == ":":
        return sep == ":"   # `name::rest`: no blank after the colon, another colon: a scope, not a value
    if first == "<":
        return (text.startswith("<set to the key '", value_start) and KUBECTL_SECRET_REFERENCE.match(
            text, value_start) is not None) or SPACED_PLACEHOLDER.match(text, value_start) is not None
    if value_end - value_start == 7 and text.startswith("inherit", value_start) and name() == "secrets":
        return True   # GitHub Actions' `secrets: inherit` (a reusable workflow gets the caller's)
    if sep.strip() != "=" or not (first.isalpha() or first == "_"):
        return False
    bare_end = value_end - 1 if text[value_end - 1] == ")" else value_end
    if not text.startswith((",", ")"), bare_end) or PYTHON_NAME.fullmatch(text, value_start, bare_end) is None:
        return False   # a keyword argument: a name, then the next argument or the call's end
    value = text[value_start:bare_end]
    if len(value) < 3:
        return True   # `password=pw)`: a variable (the rule takes 3 characters at least: `password=pw,` is none)
    name = name()
    if value == name or value == name.rpartition(".")[2]:
        return True   # password=password, (the variable named as the parameter is)
    last = value.rpartition(".")[2]
    return ("." in value or SNAKE_NAME.fullmatch(last) is not None
            or last.islower() and len(last) <= 24 and in_a_call(text, value_start)) and _secret_name_cached(last)


# A model's special tokens (`bos_token: <|begin_of_text|>`, `</s>`, `[PAD]`) and a variable's reference
# (`api_key: ${OPENAI_API_KEY}`, `$HF_TOKEN`, `%API_KEY%`, OmegaConf's `${oc.env:PW}`): named like secrets, they are none.
# (unbraced, only in capitals: a password may start with "$"; in angle brackets, no generated value: ANGLED_GENERATED)
NOT_A_SECRET_REFERENCE = re.compile(r"<(?!" + ANGLED_GENERATED + r")\|?/?[A-Za-z0-9_.-]{0,64}\|?>|\[[A-Z_]{2,16}\]|\$\{[A-Za-z_][A-Za-z0-9_.:-]{0,127}\}"
                                    r"|\$[A-Z_][A-Z0-9_]{0,127}|%[A-Z_][A-Z0-9_]{0,127}%")
# Authentication schemes: `auth: kerberos`, `--auth basic` name how, not with what.
AUTH_SCHEMES = frozenset({"basic", "bearer", "kerberos", "oauth", "oauth2", "digest", "ntlm", "negotiate", "saml",
                          "oidc", "ldap", "iam", "sigv4", "gssapi", "spnego", "sso", "mtls", "x509", "none",
                          "publickey", "hostbased", "keyboard-interactive", "gssapi-with-mic",   # (and ssh's methods)
                          "peer", "trust", "ident", "md5", "scram-sha-256", "reject", "pam", "radius"})   # (pg_hba's)
MOST_SCHEME_LETTERS = max(map(len, AUTH_SCHEMES))   # (a value no longer holds a credential after its scheme)
AUTH_SCHEME_WORDS = tuple(sorted(AUTH_SCHEMES))


def _assignment_spans(text: str, lower: str) -> list[Span]:
    """Values of SECRET_ASSIGNMENTS. A text may hold a million (`pass pass=` repeated): a value is judged
    once (a verdict per distinct value), and a name is looked at only when it is longer than its keyword
    (`output_token_throughput`); assignments back to back are one span a run (_assignment_run). (Chains of map()
    over the matches measured slower than this loop.)"""
    spans: list[Span] = []
    harmless = _HarmlessValues()
    negations = NegationMarks()
    append = spans.append
    for pattern in SECRET_ASSIGNMENTS:
        foreign = pattern is FOREIGN_ASSIGNMENT
        if foreign and not _may_name_foreign(lower):
            continue
        rest_group, value_group = pattern.groupindex["rest"], pattern.groupindex["value"]
        runs = ((ASSIGNMENT_RUNS[pattern].match, ASSIGNMENT_LINE_RUNS[pattern].match)
                if pattern in ASSIGNMENT_RUNS and not READING_A_VIEW.get() else None)
        wait, backoff = 0, 1  # after a try for a run that found none, the next few matches try none (texts of matches apart)
        apart_wait, apart_backoff = 0, 1   # (the same for a try of _assignment_apart)
        matches = pattern.finditer(lower)
        counts = pattern is TOKEN_ASSIGNMENT
        memo: dict = {}   # (a match's text -> the verdict on its last match judged: assignment_memo)
        while (m := next(matches, None)) is not None:
            key = m.group()
            if (copy := recalled(memo, key, text, lower, m.start(), _call_verdict)) is not None:
                added, value_end = copy
                resume = 0
            else:
                verdict = _judge(text, lower, m, pattern, value_group, rest_group, foreign, counts, harmless, negations)
                remember(memo, key, m.start(), verdict)
                added, value_end, _, resume, _ = verdict
            if added:
                spans += added
            if resume:
                matches = pattern.finditer(lower, resume)
                continue
            if not value_end:
                continue
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


def _judge(text: str, lower: str, m: re.Match[str], pattern: re.Pattern[str], value_group: int, rest_group: int,
           foreign: bool, counts: bool, harmless: _HarmlessValues, negations: NegationMarks
           ) -> tuple[list[Span], int, bool, int, tuple | None]:
    """_assignment_spans' verdict on one match m of pattern: the spans it adds (the value's last where it is taken); the
    value's end where it is taken (0 where not: no run is tried after it); whether the verdict read nothing of the text
    outside the match's window (assignment_memo.window: a copy of the match in a copy of the window is judged alike);
    where the loop goes on where copies of it are passed over (0: after it); for a value holding a call, where it lay
    and _call_verdict's answer (places from m's start), which a copy's call must give too."""
    added: list[Span] = []
    near, probe = True, None
    value_start, value_end = m.span(value_group)
    sep, quote = m.group("sep", "quote")
    if text[value_end - 1] == "\\" and text.startswith('"', value_end) and quote == '\\"':
        value_end -= 1  # JSON inside JSON: the value's closing quote is escaped too
    # (_assignment_apart makes these verdicts in bulk for the plain form: a test added here that reads more
    # than the value must keep that form out of ASSIGNMENTS_APART, or be made there too)
    if "\\" in text[value_start:value_end] and (cut := _escaped_line_end(text, value_start, value_end)):
        value_end = cut  # repr()/JSON of lines: 'password: X\\nhost: db' ends X at the escaped break
    if m.start() and text[m.start() - 1] in "?&" and (amp := text.find("&", value_start + 1, value_end)) > 0:
        value_end = amp  # a URL's query (`?user=bob&password=X&ssl=true`): the next parameter is none of it
    if "\n" in sep and near:   # (the window holds the name's line from its start, no log prefix before the name, and
        # the value's line to its end: what the tests below read of the two lines)
        name_line = text.rfind("\n", max(0, m.start() - MEMO_BEFORE), m.start()) + 1
        near = name_line > 0 and not text[name_line:m.start()].strip(" \t") and text.find(
            "\n", value_start, m.end() + MEMO_AFTER) >= 0
    if "\n" in sep and (behind := _value_is_log_prefix(text, m.start(), value_start)):
        # `app-1  | password:` / `app-1  |   X`: the next line's log prefix is no value; X, indented under the
        # name, is (a block scalar's lines: _prefixed_block_spans)
        if "|" in sep or ">" in sep:   # (a block scalar's header: its lines are _prefixed_block_spans'; no look at
            if resume := copies_passed(text, lower, pattern, m):   # the next line; the same line's copies after
                return added, 0, False, resume, None   # it that are judged as it was: passed over)
            return added, 0, near or _header_read_near(text, lower, m, behind[0]), 0, probe
        nested = PREFIXED_NEXT_VALUE.match(text, behind[0])
        if (nested is None or len(nested.group("indent")) <= behind[1]
                or nested.group("value").endswith(":") or nested.group("value") == "-"):
            return added, 0, near, 0, probe   # (`X:` a mapping under the name: names; `- X` items: _prefixed_block_spans)
        value_start, value_end = nested.span("value")
    elif "\n" in sep and prefix_alone(_line_at(text, value_start)):
        return added, 0, near, 0, probe   # `Enter the token:` then compose's `api-1  | ` alone: the next line's prefix, no value
    if quote and quote[-1] == "(" or quote.endswith(("( ", "(\t")):
        return added, 0, near, 0, probe   # `password = bytes(memoryview(password))`: a call on a variable, no bytes literal
    if "\n" in sep and RETURN_ANNOTATION.search(text, max(0, m.start() - 256), m.start()):
        return added, 0, near, 0, probe   # `def get_token(self) -> Token:` then its docstring: a type, not a name given a value
    if "\n" in sep and PYTHON_BLOCK_OPENER.match(text, text.rfind("\n", 0, m.start()) + 1):
        return added, 0, near, 0, probe   # `if self.credentials:` then `continue`: a Python block opens, no name is given a value
    negation_start, opens_negation = negations[text[value_start:value_end]]   # (once per distinct value)
    if value_end - value_start <= 6 and negation_start and (
            negated_end := _negated_value_end(text, value_start, value_end, harmless)):
        value_end = negated_end   # `password: not Hunter2x9`, `no X`, `none X`: the value is both words
    elif opens_negation and negation_opens_sentence(text, value_end):
        return added, 0, near, 0, probe   # `password: not set`, `Clé secrète : non définie`: a sentence about the secret
    if (foreign or pattern is BARE_AUTH_ASSIGNMENT or lower.startswith(("passwort", "passe"), m.start())) and _reads_as_prose(
            text, value_start, value_end):
        return added, 0, near, 0, probe   # `Passwort: Das Passwort muss ...`, `パスワード: 8文字以上で入力してください`
    if names_no_value(text, lower, m.start(), sep, value_start, value_end):
        return added, 0, near, 0, probe   # `Failed to get token: timeout`; `Password:` then `Login incorrect`
    call = text.find("(", value_start, value_end) >= 0 and not quote
    if call:   # token = f(a, b); password = SecretStr("X"): its string goes
        kept, literals = _call_verdict(text, value_start, value_end)
        # (a call's arguments are read far: its verdict is asked again of a copy, assignment_memo.recalled)
        probe = (value_start - m.start(), value_end - m.start(), kept, [(first - m.start(), end - m.start())
                                                                        for first, end in literals])
        added += [(start, end, REDACTED, "secret-named value", m.start()) for start, end in literals]
        if kept:
            return added, 0, near, 0, probe
    if harmless[text[value_start:value_end]]:
        return added, 0, near, 0, probe  # secret=False, token: 0, gpu_pw=350.2, a path, one already redacted
    if not call and (text[value_start] in CODE_VALUE_FIRSTS or text[value_end - 1] == ")"
                     or text.startswith(",", value_end)) and _value_reads_as_code(
            text, functools.partial(_name_before, text, m.start(), m.end(rest_group)), sep,
            bool(quote), value_start, value_end):
        return added, 0, near, 0, probe  # password=password, `<set to the key 'token' in secret 'hf'>`, ${X:?msg}
    if text[value_start] == "[" and not quote and 0 <= (close := text.find("]", value_start, value_start + 4096)) and text.find(
            "\n", value_start, close) < 0 and (FLOW_LIST_END.match(text, close + 1) is not None
                                         or text.startswith(REDACTED, value_start)):
        return added, 0, near, 0, probe  # `secrets: [X, Y]`: a flow sequence, its items redacted one by one (_yaml_block_spans)
        # (`password: [x]!9`, more after the "]": a password that starts with "[", the value whole)
    if text[value_end - 1] == "]" and _in_pytest_id(text, m.start()):
        return added, 0, near, 0, probe  # `test_login[user=alice-password=wrong]`: a test's parameters in its id
    if text[value_end - 1] in ")]}" and _closes_bracket(text, m.start(), value_start, value_end):
        value_end -= 1  # connect(user=app, password=X): the ")" is the call's
    if text[value_start] == "<" and (words := BRACKETED_WORDS.match(text, value_start)) is not None:
        value_end = words.end()  # `password: <correct horse battery staple>`: a passphrase whole (placeholders kept above)
    if counts and (digits := text[value_start:value_end].rstrip(")]}>")).isdigit() and len(
            digits) <= MAX_TOKEN_COUNT_DIGITS:
        return added, 0, near, 0, probe  # token=128000: a token id or count
    if text[value_end - 1] == ":" and "\n" in sep and (text.startswith(" ", value_end) or (
            text.startswith(("\n", "\r\n"), value_end) or value_end == len(text)) and _indented_under(
            text, m.start(), value_start)):
        return added, 0, near, 0, probe  # a YAML mapping under the name (secretKeyRef:\n  name: db; secrets:\n  hf_token:\n)
    if text.startswith(" / ", value_end) and lower.rfind("credential", max(0, value_start - 24), value_start) >= 0:
        return added, 0, near, 0, probe  # `Using credentials: bob / X`: the user (calls.CREDENTIALS_PAIR takes X)
    if lower.startswith("convertto-securestring ", value_start):
        return added, 0, near, 0, probe  # `$pw = ConvertTo-SecureString "X" -AsPlainText`: the cmdlet (printed_commands takes X)
    start = m.start()
    rest_start, rest_end = m.span(rest_group)
    name = None   # (the whole name, read once for the tests below that need it)
    if (rest_end > rest_start or start and text[start - 1] in _NAME_CHARACTERS) and _quantity_name(
            name := _name_before(text, start, rest_end)):
        return added, 0, near, 0, probe  # output_token_throughput: 1234.5
    if rest_end > rest_start and tells_when(name if name is not None else (
            name := _name_before(text, start, rest_end)), text[value_start:value_end]):
        return added, 0, near, 0, probe  # password_last_set=2026-11-02, password_expires: never
    if counts and start and text[start - 1] in _NAME_CHARACTERS and special_token_value(
            name if name is not None else (name := _name_before(text, start, rest_end)),
            text[value_start:value_end]):
        return added, 0, near, 0, probe  # pad_token = PAD, eos_token: EOS: a tokenizer's special token (names.SPECIAL_TOKEN_KINDS)
    if (rest_end == rest_start and lower.startswith("--secret", start - 2) and text[value_start - 1] == "="
            and not (near := False) and names_a_gcloud_secret(text, start - 2, text[value_start:value_end])):
        return added, 0, near, 0, probe  # gcloud secrets versions access latest --secret=db_name: the secret's name
    if sep == " = " and _python_reference(
            text, start, rest_end, value_start, value_end, bool(quote), name):
        return added, 0, near, 0, probe  # `    token = self.stream.current`, `    token.markup = markerChar`: Python's source
    if text[start] == "T" and _pygments_style_entry(text, start, rest_end, value_start, value_end):
        return added, 0, near, 0, probe  # `    Token.Comment: "italic #A3AAB2",`: a syntax highlighter's style, not a token's value
    if sep == ": " and not quote and _python_signature_or_field(
            text, start, rest_end, value_start, value_end, name):
        return added, 0, near, 0, probe  # `def push(self, token: Token) -> None:`, `:param cookies: (optional) Dict or ...`
    if text[value_end - 1] == ":" and text.startswith(" ", value_end):  # a YAML mapping's key on the line
        if FLOW_MAPPING_KEY.fullmatch(text, value_start, value_end) is not None:
            return added, 0, near, 0, probe  # imagePullSecrets: [{name: regcred}]: a list of names
        nested = NESTED_VALUE.match(text, value_end)  # secret: name: X: X is the value
        if nested is not None and not harmless[nested.group("value")]:
            added.append((nested.start("value"), nested.end("value"), REDACTED, "secret-named value", m.start()))
        return added, 0, near, 0, probe
    added.append((value_start, value_end, REDACTED, "secret-named value", start))
    if text.startswith("\n", value_end + (text[value_end:value_end + 1] == "\r")) and ":" in sep:
        reach = _continued_scalar(text, start, value_end, harmless, added.append)   # `password: first` then `  X`
        # (the name's line starts in the window, and the next lines read end in it)
        near = near and reach is not None and reach < m.end() + MEMO_AFTER and text.rfind(
            "\n", max(0, start - MEMO_BEFORE), start) >= 0
    return added, value_end, near, 0, probe


FLOW_LIST_END = re.compile(r"[ \t]*(?:[,;:)}\]#]|\r?\n|\Z)")   # (what may follow a flow list's "]")
PYTEST_ID_OPEN = re.compile(r"::[A-Za-z_]\w{0,127}\[[^\s\[\]]{0,1024}\Z")   # (`path.py::test_x[` then parameters: a node id)


def _in_pytest_id(text: str, start: int) -> bool:
    line_start = text.rfind("\n", max(0, start - 1280), start) + 1
    return "::" in text[line_start:start] and PYTEST_ID_OPEN.search(text, line_start, start) is not None


# A YAML plain scalar continued on the lines under its name (`password: first` then `  X`): each next line indented
# deeper than the name's, one word (a secret holds no blank; a traceback's or a table's line does), neither a
# comment, an item nor a key, goes (8 lines at most).
NAME_OPENS_LINE = re.compile(r"[ \t]{0,64}(?:- )?[\"']?[A-Za-z0-9_.-]{0,128}")
CONTINUED_SCALAR_LINES = 8


def _continued_scalar(text: str, start: int, value_end: int, harmless: _HarmlessValues, append: Callable) -> int:
    """The lines under a value that continue it, each appended; where the text read after the value ends."""
    line_start = text.rfind("\n", 0, start) + 1
    if NAME_OPENS_LINE.fullmatch(text, line_start, start) is None:
        return value_end
    indent = len(text[line_start:start]) - len(text[line_start:start].lstrip(" \t"))
    at = text.find("\n", value_end) + 1
    for _ in range(CONTINUED_SCALAR_LINES):
        line = text[at:len(text) if (end := text.find("\n", at)) < 0 else end].rstrip("\r")
        if (depth := harmless.get((indent, line))) is None:   # (a line's verdict once per indent and line, by the values')
            depth = len(line) - len((content := line.lstrip(" \t")))
            depth = harmless[indent, line] = -1 if (depth <= indent or not content or content[0] in "#-" or content.endswith(":")
                or ": " in content or any(c.isspace() for c in content) or harmless[content] or not any(c.isalnum() for c in content)) else depth
        if depth < 0:
            return len(text) if end < 0 else end + 1   # (a YAML error's caret `^` under the value: no letter nor digit, no secret)
        append((at + depth, at + len(line), REDACTED, "secret-named value", start))
        if end < 0:
            return len(text)
        at = end + 1
    return at


# A line break or tab escaped in a repr() or JSON string (`\\n`, `\\r\\n`, `\\t`, `\\\\n` in JSON inside JSON) and the next
# line's name after it (`host:`, `Content-Length:`, `DB_HOST=`) or the string's end: the value ended at the break.
ESCAPED_LINE_END = re.compile(r"(?:\\{1,2}[nrt])+(?=[A-Za-z_][A-Za-z0-9_.-]{0,127}[ \t]{0,8}[:=]|\\{0,2}[\"']|\Z|\s)")


def _escaped_line_end(text: str, value_start: int, value_end: int) -> int:
    """Where a value read up to a space ends at an escaped line break inside it; 0 where none ends it."""
    m = ESCAPED_LINE_END.search(text, value_start + 1, value_end)
    return m.start() if m is not None else 0


def _indented_under(text: str, name_start: int, value_start: int) -> bool:
    """Whether a value on the line after its name starts further in than the name's line (YAML nesting)."""
    name_line = text.rfind("\n", 0, name_start) + 1
    value_line = text.rfind("\n", 0, value_start) + 1
    name_indent = len(text[name_line:name_start]) - len(text[name_line:name_start].lstrip(" \t"))
    return value_start - value_line > name_indent


FLOW_MAPPING_KEY = re.compile(r"[\[{]{1,2}[A-Za-z_][A-Za-z0-9_-]{0,63}:")
NESTED_VALUE = re.compile(r" {1,8}[\"']?(?P<value>[^\s'\",;\x00]{3,4096})")
BRACKET_PAIRS = {")": "(", "]": "[", "}": "{"}


CALL_OPENING_REACH = 4096   # how far before a name its call's "(" is looked for


def _closes_bracket(text: str, start: int, value_start: int, value_end: int) -> bool:
    """Whether the bracket ending a value closes one opened before its name on the line, not in the value."""
    close = text[value_end - 1]
    opening = BRACKET_PAIRS[close]
    if opening in text[value_start:value_end]:
        return False
    line_start = text.rfind("\n", max(0, start - CALL_OPENING_REACH), start) + 1
    before = text[max(line_start, start - CALL_OPENING_REACH):start]   # (a bound: a long line read at every match was quadratic)
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
    if any(lower[keyword - 1] in "?&" and "&" in value for keyword, value in zip(keywords, values)):
        return None   # (a URL's query parameter after the value: the loop ends the value there)
    if text[at:ends[-1]] != lower[at:ends[-1]]:   # (the verdicts read the values as written)
        values = list(map(text.__getitem__, map(slice, firsts, ends)))
    verdicts = {value: harmless[value] or (counts and (digits := value.rstrip(")]}>")).isdigit()
                                          and len(digits) <= MAX_TOKEN_COUNT_DIGITS) for value in set(values)}
    found = zip(firsts, ends, itertools.repeat(REDACTED), itertools.repeat("secret-named value"), keywords)
    if any(verdicts.values()):
        found = itertools.compress(found, map(operator.not_, map(verdicts.__getitem__, values)))
    found = list(found)
    if any("(" in value for value in verdicts):   # calls, judged one by one as the loop does (_call_verdict)
        kept = set()
        for first, end, keyword, value in zip(firsts, ends, keywords, values):
            if "(" in value:
                verdict, literals = _call_verdict(text, first, end)
                spans += [(start, stop, REDACTED, "secret-named value", keyword) for start, stop in literals]
                if verdict:
                    kept.add(first)
        if kept:
            found = [span for span in found if span[0] not in kept]
    if any(map(opens_a_negation, verdicts)):   # `password: not set` kept, `password: not X` whole (as the loop does)
        found = [(span[0], _negated_value_end(text, span[0], span[1], harmless) or span[1], *span[2:]) for span in found
                 if not (opens_a_negation(text[span[0]:span[1]]) and negation_opens_sentence(text, span[1]))]
    if any(map(_may_read_as_code, {text[start:end] for start, end, *_ in found})):
        found = [span for span in found if not _apart_reads_as_code(text, span[4], span[0], span[1])]
    if pattern is BARE_AUTH_ASSIGNMENT:   # (`auth: Using token ...`: the loop's test, read past the value)
        found = [span for span in found if not _reads_as_prose(text, span[0], span[1])]
    found = without_no_values(text, lower, found, pattern is TOKEN_ASSIGNMENT, verdicts)   # (the loop's names_no_value)
    spans += found
    return ends[-1], len(found)


def _apart_reads_as_code(text: str, keyword_start: int, value_start: int, value_end: int) -> bool:
    """_value_reads_as_code for an assignment of the plain form (`name=` or `name:` and up to 3 blanks, the name the
    keyword alone) that _assignment_apart found."""
    if not _may_read_as_code(value := text[value_start:value_end]) or "(" in value:
        return False   # (a call: judged by _assignment_apart before)
    head = text[keyword_start:value_start]
    cut = min(i for i in (head.find("="), head.find(":")) if i >= 0)
    return _value_reads_as_code(text, lambda: head[:cut], head[cut:], False, value_start, value_end)


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


PREFIXED_NEXT_VALUE = re.compile(r"(?P<indent>[ \t]{1,64})[\"']?(?P<value>-(?= )|[^\s'\",;\x00]{3,4096})")


def _header_read_near(text: str, lower: str, m: re.Match[str], prefix_end: int) -> bool:
    """Whether _judge's verdict on a block scalar's header behind a log prefix (`[rank0]: password: |`; no spans, no
    copies passed over) read only m's window (assignment_memo): the name's line starts in it, _value_is_log_prefix found
    the prefix again on the line right after it (prefix_end there: no other source's lines read past), and
    copies_passed returned at its first test, that line being no copy of the name's (or m ending past it)."""
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.start()) + 1
    step = line_end - line_start
    return (MEMO_BEFORE < m.start() < line_start + MEMO_BEFORE and 0 < line_end <= prefix_end
            and text.rfind("\n", 0, prefix_end) + 1 == line_end and line_end + step <= m.end() + MEMO_AFTER
            and (m.end() >= line_end + step or not (text.startswith(text[line_start:line_end], line_end)
                                                     and lower.startswith(lower[line_start:line_end], line_end))))


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
    if not text.startswith(prefix, value_line):
        # (another source's line between: pods, ranks taking turns, also where the prefixes differ in their digits only,
        # `[rank1]: ` after `[rank0]: `; the value is on the name's source's next line)
        value_line = same_source_line(text, line_start, value_line)
        if not _starts_with_prefix(text, value_line, prefix):
            return None
    return value_line + len(prefix), len(before) - len(prefix)


def _line_at(text: str, at: int) -> str:
    end = text.find("\n", at)
    return text[text.rfind("\n", 0, at) + 1:len(text) if end < 0 else end]


def _starts_with_prefix(text: str, at: int, prefix: str) -> bool:
    """Whether text's line at `at` starts with a log prefix (its digits free: a time, a counter)."""
    return text.startswith(prefix, at) or text[at:at + len(prefix)].translate(PREFIX_DIGITS) == prefix.translate(PREFIX_DIGITS)
