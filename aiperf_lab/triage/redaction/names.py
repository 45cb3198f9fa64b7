"""Which names say secret (is_secret_name, is_secret_flag and their word tables) and the judgements of a value
that need no text around it: cannot_be_secret, a location, a hash, a model's name, a password's or a generated
key's look, a known secret's escaped and encoded forms."""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import re
from collections.abc import Mapping
from urllib.parse import quote, quote_plus


# Whether a name (an environment variable, a flag, a key in printed text) says its value is secret,
# judged by whole words (split on _ - . and lower-to-upper case changes), never by a substring: MAX_NEW_TOKENS,
# TOKENIZER_NAME, SORT_KEY, AUTHOR, SESSION_NAME, SIGNATURE_VERSION hold no secret (see is_secret_name).
SECRET_WORDS = {"token", "secret", "secrets", "password", "passwords", "passwd", "pass", "pw", "passphrase", "passcode",
                "pgpass", "credential", "credentials", "creds", "cred", "auth", "authn", "authorization", "salt",
                "cookie", "cookies", "bearer", "otp", "dbpass", "hmac", "mfa", "jwt", "sig", "signature",
                "webhook", "totp", "hotp", "privkey", "apikey", "apitoken", "authtoken", "authkey", "accesstoken", "accesskey",
                "refreshtoken", "privatekey", "secretkey", "signingkey", "accountkey", "masterkey", "sessionid",
                "sessionkey", "sessiontoken", "clientsecret", "idtoken", "passkey", "psk",
                # a hash's pepper (as salt, kept apart from the hashes); an OpenAI key's name glued (OPENAIKEY, OpenAIKey)
                "pepper", "openaikey", "aikey",
                # Redis's password settings as flags and names (`redis-server --requirepass X`, REDIS_MASTERAUTH)
                "requirepass", "masterauth"} | {
    # the word for password (and for token) in the languages tools and people write in: German, Dutch, Spanish,
    # Portuguese, French (MOT_DE_PASSE: SECRET_PAIRS), Polish, Turkish, Russian (`parol` in Latin letters too), Japanese,
    # Chinese, Korean
    "passwort", "kennwort", "wachtwoord", "contraseña", "contrasena", "senha", "hasło", "haslo", "şifre", "sifre",
    "jeton", "parol", "пароль", "токен", "パスワード", "トークン", "密码", "密碼", "口令", "密钥", "密鑰", "令牌", "비밀번호", "패스워드",
    "토큰", "秘密鍵"}
# KEY, KEYS, PIN and SIGNING are secret ending a name (API_KEY, DEPLOY_KEYS, ADMIN_PIN, API_SIGNING) unless the word before
# says what kind of non-secret key it is (SORT_KEY, CACHE_KEY, CPU_PIN); KEY inside a name when paired
# (API_KEY_ID, KEY_MATERIAL, SESSION_ID).
END_WORDS = {"key", "keys", "pin", "signing", "license", "licence", "pat"}
# PAT ending a name is a personal access token (GH_PAT, CR_PAT) unless the word before says it is a pattern (FILE_PAT)
NOT_TOKEN_PATTERN_KINDS = {"file", "files", "glob", "match", "search", "grep", "regex", "re", "name", "path", "include",
                           "exclude", "ignore", "filter", "line", "word"}
# TOKENS are counted in ML (MAX_NEW_TOKENS, PROMPT_TOKENS): secret only after a word naming a kind of credential
# (API_TOKENS, ACCESS_TOKENS, HF_TOKENS)
CREDENTIAL_TOKEN_KINDS = {"api", "access", "auth", "bearer", "refresh", "id", "hf", "github", "gh", "gitlab", "session",
                          "service", "bot", "oauth", "npm", "pypi", "slack", "discord", "personal", "deploy",
                          "registry", "client", "app", "admin", "secret", "security", "hub"}
NOT_SECRET_KEY_KINDS = {"sort", "cache", "partition", "primary", "foreign", "hash", "group", "shard", "routing",
                        "dict", "lookup", "index", "map", "join", "unique", "row", "column", "record", "object",
                        "metric", "config", "label", "lock", "dedup", "idempotency", "queue", "field", "state",
                        "input", "output", "target", "attribute", "hot", "cpu", "gpu", "numa", "core", "thread",
                        "irq", "public", "pub", "host", "known", "jwks", "trace", "span", "bucket", "prefix", "rng",
                        "random", "seed", "hotkey", "sorting"}
SECRET_PAIRS = {("api", "key"), ("access", "key"), ("private", "key"), ("secret", "key"), ("signing", "key"),
                ("encryption", "key"), ("master", "key"), ("client", "key"), ("account", "key"), ("license", "key"),
                ("key", "material"), ("session", "id"), ("session", "key"), ("service", "account"), ("ssh", "key"),
                ("deploy", "key"), ("gpg", "key"), ("pgp", "key"), ("priv", "key"), ("shared", "key"), ("sas", "key"),
                ("az", "sas"), ("azure", "sas"),   # (an Azure SAS token under AZ_SAS / AZURE_SAS; SAS_URL stays a setting)
                ("kubeconfig", "data"),
                # tools' own: Bitwarden's BW_SESSION, 1Password's OP_SESSION_<account>, fastlane's FASTLANE_SESSION (a
                # session is otherwise a name: TMUX_SESSION); a cloud SDK's secret key as SK (AWS_SK, HUAWEICLOUD_SDK_SK;
                # SK alone is DynamoDB's sort key); OCI's OCI_CLI_KEY_CONTENT (the key itself, not its file)
                ("bw", "session"), ("op", "session"), ("fastlane", "session"), ("aws", "sk"), ("sdk", "sk"),
                ("key", "content"),
                # a secret key, a password in two words in other languages (CLAVE_SECRETA, MOT_DE_PASSE, GIZLI_ANAHTAR)
                ("de", "passe"), ("palavra", "passe"), ("clave", "secreta"), ("chave", "secreta"), ("chiave", "segreta"),
                ("geheime", "sleutel"), ("geheimer", "schlüssel"), ("cle", "secrete"), ("clé", "secrète"),
                ("tajny", "klucz"), ("klucz", "tajny"), ("gizli", "anahtar"), ("секретный", "ключ")}
