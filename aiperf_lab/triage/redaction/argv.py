"""Reading the workload's argv for secret pieces (argv_secret_pieces): secret flags and their values, tools'
password flags and positional forms (Oracle logins, `config set`, schemeless `user:PASSWORD@host`), named values
inside an argument (`db.password=X`, flow lists)."""

from __future__ import annotations

import functools
import re

from .assignments import NOT_A_SECRET_REFERENCE, _HarmlessValues, _assigned_secret_at
from .commands import SECRET_MOUNT_SPEC
from .blocks import _flow_item_spans
from .names import (
    GCLOUD_SECRET_ID, FLAG_PREFIX, HASH_TOOLS, WEAK_SECRET_FLAGS, _secret_name_cached, _weak_flag_secret, cannot_be_secret, is_hex_key,
    is_secret_flag, is_secret_name, looks_generated, looks_like_password, name_words, names_a_key_file, names_a_model,
    names_an_id,
)


# Tools whose flag takes a password, as -pSECRET or -p SECRET. (mysql reads "-p VALUE" as a prompt and a
# database name; the name goes too, as people type it meaning the password.)
PASSWORD_FLAG_OF_TOOL = {**dict.fromkeys(("mysql", "mariadb", "mysqldump", "mysqladmin", "mysqlsh", "mysqlimport",
                                          "mysqlcheck", "mongo", "mongosh", "mongodump", "mongorestore", "sshpass",
                                          "7z", "7za"), "-p"), "openssl": "-k", "sqlcmd": "-P", "bcp": "-P",
                         **dict.fromkeys(("redis-cli", "keydb-cli"), "-a"), **dict.fromkeys(("zip", "unzip"), "-P"),
                         **dict.fromkeys(("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami"), "-w"),
                         **dict.fromkeys(("psexec", "psexec64", "paexec", "rdesktop"), "-p"), "ipmitool": "-P",
                         **dict.fromkeys(("isql", "mosquitto_pub", "mosquitto_sub", "mosquitto_rr"), "-P"),
                         **dict.fromkeys(("rar", "unrar"), "-p"), "ldappasswd": "-w"}
USER_PASSWORD_TOOLS = {"curl", "wget", "lftp"}
USER_PASSWORD_SEPARATOR = {"lftp": ","}   # lftp -u bob,PASSWORD (curl's -u bob:PASSWORD)


# An interpreter's program on its command line (`python -c 'PROGRAM'`, `perl -e`, `node -e`): code, which the text rules
# read as they read any printed code (a literal `password='X'` in it, `'--password', 'X'` go there), not `name=value` words
# (`auth=(user, password)`, `login(token=token)` name variables). The flag among the interpreter's own options, before
# its script or module (`python -m x -c Y`: -c is x's).
INTERPRETER = re.compile(r"(?P<name>python|pypy|perl|ruby|node|nodejs|deno|bun|Rscript|julia|php)[0-9.]{0,8}(?:\.exe)?")
PROGRAM_FLAGS = {"python": ("-c",), "pypy": ("-c",), "perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"),
                 "nodejs": ("-e", "--eval", "-p", "--print"), "deno": ("eval",), "bun": ("-e", "--eval", "-p", "--print"),
                 "Rscript": ("-e",), "julia": ("-e", "--eval", "-E", "--print"), "php": ("-r",)}

PROGRAM_FLAG_WORDS = frozenset(flag for flags in PROGRAM_FLAGS.values() for flag in flags)


def _program_arguments(argv: list[str]) -> set[int]:
    """The indexes of programs given to an interpreter on its command line (see INTERPRETER)."""
    found = set()
    for i, arg in enumerate(argv):
        m = INTERPRETER.fullmatch(arg[arg.rfind("/") + 1:]) if not arg.startswith("-") else None
        if m is None:
            continue
        flags = PROGRAM_FLAGS[m.group("name")]
        j = i + 1
        while j + 1 < len(argv) and (argv[j].startswith("-") or argv[j] in flags) and argv[j] not in ("-m", "--"):
            if argv[j] in flags:
                found.add(j + 1)
                break
            j += 1
    return found


SCRIPT_WORDS = re.compile(r"\S+")


