"""Printed command lines read as the workload's own argv is read: a `bash -x` trace line (`+ cmd ...`, `++ ...`,
also behind a log prefix), a prompt (`$ cmd`, zsh's `% cmd`, starship's `❯ cmd`), GitHub Actions' `Run cmd`, docker
build's `RUN cmd`, sudo's log `COMMAND=cmd`, `Running: cmd`, `Executing: cmd`, `Command: cmd`, `cmd: ...`, and
a line that starts with a Windows login tool (`NET USE`, `psexec`, `xfreerdp`). The line's shell words (quotes
taken off, each character's place kept) go through argv_secret_pieces, command by command (split at `;` `|` `&`),
so a printed line hides what the argv reading hides; and what a shell feeds a password-reading command: a
here-string (`chpasswd <<< bob:X`, `--vault-password-file /dev/stdin <<< X`), `echo X | sudo -S`, a secret file
flag given a process substitution (`--password-file=<(echo X)`)."""

from __future__ import annotations

import functools
import re

from .argv import argv_secret_pieces
from .commands import _printed_flag_value_kept
from .names import EXPANSION_MESSAGE, cannot_be_secret, is_secret_flag, looks_like_password, name_words
from .spans import REDACTED, Span, has, has_any

# Where a printed command starts on its line, each mark led by its literal (the scan skips to it) and checked in C
# against the character before it, then against its line's prefix: a `+`-run at the line's start or behind a log prefix
# (`[rank0]: `, `2026-11-23 10:00:00 `, `job | `, a repr's or a list's quote), a `$ ` prompt (`user@host:~/x$ `,
# `(venv) $ `), a `> ` prompt (`PS C:\x> `, `redis> `, `mysql> `), and the words anywhere (`INFO Running: cmd`).
# (and a `+`-run after a log level's word behind a time: `2026-11-24 03:00:01 INFO + sudo -S true`, TRACE_PREFIX)
LOG_LEVELS = ("INFO", "WARN", "WARNING", "DEBUG", "ERROR", "NOTICE", "TRACE", "info", "warn", "warning", "debug", "error")
TRACE_MARK = re.compile(r"\+(?:(?<![^\n\]:|>'\"\[(\t]\+)|(?<=[\]:|>'\"\[(0-9 ] \+)|"
                        + "|".join(rf"(?<={level} \+)" for level in LOG_LEVELS) + r")\+{0,7} ")
DOLLAR_MARK = re.compile(r"\$(?:(?<![^\n]\$)|(?<=[\w~/)\]]\$)|(?<=[\w~/)\]] \$)) ")
ANGLE_MARK = re.compile(r">(?<=[\w\\)\]]>) ")
WORD_MARK = re.compile(r":(?:(?<=[Rr]unning:)|(?<=RUNNING:)|(?<=[Ee]xecuting:)|(?<=EXECUTING:)|(?<=[Cc]ommand:)"
                       r"|(?<=COMMAND:)|(?<=[Cc]md:)|(?<=CMD:)|(?<=[Ee]xec:)|(?<=[Rr]un:))[ \t]{1,4}")
TRACE_PREFIX = re.compile(r"[ \t]{0,16}(?:[\[(][ \t]{0,4})?(?:[bu]?['\"])?|.{0,120}(?:[\]:|>][ \t]{1,4}|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?Z?[ \t]{1,4}"
                          r"(?:(?:" + "|".join(LOG_LEVELS) + r")[ \t]{1,4})?|(?:" + "|".join(LOG_LEVELS) + r")[ \t]{1,4})")
DOLLAR_PREFIX = re.compile(r"[ \t]{0,16}(?:\([\w.-]{1,64}\)[ \t]{0,2})?(?:\[[^\]\n$]{1,128}\]|[^\s$>]{0,200})")
# (a root prompt: `root@box:/# `, `[root@node-01 run]# `; a `#` after anything else is a comment)
HASH_MARK = re.compile(r"#(?<=[\w~/)\]]#) ")
HASH_PREFIX = re.compile(r"[ \t]{0,16}(?:\[[\w.-]{1,64}@[^\]\n]{1,128}\]|[\w.-]{1,64}@[\w.-]{1,64}:[^\s#]{0,200})")
# Other prompts and logs that print a command (rt9 R5), each led by its literal: zsh's `% ` (`host% `, `alice@box run % `;
# not after a digit: `50% `), starship's `❯ ` at a line's start, GitHub Actions' `Run ` (`##[group]Run `, behind its
# timestamp), docker build's `#7 [3/5] RUN ` and `Step 3/5 : RUN `, sudo's log `...; USER=root ; COMMAND=/usr/bin/x`
PERCENT_MARK = re.compile(r"%(?<![0-9%]%) ")
PERCENT_PREFIX = re.compile(r"[ \t]{0,16}(?:\([\w.-]{1,64}\)[ \t]{0,2})?(?:[\w.-]{1,64}@[\w.-]{1,64}(?:[ \t:][^\s%]{1,200})?[ \t]?"
                            r"|[A-Za-z_][\w.-]{0,63}|\[[^\]\n%]{1,128}\][ \t]?)?")