# A word after the secret word that makes the name a quantity, a setting or a label, not a secret:
# TOKEN_BUDGET, *_TOKEN_COUNT, PASSWORD_LENGTH, SECRET_NAME, AUTH_TYPE, API_KEY_HEADER, TOKEN_FILE;
# or one before it: MAX_TOKEN_LEN, NUM_PASS, PER_TOKEN_LATENCY_MS, HF_HUB_DISABLE_IMPLICIT_TOKEN.
QUANTITY_WORDS = {"count", "counts", "size", "sizes", "len", "length", "lengths", "budget", "limit", "limits", "name",
                  "names", "throughput", "latency", "latencies", "rate", "rates", "ms", "us", "ns", "sec", "secs",
                  "seconds", "per", "num", "max", "min", "total", "avg", "mean", "std", "p50", "p90", "p95", "p99",
                  "type", "types", "kind", "mode", "method", "methods", "version", "header", "field", "ttl", "timeout",
                  "expiry", "expires", "lifetime", "duration", "url", "uri", "endpoint", "host", "port", "domain",
                  "path", "dir", "file", "files", "provider", "enabled", "disabled", "enable", "disable", "required",
                  "require", "use", "implicit", "no", "skip", "strategy", "format", "env", "var", "user", "username",
                  "email", "policy", "scope", "scopes", "position", "positions", "ids", "index", "idx",
                  "usage", "speed", "time", "times", "step", "steps", "window", "dim", "dims", "vocab", "estimate",
                  "fraction", "ratio", "percent", "pct", "bytes", "mb", "gb", "kb", "tps", "qps", "algo", "alg",
                  "algorithm", "algorithms", "stdin", "prompt", "ref", "refs",   # (secretRef, secretKeyRef: a reference)
                  "validity", "interval", "renew", "renewal", "period",   # (Hadoop's token.validity, token.renew-interval)
                  "hint", "help", "description", "doc", "docs",   # (password_hint: |, api_key_help: >: text for a person)
                  "encryption", "hashing"}   # (PostgreSQL's password_encryption = 'scram-sha-256': how, not what)
QUANTITY_WORDS |= {"backend", "backends", "policies",   # (SECRET_BACKEND=vault: where secrets are kept; vault's token_policies)
                   "sauce"}   # (secret_sauce: the idiom, a config's joke name)
# ... or before it (MAX_TOKEN_LEN, NUM_PASS, HF_HUB_DISABLE_IMPLICIT_TOKEN, USE_AUTH_TOKEN).
QUALIFIER_BEFORE = {"max", "min", "num", "n", "total", "per", "avg", "mean", "disable", "enable", "use", "implicit", "no",
                    "skip", "allow", "require",
                    "existing"}   # (Helm charts' auth.existingSecret=db-creds: the name of a Kubernetes Secret)
# One word that ends with a secret word is one too (PGPASSWORD, HFTOKEN, CLIENTSECRET from clientSecret).
# Tools' own one-word names too: SSHPASS (sshpass -e), LDAP_BINDPW / BINDPASS, slapd's ROOTPW, keytool's STOREPASS and
# KEYPASS (SRCSTOREPASS, DESTKEYPASS), APPKEY, git's sendemail.smtpPass. (PGPASSFILE, GIT_ASKPASS name a file and a program: no such ending.)
SECRET_SUFFIXES = ("token", "secret", "password", "passwd", "apikey", "accesskey", "privatekey", "secretkey", "privkey",
                   "authkey", "passphrase", "passcode", "credential", "credentials", "creds", "passkey",
                   "sshpass", "bindpw", "bindpass", "rootpw", "storepass", "keypass", "appkey", "smtppass",
                   "passwort", "kennwort", "wachtwoord", "contraseña", "contrasena")   # (DBPASSWORT, DATENBANKKENNWORT)
NOT_SECRET_WORDS = {"tiktoken"}
# (session 25) Names whose KEY is a service's API key, decided by the name as API_KEY is (any value but a setting, a
# number, a reference): a model provider's, a tracker's, a vector store's (`openai_key: X`, `WANDB_KEY=X`, `wandbKey`);
# other names ending in KEY take a key-shaped value only (KEY_ASSIGNMENT: `sort_key: name`, `first_stage_key: image`,
# and `hf_key: model.norm.weight`, a checkpoint converter's weight name). And a JWT under a name ending in JWT
# (`SLURM_JWT=X`, Slurm's REST token: a credential whatever its shape; `jwt_audience: X` and `jwt_issuer: X` stay).
SERVICE_KEY_WORDS = ("openai", "azure_openai", "anthropic", "claude", "cohere", "groq", "mistral", "gemini", "google",
                     "wandb", "comet", "neptune", "pinecone", "together", "replicate", "deepseek",
                     "fireworks", "perplexity", "voyage", "ngc", "nvidia", "openrouter", "xai", "stripe", "sendgrid",
                     "azure", "weaviate", "qdrant", "elevenlabs", "tavily", "deepgram", "assemblyai", "runpod",
                     # and SECRET_PAIRS' (X, "key") that no keyword of SECRET_ASSIGNMENTS reads yet (LiteLLM's
                     # `master_key: sk-1234`, ENCRYPTION_KEY, SIGNING_KEY, CLIENT_KEY, LICENSE_KEY, SESSION_KEY; not ssh,
                     # gpg and pgp, whose printed values are public keys and key ids)
                     "master", "encryption", "signing", "client", "license", "shared", "deploy", "session", "sas",
                     "priv", "account")
SERVICE_KEY_WORDS_BY_LAST = {last: [word for word in SERVICE_KEY_WORDS if word[-1] == last]
                             for last in sorted({word[-1] for word in SERVICE_KEY_WORDS})}
