"""Printed command lines read as the workload's own argv is read: a `bash -x` trace line (`+ cmd ...`, `++ ...`,
also behind a log prefix), a prompt (`$ cmd`), `Running: cmd`, `Executing: cmd`, `Command: cmd`, `cmd: ...`, and
a line that starts with a Windows login tool (`NET USE`, `psexec`, `xfreerdp`). The line's shell words (quotes
taken off, each character's place kept) go through argv_secret_pieces, command by command (split at `;` `|` `&`),
so a printed line hides what the argv reading hides; and what a shell feeds a password-reading command: a
here-string (`chpasswd <<< bob:X`, `--vault-password-file /dev/stdin <<< X`), `echo X | sudo -S`, a secret file
flag given a process substitution (`--password-file=<(echo X)`)."""

from __future__ import annotations

import re

from .argv import argv_secret_pieces
from .commands import _printed_flag_value_kept
from .names import cannot_be_secret, is_secret_flag, looks_like_password, name_words
from .spans import REDACTED, Span

# Where a printed command starts on its line. `+`-runs and `$`/`>` prompts count only at the line's start or behind
# a short prefix (PREFIX_FITS); the words anywhere (`INFO Running: cmd`).
COMMAND_MARK = re.compile(r"(?P<trace>\++ )|(?P<prompt>[$>] )"
                          r"|(?i:(?P<word>running|executing|command|cmd|exec|run):[ \t]{1,4})")
# a log prefix before a trace mark: `[rank0]: `, `2026-11-23 10:00:00 `, `job | `, a repr's or a list's quote; a prompt's
# `user@host:~/x`, `(venv)`
TRACE_PREFIX = re.compile(r"[ \t]{0,16}(?:[\[(][ \t]{0,4})?(?:[bu]?['\"])?|.{0,120}(?:[\]:|>][ \t]{1,4}|[0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?Z?[ \t]{1,4})")
PROMPT_PREFIX = re.compile(r"[ \t]{0,16}(?:\([\w.-]{1,64}\)[ \t]{0,2})?(?:PS[ \t])?[^\s$>]{0,200}")
# Windows login tools whose printed line is a command even with no mark before it
LINE_TOOLS = re.compile(r"(?im)^[ \t]{0,16}(?:net(?:\.exe)?[ \t]{1,4}use|psexec(?:64)?(?:\.exe)?|xfreerdp3?|wlfreerdp|"
                        r"rdesktop|new-smbmapping|new-psdrive|cmdkey|helm)\b")
SHELL_SEPARATORS = ";|&()"
MAX_PREFIX = 240         # how far before a mark its line's start is looked for
MAX_COMMAND_LINE = 8192   # what is read of one printed line
# reading a password from stdin: `--password-stdin`, `--with-token`, `passwd --stdin`, `sudo -S`, a secret flag given
# /dev/stdin or `-`
STDIN_FLAGS = frozenset({"--password-stdin", "--with-token", "--stdin", "--passphrase-fd"})
STDIN_FILES = frozenset({"/dev/stdin", "-", "/dev/fd/0", "/proc/self/fd/0"})
STDIN_TOOLS = frozenset({"chpasswd", "chgpasswd", "htpasswd"})
PROCESS_SUBSTITUTION = re.compile(r"(?P<flag>--?[A-Za-z][\w-]{0,63})(?:=|[ \t]{1,4})<\([ \t]{0,4}(?:echo|printf)"
                                  r"(?:[ \t]{1,4}-[neE]{1,3}|[ \t]{1,4}['\"]%s(?:\\n)?['\"])*[ \t]{1,4}"
                                  r"['\"]?(?P<value>[^\s'\")]{1,1024})")
REDIRECTION = re.compile(r"[<>]{1,2}&?")
ECHO_WORDS = frozenset({"echo", "printf"})


