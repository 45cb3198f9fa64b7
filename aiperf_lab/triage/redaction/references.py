"""Values that name or fetch a secret instead of holding one, as code, shells and docs print them under a secret's name:
a command substitution that fetches it (`HF_TOKEN=$(cat /run/secrets/hf)`), a variable's reference or a placeholder
after an Authorization scheme or in a URL's user info (`Bearer $HF_TOKEN`, `https://oauth2:${CI_JOB_TOKEN}@host`), a
variable passed on inside a call (`login(user=u, passwd=password)`); and keys and headers named with a secret word that
hold none (a WebSocket handshake's nonce, a store's key). Also what follows a secret's name and is no value of it
(names_no_value: a failure's reason, a password prompt's outcome on the next line, a tokenizer's piece, Kubernetes' kind
word, a harmless value in a code span, what a Perl scalar reads from the program's arguments) and a placeholder or a variable after an Authorization scheme."""

from __future__ import annotations

import json
import re

from .announced import _generated
from .names import cannot_be_secret, is_hex_key, looks_generated, looks_like_password, reads_as_words

# A command substitution that fetches the secret (`HF_TOKEN=$(cat /run/secrets/hf)`, `$(vault kv get -field=x ...)`,
# backquoted): the command is in the log, not what it prints. (Not `$(echo X)`, `$(printf X)`: the value is there.)
SECRET_FETCH = re.compile(r"(?:\$\(|`)(?:cat|head|tail|tr|jq|yq|vault|gcloud|aws|az|op|pass|gopass|kubectl|security|doppler|sops"
                          r"|printenv|base64|bw|gh|secret-tool|keyring|infisical|chamber|cut|awk|sed|grep)[ \t][^`()\n]{1,512}[)`]")

# (lower-cased) a variable's reference or a placeholder after an Authorization scheme: `Bearer $HF_TOKEN`, `Bearer
# ${TOKEN}`, `Bearer <token>`, `Bearer <your-token>`, `Basic %CREDS%`: how a command or a doc writes the header
AUTH_REFERENCE = re.compile(r"\$[a-z_][a-z0-9_]{0,127}|\$\{[a-z_][a-z0-9_]{0,127}\}|%[a-z_][a-z0-9_]{0,127}%"
                            r"|<[a-z][a-z _-]{0,62}[a-z]>")

# A shell variable's reference in a URL's user info (`https://oauth2:${CI_JOB_TOKEN}@gitlab.com`,
# `https://$GH_TOKEN@github.com`: unbraced only in capitals, as assignments' NOT_A_SECRET_REFERENCE: a password may
# start with "$")
URL_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]{0,127}\}|\$[A-Z_][A-Z0-9_]{0,127}")
PERCENT_REFERENCE = re.compile(r"%[A-Z_][A-Z0-9_]{0,127}%")   # (Windows' `%API_KEY%`)

# Key kinds beside names' NOT_SECRET_KEY_KINDS (the word before `key`): RFC 6455's `Sec-WebSocket-Key` (16 random bytes a
# client sends once per handshake, the server's Accept a hash of it: a nonce that opens nothing), a key-value store's
# key (`store key: /rdzv/x/workers`, c10d's TCPStore), an experiment tracker's id (Comet's `experiment key`), a
# compiler's cache key (`compile key`): names or hashes
PLAIN_KEY_KINDS = frozenset({"websocket", "store", "experiment", "compile"})
WEB_SOCKET = ("web", "socket")   # (`Sec-WebSocket-Key` in words)

# Headers named with a secret word that hold none, in a header tuple (`("sec-websocket-key", "X")`): a WebSocket
# handshake's nonce and its hash, a client's idempotency or cache key (the names announced's NOT_SECRET_HEADERS keeps
# in `Name: value`)
NOT_SECRET_HEADER_NAMES = frozenset({"sec-websocket-key", "sec-websocket-accept", "idempotency-key", "x-idempotency-key",
                                     "x-cache-key", "cache-key", "x-request-key"})


def names_a_reference(rest: str) -> bool:
    """Whether what follows an Authorization scheme (lower-cased) is a variable's reference or a placeholder of words
    (AUTH_REFERENCE), no credential."""
    return AUTH_REFERENCE.fullmatch(rest) is not None and reads_as_words(
        rest.strip("$%{}<>").replace("_", " ").replace("-", " "))