SERVICE_KEY_WORD_ENDS = sorted({word[-2:] for word in SERVICE_KEY_WORDS})
# (one look-behind for the words' last two letters, then one for the last letter, then the words': a look-behind a word
# at every `key` made `key-` repeated 2.7 times as slow as without this keyword; the union is the same, each look-behind
# implying the ones before it; no group inside a look-behind: assignments' apart scans drop
# the look-behinds by a pattern that reads none)
SERVICE_KEY_KEYWORD = "key(?:" + "|".join(
    "(?<=" + "|".join(f"{end}{separator}key" for end in SERVICE_KEY_WORD_ENDS) + ")(?:" + "|".join(
        f"(?<={last}{separator}key)(?:" + "|".join(f"(?<={word}{separator}key)" for word in words) + ")"
        for last, words in SERVICE_KEY_WORDS_BY_LAST.items()) + ")"
    for separator in ("[_-]", "")) + ")(?![a-z])"
JWT_KEYWORD = r"jwt(?<![a-z0-9]jwt)(?![\w.-])"
NAME_WORD_SPLIT = re.compile(r"[_.\-]+")
CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Values that cannot be a secret, however the name sounds: settings, booleans, nothing, a number with
# a decimal point or of at most 4 digits (`secret=False`, `api_key=None`, `token_count: 512`, `gpu_pw=350.2`).
NOT_A_SECRET_WORDS = frozenset({"true", "false", "yes", "no", "none", "null", "nil", "on", "off", "enabled", "disabled",
                                "auto", "default", "unset", "undefined", "n/a", "[redacted]"})
NOT_A_SECRET_NUMBER = re.compile(r"-?[0-9]{1,4}|-?[0-9]*\.[0-9]+(?:[eE][+-]?[0-9]+)?|-?[0-9]+[eE][+-]?[0-9]+")
# Values of secret-named variables that are settings, not secrets (TOKENIZERS_PARALLELISM=false).
NOT_SECRET_VALUES = {"true", "false", "yes", "no", "none", "null", "on", "off", "enabled", "disabled", "auto",
                     "default", "unset"}
MIN_SECRET_LEN = 5
# Values that say a secret is not there, in English and the languages tools print in (`secret: missing`, `Clé
# secrète : manquante`, `Kennwort: fehlt`): a word of a sentence about the secret, not its value. Read only where a
# name was given a value in text (not for an environment variable's or an argument's value, which is hidden by name).
ABSENT_WORDS = frozenset({
    "missing", "absent", "empty", "notset", "not_set", "not-set", "unknown",
    "manquant", "manquante", "manquants", "manquantes", "absente", "aucun", "aucune", "vide", "indéfini", "indéfinie",
    "fehlt", "leer", "keins", "keines", "fehlend", "ausente", "vacío", "vacía", "vacio", "vacia", "ninguno", "ninguna",
    "vazio", "vazia", "nenhum", "nenhuma", "mancante", "assente", "vuoto", "vuota", "nessuno", "nessuna",
    "leeg", "ontbreekt", "geen", "brak", "pusty", "puste", "yok", "boş", "bos", "отсутствует", "пусто", "пустой", "нет",
    "なし", "無し", "未設定", "空", "无", "無", "未设置", "未設置", "없음", "미설정"})
# A value that is one of these and is followed by a word (`password: not set`, `Clé secrète : non définie`,
# `Passwort: nicht gesetzt`) is the first word of a sentence.
NEGATION_WORDS = frozenset({"not", "non", "pas", "nicht", "kein", "keine", "sin", "sem", "senza", "niet", "nie", "não",
                            "nao", "не"})
# A value that is one of these or a negation's word and is followed by what is not a plain word (`password: not
# Hunter2x9`, `password: no Hunter2x9`, `password: none Hunter2x9`): the value is both, and goes whole.
NEGATED_VALUE_STARTS = NEGATION_WORDS | {"no", "none", "null", "nil"}
_OPENING_BRACKETS = "([<"


# ... and in brackets, the words a tool prints in a secret's place when there is none or it is not shown (`Password:
# (none)`, `token: (null)`, `secret: [not set]`, `Password: (hidden)`); "never" alone (`Password: Never`, an account
# listing's password that never expires or was never set). A run of stars is a mask (`Password: ********`).
BRACKETED_ABSENT_WORDS = frozenset({"none", "null", "nil", "unset", "not set", "not-set", "not_set", "hidden", "masked",
                                    "redacted", "not shown", "not available"})
MASK_STARS = re.compile(r"\*{3,64}")


def says_absent(value: str) -> bool:
    """A value that says there is no secret (ABSENT_WORDS, maybe in brackets: `(missing)`, `<empty>`; the words of
    BRACKETED_ABSENT_WORDS in brackets: `(none)`, `[not set]`; never; a mask of stars)."""
    bare = value.strip("()[]<>.!").lower()
    return (bare in ABSENT_WORDS or bare == "never" or (bare in BRACKETED_ABSENT_WORDS and value[:1] in _OPENING_BRACKETS
                                                        and value[-1:] in ")]>")
            or MASK_STARS.fullmatch(value) is not None)


# A tokenizer's special tokens (`pad_token: [PAD]`, `eos_token = EOS`, `bos_token: <s>`, `"pad_token":
# "<|endoftext|>"`): under a name whose last words are one of these kinds and TOKEN, a marker in brackets or angle
# brackets, or a short word in capitals, is the vocabulary's marker, not a credential (a token's shape or a random
# string still goes: `pad_token: hf_...`, `bos_token = Zq8Das1x`). The name stays a secret's (is_secret_name): its
# other values, and `tokenizer.pad_token = tokenizer.eos_token` read as code, are judged as before.
SPECIAL_TOKEN_KINDS = frozenset({"pad", "sep", "cls", "mask", "unk", "bos", "eos", "eot", "eod"})
SPECIAL_TOKEN_VALUE = re.compile(r"\[[A-Z][A-Z_]{0,15}\]|<\|?/?[A-Za-z0-9_.-]{0,64}\|?>|[A-Z][A-Z_]{1,11}")


@functools.lru_cache(maxsize=1024)
def names_special_token(name: str) -> bool:
    """A special token's name (SPECIAL_TOKEN_KINDS then TOKEN: pad_token, EOS_TOKEN, padToken)."""
    words = name_words(name)
    return len(words) >= 2 and words[-1] == "token" and words[-2] in SPECIAL_TOKEN_KINDS