def _shell_words(line: str, offset: int, escapes: bool = True) -> list[list[tuple[str, list[int]]]]:
    """The simple commands of a printed line, each a list of (word, where each of its characters is in the text):
    blanks split words, quotes are taken off ('...', "..." with its backslashes, $'...'), `;` `|` `&` `(` `)` end a
    command; `<<<` and `<`/`>` stay words of their own. A quote left open runs to the line's end. Without `escapes`
    (a Windows line: `\\\\srv\\share`) a backslash is a character like any other."""
    commands: list[list[tuple[str, list[int]]]] = [[]]
    chars: list[str] = []
    places: list[int] = []
    started = False

    def end_word() -> None:
        nonlocal started
        if started:
            commands[-1].append(("".join(chars), list(places)))
        chars.clear()
        places.clear()
        started = False

    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in " \t":
            end_word()
        elif c in SHELL_SEPARATORS and not (c == "(" and chars[-1:] == ["<"]):
            end_word()
            if commands[-1]:
                commands.append([])
        elif c in "<>":
            run = i
            while run < n and line[run] == c:
                run += 1
            if c == "<" and run < n and line[run] == "(":   # <(...): the process substitution stays in its word
                chars.append(c)
                places.append(offset + i)
                started = True
                i += 1
                continue
            if run < n and line[run] == "&" and c == ">":   # >&2, 2>&1: a descriptor, not a command's end
                run += 1
            end_word()
            commands[-1].append((line[i:run], list(range(offset + i, offset + run))))
            i = run
            continue
        elif c in "'\"":
            started = True
            if c == "'" and chars[-1:] == ["$"] and places and places[-1] == offset + i - 1:
                chars.pop()
                places.pop()
            close = line.find(c, i + 1)
            while c == '"' and close > 0 and line[close - 1] == "\\":
                close = line.find(c, close + 1)
            close = n if close < 0 else close
            for j in range(i + 1, close):
                if c == '"' and escapes and line[j] == "\\" and j + 1 < close and line[j + 1] in '"\\$`':
                    continue
                chars.append(line[j])
                places.append(offset + j)
            i = close + 1
            continue
        elif c == "\\" and i + 1 < n and escapes:
            started = True
            chars.append(line[i + 1])
            places.append(offset + i + 1)
            i += 2
            continue
        else:
            started = True
            chars.append(c)
            places.append(offset + i)
        i += 1
    end_word()
    return [command for command in commands if command]


def _reads_secret_from_stdin(words: list[str]) -> str | None:
    """How a command reads a secret on its stdin: "whole" (the input is the secret), "after-colon" (chpasswd's
    user:PASSWORD), or None."""
    base = words[0].rpartition("/")[2].lower() if words else ""
    if base in STDIN_TOOLS:
        return "after-colon" if base != "htpasswd" else ("whole" if "-i" in words or any(
            w.startswith("-") and "i" in w[1:] and not w.startswith("--") for w in words) else None)
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
    if len(word) <= start or cannot_be_secret(word[start:]) or _printed_flag_value_kept(word[start:]):
        return None
    return (places[start], places[-1] + 1, REDACTED, "command-line password", places[0])


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
                start == 0 and i and argv[i - 1] == "-p" and not looks_like_password(value)):
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


def _command_line_end(text: str, start: int) -> int:
    end = text.find("\n", start, start + MAX_COMMAND_LINE)
    return end if end >= 0 else min(len(text), start + MAX_COMMAND_LINE)


def _mark_counts(text: str, m: re.Match[str]) -> bool:
    if not (m.group("trace") or m.group("prompt")):
        return True
    line_start = text.rfind("\n", max(0, m.start() - MAX_PREFIX), m.start()) + 1
    if line_start == 0 and m.start() > MAX_PREFIX:
        return False   # (looked back no further: a long line's marks each cost a bounded look)
    prefix = text[line_start:m.start()]
    if m.group("trace"):
        return TRACE_PREFIX.fullmatch(prefix) is not None and not prefix.rstrip().endswith("+")
    return PROMPT_PREFIX.fullmatch(prefix) is not None


LINE_TOOL_WORDS = (" use", "psexec", "rdp", "rdesktop", "smbmapping", "psdrive", "cmdkey", "helm")


def printed_command_spans(text: str, lower: str) -> list[Span]:
    """Secrets on printed command lines (see the module's docstring); every line is read at most once."""
    spans: list[Span] = []
    read_from = -1
    starts = [(m.end(), True) for m in COMMAND_MARK.finditer(text) if _mark_counts(text, m)]
    if any(word in lower for word in LINE_TOOL_WORDS):
        starts += [(m.start(), False) for m in LINE_TOOLS.finditer(text)]
        starts.sort()
    for start, escapes in starts:
        if start < read_from:
            continue
        end = _command_line_end(text, start)
        read_from = end
        commands = _shell_words(text[start:end], start, escapes and "\\\\" not in text[start:end])
        for k, command in enumerate(commands):
            fed = commands[k - 1] if k and command and commands[k - 1] and commands[k - 1][0][0] in ECHO_WORDS else []
            if fed and text.find("|", fed[-1][1][-1] if fed[-1][1] else start, command[0][1][0]) < 0:
                fed = []
            spans.extend(_command_spans(command, fed))
        if "<(" in text[start:end]:
            for m in PROCESS_SUBSTITUTION.finditer(text, start, end):
                if _secret_file_flag(m.group("flag")) and not cannot_be_secret(m.group("value")):
                    spans.append((m.start("value"), m.end("value"), REDACTED, "command-line password", m.start()))
    return spans
