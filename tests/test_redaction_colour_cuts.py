"""Colour codes and redaction (issue 11, helper h12e): a secret whose value spans colour codes (grep --color marking a
match inside it, rich or structlog styling part of it) keeps those codes after its placeholder, so every code of the
text is still there, in order, and the terminal's colours after the value are what they were; and a stream fed a
coloured text cut at every position (random positions for the long ones) gives the bytes Redactor.text gives."""

from __future__ import annotations

import random
import re

import pytest

from stream_feed import fed_at_cuts

from aiperf_lab.triage.redact import REDACTED, Redactor

E = "\x1b"
V = "Zq8Wm3Kx7Lp2Rv9T"
TOKEN = "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345"
ENVIRON = {"HF_TOKEN": TOKEN}
CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\\(?:x1b|u001b|033|e)\[[0-?]*[ -/]*[@-~]")

# (text, what must not be left) as tools colour them: grep --color marking a match inside a value, rich styling a
# part, a value in two colours, a coloured key block, a name on one line and its value in colour on the next
FORMS = [
    (f"{E}[36mpassword{E}[0m={E}[35mS3cr{E}[1m3t!xZq{E}[0m{E}[35m8Wm{E}[0m done", "S3cr"),
    (f"HF_TOKEN=hf_Qw3r{E}[01;31m{E}[KTy7uIoPa{E}[m{E}[KSdFgHjKlZxCvBnM12345\n", "SdFgHjKl"),
    (f"export HF_TOKEN={E}[01;31m{E}[K{TOKEN}{E}[m{E}[K\n", TOKEN[3:]),
    (f"{E}[1m{{{E}[0m{E}[32m'api_key'{E}[0m: {E}[32m'Zq8W{E}[1;34m3Kx7{E}[0m{E}[32mLp2Rv9T'{E}[0m{E}[1m}}{E}[0m", "Lp2Rv9T"),
    (f"url=postgres://app:{E}[4mPw9x{E}[24mQ2mZ7kL4@db.internal/x", "Q2mZ7kL4"),
    (f"{E}[33mAuthorization: Bearer {E}[1mZq9LmQ2r{E}[22mT5xW8vB3nK7p{E}[0m\n", "T5xW8vB3"),
    (f"ghp_16C7e42F{E}[31m292c6912E7710c{E}[0m838347Ae178B4a ok", "838347Ae"),
    (f"{E}[31m-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPH{E}[1mCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
     f"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u{E}[0m\n-----END RSA PRIVATE KEY-----{E}[0m\nnext\n", "CozMxH2Mo4"),
    (f"{E}[36mapi_key:{E}[0m\n  {E}[35mZq8Wm3Kx{E}[1m7Lp2Rv9T{E}[0m\nstep 1\n", "7Lp2Rv9T"),
    (f'print("\\x1b[36mclient_secret\\x1b[0m=\\x1b[35mZq8Wm3\\x1b[1mKx7Lp2Rv9T\\x1b[0m")', "Kx7Lp2Rv9T"),
    (f"{E}[33mexport HF_TOKEN={TOKEN[:27]}\n{TOKEN[27:]}{E}[0m\n", TOKEN[27:]),
    (f"{E}[36m00000000{E}[0m  68 66 5f 51 77 33 72 54  79 37 75 49 6f 50 61 53  |hf_Qw3rTy7uIoPaS|\n"
     f"{E}[36m00000010{E}[0m  64 46 67 48 6a 4b 6c 5a  78 43 76 42 6e 4d 31 32  |dFgHjKlZxCvBnM12|\n"
     f"{E}[36m00000020{E}[0m  33 34 35 0a                                       |345.|\n", "dFgHjKlZ"),
    (f"{E}[2m2026-11-23 12:00:01{E}[0m {E}[32mINFO{E}[0m token={E}[1m{TOKEN[:20]}{E}[0m{TOKEN[20:]} loss 2.3\n", TOKEN[20:]),
]


@pytest.mark.parametrize("text,left", FORMS)
def test_codes_inside_a_redacted_value_stay_after_its_placeholder(text: str, left: str) -> None:
    out = Redactor(ENVIRON).text(text)
    assert left not in out and REDACTED in out, out
    assert CODES.findall(out) == CODES.findall(text), out


def test_the_codes_follow_the_placeholder() -> None:
    out = Redactor({}).text(f"{E}[36mpassword{E}[0m={E}[35mS3cr{E}[1m3t!x{E}[0m done")
    assert out == f"{E}[36mpassword{E}[0m={E}[35m{REDACTED}{E}[1m{E}[0m done"


def test_coloured_text_with_nothing_secret_stays() -> None:
    text = f"{E}[32mINFO{E}[0m step 12 loss {E}[1m2.38{E}[0m {E}[36mtoken_count{E}[0m={E}[35m512{E}[0m\n"
    assert Redactor(ENVIRON).text(text) == text


def _streamed(text: str, cuts: list[int], flush: bool, piece: int) -> str:
    return fed_at_cuts(Redactor(ENVIRON), text, cuts, flush, piece)


@pytest.mark.parametrize("text,left", FORMS)
def test_a_stream_cut_at_every_position_gives_what_text_gives(text: str, left: str) -> None:
    text = "step 0 loss 2.4\n" + text + "\nstep 1 loss 2.3\n"
    whole = Redactor(ENVIRON).text(text)
    for cut in range(1, len(text)):
        for flush, piece in ((False, 1 << 16), (True, 1)):
            assert _streamed(text, [cut], flush, piece) == whole, (cut, flush, piece)


def test_a_long_coloured_text_cut_at_random_positions_gives_what_text_gives() -> None:
    rng = random.Random(11)
    lines = [form for form, _ in FORMS] + [f"{E}[32mINFO{E}[0m step {k} loss {E}[1m2.{k:02d}{E}[0m" for k in range(30)]
    text = "\n".join(rng.choice(lines) for _ in range(120)) + "\n"
    whole = Redactor(ENVIRON).text(text)
    assert TOKEN[3:] not in whole
    for _ in range(10):
        cuts = sorted(rng.sample(range(1, len(text)), rng.randint(1, 100)))
        flush = rng.random() < 0.5
        piece = rng.choice([1, 9, 300, 1 << 16])
        assert _streamed(text, cuts, flush, piece) == whole, (cuts, flush, piece)
