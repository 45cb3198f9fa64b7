"""Leaks in tables and structured prints (helper h20l, issue 11: no planted secret in any bundle). Each value is unknown
to the Redactor (`Redactor({})`, as when a job prints what it read from a database or a config service); each form is
hidden bare, behind a log prefix (`[rank0]: `, `2026-11-24 03:00:01 INFO `, srun's `0: `) and through a StreamRedactor
cut at every place (stream_feed.hidden_everywhere); what is no secret stays byte for byte (kept_everywhere).

1. A table whose header names a secret column, the value in its rows: CSV, TSV, markdown, psql, mysql (tables.py);
   a `| db_password | X |` key|value row indented (layouts.PIPE_ROW). Tables of throughput metrics stay.
2. helm template's Kubernetes env list behind a launcher's prefix (line_views: `- name:` opens a line view).
"""

from __future__ import annotations

import pytest

from stream_feed import hidden_everywhere, kept_everywhere, prefixed


PREFIXES = ["", "[rank0]: ", "2026-11-24 03:00:01 INFO ", "0: "]
HP = "Winter2024!blue"
TK = "Qx7vR2mZ9pLk4TnQx7vR2mZ9pLk4Tn"


# 1. tables with a secret column
TABLES = {
    "csv": f"user,password,role\nbob,{HP},admin\nalice,{HP}x,viewer\n",
    "csv upper": f"USER,DB_PASSWORD,ROLE\nbob,{HP},admin\n",
    "csv first column": f"password,user\n{HP},bob\n",
    "csv last column": f"id,user,api_key\n1,bob,{TK}\n",
    "tsv": f"user\tpassword\trole\nbob\t{HP}\tadmin\n",
    "markdown": f"| user | password | role |\n|---|---|---|\n| bob | {HP} | admin |\n",
    "markdown aligned": f"| user | secret_key       | role  |\n|:-----|:-----------------|------:|\n| bob  | {HP}  | admin |\n",
    "psql": f" username | password\n----------+-----------------\n bob      | {HP}\n(1 row)\n",
    "psql three columns": f" id | username | token\n----+----------+-------\n  1 | bob      | {TK}\n(1 row)\n",
    "mysql": (f"+------+-----------------+\n| user | password        |\n+------+-----------------+\n"
              f"| bob  | {HP} |\n+------+-----------------+\n1 row in set (0.00 sec)\n"),
}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("kind", sorted(TABLES))
def test_a_table_with_a_secret_column(kind, prefix):
    text = prefixed(TABLES[kind], prefix)
    whole = hidden_everywhere(text, HP if HP in text else TK)
    # every other cell and the layout stay
    assert whole.count("\n") == text.count("\n")
    assert "bob" in whole
    for word in ("admin", "viewer", "role", "user"):
        if word in text:
            assert word in whole.lower()


def test_only_the_secret_column_goes():
    text = "user,password,role\nbob,Winter2024!blue,admin\n"
    from aiperf_lab.triage.redact import Redactor
    assert Redactor({}).text(text) == "user,password,role\nbob,[REDACTED],admin\n"
    text = "| user | password | role |\n|---|---|---|\n| bob | Winter2024!blue | admin |\n"
    assert Redactor({}).text(text) == "| user | password | role |\n|---|---|---|\n| bob | [REDACTED] | admin |\n"


METRIC_TABLES = [
    "| step | tokens/s | loss |\n|---|---|---|\n| 100 | 51234.7 | 2.31 |\n| 200 | 51002.1 | 2.29 |\n",
    "step,tokens_per_sec,token_count,loss\n100,51234.7,2048,2.31\n200,51002.1,2048,2.29\n",
    "step,num_tokens,max_tokens\n100,Zq8x2k9Lm,Ab3dEf9Gh1\n",
    "user,password_changed_at,role\nbob,2026-11-01 10:00:00,admin\n",
    "user,password_changed_at\nbob,Winter2024!blue\n",
    " id | token          | logprob\n----+----------------+---------\n  5 | hello          | -0.12\n  6 | world          | -1.30\n",
    "| user | password | role |\n|---|---|---|\n| bob | NULL | admin |\n| eve | *** | admin |\n",
    "name,value\nlr,3e-4\nbatch,32\n",
]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", METRIC_TABLES)
def test_a_table_without_a_secret_stays(text, prefix):
    kept_everywhere(prefixed(text, prefix))


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("indent", ["  ", "    ", "\t"])
def test_an_indented_key_value_row(indent, prefix):
    text = prefixed(f"{indent}| param | value |\n{indent}| db_password | {HP} |\n", prefix)
    whole = hidden_everywhere(text, HP)
    assert "db_password" in whole and whole.count("|") == text.count("|")


@pytest.mark.parametrize("text", ["1200/5000 | consumed samples 614400 | elapsed 412.3 ms\n",
                                  "    | param | value |\n    | learning_rate | 3e-4 |\n"])
def test_an_indented_row_without_a_secret_stays(text):
    kept_everywhere(text)


# 2. helm template's env list behind a launcher's prefix
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("indent", ["", "    ", "        "])
def test_helm_env_list_behind_a_prefix(indent, prefix):
    text = prefixed(f"{indent}- name: API_KEY\n{indent}  value: \"{TK}\"\n{indent}- name: MODEL\n{indent}  value: llama\n",
                    prefix)
    whole = hidden_everywhere(text, TK)
    assert "name: API_KEY" in whole and "value: llama" in whole


