"""The Redactor: the known secrets and this host's names gathered once, every rule run over a text and the spans
merged into one replacement (the orchestration; the rules live in the modules it imports)."""

from __future__ import annotations

import bisect
import contextvars
import getpass
import itertools
import operator
import os
import re
import socket
from collections import Counter
from typing import Callable

from .argv import MAX_ARGUMENT_READINGS, SHELL_SAFE_WORD, argv_secret_pieces, gcloud_secret_name_pieces
from .assignments import (
    AUTH_SCHEME_WORDS, AUTHORIZATION, COOKIE_HEADER, DIGEST_PARAM, KEY_ASSIGNMENT, KIND_PREFIXED_HASH, MOST_SCHEME_LETTERS,
    NETRC_PASSWORD, READING_A_VIEW, URL_SIGNATURE, _assignment_spans, _collector_paused, _escaped_line_end, _names_harmless_key,
    _names_scheme_only, _span_values,
)
from .calls import code_secret_spans
from .commands import _command_password_spans, _database_spans, _printed_flag_spans
from .printed_commands import argv_list_spans, printed_command_spans
from .printed_rows import env_continuation_spans   # (session 26, h26a)
from .dumps import ESCAPED_RUNS, dump_span_columns, character_columns, _dump_parts, _dump_prefix_edits, _may_hold_dump
from .hosts import (
    ADDRESS_BEFORE, AWS_HOST_SPLIT, BARE_MAC, BARE_MAC_CANDIDATE, BARE_MAC_CLASSES, BORING_IPS, BORING_MACS,
    CISCO_MAC, CXX_AFTER_SCOPE, GCP_HOST, IB_GUID, GPU_UUIDS, GPU_UUID_AFTER_NAME, HOST_NUMBERED, IPV4_HINT, IPV4_SPLIT,
    IPV6_COMPRESSED_HINT, IPV6_HINT, IPV6_SPLIT, MAC, MAC_CANDIDATE, MAC_CLASSES, MAC_WORDS_BEFORE,
    SSH_ADDRESS_VARIABLES, _START_OF, _VersionContexts, _in_host_context, _ipv4_verdict, _is_address, _is_ipv6,
    _marks_version, _name_start, _own_addresses, _own_macs, is_common_name, peer_names, unpadded_quads,
)
from .known_secrets import KnownSecrets, more_escaped_forms
from .keys import KEY_BLOCK, _key_spans, openssl_text_key_spans
from .line_views import GATE_WORDS, line_view_windows
from .layouts import (
    DASH_DATA, DOCKER_CONFIG_BASE64, DOCKER_CONFIG_PREFIXES, DOCKER_CONFIG_SECRET, PGPASS_PORT,
    _aws4_authorization_end, _base64_text, _env_item_spans, _extend_quoted_values, _header_tuple_spans,
    _json_data_block_spans, _kubectl_secret_spans, az_secret_table_spans, _loguru_spans, _name_value_table_spans, _pgpass_spans,
    _reordered_pair_spans, _shell_quoted_spans, _terraform_sensitive_spans, _tool_listing_spans, _xml_element_spans,
    _yaml_data_block_spans,
)
from .blocks import _multiline_string_spans, _prefixed_block_spans, _yaml_block_spans
from .names import (
    FRAGMENT, NOT_SECRET_VALUES, _base64_forms, _holder_encoded_forms, cannot_be_secret,
    escaped_forms, is_hex_key, is_named_location, is_secret_name, names_a_hash, secret_env_names, worth_hiding,
)
from .spans import (
    CSI, ESCAPED_CSI, ESCAPED_OSC_STARTS, KNOWN_VALUE, OSC, REDACTED, Span, _START, _codes_kept,
    HAS_MEMO, has, has_any, has_characters,
    _edited,
    _lower, _merge_spans, _minus, _name_edits, _split_matches, _without_csi,
)
from .token_spans import (CONTEXT_LITERALS, _context_shape_spans, _provider_token_spans, kaggle_key_spans, key_first_client_spans,
                          password_hash_spans, shell_default_spans)
from .token_spans import pbtxt_parameter_spans   # (session 25, h25a)
from .store_prints import SECRET_PRINT_GATES
from .tables import header_table_spans
from .tokens import CREDENTIAL_CHARACTER, SERVICE_PREFIXES, TOKEN_SHAPE_LITERALS
from .references import names_a_variable, spaced_placeholder_after
from .wraps import folded_spans
from .urls import _escaped_url_spans, _schemeless_credential_spans, _url_userinfo_spans, query_key_spans


SHELL_QUOTED_QUOTE = "'\\''"   # bash's quote inside a single-quoted word (set -x prints an argument's quotes so)


# An OSC 8 hyperlink whose URI holds path characters only (no query, user info, blanks, quotes or separators):
# `ls --hyperlink`'s file links, gcc's and rich's documentation links. Such payloads are read together (_payload_spans).
PLAIN_LINK = re.compile(r"8;[\w.=:-]*;(?:[a-z][a-z0-9+.-]{0,15}://[\w.~/#%+-]*)?", re.ASCII)


# How deep in line views (line_views) this thread's reading is (a view of a view at most). Per thread, not per
# Redactor: triage's stdout and stderr are redacted by one Redactor in two threads at once.
LINE_VIEW_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("line_view_depth", default=0)


# Characters no secret holds: C0 controls but the tab, DEL and C1 controls (in a dump decoded byte for byte, what
# random bytes show as; a UTF-8 secret's bytes are first read back as UTF-8)
NOT_TEXT = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# GitHub Actions' `::add-mask::VALUE`: a workflow names VALUE a secret (the runner masks it in its own log; a log printed
# by the workload, or the step's command echoed, still holds it)
# A value of words with single blanks between (`correct horse battery staple`: a passphrase), whose halves are printed
# over two lines as any value's are; not a document (JSON, a command line): its quotes' and braces' pieces are any
# other document's too.
PASSPHRASE = re.compile(r"[^\s\"'{}\[\]<>=,:;]{1,64}(?: [^\s\"'{}\[\]<>=,:;]{1,64}){1,15}")
ADD_MASK = re.compile(r"::add-mask::(?P<value>[^\s][^\r\n]{0,4095})")


def _reads_as_text(value: str) -> bool:
    """Whether a value found by shape in decoded bytes could be a secret someone typed: valid UTF-8 where it was
    decoded byte for byte, and no control character. Random bytes almost never are, a printed password always."""
    if not value.isascii() and max(value) <= "\xff":
        try:
            value = value.encode("latin-1").decode("utf-8")
        except UnicodeDecodeError:
            return False
    return NOT_TEXT.search(value) is None