def names_a_plain_key(words: tuple[str, ...]) -> bool:
    """Whether a key's name in words (`sec web socket key`, `store key`) is one of PLAIN_KEY_KINDS'."""
    return words[-2] in PLAIN_KEY_KINDS or words[-3:-1] == WEB_SOCKET


def in_a_call(text: str, at: int) -> bool:
    """Whether a "(" that is not closed is before `at` on its line (256 characters looked at): `ftp.login(user=u,
    passwd=password)` passes a variable named as a secret."""
    before = text[max(text.rfind("\n", max(0, at - 256), at) + 1, at - 256):at]
    return before.rfind("(") > before.rfind(")")


# A lookup's key in code under a secret's name (`secret_key = request.headers.get("X-Api-Key")`, `headers["X-Auth-Token"]`,
# `os.getenv("Api-Key")`): the first string given to a mapping's get/pop or a subscript, shaped as an HTTP header's name
# (words of letters apart by "-", each capitalised, in capitals or small: `X-Api-Key`, `X-API-KEY`, `x-goog-api-key`),
# names where the secret is, not the secret (a default after it, `.get("X-Api-Key", "s3cr3t-Value9")`, is still read)
LOOKUP_OPENERS = (".get(", "getenv(", ".pop(", ".getheader(", ".get_header(", ".getlist(", "[")
HEADER_NAME = re.compile(r"(?:[A-Z]{1,6}|[A-Z]?[a-z]{2,24})(?:-(?:[A-Z]{1,6}|[A-Z]?[a-z]{2,24})){1,7}")


def names_a_lookup_key(code: str, quote_at: int, end: int) -> bool:
    """Whether the string of code at quote_at (its opening quote) to end (its closing one) is a lookup's key."""
    before = code[max(0, quote_at - 12):quote_at].rstrip("\\")   # (`[\"X-Api-Key\"]` in a JSON string)
    return before.endswith(LOOKUP_OPENERS) and HEADER_NAME.fullmatch(code, quote_at + 1, end) is not None


# A failure's sentence about the secret, the reason after its colon (`Failed to get token: timeout`, `Unable to refresh
# access token: connection refused`, `could not fetch secret: Forbidden`): a word of letters there is the reason, not the
# secret (lower-cased text before the name, on its line; no verb that reads the value it was given: validate, decode)
FAILED_TO_GET = re.compile(r"(?:fail(?:ed|ure)|unable|could ?n[o']?t|cannot|can't|error)(?: while| when)?(?: to)?[ \t]"
                           r"(?:get|fetch|obtain|retrieve|refresh|acquire|load|renew|request|exchange|generate|create|read)"
                           r"(?:ing)?[ \t](?:(?:the|a|an|new|access|auth|id|api|oauth2?|bearer|service|account|refresh"
                           r"|session|github|hf|vault|registry)[ \t]){0,3}\Z")
REASON_WORD = re.compile(r"(?:[A-Z]?[a-z]{2,23}|[A-Z]{3,24})[.!]?")   # (a word, not a run of mixed case)
# The line a password prompt's answer leaves (`Password:` then `Login incorrect`, `su: Authentication failure`, `Sorry,
# try again.`): words of letters only, one of them an outcome's
PROMPT_OUTCOME_LINE = re.compile(r"[A-Za-z]{2,24}(?:[,:]?[ \t][A-Za-z]{1,24}){1,7}[.!]?[ \t]*\r?(?:\n|\Z)")
OUTCOME_WORDS = frozenset({"incorrect", "failure", "failed", "denied", "invalid", "wrong", "sorry", "mismatch", "expired",
                           "successfully", "succeeded", "accepted", "rejected", "unchanged", "updated", "match"})