STARSHIP_MARK = re.compile(r"\u276f ")
LINE_START_PREFIX = re.compile(r"[ \t]{0,16}")
ACTIONS_RUN_MARK = re.compile(r"Run ")
ACTIONS_RUN_PREFIX = re.compile(r"[ \t]{0,16}(?:[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{8,20}Z[ \t]{1,4})?(?:##\[group\])?")
DOCKER_RUN_MARK = re.compile(r"RUN ")
DOCKER_RUN_PREFIX = re.compile(r"[ \t]{0,16}(?:#[0-9]{1,5}[ \t]{1,4}(?:[0-9.]{1,12}[ \t]{1,4})?\[[^\]\n]{1,64}\]"
                               r"|Step[ \t][0-9]{1,5}/[0-9]{1,5}[ \t]:)[ \t]")
SUDO_MARK = re.compile(r"COMMAND=")
SUDO_PREFIX = re.compile(r".{0,200}USER=[^;\n]{1,64};[ \t]{1,4}")
ANGLE_PREFIX = re.compile(r"[ \t]{0,16}(?:PS[ \t][^\n>]{0,200}|[\w.:\[\]-]{1,64})")
# Windows login tools whose printed line is a command even with no mark before it (and PowerShell's
# `ConvertTo-SecureString "X" -AsPlainText`); tools given a password whose line make prints bare as a recipe (`lftp -u
# bob,X`, `npm config set //registry/:_authToken X`, `poetry config http-basic.corp bob X`, `twine upload -p X`)
# Unix tools given a password on their command line, whose lines scripts and make print bare (`rabbitmqctl add_user bob X`,
# `htpasswd -b -c FILE admin X`, `mysql -pX`, `sqlplus scott/X@db`), read as argv from their name at a line's start
UNIX_LINE_TOOLS = ("rabbitmqctl", "rabbitmqadmin", "htpasswd", "useradd", "usermod", "mysqladmin", "mysqldump", "mysql",
                   "mariadb", "mongosh", "mongodump", "mongorestore", "mongo", "ipmitool", "redis-cli", "keydb-cli", "sshpass",
                   "7za", "7z", "zip", "unzip", "rar", "unrar", "sqlcmd", "bcp", "isql", "hdbsql", "cqlsh", "influx",
                   "ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "mosquitto_pub",
                   "mosquitto_sub", "sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "keytool", "jarsigner",
                   "snmpwalk", "snmpget", "snmpset", "snmpbulkwalk", "snmpbulkget", "wpa_passphrase", "nmcli", "db2",
                   "iscsiadm", "pdftk", "qpdf", "winrs", "rclone", "ssh-keygen")
# (not curl, wget, gpg, openssl, vault, kinit, smbclient: their passwords bare are the text rules' already, and their own
# messages start with their names, `curl: (7) Failed to connect`, `gpg: using RSA key ...`)
# Such a line is found from its line's start (one scan led by the newline, so plain text pays one try a line), bare or
# behind a rank's `[rank0]: `, a time (and a level), compose's `api-1  | `, a prompt or `+ `, or opening a repr() or a
# JSON string (`'htpasswd ...'`), or a JSON record's message (read to its closing quote); and so is a password piped to a
# command that reads it on its stdin (`echo 'bob:X' | chpasswd`, `printf '%s\n' X | kinit bob@REALM`, `echo -e
# "X\nX" | passwd bob`, `echo X | sudo -S cmd`), read from its `echo` as a printed command is.
PIPED_TO_READER = (r"(?:(?:echo|printf)[ \t][^\n|;&]{1,512}|[({][ \t]{0,4}(?:echo|printf)[ \t][^\n|&(){}]{1,512}[)}][ \t]{0,4})"
                   r"\|[ \t]{0,4}(?:sudo[ \t]{1,4}-s(?![\w-])|(?:sudo[ \t]{1,4})?"
                   r"(?:/[\w/]{0,64}/)?(?:chpasswd|chgpasswd|kinit|passwd|smbpasswd[ \t]{1,4}-s)(?![\w-]))")
_TOOLS_BY_LETTER: dict[str, list[str]] = {}
for _tool in (*UNIX_LINE_TOOLS, "net user", "net.exe user"):
    _TOOLS_BY_LETTER.setdefault(_tool[0], []).append(re.escape(_tool[1:]).replace(r"\ ", r"[ \t]{1,4}"))
# (the names grouped by their first letter: a line's start that is none of them fails at its first character)
UNIX_TOOL = (r"(?P<tool>(?:" + "|".join(f"{re.escape(c)}(?:{'|'.join(rest)})" for c, rest in _TOOLS_BY_LETTER.items())
             + r")[ \t](?=[ \t]{0,3}[^\s(=:])|" + PIPED_TO_READER + ")")   # (a name, then its arguments: not `zip(a, b)`, `mysql: x`)
