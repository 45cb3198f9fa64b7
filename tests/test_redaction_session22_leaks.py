"""Leaks still open after session 21, and new shapes from a red team (helper h22a, issue 11: no planted secret in any
bundle). Each value is unknown to the Redactor (`Redactor({})`, as when a job prints what a tool or a service printed);
each form is hidden bare and behind a log prefix (`[rank0]: `, an ISO time, compose's `api-1  | `), whole and through a
StreamRedactor cut at every place (stream_feed.hidden_everywhere); what is no secret stays byte for byte
(kept_everywhere).

1. A value alone on the next line (maybe after a blank one) after a line that announces it, behind a log prefix too, or
   in a JSON record per line (`Your API token is:`, `Here is your token:`, `Generated password:`), and after a few
   words that name a secret with no colon (Grafana's and Keycloak's `Admin password`, `Initial admin password`)
   (announced.announced_value_spans).
2. Listings aligned by blanks whose secret column is named only TOKEN or KEY (`NAME  TOKEN`, kubeadm's `TOKEN  TTL`,
   `user  key`), bare or behind a log prefix (tables.aligned_listing_spans).
3. Secrets in sentences spaced by two blanks or in brackets, `Password for admin was reset to X` (announced.prose_spans).
4. A password piped to smbpasswd/passwd from a group of echoes: `(echo X; echo X) | smbpasswd -s -a bob`
   (printed_commands).
5. An answer typed for a prompt (expect's `send "X\\r"` after `expect "Password:"`, a REPL's echo of a secret-named
   read) (announced.typed_answer_spans); `aws configure get aws_secret_access_key`, `aws ecr get-login-password` then
   the value on the next line (store_prints).
"""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import Redactor
from stream_feed import hidden_everywhere, json_records, kept_everywhere, prefixed

PREFIXES = ["", "[rank0]: ", "2026-11-24T03:00:01.123Z ", "api-1  | "]
VALUES = {"short": "Tq7mZ2x9", "dashed": "a8f3-k29d-x7q1-m4p0", "base64": "c2VjcmV0LXZhbHVlLTQ0MjE=",
          "hex": "9f86d081884c7d659a2feaa0c55ad015"}
PW = "Winter2024!blue"
TK = "Qx7vR2mZ9pLk4TnQx7vR2mZ9pLk4Tn"
AWSK = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9q8Lk2Tn"


# 1. a value after the line that announces it
# (a password's announcing line behind a log prefix was held already: line views open on `passw`; h21b's tests)
LEADS = ["Your API token is:", "Here is your token:", "Your new API key:"]


@pytest.mark.parametrize("prefix", PREFIXES[1:])
@pytest.mark.parametrize("gap", ["\n", "\n\n"])
@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("lead", LEADS)
def test_a_value_after_its_announcing_line_behind_a_log_prefix(lead, value, gap, prefix):
    hidden_everywhere(prefixed(f"{lead}{gap}{VALUES[value]}\n", prefix), VALUES[value])


@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("lead", LEADS)
def test_a_value_after_its_announcing_line_in_json_records(lead, value):
    hidden_everywhere(json_records(f"{lead}\n{VALUES[value]}\n"), VALUES[value])


NO_COLON = {
    "grafana": (f"####################\nAdmin password\n\n{PW}\n####################\n", PW),
    "keycloak": (f"Keycloak admin user: admin\nKeycloak admin password\n\n{VALUES['short']}\n\nPlease change it\n",
                 VALUES["short"]),
    "initial admin password": (f"Initial admin password\n{VALUES['dashed']}\n", VALUES["dashed"]),
    "jenkins without its colon": (f"Please use the following password to proceed to installation\n\n"
                                  f"{VALUES['hex']}\n\nThis may also be found at: /var/jenkins_home/secrets/x\n",
                                  VALUES["hex"]),
    "api token words": (f"Your API token\n{VALUES['base64']}\n", VALUES["base64"]),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(NO_COLON))
def test_a_value_after_words_that_name_a_secret(kind, prefix):
    text, secret = NO_COLON[kind]
    whole = hidden_everywhere(prefixed(text, prefix), secret)
    assert "password" in whole.lower() or "token" in whole.lower()


def test_words_that_name_a_secret_keep_what_is_no_value():
    kept_everywhere("Admin password\n\nSuccessfully\n")
    kept_everywhere("Reset password\nDone.\n")
    kept_everywhere("Loaded the tokenizer's special token\n</s>\n")


