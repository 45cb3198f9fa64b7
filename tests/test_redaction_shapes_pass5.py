"""Fifth red-team pass (issue 11): secret shapes that still passed the redactor, each with the red team's exact
input, and the ordinary text next to each rule that must stay."""

from __future__ import annotations

import base64

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, argv_secret_values

# (name, text, what must vanish): the red team's inputs, verbatim
LEAKED = [
    ("akia after a digit", "7AKIACE9UVW53EFR4EDT2", "CE9UVW53EFR4EDT2"),
    ("glpat after _", "x_glpat-sTy4Qwb8DwkNhFdnXsiV", "Qwb8DwkNhFdnXsiV"),
    ("glpat after a digit", "7glpat-sTy4Qwb8DwkNhFdnXsiV", "Qwb8DwkNhFdnXsiV"),
    ("jwt after _", "x_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.6PwZPf1Qh6yYTWmE4lBYOvfZ8UzDzV8fUkkibjL5DZP",
     "DzV8fUkkibjL5DZP"),
    ("jwt after a digit", "7eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.6PwZPf1Qh6yYTWmE4lBYOvfZ8UzDzV8fUkkibjL5DZP",
     "DzV8fUkkibjL5DZP"),
    ("wandb netrc", "log: machine api.wandb.ai\n  login user\n  password 4dbca3a0aac36098b2cc2bd818319478da6bd0c6",
     "2bd818319478da6bd0c6"),
    ("wandb netrc, generated value", "machine api.wandb.ai\n  login user\n  password Zqko3thTSmrlUpGQsYrxZQH4",
     "Zqko3thTSmrlUpGQsYrxZQH4"),
    ("openssh body", "log: b3BlbnNzaC1rZXktdjEAAAAA3omjMyXHCabM6JOF8EFd0Nhcy/1kGD2VD/eR1UYzaLiA/zNyD7CHLn/xC+1h",
     "aLiA/zNyD7CHLn/xC+1h"),
    ("gitlab agent", "log: glagent-HEOVezxZuJPWvHogU5nGYVHWVsUQk4DwgLGNOaeCtL31Ugq_Df", "DwgLGNOaeCtL31Ugq_Df"),
    ("gitlab runner", "log: GR1348941cgaTMnTC0MrAU8urbFt5", "cgaTMnTC0MrAU8urbFt5"),
    ("mailgun", "log: key-e7689447ab57a683536c4499d863386c", "a683536c4499d863386c"),
    ("twilio api key", "log: SKe10cd79e048c07dd7753eda83d7c58df", "07dd7753eda83d7c58df"),
    ("twilio sid and token", "client = Client('AC3b2f8e1d9c4a7b6e5f0d1c2b3a4e5f6d', '9f8e7d6c5b4a39281706f5e4d3c2b1a0')",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
    ("azure ad", "log: DbN8Q~0xPbX_neGBuzSm6A8-cVR06AxY-pThGJWZ", "6A8-cVR06AxY-pThGJWZ"),
    ("aws secret beside its id", "log: AKIAIOSFODNN7EXAMPLE MP9+2kUtMXhkPrSbbAjLGmsDx5StAZvlMz/Bk4op",
     "GmsDx5StAZvlMz/Bk4op"),
    ("aws credentials csv", "bob,,AKIAIOSFODNN7EXAMPLE,MP9+2kUtMXhkPrSbbAjLGmsDx5StAZvlMz/Bk4op", "GmsDx5StAZvlMz/Bk4op"),
    ("docker login -p", "log: + docker login -u bob -p FkIM3Vak1uDSKFQs1DxB", "FkIM3Vak1uDSKFQs1DxB"),
    ("docker login --password", "+ docker login -u bob --password FkIM3Vak1uDSKFQs1DxB nvcr.io", "FkIM3Vak1uDSKFQs1DxB"),
    ("htpasswd -b", "log: + htpasswd -b /etc/x bob A9RelOxOPbbNcRV7", "A9RelOxOPbbNcRV7"),
    ("htpasswd -nb", "+ htpasswd -nb bob A9RelOxOPbbNcRV7", "A9RelOxOPbbNcRV7"),
    ("redis-cli -a", "log: + redis-cli -h h -a Xy7pQ2mZ9kL4wR8tNc3v", "Xy7pQ2mZ9kL4wR8tNc3v"),
    ("huggingface-cli --token", "log: + huggingface-cli login --token vEXHJX6nsBvBqJd0ssw0FzvGr3GwnP",
     "vEXHJX6nsBvBqJd0ssw0FzvGr3GwnP"),
    ("key with a comment line", "out -----BEGIN RSA PRIVATE KEY-----\n# comment\n"
     "MIIEOWlgQl3cAXg67Pax30iYtJTq3tlAcubBKPL76dFKHc0hXZAKS6zCeaRyML8Q\n"
     "jEXAJgfPEn5jOaBaaRQh92fn3hiEbrUKpCUVl7dxXVTS2jUWfsOJTFDQ74q69dTc\n-----END RSA PRIVATE KEY-----",
     "jEXAJgfPEn5jOaBaaRQh92fn"),
    ("pkcs12 as bare base64", "out MIIKYgIBAzCCChbhbkXNNv+hOV48vsoUu19X5IQLJhQbtN2FWXWD5KaPHI2ufKssJ/Sk+WzDNhY7AGbX6lTiDYHP9zyB"
     "ylxLUTZtFf/VnV7ktOdSJcmeA+BHJ2m5qGeRzxWkdgeV6+iYplGODlYx5uVECweGThdgH9hmsOazM4n8PVGXpV9Wv4Esb7yeuCjVr5mXcj5RPD9o"
     "UsQChx5s4t", "JhQbtN2FWXWD5KaPHI2ufKssJ/Sk+W"),
]


@pytest.mark.parametrize("name, text, needle", LEAKED, ids=[case[0] for case in LEAKED])
def test_the_red_teams_shapes_go(name, text, needle):
    out = Redactor(environ={}).text(text)
    assert needle not in out and REDACTED in out


def test_an_openssh_body_goes_on_every_line_and_the_log_after_it_stays():
    body = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
            "QyNTUxOQAAACBk3Xy7pQ2mZ9kL4wR8tNc3vBn6Jh1Fg5Dk0Lq2Wm9RtAAAAJgZx8Lq2W"]
    out = Redactor(environ={}).text("\n".join(body) + "\nstep 3 loss 0.25\n")
    assert out == f"{REDACTED}\n{REDACTED}\nstep 3 loss 0.25\n"


