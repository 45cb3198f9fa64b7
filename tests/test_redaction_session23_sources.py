"""A multi-line form of one source (a YAML block scalar behind `[rank0]: `) ends where another source's lines begin,
also where the sources take turns in runs (session 23): the block did run on into the next source's line when that
line's view was indented (`2026-... - train - INFO -   mlflow_password  X` read as `  mlflow_password  X`), and the
whole line was hidden, the name with the value; a stream cut after that line read it so, the whole text did not
(test_redaction_line_views' stream property found it)."""
from __future__ import annotations

import pytest

from aiperf_lab.triage.redact import Redactor, StreamRedactor

P = "hunter2Pa55w0rd"
BLOCK = f"[rank0]: password: >2-\n[rank0]:     {P}\n"
ISO = f"2026-11-24 00:01:02,123 - train - INFO -   mlflow_password  {P}\n"
PROPERTY = f'"<property>"\n"  <value>Xk9mQ2vL7pR4tW8z</value>"\n"  <name>fs.s3a.secret.key</name>"\n"</property>"\n'
AUTH = f"[rank0]: redis> AUTH {P}\n"


@pytest.mark.parametrize("text", [BLOCK + ISO, BLOCK + ISO + PROPERTY, BLOCK + ISO + PROPERTY + AUTH,
                                  BLOCK.replace(">2-", "|") + ISO])
def test_the_next_sources_name_stays_and_every_value_goes(text):
    out = Redactor({}).text(text)
    assert P not in out and "Xk9mQ2vL7pR4tW8z" not in out
    assert "INFO -   mlflow_password  [REDACTED]\n" in out


@pytest.mark.parametrize("piece", [1, 4, 8, 64, 1 << 16])
@pytest.mark.parametrize("text", [BLOCK + ISO + PROPERTY + AUTH, BLOCK + ISO + PROPERTY])
def test_a_stream_gives_what_the_text_gives(text, piece):
    stream = StreamRedactor(Redactor({}), piece=piece)
    assert stream.feed(text) + stream.close() == Redactor({}).text(text)


@pytest.mark.parametrize("text", [BLOCK, BLOCK + "[rank0]: step 0 loss 2.30\n", f"[rank0]: password: |\n[rank1]: x\n[rank0]:   {P}\n"])
def test_a_block_of_one_source_is_still_hidden(text):
    assert P not in Redactor({}).text(text)
