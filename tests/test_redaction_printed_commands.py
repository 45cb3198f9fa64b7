"""Session 13 (issue 11): secrets in printed commands, code and protocols that still got through. A printed command
line (`+ cmd` of `bash -x`, a prompt, `Running: cmd`) hides what the workload's argv reading hides; a here-string,
an `echo X |` or a process substitution fed to a password-reading command; SQL (`IDENTIFIED BY`, `PASSWORD 'X'`),
Redis AUTH (prompt, MONITOR, wire), MongoDB `pwd`; Windows logins (NET USE, psexec, FreeRDP /p:, PowerShell);
bytes literals in any language; OSC hyperlinks; value-first and CloudFormation/SSM pairs, `kubectl get secret |
base64 -d` output. Every shape is checked through Redactor.text and a stream in 5- and 4096-character reads, and
ordinary text of the same look stays. The values are in no environment variable: only the rule finds them."""

from __future__ import annotations

import json
import shlex

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

P = "hunter2Pa55w0rd"
S = "Xk9mQ2vL7pR4tW8zAb3"


def _streamed(redactor: Redactor, text: str, size: int) -> str:
    return fed_in_reads(redactor, text, size, piece=1 << 16)


def _gone(text: str, *needles: str) -> None:
    redactor = Redactor({})
    whole = redactor.text(text)
    for out in (whole, _streamed(redactor, text, 4096), _streamed(redactor, text, 5)):
        for needle in needles or (P, S):
            assert needle not in out, out
        assert REDACTED in out, out
        assert out == whole


def _stays(text: str) -> None:
    assert Redactor({}).text(text) == text


# ---- printed command lines read with the argv reader ------------------------------------------------------------

TRACED = [f"npm config set //registry.npmjs.org/:_authToken {S}",
          f"rclone config create r s3 access_key_id AKIA secret_access_key {S}",
          f"lftp -u alice,{P} sftp://h",
          f"ansible-vault decrypt --vault-password-file /dev/stdin <<< {P}",
          f"echo {P} | sudo -S apt update",
          f"chpasswd <<< alice:{P}",
          f"rsync rsync://alice@h/m --password-file=<(echo {P})",
          f"xfreerdp /v:srv /u:alice /p:{P}",
          f"helm upgrade x c --set auth.passwords[0]={P}",
          f"printf '%s' '{P}' | docker login -u bob --password-stdin nvcr.io",
          f"passwd --stdin bob <<< '{P}'"]


@pytest.mark.parametrize("command", TRACED)
@pytest.mark.parametrize("mark", ["+ ", "++ ", "[rank0]: + ", "2026-11-23 10:00:01 + ", "$ ", "user@box:~/x$ ",
                                  "INFO Running: ", "cmd: "])
def test_a_printed_command_hides_what_its_argv_reading_hides(mark, command):
    _gone(f"start\n{mark}{command}\nend\n")


@pytest.mark.parametrize("command", TRACED)
def test_a_traced_command_in_colour_and_in_repr(command):
    _gone(f"\x1b[2m+ {command}\x1b[0m\n")
    _gone(repr(f"+ {command}") + "\n")


@pytest.mark.parametrize("text", [
    f"NET USE Z: \\\\srv\\share /USER:CORP\\alice {P}",
    f"net.exe use \\\\srv\\ipc$ /user:alice {P}",
    f"psexec \\\\srv -u alice -p {P} cmd",
    f"New-SmbMapping -RemotePath \\\\srv\\s -UserName alice -Password {P}",
    f"xfreerdp /v:srv /u:alice /p:{P}",
    f"xfreerdp /v:srv /u:alice /password:'{P}' /cert:ignore",
    f"rdesktop -u alice -p {P} srv",
    f"PS C:\\Users\\bob> $s = ConvertTo-SecureString '{P}' -AsPlainText -Force",
])
def test_windows_logins_go(text):
    _gone(text + "\n")


@pytest.mark.parametrize("argv", [
    ["xfreerdp", "/v:srv", "/u:alice", f"/p:{P}"],
    ["xfreerdp3", "/v:srv", f"/gp:{P}"],
    ["lftp", "-u", f"alice,{P}", "sftp://h"],
    ["psexec", "\\\\srv", "-u", "alice", "-p", P, "cmd"],
    ["ConvertTo-SecureString", P, "-AsPlainText", "-Force"],
])
def test_argv_forms_go(argv):
    out = Redactor({}).argv(argv)
    assert P not in " ".join(out), out
    _gone(f"+ {shlex.join(argv)}\n")