# (its blank runs and its word before a bar possessive: what follows each cannot start with what it gives back, so no
# match is lost, and a line's indent is not split between the two blank runs at every line break)
_UNIX_LINE_BODY = (r"[ \t]{0,16}+(?:\[[^\]\n]{1,64}\]:?[ \t]{1,4}|[0-9]{4}-[0-9]{2}-[0-9]{2}[t ][0-9:.,]{8,18}(?:z|[+-][0-9:]{4,5})?"
                   r"[ \t]{1,4}(?:(?:info|debug|warning|warn|error|notice|trace)[ \t:]{1,4})?|[a-z0-9][\w.-]{0,62}+[ \t]{1,16}\|[ \t]"
                   r"|[bu]?(?P<q1>['\"]))?[ \t]{0,16}+"
                   r"(?:[$#%+]{1,8}[ \t]{1,4})?" + UNIX_TOOL)
UNIX_LINE = re.compile(r"\n" + _UNIX_LINE_BODY)
UNIX_FIRST_LINE = re.compile(_UNIX_LINE_BODY)
# (a JSON record's message: led by its key's quote, which plain log text seldom holds)
UNIX_JSON_MESSAGE = re.compile(r"\"(?:msg|message|log|text|line|event)\"[ \t]{0,4}:[ \t]{0,4}(?P<q2>\")" + UNIX_TOOL)
LINE_TOOLS = re.compile(r"(?:net(?:\.exe)?[ \t]{1,4}use|psexec(?:64)?(?:\.exe)?|xfreerdp3?|wlfreerdp|rdesktop|new-smbmapping"
                        r"|new-psdrive|cmdkey|helm|convertto-securestring|lftp|npm[ \t]{1,4}config|poetry[ \t]{1,4}config"
                        r"|twine[ \t]{1,4}upload|net(?:\.exe)?[ \t]{1,4}user)(?![\w-])")   # (lower-cased; at a line's start, checked after)
LINE_INDENT = 16
# (`$pw = ConvertTo-SecureString "X" -AsPlainText`: the cmdlet given to a PowerShell variable, a log prefix before it or not)
POWERSHELL_ASSIGNED = re.compile(r"(?:.{0,120}(?:[\]:|>][ \t]{1,4}|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?z?[ \t]{1,4}"
                                 r"(?:(?:info|debug|warning|warn|error|critical|trace|notice)[ \t:]{1,4})?))?[ \t]{0,16}"
                                 r"\$[\w:]{1,64}[ \t]{0,4}=[ \t]{0,4}")
# ... or behind a log prefix (`[rank0]: `, `2026-11-24 03:00:01 INFO `, `job | `), a prompt after it or not (lower-cased)
LINE_TOOL_PREFIX = re.compile(r".{0,120}(?:[\]:|>][ \t]{1,4}|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?z?[ \t]{1,4}"
                              r"(?:(?:info|debug|warning|warn|error|critical|trace|notice)[ \t:]{1,4})?)(?:[$#%][ \t]{1,4})?")
# What the argv reading can take a secret by, in a lower-cased command line: a secret word of a flag or a name
# (is_secret_flag's words, WEAK_SECRET_FLAGS'), a login, a short password flag of a tool (`-p`, `-a`, `-k`, `-w`,
# `-N`, `-u`, `-U`, `-P`, glued or not), `user@`/`%`/`,` logins, here-strings and process substitutions, FreeRDP's
# `/p:`, Oracle's `user/PASSWORD`, a bare hex key. A line with none of them is not tokenized (a Windows login
# tool's line always is).
ARGV_SIGNAL = re.compile(r"pass|pw|tok|secret|key|auth|cred|cookie|sig|otp|salt|jwt|session|priv|login|licen|sas|"
                         r"webhook|secur|bearer|hmac|pat\b|psk|mfa|sudo|stdin|<<<|<\(|@|%|,|/p:|/gp:|-[pakwnu]|sqlplus|sqlldr|expdp|"
                         r"impdp|rman|dgmgrl|\bexp\b|\bimp\b|[0-9a-f]{32}|http-basic|anaconda|add_user|net user|kinit|\busing\b|encrypt|iscsiadm")
