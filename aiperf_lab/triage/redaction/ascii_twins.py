"""A pattern written for a lower-cased text (`lower`), compiled again to read the text as written: on an ASCII text the
twin matches where the pattern matches the lower-cased text, the same spans, and its groups hold the text's own
characters. A rule that judges each match's value as written (its case counts: looks_like_password) can so have every
match's value from one findall in C, judge each distinct one once, and skip the pattern where none can be a secret,
without a Python step a match (issue 11: a text of 55,000 `password password ...` matches a megabyte).

Why the twin matches the same on ASCII text: IGNORECASE makes a letter, a class or a look-around match a character
where it matches the character's lower or upper case; lower-cased text holds no capital, so a pattern with no capital
in it (no literal capital, no class or range that holds a capital but not its small letter: the guard below refuses any
capital, and any range one of whose ends is not a digit or a small letter) matches a small letter in the lower-cased
text exactly where its twin matches that letter, or its capital, in the text. Outside ASCII, case mappings are not one to
one (U+212A KELVIN SIGN matches `k` under IGNORECASE; `_lower` rewrites U+0130): a twin is used on ASCII text only."""

from __future__ import annotations

import re

# a capital letter not after a backslash (`\S`, `\W`, `\B` are classes, no letters); a range in a class whose ends are
# not both digits or both small letters (`[ -a]` holds capitals and `a` but not `b`)
_CAPITAL = re.compile(r"(?<!\\)(?<!\(\?)[A-Z]")   # (`(?P<name>`, `(?P=name)`: a group's syntax)


def _safe_range(piece: str) -> bool:
    low, _, high = piece.partition("-") if not piece.startswith("\\x") else (piece[:4], "-", piece[5:])
    low, high = (chr(int(end[2:], 16)) if end.startswith("\\x") else end for end in (low, high))
    return (low.isdigit() and high.isdigit()) or ("a" <= low <= high <= "z") or (high < "A") or ("z" < low and high <= "\x7f"
                                                                                                  and not high.isalpha())


def ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """pattern compiled to read an ASCII text as written (see the module's docstring); None where its source holds a
    capital or a range the guard cannot vouch for (then the caller reads the lower-cased text as before)."""
    source = pattern.pattern
    if _CAPITAL.search(source) is not None:
        return None
    for m in re.finditer(r"\[(?:\\.|[^\]\\])*\]", source):   # (each class: its ranges)
        body = m.group(0)[1:-1].lstrip("^")
        for piece in re.finditer(r"(?:\\x[0-9a-f]{2}|\\.|[^\\])-(?:\\x[0-9a-f]{2}|\\.|[^\\\]])", body):
            text = piece.group(0)
            if text.startswith("\\") and not text.startswith("\\x") or "-\\" in text and "-\\x" not in text:
                return None   # (an escape at a range's end: not vouched for)
            if not _safe_range(text):
                return None
    return re.compile(source, pattern.flags | re.IGNORECASE)
