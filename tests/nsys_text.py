"""Parse `nsys stats` column-format console text (the ground truth stored beside corpus exports)."""

from __future__ import annotations

import re

_SECTION = re.compile(r"^ \*\* .*\((?P<report>[a-z_]+)\):$")


def parse_stats_text(text: str) -> dict[str, list[list[str]]]:
    """{report name: [header cells, row cells...]}; column spans come from the dashed rule line."""
    lines = text.splitlines()
    reports: dict[str, list[list[str]]] = {}
    i = 0
    while i < len(lines):
        match = _SECTION.match(lines[i])
        if not match:
            i += 1
            continue
        header, rule = lines[i + 2], lines[i + 3]
        spans = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
        # The last column (a name) may run past its rule: give it the rest of the line.
        spans[-1] = (spans[-1][0], None)
        table = [[header[a:b].strip() for a, b in spans]]
        i += 4
        while i < len(lines) and lines[i].strip():
            table.append([lines[i][a:b].strip() if b else lines[i][a:].rstrip() for a, b in spans])
            i += 1
        reports[match.group("report")] = table
    return reports


def same_name(text_name: str, full_name: str) -> bool:
    """Column text cuts names to 100 characters ending in an ellipsis."""
    if text_name.endswith("\u2026"):
        return full_name.startswith(text_name[:-1])
    return text_name == full_name
