"""Leaks still open after session 18 (helper h19l): each value, unknown to the Redactor (`Redactor({})`) unless the
test says otherwise, is hidden bare, behind a log prefix and through a StreamRedactor cut at every position; the
nearby output that is no secret stays.

1. A secret word with a number stuck to it (DB_PASSWORD2, HF_TOKEN2, TOKEN1, API_KEY2): a flag, os.environ, a YAML
   list, an XML element, a known environment value; not a weak word (`key1=`, `pass1`).
2. `printenv NAME` / `echo $NAME` of a secret-named variable, the value printed on the next line.
3. One-line shapes: git config's `sendemail.smtppass=X`, pytest -l's aligned `auth = ('admin', 'X')`, `Using
   credentials: bob / X`, `your API token is X`, a URL password holding a raw `@` and `#`, PowerShell's
   `ConvertTo-SecureString "X" -AsPlainText`, Spark's aligned `spark.hadoop.fs.s3a.secret.key    X`, htpasswd's and
   /etc/shadow's password hashes (the hash goes, the user stays)."""

from __future__ import annotations

import pytest

from stream_feed import prefixed, hidden_everywhere, kept_everywhere

from aiperf_lab.triage.redact import Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO "]
V = "Zq8Das1xPa55"
HP = "Winter2024!blue"
WORD = "opensesame"


# 1. a number stuck to the secret word
NUMBERED = [f"--api-key2 {WORD}\n", f"--password2 {WORD}\n", f"--hf-token1 {WORD}\n",
            f"os.environ['DB_PASSWORD2'] = '{WORD}'\n", f"api_key2:\n  - {WORD}\n",
            f"<password2>{WORD}</password2>\n", f"<db_secret3>{WORD}</db_secret3>\n"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", NUMBERED)
def test_a_secret_word_with_a_number_stuck_to_it(text, prefix):
    hidden_everywhere(prefixed(text, prefix), WORD)


@pytest.mark.parametrize("name", ["DB_PASSWORD2", "HF_TOKEN2", "TOKEN1", "API_KEY2", "dbPassword2", "SECRET_KEY3"])
def test_a_known_value_under_a_numbered_secret_name_is_hunted(name):
    hidden_everywhere(f"connecting with {WORD} now\n", WORD, redactor=lambda: Redactor({name: WORD}))


@pytest.mark.parametrize("name", ["DB_PASSWORD2", "HF_TOKEN2", "TOKEN1", "API_KEY2", "dbPassword2"])
def test_a_numbered_secret_name_keeps_the_raw_nsys_report_out(name):
    # (triage keeps the raw .nsys-rep only when the Redactor holds no secret of the environment: has_secrets)
    assert Redactor({name: WORD}).has_secrets
    assert not Redactor({"KEY2": WORD, "PASS1": WORD, "CUDA_VISIBLE_DEVICES": "0,1"}).has_secrets


@pytest.mark.parametrize("name", ["DB_PASSWORD2", "HF_TOKEN2", "TOKEN1", "API_KEY2", "api_key2", "PASSWORD_2"])
def test_numbered_secret_names_say_secret(name):
    from aiperf_lab.triage.redact import is_secret_flag, is_secret_name
    assert is_secret_name(name)
    assert is_secret_flag("--" + name.lower().replace("_", "-"))


@pytest.mark.parametrize("name", ["key1", "KEY2", "pass1", "sig2", "pin3", "MAX_TOKEN2_LEN", "token2_count", "tiktoken2",
                                  "sort_key2"])
def test_weak_or_counted_words_with_a_number_stay_plain(name):
    from aiperf_lab.triage.redact import is_secret_name
    assert not is_secret_name(name)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", ["dict(key1='value1', key2='value2')\n", f"--key2 {WORD}\n",
                                  "token1 = tokenizer.decode(ids)\n"])
def test_numbered_names_that_hold_no_secret_stay(text, prefix):
    kept_everywhere(prefixed(text, prefix))


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", [f"DB_PASSWORD2={V}\n", f"HF_TOKEN2={V}\n", f"TOKEN1: {V}\n", f"API_KEY2={V}\n",
                                  f"api_key2: |\n  {V}\n  {WORD}\nnext: 1\n"])
def test_numbered_assignments_hidden_before_stay_hidden_in_text_and_stream(text, prefix):
    hidden_everywhere(prefixed(text, prefix), V)