def _stop_check(stop: Callable[[], bool] | None) -> Callable[[], None]:
    """A check that raises KeyboardInterrupt where stop() says so (Redactor's gathering of the known secrets)."""
    if stop is None:
        return lambda: None

    def check() -> None:
        if stop():
            raise KeyboardInterrupt
    return check


def _shifted(spans: list[Span], by: int) -> list[Span]:
    return [(start + by, end + by, replacement, label, context + by) for start, end, replacement, label, context in spans]


GATE_SCAN_WORDS = tuple(dict.fromkeys(GATE_WORDS + SECRET_PRINT_GATES))   # (Redactor._all_spans: each scanned once)

class Redactor:
    def __init__(self, environ: dict[str, str] | None = None, redact_hosts: bool = False,
                 extra_secrets: list[str] | None = None, stop: Callable[[], bool] | None = None):
        """`stop`, asked now and then while the known secrets are gathered (seconds for thousands): True ends it with
        KeyboardInterrupt (triage's stop signal, when nothing is written yet)."""
        stopping = _stop_check(stop)
        self.environ = dict(os.environ if environ is None else environ)
        self.redact_hosts = redact_hosts
        self.counts: Counter[str] = Counter()
        self._argv_done: dict[tuple[str, ...], list[str]] = {}
        self._argument_spans: dict[str, list[Span]] = {}   # an argument's own reading (argv_spans)
        # A secret-named variable holding a path is where a secret lives (hunting the path would wipe
        # every path sharing it); a bare hex key under a name that does not say hash is a secret.
        secrets = {v for name in secret_env_names(self.environ)
                   if worth_hiding(v := self.environ[name]) and not is_named_location(v, on_disk=True)}
        secrets |= {v for name, v in self.environ.items() if is_hex_key(v) and not names_a_hash(name)}
        secrets |= {s for s in extra_secrets or [] if worth_hiding(s)}
        # Secret-shaped pieces of any value (a URL password in DATABASE_URL, a key in a flag) are
        # secrets too, wherever they show up later, bare or escaped.
        # A proxy given without a scheme (HTTPS_PROXY=bob:PASSWORD@proxy:3128, as curl and pip take it) is
        # read as a URL.
        proxies = ["http://" + v for n, v in self.environ.items() if "proxy" in n.lower() and "://" not in v and "@" in v]
        # A value that holds one (a URL with its password) is hidden whole where it is printed encoded
        # (`base64 <<< "$DATABASE_URL"`): the encoding of the part before a short password shows it.
        holder_forms: set[str] = set()
        for text in [*self.environ.values(), *(extra_secrets or []), *proxies]:
            stopping()
            found = {v for v in _span_values(text, self._secret_spans(text)) if worth_hiding(v)}
            secrets |= found
            if found and text not in found and len(text) <= 4096 and "\n" not in text:
                holder_forms |= _holder_encoded_forms(text)
        self._secret_values = sorted(secrets, key=len, reverse=True)
        # A piece of a known secret (printed in part, or cut by a line wrap): needles of FRAGMENT characters
        # at the secret's start, end and every FRAGMENT-th character, each grown by the secret's next characters;
        # a piece of 12+ characters that starts or ends the secret, or of 23+ from its middle, holds one. A secret
        # of 8 to 23 characters printed in two pieces on two lines, each too short to be a piece
        # (print(v[:11]); print(v[11:])), is found broken (KnownSecrets: the rules, at a cost that does not grow
        # with the number of secrets). The values those two rules find over lines: a stream holds back lines that
        # may begin one (head_over_lines).
        piece_values: list[str] = []
        broken: list[str] = []
        split_values: list[str] = []
        # A known secret's base64 is a secret too, and so are its pieces: `base64` and MIME wrap it at 76
        # characters, which a search for the whole encoded text misses (a key in a variable, its lines
        # joined, included).
        wrapped = {form for value in self._secret_values if len(value) >= FRAGMENT
                   for form in _base64_forms(value) if len(form) >= 16}
        # A value with spaces or lines (a key block) gives its long runs (a key's lines, its body JSON-escaped): a
        # half of one printed on a line is a piece too; its short words (BEGIN, login) never are.
        chunks = {chunk for value in self._secret_values if " " in value or "\n" in value
                  for chunk in value.split() if len(chunk) >= 2 * FRAGMENT}
        for value in [*self._secret_values, *sorted((wrapped | chunks) - set(self._secret_values), key=len, reverse=True)]:
            if "\n" in value or "://" in value or " " in value and not PASSPHRASE.fullmatch(value) or is_named_location(
                    value):
                continue
            split_values.append(value)
            if 8 <= len(value) < 2 * FRAGMENT:
                broken.append(value)
            if len(value) > FRAGMENT:
                piece_values.append(value)
        forms = set(holder_forms)
        for value in secrets:
            stopping()
            forms |= escaped_forms(value) | more_escaped_forms(value)   # (twice URL-encoded, HTML entities, `\$`)
        literals = sorted(forms, key=len, reverse=True)
        self._known = KnownSecrets(literals, piece_values, broken, split_values, stopping)
        self._pieces, self._broken, self._split_values = self._known.pieces, broken, split_values
        self.longest_literal = self._known.longest_literal
        self._placeholders: dict[str, dict[str, str]] = {}
        self._host_patterns: list[tuple[str, str, re.Pattern[str], bool]] = []
        self._known_addresses: set[str] = set()
        self._domain_patterns: list[re.Pattern[str]] = []
        self._ipv4_verdicts: dict[str, str] = {}
        self._ipv6_verdicts: dict[str, str | None] = {}
        self._version_contexts: dict[str, bool] = _VersionContexts()
        if redact_hosts:
            self._setup_hosts()

    def _setup_hosts(self) -> None:
        names = {socket.gethostname(), socket.getfqdn(), self.environ.get("HOSTNAME", "")}
        hosts = sorted((n for n in names if n and n not in ("localhost", "localhost.localdomain")), key=len, reverse=True)
        users = {self.environ.get("USER", ""), self.environ.get("LOGNAME", "")}
        try:
            users.add(getpass.getuser())
        except Exception:  # no passwd entry in some containers
            pass
        user_list = sorted((u for u in users if u and u != "root" and len(u) >= 3), key=len, reverse=True)
        # The short name of a fully qualified one (HOSTNAME=node7.cluster.example: "node7" too)
        shorts = {h.split(".", 1)[0] for h in hosts if "." in h and not _is_address(h)}
        hosts = sorted({h.lower() for h in hosts} | {h.lower() for h in shorts if len(h) >= 4}, key=len, reverse=True)
        macs = sorted(_own_macs())
        # Whole names only: a host called "vm" must not turn "nvml" into "nhost-1l"; in any letter case. A name that
        # is no common word ends at "_" too (gpunode17_rank0.log, alice_checkpoint.pt); a common one (data) does not.
        for kind, label, values in (("host", "host name", hosts), ("user", "user name", user_list),
                                    ("mac", "mac address", [m.replace(":", "") for m in macs])):
            for value in values:  # matched in the lower-cased text: a case-blind pattern cannot skip ahead
                literal = re.escape(value.lower())
                common = kind != "mac" and is_common_name(value)
                word = "[a-z0-9_]" if common or kind == "mac" else "[a-z0-9]"
                self._host_patterns.append((kind, label, re.compile(
                    rf"{literal}(?<!{word}{literal})(?!{word})"), common))
        for host in hosts:
            numbered = HOST_NUMBERED.fullmatch(host)
            if numbered and not _is_address(host) and not is_common_name(numbered.group("prefix")):
                prefix = re.escape(numbered.group("prefix"))
                self._host_patterns.append(("host", "host name", re.compile(
                    rf"{prefix}(?<![a-z0-9]{prefix})\[[0-9]+(?:[-,][0-9]+)+\](?![a-z0-9])"), False))
        self._known_addresses = _own_addresses(hosts)
        # The domain of this host's FQDN (gpunode17.acme-corp.example: acme-corp.example): other machines' names in it
        # name the same organisation (node8.cluster.acme-corp.example), and so does the domain itself.
        self._domain_patterns = [re.compile(rf"{re.escape(d)}(?<![\w-]{re.escape(d)})(?![\w-])(?!\.[\w])")
                                 for d in sorted({h.split(".", 1)[1] for h in hosts if "." in h and not _is_address(h)
                                                  and "." in h.split(".", 1)[1]}, key=len, reverse=True)]
        for variable in SSH_ADDRESS_VARIABLES:
            for word in self.environ.get(variable, "").split():
                if _is_address(word):
                    self._known_addresses.add(word)

    @property
    def has_secrets(self) -> bool:
        """Whether the environment or the extra values hold anything secret or secret-shaped (which
        binary files, like an nsys report, could carry unredacted)."""
        return bool(self._secret_values)

    def _marks_version(self, before: str) -> bool:
        """_marks_version, remembered per context (a log repeats its lines); the memory is bounded."""
        cache = self._version_contexts
        verdict = cache.get(before)
        if verdict is None:
            if len(cache) > 65536:
                cache.clear()
            verdict = cache[before] = _marks_version(before)
        return verdict

    def placeholder(self, kind: str, value: str) -> str:
        table = self._placeholders.setdefault(kind, {})
        if value not in table:
            table[value] = f"{kind}-{len(table) + 1}"
        return table[value]

    # ---- finding spans ------------------------------------------------------------------------

    def _secret_spans(self, text: str, in_key: bool = False, token_carry: bool = False,
                      value_next: bool = False, lower: str | None = None) -> list[Span]:
        """Spans of secrets by shape (not by known value): token shapes, URL passwords, keys, pairs."""
        spans: list[Span] = []
        if token_carry:  # a token cut at the previous piece's end goes on to the first whitespace
            m = re.match(r"\S+", text)
            if m:
                spans.append((0, m.end(), REDACTED, "continued secret", 0))
        if value_next:  # the previous piece ended with "api_key:": its value starts this one
            m = re.match(r"[ \t]{0,16}[\"']?(?P<value>[^\s'\",;]{3,})", text)
            if m and not cannot_be_secret(m.group("value")):
                spans.append((m.start("value"), m.end(), REDACTED, "secret-named value", 0))
        present = set()
        for label, literal, pattern in TOKEN_SHAPE_LITERALS:
            # a substring test first where it is the faster scan (a long literal) or tells _context_shape_spans
            # something; a short literal's pattern scans faster than `in` does (the regex engine skips to it)
            if len(literal) > 5 or literal in CONTEXT_LITERALS or not literal:
                if not has(text, literal):
                    continue
                present.add(literal)
            elif not has_characters(text, literal):   # (the pattern's scan is spared where the text lacks one)
                continue
            if label == "service token" and not has_any(text, SERVICE_PREFIXES):
                continue  # (substring tests cost less than the alternation's scan on log text)
            if "value" in pattern.groupindex:  # Bearer / Basic: a credential, not words (`basic configuration_x`)
                spans.extend((m.start("value"), m.end(), REDACTED, label, m.start()) for m in pattern.finditer(text)
                             if CREDENTIAL_CHARACTER.search(m.group("value")))
            else:
                spans.extend((a, b, REDACTED, label, a) for a, b in map(re.Match.span, pattern.finditer(text)))
        spans.extend(_provider_token_spans(text))
        spans.extend(shell_default_spans(text))   # (`${DB_PASSWORD:-X}`: session 26)
        spans.extend(key_first_client_spans(text))   # (`cohere.Client("X")`: session 26)
        spans.extend(env_continuation_spans(text))   # (`env`'s value over lines: session 26)
        spans.extend(_url_userinfo_spans(text))
        spans.extend(query_key_spans(text))
        if "@" in text:
            spans.extend(_schemeless_credential_spans(text))
        spans.extend(_escaped_url_spans(text))
        spans.extend(_command_password_spans(text))
        spans.extend(_printed_flag_spans(text))
        spans.extend(_context_shape_spans(text, present))
        lower = _lower(text) if lower is None else lower
        spans.extend(printed_command_spans(text, lower))
        spans.extend(code_secret_spans(text, lower))
        if "[" in text:   # (a character first: memchr; ARGV_LIST's own scan is led by "[")
            spans.extend(argv_list_spans(text))
        spans.extend(_database_spans(text, lower))
        if has(text, ":*:") or PGPASS_PORT.search(text):
            spans.extend(_pgpass_spans(text))
        lower = _lower(text) if lower is None else lower
        for m in AUTHORIZATION.finditer(lower):
            if m.group("sep") == "=" and cannot_be_secret(m.group("value")):
                continue  # authorization=none: a setting (`Authorization: X` is a header, whatever X)
            value_start, value_end = m.span("value")
            if lower.startswith(AUTH_SCHEME_WORDS, value_start) and (
                    value_end - value_start <= MOST_SCHEME_LETTERS or lower.find("{", value_start, value_end) >= 0
                    or lower.find("<", value_start, value_end) >= 0
                    or names_a_variable(text[value_start:value_end].partition(" ")[2])) and (
                    _names_scheme_only(lower, m) or spaced_placeholder_after(lower, value_start, value_end)):
                continue  # `"Authorization": "Bearer " + api_key`, f"Bearer {token}": code that builds the header
            if m.group("value").startswith("aws4-"):  # SigV4: `..., SignedHeaders=..., Signature=HEX` to the quote or line end
                value_end = _aws4_authorization_end(lower, m.start("value"), value_end)
            elif "\\" in m.group("value") and (cut := _escaped_line_end(lower, m.start("value"), value_end)):
                value_end = cut  # http.client's send: b'..Authorization: Bearer X\\r\\nContent-Length: 2..'
            spans.append((m.start("value"), value_end, REDACTED, "secret-named value", m.start()))
            if m.group("value").startswith("digest"):  # its other parameters, on to the line's end
                line_end = lower.find("\n", m.end())
                spans.extend((p.start("value"), p.end("value"), REDACTED, "secret-named value", m.start())
                             for p in DIGEST_PARAM.finditer(lower, m.end(), line_end if line_end >= 0 else len(lower)))
        spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                     for m in NETRC_PASSWORD.finditer(lower))
        if has(lower, "cookie"):
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in COOKIE_HEADER.finditer(lower))
        if has(text, "::add-mask::"):
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in ADD_MASK.finditer(text) if m.group("value")[0] != "$" and m.group("value").rstrip() != REDACTED)
        if has(lower, "signature="):
            spans.extend((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start())
                         for m in URL_SIGNATURE.finditer(lower))
        for m in KEY_ASSIGNMENT.finditer(lower):
            value = m.group("value")
            if (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
                    and not _names_harmless_key(text, m.start()) and not KIND_PREFIXED_HASH.fullmatch(value)):
                spans.append((m.start("value"), m.end("value"), REDACTED, "secret-named value", m.start()))
        spans.extend(kaggle_key_spans(lower))   # (32 hex digits beside the word kaggle; kaggle.json's "key")
        spans.extend(pbtxt_parameter_spans(lower))   # (Triton's config.pbtxt: `key: "hf_token"` then its string_value)
        spans.extend(password_hash_spans(text))   # (htpasswd's, /etc/shadow's `$id$salt$hash`)
        assigned = _assignment_spans(text, lower)
        if assigned and (columns := character_columns(text)):   # a dump's characters are its bytes: not `name: value`
            starts = [column[0] for column in columns]
            assigned = [span for span in assigned if not (
                (k := bisect.bisect_right(starts, span[4]) - 1) >= 0 and span[4] < columns[k][1])]
        spans.extend(assigned)
        spans.extend(_key_spans(text, lower, in_key))
        spans.extend(openssl_text_key_spans(text))
        return spans

    def _literal_spans(self, text: str) -> list[Span]:
        return self._known.literal_spans(text)

    def _fragment_spans(self, text: str) -> list[Span]:
        """Pieces of known secrets (KnownSecrets.fragment_spans)."""
        return self._known.fragment_spans(text)

    def _broken_spans(self, text: str) -> list[Span]:
        """A short known secret broken over lines (KnownSecrets.broken_spans)."""
        return self._known.broken_spans(text)

    def _decoded_spans(self, decoded: str) -> list[Span]:
        """What is secret in a text decoded from a dump or escapes: known values, their pieces, and shapes whose
        value reads as text (_reads_as_text: a dump of binary data is not read for `pw=` among random bytes)."""
        found = self._literal_spans(decoded) + [
            span for span in self._secret_spans(decoded) if _reads_as_text(decoded[span[0]:span[1]])]
        if self._pieces:
            found += self._fragment_spans(decoded)
        return found

    def _dump_spans(self, text: str) -> list[Span]:
        """Secrets in dumps (see _dump_parts): the decoded text is searched like any text (known values, their
        pieces, shapes); every byte found there goes, in each column that shows it, line by line. Dump lines behind
        a log prefix (_dump_prefix_edits) are read in a view without their prefixes."""
        edits = _dump_prefix_edits(text)
        if edits:
            view, where = _edited(text, edits)
            return where.place_back(self._unprefixed_dump_spans(view))
        return self._unprefixed_dump_spans(text)

    def _unprefixed_dump_spans(self, text: str) -> list[Span]:
        if not _may_hold_dump(text):
            return []  # (one scan instead of the ten of _dump_parts: most texts hold no dump, also long ones: "x" lines)
        decoded, parts = _dump_parts(text)
        if not parts:
            return []
        found = self._decoded_spans(decoded)
        if not found:
            return []
        found.sort()
        merged = [list(found[0][:2]) + [found[0][3]]]
        for start, end, _, label, _ in found:
            if start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end, label])
        return [(first, last, REDACTED, label, first) for first, last, label in dump_span_columns(text, parts, merged)]

    def _escaped_run_spans(self, text: str) -> list[Span]:
        """Secrets with every character escaped (ESCAPED_RUNS: %5A%6B..., &#90;&#107;..., \\u005a..., \\132...,
        0x5A 0x6B ..., UTF-16 read as bytes): every run of a kind is decoded at once (a NUL after each run), all
        kinds into one text searched like any text (known values, their pieces, shapes); a run where something
        is found goes whole. Python runs per run only where something was found."""
        kinds: list[tuple[re.Pattern[str], int]] = []   # (pattern, how many runs) of each kind found
        decoded: list[str] = []
        for literal, pattern, decode in ESCAPED_RUNS:
            if not has(text, literal):
                continue
            runs = pattern.findall(text)
            if runs:
                kinds.append((pattern, len(runs)))
                decoded.append(decode(runs))
        if not kinds:
            return []
        joined = "\0".join(decoded)
        found = self._decoded_spans(joined)
        if not found:
            return []
        nuls = [m.start() for m in re.finditer("\0", joined)]   # run i ends at nuls[i] (the last run at the end)
        hit = sorted({bisect.bisect_left(nuls, at) for start, end, *_ in found for at in (start, end - 1)})
        spans: list[Span] = []
        first = 0
        for pattern, count in kinds:
            mine = [i - first for i in hit if first <= i < first + count]
            if mine:
                where = [m.span() for m in pattern.finditer(text)]
                spans += [(where[i][0], where[i][1], REDACTED, KNOWN_VALUE, where[i][0]) for i in mine]
            first += count
        return spans

    def _printed_form_spans(self, text: str, lower: str, words: frozenset[str]) -> list[Span]:
        """Secrets as common tools print them, the name apart from the value (see the finders after
        _url_userinfo_spans): Kubernetes env lists and Secret data, shell-quoted values, loguru arrows,
        header tuples, terraform's sensitive values, XML elements, kubeconfig *-data keys."""
        spans = (_env_item_spans(text) + _shell_quoted_spans(text) + _loguru_spans(text) + _header_tuple_spans(text)
                 + _terraform_sensitive_spans(text) + _xml_element_spans(text) + _name_value_table_spans(text)
                 + _yaml_block_spans(text) + _tool_listing_spans(text) + _prefixed_block_spans(text)
                 + _reordered_pair_spans(text) + _multiline_string_spans(text) + header_table_spans(text, lower, words))
        if not words.isdisjoint(SECRET_PRINT_GATES):
            spans += _kubectl_secret_spans(text, lower)
        if "secret" in words:
            spans += az_secret_table_spans(text)
        if has_any(text, DOCKER_CONFIG_PREFIXES):
            for m in DOCKER_CONFIG_BASE64.finditer(text):
                run = m.group(0)
                decoded = _base64_text(run[:len(run) // 4 * 4])  # (a first line of `base64`'s 76 columns)
                if decoded and DOCKER_CONFIG_SECRET.search(decoded):
                    spans.append((m.start(), m.end(), REDACTED, "kubernetes secret data", m.start()))
        if "ata" in text:
            spans += _yaml_data_block_spans(text) + _json_data_block_spans(text)
            if has(text, "-data"):
                for m in DASH_DATA.finditer(text):
                    decoded = _base64_text(m.group("value"))
                    if decoded and ("PRIVATE KEY" in decoded or self._secret_spans(decoded)):
                        spans.append((m.start("value"), m.end("value"), REDACTED, "kubernetes secret data",
                                      m.start()))
        return spans

    def head_over_lines(self, text: str, end: int) -> int:
        """Where a known secret printed over lines may have begun before `end` (KnownSecrets.head_over_lines)."""
        return self._known.head_over_lines(text, end)

    def _host_spans(self, text: str, lower: str) -> list[Span]:
        spans = []
        for kind, label, pattern, common in self._host_patterns:
            for m in pattern.finditer(lower):
                start, end = m.span()
                if common and not _in_host_context(lower, start, end, kind):
                    continue  # USER=nvidia: "NVIDIA H100" stays, "/home/nvidia" and "nvidia@node" go
                spans.append((start, end, self.placeholder(kind, m.group(0)), label, max(0, start - 24)))
        first_mac = lower.encode("ascii", "replace").translate(MAC_CLASSES).find(MAC_CANDIDATE)
        for m in MAC.finditer(lower, first_mac + 2) if first_mac >= 0 else ():
            start = m.start() - 2
            value = lower[start:m.end()].replace("-", ":")
            if value not in BORING_MACS:
                spans.append((start, m.end(), self.placeholder("mac", value.replace(":", "")), "mac address", start))
        spans.extend(self._other_host_spans(lower))
        spans.extend(self._bare_mac_spans(text, lower))
        if has(lower, "guid"):   # InfiniBand GUIDs name an adapter as a MAC does (ibstat, ibv_devinfo, sysfs)
            spans += [(m.start("guid"), m.end("guid"), self.placeholder("guid", m.group("guid").replace(":", "")
                                                                          .removeprefix("0x")), "guid", m.start())
                      for m in IB_GUID.finditer(lower)]
        for pattern in GPU_UUIDS:
            for m in pattern.finditer(text):
                spans.append((m.start(), m.end(), self.placeholder("gpu-uuid", m.group(0)), "gpu uuid", m.start()))
        if "uuid=" in lower:
            for m in GPU_UUID_AFTER_NAME.finditer(lower):   # (the same placeholder as its GPU- form)
                spans.append((m.start("uuid"), m.end(), self.placeholder("gpu-uuid", "GPU-" + m.group("uuid")),
                              "gpu uuid", m.start()))
        addresses = self._placeholders.setdefault("ip", {})
        first_quad = IPV4_HINT.search(text)
        if first_quad:   # (no dotted quad starts before 3 characters ahead of the first hint)
            spans += self._ipv4_spans(text, lower, addresses, max(0, first_quad.start() - 4))
        hints = [hint.start() for hint in (IPV6_COMPRESSED_HINT.search(text) if "::" in text else None,
                                            IPV6_HINT.search(text)) if hint]
        if hints:        # (nor an IPv6 address 41 characters ahead of the first)
            spans += self._ipv6_spans(text, addresses, max(0, min(hints) - 48))
        return spans

    def _ipv4_spans(self, text: str, lower: str, addresses: dict[str, str], at: int) -> list[Span]:
        """The dotted quads from `at` on (see IPV4), judged in bulk: a verdict per distinct value, a version
        context per distinct 64 characters before a quad that needs one; Python per quad only where the text
        says version or "+" follows (ADDRESS_BEFORE then decides)."""
        values, starts, ends = _split_matches(IPV4_SPLIT, text, at)
        if not values:
            return []
        verdicts = self._ipv4_verdicts
        for value in set(values).difference(verdicts):
            verdicts[value] = _ipv4_verdict(value, self._known_addresses)
        kinds = list(map(verdicts.__getitem__, values))
        keep = list(map("skip".__ne__, kinds))
        checked = list(itertools.compress(range(len(kinds)), map("check".__eq__, kinds))) if "check" in kinds else []
        if checked:
            check_starts = list(map(starts.__getitem__, checked))
            befores = map(lower.__getitem__, map(slice, _minus(check_starts, 64), check_starts))
            marked = map(self._version_contexts.__getitem__, befores)
            plus = map(text.startswith, itertools.repeat("+"), map(ends.__getitem__, checked))
            for i in itertools.compress(checked, list(map(operator.or_, marked, plus))):
                if not ADDRESS_BEFORE.search(text, max(0, starts[i] - 24), starts[i]):
                    keep[i] = False  # a version number
        if not all(keep):
            values, starts, ends = (list(itertools.compress(column, keep)) for column in (values, starts, ends))
        values = unpadded_quads(values)   # (010.001.002.003 is 10.1.2.3)
        for value in dict.fromkeys(values):   # numbered in the text's order, as found
            if value not in addresses:
                self.placeholder("ip", value)
        return list(zip(starts, ends, map(addresses.__getitem__, values), itertools.repeat("ip address"),
                        _minus(starts, 24)))

    def _ipv6_spans(self, text: str, addresses: dict[str, str], at: int) -> list[Span]:
        """The IPv6 addresses from `at` on (see IPV6): each distinct candidate judged once by ipaddress (a log
        repeats its candidates), the spans made in bulk."""
        values, starts, ends = _split_matches(IPV6_SPLIT, text, at)
        if not values:
            return []
        verdicts = self._ipv6_verdicts
        missing = set(values).difference(verdicts)
        if missing and len(verdicts) + len(missing) > 65536:
            verdicts.clear()
            missing = set(values)
        for value in missing:   # the address, or None where it is none
            address = value.split("%", 1)[0]
            verdicts[value] = None if address in BORING_IPS or not _is_ipv6(address) else address
        found = list(map(verdicts.__getitem__, values))
        if any(map(text.__contains__, CXX_AFTER_SCOPE)) and any(   # (a test in C first: most texts hold none of them)
                text[end:end + 1] in CXX_AFTER_SCOPE for end in ends):   # c10::{lambda()#1}, ab::cd(): C++ names
            found = [None if text[end:end + 1] in CXX_AFTER_SCOPE else address for address, end in zip(found, ends)]
        if not all(found):
            starts, ends, found = (list(itertools.compress(column, found)) for column in (starts, ends, found))
        for address in dict.fromkeys(found):   # numbered in the text's order, as found
            if address not in addresses:
                self.placeholder("ip", address)
        return list(zip(starts, ends, map(addresses.__getitem__, found), itertools.repeat("ip address"), starts))

    def _bare_mac_spans(self, text: str, lower: str) -> list[Span]:
        """Another machine's MAC as 12 hex digits with no separators (001B213A4F5C): in capitals anywhere (a hash is
        printed in small letters), in small letters only after a MAC word on its line (`ether 001b213a4f5c`)."""
        spans: list[Span] = []
        candidates = BARE_MAC_CANDIDATE.finditer(b" " + text.encode("ascii", "replace").translate(BARE_MAC_CLASSES))
        for m in filter(None, map(BARE_MAC.match, itertools.repeat(text), map(_START_OF, candidates))):
            start, end = m.span()
            value = m.group(0)
            if not value.isupper() and not MAC_WORDS_BEFORE.search(lower, max(0, start - 24), start):
                continue
            spans.append((start, end, self.placeholder("mac", value.lower()), "mac address", start))
        return spans

    def _other_host_spans(self, lower: str) -> list[Span]:
        """Other machines' names (see _setup_hosts and AWS_HOST, GCP_HOST) and MACs in Cisco's spelling."""
        spans: list[Span] = []
        if "." in lower:
            for m in CISCO_MAC.finditer(lower):
                start = m.start() - 4
                value = lower[start:m.end()]
                if not value.replace(".", "").isdigit():
                    spans.append((start, m.end(), self.placeholder("mac", value.replace(".", "")), "mac address", start))
        # (the names found as columns: where each starts and ends, and the name; spans made by one zip at the end)
        starts: list[int] = []
        ends: list[int] = []
        names: list[str] = []
        if "ip-" in lower:  # the names and their octets by one split(), each distinct octets judged once
            parts = AWS_HOST_SPLIT.split(lower)
            if len(parts) > 1:
                octets = parts[2::3]
                valid = {value: all(int(octet) < 256 for octet in value.split("-")) for value in set(octets)}
                lengths = [0] * (2 * len(octets) + 1)
                lengths[0::2] = map(len, parts[0::3])
                lengths[1::2] = map(len, parts[1::3])
                bounds = list(itertools.accumulate(lengths))
                starts, ends, names = bounds[0:-1:2], bounds[1::2], parts[1::3]
                if not all(valid.values()):
                    keep = list(map(valid.__getitem__, octets))
                    starts, ends, names = (list(itertools.compress(column, keep)) for column in (starts, ends, names))
        found = peer_names(lower)   # (peers named as hosts: MASTER_ADDR=, a hostfile's lines, Kubernetes DNS names)
        if ".internal" in lower:
            found += [(_name_start(lower, m.start()), m.end()) for m in GCP_HOST.finditer(lower)]
        for pattern in self._domain_patterns:
            low = 0
            for m in pattern.finditer(lower):
                start = m.start()
                if start and lower[start - 1] == ".":
                    found.append((_name_start(lower, start - 1, low), m.end()))
                else:
                    spans.append((start, m.end(), self.placeholder("domain", m.group(0)), "host name", start))
                low = m.end()
        if found:
            starts += map(operator.itemgetter(0), found)
            ends += map(operator.itemgetter(1), found)
            names += map(lower.__getitem__, itertools.starmap(slice, found))
        if names:
            table = self._placeholders.setdefault("host", {})
            for name in dict.fromkeys(names):   # numbered in the order found
                if name and name not in table:
                    self.placeholder("host", name)
            named = zip(starts, ends, map(table.get, names), itertools.repeat("host name"), starts)
            spans += named if all(names) else itertools.compress(named, names)
        return spans

    def spans(self, text: str, in_key: bool = False, token_carry: bool = False,
              value_next: bool = False) -> list[Span]:
        """Every span to replace in text, merged so that none overlap, in order."""
        memo = HAS_MEMO.set({})   # (a literal asked about twice in this call is looked for once)
        try:
            with _collector_paused():   # (a text of real matches makes a tuple or more per match, none in a cycle)
                return self._all_spans(text, in_key, token_carry, value_next)
        finally:
            HAS_MEMO.reset(memo)

    def _all_spans(self, text: str, in_key: bool, token_carry: bool, value_next: bool) -> list[Span]:
        if (has(text, "\x1b]") or ("\\" in text and has_any(text, ESCAPED_OSC_STARTS))) and (
                links := list(OSC.finditer(text))):
            return self._osc_spans(text, links, in_key, token_carry, value_next)
        if "\x1b" in text or ("\\" in text and has_any(text, ("1b[", "033[", "\\e["))
                               and ESCAPED_CSI.search(text)):
            plain = CSI.sub("", text)
            if len(plain) < len(text):  # coloured text: the rules read it without its colour codes
                return self._coloured_spans(text, plain, in_key, token_carry, value_next)
        if "\\" in text or not text.isascii() or "%" in text or has(text, "&#"):
            edits = _name_edits(text)
            if edits:  # a secret name escaped or split (`"pass\u0077ord":`): the rules read it spelled plainly
                return self._view_spans(text, edits, in_key, token_carry, value_next)
        lower = _lower(text)
        found = self._literal_spans(text) + self._secret_spans(text, in_key, token_carry, value_next, lower)
        if "\\" in text and SHELL_QUOTED_QUOTE in text:   # (a character first: memchr)
            found += self._shell_unquoted_spans(text)
        if self._pieces:
            found += self._fragment_spans(text)
        if self._broken and "\n" in text:
            found += self._broken_spans(text)
        found += self._dump_spans(text)
        found += self._escaped_run_spans(text)
        # (the words that open the line views and a secret store's print, each looked for once: a scan of the text each)
        words = frozenset(word for word in GATE_SCAN_WORDS if has(lower, word))
        found += self._printed_form_spans(text, lower, words)
        _extend_quoted_values(text, found)
        if LINE_VIEW_DEPTH.get() < 2 and (windows := line_view_windows(text, lower, words)):
            found += self._line_view_spans(text, windows)
        if "\n" in text:   # (a secret folded over lines: the pieces after its first; a JWT folded before its second dot)
            found += folded_spans(text, found)
        if self.redact_hosts:
            found += self._host_spans(text, lower)
        if not found:
            return []
        found.sort()
        return _merge_spans(found)

    def _shell_unquoted_spans(self, text: str) -> list[Span]:
        """The spans of text's view with bash's quoted quote (SHELL_QUOTED_QUOTE) read as the quote it stands for, placed
        back on text: `bash -x` prints `mysql -e "... IDENTIFIED BY 'X'"` with each inner quote so, and the SQL rules
        read X only in the view (the rules read the text as written too: shell words need the escapes)."""
        at = text.find(SHELL_QUOTED_QUOTE)
        edits = []
        while at >= 0:
            edits.append((at, at + len(SHELL_QUOTED_QUOTE), "'"))
            at = text.find(SHELL_QUOTED_QUOTE, at + len(SHELL_QUOTED_QUOTE))
        view, where = _edited(text, edits)
        token = READING_A_VIEW.set(True)
        try:
            return where.place_back(self.spans(view))
        finally:
            READING_A_VIEW.reset(token)

    def _line_view_spans(self, text: str, windows: list[tuple[int, int, list[tuple[int, int, str]]]]) -> list[Span]:
        """The spans of each window's view (line_views: lines without their log prefix, quoted lines without their
        quotes and escapes), placed back on text."""
        found: list[Span] = []
        depth = LINE_VIEW_DEPTH.set(LINE_VIEW_DEPTH.get() + 1)
        try:
            for start, end, edits in windows:
                view, where = _edited(text[start:end], edits)
                # (a key block, or any span over lines, would take the prefixes between its lines and tell a stream
                # where a block is open: the main reading has prefixed key blocks)
                found += [(a + start, b + start, replacement, label, context + start)
                          for a, b, replacement, label, context in where.place_back(
                              [span for span in self.spans(view) if span[3] != KEY_BLOCK
                               and view.find("\n", span[0], span[1]) < 0])]
        finally:
            LINE_VIEW_DEPTH.reset(depth)
        return found

    def _coloured_spans(self, text: str, plain: str, in_key: bool, token_carry: bool, value_next: bool) -> list[Span]:
        """The spans of text's view without CSI codes (`plain`; ANSI colours: `ESC[36mpassword ESC[0m=ESC[35mX`),
        placed back on text, and a known secret found in text as it is (one could hold an ESC). The codes inside
        a span follow its replacement (`ESC[35mS3crESC[1mt!x` becomes `ESC[35m[REDACTED]ESC[1m`), so the terminal's
        colours after it are what they were."""
        found = self._literal_spans(text)
        in_plain = self.spans(plain, in_key, token_carry, value_next)
        if in_plain:
            found += _without_csi(text)[1].place_back(in_plain)
        if not found:
            return []
        found.sort()
        return _codes_kept(text, _merge_spans(found))

    def _osc_spans(self, text: str, links: list[re.Match[str]], in_key: bool, token_carry: bool,
                   value_next: bool) -> list[Span]:
        """The spans of text's view without its OSC sequences (OSC: a hyperlink cutting `password=` from its value),
        placed back on text, those of each sequence's payload (a link's URL) read alone, and a known secret found in
        text as it is. A span that covers a sequence takes it whole (a hyperlink around a secret goes with it)."""
        view, where = _edited(text, [(m.start(), m.end(), "") for m in links])
        found = self._literal_spans(text) + where.place_back(self.spans(view, in_key, token_carry, value_next))
        found += self._payload_spans(links)
        if not found:
            return []
        found.sort()
        return _merge_spans(found)

    def _payload_spans(self, links: list[re.Match[str]]) -> list[Span]:
        """The spans of each OSC sequence's payload read alone, placed on the text. A call per payload costs all the
        rules' fixed cost per link (`ls --hyperlink` printed 8 s of CPU per MB), so plain hyperlinks (PLAIN_LINK: a
        URI of path characters only, nothing a rule over several lines starts or ends at) are read together, one per
        line, as one text; a span or its context that reaches past its line sends those links to be read alone. Any
        other payload is read alone, as before."""
        found: list[Span] = []
        plain, other = [], []
        for m in links:
            (plain if PLAIN_LINK.fullmatch(m.group("payload")) else other).append(m)
        if len(plain) < 2:
            plain, other = [], links
        for m in other:
            found += _shifted(self.spans(m.group("payload")), m.start("payload"))
        if not plain:
            return found
        payloads = [m.group("payload") for m in plain]
        starts = list(itertools.accumulate((len(p) + 1 for p in payloads[:-1]), initial=0))
        joined: list[tuple[int, Span]] = []
        alone: set[int] = set()
        for span in self.spans("\n".join(payloads)):
            index = bisect.bisect_right(starts, span[0]) - 1
            if span[1] > starts[index] + len(payloads[index]) or span[4] < starts[index]:
                first = bisect.bisect_right(starts, min(span[0], span[4])) - 1
                alone.update(range(first, bisect.bisect_right(starts, max(span[1] - 1, span[0]))))
            else:
                joined.append((index, span))
        for index, span in joined:
            if index not in alone:
                found += _shifted([span], plain[index].start("payload") - starts[index])
        for index in sorted(alone):
            found += _shifted(self.spans(payloads[index]), plain[index].start("payload"))
        return found

    def _dump_spans_uncoloured(self, text: str) -> list[Span]:
        """_dump_spans of a text that may be coloured (a stream's dump context: `ESC[36m00000000ESC[0m  68 66 ...`)."""
        if "\x1b" not in text:
            return self._dump_spans(text)
        plain, where = _without_csi(text)
        return _codes_kept(text, where.place_back(self._dump_spans(plain)))

    def _view_spans(self, text: str, edits: list[tuple[int, int, str]], in_key: bool, token_carry: bool,
                    value_next: bool) -> list[Span]:
        """The spans of text's view with secret names spelled plainly (_name_edits), placed back on text, and a known
        secret found in text as it is."""
        view, where = _edited(text, edits)
        token = READING_A_VIEW.set(True)
        try:
            found = self._literal_spans(text) + where.place_back(self.spans(view, in_key, token_carry, value_next))
        finally:
            READING_A_VIEW.reset(token)
        if not found:
            return []
        found.sort()
        return _merge_spans(found)

    def _apply(self, text: str, spans: list[Span], end: int | None = None) -> str:
        if end is not None and end < len(text):
            spans = spans[:bisect.bisect_left(spans, end, key=_START)]
        else:
            end = len(text)
        out: list[str] = []
        append = out.append
        at = 0
        with _collector_paused():
            for start, stop, replacement, _label, _context in spans:
                append(text[at:start])
                append(replacement)
                at = stop
            append(text[at:end] if at < end else "")
            self.counts.update([span[3] for span in spans])
            return "".join(out)

    # ---- public API -----------------------------------------------------------------------------

    def text(self, text: str) -> str:
        return self._apply(text, self.spans(text))

    def environment(self, environ: dict[str, str]) -> dict[str, str]:
        """The environment with secret-named values replaced and every other value redacted as text."""
        clean = {}
        for name, value in sorted(environ.items()):
            if (is_secret_name(name) and not is_named_location(value, on_disk=True)
                    and value.strip().lower() not in NOT_SECRET_VALUES):
                # (a path is where a secret lives, not one; TOKENIZERS_PARALLELISM=false a setting)
                self.counts["secret-named environment variable"] += 1
                clean[name] = REDACTED
            else:
                clean[name] = self.text(value)
        return clean

    def argv(self, argv: list[str]) -> list[str]:
        """A command line with secret values removed: `--token VALUE`, `-pSECRET` for mysql, `-u u:PASS`.
        Triage writes the same command into four files: each distinct command is redacted once (20,000
        arguments took 0.8-2.3 s a call)."""
        key = tuple(argv)
        done = self._argv_done.get(key)
        if done is None:
            try:
                done = self._redacted_argv(argv)
            except Exception:   # a bug in a rule (none known): every argument hidden rather than the run lost
                self.counts["command line not read (redaction failed)"] += 1
                done = argv[:1] + [REDACTED] * (len(argv) - 1)
            self._argv_done[key] = done
        return list(done)

    def _redacted_argv(self, argv: list[str]) -> list[str]:
        return [self._apply(arg, spans) if spans else arg for arg, spans in zip(argv, self.argv_spans(argv))]

    def argv_spans(self, argv: list[str]) -> list[list[Span]]:
        """Per argument, what Redactor.argv replaces: the pieces of argv_secret_pieces, exactly, and what the text
        rules find that overlaps none of them (one that does, `X}` of `{password: X}`, gives way to the piece), in
        the argument alone or in the command line read as one line (_line_spans)."""
        pieces: dict[int, list[tuple[int, int]]] = {}
        for i, start, end in argv_secret_pieces(argv):
            pieces.setdefault(i, []).append((start, end))
        on_line = self._line_spans(argv)
        # (gcloud's `secrets ... --secret=NAME`: an argument read alone, `--secret=X` hides X)
        names = gcloud_secret_name_pieces(argv) if "secrets" in argv else ()
        seen = self._argument_spans
        if len(seen) > MAX_ARGUMENT_READINGS:
            seen.clear()
        out = []
        for i, arg in enumerate(argv):
            # (the command, the workload's argv and triage's own arguments share their words: each is read once)
            spans = seen.get(arg)
            if spans is None:
                spans = seen[arg] = self.spans(arg)
            if i in on_line:
                spans = _merge_spans(sorted(spans + on_line[i]))
            for at, start, end in names:
                if at == i:
                    spans = [span for span in spans if not start <= span[0] < span[1] <= end]
            own = pieces.get(i)
            if own:
                spans = [span for span in spans if not any(span[0] < end and start < span[1] for start, end in own)]
                spans = _merge_spans(sorted(spans + [(start, end, REDACTED, "secret-named value", start)
                                                     for start, end in own]))
            out.append(spans)
        return out

    def _line_spans(self, argv: list[str]) -> dict[int, list[Span]]:
        """Per argument, what the text rules hide in the command line read as one line, as summary.md and
        report.html write it (an argument with a blank or a shell character in single quotes): a rule that
        needs a flag and its value together (`-U 'bob%X'`, `sqlcmd -P X`) sees them there, not in the list's
        arguments one by one, and workload.json and manifest.json must hide what the line hides. A span is
        placed back on the argument it lies in; one crossing an argument's edge is cut to it when it is a plain
        [REDACTED] (a placeholder or a URL's rewritten part is left to the argument's own reading)."""
        words, starts, at = [], [], 0
        for arg in argv:
            word = f"'{arg}'" if "'" not in arg and SHELL_SAFE_WORD.fullmatch(arg) is None else arg
            starts.append(at + (len(word) != len(arg)))
            words.append(word)
            at += len(word) + 1
        placed: dict[int, list[Span]] = {}
        for start, end, replacement, label, _context in self.spans(" ".join(words)):
            first = bisect.bisect_right(starts, start) - 1
            last = bisect.bisect_right(starts, end - 1) - 1
            for i in range(max(first, 0), last + 1):
                left, right = max(start - starts[i], 0), min(end - starts[i], len(argv[i]))
                inside = start >= starts[i] and end <= starts[i] + len(argv[i])
                if right > left and (inside or replacement == REDACTED):
                    placed.setdefault(i, []).append((left, right, replacement, label, left))
        return placed

    def argv_replaced_values(self, argv: list[str]) -> list[str]:
        """The values Redactor.argv replaces in argv, each as it stands there."""
        return [value for arg, spans in zip(argv, self.argv_spans(argv)) for value in _span_values(arg, spans)]

    def tainted(self, text: str) -> bool:
        """Whether text holds anything we would redact (for files we cannot rewrite)."""
        return bool(self.spans(text))

    def report(self) -> dict:
        return {"rules_applied": dict(sorted(self.counts.items())),
                "secret_environment_variables": len(secret_env_names(self.environ)),
                "hosts_redacted": self.redact_hosts,
                "placeholders": {kind: len(values) for kind, values in self._placeholders.items()},
                "note": "counts only; no redacted value is kept anywhere in the bundle"}
