"""Table rows a CLI prints with a secret's name and its value, where the row stands behind a log prefix that the
layouts' row rule does not read (session 23, h23a): `ngc config current`'s `| apikey | X |` behind compose's `api-1  | `
(the row's bar after the prefix's bar), behind an ISO time (`...123Z | apikey | X |`), or opening a JSON record's
message (`{"msg": "| apikey | X |"}`). The name is judged by names.is_secret_name; the value stays where it cannot be a
secret (names.cannot_be_secret)."""

from __future__ import annotations

import re

from .names import _secret_name_cached, cannot_be_secret
from .spans import REDACTED, Span

# (the row's first bar, found from its literal; what stands before it read by fixed look-behinds: a compose prefix's
# bar and one blank, an ISO time's `Z` and one blank, a JSON string's opening quote; a progress line's `1200/5000 |`
# is not one of them)
PREFIXED_PIPE_ROW = re.compile(r"\|(?:(?<= \| \|)|(?<=[0-9]Z \|)|(?<=\"\|)|(?<=\" \|))[ \t]{0,8}"
                               r"(?P<name>[A-Za-z_][\w.-]{0,63})[ \t]{0,64}\|[ \t]{0,8}"
                               r"(?P<value>[^|\s\"\\]{1,4096})[ \t]{0,256}\|")


def prefixed_row_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in PREFIXED_PIPE_ROW.finditer(text):
        if _secret_name_cached(m.group("name")) and not cannot_be_secret(value := m.group("value")) and value != REDACTED:
            spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
    return spans
