"""A stream gives the same bytes as Redactor.text on the whole input, whatever the pipe's reads and however often
it cuts (issue 11, fifth red-team pass: loguru's diagnose lines were redacted or not depending on where the pipe cut
them). Texts are made of planted secrets of every shape the redactor knows, printed the way tools print them, one
to a few lines each, between ordinary log lines; the stream is fed in random pieces and made to try a cut at
every newline or every few hundred characters."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aiperf_lab.triage.redact import Redactor, StreamRedactor

from test_redaction_shapes_pass5 import DUMPS, LEAKED, TOKEN

ENVIRON = {"HF_TOKEN": TOKEN, "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz"}
# forms read over lines (a name on one line, the value on another), as tools print them
TOOL_FORMS = [
    "    client.login(user, pw)\n    │      │     │     └ 'ZqQmXfipEKASvvf73xrD4hCU'\n    │      │     └ 'bob'\n"
    "    │      └ <function login at 0x7f>",
    "    connect(password)\n    │       └ 'Zqip5KIIJeJ6qk6V50vMjh70'\n    └ <function connect>",
    '  File "train.py", line 9, in <module>\n    main(api_key)\n    │    └ \'Zq9LmQ2rT5xW8vB3nK7pH4dF\'\n    └ <function main>',
    "    env:\n    - name: DB_PASSWORD\n      value: Zq8DaspUtbuleC5C0HzjwSLo",
    '    - name: OPENAI_API_KEY\n      value: "ZqctbD5utuFj7XXE4nms27S5"',
    "apiVersion: v1\ndata:\n  password: WnE5TG1RMnJUNXhXOHZCM25LN3A=\n  username: Ym9i\nkind: Secret",
    '{"data": {"token": "WnE5TG1RMnJUNXhXOHZCM25LN3A="}, "kind": "Secret"}',
    '"db_password": {"sensitive": true, "type": "string", "value": "Zq2SA0BhKh58HvHHBA5bu6ds"}',
    "Name                           Value\n----                           -----\nDB_PASSWORD                    ZqzdESgH6pItQz8p4e6U93Qx",
    "machine api.wandb.ai\n  login user\n  password 4dbca3a0aac36098b2cc2bd818319478da6bd0c6",
    "api_key:\n  Zq8DaspUtbuleC5C0HzjwSLo",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "00000000  68 66 5f 36 72 72 4f 32  68 63 78 6c 48 77 37 41  |hf_6rrO2hcxlHw7A|\n"
    "00000010  6b 76 57 62 67 37 57 41  70 56 5a 6e 52 36 44 71  |kvWbg7WApVZnR6Dq|\n"
    "00000020  66 45 54 56 64                                    |fETVd|",
    "export HF_TOKEN=" + TOKEN[:20] + "\n" + TOKEN[20:],
    f"token {TOKEN}", "url=postgres://app:Pw9xQ2mZ7kL4@db.internal/x", "Authorization: Bearer Zq9LmQ2rT5xW8vB3nK7pH4dF",
    'declare -x DB_PASSWORD="Zqg2sye9\\$\\"b2Rann76dEyTzAeK"',
    # coloured (rich, structlog): the rules read the text without its CSI codes
    "\x1b[36mclient_secret\x1b[0m=\x1b[35mZq8Wm3Kx7Lp2Rv9T\x1b[0m", "\x1b[36mapi_key:\x1b[0m\n  Zq8Wm3Kx7Lp2Rv9T",
    "\x1b[1m{\x1b[0m\x1b[32m'password'\x1b[0m: \x1b[32m'Zq8Wm3Kx7Lp2Rv9T'\x1b[0m\x1b[1m}\x1b[0m",
    # escaped or split names, a value split by colour codes, dumps behind a log prefix, od -An -tu1 (helper h12e)
    '{"pass\\u0077ord": "Zq8Wm3Kx7Lp2Rv9T", "api\\/key": "Zq9LmQ2rT5xW8vB3nK7pH4dF"}', "pass\u200bword:\n  Zq8Wm3Kx7Lp2Rv9T",
    "\x1b[36mpassword\x1b[0m=\x1b[35mZq8Wm3\x1b[1mKx7Lp2Rv9T\x1b[0m",
    "2026-11-23 12:00:01 INFO 00000000  68 66 5f 36 72 72 4f 32  68 63 78 6c 48 77 37 41  |hf_6rrO2hcxlHw7A|\n"
    "2026-11-23 12:00:02 INFO 00000010  6b 76 57 62 67 37 57 41  70 56 5a 6e 52 36 44 71  |kvWbg7WApVZnR6Dq|\n"
    "2026-11-23 12:00:03 INFO 00000020  66 45 54 56 64                                    |fETVd|",
    " 104 102  95  54 114 114  79  50 104  99 120 108  72 119  55  65\n 107 118  87  98 103  55  87  65 112  86  90 110"
    "  82  54  68 113\n 102  69  84  86 100",
]
PLAIN = ["step 1200 loss 2.3817 lr 3.0e-04 grad_norm 0.84 tokens/s 51234.7 mem 61.2 GiB", "",
         "[rank0]: epoch 3 iteration 1200/5000 | consumed samples 614400 | elapsed 412.3 ms", "    x = compute(y)",
         '{"output_token_throughput": 1234.5, "token_count": 512}', "done"]
POOL = [text for _, text, _ in LEAKED] + list(DUMPS.values()) + TOOL_FORMS + PLAIN


def _streamed(text: str, piece: int, reads: list[int], flushes: frozenset[int] = frozenset()) -> str:
    """The stream fed in pieces ending at reads, flushed (as the log does when the pipe goes quiet) after those
    reads whose index is in flushes."""
    stream = StreamRedactor(Redactor(environ=ENVIRON), piece=piece)
    out, at = [], 0
    for index, cut in enumerate(sorted(set(reads)) + [len(text)]):
        out.append(stream.feed(text[at:cut]))
        if index in flushes:
            out.append(stream.flush())
        at = cut
    out.append(stream.close())
    return "".join(out)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=24), st.sampled_from(["", "\n"]),
       st.one_of(st.integers(1, 8), st.integers(9, 400), st.just(1 << 16)), st.data())
def test_a_stream_gives_what_text_gives_whatever_the_reads(items, ending, piece, data):
    text = "\n".join(items) + ending
    reads = data.draw(st.lists(st.integers(0, len(text)), max_size=40))
    flushes = data.draw(st.frozensets(st.integers(0, 40)))
    assert _streamed(text, piece, reads, flushes) == Redactor(environ=ENVIRON).text(text)


def test_a_flush_lets_out_whole_lines_at_once_and_holds_what_the_rules_hold():
    """A workload printing a line now and then is shown as it prints (the pieces are 64 KiB), except what must
    wait for the next lines: a name whose value comes on the next line, a key block still open."""
    stream = StreamRedactor(Redactor(environ=ENVIRON))
    assert stream.feed("Collecting data...\n") == "Collecting data...\n"
    assert stream.feed("Generating '/tmp/report.qdstrm'\nGenerated:\n    /tmp/a b") == ""
    assert stream.flush() == "Generating '/tmp/report.qdstrm'\nGenerated:\n"
    assert stream.flush() == ""   # the unfinished line waits for its newline
    shown = stream.feed("/report.nsys-rep\napi_key:\n") + stream.flush()
    assert shown in ("", "    /tmp/a b/report.nsys-rep\n")   # (held with the name below, or let out)
    shown += stream.feed("  Zq8DaspUtbuleC5C0HzjwSLo\n") + stream.flush()
    assert "Zq8D" not in shown and shown.endswith("api_key:\n  [REDACTED]\n")   # the name waited for its value
    assert stream.feed("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n") == ""
    assert stream.flush() == ""   # the key block still open waits for its END line
    assert "MIIEpAIB" not in stream.feed("-----END RSA PRIVATE KEY-----\n") + stream.flush() + stream.close()


def test_the_red_teams_loguru_case_in_100_character_reads():
    """The red team's repro: loguru's arrows after other tools' output, read 100 characters at a time."""
    text = "\n".join(TOOL_FORMS + PLAIN) + "\n"
    whole = Redactor(environ={}).text(text)
    assert "Zqip5KIIJeJ6qk6V50vMjh70" not in whole and "ZqQmXfipEKASvvf73xrD4hCU" not in whole
    for size in (1, 37, 100, 4096):
        stream = StreamRedactor(Redactor(environ={}))
        out = "".join(stream.feed(text[at:at + size]) for at in range(0, len(text), size)) + stream.close()
        assert out == whole


