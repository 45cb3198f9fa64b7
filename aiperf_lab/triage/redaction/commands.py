"""Secrets on printed command lines: a tool's password flag (`mysql -pX`, `sshpass -p X`, `docker login -p X`),
`--secret-flag VALUE` in printed text, login and `config set` commands, `echo X | tool --password-stdin`."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

from .assignments import AUTH_SCHEMES, NOT_A_SECRET_REFERENCE, names_a_gcloud_secret
from .names import (_secret_name_cached, cannot_be_secret, is_hex_key, is_named_location, is_secret_flag, looks_generated,
                    looks_like_password, name_words, names_a_key_file)
from .line_views import without_log_prefix
from .printed_rows import PROMPT_GATES, prefixed_row_spans, typed_prompt_spans
from .spans import REDACTED, REDACTED_LOWER, Span, has, has_any


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
    # `cargo login TOKEN` (asked only where the text holds `cargo login`: _present_tools)
    (("cargo login",), 300, re.compile(r"[ \t](?<=cargo login[ \t])[ \t]{0,3}['\"]?(?P<value>[^\s'\"$-][^\s'\"]{7,})")),
    # (session 23) `grafana-cli admin reset-admin-password X`, `conda token set X`, `wandb login [--relogin] X` (the
    # flags before the key), `oc login -u U -p X`, `twine upload -p X` and `poetry config pypi-token.R X` / `http-basic.R
    # U X` anywhere on a line (behind any log prefix, inside a JSON record's message: the value ends at a quote)
    (("reset-admin-password",), 300, re.compile(r"[ \t](?<=reset-admin-password[ \t])[ \t]{0,3}"
                                                + _shell_value(r"[^\s'\"$\\-][^\s'\"]{2,}"))),
    (("conda token",), 300, re.compile(r"[ \t](?<=conda token set[ \t])[ \t]{0,3}(?:--[\w-]{1,32}[ \t]{1,4})*"
                                           + _shell_value(r"[^\s'\"$\\-][^\s'\"]{7,}", 8))),
    (("wandb login",), 300, re.compile(r"[ \t](?<=wandb login[ \t])[ \t]{0,3}(?:--(?:relogin|cloud|verify|anonymously)"
                                       r"[ \t]{1,4}|--host[ \t=]{1,4}[^\s'\"]{1,256}[ \t]{1,4})*"
                                       + _shell_value(r"[^\s'\"$\\-][^\s'\"]{7,}", 8))),
    (("oc login", "twine"), 300, re.compile(r"-(?<=[ \t]-)(?:p|-password)(?:[ \t]{1,4}|(?<=-password)=)"
                                                            + _shell_value(r"[^\s'\"$\\-][^\s'\"]*"))),
    # (Hive's `beeline -u jdbc:hive2://h -n bob -p X`; HTTPie's `http -a bob:X GET url`, `--auth bob:X`)
    (("beeline",), 300, re.compile(r"-p(?<=[ \t]-p)[ \t]{1,4}" + _shell_value(r"[^\s'\"$\\-][^\s'\"]*"))),
    (("http ",), 120, re.compile(r"-(?<=[ \t]-)(?:a|-auth)(?:[ \t]{1,4}|(?<=-auth)=)['\"]?[^\s:'\"]{1,128}:"
                                                     r"(?P<value>[^\s'\"]+)")),
    (("poetry",), 300, re.compile(r"pypi-token\.[\w.-]{1,64}[ \t]{1,4}" + _shell_value(r"[^\s'\"$\\-][^\s'\"]*"))),
    (("poetry",), 300, re.compile(r"http-basic\.[\w.-]{1,64}[ \t]{1,4}[^\s'\"]{1,256}[ \t]{1,4}"
                                         + _shell_value(r"[^\s'\"$\\-][^\s'\"]*"))),
    # InfluxDB 2's `influx setup|auth|... -t TOKEN` (its `-p` is a password flag of the argv reading already)
    (("influx",), 300, re.compile(r"-t(?<=[ \t'\"]-t)[ \t]{1,4}" + _shell_value(r"(?![0-9]{1,12}(?![^\s'\"]))[^\s'\"$-][^\s'\"]*"))),
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
# (the value aligned to a column, `  --password        X` as a launcher's args table or argparse's help-like dump prints
# it: 5 to 40 blanks, then a value that ends the line and is secret-shaped, quoted or not: help text's `--token    The
# token to use` stays)
# (session 23: the list's next line behind a log prefix, `[rank0]: `, an ISO time, compose's `api-1  | `)
_NEXT_LINE_PREFIX = r"(?:\[[^\]\n]{1,32}\]:?[ \t]{1,4}|[0-9][0-9TZ:.,+-]{18,34}[ \t]{1,4}|[\w.-]{1,64}[ \t]{1,16}\|[ \t]{1,4})?"
PRINTED_SECRET_FLAG = re.compile(r"--(?<![A-Za-z0-9_-]--)(?P<flag>[A-Za-z][A-Za-z0-9_-]{0,63})"
                                 r"(?:=|(?P<gap>[ \t]{1,40})|['\"],[ \t]{0,2}['\"]|['\"]?,?[ \t]{0,8}\r?\n" + _NEXT_LINE_PREFIX + r"[ \t]{0,64}-[ \t]{1,4}['\"]?)"
                                 + _shell_value(r"[^\s'\"-][^\s'\"]{0,4095}"))
ALIGNED_FLAG_GAP = 4   # (more blanks than this between a flag and its value: an aligned column, judged as above)
LINE_END_AFTER_VALUE = re.compile(r"['\"]?[ \t]*(?:\r?\n|\Z)")
# vllm's `--api-key K1 K2` (argparse nargs="+": every word after the flag up to the next flag is a key), printed as a
# command line or a Python list: the words after the first value that are secret-shaped (a model name, a path stay)
NARGS_KEY_FLAG_WORDS = (["api", "key"], ["api", "keys"])
NEXT_LIST_WORD = re.compile(r"['\"]?(?:,[ \t]{0,2}|[ \t]{1,4})['\"]?(?P<value>[^\s'\",\]\[-][^\s'\",\]\[]{0,4095})")
NARGS_MOST = 16
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
# (a literal each name of a flag's tools holds: where the text holds none, the flag's tools are not looked for, a scan
# that tries the names at every character)
TOOL_SHORT_FLAG_LITERALS: dict[str, tuple[str, ...]] = {
    "k": ("openssl",), "P": ("zip", "sqlcmd", "bcp", "ssh-keygen"), "p": ("7z", "az", "mongo"), "N": ("ssh-keygen",),
    "U": ("smbclient", "rpcclient", "smbmap"), "w": ("ldap",), "u": ("curl", "wget"),
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
# `aws ssm put-parameter --name N --value X --type SecureString` (or a secret's name N): X
PUT_PARAMETER_VALUE = re.compile(r"put-parameter[ \t][^\n]{0,512}?--value(?:[ \t]{1,4}|=)" + _shell_value(r"[^\s'\"-][^\s'\"]{0,4095}"))
PUT_PARAMETER_NAME = re.compile(r"--name(?:[ \t]{1,4}|=)['\"]?(?P<name>[^\s'\"]{1,1024})")
CONFIG_SET_VALUE = re.compile(r"config(?:ure)? set[ \t]{1,4}(?P<name>[A-Za-z0-9_.-]{1,64})[ \t]{1,4}"
                              + _shell_value(r"[^\s'\"-][^\s'\"]{0,4095}"))


SECRET_MOUNT_SPEC = re.compile(r"(?:(?:id|src|source|env|type|target|dst|required|mode|uid|gid)=[^,\s]*(?:,|\Z))+")


def _present_tools(text: str) -> set[str]:
    """The tools of COMMAND_PASSWORD_FLAGS named in text, each looked for once; a name of several words (`docker
    login`) only where its last word is in the text (one scan for `login` spares those of ten names)."""
    words: dict[str, bool] = {}
    present = set()
    for tool in dict.fromkeys(tool for tools, _, _ in COMMAND_PASSWORD_FLAGS for tool in tools):
        last = tool.rpartition(" ")[2]
        if last != tool and not (words[last] if last in words else words.setdefault(last, has(text, last))):
            continue
        if has(text, tool):
            present.add(tool)
    return present


# A tool's password variable whose name ends in a glued PASS (`SSHPASS=X sshpass -e ssh h`, `SMBPASS=X`, keytool's
# `STOREPASS=X`): the name words the assignment rules split miss (led by its literal; the name read back, judged by
# is_secret_name: `BYPASS=1`, `MULTIPASS=2` stay)
GLUED_PASS = re.compile(r"PASS=(?P<value>'[^'\n]{1,4096}'|\"[^\"\\\n]{1,4096}\"|[^\s'\"\\;&|`]{1,4096})")
GLUED_PASS_NAME_REVERSED = re.compile(r"[A-Z0-9]{1,60}(?:_[A-Z0-9]{1,60}){0,8}(?![\w$])")
GLUED_PASS_NAMES = frozenset({"SMBPASS", "LDAPPASS"})


def _glued_pass_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in GLUED_PASS.finditer(text):
        back = GLUED_PASS_NAME_REVERSED.match(text[max(0, m.start() - 600):m.start()][::-1])
        if back is None or text[m.start() - 1] == "_":
            continue   # (DB_PASS=X: the assignment rules')
        name = text[m.start() - back.end():m.start()] + "PASS"
        if name not in GLUED_PASS_NAMES and not _secret_name_cached(name):
            continue
        start, end = m.span("value")
        if text[start] in "'\"":
            start, end = start + 1, end - 1
        value = text[start:end]
        if cannot_be_secret(value) or NOT_A_SECRET_REFERENCE.fullmatch(value) is not None:
            continue
        spans.append((start, end, REDACTED, "secret-named value", m.start() - back.end()))
    return spans


# (session 23) `PW=$(echo X)`, `export HF_TOKEN=$(printf '%s' X)` unquoted: a substitution that prints the value it
# holds (a quoted one is the assignment rules'); the name read back from the `=` (NAME_BEFORE_EQUALS_REVERSED)
ECHO_SUBSTITUTION = re.compile(r"=\$\((?:echo|printf)[ \t]{1,4}(?:-[nes]{1,3}[ \t]{1,4})?(?:(?P<fq>['\"])%s(?:\\n)?(?P=fq)[ \t]{1,4})?"
                               + _shell_value(r"[^\s'\"$()-][^\s'\"()]*") + r"['\"]?[ \t]{0,4}\)")
NAME_BEFORE_EQUALS_REVERSED = re.compile(r"[A-Za-z0-9_]{1,128}")


def _echo_substitution_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in ECHO_SUBSTITUTION.finditer(text):
        back = NAME_BEFORE_EQUALS_REVERSED.match(text[max(0, m.start() - 128):m.start()][::-1])
        if back is not None and _secret_name_cached(back.group()[::-1]) and not cannot_be_secret(m.group("value")):
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start() - back.end()))
    return spans


# (session 24) a GIT_ASKPASS / SSH_ASKPASS / SUDO_ASKPASS script as `cat` or a log prints it: a shell's shebang line,
# then `echo X` (`echo -n X`, `exec echo X`, `printf '%s\n' X`) on the next line, X a password or a token
# (_askpass_value: `echo hello`, `echo v1.2.3`, `echo node01`, `echo "$TOKEN"` stay). A stream holds the shebang line for its next
# (askpass_hold); behind a log prefix or in a JSON record the line views read it (`#` and `!` open them).
SHEBANG = re.compile(r"#![ \t]{0,2}(?:/usr)?/bin/(?:env[ \t]{1,4})?(?:ba|da|z|k)?sh[ \t]*\r?\n")
ASKPASS_ECHO = re.compile(r"[ \t]{0,8}(?:exec[ \t]{1,4})?(?:echo(?:[ \t]{1,4}-n)?|printf[ \t]{1,4}(?P<fq>['\"])%s(?:\\n)?(?P=fq))"
                          r"[ \t]{1,4}" + _shell_value(r"[^\s'\"$-][^\s'\"|;&<>]*") + r"['\"]?[ \t]*(?:\r?\n|\Z)")


def _askpass_echo_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    at = text.find("#!")
    while at >= 0:
        if (at == 0 or text[at - 1] == "\n") and (shebang := SHEBANG.match(text, at)) is not None and (
                m := ASKPASS_ECHO.match(text, shebang.end())) is not None and _askpass_value(m.group("value")):
            spans.append((m.start("value"), m.end("value"), REDACTED, "command-line password", at))
        at = text.find("#!", at + 2)
    return spans


def _askpass_value(value: str) -> bool:
    """An askpass script's printed value: a token, or a password of 8+ characters (`echo node01` stays)."""
    return _list_word_secret(value) and (len(value) >= 8 or looks_generated(value) or is_hex_key(value))


