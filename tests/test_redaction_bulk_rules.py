"""Rules judged in bulk (issue 11: texts made only of matches) against the rule one match at a time: the per-match
code each bulk path replaced is kept here as the reference, and random texts of the characters the rule looks at
must give the same spans (a bulk path with its own logic may differ only where it is wrong)."""

from __future__ import annotations

import random
import re

from aiperf_lab.triage.redact import REDACTED, Redactor
from aiperf_lab.triage.redaction import assignments as assignment_rules, spans as span_helpers, tokens as token_tables
from aiperf_lab.triage.redaction import urls as url_rules


def _url_userinfo_one_by_one(text: str) -> list:
    """URL_USERINFO's part of _url_userinfo_spans as it was: one search, one verdict, per URL."""
    spans: list = []
    if "://" not in text:
        return spans
    at = 0
    while (m := url_rules.URL_USERINFO.search(text, at)) is not None:
        start, end = m.span(1)
        at = end + 1
        colon = text.find(":", start, end)
        if colon >= 0:
            if colon + 1 < end:
                spans.append((colon + 1, end, REDACTED, "url password", start - 3))
        elif (start < 4 or text[start - 4] not in url_rules.LOGIN_SCHEME_ENDS
              or not url_rules.REVERSED_LOGIN_SCHEME.match(text[start - 12 if start > 12 else 0:start - 3][::-1])) and (
                text[start:end] != REDACTED):
            spans.append((start, end, REDACTED, "url credential", start - 3))
        if text.startswith("://", at) and (run := url_rules.URL_USERINFO_RUN.match(text, at)) is not None:
            spans.append((at + 3, run.end() - 1, url_rules._url_run_replacement(run.group(0)), "url credential", at))
            at = run.end()
    return spans


def _url_userinfo_bulk(text: str) -> list:
    spans: list = []
    at = 0
    while at is not None:
        at = url_rules._url_userinfo_bulk(text, at, spans)
    return spans


# what the URL rules look at: schemes (login ones in both cases, a long s that folds to "s"), user info, runs
URL_PIECES = ["://", "@", ":", "x", "ab", "pw", "/", " ", "\n", "'", "ssh", "SSH", "git+ssh", "https", "sftp", "ftps",
              "ftpſ", "rsync", "scp", "s", "h", "-", "+", ".", REDACTED, "://[REDACTED]@", "://x@", "://u:p@", "é"]


def test_url_user_info_in_bulk_gives_the_spans_of_one_url_at_a_time():
    rng = random.Random(11)
    texts = ["".join(rng.choice(URL_PIECES) for _ in range(rng.randint(1, 80))) for _ in range(6000)]
    texts += ["https://x@h " * 50, "://x@" * 40 + " ssh://git@h https://t@h", "ftpſ://x@h FTPS://x@h sftp://a@b",
              "://u:p@://x@://[REDACTED]@://y@h", "a" * 20 + "://" + "u" * 4096 + "@://x@h", ":" * 30 + "://x@h"]
    differ = [text for text in texts if sorted(_url_userinfo_bulk(text)) != sorted(_url_userinfo_one_by_one(text))]
    assert not differ, differ[:3]
    # (texts where URLs back to back are common take the loop: the same spans)
    looped = []
    for text in texts:
        spans: list = []
        url_rules._url_userinfo_loop(text, spans)
        looped.append(sorted(spans) == sorted(_url_userinfo_one_by_one(text)))
    assert all(looped)
    # (the texts reach every verdict: passwords, users, login users kept, runs)
    found = [span for text in texts for span in _url_userinfo_one_by_one(text)]
    assert {"url password", "url credential"} <= {span[3] for span in found}
    assert any("\n" not in span[2] and span[2] != REDACTED for span in found)   # a run's replacement


def test_urls_in_bulk_redact_as_before():
    text = "https://tok@github.com ssh://git@host SSH://git@h ftpſ://bob@h postgres://u:pw@db https://[REDACTED]@x"
    assert Redactor(environ={}).text(text) == ("https://[REDACTED]@github.com ssh://git@host SSH://git@h "
                                               "ftpſ://[REDACTED]@h postgres://u:[REDACTED]@db https://[REDACTED]@x")