@pytest.mark.parametrize("text", [
    "+ python train.py --epochs 3 -p 8080 --out /tmp/run",
    "+ echo done | tee -a log.txt",
    "++ date +%s",
    "+ cat <<< hello",
    "$ ls -la /data",
    "INFO Running: torchrun --nproc_per_node 8 train.py --lr 3e-4",
    "cmd: nvidia-smi -q -d CLOCK",
    "x = a + b + c",
    "total: + 3 files",
    "NET USE Z: \\\\srv\\share /persistent:no",
    "xfreerdp /v:srv /u:alice /size:1920x1080",
    "helm upgrade x c --set replicas=3,image.tag=v2",
])
def test_ordinary_printed_commands_stay(text):
    _stays(text)


# ---- SQL and database protocols ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    f"ALTER USER app WITH PASSWORD '{P}';",
    f"CREATE USER 'app'@'%' IDENTIFIED BY '{P}';",
    f"create user app identified with mysql_native_password by \"{P}\";",
    f"CREATE USER app IDENTIFIED BY {P};",
    f"2026-11-23 10:00:00 UTC [123] LOG:  statement: CREATE ROLE app LOGIN PASSWORD '{P}'",
    f"2026-11-23T10:00:00.1Z 9 Query\tALTER USER 'app'@'%' IDENTIFIED BY '{P}'",
    f"SET PASSWORD FOR 'app'@'%' = PASSWORD('{P}');",
    f"ALTER ROLE app ENCRYPTED PASSWORD E'{P}'",
    f"redis> AUTH {P}",
    f"127.0.0.1:6379> AUTH default {P}",
    f"AUTH default {P}",
    f'1700000000.123456 [0 127.0.0.1:50000] "AUTH" "{P}"',
    f'1700000000.123456 [0 127.0.0.1:50000] "auth" "default" "{P}"',
    f"*2\\r\\n$4\\r\\nAUTH\\r\\n${len(P)}\\r\\n{P}\\r\\n",
    repr(f"*3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n${len(P)}\r\n{P}\r\n"),
    f"db.createUser({{user: 'app', pwd: '{P}', roles: ['readWrite']}})",
    f'{{"user": "app", "pwd": "{P}"}}',
    f"db.auth('app', '{P}')",
    f'db.changeUserPassword("app", "{P}")',
])
def test_database_passwords_go(text):
    _gone(text + "\n")


@pytest.mark.parametrize("text", [
    "ALTER USER app WITH PASSWORD NULL;",
    "CREATE USER app IDENTIFIED BY PASSWORD;",
    "-- the password is checked below",
    "AUTH failed for user app",
    "Auth ok",
    'print("AUTH", "OK")',
    "pwd: '/home/bob'",
    "cwd = os.getcwd(); print('pwd:', cwd)",
])
def test_ordinary_database_text_stays(text):
    _stays(text)


# ---- bytes literals, OSC hyperlinks -----------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    f"'password': rb'{S}'", f"'password': br'{S}'", f"'password': b'''{S}'''", f"password=bytes('{S}', 'utf-8')",
    f'Password: []byte("{S}")', f"password: Buffer.from('{S}')", f"password = bytearray( b'{S}' )",
    f"password=np.bytes_(b'{S}')", f'"api_key": b"""{S}"""',
])
def test_bytes_literals_of_a_secret_name_go(text):
    _gone(text + "\n")


@pytest.mark.parametrize("text", [
    f"password=\x1b]8;;http://x\x1b\\{P}\x1b]8;;\x1b\\ tail",
    f"password=\x1b]8;;http://x\x07{P}\x1b]8;;\x07",
    f"see \x1b]8;;https://u:{P}@h/x\x1b\\link\x1b]8;;\x1b\\",
    repr(f"password=\x1b]8;;http://x\x1b\\{P}\x1b]8;;\x1b\\"),
])
def test_osc_hyperlinks_do_not_hide_a_value(text):
    _gone(text + "\n")


def test_osc_sequences_without_a_secret_stay():
    _stays("\x1b]0;train.py\x07epoch 1 loss 0.5")
    _stays("\x1b]8;;https://docs.nvidia.com/x\x1b\\docs\x1b]8;;\x1b\\ for details")


