"""Secret names written so the name rules miss them (issue 11, helper h12e): a letter JSON-escaped (`"pass\\u0077ord"`,
either hex case, also escaped again in JSON inside JSON), JSON's `\\/` inside a key (`"api\\/key"`), an invisible
character inside the name (zero-width space, non-joiner, joiner, word joiner, BOM, soft hyphen). The values are random
and in no environment variable: only the name can tell. The text outside the value stays as it was, and names that
are no secret's, or text that only holds such characters, stay whole."""

from __future__ import annotations

import json

import pytest

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor

V = "S3cr3t!xZq8Wm"
NAMES = ["password", "api_key", "client_secret", "token", "passphrase", "access_key", "db_pass", "auth_token", "apiKey"]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]


def _escaped_at(name: str, at: int, upper: bool) -> str:
    code = f"{ord(name[at]):04x}"
    return name[:at] + "\\u" + (code.upper() if upper else code) + name[at + 1:]


def _expect_value_gone(text: str, value: str = V) -> None:
    out = Redactor({}).text(text)
    assert value not in out, text
    assert out == text.replace(value, REDACTED, 1), (text, out)   # only the value changed


ESCAPED_KEYS = [(name, at, upper) for name in NAMES for at in range(len(name)) for upper in (False, True)
                if name[at].isalpha()]


@pytest.mark.parametrize("name,at,upper", ESCAPED_KEYS)
def test_a_json_key_with_a_letter_escaped_goes(name: str, at: int, upper: bool) -> None:
    _expect_value_gone('{"user": "bob", "' + _escaped_at(name, at, upper) + '": "' + V + '"}')


@pytest.mark.parametrize("name", NAMES)
def test_json_inside_json_with_an_escaped_key_goes(name: str) -> None:
    inner = '{"' + _escaped_at(name, 1, False) + '": "' + V + '"}'
    _expect_value_gone(json.dumps({"payload": inner}))            # {"payload": "{\"pa\\u0073sword\": \"V\"}"}
    _expect_value_gone(json.dumps({"payload": json.dumps({name[:2] + "\u200b" + name[2:]: V})}))   # \\u200b


@pytest.mark.parametrize("key", ["p\\u0061\\u0073\\u0073word", "p\\u0061\\u0073\\u0073\\u0077\\u006f\\u0072\\u0064",
                                 "\\u0070\\u0061\\u0073\\u0073word", "api\\u005f\\u006b\\u0065\\u0079"])
def test_a_few_letters_escaped_in_a_row_go(key: str) -> None:
    _expect_value_gone('{"' + key + '": "' + V + '"}')


def test_a_run_of_escapes_alone_is_left_to_the_escaped_run_rule() -> None:
    text = '{"msg": "' + "\\u0041" * 40 + '", "caf\\u00e9": 1}'
    assert Redactor({}).text(text) == text


@pytest.mark.parametrize("key", ["api\\/key", "client\\/secret", "auth\\/token", "db\\/password"])
def test_a_json_slash_inside_a_key_goes(key: str) -> None:
    _expect_value_gone('{"' + key + '": "' + V + '"}')
    _expect_value_gone(json.dumps({"payload": '{"' + key + '": "' + V + '"}'}))


@pytest.mark.parametrize("mark", INVISIBLE)
@pytest.mark.parametrize("name", ["password", "api_key", "HF_TOKEN", "client_secret"])
def test_an_invisible_character_inside_a_name_goes(mark: str, name: str) -> None:
    split = name[:3] + mark + name[3:]
    _expect_value_gone(f"{split}={V}")
    _expect_value_gone(f"{split}: {V}\n")
    _expect_value_gone(json.dumps({split: V}, ensure_ascii=False))
    _expect_value_gone(json.dumps({split: V}))                      # the character escaped: "pas\u200bsword"


def test_the_name_and_the_rest_of_the_line_keep_their_escapes() -> None:
    text = '2026-11-23 INFO cfg={"pass\\u0077ord": "' + V + '", "caf\\u00e9": 1, "url": "https:\\/\\/x.org\\/a"}'
    out = Redactor({}).text(text)
    assert out == text.replace(V, REDACTED)


@pytest.mark.parametrize("text", [
    '{"tok\\u0065nizer": "gpt2", "max\\u005ftokens": 4096, "pass\\u0077ord_length": 12}',
    '{"caf\\u00e9": "cr\\u00e8me", "path": "a\\/b\\/c", "url": "https:\\/\\/hf.co\\/gpt2"}',
    '{"na\\u006de": "S3cr3t!xZq8Wm", "model\\/name": "llama\\/7b"}',
    "tokeni\u200bzer=gpt2 com\u00adpass=north step\u2060 1 loss 2.3",
    '{"output_tok\\u0065n_throughput": 1234.5, "api\\/key_header": "X-Api-Key"}',
    "\ufeffstep 1 loss 2.31\n",
])
def test_names_that_are_no_secret_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


