"""Redaction applied to every text before it is written into a bundle.

- Secret values, wherever they appear in any captured text, in their plain and escaped forms (repr,
  JSON, URL-encoded, HTML): values of environment variables whose names say secret by whole words
  (is_secret_name: TOKEN, PASSWORD, CREDS, API_KEY, ...; not MAX_NEW_TOKENS, SORT_KEY, TOKEN_BUDGET;
  not a value that is a path, which is where a secret lives), bare hex keys (32-64 hex digits) in any variable whose name does not
  say hash (commit, sha, revision, id, ...), values on the workload's command line after secret
  flags (`--password X`, `--token=X`), a tool's password flag (mysql -pX, sshpass -p X, redis-cli
  -a X), `-p X` of any other program when X looks like a password (not a port, path or plain word),
  bare hex keys there unless the flag names a hash, and every secret-shaped piece found in any
  environment value or argument (URL passwords, token shapes).
- A piece of a known secret: 12+ characters that start or end it, or 23+ from its middle, anywhere
  in a line (one regex per secret over pieces at every 12th character, grown by the regex itself);
  a piece that a line wrap cut off (3-11 characters) at the next line's start or the last one's end.
- Token shapes in any text, also right after an escape that ends in a letter or digit (JSON `\\n`, URL
  `%3D`, repr `\\x00`, terminal colours): GitHub, Hugging Face, AWS access keys, Slack, OpenAI and Google API keys,
  NGC, PyPI, Databricks, Docker Hub, Vault and other services' keys (SERVICE_TOKENS),
  JWTs (down to ~30 characters), Bearer/Basic credentials, passwords inside URLs
  (scheme://user:PASSWORD@host), a URL's user with no password unless the scheme is ssh-like,
  private key and PGP private key blocks (with or without their END line), `name=value` /
  `"name": "value"` pairs whose name suggests a secret, `key=` with a key-shaped value.
- Secrets as common tools print them, the name apart from the value: Kubernetes env lists (`- name: X`
  then `value: V`), Secret `data:` (base64 of text under any key) and `stringData:`, kubeconfig `*-data`
  keys holding a key, shell-quoted values through their escapes (`declare -x X="a\\"b"`, `X=$'a\\nb'`),
  loguru diagnose arrows under a secret name, httpx header tuples, terraform sensitive values, XML
  elements (see the finders after _url_userinfo_spans).
- Known secrets also base64- and hex-encoded, JSON-escaped twice, shell-quoted, in upper or lower
  case.
- Names with a whole PASS / PW / PASSPHRASE word; flags whose words say secret; -u user:PASS.
  Shapes: GitLab, Stripe, npm, SendGrid keys, any Authorization scheme, PuTTY and SSH2 keys, keys
  logged with a prefix, AccountKey=, sig=, Pwd=, pass=, pw=, .netrc.
- With `redact_hosts`: host names (any case, and an FQDN's short name), this host's own addresses,
  the SSH peer's addresses, every IPv4 address but those the text marks as versions, every IPv6
  address, MAC addresses, GPU UUIDs and user names become stable placeholders (host-1, ip-1, mac-1,
  gpu-uuid-1, user-1: the same value gets the same placeholder everywhere).

Every rule runs in time linear in the text: each pattern can start only where the character before
it cannot belong to it, and every repetition that could fail is bounded, so no pattern rescans a long
run (a 30,000-character run of dots took 65 s with the former patterns). Rules find spans in the
original text; overlapping spans merge into one replacement. URLs with credentials and secret-named
assignments back to back (a text made of nothing else: `://x@` or `pass=abc ` repeated) are one span a
run, whose replacement (made by substitutions in C) is what each match would have given, so the cost per
match is not Python's. `StreamRedactor` applies the same rules to a stream (a workload's output) piece
by piece, so raw output never has to be stored.

The report counts what was replaced, by rule (a run of URLs or assignments back to back counts once);
it never holds a value.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gc
import bisect
import getpass
import html
import ipaddress
import itertools
import json
import operator
import os
import re
import shlex
import socket
from collections import Counter
from typing import Callable, NamedTuple
from urllib.parse import quote, quote_plus, unquote

REDACTED = "[REDACTED]"
REDACTED_LOWER = REDACTED.lower()
KNOWN_VALUE = "secret environment value"   # the report's label for a secret found by its value
KEY_BLOCK = "private key block"

# Whether a name (an environment variable, a flag, a key in printed text) says its value is secret,
# judged by whole words (split on _ - . and lower-to-upper case changes), never by a substring: MAX_NEW_TOKENS,
# TOKENIZER_NAME, SORT_KEY, AUTHOR, SESSION_NAME, SIGNATURE_VERSION hold no secret (see is_secret_name).
SECRET_WORDS = {"token", "secret", "secrets", "password", "passwords", "passwd", "pass", "pw", "passphrase", "passcode",
                "pgpass", "credential", "credentials", "creds", "cred", "auth", "authn", "authorization", "salt",
                "cookie", "cookies", "bearer", "otp", "dbpass", "hmac", "mfa", "jwt", "sig", "signature",
                "webhook", "totp", "hotp", "privkey", "apikey", "apitoken", "authtoken", "authkey", "accesstoken", "accesskey",
                "refreshtoken", "privatekey", "secretkey", "signingkey", "accountkey", "masterkey", "sessionid",
                "sessionkey", "sessiontoken", "clientsecret", "idtoken", "passkey", "psk"}
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
                ("kubeconfig", "data"),
                # tools' own: Bitwarden's BW_SESSION, 1Password's OP_SESSION_<account>, fastlane's FASTLANE_SESSION (a
                # session is otherwise a name: TMUX_SESSION); a cloud SDK's secret key as SK (AWS_SK, HUAWEICLOUD_SDK_SK;
                # SK alone is DynamoDB's sort key); OCI's OCI_CLI_KEY_CONTENT (the key itself, not its file)
                ("bw", "session"), ("op", "session"), ("fastlane", "session"), ("aws", "sk"), ("sdk", "sk"),
                ("key", "content")}
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
                  "algorithm", "algorithms", "stdin", "prompt", "ref", "refs"}   # (secretRef, secretKeyRef: a reference)
# ... or before it (MAX_TOKEN_LEN, NUM_PASS, HF_HUB_DISABLE_IMPLICIT_TOKEN, USE_AUTH_TOKEN).
QUALIFIER_BEFORE = {"max", "min", "num", "n", "total", "per", "avg", "mean", "disable", "enable", "use", "implicit", "no",
                    "skip", "allow", "require"}
# One word that ends with a secret word is one too (PGPASSWORD, HFTOKEN, CLIENTSECRET from clientSecret).
# Tools' own one-word names too: SSHPASS (sshpass -e), LDAP_BINDPW / BINDPASS, slapd's ROOTPW, keytool's STOREPASS and
# KEYPASS (SRCSTOREPASS, DESTKEYPASS), APPKEY. (PGPASSFILE, GIT_ASKPASS name a file and a program: no such ending.)
SECRET_SUFFIXES = ("token", "secret", "password", "passwd", "apikey", "accesskey", "privatekey", "secretkey", "privkey",
                   "authkey", "passphrase", "passcode", "credential", "credentials", "creds", "passkey",
                   "sshpass", "bindpw", "bindpass", "rootpw", "storepass", "keypass", "appkey")
NOT_SECRET_WORDS = {"tiktoken"}
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

# What may sit right before a token although it ends in a letter or digit: an escape that a JSON, repr,
# URL or terminal encoding puts there (`\nghp_...`, `\x00hf_...`, `%3Dhf_...`, `\x1b[32mghp_...`, `\033[1;32m`).
# Each is fixed-width (a lookbehind must be); none holds a character of a token's body, so a token
# found after one still cannot start inside a run it belongs to.
# Grouped by the character they end in, which is checked first; a one-letter backslash escape (\n \t \0 ...)
# is in _starts_token.
ESCAPES_BEFORE = {
    "hex": (r"\\x[0-9A-Fa-f]{2}", r"\\u[0-9A-Fa-f]{4}", r"\\U[0-9A-Fa-f]{8}", r"\\[0-7]{3}", r"%[0-9A-Fa-f]{2}"),
    "m": (r"[\[;][0-9]m", r"[\[;][0-9]{2}m", r"[\[;][0-9]{3}m"),
    "K": (r"\[K", r"\[[0-9]K"),
}


def _starts_token(literal: str, identifier: str) -> str:
    """Lookbehinds for right after a token's (fixed-width) literal: it does not follow a character of
    `identifier` (it is not inside a word), or it follows an escape (ESCAPES_BEFORE). Most characters
    before a literal fail one or two single-character checks, so the escapes cost little."""
    groups = [rf"(?<=\\[nrtfvbae0]{literal})",
              rf"(?<=[0-9A-Fa-f]{literal})(?:" + "|".join(f"(?<={e}{literal})" for e in ESCAPES_BEFORE["hex"]) + ")",
              rf"(?<=m{literal})(?:" + "|".join(f"(?<={e}{literal})" for e in ESCAPES_BEFORE["m"]) + ")",
              rf"(?<=K{literal})(?:" + "|".join(f"(?<={e}{literal})" for e in ESCAPES_BEFORE["K"]) + ")"]
    return f"(?:(?<!{identifier}{literal})|(?<=[0-9A-Za-z]{literal})(?:" + "|".join(groups) + "))"


# Keys of other services, each led by its own literal; one alternation, so the engine scans once, skipping the
# characters that start none of them.
SERVICE_TOKENS = (
    ("nvapi-", r"[A-Za-z0-9_-]{40,}"), ("pypi-AgE", r"[A-Za-z0-9_-]{40,}"),
    ("dapi", r"[0-9a-f]{32}(?![0-9a-f])(?:-[0-9]{1,2})?"), ("dckr_pat_", r"[A-Za-z0-9_-]{20,}"),
    ("hvs.", r"[A-Za-z0-9_-]{24,}"), ("hvb.", r"[A-Za-z0-9_-]{24,}"), ("gsk_", r"[A-Za-z0-9]{40,}"),
    ("r8_", r"[A-Za-z0-9]{30,}"), ("xapp-", r"[A-Za-z0-9-]{20,}"), ("xoxe", r"[.-][A-Za-z0-9.-]{20,}"),
    ("ya29.", r"[A-Za-z0-9_-]{20,}"), ("GOCSPX-", r"[A-Za-z0-9_-]{20,}"), ("whsec_", r"[A-Za-z0-9]{20,}"),
    ("dop_v1_", r"[0-9a-f]{40,}"), ("shpat_", r"[0-9a-fA-F]{32}"), ("lin_api_", r"[A-Za-z0-9]{30,}"),
    ("ntn_", r"[A-Za-z0-9]{30,}"), ("AGE-SECRET-KEY-1", r"[0-9A-Z]{50,}"),
    ("GR1348941", r"[A-Za-z0-9_-]{20,}"),  # a GitLab runner registration token
    # webhook URLs: the path after the host is the credential (Slack's last part, Discord's token)
    ("hooks.slack.com/", r"(?:services|workflows|triggers)/[A-Za-z0-9]{6,16}/[A-Za-z0-9]{6,16}/[A-Za-z0-9/]{16,}"),
    ("discord.com/api/webhooks/", r"[0-9]{15,21}/[A-Za-z0-9_-]{40,}"),
    ("discordapp.com/api/webhooks/", r"[0-9]{15,21}/[A-Za-z0-9_-]{40,}"),
    # `aws ecr get-login-password`: base64 of {"payload":"...","datakey":"...",...}, a few KB on one line
    ("eyJwYXlsb2FkIjoi", r"[A-Za-z0-9+/]{64,}={0,2}"))


# Each pattern starts with a literal, so the regex engine skips ahead to it; the "not preceded by"
# check comes right after that literal, so a pattern cannot start inside a run it belongs to. A digit
# or "_" before a token is allowed (`1ghp_`, `x_hf_`) unless the body holds word-like runs (GitLab's) or has
# a "." to fail on after a long run (JWT, SendGrid); an AWS key's body is capitals and digits.
TOKEN_SHAPES: list[tuple[str, re.Pattern[str]]] = [
    ("github token", re.compile(r"gh" + _starts_token("gh", "[A-Za-z]") + r"[pousr]_[A-Za-z0-9]{30,}")),
    ("github token", re.compile(r"github_pat_" + _starts_token("github_pat_", "[A-Za-z]") + r"[A-Za-z0-9_]{30,}")),
    ("hugging face token", re.compile(r"hf_" + _starts_token("hf_", "[A-Za-z]") + r"[A-Za-z0-9]{24,}")),
    *(("aws access key", re.compile(prefix + _starts_token(prefix, "[A-Z]") + r"[0-9A-Z]{16}(?![0-9A-Z])"))
      for prefix in ("AKIA", "ASIA")),
    ("slack token", re.compile(r"xox" + _starts_token("xox", "[A-Za-z-]") + r"[abprs]-[A-Za-z0-9-]{10,}")),
    ("openai key", re.compile(r"sk-" + _starts_token("sk-", "[A-Za-z-]") + r"(?:proj-|ant-)?[A-Za-z0-9_-]{20,}")),
    ("google api key", re.compile(r"AIza" + _starts_token("AIza", "[A-Za-z-]") + r"[0-9A-Za-z_-]{35}")),
    ("gitlab token", re.compile(r"gl" + _starts_token("gl", "[A-Za-z0-9_]")
                                + r"(?:pat|dt|rt|ptt|cbt|oas|soat|agent)-[A-Za-z0-9_-]{20,}")),
    ("stripe key", re.compile(r"_(?<=[sr]k_)" + _starts_token("[sr]k_", "[A-Za-z]") + r"(?:live|test)_[A-Za-z0-9]{16,}")),
    ("npm token", re.compile(r"npm_" + _starts_token("npm_", "[A-Za-z]") + r"[A-Za-z0-9]{36}")),
    ("sendgrid key", re.compile(r"SG\." + _starts_token(r"SG\.", "[A-Za-z0-9_]") + r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    # NVIDIA NGC, PyPI, Databricks, Docker Hub, Vault, Groq, Replicate, Slack app/config, Google OAuth,
    # Stripe webhook, DigitalOcean, Shopify, Linear, Notion, age keys: one pattern, one scan (see SERVICE_TOKENS)
    ("service token", re.compile("|".join(re.escape(prefix) + _starts_token(re.escape(prefix), "[A-Za-z]") + body
                                          for prefix, body in SERVICE_TOKENS))),
    # a JWT and any dotted segments that follow (a run of them is one span, not one per token)
    # (a header is at least {"a":1}, eyJhIjoxfQ; a payload {} is e30; an unsigned token ends in a dot)
    ("jwt", re.compile(r"eyJ" + _starts_token("eyJ", r"[\w-]")
                       + r"[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")),
    # credentials in a URL's path or query, and a printed command's, the text before them kept: an Anaconda channel's
    # /t/TOKEN/, a Teams incoming webhook's key, a Mattermost hook's 26-character id, a Zapier catch hook's id and key,
    # VS Code / code-server's ?tkn=, ngrok's authtoken
    ("conda token", re.compile(r"anaconda\.(?:org|cloud)/t/(?P<value>[A-Za-z0-9_-]{8,256})")),
    ("teams webhook", re.compile(r"IncomingWebhook/(?<=/IncomingWebhook/)(?P<value>[0-9a-f]{32}(?:/[0-9a-fA-F-]{36})?)")),
    ("mattermost webhook", re.compile(r"hooks/(?<=/hooks/)(?P<value>[a-z0-9]{26})(?![A-Za-z0-9_-])")),
    ("zapier webhook", re.compile(r"hooks/catch/(?P<value>[0-9]{3,12}/[A-Za-z0-9]{4,64})(?![A-Za-z0-9])")),
    ("url token", re.compile(r"tkn=(?<=[?&]tkn=)(?P<value>[A-Za-z0-9_-]{8,256})")),
    ("ngrok authtoken", re.compile(r"authtoken(?:(?<=add-authtoken)|(?<=ngrok authtoken))[ \t]{1,4}['\"]?"
                                   r"(?P<value>[A-Za-z0-9_-]{20,256})")),
    # Bearer / Basic credentials, found by the literal after the capital or small b
    *(("bearer token", re.compile(rf"{tail}(?<=[Bb]{tail})" + _starts_token(f"[Bb]{tail}", "[A-Za-z]")
                                  + r"[ \t]{1,4}(?P<value>[A-Za-z0-9._~+/=-]{12,})"))
      for tail in ("earer", "EARER", "asic", "ASIC")),
]

# More providers' keys (red team pass 3, S1), grouped by the character that ends their prefix: each group is one
# pattern led by that one character (found by a literal scan, as fast as a substring test), then lookbehinds for
# the prefixes ending there; a prefix of its own would cost a scan of the whole text each. The body group of each
# branch is named p<N>: the prefix's length is looked up by it, so the span covers the prefix too.
PROVIDER_TOKENS: dict[str, tuple[tuple[str, str], ...]] = {
    "_": (("pcsk_", r"[A-Za-z0-9]{4,10}_[A-Za-z0-9]{30,}"), ("fw_", r"[A-Za-z0-9]{20,}"),
          ("api_org_", r"[A-Za-z0-9]{30,}"), ("glsa_", r"[A-Za-z0-9]{32}_[0-9a-fA-F]{8}"),
          ("fo1_", r"[A-Za-z0-9_-]{40,}"), ("sbp_", r"[0-9a-f]{40}"), ("shpss_", r"[0-9a-fA-F]{32}"),
          ("shpca_", r"[0-9a-fA-F]{32}"), ("shppa_", r"[0-9a-fA-F]{32}"), ("rubygems_", r"[0-9a-f]{48}"),
          ("figd_", r"[A-Za-z0-9_-]{40,}"), ("sntryu_", r"[0-9a-f]{64}"), ("sntrys_", r"[A-Za-z0-9_+/=.-]{50,}"),
          ("nfp_", r"[A-Za-z0-9]{36,}"), ("squ_", r"[0-9a-f]{40}"), ("sqp_", r"[0-9a-f]{40}"), ("sqa_", r"[0-9a-f]{40}"),
          ("rpa_", r"[A-Za-z0-9]{40,}"), ("lsv2_pt_", r"[0-9a-f]{32}_[0-9a-f]{10}"),
          ("lsv2_sk_", r"[0-9a-f]{32}_[0-9a-f]{10}"), ("sk_", r"[0-9a-f]{48}(?![0-9A-Za-z])")),
    "-": (("xai-", r"[A-Za-z0-9]{60,}"), ("pplx-", r"[A-Za-z0-9]{40,}"),
          ("tskey-", r"[a-z]{3,8}-[A-Za-z0-9-]{20,}"), ("PMAK-", r"[0-9a-f]{24}-[0-9a-f]{34}"),
          ("pul-", r"[0-9a-f]{40}"), ("HRKU-", r"[A-Za-z0-9_-]{30,}"), ("NRAK-", r"[A-Z0-9]{27}"),
          ("sq0atp-", r"[A-Za-z0-9_-]{22,}"), ("sq0csp-", r"[A-Za-z0-9_-]{40,}"), ("local-", r"[0-9a-f]{40}(?![0-9a-f])"),
          ("v1.0-", r"[0-9a-f]{24}-[0-9a-f]{140,}")),
    ".": (("dp.st.", r"[a-z0-9_-]{1,35}\.[A-Za-z0-9]{40,}"), ("dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
          ("sk.", r"eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{10,}"), ("sl.", r"[A-Za-z0-9_-]{120,}"),
          ("s.", r"[A-Za-z0-9]{24}(?![A-Za-z0-9_.-])"),                     # Vault's former service token
          # (a prefix that is not a literal: its pattern and length) Terraform Cloud's <14>.atlasv1.<60+>,
          # Airtable's pat<14>.<64 hex>
          ((r"[A-Za-z0-9]{14}\.atlasv1\.", 23), r"[A-Za-z0-9_-]{60,}"),
          ((r"pat[A-Za-z0-9]{14}\.", 18), r"[0-9a-f]{64}(?![A-Za-z0-9])")),
}


def _provider_branches(prefixes: tuple[tuple[str, str], ...], first: int) -> str:
    branches = []
    for index, (prefix, body) in enumerate(prefixes, first):
        not_before = "[A-Za-z0-9_.-]" if prefix == "s." else "[A-Za-z0-9]"  # (s. ends many words and names)
        before = prefix[0] if isinstance(prefix, tuple) else re.escape(prefix)
        branches.append(f"(?<=(?<!{not_before}){before})(?P<p{index}>{body})")
    return "|".join(branches)


PROVIDER_PREFIX_LENGTHS: dict[str, int] = {}
PROVIDER_GATES: dict[str, str] = {}   # the look-behind each separator is tried after (_provider_gate)


def _provider_gate(lead: str, prefixes: tuple[tuple[str, str], ...], short: str) -> str:
    """What must come before the separator for any prefix to end there: its last two characters (one of the literal
    prefixes' endings, or `short`'s), else a letter or digit (every prefix ends with one, then the separator). A
    look-behind for that first spares the others on runs that pass the 20-character gate (`.` repeated, `ghp_`)."""
    if all(not isinstance(prefix, tuple) and len(prefix) >= 3 for prefix, _ in prefixes):
        endings = sorted({re.escape(prefix[-3:]) for prefix, _ in prefixes} | ({short} if short else set()))
        return "(?<=" + "|".join(endings) + ")"
    return f"(?<=[A-Za-z0-9]{re.escape(lead)})"


_groups: list[re.Pattern[str]] = []
for _lead, _prefixes in PROVIDER_TOKENS.items():
    _first = len(PROVIDER_PREFIX_LENGTHS)
    # led by the one separator (a literal scan; a class of the three scanned ten times slower); every body starts
    # with 20 token characters, so most separators in log text, followed by a short word, fail at once
    _short = ""
    if _lead == "-":  # Mailchimp's <32 hex>-us<N>, whose body is short: tried where the others' gate failed
        _short = rf"|(?<=(?<![A-Za-z0-9])[0-9a-f]{{32}}-)(?P<p{_first + len(_prefixes)}>us[0-9]{{1,2}}(?![A-Za-z0-9]))"
        PROVIDER_PREFIX_LENGTHS[f"p{_first + len(_prefixes)}"] = 33
    PROVIDER_GATES[_lead] = _provider_gate(_lead, _prefixes, "[0-9a-f]{2}-" if _lead == "-" else "")
    _groups.append(re.compile(re.escape(_lead) + PROVIDER_GATES[_lead] + r"(?:(?=[A-Za-z0-9_+/=.-]{20})(?:"
                              + _provider_branches(_prefixes, _first) + ")" + _short + ")"))
    for _index, (_prefix, _) in enumerate(_prefixes, _first):
        PROVIDER_PREFIX_LENGTHS[f"p{_index}"] = _prefix[1] if isinstance(_prefix, tuple) else len(_prefix)
PROVIDER_PATTERNS: list[re.Pattern[str]] = _groups
# Tokens known by a literal inside or after them: New Relic's license key <36 hex>NRAL, Telegram bot tokens
# <8-10 digits>:AA<33>, Google OAuth refresh tokens 1//0<...>, Atlassian's ATATT3 and Bitbucket's ATBB; (label,
# pattern, characters of the token before where the pattern matches).
INNER_LITERAL_TOKENS = [
    ("new relic license key", re.compile(r"NRAL(?<=(?<![A-Za-z0-9])[0-9a-f]{36}NRAL)(?![A-Za-z0-9])"), 36),
    ("telegram bot token", re.compile(r":AA(?<=[0-9]{8}:AA)[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])"), 8),
    ("google refresh token", re.compile(r"1//0(?<![A-Za-z0-9]1//0)[A-Za-z0-9_-]{40,}"), 0),
    ("atlassian token", re.compile(r"AT(?<![A-Za-z0-9]AT)(?:ATT3[A-Za-z0-9_=-]{100,}|BB[A-Za-z0-9]{28,})"), 0),
]
TELEGRAM_BOT_ID = re.compile(r"[0-9]{0,2}")
KAGGLE_WORD = re.compile("kaggle")
KAGGLE_KEY = re.compile(r"(?<![0-9a-z])[0-9a-f]{32}(?![0-9a-z])")
# A Bearer / Basic credential holds a digit, a capital or a base64 sign; lower-case words do not count.
CREDENTIAL_CHARACTER = re.compile(r"[0-9A-Z+/=~.]")


def _leading_literal(pattern: str) -> str:
    """The plain text a pattern starts with ("hf_" of hf_(?<!...), "hvs." of hvs\\.); nothing for a pattern
    that is an alternation at its top level (its branches start differently)."""
    depth, in_class, at = 0, False, 0
    while at < len(pattern):
        c = pattern[at]
        if c == "\\":
            at += 1
        elif in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            return ""
        at += 1
    out = []
    at = 0
    while at < len(pattern):
        c = pattern[at]
        if c == "\\" and at + 1 < len(pattern) and not pattern[at + 1].isalnum():
            out.append(pattern[at + 1])
            at += 2
        elif c.isalnum() or c in "_-":
            out.append(c)
            at += 1
        else:
            break
    return "".join(out)


TOKEN_SHAPE_LITERALS = [(label, _leading_literal(pattern.pattern), pattern) for label, pattern in TOKEN_SHAPES]
SERVICE_PREFIXES = tuple(prefix for prefix, _ in SERVICE_TOKENS)
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
    (lambda text: "%2F%2F" in text or "%2f%2f" in text,
     re.compile(r"(?i)%3a%2f%2f(?:[^\s&%:/?#@]|%(?!3a|40|2f)[0-9a-f]{2}){0,256}%3a"
                r"(?P<password>(?:[^\s&%]|%(?!40)[0-9a-f]{2}){1,256})%40")),
    (lambda text: ":\\/\\/" in text,
     re.compile(r":\\/\\/[^\s/\\\"'<>@:]{0,256}:(?P<password>[^\s\"'<>@\\]{1,256})@")),
]
HF_LOGINS = ("huggingface-cli login", "hf auth login", "hf login")
REGISTRY_LOGINS = ("docker login", "podman login", "nerdctl login", "buildah login", "skopeo login", "oras login",
                   "helm registry login", "crane auth login")


def _shell_value(bare: str, least: int = 1) -> str:
    """A value group as a shell prints the word (`bash -x` single-quotes one holding a symbol, $'...' one holding a
    control character; a script echoes "..."): the quoted value whole, spaces and all, or `bare` (a double-quoted
    `"$VAR"` is a reference, not a value)."""
    return (rf"(?:(?P<sq>\$?')|(?P<dq>\")|)(?P<value>(?(sq)[^'\n]{{{least},4095}}(?=')|(?(dq)(?!\$)[^\"\n]{{{least},4095}}(?=\")|"
            rf"{bare})))")


# Whole commands printed by the workload, with their password: mysql -pX, sshpass -p X, curl -u u:X.
# The flag is searched (a literal), then the tool's name within `reach` characters before it on its line
# (a sorted list of where each tool's name is, looked up by bisection): a text full of "mysql " or
# "curl " costs one scan, where a pattern led by the tool's name rescanned 300 characters after each.
COMMAND_PASSWORD_FLAGS: list[tuple[tuple[str, ...], int, re.Pattern[str]]] = [
    (("mysql", "mariadb"), 300, re.compile(r"-p(?<=[ \t'\"]-p)" + _shell_value(r"[^\s'\"]{3,}", 3))),
    (("sshpass",), 100, re.compile(r"-p(?<=[ \t'\"]-p)[ \t]{0,4}" + _shell_value(r"[^\s'\"-][^\s'\"]*"))),
    (("redis-cli", "keydb-cli"), 300, re.compile(r"-a(?<=[ \t'\"]-a)[ \t]{1,4}" + _shell_value(r"[^\s'\"-][^\s'\"]*"))),
    # keytool's one-dash long flags; `echo X | docker login --password-stdin`, `gh auth login --with-token
    # <<< X`; MinIO's `mc alias set NAME URL ACCESS_KEY SECRET_KEY`
    (("keytool",), 300, re.compile(r"pass(?:(?<=[ \t'\"]-storepass)|(?<=[ \t'\"]-keypass)|(?<=-srcstorepass)"
                                               r"|(?<=-deststorepass)|(?<=-srckeypass)|(?<=-destkeypass))[ \t]{1,4}"
                                               + _shell_value(r"[^\s'\":-][^\s'\"]*"))),
    (("gh auth login",), 300, re.compile(r"<<<(?:(?<=--with-token <<<)|(?<=--with-token<<<))[ \t]{0,4}"
                                        + _shell_value(r"[^\s'\"$][^\s'\"]*"))),
    (("curl", "wget"), 300, re.compile(r"-u(?<=[ \t]-u)[ \t]{0,4}['\"]?[^\s:'\"]{1,128}:(?P<value>[^\s'\"]+)")),
    (("curl", "wget"), 300, re.compile(r"--(?<=[ \t]--)(?:proxy-)?user[ \t=]{1,4}['\"]?[^\s:'\"]{1,128}:"
                                       r"(?P<value>[^\s'\"]+)")),
    # echoed registry logins (docker login -u U -p X, --password X; not --password-stdin), htpasswd -b FILE USER X
    # (-nb USER X), huggingface-cli login --token X
    (REGISTRY_LOGINS, 300, re.compile(r"-p(?<=[ \t]-p)[ \t]{1,4}['\"]?(?P<value>[^\s'\"-][^\s'\"]*)")),
    (REGISTRY_LOGINS, 300, re.compile(r"--password(?<=[ \t]--password)(?:[ \t]{1,4}|=)['\"]?(?P<value>[^\s'\"-][^\s'\"]*)")),
    (("htpasswd",), 300, re.compile(r"-(?<=[ \t]-)(?=[cmBdsDiCv]{0,5}b)[bcmBdsDiCv]{1,6}[ \t]{1,4}"
                                    r"(?:-C[ \t]{1,4}[0-9]{1,3}[ \t]{1,4})?[^\s'\"-][^\s'\"]{0,4095}[ \t]{1,4}"
                                    r"[^\s'\"]{1,256}[ \t]{1,4}['\"]?(?P<value>[^\s'\"]+)")),
    (("htpasswd",), 300, re.compile(r"-(?<=[ \t]-)(?=[bcmBdsDiCv]{0,5}n)(?=[ncmBdsDiCv]{0,5}b)[nbcmBdsDiCv]{2,7}[ \t]{1,4}"
                                    r"(?:-C[ \t]{1,4}[0-9]{1,3}[ \t]{1,4})?[^\s'\"-][^\s'\"]{0,255}[ \t]{1,4}"
                                    r"['\"]?(?P<value>[^\s'\"]+)")),
    (HF_LOGINS, 300,
     re.compile(r"--token(?<=[ \t]--token)(?:[ \t]{1,4}|=)['\"]?(?P<value>[^\s'\"-][^\s'\"]*)")),
    # Windows' `net use [Z:] \\srv\share PASSWORD /user:DOMAIN\bob` or `... /user:bob PASSWORD` (`*` asks for it)
    (("net use",), 300, re.compile(r"/(?<=[ \t]/)(?i:u|user):[^\s]{1,256}[ \t]{1,4}['\"]?(?P<value>[^\s'\"/*][^\s'\"]*)")),
    (("net use",), 300, re.compile(r"\\\\(?<=[ \t]\\\\)[^\s]{1,256}[ \t]{1,4}['\"]?(?P<value>[^\s'\"/*][^\s'\"]*)")),
]
# A secret flag's value in a printed command line (`Running: serve.py --api-key V`, `+ train.py --hf-token V`, a ps
# line, a Python list `['--api-key', 'V']`): found from its "--", the flag judged as on the workload's own argv
# (is_secret_flag), the value kept when it cannot be a secret (a number, on/off, a path, $VAR, an auth scheme).
# (the value may be the next item of a YAML list: k8s `args:\n- --password\n- V`)
PRINTED_SECRET_FLAG = re.compile(r"--(?<![A-Za-z0-9_-]--)(?P<flag>[A-Za-z][A-Za-z0-9_-]{0,63})"
                                 r"(?:=|[ \t]{1,4}|['\"],[ \t]{0,2}['\"]|['\"]?,?[ \t]{0,8}\r?\n[ \t]{0,64}-[ \t]{1,4}['\"]?)"
                                 + _shell_value(r"[^\s'\"-][^\s'\"]{0,4095}"))
NOT_A_FLAG_SECRET = frozenset({"token", "password", "env", "file", "stdin", "prompt", "ask", "keyring"})
# Short flags of tools that take a password (set -x of openssl -k V, zip -P V, 7z -pV, az login -p V, smbclient -U
# user%V, ldapsearch -w V, curl -u user:V in a list): found from the "-" after a blank or a quote, the tool looked
# for on the same line before it; {flag: (tools, glued value allowed, the value's part after this character)}.
TOOL_SHORT_FLAG = re.compile(r"-(?<=[ \t'\"]-)(?P<flag>[kPpUwuN])(?P<sep>[ \t]{1,4}|['\"],[ \t]{0,2}['\"]|)"
                             + _shell_value(r"[^\s'\"-][^\s'\"]{3,4095}", 4))  # (a password of 1 to 3 characters stays)
# (with no quote in the text, the bare value alone: the quoted branches cost a third more per "-" tried)
TOOL_SHORT_FLAG_BARE = re.compile(TOOL_SHORT_FLAG.pattern.replace(_shell_value(r"[^\s'\"-][^\s'\"]{3,4095}", 4),
                                                                  r"(?P<value>[^\s'\"-][^\s'\"]{3,4095})"))
TOOL_SHORT_FLAGS: dict[str, tuple[re.Pattern[str], bool, str]] = {
    "k": (re.compile(r"(?:^|[\s/'\"])openssl[\s'\"]"), False, ""),
    "P": (re.compile(r"(?:^|[\s/'\"])(?:zip|unzip|sqlcmd|bcp|ssh-keygen)[\s'\"]"), False, ""),
    "p": (re.compile(r"(?:^|[\s/'\"])(?:7z|7za|7zr|az|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)[\s'\"]"),
          True, ""),
    "N": (re.compile(r"(?:^|[\s/'\"])ssh-keygen[\s'\"]"), False, ""),
    "U": (re.compile(r"(?:^|[\s/'\"])(?:smbclient|rpcclient|smbmap)[\s'\"]"), False, "%"),
    "w": (re.compile(r"(?:^|[\s/'\"])ldap(?:search|add|modify|delete|whoami|passwd)[\s'\"]"), False, ""),
    "u": (re.compile(r"(?:^|[\s/'\"])(?:curl|wget)[\s'\"]"), False, ":"),
}
# MinIO's `mc alias set NAME URL ACCESS_KEY SECRET_KEY` (and the older `mc config host add`)
MC_ALIAS = re.compile(r"(?:(?<=mc alias set)|(?<=mc config host add))[ \t]{1,4}[^\s'\"]{1,256}[ \t]{1,4}[a-z]{2,8}://"
                      r"[^\s'\"]{1,1024}[ \t]{1,4}['\"]?[^\s'\"$]{1,256}['\"]?[ \t]{1,4}" + _shell_value(r"[^\s'\"$-][^\s'\"]*"))
# `echo V | docker login -u U --password-stdin` (any login read from stdin)
ECHO_TO_STDIN = re.compile(r"echo(?<![\w-]echo)[ \t]{1,4}(?:-n[ \t]{1,4})?" + _shell_value(r"[^\s'\"$-][^\s'\"|;]*")
                           + r"['\"]?[ \t]{0,4}\|[^|\n]{0,256}--password-stdin")
# `vault login V`, `wandb login V`; `aws configure set aws_secret_access_key V` (any `config set NAME V` whose name is
# secret)
TOOL_LOGIN_VALUE = re.compile(r"login(?:(?<=vault login)|(?<=wandb login))[ \t]{1,4}"
                              + _shell_value(r"[^\s'\"-][^\s'\"]{7,4095}", 8))
CONFIG_SET_VALUE = re.compile(r"config(?:ure)? set[ \t]{1,4}(?P<name>[A-Za-z0-9_.-]{1,64})[ \t]{1,4}"
                              + _shell_value(r"[^\s'\"-][^\s'\"]{0,4095}"))
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
# NEL or line separator that a terminal shows as a break but a stream does not cut at)
_ASSIGNMENT_TAIL = (r"(?=(?P<rest>[a-z0-9_.-]{0,48}))(?P=rest)(?P<sep>\\?[\"']?[ \t]{0,32}(?:=>|->|[=:\uff1a])"
                    r"[ \t\r\f\v\x85\xa0\u2028\u2029]{0,3}"
                    r"(?:(?:[|>][+-]?[0-9]?[ \t]{0,8})?\r?\n[ \t]{0,16})?(?:(?:&[a-z0-9_-]{1,32}|!![a-z]{1,16})[ \t]{1,4})?)"
                    r"(?P<quote>(?:bytearray\(|memoryview\()?b[\"']|\\?[\"']?)"  # (a Python bytes value: b'X')
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
    loose = rf"[\s'\",;\x00][^{first}]{{0,63}}(?:{_LOOKBEHIND_GROUP.sub('', keyword)})[=:][ \t]{{0,3}}"
    whole = (rf"(?=[ \t,;]{{0,64}}[^ \t,;{first}])[\s'\",;\x00][^{first}]{{0,63}}(?<![a-z0-9_.\-])"
             rf"(?P<keyword>(?:{keyword})[=:][ \t]{{0,3}})")
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
                            + r"(?=(?P<rest>[a-z0-9_.-]{0,48}))(?P=rest)[\"']?[ \t]{0,3}[=:][ \t]{0,3}"
                              r"(?:[|>][+-]?[0-9]?[ \t]{0,8})?\r?\n\Z")
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
VALUE_ON_NEXT_LINE = re.compile(r"(?:token|secret|passw(?:or)?d|api[_-]?key|apikey|pass(?:phrase)?|credential|accountkey)"
                                r"[\"']?[ \t]{0,3}[=:][ \t]{0,3}(?:[|>][+-]?[0-9]?[ \t]{0,8})?\r?\n\Z"
                                r"|--[a-z0-9_-]{0,48}(?:token|secret|passw(?:or)?d|api[_-]?key|pass(?:phrase)?)[\"']?,?[ \t]{0,8}"
                                r"\r?\n\Z")
# A private key's armour line. Its block runs through the lines that can be key material (base64,
# "Header: value", blank) and the END line when there is one: a key whose END line is missing, or a
# log cut inside it, still goes.
# Also SSH2's "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----", a lower-case armour, and PuTTY's key
# files (everything from the PuTTY-User-Key-File line, or from Private-Lines:).
KEY_BEGIN = re.compile(r"(?i:-{4,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5})"
                       r"|PuTTY-User-Key-File-\d{1,2}:[^\n]{0,200}|Private-Lines: \d{1,5}")
# The same BEGIN lines found fast: the armour from its "begin" in the lower-cased text (then the dashes
# before it are checked), PuTTY's lines from their literals.
KEY_BEGIN_FAST = [re.compile(r"begin(?:(?<=-----begin)|(?<=----begin)|(?<=----- begin)|(?<=---- begin))"
                             r" [a-z0-9 ]{0,40}private key(?: block)? ?-{4,5}"),
                  re.compile(r"PuTTY-User-Key-File-\d{1,2}:[^\n]{0,200}"), re.compile(r"Private-Lines: \d{1,5}"),
                  # a key's body printed without its armour: OpenSSH's (base64 of "openssh-key-v1"), and DER whose
                  # first field is a version number (PKCS#1/#8 keys, a PKCS#12 keystore: 30 82 LL LL 02 01 is
                  # "MII??[AQgw]IB"; a certificate, a public key or a signature starts 30 82 LL LL 30 and stays)
                  re.compile(r"b3BlbnNzaC1rZXktdjE(?<![A-Za-z0-9+/]b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/=]{0,65536}"),
                  re.compile(r"MII(?<![A-Za-z0-9+/]MII)[A-Za-z0-9+/]{2}[AQgw]IB[A-Za-z0-9+/]{32,65536}={0,2}")]
KEY_END = re.compile(r"(?i)-{4,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}|Private-MAC: [0-9a-f]{0,128}")
# A key's body may be one long line (1,600 characters of base64 unwrapped).
KEY_LINE = r"(?:[A-Za-z0-9+/= \t\r]{0,65536}|(?!Private-MAC)[A-Za-z][A-Za-z-]{0,40}: [^\n]{0,1024}|#[^\n]{0,1024})(?![^\n])"
# A key logged line by line with a prefix ("INFO: MIIE..."): the line ends in a base64 run; read on
# the reversed line, anchored, so one pass.
# (and a frame after the base64: rich's `MIIE... │`, an ascii box's ` |`, ansible's `",`, pytest's `'`)
REVERSED_PREFIXED_KEY_LINE = re.compile(r"[ \t\r]{0,64}(?:[\u2502\u2503\u2551|'\",;]{1,3}[ \t]{0,64})?[A-Za-z0-9+/=]{16,65536}"
                                        r"(?:[ \t:|>\]'\"\u2502\u2503\u2551]|\Z)")
# A key printed in a frame (text before its BEGIN or after it on the line) whose END line comes within this many lines:
# every line between goes, whatever frames it
FRAMED_KEY_LINES = 256
# Another BEGIN line right after is part of the same block (one pass over a run of them).
KEY_LINES = re.compile(rf"(?:\n(?:{KEY_LINE}|{KEY_BEGIN.pattern}[^\n]{{0,256}}))*")
FLAG_PREFIX = re.compile(r"^-{1,2}")

IPV4 = re.compile(r"[0-9](?<![\w.][0-9])[0-9]{0,2}(?:\.[0-9]{1,3}){3}(?![\w.-]{0,32}?[0-9])")  # octets checked in code
# A dotted quad is also a package version ("9.19.0.56" for cuDNN). With --redact-hosts every one is an
# address (the flag's promise) except where the text says it is a version: a version word or a version
# operator right before it ("version 9.1.0.70", "==12.4.5.8"), a CUDA library's name right before it
# ("nvidia-cudnn-cu13": "9.19.0.56", "tensorrt 10.0.1.6"), or a local-version "+" after it. An address
# label ("inet", "host", "@", "//") or this host's or the SSH peer's own address always wins.
ADDRESS_BEFORE = re.compile(r"(?i)(?:inet6?|addr|address|ip|host|server|endpoint|master_addr|from|to|via|src|dst)"
                            r"[\s:=\"']{1,3}$|[@/]$")
VERSION_WORDS = {"version", "ver", "release", "build", "driver", "firmware", "vbios", "rev", "revision", "kernel",
                 "linux", "python", "gcc", "glibc"}
VERSION_LIBRARIES = ("nvidia", "cuda", "cudnn", "cublas", "cufft", "curand", "cusolver", "cusparse", "nccl", "tensorrt",
                     "torch", "triton", "nvjitlink", "cupti", "nvtx", "cufile", "nvshmem", "jax")
VERSION_LIBRARY = re.compile("|".join(VERSION_LIBRARIES))
NAME_RUN = re.compile(r"[a-z0-9._-]{0,64}")
# Candidates for IPv6 (full, compressed, with an embedded IPv4 or a zone); each is checked by
# ipaddress, so times (12:34:56) and MACs (six groups, no "::") are not addresses.
# It may follow a name and a colon ("host:2001:db8::1"), not a hex group and a colon (mid-address);
# an embedded IPv4 (::ffff:203.0.113.9, 0:0:0:0:0:ffff:203.0.113.9) is part of it. A compressed one holds a hex
# digit ("::" alone identifies nobody: ":*:" repeated gave a million of them to look at).
IPV6 = re.compile(r"(?<![\w.])(?<![0-9A-Fa-f]:)(?<!::)(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}"
                  r"|(?:[0-9A-Fa-f]{1,4}:){6}(?:\d{1,3}\.){3}\d{1,3}|(?=[0-9A-Fa-f:]{0,39}::)"
                  r"(?=::[0-9A-Fa-f]|[0-9A-Fa-f])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?)(?:%[\w.-]{1,32})?(?![\w:])")
# MAC addresses, colon- or dash-separated (this host's and any other: they identify a machine).
# Matched from its first separator (a scan for ":" or "-" skips ahead; one for a hex digit cannot), so a
# match starts 2 characters before m.start(); run on the lower-cased text.
MAC = re.compile(r"(?P<sep>[:-])(?<=(?<![\w:-])[0-9a-f]{2}[:-])[0-9a-f]{2}(?:(?P=sep)[0-9a-f]{2}){4}(?![\w:-])")
BORING_MACS = {"00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"}
MAC_TEXT = re.compile(r"[0-9a-f]{2}(?::[0-9a-f]{2}){5}")
# 12 hex digits alone, letters and digits both: not inside a longer run or a name, nor a group of a UUID (GPU-...-
# 426614174000), a PCI or IPv6 address (after or before "-", ".", ":"), nor an address after 0x
BARE_MAC = re.compile(r"(?<![\w.:-])(?=[0-9]{0,11}[A-Fa-f])(?=[A-Fa-f]{0,11}[0-9])[0-9A-Fa-f]{12}(?![\w.:-])")
MAC_WORDS_BEFORE = re.compile(r"(?:mac|ether|hwaddr|lladdr|bssid|hw addr|address|addr)[^\n]{0,16}\Z")
# Cisco's spelling, 001b.213a.4f5c (with a letter in it: 1234.5678.9012 is a number), from its first dot
CISCO_MAC = re.compile(r"\.(?<=(?<![\w.:-])[0-9a-f]{4}\.)[0-9a-f]{4}\.[0-9a-f]{4}(?![\w:-])(?!\.[\w])")
# Cloud host names that hold an address or a project: AWS ip-10-0-1-23[.ec2.internal | .REGION.compute.internal],
# GCP INSTANCE[.ZONE].c.PROJECT.internal; found from their literal, the rest of the name walked back in code.
AWS_HOST = re.compile(r"ip-(?<![\w.-]ip-)(?P<octets>[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3})"
                      r"(?:\.[a-z0-9-]{1,63}){0,6}(?![\w-])(?!\.[\w])")
GCP_HOST = re.compile(r"\.c\.[a-z][a-z0-9-]{4,28}[a-z0-9]\.internal(?![\w-])(?!\.[\w])")
HOST_NAME_REVERSED = re.compile(r"[a-z0-9-](?:[a-z0-9-]|\.(?=[a-z0-9])){0,252}")
# Only text with "::" next to a hex digit or with seven colons in a row of groups can hold an IPv6 address (a
# compressed one holds "H::" or "::H", see IPV6); these literal-led checks spare the full scan (which must try
# every hex character) on most text, and say where the first address can start (48 characters before at most).
IPV6_HINT = re.compile(r":[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:")
IPV6_COMPRESSED_HINT = re.compile(r"::(?:(?<=[0-9A-Fa-f]::)|[0-9A-Fa-f])")
# Every dotted quad holds this from its first dot on: the IPV4 scan (which tries every digit) starts 3 characters
# before the first one, and text without one (most log text) is not scanned at all.
IPV4_HINT = re.compile(r"\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]")
# Where a MAC can be, found by a literal search in a map of the text's characters (ASCII; encode makes any other
# character "?", one byte each, so offsets stay): BARE_MAC's 12 hex digits between characters that are not
# [\w.:-] (another character, of any kind, is taken as such here and BARE_MAC itself judges the candidate), and
# MAC's six groups with a separator ("hh:hh:hh:hh:hh:hh", either separator as ":"), which gates MAC's scan.
def _class_map(classes: dict[str, str], default: str) -> bytes:
    table = bytearray(default.encode() * 256)
    for characters, kind in classes.items():
        for character in characters.encode():
            table[character] = ord(kind)
    return bytes(table)


_HEX_DIGITS = "0123456789abcdefABCDEF"
BARE_MAC_CLASSES = _class_map({_HEX_DIGITS: "h", "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_.:-": "w"}, " ")
BARE_MAC_CANDIDATE = re.compile(rb" hhhhhhhhhhhh(?![hw])")    # in " " + the map: the match's start is the MAC's
MAC_CLASSES = _class_map({_HEX_DIGITS: "h", ":-": ":"}, " ")
MAC_CANDIDATE = b"hh:hh:hh:hh:hh:hh"
_START_OF = operator.methodcaller("start")
# IPV4 and IPV6 as one group each, for split(): the matches and their offsets in C (see _split_matches)
IPV4_SPLIT = re.compile(f"({IPV4.pattern})")
AWS_HOST_SPLIT = re.compile(f"({AWS_HOST.pattern})")   # (and its octets group)
IPV6_SPLIT = re.compile(f"({IPV6.pattern})")
# What follows a C++ scope or call, never an address: `c10::{lambda()#1}`, `ab::cd()`, `c10::<lambda>`, `c10::~Storage`
CXX_AFTER_SCOPE = frozenset("({<~")

GPU_UUIDS = [re.compile(rf"{kind}-(?<![\w-]{kind}-)[0-9a-fA-F]{{8}}(?:-[0-9a-fA-F]{{4}}){{3}}-[0-9a-fA-F]{{12}}(?![\w-])")
             for kind in ("GPU", "MIG")]
# PyTorch prints a GPU's UUID without its GPU- (`_CudaDeviceProperties(name='NVIDIA H100 ...', uuid=2a7c5f1e-...)`)
GPU_UUID_AFTER_NAME = re.compile(r"uuid=(?P<uuid>[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12})(?![\w-])")
# A Slurm host list naming this host's kind of node (gpunode[17-18], gpunode[01,03-04]): its prefix, then a list of
# two or more (a range or a comma: `batch[0]` on a host named batch1 is code, not a host list)
HOST_NUMBERED = re.compile(r"(?P<prefix>[a-z][a-z-]{2,})[0-9]+")
# Addresses that identify nobody; left as they are so the text stays readable.
BORING_IPS = {"127.0.0.1", "0.0.0.0", "255.255.255.255", "255.255.255.0", "::", "::1"}
SSH_ADDRESS_VARIABLES = ("SSH_CONNECTION", "SSH_CLIENT")
# User and host names that are also common words or product names (USER=nvidia, ubuntu, data; HOSTNAME=h100,
# dgx, gpu): replaced only where the text uses them as a user or host name, never in "NVIDIA H100 80GB
# HBM3", "Ubuntu 22.04", "Data loader" (see _in_host_context). A specific name (alice, gpunode17) goes everywhere.
COMMON_NAMES = {"nvidia", "ubuntu", "debian", "centos", "fedora", "rocky", "alma", "admin", "administrator", "user",
                "users", "data", "ec2-user", "cloud-user", "azureuser", "opc", "jovyan", "docker", "ray", "runner",
                "vscode", "coder", "jenkins", "developer", "dev", "test", "tester", "ml", "ai", "gpu", "gpus", "student",
                "guest", "pi", "oracle", "hadoop", "spark", "slurm", "www-data", "nobody", "app", "service", "triton",
                "cuda", "train", "training", "compute", "worker", "master", "head", "node", "server", "host",
                "workstation", "desktop", "laptop", "sandbox", "jupyter", "notebook", "devbox", "container", "default",
                "demo", "lab", "linux", "dgx", "hgx", "mgx", "igx", "pytorch", "torch", "model", "models", "bench",
                "benchmark", "perf", "profile", "profiler", "nsys", "ncu", "cluster", "build", "ci"}
# GPU and system product names used as host names (h100, a100-80g, gh200, dgx-h100, rtx4090, l40s)
PRODUCT_NAME = re.compile(r"(?:(?:dgx|hgx|mgx)-?)?(?:[abhlvtkp][0-9]{1,3}[a-z]?|g[bh][0-9]{3}|rtx-?[0-9]{4}[a-z]*|"
                          r"(?:quadro|tesla|titan|jetson|orin|thor)[a-z0-9-]*)(?:-[0-9]{1,3}g?b?)?")
# Where a word is a user or host name: a home folder, user@host, //host, name=value for a user or host
# key, uname's "Linux HOST", and "@host" or "host." (an FQDN) after it; checked on the lower-cased text.
HOST_CONTEXT_BEFORE = re.compile(r"(?:home/|users/|users\\|@|//|linux |(?:user|username|login|logname|owner|"
                                 r"hostname|host|node|nodename|server|machine|uid)[\"']?[ \t]{0,3}[=:][ \t]{0,3}[\"']?)\Z")
HOST_CONTEXT_AFTER = {"user": re.compile(r"@"), "host": re.compile(r"@|\.[a-z][a-z0-9-]*\.[a-z]|:[~/]")}


def name_words(name: str) -> list[str]:
    """The lower-cased words of a name: split on _ - . and where a small letter or digit meets a capital."""
    return [w for w in NAME_WORD_SPLIT.split(CAMEL_BOUNDARY.sub("_", name).lower()) if w]


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
                  or (word == "pwd" and last > 0))
        if secret and QUANTITY_WORDS.isdisjoint(words[i + 1:]) and QUALIFIER_BEFORE.isdisjoint(words[:i]):
            return True
    return False


def is_secret_flag(arg: str) -> bool:
    """--password, --db-pass, --passphrase, --api-key, --hf-token, --secret, --pwd, --pat: a flag whose
    value is secret (the same words as is_secret_name)."""
    name = FLAG_PREFIX.sub("", arg.partition("=")[0])
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


def worth_hiding(value: str) -> bool:
    return len(value) >= MIN_SECRET_LEN and value.strip().lower() not in NOT_SECRET_VALUES


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


def reads_as_words(value: str) -> bool:
    """Whether every piece of a path (between "/", ".", "_", "-", ...) reads as words: a piece of 6+ characters
    mixing capitals and small letters reads as none when it has 4+ runs of capitals, small letters or digits
    shorter than WORD_RUN_LENGTH on average (`vI1sSZ6qPIqpzFX`, `S3cr3t`)."""
    for piece in PATH_PIECES.split(value):
        if len(piece) >= 6 and not piece.islower() and not piece.isupper():
            runs = len(PATH_WORD_RUNS.findall(piece))
            if runs >= 4 and len(piece) < WORD_RUN_LENGTH * runs:
                return False
    return True


def is_named_location(value: str, on_disk: bool = False) -> bool:
    """A path under a secret name (`GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json`) is where the secret lives,
    not the secret: when its pieces read as words or (on_disk, for this machine's own environment) it names
    something that exists here. A path-shaped value that does neither is a generated password."""
    if not is_location(value):
        return False
    if reads_as_words(value):
        return True
    return on_disk and any(os.path.lexists(os.path.expanduser(part)) for part in value.split(":"))


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


# Tools whose flag takes a password, as -pSECRET or -p SECRET. (mysql reads "-p VALUE" as a prompt and a
# database name; the name goes too, as people type it meaning the password.)
PASSWORD_FLAG_OF_TOOL = {**dict.fromkeys(("mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlsh", "mysqlimport",
                                          "mysqlcheck", "mongo", "mongosh", "mongodump", "mongorestore", "sshpass",
                                          "7z", "7za"), "-p"), "openssl": "-k", "sqlcmd": "-P", "bcp": "-P",
                         **dict.fromkeys(("redis-cli", "keydb-cli"), "-a"), **dict.fromkeys(("zip", "unzip"), "-P"),
                         **dict.fromkeys(("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami"), "-w")}
USER_PASSWORD_TOOLS = {"curl", "wget"}
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


def argv_secret_pieces(argv: list[str]) -> list[tuple[int, int, int]]:
    """(index, start, end) of every secret value on a command line: argv[index][start:end] is secret, nothing
    around it (a value's quotes, helm's next `,b.user=y`, a mapping's closing brace stay).
    `--password X`, `--db-pass=X`, `--hf-token X`; the password flag of a tool that takes one (`-pX` and
    `-p X` after mysql or sshpass, `-a X` after redis-cli, `-P X` after zip, `-k X` after openssl); `-p X` / `-pX`
    after any other program when X looks like a password (looks_like_password: not a port, path or plain word);
    `-u user:pass` / `--user user:pass` (a uid:gid of digits stays); a bare hex key anywhere, unless the flag before
    it names a hash (`--revision SHA`, `--commit=SHA`); secret-named values inside a word (_named_value_pieces:
    `db.password=X`, `--set a.password=X,b.user=y`, `-e "user=bob password=X"`, `{password: X}`,
    `login(token='X')`; `token = get_token()` is code); a password in a login or proxy position without a scheme (`rsync bob:X@host:/p`,
    `--proxy bob:X@proxy:3128`, `http_proxy=bob:X@proxy:3128`); the password of `net use`, `htpasswd -b` and
    `aws configure set NAME X` when NAME is a secret's."""
    found: list[tuple[int, int, int]] = []

    def whole(i: int, start: int = 0) -> None:
        arg = argv[i]
        end = len(arg)
        if end - start >= 2 and arg[start] == arg[end - 1] and arg[start] in "'\"":
            start, end = start + 1, end - 1
        if end > start:
            found.append((i, start, end))

    tool = ""
    login_tool = hash_tool = False
    previous = ""
    i = 0
    while i < len(argv):
        arg = argv[i]
        base = os.path.basename(arg)
        if not arg.startswith("-"):
            if base in PASSWORD_FLAG_OF_TOOL or base in USER_PASSWORD_TOOLS or base in OTHER_PASSWORD_TOOLS:
                tool = base
            login_tool = login_tool or base in LOGIN_TOOLS
            hash_tool = hash_tool or base in HASH_TOOLS
            if (tool_pieces := _tool_positional_pieces(argv, i)) is not None:
                found += tool_pieces
                break  # the rest of this command is that tool's
            if is_hex_key(arg) and previous.startswith("-") and not names_an_id(previous) and not hash_tool:
                found.append((i, 0, len(arg)))   # --service KEY; not `git checkout SHA`, `--resume RUN_ID`
            elif login_tool and (password := _schemeless_password(arg)) is not None:
                found.append((i, *password))  # rsync bob:X@host:/p, git clone bob:X@host:repo
            else:
                found += [(i, s, e) for s, e in _named_value_pieces(arg, 0)]
            previous = arg
            i += 1
            continue
        previous = arg
        name, eq, value = arg.partition("=")
        tool_flag = PASSWORD_FLAG_OF_TOOL.get(tool, "")
        if tool == "ssh-keygen" and arg in ("-N", "-P"):
            tool_flag = arg   # the new and the old passphrase
        has_next = i + 1 < len(argv) and not argv[i + 1].startswith("-")
        if tool_flag and arg.startswith(tool_flag) and len(arg) > 2 and tool_flag not in ONLY_SPACED_FLAGS:
            whole(i, 2)
        elif tool_flag and arg == tool_flag and has_next:
            whole(i + 1)
            i += 1
        elif "proxy" in name.lower() and name != "--proxy-user" and not is_secret_flag(name):
            # --proxy bob:X@proxy:3128 (curl, pip take a proxy without its scheme); one with a scheme is a URL
            at, text = (i, value) if eq else (i + 1, argv[i + 1]) if has_next else (i, "")
            if (password := _schemeless_password(text)) is not None:
                found.append((at, len(argv[at]) - len(text) + password[0], len(argv[at]) - len(text) + password[1]))
            i = at
        elif tuple(name_words(FLAG_PREFIX.sub("", name))) in WEAK_SECRET_FLAGS:
            # --session X, --license X, --private X, --sas X, --webhook-url X: a secret unless a setting
            if eq and _weak_flag_secret(value):
                whole(i, len(name) + 1)
            elif not eq and has_next and _weak_flag_secret(argv[i + 1]):
                whole(i + 1)
                i += 1
        elif is_secret_flag(name):
            at, start = (i, len(name) + 1) if eq else (i + 1, 0)
            if at < len(argv) and SECRET_MOUNT_SPEC.fullmatch(argv[at], start) is not None:
                pass   # docker build --secret id=npm,src=/run/npmrc: where a secret is, not one
            elif at < len(argv):
                # openssl's -pass pass:X holds X; env:VAR, file:PATH, fd:N say where the password is
                kind, colon, rest = argv[at][start:].partition(":")
                if colon and kind in ("pass", "env", "file", "fd", "stdin"):
                    if kind == "pass" and rest:
                        whole(at, start + 5)
                else:
                    whole(at, start)
            i = at
        elif arg.startswith("-p") and not tool_flag and (
                (len(arg) > 2 and not arg.startswith("--") and looks_like_password(arg[2:])
                 and not names_a_model(arg[2:]))):
            whole(i, 2)
        elif arg in ("-a", "-k") and not tool_flag and has_next and looks_generated(argv[i + 1]) and not names_a_model(
                argv[i + 1]):
            # redis-cli's -a on another client, openssl's -k; -a is "all" or "arch" elsewhere, -k pytest's expression
            whole(i + 1)
            i += 1
        elif arg == "-p" and not tool_flag and has_next and looks_like_password(argv[i + 1]) and not names_a_model(
                argv[i + 1]):
            whole(i + 1)
            i += 1
        elif eq and (pieces := _named_value_pieces(value, len(name) + 1)):
            found += [(i, s, e) for s, e in pieces]  # --set=auth.token=X, --from-literal=password=X
        elif eq and is_hex_key(value) and not names_an_id(name) and not hash_tool:
            found.append((i, len(name) + 1, len(arg)))
        elif tool in SAMBA_TOOLS and (name in ("-U", "--user") or arg.startswith("-U")):
            # Samba's -U DOMAIN\\bob%PASSWORD (also -Ubob%PASSWORD)
            at, text = ((i, value) if eq else (i, arg[2:]) if name not in ("-U", "--user")
                        else (i + 1, argv[i + 1]) if i + 1 < len(argv) else (i, ""))
            user, percent, password = text.partition("%")
            if percent and password:
                found.append((at, len(argv[at]) - len(password), len(argv[at])))
            i = at
        elif name in ("-u", "--user", "--proxy-user") or (tool in USER_PASSWORD_TOOLS and arg.startswith("-u")):
            at, text = ((i, value) if eq else (i, arg[2:]) if len(arg) > 2 and not name.startswith("--")
                        else (i + 1, argv[i + 1] if i + 1 < len(argv) else ""))
            user, colon, password = text.partition(":")
            if colon and password and not password.isdigit():
                found.append((at, len(argv[at]) - len(password), len(argv[at])))
            i = max(i, at)
        i += 1
    return found


# Oracle's clients take a login as `user/PASSWORD@connect` (sqlldr and Data Pump also as `userid=user/PASSWORD`)
ORACLE_TOOLS = frozenset({"sqlplus", "sqlldr", "expdp", "impdp", "exp", "imp", "rman", "dgmgrl"})
ORACLE_LOGIN = re.compile(r"(?:userid=|target=|auxiliary=|catalog=)?[^\s/@'\"=-][^\s/@'\"=]{0,127}/(?P<password>[^\s@]{1,256})"
                          r"(?:@[^\s]{0,1024})?")
# npm, pnpm and yarn set a registry's token as `config set //registry/:_authToken VALUE`
CONFIG_SET_TOOLS = frozenset({"npm", "pnpm", "yarn"})
CONFIG_NAME_SPLIT = re.compile(r"[.:/]")


def _oracle_login_pieces(argv: list[str], i: int) -> list[tuple[int, int, int]]:
    """The password of each `user/PASSWORD[@db]` login after an Oracle client at argv[i] (`sqlplus scott/X@orcl`,
    `rman target sys/X@db`, `expdp userid=scott/X`); `/nolog`, `/ as sysdba` and `scott@orcl` (it asks) hold none."""
    found = []
    for j in range(i + 1, len(argv)):
        m = ORACLE_LOGIN.fullmatch(argv[j])
        if m is not None and not cannot_be_secret(m.group("password")):
            found.append((j, *m.span("password")))
    return found


SECRET_MOUNT_SPEC = re.compile(r"(?:(?:id|src|source|env|type|target|dst|required|mode|uid|gid)=[^,\s]*(?:,|\Z))+")
# Programs whose arguments name a host to log in to, where `bob:PASSWORD@host:path` is a login with its password
LOGIN_TOOLS = frozenset({"rsync", "scp", "sftp", "ssh", "git", "svn", "hg", "sshfs", "lftp", "ftp", "rclone"})
ONLY_SPACED_FLAGS = frozenset({"-k"})   # openssl's -k X (-kfile PATH is another flag)
SAMBA_TOOLS = frozenset({"smbclient", "rpcclient", "smbcacls", "smbget", "net", "smbmap"})
OTHER_PASSWORD_TOOLS = SAMBA_TOOLS | {"ssh-keygen"}
# user:PASSWORD@host followed by nothing, a port, a path or an scp-style :path; the password runs to the last "@"
SCHEMELESS_ARGUMENT = re.compile(r"[^\s:@/\\\"']{1,256}:(?P<password>[^\s]{1,256})@(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}"
                                 r"|\[[0-9A-Fa-f:.]{2,64}\])(?:[:/][^\s@]{0,4096})?")


def _schemeless_password(word: str) -> tuple[int, int] | None:
    """Where the password of a login given without a scheme (bob:PASSWORD@host:path) is in word, or None."""
    m = SCHEMELESS_ARGUMENT.fullmatch(word)
    if m is None or cannot_be_secret(m.group("password")):
        return None
    return m.span("password")


def _tool_positional_pieces(argv: list[str], i: int) -> list[tuple[int, int, int]] | None:
    """A tool whose password is a positional argument, when argv[i] starts it: `net use [Z:] \\\\srv\\share PASSWORD
    /user:bob` (Windows), `htpasswd -b[c] FILE USER PASSWORD` (`-nb USER PASSWORD`), `aws configure set NAME VALUE`
    and `npm|pnpm|yarn config set NAME VALUE` with a secret's NAME (`//registry.npmjs.org/:_authToken`), Oracle's
    `sqlplus user/PASSWORD[@db]` (sqlldr, expdp, impdp, rman too), `gh secret set NAME --body|-b VALUE`.
    None when argv[i] starts none of them."""
    base = os.path.basename(argv[i]).lower().removesuffix(".exe")
    rest = argv[i + 1:]
    if base in ORACLE_TOOLS:
        return _oracle_login_pieces(argv, i)
    if base == "gh" and [w.lower() for w in rest[:2]] == ["secret", "set"]:
        for j in range(i + 3, len(argv)):
            name, eq, value = argv[j].partition("=")
            if name in ("--body", "-b"):
                at, start = (j, len(name) + 1) if eq else (j + 1, 0)
                if at < len(argv) and argv[at][start:] not in ("", "-"):
                    return [(at, start, len(argv[at]))]
            elif argv[j].startswith("-b") and not argv[j].startswith("--") and len(argv[j]) > 2:
                return [(j, 2, len(argv[j]))]
        return []
    if base in CONFIG_SET_TOOLS and [w.lower() for w in rest[:2]] == ["config", "set"] and len(rest) >= 4:
        name, value = rest[2], rest[3]
        if _assigned_secret_at(f"{CONFIG_NAME_SPLIT.split(name)[-1]}={value}") is not None:
            return [(i + 4, 0, len(value))]
        return []
    if base == "net" and rest[:1] and rest[0].lower() == "use":
        for j in range(i + 2, len(argv)):
            word = argv[j]
            if word.startswith("/") or word.startswith("\\\\") or "://" in word or word == "*" or (
                    len(word) == 2 and word[1] == ":"):
                continue  # /user:X /persistent:no, the share, a URL, a drive letter, * (asks for it)
            return [(j, 0, len(word))]
        return []
    if base == "htpasswd":
        flags = "".join(w[1:] for w in rest if w.startswith("-") and not w.startswith("--"))
        positional = [j for j in range(i + 1, len(argv)) if not argv[j].startswith("-")]
        wanted = 1 if "n" in flags else 2
        if "b" in flags and len(positional) > wanted:
            j = positional[wanted]
            return [(j, 0, len(argv[j]))]
        return []
    if base in ("vault", "wandb") and rest[:1] == ["login"]:
        # `vault login TOKEN`, `wandb login KEY` (vault's `-method=userpass username=bob` are no token)
        words = [j for j in range(i + 2, len(argv)) if not argv[j].startswith("-") and "=" not in argv[j]
                 and "://" not in argv[j]]   # (wandb's --host URL)
        return [(words[0], 0, len(argv[words[0]]))] if words and not cannot_be_secret(argv[words[0]]) else []
    if base == "rclone" and rest[:1] == ["config"] and rest[1:2] in (["create"], ["update"]):
        # `rclone config create NAME TYPE key value ...`: a secret key's value
        pairs = [j for j in range(i + 4 + (rest[1] == "create"), len(argv)) if not argv[j].startswith("-")]
        return [(pairs[k + 1], 0, len(argv[pairs[k + 1]])) for k in range(0, len(pairs) - 1, 2)
                if is_secret_name(argv[pairs[k]]) and not cannot_be_secret(argv[pairs[k + 1]])]
    if base == "aws" and [w.lower() for w in rest[:2]] == ["configure", "set"] and len(rest) >= 4:
        name, value = rest[2], rest[3]
        if _assigned_secret_at(f"{name.rpartition('.')[2]}={value}") is not None:
            return [(i + 4, 0, len(value))]
        return []
    return None


# A name given a value inside one word: a Hydra/OmegaConf override (`db.password=X`, `+trainer.api_key=X`), helm's
# `--set a.password=X,b.user=y`, ansible's `-e "user=bob password=X"`, a form body (`password=X&user=bob`), a YAML,
# JSON, HCL or Python mapping (`{password: X}`, `{"password":"X"}`, `{password="X"}`), a call's keyword
# (`login(token='X')`) or a subscript (`os.environ['HF_TOKEN']='X'`). (":" is no separator before "//", a URL's.)
NAMED_VALUE = re.compile(r"(?<![\w.+~\-])[+~]{0,2}(?P<name>[A-Za-z_][\w.\-]{0,127})(?:\[[0-9]{1,4}\]|['\"]\])?['\"]?[ \t]{0,8}"
                         r"(?:=(?!=)|:(?!//))[ \t]{0,8}")
# where a bare value ends: before the next assignment of a list (after a blank, comma, ampersand or semicolon; helm's
# `\,` is a comma inside a value), and inside a mapping or a call also at its next item or its end
NEXT_ASSIGNMENT = re.compile(r"(?<!\\)[\s,&;](?=[+~]{0,2}[A-Za-z_][\w.\-]{0,127}(?:\[[0-9]{1,4}\])?=)")
FLOW_VALUE_END = re.compile(r"[\s,;}\])]")
WORD_VALUE_END = re.compile(r"[\s'\",;]")
OPENERS, CLOSERS = "{[(", "}])"


def _named_value_pieces(word: str, offset: int) -> list[tuple[int, int]]:
    """(start, end) + offset of each secret value a name is given inside word (NAMED_VALUE, judged as
    _assigned_secret_at judges `name=value`): a quoted value without its quotes; a bare one, when the word is the
    assignment (`a.password=X,b.user=y`), up to the next assignment of its list or the word's end (`DB_PASSWORD=a b`
    whole), inside a mapping or a call up to its next item or its end, and elsewhere in the word (a script, code:
    `export API_TOKEN=X; run`) up to a blank, quote, comma or semicolon; a list value (`passwords=["X"]`) item by item."""
    if "=" not in word and ":" not in word:
        return []
    pieces = []
    at = depth = counted = 0   # (the brackets open before a match, counted on from the last: a long script is linear)
    while (m := NAMED_VALUE.search(word, at)) is not None:
        start = m.end()
        at = max(start, m.start() + 1)
        quote_char = word[start:start + 1]
        if quote_char in ("'", '"'):
            end = start + 1
            while end < len(word) and word[end] != quote_char:
                end += 2 if word[end] == "\\" and quote_char == '"' else 1
            if end >= len(word):
                continue
            value_start, value_end = start + 1, end
        else:
            head = word[counted:m.start()]
            depth += sum(head.count(c) for c in OPENERS) - sum(head.count(c) for c in CLOSERS)
            counted = m.start()
            if depth > 0:
                stop = FLOW_VALUE_END.search(word, start)
            elif m.start() == 0 and word[start - 1] in "=:":
                stop = NEXT_ASSIGNMENT.search(word, start)   # the word is the assignment (a list of them)
            else:
                stop = WORD_VALUE_END.search(word, start)
            value_start, value_end = start, stop.start() if stop else len(word)
        value = word[value_start:value_end]
        name = m.group("name")
        if len(value) >= 2 and value[0] == "[" and value[-1] == "]" and _secret_name_cached(name):
            # terraform's -var 'passwords=["X"]', helm's --set-json: each item
            pieces += [(offset + value_start + 1 + s, offset + value_start + 1 + e)
                       for s, e in _flow_item_spans(value[1:-1], _HarmlessValues())]
            at = value_end
        elif value and _assigned_secret_at(f"{name}={value}") is not None:
            pieces.append((offset + value_start, offset + value_end))
            at = value_end
        elif "proxy" in name.lower() and (password := _schemeless_password(value)) is not None:
            pieces.append((offset + value_start + password[0], offset + value_start + password[1]))
            at = value_end   # http_proxy=bob:X@proxy:3128 (curl and pip read it without a scheme)
    return pieces


def argv_secret_values(argv: list[str], depth: int = 0) -> list[str]:
    """The secret values on a command line, worth hiding everywhere: every piece Redactor.argv replaces in it
    (by argv_secret_pieces or by the text rules; read by a Redactor that knows no secret, so a value is known
    exactly as the command line's redaction cut it), a URL's password URL-decoded, a secret-named value of a JSON
    argument unescaped (`--config '{"password": "X"}'`), and the same again in the commands of a shell string
    (`bash -c "DB_PASSWORD=X ./serve; echo X"`)."""
    values = _bare_redactor().argv_replaced_values(argv)
    # `Authorization: Bearer X` hides "Bearer X", `--auth bob:X` "bob:X": X is the secret, printed alone too; helm
    # reads `a\,b` as "a,b"
    values += [rest for v in values if " " in v and (parts := v.split(None, 1))[0].lower() in AUTH_SCHEMES | {"token"}
               for rest in parts[1:]]
    values += [m.group("password") for v in values if ":" in v and (m := USER_PASSWORD.fullmatch(v)) is not None]
    values += [v.replace("\\,", ",") for v in values if "\\," in v]
    for arg in argv:
        values += _inner_secret_values(arg.partition("=")[2] if arg.startswith("-") else arg)
    if depth < MAX_SHELL_DEPTH:
        for script in _shell_scripts(argv):
            for command in _shell_commands(script):
                values += argv_secret_values(command, depth + 1)
    return [v for v in dict.fromkeys(values) if worth_hiding(v)]


USER_PASSWORD = re.compile(r"[\w.@\\-]{1,64}:(?P<password>[^\s:/][^\s]{0,255})")


@functools.lru_cache(maxsize=1)
def _bare_redactor() -> "Redactor":
    """A Redactor that knows no secret and no host: what the rules alone find (argv_secret_values)."""
    return Redactor({})


# A word that gives a name a value: a Hydra/OmegaConf override (`db.password=X`, `+trainer.api_key=X`, `++x.token=X`),
# helm's `--set auth.token=X`, `VAR=X` before a command (env, docker -e, a shell). The name is judged by is_secret_name.
NAME_ASSIGNED = re.compile(r"[+~]{0,2}(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,127})=")
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})
MAX_ARGUMENT_READINGS = 1 << 16   # arguments whose spans a Redactor keeps (argv_spans)
SHELL_SAFE_WORD = re.compile(r"[\w@%+=:,./-]+")   # a word shlex.quote leaves unquoted
SHELL_SEPARATOR = re.compile(r"[;&|()<>]+")
SHELL_WORD = re.compile(r"[;&|()<>]+|[^\s;&|()<>]+")
MAX_SHELL_DEPTH = 4       # `bash -c "sh -c '...'"` is looked into this deep
MAX_JSON_ARGUMENT = 1 << 20


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