# ---- name/value pairs in other orders --------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    f"env:\n- value: {P}\n  name: DB_PASSWORD\n",
    json.dumps({"env": [{"value": P, "name": "DB_PASSWORD"}]}),
    json.dumps({"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": P}]}),
    json.dumps({"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": P}]}, indent=2),
    f"aws cloudformation deploy --parameter-overrides ParameterKey=DbPassword,ParameterValue={P}",
    json.dumps({"Parameter": {"Name": "/prod/db/password", "Type": "SecureString", "Value": P}}, indent=4),
    json.dumps({"Parameter": {"Value": P, "Name": "/prod/x", "Type": "SecureString"}}),
    f"kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{P}\n",
    f"+ kubectl get secret db -o jsonpath='{{.data.password}}' | base64 --decode\n{P}\n",
    f"$ kubectl -n prod get secrets db -o jsonpath={{.data.token}}\naHVudGVyMlBhNTV3MHJk\n",
])
def test_reordered_and_cloud_pairs_go(text):
    _gone(text, P, "aHVudGVyMlBhNTV3MHJk")


@pytest.mark.parametrize("text", [
    "env:\n- value: info\n  name: LOG_LEVEL\n",
    "- value: x1y2z3w4\n- name: DB_PASSWORD\n",
    json.dumps({"Parameters": [{"ParameterKey": "InstanceType", "ParameterValue": "p5.48xlarge"}]}),
    json.dumps({"Parameter": {"Name": "/prod/x", "Type": "String", "Value": "us-east-1"}}),
    "kubectl get secrets -A\nNAME   TYPE   DATA   AGE\n",
    "kubectl get pods -o jsonpath='{.items[*].metadata.name}'\ntrainer-0\n",
])
def test_ordinary_pairs_stay(text):
    _stays(text)


# ---- a generated password that starts with "/" after a printed flag ---------------------------------------------

def test_a_path_shaped_generated_password_after_a_printed_flag_goes():
    _gone("+ serve --password /eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX\n", "eIrB8jpQFyiadvr", "vI1sSZ6qPIqpzFX")
    _gone("serve.py --password /lRG7neE+AEwDugtE3OeFKZSobYCcSWz --port 80\n", "lRG7neE+AEwDugtE3OeFKZSobYCcSWz")


def test_a_real_path_after_a_printed_secret_flag_stays():
    _stays("serve.py --token /run/secrets/hf_token --port 80")
    _stays("serve.py --password ./config/db_password.txt")


# ---- h14: vllm's --api-key K1 K2 (nargs) printed; other secret stores' bare prints ---------------------------------------

K1, K2, K3 = "Qm7vT2xLp9RzW4kN", "VtMJjqb0SoEItS5JO3sZ", "team2key!x9"


def _hidden_in_text_and_stream(text: str, *values: str) -> None:
    redactor = Redactor({})
    out = redactor.text(text)
    assert not [v for v in values if v in out], out
    for size in (1, 6, 64, 4096):
        streamed = _streamed(Redactor({}), text, size)
        assert not [v for v in values if v in streamed], (size, streamed)


@pytest.mark.parametrize("line", [
    "Running: vllm serve meta-llama/Llama-3-8B --api-key {a} {b} {c} --port 8000",
    "+ vllm serve m --api-key {a} {b} {c}", "$ vllm serve m --api-key {a} {b} {c}",
    "cmd: ['vllm', 'serve', 'm', '--api-key', '{a}', '{b}', '{c}', '--port', '8000']",
    "args: --api-key {a} {b} {c} --model m", "[rank0]: vllm serve m --api-keys {a} {b} {c}",
])
def test_every_key_after_a_printed_api_key_flag_goes(line: str) -> None:
    _hidden_in_text_and_stream(line.format(a=K1, b=K2, c=K3) + "\n", K1, K2, K3)


def test_words_after_the_keys_that_are_no_key_stay() -> None:
    line = f"+ vllm serve --api-key {K1} meta-llama/Llama-3-8B --port 8000\n"
    out = Redactor({}).text(line)
    assert K1 not in out and "meta-llama/Llama-3-8B --port 8000" in out
    line = f"+ python run.py --hf-token {K1} {K2}\n"   # (one value: a word after --hf-token is no second token)
    assert K2 in Redactor({}).text(line)


STORE_PRINTS = [
    "$ gcloud secrets versions access latest --secret=db-pass\n{v}\n",
    "+ gcloud secrets versions access latest --secret db-pass --project p\n{v}\n",
    "+ gcloud secrets versions access 3 --secret=db-pass\n{v}\n",
    "$ aws secretsmanager get-secret-value --secret-id db --query SecretString --output text\n{v}\n",
    "$ vault kv get -field=password secret/db\n{v}\n", "$ vault read -field=value secret/db\n{v}\n",
    "$ op read op://Private/db/password\n{v}\n",
    "$ az keyvault secret show --vault-name kv --name db --query value -o tsv\n{v}\n",
]