def _schemeless_without_hint(text: str) -> list:
    spans: list = []
    head = " " + text[:400]
    for pattern in url_rules.SCHEMELESS_PASSWORDS:
        spans += [(*m.span("password"), REDACTED, "url password", m.start()) for m in pattern.finditer(text)]
        first = pattern.match(head)
        if first:
            spans.append((first.start("password") - 1, first.end("password") - 1, REDACTED, "url password", 0))
    return spans


SCHEMELESS_PIECES = ["u", "pw9", ":", "@", "h", ":80", "/", "//", " ", "\n", "'", "=", "(", "3", "on", "true", ".", "-",
                     "é", "x" * 70, "[", "<", " u:pw9x", "@h:80 ", "@db/x", " //bob:", "s3c", "@proxy.example:3128"]


def test_scheme_less_credentials_are_looked_for_only_where_their_hint_is_and_found_as_before():
    rng = random.Random(12)
    texts = ["".join(rng.choice(SCHEMELESS_PIECES) for _ in range(rng.randint(1, 60))) for _ in range(6000)]
    texts += ["u:pw9x@h:80 " * 20, "https://x@h " * 20, "u:pw@h:80", " //bob:s3cret@proxy"]
    differ = [text for text in texts
              if sorted(url_rules._schemeless_credential_spans(text)) != sorted(_schemeless_without_hint(text))]
    assert not differ, differ[:3]
    assert sum(bool(_schemeless_without_hint(text)) for text in texts) > 1000   # (the texts hold real ones)


PROVIDER_PIECES = ["dp.st.", "dt0c01.", "sk.", "sl.", "s.", "pcsk_", "fw_", "sk_", "xai-", "NRAK-", "v1.0-", "atlasv1.",
                   "pat", ".", "-", "_", "eyJ", "ab12", "AB12CD34EF56GH78IJ90", "0123456789abcdef" * 3, "Ab1" * 8, " ",
                   "é", "us1", "x" * 40]


def test_provider_tokens_gated_by_the_character_before_their_separator_are_found_as_without_the_gate():
    ungated = [re.compile(pattern.pattern.replace(token_tables.PROVIDER_GATES[lead], "", 1))
               for pattern, lead in zip(token_tables.PROVIDER_PATTERNS, token_tables.PROVIDER_TOKENS)]
    assert all(a.pattern != b.pattern for a, b in zip(ungated, token_tables.PROVIDER_PATTERNS))
    # every prefix passes its separator's gate where it ends (a sample for the two given as patterns)
    samples = {r"[A-Za-z0-9]{14}\.atlasv1\.": "Ab1Cd2Ef3Gh4Ij.atlasv1.", r"pat[A-Za-z0-9]{14}\.": "patAb1Cd2Ef3Gh4Ij.",
               **{rf"[A-Za-z0-9]{{{n}}}\.": "MTAxNTQ2NzY0MzI0NjQ3ODQwMg"[:n] + "." for n in (24, 25, 26)}}   # (Discord's)
    for lead, prefixes in token_tables.PROVIDER_TOKENS.items():
        gate = re.compile(re.escape(lead) + token_tables.PROVIDER_GATES[lead])
        for prefix, _ in prefixes:
            prefix = samples[prefix[0]] if isinstance(prefix, tuple) else prefix
            assert gate.match(prefix, len(prefix) - 1), prefix
    assert re.compile(r"\-" + token_tables.PROVIDER_GATES["-"]).match("0" * 32 + "-", 32)   # Mailchimp's <32 hex>-us1
    rng = random.Random(13)
    texts = ["".join(rng.choice(PROVIDER_PIECES) for _ in range(rng.randint(1, 30))) for _ in range(4000)]
    texts += ["." * 5000, "-" * 300 + "xai-" + "Ab1" * 30, "dp.st.x." + "a" * 40, "s." + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8",
              # a digit before the separator: v1.0-, dt0c01., Mailchimp's <32 hex>-us1, Terraform's <14>.atlasv1.
              "v1.0-" + "0a" * 12 + "-" + "0a" * 80, "dt0c01." + "A1" * 12 + "." + "B2" * 32, "0a" * 16 + "-us1 ",
              "Ab1Cd2Ef3Gh4Ij.atlasv1." + "x" * 60, "pat" + "Ab1Cd2Ef3Gh4Ij" + "." + "0a" * 32]
    found = 0
    for text in texts:
        for gated, plain in zip(token_tables.PROVIDER_PATTERNS, ungated):
            spans = [m.span() for m in gated.finditer(text)]
            assert spans == [m.span() for m in plain.finditer(text)], text
            found += len(spans)
    assert found > 200   # (the texts hold tokens)