def askpass_hold(buffer: str, start: int, cut: int) -> int:
    """start where the piece's last line is a shell's shebang (a script's `echo X` may come next: _askpass_echo_spans),
    else cut."""
    if "#!" not in buffer[start:cut]:
        return cut
    line = without_log_prefix(buffer[start:cut])
    return start if SHEBANG.fullmatch(line.lstrip(" \t")) is not None and line.startswith("#!") else cut


def _command_password_spans(text: str) -> list[Span]:
    """Passwords of printed commands (COMMAND_PASSWORD_FLAGS): each flag match is kept when one of its
    tools' names starts within reach before it, on the same line; and a glued PASS variable's (GLUED_PASS)."""
    spans: list[Span] = _glued_pass_spans(text) if has(text, "PASS=") else []
    if "#!" in text:
        spans += _askpass_echo_spans(text)
    if has(text, "=$(echo ") or has(text, "=$(printf "):
        spans += _echo_substitution_spans(text)
    if has(text, "| |") or has(text, "Z |") or has(text, "\"|") or has(text, "\" |"):   # (session 23: printed_rows)
        spans += prefixed_row_spans(text)
    if any(has(text, gate) for gate in PROMPT_GATES):   # (each verb's tail: `Enter ` and `enter ` in one scan)
        spans += typed_prompt_spans(text, text.lower())
    places: dict[str, list[int]] = {}
    no_value: dict[str, bool] = {}
    present_tools = _present_tools(text)
    for tools, reach, pattern in COMMAND_PASSWORD_FLAGS:
        present = [tool for tool in tools if tool in present_tools]
        if not present:
            continue
        for tool in present:
            if tool not in places:   # (where the name is, each place searched on from the last one's end, in C)
                places[tool] = [m.start() for m in _literal_pattern(tool).finditer(text)]
        tool_places = [(places[tool], len(tool)) for tool in present]
        for m in pattern.finditer(text):
            value = m.group("value")
            skipped = no_value.get(value)
            if skipped is None:   # (the value alone decides: once a call, a log repeats its command lines)
                skipped = no_value[value] = _no_command_value(value)
            if skipped:
                continue
            start = m.start()
            for where, size in tool_places:
                index = bisect.bisect_right(where, start - size) - 1
                if index >= 0 and where[index] >= start - reach and text.find("\n", where[index], start) < 0:
                    spans.append((m.start("value"), m.end("value"), REDACTED, "command-line password", where[index]))
                    break
    return spans