# A tokenizer's piece: byte-level BPE's `Ġ` (a blank before it), SentencePiece's `▁`; generated secrets are ASCII
TOKEN_PIECE_MARKS = ("\u0120", "\u2581", "\u010a")
# Kubernetes names an object by its kind and its quoted name (`MountVolume.SetUp failed for volume "hf-token" : secret
# "hf-token" not found`): after a secret-named volume's name, the kind word is no value
OBJECT_KINDS = frozenset({"secret", "secrets", "configmap", "configmaps", "volume", "serviceaccount"})
QUOTED_OBJECT_NAME = re.compile(r"[ \t]\\?\"[a-z0-9][a-z0-9.-]{0,252}\\?\"")   # (in a JSON string, its quotes escaped)
# A tokenizer's piece printed with its id (`token: 'world2' id: 14957`), or named as one (`decoded token: world2`)
VOCABULARY_ID = re.compile(r"['\"]?,?[ \t]{1,4}(?:token_)?id[ \t]?[:=][ \t]{0,4}[0-9]{1,7}(?![0-9])")
PIECE_WORDS = ("decoded", "generated", "sampled", "predicted", "next", "special", "unknown", "vocab")
PIECE_WORD_SET = frozenset(PIECE_WORDS + ("vocabulary",))
LOGPROB_REACH = 256   # (the characters around a `"token":` looked at for a log-probability record's other keys)


# What a Perl scalar is given from the program's arguments or input (`my $password = shift;`, `= pop`, `= <STDIN>`, `= <>`,
# `= $ARGV[0]`, `= $_[1]`): code reading the secret, not its value (read only after a `$` name)
PERL_READ = re.compile(r"(?:shift|pop|<(?:STDIN|\$?[A-Za-z_]{1,32})?>|\$(?:ARGV|_)\[[0-9]{1,2}\])\)?")   # (a call's `)`)


def names_no_value(text: str, lower: str, name_start: int, sep: str, value_start: int, value_end: int) -> bool:
    """Whether a secret name's value is none: a failure's reason after `Failed to get token:` (FAILED_TO_GET), the
    first word of the line a password prompt's outcome prints after the prompt's line (PROMPT_OUTCOME_LINE), a
    tokenizer's piece (`"token": "Ġworld"`, or any value of `token` in a record with a log-probability: OpenAI's and
    vLLM's logprobs), Kubernetes' kind word before an object's quoted name. (Every look around is bounded.)"""
    if text.startswith(TOKEN_PIECE_MARKS, value_start):
        return True
    if name_start and text[name_start - 1] == "." and sep == ":" and _logger_message(text, name_start, value_start,
                                                                                    value_end):
        return True   # `DEBUG:botocore.auth:CanonicalRequest:`: a logger's name, then its message
    if name_start and text[name_start - 1] == "$" and PERL_READ.fullmatch(text, value_start, value_end) is not None:
        return True   # `my $password = shift;`
    if text[value_start] == "?" and sep == ":" and _in_parameter_expansion(lower, name_start):
        return True   # `${WANDB_API_KEY:?set WANDB_API_KEY}`: the expansion's message (a default after `:-` is read)
    if sep == " = " and lower[value_start:value_end] == lower[name_start:value_start - len(sep)] and (
            IDENTIFIER.fullmatch(text, value_start, value_end) is not None):
        return True   # `self.api_key = api_key or os.getenv(...)`: a variable named as the secret is, no value
    token = lower.startswith("token", name_start)
    if token and lower.startswith(("\"", "'", '\\"'), name_start + 5) and _logprob_near(lower, name_start, value_end):
        return not looks_generated(text[value_start:value_end])   # (a logprobs record's piece)
    if token and _only_key_of_a_record(text, name_start, value_start, value_end):
        return not token_value_is_credential(_json_unescaped(text[value_start:value_end]))   # `{"token": "world2"}`
    if value_end - value_start <= LONGEST_KIND and lower[value_start:value_end] in OBJECT_KINDS and (
            QUOTED_OBJECT_NAME.match(lower, value_end) is not None):
        return True
    if (span_end := value_end - len(text[value_end - 2:value_end]) + len(text[value_end - 2:value_end].rstrip(").,"))) and (
            text[span_end - 1] == "`" and cannot_be_secret(text[value_start:span_end - 1]) and lower.rfind(
            "`", max(0, name_start - 64), name_start) >= 0):
        return True   # Pass `add_to_git_credential=True` in this function, (`token=True`): a code span in a sentence
    if ":" not in sep:
        return False
    if sep == ": " and text[value_end:value_end + 1] == " " and (
            lower[value_start:value_end] in PROSE_OPENERS or lower.endswith(EXCEPTION_ENDS, name_start, value_start - 2)
            and REASON_WORD.fullmatch(text, value_start, value_end) is not None):
        return True   # `Invalid token: expected a string of 37 characters`, `LocalTokenNotFoundError: Token is required`
    if token and (VOCABULARY_ID.match(lower, value_end) is not None or _piece_word_before(lower, name_start)):
        return not looks_generated(text[value_start:value_end])   # `token: 'world2' id: 14957`, `decoded token: world2`
    if REASON_WORD.fullmatch(text, value_start, value_end) is None:
        return False
    if "\n" in sep:
        line = PROMPT_OUTCOME_LINE.match(text, value_start)
        return line is not None and not OUTCOME_WORDS.isdisjoint(re.findall(r"[a-z]+", lower[value_start:line.end()]))
    before = lower[name_start - 96 if name_start > 96 else 0:name_start]
    return FAILED_TO_GET.search(before, before.rfind("\n") + 1) is not None


