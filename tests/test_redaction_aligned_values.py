"""Values aligned to a column after their secret name (issue 11, red team rt8 L0): `kubectl describe pod` prints a
container's environment as `DB_PASSWORD:         X`, 1Password's `op item get` as `password:    X`, vault and many
config dumps pad the same way. A name followed by its separator and 4 or more blanks kept its value; the value is
now found after up to 40 blanks, in text and in a stream cut anywhere. What such listings hold that is no secret
(numbers, booleans, references, sizes) stays at any width."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

V = "VtMJjqb0SoEItS5JO3sZ"
NAMES = ["password", "Password", "api_key", "token", "secret", "HF_TOKEN", "db_password", "client_secret",
         "access_token", "SecretAccessKey", "apikey", "passwd"]
LAYOUTS = ["{n}:{b}{v}", "{n} :{b}{v}", "{n}{b}={b}{v}", "{n}:{b}\"{v}\"", "{n}:{b}'{v}'", "[rank0]: {n}:{b}{v}",
           "export {n}={b}{v}", "{n}:{b}{v}  # comment", "{{\"{n}\":{b}\"{v}\"}}", "      {n}:{b}{v}\nregion:     us"]


def _streamed(text: str, size: int) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


@pytest.mark.parametrize("blanks", [4, 5, 9, 12, 21, 40])
@pytest.mark.parametrize("name", NAMES)
def test_a_value_aligned_after_a_secret_name_goes(name: str, blanks: int) -> None:
    text = f"{name}:{' ' * blanks}{V}\n"
    out = Redactor({}).text(text)
    assert V not in out and REDACTED in out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_aligned_layouts_go_in_text_and_stream(layout: str) -> None:
    text = layout.format(n="db_password", b="      ", v=V) + "\n"
    assert V not in Redactor({}).text(text)
    for size in (1, 3, 8, 64):
        assert V not in _streamed(text, size)


def test_kubectl_describe_environment_block() -> None:
    text = ("    Environment:\n"
            "      MASTER_ADDR:         10.0.0.5\n"
            "      DB_PASSWORD:         Qm7vT2xLp9RzW4kN\n"
            "      OPENAI_API_KEY:      Yh3KdP8sLq2VzX7m\n"
            "      WANDB_API_KEY:       Hs8Lq2VzX7mYh3KdP8sL\n"
            "      NCCL_DEBUG:          INFO\n")
    out = Redactor({}).text(text)
    for value in ("Qm7vT2xLp9RzW4kN", "Yh3KdP8sLq2VzX7m", "Hs8Lq2VzX7mYh3KdP8sL"):
        assert value not in out
    assert "MASTER_ADDR:         10.0.0.5" in out and "NCCL_DEBUG:          INFO" in out


@pytest.mark.parametrize("value", ["512", "false", "None", "${DB_PASSWORD}", "4096"])
def test_settings_aligned_under_secret_names_stay(value: str) -> None:
    text = f"max_tokens:          {value}\npassword_length:     {value}\napi_key:             {value}\n"
    assert Redactor({}).text(text) == text


def test_a_value_on_the_next_line_after_trailing_blanks_goes_in_a_stream() -> None:
    # The stream holds a line that ends with a secret name back until the next line is read, trailing blanks or not.
    text = "password:          \n  " + V + "\nnext: 1\n"
    assert V not in Redactor({}).text(text)
    for size in (1, 5, 19, 20, 21):
        assert V not in _streamed(text, size)


# ---- h14: a flag aligned to its value, Windows' dotted leaders, 1Password's fields beside other rows --------------------

def _hidden_everywhere(text: str, *values: str) -> None:
    out = Redactor({}).text(text)
    assert not [v for v in values if v in out], out
    for size in (1, 5, 64, 4096):
        streamed = _streamed(text, size)
        assert not [v for v in values if v in streamed], (size, streamed)
        assert streamed == out, size


ALIGNED_FLAG_LINES = ["  --password     {v}", "--password          {v}", "[rank0]:   --hf-token            {v}",
                      "args:\n  --api-key                 {v}\n  --port                    8000",
                      "  \x1b[1m--password\x1b[0m       {v}", "2026-11-23 10:00:00 INFO   --db-password\t\t\t{v}",
                      "  --secret-key      '{v}'", "  --password        \"{v}\"", "--token       {v}   ",
                      "| --api-key        | {v} |", "  --password{b}{v}"]


@pytest.mark.parametrize("line", ALIGNED_FLAG_LINES)
def test_a_secret_flag_aligned_to_its_value_hides_it(line: str) -> None:
    """A launcher's args table / argparse-like dump: a secret flag, 5 to 40 blanks, the value ending the line."""
    _hidden_everywhere(line.format(v=V, b=" " * 40) + "\n", V)


@pytest.mark.parametrize("line", ["  --token          The token to use (default: None)",
                                  "  --hf-token       Hugging Face token.", "  --password       Password",
                                  "  --api-key        API_KEY", "  --token-budget       4096", "  --password       ./pw.txt",
                                  "  --api-key        $OPENAI_API_KEY", "  --password       true"])