# 3. session 19's notes: az keyvault's pretty-printed JSON, a spaced name in a key|value row, a bracketed passphrase
AZ_PRETTY = ('{\n  "attributes": {\n    "enabled": true\n  },\n  "contentType": null,\n'
             '  "id": "https://kv.vault.azure.net/secrets/db/1a2b3c",\n  "managed": null,\n  "name": "db",\n  "tags": {},\n'
             f'  "value": "{HP}"\n}}\n')


@pytest.mark.parametrize("prefix", PREFIXES)
def test_az_keyvault_secret_show_pretty_printed(prefix):
    text = prefixed(AZ_PRETTY, prefix)
    whole = hidden_everywhere(text, HP)
    assert "/secrets/db/1a2b3c" in whole and '"name": "db"' in whole


@pytest.mark.parametrize("text", [
    '{\n  "id": "https://kv.vault.azure.net/keys/db/1a2b3c",\n  "value": "Zq8x2k9LmPq4"\n}\n',   # a key's id: not read
    '{\n  "id": "https://kv.vault.azure.net/secrets/db/1",\n  "tags": {\n    "value": "team-a"\n  }\n}\n',   # a tag, deeper
])
def test_other_pretty_json_values_stay(text):
    kept_everywhere(text)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("name", ["api key", "db password", "secret key"])
def test_a_spaced_secret_name_in_a_key_value_row(name, prefix):
    text = prefixed(f"| {name} | {HP} |\n", prefix)
    whole = hidden_everywhere(text, HP)
    assert f"| {name} |" in whole


@pytest.mark.parametrize("text", ["| api key | missing |\n", "| model name | llama-3-8b |\n", "| the key | is2 |\n"])
def test_a_spaced_name_row_without_a_secret_stays(text):
    kept_everywhere(text)


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("text", ["password: <correct horse battery staple>\n", "api_key = <correct horse battery staple>\n",
                                  "passphrase: <Winter2024!blue horse battery>\n"])
def test_a_bracketed_passphrase_goes_whole(text, prefix):
    whole = hidden_everywhere(prefixed(text, prefix), "battery")
    assert "horse" not in whole and "staple" not in whole


@pytest.mark.parametrize("text", ["password: <your password>\n", "token=<paste your token here>\n",
                                  "password: <enter password>\n"])
def test_a_bracketed_placeholder_stays(text):
    kept_everywhere(text)


# false positives
@pytest.mark.parametrize("prefix", PREFIXES)
def test_credentials_pair_keeps_the_user(prefix):
    whole = hidden_everywhere(prefixed(f"Using credentials: bob / {HP}\n", prefix), HP)
    assert "credentials: bob / " in whole


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("variable", ["$pw", "$password", "$secure"])
def test_convertto_securestring_keeps_the_cmdlet(variable, prefix):
    whole = hidden_everywhere(prefixed(f'{variable} = ConvertTo-SecureString "{HP}" -AsPlainText -Force\n', prefix), HP)
    assert "ConvertTo-SecureString" in whole and "-AsPlainText -Force" in whole


@pytest.mark.parametrize("text", [f"node1: api_key2: {TK}\n", f"node1: step 1\nnode1: api_key2: {TK}\n",
                                  f"node1: step 1\napi_key2: {TK}\n", f"node1: api_key2: |\nnode1:   {TK}\n"])
def test_pdsh_prefix_then_a_numbered_secret_name(text):
    # (a guard: hidden on main too; `api_key2: ` is read as a pdsh prefix in the view, and the value still goes)
    whole = hidden_everywhere(text, TK)
    assert "api_key2:" in whole


@pytest.mark.parametrize("text", ["node1: x\nnode1: epoch2: 5\nnode1: model2: llama\n", "node1: a\nnode1: api_key2: 5\n"])
def test_pdsh_prefix_plain_lines_stay(text):
    kept_everywhere(text)


# a table longer than a stream holds (TABLE_HOLD_LINES): its rows go on under the header let out before
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("head, row", [("user,password,role\n", "u{i},Pw{i:04d}secret!,admin\n"),
                                       ("| user | password |\n|---|---|\n", "| u{i} | Pw{i:04d}secret! |\n")])
def test_a_long_table_in_a_stream(head, row, prefix):
    from aiperf_lab.triage.redact import Redactor
    from stream_feed import fed_in_reads
    text = prefixed(head + "".join(row.format(i=i) for i in range(200)) + "done\n", prefix)
    whole = Redactor({}).text(text)
    assert whole.count("[REDACTED]") == 200 and "secret!" not in whole
    for size, piece in ((64, 7), (64, 300), (4096, 1 << 16)):
        assert fed_in_reads(Redactor({}), text, size, piece) == whole, (size, piece)


def test_a_header_repeated_is_no_row_value():
    # (every line of a CSV printed twice over is a header; the repeated header is a row of the first: its names stay)
    from stream_feed import same_in_stream
    from aiperf_lab.triage.redact import Redactor
    text = "user,password,role\nbob,Winter2024!blue,admin\nuser,password,role\nalice,Summer2025?red,viewer\n"
    whole = Redactor({}).text(text)
    assert whole == "user,password,role\nbob,[REDACTED],admin\nuser,password,role\nalice,[REDACTED],viewer\n"
    same_in_stream(lambda: Redactor({}), text, whole)
