"""Issue 11: what triage hides on the workload's command line and what it knows as a secret are one reading.
Every piece Redactor.argv replaces is a known secret (argv_secret_values), so the workload's own print of it, and
its escaped forms, go from its logs; and the piece is the value alone: helm's next `,b.user=y`, a mapping's closing
brace, a form body's `&user=bob` stay. Also the passwords of logins and proxies given without a scheme, and of
tools that take one as a positional argument (`net use`, `htpasswd -b`, `aws configure set`)."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, argv_secret_values

P = "S3cr3t!x"


def _pipeline_redactor(argv: list[str]) -> Redactor:
    """As pipeline.py builds it for a workload's command line (environment left out: the test's own)."""
    return Redactor({}, redact_hosts=False, extra_secrets=argv_secret_values(argv))


def _replaced(argv: list[str], redactor: Redactor) -> list[str]:
    return [arg[start:end] for arg, spans in zip(argv, redactor.argv_spans(argv)) for start, end, *_ in spans]


# (argv, what argv redaction must write) for forms where the two readings disagreed, or where one leaked
FORMS = [
    (["python", "-c", f"import x; x.login(token='{P}')"], ["python", "-c", f"import x; x.login(token='{REDACTED}')"]),
    (["train.py", "--config", f"{{password: {P}}}"], ["train.py", "--config", f"{{password: {REDACTED}}}"]),
    (["python", "train.py", f"db={{password: {P}, user: bob}}"],
     ["python", "train.py", f"db={{password: {REDACTED}, user: bob}}"]),
    (["helm", "install", "x", "--set", f"a.password={P},b.user=y"],
     ["helm", "install", "x", "--set", f"a.password={REDACTED},b.user=y"]),
    (["helm", "install", "x", f"--set=a.password={P},b.user=y"],
     ["helm", "install", "x", f"--set=a.password={REDACTED},b.user=y"]),
    (["helm", "install", "x", "--set-string", f"b.user=y,a.password={P}"],
     ["helm", "install", "x", "--set-string", f"b.user=y,a.password={REDACTED}"]),
    (["ansible-playbook", "p.yml", "--extra-vars", f"password={P} user=bob"],
     ["ansible-playbook", "p.yml", "--extra-vars", f"password={REDACTED} user=bob"]),
    (["ansible-playbook", "p.yml", "-e", f'{{"password":"{P}"}}'],
     ["ansible-playbook", "p.yml", "-e", f'{{"password":"{REDACTED}"}}']),
    (["curl", "-d", f"password={P}&user=bob", "http://x"], ["curl", "-d", f"password={REDACTED}&user=bob", "http://x"]),
    (["terraform", "apply", "-var", f"db_password={P}"], ["terraform", "apply", "-var", f"db_password={REDACTED}"]),
    (["terraform", "apply", "-var", f'db={{password="{P}"}}'],
     ["terraform", "apply", "-var", f'db={{password="{REDACTED}"}}']),
    (["kubectl", "create", "secret", "generic", "s", f"--from-literal=password={P}"],
     ["kubectl", "create", "secret", "generic", "s", f"--from-literal=password={REDACTED}"]),
    (["python", "-c", f"import os; os.environ['HF_TOKEN']='{P}'"],
     ["python", "-c", f"import os; os.environ['HF_TOKEN']='{REDACTED}'"]),
    (["rsync", f"bob:{P}@host:/p", "."], ["rsync", f"bob:{REDACTED}@host:/p", "."]),
    (["git", "clone", f"bob:{P}@host:repo"], ["git", "clone", f"bob:{REDACTED}@host:repo"]),
    (["curl", "--proxy", f"bob:{P}@proxy:3128", "http://x"], ["curl", "--proxy", f"bob:{REDACTED}@proxy:3128", "http://x"]),
    (["pip", "install", f"--proxy=bob:{P}@proxy:3128", "x"], ["pip", "install", f"--proxy=bob:{REDACTED}@proxy:3128", "x"]),
    (["env", f"http_proxy=bob:{P}@proxy:3128", "cmd"], ["env", f"http_proxy=bob:{REDACTED}@proxy:3128", "cmd"]),
    (["docker", "build", "--build-arg", f"HTTPS_PROXY=bob:{P}@proxy:3128", "."],
     ["docker", "build", "--build-arg", f"HTTPS_PROXY=bob:{REDACTED}@proxy:3128", "."]),
    (["net", "use", "Z:", r"\\srv\share", r"/user:CORP\bob", P],
     ["net", "use", "Z:", r"\\srv\share", r"/user:CORP\bob", REDACTED]),
    (["net", "use", r"\\srv\ipc$", P, "/user:bob"], ["net", "use", r"\\srv\ipc$", REDACTED, "/user:bob"]),
    (["htpasswd", "-b", "users", "bob", P], ["htpasswd", "-b", "users", "bob", REDACTED]),
    (["htpasswd", "-nb", "bob", P], ["htpasswd", "-nb", "bob", REDACTED]),
    (["aws", "configure", "set", "aws_secret_access_key", P], ["aws", "configure", "set", "aws_secret_access_key", REDACTED]),
    (["aws", "configure", "set", "default.aws_secret_access_key", P],
     ["aws", "configure", "set", "default.aws_secret_access_key", REDACTED]),
    (["openssl", "enc", "-aes256", "-k", P], ["openssl", "enc", "-aes256", "-k", REDACTED]),
    (["openssl", "enc", "-pass", f"pass:{P}"], ["openssl", "enc", "-pass", f"pass:{REDACTED}"]),
    (["python", "train.py", f"+db.password='{P}'"], ["python", "train.py", f"+db.password='{REDACTED}'"]),
    (["bash", "-c", f"export API_TOKEN={P}; run"], ["bash", "-c", f"export API_TOKEN={REDACTED}; run"]),
    (["docker", "run", "-e", f"DB_PASSWORD={P}", "img"], ["docker", "run", "-e", f"DB_PASSWORD={REDACTED}", "img"]),
    # docker / kubectl / helm / terraform / ansible and other tools' own forms
    (["helm", "upgrade", "x", "--set", f"secrets[0]={P}"], ["helm", "upgrade", "x", "--set", f"secrets[0]={REDACTED}"]),
    (["terraform", "apply", "-var", f'passwords=["{P}", "{P}"]'],
     ["terraform", "apply", "-var", f'passwords=["{REDACTED}", "{REDACTED}"]']),
    (["vault", "login", P], ["vault", "login", REDACTED]),
    (["wandb", "login", "--relogin", P], ["wandb", "login", "--relogin", REDACTED]),
    (["sqlcmd", "-S", "h", "-U", "sa", "-P", P], ["sqlcmd", "-S", "h", "-U", "sa", "-P", REDACTED]),
    (["ssh-keygen", "-p", "-P", "old-Pa55", "-N", P, "-f", "k"],
     ["ssh-keygen", "-p", "-P", REDACTED, "-N", REDACTED, "-f", "k"]),
    (["smbclient", "//srv/share", "-U", f"CORP\\bob%{P}"], ["smbclient", "//srv/share", "-U", f"CORP\\bob%{REDACTED}"]),
    (["rclone", "config", "create", "r", "sftp", "host", "h", "user", "bob", "pass", P],
     ["rclone", "config", "create", "r", "sftp", "host", "h", "user", "bob", "pass", REDACTED]),
    (["python", "x.py", "--basic-auth", f"bob:{P}"], ["python", "x.py", "--basic-auth", REDACTED]),
]


@pytest.mark.parametrize("argv,written", FORMS)
def test_argv_redaction_replaces_the_value_alone(argv, written):
    assert _pipeline_redactor(argv).argv(argv) == written
    # the command as workload.json holds it, read by the text rules again (as a bundle's files are): unchanged
    assert Redactor({}).text(json.dumps(written)) == json.dumps(written)


@pytest.mark.parametrize("argv,written", FORMS)
def test_the_value_is_known_and_its_print_goes(argv, written):
    redactor = _pipeline_redactor(argv)
    known = set(argv_secret_values(argv))
    assert P in known, known
    printed = redactor.text(f"{P}\nrepr {P!r} json {json.dumps(P)} {json.dumps({'v': P})}\n")
    assert P not in printed and json.dumps(P)[1:-1] not in printed, printed


# The table as a whole, and forms the text rules alone catch: every piece argv redaction replaces is a known
# secret, and its print (bare, repr, JSON) is redacted by the Redactor pipeline.py builds.
TABLE = [argv for argv, _ in FORMS] + [
    ["python", "x.py", "--headers", "Authorization: Bearer Zq81xkP2mW7vLr4t"],
    ["curl", "-H", "X-Api-Key: 9fQ2xLm8Rv4TzK1p", "http://x"],
    ["python", "x.py", "--db-url=mysql://bob:Pa55w0rd-7@h/db"],
    ["python", "x.py", "--hf-token", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"],
    ["mysql", "-u", "root", "-pHunter2Hunter2", "db"],
    ["curl", "-u", "bob:Pa55w0rd-7", "http://x"],
    ["python", "-c", "print(1); api_key = 'sk-proj-AbCdEfGh1234567890AbCdEfGh'"],
    ["bash", "-c", "mysql -u root -pHunter2Hunter2 db && curl -H 'Authorization: Bearer Zq81xkP2mW7vLr4t' x"],
]


@pytest.mark.parametrize("argv", TABLE)
def test_every_replaced_piece_is_known(argv):
    known = set(argv_secret_values(argv))
    redactor = _pipeline_redactor(argv)
    pieces = [p for p in _replaced(argv, redactor) if len(p) >= 5]
    assert pieces, redactor.argv(argv)
    for piece in pieces:
        assert piece in known, (piece, known)
        printed = redactor.text(f"value {piece}\nrepr {piece!r}\njson {json.dumps(piece)}\n")
        assert piece not in printed and json.dumps(piece)[1:-1] not in printed, printed


# Nearby arguments that hold no secret: nothing is known, nothing is replaced.
ORDINARY = [
    ["torchrun", "--nproc_per_node=8", "train.py", "--config", "{lr: 0.001, batch_size: 32}"],
    ["rsync", "-av", "bob@host:/data/", "/local/"],
    ["rsync", "-av", "host:/data/", "/local/"],
    ["scp", "file.txt", "user@host:/tmp/"],
    ["git", "clone", "git@github.com:org/repo.git"],
    ["docker", "pull", "python:3.11@sha256:" + "ab01" * 16],    # name:tag@digest, not a login
    ["python", "x.py", "--addr", "a:b@c"],                      # not a login or proxy position
    ["helm", "install", "x", "--set", "image.tag=1.2,replicas=3,auth.enabled=true"],
    ["helm", "install", "x", "--set", "a.password=$PW,b.user=y"],
    ["ansible-playbook", "p.yml", "-e", "user=bob host=h1 token_count=5"],
    ["curl", "-d", "user=bob&lang=en", "http://x"],
    ["curl", "--proxy", "proxy.corp:3128", "http://x"],
    ["curl", "--proxy", "bob@proxy.corp:3128", "http://x"],
    ["env", "http_proxy=proxy.corp:3128", "cmd"],
    ["python", "-c", "import torch; d={'key': 'label'}; f(max_tokens=128, pad_token='<pad>')"],
    ["python", "-c", "token = get_token(); pw = os.environ.get('PW'); h = os.environ['HF_TOKEN']"],
    ["python", "-c", "api_key = cfg.api_key; secret = self.secret; t = tok[0]"],
    ["kubectl", "create", "secret", "generic", "s", "--from-file=password=./pw.txt"],
    ["net", "use", "Z:", r"\\srv\share", "/user:bob", "*"],
    ["htpasswd", "-c", "users", "bob"],
    ["aws", "configure", "set", "region", "us-east-1"],
    ["aws", "configure", "set", "default.aws_secret_access_key", "$AWS_KEY"],
    ["openssl", "enc", "-kfile", "/etc/key", "-pass", "env:PW"],
    ["openssl", "enc", "-pass", "file:/etc/pw"],
    ["terraform", "apply", "-var", "region=us-east-1", "-var", 'tags={team="ml"}'],
    ["python", "train.py", "db.password=${oc.env:PW}", "data.token_file=/data/tok.bin"],
    ["git", "log", "--format=%H:%an@%ad"],
    ["docker", "build", "--secret", "id=npm,src=/run/npmrc", "."],
    ["helm", "upgrade", "x", "--set", "hosts[0]=a.example.com", "--set", "secrets[0]=$PW"],
    ["terraform", "apply", "-var", 'zones=["a", "b"]', "-var", "passwords=[]"],
    ["vault", "login", "-method=userpass", "username=bob"],
    ["wandb", "login", "--relogin"],
    ["ssh-keygen", "-t", "ed25519", "-f", "k"],
    ["smbclient", "-L", "//srv", "-U", "bob"],
    ["rclone", "config", "create", "r", "s3", "provider", "AWS", "region", "us-east-1"],
]


@pytest.mark.parametrize("argv", ORDINARY)
def test_ordinary_arguments_stay(argv):
    assert argv_secret_values(argv) == []
    assert _pipeline_redactor(argv).argv(argv) == argv
