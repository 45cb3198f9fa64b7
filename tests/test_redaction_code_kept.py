"""False positives that cost an engineer their data (issue 11): code, references and settings printed under a
secret's name stay readable (a traceback's source line, a config's numbers, a compose file's list of secrets' names),
while every secret of the same shapes stays hidden, generated ones always."""

from __future__ import annotations

import base64
import random
import uuid

import pytest

from stream_feed import fed_in_reads
from aiperf_lab.triage.redact import REDACTED, Redactor

V = "Zq8vN2mK5pL9xR4t"


def _streamed(text: str, size: int) -> str:
    return fed_in_reads(Redactor({}), text, size, piece=7)


KEPT_LINES = [
    # calls under a secret's name: a traceback's source line
    "    next_token = torch.argmax(logits[:, -1, :], dim=-1)",
    "    self.token_embedding = nn.Embedding(vocab_size, dim)",
    "    token = session.post(url, data={\"user\": user}).json()[\"token\"]",
    "    passwd = fallback_getpass(prompt, stream)",
    "    token = tokenizer.convert_ids_to_tokens(ids, skip_special_tokens=True)",
    "    secret = base64.b64decode(data[\"secret\"])",
    "    auth = HTTPBasicAuth(user, password)",
    "    token = jwt.encode(payload, SECRET, algorithm=\"HS256\")",
    "    with open(token_file) as f: token = f.read().strip()",
    "    secret = client.access_secret_version(request={\"name\": name}).payload.data.decode(\"UTF-8\")",
    "    x_token = f(a, b)",
    # keyword arguments that pass a variable on
    "    password=password,",
    "    token=token,",
    "    return cls(token=token, expires_at=expires)",
    "    model = AutoModelForCausalLM.from_pretrained(model_id, token=hf_token, torch_dtype=torch.bfloat16)",
    "    login(token=args.hf_token)",
    "    client = OpenAI(api_key=api_key, base_url=args.base_url)",
    "    conn = psycopg2.connect(host=host, password=password, dbname=db)",
    # type annotations and f-string fields
    "    def authenticate(self, username: str, password: str) -> bool:",
    "    def login(self, token: Optional[str] = None) -> None:",
    "    raise ValueError(f\"invalid token: {token!r}\")",
    "    auth_header = {\"Authorization\": f\"Bearer {token}\"}",
    "    headers = {\"Authorization\": \"Bearer \" + api_key}",
    # tools' output
    "tests/test_secret_scan.py::test_no_secret_in_logs[api_key] PASSED        [  6%]",
    "Setting up libsecret-1-0:amd64 (0.20.5-2) ...",
    "Selecting previously unselected package libsecret-1-0:amd64.",
    "      HF_TOKEN:  <set to the key 'token' in secret 'hf-secret'>  Optional: false",
    "      DB_PASSWORD:  <set to the key 'password' in secret 'db-creds'>  Optional: false",
    # settings and references
    "<property><name>hadoop.http.authentication.token.validity</name><value>36000</value></property>",
    "<property><name>yarn.resourcemanager.delegation.token.renew-interval</name><value>86400000</value></property>",
    "password: ${DB_PASSWORD:?required}",
    "api_key: !ENV ${API_KEY}",
]


@pytest.mark.parametrize("line", KEPT_LINES)
def test_code_and_references_under_a_secret_name_stay(line: str) -> None:
    assert Redactor({}).text(line) == line
    assert _streamed(line + "\n", 3) == line + "\n"


def test_compose_and_workflow_names_of_secrets_stay() -> None:
    text = ("services:\n  trainer:\n    secrets:\n      - hf_token\n      - db_password\n"
            "secrets:\n  hf_token:\n    file: ./secrets/hf_token.txt\n  db_password:\n    environment: DB_PASSWORD\n"
            "jobs:\n  train:\n    secrets: inherit\n    uses: ./.github/workflows/train.yml\n"
            "auth:\n  providers:\n    - github\n"
            "password_hint: |\n  ask the admin\napi_key_help: >\n  Set OPENAI_API_KEY in the environment.\n"
            "<property>\n  <name>dfs.namenode.delegation.token.renew-interval</name>\n  <value>86400000</value>\n"
            "</property>\n")
    assert Redactor({}).text(text) == text
    assert _streamed(text, 5) == text