MAX_PREFIX = 240         # how far before a mark its line's start is looked for
MAX_COMMAND_LINE = 8192   # what is read of one printed line
# reading a password from stdin: `--password-stdin`, `--with-token`, `passwd --stdin`, `sudo -S`, a secret flag given
# /dev/stdin or `-`
STDIN_FLAGS = frozenset({"--password-stdin", "--with-token", "--stdin", "--passphrase-fd"})
STDIN_FILES = frozenset({"/dev/stdin", "-", "/dev/fd/0", "/proc/self/fd/0"})
STDIN_TOOLS = frozenset({"chpasswd", "chgpasswd", "htpasswd", "kinit"})
# (passwd and smbpasswd -s read the new password, twice, on stdin when it is no terminal: `echo -e "X\nX" | passwd bob`)
STDIN_PASSWD_TOOLS = frozenset({"passwd", "smbpasswd"})
PROCESS_SUBSTITUTION = re.compile(r"(?P<flag>--?[A-Za-z][\w-]{0,63})(?:=|[ \t]{1,4})<\([ \t]{0,4}(?:echo|printf)"
                                  r"(?:[ \t]{1,4}-[neE]{1,3}|[ \t]{1,4}['\"]%s(?:\\n)?['\"]){0,4}[ \t]{1,4}"
                                  r"['\"]?(?P<value>[^\s'\")]{1,1024})")
REDIRECTION = re.compile(r"[<>]{1,2}&?")
ECHO_WORDS = frozenset({"echo", "printf"})


# A printed line's tokens: blanks, a plain run, a single-quoted ('...', $'...') or double-quoted piece (left open at
# the line's end, it runs to it), a backslash escape, a redirection or here-string, a command's end (; | & ( ))
SHELL_TOKEN = re.compile(r"(?P<blank>[ \t]+)|(?P<plain>[^\s'\"\\;|&()<>$]+|\$(?!'))|(?P<sq>\$?'[^'\n]*'?)"
                         r"|(?P<dq>\"(?:[^\"\\\n]|\\.)*\"?)|(?P<esc>\\.?)|(?P<op><<<|<\(|[<>]{1,2}&?)|(?P<sep>[;|&()]|\r)")
# (a Windows line: a backslash is a character like any other)
WINDOWS_TOKEN = re.compile(r"(?P<blank>[ \t]+)|(?P<plain>[^\s'\";|&()<>$]+|\$(?!'))|(?P<sq>\$?'[^'\n]*'?)"
                           r"|(?P<dq>\"[^\"\n]*\"?)|(?P<op><<<|<\(|[<>]{1,2}&?)|(?P<sep>[;|&()]|\r)")
DOUBLE_QUOTED_ESCAPE = re.compile(r"\\([\"\\$`])")


def _shell_words(line: str, offset: int, escapes: bool = True) -> list[list[tuple[str, list[int]]]]:
    """The simple commands of a printed line, each a list of (word, where each of its characters is in the text):
    blanks split words, quotes are taken off ('...', "..." with its backslashes, $'...'), `;` `|` `&` `(` `)` end a
    command; `<<<`, `<`, `>`, `2>&` stay words of their own (a process substitution `<(` stays in its word). A quote
    left open runs to the line's end. Without `escapes` (a Windows line: `\\\\srv\\share`) a backslash is a
    character like any other."""
    commands: list[list[tuple[str, list[int]]]] = [[]]
    chars: list[str] = []
    places: list[int] = []
    started = False
    for m in (SHELL_TOKEN if escapes else WINDOWS_TOKEN).finditer(line):
        kind = m.lastgroup
        start, end = m.span()
        if kind == "blank" or kind == "sep" or (kind == "op" and m.group() != "<("):
            if started:
                commands[-1].append(("".join(chars), places))
                chars, places, started = [], [], False
            if kind == "sep" and commands[-1]:
                commands.append([])
            elif kind == "op":
                commands[-1].append((m.group(), list(range(offset + start, offset + end))))
            continue
        started = True
        if kind == "plain" or kind == "op":
            chars.append(m.group())
            places.extend(range(offset + start, offset + end))
        elif kind == "sq":
            first = start + (2 if line[start] == "$" else 1)
            last = end - 1 if end - 1 >= first and line[end - 1] == "'" else end
            chars.append(line[first:last])
            places.extend(range(offset + first, offset + last))
        elif kind == "dq":
            last = end - 1 if end - 1 > start and line[end - 1] == '"' and (end - 2 == start or line[end - 2] != "\\"
                                                                             or not escapes) else end
            inner = line[start + 1:last]
            if escapes and "\\" in inner:
                at = start + 1
                for piece in DOUBLE_QUOTED_ESCAPE.finditer(inner):
                    chars.append(line[at:start + 1 + piece.start()] + piece.group(1))
                    places.extend(range(offset + at, offset + start + 1 + piece.start()))
                    places.append(offset + start + 1 + piece.start(1))
                    at = start + 1 + piece.end()
                chars.append(line[at:last])
                places.extend(range(offset + at, offset + last))
            else:
                chars.append(inner)
                places.extend(range(offset + start + 1, offset + last))
        elif kind == "esc" and end - start == 2:
            chars.append(line[start + 1])
            places.append(offset + start + 1)
    if started:
        commands[-1].append(("".join(chars), places))
    return [command for command in commands if command]


