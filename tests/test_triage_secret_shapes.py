"""Second red-team pass (issue 11): secret names, flags, shapes and encodings that reached a bundle."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import REPO

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor, argv_secret_values, is_secret_name


@pytest.mark.parametrize("name", ["DB_PASS", "MYSQL_PW", "SSH_PASSPHRASE", "AZURE_CLIENT_CERT_PW", "redis-pass"])
def test_names_with_a_pass_word_are_secret(name):
    assert is_secret_name(name)
    assert Redactor({name: "Hunter2-secret"}).text("connecting with Hunter2-secret") == f"connecting with {REDACTED}"


@pytest.mark.parametrize("name", ["PWD", "OLDPWD", "PASSAGE_COUNT", "COMPASS", "BYPASS_CACHE", "NUM_PASSES"])
def test_names_that_only_contain_pass_letters_are_not(name):
    assert not is_secret_name(name)


def test_flags_with_secret_words_and_tool_passwords():
    argv = ["python3", "wl.py", "--pass", "ArgPassOnly777", "--db-pass", "ArgDbPass5555", "--passphrase",
            "ArgPhrase8888", "-u", "admin:ArgCurlUser42", "--lr", "3e-4", "-p", "8080"]
    assert argv_secret_values(argv) == ["ArgPassOnly777", "ArgDbPass5555", "ArgPhrase8888", "ArgCurlUser42"]
    clean = Redactor({}).argv(argv)
    assert clean[-4:] == ["--lr", "3e-4", "-p", "8080"] and "admin:" + REDACTED in clean
    # mysql reads "-p dbname" as a prompt and a database, but people type it meaning the password: it goes
    assert Redactor({}).argv(["mysql", "-uroot", "-pMysqlArg88", "-p", "dbname"]) == \
        ["mysql", "-uroot", "-p" + REDACTED, "-p", REDACTED]
    assert Redactor({}).argv(["sshpass", "-p", "Sshpass_11x", "ssh", "h"]) == ["sshpass", "-p", REDACTED, "ssh", "h"]
    assert Redactor({}).argv(["psql", "-p", "5432"]) == ["psql", "-p", "5432"]  # a port there
    assert Redactor({}).argv(["docker", "run", "-u", "1000:1000"]) == ["docker", "run", "-u", "1000:1000"]


@pytest.mark.parametrize("text, gone", [
    ("glpat-abcdefghijklmnopqrst", "abcdefghijklmnopqrst"),
    ("key sk_live_51Habcdefghijklmnopqrstu", "51Habcdefghijklmnopqrstu"),
    ("rk_live_51Habcdefghijklmnopqrstu", "51Habcdefghijklmnopqrstu"),
    ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789"),
    ("SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "abcdefghijklmnopqrstuv"),
    ("DefaultEndpointsProtocol=https;AccountName=a;AccountKey=QWNjb3VudEtleVNlY3JldA+/==;EndpointSuffix=x",
     "QWNjb3VudEtleVNlY3JldA"),
    ("https://a.blob.core.windows.net/c?sv=2020&sig=SasSigSecret%2Babcdef%3D&se=1", "SasSigSecret"),
    ("https://user:ab/cdSLASHpw99@host.example/x", "cdSLASHpw99"),
    ("https://user:abc#HASHpw99@host.example/x", "HASHpw99"),
    ("redis://:my secret SPACEpw99@redis:6379", "SPACEpw99"),
    ("https://u:" + "L" * 600 + "@h.example", "L" * 20),
    ("-----BEGIN PRIVATE KEY-----\n" + "M" * 1600 + "\n-----END PRIVATE KEY-----", "M" * 20),
    ("INFO: -----BEGIN PRIVATE KEY-----\nINFO: LogPfxKeyBody0123456789abcdefghij\nINFO: -----END PRIVATE KEY-----",
     "LogPfxKeyBody"),
    ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\nAAAAIPrivSecretBody0123456789\n"
     "Private-MAC: 0123abcd", "PrivSecretBody"),
    ("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nSsh2KeyBody0123456789abcdefghij\n"
     "---- END SSH2 ENCRYPTED PRIVATE KEY ----", "Ssh2KeyBody"),
    ("api_key:\n  NextLineSecret_1\n", "NextLineSecret"),
    ("mysql -uroot -pMysqlArgSecret_88", "MysqlArgSecret"),
    ("Driver={ODBC};Server=s;Uid=sa;Pwd=OdbcSecret_9931;", "OdbcSecret"),
    ("connect host=db user=app pass=PassEqSecret_11", "PassEqSecret"),
    ("login?user=a&pw=PwQuerySecret_22", "PwQuerySecret"),
    ("passphrase: PassphraseSecret_33", "PassphraseSecret"),
    ("machine api.example.com login bob password NetrcPw_556677", "NetrcPw"),
    ("Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "9944b09199c62bcf"),
    ("Proxy-Authorization: Negotiate NegotiateTokenSecret_778899", "NegotiateTokenSecret"),
    ('{"auths":{"r.io":{"auth":"dXNlcjpEb2NrZXJBdXRoU2VjcmV0"}}}', "dXNlcjpEb2NrZXJBdXRoU2VjcmV0"),
    ("sshpass -p SshpassSecret_11 ssh host", "SshpassSecret"),
    ("curl -u bob:CurlUserSecret_99 https://x", "CurlUserSecret"),
])
def test_shapes_printed_by_the_workload_are_redacted(text, gone):
    out = Redactor({}).text(text)
    assert gone not in out and REDACTED in out, out


@pytest.mark.parametrize("text", [
    "http://host:8080/path/x@y.com", "see https://a.example/x and write to b@c.example", "bypass=1 compass: north",
    "passage=3", "next normal line after a key", "auth_type: basic"])
def test_near_misses_stay(text):
    assert Redactor({}).text(text) == text


def test_a_url_password_with_a_slash_in_an_environment_value_goes_everywhere():
    r = Redactor({"DATABASE_URL": "postgres://app:Ab/Cd+SlashPw_77@db:5432/x"})
    assert "SlashPw_77" not in r.text("password is Ab/Cd+SlashPw_77 here")


def test_a_value_on_the_next_line_goes_when_the_stream_cuts_between_them():
    sink = StreamRedactor(Redactor({}))
    out = sink.feed("config:\n  api_key:\n") + sink.feed("    NextPieceSecret_9\nloss 1.0\n") + sink.close()
    assert "NextPieceSecret" not in out and "loss 1.0" in out


def test_prefixed_key_lines_go_when_the_stream_cuts_inside_the_key():
    key = ("INFO: -----BEGIN PRIVATE KEY-----\nINFO: LogPfxKeyBody0123456789abcdefghij\n"
           "INFO: SecondPfxKeyLine0123456789abcdef\nINFO: -----END PRIVATE KEY-----\nINFO: done\n")
    cut = key.index("INFO: Second")
    sink = StreamRedactor(Redactor({}))
    out = sink.feed(key[:cut]) + sink.feed(key[cut:]) + sink.close()
    assert "LogPfxKeyBody" not in out and "SecondPfxKeyLine" not in out and "INFO: done" in out


def triage(*args, env):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=90)


def test_flag_values_and_pass_named_variables_are_in_no_byte_of_the_bundle(tmp_path):
    env = dict(os.environ, DB_PASS="DbPassEnvSecret1", SSH_PASSPHRASE="PassphraseEnv22")
    script = "import os, sys\nprint(os.environ['DB_PASS'], os.environ['SSH_PASSPHRASE'])\nprint(' '.join(sys.argv))\n"
    done = triage("--duration", "3", "--no-nsys", "--output", tmp_path, "--", sys.executable, "-c", script,
                  "--pass", "ArgPassOnly777", "--db-pass", "ArgDbPass5555", "--passphrase", "ArgPhrase8888",
                  "-u", "admin:ArgCurlUser42", env=env)
    assert done.returncode == 0, done.stderr
    archive = Path(done.stdout.strip().splitlines()[-1])
    with tarfile.open(archive, "r:gz") as tar:
        blob = b"\n".join(tar.extractfile(m).read() for m in tar.getmembers() if m.isfile())
    for secret in ("DbPassEnvSecret1", "PassphraseEnv22", "ArgPassOnly777", "ArgDbPass5555", "ArgPhrase8888",
                   "ArgCurlUser42"):
        assert secret.encode() not in blob, secret
        assert secret not in done.stdout + done.stderr


def test_encoded_forms_of_a_known_secret_go():
    value = "Db'Pass/Word+42xyz"
    r = Redactor({"DB_PASS": value})
    printed = {"double json": json.dumps(json.dumps(value)),
               "shell": "export DB_PASS='" + value.replace("'", "'\\''") + "'",
               "base64": base64.b64encode(value.encode()).decode(),
               "docker auth": base64.b64encode(b"user:" + value.encode()).decode(),
               "hex": value.encode().hex(), "upper": value.upper(), "bytes": repr(value.encode())}
    for kind, text in printed.items():
        out = r.text(f"[{kind}] {text}\n")
        assert REDACTED in out, kind
        assert "Word+42" not in out and "UGFzcy9Xb3Jk" not in out.replace(REDACTED, ""), (kind, out)


def test_a_known_secret_printed_in_two_halves_goes():
    value = "SplitSecretValue-0123456789abcdef"
    r = Redactor({"API_TOKEN": value})
    text = f"[split] {value[:16]}\n[split2] {value[16:]}\n{value[:20]}\n{value[20:]} rest\nordinary line\n"
    out = r.text(text)
    for piece in (value[:16], value[16:], value[:20], value[20:]):
        assert piece not in out, (piece, out)
    assert "ordinary line" in out and "[split2]" in out


HOST_ENV = {"HOSTNAME": "GpuNode-17.Cluster.Example.com", "USER": "alice", "PATH": "/usr/bin"}


@pytest.mark.parametrize("text, gone, placeholder", [
    ("addr ::ffff:203.0.113.9 up", "113.9", "ip-"),
    ("0:0:0:0:0:ffff:203.0.113.9", "203.0", "ip-"),
    ("host:2001:db8::1", "2001:db8", "ip-"),
    ("link/ether 02:42:ac:11:00:02 brd", "02:42:ac", "mac-"),
    ("HWaddr 02-42-AC-11-00-03", "02-42-AC", "mac-"),
    ("connected to gpunode-17.cluster.example.com", "gpunode", "host-"),
    ("node gpunode-17 up", "gpunode", "host-"),
    ("ALICE logged in", "ALICE", "user-"),
])
def test_redact_hosts_covers_mapped_ipv6_macs_and_names_in_any_case(text, gone, placeholder):
    out = Redactor(HOST_ENV, redact_hosts=True).text(text)
    assert gone.lower() not in out.lower() and placeholder in out and REDACTED not in out, out


def test_redact_hosts_leaves_times_and_versions():
    text = "12:34:56 step 3 cuda 12.4.1"
    assert Redactor(HOST_ENV, redact_hosts=True).text(text) == text
