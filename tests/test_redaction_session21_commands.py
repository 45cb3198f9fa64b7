"""Passwords on command lines and in code prints that leaked on main after session 20 (red team h20r's list and their
family; helper h21a). Each value, unknown to the Redactor (`Redactor({})`), is hidden bare, behind `set -x`'s `+ `,
`[rank0]: `, an ISO time, compose's `api-1  | `, and through a StreamRedactor cut at every place; a repr() of the line
and a JSON log record holding it are hidden too. The words around the value (the tool, its user, its file) stay, and
lines of the same tools that hold no password stay byte for byte.

1. Tools given a password positionally or by their own flag, printed bare as make and scripts print them:
   `rabbitmqctl add_user bob X`, `htpasswd -b -c FILE admin X`, `mysqladmin -u root password X`, `net user bob X /add`,
   `ipmitool ... -P X` and `user set password 2 X`, `redis-cli AUTH X`, `wpa_passphrase SSID X`, `nmcli ... password X`,
   `db2 connect ... using X`, `qpdf --encrypt X Y 256`, SNMPv3's `-A X -X Y`, `mosquitto_pub -P X`, `isql -P X`,
   `rar a -pX`, `ldappasswd -s X`, `iscsiadm ... -n node.session.auth.password -v X`, and lines of tools the argv
   reading knew already, now read bare (`sqlplus scott/X@db`, `zip -e -PX`, `cqlsh -p X`, `jarsigner -storepass X`).
2. A password piped to a command that reads it on stdin, the line bare: `echo 'bob:X' | chpasswd` (also `| sudo
   chpasswd`), `echo X | kinit bob@REALM`, `echo -e "X\\nX" | passwd bob`, `echo X | sudo -S cmd`.
3. A tool's password variable with a glued PASS before a command: `SSHPASS=X sshpass -e ssh h` (`BYPASS=1` stays).
4. Code: Elasticsearch's `http_auth=('elastic', 'X')` / `basic_auth=(...)`, JDBC's `DriverManager.getConnection(url,
   "bob", "X")`, Go's MySQL DSN `"bob:X@tcp(db:3306)/app"`."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import Redactor
from stream_feed import fed_in_reads, hidden_everywhere, kept_everywhere

V = "Wx7!kPq2Zr9vLm"     # shaped as a password
W = "Hy4mQz8TnR2bVc"     # letters and digits only
PREFIXES = ["", "+ ", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]

# (line, secrets, words that stay)
COMMANDS = [
    (f"rabbitmqctl add_user bob {V}", [V], ["rabbitmqctl add_user bob "]),
    (f"rabbitmqctl change_password bob {W}", [W], ["rabbitmqctl change_password bob "]),
    (f"rabbitmqctl -n rabbit@node1 authenticate_user bob {W}", [W], ["authenticate_user bob "]),
    (f"htpasswd -b -c /etc/nginx/.htpasswd admin {V}", [V], ["/etc/nginx/.htpasswd admin "]),
    (f"htpasswd -bc /etc/nginx/.htpasswd admin {W}", [W], ["/etc/nginx/.htpasswd admin "]),
    (f"htpasswd -nbB admin {W}", [W], ["htpasswd -nbB admin "]),
    (f"useradd -m -p {W} bob", [W], ["useradd -m -p ", " bob"]),
    (f"mysqladmin -u root password {W}", [W], ["mysqladmin -u root password "]),
    (f"mysqladmin -u root password '{V}'", [V], ["mysqladmin -u root password '"]),
    (f"net user bob {V} /add", [V], ["net user bob ", " /add"]),
    (f"ipmitool -I lanplus -H bmc1 -U admin -P {W} chassis status", [W], ["-U admin -P ", " chassis status"]),
    (f"ipmitool -I lanplus -H bmc1 -U admin user set password 2 {W}", [W], ["user set password 2 "]),
    (f"redis-cli -h cache AUTH {W}", [W], ["redis-cli -h cache AUTH "]),
    (f"redis-cli -h cache AUTH default {W}", [W], ["AUTH default "]),
    (f"wpa_passphrase homewifi {W}", [W], ["wpa_passphrase homewifi "]),
    (f"nmcli dev wifi connect homewifi password {W}", [W], ["connect homewifi password "]),
    (f"db2 connect to app user bob using {W}", [W], ["user bob using "]),
    (f"qpdf --encrypt {W} {V} 256 -- in.pdf out.pdf", [W, V], [" 256 -- in.pdf out.pdf"]),
    (f"snmpwalk -v3 -u bob -l authPriv -a SHA -A {W} -x AES -X {V} host1", [W, V], ["-a SHA -A ", " -x AES -X ", " host1"]),
    (f"mosquitto_pub -h broker -u bob -P {W} -t a -m b", [W], ["-u bob -P ", " -t a -m b"]),
    (f"isql -U sa -P {W} -S db", [W], ["isql -U sa -P "]),
    (f"rar a -p{W} a.rar f", [W], ["rar a -p", " a.rar f"]),
    (f"ldappasswd -x -D cn=admin -w {W} -s {V} uid=bob", [W, V], ["cn=admin -w ", " uid=bob"]),
    (f"iscsiadm -m node --op update -n node.session.auth.password -v {W}", [W], ["-n node.session.auth.password -v "]),
    (f"sqlplus system/{W}@orcl", [W], ["sqlplus system/", "@orcl"]),
    (f"zip -e -P{W} a.zip f", [W], ["zip -e -P", " a.zip f"]),
    (f"cqlsh -u bob -p {W} db1", [W], ["cqlsh -u bob -p ", " db1"]),
    (f"jarsigner -storepass {W} app.jar alias", [W], ["jarsigner -storepass ", " app.jar alias"]),
    # 2. piped to a reader of stdin
    (f"echo 'bob:{V}' | chpasswd", [V], ["echo 'bob:", "' | chpasswd"]),
    (f'echo "bob:{W}" | sudo chpasswd', [W], ['echo "bob:', '" | sudo chpasswd']),
    (f"echo '{W}' | kinit bob@CORP.COM", [W], ["' | kinit bob@CORP.COM"]),
    (f"printf '%s\\n' {W} | kinit bob@CORP.COM", [W], [" | kinit bob@CORP.COM"]),
    (f'echo -e "{W}\\n{W}" | passwd bob', [W], ['" | passwd bob']),
    (f"echo {W} | sudo -S apt update", [W], [" | sudo -S apt update"]),
    # 3. a glued PASS variable before its command
    (f"SSHPASS={W} sshpass -e ssh bob@node1", [W], ["SSHPASS=", " sshpass -e ssh bob@node1"]),
    (f"SMBPASS={V} smbclient //fs/share -U bob", [V], ["SMBPASS=", " smbclient //fs/share -U bob"]),
    # 4. code
    (f"es = Elasticsearch(hosts, http_auth=('elastic', '{V}'))", [V], ["Elasticsearch(hosts, http_auth=('elastic', '"]),
    (f"es = Elasticsearch('https://es:9200', basic_auth=('elastic', \"{W}\"))", [W], ["basic_auth=('elastic', \""]),
    (f'Connection c = DriverManager.getConnection(url, "bob", "{W}");', [W], ['getConnection(url, "bob", "']),
    (f'DriverManager.getConnection("jdbc:postgresql://db/app", "bob", "{V}")', [V], ['"jdbc:postgresql://db/app", "bob", "']),
    (f'db, err := sql.Open("mysql", "bob:{W}@tcp(db:3306)/app")', [W], ['sql.Open("mysql", "bob:', '@tcp(db:3306)/app")']),
]
IDS = [line[:40] for line, _, _ in COMMANDS]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("line,secrets,kept", COMMANDS, ids=IDS)
def test_a_password_on_a_printed_line_is_hidden(line, secrets, kept, prefix):
    text = f"{prefix}{line}\n"
    whole = hidden_everywhere(text, secrets[0])
    for secret in secrets[1:]:
        assert secret not in whole, whole
    for word in kept:
        assert word in whole, whole


def _stream(text: str) -> str:
    return fed_in_reads(Redactor({}), text, 7, piece=64)


# (not `echo -e "X\\nX" | passwd` in a JSON record: its escaped quotes around an escaped backslash are not read yet)
QUOTED = [(quoting, *case) for quoting in ("repr", "json record") for case in COMMANDS
          if not (quoting == "json record" and "\\n" in case[0])]


@pytest.mark.parametrize("quoting,line,secrets,kept", QUOTED, ids=[f"{q}-{line[:40]}" for q, line, _, _ in QUOTED])
def test_a_password_on_a_quoted_line_is_hidden(quoting, line, secrets, kept):
    text = repr(line) if quoting == "repr" else json.dumps({"level": "info", "msg": line})
    escape = (lambda s: repr(s)[1:-1]) if quoting == "repr" else (lambda s: json.dumps(s)[1:-1])
    for out in (Redactor({}).text(text + "\n"), _stream(text + "\n")):
        for secret in secrets:
            assert escape(secret) not in out, out
    if quoting == "json record":
        assert json.loads(Redactor({}).text(text))["level"] == "info"   # (the record stays JSON)


KEPT = [
    "rabbitmqctl list_users",
    "rabbitmqctl add_user bob",
    "rabbitmqctl add_vhost staging",
    "htpasswd -v /etc/nginx/.htpasswd admin",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "mysqladmin -u root status",
    "net user bob",
    "net user bob * /add",
    "ipmitool -I lanplus -H bmc1 -U admin user list 1",
    "ipmitool sdr list",
    "redis-cli -h cache ping",
    "redis-cli INFO replication",
    "zip -r out.zip data/",
    "7z x archive.7z -oout/",
    "useradd -m -s /bin/bash bob",
    "wpa_passphrase homewifi",
    "nmcli dev wifi list",
    "db2 connect to app",
    "qpdf --decrypt in.pdf out.pdf",
    "snmpwalk -v2c -c public host1 system",
    "openssl x509 -in cert.pem -noout -text",
    "curl -sS https://pypi.org/simple/torch/",
    "wget https://example.com/a.tar.gz -O a.tar.gz",
    "gpg --verify SHA256SUMS.sig",
    "echo done | tee -a build.log",
    "echo 'training finished' | mail -s done ops",
    "BYPASS=1 make -j8",
    "MULTIPASS=2 ./encode.sh",
    "SSHPASS=$SSHPASS sshpass -e ssh bob@node1",
    "auth = HTTPBasicAuth(user, password)",
    "conn = DriverManager.getConnection(url, user, password);",
    'db, err := sql.Open("mysql", dsn)',
    "CUDA_VISIBLE_DEVICES=0,1 python train.py --lr 3e-4",
]


@pytest.mark.parametrize("prefix", ["", "+ ", "[rank0]: "])
@pytest.mark.parametrize("line", KEPT)
def test_lines_of_the_same_tools_without_a_password_stay(line, prefix):
    kept_everywhere(f"{prefix}{line}\n")