def _inner_secret_values(word: str) -> list[str]:
    """Secrets inside one argument: a URL's password (`postgres://u:PW@h/db`), secret-named string values of a
    JSON object or list."""
    values = []
    if "://" in word:
        for m in URL_USERINFO.finditer(word):
            password = m.group("userinfo").partition(":")[2]
            if password and password != REDACTED:
                values += [password, unquote(password)]
    if word[:1] in "{[" and len(word) <= MAX_JSON_ARGUMENT:
        try:
            values += _json_secret_values(json.loads(word), 0)
        except (ValueError, RecursionError):
            pass
    return values


def _json_secret_values(data: object, depth: int) -> list[str]:
    values: list[str] = []
    if depth > 64:
        return values
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(value, str):
            if isinstance(key, str) and _assigned_secret_at(f"{key}={value}") is not None:
                values.append(value)
            values += _inner_secret_values(value)
        else:
            values += _json_secret_values(value, depth + 1)
    return values


def _shell_scripts(argv: list[str]) -> list[str]:
    """The scripts a command line gives a shell: `bash -c SCRIPT`, `sh -lc SCRIPT`, `bash -euo pipefail -c SCRIPT`,
    also after a launcher (`docker run img sh -c SCRIPT`, `srun bash -c SCRIPT`)."""
    scripts = []
    for i, arg in enumerate(argv):
        if os.path.basename(arg) not in SHELLS:
            continue
        j = i + 1
        while j < len(argv) and argv[j][:1] in "-+" and argv[j] != "--" and not argv[j].startswith("--"):
            option = argv[j]
            if option[0] == "-" and "c" in option[1:]:
                if j + 1 < len(argv):
                    scripts.append(argv[j + 1])
                break
            j += 2 if option.endswith("o") else 1   # -o pipefail
    return scripts