def _reads_secret_from_stdin(words: list[str]) -> str | None:
    """How a command reads a secret on its stdin: "whole" (the input is the secret), "after-colon" (chpasswd's
    user:PASSWORD), or None."""
    base = words[0].rpartition("/")[2].lower() if words else ""
    if base == "sudo" and len(words) > 1 and not any(w.startswith("-") for w in words[1:]):
        words = words[1:]   # (`| sudo chpasswd`: the command sudo runs reads it)
        base = words[0].rpartition("/")[2].lower()
    if base in STDIN_TOOLS:
        if base == "kinit":
            return "whole"
        return "after-colon" if base != "htpasswd" else ("whole" if "-i" in words or any(
            w.startswith("-") and "i" in w[1:] and not w.startswith("--") for w in words) else None)
    if base in STDIN_PASSWD_TOOLS and (base == "passwd" or "-s" in words[1:]):
        return "whole"
    if base == "sudo" and any(w == "-S" or (w.startswith("-") and not w.startswith("--") and "S" in w[1:])
                              for w in words[1:]):
        return "whole"
    for k, word in enumerate(words):
        name, eq, value = word.partition("=")
        if name in STDIN_FLAGS or (base == "passwd" and word == "--stdin"):
            return "whole"
        if name.startswith("-") and _secret_file_flag(name):
            given = value if eq else words[k + 1] if k + 1 < len(words) else ""
            if given in STDIN_FILES:
                return "whole"
    return None


def _secret_file_flag(name: str) -> bool:
    """--password-file, --vault-password-file, --token-file, --passphrase-file: a file flag whose words say secret."""
    words = name_words(name.lstrip("-"))
    return len(words) > 1 and words[-1] in ("file", "fd") and is_secret_flag("-".join(words[:-1]))


def _fed_value_span(word: str, places: list[int], how: str) -> Span | None:
    if how == "after-colon":
        user, colon, rest = word.partition(":")
        if not colon or not rest:
            return None
        start = len(user) + 1
    else:
        start = 0
    end = len(word)
    if end - start >= 2 and word[start] in "\"'" and word[end - 1] == word[start]:
        start, end = start + 1, end - 1   # (quotes a JSON string or a repr escaped: `echo \"X\" | passwd`)
    if end <= start or cannot_be_secret(word[start:end]) or _printed_flag_value_kept(word[start:end]):
        return None
    return (places[start], places[end - 1] + 1, REDACTED, "command-line password", places[0])


def _arguments(command: list[tuple[str, list[int]]]) -> tuple[list[int], list[int]]:
    """Which words of a command are its arguments (not a redirection: `<`, `>`, `2>&1`, `> log` and the file after
    one, nor a here-string `<<< X`), and which are here-strings."""
    arguments: list[int] = []
    here: list[int] = []
    skip = -1
    for k, (word, places) in enumerate(command):
        if k == skip:
            continue
        if word == "<<<":
            here.append(k + 1)
            skip = k + 1
        elif word and word[0] in "<>" and REDIRECTION.fullmatch(word):
            if arguments and arguments[-1] == k - 1 and command[k - 1][0].isdigit() and command[k - 1][1][-1] + 1 == places[0]:
                arguments.pop()   # 2> log: the descriptor goes with it
            skip = k + 1   # the file, or the descriptor after `>&`
        else:
            arguments.append(k)
    return arguments, [k for k in here if k < len(command)]


def _command_spans(command: list[tuple[str, list[int]]], fed: list[tuple[str, list[int]]]) -> list[Span]:
    """The secret pieces of one simple command (argv_secret_pieces of its arguments; a here-string fed to a command
    that reads a password on stdin), and the value an `echo`/`printf` of `fed` sends it through a pipe. A piece is
    kept out when a printed flag's value would be (a `$VAR`, a path, a setting: _printed_flag_value_kept), and after
    a bare `-p` (mysql's prompt, then a database's name) when it does not look like a password."""
    kept, here = _arguments(command)
    argv = [command[k][0] for k in kept]
    spans: list[Span] = []
    for i, start, end in argv_secret_pieces(argv):
        places = command[kept[i]][1]
        value = argv[i][start:end]
        if start >= end or end > len(places) or _printed_flag_value_kept(value) or (
                start == 0 and i and argv[i - 1] == "-p" and not looks_like_password(value)) or (
                "${" in argv[i] and _in_expansion_message(argv[i], start)):
            continue
        spans.append((places[start], places[end - 1] + 1, REDACTED, "command-line password", places[0]))
    how = _reads_secret_from_stdin(argv) if (here or fed) else None
    if how is not None:
        for k in here:
            span = _fed_value_span(*command[k], how)
            if span is not None:
                spans.append(span)
        values = [item for item in fed[1:] if not item[0].startswith("-") and not item[0].startswith("%")]
        if values:
            span = _fed_value_span(*values[-1], how)
            if span is not None:
                spans.append(span)
    return spans