# assignments of one keyword kept apart (`pass=abcd x ` repeated): names, separators, values and gaps the bulk path
# (_assignment_apart) must read as the loop does, or leave to it
APART_NAMES = ["pass", "password", "passwd", "passphrase", "token", "secret", "api_key", "apikey", "x_pass", "PASS", "sig",
               "?sig", "&sig", "auth", "pwd", ";pwd", "cookie", "bypass", "tokens", "passes", "İpass", "Kpass", "\u212apass"]
APART_SEPARATORS = ["=", ":", ": ", "=  ", ":    ", "=>", " = ", '"="', "='", ":\n", "=\\\"", ""]
APART_VALUES = ["abcd", "abc", "ab", "True", "123", "1234567", "12345678", "$VAR", "${X}", "/etc/x", "'q1w2'", '"q1w2"',
                "&anc v1x2", "|", ">x1y2", "İabc", "ABCD", "a:b", "a=b", "abc\\", "[REDACTED]", "<|x|>", "0.5", "AbCd",
                "[q1w2", "[a]b", "ab1)", "x(ab)", "abc]", "ab}", "abc:", "regcred:"]
APART_GAPS = [" x ", " ", "\n", " f(", " [", "{",  ", ", " \t", "_", "-", ".", " p ", "?", "&", ";", "\t", " , ", "\r\n", "\x00", " é ", "'",
              " t ", " s ", " a ", ""]


def _assignment_spans_one_by_one(text: str, lower: str, monkeypatch) -> list:
    with monkeypatch.context() as patch:
        patch.setattr(assignment_rules, "_assignment_apart", lambda *args: None)
        return assignment_rules._assignment_spans(text, lower)


def test_assignments_apart_in_bulk_give_the_spans_of_one_match_at_a_time(monkeypatch):
    rng = random.Random(12)
    texts = ["pass=abcd x " * 300, "api_key: abcd\n" * 300, "token=abc1 y " * 50 + "token=12 y " * 50,
             "pass=abcd x " * 40 + "pass=abcd pass=abcd " + "pass=abcd x " * 40, "x_pass=abcd y " * 100]
    for _ in range(3000):
        pools = [rng.sample(pool, rng.randint(1, 3)) for pool in (APART_NAMES, APART_SEPARATORS, APART_VALUES, APART_GAPS)]
        common = [pool[0] for pool in pools]
        texts.append("".join("".join(rng.choice(pool) if rng.random() < 0.15 else first
                                     for pool, first in zip(pools, common)) for _ in range(rng.randint(2, 120))))
    differ = []
    for text in texts:
        lower = span_helpers._lower(text)
        if assignment_rules._assignment_spans(text, lower) != _assignment_spans_one_by_one(text, lower, monkeypatch):
            differ.append(text)
    assert not differ, differ[:3]
    # the bulk path is taken (a text of them is one split, not a loop)
    calls = []
    real = assignment_rules._assignment_apart
    monkeypatch.setattr(assignment_rules, "_assignment_apart", lambda *args: calls.append(1) or real(*args))
    assert len(assignment_rules._assignment_spans("pass=abcd x " * 300, "pass=abcd x " * 300)) == 300
    assert len(calls) <= 2