def _script_programs(script: str) -> list[tuple[int, int]]:
    """Where, in a word that reads as a shell's script (blanks in it), an interpreter is given its program
    (_program_arguments over its words, a program written in one pair of quotes, `python -c 'PROGRAM'`): (start, end)
    of each program's text; none where the script has no program flag or its quoting is not that plain."""
    if " " not in script or not any(f" {flag} " in script for flag in PROGRAM_FLAG_WORDS):
        return []
    found = []
    for m in SCRIPT_WORDS.finditer(script):
        word = m.group()
        base = word[word.rfind("/") + 1:]
        if INTERPRETER.fullmatch(base) is None:
            continue
        flags = PROGRAM_FLAGS[INTERPRETER.fullmatch(base).group("name")]
        at = m.end()
        while (option := SCRIPT_WORDS.match(script, at + 1)) is not None and script[at:at + 1] == " ":
            word = option.group()
            if word in ("-m", "--") or not word.startswith("-") and word not in flags:
                break
            if word in flags:
                quote = script[option.end() + 1:option.end() + 2]
                close = script.find(quote, option.end() + 2) if quote in ("'", '"') else -1
                if script[option.end():option.end() + 1] == " " and close > 0 and (
                        quote == "'" or "\\" not in script[option.end() + 2:close]):
                    found.append((option.end() + 2, close))
                break
            at = option.end()
    return found


@functools.lru_cache(maxsize=4096)
def _is_weak_secret_flag(name: str) -> bool:
    """--session, --license, --private, --sas, --webhook-url: a flag whose value may be a secret (remembered: a printed
    trace repeats its flags on every line)."""
    return tuple(name_words(FLAG_PREFIX.sub("", name))) in WEAK_SECRET_FLAGS


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
    gcloud_names = gcloud_secret_name_pieces(argv) if "secrets" in argv else ()   # (a scan in C first)
    previous = ""
    subcommand_tools: list[int] = []
    programs = _program_arguments(argv) if not PROGRAM_FLAG_WORDS.isdisjoint(argv) else ()
    i = 0
    while i < len(argv):
        arg = argv[i]
        if i in programs:   # (a program: its quoted literals after a secret's name, `password='p'`; the rest is the text rules')
            found += [(i, start, end) for start, end in _named_value_pieces(arg, 0) if start and arg[start - 1] in "'\""]
            previous = arg
            i += 1
            continue
        if not arg.startswith("-"):
            base = arg[arg.rfind("/") + 1:]   # (os.path.basename, without its cost per argument)
            if base in PASSWORD_FLAG_OF_TOOL or base in USER_PASSWORD_TOOLS or base in OTHER_PASSWORD_TOOLS:
                tool = base
            login_tool = login_tool or base in LOGIN_TOOLS
            hash_tool = hash_tool or base in HASH_TOOLS
            if base in SUBCOMMAND_PASSWORD_TOOLS:
                subcommand_tools.append(i)
            if (tool_pieces := _tool_positional_pieces(argv, i)) is not None:
                found += tool_pieces
                break  # the rest of this command is that tool's
            if is_hex_key(arg) and previous.startswith("-") and not names_an_id(previous) and not hash_tool:
                found.append((i, 0, len(arg)))   # --service KEY; not `git checkout SHA`, `--resume RUN_ID`
            elif login_tool and (password := _schemeless_password(arg)) is not None:
                found.append((i, *password))  # rsync bob:X@host:/p, git clone bob:X@host:repo
            elif (named := _named_value_pieces(arg, 0)) and (inner := _script_programs(arg)):
                # (a shell's script that gives an interpreter its program, `bash -c "python -c '...'"`: in the program
                # only quoted literals after a secret's name, as for a program given on the command line itself)
                found += [(i, s, e) for s, e in named if not any(a <= s < b for a, b in inner) or arg[s - 1] in "'\""]
            else:
                found += [(i, s, e) for s, e in named]
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
        elif _is_weak_secret_flag(name):
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
            elif gcloud_names and (at, start, len(argv[at]) if at < len(argv) else 0) in gcloud_names:
                pass   # gcloud secrets versions access latest --secret=db_name: the secret's name
            elif at < len(argv) and names_a_key_file(argv[at][start:]):
                pass   # openssl req -key key.pem: a key's file named bare
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
            user, colon, password = text.partition(USER_PASSWORD_SEPARATOR.get(tool, ":"))
            if colon and password and not password.isdigit():
                found.append((at, len(argv[at]) - len(password), len(argv[at])))
            i = max(i, at)
        i += 1
    for at in subcommand_tools:
        found += _subcommand_password_pieces(argv, at)
    return found