def _shell_commands(script: str) -> list[list[str]]:
    """A shell string's simple commands as argv lists, split at ; & | ( ) < > (shlex's reading; where its quotes
    do not balance, words split at blanks with their quote characters taken off)."""
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        words = [w.strip("'\"") for w in SHELL_WORD.findall(script)]
    commands: list[list[str]] = [[]]
    for word in words:
        if SHELL_SEPARATOR.fullmatch(word):
            commands.append([])
        elif word:
            commands[-1].append(word)
    return [c for c in commands if c]


def _lower(text: str) -> str:
    """text lower-cased, offset for offset (a character whose lower case is longer becomes "?")."""
    lower = text.lower()
    if len(lower) != len(text):  # only U+0130 (capital I with a dot) lower-cases to two characters
        lower = text.replace("\u0130", "?").lower()
        if len(lower) != len(text):
            lower = "".join(c if len(c) == 1 else "?" for c in map(str.lower, text))
    return lower


class Span(NamedTuple):
    """One replacement. Plain tuples of these five fields are made on the hot paths (a million spans
    must cost little); sorting them orders by start, then end."""
    start: int
    end: int
    replacement: str
    label: str
    context: int        # where the evidence for it begins (a name before a value): never cut between


_START, _END, _REPLACEMENT, _LABEL, _CONTEXT = (operator.itemgetter(i) for i in range(5))


# A terminal control sequence (CSI: colours, cursor moves), as rich, structlog, colorlog and grep --color print them.
# Also as repr(), JSON, a shell or a C source writes the ESC (`\x1b[`, `\u001b[`, `\033[`, `\e[`).
CSI = re.compile(r"(?:\x1b|\\(?:x1b|u001b|033|e))\[[0-?]{0,32}[ -/]{0,8}[@-~]")
ESCAPED_CSI = re.compile(r"\\(?:x1b|u001b|033|e)\[")


def _without_csi(text: str) -> tuple[str, "_Edits"]:
    """text without its CSI sequences (the view the rules read coloured text in), and where they were cut."""
    return _edited(text, [(m.start(), m.end(), "") for m in CSI.finditer(text)])


class _Edits(NamedTuple):
    """Where a view of a text differs from it: edit k put `sizes[k]` characters (none, one or a few) at `view_starts[k]` in place
    of text[text_starts[k]:text_ends[k]] (sorted; edits do not overlap)."""
    view_starts: list[int]
    text_starts: list[int]
    text_ends: list[int]
    sizes: list[int]

    def start_in_text(self, at: int) -> int:
        """Where the view's character at `at` starts in text (an edited character: where its edit starts)."""
        k = bisect.bisect_right(self.view_starts, at) - 1
        if k < 0:
            return at
        inside = at - self.view_starts[k]
        return self.text_starts[k] if inside < self.sizes[k] else self.text_ends[k] + inside - self.sizes[k]

    def end_in_text(self, start: int, end: int) -> int:
        """Where a view span [start, end) ends in text: after its last character (an edit right after it stays
        outside; an edited last character takes its whole edit)."""
        if end <= start:
            return self.start_in_text(start)
        at = end - 1
        k = bisect.bisect_right(self.view_starts, at) - 1
        if k < 0:
            return end
        inside = at - self.view_starts[k]
        return self.text_ends[k] if inside < self.sizes[k] else self.text_ends[k] + inside - self.sizes[k] + 1

    def place_back(self, spans: list[Span]) -> list[Span]:
        start_in_text = self.start_in_text
        return [(first := start_in_text(start), self.end_in_text(start, end) if end > start else first, replacement,
                 label, start_in_text(context)) for start, end, replacement, label, context in spans]


def _edited(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, _Edits]:
    """text with each (start, end, replacement) edit made (in order, none overlapping), and where they lie."""
    kept: list[str] = []
    view_starts: list[int] = []
    at = view = 0
    for start, end, replacement in edits:
        kept.append(text[at:start])
        kept.append(replacement)
        view += start - at
        view_starts.append(view)
        view += len(replacement)
        at = end
    kept.append(text[at:])
    return "".join(kept), _Edits(view_starts, [e[0] for e in edits], [e[1] for e in edits], [len(e[2]) for e in edits])


# A secret name written so that the name rules would not read it (`{"pass\u0077ord": ...}`, `pass<U+200B>word=`,
# `"api\/key":`): a letter of it JSON-escaped (any letter, either hex case, also escaped again inside JSON-in-JSON:
# `\\u0077`) beside a letter written plainly, invisible characters inside it (zero-width space, non-joiner and joiner,
# word joiner, BOM, soft hyphen; raw between two name characters, or escaped beside one), a JSON `\/` inside a quoted
# key. The rules read a view with each such escape decoded, each invisible character dropped and each such `\/` a `_`
# (the words apart, as `api_key`), and their spans are placed back. Only texts that hold a `\u`, a `\/` or a character
# outside ASCII are looked at, and a run of escapes alone (`\u0041` repeated: an escaped run) changes nothing.
INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_NAME_CHARACTER = "[A-Za-z0-9_.-]"
_ESCAPE_TAIL = (r"\\{0,7}u(?:00(?:2[dDeE]|3[0-9]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA]|[aA][dD])"
                r"|200[b-dB-D]|2060|[fF][eE][fF][fF])")   # (an escape after its first backslash)
# led by the backslash, a literal the scan skips to (a pattern led by a look-behind is tried at every character); a
# run starts where no escape and no name character is before it, so inside a long run of escapes each fails at once
NAME_ESCAPE = re.compile(rf"\\(?:(?<={_NAME_CHARACTER}\\)(?<!\\u[0-9a-fA-F]{{4}}\\){_ESCAPE_TAIL}(?:\\{_ESCAPE_TAIL}){{0,7}}"
                         rf"|(?<![\\\\A-Za-z0-9_.-]\\){_ESCAPE_TAIL}(?:\\{_ESCAPE_TAIL}){{0,7}}(?={_NAME_CHARACTER}))")
NAME_ESCAPE_CODE = re.compile(r"\\+u([0-9a-fA-F]{4})")
KEY_SLASH = re.compile(r"\\(?<=[A-Za-z0-9]\\)\\{0,7}/(?=(?:[A-Za-z0-9_.-]|\\{1,8}/|\\{1,8}u[0-9a-fA-F]{4}){1,64}\\{0,8}"
                       r"[\"'][ \t]{0,3}[:=])")
NOT_INVISIBLE = str.maketrans("", "", INVISIBLE)
INVISIBLE_INSIDE = re.compile(f"[{INVISIBLE}](?<={_NAME_CHARACTER}[{INVISIBLE}])[{INVISIBLE}]{{0,3}}(?={_NAME_CHARACTER})")


def _name_edits(text: str) -> list[tuple[int, int, str]]:
    """The edits of the view that spells secret names plainly (see NAME_ESCAPE, KEY_SLASH, INVISIBLE_INSIDE), in
    order; none for most texts (tests in C: a backslash-u, a backslash-slash, a character outside ASCII)."""
    edits = []
    if "\\u" in text:
        for m in NAME_ESCAPE.finditer(text):   # (a run of up to 8 escapes beside a letter written plainly)
            written = m.group()
            decoded = (chr(int(written[-4:], 16)) if written.count("u") == 1
                       else "".join(chr(int(code, 16)) for code in NAME_ESCAPE_CODE.findall(written)))
            edits.append((m.start(), m.end(), decoded.translate(NOT_INVISIBLE)))
    if "\\/" in text:
        edits += [(m.start(), m.end(), "_") for m in KEY_SLASH.finditer(text)]
    if not text.isascii():
        edits += [(m.start(), m.end(), "") for m in INVISIBLE_INSIDE.finditer(text)]
    return sorted(edits) if len(edits) > 1 else edits


def _codes_kept(text: str, spans: list[Span]) -> list[Span]:
    """Spans of a coloured text with the colour codes inside each after its replacement (`ESC[35mS3crESC[1mt!x`
    becomes `ESC[35m[REDACTED]ESC[1m`): the terminal's colours after a value are what they were."""
    for index, (start, end, replacement, label, context) in enumerate(spans):
        if ("\x1b" in text[start:end] or "\\" in text[start:end]) and (codes := CSI.findall(text, start, end)):
            spans[index] = (start, end, replacement + "".join(codes), label, context)
    return spans


def _plain_tail(text: str) -> str:
    """The last 120 characters of text, lower-cased, without colour codes (what the line holds read)."""
    tail = text[-1024:]
    if "\x1b" in tail or "\\" in tail:
        tail = CSI.sub("", tail)
    elif tail.isascii():
        return text[-120:].lower()
    edits = _name_edits(tail)   # (`pass\u0077ord:` ending a line waits for its value as `password:` does)
    return (_edited(tail, edits)[0] if edits else tail)[-120:].lower()


def _merge_spans(found: list[Span]) -> list[Span]:
    """Sorted spans merged so that none overlap. (A plain loop: chains of map() and accumulate() over the
    spans, tried for texts of a million spans, measured slower here.)"""
    merged = [found[0]]
    last_end = found[0][1]
    for span in itertools.islice(found, 1, None):
        if span[0] < last_end:
            last = merged[-1]
            end = span[1] if span[1] > last_end else last_end
            # a placeholder inside another (an IPv4 inside an IPv6) keeps the outer one; a secret wins
            if span[2] == last[2] or (span[1] <= last_end and span[2] != REDACTED):
                replacement = last[2]
            elif span[0] == last[0] and REDACTED not in (span[2], last[2]) and last_end <= span[1]:
                replacement = span[2]  # the last one lies inside this one (a short host name, the FQDN)
            elif "\n" in last[2] and span[1] <= last_end:
                replacement = last[2]  # a secret inside a block replaced line by line: the block keeps its lines
            elif "\n" in span[2] and span[0] == last[0] and last_end <= span[1]:
                replacement = span[2]
            else:
                replacement = REDACTED
            # a known secret is counted as one; a key block stays one (a stream carries an open one on)
            label = span[3] if span[3] == KEY_BLOCK or (span[3] == KNOWN_VALUE and last[3] != KEY_BLOCK) else last[3]
            if end != last[1] or replacement != last[2] or label != last[3]:
                merged[-1] = (last[0], end, replacement, label, min(last[4], span[4]))
            last_end = end
        else:
            merged.append(span)
            last_end = span[1]
    return merged


