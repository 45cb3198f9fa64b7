"""fish's `set -gx NAME X` and csh's `setenv NAME X` inside a JSON log record or a repr() (red team h20r's fifth
command-line leak, left by h21a): the listing rule reads them bare; quoted, their line is read in line_views' view only
where a gate word is on it, and a value of letters and digits gave none, so `set -` and `setenv ` are gate words now.
Hidden in text and through a stream; the record stays JSON, and a listing of a name that is no secret stays."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import Redactor
from stream_feed import fed_in_reads

W = "Hy4mQz8TnR2bVc7Lw2Xr"   # letters and digits only: no gate character around it
LINES = [f"set -gx GITHUB_TOKEN {W}", f"set -x OPENAI_API_KEY {W}", f"set --global --export HF_TOKEN {W}",
         f"setenv WANDB_API_KEY {W}"]


def _quoted(line: str, quoting: str) -> str:
    return repr(line) if quoting == "repr" else json.dumps({"level": "info", "msg": line, "step": 3})


@pytest.mark.parametrize("quoting", ["repr", "json record"])
@pytest.mark.parametrize("line", LINES)
def test_a_fish_or_csh_secret_quoted_is_hidden(line, quoting):
    text = _quoted(line, quoting) + "\n"
    whole = Redactor({}).text(text)
    assert W not in whole, whole
    assert line.rsplit(" ", 1)[0] in whole   # (the command and its name stay)
    assert W not in fed_in_reads(Redactor({}), text, 7, piece=64)
    if quoting == "json record":
        assert json.loads(whole)["step"] == 3


@pytest.mark.parametrize("quoting", ["repr", "json record"])
@pytest.mark.parametrize("line", ["set -gx PATH /usr/local/bin /usr/bin", "set -x CUDA_VISIBLE_DEVICES 0,1",
                                  "setenv OMP_NUM_THREADS 8"])
def test_a_fish_listing_of_no_secret_stays(line, quoting):
    text = _quoted(line, quoting) + "\n"
    assert Redactor({}).text(text) == text
    assert fed_in_reads(Redactor({}), text, 7, piece=64) == text