@pytest.mark.parametrize("printed", STORE_PRINTS)
def test_a_secret_store_print_hides_the_bare_value_on_the_next_line(printed: str) -> None:
    _hidden_in_text_and_stream(printed.format(v=K2), K2)


@pytest.mark.parametrize("printed", [
    "$ gcloud secrets versions list db-pass\nNAME  STATE    CREATED\n",
    "$ aws secretsmanager get-secret-value --secret-id db --output json\n{{\n",
    "$ vault kv get secret/db\n====== Data ======\n", "$ op read --help\nRead a secret reference\n",
    "$ gcloud secrets versions access latest --secret=db\nERROR: (gcloud.secrets.versions.access) NOT_FOUND\n",
])
def test_other_secret_store_commands_keep_the_next_line(printed: str) -> None:
    out = Redactor({}).text(printed)
    assert out.splitlines()[1] == printed.splitlines()[1]


# ---- h14 (rt9 F1, F2): prose and usage lines that name a secret's word keep their words --------------------------------

@pytest.mark.parametrize("line", ["GPU 0 identified by PCI bus id 00000000:18:00.0", "the process identified by pid 4242",
                                  "Each run is identified by its timestamp", "Device identified by UUID GPU-1234abcd",
                                  "usage: -c [-h] --api-key API_KEY", "usage: x [--hf-token HF_TOKEN] [--password PASSWORD]",
                                  "initdb --auth-local peer --auth-host scram-sha-256",
                                  "$ kubectl get secret hf-secret -o jsonpath='{.data.token}'\nsecret/hf-secret created"])
def test_prose_usage_and_settings_beside_secret_words_stay(line: str) -> None:
    assert Redactor({}).text(line + "\n") == line + "\n"


@pytest.mark.parametrize("statement", ["ALTER USER 'app'@'%' IDENTIFIED BY '{v}';", "ALTER USER scott IDENTIFIED BY {v};",
                                       'create user app identified with mysql_native_password by "{v}";',
                                       "CREATE DATABASE LINK l CONNECT TO u IDENTIFIED BY {v} USING 'x'",
                                       "GRANT ALL ON *.* TO 'a'@'%' IDENTIFIED BY '{v}'",
                                       "+ kubectl get secret db -o jsonpath='{{.data.token}}'\n{b}"])
def test_sql_and_kubectl_secrets_still_go(statement: str) -> None:
    text = statement.format(v=K2, b="aGZfYWJjZGVmZ2hpams=") + "\n"
    out = Redactor({}).text(text)
    assert K2 not in out and "aGZfYWJjZGVmZ2hpams=" not in out, out


# ---- h14 (rt9 R6): bash -x prints an argument's quotes as '\'' -------------------------------------------------------

@pytest.mark.parametrize("statement", ["ALTER USER {q}app{q}@{q}%{q} IDENTIFIED BY {q}{v}{q}",
                                       "ALTER USER app PASSWORD {q}{v}{q}",
                                       "CREATE USER {q}app{q} IDENTIFIED BY {q}{v}{q}; GRANT ALL ON db.* TO app"])
@pytest.mark.parametrize("client", ["+ mysql -e", "+ psql -c", "[rank0]: + mysql -u root -e", "++ mariadb -e"])
def test_sql_passed_to_a_client_under_bash_x_hides_its_password(statement: str, client: str) -> None:
    text = f"{client} '" + statement.format(q="'\\''", v=K2) + "'\n"
    out = Redactor({}).text(text)
    assert K2 not in out and REDACTED in out, out
    for size in (1, 7, 4096):
        assert K2 not in _streamed(Redactor({}), text, size), size


def test_quoted_quotes_with_no_secret_stay() -> None:
    text = "+ echo 'it'\\''s fine'\n+ git commit -m 'don'\\''t panic'\n"
    assert Redactor({}).text(text) == text


# ---- h14 (rt9 R5): commands printed behind a root or bracketed prompt, and as a list of their words -------------------

@pytest.mark.parametrize("line", ["[alice@node-01 run]$ sshpass -p {v} ssh h", "root@box:/# mysql -uroot -p{v} db",
                                  "[root@node-01 ~]# redis-cli -a {v} ping", "(venv) [alice@node-01 run]$ train.py --hf-token {v}",
                                  "root@box:/# export DB_PASSWORD={v}"])