HIDDEN = [
    "    conn = connect(host=host, password=hunter2x, dbname=db)",
    "    login(token=abcdefghij)",
    "    token=Zq8vN2mK5pL9xR4t,",
    f"    password=np.bytes_(b'{V}')",
    f"    password = SecretStr(\"{V}\")",
    f"    token = f({V})",
    f"    secret = {V}.decode()",
    f"    password = wrap(x, '{V}')",
    f"api_key: !ENV {V}",
    f"password: !vault {V}",
    f"Authorization: Bearer {V}",
    f"secrets:\n  - {V}\n",
    f"secrets:\n  hf_token: {V}\n",
    f"token: {V}:\n",
    f"    password: {V})",
    f"HF_TOKEN:  {V}",
    f"<property><name>hadoop.security.token.secret</name><value>{V}</value></property>",
]


@pytest.mark.parametrize("text", HIDDEN)
def test_secrets_in_the_same_shapes_stay_hidden(text: str) -> None:
    out = Redactor({}).text(text)
    assert V not in out and "hunter2x" not in out and "abcdefghij" not in out and REDACTED in out
    streamed = _streamed(text + "\n", 3)
    assert V not in streamed and "hunter2x" not in streamed and "abcdefghij" not in streamed


def _generated(rng: random.Random) -> list[str]:
    """One value of each generator a person uses for a secret: openssl rand -base64 / -hex, secrets.token_urlsafe,
    uuid4, pwgen's pronounceable look (a capital and a digit)."""
    def raw(n: int) -> bytes:
        return rng.getrandbits(8 * n).to_bytes(n, "big")
    cons, vowels = "bcdfghjkmnpqrstvwxz", "aeiouy"
    word = "".join(rng.choice(cons) + rng.choice(vowels) for _ in range(4))
    word = word[:2] + word[2].upper() + word[3:5] + str(rng.randrange(10)) + word[5:]
    return [base64.b64encode(raw(24)).decode(), base64.b64encode(raw(12)).decode(), raw(16).hex(), raw(32).hex(),
            base64.urlsafe_b64encode(raw(16)).decode().rstrip("="), base64.urlsafe_b64encode(raw(8)).decode().rstrip("="),
            str(uuid.UUID(bytes=raw(16), version=4)), word]


CONTEXTS = ["password={v}", "token = {v}", "password: {v}", "    login(token={v})", "    connect(host=h, password={v}, db=d)",
            "    token={v},", "api_key: !ENV {v}", "def f(password: {v}) -> bool:", "HF_TOKEN:  {v}",
            "{{'token': '{v}'}}", "secrets: {v}", "Authorization: Bearer {v}"]


def test_no_generated_secret_is_kept_in_the_shapes_of_code() -> None:
    rng = random.Random(11)
    redactor = Redactor({})
    kept = [(context, value) for _ in range(60) for value in _generated(rng) for context in CONTEXTS
            if value in redactor.text(context.format(v=value))]
    assert kept == []


@pytest.mark.parametrize("placeholder", ["EMPTY", "dummy", "sk-no-key-required", "xxxxxxxx", "********"])
def test_a_documented_placeholder_key_is_no_known_secret(placeholder: str) -> None:
    """vLLM's `OPENAI_API_KEY=EMPTY`: the variable is hidden, the word stays wherever else it is printed."""
    redactor = Redactor({"OPENAI_API_KEY": placeholder, "HF_TOKEN": V})
    text = f"queue {placeholder} after 3 s; model={placeholder}\n"
    assert redactor.text(text) == text
    assert redactor.environment({"OPENAI_API_KEY": placeholder})["OPENAI_API_KEY"] == REDACTED
    assert V not in redactor.text(f"token {V} printed")


def test_a_real_key_beside_a_placeholder_stays_a_known_secret() -> None:
    redactor = Redactor({"OPENAI_API_KEY": "hunter2-Secret"})
    assert "hunter2-Secret" not in redactor.text("logged in with hunter2-Secret today")


@pytest.mark.parametrize("line", [
    '    engine = create_engine(f"postgresql://{user}:{password}@{host}/{db}")',
    '    url = f"https://{user}:{token}@github.com/{repo}.git"',
    "<property><name>dfs.encryption.key.provider.uri</name><value>kms://http@kms:9600/kms</value></property>",
])
def test_url_templates_and_kms_transport_stay(line: str) -> None:
    assert Redactor({}).text(line) == line


@pytest.mark.parametrize("url", [f"postgresql://app:{V}@db/x", f"https://{{user}}:{V}@github.com/r.git",
                                 f"kms://http:{V}@kms:9600/kms", f"https://{V}@github.com/r.git"])