# A generated value in angle brackets (`Password: <Zq8vN2mK5pL9xR4t>`), where a special token or a placeholder is
# expected: 8 to 64 letters and digits alone with a digit, a small letter and a capital past the first, which no special
# token (`<extra_id_0>`, `<0x0A>`, `<unk>`) or placeholder (`<REDACTED>`, `<your-token>`) has (a pattern's piece, after `<`)
ANGLED_GENERATED = r"(?=[A-Za-z0-9]{8,64}>)(?=[A-Za-z0-9]{0,63}[0-9])(?=[A-Za-z0-9]{0,63}[a-z])[A-Za-z0-9]{1,63}?[A-Z]"


# A value set apart by blanks inside brackets (`password: < Zq8vN2mK5pL9xR4t >`, `token: { Zq8vN2mK5pL9xR4t }`): one
# word of 8 to 64 key characters, then the closing bracket (a pattern's piece, after the opening one and its blanks;
# the value is judged as any is: `< hidden >`, `{ get_password() }` stay)
SPACED_IN_BRACKETS = r"[A-Za-z0-9+/=_.-]{8,64}[ \t]{1,4}[>}]"


def special_token_value(name: str, value: str) -> bool:
    """A special token's marker under its name (see SPECIAL_TOKEN_KINDS)."""
    return SPECIAL_TOKEN_VALUE.fullmatch(value) is not None and names_special_token(name)


def opens_a_negation(value: str) -> bool:
    """A value that is a negation's word (NEGATION_WORDS), maybe after an opening bracket: `(not`, `[non`."""
    return value.lstrip(_OPENING_BRACKETS).lower() in NEGATION_WORDS


# A name whose words after the secret's say when something befell it (`Password Last Set`, `Password expires`,
# `password_changed_at`), with a date, a time or "never" for a value (Windows' `net user`, `chage -l`, an account
# listing): a record of when, not the secret.
WHEN_WORDS = frozenset({"last", "set", "expires", "expired", "expiry", "expiration", "changed", "changeable", "created",
                        "updated", "modified", "rotated", "issued", "age", "date", "time", "at", "since", "until"})
DATE_OR_TIME = re.compile(r"(?:[0-9]{1,4}[/.-][0-9]{1,2}[/.-][0-9]{1,4}(?:[ T,]{1,2}(?=[0-9]))?)?"
                          r"(?:[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]{1,9})?)?)?(?<=[0-9])"
                          r"(?:[ ]?(?:AM|PM|am|pm))?(?:[ ]?(?:Z|UTC|GMT|[+-][0-9]{2}:?[0-9]{2}))?|never|Never|NEVER")


def tells_when(name: str, value: str) -> bool:
    """A name of WHEN_WORDS after a secret's word, given a date, a time or "never" (see WHEN_WORDS)."""
    return _names_a_when(name) and DATE_OR_TIME.fullmatch(value.strip()) is not None


@functools.lru_cache(maxsize=4096)
def _names_a_when(name: str) -> bool:
    """tells_when's test of the name alone (a log repeats its names: each read once)."""
    words = name_words(name)
    return len(words) > 1 and words[-1] in WHEN_WORDS and not SECRET_WORDS.isdisjoint(words[:-1])


FRAGMENT = 12               # a piece of a known secret this long that starts or ends it goes, anywhere
CHAIN = 48                  # how far the regex itself grows a piece; code goes on from there
WRAP_REST = 3               # the rest of a secret cut by a line wrap goes from this length up
# A value that names a file or folder (GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json) is where a
# secret lives, not the secret: hunting it would wipe every path that shares it.
LOCATION = re.compile(r"(?:~|\.{1,2})?/[\w.@~-]+(?:/[\w.@~-]*)+|(?:~|\.{1,2})?/[\w@~-]+\.[A-Za-z0-9]{1,8}")
# A bare hex key (an old GitHub token, many API keys) looks like a git commit or a sha256: it is a secret
# where nothing says it is a hash (a variable or flag named commit, sha, revision, hash, id, ...).
HEX_KEY = re.compile(r"[0-9a-fA-F]{32,64}")
HASH_NAME_WORDS = {"commit", "sha", "sha1", "sha256", "rev", "revision", "hash", "digest", "checksum", "id", "uuid",
                   "version", "ref", "head", "build", "tag", "git", "etag", "md5", "fingerprint"}
# A value after -p that is a number, a port map or a range (8080, 8080:80, 0.5, 1e-4), not a password.
NUMBER_LIKE = re.compile(r"[0-9][0-9.:,x_/+-]*|[0-9.]+[eE][+-]?[0-9]+")

FLAG_PREFIX = re.compile(r"^-{1,2}")


def name_words(name: str) -> list[str]:
    """The lower-cased words of a name: split on _ - . and where a small letter or digit meets a capital."""
    return [w for w in NAME_WORD_SPLIT.split(CAMEL_BOUNDARY.sub("_", name).lower()) if w]


@functools.lru_cache(maxsize=4096)
def name_word_tuple(name: str) -> tuple[str, ...]:
    """name_words of a name, remembered (a log repeats its names): for names of 64 characters at most."""
    return tuple(name_words(name))