def test_a_command_behind_a_prompt_hides_its_secret(line: str) -> None:
    _hidden_in_text_and_stream(line.format(v=K1) + "\n", K1)


@pytest.mark.parametrize("line", [
    "subprocess.CalledProcessError: Command '['sshpass', '-p', '{v}', 'ssh', 'h']' returned non-zero exit status 1.",
    "DEBUG Popen(args=['docker', 'login', '-u', 'bob', '-p', '{v}', 'nvcr.io'], returncode=1)",
    "Command '['lftp', '-u', 'alice,{v}', 'sftp://h']' returned non-zero exit status 1.",
    'execve("/usr/bin/mysql", ["mysql", "-uroot", "-p{v}", "db"], 0x7ffd /* 30 vars */) = 0',
    "[rank0]: cmd: ['redis-cli', '-a', '{v}', 'ping']", "launching ['serve.py', '--api-key', '{v}']",
])
def test_a_command_printed_as_a_list_of_words_hides_its_secret(line: str) -> None:
    text = line.format(v=K1) + "\n"
    _hidden_in_text_and_stream(text, K1)
    out = Redactor({}).text(text)
    assert out.count("'") == text.count("'") and out.count('"') == text.count('"')   # (the list's quotes stay)


@pytest.mark.parametrize("line", ["# comment: run it with --password", "## Build", "x = 1  # token count",
                                  "['hello', 'world', 'token']", "cmd: ['python', 'train.py', '--lr', '3e-4']",
                                  "tags: ['password-reset', 'v2']"])
def test_comments_and_lists_that_are_no_secret_command_stay(line: str) -> None:
    assert Redactor({}).text(line + "\n") == line + "\n"


# ---- h15 (rt9 R5): commands printed behind zsh, starship, GitHub Actions, docker build and sudo's log ----------------

@pytest.mark.parametrize("command", TRACED)
@pytest.mark.parametrize("mark", ["% ", "alice@box run % ", "box% ", "\u276f ", "##[group]Run ",
                                  "2026-11-24T00:00:01.1234567Z ##[group]Run ", "Run ", "#7 [3/5] RUN ",
                                  "#7 0.512 [stage-1 3/5] RUN ", "Step 3/5 : RUN ",
                                  "Nov 24 00:00:01 box sudo:    alice : TTY=pts/0 ; PWD=/home/alice ; USER=root ; COMMAND=/usr/bin/"])
def test_a_command_behind_other_prompts_and_logs_hides_its_secret(mark: str, command: str) -> None:
    _gone(f"start\n{mark}{command}\nend\n")


@pytest.mark.parametrize("line", ["50% of tokens --max-tokens 4096 -p 2 were cached", "loss 0.31 100% tokens -p 8",
                                  "Run 3 of 5: --lr 3e-4 -p 0.9 tokens/s 812", "\u276f ls -la ~/keys", "% ls -la ~/tokens",
                                  "#5 [2/4] RUN pip install --no-cache-dir -r requirements.txt", "Step 2/4 : RUN apt-get update",
                                  "sudo: alice : TTY=pts/0 ; USER=root ; COMMAND=/usr/bin/systemctl restart keyd",
                                  "##[group]Run actions/checkout@v4",
                                  "Nov 24 box sudo: alice : USER=root ; COMMAND=/usr/bin/ls -la /etc/ssl/private"])
def test_ordinary_lines_behind_the_other_prompts_stay(line: str) -> None:
    _stays(line + "\n")


# ---- h15 (rt9 R3): a quoted password typed at a Redis prompt ------------------------------------------------------

@pytest.mark.parametrize("line", ['127.0.0.1:6379> AUTH "{v}"', "127.0.0.1:6379> AUTH default '{v}'",
                                  '127.0.0.1:6379> auth "default" "{v}"', 'redis> auth "{v}"', 'AUTH default "{v}"',
                                  '[rank0]: 127.0.0.1:6379> AUTH "{v}"'])
def test_a_quoted_password_at_a_redis_prompt_goes(line: str) -> None:
    _gone(line.format(v=P) + "\n", P)
    assert Redactor({}).text(line.format(v=P) + "\n").count('"') == line.count('"')   # (its quotes stay)


@pytest.mark.parametrize("line", ['127.0.0.1:6379> AUTH ""', 'auth "required"', "auth failed for 'bob'",
                                  '127.0.0.1:6379> GET "session:42"'])
def test_other_quoted_words_at_a_redis_prompt_stay(line: str) -> None:
    _stays(line + "\n")