# Python logging's default format (`%(levelname)s:%(name)s:%(message)s`, basicConfig's) with a logger named `x.auth` or
# `x.credentials` (`DEBUG:botocore.auth:CanonicalRequest:`, `StringToSign:`, `Signature:`): the colon after the name
# opens its message, no value; a message that is a word and a colon ending the line (the lines under it the rules' own:
# the signature goes, h24a's store_prints), or a sentence (`DEBUG:botocore.credentials:Looking for credentials via: env`)
# is none (`DEBUG:app.auth:Zq8vN2mK5pL9xR4t`, `auth:Signature: X` still go)
LOGGER_LINE_START = re.compile(r"(?:(?<![\w:])|(?<=\\n))(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[A-Za-z_][\w.]{0,128}\Z")
MESSAGE_WORD = re.compile(r"[A-Za-z]{1,64}:")
MESSAGE_PROSE = re.compile(r"[A-Z]?[a-z]{1,63}")   # (a sentence's first word, then a blank and a small letter: `Looking for`)
MESSAGE_GOES_ON = re.compile(r" [a-z]{2}")
MESSAGE_END = re.compile(r"\r?\n|\Z|(?:\\r)?\\n|\\?[\"']")   # (the line's end, escaped too, or a JSON string's or a repr()'s)


def _logger_message(text: str, name_start: int, value_start: int, value_end: int) -> bool:
    """Whether the name at name_start (after a ".") ends a logger's name in Python logging's default format and the
    value after its colon is a word of the message."""
    if MESSAGE_PROSE.fullmatch(text, value_start, value_end) is not None and MESSAGE_GOES_ON.match(text, value_end):
        pass   # `DEBUG:botocore.credentials:Looking for credentials via: env`: a sentence
    elif (word := MESSAGE_WORD.match(text, value_start, value_end)) is None or MESSAGE_END.match(  # (in a repr(), the value
            text, word.end()) is None or word.end() < value_end and text[word.end()] != "\\":   # read on over escaped breaks)
        return False   # (`Signature: X` on the line: X is read as the value of the word's name, as before)
    line_start = max(text.rfind("\n", max(0, name_start - 160), name_start) + 1, name_start - 160)
    return LOGGER_LINE_START.search(text, line_start, name_start) is not None


# A sentence after a secret's name and its colon, opened by one of these words and a blank (`Invalid token: expected a
# string of 37 characters, got 0`, `token: is required`); an exception's message after its class's name
# (`LocalTokenNotFoundError: Token is required ...`: a word of letters then a blank): no value
PROSE_OPENERS = frozenset({"expected", "must", "should", "cannot", "is", "was", "has", "have", "does", "not", "missing",
                           "required", "empty", "too", "contains", "got", "needs"})
EXCEPTION_ENDS = ("error", "exception", "warning")
IDENTIFIER = re.compile(r"[A-Za-z_]\w{2,127}")


def _in_parameter_expansion(lower: str, name_start: int) -> bool:
    """Whether a name is a shell parameter expansion's (`${NAME:?msg}`): `${` before it with no
    `}` or blank between (128 characters looked at)."""
    before = lower[max(0, name_start - 128):name_start]
    opening = before.rfind("${")
    return opening >= 0 and "}" not in before[opening:] and " " not in before[opening:]