def test_a_stream_reads_a_split_name_as_the_whole_text_does() -> None:
    text = "".join(f"step {k}\n" for k in range(40)) + "pass\u200bword:\n  " + V + "\n" + '{"api\\/key": "' + V + '"}\n'
    whole = Redactor({}).text(text)
    assert V not in whole
    for size in (1, 2, 7, 64):
        stream = StreamRedactor(Redactor({}), piece=5)
        out = "".join(stream.feed(text[k:k + size]) + stream.flush() for k in range(0, len(text), size)) + stream.close()
        assert out == whole, size


# ---- eighth pass (rt7 B3): names with letters written as other escapes, a no-break space at the separator, a shell
# line continuation inside the name
P8 = "hunter2Pa55w0rd"
OTHER_ESCAPED_NAMES = [
    f"pass\\x77ord={P8}", f"pass\\x77ord: {P8}", f"DB_PASS\\x57ORD={P8}", f"pass&#119;ord={P8}", f"pass&#x77;ord={P8}",
    f"api&#95;key={P8}", f"pass%77ord={P8}", f"%70%61%73%73%77%6f%72%64={P8}", f"%70%61%73%73%77%6F%72%64 = {P8}",
    f"password\u00a0=\u00a0{P8}", f"api_key\u202f:\u00a0{P8}", f"DB_PASS\\\nWORD={P8}", f"export API_TO\\\nKEN={P8}",
    f"[rank0]: pass%77ord={P8}",
]


@pytest.mark.parametrize("text", OTHER_ESCAPED_NAMES)
def test_a_name_written_with_other_escapes_goes(text: str) -> None:
    out = Redactor({}).text(text)
    assert P8 not in out and REDACTED in out
    framed = f"step 1\n{text}\nstep 2\n"
    stream = StreamRedactor(Redactor({}), piece=5)
    assert "".join(stream.feed(framed[k:k + 3]) for k in range(0, len(framed), 3)) + stream.close() == Redactor({}).text(framed)


@pytest.mark.parametrize("text", [
    "progress 45% done=12", "GET /search?q=%70%61%73%73 HTTP/1.1", "https://host/a%2Fb?x=1", "x%41y=3",
    "&#60;br&#62;", "pass\\x41=1", "cost\u00a0=\u00a012 EUR", "make \\\nall=1", "CFLAGS=-O2 \\\n-g",
])
def test_other_escapes_that_spell_no_secret_name_stay(text: str) -> None:
    assert Redactor({}).text(text) == text


# ---- h14: names drawn with look-alike letters (fullwidth, Cyrillic/Greek, accents) ------------------------------------

def _lookalike(name: str, kind: str) -> str:
    if kind == "fullwidth":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name)
    if kind == "cyrillic":
        return name.replace("a", "\u0430").replace("o", "\u043e").replace("e", "\u0435").replace("p", "\u0440", 1)
    if kind == "greek":
        return name.replace("o", "\u03bf").replace("i", "\u03b9").replace("k", "\u03ba")
    if kind == "combining":
        return name[:2] + "\u0301" + name[2:]
    return name[:1] + {"a": "\u00e1", "p": "p", "o": "\u00f3"}.get(name[1], name[1]) + name[2:]   # precomposed


LOOKALIKE_KEYS = [(name, kind) for name in NAMES for kind in ("fullwidth", "cyrillic", "greek", "combining", "accent")
                  if _lookalike(name, kind) != name]


@pytest.mark.parametrize("name,kind", LOOKALIKE_KEYS)
def test_a_name_in_lookalike_letters_still_hides_its_value(name: str, kind: str) -> None:
    for layout in ("{n}={v}\n", "{n}: {v}\n", '"{n}": "{v}"\n', "[rank0]: {n}={v}\n"):
        text = layout.format(n=_lookalike(name, kind), v=V)
        _expect_value_gone(text)
        stream = StreamRedactor(Redactor({}), piece=7)
        assert V not in "".join(stream.feed(text[k:k + 3]) for k in range(0, len(text), 3)) + stream.close()


def test_a_fullwidth_colon_and_underscore_after_a_fullwidth_name() -> None:
    _expect_value_gone(f"\uff21\uff30\uff29\uff3f\uff2b\uff25\uff39\uff1a{V}\n")
    _expect_value_gone(f"\u0391\u03a1\u0399_\u039a\u0395\u03a5={V}\n")   # Greek capitals beside a "_"


# (Cyrillic text the look-alike fold must not read as a name; `Пароль: X`, `токен=X` are names for a password and a
# token, whose values go: tests/test_redaction_session16_languages.py)
@pytest.mark.parametrize("text", ["Привет: мир\n", "счётчик=abc123XYZ\n", "café=1 résumé: naïve\n",
                                  "Passé: composé\n", "tqdm ████ 50%|███ 12/24\n", "ｈｅｌｌｏ＝ｗｏｒｌｄ\n",
                                  "Ελληνικά: κείμενο\n", "日本語：テキスト\n"])
def test_text_in_other_scripts_stays(text: str) -> None:
    assert Redactor({}).text(text) == text