# 2. listings whose secret column is named TOKEN or KEY
LISTINGS = {
    "NAME TOKEN": (f"NAME     TOKEN\nalice    {TK}\n", TK),
    "kubeadm token list": ("TOKEN                     TTL         EXPIRES                USAGES                   "
                           "DESCRIPTION\nabcdef.0123456789abcdef   23h         2026-11-25T22:00:00Z   "
                           "authentication,signing   The default bootstrap token\n", "abcdef.0123456789abcdef"),
    "user key": (f"user     key\nbob      {TK}\n", TK),
    "ID NAME KEY": (f"ID   NAME       KEY\n1    trainer    {TK}\n", TK),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(LISTINGS))
def test_a_listing_whose_secret_column_is_token_or_key(kind, prefix):
    text, secret = LISTINGS[kind]
    whole = hidden_everywhere(prefixed(text, prefix), secret)
    assert "23h" in whole or "alice" in whole or "bob" in whole or "trainer" in whole


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", [
    "NAME      TOKEN\nbos       <s>\neos       </s>\npad       <pad>\n",
    "id      token\n128000  <|begin_of_text|>\n271     Hello\n",
    "key            value\nlr             0.001\nmodel          llama-3-8b\nbatch_size     32\n",
    "KEY            VALUE\nmax_len        4096\nmodel          llama3\n",
    "step   tokens/s   loss\n10     31245.2    2.31\n",
])
def test_listings_of_tokens_and_keys_that_are_no_secrets_stay(text, prefix):
    kept_everywhere(prefixed(text, prefix))


# 3. sentences
SENTENCES = {
    "token with two blanks": (f"Using token  {TK}  for auth\n", TK),
    "key in brackets": (f"api key [{TK}] accepted\n", TK),
    "secret with two blanks": (f"client secret  {VALUES['dashed']}  expires in 90 days\n", VALUES["dashed"]),
    "password was reset to": (f"Password for admin was reset to {PW}\n", PW),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(SENTENCES))
def test_a_secret_in_a_sentence_spaced_or_bracketed(kind, prefix):
    text, secret = SENTENCES[kind]
    hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("text", ["Using token ids [1, 2, 3] for padding\n", "the eos token  </s>  ends it\n",
                                  "api key [REQUIRED] missing\n", "Password for admin was reset to default\n"])
def test_sentences_without_a_secret_stay(text):
    kept_everywhere(text)


# 4. a group of echoes piped to a password reader
@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_group_of_echoes_piped_to_smbpasswd(prefix):
    whole = hidden_everywhere(prefixed(f"(echo {PW}; echo {PW}) | smbpasswd -s -a bob\n", prefix), PW)
    assert "smbpasswd -s -a bob" in whole


@pytest.mark.parametrize("text", [
    f"printf '{PW}\\n{PW}\\n' | smbpasswd -s -a bob\n",
    json.dumps({"message": f'echo -e "{PW}\\n{PW}" | passwd bob'}) + "\n",
    repr(f'echo -e "{PW}\\n{PW}" | passwd bob') + "\n",
])
def test_piped_passwords_held_already_stay_hidden(text):
    hidden_everywhere(text, PW)


def test_a_group_of_commands_not_piped_to_a_reader_stays():
    kept_everywhere("(cd /tmp; echo Xy9Kq2mZ) | cat\n")
    kept_everywhere("(echo a1b2c3d4e5; echo Xy9Kq2mZ) | sort\n")


# 5. typed answers and store prints
TYPED = {
    "expect send": (f"expect \"Password:\"\nsend \"{PW}\\r\"\n", PW),
    "python REPL environ": (f">>> os.environ['OPENAI_API_KEY']\n'{TK}'\n", TK),
    "ipython getenv": (f"In [3]: os.getenv(\"HF_TOKEN\")\nOut[3]: '{TK}'\n", TK),
    "aws configure get": (f"$ aws configure get aws_secret_access_key\n{AWSK}\n", AWSK),
    "aws ecr get-login-password": ("$ aws ecr get-login-password --region us-east-1\n"
                                   "eyJwYXlsb2FkIjoiUXg3dlIybVo5cExrNFRuUXg3dlIybVo5cExrNFRu\n",
                                   "eyJwYXlsb2FkIjoiUXg3dlIybVo5cExrNFRuUXg3dlIybVo5cExrNFRu"),
}