def test_a_known_secret_printed_in_pieces_line_by_line_goes_as_in_the_whole_text():
    """print(v[:a]); print(v[a:b]); print(v[b:]), each line flushed as it comes (a workload printing slowly): the
    stream holds back the lines that may begin the secret, so it gives what Redactor.text gives on the whole
    (the red team's rt4: every three-piece split of a 16-character password leaked its first pieces)."""
    value = ENVIRON["DB_PASSWORD"]
    splits = [(a, b) for a in range(1, len(value) - 1) for b in range(a + 1, len(value))]
    for a, b in splits:
        text = f"step 1\n{value[:a]}\n{value[a:b]}\n{value[b:]}\nstep 2\n"
        stream = StreamRedactor(Redactor(environ=ENVIRON))
        out = "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()
        assert out == Redactor(environ=ENVIRON).text(text), (a, b)
    # lines that cannot begin it are let out at once
    stream = StreamRedactor(Redactor(environ=ENVIRON))
    assert stream.feed("step 1 loss 2.5\n") + stream.flush() == "step 1 loss 2.5\n"


NAMES_THEN_VALUES = ["cookie", "session_id", "access_key", "private_key", "auth_key", "auth", "credentials", "pw",
                     "github_token_ro", "api_key_v2", "password_new", "secret_key_base", "sharedaccesskey", "AccountKey"]


