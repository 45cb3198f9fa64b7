"""Redaction applied to every text before it is written into a bundle.

- Values of environment variables whose names suggest secrets (token, secret, password, key,
  credential, auth, cookie, session, ...), wherever those values appear in any captured text.
- Token shapes in any text: GitHub, Hugging Face, AWS access keys, Slack, OpenAI and Google API keys,
  JWTs, private key blocks, and `name=value` / `--name value` pairs whose name suggests a secret.
- With `redact_hosts`: host names, IP addresses, GPU UUIDs and user names become stable placeholders
  (host-1, ip-1, gpu-uuid-1, user-1: the same value gets the same placeholder everywhere).

The report counts what was replaced, by rule; it never holds a value.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
from collections import Counter

SECRET_NAME = re.compile(r"(?i)(token|secret|passw|pwd|api_?key|apikey|access_?key|private_?key|_key$|^key$|"
                         r"credential|auth|cookie|session|signature|bearer)")
REDACTED = "[REDACTED]"

TOKEN_SHAPES: list[tuple[str, re.Pattern[str]]] = [
    ("private key block", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
                                     re.S)),
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b")),
    ("hugging face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    ("aws access key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b")),
    ("openai key", re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}\b")),
    ("google api key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b")),
    ("bearer token", re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/=-]{16,}")),
]
# name=value, name: value, --name=value where the name suggests a secret. ML logs are full of
# "tokens: 512", "max_tokens=64", "tokenizer: gpt2": those are not secrets and stay.
SECRET_ASSIGNMENT = re.compile(
    r"(?i)(?P<name>[A-Za-z0-9_.-]*(?:token(?!s|iz|is)|secret|passw(?:or)?d|pwd|api[_-]?key|apikey|"
    r"access[_-]?key|credential|cookie|session[_-]?id)[A-Za-z0-9_.-]*)(?P<sep>\s*[=:]\s*)(?P<quote>['\"]?)"
    r"(?P<value>[^\s'\",;]{3,})")

IPV4 = re.compile(r"(?<![\w.])(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\w.-]*\d)")
# A dotted quad is also a package version ("9.19.0.56"). Private and link-local addresses are always
# addresses; any other quad is taken as one only where the text says so (inet, addr, @, //, :port).
PRIVATE_IPV4 = re.compile(r"^(?:10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|169\.254\.|100\.(?:6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.)")
ADDRESS_BEFORE = re.compile(r"(?i)(?:inet6?|addr|address|ip|host|server|endpoint|master_addr|from|to|via|src|dst)"
                            r"[\s:=\"']{1,3}$|[@/]$")
IPV6 = re.compile(r"\b(?:[0-9a-fA-F]{1,4}:){4,7}[0-9a-fA-F]{1,4}\b")
GPU_UUID = re.compile(r"\b(?:GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b")
# Addresses that identify nobody; left as they are so the text stays readable.
BORING_IPS = {"127.0.0.1", "0.0.0.0", "255.255.255.255", "255.255.255.0"}


def secret_env_names(environ: dict[str, str]) -> list[str]:
    return sorted(name for name in environ if SECRET_NAME.search(name))


class Redactor:
    def __init__(self, environ: dict[str, str] | None = None, redact_hosts: bool = False,
                 extra_secrets: list[str] | None = None):
        self.environ = dict(os.environ if environ is None else environ)
        self.redact_hosts = redact_hosts
        self.counts: Counter[str] = Counter()
        # the literal values of secret-named variables, longest first so that overlaps go whole
        values = {v for name in secret_env_names(self.environ) if len(v := self.environ[name]) >= 4}
        values |= {s for s in extra_secrets or [] if len(s) >= 4}
        self._secret_values = sorted(values, key=len, reverse=True)
        self._placeholders: dict[str, dict[str, str]] = {}
        self._host_names: list[str] = []
        self._users: list[str] = []
        if redact_hosts:
            names = {socket.gethostname(), socket.getfqdn(), self.environ.get("HOSTNAME", "")}
            self._host_names = sorted((n for n in names if n and n not in ("localhost", "localhost.localdomain")),
                                      key=len, reverse=True)
            users = {self.environ.get("USER", ""), self.environ.get("LOGNAME", "")}
            try:
                users.add(getpass.getuser())
            except Exception:  # no passwd entry in some containers
                pass
            self._users = sorted((u for u in users if u and u != "root" and len(u) >= 3), key=len, reverse=True)

    @property
    def has_secrets(self) -> bool:
        """Whether the environment holds secret values (which binary files could carry unredacted)."""
        return bool(self._secret_values)

    def placeholder(self, kind: str, value: str) -> str:
        table = self._placeholders.setdefault(kind, {})
        if value not in table:
            table[value] = f"{kind}-{len(table) + 1}"
        return table[value]

    def text(self, text: str) -> str:
        for value in self._secret_values:
            if value in text:
                self.counts["secret environment value"] += text.count(value)
                text = text.replace(value, REDACTED)
        for label, pattern in TOKEN_SHAPES:
            text, n = pattern.subn(REDACTED, text)
            if n:
                self.counts[label] += n
        text = SECRET_ASSIGNMENT.sub(self._assignment, text)
        if self.redact_hosts:
            text = self._hosts(text)
        return text

    def _assignment(self, match: re.Match[str]) -> str:
        if match.group("value") == REDACTED:
            return match.group(0)
        self.counts["secret-named value"] += 1
        return f"{match.group('name')}{match.group('sep')}{match.group('quote')}{REDACTED}"

    def _hosts(self, text: str) -> str:
        # Whole names only: a host called "vm" must not turn "nvml" into "nhost-1l".
        for kind, label, names in (("host", "host name", self._host_names), ("user", "user name", self._users)):
            for name in names:
                if name not in text:
                    continue
                pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
                text, n = pattern.subn(self.placeholder(kind, name), text)
                if n:
                    self.counts[label] += n

        def ip(match: re.Match[str]) -> str:
            value = match.group(0)
            if value in BORING_IPS or value.startswith("127."):
                return value
            before = match.string[max(0, match.start() - 24):match.start()]
            after = match.string[match.end():match.end() + 6]
            if not (PRIVATE_IPV4.match(value) or ADDRESS_BEFORE.search(before) or re.match(r":\d{2,5}\b", after)):
                return value  # a version number, most likely
            self.counts["ip address"] += 1
            return self.placeholder("ip", value)

        def uuid(match: re.Match[str]) -> str:
            self.counts["gpu uuid"] += 1
            return self.placeholder("gpu-uuid", match.group(0))

        text = GPU_UUID.sub(uuid, text)
        text = IPV4.sub(ip, text)
        return IPV6.sub(ip, text)

    def environment(self, environ: dict[str, str]) -> dict[str, str]:
        """The environment with secret-named values replaced and every other value redacted as text."""
        clean = {}
        for name, value in sorted(environ.items()):
            if SECRET_NAME.search(name):
                self.counts["secret-named environment variable"] += 1
                clean[name] = REDACTED
            else:
                clean[name] = self.text(value)
        return clean

    def argv(self, argv: list[str]) -> list[str]:
        """A command line with secret values removed, including `--token VALUE` pairs."""
        clean = []
        hide_next = False
        for arg in argv:
            if hide_next:
                self.counts["secret-named value"] += 1
                clean.append(REDACTED)
                hide_next = False
                continue
            if arg.startswith("-") and "=" not in arg and SECRET_NAME.search(arg.lstrip("-").replace("-", "_")):
                hide_next = True
                clean.append(arg)
                continue
            clean.append(self.text(arg))
        return clean

    def tainted(self, text: str) -> bool:
        """Whether text holds anything we would redact (for files we cannot rewrite)."""
        before = sum(self.counts.values())
        saved = Counter(self.counts)
        changed = self.text(text) != text
        self.counts = saved
        return changed or sum(self.counts.values()) != before

    def report(self) -> dict:
        return {"rules_applied": dict(sorted(self.counts.items())),
                "secret_environment_variables": len(secret_env_names(self.environ)),
                "hosts_redacted": self.redact_hosts,
                "placeholders": {kind: len(values) for kind, values in self._placeholders.items()},
                "note": "counts only; no redacted value is kept anywhere in the bundle"}
