"""Issue 11, red team rt6 F5 and F9 (command line): secrets in tools' own argv forms (sqlplus, smbclient, gh, mc,
npm, wandb), alone or behind a wrapper (/bin/echo, env, sudo, nice, timeout, stdbuf, nohup, xargs), are hidden in
every file triage writes the command into and known wherever the workload prints them; what argv redaction hides
is what the text rules hide on the command line as summary.md writes it; and ordinary ids and names in other
positions (a commit after `git checkout`, a run id after `--resume`, a model name after `-p` / `-a`) stay."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.inputs import shell_line
from aiperf_lab.triage.redact import REDACTED, Redactor, argv_secret_values

V = "Zq8vN2mK5pL9xR4t"
P = "Tiger7-Scott!"
KEY40 = "3f9a1c0d7e5b2a4f6c8d0e1f2a3b4c5d6e7f8a9b"
SHA = "9f2b6c1e0a7d4e3b8c5f1a2d6e9b0c3f7a4d1e8b"
RUN = "3f2a9c1e0b7d4e6a8c5f1a2d6e9b0c3f"


def _hidden_everywhere(argv: list[str], secret: str) -> None:
    """As pipeline.py does it: the value is known, gone from the command in every form triage writes
    (workload.json and manifest.json hold the list, summary.md and report.html the shell line), and gone where
    the workload prints it."""
    known = argv_secret_values(argv)
    assert secret in known, known
    redactor = Redactor({}, extra_secrets=known)
    written = redactor.argv(argv)
    for form in (json.dumps(written, indent=2), shell_line(written), redactor.text(json.dumps(written, indent=2)),
                 redactor.text(shell_line(written))):
        assert secret not in form, form
    assert REDACTED in " ".join(written)
    assert secret not in redactor.text(f"got {secret}\n{json.dumps(secret)} {secret!r}\n")


TOOL_FORMS = [
    (["poetry", "config", "http-basic.corp", "alice", V], V),                      # (rt8 L2)
    (["poetry", "config", "pypi-token.pypi", V], V),
    (["dvc", "remote", "modify", "--local", "store", "secret_access_key", V], V),
    (["dvc", "remote", "modify", "store", "password", V], V),
    (["npm", "config", "set", "//registry.npmjs.org/:_authToken", V], V),
    (["npm", "config", "set", "//npm.corp.example/:_password", V], V),
    (["npm", "config", "set", "_authToken", V], V),
    (["sqlplus", f"scott/{P}@orcl"], P),
    (["sqlplus", f"scott/{P}"], P),
    (["sqlplus", "-s", f"scott/{P}@//db.corp:1521/orcl", "@run.sql"], P),
    (["sqlplus", f"sys/{P}@orcl", "as", "sysdba"], P),
    (["expdp", f"userid=scott/{P}@orcl", "directory=DP"], P),
    (["rman", "target", f"sys/{P}@db"], P),
    (["yarn", "config", "set", "npmAuthToken", V], V),
    (["smbclient", "//srv/share", "-U", f"alice%{P}"], P),
    (["smbclient", "//srv/share", f"-Ualice%{P}"], P),
    (["smbclient", "//srv/share", f"--user=CORP\\alice%{P}"], P),
    (["rpcclient", "-U", f"alice%{P}", "srv"], P),
    (["gh", "secret", "set", "HF_TOKEN", "--body", V], V),
    (["gh", "secret", "set", "HF_TOKEN", "-b", V], V),
    (["gh", "secret", "set", "HF_TOKEN", f"--body={V}", "--repo", "o/r"], V),
    (["mc", "alias", "set", "s3", "https://s3.x", "ACCESSKEY12345", V], V),
    (["mc", "config", "host", "add", "s3", "https://s3.x", "ACCESSKEY12345", V], V),
    (["wandb", "login", KEY40], KEY40),
    (["wandb", "login", "--relogin", KEY40], KEY40),
    (["aws", "configure", "set", "aws_secret_access_key", V], V),
    (["openssl", "enc", "-aes-256-cbc", "-k", P, "-in", "a"], P),
    (["sqlcmd", "-S", "srv", "-U", "sa", "-P", P], P),      # the text rules' form, read the same on the list
    (["ssh-keygen", "-t", "ed25519", "-N", P, "-f", "k"], P),
]
WRAPPERS = [[], ["/bin/echo"], ["env", "LANG=C"], ["sudo", "-u", "bob"], ["nice", "-n", "10"], ["timeout", "5"],
            ["stdbuf", "-oL"], ["nohup"], ["xargs"], ["srun", "-N1"]]


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=lambda w: " ".join(w) or "bare")
@pytest.mark.parametrize("argv,secret", TOOL_FORMS, ids=lambda x: x[0] if isinstance(x, list) else "")
def test_tool_forms_are_hidden_in_every_written_form_and_known(wrapper, argv, secret):
    _hidden_everywhere([*wrapper, *argv], secret)


@pytest.mark.parametrize("argv,secret", TOOL_FORMS[:21], ids=lambda x: x[0] if isinstance(x, list) else "")
def test_tool_forms_inside_a_shell_string(argv, secret):
    argv = ["bash", "-c", f"{shell_line(argv)} && echo done {secret}"]
    _hidden_everywhere(argv, secret)


def test_the_list_and_the_line_are_read_alike():
    """Whatever the text rules hide on the command line as summary.md writes it, argv redaction hides in the list
    that workload.json and manifest.json hold (rt6: `/bin/echo smbclient -U u%P` was hidden in one, kept in the
    other two)."""
    for argv, _ in TOOL_FORMS:
        for wrapper in WRAPPERS:
            full = [*wrapper, *argv]
            redactor = Redactor({}, extra_secrets=argv_secret_values(full))
            line = redactor.text(shell_line(full))
            assert redactor.text(shell_line(redactor.argv(full))) == shell_line(redactor.argv(full))
            assert line.count(REDACTED) <= shell_line(redactor.argv(full)).count(REDACTED), (full, line)


# rt6 F5b: a value found inside an argument is a known secret, so the workload's own print of it goes
S = "S3cr3tx9Qz"


@pytest.mark.parametrize("argv", [
    ["curl", "-H", f"Authorization: Bearer {S}", "https://api.x"],
    ["python3", "-c", "print(1)", "-H", f"Authorization: Bearer {S}"],
    ["curl", "-H", f"X-Api-Key: {S}", "https://api.x"],
    ["git", "-c", f"http.extraheader=AUTHORIZATION: basic {S}", "clone", "https://x/r.git"],
    ["openssl", "rsa", "-passin", f"pass:{S}", "-in", "k.pem"],
    ["openssl", "pkcs12", "-export", "-passout", f"pass:{S}"],
    ["mount", "-t", "cifs", "-o", f"username=alice,password={S}", "//srv/s", "/mnt"],
    ["npm", "config", "set", f"//registry.npmjs.org/:_authToken={S}"],
    ["ansible-playbook", "p.yml", "--extra-vars", f"vault_password={S} x=1"],
])
def test_values_inside_an_argument_are_known(argv):
    _hidden_everywhere(argv, S)


@pytest.mark.parametrize("argv", [
    ["openssl", "rsa", "-passin", "env:KEY_PW", "-in", "k.pem"],
    ["openssl", "pkcs12", "-export", "-passout", "file:/run/secrets/pw"],
    ["openssl", "rsa", "-passin", "fd:3"],
    ["mount", "-o", "username=alice,credentials=/etc/smb.cred", "//srv/s", "/mnt"],
    ["smbclient", "//srv/share", "-U", "alice"],
    ["smbclient", "-L", "srv", "-N"],
    ["sqlplus", "/nolog"],
    ["sqlplus", "-s", "/", "as", "sysdba"],
    ["sqlplus", "scott@orcl", "@run.sql"],
    ["gh", "secret", "list"],
    ["gh", "secret", "set", "HF_TOKEN", "--body", "-"],
    ["gh", "variable", "set", "REGION", "--body", "us-east-1"],
    ["gh", "pr", "create", "--body", "Fixes the loader for ImageNet21k"],
    ["mc", "alias", "list"],
    ["mc", "cp", "a", "s3/b"],
    ["npm", "config", "set", "registry", "https://registry.npmjs.org/"],
    ["npm", "config", "get", "//registry.npmjs.org/:_authToken"],
    ["wandb", "login", "--relogin"],
    ["wandb", "login", "--host", "https://wandb.corp.example"],
    ["poetry", "config", "virtualenvs.in-project", "true"],
    ["poetry", "config", "http-basic.corp", "alice"],
    ["dvc", "remote", "modify", "store", "url", "s3://bucket/path"],
    ["dvc", "remote", "modify", "--local", "store", "region", "us-east-1"],
    ["timeout", "5", "python", "train.py", "--lr", "3e-4"],
    ["nice", "-n", "10", "stdbuf", "-oL", "nohup", "python", "x.py"],
])
def test_nearby_forms_without_a_value_stay(argv):
    assert argv_secret_values(argv) == []
    assert Redactor({}).argv(argv) == argv


# rt6 F9: ids and names in positions that say nothing about a secret stay, and stay in the workload's output
ORDINARY = [
    ["git", "checkout", SHA],
    ["bash", "-c", f"git checkout {SHA} && python train.py"],
    ["git", "reset", "--hard", SHA],
    ["git", "cherry-pick", SHA],
    ["python", "eval.py", "--run-id", RUN],
    ["python", "train.py", "--resume", RUN],
    ["python", "train.py", "--experiment", RUN],
    ["python", "train.py", "--resume-from", RUN],
    ["python", "train.py", "--ckpt", RUN],
    ["python", "train.py", "--init-from", f"runs/{RUN}/ckpt.pt"],
    ["mlflow", "runs", "describe", RUN],
    ["python", "eval.py", RUN],
    ["python", "train.py", "-p", "Llama3Base"],
    ["python", "train.py", "-p", "SwinLarge4Window12"],
    ["python", "train.py", "-a", "ViTHuge14Patch224In21k"],
    ["python", "train.py", "-a", "EfficientNetB7NoisyStudent"],
    ["python", "train.py", "-a", "DeiTBase16Patch384"],
]


@pytest.mark.parametrize("argv", ORDINARY)
def test_ids_and_model_names_stay(argv):
    assert argv_secret_values(argv) == []
    redactor = Redactor({}, extra_secrets=argv_secret_values(argv))
    assert redactor.argv(argv) == argv
    log = f"commit {SHA} run {RUN} loaded runs/{RUN}/ckpt.pt Llama3Base ViTHuge14Patch224In21k\n"
    assert redactor.text(log) == log


@pytest.mark.parametrize("argv,secret", [
    (["python3", "x.py", "--service", KEY40], KEY40),          # a hex key under a flag that names no id
    (["python3", "x.py", "--api-key", RUN], RUN),
    (["python3", "x.py", f"--wandb-key={KEY40}"], KEY40),
    (["wandb", "login", KEY40], KEY40),
    (["python3", "client.py", "-p", "Passw0rd"], "Passw0rd"),
    (["mytool", "-pHunter2pw"], "Hunter2pw"),
    (["mytool", "-p", "Summer2024"], "Summer2024"),
    (["mytool", "-p", "S3cr3t!x"], "S3cr3t!x"),
    (["python3", "wl.py", "-a", "AaX9kLmW4xR7tY1pQs9dFh"], "AaX9kLmW4xR7tY1pQs9dFh"),
    (["python3", "wl.py", "-a", "Aa8MNL8EXs9ODEiuZbEaiS"], "Aa8MNL8EXs9ODEiuZbEaiS"),
    (["python3", "wl.py", "-k", "Zr3ksu9mI4ROnl89Sm995y"], "Zr3ksu9mI4ROnl89Sm995y"),
])
def test_secrets_next_to_those_still_go(argv, secret):
    _hidden_everywhere(argv, secret)


@pytest.mark.parametrize("argv", [
    ["sqlldr", "scott@orcl", "control=load.ctl", "data=dir/rows.csv", "log=logs/x.log"],
    ["expdp", "system@orcl", "directory=DATA_PUMP_DIR", "dumpfile=exp/full.dmp"],
    ["npm", "config", "set", "cache", "/var/cache/npm"],
    ["yarn", "config", "set", "npmRegistryServer", "https://registry.yarnpkg.com"],
])
def test_oracle_and_npm_settings_stay(argv):
    assert argv_secret_values(argv) == []
    assert Redactor({}).argv(argv) == argv


def test_end_to_end_every_member_of_the_bundle(tmp_path):
    """triage with stand-ins for the tools (each prints its arguments, so the workload prints the values too), behind
    wrappers (stdbuf, timeout, nice, env) in a bash -c: no planted value is in any member of the archive."""
    import os
    import subprocess
    import sys
    import tarfile

    from conftest import REPO

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sqlplus", "smbclient", "gh", "mc", "npm"):
        (bin_dir / tool).write_text('#!/bin/sh\necho "ran: $*"\n')
        (bin_dir / tool).chmod(0o755)
    script = (f"timeout 5 sqlplus scott/{P}@orcl; nice -n 5 smbclient //s/x -U alice%{P}; gh secret set X -b {V}; "
              f"env LANG=C npm config set //registry.npmjs.org/:_authToken {V}; mc alias set s3 https://s3.x AK {V}; "
              f"echo got {P} {V}")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    done = subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "2", "--no-nsys", "--output",
                           str(tmp_path / "out"), "--", "stdbuf", "-oL", "bash", "-c", script],
                          capture_output=True, text=True, cwd=REPO, env=env, timeout=90)
    assert done.returncode == 0, done.stderr
    with tarfile.open(done.stdout.strip().splitlines()[-1], "r:gz") as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    assert any(b"ran: scott/" + REDACTED.encode() in data for data in members.values())   # the workload ran
    for name, data in members.items():
        for secret in (P, V):
            assert secret.encode() not in data, (name, secret)


# ---- h14 (rt9 R4): packagers' secret settings in any word order ---------------------------------------------------

PACKAGER_KEY = "Zq8vN2mK5pL9xR4t"


@pytest.mark.parametrize("argv", [
    ["poetry", "-C", "proj", "config", "http-basic.corp", "ci", PACKAGER_KEY],
    ["poetry", "--no-interaction", "config", "http-basic.corp", "ci", PACKAGER_KEY],
    ["python", "-m", "poetry", "config", "pypi-token.corp", PACKAGER_KEY],
    ["dvc", "config", "remote.storage.password", PACKAGER_KEY],
    ["dvc", "config", "--local", "remote.storage.secret_access_key", PACKAGER_KEY],
    ["dvc", "-q", "remote", "modify", "storage", "password", PACKAGER_KEY],
    ["dvc", "--cd", "proj", "remote", "modify", "--local", "storage", "secret_access_key", PACKAGER_KEY],
    ["pdm", "config", "pypi.corp.password", PACKAGER_KEY], ["pdm", "config", "-l", "pypi.corp.password", PACKAGER_KEY],
    ["anaconda", "-t", PACKAGER_KEY, "upload", "pkg.tar.bz2"],
])
def test_packager_secret_settings_go_on_argv_and_printed(argv: list[str]) -> None:
    assert argv_secret_values(argv) == [PACKAGER_KEY]
    for printed in ("+ " + " ".join(argv) + "\n", "Running: " + " ".join(argv) + "\n"):
        assert PACKAGER_KEY not in Redactor({}).text(printed), printed


@pytest.mark.parametrize("argv", [["dvc", "config", "core.remote", "storage"], ["poetry", "config", "virtualenvs.in-project", "true"],
                                  ["pdm", "config", "python.use_venv", "true"], ["dvc", "remote", "modify", "s", "ask_password", "true"],
                                  ["poetry", "-C", "proj", "install"], ["anaconda", "upload", "pkg.tar.bz2"]])
def test_packager_settings_that_are_no_secret_stay(argv: list[str]) -> None:
    assert argv_secret_values(argv) == []
