"""Secret names in other languages (issue 11): `Passwort: X`, `Mot de passe : X`, `Пароль: X`, `パスワード: X` hide X as
`password: X` does, in text, behind a log prefix and in a stream; a value that says the secret is missing, and prose,
stay. A value opened by a negation word (`password: not X`, `no X`, `none X`) goes whole when no plain word follows."""

from __future__ import annotations

import pytest

from stream_feed import fed_in_reads

from aiperf_lab.triage.redact import REDACTED, Redactor, StreamRedactor
from aiperf_lab.triage.redaction.names import is_secret_flag, is_secret_name

V = "Hunter2x9"

NAMES = ["Passwort", "Kennwort", "Contraseña", "Mot de passe", "Senha", "Wachtwoord", "Пароль",
         "パスワード", "密码", "密碼", "비밀번호", "Hasło", "Şifre", "Clave secreta", "Chave secreta",
         "Geheimer Schlüssel", "Clé secrète", "Jeton", "Токен", "Секретный ключ",
         "トークン", "秘密鍵", "密钥", "令牌", "토큰", "Palavra-passe", "Tajny klucz", "DB_PASSWORT",
         "db-senha"]


def _streamed(text: str, size: int = 5) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sep", [": ", " : ", "=", " = "])
def test_foreign_name_hides_value(name, sep):
    for text in (f"{name}{sep}{V}\n", f"[rank0]: {name}{sep}{V}\n"):
        for out in (Redactor({}).text(text), _streamed(text)):
            assert V not in out, (text, out)
            assert REDACTED in out


@pytest.mark.parametrize("name", ["PASSWORT", "DB_KENNWORT", "SENHA", "MOT_DE_PASSE", "CONTRASEÑA", "WACHTWOORD",
                                  "HASŁO", "ŞIFRE", "ПАРОЛЬ", "パスワード", "密码", "비밀번호"])
def test_foreign_env_and_flag_names_are_secret(name):
    assert is_secret_name(name)
    assert is_secret_flag("--" + name.lower().replace("_", "-"))
    out = Redactor({name: V}).text(f"the value is {V}\n")
    assert V not in out


@pytest.mark.parametrize("text", [
    "Clé secrète : manquante\n", "Mot de passe : non défini\n", "Passwort: fehlt\n", "Passwort: nicht gesetzt\n",
    "Contraseña: vacía\n", "Senha: não definida\n", "Пароль: не задан\n", "Пароль: отсутствует\n", "Hasło: brak\n",
    "Wachtwoord: leeg\n", "パスワード: 未設定\n", "密码: 未设置\n", "비밀번호: 없음\n",
    "Passwort: Das Passwort muss mindestens zwölf Zeichen lang sein.\n",
    "パスワード: 8文字以上で入力してください\n", "密码: 请输入至少八个字符\n",
])
def test_missing_and_prose_stay(text):
    assert Redactor({}).text(text) == text
    assert _streamed(text) == text


@pytest.mark.parametrize("text", ["password: not Hunter2x9\n", "password: no Hunter2x9\n", "password: none Hunter2x9\n",
                                  "Passwort: nicht Hunter2x9\n", "Mot de passe : pas Hunter2x9\n",
                                  "api_key=not Hunter2x9\n", "[rank0]: password: not Hunter2x9\n",
                                  "token: (not Hunter2x9\n", "secret: NOT Hunter2x9\n"])
def test_negation_then_secret_goes_whole(text):
    for out in (Redactor({}).text(text), _streamed(text)):
        assert V not in out, out
        assert REDACTED in out


@pytest.mark.parametrize("text", ["password: not set\n", "password: not set.\n", "password: no password given\n",
                                  "password: none (default)\n", "password: none\n",
                                  "password: no\n", "Mot de passe : non défini\n"])
def test_negation_sentences_stay(text):
    assert Redactor({}).text(text) == text
    assert _streamed(text) == text


def test_negation_values_apart_go_whole():
    text = "".join(f"password=not Hunter2x{k} x " for k in range(6)) + "\n"
    out = Redactor({}).text(text)
    assert "Hunter2x" not in out, out


@pytest.mark.parametrize("name", ["Пароль", "パスワード", "비밀번호", "Şifre"])
def test_foreign_name_value_on_next_line_in_a_stream(name):
    text = "a\n" * 10 + f"{name}:\n  {V}\n"
    stream = StreamRedactor(Redactor({}), piece=1)
    out = "".join(stream.feed(text[k:k + 3]) for k in range(0, len(text), 3)) + stream.close()
    assert V not in out
    assert V not in Redactor({}).text(text)