# (session 26) A `:?` expansion's message (`+ export WANDB_API_KEY=${WANDB_API_KEY:?set WANDB_API_KEY}`, split into words
# at its blank): the error bash prints when the variable is unset, no value (names.EXPANSION_MESSAGE)
def _in_expansion_message(word: str, start: int) -> bool:
    """Whether the piece of word at start lies in an unclosed `${NAME:?` (EXPANSION_MESSAGE)."""
    opened = word.rfind("${", 0, start + 1)
    return opened >= 0 and "}" not in word[opened:start] and EXPANSION_MESSAGE.match(word, opened) is not None


def _quoted_end(text: str, start: int, end: int, quote: str) -> int:
    """Where a line opened by `quote` (a repr's, a JSON string's) closes, before end (its backslashes escape)."""
    at = start
    while (at := text.find(quote, at, end)) >= 0:
        backslashes = len(text[max(start, at - 64):at]) - len(text[max(start, at - 64):at].rstrip("\\"))
        if backslashes % 2 == 0:
            return at
        at += 1
    return end


def _command_line_end(text: str, start: int) -> int:
    end = text.find("\n", start, start + MAX_COMMAND_LINE)
    return end if end >= 0 else min(len(text), start + MAX_COMMAND_LINE)


def _mark_counts(text: str, at: int, prefix_pattern: re.Pattern[str]) -> bool:
    """Whether what is before a mark at `at` on its line fits prefix_pattern (looked for MAX_PREFIX characters back)."""
    line_start = text.rfind("\n", max(0, at - MAX_PREFIX), at) + 1
    if line_start == 0 and at > MAX_PREFIX:
        return False   # (looked back no further: a long line's marks each cost a bounded look)
    if prefix_pattern is TRACE_PREFIX and text[line_start:at].rstrip().endswith("+"):
        return False
    return prefix_pattern.fullmatch(text, line_start, at) is not None


# A command printed as a Python or JSON list of its words (subprocess.CalledProcessError's `Command '['sshpass', '-p',
# 'X', 'ssh', 'h']'`, `Popen(args=[...])`, strace's `execve("/usr/bin/x", ["x", ...])`, a launcher's `cmd: [...]`): the
# items, written without escapes, read as argv (a list of words that is no command has no flag the reading takes)
ARGV_LIST = re.compile(r"\[(?P<items>(?P<q>['\"])[^'\"\\\n]{0,4096}(?P=q)(?:,[ \t]?(?P<r>['\"])[^'\"\\\n]{0,4096}(?P=r)){1,255})\]")
ARGV_LIST_ITEM = re.compile(r"['\"]([^'\"\\\n]{0,4096})['\"]")


def argv_list_spans(text: str) -> list[Span]:
    """Secrets in commands printed as lists of their words (ARGV_LIST)."""
    spans: list[Span] = []
    for m in ARGV_LIST.finditer(text):
        if not ARGV_SIGNAL.search(m.group().lower()):
            continue
        items = list(ARGV_LIST_ITEM.finditer(text, m.start("items"), m.end("items")))
        words = [item.group(1) for item in items]
        for index, first, last in argv_secret_pieces(words):
            if REDACTED[1:-1] in words[index][first:last]:
                continue   # (redacted before: a bundle's workload.json read again)
            at = items[index].start(1)
            spans.append((at + first, at + last, REDACTED, "command-line password", m.start()))
    return spans


MARK_WORDS = ("running:", "executing:", "command:", "cmd:", "exec:", "run:")
LINE_TOOL_WORDS = ("net use", "net.exe use", "psexec", "freerdp", "rdesktop", "smbmapping", "psdrive", "cmdkey", "helm ",
                   "lftp", "npm config", "poetry config", "twine upload")


BLANK = re.compile(r"\s")


