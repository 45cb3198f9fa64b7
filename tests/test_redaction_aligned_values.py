"""Values aligned to a column after their secret name (issue 11, red team rt8 L0): `kubectl describe pod` prints a
container's environment as `DB_PASSWORD:         X`, 1Password's `op item get` as `password:    X`, vault and many
config dumps pad the same way. A name followed by its separator and 4 or more blanks kept its value; the value is
now found after up to 40 blanks, in text and in a stream cut anywhere. What such listings hold that is no secret
(numbers, booleans, references, sizes) stays at any width."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

V = "VtMJjqb0SoEItS5JO3sZ"
NAMES = ["password", "Password", "api_key", "token", "secret", "HF_TOKEN", "db_password", "client_secret",
         "access_token", "SecretAccessKey", "apikey", "passwd"]
LAYOUTS = ["{n}:{b}{v}", "{n} :{b}{v}", "{n}{b}={b}{v}", "{n}:{b}\"{v}\"", "{n}:{b}'{v}'", "[rank0]: {n}:{b}{v}",
           "export {n}={b}{v}", "{n}:{b}{v}  # comment", "{{\"{n}\":{b}\"{v}\"}}", "      {n}:{b}{v}\nregion:     us"]


def _streamed(text: str, size: int) -> str:
    stream = StreamRedactor(Redactor({}), piece=7)
    return "".join(stream.feed(text[k:k + size]) for k in range(0, len(text), size)) + stream.close()


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
