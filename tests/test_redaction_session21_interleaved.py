"""Issue 11, session 21 (h21c): leaks that depend on line structure.

1. Two sources' lines interleaved (kubectl logs --prefix of two pods, stern, `[rank0]: ` / `[rank1]: `, srun's `0: ` /
   `1: `, pdsh's `host1: ` / `host2: `): a form whose value comes on a later line of the same source (a `cat` of a token
   file, `kubectl ... | base64 -d`, a Secret's data, better-exceptions arrows, a YAML block, printenv, an env item, a
   private key) is read in a view of that source's lines alone (line_views._pod_views), and a stream holds each source's
   lines as if alone (StreamRedactor._sources_hold).
2. Known values printed wrapped at a width: the stream gives Redactor.text's bytes (a line was held for a one-character
   head of any value, every line above the last in turn, until the stream's rounds ran out and the cut fell between a
   wrapped value's lines: now a head counts only where its value goes on in the lines already read).
Text and stream alike."""

from __future__ import annotations

import random

import pytest

from stream_feed import fed_at_cuts, fed_in_reads

from aiperf_lab.triage.redact import Redactor
from aiperf_lab.triage.redaction.line_views import line_view_windows

PW, HP = "Qx7vR2mZ9pLk4Tn", "Winter2024!blue"
B64URL = "cG9zdGdyZXM6Ly91OldpbnRlcjIwMjQhYmx1ZUBoL2Ri"   # base64 of postgres://u:Winter2024!blue@h/db
KEY_BODY = ("MIIEpAIBAAKCAQEAx7vR2mZ9pLk4TnQWinter2024blue0abcdefghijklmnopqrstuv",
            "Zq8vN2mK5pL9xR4tq7Lm2Xk9Pw4Rt8Zb3Nc6Vh1Jd5Fg0Sa7Ye2Ui9Ko4abcdefghijkl")

# form -> (its lines, what must not stay)
FORMS = {
    "cat of a token file": (f"$ cat ~/.cache/huggingface/token\n{PW}{PW}\n", [PW]),
    "kubectl jsonpath | base64 -d": (f"$ kubectl get secret db -o jsonpath='{{.data.password}}' | base64 -d\n{HP}\n", [HP]),
    "a Secret's data": (f"apiVersion: v1\ndata:\n  DB_URL: {B64URL}\nkind: Secret\n", [B64URL]),
    "better-exceptions arrows": (f"    conn = connect(host, pw)\n                   │     └ '{HP}'\n"
                                 "                   └ 'db.internal'\n", [HP]),
    "a YAML block scalar": (f"config:\n  password: |\n    {HP}\n  user: bob\n", [HP]),
    "printenv": (f"$ printenv HF_TOKEN\n{PW}{PW}\n", [PW]),
    "an env item": (f"- name: DB_PASSWORD\n  value: {HP}\n", [HP]),
    "a private key": ("-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(KEY_BODY) + "\n-----END RSA PRIVATE KEY-----\n",
                      [body[:16] for body in KEY_BODY]),
}
PAIRS = {
    "kubectl logs --prefix, container": ("[pod/a-0/main] ", "[pod/b-0/main] "),
    "kubectl logs --prefix": ("pod/a-0 ", "pod/b-0 "),
    "stern": ("a-0 main ", "b-0 main "),
    "ranks": ("[rank0]: ", "[rank1]: "),
    "srun --label": ("0: ", "1: "),
    "pdsh": ("host1: ", "host2: "),
}


def interleaved(text: str, mine: str, other: str, other_first: bool = False) -> str:
    """text's lines behind `mine`, each with a line of another source's (behind `other`) after it, or before it."""
    out = []
    for k, line in enumerate(text.splitlines(keepends=True)):
        pair = [mine + line, f"{other}step {k} loss 2.3{k}\n"]
        out += pair[::-1] if other_first else pair
    return "".join(out)


def _stream_agrees(text: str, whole: str, redactor=lambda: Redactor({})) -> None:
    for size in (1, 7, 64):
        assert fed_in_reads(redactor(), text, size, piece=16) == whole, size
    newlines = [k + 1 for k, c in enumerate(text) if c == "\n"][:-1]
    for cut in newlines:   # (cut after each line, flushed there)
        assert fed_at_cuts(redactor(), text, [cut], flush=True, piece=1) == whole, cut


@pytest.mark.parametrize("other_first", [False, True], ids=["its line first", "the other's first"])
@pytest.mark.parametrize("pair", PAIRS.values(), ids=PAIRS.keys())
@pytest.mark.parametrize("form", FORMS, ids=FORMS.keys())
def test_a_form_among_another_sources_lines_goes(form: str, pair: tuple[str, str], other_first: bool) -> None:
    lines, secrets = FORMS[form]
    mine, other = pair
    text = interleaved(lines, mine, other, other_first)
    out = Redactor({}).text(text)
    assert not [secret for secret in secrets if secret in out], out
    assert out.count("\n") == text.count("\n")
    if form != "a private key":
        # (a key's block takes the lines between its BEGIN and END, as a framed key's does)
        assert out.count(other) == text.count(other) and out.count(mine) == text.count(mine), out
    _stream_agrees(text, out)