def nul_argv_spans(text: str) -> list[Span]:
    """A process's argv as /proc/PID/cmdline holds it, printed raw (`cat /proc/1/cmdline`, `xargs -0`'s input): words
    joined by NULs, read as argv (a line of 2 NULs or more; each word keeps its place)."""
    spans: list[Span] = []
    at = text.find("\x00")
    while at >= 0:
        start = text.rfind("\n", max(0, at - MAX_COMMAND_LINE), at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[start:end] if end - start <= MAX_COMMAND_LINE else ""   # (binary data's long lines: not read)
        if line.count("\x00") >= 2 and ARGV_SIGNAL.search(line.lower()):
            words = line.split("\x00")[:-1]   # (what follows the last NUL is no word of it: a prompt, or nothing)
            if any(BLANK.search(word) for word in words[1:]):
                at = text.find("\x00", end)
                continue   # (words with blanks in them: text that holds NULs, no argv)
            firsts = [0]
            for word in words[:-1]:
                firsts.append(firsts[-1] + len(word) + 1)
            spans += [(start + firsts[i] + first, start + firsts[i] + last, REDACTED, "command-line password", start)
                      for i, first, last in argv_secret_pieces(words)
                      if first < last and not _printed_flag_value_kept(words[i][first:last])]
        at = text.find("\x00", end)
    return spans


def printed_command_spans(text: str, lower: str) -> list[Span]:
    """Secrets on printed command lines (see the module's docstring); every line is read at most once."""
    spans: list[Span] = nul_argv_spans(text) if "\x00" in text else []
    read_from = -1
    starts: list[tuple[int, bool] | tuple[int, bool, str]] = []
    for pattern, prefix, literal in ((TRACE_MARK, TRACE_PREFIX, "+ "), (DOLLAR_MARK, DOLLAR_PREFIX, "$ "),
                                     (ANGLE_MARK, ANGLE_PREFIX, "> "), (HASH_MARK, HASH_PREFIX, "# "),
                                     (PERCENT_MARK, PERCENT_PREFIX, "% "), (STARSHIP_MARK, LINE_START_PREFIX, "\u276f "),
                                     (ACTIONS_RUN_MARK, ACTIONS_RUN_PREFIX, "Run "),
                                     (DOCKER_RUN_MARK, DOCKER_RUN_PREFIX, "RUN "), (SUDO_MARK, SUDO_PREFIX, "COMMAND=")):
        if has(text, literal):
            # (a mark at its line's start has an empty prefix: its verdict is the pattern's on "", known once)
            empty_fits = prefix.fullmatch("") is not None
            found = [m for m in pattern.finditer(text) if (empty_fits if (at := m.start()) == 0 or text[at - 1] == "\n"
                                                           else _mark_counts(text, at, prefix))]
            starts += [(m.end(), True) for m in found]
            if pattern is TRACE_MARK and len(found) > 1:
                spans += _traced_pipe_spans(text, lower, found)
    if has_any(lower, MARK_WORDS):
        starts += [(m.end(), True) for m in WORD_MARK.finditer(text)]
    # (ConvertTo-SecureString's value is quoted: a character first, memchr, before the word's scan)
    if has_any(lower, LINE_TOOL_WORDS) or (("\"" in text or "'" in text) and has(lower, "convertto-")):
        for m in LINE_TOOLS.finditer(lower):
            line_start = lower.rfind("\n", max(0, m.start() - LINE_INDENT - 1), m.start()) + 1
            if (line_start or m.start() <= LINE_INDENT) and not lower[line_start:m.start()].strip(" \t"):
                starts.append((m.start(), False))
            elif _mark_counts(lower, m.start(), LINE_TOOL_PREFIX) or (
                    lower.startswith("c", m.start()) and _mark_counts(lower, m.start(), POWERSHELL_ASSIGNED)):
                starts.append((m.start(), False))
    # (every UNIX_TOOL form has a blank after its name or its echo: a text with no blank, "\n" or "x\n" repeated, is not
    # tried a line at a time)
    if " " in lower or "\t" in lower:
        first = UNIX_FIRST_LINE.match(lower)
        starts += [(m.start("tool"), True, q1) if (q1 := m.group("q1")) else (m.start("tool"), True)
                   for m in ([first] if first is not None else []) + list(UNIX_LINE.finditer(lower))]
    if '"' in text:
        starts += [(m.start("tool"), True, '"') for m in UNIX_JSON_MESSAGE.finditer(lower)]
    starts.sort()
    for start, escapes, *quoted in starts:
        if start < read_from:
            continue
        end = _command_line_end(text, start)
        if quoted:
            end = _quoted_end(text, start, end, quoted[0])
        read_from = end
        if escapes and not ARGV_SIGNAL.search(lower, start, end):
            continue   # (nothing the argv reading takes a secret by: no secret word, tool, short flag, `@`, `<<<`)
        line = text[start:end]
        found = _line_secret_spans(line, escapes and "\\\\" not in line)
        if found:
            spans += [(start + first, start + last, REDACTED, "command-line password", start + context)
                      for first, last, context in found]
    return spans


# bash -x prints each command of a pipeline on its own line, the same `+`s before each: `echo "$PW" | docker login
# --password-stdin` is `+ echo X` and `+ docker login --password-stdin` (either first). The echo's word is what the
# other reads on its stdin, as in `echo X | cmd` on one line (STDIN_READERS: the words such a reader's line holds).
STDIN_READERS = ("stdin", "-s", "passwd", "-fd", "/dev/fd/0")
# (a stream holds such a line, an echo's or a reader's, for the next: the line's lower-cased last 120 characters)
TRACED_PIPE_LINE_END = re.compile(r"(?:^|[\s\]:|>'\"\[(])\++ (?:(?:echo|printf)[ \t][^\n|;&]{1,110}|[^\n|;&]{0,110}(?:stdin|-fd"
                                  r"|[ \t]-[a-z]{0,3}s(?![\w-])|passwd)[^\n|;&]{0,110})\r?\n\Z")


STDIN_READER_WORD = re.compile("|".join(map(re.escape, STDIN_READERS)))   # (any of them, a scan in C)
DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")   # (two lines' prefixes alike but for their times: one prefix)


def _traced_pipe_spans(text: str, lower: str, marks: list[re.Match[str]]) -> list[Span]:
    """The word an `echo`/`printf` trace line feeds to the command traced on the line next to it (above or below, the
    same prefix, its digits aside, and `+`s) where that command reads a password on its stdin (_reads_secret_from_stdin)."""
    spans: list[Span] = []
    if STDIN_READER_WORD.search(lower) is None:
        return spans   # (no line can hold a reader's word: the text holds none)
    lines = {}   # line start -> mark end
    for m in marks:
        line_start = text.rfind("\n", 0, m.start()) + 1
        lines.setdefault(line_start, m.end())
    leads: dict[int, str] = {}   # line start -> what is before the mark end on the line (asked only beside a reader)
    for line_start, start in lines.items():
        end = _command_line_end(text, start)
        if STDIN_READER_WORD.search(lower, start, end) is None:
            continue
        how = _stdin_reading(text[start:end])   # (once per distinct line: a log repeats its lines)
        if how is None:
            continue
        above = text.rfind("\n", 0, max(line_start - 1, 0)) + 1 if line_start else -1
        below = end + 1 if end < len(text) else -1
        for other in (above, below):
            if other < 0 or other not in lines or other == line_start:
                continue
            for place in (line_start, other):
                if place not in leads:
                    leads[place] = text[place:lines[place]].translate(DIGITS_AS_ZERO)
            if leads[other] != leads[line_start]:
                continue
            at = lines[other]
            fed = _shell_words(text[at:_command_line_end(text, at)], 0)
            if len(fed) != 1 or fed[0][0][0].rpartition("/")[2] not in ECHO_WORDS:
                continue
            values = [item for item in fed[0][1:] if not item[0].startswith("-") and not item[0].startswith("%")]
            span = _fed_value_span(*values[-1], how) if values else None
            if span is not None:
                spans.append((at + span[0], at + span[1], span[2], span[3], at + span[4]))
    return spans


@functools.lru_cache(maxsize=4096)
def _stdin_reading(line: str) -> str | None:
    """_reads_secret_from_stdin of a traced line's one command (None where the line holds more than one), by the line."""
    commands = _shell_words(line, 0)
    if len(commands) != 1:
        return None
    kept, _ = _arguments(commands[0])
    return _reads_secret_from_stdin([commands[0][k][0] for k in kept])


def _group_echoes(line: str, commands: list[list[tuple[str, list[int]]]], last: int) -> list[list[tuple[str, list[int]]]]:
    """The echoes before commands[last] (an echo piped to a reader) in the same `( ... )` or `{ ...; }` group, each
    after `;` or `&&` (not a pipe): the group's output is all of theirs."""
    group = []
    k = last
    while k > 0 and commands[k - 1] and commands[k - 1][0][0].rpartition("/")[2] in ECHO_WORDS:
        between = line[commands[k - 1][-1][1][-1] + 1 if commands[k - 1][-1][1] else 0:commands[k][0][1][0]]
        if "|" in between or ")" in between or "}" in between:
            break
        if between.strip(" \t") not in (";", "&&"):
            break
        group.append(commands[k - 1])
        k -= 1
    opening = line[:commands[k][0][1][0]].rstrip(" \t")
    return group if opening.endswith(("(", "{")) else []


@functools.lru_cache(maxsize=4096)
def _line_secret_spans(line: str, escapes: bool) -> tuple[tuple[int, int, int], ...]:
    """(start, end, context) in line of each secret of one printed command line (a log repeats its lines: each
    distinct one is read once)."""
    spans: list[Span] = []
    commands = _shell_words(line, 0, escapes)
    for k, command in enumerate(commands):
        fed = commands[k - 1] if k and command and commands[k - 1] and commands[k - 1][0][0].rpartition("/")[2] in ECHO_WORDS else []
        if fed and line.find("|", fed[-1][1][-1] if fed[-1][1] else 0, command[0][1][0]) < 0:
            fed = []
        spans.extend(_command_spans(command, fed))
        if fed:   # (a group's echoes feed it all: `(echo X; echo X) | smbpasswd -s -a bob`, `{ echo X; echo X; } |`)
            spans += [span for earlier in _group_echoes(line, commands, k - 1) for span in _command_spans(command, earlier)
                      if span[0] in earlier[-1][1]]
    if "<(" in line:
        for m in PROCESS_SUBSTITUTION.finditer(line):
            if _secret_file_flag(m.group("flag")) and not cannot_be_secret(m.group("value")):
                spans.append((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start()))
    return tuple((first, last, context) for first, last, _, _, context in spans)