def is_secret_name(name: str) -> bool:
    """Whether a name says its value is secret, judged by whole words (see SECRET_WORDS and the sets
    after it): a secret word (TOKEN, SECRET, PASSWORD, PASS, PW, CREDS, AUTH, COOKIE, OTP, ... or a word
    ending in one, PGPASSWORD), KEY / KEYS / PIN / LICENSE / PAT ending the name unless the word before names a
    harmless kind (SORT_KEY, FILE_PAT), TOKENS after a credential's kind (API_TOKENS, not PROMPT_TOKENS), a secret pair (API_KEY_ID, KEY_MATERIAL, SESSION_ID, SERVICE_ACCOUNT_JSON), PWD in a
    longer name (DB_PWD; PWD itself is the working directory); and then no quantity or setting word
    after it (TOKEN_BUDGET, TOKEN_COUNT, AUTH_TYPE) nor a count word before it (MAX_TOKEN_LEN, NUM_PASS)."""
    words = name_words(name)
    last = len(words) - 1
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        if word == "token" and words[i + 1:i + 2] in (["id"], ["ids"]):
            continue  # EOS_TOKEN_ID, pad_token_id: an index in a vocabulary
        secret = (word in SECRET_WORDS or (word.endswith(SECRET_SUFFIXES) and word not in NOT_SECRET_WORDS)
                  or (word in END_WORDS and i == last and before not in NOT_SECRET_KEY_KINDS
                      and (word != "pat" or before not in NOT_TOKEN_PATTERN_KINDS))
                  or (word == "tokens" and before in CREDENTIAL_TOKEN_KINDS)
                  or (before, word[:-1] if word == "keys" else word) in SECRET_PAIRS
                  or (word == "pwd" and last > 0)
                  or (word[-1:].isdigit() and _numbered_secret_word(before, word)))
        if secret and QUANTITY_WORDS.isdisjoint(words[i + 1:]) and (QUALIFIER_BEFORE.isdisjoint(words[:i]) or (
                words[:i] == ["existing"] and word == "token" and i == last)):   # (kfp's existing_token: a token)
            return True
    return False


def _numbered_secret_word(before: str, word: str) -> bool:
    """A secret word with a number stuck to it (DB_PASSWORD2, HF_TOKEN2, TOKEN1, API_KEY2, --password2): only words
    that say secret on their own (ending in a SECRET_SUFFIXES word, or a SECRET_PAIRS pair's second word), never a weak
    or generic one (key1, pass2, sig1: a dict's keys, a compiler's passes)."""
    bare = word.rstrip("0123456789")
    return bool(bare) and ((bare.endswith(SECRET_SUFFIXES) and bare not in NOT_SECRET_WORDS)
                           or (before, bare) in SECRET_PAIRS)


def is_secret_flag(arg: str) -> bool:
    """--password, --db-pass, --passphrase, --api-key, --hf-token, --secret, --pwd, --pat: a flag whose
    value is secret (the same words as is_secret_name)."""
    return _is_secret_flag_name(arg.partition("=")[0])


@functools.lru_cache(maxsize=4096)   # (a printed trace repeats its flags on every line)
def _is_secret_flag_name(flag: str) -> bool:
    name = FLAG_PREFIX.sub("", flag)
    words = name_words(name)
    return is_secret_name(name) or words in (["pwd"], ["pat"]) or (len(words) > 1 and words[-1] == "pat")


def secret_env_names(environ: dict[str, str]) -> list[str]:
    return sorted(name for name in environ if is_secret_name(name))


def escaped_forms(value: str) -> set[str]:
    """The ways a program commonly prints a string: as is, repr(), JSON, URL-encoded, HTML-escaped;
    and each line of a value that spans lines (a key in a variable prints over several)."""
    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1], repr(value)[1:-1],
             value.encode("unicode_escape").decode("ascii"), quote(value, safe=""), quote(value),
             quote_plus(value), html.escape(value), html.escape(value, quote=False)}
    forms |= {re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f) for f in list(forms) if "%" in f}
    # escaped twice (json.dumps of a JSON text), shell-quoted ('\'' and '"'"'), bytes repr, case-folded
    forms |= {json.dumps(f)[1:-1] for f in list(forms)}
    forms |= {value.replace("'", "'\\''"), value.replace("'", "'\"'\"'"), repr(value.encode())[2:-1]}
    if not value.isascii() or not value.isprintable() or any(c in value for c in "\"'\\"):
        forms |= _nested_escapes(value)
    if len(value) >= 8:
        forms |= {value.upper(), value.lower()}
    if "\n" in value:
        forms |= {line.strip() for line in value.splitlines() if len(line.strip()) >= 8}
    forms |= encoded_forms(value)  # (a key in a variable, printed base64- or hex-encoded whole)
    if len(value) >= 8:  # `base32` of it (the characters that depend on it alone), and `rev` of it
        encoded = base64.b32encode(value.encode()).decode()
        forms |= {encoded.rstrip("="), value[::-1]}
    return {f for f in forms if len(f) >= MIN_SECRET_LEN}


NESTED_ESCAPES_DEPTH = 4
NESTED_ESCAPES_MOST = 256


def _nested_escapes(value: str) -> set[str]:
    """A value that escaping changes (a quote, a backslash, a control or non-ASCII character) escaped up to
    NESTED_ESCAPES_DEPTH times over, each time by JSON (either ensure_ascii), repr (of the str or of its UTF-8 bytes) or
    with only its backslashes doubled, and its single quotes too (repr inside a longer string picks its quotes by the
    whole: `'payload=%r' % json.dumps(body)`); at most NESTED_ESCAPES_MOST forms, each a literal looked for."""
    found: set[str] = set()
    level = {value}
    for _ in range(NESTED_ESCAPES_DEPTH):
        following: set[str] = set()
        for form in level:
            doubled = form.replace("\\", "\\\\")
            following |= {json.dumps(form)[1:-1], json.dumps(form, ensure_ascii=False)[1:-1], repr(form)[1:-1],
                          repr(form.encode())[2:-1], doubled, doubled.replace("'", "\\'"), doubled.replace('"', '\\"')}
        level = following - found - {value}
        if not level or len(found) + len(level) > NESTED_ESCAPES_MOST:
            break
        found |= level
    return found


def encoded_forms(value: str) -> set[str]:
    """Base64 (standard and URL-safe) and hex of a value, also where it sits inside a larger encoded
    text (base64("user:" + value), as in a Docker auth): base64 of value[o:] for o = 0, 1, 2 covers
    every alignment; only the characters that depend on the value alone are kept, and only when 12 or
    more, so a short common run is not taken for a secret."""
    data = value.encode()
    forms = {data.hex(), data.hex().upper()}
    for offset in range(3):
        part = data[offset:]
        whole = len(part) // 3 * 4
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(part).decode()
            forms |= {encoded, encoded[:whole]}
    return {f for f in forms if len(f) >= 12}


def _base64_forms(value: str) -> set[str]:
    """Base64 (standard and URL-safe) of a value at its three alignments, the characters that depend on
    the value alone (as encoded_forms keeps them)."""
    data = value.encode()
    forms = set()
    for offset in range(3):
        part = data[offset:]
        whole = len(part) // 3 * 4
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            forms.add(encode(part).decode()[:whole])
    return forms