def _cut_by_every_extent(spans: list, cut: int, size: int) -> int:
    """_cut_outside_spans as it was: one sweep over every span's extent."""
    run_start, run_end = -1, -1
    for begin, end in sorted((span[4] - span_helpers.LOOKBEHIND, span[1]) for span in spans):
        if begin >= run_end:
            if run_start < cut < run_end or begin >= cut:
                break
            run_start, run_end = begin, end
        elif end > run_end:
            run_end = end
    if not run_start < cut < run_end:
        return cut
    return run_end if run_start <= size // 2 else run_start


def test_a_forced_cut_is_where_every_extent_puts_it():
    rng = random.Random(13)
    for _ in range(3000):
        size = rng.choice((200, 5000))
        most, gap = rng.choice((30, 600)), rng.choice((2, 12))   # (long chains: runs of 600 extents that overlap)
        spans, at = [], 0
        while at < size and len(spans) < most:
            start = at + rng.randint(0, gap)
            end = start + rng.randint(1, 15)
            context = max(0, start - rng.choice((0, 0, 1, 3, 20, 80, 400)))
            spans.append((start, end, REDACTED, "x", context))
            at = end
        spans = span_helpers._merge_spans(sorted(spans)) if spans else spans
        cut = rng.randint(0, size)
        assert span_helpers._cut_outside_spans(spans, cut, size) == _cut_by_every_extent(spans, cut, size), (spans, cut)


def test_the_scan_of_assignments_apart_ends_at_the_first_separator_the_loop_would_judge_otherwise():
    # (a scan that ran past one would be read again at every try: `client_secret=X` lines took twice the time)
    rng = random.Random(14)
    checked = 0
    for pattern, (scan, split, whole) in assignment_rules.ASSIGNMENTS_APART.items():
        for _ in range(300):
            units = ["".join(rng.choice(pool) for pool in (APART_GAPS, APART_NAMES, APART_SEPARATORS[:5], APART_VALUES))
                     for _ in range(rng.randint(1, 30))]
            lower = span_helpers._lower("".join(units))
            for at in range(min(len(lower), 40)):
                run = scan.match(lower, at)
                if run is not None:
                    separators = split.split(lower[at:run.end()])[1::2]
                    assert all(whole.fullmatch(separator) for separator in separators), (lower[at:run.end()], pattern)
                    checked += len(separators)
    assert checked > 500
    text = "\x1b[36mclient_secret\x1b[0m=\x1b[35mZq8Wm3Kx7Lp2Rv9T\x1b[0m\n"
    plain = span_helpers.CSI.sub("", text * 50)
    scan = assignment_rules.ASSIGNMENTS_APART[assignment_rules.SECRET_ASSIGNMENTS[1]][0]
    assert scan.match(plain, plain.index("\n")) is None


# lines of YAML openers and what follows them: names that are no secret's, a secret's, behind log prefixes, block
# scalars, sequences, Hadoop <name> lines, and the lines under them
OPENER_HEADS = ["step", "model", "  layers", "- step", "secrets", "password", "api_key", "[rank0]: password",
                "INFO: secrets", "2026-11-23 12:00:01 INFO: token", "svc-1  | secrets", "<name>db.password</name>",
                "<name>batch</name>", "x: y: password", "E   password", "'password'", "step  ", "app-1  | step"]
OPENER_ENDS = [":\n", ": |\n", ": >-\n", ":\r\n", ":  \n", "\n", ": x\n"]
OPENER_BODIES = ["  - 1\n", "- Zq8Das1x\n", "  Zq8Das1x\n", "  - Pa55w0rd-2\n", "[rank0]:   - Zq8Das1x\n",
                 "INFO:   Zq8Das1x\n", "<value>Zq8Das1x</value>\n", "", "\n", "x\n", "svc-1  |   - Zq8Das1x\n"]


