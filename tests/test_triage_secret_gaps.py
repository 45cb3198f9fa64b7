"""Third pass on redaction (issue 11): shapes that still passed, and the false positives that would make
a bundle useless (PATH, PWD, commit hashes, versions, kernel names must stay)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor, argv_secret_values

TOKEN = "Zq8vN2kLmW4xR7tY1pQs9dFh3jK6bVc0"          # 32 characters, no known shape


# ---- (a) -p VALUE on any program ------------------------------------------------------------------------


@pytest.mark.parametrize("argv, secret", [
    (["mytool", "-p", "S3cr3t!x"], "S3cr3t!x"),
    (["mytool", "-pHunter2pw"], "Hunter2pw"),
    (["/usr/bin/mysql", "-u", "root", "-p", "secret", "db"], "secret"),
    (["mysql", "-psecretpw"], "secretpw"),
    (["sshpass", "-p", "plainword", "ssh", "host"], "plainword"),
    (["python3", "client.py", "--host", "db", "-p", "Passw0rd"], "Passw0rd"),
    (["redis-cli", "-a", "redispass1"], "redispass1"),
])
def test_p_values_that_look_like_passwords_or_follow_a_password_tool_go(argv, secret):
    assert secret in argv_secret_values(argv)
    clean = Redactor({}).argv(argv)
    assert secret not in " ".join(clean) and REDACTED in " ".join(clean)
    # and wherever the workload prints it later
    assert secret not in Redactor({}, extra_secrets=argv_secret_values(argv)).text(f"connecting with {secret} now")


@pytest.mark.parametrize("argv", [
    ["mytool", "-p", "8080"], ["ssh", "-p", "2222", "host"], ["docker", "run", "-p", "8080:80", "img"],
    ["python3", "x.py", "-p", "./out/run1"], ["python3", "x.py", "-p", "/data/ckpt"], ["torchrun", "-p", "0.5"],
    ["python3", "x.py", "-p", "bf16"], ["python3", "x.py", "-p", "train"], ["mytool", "-p", "-v"],
    ["psql", "-p", "5432"], ["mytool", "-p", "true"], ["mytool", "-p", "1e-4"],
])
def test_p_values_that_are_ports_paths_or_plain_words_stay(argv):
    assert Redactor({}).argv(argv) == argv
    assert argv_secret_values(argv) == []


# ---- (b) a piece of a known secret anywhere -----------------------------------------------------------------


@pytest.mark.parametrize("printed", [
    f"xx{TOKEN}yy",
    f"token starts {TOKEN[:14]}... ok",          # a printed prefix
    f"token ends ...{TOKEN[-13:]} ok",            # a printed suffix
    f"mid{TOKEN[4:30]}dle",                       # 26 characters from its middle
    f"id={TOKEN[:12]}",
])
def test_a_piece_of_a_known_secret_in_the_middle_of_a_line_goes(printed):
    out = Redactor({"API_TOKEN": TOKEN}).text(printed)
    assert REDACTED in out
    for size in range(12, len(TOKEN) + 1):
        for at in range(0, len(TOKEN) - size + 1):
            assert TOKEN[at:at + size] not in out, (printed, out)


@pytest.mark.parametrize("width", [5, 12, 20, 27, 31])
def test_a_known_secret_wrapped_over_two_lines_goes_even_when_one_side_is_short(width):
    text = f"HF token is {TOKEN[:width]}\n{TOKEN[width:]}\nnext line stays\n"
    whole = Redactor({"HF_TOKEN": TOKEN}).text(text)
    sink = StreamRedactor(Redactor({"HF_TOKEN": TOKEN}))
    cut = text.index("\n") + 1
    streamed = sink.feed(text[:cut]) + sink.feed(text[cut:]) + sink.close()
    for out in (whole, streamed):
        assert TOKEN[:width] not in out and TOKEN[width:] not in out, out
        assert "next line stays" in out and out.count("\n") == 3


def test_pieces_of_a_path_valued_secret_do_not_wipe_paths():
    env = {"GOOGLE_APPLICATION_CREDENTIALS": "/home/alice/project/keys/service.json", "PWD": "/home/alice/project",
           "PATH": "/home/alice/project/bin:/usr/bin"}
    r = Redactor(env)
    text = "cwd /home/alice/project/src, PATH=/home/alice/project/bin:/usr/bin"
    assert r.text(text) == text
    assert r.environment(env)["PATH"] == env["PATH"] and r.environment(env)["PWD"] == env["PWD"]


# ---- (c) bare 40-hex keys in secret contexts ----------------------------------------------------------------

HEX_KEY = "3f9a1c0d7e5b2a4f6c8d0e1f2a3b4c5d6e7f8a9b"
COMMIT = "9c1b2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"


@pytest.mark.parametrize("environ", [{"GH": HEX_KEY}, {"SERVICE_CONFIG": HEX_KEY}, {"X": HEX_KEY.upper()}])
def test_a_bare_hex_key_in_the_environment_is_a_secret(environ):
    r = Redactor(dict(environ, PATH="/usr/bin"))
    assert r.has_secrets
    assert HEX_KEY not in r.text(f"using {HEX_KEY}").lower()
    assert REDACTED in r.environment(environ)[next(iter(environ))]


@pytest.mark.parametrize("text", [
    f"curl -H 'X-Api-Key: {HEX_KEY}' https://x", f"https://api.example.com/v1?key={HEX_KEY}&q=1",
    f'{{"key": "{HEX_KEY}"}}', f"license_key={HEX_KEY}", f"https://{HEX_KEY}@github.com/o/r",
    f"Authorization: token {HEX_KEY}",
])
def test_a_bare_hex_key_in_a_secret_context_goes(text):
    assert HEX_KEY not in Redactor({}).text(text)


def test_a_bare_hex_key_on_the_command_line_goes_but_a_commit_flag_keeps_its_sha():
    argv = ["python3", "x.py", "--service", HEX_KEY, "--revision", COMMIT, "--commit=" + COMMIT]
    assert argv_secret_values(argv) == [HEX_KEY]
    assert Redactor({}).argv(argv)[-3:] == ["--revision", COMMIT, "--commit=" + COMMIT]


@pytest.mark.parametrize("environ", [
    {"GIT_COMMIT": COMMIT}, {"CI_COMMIT_SHA": COMMIT}, {"GITHUB_SHA": COMMIT}, {"SOURCE_VERSION": COMMIT},
    {"INVOCATION_ID": "4f1c2b9a8e7d6c5b4a3f2e1d0c9b8a7f"}, {"MODEL_REVISION": COMMIT},
])
def test_commit_hashes_stay(environ):
    r = Redactor(dict(environ, PATH="/usr/bin"))
    assert not r.has_secrets
    text = f"torch git version {COMMIT}; pip install git+https://github.com/o/r@{COMMIT}"
    assert r.text(text) == text
    assert r.environment(environ) == environ


# ---- (d) short JWTs, (e) short user-only URL credentials ----------------------------------------------------


@pytest.mark.parametrize("jwt", ["eyJhbGciOiJub25lIn0.eyJhIjoxfQ.", "eyJhbGciOiJIUzI1NiJ9.e30.abc",
                                 "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOjF9.sig"])
def test_short_jwts_go(jwt):
    assert jwt[:12] not in Redactor({}).text(f"auth {jwt} ok")
    assert Redactor({"X": jwt}).has_secrets


@pytest.mark.parametrize("url, gone", [("https://tok@host/", "tok"), ("https://ab12cd@github.com/o/r", "ab12cd"),
                                       ("http://x9@proxy:3128", "x9")])
def test_a_short_user_only_url_credential_goes(url, gone):
    out = Redactor({}).text(f"clone {url} now")
    assert f"//{gone}@" not in out and REDACTED in out


@pytest.mark.parametrize("text", ["ssh://git@github.com/o/r.git", "git+ssh://git@host/x", "sftp://alice@files/x",
                                  "git@github.com:o/r.git"])
def test_ssh_login_names_in_urls_stay(text):
    assert Redactor({}).text(text) == text


# ---- (f) --redact-hosts: every IPv4 address, versions stay ---------------------------------------------------

HOSTS = {"HOSTNAME": "node7", "USER": "alice", "PATH": "/usr/bin"}


@pytest.mark.parametrize("text, address", [
    ("Resolving huggingface.co... 18.239.50.3", "18.239.50.3"), ("nameserver 8.8.4.4", "8.8.4.4"),
    ("NCCL INFO Bootstrap : Using eth0:34.120.5.6<0>", "34.120.5.6"), ("peer 52.1.2.3 replied", "52.1.2.3"),
    ('{"peer": "52.1.2.4"}', "52.1.2.4"), ("NO_PROXY=localhost,52.1.2.5", "52.1.2.5"),
])
def test_redact_hosts_replaces_public_ipv4_addresses_without_a_label(text, address):
    out = Redactor(HOSTS, redact_hosts=True).text(text)
    assert address not in out and "ip-1" in out, out


@pytest.mark.parametrize("text", [
    '"nvidia-cudnn-cu13": "9.19.0.56",', "NV_CUDNN_VERSION=9.14.0.64-1", "nvidia-cublas-cu12==12.4.5.8",
    "cudnn version 9.1.0.70", "libnccl2=2.28.3-1+cuda13.0", "tensorrt 10.0.1.6", "VBIOS 96.00.74.00.01",
    "Linux 6.8.0-1017-nvidia x86_64", "nvml version: 13.580.159.04", "v1.2.3.4", "1.2.3.4+cu121",
    "Linux 5.4.0.150-generic", "kernel: 5.4.0.150",
])
def test_redact_hosts_keeps_versions(text):
    assert Redactor(HOSTS, redact_hosts=True).text(text) == text


# ---- false positives: what must stay whatever the secrets ---------------------------------------------------


def test_paths_kernel_names_and_package_hashes_stay_next_to_real_secrets():
    env = {"HF_TOKEN": "hf_" + "Q" * 34, "DB_PASSWORD": "Sup3r-Secret!", "PWD": "/home/alice/project",
           "OLDPWD": "/home/alice", "PATH": "/usr/local/cuda/bin:/usr/bin", "GIT_COMMIT": COMMIT}
    r = Redactor(env, extra_secrets=argv_secret_values(["mytool", "-p", "S3cr3t!x"]))
    text = ("PWD=/home/alice/project PATH=/usr/local/cuda/bin:/usr/bin\n"
            "ampere_sgemm_128x64_nn void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>\n"
            f"torch 2.11.0+cu130 git {COMMIT} triton key=cache-7f3a\n"
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off\n")
    assert r.text(text) == text


# ---- signals: after the run, a signal is not "interrupted before it started" -----------------------------


def test_the_start_up_handler_is_not_put_back_once_the_work_is_done(capsys):
    import signal

    from conftest import DATA

    from aiperf_lab.triage import cli, entry

    previous = {sig: signal.signal(sig, entry.exit_130_before_anything_is_written) for sig in (signal.SIGINT,
                                                                                               signal.SIGTERM)}
    try:
        assert cli.main(["show", str(DATA / "triage" / "h200-fixture.tar.gz")]) == 0
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def test_a_secret_sounding_name_holding_a_path_keeps_its_path_and_nul_ends_a_value():
    env = {"TIKTOKEN_CACHE_DIR": "/opt/tiktoken_cache", "GOOGLE_APPLICATION_CREDENTIALS": "/home/me/key.json",
           "HF_TOKEN": "hf_" + "Q" * 34}
    r = Redactor(env)
    assert r.environment(env)["TIKTOKEN_CACHE_DIR"] == "/opt/tiktoken_cache"
    assert r.environment(env)["HF_TOKEN"] == REDACTED
    blob = "TIKTOKEN_CACHE_DIR=/opt/tiktoken_cache\x00NVIDIA_DRIVER_CAPABILITIES=compute,utility\x00X_TOKEN=abcd1234\x00Y=1"
    assert r.text(blob) == blob.replace("abcd1234", REDACTED)


# ---- property: every planted shape, anywhere in any text, cut anywhere by the stream -----------------------

KNOWN = {"API_TOKEN": TOKEN, "LEGACY_GH": HEX_KEY}
ARGV = ["mytool", "-p", "S3cr3t!x9"]
# (what is printed, the part that must not survive)
PLANTED = [
    (TOKEN, TOKEN[:12]), (TOKEN[:14], TOKEN[:14]), (TOKEN[-12:], TOKEN[-12:]), (TOKEN[3:29], TOKEN[3:29]),
    (repr(TOKEN), TOKEN[:12]), (HEX_KEY, HEX_KEY), (HEX_KEY.upper(), HEX_KEY.upper()), ("S3cr3t!x9", "S3cr3t!x9"),
    ('"S3cr3t!x9"', "S3cr3t!x9"),
    # shapes found by their form alone start at a word's start (a token glued to letters is not one)
    (" eyJhbGciOiJub25lIn0.eyJhIjoxfQ.", "eyJhbGciOiJub25lIn0"), (" https://tok3n@github.com/o", "tok3n@"),
    (" postgres://u:pa55w0rd@db/x", "pa55w0rd"), (f" key={'9f' * 20}", "9f" * 20), (" hf_" + "A" * 34, "A" * 34),
    ("\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgk\n", "MIIEvQIBADANBgk"),
]
FILLER = st.text(alphabet=st.sampled_from(list("ab xyz019 .:/=-_\n\"'")), max_size=40)


@settings(max_examples=120, deadline=None)
@given(before=FILLER, after=FILLER, planted=st.sampled_from(PLANTED), glue=st.sampled_from(["", " ", "\n", "=", "x"]),
       cuts=st.lists(st.integers(min_value=1, max_value=40), max_size=6))
def test_a_planted_secret_never_survives_whole_or_streamed(before, after, planted, glue, cuts):
    printed, gone = planted
    text = before + glue + printed + glue + after
    whole = Redactor(KNOWN, extra_secrets=argv_secret_values(ARGV)).text(text)
    sink = StreamRedactor(Redactor(KNOWN, extra_secrets=argv_secret_values(ARGV)))
    pieces, at = [], 0
    for size in cuts:
        pieces.append(sink.feed(text[at:at + size]))
        at += size
    streamed = "".join(pieces) + sink.feed(text[at:]) + sink.close()
    for out in (whole, streamed):
        assert gone not in out, (text, out)
        assert out.count("\n") == text.count("\n")


def test_a_long_piece_of_a_long_secret_goes_past_what_the_regex_grows():
    value = "".join(chr(65 + (i * 7) % 26) + str(i % 10) for i in range(60))   # 120 characters
    out = Redactor({"SIGNING_SECRET": value}).text(f"x {value[5:110]} y")
    assert out == f"x {REDACTED} y"