# A JSON object whose one key is `token` (`{"token": "world2"}`, a tokenizer's or a stream's piece per record; also inside a
# JSON string, its quotes escaped): its value is a piece unless shaped as a credential (token_value_is_credential)
RECORD_OPEN_BEFORE = re.compile(r"\{[ \t]{0,4}\\?\"\Z")
RECORD_CLOSE_AFTER = re.compile(r"\\?\"[ \t]{0,4}\}")


def _json_unescaped(value: str) -> str:
    """A JSON string's value with its escapes decoded (`\\u0120the`: a record read where its record is inside a JSON
    string), twice at most (JSON inside JSON); as it is where it holds none or is no JSON string's."""
    for _ in range(2):
        if "\\" not in value:
            break
        try:
            value = json.loads(f'"{value}"')
        except ValueError:
            break
    return value


def _only_key_of_a_record(text: str, name_start: int, value_start: int, value_end: int) -> bool:
    """Whether the name at name_start (`token`) is the one key of a JSON object whose value is the quoted string at
    value_start:value_end."""
    return (text[value_start - 1:value_start] == '"' and RECORD_CLOSE_AFTER.match(text, value_end) is not None
            and RECORD_OPEN_BEFORE.search(text, max(0, name_start - 8), name_start) is not None)


QUOTES = ("\"", "'")
LONGEST_KIND = max(map(len, OBJECT_KINDS))
FAILURE_WORDS = ("fail", "unable", "could", "cannot", "can't", "error")   # (FAILED_TO_GET's first words)


def _piece_word_before(lower: str, name_start: int) -> bool:
    """Whether the word before a name (`decoded token`) says a tokenizer's piece (PIECE_WORDS)."""
    if name_start < 2 or lower[name_start - 1] not in " \t":
        return False
    word = lower[max(0, name_start - 12):name_start - 1]
    return word[max(word.rfind(" "), word.rfind("\t"), word.rfind("\n")) + 1:].lstrip("\"'\\") in PIECE_WORD_SET   # (a JSON string's quote)


def _logprob_near(lower: str, name_start: int, value_end: int) -> bool:
    """Whether `logprob` is on the line of a name (LOGPROB_REACH characters each side at most)."""
    if lower.find("logprob", max(0, name_start - LOGPROB_REACH), value_end + LOGPROB_REACH) < 0:
        return False
    start = lower.rfind("\n", max(0, name_start - LOGPROB_REACH), name_start) + 1
    end = lower.find("\n", value_end, value_end + LOGPROB_REACH)
    return lower.find("logprob", max(start, name_start - LOGPROB_REACH),
                      end if end >= 0 else value_end + LOGPROB_REACH) >= 0


def names_a_variable(rest: str) -> bool:
    """Whether what follows an Authorization scheme (as written) is a shell's or Windows' variable in capitals, or any
    braced one (`Bearer $OPENAI_API_KEY`, `${HF_TOKEN}`, `%API_KEY%`): a password may start with "$"."""
    rest = rest.strip().removesuffix("\\")
    return URL_REFERENCE.fullmatch(rest) is not None or PERCENT_REFERENCE.fullmatch(rest) is not None


def without_no_values(text: str, lower: str, spans: list, tokens: bool, values) -> list:
    """The spans of assignments found in bulk (name at span[4], value span[0]:span[1]) but those names_no_value keeps
    (asked only where the keyword is token's, `tokens`, or one of the distinct `values` may be kept)."""
    if not spans:
        return spans
    region = lower[max(0, spans[0][4] - 96):spans[-1][1] + LOGPROB_REACH]
    failures = any(word in region for word in FAILURE_WORDS)
    logger = ".auth:" in region or ".credentials:" in region   # (`DEBUG:botocore.auth:StringToSign:`: _logger_message)
    pieces = tokens and ("logprob" in region or "id" in region or "{" in region or any(word in region for word in PIECE_WORDS))
    maybe = {value for value in values if value.startswith(TOKEN_PIECE_MARKS) or value.endswith("`")
             or value.lower() in OBJECT_KINDS or failures and REASON_WORD.fullmatch(value) is not None
             or PERL_READ.fullmatch(value) is not None or logger and MESSAGE_PROSE.fullmatch(value.rstrip(":")) is not None
             or value[:1] == "?" or value.lower() in PROSE_OPENERS}
    if not maybe and not pieces:
        return spans
    return [span for span in spans if not ((pieces or text[span[0]:span[1]] in maybe) and names_no_value(
        text, lower, span[4], lower[span[4]:span[0]], span[0], span[1]))]