@pytest.mark.parametrize("prefix", PREFIXES[:2])
@pytest.mark.parametrize("kind", sorted(TYPED))
def test_an_answer_typed_or_printed_for_a_secret(kind, prefix):
    text, secret = TYPED[kind]
    hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("text", [
    "expect \"Password:\"\nsend \"$pw\\r\"\n",
    "expect \"login:\"\nsend \"bob\\r\"\n",
    ">>> tokenizer.eos_token\n'</s>'\n",
    ">>> os.environ['HOME']\n'/root/work'\n",
    "$ aws configure get region\nus-east-1\n",
    "$ aws ecr get-login-password | docker login --username AWS --password-stdin x\nLogin Succeeded\n",
])
def test_prompts_and_reads_of_no_secret_stay(text):
    kept_everywhere(text)


def test_only_the_value_goes():
    assert Redactor({}).text(f"[rank0]: Your API token is:\n[rank0]: {TK}\n") == (
        "[rank0]: Your API token is:\n[rank0]: [REDACTED]\n")
    assert Redactor({}).text(f"NAME     TOKEN\nalice    {TK}\n") == "NAME     TOKEN\nalice    [REDACTED]\n"


# 6. vault's `Key  Value` listing behind a log prefix; influx's `-t TOKEN`
@pytest.mark.parametrize("prefix", PREFIXES[1:])
def test_a_key_value_listing_behind_a_log_prefix(prefix):
    text = f"====== Data ======\nKey         Value\n---         -----\napi_key     {TK}\nusername    bob\n"
    whole = hidden_everywhere(prefixed(text, prefix), TK)
    assert "username    bob" in whole


@pytest.mark.parametrize("prefix", PREFIXES[:2])
def test_influx_token_flag(prefix):
    whole = hidden_everywhere(prefixed(f"+ influx setup -u admin -p {PW} -t {TK} -o org -b bucket -f\n", prefix), TK)
    assert "-o org" in whole


@pytest.mark.parametrize("text", ["influx write -t 5 data\n", "influx query -t \"$INFLUX_TOKEN\" 'from(bucket: \"b\")'\n",
                                  "api-1  | Key                 Value\napi-1  | ---                 -----\n"
                                  "api-1  | created_time        2026-11-24T03:00:01Z\napi-1  | version             3\n"])
def test_influx_flags_and_listings_of_no_secret_stay(text):
    kept_everywhere(text)


# 7. a secret store's bootstrap print with a two-word label; cargo login
BOOTSTRAP = {
    "vault operator init": ("Unseal Key 1: 7ZkR3+fQ9r4lMk0x1bXh8g2Yw1J1nq2cXq3r4s5t6u8=\n\nInitial Root Token: hvs.x\n",
                            "7ZkR3+fQ9r4lMk0x1bXh8g2Yw1J1nq2cXq3r4s5t6u8="),
    "nomad acl bootstrap": ("Accessor ID  = 5a1b2c3d-0000-1111-2222-333344445555\n"
                            "Secret ID    = 78fa095d-3f4c-48b1-ad50-e24c31d5cf35\n", "78fa095d-3f4c-48b1-ad50-e24c31d5cf35"),
    "cargo login": (f"+ cargo login {TK}\n", TK),
}


@pytest.mark.parametrize("prefix", PREFIXES[:2])
@pytest.mark.parametrize("kind", sorted(BOOTSTRAP))
def test_a_bootstrap_print_or_a_cargo_login(kind, prefix):
    text, secret = BOOTSTRAP[kind]
    hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("text", ["token  \"beast-2021/report1.sqlite::osrt_sum\": {\n", "cargo login --registry crates-io\n",
                                  "Seal Type       shamir\nUnseal Progress    0/3\n"])
def test_bootstrap_labels_and_spaced_names_of_no_secret_stay(text):
    kept_everywhere(text)


# false positives the sweep of site-packages and the standard library found in this lane's first forms
@pytest.mark.parametrize("text", [
    ">>> _encode_auth('username%3Apassword')\n'dXNlcm5hbWU6cGFzc3dvcmQ='\n",   # (a call's result: setuptools' doctest)
    ">>> token_hex(16)  #doctest:+SKIP\n'f9bf78b9a18ce6d46a0cd2b0b86df9da'\n",   # (the secrets module's)
    ">>> ftp.login()\n'230 Guest login ok, access restrictions apply.'\n",
    "expect_style = Expect(\n    \"style token\",\n    end_tag=r\"(?<!\\\\)\\]\",\n",   # (textual's tokenizer)
])
def test_code_and_doctests_that_name_a_secret_stay(text):
    kept_everywhere(text)
