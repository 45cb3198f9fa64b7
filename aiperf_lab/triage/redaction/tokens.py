"""Provider token shapes as tables and compiled patterns (SERVICE_TOKENS, TOKEN_SHAPES, PROVIDER_PATTERNS and
their gates): what a token looks like, found by its literal prefix; no span is made here (token_spans, redactor)."""

from __future__ import annotations

import re


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
    ("discord.com/api/webhooks/", r"[0-9]{6,21}/[A-Za-z0-9_-]{40,}"),
    ("discordapp.com/api/webhooks/", r"[0-9]{6,21}/[A-Za-z0-9_-]{40,}"),
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
    # (a conda channel's /t/ on any host named for conda, with a dot in it: anaconda.org, conda.corp.example; /T/, %2F)
    ("conda token", re.compile(r"conda[A-Za-z0-9-]{0,32}\.[A-Za-z0-9.-]{1,64}(?:/|%2[fF])[tT](?:/|%2[fF])"
                               r"(?P<value>[A-Za-z0-9_-]{8,256})")),
    ("teams webhook", re.compile(r"IncomingWebhook/(?<=/IncomingWebhook/)(?P<value>[0-9a-fA-F]{32}(?:/[0-9a-fA-F-]{36})?)")),
    ("mattermost webhook", re.compile(r"hooks(?<=/hooks)\\{0,2}/(?P<value>[a-z0-9]{26})(?![A-Za-z0-9_-])")),
    # IFTTT's /with/key/KEY, PagerDuty's /integration/KEY/enqueue, a Telegram bot URL's /bot<id>:<token>
    ("ifttt webhook", re.compile(r"with/key/(?<=/with/key/)(?P<value>[A-Za-z0-9_-]{16,64})")),
    ("pagerduty integration", re.compile(r"integration/(?<=/integration/)(?P<value>[A-Za-z0-9]{20,64})/enqueue")),
    ("telegram bot token", re.compile(r"/bot(?P<value>[0-9]{6,12}:[A-Za-z0-9_-]{20,64})(?=/|[\s\"'\\]|\Z)")),
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
DISCORD_ID_PARTS = tuple((rf"[A-Za-z0-9]{{{n}}}\.", n + 1) for n in (24, 25, 26))   # (a Discord bot token's first part)
PROVIDER_TOKENS: dict[str, tuple[tuple[str, str], ...]] = {
    "_": (("pcsk_", r"[A-Za-z0-9]{4,10}_[A-Za-z0-9]{30,}"), ("fw_", r"[A-Za-z0-9]{20,}"),
          ("api_org_", r"[A-Za-z0-9]{30,}"), ("glsa_", r"[A-Za-z0-9]{32}_[0-9a-fA-F]{8}"),
          ("fo1_", r"[A-Za-z0-9_-]{40,}"), ("sbp_", r"[0-9a-f]{40}"), ("shpss_", r"[0-9a-fA-F]{32}"),
          ("shpca_", r"[0-9a-fA-F]{32}"), ("shppa_", r"[0-9a-fA-F]{32}"), ("rubygems_", r"[0-9a-f]{48}"),
          ("figd_", r"[A-Za-z0-9_-]{40,}"), ("sntryu_", r"[0-9a-f]{64}"), ("sntrys_", r"[A-Za-z0-9_+/=.-]{50,}"),
          ("nfp_", r"[A-Za-z0-9]{36,}"), ("squ_", r"[0-9a-f]{40}"), ("sqp_", r"[0-9a-f]{40}"), ("sqa_", r"[0-9a-f]{40}"),
          ("rpa_", r"[A-Za-z0-9]{40,}"), ("lsv2_pt_", r"[0-9a-f]{32}_[0-9a-f]{10}"),
          ("lsv2_sk_", r"[0-9a-f]{32}_[0-9a-f]{10}"), ("sk_", r"[0-9a-f]{48}(?![0-9A-Za-z])"),
          ("tgp_v1_", r"[A-Za-z0-9_-]{30,}"),   # (Together AI's keys: session 25)
          # (session 26) Vercel's prefixed credentials (its changelog "new token formats and secret scanning": vcp_
          # personal access tokens, vci_ integration, vca_ app access, vcr_ app refresh, vck_ API keys; a 50-character
          # body and a 6-character checksum as secret scanners read them): 40 or more token characters, a digit and a
          # capital among them (a name of words, `vck_config_reader_for_...`, is none)
          *((f"vc{kind}_", r"(?=[A-Za-z_-]{0,60}[0-9])(?=[a-z0-9_-]{0,60}[A-Z])[A-Za-z0-9_-]{40,}")
            for kind in "pciark")),
    "-": (("xai-", r"[A-Za-z0-9]{60,}"), ("pplx-", r"[A-Za-z0-9]{40,}"),
          ("tskey-", r"[a-z]{3,8}-[A-Za-z0-9-]{20,}"), ("PMAK-", r"[0-9a-f]{24}-[0-9a-f]{34}"),
          ("pul-", r"[0-9a-f]{40}"), ("HRKU-", r"[A-Za-z0-9_-]{30,}"), ("NRAK-", r"[A-Z0-9]{27}"),
          ("sq0atp-", r"[A-Za-z0-9_-]{22,}"), ("sq0csp-", r"[A-Za-z0-9_-]{40,}"), ("local-", r"[0-9a-f]{40}(?![0-9a-f])"),
          ("v1.0-", r"[0-9a-f]{24}-[0-9a-f]{140,}"),
          # (session 26) Modal's token id `ak-` and token secret `as-`, 22 letters and digits each (`modal token set
          # --token-id ak-... --token-secret as-...`), capitals and small letters both (base62: a run of one case, digits or hex,
          # `as-is`, a pod's `-ak-7f9c...`, is none)
          *((prefix, r"(?=[a-z0-9]{0,21}[A-Z])(?=[A-Z0-9]{0,21}[a-z])[A-Za-z0-9]{22}(?![A-Za-z0-9_-])")
            for prefix in ("ak-", "as-"))),
    ".": (("dp.st.", r"[a-z0-9_-]{1,35}\.[A-Za-z0-9]{40,}"), ("dt0c01.", r"[A-Z0-9]{24}\.[A-Z0-9]{64}"),
          ("sk.", r"eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{10,}"), ("sl.", r"[A-Za-z0-9_-]{120,}"),
          ("s.", r"[A-Za-z0-9]{24}(?![A-Za-z0-9_.-])"),                     # Vault's former service token
          # (a prefix that is not a literal: its pattern and length) Terraform Cloud's <14>.atlasv1.<60+>,
          # Airtable's pat<14>.<64 hex>
          ((r"[A-Za-z0-9]{14}\.atlasv1\.", 23), r"[A-Za-z0-9_-]{60,}"),
          ((r"pat[A-Za-z0-9]{14}\.", 18), r"[0-9a-f]{64}(?![A-Za-z0-9])"),
          # a Discord bot token: <the bot's id in base64, 24 to 26>.<6>.<27 to 38> (the id's part checked in code)
          *((prefix, r"[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_.-])") for prefix in DISCORD_ID_PARTS)),
}
DISCORD_GROUPS: set[str] = set()   # (the body groups of the Discord branches)


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
        if _prefix in DISCORD_ID_PARTS:
            DISCORD_GROUPS.add(f"p{_index}")
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
# kaggle.json printed (`{"username":"alice","key":"X"}`, or as a Python dict, or by `jq .` over lines): the "key"
# beside a "username" in one object is the API key whatever its shape (lower-cased text; read where the text holds
# `username`); a stream holds a line that ends with the first of the two (KAGGLE_JSON_FIRST_LINE)
_KAGGLE_GAP = r"[ \t]{0,4},[ \t]{0,4}(?:\r?\n[ \t]{0,16})?"
_KAGGLE_VALUE = r"(?P<value>[^\s\"'\\<\[$%{][^\s\"'\\]{2,255})"
KAGGLE_JSON_KEY = re.compile(r"username(?<=[\"']username)[\"'][ \t]{0,4}:[ \t]{0,4}[\"'][^\"'\n]{1,128}[\"']" + _KAGGLE_GAP
                             + r"[\"']key[\"'][ \t]{0,4}:[ \t]{0,4}[\"']" + _KAGGLE_VALUE + r"[\"']")