def _opener_text(rng: random.Random, misses: int) -> str:
    """misses lines that open no secret's block, dense enough for the bulk read, then random openers and bodies."""
    lines = [rng.choice(["step:\n  - 1\n", "x:\n- 2\n", "[rank0]: step:\n[rank0]:   - 3\n"]) for _ in range(misses)]
    lines += [rng.choice(OPENER_HEADS) + rng.choice(OPENER_ENDS) + rng.choice(OPENER_BODIES)
              for _ in range(rng.randint(0, 6))]
    return "".join(lines)


def test_openers_that_name_no_secret_read_in_bulk_give_the_spans_of_the_loop(monkeypatch):
    from aiperf_lab.triage.redaction import blocks as layout_rules
    rng = random.Random(13)
    texts = [_opener_text(rng, rng.choice([0, 255, 256, 300, 600])) for _ in range(400)]
    texts += ["step:\n  - 1\n" * 300 + "password:\n  - Zq8Das1x\n",
              "[rank0]: step:\n[rank0]:   - 1\n" * 300 + "[rank0]: password:\n[rank0]:   - Zq8Das1x\n",
              "step:\n  - 1\n" * 300 + "<name>x</name>\n" * 3 + "a <name>db.password</name>\n<value>Zq8Das1x</value>\n"]
    rules = (layout_rules._yaml_block_spans, layout_rules._prefixed_block_spans)
    bulk = [[sorted(rule(text)) for rule in rules] for text in texts]
    stops = []
    real_check = layout_rules._no_opener_ahead
    monkeypatch.setattr(layout_rules, "_no_opener_ahead", lambda *args: stops.append(real_check(*args)) or stops[-1])
    for text in texts[-3:]:
        for rule in rules:
            rule(text)
    assert True in stops and False in stops   # (the bulk read is tried, and stops a loop only where it may)
    monkeypatch.setattr(layout_rules, "OPENERS_BEFORE_BULK", 1 << 30)   # the loop over every opener
    loop = [[sorted(rule(text)) for rule in rules] for text in texts]
    differ = [text for text, a, b in zip(texts, bulk, loop) if a != b]
    assert not differ, differ[:1]
    assert sum(1 for spans in loop[-3:] for found in spans if found) == 3


def _name_escape_edits_one_by_one(text: str) -> list:
    """NAME_ESCAPE's part of _name_edits as it was: one decode per match."""
    edits = []
    for m in span_helpers.NAME_ESCAPE.finditer(text):
        written = m.group()
        decoded = (chr(int(written[-4:], 16)) if written.count("u") == 1
                   else "".join(chr(int(code, 16)) for code in span_helpers.NAME_ESCAPE_CODE.findall(written)))
        edits.append((m.start(), m.end(), decoded.translate(span_helpers.NOT_INVISIBLE)))
    return edits


# what NAME_ESCAPE looks at: escapes of name letters, of invisible characters, doubled backslashes, name characters
ESCAPE_PIECES = ["\\u0077", "\\u0041", "\\U0077", "\\u200b", "\\u200B", "\\ufeff", "\\u00ad", "\\u002d", "\\u005f",
                 "\\\\u0077", "\\\\\\u0070", "\\u00e9", "\\u12", "\\", "u", "pass", "ord", "a", "_", "-", ".", " ",
                 "\"", ":", "\n", "\\/", "0077"]


def test_escaped_name_letters_decoded_in_bulk_give_the_edits_of_one_match_at_a_time():
    rng = random.Random(17)
    texts = ["".join(rng.choice(ESCAPE_PIECES) for _ in range(rng.randint(1, 60))) for _ in range(4000)]
    texts += ['{"pass\\u0077ord": "Zq8Wm3Kx7Lp2Rv9T", "caf\\u00e9": 1}\n' * 50, "\\u0041" * 300,
              "api\\u005fkey\\u200b\\u200bx " * 20]
    differ = [text for text in texts
              if [edit for edit in span_helpers._name_edits(text) if "\\u" in text[edit[0]:edit[1]]]
              != _name_escape_edits_one_by_one(text)]
    assert not differ, differ[:3]
    assert sum(1 for text in texts if _name_escape_edits_one_by_one(text)) > 1000