# Tools whose subcommand takes a password as a positional word, read on past their flags (the flag loop above goes on
# over the same words): `rabbitmqctl [-n node] add_user|change_password|authenticate_user USER PASSWORD`, `mysqladmin
# [-u root] password NEW`, `net user USER PASSWORD [/add]`, `ipmitool ... user set password ID PASSWORD`, `redis-cli
# [-h host] AUTH [USER] PASSWORD` and `CONFIG SET requirepass|masterauth PASSWORD`
SNMP_TOOLS = frozenset({"snmpwalk", "snmpget", "snmpset", "snmpbulkwalk", "snmpbulkget", "snmpgetnext", "snmptrap",
                        "snmptable", "snmpdelta", "snmpstatus"})
SUBCOMMAND_PASSWORD_TOOLS = frozenset({"rabbitmqctl", "rabbitmqctl.bat", "mysqladmin", "net", "net.exe", "ipmitool",
                                       "redis-cli", "keydb-cli", "wpa_passphrase", "nmcli", "db2", "pdftk", "qpdf",
                                       "ldappasswd", "iscsiadm", *SNMP_TOOLS})
# (and `wpa_passphrase SSID PASSPHRASE`, `nmcli ... password X`, `db2 connect to DB user U using X`, pdftk's `user_pw
# X` / `owner_pw X`, `qpdf --encrypt USER_PW OWNER_PW BITS`, ldappasswd's `-s NEW`, SNMPv3's `-A AUTH_PASS -X PRIV_PASS`)
RABBITMQ_PASSWORD_COMMANDS = frozenset({"add_user", "change_password", "authenticate_user"})
COMMAND_END_WORDS = frozenset({";", "&&", "||", "|", "&"})


def _subcommand_password_pieces(argv: list[str], i: int) -> list[tuple[int, int, int]]:
    """(index, 0, len) of the password word a SUBCOMMAND_PASSWORD_TOOLS command at argv[i] is given, if any."""
    base = argv[i][argv[i].rfind("/") + 1:].lower().removesuffix(".bat").removesuffix(".exe")
    words: list[int] = []   # (the words after the tool, to the command's end, flags and all)
    for j in range(i + 1, min(len(argv), i + 64)):
        if argv[j] in COMMAND_END_WORDS:
            break
        words.append(j)
    lowered = [argv[j].lower() for j in words]

    def plain_after(k: int, count: int) -> list[int]:
        """The first `count` words after words[k] that are no flag."""
        return [words[m] for m in range(k + 1, len(words)) if not argv[words[m]].startswith(("-", "/"))][:count]

    picked: list[int] = []
    glued: list[tuple[int, int, int]] = []
    if base == "rabbitmqctl":
        k = next((k for k, word in enumerate(lowered) if word in RABBITMQ_PASSWORD_COMMANDS), -1)
        picked = plain_after(k, 2)[1:] if k >= 0 else []
    elif base == "mysqladmin":
        k = next((k for k, word in enumerate(lowered) if word == "password"), -1)
        picked = plain_after(k, 1) if k >= 0 else []
    elif base == "net":
        if lowered[:1] == ["user"]:
            picked = plain_after(0, 2)[1:]
    elif base == "ipmitool":
        k = next((k for k in range(len(lowered) - 2) if lowered[k:k + 3] == ["user", "set", "password"]), -1)
        picked = plain_after(k + 2, 2)[1:] if k >= 0 else []
    elif base == "iscsiadm":
        # `iscsiadm -m node --op update -n node.session.auth.password -v X`: the value of a secret-named setting
        for k in range(len(words) - 3):
            if lowered[k] in ("-n", "--name") and is_secret_name(lowered[k + 1].rpartition(".")[2]) and lowered[k + 2] in (
                    "-v", "--value"):
                picked.append(words[k + 3])
    elif base == "wpa_passphrase":
        picked = plain_after(-1, 2)[1:]
    elif base in ("nmcli", "db2", "pdftk"):
        marks = {"nmcli": ("password", "wifi-sec.psk", "802-11-wireless-security.psk"), "db2": ("using",),
                 "pdftk": ("user_pw", "owner_pw")}[base]
        picked = [j for k, word in enumerate(lowered) if word in marks for j in plain_after(k, 1)]
    elif base == "qpdf":
        k = next((k for k, word in enumerate(lowered) if word == "--encrypt"), -1)
        picked = plain_after(k, 2) if k >= 0 else []
    elif base == "ldappasswd" or base in SNMP_TOOLS:
        flags = ("-s",) if base == "ldappasswd" else ("-A", "-X")
        for k, j in enumerate(words):
            for flag in flags:
                if argv[j] == flag:
                    picked += plain_after(k, 1)[:1] if k + 1 < len(words) and words[k + 1] == j + 1 else []
                elif argv[j].startswith(flag) and len(argv[j]) > 2 and not argv[j].startswith("--"):
                    found = (j, 2, len(argv[j]))
                    if not cannot_be_secret(argv[j][2:]):
                        glued.append(found)
    else:   # redis-cli, keydb-cli
        k = next((k for k, word in enumerate(lowered) if word == "auth"), -1)
        if k >= 0:
            picked = plain_after(k, 2)[-1:]
        else:
            k = next((k for k in range(len(lowered) - 2) if lowered[k:k + 2] == ["config", "set"]
                      and lowered[k + 2] in ("requirepass", "masterauth")), -1)
            picked = plain_after(k + 2, 1) if k >= 0 else []
    return glued + [(j, 0, len(argv[j])) for j in picked if argv[j] != "*" and not cannot_be_secret(argv[j])]