def _holder_encoded_forms(value: str) -> set[str]:
    """A secret-holding value's base64 and hex (encoded_forms), and its base64 cut in the 76-character lines
    that `base64` prints."""
    forms = encoded_forms(value)
    encoded = base64.b64encode(value.encode()).decode()
    forms |= {encoded[at:at + 76] for at in range(0, len(encoded), 76) if len(encoded) > 76 and len(encoded) - at >= 24}
    return forms


# Placeholders that tools document for a key they do not check (vLLM's and llama.cpp's OpenAI servers:
# OPENAI_API_KEY=EMPTY, sk-no-key-required): hunting one as a known secret would hide every "EMPTY" in a bundle.
# (The variable itself is still hidden in environment.txt.) A run of one character (xxxxxxxx, ********) is none.
PLACEHOLDER_SECRETS = frozenset({"empty", "dummy", "placeholder", "unused", "not-needed", "not_needed", "notneeded",
                                 "sk-no-key-required", "no-key", "nokey", "fake", "fake-key", "dummy-key", "sk-dummy",
                                 "sk-fake", "your-api-key", "your_api_key"})


def worth_hiding(value: str) -> bool:
    folded = value.strip().lower()
    return (len(value) >= MIN_SECRET_LEN and folded not in NOT_SECRET_VALUES and folded not in PLACEHOLDER_SECRETS
            and len(set(folded)) > 1)


_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def cannot_be_secret(value: str) -> bool:
    """A value no secret can be: a boolean or setting word, nothing, a number with a decimal point or of
    at most 4 digits (a secret-sounding name with such a value keeps it: `secret=False`, `gpu_pw=350.2`)."""
    value = value.strip()
    if not value:
        return True
    if value[0] in "0123456789-.":
        return NOT_A_SECRET_NUMBER.fullmatch(value) is not None
    return value.lower() in NOT_A_SECRET_WORDS


# (session 26) LiteLLM's proxy config names the variable a key is read from (`api_key: os.environ/AZURE_API_KEY`,
# `master_key: os.environ/LITELLM_MASTER_KEY`): a reference, as `${AZURE_API_KEY}` is, not the key
ENVIRON_PATH_REFERENCE = re.compile(r"os\.environ/[A-Za-z_][A-Za-z0-9_]{0,127}")


def names_an_environ_path(value: str) -> bool:
    """Whether value is LiteLLM's `os.environ/NAME` (ENVIRON_PATH_REFERENCE)."""
    return value.startswith("os.environ/") and ENVIRON_PATH_REFERENCE.fullmatch(value) is not None


