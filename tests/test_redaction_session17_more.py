"""Leaks red team h17r listed on main after session 17's first merges (helper h17m): each value, unknown to the
Redactor (`Redactor({})`), is hidden bare, behind a log prefix and through a StreamRedactor cut at every position; the
nearby output that is no secret stays.

1. `cat` of a file that holds one secret: a Docker/Kubernetes secret under /run/secrets/ or /var/run/secrets/, a file
   named *password*, *secret*, *token* (no extension but .txt): its print on the next line; bash -x's `++ cat
   /run/secrets/x` (a command substitution) then `+ NAME=X`.
2. bash -x of `echo "$PW" | docker login --password-stdin` (or `| sudo -S`, `printf '%s' X |`): the pipeline's commands
   traced on two lines, `+ echo X` then `+ docker login ... --password-stdin` (or the other way round).
3. Environment names whose values are hunted as known secrets: PEPPER (a hash's pepper, as SALT), AZ_SAS / AZURE_SAS
   (an Azure SAS token), OPENAIKEY / OpenAIKey (glued).
4. /proc/PID/cmdline printed raw: words joined by NULs read as argv (`--api-key\\x00X`)."""

from __future__ import annotations

import pytest

from stream_feed import fed_at_cuts

from aiperf_lab.triage.redact import REDACTED, Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24 07:00:01 INFO "]
TRACE_PREFIXES = ["", "[rank0]: ", "2026-11-24 07:00:01 "]   # (a `+` after a level word is no trace mark: TRACE_MARK)
V = "Zq8Das1xPa55"


def _prefixed(text: str, prefix: str) -> str:
    return "".join(prefix + line for line in text.splitlines(keepends=True))


def _same_in_stream(text: str, whole: str) -> None:
    for cut in range(1, len(text)):
        for flush, piece in ((False, 1 << 16), (True, 1)):
            assert fed_at_cuts(Redactor({}), text, [cut], flush, piece) == whole, (cut, flush, piece)


def _hidden_everywhere(text: str) -> None:
    whole = Redactor({}).text(text)
    assert V not in whole and REDACTED in whole, whole
    _same_in_stream(text, whole)


def _kept_everywhere(text: str) -> None:
    assert Redactor({}).text(text) == text
    _same_in_stream(text, text)


CAT_PRINTS = [
    f"$ cat /run/secrets/db_password\n{V}\n",
    f"$ cat /var/run/secrets/kubernetes.io/serviceaccount/token\n{V}\n",
    f"$ cat /run/secrets/hf-token\n{V}\nstarting server\n",
    f"$ cat ~/.cache/huggingface/token\n{V}\n",
    f"$ cat ./db_password.txt\n{V}\n",
    f"$ sudo cat '/run/secrets/api_secret'\n{V}\n",
    f"+ cat /run/secrets/registry\n{V}\n",
    f"++ cat /run/secrets/hf_token\n+ HF={V}\n",
    f"++ cat /run/secrets/hf_token\n+ export HF={V}\n+ python serve.py\n",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", CAT_PRINTS)
def test_a_secret_file_printed_by_cat_is_hidden(text: str, prefix: str) -> None:
    _hidden_everywhere(_prefixed(text, prefix))


TRACED_PIPES = [
    f"+ echo {V}\n+ docker login -u alice --password-stdin registry.example.com\n",
    f"+ docker login -u alice --password-stdin nvcr.io\n+ echo {V}\n",
    f"+ printf %s {V}\n+ docker login --username alice --password-stdin\n",
    f"+ echo '{V}'\n+ sudo -S apt-get update\n",
    f"++ echo {V}\n++ helm registry login r.example.com --password-stdin\n",
    f"+ echo alice:{V}\n+ chpasswd\n",
]


@pytest.mark.parametrize("prefix", TRACE_PREFIXES)
@pytest.mark.parametrize("text", TRACED_PIPES)
def test_an_echo_traced_beside_a_stdin_reader_is_hidden(text: str, prefix: str) -> None:
    _hidden_everywhere(_prefixed(text, prefix))


NAMES = ["PEPPER", "HASH_PEPPER", "AZ_SAS", "AZURE_SAS", "OPENAIKEY", "OpenAIKey"]
W = "bluebird42"   # (a value no shape rule takes: hidden only as the environment's known secret)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("name", NAMES)
def test_an_environment_value_under_these_names_is_hidden(name: str, prefix: str) -> None:
    text = _prefixed(f"connecting with {W}\nretry {W}\n", prefix)
    whole = Redactor({name: W}).text(text)
    assert W not in whole and REDACTED in whole, whole
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor({name: W}), text, [cut], True, 1) == whole, cut


@pytest.mark.parametrize("name", ["PEPPER_SIZE", "AZ_SAS_EXPIRY", "AZURE_SAS_URL", "SAS", "PEPPERMINT", "OPENAI_MODEL"])
def test_names_near_these_stay_plain(name: str) -> None:
    text = f"connecting with {W}\n"
    assert Redactor({name: W}).text(text) == text


KEPT = [
    "$ cat /var/run/secrets/kubernetes.io/serviceaccount/namespace\ndefault\n",
    "$ cat /run/secrets/db_password > /tmp/pw\ndone\n",
    "$ cat README.txt\nHello\n",
    "$ cat tokenizer_config.json\n{}\n",
    "$ cat /etc/hostname\nnode01\n",
    "$ cat secrets.yaml\napiVersion\n",
    "++ cat /etc/hostname\n+ HOST=node01\n",
    "+ echo building\n+ docker build -t x .\n",
    "+ echo hello\n+ ls -la\n",
    "+ echo done\n+ docker push nvcr.io/x\n",
    "+ docker login -u alice --password-stdin nvcr.io\n+ ls\n",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", KEPT)
def test_nearby_lines_that_are_no_secret_stay(text: str, prefix: str) -> None:
    _kept_everywhere(_prefixed(text, prefix))


NUL_ARGVS = [
    f"python\x00serve.py\x00--api-key\x00{V}\x00--port\x008000\x00\n",
    f"$ cat /proc/4242/cmdline\npython3\x00-m\x00vllm.entrypoints.openai.api_server\x00--api-key={V}\x00\n",
    f"mysql\x00-u\x00root\x00-p{V}\x00db\x00\n",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", NUL_ARGVS)
def test_a_raw_proc_cmdline_is_read_as_argv(text: str, prefix: str) -> None:
    _hidden_everywhere(_prefixed(text, prefix))


@pytest.mark.parametrize("text", ["python\x00train.py\x00--lr\x000.1\x00--model\x00llama\x00\n",
                                  "HOME=/root\x00PATH=/usr/bin\x00LANG=C.UTF-8\x00\n", "a\x00b\x00c\n",
                                  "python\x00serve.py\x00--api-key\x00$API_KEY\x00\n"])
def test_a_raw_cmdline_without_a_secret_stays(text: str) -> None:
    _kept_everywhere(text)
