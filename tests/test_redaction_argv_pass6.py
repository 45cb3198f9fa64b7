"""Sixth red-team pass (issue 11): secrets given on the workload's command line in the forms ML jobs use
(Hydra/OmegaConf overrides, `--set name=value`, `VAR=value` words before the command, a URL with a password, a
JSON config, a `bash -c` / `sh -c` string holding any of those) are known secrets: the workload's own print of
them goes, and every copy inside a shell string goes from the command written to the bundle. The ordinary
arguments around them stay."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, argv_secret_values

SECRET = "S3cr3tx9Qz"


def _known(argv: list[str], secret: str = SECRET) -> None:
    """The value is found on the command line, hidden where the workload prints it and everywhere in the
    command as triage writes it."""
    values = argv_secret_values(argv)
    assert secret in values, values
    redactor = Redactor({}, extra_secrets=values)
    assert secret not in redactor.text(f"got {secret}\n")
    written = json.dumps(redactor.argv(argv))
    assert secret not in written, written
    assert REDACTED in written


@pytest.mark.parametrize("argv", [
    ["python", "train.py", f"db.password={SECRET}"],
    ["python", "train.py", f"+trainer.api_key={SECRET}"],
    ["python", "train.py", f"++x.token={SECRET}"],
    ["python", "train.py", f"db.password='{SECRET}'"],
    ["helm", "install", "x", "--set", f"auth.token={SECRET}"],
    ["helm", "install", "x", f"--set=auth.token={SECRET}"],
    ["python", "load.py", f"postgres://app:{SECRET}@db/x"],
    ["python", "load.py", f"--dsn=postgres://app:{SECRET}@db:5432/x"],
    ["env", f"DB_PASSWORD={SECRET}", "python", "x.py"],
    [f"DB_PASSWORD={SECRET}", "python", "x.py"],
    ["python", "x.py", "--config", json.dumps({"password": SECRET})],
    ["python", "x.py", "--config", json.dumps({"db": {"user": "app", "apiKey": SECRET}, "lr": 0.1})],
    ["python", "x.py", f"--config={json.dumps({'token': SECRET})}"],
])
def test_argument_forms_are_known_secrets(argv):
    _known(argv)


@pytest.mark.parametrize("script", [
    f"echo sshpass -p {SECRET} ssh h; echo got {SECRET}",
    f"echo got {SECRET}; true mysql -p{SECRET} db",
    f"python3 -c 'import sys; print(\"got\", sys.argv[2])' --db-password {SECRET}",
    f"DB_PASSWORD={SECRET} python3 -c 'import os; print(os.environ[\"DB_PASSWORD\"])'",
    f"echo docker run -e DB_PASSWORD={SECRET} img; echo got {SECRET}",
    f"cd /x && python train.py db.password={SECRET} && echo {SECRET}",
    f"psql postgres://u:{SECRET}@h/db|tee log; echo {SECRET}",
    f"bash -c 'python x.py --token {SECRET}'; echo {SECRET}",         # a shell string inside one
    f"echo \"unbalanced; python x.py --password {SECRET}; echo {SECRET}",  # quotes that never close
])
@pytest.mark.parametrize("shell", [["bash", "-c"], ["sh", "-c"], ["/bin/bash", "-lc"], ["bash", "-euo", "pipefail", "-c"]])
def test_shell_strings_are_split_and_every_copy_goes(shell, script):
    argv = [*shell, script]
    _known(argv)
    assert SECRET not in " ".join(Redactor({}, extra_secrets=argv_secret_values(argv)).argv(argv))


def test_shell_strings_after_a_launcher():
    _known(["docker", "run", "img", "sh", "-c", f"DB_PASSWORD={SECRET} ./serve"])
    _known(["srun", "-N1", "bash", "-c", f"python x.py +db.password={SECRET}"])


@pytest.mark.parametrize("argv", [
    ["python", "train.py", "trainer.max_steps=1000", "model.name=llama", "db.host=db.local"],
    ["python", "train.py", "tokenizer.pad_token_id=0", "optim.lr=3e-4", "+exp=base"],
    ["python", "train.py", "auth.token_file=/run/secrets/tok", "db.password=null", "db.password=${oc.env:PW}"],
    ["python", "train.py", "model.max_new_tokens=256", "data.token_budget=4096"],
    ["env", "CUDA_VISIBLE_DEVICES=0,1", "OMP_NUM_THREADS=8", "python", "x.py"],
    ["python", "x.py", "https://huggingface.co/meta-llama/Llama-3-8B", "--url", "http://h:8000/v1"],
    ["python", "x.py", "--config", json.dumps({"lr": 0.1, "tokenizer": {"pad_token": "<pad>"}, "max_tokens": 100})],
    ["python", "x.py", "--config", "{not json"],
    ["bash", "-c", "for i in 1 2 3; do python x.py --seed $i step=$i; done"],
    ["bash", "-c", "echo 'unbalanced"],
    ["sh", "-c"],
    ["python", "-c", "import os; token = os.environ['HF_TOKEN']; print(token)"],
])
def test_ordinary_arguments_give_no_secret(argv):
    assert argv_secret_values(argv) == []


def test_nested_shell_strings_are_bounded():
    script = SECRET
    for _ in range(7):   # (each level of quoting grows it about 5 times)
        script = "bash -c " + __import__("shlex").quote(f"x --token {script}")
    assert argv_secret_values(["bash", "-c", script]) is not None   # returns, whatever it finds that deep


@pytest.mark.parametrize("argv", [
    ["python", "train.py", "dataset.key=train", "sort.key=loss", "+run.pin=cpu0"],
    ["python", "x.py", "--config", json.dumps({"key": "label", "split": "validation"})],
])
def test_a_bare_key_name_needs_a_key_like_value(argv):
    assert argv_secret_values(argv) == []


def test_a_bare_key_name_with_a_key_like_value_is_a_secret():
    _known(["python", "train.py", "dataset.key=Zq8DaspUtbuleC5C0Hzj"], "Zq8DaspUtbuleC5C0Hzj")


# ---- F5: credential variables whose one word ends the way a password's name does ----------------------------
@pytest.mark.parametrize("name", ["SSHPASS", "LDAP_BINDPW", "LDAP_BINDPASS", "SLAPD_ROOTPW", "KEYSTORE_STOREPASS",
                                  "KEYPASS", "SRCSTOREPASS", "DESTKEYPASS", "APPKEY"])
def test_password_words_of_tools_are_secret_names(name):
    from aiperf_lab.triage.redact import is_secret_name
    assert is_secret_name(name)
    redactor = Redactor({name: "Zx9!envSSHPASS1"})
    assert redactor.has_secrets
    assert redactor.environment({name: "Zx9!envSSHPASS1"})[name] == REDACTED
    assert "Zx9!envSSHPASS1" not in redactor.text("got Zx9!envSSHPASS1")


@pytest.mark.parametrize("name", ["PGPASSFILE", "SSHPASS_FILE", "GIT_ASKPASS", "SUDO_ASKPASS", "SSH_ASKPASS", "BYPASS",
                                  "NO_PROXY_BYPASS", "COMPASS_DIR", "NCCL_IB_PKEY", "PGPASSFILE_DIR"])
def test_paths_and_programs_of_that_family_are_not(name):
    from aiperf_lab.triage.redact import is_secret_name
    assert not is_secret_name(name)


# ---- F9: values under a token-ish name that are plainly no secret ---------------------------------------------
@pytest.mark.parametrize("line", [
    "step=100 loss=2.3412 tokens/s=51234 token=128000 pass=2",
    "generate(max_new_tokens=256, pad_token='<|endoftext|>')",
    "tokenizer(pad_token=\"</s>\", unk_token='[UNK]', mask_token='<mask>')",
    '{"bos_token": "<|begin_of_text|>", "token": 50256}',
])
def test_token_counts_and_special_tokens_stay(line):
    assert Redactor({}).text(line) == line


@pytest.mark.parametrize("line", [
    "token=Zq8DaspUtbuleC5C0HzjwSLo", "pad_token='Zq8DaspUtbuleC5C0HzjwSLo'", "password=128000",
    "api_token: 'hunter2x!'", "token=12345678901234567890123",
])
def test_real_token_values_still_go(line):
    assert REDACTED in Redactor({}).text(line)


# ---- F8: --redact-hosts and C++ names that read as IPv6 -------------------------------------------------------
@pytest.mark.parametrize("name", ["c10::{lambda()#1}::_FUN()", "c10::(anonymous namespace)::fn", "c10::<lambda>",
                                  "c10::~Storage()", "ab::cd()", "void at::native::add()"])
# (`dead::beef`, `ace::ace` alone are valid IPv6 addresses, as `a::b` is: they still go)
def test_cxx_names_are_not_ipv6(name):
    assert Redactor({}, redact_hosts=True).text(name) == name


@pytest.mark.parametrize("address", ["fe80::1", "2001:db8::1", "fe80::1%eth0", "2001:db8:0:0:0:0:0:1", "::ffff:203.0.113.9",
                                     "2001:db8::", "fd00:abcd::beef"])
def test_real_ipv6_still_goes(address):
    for line in (f"inet6 {address}/64 scope link", f"from {address} port 22", f"[{address}]:8080", f"({address})"):
        assert address not in Redactor({}, redact_hosts=True).text(line), line