def _flow_items_one_opener_at_a_time(text: str) -> list:
    """The flow-sequence part of _yaml_block_spans as it was: the name before every opener read first, its items
    judged at every opener."""
    from aiperf_lab.triage.redaction import blocks as layout_rules
    spans = []
    harmless = assignment_rules._HarmlessValues()
    close = newline = -1
    for m in layout_rules.YAML_FLOW_OPENER.finditer(text):
        if text.startswith(REDACTED, m.end() - 1):
            continue
        window = text[max(0, m.start() - 140):m.start()]
        key = layout_rules.FLOW_KEY_REVERSED.match(window[::-1])
        name = key.group("name")[::-1] if key is not None else ""
        if not (name and (name[0].isalpha() or name[0] == "_") and (layout_rules._secret_name_cached(name)
                                                                     or layout_rules._names_token_list(name))):
            continue
        at = m.end()
        if close < at:
            close = text.find("]", at) % (len(text) + 1)
        if newline < at:
            newline = text.find("\n", at) % (len(text) + 1)
        if close == len(text) or newline < close or close - at > layout_rules.PRINTED_VALUE_LIMIT:
            continue
        items = text[at:close]
        found = layout_rules._flow_item_spans(items, harmless, text[m.start()] == "=")
        spans += [(at + start, at + end, REDACTED, "secret-named value", m.start()) for start, end in found
                  if layout_rules._item_is_secret(name, items[start:end])]
    return spans


FLOW_PIECES = ["secrets: [", "passwords = [", "\"api_keys\": [", "steps: [", "valid_keys: [", "tokens: [", "x = [",
               "Zq8Das1x", "'Pa55w0rd-2'", "\"q1w2e3r4\"", "$HF_TOKEN", "/etc/x", "[a]", "a", ", ", ",", "]", "] ",
               "\n", " ", "[REDACTED]", "{k: v}", "0123456789abcdef0123456789abcdef"]


def test_flow_sequences_judged_once_per_list_and_name_give_the_spans_of_every_opener_judged():
    from aiperf_lab.triage.redaction import blocks as layout_rules
    rng = random.Random(23)
    texts = ["".join(rng.choice(FLOW_PIECES) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    texts += ["secrets: [Zq8Das1x, Pa55w0rd-2] " * 40, "secrets: [a, " * 40, "steps: [1, 2] secrets: [Zq8Das1x]\n" * 9]
    differ = [text for text in texts if ":\n" not in text and ": \n" not in text
              and layout_rules._yaml_block_spans(text) != _flow_items_one_opener_at_a_time(text)]
    assert not differ, differ[:2]
    assert sum(1 for text in texts if _flow_items_one_opener_at_a_time(text)) > 300


def test_sequences_inside_a_body_read_whose_first_item_is_a_mapping_are_passed_over_as_the_loop_reads_them(monkeypatch):
    from aiperf_lab.triage.redaction import blocks as layout_rules
    rng = random.Random(29)
    lines = ["secrets:\n", "- secrets:\n", "  - secrets:\n", "- name: regcred\n", "- Zq8Das1x\n", "  - Pa55w0rd-2\n",
             "- 'a: b'\n", "password: |\n", "  Zq8Das1x\n", "step:\n", "- 1\n", "- \"q1: w2\"\n", "- x:y\n", "\n"]
    texts = ["".join(rng.choice(lines) for _ in range(rng.randint(1, 150))) for _ in range(1500)]
    texts += ["secrets:\n- " * 400, "secrets:\n" + "- secrets:\n" * 100 + "- Zq8Das1x\n"]
    fast = [layout_rules._yaml_block_spans(text) for text in texts]
    taken = []
    real_test = layout_rules._no_item_value
    monkeypatch.setattr(layout_rules, "_no_item_value", lambda *args: taken.append(real_test(*args)) or False)
    loop = [layout_rules._yaml_block_spans(text) for text in texts]   # every body read
    differ = [text for text, a, b in zip(texts, fast, loop) if a != b]
    assert not differ, differ[:1]
    assert taken.count(True) > 1000 and False in taken