def test_url_credentials_beside_template_fields_still_go(url: str) -> None:
    assert V not in Redactor({}).text(url)


# ---- h14: a pytest node id's parameters -------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["tests/test_api.py::test_login[user=alice-password=wrong] FAILED",
                                  "tests/t.py::TestA::test_x[password=hunter2-db] PASSED",
                                  "FAILED tests/t.py::test_auth[token=abc-expired] - AssertionError"])
def test_a_pytest_id_keeps_its_parameters(line: str) -> None:
    assert Redactor({}).text(line + "\n") == line + "\n"


def test_a_bracketed_assignment_outside_a_pytest_id_still_goes() -> None:
    assert V not in Redactor({}).text(f"x[password={V}]\n")
    assert V not in Redactor({}).text(f"tests/t.py::test_x passed; cfg[password={V}]\n")


# ---- h14 (rt9 F2): masked and configured values under a secret's name -------------------------------------------------

@pytest.mark.parametrize("text", ["  + password = (sensitive value)\n", "  ~ db_password = (sensitive value) -> (sensitive value)\n",
                                  "password = (sensitive)\n", "SET password_encryption = 'scram-sha-256';\n",
                                  "    password: [unclosed\n              ^\n", "existingSecret: db-creds\n"])
def test_masked_values_settings_and_carets_stay(text: str) -> None:
    out = Redactor({}).text(text)
    assert out.count("\n") == text.count("\n")
    kept = text.replace("[unclosed", "[REDACTED]")   # (an unclosed `[x` is a value: a password may start so)
    assert out == kept, out


def test_terraform_masked_value_beside_a_real_one() -> None:
    out = Redactor({}).text(f"  + password = (sensitive value)\n  + api_key = \"{V}\"\n")
    assert "(sensitive value)" in out and V not in out


@pytest.mark.parametrize("text", ["+ openssl req -new -key key.pem -passin env:KEY_PASS -out req.csr\n",
                                  "private_key = id_rsa.pem\n", "tls_secret: tls.crt\n", "api_key=creds.json\n",
                                  "token: hf_token.txt\n", "--ssl-key server.key --password-file pw.txt\n"])
def test_a_key_file_named_bare_stays(text: str) -> None:
    assert Redactor({}).text(text) == text


def test_a_key_file_on_argv_stays_and_a_password_shaped_like_one_goes() -> None:
    from aiperf_lab.triage.redact import argv_secret_values
    assert argv_secret_values(["openssl", "req", "-key", "key.pem", "-out", "req.csr"]) == []
    assert V not in Redactor({}).text(f"password={V}.json\n")


@pytest.mark.parametrize("text", ['def get_token(self, expect: Expect) -> Token:\n    """Get the next token.\n',
                                  "    def api_key(self) -> Optional[ApiKey]:\n        return self._key\n",
                                  "hashlib.py: password = bytes(memoryview(password))\n",
                                  "secret = bytearray( memoryview(secret) )\n"])
def test_a_return_type_and_a_call_on_a_variable_stay(text: str) -> None:
    """rt9 F2: a return annotation named like a secret, then the next line; bytes() of a variable, not a literal."""
    assert Redactor({}).text(text) == text


def test_bytes_literals_and_next_line_values_still_go() -> None:
    out = Redactor({}).text(f"password = bytes('{V}', 'utf-8')\ntoken:\n  {V}\nkwargs={{'password': memoryview(b'{V}')}}\n")
    assert V not in out


@pytest.mark.parametrize("code", [
    "        if self.credentials:\n            continue\n",
    "class Cookie:\n    import base64\n",
    "    for token in tokens:\n        total += 1\n",
    "[rank0]:     with secret_lock:\n[rank0]:         context = ssl.create_default_context()\n",
    '{"msg": "    elif password:"}\n{"msg": "        retries += 1"}\n',
])
def test_a_python_block_opened_under_a_secrets_name_gives_the_next_line_no_value(code):
    """rt10 F2: `if self.credentials:` then `continue` lost the `continue` (the colon ending the line read as YAML's,
    the next line as the value); behind a log prefix and in JSON records (the line views) too."""
    assert Redactor({}).text(code) == code
    assert "Zq8Das1x" not in Redactor({}).text("credentials:\n  Zq8Das1x\n")   # YAML's value on the next line goes
