"""Issue 11, session 19 (h19m): forms read over lines behind the line prefixes of kubectl logs --prefix (`pod/trainer-0 `)
and stern (`trainer-0 main `), which plain words could be too, so taken as a prefix only where the next or last line
starts with the same; the value after `kubectl ... | base64 -d` behind a prefix hidden without the next line's prefix.
Text and stream alike: each case fed to a StreamRedactor cut at every place (flushed there) and in small reads."""

from __future__ import annotations

import pytest

from multi_line_forms import FORMS, HP
from stream_feed import fed_at_cuts, fed_in_reads, prefixed

from aiperf_lab.triage.redact import Redactor


PREFIXES = {"kubectl logs --prefix": "pod/trainer-0 ", "kubectl logs --prefix, container": "[pod/trainer-0/main] ",
            "stern": "trainer-0 main ", "stern, deployment pod": "web-7d9f8c6b5-x2kqp app "}


def _stream_agrees(text: str, whole: str) -> None:
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor({}), text, [cut], flush=True, piece=16) == whole, cut
    for size in (1, 7, 64):
        assert fed_in_reads(Redactor({}), text, size, piece=16) == whole, size


@pytest.mark.parametrize("prefix", PREFIXES.values(), ids=PREFIXES.keys())
@pytest.mark.parametrize("form", FORMS, ids=FORMS.keys())
def test_the_secret_goes_behind_a_pods_prefix(form: str, prefix: str) -> None:
    text, secret = FORMS[form]
    text_behind = prefixed(text, prefix)
    out = Redactor({}).text(text_behind)
    assert secret[:12] not in out and out.count("\n") == text_behind.count("\n")
    assert all(line.startswith(prefix) for line in out.splitlines())   # (every prefix kept, the next line's too)
    _stream_agrees(text_behind, out)


@pytest.mark.parametrize("other,prefix", [("pod/trainer-1 ", "pod/trainer-0 "), ("trainer-1 main ", "trainer-0 main ")])
def test_a_netrc_block_among_another_pods_lines_goes(other: str, prefix: str) -> None:
    # (stern and kubectl logs -l interleave their pods' lines: a line among another pod's still reads behind its prefix)
    text = "".join(prefix + line + other + f"step {k}\n"
                   for k, line in enumerate(FORMS[".netrc block"][0].splitlines(keepends=True)))
    out = Redactor({}).text(text)
    assert HP not in out and out.count(prefix) == 3 and out.count(other) == 3
    _stream_agrees(text, out)


@pytest.mark.parametrize("prefix", ["n1: ", "0: ", "[1,0]<stdout>:", "pod/trainer-0 ", "trainer-0 main "])
def test_a_decoded_secret_goes_without_the_next_lines_prefix(prefix: str) -> None:
    text = prefixed(FORMS["kubectl jsonpath | base64 -d"][0] + "step 1 done\n", prefix)
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


PASSPHRASE_ENV = {"SSH_PASSPHRASE": "correct horse battery staple"}
PASSPHRASE_PRINTS = ["key: correct horse \nbattery staple\n", "correct horse battery\nstaple\n",
                     "correct\nhorse battery staple\n", "pod/trainer-0 key: correct horse \npod/trainer-0 battery staple\n"]


@pytest.mark.parametrize("text", PASSPHRASE_PRINTS)
def test_a_known_passphrase_with_blanks_printed_over_two_lines(text: str) -> None:
    out = Redactor(PASSPHRASE_ENV).text(text)
    assert all(word not in out for word in ("correct", "horse", "battery", "staple")) and out.count("\n") == 2
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor(PASSPHRASE_ENV), text, [cut], flush=True, piece=16) == out, cut


@pytest.mark.parametrize("text", ["a correct answer, horse\n", "battery life: 12 h\n", "horse battery\n"])
def test_words_of_a_known_passphrase_alone_stay(text: str) -> None:
    assert Redactor(PASSPHRASE_ENV).text(text) == text


def test_a_known_document_with_blanks_gives_no_pieces() -> None:
    # (a compact JSON's pieces, `{"type": "service_account", "`, are every other such document's too)
    env = {"GOOGLE_CREDENTIALS": '{"type": "service_account", "project_id": "demo-project-12345", "client_id": "1"}'}
    text = '{"type": "service_account", "project_id": "other-project"}\n'
    assert Redactor(env).text(text) == text


