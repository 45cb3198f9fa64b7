"""Issue 11, session 19 (h19m): forms read over lines behind the line prefixes of kubectl logs --prefix (`pod/trainer-0 `)
and stern (`trainer-0 main `), which plain words could be too, so taken as a prefix only where the next or last line
starts with the same; the value after `kubectl ... | base64 -d` behind a prefix hidden without the next line's prefix.
Text and stream alike: each case fed to a StreamRedactor cut at every place (flushed there) and in small reads."""

from __future__ import annotations

import pytest

from stream_feed import fed_at_cuts, fed_in_reads

from aiperf_lab.triage.redact import Redactor

PW, HP = "Qx7vR2mZ9pLk4Tn", "Winter2024!blue"
B64URL = "cG9zdGdyZXM6Ly91OldpbnRlcjIwMjQhYmx1ZUBoL2Ri"   # base64 of postgres://u:Winter2024!blue@h/db
WANDB = "7654321fedcba0987654321fedcba09876543210"

PREFIXES = {"kubectl logs --prefix": "pod/trainer-0 ", "kubectl logs --prefix, container": "[pod/trainer-0/main] ",
            "stern": "trainer-0 main ", "stern, deployment pod": "web-7d9f8c6b5-x2kqp app "}
FORMS = {
    ".netrc block": (f"machine api.example.com\n  login bob\n  password {HP}\n", HP),
    "wandb .netrc": (f"machine api.wandb.ai\n  login user\n  password {WANDB}\n", WANDB),
    "cat of a token file": (f"$ cat ~/.cache/huggingface/token\n{PW}{PW}\n", PW + PW),
    "kubectl jsonpath | base64 -d": (f"$ kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{HP}\n", HP),
    "a Secret's data": (f"apiVersion: v1\ndata:\n  DB_URL: {B64URL}\nkind: Secret\n", B64URL),
    "better-exceptions arrows": (f"    conn = connect(host, pw)\n                   │     └ '{HP}'\n"
                                 "                   └ 'db.internal'\n", HP),
    "notebook source lines": (f'   "source": [\n    "import os\\n",\n    "os.environ[\\"HF_TOKEN\\"] = \\"{PW}\\"\\n"\n   ]\n',
                              PW),
}


def _prefixed(prefix: str, text: str) -> str:
    return "".join(prefix + line for line in text.splitlines(keepends=True))


def _stream_agrees(text: str, whole: str) -> None:
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor({}), text, [cut], flush=True, piece=16) == whole, cut
    for size in (1, 7, 64):
        assert fed_in_reads(Redactor({}), text, size, piece=16) == whole, size


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
@pytest.mark.parametrize("form", FORMS, ids=FORMS.keys())
def test_the_secret_goes_behind_a_pods_prefix(form: str, prefix: str) -> None:
    text, secret = FORMS[form]
    prefixed = _prefixed(prefix, text)
    out = Redactor({}).text(prefixed)
    assert secret[:12] not in out and out.count("\n") == prefixed.count("\n")
    assert all(line.startswith(prefix) for line in out.splitlines())   # (every prefix kept, the next line's too)
    _stream_agrees(prefixed, out)


@pytest.mark.parametrize("prefix", ["n1: ", "0: ", "[1,0]<stdout>:", "pod/trainer-0 ", "trainer-0 main "])
def test_a_decoded_secret_goes_without_the_next_lines_prefix(prefix: str) -> None:
    text = _prefixed(prefix, FORMS["kubectl jsonpath | base64 -d"][0] + "step 1 done\n")
    out = Redactor({}).text(text)
    assert out.splitlines()[1] == prefix + "[REDACTED]" and out.splitlines()[2] == prefix + "step 1 done"
    _stream_agrees(text, out)


KEPT = [
    "pod/trainer-0 step 100 loss 2.31 lr 3.0e-04 tokens/s 81234\npod/trainer-0 step 200 loss 2.11\n",
    "trainer-0 main epoch 1 iter 20: 512.3 ms/iter\ntrainer-0 main epoch 1 iter 40: 511.9 ms/iter\n",
    "trainer-0 main # nccl-tests: all_reduce_perf -b 8 -e 8G -f 2 -g 1\ntrainer-0 main #  Rank  0 Pid  41234\n",
    "web-1 app <html><body>ok</body></html>\nweb-1 app GET /health 200\n",
    "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d > pw.txt\n$ echo done\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_plain_lines_behind_the_prefixes_stay(text: str) -> None:
    assert Redactor({}).text(text) == text