@functools.lru_cache(maxsize=256)
def _literal_pattern(literal: str) -> re.Pattern[str]:
    """A pattern of the literal alone: its finditer gives the places a `find` from each last place's end gives."""
    return re.compile(re.escape(literal))


def _no_command_value(value: str) -> bool:
    """Whether a password flag's value is none: a list's separator, or a variable's name."""
    return (not value.strip(", \t")   # (`'-p', 'X'` in a list: the separator is no value; argv_list_spans reads the list)
            # `docker login -p $REGISTRY_PASSWORD`, `curl -u "$USER:$PASSWORD"`: the variable's name
            or NOT_A_SECRET_REFERENCE.fullmatch(value.strip("\"' \t")) is not None)


@functools.lru_cache(maxsize=4096)
def _secret_flag_cached(flag: str) -> bool:
    return is_secret_flag(flag)


# A shell's operator or a table's bar after a flag (`--api-key | tee log`, a markdown row `| --api-key | X |`): no value
SHELL_OPERATORS = frozenset({"|", "||", "|&", "&", "&&", ">", ">>", "&>", "2>", "2>&1", ">&2", "1>&2"})


def _printed_flag_value_kept(value: str) -> bool:
    value = value.rstrip(",;)]}")
    return (not value or cannot_be_secret(value) or value.lower() in NOT_A_FLAG_SECRET or value.lower() in AUTH_SCHEMES
            or value[0] in "$%<" or value in SHELL_OPERATORS
            or value.lower() == REDACTED_LOWER or is_named_location(value)   # (`--password /eIrB8jp/vI1sS` is none)
            or names_a_key_file(value)   # (`openssl req -key key.pem`)
            or SECRET_MOUNT_SPEC.fullmatch(value) is not None)   # docker build --secret id=npm,src=/run/npmrc


@functools.lru_cache(maxsize=1024)
def _metavar(flag: str) -> str:
    """argparse's placeholder for a flag's value in its usage and help (`--api-key API_KEY`): no value."""
    return flag.upper().replace("-", "_")


@functools.lru_cache(maxsize=1024)
def _takes_key_list(flag: str) -> bool:
    """Whether a secret flag takes a list of keys (NARGS_KEY_FLAG_WORDS: `--api-key A B C`); the flag alone decides."""
    return name_words(flag) in NARGS_KEY_FLAG_WORDS


@functools.lru_cache(maxsize=4096)
def _secret_shaped(value: str) -> bool:
    """(the value alone decides: remembered, a log repeats its command lines)"""
    return looks_like_password(value) or looks_generated(value) or is_hex_key(value)