def test_help_text_and_settings_after_an_aligned_flag_stay(line: str) -> None:
    assert Redactor({}).text(line + "\n") == line + "\n"


DOTTED_LINES = ["   Password . . . . . . . . . . : {v}", "   Passphrase. . . . . . . : {v}", "   Api Key . . . . : {v}",
                "   Secret. . . . . . . . : {v}", "[rank0]: Password . . . . : {v}", "Password . . . . . :    {v}",
                "   Client Secret . . . . . . . . : \"{v}\"", "Password ........: {v}", "   Password. . . . . :{v}",
                "Password . . . . . = {v}"]


@pytest.mark.parametrize("line", DOTTED_LINES)
def test_windows_dotted_leader_hides_a_secret_value(line: str) -> None:
    _hidden_everywhere(line.format(v=V) + "\n", V)


def test_windows_dotted_leader_keeps_what_is_no_secret() -> None:
    text = ("   Host Name . . . . . . . . . . . . : build-01\n   Physical Address. . . . . . . . . : 00-15-5D-01-02-03\n"
            "   DHCP Enabled. . . . . . . . . . . : Yes\n   Lease Obtained. . . . . . . . . . : Monday, November 23, 2026\n"
            "   Password Expires . . . . . : Never\n   Token Count . . . . : 4096\n")
    assert Redactor({}).text(text) == text


OP_ITEMS = [
    "ID:          abc\nTitle:       db\nVault:       Private\nCategory:    LOGIN\nFields:\n  username:    app\n"
    "  password:    {v}\nURLs:\n  website:    https://x.example.com (primary)\n",
    "Category:    API_CREDENTIAL\nFields:\n  username:      app\n  credential:    {v}\n  type:          bearer\n",
    "Category:    DATABASE\nFields:\n  type:        postgresql\n  server:      db\n  port:        5432\n"
    "  database:    app\n  username:    app\n  password:    {v}\n",
]


@pytest.mark.parametrize("item", OP_ITEMS)
def test_op_item_get_fields_hide_the_secret_beside_other_rows(item: str) -> None:
    _hidden_everywhere(item.format(v=V), V)
    out = Redactor({}).text(item.format(v=V))
    assert "username:    app" in out or "username:      app" in out


@pytest.mark.parametrize("label", ["api key", "Api Key", "client secret", "db password", "access token", "hf token"])
def test_a_label_of_several_words_aligned_to_its_value_hides_it(label: str) -> None:
    """1Password's custom fields (`  api key:    X`) and describe listings: a label with blanks in it, a password-like
    value aligned after it."""
    _hidden_everywhere(f"Fields:\n  username:    app\n  {label}:    {V}\n  notesPlain:    hi\n", V)


def test_labels_of_several_words_that_name_no_secret_keep_their_value() -> None:
    text = ("Fields:\n  Token Count:    4096\n  Auth Type:    bearer\n  Secret Name:   my-secret-v2\n"
            "  Last Password Change:   2026-01-01\n  Key Vault:    kv-prod-01\n  Api Version:    v2beta1\n")
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("blanks", [41, 64, 100, 128])
def test_a_value_aligned_past_40_blanks_goes(blanks: int) -> None:
    _hidden_everywhere(f"  DB_PASSWORD:{' ' * blanks}{V}\n", V)


@pytest.mark.parametrize("row", ["│ password       │ {v} │", "  │ api_key │ {v} │", "[rank0]: │ hf_token   │ {v}   │",
                                 "│ --api-key      │ {v} │"])
def test_a_box_drawn_table_row_hides_a_secret(row: str) -> None:
    _hidden_everywhere("┏━━━━━━┳━━━━━━━┓\n┃ Name ┃ Value ┃\n" + row.format(v=V) + "\n│ port │ 8000 │\n", V)


def test_box_drawn_rows_that_are_no_secret_stay() -> None:
    text = "│ password_min_length │ 12 │\n│ token_budget │ 4096 │\n│ auth │ oauth2 │\n│ secret_name │ db-creds │\n"
    assert Redactor({}).text(text) == text


def test_a_dotted_leader_inside_a_json_record_takes_its_value_only():
    """rt10 J2: `Password . . . : X` in a JSON log record's message took the closing quote and every later field, and
    the record no longer parsed; the value ends where its string does."""
    import json

    for message in ("Password . . . . . . . . : Zq8Das1xPa55", "   Passphrase. . . . : Zq8Das1xPa55",
                    "comet_api_key ............... Zq8Das1xPa55"):
        record = {"msg": message, "level": "info", "ts": "2026-11-24T01:02:03Z", "host": "node1"}
        out = Redactor({}).text(json.dumps(record) + "\n")
        assert "Zq8Das1xPa55" not in out
        assert {k: v for k, v in json.loads(out).items() if k != "msg"} == {k: v for k, v in record.items() if k != "msg"}