def test_a_secret_name_whose_value_comes_on_the_next_line_waits_for_it_when_flushed():
    """The workload prints `cookie:`, sleeps, then the value (red team rt4 F1: every name but the few the hold
    knew went out alone, and its value after it, unredacted). The hold takes every name the assignment rule
    takes a value for on the next line."""
    value = "Xy7kQ2mNp9LrT4vB8wZc1D"
    for name in NAMES_THEN_VALUES:
        text = f"step 3\n{name}:\n  {value}\nstep 4\n"
        stream = StreamRedactor(Redactor(environ={}))
        out = "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()
        assert out == Redactor(environ={}).text(text) and value not in out, name


def _hexdump_c(data: bytes) -> str:
    """What `hexdump -C` prints for data."""
    lines = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16]
        pairs = " ".join(f"{b:02x}" for b in row[:8]) + "  " + " ".join(f"{b:02x}" for b in row[8:])
        shown = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
        lines.append(f"{at:08x}  {pairs:<48}  |{shown}|\n")
    return "".join(lines) + f"{len(data):08x}\n"


def test_a_dump_longer_than_the_hold_printed_line_by_line_is_read_as_the_whole_text_reads_it():
    """A dump of 60+ lines with the secret near its start, each line flushed as it comes: the stream lets the
    block out in pieces once it holds DUMP_HOLD_LINES of it, and a secret across two pieces is still decoded
    whole (red team rt4 F2: 41 of 49 layouts leaked part of the token)."""
    token = ENVIRON["HF_TOKEN"]
    letters = b"abcdefghijklmnopqrstuvwxyz0123456789 "
    tail = bytes(letters[(at * 7919 + at // 3) % len(letters)] for at in range(1100))   # words of a few letters
    for pre in (0, 5, 13, 20, 40):
        data = b"P" * pre + token.encode() + tail
        for text in (_hexdump_c(data), "".join(data[at:at + 30].hex() + "\n" for at in range(0, len(data), 30)),
                     _hexdump_c(data).replace("\n", "\r\n")):   # (CRLF lines too: a Windows tool's, or a pty's)
            stream = StreamRedactor(Redactor(environ=ENVIRON))
            out = "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()
            assert out == Redactor(environ=ENVIRON).text(text), pre


def test_loguru_arrows_under_a_code_line_at_column_0_flushed_line_by_line():
    """loguru's diagnose lines under an unindented code line, each flushed as it comes (red team rt4 F9: the code
    line went out alone, and the arrow's value after it unredacted): a last line naming a secret waits."""
    value = "Xy7kQ2mNp9LrT4vB8wZc1D"
    text = f"login(user, api_token)\n\u2502     \u2502     \u2514 '{value}'\n\u2502     \u2514 'bob'\n\u2514 <function login>\n"
    stream = StreamRedactor(Redactor(environ={}))
    out = "".join(stream.feed(line) + stream.flush() for line in text.splitlines(keepends=True)) + stream.close()
    assert out == Redactor(environ={}).text(text) and value not in out