# (session 26) A shell expansion's `:?` message (`${WANDB_API_KEY:?set WANDB_API_KEY}`): the error the shell prints when
# the variable is unset, no value (EXPANSION_MESSAGE its opening, for a message split into words at its blanks)
EXPANSION_MESSAGE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]{0,127}:?\?")
WHOLE_EXPANSION_MESSAGE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]{0,127}:?\?[^{}$`\n]{0,256}\}")


def is_location(value: str) -> bool:
    """A file or folder path, or a list of them (a:b:c): where a secret lives, not a secret."""
    return all(LOCATION.fullmatch(part) for part in value.split(":")) if value else False


# A generated password may look like a path: 0.4% of `openssl rand -base64 24` values start with "/" and hold another
# (`/eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX`). Their pieces are runs of capitals, small letters and digits 1 to 2 characters
# long; a real path's pieces read as words, names and numbers (`application_default_credentials`, `CMakeFindXCode`,
# `7f3d5d1d`). Of 119,159 real paths under /usr, /etc, /opt and /var of a Linux host 37 have such a piece (`libGLESv2`,
# `XtIsWMShell`); of 748 path-shaped values among 400,000 base64 ones 2 have none (benchmarks/path_like_passwords.py).
PATH_PIECES = re.compile(r"[/:._@~-]+")
PATH_WORD_RUNS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
WORD_RUN_LENGTH = 3.0   # a piece whose runs are this long on average, or longer, reads as words
LETTER_WORD = re.compile(r"[A-Za-z]{3}")


def reads_as_words(value: str) -> bool:
    """Whether every piece of a path (between "/", ".", "_", "-", ...) reads as words: a piece of 6+ characters
    mixing capitals and small letters reads as none when it has 4+ runs of capitals, small letters or digits
    shorter than WORD_RUN_LENGTH on average (`vI1sSZ6qPIqpzFX`, `S3cr3t`); a path of short pieces none of which holds
    3 letters in a row reads as none when one of them has 3+ runs (`/Kq8zL/mR2x9`; `/dev/sda1`, `/a/b`, `/x86/v2` read)."""
    pieces = PATH_PIECES.split(value)
    for piece in pieces:
        if len(piece) >= 6 and not piece.islower() and not piece.isupper():
            runs = len(PATH_WORD_RUNS.findall(piece))
            if runs >= 4 and len(piece) < WORD_RUN_LENGTH * runs:
                return False
    # (a short generated one, `/Kq8zL/mR2x9`: no piece holds a word of 3 letters, and one of 4+ characters is made of
    # 3+ runs of capitals, small letters and digits)
    return any(LETTER_WORD.search(piece) for piece in pieces) or not any(
        len(piece) >= 4 and len(PATH_WORD_RUNS.findall(piece)) >= 3 for piece in pieces)


def is_named_location(value: str, on_disk: bool = False) -> bool:
    """A path under a secret name (`GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json`) is where the secret lives,
    not the secret: when its pieces read as words or (on_disk, for this machine's own environment) it names
    something that exists here. A path-shaped value that does neither is a generated password."""
    if not is_location(value):
        return False
    if reads_as_words(value):
        return True
    return on_disk and any(os.path.lexists(os.path.expanduser(part)) for part in value.split(":"))


# A key's or a credential's file named bare (`openssl req -key key.pem`, `private_key = id_rsa.pem`, `token: hf_token.txt`):
# where the secret is, not the secret.
KEY_FILE_NAME = re.compile(r"[\w@~.-]{1,128}\.(?:pem|key|crt|cer|csr|p12|pfx|jks|der|gpg|asc|pub|json|ya?ml|env|ini|cfg|conf"
                           r"|toml|txt)")


def names_a_key_file(value: str) -> bool:
    return KEY_FILE_NAME.fullmatch(value) is not None and reads_as_words(value)


def is_hex_key(value: str) -> bool:
    """32 to 64 hex digits, letters and digits both (a key, or a commit hash: the name tells)."""
    return bool(HEX_KEY.fullmatch(value)) and not value.isdigit() and not value.isalpha()


def names_a_hash(name: str) -> bool:
    """GIT_COMMIT, CI_COMMIT_SHA, GITHUB_SHA, --revision, INVOCATION_ID: a hex value there is a hash."""
    return any(w in HASH_NAME_WORDS for w in NAME_WORD_SPLIT.split(FLAG_PREFIX.sub("", name).lower()))


# Words of a flag whose hex value is an id, not a key (besides HASH_NAME_WORDS): MLflow's --run-id and
# --experiment-id, a checkpoint to resume or load, a job, trial or sweep, an artifact, image or dataset, a trace.
ID_FLAG_WORDS = HASH_NAME_WORDS | {"run", "runs", "resume", "experiment", "exp", "ckpt", "checkpoint", "init", "from",
                                   "load", "restore", "job", "trial", "sweep", "artifact", "snapshot", "parent",
                                   "branch", "base", "onto", "target", "trace", "span", "request", "image", "container",
                                   "dataset", "model", "object", "blob", "step"}
# Programs whose hex arguments are commits or revisions (`git checkout SHA`, `git reset --hard SHA`, `dvc get --rev`)
HASH_TOOLS = frozenset({"git", "hg", "jj", "svn", "dvc"})


def names_an_id(flag: str) -> bool:
    """--run-id, --resume, --experiment, --ckpt-hash, --revision: a hex value after such a flag is an id."""
    return any(w in ID_FLAG_WORDS for w in name_words(FLAG_PREFIX.sub("", flag.partition("=")[0])))


CAMEL_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
NO_VOWEL_OR_FOUR_CONSONANTS = re.compile(r"^[^aeiouy]*$|[^aeiouy]{4}")


def names_a_model(value: str) -> bool:
    """A CamelCase model or preset name (`Llama3Base`, `ViTHuge14Patch224In21k`, `DeiTBase16Patch384`): capitalised
    words with vowels, at most 3 capitals of acronyms, a digit run inside followed by a capital (a size or version),
    digits followed by a small letter only at the end (`21k`), and at least 8 letters, half of all, in words of 4+.
    A password's digits sit at its end or among small letters (`Summer2024`, `Passw0rd`, `Hunter2pw`). Of random
    letters and digits 0.09% of 12 characters, 0.07% of 16, 0.008% of 22 read as such a name (docs/benchmarks.md)."""
    if not value[:1].isupper() or not value.isascii() or not value.isalnum() or MODEL_SIZE.search(value) is None:
        return False
    core = MODEL_TAIL.sub("", value)
    if DIGIT_THEN_SMALL.search(core):
        return False
    letters = long = capitals = 0
    for word in CAMEL_WORD.findall(core):
        if word.isdigit():
            continue
        letters += len(word)
        if word.isupper():
            capitals += len(word)
        elif NO_VOWEL_OR_FOUR_CONSONANTS.search(word.lower()):
            return False
        elif len(word) >= 4:
            long += len(word)
    return capitals <= 3 and long >= 8 and 2 * long >= letters


MODEL_SIZE = re.compile(r"[0-9][A-Z]")
MODEL_TAIL = re.compile(r"[0-9]+[kmbKMB]?$")
DIGIT_THEN_SMALL = re.compile(r"[0-9][a-z]")


def looks_like_password(value: str) -> bool:
    """The value of `-p` on a program we do not know: a password when it is 6+ characters with letters
    and digits or symbols (hunter2x, S3cr3t!, Passw0rd) or mixed case past its first letter (aBcDeFgH);
    a number or port map (8080, 8080:80, 0.5), a path, a setting (true) or a plain word (train, bf16,
    secret) is not: `-p` is a port, a path or a preset for most programs."""
    if not 6 <= len(value) <= 256 or value.startswith("-") or any(c.isspace() for c in value):
        return False
    if value.lower() in NOT_SECRET_VALUES or NUMBER_LIKE.fullmatch(value) or is_location(value):
        return False
    if value.startswith(("/", "./", "../", "~/")):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() and c not in "-_./:" for c in value)
    mixed_case = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return letters and (digits or symbols or (mixed_case and len(value) >= 8))


def looks_generated(value: str) -> bool:
    """A value no person would type as a name: 16+ letters and digits (maybe _ + / =) with capitals, small
    letters and digits all in it, and no "-" or "." that model and file names have (Meta-Llama-3-8B, model.pt)."""
    return (16 <= len(value) <= 256 and GENERATED.fullmatch(value) is not None and not value.startswith("/")
            and any(c.isupper() for c in value)
            and any(c.islower() for c in value) and any(c.isdigit() for c in value))


GENERATED = re.compile(r"[A-Za-z0-9_+/=]+")

# Flags whose words alone do not make a secret name (SESSION_NAME, --session-new, LICENSE_FILE are settings) but
# whose value is a secret on a workload's command line unless it is a setting (a number, a path, a plain word,
# on/off): a session cookie, a licence key, a private key, an Azure SAS token, a webhook URL.
WEAK_SECRET_FLAGS = {("session",), ("license",), ("licence",), ("private",), ("sas",), ("webhook",), ("webhook", "url"),
                     ("hook", "url")}


def _weak_flag_secret(value: str) -> bool:
    if cannot_be_secret(value) or is_location(value) or NUMBER_LIKE.fullmatch(value):
        return False
    if "://" in value:  # a webhook URL is the credential when a part of it is key-like (https://x/hook stays)
        return any(is_hex_key(part) or looks_generated(part) or looks_like_password(part)
                   for part in URL_PARTS.split(value.partition("://")[2]))
    return is_hex_key(value) or looks_generated(value) or looks_like_password(value)


URL_PARTS = re.compile(r"[/?&=#;]")


@functools.lru_cache(maxsize=8192)
def _secret_name_cached(name: str) -> bool:
    """is_secret_name, remembered; a bare KEY or PIN (`key="purelib"`, `('key', 'val')`) is too common in
    printed text to say secret alone."""
    return name.lower() not in END_WORDS and is_secret_name(name)


# Whether a value reads as a program's names (assignments' rules for Python's source under a secret's name), judged
# with no text around it.
CAMEL_RUN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
PYTHON_WORD = re.compile(r"[A-Za-z0-9]+")
BUILTIN_TYPE_NAMES = frozenset({"str", "int", "bytes", "bool", "float", "dict", "list", "set", "tuple", "type", "cls"})
DIGIT_INSIDE = re.compile(r"[0-9][A-Za-z]")


def _reads_as_identifier(value: str) -> bool:
    """Whether each word of a dotted or snake_case name reads as a program's (_reads_as_word)."""
    return all(map(_reads_as_word, PYTHON_WORD.findall(value)))


@functools.lru_cache(maxsize=4096)
def _reads_as_word(word: str) -> bool:
    """A name's word as people write one (`TokenType`, `HTTPBasicAuth`, `str`, `getLines`): each camel-case run of 3+
    letters with a vowel and no 4 consonants in a row, capitals alone 5 at most, digits only at the end; generated
    values have other runs (`NWHTWwgiXIwgrPvx`: `Pvx`; `H_JYH90Gyto`: a digit inside)."""
    if DIGIT_INSIDE.search(word) is not None or len(word) > 64:
        return False
    for run in CAMEL_RUN.findall(word):
        if run.isdigit() or run.lower() in BUILTIN_TYPE_NAMES:
            continue
        if run.isupper() and len(run) > 1:
            if len(run) > 5:
                return False
        elif len(run) < 3 or NO_VOWEL_OR_FOUR_CONSONANTS.search(run.lower()) is not None:
            return False
    return True


# gcloud's `secrets versions access|add|list|describe|... --secret=NAME` names the secret (its value is printed on the
# next line: KUBECTL_SECRET_PRINT): the flag of that command group takes a secret's ID, not a value (the same flag of
# another command, `--client-secret=X`, `--secret-key=X`, still takes one). Read on the flag's command: from the last
# `gcloud` before it on its line, with no command separator between.
GCLOUD_SECRETS_HEAD = re.compile(r"gcloud(?:[ \t]{1,4}(?:alpha|beta))?[ \t]{1,4}secrets[ \t][^\n;&|]{0,400}--\Z")
GCLOUD_SECRET_ID = re.compile(r"(?:projects/[\w.-]{1,128}/secrets/)?[A-Za-z0-9_-]{1,255}")
GCLOUD_BEFORE = frozenset(" \t/'\"$+;&|(")


def names_a_gcloud_secret(text: str, dashes: int, value: str) -> bool:
    """Whether `--secret` (its "--" at `dashes` in text) given `value` is gcloud's `secrets` group naming a secret."""
    if GCLOUD_SECRET_ID.fullmatch(value) is None:
        return False
    line_start = text.rfind("\n", max(0, dashes - 512), dashes) + 1
    at = text.rfind("gcloud", line_start, dashes)
    return at >= 0 and (at == line_start or text[at - 1] in GCLOUD_BEFORE) and GCLOUD_SECRETS_HEAD.match(
        text, at, dashes + 2) is not None


PLAIN_WORD = re.compile(r"[^\W\d_]{2,}")
# After a value that is a negation's word (names.NEGATION_WORDS): a word goes on the sentence (`not set`, `non définie`)
SENTENCE_GOES_ON = re.compile(r"[ \t]{1,3}[^\W\d_]{2,}(?![\w=:])")
# ... or a count then such a word (`password: not 8 characters long`, `not 12 chars`)
COUNT_THEN_SENTENCE = re.compile(r"[ \t]{1,3}[0-9]{1,3}[ \t]{1,3}[^\W\d_]{2,}(?![\w=:])")


def negation_opens_sentence(text: str, value_end: int) -> bool:
    """Whether a value that is a negation's word (`not`, `non`) goes on as a sentence after `value_end`."""
    return SENTENCE_GOES_ON.match(text, value_end) is not None or COUNT_THEN_SENTENCE.match(text, value_end) is not None


# A value of a negation's word or `no` / `none` (names.NEGATED_VALUE_STARTS) and what follows it on the line
NEGATED_NEXT = re.compile(r"[ \t]{1,3}(?P<next>[^\s'\",;\x00]{1,4096})")


class NegationMarks(dict):
    """value -> (whether it is a word _negated_value_end reads on from, whether it opens a negation): a log repeats its
    values, and _assignment_spans asks both of each match's value (each worked out once per value)."""

    def __missing__(self, value: str) -> tuple[bool, bool]:
        marks = self[value] = (value.strip("()[]<>").lower() in NEGATED_VALUE_STARTS, opens_a_negation(value))
        return marks


def _negated_value_end(text: str, value_start: int, value_end: int, harmless: Mapping[str, bool]) -> int:
    """Where a value that starts with a negation's word or `no` / `none` ends when a word that is not a plain one
    follows (`password: not Hunter2x9`, `password: not 1234`: the value is the two); 0 where it is the word alone or
    opens a sentence (`not set`, `none (default)`, `no password given`, `not 8 characters long`)."""
    if text[value_start:value_end].strip("()[]<>").lower() not in NEGATED_VALUE_STARTS:
        return 0
    if SENTENCE_GOES_ON.match(text, value_end) is not None:
        return 0
    following = NEGATED_NEXT.match(text, value_end)
    if following is None:
        return 0
    word = following.group("next").strip("()[]<>.,!:;")
    if not word or PLAIN_WORD.fullmatch(word) is not None:
        return 0
    if harmless[word] and not (word.isdigit() and SENTENCE_GOES_ON.match(text, following.end()) is None):
        return 0   # (a PIN-like number after the word goes: `password: not 1234`; `not 8 characters long` stays)
    return following.end()
