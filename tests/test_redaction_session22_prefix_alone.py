"""Session 22, integrator: a name whose value is read on the next line (`Enter the token:`) followed by a line that
holds only a log prefix (compose's `api-1  | `, srun's `0: `): the prefix is no value and stays. Before, the
next line became `[REDACTED]  | `. A value on such a line after its prefix is still hidden."""

from __future__ import annotations

import pytest

from aiperf_lab.triage.redaction.redactor import Redactor
from aiperf_lab.triage.redaction.stream import StreamRedactor

SECRET = "Xq9vvL2ppr8Tz4"


def _both(text: str) -> tuple[str, str]:
    stream = StreamRedactor(Redactor({}))
    streamed = "".join(stream.feed(text[i:i + 5]) for i in range(0, len(text), 5)) + stream.close()
    return Redactor({}).text(text), streamed


@pytest.mark.parametrize("prefix", ["api-1  | ", "web_1    | ", "0: ", "INFO:root:"])
@pytest.mark.parametrize("asking", ["Enter the token:", "Password:", "api_key:"])
def test_a_prefix_alone_after_a_name_stays(asking, prefix):
    text = f"{asking}\n{prefix}\n{prefix}step 1 loss 2.30\n"
    for out in _both(text):
        assert out == text, out


@pytest.mark.parametrize("text", [f"password:\n{SECRET}\n", f"Enter the token:\napi-1  | {SECRET}\n",
                                  f"api_key:\n  {SECRET}\n"])
def test_a_value_on_the_next_line_is_still_hidden(text):
    for out in _both(text):
        assert SECRET not in out, out