Z = "Zq8vN2mK5pL9xR4t"
RANDOM = "q7Lm2Xk9Pw4Rt8Zb3Nc6Vh1Jd5Fg0Sa7Ye2Ui9Ko4"


def _hidden_everywhere(text: str, secret: str, **options: bool) -> str:
    out = Redactor({}, **options).text(text)
    assert secret not in out and out.count("\n") == text.count("\n")
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor({}, **options), text, [cut], flush=True, piece=16) == out, cut
    return out


# A value set apart in brackets after a secret's label; a generated value alone in an ASCII table's cell
@pytest.mark.parametrize("text,kept", [(f"password: < {Z} >\n", "password: < "), (f"token: {{{Z}}}\n", "token: "),
                                       (f"token: {{ {Z} }}\n", "token: { "), (f"secret = <  {Z}  >\n", "secret = <  "),
                                       (f"| {RANDOM} |\n", "| "), (f"|{RANDOM}|\n", "|"),
                                       (f"| name | {RANDOM} |\n", "| name | "), (f"[rank0]: | {RANDOM} |\n", "[rank0]: | "),
                                       (f"+------+\n| {RANDOM} |\n+------+\n", "+------+\n| ")])
def test_a_value_in_brackets_or_a_cell_goes(text: str, kept: str) -> None:
    out = _hidden_everywhere(text, Z if Z in text else RANDOM)
    assert out.startswith(kept + "[REDACTED]")


@pytest.mark.parametrize("text", ["password: < hidden >\n", "password: <hidden>\n", "token: {token}\n", "token: {hf_token}\n",
                                  "api_key: {OPENAI_API_KEY}\n", "password: { get_password() }\n",
                                  "token: {{ secrets.HF_TOKEN }}\n", 'print(f"token: {token_id}")\n',
                                  "| sha | 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 |\n",
                                  "| nvidia_h100_80gb_hbm3_sxm5_pcie_gen5_x16_lanes |\n", "| a |\n| b |\n",
                                  "| step | loss | lr |\n|------|------|----|\n| 1 | 2.3 | 3e-4 |\n"])
def test_placeholders_fields_and_plain_cells_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


# False positives: a markdown row of a flag's help, a flag before a pipe
@pytest.mark.parametrize("text", ["| --api-key | X |\n", "| --token | the token |\n",
                                  "| Option | Meaning |\n|---|---|\n| --api-key | X |\n| --password | a password |\n",
                                  "serve --api-key | tee serve.log\n", "login --token || exit 1\n", "run --secret && echo ok\n"])
def test_a_flags_bar_or_operator_stays(text: str) -> None:
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("text", [f"| --api-key | {Z} |\n", f"serve --api-key {Z} | tee serve.log\n"])
def test_a_flags_value_before_a_bar_still_goes(text: str) -> None:
    out = Redactor({}).text(text)
    assert Z not in out and out.count("|") == text.count("|")


# Under --redact-hosts: a Kubernetes env list's peer, an MPICH hostfile
def _hosts(text: str) -> str:
    return _hidden_everywhere(text, "gpu-node-12" if "gpu-node-12" in text else "node17", redact_hosts=True)


@pytest.mark.parametrize("text", ["env:\n- name: MASTER_ADDR\n  value: gpu-node-12\n",
                                  "        env:\n        - name: MASTER_ADDR\n          value: \"gpu-node-12\"\n",
                                  "spec:\n  containers:\n  - env:\n    - name: MASTER_ADDR\n      value: gpu-node-12\n"
                                  "    - name: WORLD_SIZE\n      value: \"8\"\n",
                                  "node17:8\nnode18:8\n", "$ cat hosts\nnode17:8\n", "node17:8"])
def test_a_peer_in_an_env_list_or_an_mpich_hostfile_becomes_a_placeholder(text: str) -> None:
    assert "host-1" in _hosts(text)


@pytest.mark.parametrize("text", ["epoch:3\nstep:5\n", "cuda:0\n", "12:30\n", "- name: MASTER_PORT\n  value: \"29500\"\n",
                                  "- name: MASTER_ADDR\n  valueFrom:\n    fieldRef:\n      fieldPath: status.podIP\n"])
def test_settings_with_no_peer_stay(text: str) -> None:
    assert Redactor({}, redact_hosts=True).text(text) == text