# 2. printenv NAME / echo $NAME, the value on the next line
PRINTED_VARIABLES = [f"$ printenv DB_PASSWORD\n{HP}\n", f"$ echo $DB_PASSWORD\n{HP}\n", f'$ echo "${{HF_TOKEN}}"\n{V}\n',
                     f"+ printenv API_KEY2\n{WORD}\n", f"printenv GITHUB_TOKEN\n{V}\n",
                     f"+ echo $GITHUB_TOKEN\n{V}\n", f'echo "$HF_TOKEN"\n{V}\n']


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", PRINTED_VARIABLES)
def test_a_printed_secret_variable_on_the_next_line(text, prefix):
    whole = hidden_everywhere(prefixed(text, prefix), text.splitlines()[1])
    assert text.splitlines()[0] in whole   # (the command stays)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", ["$ printenv MAX_NEW_TOKENS\n51200\n", "$ printenv HF_TOKEN_PATH\nfoo123bar\n",
                                  "$ echo $PATH\n/usr/bin\n", f"$ echo $DB_PASSWORD > pw.txt\nsaved{V}\n",
                                  "$ echo $SORT_KEY\nhello123\n", "$ printenv DB_PASSWORD\nError: no such variable\n"])
def test_printed_variables_that_are_no_secret_stay(text, prefix):
    kept_everywhere(prefixed(text, prefix))


# 3. one-line shapes
S3 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz8Q4v2Lk9T"
HASH = "Zq8Das1xPL0mKo9IAbCdEf"
ONE_LINE = [(f"sendemail.smtppass={HP}\n", HP), (f"    smtpPass = {HP}\n", HP),
            (f"auth       = ('admin', '{HP}')\n", HP), (f"auth = ('admin', '{HP}')\n", HP),
            (f"Using credentials: bob / {HP}\n", HP), (f"credentials = alice / {V}\n", V),
            (f"your API token is {V}\n", V), (f"Your access key is: {V}.\n", V),
            ("https://bob:p@ss#Winter2024xblue@host.example.com/x\n", "Winter2024xblue"),
            (f'ConvertTo-SecureString "{HP}" -AsPlainText -Force\n', HP),
            (f"ConvertTo-SecureString '{HP}' -AsPlainText -Force\n", HP),
            (f'$secure = ConvertTo-SecureString "{HP}" -AsPlainText -Force\n', HP),
            (f"spark.hadoop.fs.s3a.secret.key    {S3}\n", S3), (f"spark.ssl.keyPassword {HP}\n", HP),
            (f"bob:$apr1$abc12345${HASH}\n", HASH), (f"root:$6$saltsalt${HASH * 3}:19000:0:99999:7:::\n", HASH),
            (f"alice:$2b$12$R9h/cIPz0gi.URNNX3kh2O{HASH}ABCDEFGHI\n", HASH),
            (f"u:$y$j9T$F5Jx5fExrKuPp53xLKQ..1${HASH}:19000::\n", HASH)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,secret", ONE_LINE)
def test_one_line_shapes(text, secret, prefix):
    hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,kept", [("bob:$apr1$abc12345$Zq8Das1xPL0mKo9IAbCdEf\n", "bob:$apr1$"),
                                       ("root:$6$saltsalt$Zq8Das1xPL0mKo9IAbCdEf:19000:0:99999:7:::\n",
                                        "root:$6$"),
                                       ("root:$6$saltsalt$Zq8Das1xPL0mKo9IAbCdEf:19000:0:99999:7:::\n",
                                        ":19000:0:99999:7:::")])
def test_a_password_hash_goes_and_its_user_stays(text, kept, prefix):
    assert kept in hidden_everywhere(prefixed(text, prefix), "Zq8Das1xPL0mKo9IAbCdEf")


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", ["the API token is invalid\n", "your api key is missing.\n", "the access token is expired\n",
                                  "Loaded credentials from /etc/app/creds.json\n",
                                  "https://host.example.com/x#frag@anchor\n", "see https://x.example.com/#a:b@c\n",
                                  "https://host.example.com/a?x=1#b@c\n",
                                  "ConvertTo-SecureString $plain -AsPlainText -Force\n",
                                  "$secure = ConvertTo-SecureString $plain -AsPlainText -Force\n",
                                  "spark.executor.memory    4g\n", "spark.hadoop.fs.s3a.secret.key  ${env:S3_SECRET}\n",
                                  "price is $5$ and $6$ each\n", "echo $1$2$3\n", "cost: $6$short$x\n",
                                  "bypass=enabled\n", "compass: north-east\n"])
def test_look_alikes_stay(text, prefix):
    kept_everywhere(prefixed(text, prefix))