# The text's own reading (not a line view) took the other source's prefix on the next line as the value after
# `password: |` or `... | base64 -d` (`[REDACTED] step 0 loss 2.30`) until session 22 (h22b): the value rules now read
# the next line of the name's own source (line_views.same_source_line, from assignments._value_is_log_prefix and
# layouts._kubectl_secret_spans).
OTHERS_PREFIX_TAKEN = {(form, PAIRS[pair]) for form, pairs in {
    "kubectl jsonpath | base64 -d": ("kubectl logs --prefix, container", "kubectl logs --prefix", "stern", "ranks", "pdsh"),
    "a YAML block scalar": ("kubectl logs --prefix, container", "kubectl logs --prefix", "stern")}.items() for pair in pairs}


@pytest.mark.parametrize("form,pair", sorted(OTHERS_PREFIX_TAKEN))
def test_the_other_sources_prefix_stays(form: str, pair: tuple[str, str]) -> None:
    text = interleaved(FORMS[form][0], *pair)
    assert Redactor({}).text(text).count(pair[1]) == text.count(pair[1])
    _stream_agrees(text, Redactor({}).text(text))


@pytest.mark.parametrize("form", ["a Secret's data", "a YAML block scalar", "an env item"])
def test_a_form_behind_sterns_prefix_and_a_timestamp_goes_in_the_stream(form: str) -> None:
    # (stern --timestamps: `pod container 2026-...Z `; the stream judged the line with the time still on it)
    lines, secrets = FORMS[form]
    text = "".join(f"a-0 main 2026-11-24T03:00:{k:02d}Z {line}" for k, line in enumerate(lines.splitlines(keepends=True)))
    out = Redactor({}).text(text)
    assert not [secret for secret in secrets if secret in out]
    _stream_agrees(text, out)


KEPT = {
    "two pods' steps": "".join(f"pod/a-0 step {k} loss 2.{k}\npod/b-0 step {k} loss 2.{k}\n" for k in range(5)),
    "a public key among another pod's lines": ("pod/a-0 -----BEGIN PUBLIC KEY-----\npod/b-0 step 1\n"
                                               "pod/a-0 MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\npod/b-0 step 2\n"
                                               "pod/a-0 -----END PUBLIC KEY-----\n"),
    "cat of a host name": "a-0 main $ cat /etc/hostname\nb-0 main step 1 loss 2.1\na-0 main gpu-node-12\nb-0 main step 2\n",
    "a YAML block of no secret": "[rank0]: model:\n[rank1]: step 1\n[rank0]:   name: llama-3-8b\n[rank1]: step 2\n"
                                 "[rank0]:   layers: 32\n",
    "cat of a config": "[rank0]: $ cat config.yaml\n[rank1]: step 1\n[rank0]: model: llama\n[rank1]: step 2\n",
    "srun's ranks": "0: $ cat hosts\n1: epoch 1\n0: node-1 slots=8\n1: epoch 2\n",
}


@pytest.mark.parametrize("text", KEPT.values(), ids=KEPT.keys())
def test_interleaved_plain_lines_stay(text: str) -> None:
    assert Redactor({}).text(text) == text
    _stream_agrees(text, text)


def test_one_sources_lines_get_no_view_more() -> None:
    # (a view per source only where sources take turns: a log of one prefix is read as before, one window)
    lines = FORMS["cat of a token file"][0]
    one = "".join("pod/a-0 " + line for line in lines.splitlines(keepends=True)) * 3
    assert len(line_view_windows(one, one.lower())) == 1
    two = interleaved(lines, "pod/a-0 ", "pod/b-0 ") * 3
    assert len(line_view_windows(two, two.lower())) == 2


ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _known(seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    return {f"SVC{k}_TOKEN": "".join(rng.choice(ALPHA) for _ in range(rng.randint(20, 60))) for k in range(100)}


@pytest.mark.parametrize("width", [8, 11, 16, 29, 41, 50, 59, 80])   # (8, 50, 80: as on main)
def test_known_values_wrapped_at_a_width_stream_as_text(width: int) -> None:
    known = _known(11)
    text = "".join("\n".join(v[i:i + width] for i in range(0, len(v), width)) + "\n" for v in known.values())
    whole = Redactor(known).text(text)
    assert whole != text
    for size in (1, 64, 4096):
        assert fed_in_reads(Redactor(known), text, size, piece=16) == whole, size
    assert fed_in_reads(Redactor(known), text, 333, piece=1) == whole


def test_a_known_values_head_still_waits_for_its_rest() -> None:
    # (where the next line is not read yet, any head holds; where it is, the head whose value goes on there does)
    known = {"HF_TOKEN": "hfx7Qm2Lp9Rt4Zb8Nc3Vk6Wd1Jg5"}
    text = "token part 1: hfx7Qm2Lp9Rt\n4Zb8Nc3Vk6Wd1Jg5 done\nstep 1\n"
    whole = Redactor(known).text(text)
    assert "4Zb8Nc3Vk6Wd1Jg5" not in whole and "hfx7Qm2Lp9Rt" not in whole
    for cut in range(1, len(text)):
        assert fed_at_cuts(Redactor(known), text, [cut], flush=True, piece=1) == whole, cut