KAGGLE_JSON_KEY_FIRST = re.compile(r"key(?<=[\"']key)[\"'][ \t]{0,4}:[ \t]{0,4}[\"']" + _KAGGLE_VALUE + r"[\"']" + _KAGGLE_GAP
                                   + r"[\"']username[\"']")
KAGGLE_JSON_FIRST_LINE = re.compile(r"[\"'](?:username|key)[\"'][ \t]{0,4}:[ \t]{0,4}[\"'][^\"'\n]{1,256}[\"'][ \t]{0,4},[ \t]*\r?\n?\Z")
# (session 25) TorchServe's key_file.json (token authorization, on by default since 0.11; `cat key_file.json` to find the
# token for curl): `{"management": {"key": "B-E5KSRM", "expiration time": "..."}, "inference": {...}, "API": {"key":
# "yv9uQajP"}}`, on one line or pretty-printed: a "key" that opens the object of "management", "inference" or "api",
# or one before an "expiration time", whatever its shape (lower-cased text)
_SERVE_OPEN = r"[\"'](?:api|management|inference)[\"'][ \t]{0,4}:[ \t]{0,4}\{[ \t]{0,4}(?:\r?\n[ \t]{0,16})?"
SERVE_KEY_FIRST = re.compile(_SERVE_OPEN + r"[\"']key[\"'][ \t]{0,4}:[ \t]{0,4}[\"']" + _KAGGLE_VALUE + r"[\"']")
SERVE_KEY_EXPIRY = re.compile(r"key(?<=[\"']key)[\"'][ \t]{0,4}:[ \t]{0,4}[\"']" + _KAGGLE_VALUE + r"[\"']" + _KAGGLE_GAP
                              + r"[\"']expiration time[\"']")
SERVE_OPEN_LINE = re.compile(_SERVE_OPEN.replace(r"(?:\r?\n[ \t]{0,16})?", "") + r"\r?\n?\Z")
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