def gcloud_secret_name_pieces(argv: list[str]) -> list[tuple[int, int, int]]:
    """(index, start, end) of each secret's name given to `--secret` in gcloud's `secrets` group (`gcloud secrets
    versions access latest --secret=db_name`): a name, not a value (see assignments.names_a_gcloud_secret)."""
    found = []
    gcloud_at, group = -1, False
    for i, arg in enumerate(argv):
        if arg[arg.rfind("/") + 1:] == "gcloud":
            gcloud_at, group = i, False
        elif arg in (";", "&&", "||", "|"):
            gcloud_at, group = -1, False
        elif arg == "secrets" and gcloud_at >= 0 and all(word in ("alpha", "beta") for word in argv[gcloud_at + 1:i]):
            group = True
        elif group and arg.startswith("--secret"):
            at, start = (i, 9) if arg.startswith("--secret=") else (i + 1, 0) if arg == "--secret" else (-1, 0)
            if 0 <= at < len(argv) and GCLOUD_SECRET_ID.fullmatch(argv[at], start) is not None:
                found.append((at, start, len(argv[at])))
    return found


RDP_TOOLS = frozenset({"xfreerdp", "xfreerdp3", "wlfreerdp", "sdl-freerdp", "sdl-freerdp3", "wfreerdp"})
RDP_PASSWORD_OPTIONS = frozenset({"p", "password", "gp", "gateway-password"})
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


# Packagers whose secret settings are positional (`poetry config`, `dvc config`, `dvc remote modify`, `pdm config`): their
# global options that take a value, skipped to find the subcommand.
PACKAGER_VALUE_OPTIONS = {"poetry": frozenset({"-C", "--directory", "-P", "--project"}), "dvc": frozenset({"--cd"}),
                          "pdm": frozenset({"-p", "--project"})}


def _subcommand_at(argv: list[str], i: int, value_options: frozenset[str]) -> int:
    """Where the subcommand of the tool at argv[i] is: past its options (and the values of value_options)."""
    j = i + 1
    while j < len(argv) and argv[j].startswith("-"):
        j += 2 if argv[j] in value_options else 1
    return j


