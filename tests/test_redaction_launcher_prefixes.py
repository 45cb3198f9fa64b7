"""Forms read at a line's start (a .netrc block, a token file's cat, a secret decoded by base64 -d, a Kubernetes
Secret's data, better-exceptions' arrows, a notebook's source lines) behind the prefixes launchers put on every line
of a rank's output: pdsh's and DeepSpeed's `node1: `, srun --label's `0: `, Ray's `(RayTrainWorker pid=.., ip=..) `,
mpirun --tag-output's `[1,0]<stdout>:`. Found by h18r's red team: hidden bare and behind `[rank0]: `, kept behind
these. Text and stream (read in small pieces) alike; plain lines behind the same prefixes unchanged."""

from __future__ import annotations

import pytest

from multi_line_forms import FORMS
from stream_feed import fed_in_reads, prefixed

from aiperf_lab.triage.redact import Redactor


PREFIXES = {"pdsh": "n1: ", "deepspeed": "worker-12: ", "srun --label": "0: ", "srun --label, rank 17": "17: ",
            "ray": "(RayTrainWorker pid=1234, ip=10.0.0.1) ", "ray, no ip": "(pid=98765) ",
            "mpirun --tag-output": "[1,0]<stdout>:", "mpirun stderr": "[12,3]<stderr>: "}


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
@pytest.mark.parametrize("form", FORMS, ids=FORMS.keys())
def test_the_secret_goes_behind_a_launchers_prefix(form: str, prefix: str) -> None:
    text, secret = FORMS[form]
    text_behind = prefixed(text, prefix)
    out = Redactor({}).text(text_behind)
    assert secret[:12] not in out and out.count("\n") == text_behind.count("\n")
    if form != "kubectl jsonpath | base64 -d":   # (the next line's prefix goes with its value there, as behind
        assert all(line.startswith(prefix) for line in out.splitlines())   # `[rank0]: `: more hidden, not less)


@pytest.mark.parametrize("prefix", ["n1: ", "0: ", "(RayTrainWorker pid=1234, ip=10.0.0.1) ", "[1,0]<stdout>:"])
@pytest.mark.parametrize("form", [".netrc block", "cat of a token file", "a Secret's data"])
def test_the_stream_agrees(form: str, prefix: str) -> None:
    text, secret = FORMS[form]
    text_behind = prefixed(text, prefix)
    whole = Redactor({}).text(text_behind)
    for size in (1, 5, 64):
        assert fed_in_reads(Redactor({}), text_behind, size, piece=16) == whole


KEPT = [
    "n1: step 100 loss 2.31 lr 3.0e-04 tokens/s 81234\n",
    "0: [2026-11-24 03:00:01] epoch 1 iter 20: 512.3 ms/iter\n",
    "(RayTrainWorker pid=1234, ip=10.0.0.1) Training finished: 12 epochs\n",
    "[1,0]<stdout>:# nccl-tests: all_reduce_perf -b 8 -e 8G -f 2 -g 1\n",
    "[1,0]<stdout>:#  Rank  0 Group  0 Pid  41234 on  gpu-node-1 device  0 [0x1b] NVIDIA H100 80GB HBM3\n",
    "worker-3: machine learning job started on host gpu-node-3\n",
    "1: first item\n2: second item\n",
    "n1: cat /proc/meminfo\nn1: MemTotal:       2113393876 kB\n",
]


@pytest.mark.parametrize("text", KEPT)
def test_plain_lines_behind_the_prefixes_stay(text: str) -> None:
    assert Redactor({}).text(text) == text
