"""Leaks still open after session 17 (helper h18l): each value, unknown to the Redactor (`Redactor({})`), is hidden
bare, behind a log prefix and through a StreamRedactor cut at every position; the nearby output that is no secret
stays.

1. A secret in a table's box: `| token | X |` behind a log prefix, a generated value of 40+ characters alone in a
   `│ ... │` cell whatever the cell beside it says.
2. A JWT folded over lines (`fold -w W`) where the fold comes before its second dot.
3. bash -x trace lines behind a time and a log level (`2026-11-24 03:00:01 INFO + echo X`, then `+ sudo -S true`).
4. A generated value in angle brackets (`Password: <X>`, `token=<X>`); placeholders and special tokens stay.
5. A Discord bot token printed alone; kaggle.json's "key" beside its "username" whatever the key's shape.
6. Under redact_hosts: peers named as hosts (MASTER_ADDR=, an MPI hostfile, a Kubernetes service's DNS name) and a
   zero-padded IPv4 address."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads, prefixed, same_in_stream, hidden_everywhere, kept_everywhere

from aiperf_lab.triage.redact import REDACTED, Redactor

PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO "]
V = "Zq8Das1xPa55"
HF = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
RANDOM = "q7Lm2Xk9Pw4Rt8Zb3Nc6Vh1Jd5Fg0Sa7Ye2Ui9Ko4"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
       ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
DISCORD = "MTAxNTQ2NzY0MzI0NjQ3ODQwMg.GkXyZa.AbCdEfGhIjKlMnOpQrStUvWxYz0123"


# 1. boxes
BOXES = [(f"│ api │ {RANDOM} │\n", RANDOM), (f"│ {RANDOM} │\n", RANDOM), (f"│ alice │ {RANDOM} │ 2026-11-24 │\n", RANDOM)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,secret", BOXES)
def test_a_secret_in_a_box_goes(text: str, secret: str, prefix: str) -> None:
    out = hidden_everywhere(prefixed(text, prefix), secret)
    assert REDACTED in out and out.startswith(prefix)


@pytest.mark.parametrize("prefix", PREFIXES[1:])
def test_a_secret_in_an_ascii_box_behind_a_log_prefix_goes(prefix: str) -> None:
    assert REDACTED in hidden_everywhere(prefixed(f"| token | {V} |\n", prefix), V)


BOXES_KEPT = ["| user | alice |\n", "| step | loss | 0.53 |\n", "│ model │ Meta-Llama-3-8B-Instruct │\n",
              "│ sha256 │ 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 │\n",
              "│ checkpoint │ ./runs/exp1/model_step_1000.safetensors │\n", "[rank0]: | x | password | y |\n",
              "echo a | token | b |\n"]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", BOXES_KEPT)
def test_a_box_with_no_secret_stays(text: str, prefix: str) -> None:
    kept_everywhere(prefixed(text, prefix))


# 3. bash -x behind a log level
TRACES = [f"+ echo {V}\n+ sudo -S true\n", f"+ sudo -S true\n+ echo {V}\n"]


@pytest.mark.parametrize("prefix", ["2026-11-24 03:00:01 INFO ", "[rank0]: 2026-11-24 03:00:01 WARNING ",
                                    "2026-11-24T03:00:01.123Z DEBUG "])
@pytest.mark.parametrize("text", TRACES)
def test_a_traced_pipe_behind_a_log_level_goes(text: str, prefix: str) -> None:
    out = hidden_everywhere(prefixed(text, prefix), V)
    assert REDACTED in out


@pytest.mark.parametrize("text", ["2026-11-24 03:00:01 INFO + echo hello world\n2026-11-24 03:00:01 INFO + make all\n",
                                  "2026-11-24 03:00:01 INFO loss + reg = 0.53\n",
                                  "2026-11-24 03:00:01 INFO + python train.py --lr 3e-4\n"])
def test_a_trace_behind_a_log_level_with_no_secret_stays(text: str) -> None:
    kept_everywhere(text)


# 4. angle brackets
ANGLED = [("Password: <Zq8vN2mK5pL9xR4t>\n", "Zq8vN2mK5pL9xR4t"), (f"token=<{V}>\n", V),
          (f"api_key: <{V}>\n", V)]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,secret", ANGLED)
def test_a_generated_value_in_angle_brackets_goes(text: str, secret: str, prefix: str) -> None:
    assert REDACTED in hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", ["password: <REDACTED>\n", "token=<none>\n", "token=<your-token>\n",
                                  "password: <password>\n", "pad_token: <|endoftext|>\n", "eos_token: </s>\n",
                                  "unk_token: <unk>\n", "token: <extra_id_0>\n", "token: <0x0A>\n",
                                  "api_key: <YOUR_API_KEY>\n"])
def test_a_placeholder_in_angle_brackets_stays(text: str, prefix: str) -> None:
    kept_everywhere(prefixed(text, prefix))


# 5. shapes
SHAPES = [(f"{DISCORD}\n", DISCORD[30:]), (f"bot token {DISCORD} loaded\n", DISCORD[30:]),
          ('{"username":"alice","key":"Zq8Das1x"}\n', "Zq8Das1x"),
          ('{"username": "alice", "key": "abc12345"}\n', "abc12345"),
          ("{'key': 'Zq8Das1x', 'username': 'alice'}\n", "Zq8Das1x")]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,secret", SHAPES)
def test_a_token_shape_goes(text: str, secret: str, prefix: str) -> None:
    assert REDACTED in hidden_everywhere(prefixed(text, prefix), secret)


@pytest.mark.parametrize("text", ['{"username": "alice", "key": "<REDACTED>"}\n', '{"username": "alice", "key": "none"}\n',
                                  '{"username": "alice", "keys": "abc"}\n', '{"user": "alice", "key": "train"}\n',
                                  "model.layers.0.self_attn.q_proj.weight torch.Size([4096, 4096])\n",
                                  "AbCdEfGhIjKlMnOpQrStUvWx.GkXyZa.AbCdEfGhIjKlMnOpQrStUvWxYz0123\n",
                                  "torch.distributed.elastic.multiprocessing.api.SignalException\n"])
def test_text_like_a_token_shape_stays(text: str) -> None:
    kept_everywhere(text)


# 2. a JWT folded before its second dot
def _folded(line: str, width: int) -> str:
    return "\n".join(line[k:k + width] for k in range(0, len(line), width)) + "\n"


JWT_PIECES = [JWT[k:k + 8] for k in range(0, len(JWT) - 8, 4) if "." not in JWT[k:k + 8]]


FOLDS = ([(line, width) for line in (JWT, f"2026-11-24 03:00:01 INFO Authorization header {JWT} sent")
          for width in (20, 23, 31, 40, 47, 60, 64, 76, 80, 99, 100)]
         + [(line, width) for line in (f"token: {JWT}", f"[rank0]: id_token={JWT}") for width in (20, 23, 31, 40, 47)])
# (a secret-named value's fold at 60 characters or more was read on main: wraps.py's first rule)
FOLDS_READ_BEFORE = [(line, width) for line in (f"token: {JWT}", f"[rank0]: id_token={JWT}") for width in (60, 64, 76, 80, 99, 100)]


@pytest.mark.parametrize("line,width", FOLDS)
def test_a_jwt_folded_before_its_second_dot_goes(line: str, width: int) -> None:
    _folded_jwt_goes(line, width)


@pytest.mark.parametrize("line,width", FOLDS_READ_BEFORE)
def test_a_secret_named_jwt_folded_at_60_or_more_stays_hidden(line: str, width: int) -> None:
    _folded_jwt_goes(line, width)


def _folded_jwt_goes(line: str, width: int) -> None:
    text = f"step 1 loss 2.0\n{_folded(line, width)}step 2 loss 1.9\n"
    whole = Redactor({}).text(text)
    assert not [piece for piece in JWT_PIECES if piece in whole], whole
    assert whole.startswith("step 1 loss 2.0\n") and whole.endswith("step 2 loss 1.9\n")
    for size in (1, 7, 64, 4096):
        assert fed_in_reads(Redactor({}), text, size, piece=7) == whole, size


@pytest.mark.parametrize("width", [20, 64])
def test_a_folded_jwt_goes_in_a_stream_cut_anywhere(width: int) -> None:
    text = f"step 1 loss 2.0\n{_folded(JWT, width)}step 2 loss 1.9\n"
    whole = Redactor({}).text(text)
    assert not [piece for piece in JWT_PIECES if piece in whole], whole
    same_in_stream(lambda: Redactor({}), text, whole)


@pytest.mark.parametrize("text", ["a header eyJhbGciOiJIUzI1NiJ9\nDone\n",
                                  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\nstep 2 loss 1.9\n",
                                  "x" * 30 + " eyJhbGciOiJIUzI1\n" + "abcdefghij" * 3 + "\n",
                                  "see eyJ\nfor the header\n"])
def test_a_jwt_head_ending_a_line_with_no_rest_stays(text: str) -> None:
    kept_everywhere(text)


@pytest.mark.parametrize("prefix", ["[rank0]: ", "2026-11-24 03:00:01 INFO "])
@pytest.mark.parametrize("width", [20, 40, 64, 100])
def test_a_folded_jwt_behind_a_log_prefix_on_each_line_goes(prefix: str, width: int) -> None:
    text = prefixed(f"step 1 loss 2.0\n{_folded(JWT, width)}step 2 loss 1.9\n", prefix)
    whole = Redactor({}).text(text)
    assert not [piece for piece in JWT_PIECES if piece in whole], whole
    assert whole.startswith(prefix + "step 1 loss 2.0\n") and whole.endswith(prefix + "step 2 loss 1.9\n")
    assert whole.count(prefix) == text.count(prefix)
    for size in (1, 7, 64, 4096):
        assert fed_in_reads(Redactor({}), text, size, piece=7) == whole, size
    if width == 40:
        same_in_stream(lambda: Redactor({}), text, whole)


# 6. peers named as hosts, zero-padded addresses (redact_hosts)
def _hosts() -> Redactor:
    return Redactor({}, redact_hosts=True)


PEERS = [("MASTER_ADDR=gpu-node-12\n", "gpu-node-12"), ("export MASTER_ADDR=gpu-node-12\n", "gpu-node-12"),
         ("torchrun --nnodes 2 --master_addr gpu-node-12 --master_port 29500 train.py\n", "gpu-node-12"),
         ("torchrun --rdzv_endpoint=trainer-0:29400 train.py\n", "trainer-0"),
         ('{"MASTER_ADDR": "gpu-node-12", "MASTER_PORT": "29500"}\n', "gpu-node-12"),
         ("node17 slots=8\nnode18 slots=8 max_slots=8\n", "node1"),
         ("connecting to trainer-0.trainer.default.svc.cluster.local:29500\n", "trainer"),
         ("ping trainer-1.trainer.ml-team.svc\n", "trainer"), ("ping 010.001.002.003\n", "010.001"),
         ("peer 192.168.001.010 up\n", "192.168")]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,name", PEERS)
def test_a_peer_named_as_a_host_becomes_a_placeholder(text: str, name: str, prefix: str) -> None:
    text = prefixed(text, prefix)
    out = hidden_everywhere(text, name, _hosts)
    assert "host-1" in out or "ip-1" in out, out
    assert Redactor({}).text(text) == text   # (without --redact-hosts a host name is no secret)


def test_a_zero_padded_address_is_the_address_it_writes() -> None:
    assert _hosts().text("a 10.1.2.3 b 010.001.002.003\n") == "a ip-1 b ip-1\n"


@pytest.mark.parametrize("text", ["version 001.002.003.004\n", "cudnn 9.01.02.03\n", "at 999.001.002.003\n",
                                  "MASTER_ADDR=localhost\n", "MASTER_ADDR=$HEAD_NODE\n", "MASTER_ADDR=${HEAD}\n",
                                  "hostname: <your-host>\n", "set master_addr to the head node\n",
                                  "slots=8 per node\n", "the svc.cluster.local domain\n", "torch 2.4.0 cuda 12.4\n",
                                  "a model.svc file\n"])
def test_what_names_no_peer_stays_under_redact_hosts(text: str) -> None:
    kept_everywhere(text, _hosts)


# 7. Redis's password settings as a program's flags (`ps aux`, journald's _CMDLINE=, a printed command)
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", [f"redis-server --requirepass {V}\n", f"redis-server /etc/redis.conf --masterauth {V} --port 6380\n",
                                  f"root 1 0.0 0.0 1 2 ? Ss 03:00 0:00 /usr/bin/redis-server --requirepass {V}\n",
                                  f"_CMDLINE=/usr/bin/redis-server *:6379 --requirepass {V}\n"])
def test_a_redis_password_flag_goes(text: str, prefix: str) -> None:
    assert REDACTED in hidden_everywhere(prefixed(text, prefix), V)


def test_a_redis_password_flag_in_the_environment_is_a_known_secret() -> None:
    assert V not in Redactor({"REDIS_REQUIREPASS": V}).text(f"connected with {V}\n")


@pytest.mark.parametrize("text", ["redis-server --requirepass\n", "# requirepass foobared\n", "requirepass is not set\n",
                                  "redis-server --port 6380 --appendonly yes\n"])
def test_redis_lines_with_no_password_stay(text: str) -> None:
    kept_everywhere(text)


# Forms of this lane's list that main hid already (kept as guards): the HF token in a box or in angle brackets, the ASCII
# box's row at a line's start, a short Bearer credential in curl -v's output, printf's value traced before docker login
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text,secret", [(f"│ HF_TOKEN │ {HF} │\n", HF), (f"token=<{HF}>\n", HF),
                                         ("> Authorization: Bearer bluebird42\n", "bluebird42")])
def test_forms_hidden_before_stay_hidden(text: str, secret: str, prefix: str) -> None:
    assert REDACTED in hidden_everywhere(prefixed(text, prefix), secret)


def test_an_ascii_box_row_at_a_lines_start_stays_hidden() -> None:
    assert REDACTED in hidden_everywhere(f"| token | {V} |\n", V)


@pytest.mark.parametrize("prefix", ["2026-11-24 03:00:01 INFO ", "[rank0]: 2026-11-24 03:00:01 WARNING "])
def test_a_traced_printf_before_docker_login_stays_hidden(prefix: str) -> None:
    text = prefixed(f"+ printf %s {V}\n+ docker login -u alice --password-stdin registry.example.com\n", prefix)
    assert REDACTED in hidden_everywhere(text, V)


# Variants of the lane's forms (found by trying them): rich's heavy and double bars, a row with more cells after the
# value, an unpadded markdown row, a generated value in an ASCII cell; kaggle.json over lines (`jq .`); a trace's two
# lines with times a second apart, behind a lower-case level or a level alone
VARIANTS = [(f"┃ token ┃ {V} ┃\n", V), (f"║ password ║ {V} ║\n", V), (f"│ HF_TOKEN │ {V} │ set │\n", V),
            (f"| password | {V} | 2026-11-24 |\n", V), (f"|token|{V}|\n", V),
            (f"┃ {RANDOM} ┃\n", RANDOM), (f"│{RANDOM}│\n", RANDOM),
            ('{\n  "username": "alice",\n  "key": "Zq8Das1x"\n}\n', "Zq8Das1x"),
            ('{\n  "key": "Zq8Das1x",\n  "username": "alice"\n}\n', "Zq8Das1x")]


@pytest.mark.parametrize("text,secret", VARIANTS)
def test_a_variant_of_the_forms_goes(text: str, secret: str) -> None:
    assert REDACTED in hidden_everywhere(text, secret)


@pytest.mark.parametrize("text", [f"2026-11-24 03:00:01 INFO + echo {V}\n2026-11-24 03:00:02 INFO + sudo -S true\n",
                                  f"2026-11-24 03:00:01 info + echo {V}\n2026-11-24 03:00:01 info + sudo -S true\n",
                                  f"INFO + echo {V}\nINFO + sudo -S true\n"])
def test_a_trace_variant_behind_a_log_level_goes(text: str) -> None:
    assert REDACTED in hidden_everywhere(text, V)


@pytest.mark.parametrize("text", ["| step | loss | lr |\n|------|------|----|\n| 1 | 2.3 | 3e-4 |\n",
                                  "│ name │ token │ count │\n│ a │ b │ 3 │\n", "┃ Name ┃ Value ┃\n",
                                  "100%|██████████| 10/10 [00:01<00:00, 9.1it/s]\n",
                                  "| sha | 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 |\n",
                                  '{\n  "username": "alice",\n  "key": "<REDACTED>"\n}\n',
                                  '{\n  "username": "alice",\n  "email": "a@example.com"\n}\n'])
def test_tables_and_json_with_no_secret_stay(text: str) -> None:
    kept_everywhere(text)


@pytest.mark.parametrize("text,name", [("os.environ['MASTER_ADDR'] = 'gpu-node-12'\n", "gpu-node-12"),
                                       ("SLURMD_NODENAME=gpu-node-12\n", "gpu-node-12"),
                                       ("SLURM_JOB_NODELIST=gpu-node-[01,03-04]\n", "gpu-node"),
                                       ("torchrun --master-addr=gpu-node-12 train.py\n", "gpu-node-12")])
def test_a_peer_variant_becomes_a_placeholder(text: str, name: str) -> None:
    assert "host-1" in hidden_everywhere(text, name, _hosts)


@pytest.mark.parametrize("text", ["hostname_prefix: abc\n", "master_addr_env = x\n", "MASTER_ADDR=[::1]\n",
                                  "--rdzv_endpoint $MASTER_ADDR:29400\n"])
def test_a_peer_setting_with_no_host_name_stays(text: str) -> None:
    kept_everywhere(text, _hosts)