def _tool_positional_pieces(argv: list[str], i: int) -> list[tuple[int, int, int]] | None:
    """A tool whose password is a positional argument, when argv[i] starts it: `net use [Z:] \\\\srv\\share PASSWORD
    /user:bob` (Windows), `htpasswd -b[c] FILE USER PASSWORD` (`-nb USER PASSWORD`), `aws configure set NAME VALUE`
    and `npm|pnpm|yarn config set NAME VALUE` with a secret's NAME (`//registry.npmjs.org/:_authToken`), Oracle's
    `sqlplus user/PASSWORD[@db]` (sqlldr, expdp, impdp, rman too), `gh secret set NAME --body|-b VALUE`, `poetry config
    http-basic.REPO USER PASSWORD` (and `pypi-token.REPO TOKEN`), `dvc remote modify [--local] REMOTE NAME VALUE` with a
    secret's NAME. None when argv[i] starts none of them."""
    base = argv[i][argv[i].rfind("/") + 1:].lower().removesuffix(".exe")
    rest = argv[i + 1:]
    if base in RDP_TOOLS:
        # FreeRDP's `/p:PASSWORD`, `/password:PASSWORD`, `/gp:PASSWORD` (the gateway's); `-p:`/`+p:` spellings too
        return [(j, len(name) + 1, len(argv[j])) for j in range(i + 1, len(argv))
                for name, colon, value in [argv[j].partition(":")]
                if colon and value and name[1:].lower() in RDP_PASSWORD_OPTIONS and name[:1] in "/-+"
                and not cannot_be_secret(value)]
    if base == "convertto-securestring":
        # PowerShell's `ConvertTo-SecureString 'X' -AsPlainText -Force` (or -String X)
        for j in range(i + 1, len(argv)):
            if argv[j].lower() == "-string" and j + 1 < len(argv):
                return [(j + 1, 0, len(argv[j + 1]))]
            if not argv[j].startswith("-") and argv[j][:1] != "$":
                return [(j, 0, len(argv[j]))]
        return []
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
    if base in PACKAGER_VALUE_OPTIONS:
        sub = _subcommand_at(argv, i, PACKAGER_VALUE_OPTIONS[base])   # (global options before it: `poetry -C proj config`)
        if sub < len(argv) and argv[sub].lower() == "config" and (
                base == "poetry" or (base in ("dvc", "pdm") and sub + 1 < len(argv) and argv[sub + 1].lower() != "remote")):
            words = [j for j in range(sub + 1, len(argv)) if not argv[j].startswith("-")]
            if base == "poetry":
                # `poetry config http-basic.REPO USER PASSWORD`, `poetry config pypi-token.REPO TOKEN`
                setting = argv[words[0]].lower() if words else ""
                at = 2 if setting.startswith("http-basic.") else 1 if setting.startswith("pypi-token.") else 0
                return [(words[at], 0, len(argv[words[at]]))] if at and len(words) > at else []
            # `dvc config [--local] remote.NAME.password X`, `pdm config [-l] pypi.NAME.password X`: a secret's setting
            if len(words) >= 2 and _assigned_secret_at(
                    f"{CONFIG_NAME_SPLIT.split(argv[words[0]])[-1]}={argv[words[1]]}") is not None:
                return [(words[1], 0, len(argv[words[1]]))]
            return []
        if base == "dvc" and sub + 1 < len(argv) and [w.lower() for w in argv[sub:sub + 2]] == ["remote", "modify"]:
            words = [j for j in range(sub + 2, len(argv)) if not argv[j].startswith("-")]
            if len(words) >= 3 and _assigned_secret_at(f"{argv[words[1]]}={argv[words[2]]}") is not None:
                return [(words[2], 0, len(argv[words[2]]))]
            return []
    if base == "anaconda":
        # anaconda-client's `anaconda -t TOKEN upload pkg` (`--token TOKEN` is a secret flag already)
        for j in range(i + 1, len(argv) - 1):
            if argv[j] == "-t" and not cannot_be_secret(argv[j + 1]):
                return [(j + 1, 0, len(argv[j + 1]))]
            if not argv[j].startswith("-"):
                break
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
# the credential after an Authorization header's scheme, in one argument (`Authorization: token X`)
SCHEME_CREDENTIAL = re.compile(r"[ \t]{1,4}(?P<credential>[^\s'\",;]{1,4096})")
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
        name = m.group("name")
        if quote_char not in ("'", '"') and name.lower().endswith("authorization") and (
                credential := SCHEME_CREDENTIAL.match(word, value_end)) is not None and not cannot_be_secret(
                credential.group("credential")) and NOT_A_SECRET_REFERENCE.fullmatch(credential.group("credential")) is None:
            # `-H "Authorization: token X"`: a header's scheme and its credential, whatever the scheme (GitHub's
            # token, ApiKey, Okta's SSWS, Splunk), as the text rules read the header
            pieces.append((offset + value_start, offset + credential.end()))
            at = credential.end()
            continue
        value = word[value_start:value_end]
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


MAX_ARGUMENT_READINGS = 1 << 16   # arguments whose spans a Redactor keeps (argv_spans)
SHELL_SAFE_WORD = re.compile(r"[\w@%+=:,./-]+")   # a word shlex.quote leaves unquoted