# ordinary text near each new rule: it must stay as it is
STAYS = [
    "the_glpat-like_name_is_not_a_token", "x_glpat-like_name_is_not_a_token_at_all", "ssh-key-e7689447ab57a683536c4499d863386c",
    "monkey-e7689447ab57a683536c4499d863386c", "TASKe10cd79e048c07dd7753eda83d7c58df", "commit 3f2a9c1d4e5b6a7980f1e2d3c4b5a69788796a5b",
    "range~0Q~x", "a Q~ b",
    "  password required", "  password ********", "password: null", "x_eyJ", "7eyJhbGciOi", "_eyJhbGciOiJIUzI1NiJ9 no dots",
    "docker run -p 8080:80 img", "+ docker login --password-stdin -u bob nvcr.io", "htpasswd -D /etc/x bob",
    # a certificate and a public key in base64 (30 82 .. .. 30): public, not keys
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0",
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
    "step 100 loss 2.3456 lr 3e-4 grad_norm 0.98", '{"output_token_throughput": 1234.5}', "tensorrt 10.3.0.26",
]


@pytest.mark.parametrize("line", STAYS)
def test_ordinary_text_near_the_new_rules_stays(line):
    assert Redactor(environ={}).text(line) == line


def test_beside_an_aws_key_id_only_a_40_character_key_goes():
    for rest in ("sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                 "/data/shards/part-00007-of-00016.arrow", "abcdefghijabcdefghijabcdefghijabcdefghij"):
        assert Redactor(environ={}).text(f"AKIAIOSFODNN7EXAMPLE {rest}") == f"{REDACTED} {rest}"


@pytest.mark.parametrize("flag", ["--session", "--licence", "--license", "--private", "--sas", "--webhook-url"])
def test_workload_flags_whose_value_was_kept_now_lose_it(flag):
    value = "ZqVal1234567890abcdefgh"
    assert argv_secret_values(["prog", flag, value]) == [value]
    assert argv_secret_values(["prog", f"{flag}={value}"]) == [value]


def test_settings_after_those_flags_and_nsys_session_flags_stay():
    argv = ["nsys", "profile", "--session-new", "run7x2024", "--session-name=step9abc", "--session", "train",
            "--license", "/opt/lic.dat", "--private", "data", "--sas", "on", "--webhook-url", "https://example.com/hook",
            "--session=42", "python", "x.py"]
    assert argv_secret_values(argv) == []
    hook = "https://hooks.example.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX9z"
    assert argv_secret_values(["prog", "--webhook-url", hook]) == [hook]


TOKEN = "hf_6rrO2hcxlHw7AkvWbg7WApVZnR6DqfETVd"
# what `printf %s "$HF_TOKEN" | TOOL` prints (coreutils and vim's xxd)
DUMPS = {
    "xxd -p": "68665f3672724f326863786c487737416b7657626737574170565a6e5236\n44716645545664\n",
    "od -An -tx1": " 68 66 5f 36 72 72 4f 32 68 63 78 6c 48 77 37 41\n 6b 76 57 62 67 37 57 41 70 56 5a 6e 52 36 44 71\n"
                   " 66 45 54 56 64\n",
    "base32": "NBTF6NTSOJHTE2DDPBWEQ5ZXIFVXMV3CM43VOQLQKZNG4URWIRYWMRKUKZSA====\n",
    "rev": "dVTEfqD6RnZVpAW7gbWvkA7wHlxch2Orr6_fh",
}


@pytest.mark.parametrize("tool", sorted(DUMPS))
def test_a_known_secret_dumped_wrapped_base32_or_reversed_goes(tool):
    out = Redactor(environ={"HF_TOKEN": TOKEN}).text(DUMPS[tool])
    hexed = TOKEN.encode().hex()
    for needle in (hexed[40:56], " ".join(f"{b:02x}" for b in TOKEN.encode()[20:26]), DUMPS["base32"][8:30],
                   TOKEN[::-1][5:20]):
        assert needle not in out
    assert out.count("\n") == DUMPS[tool].count("\n")  # line by line


def test_wrapped_hex_of_ordinary_bytes_stays():
    text = "".join(base64.b16encode(bytes(range(i, i + 30))).decode().lower() + "\n" for i in range(0, 90, 30))
    spaced = " 7f 45 4c 46 02 01 01 00 00 00 00 00 00 00 00 00\n 03 00 3e 00 01 00 00 00 60 61 00 00 00 00 00 00\n"
    r = Redactor(environ={"HF_TOKEN": TOKEN})
    assert r.text(text) == text and r.text(spaced) == spaced


@pytest.mark.parametrize("line, mac", [("mac plain 001B213A4F5C", "001B213A4F5C"), ("link/ether 001b213a4f5c brd", "001b213a4f5c"),
                                       ("HWaddr 0242AC110002", "0242AC110002")])
def test_a_bare_mac_of_another_machine_goes_under_redact_hosts(line, mac):
    out = Redactor(environ={}, redact_hosts=True).text(line)
    assert mac not in out and "mac-1" in out
    assert Redactor(environ={}).text(line) == line  # only with --redact-hosts


@pytest.mark.parametrize("line", [
    "commit 5a319caa0750 fixed it", "GPU-123e4567-e89b-12d3-a456-426614174000".replace("GPU-", "uuid "),
    "0x7F1234567ABC", "SHA 3F2A9C1D4E5B6A7980F1", "pci 0000:3b:00.0",
    "ampere_sgemm_128x64_nn", "sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x64", "123456789012 bytes",
    "ABCDEFABCDEF", "cuda 12.4.1 driver 550.54.15",
])
def test_hex_that_is_no_mac_stays_under_redact_hosts(line):
    assert Redactor(environ={}, redact_hosts=True).text(line) == line


def _hex_lines(data: bytes, per_line: int, spaced: bool) -> str:
    """What `xxd -p -c N` (or, spaced, `od -An -tx1 -w N`) prints for data."""
    rows = [data[at:at + per_line] for at in range(0, len(data), per_line)]
    return "".join((" " + " ".join(f"{b:02x}" for b in row) if spaced else row.hex()) + "\n" for row in rows)


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("tail", [1, 2, 4])
def test_a_wrapped_dumps_short_last_line_goes_too(spaced, tail):
    secret = TOKEN[:30 + tail]   # a last line of 1, 2 or 4 bytes
    dump = _hex_lines(secret.encode(), 30 if not spaced else 16, spaced)
    if spaced:
        secret = TOKEN[:16 + tail]
        dump = _hex_lines(secret.encode(), 16, spaced)
    out = Redactor(environ={"HF_TOKEN": secret}).text("log\n" + dump + "done\n")
    last = dump.splitlines()[-1]
    assert len(last.replace(" ", "")) == 2 * tail and last not in out
    assert out.count("\n") == dump.count("\n") + 2


def test_numbers_and_words_alone_on_lines_are_not_dumps():
    """A line of 1 to 4 hex bytes ("1234", "cafe") is a dump's line only after a dump's full line: a log of such
    lines between others (a million blocks in 20 MiB) holds no dump, and costs no decoding."""
    from aiperf_lab.triage.redaction.dumps import _dump_parts
    text = "loss\n1234\nstep 7\ncafe\n" * 50
    assert _dump_parts(text) == ("", [])
    assert Redactor(environ={"HF_TOKEN": TOKEN}).text(text) == text


def test_every_block_of_one_kind_is_decoded_apart():
    """Blocks of one kind are decoded at once, a NUL after each: each block's secret goes, in each column, and a
    secret's halves in two blocks do not make a secret (nothing between the blocks goes)."""
    blocks = [_hex_lines(f"x{i}{TOKEN}".encode(), 30, False) for i in range(5)]
    text = "".join(f"step {i}\n{block}" for i, block in enumerate(blocks))
    out = Redactor(environ={"HF_TOKEN": TOKEN}).text(text)
    for i in range(5):
        assert f"step {i}\n" in out
    assert TOKEN.encode().hex()[10:40] not in out and out.count(REDACTED) >= 10
    halves = _hex_lines(TOKEN[:18].encode(), 30, False) + "sep\n" + _hex_lines(TOKEN[18:].encode(), 30, False)
    assert Redactor(environ={"OTHER": "unrelated-value-1"}).text(halves) == halves


def test_an_xxd_line_with_an_odd_group_leaves_its_neighbours_decoded():
    """xxd prints whole bytes; a line with an odd group of digits is no xxd line, and no longer hides the block's
    other lines from the decoder."""
    data = TOKEN.encode()
    lines = [f"{at:08x}: " + " ".join(data[at + g:at + g + 2].hex() for g in range(0, 16, 2)) + "  "
             + data[at:at + 16].decode() + "\n" for at in range(0, 32, 16)]
    odd = "00000020: 6864 6b3  hdk\n"
    out = Redactor(environ={"HF_TOKEN": TOKEN}).text(lines[0] + lines[1] + odd)
    assert TOKEN[:16] not in out and data[:8].hex() not in out.replace(" ", "")


@pytest.mark.parametrize("per_line", [2, 3, 4])
@pytest.mark.parametrize("spaced", [False, True])
def test_a_dump_of_1_to_4_bytes_a_line_is_still_a_dump(per_line, spaced):
    """`xxd -p -c 4`, `od -An -tx1 -w3`: every line shorter than a secret, each beside another (red team rt4 F4:
    the rule that keeps "1234" alone on a log line out of the dumps had let all 20 such layouts through)."""
    dump = _hex_lines(TOKEN.encode(), per_line, spaced)
    out = Redactor(environ={"HF_TOKEN": TOKEN}).text("log\n" + dump + "done\n")
    shown = "".join(line.replace(" ", "") for line in out.splitlines())
    for at in range(0, len(TOKEN) - 6, 3):
        assert TOKEN[at:at + 6].encode().hex() not in shown
    column = "".join(f"{n}\n" for n in range(1000, 1100))
    assert Redactor(environ={"HF_TOKEN": TOKEN}).text(column) == column   # numbers in a column stay