# (lower-cased) a placeholder of words with blanks after a scheme, as docs write it: `Bearer <your access token here>`
SPACED_AUTH_PLACEHOLDER = re.compile(r"<(?=(?:[a-z]{1,24}[ _-]){0,8}(?:your|enter|insert|paste|here|my)\b)"
                                     r"[a-z]{1,24}(?:[ _-][a-z]{1,24}){1,8}>")


def spaced_placeholder_after(lower: str, value_start: int, value_end: int) -> bool:
    """Whether an Authorization value (`bearer <your`, cut at its blank) is a scheme then a placeholder of words."""
    scheme, blank, rest = lower[value_start:value_end].partition(" ")
    return bool(blank) and rest.startswith("<") and SPACED_AUTH_PLACEHOLDER.match(
        lower, value_end - len(rest)) is not None


# One rule for a value under a name that says only token (or key) and nothing of its kind: a listing's TOKEN or KEY
# column (tables._aligned_secret, kind 3) and a JSON record whose one key is `token` (names_no_value) ask it alike.
# A tokenizer's piece or a credential: byte-level BPE (GPT-2, cl100k/o200k, Llama 3, Qwen) splits letters from digits
# before merging, so none of its pieces holds both; SentencePiece with split digits (Llama 2, Mistral) neither; a piece
# carries its tokenizer's mark (`Ġthe`, `▁world`, `Ċ`, `##ing`, `hello</w>`) or brackets (`<s>`, `<|endoftext|>`, `<0x0A>`,
# `[CLS]`, `[unused12]`), or is a word, camel-case words (`JavaScript`, `getElementById`), digits, punctuation, or a
# WordPiece's or a stream's short piece (`world2`). A credential is generated (looks_generated, announced's 12+ letters
# and digits both, 32+ hex, kubeadm's `abcdef.0123456789abcdef`), or password-shaped: letters and digits in 8+
# characters (`hunter22`, `token-abc123`), capitals, small letters and digits in 6+ (`Hunter2`), a symbol after a letter
# in 8+ (`P@ssword`, `Winter2024!blue`), mixed case in 8+ that does not read as words (`aBcDeFgH`).
KUBEADM_TOKEN = re.compile(r"[a-z0-9]{6}\.[a-z0-9]{16}")   # (a token's shape with a dot, which looks_generated refuses)
VOCABULARY_PIECE = re.compile(r"(?:##|[\u0120\u2581\u010a])[^\n]{0,63}|<\|?[^<>\s]{1,62}\|?>|\[[^\[\]\s]{1,62}\]"
                              r"|[^\s<>]{1,60}</w>")
PASSWORD_SYMBOLS = "-_./:'"   # (what looks_like_password counts as no symbol; a word's apostrophe too)


def token_value_is_credential(value: str) -> bool:
    """Whether a value under a name that says only token (or key) is a credential, not a tokenizer's piece (above)."""
    if not value or len(value) > 64:
        return bool(value)
    if VOCABULARY_PIECE.fullmatch(value) is not None:
        inner = value.strip("<>[]|#/\u0120\u2581\u010a")   # (a generated value in brackets is none of the vocabulary's)
        return looks_generated(inner) or is_hex_key(inner)
    if (looks_generated(value) or _generated(value) or is_hex_key(value)
            or KUBEADM_TOKEN.fullmatch(value) is not None):
        return True
    if len(value) < 6 or not looks_like_password(value):
        return False
    digits = any(c.isdigit() for c in value)
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    if digits and (len(value) >= 8 or upper and lower):
        return True
    if len(value) < 8:
        return False
    return any(not c.isalnum() and c not in PASSWORD_SYMBOLS for c in value[1:]) or (
        upper and lower and not reads_as_words(value))
