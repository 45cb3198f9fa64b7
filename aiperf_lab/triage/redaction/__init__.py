"""Redaction applied to every text before it is written into a bundle.

- Secret values, wherever they appear in any captured text, in their plain and escaped forms (repr,
  JSON, URL-encoded, HTML): values of environment variables whose names say secret by whole words
  (is_secret_name: TOKEN, PASSWORD, CREDS, API_KEY, ...; not MAX_NEW_TOKENS, SORT_KEY, TOKEN_BUDGET;
  not a value that is a path, which is where a secret lives), bare hex keys (32-64 hex digits) in any variable whose name does not
  say hash (commit, sha, revision, id, ...), values on the workload's command line after secret
  flags (`--password X`, `--token=X`), a tool's password flag (mysql -pX, sshpass -p X, redis-cli
  -a X), `-p X` of any other program when X looks like a password (not a port, path or plain word),
  bare hex keys there unless the flag names a hash, and every secret-shaped piece found in any
  environment value or argument (URL passwords, token shapes).
- A piece of a known secret: 12+ characters that start or end it, or 23+ from its middle, anywhere
  in a line (needles at every 12th character, grown by comparing slices);
  a piece that a line wrap cut off (3-11 characters) at the next line's start or the last one's end.
  Which known values, needles and broken values may be in a text is asked once for all of them (known_secrets:
  a q-gram index), so a text's cost does not grow with the number of known secrets.
- Token shapes in any text, also right after an escape that ends in a letter or digit (JSON `\\n`, URL
  `%3D`, repr `\\x00`, terminal colours): GitHub, Hugging Face, AWS access keys, Slack, OpenAI and Google API keys,
  NGC, PyPI, Databricks, Docker Hub, Vault, Discord and other services' keys (SERVICE_TOKENS, PROVIDER_TOKENS),
  JWTs (down to ~30 characters, also folded over lines), Bearer/Basic credentials, passwords inside URLs
  (scheme://user:PASSWORD@host), a URL's user with no password unless the scheme is ssh-like,
  private key and PGP private key blocks (with or without their END line), `name=value` /
  `"name": "value"` pairs whose name suggests a secret, `key=` with a key-shaped value.
- Secrets as common tools print them, the name apart from the value: Kubernetes env lists (`- name: X`
  then `value: V`), Secret `data:` (base64 of text under any key) and `stringData:`, kubeconfig `*-data`
  keys holding a key, shell-quoted values through their escapes (`declare -x X="a\\"b"`, `X=$'a\\nb'`),
  loguru diagnose arrows under a secret name, httpx header tuples, terraform sensitive values, XML
  elements (see the finders after _url_userinfo_spans); the value a secret store prints bare on the line after its
  command (kubectl, gcloud, aws, az, vault, op, doppler, pass, gopass, security, bw, sops, printenv and echo of a
  secret-named variable); SQLAlchemy's echoed
  parameters in the place of a secret-named column; HTTP headers whose dashed name ends in a secret word
  (`Ocp-Apim-Subscription-Key: V`), dotted config keys with the secret words inside (`fs.azure.account.key.ACCT...=V`),
  a value alone after the line that announces it (Jenkins' first-start password, `... | base64 -d`), secrets in
  sentences (`Using token V for authentication`), listings aligned by blanks with a password column.
- Known secrets also base64- and hex-encoded, JSON-escaped twice, shell-quoted, in upper or lower
  case.
- Names with a whole PASS / PW / PASSPHRASE word; flags whose words say secret; -u user:PASS.
  Shapes: GitLab, Stripe, npm, SendGrid keys, any Authorization scheme, PuTTY and SSH2 keys, keys
  logged with a prefix, AccountKey=, sig=, Pwd=, pass=, pw=, .netrc.
- With `redact_hosts`: host names (any case, and an FQDN's short name), this host's own addresses,
  the SSH peer's addresses, peers named as hosts (MASTER_ADDR=, a Kubernetes env item, an MPI or MPICH
  hostfile, Kubernetes DNS names), every IPv4 address (zero-padded too) but those the text marks as versions, every IPv6
  address, MAC addresses, GPU UUIDs and user names become stable placeholders (host-1, ip-1, mac-1,
  gpu-uuid-1, user-1: the same value gets the same placeholder everywhere).

Every rule runs in time linear in the text: each pattern can start only where the character before
it cannot belong to it, and every repetition that could fail is bounded, so no pattern rescans a long
run (a 30,000-character run of dots took 65 s with the former patterns). Rules find spans in the
original text; overlapping spans merge into one replacement. URLs with credentials and secret-named
assignments back to back (a text made of nothing else: `://x@` or `pass=abc ` repeated) are one span a
run, whose replacement (made by substitutions in C) is what each match would have given, so the cost per
match is not Python's. `StreamRedactor` applies the same rules to a stream (a workload's output) piece
by piece, so raw output never has to be stored.

The report counts what was replaced, by rule (a run of URLs or assignments back to back counts once);
it never holds a value.

The package, one job a module; an arrow is "imports from" (leaves first, no cycles: tests/test_import_hygiene.py):

    names        which names say secret, value judgements (cannot_be_secret, looks_like_password)   (leaf)
    tokens       provider token shapes and their gates, as tables and patterns                  (leaf)
    spans        Span, REDACTED and the labels, merging, CSI/name edits, cut helpers, literal gates (leaf)
    store_prints commands that print a secret bare on the next line (stores, cat, printenv, echo $X)  (leaf)
    hosts        --redact-hosts: own names/addresses/MACs, IPv4/IPv6/MAC/version judgements  -> names
    dumps        hex/od/xxd dumps decoded                                                    -> spans
    references   values that name or fetch a secret (`$(cat f)`, `Bearer $X`, `${X}` in a URL), plain keys   -> names
    urls         URL userinfo, schemeless user:PASSWORD@host, escaped URLs, git's prompt  -> names, references, spans
    token_spans  token shapes that need a look around them                    -> names, spans, tokens
    line_index   line_views' windows from a stretch's lines found by index in C; lines known to have no view edit   (leaf)
    line_views   lines behind a log prefix, in JSON strings/records or repr(): windows read without them; a line's
                 source, the next line of the same source (same_source_line)                     -> spans, line_index
    assignments  name=value pairs, runs of them, values apart, harmless values
                                                     -> line_views, names, references, spans, store_prints
    op_items     1Password's `op item get --reveal` prints (a fields line, JSON over lines)  -> names, spans
    printed_rows a CLI's `| apikey | X |` row behind a log prefix or in a JSON message; a prompt answered on its line
                                                                             -> names, spans
    commands     printed command lines and flags, tools' password flags; SQL, Redis, MongoDB passwords
                                                                             -> assignments, names, spans
    layouts      env items, XML/terraform/k8s data blocks, listings, loguru, cloud CLI tables
                                                     -> assignments, line_views, names, op_items, references, spans
    distinct_lines  a text of few distinct lines (a split and a set), for rules that judge each line once   (leaf)
    announced    secret-named headers, dotted config keys, a value after the line announcing it, secrets in sentences
                                                             -> distinct_lines, line_views, names, spans
    tables       result tables whose header names a secret column (CSV, TSV, markdown, psql, mysql), listings
                 aligned by blanks                           -> announced, distinct_lines, line_views, names, spans
    blocks       YAML sequences and block scalars, flow lists, prefixed blocks, heredocs  -> layouts, assignments, ...
    argv         secret pieces of the workload's argv        -> assignments, blocks, commands, layouts, names
    printed_commands  printed command lines (`+ cmd`, `$ cmd`, `Running: cmd`) read as argv    -> argv, names, spans
    keys         private key blocks (a prefixed block passes over another source's lines)  -> line_views, spans
    known_secrets  the known secrets' literals, pieces and broken values, one index pass a text  -> names, spans
    redactor     Redactor: gathers the known secrets, runs every rule, merges  -> all of the above
    argv_values  argv_secret_values (a bare Redactor's reading of argv)         -> redactor, ...
    stream       StreamRedactor: the Redactor's rules piece by piece            -> redactor, ...

aiperf_lab.triage.redact re-exports the public names; code outside the package imports from there.
"""