class Redactor:
    def __init__(self, environ: dict[str, str] | None = None, redact_hosts: bool = False,
                 extra_secrets: list[str] | None = None):
        self.environ = dict(os.environ if environ is None else environ)
        self.redact_hosts = redact_hosts
        self.counts: Counter[str] = Counter()
        self._argv_done: dict[tuple[str, ...], list[str]] = {}
        self._argument_spans: dict[str, list[Span]] = {}   # an argument's own reading (argv_spans)
        # A secret-named variable holding a path is where a secret lives (hunting the path would wipe
        # every path sharing it); a bare hex key under a name that does not say hash is a secret.
        secrets = {v for name in secret_env_names(self.environ)
                   if worth_hiding(v := self.environ[name]) and not is_named_location(v, on_disk=True)}
        secrets |= {v for name, v in self.environ.items() if is_hex_key(v) and not names_a_hash(name)}
        secrets |= {s for s in extra_secrets or [] if worth_hiding(s)}
        # Secret-shaped pieces of any value (a URL password in DATABASE_URL, a key in a flag) are
        # secrets too, wherever they show up later, bare or escaped.
        # A proxy given without a scheme (HTTPS_PROXY=bob:PASSWORD@proxy:3128, as curl and pip take it) is
        # read as a URL.
        proxies = ["http://" + v for n, v in self.environ.items() if "proxy" in n.lower() and "://" not in v and "@" in v]
        # A value that holds one (a URL with its password) is hidden whole where it is printed encoded
        # (`base64 <<< "$DATABASE_URL"`): the encoding of the part before a short password shows it.
        holder_forms: set[str] = set()
        for text in [*self.environ.values(), *(extra_secrets or []), *proxies]:
            found = {v for v in _span_values(text, self._secret_spans(text)) if worth_hiding(v)}
            secrets |= found
            if found and text not in found and len(text) <= 4096 and "\n" not in text:
                holder_forms |= _holder_encoded_forms(text)
        self._secret_values = sorted(secrets, key=len, reverse=True)
        # A piece of a known secret (printed in part, or cut by a line wrap): needles of FRAGMENT characters
        # at the secret's start, end and every FRAGMENT-th character, one regex each that starts with
        # the needle (so the engine skips ahead to it as a literal search does) and goes on with the
        # secret's next characters, longest first; a piece of 12+ characters that starts or ends the
        # secret, or of 23+ from its middle, holds one. Leftwards it is grown by comparing slices.
        self._pieces: list[tuple[str, list[tuple[int, re.Pattern[str]]]]] = []
        # A secret of 8 to 23 characters printed in two pieces on two lines, each too short to be a piece
        # (print(v[:11]); print(v[11:])): one regex per secret, its first 3 characters then each next one
        # with an optional line break before it.
        self._broken: list[re.Pattern[str]] = []
        # the values those two rules find over lines: a stream holds back lines that may begin one (head_over_lines)
        self._split_values: list[str] = []
        # A known secret's base64 is a secret too, and so are its pieces: `base64` and MIME wrap it at 76
        # characters, which a search for the whole encoded text misses (a key in a variable, its lines
        # joined, included).
        wrapped = {form for value in self._secret_values if len(value) >= FRAGMENT
                   for form in _base64_forms(value) if len(form) >= 16}
        # A value with spaces or lines (a key block) gives its long runs (a key's lines, its body JSON-escaped): a
        # half of one printed on a line is a piece too; its short words (BEGIN, login) never are.
        chunks = {chunk for value in self._secret_values if " " in value or "\n" in value
                  for chunk in value.split() if len(chunk) >= 2 * FRAGMENT}
        for value in [*self._secret_values, *sorted((wrapped | chunks) - set(self._secret_values), key=len, reverse=True)]:
            if "\n" in value or "://" in value or " " in value or is_named_location(value):
                continue
            self._split_values.append(value)
            if 8 <= len(value) < 2 * FRAGMENT:
                self._broken.append(re.compile(re.escape(value[:WRAP_REST]) + "".join(
                    r"(?:\r?\n)?" + re.escape(c) for c in value[WRAP_REST:])))
            if len(value) <= FRAGMENT:
                continue
            offsets: dict[str, int] = {}
            for at in [*range(0, len(value) - FRAGMENT + 1, FRAGMENT), len(value) - FRAGMENT]:
                offsets.setdefault(value[at:at + FRAGMENT], at)
            self._pieces.append((value, [(at, re.compile(re.escape(needle) + _longest_first(
                value[at + FRAGMENT:at + FRAGMENT + CHAIN]))) for needle, at in offsets.items()]))
        self._split_reach = max(map(len, self._split_values), default=0)
        self._literals = sorted({f for v in secrets for f in escaped_forms(v)} | holder_forms, key=len, reverse=True)
        self.longest_literal = max((len(f) for f in self._literals), default=0)
        self._placeholders: dict[str, dict[str, str]] = {}
        self._host_patterns: list[tuple[str, str, re.Pattern[str], bool]] = []
        self._known_addresses: set[str] = set()
        self._domain_patterns: list[re.Pattern[str]] = []
        self._ipv4_verdicts: dict[str, str] = {}
        self._ipv6_verdicts: dict[str, str | None] = {}
        self._version_contexts: dict[str, bool] = _VersionContexts()
        if redact_hosts:
            self._setup_hosts()

    def _setup_hosts(self) -> None:
        names = {socket.gethostname(), socket.getfqdn(), self.environ.get("HOSTNAME", "")}
        hosts = sorted((n for n in names if n and n not in ("localhost", "localhost.localdomain")), key=len, reverse=True)
        users = {self.environ.get("USER", ""), self.environ.get("LOGNAME", "")}
        try:
            users.add(getpass.getuser())
        except Exception:  # no passwd entry in some containers
            pass
        user_list = sorted((u for u in users if u and u != "root" and len(u) >= 3), key=len, reverse=True)
        # The short name of a fully qualified one (HOSTNAME=node7.cluster.example: "node7" too)
        shorts = {h.split(".", 1)[0] for h in hosts if "." in h and not _is_address(h)}
        hosts = sorted({h.lower() for h in hosts} | {h.lower() for h in shorts if len(h) >= 4}, key=len, reverse=True)
        macs = sorted(_own_macs())
        # Whole names only: a host called "vm" must not turn "nvml" into "nhost-1l"; in any letter case. A name that
        # is no common word ends at "_" too (gpunode17_rank0.log, alice_checkpoint.pt); a common one (data) does not.
        for kind, label, values in (("host", "host name", hosts), ("user", "user name", user_list),
                                    ("mac", "mac address", [m.replace(":", "") for m in macs])):
            for value in values:  # matched in the lower-cased text: a case-blind pattern cannot skip ahead
                literal = re.escape(value.lower())
                common = kind != "mac" and is_common_name(value)
                word = "[a-z0-9_]" if common or kind == "mac" else "[a-z0-9]"
                self._host_patterns.append((kind, label, re.compile(
                    rf"{literal}(?<!{word}{literal})(?!{word})"), common))
        for host in hosts:
            numbered = HOST_NUMBERED.fullmatch(host)
            if numbered and not _is_address(host) and not is_common_name(numbered.group("prefix")):
                prefix = re.escape(numbered.group("prefix"))
                self._host_patterns.append(("host", "host name", re.compile(
                    rf"{prefix}(?<![a-z0-9]{prefix})\[[0-9]+(?:[-,][0-9]+)+\](?![a-z0-9])"), False))
        self._known_addresses = _own_addresses(hosts)
        # The domain of this host's FQDN (gpunode17.acme-corp.example: acme-corp.example): other machines' names in it
        # name the same organisation (node8.cluster.acme-corp.example), and so does the domain itself.
        self._domain_patterns = [re.compile(rf"{re.escape(d)}(?<![\w-]{re.escape(d)})(?![\w-])(?!\.[\w])")
                                 for d in sorted({h.split(".", 1)[1] for h in hosts if "." in h and not _is_address(h)
                                                  and "." in h.split(".", 1)[1]}, key=len, reverse=True)]
        for variable in SSH_ADDRESS_VARIABLES:
            for word in self.environ.get(variable, "").split():
                if _is_address(word):
                    self._known_addresses.add(word)

    @property
    def has_secrets(self) -> bool:
        """Whether the environment or the extra values hold anything secret or secret-shaped (which
        binary files, like an nsys report, could carry unredacted)."""
        return bool(self._secret_values)

    def _marks_version(self, before: str) -> bool:
        """_marks_version, remembered per context (a log repeats its lines); the memory is bounded."""
        cache = self._version_contexts
        verdict = cache.get(before)
        if verdict is None:
            if len(cache) > 65536:
                cache.clear()
            verdict = cache[before] = _marks_version(before)
        return verdict

    def placeholder(self, kind: str, value: str) -> str:
        table = self._placeholders.setdefault(kind, {})
        if value not in table:
            table[value] = f"{kind}-{len(table) + 1}"
        return table[value]

    # ---- finding spans ------------------------------------------------------------------------

    def _secret_spans(self, text: str, in_key: bool = False, token_carry: bool = False,
                      value_next: bool = False, lower: str | None = None) -> list[Span]:
        """Spans of secrets by shape (not by known value): token shapes, URL passwords, keys, pairs."""
        spans: list[Span] = []
        if token_carry:  # a token cut at the previous piece's end goes on to the first whitespace
            m = re.match(r"\S+", text)
            if m:
                spans.append((0, m.end(), REDACTED, "continued secret", 0))
        if value_next:  # the previous piece ended with "api_key:": its value starts this one
            m = re.match(r"[ \t]{0,16}[\"']?(?P<value>[^\s'\",;]{3,})", text)
            if m and not cannot_be_secret(m.group("value")):
                spans.append((m.start("value"), m.end(), REDACTED, "secret-named value", 0))
        present = set()
        for label, literal, pattern in TOKEN_SHAPE_LITERALS:
            # a substring test first where it is the faster scan (a long literal) or tells _context_shape_spans
            # something; a short literal's pattern scans faster than `in` does (the regex engine skips to it)
            if len(literal) > 5 or literal in CONTEXT_LITERALS or not literal:
                if literal not in text:
                    continue
                present.add(literal)
            if label == "service token" and not any(prefix in text for prefix in SERVICE_PREFIXES):
                continue  # (substring tests cost less than the alternation's scan on log text)
            if "value" in pattern.groupindex:  # Bearer / Basic: a credential, not words (`basic configuration_x`)
                spans.extend((m.start("value"), m.end(), REDACTED, label, m.start()) for m in pattern.finditer(text)
                             if CREDENTIAL_CHARACTER.search(m.group("value")))
            else:
                spans.extend((a, b, REDACTED, label, a) for a, b in map(re.Match.span, pattern.finditer(text)))
        spans.extend(_provider_token_spans(text))
        spans.extend(_url_userinfo_spans(text))
        if "@" in text:
            spans.extend(_schemeless_credential_spans(text))
        spans.extend(_escaped_url_spans(text))
        spans.extend(_command_password_spans(text))
        spans.extend(_printed_flag_spans(text))
        spans.extend(_context_shape_spans(text, present))
        if ":*:" in text or PGPASS_PORT.search(text):
            spans.extend(_pgpass_spans(text))
        lower = _lower(text) if lower is None else lower
        for m in AUTHORIZATION.finditer(lower):
            if m.group("sep") == "=" and cannot_be_secret(m.group("value")):
                continue  # authorization=none: a setting (`Authorization: X` is a header, whatever X)
            value_end = m.end("value")
            if m.group("value").startswith("aws4-"):  # SigV4: `..., SignedHeaders=..., Signature=HEX` to the quote or line end
                value_end = _aws4_authorization_end(lower, m.start("value"), value_end)
            elif "\\" in m.group("value") and (cut := _escaped_line_end(lower, m.start("value"), value_end)):
                value_end = cut  # http.client's send: b'..Authorization: Bearer X\\r\\nContent-Length: 2..'
            spans.append((m.start("value"), value_end, REDACTED, "secret-named value", m.start()))
            if m.group("value").startswith("digest"):  # its other parameters, on to the line's end
                line_end = lower.find("\n", m.end())
                spans.extend((p.start("value"), p.end("value"), REDACTED, "secret-named value", m.start())
                             for p in DIGEST_PARAM.finditer(lower, m.end(), line_end if line_end >= 0 else len(lower)))
        spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                     for m in NETRC_PASSWORD.finditer(lower))
        if "cookie" in lower:
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in COOKIE_HEADER.finditer(lower))
        if "signature=" in lower:
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in URL_SIGNATURE.finditer(lower))
        for m in KEY_ASSIGNMENT.finditer(lower):
            value = m.group("value")
            if (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
                    and not _names_harmless_key(text, m.start()) and not KIND_PREFIXED_HASH.fullmatch(value)):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
        if "kaggle" in lower:  # a Kaggle key is 32 bare hex digits: one beside the word
            spans.extend(_beside_spans(lower, KAGGLE_WORD, KAGGLE_KEY, is_hex_key, "kaggle key"))
        spans.extend(_assignment_spans(text, lower))
        spans.extend(_key_spans(text, lower, in_key))
        return spans

    def _literal_spans(self, text: str) -> list[Span]:
        spans: list = []
        append = spans.append
        for literal in self._literals:
            size = len(literal)
            at = text.find(literal)
            while at >= 0:
                append((at, at + size, REDACTED, KNOWN_VALUE, at))
                at = text.find(literal, at + size)
        return spans

    def _fragment_spans(self, text: str) -> list[Span]:
        """Pieces of known secrets (see __init__), each grown to as far as it matches the secret; a
        piece that reaches a line's end with the rest of its secret starting the next line (a wrap)
        takes that rest too, and one that starts a line takes the secret's head ending the line before.
        A needle's search goes on after the piece it found, and skips what an earlier needle of the
        same secret covered, so each character is looked at a bounded number of times per needle."""
        spans: list[Span] = []
        size = len(text)
        search = re.Pattern.search
        for value, needles in self._pieces:
            covered: list[tuple[int, int]] = []  # this secret's pieces so far, in order
            whole = len(value)
            for offset, pattern in needles:
                found: list[tuple[int, int]] = []
                index = 0
                at = 0
                pieces = len(covered)
                after = offset + FRAGMENT
                # (one iterator while each search would start where the last match ended; a new one where it jumps)
                matches = pattern.finditer(text)
                while (m := next(matches, None)) is not None:
                    start, stop = m.span()
                    if start < at:
                        matches = pattern.finditer(text, at)
                        continue
                    if pieces:
                        while index < pieces and covered[index][1] <= start:
                            index += 1
                        if index < pieces and covered[index][0] <= start:
                            at = covered[index][1]
                            continue
                    right = stop - start - FRAGMENT
                    # the whole secret (a literal span has it): the regex reached its end, or grew as far as it may
                    if (right == whole - after or right == CHAIN) and start >= offset and text.startswith(
                            value, start - offset):
                        at = start - offset + whole
                        found.append((start - offset, at))
                        continue
                    if right == CHAIN:  # the regex grew it as far as it may: go on by comparing slices
                        room = min(len(value) - offset - FRAGMENT, size - start - FRAGMENT)
                        right = _common_prefix(text[start + FRAGMENT:start + FRAGMENT + room],
                                               value[offset + FRAGMENT:offset + FRAGMENT + room])
                    left = 0
                    if offset and start and text[start - 1] == value[offset - 1]:
                        room = min(offset, start)
                        left = _common_suffix(text[start - room:start], value[offset - room:offset])
                    begin, end = start - left, start + FRAGMENT + right
                    spans.append((begin, end, REDACTED, KNOWN_VALUE, begin))
                    found.append((begin, end))
                    if 0 < whole - after - right < FRAGMENT:  # the rest of the secret, short: maybe on the next line
                        tail = value[after + right:]
                        rest = end + (2 if text.startswith("\r\n", end) else 1 if text.startswith("\n", end) else 0)
                        if rest > end and text.startswith(tail, rest):
                            spans.append((rest, rest + len(tail), REDACTED, KNOWN_VALUE, begin))
                    if 0 < offset - left < FRAGMENT and (begin == 0 or text[begin - 1] == "\n"):
                        head = value[:offset - left]
                        before = begin - 1 - (text[begin - 2:begin - 1] == "\r")
                        if before >= len(head) and text.startswith(head, before - len(head)):
                            spans.append((before - len(head), before, REDACTED, KNOWN_VALUE, before - len(head)))
                    at = end
                if found:
                    covered = sorted(covered + found)
        return spans

    def _broken_spans(self, text: str) -> list[Span]:
        """A short known secret broken over lines (see __init__): each line's piece becomes [REDACTED]."""
        spans: list[Span] = []
        for pattern in self._broken:
            for m in pattern.finditer(text):
                start, end = m.span()
                if text.find("\n", start, end) >= 0:
                    spans.append((start, end, _line_by_line(text, start, end), KNOWN_VALUE, start))
        return spans

    def _decoded_spans(self, decoded: str) -> list[Span]:
        """What is secret in a text decoded from a dump or escapes: known values, their pieces, shapes."""
        found = self._literal_spans(decoded) + self._secret_spans(decoded)
        if self._pieces:
            found += self._fragment_spans(decoded)
        return found

    def _dump_spans(self, text: str) -> list[Span]:
        """Secrets in dumps (see _dump_parts): the decoded text is searched like any text (known values, their
        pieces, shapes); every byte found there goes, in each column that shows it, line by line. Dump lines behind
        a log prefix (_dump_prefix_edits) are read in a view without their prefixes."""
        edits = _dump_prefix_edits(text)
        if edits:
            view, where = _edited(text, edits)
            return where.place_back(self._unprefixed_dump_spans(view))
        return self._unprefixed_dump_spans(text)

    def _unprefixed_dump_spans(self, text: str) -> list[Span]:
        if not _may_hold_dump(text):
            return []  # (one scan instead of the ten of _dump_parts: most texts hold no dump, also long ones: "x" lines)
        decoded, parts = _dump_parts(text)
        if not parts:
            return []
        found = self._decoded_spans(decoded)
        if not found:
            return []
        spans: list[Span] = []
        firsts = [part.first for part in parts]
        found.sort()
        merged = [list(found[0][:2]) + [found[0][3]]]
        for start, end, _, label, _ in found:
            if start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end, label])
        for start, end, label in merged:
            while start < end:
                part = parts[bisect.bisect_right(firsts, start) - 1]
                line_starts, line_firsts = part.lines()
                index = bisect.bisect_right(line_firsts, start - part.first) - 1
                if index >= len(line_starts):  # the NUL between two parts
                    start += 1
                    continue
                line_first = part.first + line_firsts[index]
                stop = min(end, part.first + line_firsts[index + 1])
                for first, last in _dump_columns(text, part, index, start - line_first, stop - 1 - line_first):
                    spans.append((first, last, REDACTED, label, first))
                start = stop
        return spans

    def _escaped_run_spans(self, text: str) -> list[Span]:
        """Secrets with every character escaped (ESCAPED_RUNS: %5A%6B..., &#90;&#107;..., \\u005a..., \\132...,
        0x5A 0x6B ..., UTF-16 read as bytes): every run of a kind is decoded at once (a NUL after each run), all
        kinds into one text searched like any text (known values, their pieces, shapes); a run where something
        is found goes whole. Python runs per run only where something was found."""
        kinds: list[tuple[re.Pattern[str], int]] = []   # (pattern, how many runs) of each kind found
        decoded: list[str] = []
        for literal, pattern, decode in ESCAPED_RUNS:
            if literal not in text:
                continue
            runs = pattern.findall(text)
            if runs:
                kinds.append((pattern, len(runs)))
                decoded.append(decode(runs))
        if not kinds:
            return []
        joined = "\0".join(decoded)
        found = self._decoded_spans(joined)
        if not found:
            return []
        nuls = [m.start() for m in re.finditer("\0", joined)]   # run i ends at nuls[i] (the last run at the end)
        hit = sorted({bisect.bisect_left(nuls, at) for start, end, *_ in found for at in (start, end - 1)})
        spans: list[Span] = []
        first = 0
        for pattern, count in kinds:
            mine = [i - first for i in hit if first <= i < first + count]
            if mine:
                where = [m.span() for m in pattern.finditer(text)]
                spans += [(where[i][0], where[i][1], REDACTED, KNOWN_VALUE, where[i][0]) for i in mine]
            first += count
        return spans

    def _printed_form_spans(self, text: str) -> list[Span]:
        """Secrets as common tools print them, the name apart from the value (see the finders after
        _url_userinfo_spans): Kubernetes env lists and Secret data, shell-quoted values, loguru arrows,
        header tuples, terraform's sensitive values, XML elements, kubeconfig *-data keys."""
        spans = (_env_item_spans(text) + _shell_quoted_spans(text) + _loguru_spans(text) + _header_tuple_spans(text)
                 + _terraform_sensitive_spans(text) + _xml_element_spans(text) + _name_value_table_spans(text)
                 + _yaml_block_spans(text) + _tool_listing_spans(text) + _prefixed_block_spans(text))
        if any(prefix in text for prefix in DOCKER_CONFIG_PREFIXES):
            for m in DOCKER_CONFIG_BASE64.finditer(text):
                run = m.group(0)
                decoded = _base64_text(run[:len(run) // 4 * 4])  # (a first line of `base64`'s 76 columns)
                if decoded and DOCKER_CONFIG_SECRET.search(decoded):
                    spans.append((m.start(), m.end(), REDACTED, "kubernetes secret data", m.start()))
        if "ata" in text:
            spans += _yaml_data_block_spans(text) + _json_data_block_spans(text)
            if "-data" in text:
                for m in DASH_DATA.finditer(text):
                    decoded = _base64_text(m.group("value"))
                    if decoded and ("PRIVATE KEY" in decoded or self._secret_spans(decoded)):
                        spans.append((m.start("value"), m.end("value"), REDACTED, "kubernetes secret data",
                                      m.start()))
        return spans

    def head_over_lines(self, text: str, end: int) -> int:
        """Where a known secret printed over lines may have begun before `end` (a line's end): the start of the
        line where the longest head of such a value that text[:end] ends with, line breaks aside, begins (a
        stream holds back from there until the next lines are read: print(v[:4]); print(v[4:7]); ... as one
        piece each); `end` where none does. Any head counts, one character too: holding is always safe."""
        if not self._split_values:
            return end
        reach = self._split_reach
        first = max(0, end - 3 * reach)
        kept = [i for i in range(first, end) if text[i] not in "\r\n"][-reach:]   # (a few dozen characters)
        tail = "".join(map(text.__getitem__, kept))
        if not tail:
            return end
        last = tail[-1]
        where = end
        for value in self._split_values:   # the longest head first: only where the value holds the tail's last
            at = value.rfind(last, 0, min(len(value) - 1, len(tail)))
            while at >= 0:
                if tail.endswith(value[:at + 1]):
                    where = min(where, text.rfind("\n", 0, kept[len(kept) - at - 1]) + 1)
                    break
                at = value.rfind(last, 0, at)
        return where

    def _host_spans(self, text: str, lower: str) -> list[Span]:
        spans = []
        for kind, label, pattern, common in self._host_patterns:
            for m in pattern.finditer(lower):
                start, end = m.span()
                if common and not _in_host_context(lower, start, end, kind):
                    continue  # USER=nvidia: "NVIDIA H100" stays, "/home/nvidia" and "nvidia@node" go
                spans.append((start, end, self.placeholder(kind, m.group(0)), label, max(0, start - 24)))
        first_mac = lower.encode("ascii", "replace").translate(MAC_CLASSES).find(MAC_CANDIDATE)
        for m in MAC.finditer(lower, first_mac + 2) if first_mac >= 0 else ():
            start = m.start() - 2
            value = lower[start:m.end()].replace("-", ":")
            if value not in BORING_MACS:
                spans.append((start, m.end(), self.placeholder("mac", value.replace(":", "")), "mac address", start))
        spans.extend(self._other_host_spans(lower))
        spans.extend(self._bare_mac_spans(text, lower))
        for pattern in GPU_UUIDS:
            for m in pattern.finditer(text):
                spans.append((m.start(), m.end(), self.placeholder("gpu-uuid", m.group(0)), "gpu uuid", m.start()))
        if "uuid=" in lower:
            for m in GPU_UUID_AFTER_NAME.finditer(lower):   # (the same placeholder as its GPU- form)
                spans.append((m.start("uuid"), m.end(), self.placeholder("gpu-uuid", "GPU-" + m.group("uuid")),
                              "gpu uuid", m.start()))
        addresses = self._placeholders.setdefault("ip", {})
        first_quad = IPV4_HINT.search(text)
        if first_quad:   # (no dotted quad starts before 3 characters ahead of the first hint)
            spans += self._ipv4_spans(text, lower, addresses, max(0, first_quad.start() - 4))
        hints = [hint.start() for hint in (IPV6_COMPRESSED_HINT.search(text) if "::" in text else None,
                                            IPV6_HINT.search(text)) if hint]
        if hints:        # (nor an IPv6 address 41 characters ahead of the first)
            spans += self._ipv6_spans(text, addresses, max(0, min(hints) - 48))
        return spans

    def _ipv4_spans(self, text: str, lower: str, addresses: dict[str, str], at: int) -> list[Span]:
        """The dotted quads from `at` on (see IPV4), judged in bulk: a verdict per distinct value, a version
        context per distinct 64 characters before a quad that needs one; Python per quad only where the text
        says version or "+" follows (ADDRESS_BEFORE then decides)."""
        values, starts, ends = _split_matches(IPV4_SPLIT, text, at)
        if not values:
            return []
        verdicts = self._ipv4_verdicts
        for value in set(values).difference(verdicts):
            verdicts[value] = _ipv4_verdict(value, self._known_addresses)
        kinds = list(map(verdicts.__getitem__, values))
        keep = list(map("skip".__ne__, kinds))
        checked = list(itertools.compress(range(len(kinds)), map("check".__eq__, kinds))) if "check" in kinds else []
        if checked:
            check_starts = list(map(starts.__getitem__, checked))
            befores = map(lower.__getitem__, map(slice, _minus(check_starts, 64), check_starts))
            marked = map(self._version_contexts.__getitem__, befores)
            plus = map(text.startswith, itertools.repeat("+"), map(ends.__getitem__, checked))
            for i in itertools.compress(checked, list(map(operator.or_, marked, plus))):
                if not ADDRESS_BEFORE.search(text, max(0, starts[i] - 24), starts[i]):
                    keep[i] = False  # a version number
        if not all(keep):
            values, starts, ends = (list(itertools.compress(column, keep)) for column in (values, starts, ends))
        for value in dict.fromkeys(values):   # numbered in the text's order, as found
            if value not in addresses:
                self.placeholder("ip", value)
        return list(zip(starts, ends, map(addresses.__getitem__, values), itertools.repeat("ip address"),
                        _minus(starts, 24)))

    def _ipv6_spans(self, text: str, addresses: dict[str, str], at: int) -> list[Span]:
        """The IPv6 addresses from `at` on (see IPV6): each distinct candidate judged once by ipaddress (a log
        repeats its candidates), the spans made in bulk."""
        values, starts, ends = _split_matches(IPV6_SPLIT, text, at)
        if not values:
            return []
        verdicts = self._ipv6_verdicts
        missing = set(values).difference(verdicts)
        if missing and len(verdicts) + len(missing) > 65536:
            verdicts.clear()
            missing = set(values)
        for value in missing:   # the address, or None where it is none
            address = value.split("%", 1)[0]
            verdicts[value] = None if address in BORING_IPS or not _is_ipv6(address) else address
        found = list(map(verdicts.__getitem__, values))
        if any(text[end:end + 1] in CXX_AFTER_SCOPE for end in ends):   # c10::{lambda()#1}, ab::cd(): C++ names
            found = [None if text[end:end + 1] in CXX_AFTER_SCOPE else address for address, end in zip(found, ends)]
        if not all(found):
            starts, ends, found = (list(itertools.compress(column, found)) for column in (starts, ends, found))
        for address in dict.fromkeys(found):   # numbered in the text's order, as found
            if address not in addresses:
                self.placeholder("ip", address)
        return list(zip(starts, ends, map(addresses.__getitem__, found), itertools.repeat("ip address"), starts))

    def _bare_mac_spans(self, text: str, lower: str) -> list[Span]:
        """Another machine's MAC as 12 hex digits with no separators (001B213A4F5C): in capitals anywhere (a hash is
        printed in small letters), in small letters only after a MAC word on its line (`ether 001b213a4f5c`)."""
        spans: list[Span] = []
        candidates = BARE_MAC_CANDIDATE.finditer(b" " + text.encode("ascii", "replace").translate(BARE_MAC_CLASSES))
        for m in filter(None, map(BARE_MAC.match, itertools.repeat(text), map(_START_OF, candidates))):
            start, end = m.span()
            value = m.group(0)
            if not value.isupper() and not MAC_WORDS_BEFORE.search(lower, max(0, start - 24), start):
                continue
            spans.append((start, end, self.placeholder("mac", value.lower()), "mac address", start))
        return spans

    def _other_host_spans(self, lower: str) -> list[Span]:
        """Other machines' names (see _setup_hosts and AWS_HOST, GCP_HOST) and MACs in Cisco's spelling."""
        spans: list[Span] = []
        if "." in lower:
            for m in CISCO_MAC.finditer(lower):
                start = m.start() - 4
                value = lower[start:m.end()]
                if not value.replace(".", "").isdigit():
                    spans.append((start, m.end(), self.placeholder("mac", value.replace(".", "")), "mac address", start))
        # (the names found as columns: where each starts and ends, and the name; spans made by one zip at the end)
        starts: list[int] = []
        ends: list[int] = []
        names: list[str] = []
        if "ip-" in lower:  # the names and their octets by one split(), each distinct octets judged once
            parts = AWS_HOST_SPLIT.split(lower)
            if len(parts) > 1:
                octets = parts[2::3]
                valid = {value: all(int(octet) < 256 for octet in value.split("-")) for value in set(octets)}
                lengths = [0] * (2 * len(octets) + 1)
                lengths[0::2] = map(len, parts[0::3])
                lengths[1::2] = map(len, parts[1::3])
                bounds = list(itertools.accumulate(lengths))
                starts, ends, names = bounds[0:-1:2], bounds[1::2], parts[1::3]
                if not all(valid.values()):
                    keep = list(map(valid.__getitem__, octets))
                    starts, ends, names = (list(itertools.compress(column, keep)) for column in (starts, ends, names))
        found = []
        if ".internal" in lower:
            found += [(_name_start(lower, m.start()), m.end()) for m in GCP_HOST.finditer(lower)]
        for pattern in self._domain_patterns:
            low = 0
            for m in pattern.finditer(lower):
                start = m.start()
                if start and lower[start - 1] == ".":
                    found.append((_name_start(lower, start - 1, low), m.end()))
                else:
                    spans.append((start, m.end(), self.placeholder("domain", m.group(0)), "host name", start))
                low = m.end()
        if found:
            starts += map(operator.itemgetter(0), found)
            ends += map(operator.itemgetter(1), found)
            names += map(lower.__getitem__, itertools.starmap(slice, found))
        if names:
            table = self._placeholders.setdefault("host", {})
            for name in dict.fromkeys(names):   # numbered in the order found
                if name and name not in table:
                    self.placeholder("host", name)
            named = zip(starts, ends, map(table.get, names), itertools.repeat("host name"), starts)
            spans += named if all(names) else itertools.compress(named, names)
        return spans

    def spans(self, text: str, in_key: bool = False, token_carry: bool = False,
              value_next: bool = False) -> list[Span]:
        """Every span to replace in text, merged so that none overlap, in order."""
        with _collector_paused():   # (a text of real matches makes a tuple or more per match, none in a cycle)
            return self._all_spans(text, in_key, token_carry, value_next)

    def _all_spans(self, text: str, in_key: bool, token_carry: bool, value_next: bool) -> list[Span]:
        if "\x1b" in text or ("\\" in text and ("1b[" in text or "033[" in text or "\\e[" in text)
                               and ESCAPED_CSI.search(text)):
            plain = CSI.sub("", text)
            if len(plain) < len(text):  # coloured text: the rules read it without its colour codes
                return self._coloured_spans(text, plain, in_key, token_carry, value_next)
        if "\\" in text or not text.isascii():
            edits = _name_edits(text)
            if edits:  # a secret name escaped or split (`"pass\u0077ord":`): the rules read it spelled plainly
                return self._view_spans(text, edits, in_key, token_carry, value_next)
        lower = _lower(text)
        found = self._literal_spans(text) + self._secret_spans(text, in_key, token_carry, value_next, lower)
        if self._pieces:
            found += self._fragment_spans(text)
        if self._broken and "\n" in text:
            found += self._broken_spans(text)
        found += self._dump_spans(text)
        found += self._escaped_run_spans(text)
        found += self._printed_form_spans(text)
        _extend_quoted_values(text, found)
        if self.redact_hosts:
            found += self._host_spans(text, lower)
        if not found:
            return []
        found.sort()
        return _merge_spans(found)

    def _coloured_spans(self, text: str, plain: str, in_key: bool, token_carry: bool, value_next: bool) -> list[Span]:
        """The spans of text's view without CSI codes (`plain`; ANSI colours: `ESC[36mpassword ESC[0m=ESC[35mX`),
        placed back on text, and a known secret found in text as it is (one could hold an ESC). The codes inside
        a span follow its replacement (`ESC[35mS3crESC[1mt!x` becomes `ESC[35m[REDACTED]ESC[1m`), so the terminal's
        colours after it are what they were."""
        found = self._literal_spans(text)
        in_plain = self.spans(plain, in_key, token_carry, value_next)
        if in_plain:
            found += _without_csi(text)[1].place_back(in_plain)
        if not found:
            return []
        found.sort()
        return _codes_kept(text, _merge_spans(found))

    def _dump_spans_uncoloured(self, text: str) -> list[Span]:
        """_dump_spans of a text that may be coloured (a stream's dump context: `ESC[36m00000000ESC[0m  68 66 ...`)."""
        if "\x1b" not in text:
            return self._dump_spans(text)
        plain, where = _without_csi(text)
        return _codes_kept(text, where.place_back(self._dump_spans(plain)))

    def _view_spans(self, text: str, edits: list[tuple[int, int, str]], in_key: bool, token_carry: bool,
                    value_next: bool) -> list[Span]:
        """The spans of text's view with secret names spelled plainly (_name_edits), placed back on text, and a known
        secret found in text as it is."""
        view, where = _edited(text, edits)
        found = self._literal_spans(text) + where.place_back(self.spans(view, in_key, token_carry, value_next))
        if not found:
            return []
        found.sort()
        return _merge_spans(found)

    def _apply(self, text: str, spans: list[Span], end: int | None = None) -> str:
        if end is not None and end < len(text):
            spans = spans[:bisect.bisect_left(spans, end, key=_START)]
        else:
            end = len(text)
        out: list[str] = []
        append = out.append
        at = 0
        with _collector_paused():
            for start, stop, replacement, _label, _context in spans:
                append(text[at:start])
                append(replacement)
                at = stop
            append(text[at:end] if at < end else "")
            self.counts.update([span[3] for span in spans])
            return "".join(out)

    # ---- public API -----------------------------------------------------------------------------

    def text(self, text: str) -> str:
        return self._apply(text, self.spans(text))

    def environment(self, environ: dict[str, str]) -> dict[str, str]:
        """The environment with secret-named values replaced and every other value redacted as text."""
        clean = {}
        for name, value in sorted(environ.items()):
            if (is_secret_name(name) and not is_named_location(value, on_disk=True)
                    and value.strip().lower() not in NOT_SECRET_VALUES):
                # (a path is where a secret lives, not one; TOKENIZERS_PARALLELISM=false a setting)
                self.counts["secret-named environment variable"] += 1
                clean[name] = REDACTED
            else:
                clean[name] = self.text(value)
        return clean

    def argv(self, argv: list[str]) -> list[str]:
        """A command line with secret values removed: `--token VALUE`, `-pSECRET` for mysql, `-u u:PASS`.
        Triage writes the same command into four files: each distinct command is redacted once (20,000
        arguments took 0.8-2.3 s a call)."""
        key = tuple(argv)
        done = self._argv_done.get(key)
        if done is None:
            done = self._argv_done[key] = self._redacted_argv(argv)
        return list(done)

    def _redacted_argv(self, argv: list[str]) -> list[str]:
        return [self._apply(arg, spans) if spans else arg for arg, spans in zip(argv, self.argv_spans(argv))]

    def argv_spans(self, argv: list[str]) -> list[list[Span]]:
        """Per argument, what Redactor.argv replaces: the pieces of argv_secret_pieces, exactly, and what the text
        rules find that overlaps none of them (one that does, `X}` of `{password: X}`, gives way to the piece), in
        the argument alone or in the command line read as one line (_line_spans)."""
        pieces: dict[int, list[tuple[int, int]]] = {}
        for i, start, end in argv_secret_pieces(argv):
            pieces.setdefault(i, []).append((start, end))
        on_line = self._line_spans(argv)
        seen = self._argument_spans
        if len(seen) > MAX_ARGUMENT_READINGS:
            seen.clear()
        out = []
        for i, arg in enumerate(argv):
            # (the command, the workload's argv and triage's own arguments share their words: each is read once)
            spans = seen.get(arg)
            if spans is None:
                spans = seen[arg] = self.spans(arg)
            if i in on_line:
                spans = _merge_spans(sorted(spans + on_line[i]))
            own = pieces.get(i)
            if own:
                spans = [span for span in spans if not any(span[0] < end and start < span[1] for start, end in own)]
                spans = _merge_spans(sorted(spans + [(start, end, REDACTED, "secret-named value", start)
                                                     for start, end in own]))
            out.append(spans)
        return out

    def _line_spans(self, argv: list[str]) -> dict[int, list[Span]]:
        """Per argument, what the text rules hide in the command line read as one line, as summary.md and
        report.html write it (an argument with a blank or a shell character in single quotes): a rule that
        needs a flag and its value together (`-U 'bob%X'`, `sqlcmd -P X`) sees them there, not in the list's
        arguments one by one, and workload.json and manifest.json must hide what the line hides. A span is
        placed back on the argument it lies in; one crossing an argument's edge is cut to it when it is a plain
        [REDACTED] (a placeholder or a URL's rewritten part is left to the argument's own reading)."""
        words, starts, at = [], [], 0
        for arg in argv:
            word = f"'{arg}'" if "'" not in arg and SHELL_SAFE_WORD.fullmatch(arg) is None else arg
            starts.append(at + (len(word) != len(arg)))
            words.append(word)
            at += len(word) + 1
        placed: dict[int, list[Span]] = {}
        for start, end, replacement, label, _context in self.spans(" ".join(words)):
            first = bisect.bisect_right(starts, start) - 1
            last = bisect.bisect_right(starts, end - 1) - 1
            for i in range(max(first, 0), last + 1):
                left, right = max(start - starts[i], 0), min(end - starts[i], len(argv[i]))
                inside = start >= starts[i] and end <= starts[i] + len(argv[i])
                if right > left and (inside or replacement == REDACTED):
                    placed.setdefault(i, []).append((left, right, replacement, label, left))
        return placed

    def argv_replaced_values(self, argv: list[str]) -> list[str]:
        """The values Redactor.argv replaces in argv, each as it stands there."""
        return [value for arg, spans in zip(argv, self.argv_spans(argv)) for value in _span_values(arg, spans)]

    def tainted(self, text: str) -> bool:
        """Whether text holds anything we would redact (for files we cannot rewrite)."""
        return bool(self.spans(text))

    def report(self) -> dict:
        return {"rules_applied": dict(sorted(self.counts.items())),
                "secret_environment_variables": len(secret_env_names(self.environ)),
                "hosts_redacted": self.redact_hosts,
                "placeholders": {kind: len(values) for kind, values in self._placeholders.items()},
                "note": "counts only; no redacted value is kept anywhere in the bundle"}


class StreamRedactor:
    """Redacts a stream piece by piece, in bounded memory and time, with the same rules as
    Redactor.text: pieces end at a newline, a key block open at a piece's end goes on being
    redacted in the next, and a line longer than max_line is cut where no span (and no span's
    evidence) crosses the cut; a secret that reaches a forced cut is continued to the next space."""

    def __init__(self, redactor: Redactor, max_line: int = 1 << 20, piece: int = 1 << 16):
        self.redactor = redactor
        self.hold = max(4096, 2 * redactor.longest_literal)
        # (a forced cut goes at least `hold` characters before the end of max_line: at or before 0 it never moved on)
        self.max_line = max_line if max_line > self.hold else 2 * self.hold
        # Where pieces may end is decided by the text alone, never by how the pipe delivered it, so the output
        # is the same whatever the reads: a cut is tried at the first newline `piece` characters or more after
        # the last place tried (counted from the stream's start), moved back over lines that must stay with the
        # next ones (_hold_back); a line longer than max_line is cut within its first max_line characters
        # (2 * hold at least: a forced cut lands `hold` characters before the end of what it reads).
        self.piece = max(1, piece)
        self._window = max(max_line, 2 * self.hold)   # what a forced cut reads (a cut lands `hold` before its end)
        self._buffer = ""
        self._offset = 0       # where the buffer starts in the stream
        self._next_try = 0     # where in the stream the next cut is looked for (the first newline from here)
        self._in_key = False
        self._token_carry = False
        self._value_next = False
        self._dump_behind = ""   # the dump lines last let out, when the piece ended inside a dump block

    def feed(self, text: str) -> str:
        self._buffer += text
        out = []
        while True:
            newline = self._buffer.find("\n", max(0, self._next_try - self._offset), self._window)
            if newline >= 0:
                self._next_try = self._offset + newline + self.piece
                cut = self._hold_back(newline + 1)
                if cut:
                    out.append(self._emit(cut))
                    # what a key block held back is looked at again only once as much again has come (linear)
                    self._next_try = max(self._next_try, self._offset + 2 * (newline + 1 - cut))
            elif len(self._buffer) > self._window:
                out.append(self._emit(None))
            else:
                return "".join(out)

    def flush(self) -> str:
        """What may go out now, for someone watching the output live (the pipe went quiet, or a while passed): a cut
        tried at the buffer's last newline, moved back as any cut is (_hold_back), so the bytes are still those
        Redactor.text gives on the whole stream; a cut at a newline is safe wherever it falls."""
        newline = self._buffer.rfind("\n", 0, self._window)
        if newline < 0:
            return ""
        cut = self._hold_back(newline + 1)
        if not cut:
            return ""
        self._next_try = max(self._next_try, self._offset + newline + self.piece)
        return self._emit(cut)

    def _hold_back(self, cut: int) -> int:
        """Where to cut: before lines that must stay with the next ones (_line_hold, _printed_form_hold), each
        rule asked again where another moved the cut (a few rounds: each moves it up or leaves it)."""
        for round in range(8):
            moved = _printed_form_hold(self._buffer, self._line_hold(cut, dumps=not round))
            if moved == cut:
                break
            cut = moved
        return cut

    def _line_hold(self, cut: int, dumps: bool = True) -> int:
        """Before the lines that may begin a known secret printed over lines (Redactor.head_over_lines), before the
        last line when it ends with a piece of a known secret, or with a secret name whose value comes on the next line; before a dump's last lines (in the first
        round only: a dump block is held DUMP_HOLD_LINES lines back, not that many again each round)."""
        if cut <= 0:
            return 0
        start = self._buffer.rfind("\n", 0, cut - 1) + 1
        line = self._buffer[start:cut]
        head = self.redactor.head_over_lines(self._buffer, cut)
        if head < cut:   # lines that may begin a known secret printed over lines: they wait for the next ones
            return head
        end = len(line.rstrip("\r\n"))
        if any(span[1] == end for span in self.redactor._fragment_spans(line)) if self.redactor._pieces else False:
            return start
        last = _plain_tail(line)
        if NAME_ENDS_LINE.search(last) or VALUE_ON_NEXT_LINE.search(last):  # `cookie:` waits for its value
            return start
        # a dump's last lines wait for the next piece, so a secret dumped across the cut is decoded whole; a line of
        # 1 to 4 bare bytes at the end may begin one (what follows it says)
        if not dumps:
            return cut
        if (cut == len(self._buffer) and not _dump_line_at(self._buffer, start, cut - 1)
                and SHORT_BARE_LINE.fullmatch(self._buffer, start, cut - 1)):
            return _dump_lines_start(self._buffer, start, DUMP_HOLD_LINES - 1)
        return _dump_lines_start(self._buffer, cut)

    def close(self) -> str:
        out = self._emit(len(self._buffer), last=True) if self._buffer else ""
        self._buffer = ""
        return out

    def _emit(self, cut: int | None, last: bool = False) -> str:
        text = self._buffer
        if cut is not None:  # a newline cut: no single-line secret crosses it
            piece = text[:cut]
            spans = self.redactor.spans(piece, self._in_key, self._token_carry, self._value_next)
            open_key = None if last else _last_key_block(spans)
            if open_key is not None and _key_open(piece, open_key):
                # a key block still open at the cut waits, from its first line, for the rest of it (so it is
                # read as the whole text would read it); one longer than KEY_HOLD goes on with _in_key
                block_line = text.rfind("\n", 0, open_key[0]) + 1
                if block_line > 0:
                    cut = block_line
                    piece = text[:cut]
                elif cut < KEY_HOLD:
                    return ""
            self._token_carry = False
            spans = self._with_dump_context(text, cut, spans)
        else:  # a line too long to hold: cut where no span, nor the evidence for one, crosses (within its first
            # max_line characters, whatever else the buffer holds: the same text gives the same cut)
            text = text[:self._window]
            spans = self.redactor.spans(text, self._in_key, self._token_carry, self._value_next)
            cut = max(1, _cut_outside_spans(spans, len(text) - self.hold, len(text)))
            piece = text[:cut]
            last_end = spans[bisect.bisect_left(spans, cut, key=_START) - 1][1] if spans and spans[0][0] < cut else -1
            self._token_carry = cut == len(text) and last_end >= cut and not text[-1:].isspace()
            text = self._buffer
        before = bisect.bisect_left(spans, cut, key=_START)  # (merged spans: in order, none overlap)
        out = self.redactor._apply(piece, spans[:before])
        last_key = _last_key_block(spans[:before])
        self._in_key = bool(last_key and _key_open(piece, last_key))
        self._value_next = bool(VALUE_ON_NEXT_LINE.search(_plain_tail(piece)))
        if _dump_lines_start(piece, len(piece), 1) < len(piece):   # the piece ends inside a dump block
            behind = self._dump_behind + piece
            self._dump_behind = behind[_dump_lines_start(behind, len(behind)):]
        else:
            self._dump_behind = ""
        self._buffer = text[cut:]
        self._offset += cut
        return out

    def _with_dump_context(self, text: str, cut: int, spans: list[Span]) -> list[Span]:
        """A dump block longer than the hold (DUMP_HOLD_LINES) goes out in pieces; a secret across two of them
        is found as the whole text finds it by decoding, with the piece, the block's lines already let out
        before it (raw, in memory only) and those held after it: what is found in the piece is added."""
        ahead = cut
        for _ in range(DUMP_HOLD_LINES):
            newline = text.find("\n", ahead)
            if newline < 0 or not _dump_line_at(text, ahead, newline):
                break
            ahead = newline + 1
        behind = self._dump_behind
        if ahead == cut and not behind:
            return spans
        # (only the piece's first and last DUMP_HOLD_LINES lines can hold a secret across its ends: two windows)
        windows = []
        if behind:
            head = cut
            at = 0
            for _ in range(DUMP_HOLD_LINES):
                at = text.find("\n", at, cut) + 1
                if not at:
                    break
                head = at
            windows.append((behind + text[:head], -len(behind)))
        if ahead > cut:
            tail = cut
            for _ in range(DUMP_HOLD_LINES):
                if tail <= 0:
                    break
                tail = text.rfind("\n", 0, tail - 1) + 1
            windows.append((text[tail:ahead], tail))
        found = [(start + shift, min(end + shift, cut), replacement, label, max(0, context + shift))
                 for window, shift in windows
                 for start, end, replacement, label, context in self.redactor._dump_spans_uncoloured(window)
                 if 0 <= start + shift < cut]
        return _merge_spans(sorted(spans + found)) if found else spans


# A pattern may need up to this many characters before where its match starts (the B of Bearer, found
# by "earer"; the sk of sk_live_; the ? or & of sig=; the "; " of ; pwd=): a forced cut keeps them with it.
LOOKBEHIND = 2


def _last_key_block(spans: list[Span]) -> Span | None:
    """The last span of a private key block, or None (first a test in C: a text of a million spans holds none)."""
    if KEY_BLOCK not in map(_LABEL, spans):
        return None
    return next((span for span in reversed(spans) if span[3] == KEY_BLOCK), None)


def _url_run_replacement(run: str) -> str:
    """What a run of URLs back to back (URL_USERINFO_RUN) becomes, less its first "://" and its last "@": each
    URL's password, or its user where it has none, [REDACTED]."""
    urls = run.count("://")
    if run.count(":") == urls:  # users alone (`://x@` repeated)
        return "@://".join([REDACTED] * urls)
    return URL_RUN_USER.sub("://" + REDACTED + "@", URL_RUN_PASSWORD.sub(":" + REDACTED + "@", run))[3:-1]


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


def _cut_outside_spans(spans: list[Span], cut: int, size: int) -> int:
    """Where to cut a line too long to hold, near cut: a place that no span, nor the evidence before it,
    crosses (a span from LOOKBEHIND characters before its context to its end holds the place strictly
    inside). The latest such place at or before cut; when that lies in the text's first half (one
    giant span, or a chain of them: a megabyte of dotted quads), the first such place after cut, which
    is the text's end only when a span reaches it (the stream carries that one on), so a secret whose
    start has not matched yet (`Bearer ab` at the end) is never written without its rest. Found in one
    sweep over the spans' extents sorted by where they begin: a chain of overlapping extents is one run."""
    # cut lies inside a run only when it lies inside one extent; only spans ending after cut can hold it (merged
    # spans: their ends only grow), which at a window's end are a few (a sort of every extent took 0.02 s per MB)
    after = bisect.bisect_right(spans, cut, key=_END)
    if all(context - LOOKBEHIND >= cut for context in map(_CONTEXT, itertools.islice(spans, after, None))):
        return cut
    # the run that holds cut, from the spans that end after some point: exact once it begins at or after that point
    # (a span that ends before where the run begins cannot join it), else twice as many spans are looked at
    first = max(0, after - 64)
    while True:
        run_start, run_end = _run_holding(spans, first, cut)
        if not first or run_start >= spans[first - 1][1]:
            break
        first = max(0, first - 2 * (len(spans) - first))
    if not run_start < cut < run_end:
        return cut
    return run_end if run_start <= size // 2 else run_start


def _run_holding(spans: list[Span], first: int, cut: int) -> tuple[int, int]:
    """The first run of spans[first:]'s extents (sorted by where they begin: a chain of overlapping extents is one
    run) that holds cut, or the last one looked at where none does (_cut_outside_spans)."""
    run_start, run_end = -1, -1
    tail = spans[first:] if first else spans
    for begin, end in sorted(zip(map(operator.sub, map(_CONTEXT, tail), itertools.repeat(LOOKBEHIND)),
                                 map(_END, tail))):
        if begin >= run_end:  # a new run (extents that only touch do not join)
            if run_start < cut < run_end or begin >= cut:
                break  # the run that holds cut is whole; or none does
            run_start, run_end = begin, end
        elif end > run_end:
            run_end = end
    return run_start, run_end


def _key_spans(text: str, lower: str, in_key: bool) -> list[Span]:
    spans = []
    at = 0
    if in_key:  # the previous piece ended inside a key block
        end = _key_block_end(text, 0, first_line_is_key=True)
        if end > 0:
            spans.append((0, end, _line_by_line(text, 0, end), "private key block", 0))
        at = end
    # the next match of each BEGIN pattern, searched again only once the scan has passed it (linear)
    upcoming: list[tuple[int, int] | None] = [(-1, -1)] * len(KEY_BEGIN_FAST)
    while True:
        for index, pattern in enumerate(KEY_BEGIN_FAST):
            found = upcoming[index]
            if found is not None and found[0] < at:
                m = pattern.search(lower if index == 0 else text, at)
                upcoming[index] = None if m is None else (_armour_start(lower, m.start()) if index == 0
                                                          else m.start(), m.end())
        candidates = [found for found in upcoming if found is not None]
        if not candidates:
            return spans
        start, begin_end = min(candidates)
        end = _key_block_end(text, begin_end, begin=start)
        spans.append((start, end, _line_by_line(text, start, end), "private key block", start))
        at = max(end, begin_end)


def _armour_start(lower: str, begin: int) -> int:
    """Where "-----BEGIN" starts, given where its "begin" is (4 or 5 dashes, maybe a space, before it)."""
    at = begin - 1 if lower[begin - 1:begin] == " " else begin
    dashes = 0
    while at > 0 and dashes < 5 and lower[at - 1] == "-":
        at -= 1
        dashes += 1
    return at


def _prefixed_key_line(line: str) -> bool:
    return bool(REVERSED_PREFIXED_KEY_LINE.match(line[::-1]))


def _prefixed_block_end(text: str, eol: int) -> int:
    """The end of a key logged with a prefix on each line: the lines that end in base64 (or are
    header lines), through the line with the END marker."""
    end = eol
    while end < len(text):
        next_eol = text.find("\n", end + 1)
        next_eol = len(text) if next_eol < 0 else next_eol
        line = text[end + 1:next_eol]
        marker = KEY_END.search(line)
        if marker:
            return end + 1 + marker.end()
        if not (_prefixed_key_line(line) or line.lstrip().startswith("#") or re.search(r"[A-Za-z][A-Za-z-]{0,40}: [^\n]{0,1024}\Z", line[-1100:])
                and re.search(r"(?:Proc-Type|DEK-Info|Comment|Version|Encryption):", line)):
            break
        end = next_eol
    while end > eol and text[end - 1] in "\r\n":
        end -= 1
    return end


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
                                 or value.lower().rstrip(")]}>") in AUTH_SCHEMES or _code_reference(value))
        return verdict


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


def _escaped_url_spans(text: str) -> list[Span]:
    """URL passwords in a URL that is itself URL-encoded (`redirect=postgres%3A%2F%2Fapp%3APW%40db`) or
    JSON-escaped (`"https:\\/\\/app:PW@db\\/x"`); each form is looked for only when its "://" is there."""
    spans: list[Span] = []
    for literal, pattern in ESCAPED_URL_PASSWORDS:
        if literal(text):
            spans.extend((m.start("password"), m.end("password"), REDACTED, "url password", m.start())
                         for m in pattern.finditer(text))
    return spans


def _present_tools(text: str) -> set[str]:
    """The tools of COMMAND_PASSWORD_FLAGS named in text, each looked for once; a name of several words (`docker
    login`) only where its last word is in the text (one scan for `login` spares those of ten names)."""
    words: dict[str, bool] = {}
    present = set()
    for tool in dict.fromkeys(tool for tools, _, _ in COMMAND_PASSWORD_FLAGS for tool in tools):
        last = tool.rpartition(" ")[2]
        if last != tool and not (words[last] if last in words else words.setdefault(last, last in text)):
            continue
        if tool in text:
            present.add(tool)
    return present


def _command_password_spans(text: str) -> list[Span]:
    """Passwords of printed commands (COMMAND_PASSWORD_FLAGS): each flag match is kept when one of its
    tools' names starts within reach before it, on the same line."""
    spans: list[Span] = []
    places: dict[str, list[int]] = {}
    present_tools = _present_tools(text)
    for tools, reach, pattern in COMMAND_PASSWORD_FLAGS:
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
            for tool in present:
                where = places[tool]
                index = bisect.bisect_right(where, start - len(tool)) - 1
                if index >= 0 and where[index] >= start - reach and text.find("\n", where[index], start) < 0:
                    spans.append((m.start("value"), m.end("value"), REDACTED, "command-line password", where[index]))
                    break
    return spans


@functools.lru_cache(maxsize=4096)
def _secret_flag_cached(flag: str) -> bool:
    return is_secret_flag(flag)


def _printed_flag_value_kept(value: str) -> bool:
    value = value.rstrip(",;)]}")
    return (not value or cannot_be_secret(value) or value.lower() in NOT_A_FLAG_SECRET or value.lower() in AUTH_SCHEMES
            or value[0] in "$%<"
            or value.lower() == REDACTED_LOWER or is_location(value) or value.startswith(("/", "./", "../", "~/"))
            or SECRET_MOUNT_SPEC.fullmatch(value) is not None)   # docker build --secret id=npm,src=/run/npmrc


class _KeptFlagValues(dict):
    """value -> _printed_flag_value_kept(value), worked out once per value (a log repeats its command lines)."""

    def __missing__(self, value: str) -> bool:
        verdict = self[value] = _printed_flag_value_kept(value)
        return verdict


def _printed_flag_spans(text: str) -> list[Span]:
    """Values of secret flags in printed command lines (PRINTED_SECRET_FLAG, TOOL_SHORT_FLAG, TOOL_LOGIN_VALUE,
    CONFIG_SET_VALUE); each pattern is led by a literal and reads a bounded stretch after it. A tool's name is looked
    for once over the text (where one of its flags is), then by bisection per flag."""
    spans: list[Span] = []
    kept = _KeptFlagValues()
    for m in PRINTED_SECRET_FLAG.finditer(text):  # (led by "--": its scan costs what a test for "--" does)
        value = m.group("value")
        if _secret_flag_cached(m.group("flag")) and not kept[value]:
            end = m.end() - (len(value) - len(value.rstrip(",;)]}")))
            spans.append((m.start("value"), end, REDACTED, "secret-named value", m.start()))
    tool_places: dict[str, list[int]] = {}
    quoted = "'" in text or '"' in text
    for m in (TOOL_SHORT_FLAG if quoted else TOOL_SHORT_FLAG_BARE).finditer(text):
        flag = m.group("flag")
        tools, glued, after = TOOL_SHORT_FLAGS[flag]
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
    if "login" in text:
        spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                     for m in TOOL_LOGIN_VALUE.finditer(text) if not kept[m.group("value")])
        if "password-stdin" in text:  # (`echo ... | docker login`)
            spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                         for m in ECHO_TO_STDIN.finditer(text) if not kept[m.group("value")])
    if "mc alias set" in text or "config host add" in text:
        spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                     for m in MC_ALIAS.finditer(text) if not kept[m.group("value")])
    for m in CONFIG_SET_VALUE.finditer(text):
        if _secret_name_cached(m.group("name")) and not kept[m.group("value")]:
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans

def _url_userinfo_spans(text: str) -> list[Span]:
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


# ---- secrets as common tools print them: the name in one place, the value in another ------------------
# Each finder starts from a literal (found by a plain or literal-led search), reads a bounded stretch after
# it, and goes on after what it read: no character is read a number of times that grows with the text.

PRINTED_VALUE_LIMIT = 4096
# Kubernetes env lists (kubectl -o yaml/json, helm template, ECS task definitions): an item's name, then its
# value as the next key of the same item: `- name: DB_PASSWORD\n  value: X`, `{"name": "DB_PASSWORD", "value": "X"}`.
# Also `name="X" value="V"` (XML attributes) and AWS's capitalised {"Name": ..., "Value": ...}.
ENV_ITEM_NAME = re.compile(r"ame(?<=[Nn]ame)(?<![A-Za-z0-9_][Nn]ame)[\"']?[ \t]{0,3}[:=][ \t]{0,3}[\"']?"
                           r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,127})[\"']?(?![A-Za-z0-9_.-])")
_ENV_ITEM_QUOTED = r"\"(?P<dq>[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256})\"|'(?P<sq>(?:[^'\n]|''){1,4096})'"
ENV_ITEM_VALUE = re.compile(r"(?:[ \t,]{0,4}\r?\n[ \t]{0,64}(?:- )?[\"']?[Vv]alue[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                            r"(?:" + _ENV_ITEM_QUOTED + r"|(?P<plain>[^\s\"'#{}\[\]|>&*!][^\n]{0,4095}))"
                            r"|[ \t,]{0,4}[\"']?[Vv]alue[\"']?[ \t]{0,3}[:=][ \t]{0,3}"
                            r"(?:" + _ENV_ITEM_QUOTED.replace("?P<dq>", "?P<dq2>").replace("?P<sq>", "?P<sq2>")
                            + r"|(?P<flow>[^\s\"'#,{}\[\]|>&*!][^\n,}]{0,4095})))")
# Shell-quoted values: `declare -x NAME="a\"b"` (export -p), `NAME=$'a\nb'` (bash set), `NAME='a'"'"'b'`;
# adjacent quoted pieces are one word.
SHELL_QUOTED = re.compile(r"=(?:\"[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256}\"|\$'[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256}'|'[^'\n]{0,4096}')"
                          r"(?:\"[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256}\"|\$'[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256}'|'[^'\n]{0,4096}'|\\'){0,15}")
# loguru's diagnose=True (logger.exception, @logger.catch): a value under an arrow, its variable in the code
# line above the arrows at the arrow's column.
LOGURU_ARROW = "\u2514"
LOGURU_BAR = "\u2502"
LOGURU_BLOCK = re.compile(r"(?m)^(?P<code>[^\n\u2502\u2514]{1,4096})\n(?P<arrows>[ \u2502]{0,512}\u2514[^\n]*"
                          r"(?:\n[ \u2502]{0,512}\u2514[^\n]*){0,61})")  # (63 lines at most: see PRINTED_FORM_HOLD_LINES)
IDENTIFIER = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
# httpx/httpcore traces and header lists: (b'x-api-key', b'VALUE'), ('Authorization', 'VALUE').
HEADER_TUPLE = re.compile(r"\(b?(?P<q>['\"])(?P<name>[A-Za-z0-9_.-]{1,64})(?P=q),[ \t]{0,2}b?"
                          r"(?:'(?P<sq>[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256})'|\"(?P<dq>[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256})\")\)")
# The rest of a quoted value, through its escapes, and its closing quote.
# the rest of a JSON string inside a JSON string (`\"a\\\"b\"`: an inner escape doubled, an inner quote `\\\"`)
ESCAPED_QUOTED_REST = re.compile(r'(?:\\\\\\\\|\\\\\\"|\\\\[^\\"\n]|\\[^\\"\n]|[^\\"\n]){0,4096}\\"').match
SHELL_SINGLE_QUOTED_REST = re.compile(r"[^'\n]{0,4096}'").match
QUOTED_REST = {'"': re.compile(r"[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256}\"").match, "'": re.compile(r"[^'\\\n]{0,4096}(?:\\[^\n][^'\\\n]{0,4096}){0,256}'").match}
# A header's name has a "-" (x-api-key, Set-Cookie) or is one word of these, a client's setting a "_" and a bytes value
# (`('client_secret', b'X')`); other pairs are code's tuples (`('token_get_all', 'token_name')`).
HEADER_WORDS = frozenset({"authorization", "cookie", "token", "apikey", "password", "passwd", "secret"})
# terraform show -json / output -json: "sensitive": true, then the same object's "value".
TERRAFORM_SENSITIVE = re.compile(r"\"sensitive\"[ \t]{0,3}:[ \t]{0,3}true")
JSON_VALUE_KEY = re.compile(r"\"value\"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}"
                            r"(?:\"(?P<dq>[^\"\\\n]{0,4096}(?:\\[^\n][^\"\\\n]{0,4096}){0,256})\"|(?P<plain>[A-Za-z0-9_.+-]{1,256}))")
# PowerShell's `Get-ChildItem env:` (and other two-column Name/Value tables).
NAME_VALUE_TABLE = re.compile(r"Name {2,256}Value[ \t]{0,256}\r?\n-{4} {2,256}-{5}[ \t]{0,256}\r?\n(?P<rows>(?:[^\n]+(?:\n|\Z)){0,61})")
# <password>VALUE</password>, <ns:apiKey>VALUE</ns:apiKey> (Maven settings.xml, app configs).
XML_ELEMENT = re.compile(r"<(?P<tag>(?:[A-Za-z_][\w.-]{0,63}:)?(?P<local>[A-Za-z_][\w.-]{0,63}))(?:[ \t][^<>\n]{0,256})?>"
                         r"(?P<value>[^<\n]{1,4096})</(?P=tag)>")
# Kubernetes Secret data (kubectl get secret -o yaml/json): a `data:` block's values are base64 of the secret,
# whatever their keys (`.dockerconfigjson`, `db-url`, `openai`); `stringData:` holds them plain.
ENV_ITEM = re.compile(ENV_ITEM_NAME.pattern + ENV_ITEM_VALUE.pattern)
ENV_ITEM_PLAIN = frozenset({"plain", "flow"})
DATA_BLOCK_YAML = re.compile(r"(?m)^(?P<indent>[ \t]{0,64})(?:- )?(?P<key>data|stringData)[ \t]{0,8}:[ \t]{0,8}\r?\n"
                             r"(?P<body>(?:(?P=indent)[ \t]{1,64}[^\n]*(?:\n|\Z)){0,62})")
DATA_BLOCK_JSON = re.compile(r"ata\"[ \t]{0,8}:[ \t\r\n]{0,64}\{")
DATA_JSON_ITEM = re.compile(r"\"(?P<key>[^\"\\\n]{1,256})\"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}\"(?P<value>[^\"\\\n]{1,1048576})\"")
# A kubeconfig's client-key-data (and any *-data key) holds base64 of a key: it goes when the decoded text
# holds a secret shape (certificate-authority-data, a certificate, stays).
DASH_DATA = re.compile(r"-data[\"']?[ \t]{0,3}:[ \t]{0,3}[\"']?(?P<value>[A-Za-z0-9+/]{16,1048576}={0,2})(?![A-Za-z0-9+/=])")
# A Docker config.json in base64 anywhere (`kubectl get secret -o jsonpath='{.data.\.dockerconfigjson}'`):
# it starts `{"auths":` (compact, or pretty-printed by two spaces or a tab).
DOCKER_CONFIG_PREFIXES = ("eyJhdXRocyI6", "ewogICJhdXRocyI6", "ewoJImF1dGhzIjo", "eyAiYXV0aHMiO")
DOCKER_CONFIG_BASE64 = re.compile("(?:" + "|".join(f"{prefix}(?<![A-Za-z0-9+/]{prefix})" for prefix in DOCKER_CONFIG_PREFIXES)
                                  + r")[A-Za-z0-9+/]{24,1048576}={0,2}")  # (the shortest holding a secret)
DOCKER_CONFIG_SECRET = re.compile(r"\"(?:auth|password|identitytoken|registrytoken)\"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}\"[^\"]{3}")
BASE64_TEXT = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")


@functools.lru_cache(maxsize=8192)
def _secret_name_cached(name: str) -> bool:
    """is_secret_name, remembered; a bare KEY or PIN (`key="purelib"`, `('key', 'val')`) is too common in
    printed text to say secret alone."""
    return name.lower() not in END_WORDS and is_secret_name(name)


def _base64_text(value: str) -> str | None:
    """The text a base64 value encodes, when it is printable text (a key, a URL, JSON); None for binary."""
    if len(value) % 4:
        return None
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    if decoded.isprintable() or decoded.replace("\n", "").replace("\r", "").replace("\t", "").isprintable():
        return decoded or None
    return None


def _quoted_value_span(m: re.Match, groups: tuple[str, ...]) -> tuple[int, int] | None:
    for group in groups:
        if m.group(group) is not None:
            return m.span(group)
    return None


@functools.lru_cache(maxsize=8192)
def _secret_value(text: str) -> bool:
    """Whether a value found by its name can be a secret (not a setting, a small number or a path)."""
    value = text.strip().strip("'\"")
    return (len(value) >= 3 and value != REDACTED and not cannot_be_secret(value)
            and not ("/" in value and is_named_location(value))
            and not (value[0] in "<[$%" and NOT_A_SECRET_REFERENCE.fullmatch(value)))  # pad_token='<|endoftext|>'



def _env_item_spans(text: str) -> list[Span]:
    """`- name: DB_PASSWORD` then `value: X` (the next key of the same list item, on the line after or on
    the same line): X goes when the name is a secret name."""
    spans: list[Span] = []
    if "ame" not in text or "alue" not in text:
        return spans
    secret_name = _secret_name_cached
    secret_value = _secret_value
    for m in ENV_ITEM.finditer(text):
        if not secret_name(m.group("name")):
            continue
        kind = m.lastgroup
        start, end = m.span(kind)
        if kind in ENV_ITEM_PLAIN:
            value = m.group(kind)
            comment = value.find(" #")
            end = start + len((value[:comment] if comment >= 0 else value).rstrip())
        if secret_value(text[start:end]):
            spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


def _shell_quoted_spans(text: str) -> list[Span]:
    """A secret-named variable's shell-quoted value through its escapes and adjacent quoted pieces, to its
    real closing quote: `declare -x DB_PASSWORD="a\\"b"`, `DB_PASSWORD=$'a\\nb'`, `X='a'"'"'b'`."""
    spans: list[Span] = []
    if "=\"" not in text and "='" not in text and "=$'" not in text:
        return spans
    secret_name = _secret_name_cached
    secret_value = _secret_value
    reverse_name = NAME_RUN_REVERSED.match
    for m in SHELL_QUOTED.finditer(text):
        at = m.start()
        if not at:
            continue  # no name before it
        size = reverse_name(text[at - 1:at - 65:-1] if at > 64 else text[at - 1::-1]).end()  # (reversed in one slice)
        if not size or not secret_name(text[at - size:at]):
            continue
        start = at + 1 + (2 if text[at + 1] == "$" else 1)
        end = m.end() - 1
        if end > start and secret_value(text[start:end].replace("\\", "")):
            spans.append((start, end, REDACTED, "secret-named value", at - size))
    return spans


def _loguru_spans(text: str) -> list[Span]:
    """loguru's diagnose arrows: `    connect(password)` then `    │       └ 'VALUE'`. A block is a code line and
    the arrow lines under it (box characters, then one arrow); the name in the code line at an arrow's
    column says whether the value after that arrow is secret."""
    spans: list[Span] = []
    if LOGURU_ARROW not in text:
        return spans
    secret_value = _secret_value
    for block in LOGURU_BLOCK.finditer(text):
        columns = _secret_name_columns(block.group("code"))
        if not columns:
            continue
        at = block.start("arrows")
        for line in block.group("arrows").split("\n"):
            column = line.find(LOGURU_ARROW)
            if column in columns:
                start = at + column + 1 + (line[column + 1:column + 2] == " ")
                end = at + len(line.rstrip())
                if end > start and secret_value(text[start:end]):
                    spans.append((start, end, REDACTED, "secret-named value", block.start("code")))
            at += len(line) + 1
    return spans


@functools.lru_cache(maxsize=4096)
def _secret_name_columns(code: str) -> frozenset[int]:
    """The columns of a code line where a secret name starts (a variable, or an attribute: `self.api_key`)."""
    return frozenset(m.start() for m in IDENTIFIER.finditer(code) if _secret_name_cached(m.group(0)))


def _extend_quoted_values(text: str, found: list[Span]) -> None:
    """A secret-named value that opens with a quote goes to its real closing quote: the pair patterns stop
    at a space, a comma or a backslash (`"password": "correct horse battery"`, `'pass\\'word'`, `"a\\"b"`).
    After `=` with no space, a single quote is the shell's (no escapes inside); elsewhere a backslash escapes.
    The spans in `found` are lengthened in place."""
    if "\"" not in text and "'" not in text:
        return  # (two scans in C, where a text of a million spans would have each looked at)
    size = len(text)
    # (a comprehension over the spans: a text of quoted values has one every 18 characters)
    candidates = [(span[0], index) for index, span in enumerate(found)
                  if span[3] == "secret-named value" and 0 < span[0] and span[1] < size
                  and (quote := text[span[0] - 1]) in "\"'" and (text[span[1]] != quote or text[span[1] - 1] == "\\")]
    reached = 0   # a scan that ended past a value's start ends where that value's would: each character once
    shell, rest = SHELL_SINGLE_QUOTED_REST, QUOTED_REST
    candidates.sort()
    for start, index in candidates:
        if start < reached:
            continue
        quote = text[start - 1]
        closing = 1
        if quote == '"' and text[start - 2:start - 1] == "\\":  # JSON inside JSON: closed by an escaped quote
            m, closing = ESCAPED_QUOTED_REST(text, start), 2
        else:
            m = (shell if quote == "'" and text[start - 2:start - 1] == "=" else rest[quote])(text, start)
        if m is not None:
            reached = m.end()
            span = found[index]
            if reached - closing > span[1]:
                found[index] = (start, reached - closing, span[2], span[3], span[4])


def _aws4_authorization_end(lower: str, start: int, end: int) -> int:
    """Where an `Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=HEX` value ends: at the
    quote that opened it, or the line's end (its parameters are apart by `, `, which the header's pattern stops at)."""
    line_end = lower.find("\n", end)
    line_end = len(lower) if line_end < 0 else line_end
    quote = lower[start - 1] if start else ""
    if quote in ("'", '"'):
        closing = lower.find(quote, end, line_end)
        return closing if closing >= 0 else line_end
    return line_end


def _header_tuple_spans(text: str) -> list[Span]:
    """(b'x-api-key', b'VALUE') and ('Authorization', 'VALUE') pairs whose name is a secret header's."""
    spans: list[Span] = []
    if "(" not in text:
        return spans
    for m in HEADER_TUPLE.finditer(text):
        name = m.group("name")
        if ("-" in name or "_" in name or name.lower() in HEADER_WORDS) and _secret_name_cached(name):
            start, end = _quoted_value_span(m, ("sq", "dq"))
            if "_" in name and "-" not in name and text[start - 2] != "b":
                continue  # ('token_get_all', 'token_name'): code's tuple; ('api_key', b'X') a client's setting
            if _secret_value(text[start:end]):
                spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


def _terraform_sensitive_spans(text: str) -> list[Span]:
    """terraform's `"sensitive": true, "type": "string", "value": "VALUE"`: the value of the same object (the
    next "value" key before the object's "}")."""
    spans: list[Span] = []
    if "\"sensitive\"" not in text:
        return spans
    next_value = next_close = -1
    for m in TERRAFORM_SENSITIVE.finditer(text):
        at = m.end()
        if next_value < at:  # each search starts past the last one's find: every character is read once
            found = text.find("\"value\"", at)
            next_value = len(text) if found < 0 else found
        if next_close < at:
            found = text.find("}", at)
            next_close = len(text) if found < 0 else found
        if next_value >= next_close or next_value - at > 1024:
            continue
        v = JSON_VALUE_KEY.match(text, next_value)
        if v is not None:
            start, end = _quoted_value_span(v, ("dq", "plain"))
            if v.group("dq") is not None or _secret_value(v.group("plain")):
                spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


# A YAML sequence or block scalar under a secret's name, as a config dump prints it: `secrets:` then `  - X` lines (or
# `- X` at the name's own indent), `private_key: |` / `password: >-` then the lines indented under it; and a flow
# sequence after one, `secrets: [X, Y]`, `"passwords": ["X", "Y"]`, `passwords = ['X']` (YAML, JSON, Python). A mapping under the
# name (`secretKeyRef:\n  name: db`, `imagePullSecrets:\n- name: regcred`) holds names, not values: it stays.
YAML_BLOCK_OPENER = re.compile(r":[ \t]{0,8}(?:(?P<style>[|>][+-]?[0-9]?)[ \t]{0,8}\r?\n|\r?\n(?=[ \t]{0,64}- ))")
YAML_BLOCK_KEY = re.compile(r"(?P<indent>[ \t]{0,64})(?:- )?[\"']?(?P<name>[A-Za-z_][\w.-]{0,127})[\"']?[ \t]{0,8}")
YAML_LINE_OPENER = re.compile(YAML_BLOCK_KEY.pattern + r":[ \t]{0,8}(?:[|>][+-]?[0-9]?[ \t]{0,8})?")
YAML_FLOW_OPENER = re.compile(r"[:=][ \t]{0,8}\[")
FLOW_KEY_REVERSED = re.compile(r"[ \t]{0,8}[\"']?(?P<name>[A-Za-z0-9_.-]{1,128})")   # (read backwards from the ":")
YAML_BLOCK_MOST_LINES = 62


def _yaml_block_spans(text: str) -> list[Span]:
    """The items of a sequence and the lines of a block scalar under a secret's name (YAML_BLOCK_OPENER), and the
    items of a flow sequence after one (YAML_FLOW_OPENER)."""
    spans: list[Span] = []
    harmless = _HarmlessValues()
    openers: dict[str, int | None] = {}   # a line before its ":" -> its indent when it names a secret (a log repeats them)
    bodies: dict[tuple[str, bool, str], list[tuple[int, int]]] = {}   # and a key line's body -> its spans
    names: dict[str, str] = {}   # a key line -> its name
    for m in YAML_BLOCK_OPENER.finditer(text) if ":" in text else ():
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = text[line_start:m.start()]
        indent = openers.get(head, -1)
        if indent == -1:
            key = YAML_BLOCK_KEY.fullmatch(head)
            indent = openers[head] = (len(key.group("indent")) if key is not None
                                      and _secret_name_cached(key.group("name")) else None)
            names[head] = key.group("name") if key is not None else ""
        if indent is None:
            continue
        scalar = m.group("style") is not None
        body = _yaml_body(indent, scalar).match(text, m.end()).group()
        if (found := bodies.get((head, scalar, body))) is None:
            found = _yaml_body_spans(body, indent, scalar, harmless)
            if found and not scalar:
                name = names[head]   # each item judged as `name=item` on a command line (`valid_keys:` needs key-like ones)
                found = [(start, end) for start, end in found if _item_is_secret(name, body[start:end])]
            bodies[head, scalar, body] = found
        if found:
            at = m.end()
            spans += [(at + start, at + end, REDACTED, "secret-named value", line_start) for start, end in found]
    if "[" in text:
        close = newline = -1
        flow_items: dict[tuple[str, bool], list[tuple[int, int]]] = {}   # a list's text -> its items' spans (a log repeats them)
        flow_names: dict[str, str] = {}   # the text before an opener -> the secret's name that ends it, or ""
        for m in YAML_FLOW_OPENER.finditer(text):
            if text.startswith(REDACTED, m.end() - 1):
                continue   # `password: [REDACTED]`, redacted before (a bundle's file read again)
            window = text[max(0, m.start() - 140):m.start()]
            if (secret := flow_names.get(window)) is None:
                key = FLOW_KEY_REVERSED.match(window[::-1])
                name = key.group("name")[::-1] if key is not None else ""
                secret = flow_names[window] = (name if name and (name[0].isalpha() or name[0] == "_")
                                               and _secret_name_cached(name) else "")
            if not secret:
                continue
            at = m.end()
            if close < at:   # (each the first after the last opener looked at: found once for many openers)
                close = text.find("]", at) % (len(text) + 1)
            if newline < at:
                newline = text.find("\n", at) % (len(text) + 1)
            if close == len(text) or newline < close or close - at > PRINTED_VALUE_LIMIT:
                continue
            items = text[at:close]
            code = text[m.start()] == "="   # `passwords = [...]`: code, where a bare item is a variable's name
            if (found := flow_items.get((items, code))) is None:
                found = flow_items[items, code] = _flow_item_spans(items, harmless, code)
            found = [(start, end) for start, end in found if _item_is_secret(secret, items[start:end])]
            spans += [(at + start, at + end, REDACTED, "secret-named value", m.start()) for start, end in found]
    return spans


# A block over lines behind a log prefix on each (`[rank0]: password: |` / `[rank0]:   X`, compose's `app-1  | `,
# `INFO:root:`, a timestamp): the opener (a secret's name ending its line with `:`, `: |`, `: >-`, or a Hadoop
# `<name>` line) has text before its name; that text (its digits free: times differ line to line) is cut from the
# opener's line and each line after it that starts with it, and the block rules read that view.
PREFIXED_OPENER = re.compile(r"(?::[ \t]{0,8}(?P<style>[|>][+-]?[0-9]?[ \t]{0,8})?|(?P<xml></name>)[ \t]{0,8})\r?\n")
PREFIX_DIGITS = str.maketrans("123456789", "000000000")


def _prefixed_block_spans(text: str) -> list[Span]:
    """The YAML sequence / block scalar items, the value on the next line and Hadoop XML values (_yaml_block_spans,
    HADOOP_PROPERTY) of blocks whose every line has a log prefix (PREFIXED_OPENER), each block read without its
    prefixes."""
    if ":\n" not in text and ": |" not in text and ": >" not in text and "</name>" not in text and ":\r\n" not in text:
        return []
    spans: list[Span] = []
    edits: list[tuple[int, int, str]] = []
    done = 0
    openers: dict[str, tuple[str, str, int, str] | None] = {}   # an opener's line -> _opener_prefix (a log repeats them)
    for m in PREFIXED_OPENER.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if line_start < done:
            continue
        head = text[line_start:m.start()]
        if (opener := openers.get(head, ())) == ():
            opener = openers[head] = _opener_prefix(head, m.group("xml") is not None)
        if opener is None:
            continue
        prefix, name, indent, shape = opener
        if m.group("style") is None and m.group("xml") is None:   # `P password:` then `P   X`, or `P   - X` items
            after = m.end() + len(prefix) + indent   # (past the name's indent: more must follow)
            if text[after:after + 1] not in (" ", "\t") or not text.startswith(prefix, m.end()) and text[
                    m.end():m.end() + len(prefix)].translate(PREFIX_DIGITS) != shape:
                continue
            nested = PREFIXED_NEXT_VALUE.match(text, m.end() + len(prefix))
            if nested is None or len(nested.group("indent")) <= indent:
                continue
            value = nested.group("value")
            if value != "-":
                if not value.endswith(":") and _item_is_secret(name, value):   # (`secretKeyRef:`: a mapping, names)
                    spans.append((nested.start("value"), nested.end("value"), REDACTED, "secret-named value",
                                  line_start))
                continue
        at = line_start
        for _ in range(YAML_BLOCK_MOST_LINES + 1):
            if not text.startswith(prefix, at) and text[at:at + len(prefix)].translate(PREFIX_DIGITS) != shape:
                break
            edits.append((at, at + len(prefix), ""))
            newline = text.find("\n", at)
            if newline < 0:
                at = len(text)
                break
            at = newline + 1
        done = at
    if edits:   # (one view for all blocks: a log repeats its blocks, the rules' caches serve them all)
        view, where = _edited(text, edits)
        found = _yaml_block_spans(view)
        if "<name>" in view:
            found += [(v.start("value"), v.end("value"), REDACTED, "secret-named value", v.start())
                      for v in HADOOP_PROPERTY.finditer(view)
                      if _secret_name_cached(v.group("name")) and _secret_value(v.group("value"))]
        spans += where.place_back(found)
    return spans


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


def _opener_prefix(head: str, xml: bool) -> tuple[str, str, int, str] | None:
    """The log prefix before an opener's secret name on its line (without the blanks that end it, the name's
    indent), the name, that indent and the prefix's shape (PREFIX_DIGITS); None: no text before the name, or no
    secret's name."""
    if xml:
        at = head.rfind("<name>")
        name = head[at + 6:].strip(" \t")
        if at <= 0 or not name or "<" in name or not _secret_name_cached(name):
            return None
    else:
        key = FLOW_KEY_REVERSED.match(head[::-1])
        name = key.group("name")[::-1] if key is not None else ""
        if not name or not (name[0].isalpha() or name[0] == "_") or not _secret_name_cached(name):
            return None
        at = len(head) - key.end()
        if at and head[at - 1] in "\"'":
            at -= 1   # `"password": |`: the name's opening quote is the YAML's
    before = head[:at]
    if before.endswith("- "):
        before = before[:-2]   # `[rank0]:   - password: |`: an item's marker is the YAML's
    prefix = before.rstrip(" \t")
    if not prefix or prefix[0] == "\t":
        return None
    return prefix, name, len(before) - len(prefix), prefix.translate(PREFIX_DIGITS)


@functools.lru_cache(maxsize=256)
def _yaml_body(indent: int, scalar: bool) -> re.Pattern[str]:
    """The lines a block scalar (more indented than its name, or blank) or a sequence (`- ` items at its name's
    indent or deeper) under a name at this indent runs over, YAML_BLOCK_MOST_LINES at most."""
    line = rf"(?:[ \t]{{{indent + 1},64}}[^\n]*|[ \t]*\r?)" if scalar else rf"[ \t]{{{indent},64}}- [^\n]*"
    return re.compile(rf"(?:{line}(?:\n|\Z)){{0,{YAML_BLOCK_MOST_LINES}}}")


def _yaml_body_spans(body: str, indent: int, scalar: bool, harmless: _HarmlessValues) -> list[tuple[int, int]]:
    """In a body _yaml_body gives: each line of a block scalar; each item of a sequence, without its quotes, up to
    an item that is a mapping (`- name: regcred`: names, not values)."""
    found = []
    at = 0
    for line in body.split("\n"):
        text = line.rstrip("\r")
        content = text.lstrip(" \t")
        depth = len(text) - len(content)
        if scalar and content:
            found.append((at + depth, at + len(text)))
        elif not scalar and content:
            value = content[2:].strip()
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
            if not quoted and (": " in value or value.endswith(":")):
                break
            bare = value[1:-1] if quoted else value
            if bare and not harmless[bare]:
                first = at + depth + 2 + content[2:].index(value[0]) + quoted
                found.append((first, first + len(bare)))
        at += len(line) + 1
    return found


@functools.lru_cache(maxsize=4096)
def _item_is_secret(name: str, value: str) -> bool:
    """An item of a list under a secret's name, judged as `name=value` on a command line (_assigned_secret_at): a
    reference, a special token, a path stay, and under a bare KEY's name (`valid_keys`, `SCHEME_KEYS`) all but a
    key-like value."""
    return _assigned_secret_at(f"{name}={value}") is not None


def _flow_item_spans(items: str, harmless: _HarmlessValues, quoted_only: bool = False) -> list[tuple[int, int]]:
    """The items of a flow sequence's text (between its brackets) that may be secrets, each without its quotes (only
    quoted ones in code, where a bare item is a variable); a nested sequence or mapping holds names, not values."""
    found = []
    at = 0
    for item in items.split(","):
        value = item.strip()
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        bare = value[1:-1] if quoted else value
        if bare and (quoted or not quoted_only) and FLOW_ITEM_NESTED.search(bare) is None and not harmless[bare]:
            first = at + item.index(value) + quoted
            found.append((first, first + len(bare)))
        at += len(item) + 1
    return found


FLOW_ITEM_NESTED = re.compile(r"[\[\]{}:]")


def _name_value_table_spans(text: str) -> list[Span]:
    """PowerShell's `Get-ChildItem env:` table: a `Name  Value` header, a dashed line, then `NAME  VALUE`
    rows to the first blank line; a secret name's value goes."""
    spans: list[Span] = []
    if "Name " not in text or "-----" not in text:
        return spans
    secret_name = _secret_name_cached
    secret_value = _secret_value
    for m in NAME_VALUE_TABLE.finditer(text):
        if m.start() and text[m.start() - 1] != "\n":
            continue
        offset = m.start("rows")
        for line in m.group("rows").split("\n"):
            name, gap, value = line.partition("  ")
            value = value.strip()
            if gap and value and secret_name(name) and secret_value(value):
                start = offset + line.index(value, len(name))
                spans.append((start, start + len(value), REDACTED, "secret-named value", offset))
            offset += len(line) + 1
    return spans


def _xml_element_spans(text: str) -> list[Span]:
    """<password>VALUE</password>: an element whose tag is a secret name."""
    spans: list[Span] = []
    if "</" not in text:
        return spans
    for m in XML_ELEMENT.finditer(text):
        if _secret_name_cached(m.group("local")) and _secret_value(m.group("value")):
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


# Tools' own listings, the name apart from its value by blanks or dots:
# - fish's `set -x` / `set -gx` listing (`NAME VALUE`, the value quoted when it must be), its `set -gx NAME VALUE`, csh's
#   `setenv NAME VALUE`; a bare `NAME VALUE` line only when NAME is in capitals with a `_` (DB_PASSWORD), the line holds
#   nothing else and the value is quoted or looks like a password (looks_like_password: `PASSWORD_RESET sent` stays)
_LISTING_VALUE = (r"[ \t]{1,8}(?:'(?P<sq>(?:[^'\\\n]|\\[^\n]){1,4096})'|\"(?P<dq>(?:[^\"\\\n]|\\[^\n]){1,4096})\""
                  r"|(?P<bare>[^\s'\"][^\s]{0,4095}))[ \t]*(?=\r?\n|\Z)")
# (two patterns, each found fast: the commands from their literal, the bare lines from a line start in capitals; a
# command also right after a log prefix's ":", `INFO:root:set -gx NAME VALUE`)
ENV_LISTING_COMMAND = re.compile(r"set(?:(?<=^set)|(?<=[\n \t;:]set))(?:env|[ \t]{1,4}-[A-Za-z]{1,4})[ \t]{1,4}"
                                 r"(?P<name>[A-Za-z_][A-Za-z0-9_]{0,127})" + _LISTING_VALUE)
ENV_LISTING_LINE = re.compile(r"\n[ \t]{0,8}(?P<name>[A-Z][A-Z0-9]{0,63}_[A-Z0-9_]{1,64})" + _LISTING_VALUE)
# - DeepSpeed's config print, `  comet_api_key ............... VALUE` (a name, a space, dots, a space, the value's repr
#   to the line's end), found from its dots
DOT_LEADER = re.compile(r" \.\.(?<=[A-Za-z0-9_] \.\.)\.{0,96} (?P<value>[^\n]{1,4096})")
# - Hadoop / Spark / Hive XML: `<name>fs.s3a.secret.key</name>` then `<value>X</value>`, on one line or the next
HADOOP_PROPERTY = re.compile(r"<name>[ \t]{0,8}(?P<name>[^<\n]{1,256}?)[ \t]{0,8}</name>[ \t\r\n]{0,256}"
                             r"<value>(?P<value>[^<\n]{1,4096})</value>")
HADOOP_NAME = re.compile(r"<name>[ \t]{0,8}([^<\n]{1,256}?)[ \t]{0,8}</name>")


_looks_like_password_cached = functools.lru_cache(maxsize=4096)(looks_like_password)  # (a listing repeats its values)


def _tool_listing_spans(text: str) -> list[Span]:
    """Values of secret names in fish / csh environment listings, DeepSpeed's config print and Hadoop XML (above)."""
    spans: list[Span] = []
    if " " in text or "\t" in text:
        for shift, pattern, lined in ((1, ENV_LISTING_LINE, "\n" + text), (0, ENV_LISTING_COMMAND, text)):
            for m in pattern.finditer(lined):
                if not _secret_name_cached(m.group("name")):
                    continue
                group = "sq" if m.group("sq") is not None else "dq" if m.group("dq") is not None else "bare"
                start, end = m.start(group) - shift, m.end(group) - shift
                value = text[start:end]
                if _secret_value(value) and (pattern is ENV_LISTING_COMMAND or group != "bare"
                                             or _looks_like_password_cached(value)):
                    spans.append((start, end, REDACTED, "secret-named value", max(0, m.start() - shift)))
    if " .." in text:
        for m in DOT_LEADER.finditer(text):
            name = _name_before(text, m.start(), m.start())
            value = m.group("value").rstrip()
            if name and _secret_name_cached(name) and _secret_value(value):
                spans.append((m.start("value"), m.start("value") + len(value), REDACTED, "secret-named value",
                              m.start() - len(name)))
    if "<name>" in text:
        for m in HADOOP_PROPERTY.finditer(text):
            if _secret_name_cached(m.group("name")) and _secret_value(m.group("value")):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans


@functools.lru_cache(maxsize=8192)
def _data_value_is_secret(kind: str, value: str) -> bool:
    """A value in a Kubernetes Secret's data block: base64 of printable text (a password, a URL, a config
    JSON, a PEM key) or a long base64 run (a keystore); in stringData any value that can be a secret."""
    value = value.strip().strip("'\"").strip()
    if kind == "stringdata":
        return value not in ("|", ">", "|-", ">-", "|+", ">+") and _secret_value(value)
    if len(value) < 8:
        return False
    return _base64_text(value) is not None or (len(value) >= 64 and BASE64_TEXT.fullmatch(value) is not None
                                                and len(value) % 4 == 0)


def _json_data_block_kind(text: str, at: int) -> str | None:
    """Which data block a found `ata": {` belongs to, from the characters before it: "data" or
    "stringData" ("binaryData", a ConfigMap's, is not secret)."""
    if text.startswith("\"d", at - 2):
        return "data"
    return "stringdata" if text.startswith("\"stringD", at - 8) else None


def _yaml_data_block_spans(text: str) -> list[Span]:
    """`data:` / `stringData:` and the lines indented under it (a Secret as kubectl -o yaml prints it)."""
    spans: list[Span] = []
    if "ata:" not in text:
        return spans
    value_is_secret = _data_value_is_secret
    for m in DATA_BLOCK_YAML.finditer(text):
        kind = "stringdata" if m.group("key")[0] == "s" else "data"
        offset = m.start("body")
        for line in m.group("body").split("\n"):  # `  key: value` lines (and deeper ones, read alike)
            key, colon, value = line.partition(": ")
            if colon and value_is_secret(kind, value.strip()):
                start = offset + len(key) + 2 + len(value) - len(value.lstrip())
                spans.append((start, offset + len(line.rstrip()), REDACTED, "kubernetes secret data", m.start()))
            offset += len(line) + 1
    return spans


def _json_data_block_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    done = 0
    for m in DATA_BLOCK_JSON.finditer(text):
        at = m.start()
        if at < done:
            continue
        kind = _json_data_block_kind(text, at)
        if kind is None:
            continue
        limit = m.end()   # the block is read over PRINTED_FORM_HOLD_LINES lines at most, as a stream holds it
        for _ in range(PRINTED_FORM_HOLD_LINES - 2):
            limit = text.find("\n", limit) + 1
            if not limit:
                limit = len(text)
                break
        close = text.find("}", m.end(), limit)
        close = limit if close < 0 else close
        for item in DATA_JSON_ITEM.finditer(text, m.end(), close):
            if _data_value_is_secret(kind, item.group("value")):
                spans.append((item.start("value"), item.end("value"), REDACTED, "kubernetes secret data", at))
        done = close
    return spans



PRINTED_FORM_HOLD_LINES = 64     # lines a stream holds back after one that opens a form read over lines
PRINTED_FORM_HOLD_CHARS = 16384
PRINTED_FORM_OPENERS = ("ame", "File \"", LOGURU_ARROW, "\"sensitive\"", "ata", "Name ", ":\n", ":\r\n", "|", ">")


def _opens_printed_form(line: str) -> bool:
    """Whether a line may begin a form whose secret value comes on a later line: an env item's secret
    name, a traceback frame or loguru's arrows, terraform's "sensitive", a Secret's data block, the header
    of a Name/Value table. (A secret's name over a YAML sequence or block scalar: _yaml_block_open.)"""
    if "ame" in line:
        m = ENV_ITEM_NAME.search(line)
        if m is not None and _secret_name_cached(m.group("name")):
            return True
    if "<name>" in line and (m := HADOOP_NAME.search(line)) is not None and _secret_name_cached(m.group(1)):
        return True  # Hadoop XML: its <value> on a later line
    return ("File \"" in line or LOGURU_ARROW in line or "\"sensitive\"" in line
            or (line.startswith("Name ") and line.rstrip().endswith("Value"))
            or ("ata" in line and (DATA_BLOCK_YAML.search(line.lstrip(" -") + "\n") is not None
                                   or DATA_BLOCK_JSON.search(line) is not None)))


def _yaml_block_open(line: str, below: list) -> bool:
    """Whether line names a secret over a YAML sequence or block scalar (_yaml_block_spans) that every line below it
    up to the cut goes on with (`below`, as _below_add keeps it): more of it may come after the cut."""
    key = YAML_LINE_OPENER.fullmatch(line.rstrip("\r\n"))
    if key is None or not _secret_name_cached(key.group("name")):
        return False
    indent = len(key.group("indent"))
    if "|" in line[key.end("name"):] or ">" in line[key.end("name"):]:
        return below[2] > indent
    return below[0] and below[1] >= indent


def _below_add(below: list, line: str) -> None:
    """Adds a line to what _yaml_block_open knows of the lines below the one it judges (read upwards)."""
    content = line.rstrip("\r\n").lstrip(" \t")
    depth = len(line) - len(line.lstrip(" \t"))
    if content:
        below[2] = min(below[2], depth)
        if content.startswith("- "):
            below[1] = min(below[1], depth)
        else:
            below[0] = False


def _printed_form_hold(buffer: str, cut: int) -> int:
    """Where a stream cuts so that a form read over lines (see _opens_printed_form) is redacted whole: before
    every line that opens one and is fewer than PRINTED_FORM_HOLD_LINES lines above the cut (or above a line held
    for that reason: a form reaches that far at most, the rules read no further), within 16 KiB; and before a
    last line that is indented or names a secret (a frame's code line, loguru's arrows still to come). The line above an arrow
    line is its code line: it opens the form."""
    if cut <= 0:
        return 0
    floor = max(0, cut - PRINTED_FORM_HOLD_CHARS)
    last = buffer.rfind("\n", floor, cut - 1) + 1
    # (an unindented code line naming a secret may be loguru's too: `login(user, api_token)` at column 0)
    hold = last if (last or not floor) and (buffer.startswith("    ", last)
                                          or _secret_name_columns(buffer[last:cut].rstrip("\r\n"))) else cut
    tail = buffer[floor:cut]
    if not any(opener in tail for opener in PRINTED_FORM_OPENERS):
        return hold
    reach = PRINTED_FORM_HOLD_LINES   # how many lines up the walk goes: an opener there may still reach the hold
    end = cut
    above_arrow = False   # the line below this one is an arrow line: this may be its code line
    below = [True, 1 << 30, 1 << 30]   # of the lines below: all `- ` items, their least indent, the least non-blank one
    distance = 0
    while distance < reach:
        if end <= floor:
            break
        start = buffer.rfind("\n", floor, end - 1) + 1
        if start == 0 and floor:
            break
        distance += 1
        line = buffer[start:end]
        if above_arrow or _opens_printed_form(line) or (":" in line and _yaml_block_open(line, below)):
            hold = start
            reach = min(distance + PRINTED_FORM_HOLD_LINES, 4 * PRINTED_FORM_HOLD_LINES)
        above_arrow = LOGURU_ARROW in line
        _below_add(below, line)
        end = start
    return hold

def _longest_first(rest: str) -> str:
    """A regex matching the longest leading part of rest (maybe none): (?:abc|(?:a(?:b(?:c)?)?)?) for "abc": all of
    it (a whole secret, one comparison), else one character after another (an alternation of every length, longest
    first, tried each in turn, took three times the time on a text of pieces)."""
    if not rest:
        return ""
    return "(?:" + re.escape(rest) + "|" + "".join("(?:" + re.escape(c) for c in rest) + ")?" * len(rest) + ")"


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters a and b share (same lengths), by comparing slices."""
    if a == b:
        return len(a)
    low, high = 0, len(a)  # a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low


def _common_suffix(a: str, b: str) -> int:
    if a == b:
        return len(a)
    low, high = 0, len(a)
    while high - low > 1:
        middle = (low + high) // 2
        if a[len(a) - middle:] == b[len(b) - middle:]:
            low = middle
        else:
            high = middle
    return low


def _line_by_line(text: str, start: int, end: int) -> str:
    """[REDACTED] once per line of text[start:end], so a redacted log keeps its lines."""
    return "\n".join([REDACTED] * (text.count("\n", start, end) + 1))


def _key_block_end(text: str, at: int, first_line_is_key: bool = False, begin: int | None = None) -> int:
    """Where a key block starting at `at` ends: its END marker if it is on the same line; else the
    rest of that line, the key-material lines after it, and the END line right after them."""
    eol = text.find("\n", at)
    eol = len(text) if eol < 0 else eol
    end_marker = KEY_END.search(text, at, eol)
    if end_marker:
        return end_marker.end()
    begin = at if begin is None else begin
    line_start = text.rfind("\n", 0, begin) + 1
    prefix = text[line_start:begin].strip()
    if not first_line_is_key and (prefix or text[at:eol].strip()) and (framed := _framed_block_end(text, eol)):
        return framed
    if first_line_is_key and (_prefixed_key_line(text[at:eol]) and not re.match(r"[A-Za-z0-9+/=]*\r?$", text[at:eol])):
        return _prefixed_block_end(text, eol)  # a prefixed key cut between two reads
    if first_line_is_key and not re.match(KEY_LINE, text[at:eol]):
        return at
    if not first_line_is_key and prefix and not prefix.endswith(("'", '"')):
        return _prefixed_block_end(text, eol)  # "INFO: -----BEGIN ...": every line has the prefix
    block = KEY_LINES.match(text, eol)
    end = block.end() if block else eol
    if end < len(text) and text[end] == "\n":
        tail = KEY_END.match(text, end + 1)
        if tail:
            return tail.end()
    while end > at and text[end - 1] in "\r\n":  # the line ends stay, so the text keeps its lines
        end -= 1
    if end == eol and prefix and not first_line_is_key:  # `E   '-----BEGIN`, `"-----BEGIN`: each line quoted
        return max(end, _prefixed_block_end(text, eol))
    return end


def _framed_block_end(text: str, eol: int) -> int:
    """A key whose BEGIN line has a frame around it (`│ -----BEGIN ... │`, `E   '-----BEGIN`, `"-----BEGIN ...",`):
    the end of its END marker when one comes within FRAMED_KEY_LINES lines with no other BEGIN before it, else 0
    (the block is then read line by line)."""
    at = eol
    for _ in range(FRAMED_KEY_LINES):
        if at >= len(text):
            return 0
        next_eol = text.find("\n", at + 1)
        next_eol = len(text) if next_eol < 0 else next_eol
        line = text[at + 1:next_eol]
        if "-" in line:
            marker = KEY_END.search(line)
            if marker:
                return at + 1 + marker.end()
            if KEY_BEGIN.search(line):
                return 0
        at = next_eol
    return 0


def _key_open(text: str, span: Span) -> bool:
    """Whether a key block span ends at the text's end without its END line (so it may go on)."""
    start, end = span[0], span[1]
    rest = text[end:]
    if "\x1b" in rest or "\\" in rest:  # a colour code after the key's last line (`...5u ESC[0m`) ends nothing
        rest = CSI.sub("", rest)
    return not rest.strip("\r\n") and not KEY_END.search(text, max(start, end - 80), end)


def is_common_name(name: str) -> bool:
    """Whether a user or host name is also a common word or a product name (COMMON_NAMES, PRODUCT_NAME)."""
    name = name.lower()
    return name in COMMON_NAMES or PRODUCT_NAME.fullmatch(name) is not None


def _in_host_context(lower: str, start: int, end: int, kind: str) -> bool:
    """Whether lower[start:end] is used as a user or host name there (HOST_CONTEXT_BEFORE / _AFTER), or
    is a line of its own (what `hostname` or `whoami` prints)."""
    if HOST_CONTEXT_BEFORE.search(lower, max(0, start - 24), start) or HOST_CONTEXT_AFTER[kind].match(lower, end):
        return True
    return (start == 0 or lower[start - 1] == "\n") and lower[end:end + 1] in ("", "\n", "\r")


def _ipv4_verdict(value: str, known: set[str]) -> str:
    """"skip" (not an address: an octet over 255 or with a leading zero; or one that identifies nobody),
    "always" (this host's or the SSH peer's) or "check" (an address unless the text marks a version)."""
    octets = value.split(".")
    if value in BORING_IPS or value.startswith("127.") or any(int(o) > 255 or (len(o) > 1 and o[0] == "0")
                                                              for o in octets):
        return "skip"
    return "always" if value in known else "check"


def _marks_version(before: str) -> bool:
    """Whether the (lower-cased) text right before a dotted quad says it is a version: a version operator
    (==, >=), or a name ending in a version word or holding a CUDA library's name ("NV_CUDNN_VERSION=",
    "tensorrt ", '"nvidia-cudnn-cu13": "'). String operations on 64 characters, no scan."""
    before = before.rstrip(" \t\"'")
    if before[-2:] in ("==", ">=", "<=", "~=", "!="):
        return True
    name = NAME_RUN.match(before.rstrip(":= \t\"'")[::-1]).group(0)[::-1]  # the name right before
    return bool(name) and (not VERSION_WORDS.isdisjoint(NAME_WORD_SPLIT.split(name))
                           or VERSION_LIBRARY.search(name) is not None)


def _split_matches(pattern: re.Pattern[str], text: str, at: int = 0) -> tuple[list[str], list[int], list[int]]:
    """pattern's matches in text[at:] (pattern: one group, the whole match; its look-behind must find no match at
    `at` that text[:at] would forbid), with their starts and ends in text: one split() and sums of lengths in C,
    no Python per match."""
    parts = pattern.split(text[at:] if at else text)
    bounds = list(itertools.accumulate(map(len, parts), initial=at))
    return parts[1::2], bounds[1:-1:2], bounds[2::2]


def _minus(starts: list[int], n: int) -> list[int]:
    """max(0, start - n) for each of sorted starts."""
    lows = list(map(operator.sub, starts, itertools.repeat(n)))
    lows[:bisect.bisect_left(starts, n)] = itertools.repeat(0, bisect.bisect_left(starts, n))
    return lows


class _VersionContexts(dict):
    """_marks_version per (lower-cased) 64 characters before a dotted quad; the memory is bounded."""

    def __missing__(self, before: str) -> bool:
        if len(self) > 65536:
            self.clear()
        verdict = self[before] = _marks_version(before)
        return verdict


def _is_ipv6(value: str) -> bool:
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True


def _is_address(value: str) -> bool:
    try:
        ipaddress.ip_address(value.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _own_macs(root: str = "/sys/class/net") -> set[str]:
    """This host's MAC addresses (/sys/class/net/*/address), lower case, the all-zero one left out."""
    found = set()
    try:
        for entry in os.scandir(root):
            try:
                with open(os.path.join(entry.path, "address")) as handle:
                    value = handle.read(64).strip().lower()
            except OSError:
                continue
            if MAC_TEXT.fullmatch(value) and value not in BORING_MACS:  # (MAC itself is matched from a separator)
                found.add(value)
    except OSError:
        pass
    return found


def _own_addresses(host_names: list[str]) -> set[str]:
    """This host's addresses, from its interfaces and its names; what `hostname -I` prints."""
    found: set[str] = set()
    try:
        import psutil
        for addresses in psutil.net_if_addrs().values():
            for address in addresses:
                if address.family in (socket.AF_INET, socket.AF_INET6):
                    found.add(address.address.split("%", 1)[0])
    except Exception:  # psutil missing or the interfaces unreadable: the names still help
        pass
    for name in host_names:
        found.update(_resolved_addresses(name))
    return {a for a in found if a not in BORING_IPS and not a.startswith("127.")}


NAME_LOOKUP_S = 2.0  # a resolver that does not answer: give up on that name (its interfaces' addresses stay)


@functools.lru_cache(maxsize=64)
def _resolved_addresses(name: str) -> frozenset[str]:
    """The addresses `name` resolves to, looked up once per process and for at most NAME_LOOKUP_S: on a node
    whose resolver never answers, getaddrinfo waits its own timeouts (tens of seconds per name), and every
    Redactor with --redact-hosts would wait them again. The lookup runs in a daemon thread left behind when late."""
    import threading

    box: list[frozenset[str]] = []

    def look_up() -> None:
        try:
            box.append(frozenset(str(info[4][0]).split("%", 1)[0] for info in socket.getaddrinfo(name, None)))
        except (OSError, UnicodeError):
            box.append(frozenset())

    thread = threading.Thread(target=look_up, name="aiperf-name-lookup", daemon=True)
    thread.start()
    thread.join(NAME_LOOKUP_S)
    return box[0] if box else frozenset()


# ---- secrets inside dumps ---------------------------------------------------------------------------------------
# A dump shows a secret's bytes as hex and again as characters, 16 or so to a line, so neither column holds the
# secret as text: `hexdump -C` / `hd` (|ascii|), `od -A x -t x1z` (>ascii<), `od -t x1` (no column), `xxd`
# (groups of bytes, the characters last), `od -c` / `hexdump -c` (a character per 4-wide cell). A secret's bytes
# also show as hex or decimal with separators (`68 66 5f`, `68:66`, `0x68, 0x66`, `[104, 102, 95]`).
# Each block of consecutive dump lines of one kind, and each separated run, is decoded (by whole-text string
# operations, not line by line), all of them into one text that is searched with the same rules as any text;
# what is found there goes in every column that shows those bytes (only those lines are looked at one by one).
_HEX_LINE = (r"(?P<offset>[0-9a-fA-F]{4,16})(?P<hex>(?: {1,2}[0-9a-fA-F]{2}){1,64})"
             r"(?: {1,64}(?:\|(?P<pipe>[^\n]{0,64})\||>(?P<angle>[^\n]{0,64})<))?[ \t]*\r?")
_XXD_LINE = r"(?P<offset>[0-9a-fA-F]{4,16}):(?P<hex>(?: (?:[0-9a-fA-F]{2}){1,16}){1,32})  (?P<text>[^\n]{1,256})"
# `xxd -e`: 4-byte groups, each in little-endian order, the last one shorter and set to the right (also read as xxd)
_XXD_LE_LINE = (r"(?P<offset>[0-9a-fA-F]{4,16}):(?P<hex>(?: [0-9a-fA-F]{8}){0,8}"
                r"(?: {3}[0-9a-fA-F]{6}| {5}[0-9a-fA-F]{4}| {7}[0-9a-fA-F]{2}| [0-9a-fA-F]{8}))  (?P<text>[^\n]{1,256})")
# `xxd -b`: bytes as 8 bits
_XXD_BITS_LINE = r"(?P<offset>[0-9a-fA-F]{4,16}):(?P<hex>(?: [01]{8}){1,32})  (?P<text>[^\n]{1,256})"
# plain `hexdump`, `hexdump -x`, `od -x`, and `od -An -tx2` (no offset: two words at least): 2-byte words, each in
# little-endian order (6668 is "hf")
_WORDS_LINE = r"(?P<offset>[0-9a-fA-F]{7})(?P<hex>(?: {1,4}[0-9a-fA-F]{4}){1,8})[ \t]*\r?"   # (od's octal offset is hex too)
_BARE_WORDS_LINE = r"(?P<hex>(?: {1,4}[0-9a-fA-F]{4}){2,8})[ \t]*\r?"
# `od -c` / `hexdump -c` (a character per 4-wide cell, octal for the others), `od -b` / `hexdump -b` (octal bytes)
_OD_LINE = r"(?P<offset>[0-7]{7}|[0-9a-fA-F]{6,8})(?P<cells>(?:   [^\s\\]|  \\[0abfnrtv\\]| [0-7]{3}|    ){1,32})\r?"
# `od -tu1` / `od -td1`: decimal bytes after an offset (-128 to 255)
_DECIMAL_LINE = r"(?P<offset>[0-7]{7})(?P<cells>(?: {1,4}-?[0-9]{1,3}){1,32})[ \t]*\r?"
# `od -An -tu1` / `od -An -td1`: decimal bytes without offsets, each in a cell 4 (or 5, signed) wide; a line of 5 to 32
# cells, or of 1 to 4 right after a line ending in a digit (a dump's last line). A line of numbers spaced otherwise
# (a table's columns) is none.
_U1_CELL = r"(?: {3}[0-9]| {2}[0-9]{2}| [0-9]{3})"
_D1_CELL = r"(?: {4}[0-9]| {3}(?:[0-9]{2}|-[0-9])| {2}(?:[0-9]{3}|-[0-9]{2})| -[0-9]{3})"
_BARE_DECIMAL_LINE = (rf"(?P<cells>{_U1_CELL}{{5,32}}|{_D1_CELL}{{5,32}}|(?<=[0-9]\n)(?:{_U1_CELL}{{1,4}}|{_D1_CELL}{{1,4}}))"
                      r"[ \t]*\r?")
BARE_DECIMAL_HINT = re.compile(r"\n(?: {1,4}-?[0-9]{1,3}){5}")
# 5 or more hex pairs with ":" or "-" between, or "0x" pairs with ", " between (`xxd -i`), a whole line each (a
# separator may end it): a block of such lines is one text, so a secret wrapped over them is read whole (a time,
# "12:30:45", is no such line)
_SEPARATED_LINE = (r"(?P<hex>[ \t]{0,8}(?:[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){4,4095}:?|[0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2}){4,4095}-?"
                   r"|0[xX][0-9a-fA-F]{2}(?:, ?0[xX][0-9a-fA-F]{2}){4,4095},?))[ \t]*\r?")
# `xxd -p` (bare hex, 60 digits a line) and `od -An -tx1` (spaced pairs, 16 a line, no offset): a block of such lines
# is decoded whole, so a secret wrapped over lines is found as it is in one line. A line of 1 to 4 bytes (shorter
# than any secret) counts only beside another dump line: after a line that ends in 5 such bytes (a wrapped dump's
# last line), after a whole line of 1 to 4 (`xxd -p -c 4`, `od -An -tx1 -w4`), or before any bare hex line. Alone
# it is a number or a word ("1234", "cafe") on a log line of its own, and a log of them in turn with words was a
# million blocks in 20 MiB.
_AFTER_BARE_LINE = "|".join(rf"(?<={end}{newline})" for end in (
    "[0-9a-fA-F]{10}", "(?:[ \t][0-9a-fA-F]{2}){5}", "(?:[ \t]{2}[0-9a-fA-F]{2}){5}",
    *(rf"\n[0-9a-fA-F]{{{2 * n}}}" for n in (1, 2, 3, 4)),
    *(rf"\n(?:[ \t][0-9a-fA-F]{{2}}){{{n}}}" for n in (1, 2, 3, 4))) for newline in (r"\n", r"\r\n"))
# (pairs apart by nothing, one or two spaces or tabs: `od -An -tx1 | tr ' ' '\t'`, paste's joins; up to 4096 bytes a
# line: `xxd -p -c 40`, `basenc --base16` at 76 columns)
_SHORT_BARE = r"[ \t]{0,8}[0-9a-fA-F]{2}(?:[ \t]{0,2}[0-9a-fA-F]{2}){0,3}"
_BEFORE_BARE_LINE = r"(?=[ \t]*\r?\n[ \t]{0,8}[0-9a-fA-F]{2}(?:[ \t]{0,2}[0-9a-fA-F]{2}){0,4095}[ \t]*\r?(?![^\n]))"
# (a line that starts with od's 7-digit offset or a hexdump -C line's offset fails before the pairs and the
# lookbehinds are tried)
_BARE_GUARD = r"(?![0-9a-fA-F]{7} |[0-9a-fA-F]{8}  [0-9a-fA-F])"
_BARE_HEX_LINE = (_BARE_GUARD + 
                  r"(?P<hex>[ \t]{0,8}[0-9a-fA-F]{2}(?:[ \t]{0,2}[0-9a-fA-F]{2}){4,4095}"
                  rf"|(?:(?<=[0-9a-fA-F]\n)|(?<=[0-9a-fA-F]\r\n))(?:{_AFTER_BARE_LINE}){_SHORT_BARE}"   # (a hex digit before
                  rf"|{_SHORT_BARE}{_BEFORE_BARE_LINE})[ \t]*\r?")   # the line break first: most lines end otherwise)
# What a text holds somewhere when it holds a bare dump line: a line of 5 bare bytes, or two bare lines in a row
# (nested, each pair's way on tried once: an alternation of the two shapes was tried again from the first pair).
# A text of none (most; "loss" and "1234" lines in turn too) is spared the splitter's lookbehinds at every line.
_PAIR_ON = r"[ \t]{0,2}[0-9a-fA-F]{2}"
_LINE_ENDS = r"|[ \t]*\r?\n[ \t]{0,8}[0-9a-fA-F]{2})"
BARE_HINT = re.compile(r"\n[ \t]{0,8}[0-9a-fA-F]{2}" + f"(?:{_PAIR_ON}" * 4 + _LINE_ENDS * 4)
# a line of 1 to 4 bare bytes at a stream's end may begin such a dump: the stream holds it until the next line
SHORT_BARE_LINE = re.compile(_SHORT_BARE + r"[ \t]*\r?")
# kind -> one dump line (its fields named), to find where a byte shows once something was found in it
DUMP_KINDS = (("hex", _HEX_LINE, "hex"), ("xxd", _XXD_LINE, "hex"), ("od", _OD_LINE, "cells"), ("words", _WORDS_LINE, "hex"),
              ("bare", _BARE_HEX_LINE, "hex"), ("xxd-le", _XXD_LE_LINE, "hex"), ("bits", _XXD_BITS_LINE, "hex"),
              ("decimal-od", _DECIMAL_LINE, "cells"), ("bare-words", _BARE_WORDS_LINE, "hex"),
              ("separated", _SEPARATED_LINE, "hex"), ("bare-decimal", _BARE_DECIMAL_LINE, "cells"))
# (the common kinds first: _dump_line_at tries them in turn)
# What a line of each kind starts with (a hex offset, then ":" or a space; or, bare, BARE_HINT): a text holding
# none is spared that kind's splitter (one scan for each start instead of one per kind)
OFFSET_STARTS = {":": re.compile(r"\n[0-9a-fA-F]{4,16}:"), " ": re.compile(r"\n[0-9a-fA-F]{4,16} ")}
KIND_START = {"hex": " ", "xxd": ":", "xxd-le": ":", "bits": ":", "od": " ", "decimal-od": " ", "words": " ",
              "bare": "bare", "bare-words": "bare", "separated": "separated", "bare-decimal": "bare-decimal"}
DUMP_LINES = {kind: re.compile(line + r"(?![^\n])") for kind, line, _ in DUMP_KINDS}
# the same, to read the fields of a line known to be one (without the guards that only make other lines fail sooner)
DUMP_LINE_FIELDS = {**DUMP_LINES, "bare": re.compile(_BARE_HEX_LINE[len(_BARE_GUARD):] + r"(?![^\n])")}
# kind -> a newline and the line after it, the line and its hex (or cells) field captured: split gives every dump
# line of a text, what lies between them and their fields without Python per line
DUMP_SPLITTERS = {kind: re.compile(r"\n(" + re.sub(r"[(][?]P<([a-z]+)>", lambda g: "(" if g.group(1) == field else "(?:", line)
                                   + r")(?![^\n])")
                  for kind, line, field in DUMP_KINDS}
OD_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
OD_ESCAPE_CELL = re.compile(r"  \\([0abfnrtv\\])")
# an od cell (4 characters) -> the byte it shows: "   h", "  \\n", " 303" (octal); another cell shows its last character
OD_CELLS = type("_OdCells", (dict,), {"__missing__": lambda self, cell: cell[3]})(
    {**{f" {n:03o}": chr(n) for n in range(512)}, **{"  \\" + e: c for e, c in OD_ESCAPES.items()}})
# od -td1 / -tu1 cells -> the byte (zero-padded too: an od -b line is read as decimal as well; any other, "-005")
DECIMAL_BYTE = type("_DecimalBytes", (dict,), {"__missing__": lambda self, cell: chr(int(cell) & 255)})(
    {f"{n:0{width}d}": chr(n & 255) for width in (1, 2, 3) for n in range(-128, 1000)})
# 8 or more bytes as hex pairs with one separator throughout, or as a list of decimals
SEPARATED_HEX = re.compile(r"(?<![0-9A-Za-z])(?:0[xX])?[0-9A-Fa-f]{2}(?P<sep>, ?0[xX]|[: -]|, ?)[0-9A-Fa-f]{2}"
                           r"(?:(?P=sep)[0-9A-Fa-f]{2}){6,4094}(?![0-9A-Za-z])")
_PAIR = "[0-9A-Fa-f]{2}"
# The same runs found from their first separator (a literal: the scan skips other characters), the first pair
# captured in a lookbehind: findall gives every run without Python per run.
SEPARATED_RUNS = [re.compile(rf"{sep}(?<=(?<![0-9A-Za-z])({_PAIR}){sep})(?<!{_PAIR}{sep}{_PAIR}{sep})((?:{_PAIR}{sep}){{6,4094}}{_PAIR})(?![0-9A-Za-z])")
                  for sep in " :-"]
SEPARATED_RUNS.append(re.compile(rf",(?:(?<=(?<![0-9A-Za-z])({_PAIR}),)((?: ?{_PAIR},){{6,4094}} ?{_PAIR})"
                                 rf"|(?<=(?<![0-9A-Za-z])0[xX]({_PAIR}),)((?: ?0[xX]{_PAIR},){{6,4094}} ?0[xX]{_PAIR}))"
                                 r"(?![0-9A-Za-z])"))
NOT_HEX_DIGITS = str.maketrans("", "", " :,-\t")
# What every dump, run or list above holds somewhere: a line starting with hex digits, two pairs with a separator
# after each, or "[" and a digit. Each searched alone, from its literal or separator (one alternation of all three
# tried every position: 0.04 s per MiB of text that holds none, a fifth of all the rules' time on such text).
DUMP_HINTS = (re.compile(r"\n[0-9a-fA-F]{4}"), re.compile(r"\[[0-9]"),
              re.compile(r"[ :,-](?<=[0-9A-Fa-f]{2}[ :,-]) ?(?:0[xX])?[0-9A-Fa-f]{2}[ :,-]"))
DUMP_HINT_START = re.compile(r"[0-9a-fA-F]{4}")


def _may_hold_dump(text: str) -> bool:
    return (DUMP_HINT_START.match(text) is not None or DUMP_HINTS[0].search(text) is not None
            or DUMP_HINTS[1].search(text) is not None or DUMP_HINTS[2].search(text) is not None
            or BARE_HINT.search("\n" + text[:64]) is not None or BARE_HINT.search(text) is not None
            or BARE_DECIMAL_HINT.search("\n" + text[:64]) is not None or BARE_DECIMAL_HINT.search(text) is not None)


DECIMAL_BYTES = re.compile(r"\[(?P<body>[0-9]{1,3}(?:, ?[0-9]{1,3}){7,4095})\]")
HEX_PAIR = re.compile(r"[0-9A-Fa-f]{2}")
DECIMAL_CHARACTER = {f"{n:0{width}d}": chr(n) for width in (1, 2, 3) for n in range(10 ** width)}  # "104", "07": a look-up
DECIMAL = re.compile(r"[0-9]{1,3}")
DUMP_HOLD_LINES = 32    # dump lines a stream holds back at a piece's end, so a secret across the cut is decoded whole
KEY_HOLD = 1 << 16      # how much of a key block still open a stream holds back before going on piece by piece


class _DumpPart:
    """Every block of dump lines of one kind, or every separated run of one kind, decoded: where its bytes start
    in the decoded text and, per line (a run is one "line"), where it starts in the text and its first byte
    (computed only when something was found in it). Each block and each run is followed by `gap` NULs, counted
    in its last line's size, so no secret reads across two of them."""

    def __init__(self, kind: str, first: int, starts: Callable[[], list[int]] | list[int],
                 sizes: Callable[[], list[int]]):
        self.kind = kind            # a DUMP_KINDS kind, "run" (hex pairs) or "decimal"
        self.first = first
        self._starts = starts       # where each line (or run) starts in the text, or how to find that
        self._sizes = sizes         # how to find how many bytes each line stands for, its block's NULs included
        self._table: tuple[list[int], list[int]] | None = None

    def lines(self) -> tuple[list[int], list[int]]:
        """(where each line starts in the text, each line's first byte from the part's first, and one past the last)"""
        if self._table is None:
            starts = self._starts if isinstance(self._starts, list) else self._starts()
            self._table = starts, list(itertools.accumulate(self._sizes(), initial=0))
        return self._table


def _field_size(kind: str, field: str) -> int:
    """Bytes one dump line's field shows (as _line_sizes counts them)."""
    kind = READ_AS.get(kind, kind)
    if kind in HEX_FIELD_KINDS:
        return (len(field) - field.count(" ") - field.count("\t")) >> 1
    if kind == "od":
        return len(field) >> 2
    if kind == "decimal-od":
        return len(field.split())
    if kind == "bits":
        return (len(field) - field.count(" ")) >> 3
    if kind == "separated":
        return len(field.replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)) >> 1
    return (len(field) - field.count(" ") - field.count("\t")) >> 1


def _line_sizes(kind: str, fields: list[str], block_ends: list[int], gap: int) -> list[int]:
    """Bytes each dump line shows (an od cell is 4 characters, a decimal one a number, a bit byte 8 digits, a byte
    otherwise 2 hex digits), each block's NULs counted in its last line."""
    kind = READ_AS.get(kind, kind)
    if kind == "od":
        sizes = [len(f) >> 2 for f in fields]
    elif kind == "decimal-od":
        sizes = [len(f.split()) for f in fields]
    elif kind == "bits":
        sizes = [(len(f) - f.count(" ")) >> 3 for f in fields]
    elif kind == "separated":
        sizes = [len(f.replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)) >> 1 for f in fields]
    else:
        sizes = [(len(f) - f.count(" ") - f.count("\t")) >> 1 for f in fields]
    for i in block_ends:
        sizes[i] += gap
    return sizes


def _decode_blocks(kind: str, fields: list[str], block_ends: list[int]) -> str:
    """Every block of one kind's lines decoded at once, each block followed by its NULs (see _DumpPart): one
    join and one decode however many blocks, not Python per block (a log of "loss" and "1234" lines in turn
    is a million one-line blocks in 20 MiB)."""
    kind = READ_AS.get(kind, kind)
    marked = fields.copy()
    if kind == "od":  # a 4-character cell per byte, the character last; a NUL cell after each block
        for i in block_ends:
            marked[i] += "   \0"
        shown = "".join(marked)
        if "\\" in shown or shown[1::4].strip(" "):   # an escape or octal cell (od -c of plain text has neither: a slice)
            return "".join(map(OD_CELLS.__getitem__, map(shown.__getitem__, map(slice, range(0, len(shown), 4),
                                                                                  range(4, len(shown) + 4, 4)))))
        return shown[3::4]
    if kind == "decimal-od":   # (each block's NUL a 0 after its last number)
        for i in block_ends:
            marked[i] += " 0"
        return "".join(map(DECIMAL_BYTE.__getitem__, " ".join(marked).split()))
    if kind == "bits":
        for i in block_ends:
            marked[i] += " 00000000"
        bits = "".join(marked).replace(" ", "")
        return int(bits, 2).to_bytes(len(bits) >> 3, "big").decode("latin-1")
    for i in block_ends:  # (every field is whole pairs of digits, so the join keeps them paired)
        marked[i] += "0000" if kind == "words" else " 00000000" if kind == "xxd-le" else "00"
    joined = "".join(marked)
    if kind == "separated":
        joined = joined.replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)
    if kind == "xxd-le":   # each group's bytes the other way round (4 a group, the last of a line maybe fewer)
        groups = joined.split()
        if set(map(len, groups)) == {8}:
            data = bytes.fromhex("".join(groups))
            swapped = bytearray(data)
            swapped[0::4], swapped[1::4], swapped[2::4], swapped[3::4] = data[3::4], data[2::4], data[1::4], data[0::4]
            return bytes(swapped).decode("latin-1")
        return b"".join(bytes.fromhex(group)[::-1] for group in groups).decode("latin-1")
    data = bytes.fromhex(joined)
    if kind == "words":  # each word's two bytes the other way round (each block is whole words, its NULs too)
        swapped = bytearray(data)
        swapped[0::2], swapped[1::2] = data[1::2], data[0::2]
        data = bytes(swapped)
    return data.decode("latin-1")


READ_AS = {"bare-words": "words", "bare-decimal": "decimal-od"}
HEX_FIELD_KINDS = frozenset({"hex", "xxd", "bare", "words", "bare-words", "xxd-le"})   # hex digits and blanks only   # a kind read as another once its lines are found
BLOCK_GAP = {"words": 2, "bare-words": 2, "xxd-le": 4}   # NULs after each block: one, or a word's two, or a group's four


def _dump_parts(text: str) -> tuple[str, list[_DumpPart]]:
    """Every dump in text, decoded into one text (blocks and runs apart by NULs), and where each part is."""
    pieces: list[str] = []
    parts: list[_DumpPart] = []
    size = 0
    blocks: list[tuple[int, int]] = []
    padded = "\n" + text   # (every line then follows a newline, which leads each splitter: the scan skips to them)
    present = {"bare": BARE_HINT.search(padded) is not None, "": True,
               "bare-decimal": BARE_DECIMAL_HINT.search(padded) is not None,
               "separated": ":" in text or "-" in text or "0x" in text or "0X" in text}
    for kind, splitter in DUMP_SPLITTERS.items():
        start = KIND_START.get(kind, "")
        if start not in present:
            present[start] = OFFSET_STARTS[start].search(padded) is not None
        if not present[start]:
            continue
        found = splitter.split(padded)   # [before, line, field, between, line, field, ...]: no Python per line
        if len(found) == 1:
            continue
        betweens, lines, fields = found[0::3], found[1::3], found[2::3]
        count = len(lines)
        steps = [0] * (2 * count)   # what comes before each line: the text between, the lines before (in C, no loop)
        steps[0::2] = map(len, betweens[:count])
        steps[1::2] = map(len, lines)
        # each line's start in text: its start in padded (what is before it, and a newline a line), less one
        starts = list(map(operator.add, list(itertools.accumulate(steps))[0::2], range(count)))
        # blocks: lines with nothing between; each block's first and last line
        block_firsts = [0, *itertools.compress(range(1, count), betweens[1:count])]
        block_ends = [first - 1 for first in block_firsts[1:]] + [count - 1]
        gap = BLOCK_GAP.get(kind, 1)
        decoded = _decode_blocks(kind, fields, block_ends)
        parts.append(_DumpPart(kind, size, starts, functools.partial(_line_sizes, kind, fields, block_ends, gap)))
        pieces.append(decoded[:-1])   # (the last NUL is the one that joins the pieces)
        size += len(decoded)
        blocks += zip([starts[i] for i in block_firsts], [starts[i] + len(lines[i]) for i in block_ends])
    blocks.sort()
    # what lies between the blocks, one text (lines apart, as they were: a run or a list never spans a line)
    gaps = [(a, b) for a, b in zip([0] + [end for _, end in blocks], [start for start, _ in blocks] + [len(text)]) if a < b]
    between = "\n".join(text[a:b] for a, b in gaps) if blocks else text
    gap_starts = list(itertools.accumulate((b - a + 1 for a, b in gaps), initial=0)) if blocks else [0]
    gap_map = (gap_starts, [a for a, _ in gaps] if blocks else [0])
    for pattern in SEPARATED_RUNS:
        runs = ["".join(groups) for groups in pattern.findall(between)]
        if runs:
            hexes = "\n".join(runs).replace("0x", "").replace("0X", "").translate(NOT_HEX_DIGITS)
            pieces.append(bytes.fromhex(hexes.replace("\n", "00")).decode("latin-1"))
            parts.append(_DumpPart("run", size, functools.partial(_run_starts, between, pattern, gap_map),
                                   functools.partial(lambda h: [(len(x) >> 1) + 1 for x in h.split("\n")], hexes)))
            size += len(pieces[-1]) + 1
    bodies = DECIMAL_BYTES.findall(between)
    if bodies:
        pieces.append("".join(map(DECIMAL_CHARACTER.__getitem__, ",0,".join(bodies).replace(" ", "").split(","))))
        parts.append(_DumpPart("decimal", size, functools.partial(_run_starts, between, DECIMAL_BYTES, gap_map),
                               functools.partial(lambda f: [b.count(",") + 2 for b in f], bodies)))
        size += len(pieces[-1]) + 1
    return "\0".join(pieces), parts


def _run_starts(between: str, pattern: re.Pattern[str], gap_map: tuple[list[int], list[int]]) -> list[int]:
    """Where each run a SEPARATED_RUNS pattern (or DECIMAL_BYTES) finds starts in the text: its first pair (or
    "0x", or "["), found in the text between the dump blocks and put back where that lies in the text."""
    if pattern is DECIMAL_BYTES:
        found = [m.start() for m in pattern.finditer(between)]
    else:
        found = [m.start(1) if m.group(1) else m.start(3) - 2 for m in pattern.finditer(between)]
    gap_starts, text_starts = gap_map
    return [at - gap_starts[g] + text_starts[g] for at in found for g in (bisect.bisect_right(gap_starts, at) - 1,)]


def _pair_start(hex_field: str, k: int) -> int:
    """Where byte k's two hex digits start in a field of hex pairs and blanks, read from its layout (pairs apart by
    one space, maybe one wider gap in the middle as hexdump -C has, or xxd's groups of pairs); -1 when the field is
    laid out otherwise (the digits before the place found are not 2k)."""
    lead = len(hex_field) - len(hex_field.lstrip(" "))
    if hex_field[lead + 2:lead + 3] in (" ", ""):
        at = lead + 3 * k  # pairs apart by one space
        gap = hex_field.find("  ", lead)
        if gap >= 0 and at > gap:
            at += 1
    else:  # xxd: groups of g bytes
        end = hex_field.find(" ", lead)
        group = ((end if end >= 0 else len(hex_field)) - lead) >> 1
        at = lead + k // group * (2 * group + 1) + 2 * (k % group)
    pair = hex_field[at:at + 2]
    if len(pair) != 2 or HEX_PAIR.fullmatch(pair) is None:
        return -1
    return at if at - hex_field.count(" ", 0, at) - hex_field.count("\t", 0, at) == 2 * k else -1


# where a dump line's field shows each byte, by kind (hex pairs at any spacing; words, groups, numbers, bits)
BYTE_CELLS = {"words": re.compile(r"[0-9a-fA-F]{4}"), "xxd-le": re.compile(r"[0-9a-fA-F]+"),
              "decimal-od": re.compile(r"-?[0-9]{1,3}"), "bits": re.compile(r"[01]{8}"),
              "separated": re.compile(r"(?:0[xX])?[0-9a-fA-F]{2}")}
BYTES_PER_CELL = {"words": 2, "xxd-le": 4}


def _dump_columns(text: str, part: _DumpPart, index: int, k: int, j: int) -> list[tuple[int, int]]:
    """Where bytes k..j of a part's line show in text: one (start, end) per column (numbers, characters)."""
    starts, _ = part.lines()
    line_start = starts[index]
    if part.kind in ("run", "decimal"):
        m = (DECIMAL_BYTES if part.kind == "decimal" else SEPARATED_HEX).match(text, line_start)
        if m is None:
            return []
        found = list((DECIMAL if part.kind == "decimal" else HEX_PAIR).finditer(text, m.start(), m.end()))
        j = min(j, len(found) - 1)  # (the NUL after it)
        return [(found[k].start(), found[j].end())] if k <= j else []
    m = DUMP_LINE_FIELDS[part.kind].match(text, line_start)
    if m is None:
        return []
    name = "cells" if part.kind in ("od", "decimal-od", "bare-decimal") else "hex"
    field = m.group(name)
    size = _field_size(part.kind, field)
    j = min(j, size - 1)  # (the NULs after a block's last line)
    if k > j:
        return []
    base = m.start(name)
    if part.kind == "od":
        return [(base + 4 * k + 1, base + 4 * j + 4)]
    kind = READ_AS.get(part.kind, part.kind)
    if k == 0 and j == size - 1:  # the whole line (a dump of a secret: most lines), whatever its layout
        columns = [(base + len(field) - len(field.lstrip(" \t")), base + len(field.rstrip(" \t:,-")))]
    elif kind in ("hex", "xxd", "bare") and min(first := _pair_start(field, k), last := _pair_start(field, j)) >= 0:
        columns = [(base + first, base + last + 2)]
    else:  # the cells that hold bytes k..j: a word holds 2, an xxd -e group 4, any other cell 1
        per_cell = BYTES_PER_CELL.get(kind, 1)
        cells = list(BYTE_CELLS.get(kind, HEX_PAIR).finditer(field))
        columns = [(base + cells[k // per_cell].start(), base + cells[min(j // per_cell, len(cells) - 1)].end())]
    column = -1
    if kind in ("bare", "words", "separated", "decimal-od"):  # no character column
        pass
    elif part.kind in ("xxd", "xxd-le", "bits"):
        shown = m.group("text").rstrip("\r")
        column = m.start("text") + len(shown) - size if len(shown) >= size else -1
    elif m.group("pipe") is not None and len(m.group("pipe")) == size:
        column = m.start("pipe")
    elif m.group("angle") is not None and len(m.group("angle")) == size:
        column = m.start("angle")
    if column >= 0:
        columns.append((column + k, column + j + 1))
    return columns


def _dump_lines_start(text: str, end: int, limit: int = DUMP_HOLD_LINES) -> int:
    """Where the dump lines that end at `end` (just after a newline) start, `limit` of them at most; `end` where
    the line before it is none."""
    while limit and end > 0:
        start = text.rfind("\n", 0, end - 1) + 1
        if not _dump_line_at(text, start, end - 1):
            break
        end = start
        limit -= 1
    return end


# A dump line behind a log prefix (`2026-11-23 12:00:01 INFO 00000000: 5375 7033 ...`, `[rank0]: 00000000  53 75 ...`,
# `svc-1  | 0000000 ...`, `INFO:root:00000000: ...`): any text before the dump's offset on its line, when the offset
# starts with 000 (od's first 4 KiB, hexdump's 64 KiB, xxd's 1 MiB) right after a blank, ":", "|", "]" or ">", and
# the rest of the line is a whole dump line of a kind with offsets. Found from the literal 000; Python runs only at
# such places.
PREFIXED_DUMP_HINT = re.compile(r"000(?<=[ \t:|\]>]000)[0-9a-fA-F]{0,13}(?::? {1,4}[0-9a-fA-F]{2}[0-9a-fA-F]{0,6} {1,4}"
                                r"[0-9a-fA-F]{2}|(?: {1,3}\S{1,3}){2} )")
OFFSET_KINDS = tuple(DUMP_LINES[kind] for kind in ("hex", "xxd", "od", "words", "xxd-le", "bits", "decimal-od"))


def _dump_prefix_edits(text: str) -> list[tuple[int, int, str]]:
    """Where dump lines sit behind a log prefix (PREFIXED_DUMP_HINT): each prefix, to be cut from the view the dump
    rules read (so the lines of a block, each with its own time, are one block there)."""
    edits: list[tuple[int, int, str]] = []
    done = -1
    for m in PREFIXED_DUMP_HINT.finditer(text):
        start = m.start()
        if start < done:
            continue
        line = text.rfind("\n", 0, start) + 1
        newline = text.find("\n", start)
        newline = len(text) if newline < 0 else newline
        if any((d := pattern.match(text, start)) is not None and d.end() == newline for pattern in OFFSET_KINDS):
            edits.append((line, start, ""))
            done = newline
    return edits


def _prefixed_dump_line(text: str, start: int, newline: int) -> bool:
    """Whether the line from start to newline is a dump line behind a log prefix (see _dump_prefix_edits)."""
    m = PREFIXED_DUMP_HINT.search(text, start, newline if newline >= 0 else len(text))
    return m is not None and bool(_dump_prefix_edits(text[start:newline if newline >= 0 else len(text)]))


DUMP_LINE_MOST = 16384   # no dump line is longer (4096 bytes as separated pairs)


def _dump_line_at(text: str, start: int, newline: int) -> bool:
    """Whether the line from start to its newline (or the text's end) is a dump line (see _dump_parts), read in
    its text: a short bare line is one only beside others. (A line's CR goes with the pattern's `\\r?`.)"""
    for pattern in DUMP_LINES.values():
        m = pattern.match(text, start)
        if m is not None and m.end() == newline:
            return True
    end = newline if newline >= 0 else len(text)
    if end - start > DUMP_LINE_MOST:
        return False
    if "\x1b" in text[start:end]:   # a coloured dump line (its offset in cyan) is read without its codes
        line = CSI.sub("", text[start:end])
        return any(pattern.fullmatch(line) is not None for pattern in DUMP_LINES.values()) or _prefixed_dump_line(
            line, 0, len(line))
    return _prefixed_dump_line(text, start, newline)


# Every character of a text escaped, as serializers, shells and HTML print it: runs of 5 or more (the shortest
# secret), each kind found from its literal (the scan skips to it), all runs of a kind decoded at once (C-level
# string and bytes operations) to the text they stand for, a NUL after each run. An escaped NUL inside a run
# (no secret holds one) is dropped, so the NULs count the runs and UTF-16 escaped reads as its text.
def _utf8(data: bytes) -> str:
    return data.decode("utf-8", "replace")


HTML_NUMERIC = re.compile(r"&#([xX]?)([0-9A-Fa-f]{1,7});|\0")
HTML_DECIMAL = re.compile(r"&#([0-9]{1,7});")
HTML_ZERO = re.compile(r"&#(?:[xX])?0+;")


def _html_numeric(runs: list[str]) -> str:
    joined = HTML_ZERO.sub("", "\0".join(runs))
    if "x" not in joined and "X" not in joined:   # decimal alone (the common case): numbers and characters in C
        codes = list(map(int, HTML_DECIMAL.findall(joined.replace("\0", "&#0;"))))
        if codes and max(codes) >= 0x110000:
            codes = [code if code < 0x110000 else 1 for code in codes]
        return "".join(map(chr, codes))
    out = []
    for x, digits in HTML_NUMERIC.findall(joined):
        if not digits:
            out.append("\0")
            continue
        code = int(digits, 16 if x else 10)
        out.append(chr(code) if code < 0x110000 else "\x01")
    return "".join(out)


ESCAPED_RUNS: list[tuple[str, re.Pattern[str], Callable[[list[str]], str]]] = [
    ("%", re.compile(r"(?:%[0-9A-Fa-f]{2}){5,4096}"),
     lambda runs: _utf8(bytes.fromhex("\n".join(runs).replace("%00", "").replace("%", "").replace("\n", "00")))),
    ("&#", re.compile(r"(?:&#(?:[0-9]{1,7}|[xX][0-9A-Fa-f]{1,6});){5,4096}"), _html_numeric),
    ("\\u", re.compile(r"(?:\\u[0-9A-Fa-f]{4}){5,4096}"),
     lambda runs: "\n".join(runs).replace("\\u0000", "").replace("\n", "\\u0000").encode("latin-1")
     .decode("unicode_escape")),
    ("\\x", re.compile(r"(?:\\x[0-9A-Fa-f]{2}){5,4096}"),
     lambda runs: _utf8(bytes.fromhex("\n".join(runs).replace("\\x00", "").replace("\\x", "").replace("\n", "00")))),
    ("\\", re.compile(r"(?:\\[0-3][0-7]{2}){5,4096}"),
     lambda runs: _utf8("\n".join(runs).replace("\\000", "").replace("\n", "\\000").encode("latin-1")
                        .decode("unicode_escape").encode("latin-1"))),
    ("0x", re.compile(r"(?:0x[0-9A-Fa-f]{2} ){4,4095}0x[0-9A-Fa-f]{2}(?![0-9A-Za-z])"),
     lambda runs: _utf8(bytes.fromhex("\n".join(runs).replace("0x00", "").replace("0x", "").replace("\n", "00")))),
    # (UTF-16 either way round: which side of its NUL a character is on cannot be told at a run's ends)
    ("\0", re.compile(r"\x00?(?:[\x20-\x7e]\x00){4,4095}[\x20-\x7e]\x00?"),
     lambda runs: "\n".join(runs).replace("\0", "").replace("\n", "\0")),
    # ... and as Python prints its bytes: print(token.encode("utf-16-le")) gives b'h\x00f\x00_\x00...'
    ("\\x00", re.compile(r"(?:\\x00)?(?:[\x20-\x5b\x5d-\x7e]\\x00){4,4095}[\x20-\x5b\x5d-\x7e](?:\\x00)?"),
     lambda runs: "\n".join(runs).replace("\\x00", "").replace("\n", "\0")),
]


# A .pgpass line, host:port:database:user:password (port a number or *), printed whole: found from the colon
# after its host (a literal), the host checked in code; exactly five fields, so an IPv6 address or a time is none.
PGPASS_PORT = re.compile(r":[0-9]{1,5}:[^\s:]")
PGPASS_LINE = re.compile(r":(?:[0-9]{1,5}|\*):[^\s:]{1,256}:[^\s:]{1,256}:(?P<value>[^\s:'\"]{4,512})(?![^\s'\"])")
PGPASS_HOST_REVERSED = re.compile(r"[A-Za-z0-9_.*\]\[-]{1,253}(?=[\s=\"']|\Z)")


def _pgpass_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    at = 0
    for m in PGPASS_LINE.finditer(text):
        start = m.start()
        low = max(at, start - 254)   # (never further back than the last line found: linear)
        host = PGPASS_HOST_REVERSED.match(text[low:start][::-1])
        if host is None or (host.end() == start - low and low > 0):
            continue  # no host, or one that does not start at a word's start
        if cannot_be_secret(m.group("value")):
            continue
        spans.append((m.start("value"), m.end("value"), REDACTED, "pgpass password", start - host.end()))
        at = m.end()
    return spans


def _name_start(lower: str, dot: int, low: int = 0) -> int:
    """Where the host name whose labels end at `dot` (a "." before a domain) starts: its labels walked back, no
    further than 253 characters nor `low` (where the last name found ended: each character is walked once)."""
    low = max(low, dot - 253)
    name = HOST_NAME_REVERSED.match(lower[low:dot][::-1])
    return dot - name.end() if name else dot + 1


# ---- shapes that need a look around them (the fifth red-team pass) ----------------------------------------------
CONTEXT_LITERALS = frozenset({"eyJ", "gl", "AKIA", "ASIA"})   # TOKEN_SHAPES literals _context_shape_spans asks about
# A JWT glued after "_" or a digit (x_eyJhbGci..., 7eyJ...): its header starts with a JWT header's first key
# ({"alg", {"typ", {"kid", {"enc", {"cty", {"x5t"); the run it starts is read once (a second start inside a run
# that held no JWT is skipped), so "_eyJhbGci" repeated costs one pass.
GLUED_JWT_START = re.compile(r"eyJ(?<=[0-9_]eyJ)(?:hbGci|0eXAi|raWQi|lbmMi|jdHki|4NXQi)")
JWT_RUN = re.compile(r"[A-Za-z0-9_-]*")
JWT_REST = re.compile(r"\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")
# Twilio API keys (SK + 32 hex) and Mailgun's key-<32 hex> (not after a name character or "-": ssh-key-<md5> stays)
TWILIO_API_KEY = re.compile(r"SK" + _starts_token("SK", "[A-Za-z0-9_]") + r"[0-9a-f]{32}(?![0-9A-Za-z])")
MAILGUN_KEY = re.compile(r"key-" + _starts_token("key-", "[A-Za-z0-9_-]") + r"[0-9a-f]{32}(?![0-9A-Za-z])")
GLUED_GITLAB = re.compile(r"gl(?<=[0-9_]gl)(?:pat|dt|rt|ptt|cbt|oas|soat|agent)-(?P<body>[A-Za-z0-9_-]{20,})")
# An Azure AD client secret: 3 characters, a digit, "Q~", 31 to 34 more (40 in all), found from its "Q~".
AZURE_CLIENT_SECRET = re.compile(r"Q~(?<=(?<![A-Za-z0-9_~.-])[A-Za-z0-9_.-]{3}[0-9]Q~)[A-Za-z0-9_~.-]{31,34}"
                                 r"(?![A-Za-z0-9_~.-])")
# An id whose secret is printed beside it on the same line: an AWS access key id and its 40-character secret key
# (a CSV credentials file, `aws configure list`-like tables), a Twilio account SID and its 32-hex auth token.
AWS_KEY_ID = re.compile(r"A(?<![A-Za-z0-9]A)[SK]IA[0-9A-Z]{16}(?![0-9A-Za-z])")
AWS_SECRET_BESIDE = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}(?![A-Za-z0-9+/=])")
TWILIO_ACCOUNT_SID = re.compile(r"AC(?<![A-Za-z0-9_]AC)[0-9a-f]{32}(?![0-9A-Za-z])")
TWILIO_TOKEN_BESIDE = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{32}(?![0-9A-Za-z])")
BESIDE_REACH = 256
# A .netrc password line on its own (wandb's ~/.netrc: `machine api.wandb.ai` / `  login user` / `  password V`):
# the line is only `password VALUE`, and the value is key-like (hex, generated, or a password's mix).
NETRC_PASSWORD_LINE = re.compile(r"\n[ \t]{0,16}password[ \t]{1,8}(?P<value>[^\s'\"]{8,512})[ \t]*(?=\r?\n|\Z)")
# A tab-separated row's `password` cell and the cell after it (a TSV row, my_print_defaults-like listings), tabs as
# printed or escaped in a repr()/JSON string (`password\tX\tuser\troot`); the value key-like, as above.
TAB_PASSWORD_CELL = re.compile(r"(?:^|(?<=[\s'\"])|(?<=\\[tn]))password(?:\t|\\t)(?P<value>[^\s'\"\\]{8,512})"
                               r"(?=\t|\\[tnr]|\\?['\"]|\r?\n|\Z)", re.MULTILINE)


@functools.lru_cache(maxsize=4096)
def _looks_like_key(value: str) -> bool:
    return is_hex_key(value) or looks_generated(value) or looks_like_password(value)


def _beside_spans(text: str, ids: re.Pattern[str], secret: re.Pattern[str], check: Callable[[str], bool],
                  label: str) -> list[Span]:
    """Secret-shaped runs on the same line as an id, within BESIDE_REACH characters of it; each character is read
    at most once per id pattern (a window starts where the last one ended)."""
    spans: list[Span] = []
    scanned = 0
    for m in ids.finditer(text):
        start, end = m.span()
        low = max(scanned, start - BESIDE_REACH, text.rfind("\n", max(0, start - BESIDE_REACH), start) + 1)
        high = text.find("\n", end, end + BESIDE_REACH)
        high = min(len(text), end + BESIDE_REACH) if high < 0 else high
        for found in secret.finditer(text, low, high):
            value = found.group(0)
            if found.start() != start and check(value):
                spans.append((found.start(), found.end(), REDACTED, label, found.start()))
        scanned = max(scanned, high)
    return spans


def _provider_token_spans(text: str) -> list[Span]:
    """PROVIDER_TOKENS (one scan a separator) and INNER_LITERAL_TOKENS (one literal-led scan each)."""
    spans: list[Span] = []
    lengths = PROVIDER_PREFIX_LENGTHS
    for pattern in PROVIDER_PATTERNS:
        for m in pattern.finditer(text):
            group = m.lastgroup
            start = m.start(group) - lengths[group]
            if lengths[group] == 2 and text[start] == "s" and not looks_generated(m.group(group)):
                continue  # Vault's s.<24>: letters of both cases and digits, not a word after "s."
            spans.append((start, m.end(), REDACTED, "provider token", start))
    for label, pattern, back in INNER_LITERAL_TOKENS:
        for m in pattern.finditer(text):
            start = m.start() - back
            if back == 8:  # a Telegram bot id is 8 to 10 digits
                start -= TELEGRAM_BOT_ID.match(text[max(0, start - 2):start][::-1]).end()
            spans.append((start, m.end(), REDACTED, label, start))
    return spans


@functools.lru_cache(maxsize=4096)
def _mixed_key(value: str) -> bool:
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _context_shape_spans(text: str, present: set[str]) -> list[Span]:
    """Glued JWTs and GitLab tokens, Twilio and Mailgun keys, Azure AD client secrets, secrets printed beside their
    ids, a lone .netrc password line. `present`: the TOKEN_SHAPES literals the text holds (tested already). Each
    pattern is led by a literal and scanned directly: a test for a 2-character literal costs more than that scan."""
    spans: list[Span] = []
    if "eyJ" in present:
        done = 0
        for m in GLUED_JWT_START.finditer(text):
            start = m.start()
            if start < done:
                continue
            run_end = JWT_RUN.match(text, start).end()
            rest = JWT_REST.match(text, run_end)
            done = run_end if rest is None else rest.end()
            if rest is not None:
                spans.append((start, done, REDACTED, "jwt", start))
    if "gl" in present:  # a GitLab token glued after "_" or a digit (x_glpat-...): its body mixes capitals and digits
        spans.extend((m.start(), m.end(), REDACTED, "gitlab token", m.start()) for m in GLUED_GITLAB.finditer(text)
                     if _mixed_key(m.group("body")))
    for pattern, label in ((TWILIO_API_KEY, "twilio api key"), (MAILGUN_KEY, "mailgun key")):
        spans.extend((m.start(), m.end(), REDACTED, label, m.start()) for m in pattern.finditer(text))
    if "~" in text:  # (one character: a fast test)
        spans.extend((m.start() - 4, m.end(), REDACTED, "azure client secret", m.start() - 4)
                     for m in AZURE_CLIENT_SECRET.finditer(text))
    if "AKIA" in present or "ASIA" in present:
        spans.extend(_beside_spans(text, AWS_KEY_ID, AWS_SECRET_BESIDE, _mixed_key, "aws secret key"))
    spans.extend(_beside_spans(text, TWILIO_ACCOUNT_SID, TWILIO_TOKEN_BESIDE, lambda v: True, "twilio auth token"))
    if "password" in text:  # (the pattern is led by a newline: a test for its word first)
        looks_like_key = _looks_like_key
        spans.extend((m.start("value") - 1, m.end("value") - 1, REDACTED, "secret-named value", m.start())
                     for m in NETRC_PASSWORD_LINE.finditer("\n" + text) if looks_like_key(m.group("value")))
        if "\t" in text or "\\t" in text:
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in TAB_PASSWORD_CELL.finditer(text) if looks_like_key(m.group("value")))
    return spans