@functools.lru_cache(maxsize=4096)
def _list_word_secret(value: str) -> bool:
    """Whether a word after a key flag's first value is secret-shaped (_nargs_spans; the word alone decides:
    remembered, a list of keys repeats its words)."""
    return looks_generated(value) or is_hex_key(value) or (looks_like_password(value) and "/" not in value
                                                           and "." not in value)


def _nargs_spans(text: str, at: int, context: int, kept: "_KeptFlagValues") -> list[Span]:
    """The secret-shaped words after a key flag's first value, on its line, up to the next flag (NEXT_LIST_WORD)."""
    spans: list[Span] = []
    for _ in range(NARGS_MOST):
        m = NEXT_LIST_WORD.match(text, at)
        value = m.group("value") if m is not None else ""
        if m is None or kept[value] or not _list_word_secret(value):
            break   # (a model's name or a path after the keys: `--api-key K meta-llama/Llama-3-8B`)
        spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", context))
        at = m.end()
    return spans


class _KeptFlagValues(dict):
    """value -> _printed_flag_value_kept(value), worked out once per value (a log repeats its command lines)."""

    def __missing__(self, value: str) -> bool:
        verdict = self[value] = _printed_flag_value_kept(value)
        return verdict


def _printed_flags(text: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """PRINTED_SECRET_FLAG's matches (led by "--": its scan costs what a test for "--" does), and those inside a quoted
    value of another flag (`sbatch --wrap 'python x.py --hf_token X'`: the quoted command is read too)."""
    for m in PRINTED_SECRET_FLAG.finditer(text, start, len(text) if end is None else end):
        yield m
        if (m.group("sq") or m.group("dq")) and has(m.group("value"), "--"):   # (each level shorter: it ends)
            yield from _printed_flags(text, m.start("value"), m.end("value"))


def _flag_verdict(flag: str, value: str, kept: "_KeptFlagValues") -> tuple[int, str, bool] | None:
    """None where a secret flag match's value stays wherever it is (the flag is no secret's, the value is kept or the
    flag's metavar); else what the match's place still decides with: the characters cut off the value's end, the value
    without them, whether the flag takes a list of keys. The flag and value alone decide: worked out once a call."""
    if not _secret_flag_cached(flag) or kept[value]:
        return None
    stripped = value.rstrip(",;)]}")
    if stripped == _metavar(flag):
        return None
    return len(value) - len(stripped), stripped, _takes_key_list(flag)


def _printed_flag_spans(text: str) -> list[Span]:
    """Values of secret flags in printed command lines (PRINTED_SECRET_FLAG, TOOL_SHORT_FLAG, TOOL_LOGIN_VALUE,
    CONFIG_SET_VALUE); each pattern is led by a literal and reads a bounded stretch after it. A tool's name is looked
    for once over the text (where one of its flags is), then by bisection per flag. A match's flag and value are
    judged once a call (_flag_verdict; a log repeats its command lines): what is left a match is its place's."""
    spans: list[Span] = []
    kept = _KeptFlagValues()
    quoted = "'" in text or '"' in text
    verdicts: dict[tuple[str, str], tuple[int, str, bool] | None] = {}
    # (with no quote in the text no value is quoted, so no flag is read inside one: the matches alone)
    for m in _printed_flags(text) if quoted else PRINTED_SECRET_FLAG.finditer(text):
        flag, value, gap = m.group("flag", "value", "gap")
        key = (flag, value)
        verdict = verdicts[key] if key in verdicts else verdicts.setdefault(key, _flag_verdict(flag, value, kept))
        if verdict is None:
            continue
        cut, stripped, key_list = verdict
        if flag == "secret" and names_a_gcloud_secret(text, m.start(), value.rstrip(",;)]}\\")):
            continue   # gcloud secrets versions access latest --secret db_name: the secret's name
        if gap is not None and len(gap) > ALIGNED_FLAG_GAP and not (
                LINE_END_AFTER_VALUE.match(text, m.end()) and _secret_shaped(stripped)):
            continue
        spans.append((m.start("value"), m.end() - cut, REDACTED, "secret-named value", m.start()))
        if key_list:
            spans += _nargs_spans(text, m.end(), m.start(), kept)
    tool_places: dict[str, list[int]] = {}
    for m in (TOOL_SHORT_FLAG if quoted else TOOL_SHORT_FLAG_BARE).finditer(text):
        flag, sep = m.group("flag", "sep")
        tools, glued, after = TOOL_SHORT_FLAGS[flag]
        if not sep and not glued and not (quoted and (m.group("sq") or m.group("dq"))):
            continue
        where = tool_places.get(flag)
        if where is None:
            where = tool_places[flag] = ([t.end() for t in tools.finditer(text)]
                                         if any(literal in text for literal in TOOL_SHORT_FLAG_LITERALS[flag]) else [])
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
    if has(text, "login"):
        spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                     for m in TOOL_LOGIN_VALUE.finditer(text) if not kept[m.group("value")])
        if has(text, "password-stdin"):  # (`echo ... | docker login`)
            spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                         for m in ECHO_TO_STDIN.finditer(text) if not kept[m.group("value")])
    if has_any(text, ("mc alias set", "config host add")):
        spans.extend((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                     for m in MC_ALIAS.finditer(text) if not kept[m.group("value")])
    if "put-parameter" in text:
        for m in PUT_PARAMETER_VALUE.finditer(text):
            line_end = text.find("\n", m.end())
            line = text[text.rfind("\n", 0, m.start()) + 1:line_end if line_end >= 0 else len(text)]
            named = PUT_PARAMETER_NAME.search(line)
            if ("SecureString" in line or (named is not None and _secret_name_cached(named.group("name").rsplit("/", 1)[-1]))) and (
                    not kept[m.group("value")]):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    for m in CONFIG_SET_VALUE.finditer(text):
        if _secret_name_cached(m.group("name")) and not kept[m.group("value")]:
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    if has(text, '"value"') and has(text, "/secrets/"):   # (a quote first: plain log lines hold none)
        spans += _secret_json_value_spans(text)
    return spans


# A secret store's JSON on one line (`az keyvault secret show` printed compact, a job logging it): `"value": "X"` where
# the same line's `"id"` is a secret's URL (`https://kv.vault.azure.net/secrets/db/1`)
SECRET_JSON_ID = re.compile(r"\"id\"[ \t]{0,4}:[ \t]{0,4}\"[^\"\n]{0,512}/secrets/")
SECRET_JSON_VALUE = re.compile(r"\"value\"[ \t]{0,4}:[ \t]{0,4}\"(?P<value>(?:[^\"\\\n]|\\.){1,4096})\"")


def _secret_json_value_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    at = text.find("/secrets/")
    while at >= 0:
        start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
        end = len(text) if end < 0 else end
        if SECRET_JSON_ID.search(text, start, end) is not None:
            found = [m for m in SECRET_JSON_VALUE.finditer(text, start, end)]
            if not found and (m := _pretty_sibling_value(text, start, end)) is not None:
                found = [m]
            spans += [(m.start("value"), m.end("value"), REDACTED, "secret-named value", start)
                      for m in found if not cannot_be_secret(m.group("value"))]
        at = text.find("/secrets/", end)
    return spans


PRETTY_JSON_LINES = 64   # lines after a pretty-printed secret's "id" its "value" may be on (a stream holds as many)


def _pretty_sibling_value(text: str, start: int, end: int) -> re.Match[str] | None:
    """`az keyvault secret show` pretty-printed: the `"value": "X"` line after the `"id"` line (start, end) at its indent
    (the same object's key: keys are sorted, `value` after `id`), before a line less indented (the object's end)."""
    indent = len(text[start:end]) - len(text[start:end].lstrip(" \t"))
    at = end + 1
    for _ in range(PRETTY_JSON_LINES):
        if at >= len(text):
            return None
        line_end = text.find("\n", at)
        line_end = len(text) if line_end < 0 else line_end
        content = text[at:line_end].lstrip(" \t")
        depth = line_end - at - len(content)
        if depth < indent and content.strip():
            return None
        if depth == indent and content.startswith('"value"'):
            return SECRET_JSON_VALUE.match(text, at + depth, line_end)
        at = line_end + 1
    return None


# Database statements and protocols, read on the lower-cased text: SQL's `IDENTIFIED BY 'X'` (MySQL; Oracle's bare
# `IDENTIFIED BY X`), `[WITH|LOGIN|ENCRYPTED] PASSWORD 'X'` (PostgreSQL's ALTER/CREATE USER|ROLE, also in its
# `LOG:  statement:` lines), `PASSWORD('X')`; Redis's `AUTH [user] X` typed at a prompt, as MONITOR prints it
# (`"AUTH" "X"`) and on the wire (`*2\r\n$4\r\nAUTH\r\n$N\r\nX\r\n`, raw or escaped); MongoDB's `pwd: 'X'` beside a
# user, `db.auth('u', 'X')`, `changeUserPassword('u', 'X')`.
SQL_IDENTIFIED_BY = re.compile(r"identified(?<![\w-]identified)(?:[ \t]{1,4}with[ \t]{1,4}[\w-]{1,64})?[ \t]{1,4}by"
                               r"(?:[ \t]{1,4}password)?[ \t]{1,4}(?:(?P<q>['\"])(?P<quoted>[^'\"\n]{1,512})(?P=q)"
                               r"|(?!password(?![^\s'\";]))(?P<value>[^\s'\";]{1,512}))")
SQL_ACCOUNT_WORDS = ("user", "role", "login", "grant", "connect", "schema")
# (also `SET PASSWORD FOR app = 'X'`, SQL Server's `WITH PASSWORD = N'X'`, PostgreSQL's dollar quotes `PASSWORD $$X$$`)
SQL_PASSWORD = re.compile(r"password(?<![\w-]password)(?:[ \t]{1,4}for[ \t]{1,4}[^\s=;]{1,128}[ \t]{0,4}=[ \t]{0,4}"
                          r"|(?<=with password)[ \t]{0,4}=[ \t]{0,4}|[ \t]{0,4}=[ \t]{0,4}(?=n')|[ \t]{1,4}|[ \t]{0,4}\([ \t]{0,4})"
                          r"(?:[en]?'(?P<value>[^'\n]{1,512})'|\$\$(?P<dollar>[^$\n]{1,512})\$\$)")
# (the user and the password bare or quoted: redis-cli takes `AUTH "X"` and `AUTH default 'X'`)
REDIS_AUTH_LINE = re.compile(r"auth(?<![\w-]auth)[ \t]{1,4}(?:(?:\"[^\"\n]{1,128}\"|'[^'\n]{1,128}'|[^\s\"']{1,128})[ \t]{1,4})?"
                             r"(?:\"(?P<dq>[^\"\n]{1,512})\"|'(?P<sq>[^'\n]{1,512})'|(?P<value>[^\s\"']{1,512}))"
                             r"[ \t]{0,16}(?=\r?\n|\Z)")
REDIS_PROMPT = re.compile(r"[ \t]{0,16}(?:[\w.:\[\]-]{0,128}(?:\[[0-9]{1,2}\])?> ?)?")
QUOTED_ARGUMENT = r"\"(?P<{}>(?:[^\"\\\n]|\\.){{1,512}})\""
REDIS_MONITOR_AUTH = re.compile(r"(?:(?<=\] )|(?<=^)|(?<=\n))\"auth\" " + QUOTED_ARGUMENT.format("first") + r"(?: " + QUOTED_ARGUMENT.format("second")
                                + r")?")
REDIS_WIRE_AUTH = re.compile(r"\*[23](?P<nl>\\r\\n|\r\n)\$4(?P=nl)auth(?P=nl)\$[0-9]{1,4}(?P=nl)(?P<first>[^\r\n\\]{1,512})"
                             r"(?:(?P=nl)\$[0-9]{1,4}(?P=nl)(?P<second>[^\r\n\\]{1,512}))?")
# Redis's other password forms (lower-cased text): `CONFIG SET requirepass|masterauth X` and redis.conf's `requirepass X`
# (MONITOR's `"requirepass" "X"` too), `ACL SETUSER app on >X`, `HELLO 3 AUTH user X` (MONITOR's quoted words too),
# redis-py's `('AUTH', 'X')` / `[b'AUTH', b'default', b'X']`
REDIS_CONFIG_PASSWORD = re.compile(r"(?:requirepass|masterauth)(?<![\w-]requirepass)(?<![\w-]masterauth)[\"']?[ \t]{1,8}"
                                   r"(?:\"(?P<dq>[^\"\n]{1,512})\"|'(?P<sq>[^'\n]{1,512})'|(?P<value>[^\s\"']{1,512}))")
REDIS_VALUE_ENDS = re.compile(r"[\"']?[ \t]*(?:#|\r?\n|\Z)")
REDIS_ACL_PASSWORD = re.compile(r"(?<=[ \t])>(?P<value>[^\s\"']{1,512})")
REDIS_HELLO_AUTH = re.compile(r"hello[\"']?[ \t]{1,4}[\"']?[0-9][\"']?[ \t]{1,4}[\"']?auth[\"']?[ \t]{1,4}[\"']?[^\s\"']{1,128}[\"']?"
                              r"[ \t]{1,4}[\"']?(?P<value>[^\s\"']{1,512})")
IMAP_STATES = {"NONAUTH", "AUTH", "SELECTED", "LOGOUT"}
# Mail and file protocols' debug traces (case as sent; each read only where its command word is in the text): IMAP's
# `a1 LOGIN bob X` (a tag holding a digit first: imaplib, openssl s_client, `C: ` transcripts), FTP's `---> PASS X`
# (ftp -d; curl -v's `> PASS X`, a `C: ` transcript), SMTP's and IMAP's `AUTH PLAIN <base64>` (smtplib's debug `send:`)
IMAP_LOGIN = re.compile(r" LOGIN (?:\"[^\"\n]{1,128}\"|[^\s\"']{1,128}) "
                        r"(?:\"(?P<quoted>[^\"\n]{1,512})\"|(?P<value>[^\s\"']{1,512}))")
IMAP_TAG_REVERSED = re.compile(r"[A-Za-z0-9.]{1,16}(?![^\s'\"])")   # (the tag, read back from ` LOGIN`)
FTP_PASS = re.compile(r"PASS (?:(?<=> PASS )|(?<=C: PASS ))(?P<value>[^\s'\"]{1,512})")
AUTH_BASE64 = re.compile(r"AUTH(?:ENTICATE)? (?:PLAIN|XOAUTH2|OAUTHBEARER|LOGIN) (?P<value>[A-Za-z0-9+/]{12,8192}={0,2})(?![\w+/=])")
REDIS_PY_AUTH = re.compile(r"b?'auth',[ \t]{0,2}b?'(?P<first>[^'\n]{1,512})'(?:,[ \t]{0,2}b?'(?P<second>[^'\n]{1,512})')?")
MONGO_PWD = re.compile(r"pwd(?<![\w$.-]pwd)['\"]?[ \t]{0,4}:[ \t]{0,4}(?P<q>['\"])(?P<value>[^'\"\n]{1,512})(?P=q)")
MONGO_AUTH_CALL = re.compile(r"(?:(?<=db\.auth)|(?<=changeuserpassword))\([ \t]{0,4}(?P<q1>['\"])[^'\"\n]{1,128}(?P=q1)"
                             r"[ \t]{0,4},[ \t]{0,4}(?P<q>['\"])(?P<value>[^'\"\n]{1,512})(?P=q)")


# SQLAlchemy's echo (and its errors): a statement with positional placeholders (`?`, `%s`, `$1`), then its parameters
# as a Python tuple or list on the next line: `[generated in 0.00012s] ('alice', 'X')`, `[cached since 3.1s ago] (...)`,
# `[no key 0.0001s] (...)`, `[parameters: ('alice', 'X')]`; executemany's `[(...), (...)]`. The value in the place of a
# secret-named column (`INSERT INTO users (name, password) VALUES (?, ?)`, `SET password=?`, `WHERE x.token = ?`) goes.
SQL_PARAMS_GATES = ("] (", "] [(", "[parameters: (", "[parameters: [(")
SQL_PARAMS = re.compile(r"\[(?:parameters:|(?:generated in|cached since|no key|raw sql|dialect|insertmanyvalues)[^\]\n]{0,160}\])"
                        r"[ \t]{0,4}(?=[(\[])")
SQL_STATEMENT = re.compile(r"(?<![\w-])(?:INSERT|UPDATE|SELECT|DELETE|REPLACE|UPSERT)(?![\w-])")
SQL_STATEMENT_REACH = 65536   # how far above its parameters a statement is looked for (a long column list: 8 KiB and more)
SQL_INSERT_COLUMNS = re.compile(r"INTO[ \t\r\n]{1,8}[\w.\"`\[\]]{1,256}[ \t\r\n]{0,8}\((?P<columns>[^()]{1,65536})\)[ \t]{0,8}"
                                r"(?:\r?\n[^\n()]{0,200}?)?(?:OUTPUT[^()]{0,512}?)?VALUES[ \t\r\n]{0,8}")
SQL_PLACEHOLDER = re.compile(r"\?|%s|\$(?P<number>[0-9]{1,4})(?![0-9])|(?P<open>\()|(?P<close>\))")
SQL_COMPARED_NAME = re.compile(r"(?P<name>[\w\"`\[\]]{1,128})[ \t]{0,4}(?:=|==|!=|<>|LIKE|like)[ \t]{0,4}\(?[ \t]{0,4}\Z")
SQL_PARAM_TOKEN = re.compile(r"'(?:[^'\\\n]|\\.){0,8192}'|\"(?:[^\"\\\n]|\\.){0,8192}\"|[(\[]|[)\]]|,|[^,()\[\]'\"\n]{1,256}")
# a statement line that ends with a placeholder (its parameters come on the next line): a stream holds it back
SQL_PLACEHOLDER_ENDS_LINE = re.compile(r"(?:\?|%s|\$[0-9]{1,4})[ \t]{0,4}(?:\)[ \t]{0,4}){0,2}"
                                       r"(?:,[ \t]{0,4}\((?:[^()\n]{0,64})\)){0,64}[ \t]{0,4}\]?[ \t]{0,4}\r?\n\Z")


def sql_statement_hold(text: str, start: int, end: int) -> int:
    """Where a stream holds a statement whose line (text[start:end]) ends with a positional placeholder, its
    parameters still to come: the start of the line its statement begins on (within SQL_STATEMENT_REACH); `end` where
    the line is no such line."""
    if not ("?" in text[start:end] or "%s" in text[start:end] or "$" in text[start:end]):
        return end
    if SQL_PLACEHOLDER_ENDS_LINE.search(text, max(start, end - 4096), end) is None:
        return end
    statement_at = None
    for statement_at in SQL_STATEMENT.finditer(text, max(0, start - SQL_STATEMENT_REACH), end):
        pass
    return end if statement_at is None else text.rfind("\n", 0, statement_at.start()) + 1


# SQLAlchemy's own mark before a statement it prints: its logger's name (`sqlalchemy.engine.Engine SELECT`, echo=True),
# an error's class (`sqlalchemy.exc.IntegrityError: ...` then `[SQL: INSERT ...`)
SQL_ECHO_MARK = "sqlalchemy"
SQL_ECHO_MARK_REACH = 4096   # how far after its mark a statement is looked for


def sql_statement_open(text: str, start: int, end: int) -> int:
    """Where a stream holds a statement SQLAlchemy printed over lines whose parameters have not come yet (its last
    line, text[start:end], ends no placeholder line: sql_statement_hold): the start of the statement's first line,
    within SQL_STATEMENT_REACH and after SQLAlchemy's mark (SQL_ECHO_MARK); `end` where there is none."""
    mark = text.rfind(SQL_ECHO_MARK, max(0, end - SQL_STATEMENT_REACH), end)
    if mark < 0:
        return end
    statement_at = SQL_STATEMENT.search(text, mark, min(end, mark + SQL_ECHO_MARK_REACH))
    if statement_at is None or SQL_PARAMS.search(text, statement_at.end(), end) is not None:
        return end
    return text.rfind("\n", 0, statement_at.start()) + 1


def _sql_column(name: str) -> str:
    return name.strip().strip("\"`[]").rsplit(".", 1)[-1].strip("\"`[]")   # (`(name, pw)`: " pw" is column pw)


def _sql_placeholder_columns(statement: str) -> list[str]:
    """The column each positional placeholder of a statement stands for, in order ("" where none is named); a `$N`
    placeholder counts as its number says."""
    columns: list[str] = []
    insert = SQL_INSERT_COLUMNS.search(statement)
    names = [_sql_column(c) for c in insert.group("columns").split(",")] if insert else []
    values_at = insert.end() if insert else -1
    depth, index = 0, 0   # (inside VALUES: the tuple's depth and the placeholder's place in it)
    after_values = 0   # (the brackets opened and not closed after VALUES: counted as read, not counted again each time)
    numbered: dict[int, str] = {}
    for m in SQL_PLACEHOLDER.finditer(statement):
        if m.group("open") is not None:
            depth += 1
            after_values += values_at >= 0 and m.start() >= values_at
            if depth == 1:
                index = 0
            continue
        if m.group("close") is not None:
            depth = max(0, depth - 1)
            after_values -= values_at >= 0 and m.start() >= values_at
            continue
        column = ""
        if values_at >= 0 and m.start() > values_at and depth == 1 and after_values > 0 and index < len(names):
            column = names[index]
        else:
            compared = SQL_COMPARED_NAME.search(statement, max(0, m.start() - 160), m.start())
            if compared is not None:
                column = _sql_column(compared.group("name"))
        index += 1 if depth == 1 else 0
        if m.group("number") is not None:
            numbered[int(m.group("number"))] = column
        else:
            columns.append(column)
    if numbered:
        columns = [numbered.get(n, "") for n in range(1, max(numbered) + 1)]
    return columns


def _sql_param_sets(text: str, start: int, end: int) -> list[list[tuple[int, int]]]:
    """The parameter sets printed from `start` to `end` (a tuple, or a list of tuples): each a list of the values'
    places (a string's inside its quotes; (-1, -1) for any other value)."""
    sets: list[list[tuple[int, int]]] = []
    stack: list[list[tuple[int, int]]] = []
    value: tuple[int, int] | None = None
    for m in SQL_PARAM_TOKEN.finditer(text, start, end):
        token = m.group()
        if token in "([":
            stack.append([])
            value = None
        elif token in ")]":
            if not stack:
                break
            if value is not None:
                stack[-1].append(value)
            done = stack.pop()
            value = (-1, -1)
            if not stack:
                if not sets or done and not isinstance(done[0], list):
                    sets.append(done)
                break
            if len(stack) == 1 and token == ")":
                sets.append(done)   # (one set of executemany's list)
                value = None
        elif token == ",":
            if stack and value is not None:
                stack[-1].append(value)
            value = None
        elif token[0] in "'\"":
            value = (m.start() + 1, m.end() - 1)
        elif token.strip():
            value = (-1, -1)
    return sets


def _sqlalchemy_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    floor = 0   # (the end of the last parameters' line: a statement is looked for below it only, so each is read once)
    for m in SQL_PARAMS.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        region_start = max(floor, line_start - SQL_STATEMENT_REACH)
        floor = max(floor, line_start)
        statement_at = None
        for statement_at in SQL_STATEMENT.finditer(text, region_start, line_start):
            pass
        if statement_at is None:
            continue
        statement = text[statement_at.start():line_start]
        if SQL_PARAMS.search(statement) is not None:
            continue   # (that statement's parameters were printed already)
        columns = _sql_placeholder_columns(statement)
        if not any(column and _secret_name_cached(column) for column in columns):
            continue
        line_end = text.find("\n", m.end())
        for params in _sql_param_sets(text, m.end(), len(text) if line_end < 0 else line_end):
            for (start, end), column in zip(params, columns):
                if start >= 0 and column and _secret_name_cached(column) and not cannot_be_secret(text[start:end]):
                    spans.append((start, end, REDACTED, "secret-named value", m.start()))
    return spans


def _protocol_trace_spans(text: str) -> list[Span]:
    """IMAP's LOGIN, FTP's PASS and a SASL exchange's base64 (IMAP_LOGIN, FTP_PASS, AUTH_BASE64), each read only where
    its command word is in the text."""
    spans: list[Span] = []
    if has(text, " LOGIN "):
        for m in IMAP_LOGIN.finditer(text):
            tag = IMAP_TAG_REVERSED.match(text[max(0, m.start() - 17):m.start()][::-1])
            if tag is not None and any(c.isdigit() for c in tag.group(0)):
                spans += [(m.start(g), m.end(g), REDACTED, "command-line password", m.start()) for g in ("quoted", "value")
                          if m.group(g) is not None and not cannot_be_secret(m.group(g))]
    if has(text, "PASS "):
        spans += [(m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                  for m in FTP_PASS.finditer(text) if m.group("value").strip("*")]
    if has(text, "AUTH"):
        spans += [(m.start("value"), m.end("value"), REDACTED, "command-line password", m.start())
                  for m in AUTH_BASE64.finditer(text) if not m.group("value").isupper()]
    return spans


def _database_spans(text: str, lower: str) -> list[Span]:
    """Passwords in database statements and protocols (the patterns above); each pattern is led by its literal and
    runs only where that literal is in the text."""
    spans: list[Span] = []

    def add(m: re.Match[str], group: str) -> None:
        if text[m.start(group):m.end(group)] != "\\" and not cannot_be_secret(text[m.start(group):m.end(group)]):
            # (`'\''`: bash's quoted quote around the value, read in Redactor._shell_unquoted_spans' view)
            spans.append((m.start(group), m.end(group), REDACTED, "secret-named value", m.start()))

    if has(lower, "identified"):
        for m in SQL_IDENTIFIED_BY.finditer(lower):
            statement = lower[max(0, m.start() - 300):m.start()]   # (its statement names a user: prose's "a GPU identified
            statement = statement[statement.rfind(";") + 1:]        # by PCI bus id" stays)
            if any(word in statement for word in SQL_ACCOUNT_WORDS) or m.group("quoted") is not None and (
                    "'" in statement or "@" in statement):
                add(m, "quoted" if m.group("quoted") is not None else "value")
    if ("'" in text or "$$" in text) and has(lower, "password"):
        for m in SQL_PASSWORD.finditer(lower):
            add(m, "value" if m.group("value") is not None else "dollar")
    has_auth = has(lower, "auth")   # (Redis's forms below that hold "auth" are looked for only then)
    if has_auth:
        for m in REDIS_AUTH_LINE.finditer(lower):
            line_start = lower.rfind("\n", max(0, m.start() - 160), m.start()) + 1
            typed = text[m.start():m.start() + 4] == "AUTH" or lower[line_start:m.start()].rstrip().endswith(">")
            if typed and REDIS_PROMPT.fullmatch(lower, line_start, m.start()) is not None:
                add(m, "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "value")
        if has(lower, '"auth"'):
            for m in REDIS_MONITOR_AUTH.finditer(lower):
                add(m, "second" if m.group("second") is not None else "first")
        if has(text, "$4"):
            for m in REDIS_WIRE_AUTH.finditer(lower):
                add(m, "second" if m.group("second") is not None else "first")
    if ("q" in lower and "requirepass" in lower) or (has_auth and "masterauth" in lower):   # (a character first: memchr)
        for m in REDIS_CONFIG_PASSWORD.finditer(lower):
            before = lower[lower.rfind("\n", max(0, m.start() - 256), m.start()) + 1:m.start()].rstrip(" \t\"'")
            if (not before or before.endswith(("config set", '"set'))) and REDIS_VALUE_ENDS.match(lower, m.end()):
                # (a config line, CONFIG SET, MONITOR's; the value ends its line: prose's `requirepass is not set` stays)
                add(m, "dq" if m.group("dq") is not None else "sq" if m.group("sq") is not None else "value")
    if ">" in lower and "setuser" in lower:   # (ACL's passwords follow a ">": a character first)
        at = lower.find("setuser")
        while at >= 0:
            end = lower.find("\n", at)
            end = len(lower) if end < 0 else end
            for m in REDIS_ACL_PASSWORD.finditer(lower, at, end):
                add(m, "value")
            at = lower.find("setuser", end)
    if has_auth and "hello" in lower:
        for m in REDIS_HELLO_AUTH.finditer(lower):
            add(m, "value")
    if has_auth and "'auth'" in lower:
        for m in REDIS_PY_AUTH.finditer(lower):
            group = "second" if m.group("second") is not None else "first"
            if text[m.start(group):m.end(group)] in IMAP_STATES:
                continue   # imaplib's ('AUTH', 'SELECTED'): its command table names states, not a password
            add(m, group)
    spans += _protocol_trace_spans(text)
    if has(lower, "pwd"):
        for m in MONGO_PWD.finditer(lower):
            line_start = lower.rfind("\n", max(0, m.start() - 300), m.start()) + 1
            line_end = lower.find("\n", m.end(), m.end() + 300)
            if "user" in lower[line_start:m.start()] or "user" in lower[m.end():line_end if line_end >= 0 else m.end() + 300]:
                add(m, "value")
    if "(" in text and has_any(text, SQL_PARAMS_GATES):
        spans += _sqlalchemy_spans(text)
    if has_any(lower, ("db.auth", "changeuserpassword")):
        for m in MONGO_AUTH_CALL.finditer(lower):
            add(m, "value")
    return spans
