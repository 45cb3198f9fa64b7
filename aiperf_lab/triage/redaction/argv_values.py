"""argv_secret_values: the secret values of a workload's argv, as the rules alone find them (a Redactor that knows
no secret), plus what lies inside an argument (URL passwords, JSON, `bash -c` scripts, looked into MAX_SHELL_DEPTH deep)."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
from urllib.parse import unquote

from .assignments import AUTH_SCHEMES, _assigned_secret_at
from .names import worth_hiding
from .redactor import Redactor
from .spans import REDACTED
from .urls import URL_USERINFO


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


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})

SHELL_SEPARATOR = re.compile(r"[;&|()<>]+")
SHELL_WORD = re.compile(r"[;&|()<>]+|[^\s;&|()<>]+")
MAX_SHELL_DEPTH = 4       # `bash -c "sh -c '...'"` is looked into this deep
MAX_JSON_ARGUMENT = 1 << 20


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
