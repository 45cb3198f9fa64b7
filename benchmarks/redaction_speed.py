"""Redaction time on adversarial text: runs that made the former patterns backtrack, and many
near-matches of every rule. Each case is SIZE megabytes of one repeated pattern, redacted whole
(Redactor.text) and as a stream (StreamRedactor, 64 KiB reads, as triage reads a workload's pipe).

    python benchmarks/redaction_speed.py --mb 20                 # the figures in docs/benchmarks.md
    python benchmarks/redaction_speed.py --mb 20 --redact-hosts
    python benchmarks/redaction_speed.py --mb 0.02 --redact-py old_redact.py --limit-s 120
                                                                 # another redact.py
    python benchmarks/redaction_speed.py --mb 20 --redact-hosts --no-stream --repeat 3 --baseline old_redact.py
                                                                 # before/after in one run: medians, ratio
                                                                 # (without --no-stream: the stream too)

On a shared, noisy machine only figures taken side by side mean much: --baseline runs the other
redact.py and this one in turn, case by case, --repeat times, and reports the medians and their ratio.

Each case runs in its own process with a time limit (--limit-s), so a quadratic one is reported as
"over the limit" instead of hanging the run.

The first case is plain log text (training-log lines with a few secrets): the "/ plain" column divides
each case's time by its time in the same run, a figure that a noisy machine changes less.

    python benchmarks/redaction_speed.py --mb 20.97 --no-text --plain-each [--redact-hosts]
                                                     # the issue 11 figures: 20 MiB per case through the
                                                     # stream only, plain text timed again beside each
"""

from __future__ import annotations

import argparse
import json
import importlib.util
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

# Plain text: training-log lines with no secret in them.
# A case is a unit repeated to the size; (unit, n): cut into lines of n characters; (head, unit): head, then
# the unit repeated.
PLAIN = ("step 1200 loss 2.3817 lr 3.0e-04 grad_norm 0.84 tokens/s 51234.7 mem 61.2 GiB\n"
         "[rank0]: epoch 3 iteration 1200/5000 | consumed samples 614400 | elapsed 412.3 ms\n"
         "INFO 2026-11-23 05:12:44 loading shard 7 of 16 from /data/shards/part-00007.arrow\n"
         "export CUDA_VISIBLE_DEVICES=0,1,2,3; curl -s https://pypi.example/simple/ -o /dev/null\n")
CASES: dict[str, str | tuple] = {
    "plain log text": PLAIN,
    "run of dots": ".",
    "run of letters": "a",
    "secret names, no separator": "tokenpassword_secret.",
    "secret names, spaced": "api_token ",
    "assignments": "password=x ",
    "private key BEGIN, no END": "-----BEGIN RSA PRIVATE KEY-----\n",
    "JWT starts": "eyJ-",
    "JWT-like segments": "eyJaaaaaaaa.",
    "URL schemes": "a://b:c",
    "URL user info": "://" + "u:p" * 100 + " ",
    "token prefixes": "sk-hf_ghp_",
    "a token every 34 characters": "hf_" + "a" * 30 + " ",
    "a JWT every 27 characters": "eyJaaaaaaaa.bbbbbbbbb.cccc ",
    "dotted quads": "1.1.1.1-",
    "IPv6-like": "a:b:",
    "bearer": "Bearer ",
    "empty lines": "\n",
    "12-character lines (a fragment look-up each)": "abcdefghijkl\n",
    "half a known secret on every line": "hf_Qw3rTy7uIoPa\n",
    "URL passwords with a slash": "https://u:a/b@h ",
    "base64 runs": "QUJDREVGR0hJSktMTU5PUA== ",
    "MAC-like groups": "0a:1b:2c:3d:4e:",
    # the third red-team pass: texts that made a pattern rescan after each of its literals
    "'mysql ' repeated": "mysql ",
    "'curl ' repeated": "curl ",
    "'wget x ' repeated": "wget x ",
    "'sshpass ' repeated": "sshpass ",
    "'pass pass=' repeated": "pass pass=",
    "'://x@' repeated": "://x@",
    # printed credentials without a scheme, URL passwords with a quote (red team U)
    "scheme-less credentials": "u:pw9x@h:80 ",
    "'a:b@' repeated": "a:b@",
    "URL passwords with a quote": "://u:p'w@h ",
    "'api_key:' lines": "api_key:\n",
    "'\"password\": \"' lines": "\"password\": \"\n",
    "'authorization: basic ' repeated": "authorization: basic ",
    "a key line with a log prefix": "INFO: -----BEGIN RSA PRIVATE KEY-----\nINFO: MIIEabcdefghABCDEFGH0123456789+/\n",
    "'Private-Lines: 1' lines": "Private-Lines: 1\n",
    "capital I with a dot (lower() grows it)": "\u0130",
    "metric lines with secret words": '{"output_token_throughput": 1234.5, "token_count": 512, "api_key": null}\n',
    "tokens after JSON escapes": "msg\\nghp_R8x2Kq9LmZ4vT7wY1nB5cD3fG6hJ0kP2sQ9a%3Dhf_Zx8Lq2Wm9Rt4Yp7Kd3Nf6Hj1Bv5 ",
    # the red team's perf harness (issue 11, fourth pass): every case it runs, under its name
    "rt curl_200": ("curl ", 200), "rt mysql_nonl": "mysql ", "rt url_odd": "://a:", "rt url_odd2": "://" + "a" * 250 + ":",
    "rt url_userinfo": ("://" + "b" * 300, 100000), "rt authz": "authorization:", "rt netrc": "login x password ",
    "rt beginkey": "-----BEGIN PRIVATE KEY-----\n", "rt keyline_long": ("-----BEGIN PRIVATE KEY-----\n", "A"),
    "rt token=": "token=", "rt token_name": "token" + "a" * 48 + " ", "rt v6colons": "::",
    "rt v6hint": "1:2:3:4:5:6:7:", "rt ipv4dots": "1.1.1.1.", "rt ipv4dig": "1.2.3.4 ", "rt basic": "basic basic ",
    "rt putty": "PuTTY-User-Key-File-2: x\n", "rt frag_start": "Qw3rTy7uIoPaSdFgHj ", "rt hex_run": "0123456789abcdef",
    "rt mac_like": "aa:bb:cc:dd:ee:", "rt sig=": "?sig=&sig=", "rt many_short_lines": "x\n", "rt gh_prefix": "ghp_",
    "rt sk-": "sk-", "rt AKIA": "AKIA", "rt xoxb": "xoxb-",
    # the host shapes of the same pass (AWS ip-a-b-c-d and GCP *.c.PROJECT.internal names, Cisco MACs)
    "AWS host names": "ip-10-0-0-1 ", "GCP host names": "a.c.abcdef.internal ", "Cisco MACs": "001b.213a.4f5c ",
    "log lines with secrets": ("step 12 loss 0.53 tokens/s 1234.5 HF_TOKEN=hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345" +
                               " url=postgres://u:pa55word@db.internal/x 10.0.0.7:29500\n"),
    # secrets as tools print them (the fourth pass): each rule's literal, repeated
    "tool form: env items": "- name: DB_PASSWORD\n  value: Zq8Das\n",
    "tool form: env items on one line": "name: DB_PASSWORD value: x ",
    "tool form: env names, no value": "name: DB_PASSWORD ",
    "tool form: shell quotes": 'DB_PASSWORD="a\\"',
    "tool form: shell $'": "DB_PASSWORD=$'\\",
    "tool form: loguru arrows": "\u2514",
    "tool form: loguru lines": "    f(password)\n    \u2502 \u2514 'x'\n",
    "tool form: header tuples": "(b'x-api-key', b'",
    "tool form: terraform sensitive": '"sensitive": true, ',
    "tool form: xml elements": "<password>x",
    "tool form: yaml data blocks": "data:\n  k: QUJDREVGR0g=\n",
    "tool form: json data blocks": '"data": {"k": "QUJDREVGR0g=", ',
    "tool form: -data keys": "client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ== ",
    "tool form: File lines (stream hold)": '  File "x.py", line 1\n',
    "tool form: docker config base64 starts": "eyJhdXRocyI6" + "A" * 24 + " ",
    "tool form: quoted values with spaces": '"password": "ab1 cd ',
    "tool form: quoted values, escaped quotes": "password: 'abc\\' ",
    # the fourth pass: dumps of a known secret, separated hex and decimal bytes, webhook URLs, .pgpass lines,
    # other hosts' names (--redact-hosts) and Cisco MACs; "(4th)" picks them with --only
    "(4th) hexdump -C lines of a known secret": "00000000  68 66 5f 51 51 51 51 51  51 51 51 51 51 51 51 51  |hf_QQQQQQQQQQQQQ|\n",
    "(4th) hexdump -C lines, ordinary bytes": "00000010  03 00 3e 00 01 00 00 00  60 61 00 00 00 00 00 00  |..>.....`a......|\n",
    "(4th) xxd lines": "00000000: 6866 5f51 5151 5151 5151 5151 5151 5151  hf_QQQQQQQQQQQQQ\n",
    "(4th) od -c lines": "0000000   h   f   _   Q   Q   Q   Q   Q   Q   Q   Q   Q   Q   Q   Q   Q\n",
    "(4th) 1-byte dump lines": "0000000 ab\n",
    "(4th) hex pairs": "68 ",
    "(4th) hex pairs, 7 in a row": "68 66 5f 51 77 33 72 x ",
    "(4th) 0x pairs": "0x68, ",
    "(4th) decimal byte lists": "[1, 2, 3, 4, 5, 6, 7, 8]",
    "(4th) 'hooks.slack.com/' repeated": "hooks.slack.com/services/T0123ABCD/",
    "(4th) .pgpass-like fields": "h:5432:d:u:",
    "(4th) ':*:' repeated": ":*:",
    "(4th) 'ip-' names": "ip-10-0-1-2",
    "(4th) '.c.' names": ".c.project-1.internal.c.",
    "(4th) Cisco-like groups": "0a1b.2c3d.",
    "(4th) names in this host's domain": "n.acme-corp.example.",
    # the fifth pass's shapes (--only "(5th)"): each rule's literal or whole shape, repeated
    "(5th) Mailgun keys": "key-e7689447ab57a683536c4499d863386c ", "(5th) 'key-' repeated": "key-",
    "(5th) Twilio API keys": "SKe10cd79e048c07dd7753eda83d7c58df ",
    "(5th) Twilio SIDs and tokens": "AC3b2f8e1d9c4a7b6e5f0d1c2b3a4e5f6d 9f8e7d6c5b4a39281706f5e4d3c2b1a0 ",
    "(5th) 'AC' + hex, no token": "AC3b2f8e1d9c4a7b6e5f0d1c2b3a4e5f6d,",
    "(5th) Azure AD secrets": "DbN8Q~0xPbX_neGBuzSm6A8-cVR06AxY-pThGJWZ ", "(5th) 'Q~' repeated": "a8Q~",
    "(5th) glued JWT starts": "_eyJhbGciOi", "(5th) glued JWTs": "x_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.6PwZPf1Qh6yYTWm ",
    "(5th) glued GitLab starts": "_glpat-", "(5th) glued GitLab tokens": "x_glpat-sTy4Qwb8DwkNhFdnXsiV ",
    "(5th) AWS ids beside secrets": "AKIAIOSFODNN7EXAMPLE MP9+2kUtMXhkPrSbbAjLGmsDx5StAZvlMz/Bk4op\n",
    "(5th) AWS ids beside base64": "AKIAIOSFODNN7EXAMPLE " + "QUJDREVGR0hJSktMTU5PUA" * 20 + "\n",
    "(5th) .netrc password lines": "  password Zq8DaspUtbuleC5C0HzjwSLo\n", "(5th) 'password ' repeated": "password ",
    "(5th) docker login lines": "+ docker login -u bob -p FkIM3Vak1uDSKFQs1DxB\n", "(5th) 'login -p x ' repeated": "docker login -p x ",
    "(5th) htpasswd -b lines": "+ htpasswd -b /etc/x bob A9RelOxOPbbNcRV7\n", "(5th) 'htpasswd -b ' repeated": "htpasswd -b ",
    "(5th) xxd -p lines": "68665f3672724f326863786c487737416b7657626737574170565a6e5236\n",
    "(5th) od -An -tx1 lines": " 68 66 5f 36 72 72 4f 32 68 63 78 6c 48 77 37 41\n",
    "(5th) DER key bodies": "out MIIKYgIBAzCCChbhbkXNNv+hOV48vsoUu19X5IQLJhQbtN2FWXWD5KaPHI2ufKssJ/Sk+WzDNhY7AGbX6lTiDY\n",
    "(5th) 'MIIxxAIB' repeated": "MIIKYgIB", "(5th) OpenSSH bodies": "b3BlbnNzaC1rZXktdjEAAAAA3omjMyXHCabM6JOF8EFd0Nhcy/1kGD2VD\n",
    "(5th) '# ' lines after a BEGIN": ("-----BEGIN RSA PRIVATE KEY-----\n", "# comment\n"),
    "(5th) bare MACs (--redact-hosts)": "001B213A4F5C ", "(5th) 12 hex digits, small letters": "5a319caa0750 ",
    "(5th) stream holds: tables": ("Name    Value\n----    -----\n", "DB_PASSWORD    Zq8DaspUtbuleC5C0\n"),
    "(5th) stream holds: loguru under a frame": '  File "x.py", line 1\n    f(password)\n    \u2502 \u2514 \'x\'\n',
    # the sixth pass's forms (--only "(6th-p)"): coloured text, shell-quoted command values, layouts
    "(6th-p) coloured log lines": "\x1b[2;36m[12:00:01]\x1b[0m \x1b[32mINFO\x1b[0m step \x1b[1m12\x1b[0m loss 0.53\n",
    "(6th-p) coloured secret pairs": "\x1b[36mclient_secret\x1b[0m=\x1b[35mZq8Wm3Kx7Lp2Rv9T\x1b[0m\n",
    "(6th-p) 'ESC[' repeated": "\x1b[", "(6th-p) escaped colours": "\\x1b[1m",
    "(6th-p) bash -x quoted passwords": "+ sshpass -p 'S3cr3t!x' ssh h\n", "(6th-p) \"-p '\" repeated": " -p '",
    "(6th-p) aligned pairs": "password    = Zq8Wm3Kx7Lp2Rv9T\n", "(6th-p) 'password' and spaces": "password" + " " * 40,
    "(6th-p) JSON in JSON pairs": '{\\"password\\": \\"Zq8Wm3Kx7Lp2Rv9T\\"} ',
    "(6th-p) cookie headers": "Cookie: _ga=1; sid=Zq8Wm3Kx7Lp2Rv9T\n", "(6th-p) 'digest ' repeated": "digest ",
    # the dump layouts of the sixth pass (--only "(6th)"): lines of a known secret's bytes, ordinary bytes, and text
    # that only looks like them (times, numbers in columns)
    "(6th) od -b lines of a known secret": "0000000 150 146 137 121 121 121 121 121 121 121 121 121 121 121 121 121\n",
    "(6th) od -tu1 lines, ordinary bytes": "0000000 109 111 100 101 108  46 115  97 102 101 116 101 110 115 111 114\n",
    "(6th) xxd -b lines of a known secret": "00000000: 01111000 01101000 01100110 01011111 01010001 01110111  xhf_Qw\n",
    "(6th) xxd -e lines of a known secret": "00000000: 5f666878 72337751 75377954 61506f49  xhf_Qw3rTy7uIoPa\n",
    "(6th) hexdump -x lines of a known secret": "0000000    6878    5f66    7751    7233    7954    7537    6f49    6150\n",
    "(6th) colon hex lines of a known secret": "68:66:5f:51:51:51:51:51:51:51:51:51:51:51:51:51\n",
    "(6th) od -An -tx1 lines with tabs, a known secret": "\t78\t68\t66\t5f\t51\t77\t33\t72\t54\t79\t37\t75\t49\t6f\t50\t61\n",
    "(6th) bare hex, 40 bytes a line, a known secret": "7868665f5177337254793775496f506153644667486a4b6c5a784376426e4d31323334350a0a0a\n",
    "(6th) times alone on lines": "12:30:45\n", "(6th) numbers in columns": "1234567   12   34  -56   78\n",
    "(6th) tab-separated 2-digit numbers": "10\t20\t30\t40\t50\t60\n",
    # escaped or split secret names, dumps behind a log prefix, od -An -tu1, colour inside a value (--only "(h12e)"):
    # their shapes with a secret, ordinary text that holds their gates (a \u, zero-width spaces, " 000", od's widths)
    "(h12e) prefixed xxd lines of a known secret":
        "2026-11-23 12:00:01 INFO 00000000: 6866 5f51 5151 5151 5151 5151 5151 5151  hf_QQQQQQQQQQQQQ\n",
    "(h12e) prefixed hexdump -C lines, ordinary bytes":
        "[rank0]: 00000010  03 00 3e 00 01 00 00 00  60 61 00 00 00 00 00 00  |..>.....`a......|\n",
    "(h12e) log lines with ' 000' numbers": "2026-11-23 12:00:01 INFO step 000120 loss 0000 12.5 | 000 ab\n",
    "(h12e) od -An -tu1 lines, ordinary bytes": " 109 111 100 101 108  46 115  97 102 101 116 101 110 115 111 114\n",
    "(h12e) od -An -tu1 lines of a known secret": " 104 102  95  81  81  81  81  81  81  81  81  81  81  81  81  81\n",
    "(h12e) escaped JSON keys, one a secret's": '{"pass\\u0077ord": "Zq8Wm3Kx7Lp2Rv9T", "caf\\u00e9": 1}\n',
    "(h12e) JSON with \\u escapes, no secret": '{"caf\\u00e9": "cr\\u00e8me", "url": "https:\\/\\/x.org\\/a"}\n',
    "(h12e) zero-width spaces in log text": "step\u200b 1200 loss 2.38 \u4e2d\u6587 log\n",
    "(h12e) coloured values split by codes": "\x1b[36mpassword\x1b[0m=\x1b[35mZq8Wm3\x1b[1mKx7Lp2Rv9T\x1b[0m\n",
    # runs of matches back to back (one span a run) and the same matches kept apart (one span each): "(dense)"
    "(dense) '://u:p@' repeated": "://u:p@",
    "(dense) '://x@' and '://u:p@' in turn": "://x@://u:p@",
    "(dense) 'token=abc,' repeated": "token=abc,",
    "(dense) 'api_key:' and a value, lines": "api_key:\nabcd\n",
    "(dense) 'pass=abcd x ' repeated (apart)": "pass=abcd x ",
    "(dense) 'https://x@h ' repeated (apart)": "https://x@h ",
    "(dense) 'api_key: abcd' lines (apart)": "api_key: abcd\n",
    # values aligned to a column after their name (rt8 L0: kubectl describe, op item get), and names whose blanks
    # run past the 40 the rule reads (--only "(rt8)")
    "(rt8) aligned values": "      DB_PASSWORD:         Qm7vT2xLp9RzW4kN\n",
    "(rt8) blanks past the aligned bound": "password:" + " " * 41 + "x\n",
    "(dense) a word and a number, lines": "loss\n1234\n",
    "(dense) a word and a git hash, lines": "commit\n9fceb02d0ae598e95dc970b74767f19372d61af8\n",
    "(dense) a step and a number, lines": "epoch 1\n5678\n",
    # every character escaped (decoded run by run, then searched): long runs, and runs of 5 apart
    "(esc) '%41' repeated": "%41",
    "(esc) '&#65;' repeated": "&#65;",
    "(esc) '\\u0041' repeated": "\\u0041",
    "(esc) '\\101' repeated": "\\101",
    "(esc) '0x41 ' repeated": "0x41 ",
    "(esc) UTF-16 text": "s\0t\0e\0p\0 \0",
    "(esc) runs of 5 '%41' apart": "%41%41%41%41%41 ",
    "(esc) runs of 5 '\\x41' apart": "\\x41\\x41\\x41\\x41\\x41 ",
    # provider tokens of the red team's pass 3 (S1): every prefix and inner literal, bodies one character short, and
    # whole tokens back to back
    "(3rd-S1) provider prefixes, bodies short": "pcsk_ab_" + "a1" * 9 + " xai-" + "Ab1" * 6 + " dp.st.x." + "a" * 19
                                                + " sk." + "eyJ" * 6 + " ATATT3" + "a" * 99 + " 12345678:AA" + "b" * 32
                                                + " 1//0" + "c" * 39 + " " + "0" * 36 + "NRAL" + " " + "f" * 32 + "-us1x ",
    "(3rd-S1) '_x-y.z' separators": "_abcdefghijklmnopqrs-abcdefghijklmnopqrs.abcdefghijklmnopqrs",
    # printed command lines (S6): secret flags and their values, tools' short flags, flags without a tool
    "(3rd-S6) '--password Zq1x ' repeated": "--password Zq1x ", "(3rd-S6) '--a-b ' repeated": "--a-b ",
    "(3rd-S6) ' -p x -k y' repeated, no tool": " -p x -k y", "(3rd-S6) 'zip -P x ' repeated": "zip -P x ", "(3rd-S6) 'zip -P abcd ' repeated": "zip -P abcd ",
    "(3rd-S6) 'config set token x ' repeated": "config set token x ",
    # the red team's F5 (issue 11, sixth pass): a known secret's bytes as colon-separated hex, a line each
    "(6th) colon-separated hex of a known secret": ":".join(f"{b:02x}" for b in b"hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345") + "\n",
    "(3rd-S1) whole provider tokens": "fw_" + "Ab1" * 8 + " pul-" + "0a" * 20 + " s.Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8 ",
    # the seventh pass (h12m): bytes values, framed keys, tools' listings, URL tokens (--only "(7th)")
    "(7th) bytes values after secret names": "'password': b'Zq8vN2mK5pL9', ",
    "(7th) bytearray( after secret names": "'api_key': bytearray(b'",
    "(7th) framed BEGIN lines, no END": "\u2502 -----BEGIN RSA PRIVATE KEY----- \u2502\n\u2502 MIIEvQIBADANBgkqhkiG9w0BAQEFAASC \u2502\n",
    "(7th) framed key lines with dashes": ("\u2502 -----BEGIN RSA PRIVATE KEY----- \u2502\n", "\u2502 -- MIIEvQIBADANBgkqhkiG9w0 \u2502\n"),
    "(7th) fish listing lines": "DB_PASSWORD hunter2-Pa55w0rd!\nHOME /root\n",
    "(7th) env-like NAME VALUE lines": "SOME_NAME value\n",
    "(7th) dot leaders": "  comet_api_key ............... x\n",
    "(7th) dots alone": " .. ",
    "(7th) <name> elements": "<name>fs.s3a.secret.key</name>\n",
    "(7th) URL token literals": "/hooks/ ?tkn= anaconda.org/t/ IncomingWebhook/ add-authtoken ",
    "(7th) path-like values under secret names": "password=/eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX ",
    "(7th) code references": "tokenizer.pad_token = tokenizer.eos_token\n",
    # secrets' YAML sequences and block scalars, flow lists, `net use`, scp-style logins (h12l): each rule's opener
    "(h12l) 'secrets:' sequences": "secrets:\n  - Zq8Das1x\n  - Pa55w0rd-2\n",
    "(h12l) 'password: |' blocks": "password: |\n  Zq8Das1x\n  Pa55w0rd-2\n",
    "(h12l) 'x:' lines, no secret name": "step:\n  - 1\n",
    "(h12l) 'secrets: [' flow lists": "secrets: [Zq8Das1x, Pa55w0rd-2] ",
    "(h12l) ': [' unclosed": "secrets: [a, ",
    "(h12l) 'net use' lines": "net use Z: \\\\srv\\share /user:bob Zq8Das1x\n",
    "(h12l) scp-style logins": " bob:Zq8Das1x@host:dir/x ",
    # red team rt8's S1: a block scalar's opener behind a log prefix, and a sequence's opener with its item, repeated
    "(rt8) '[rank0]: password: |' lines": "[rank0]: password: |\n",
    "(rt8) 'secrets:\\n- ' repeated": "secrets:\n- ",
    # h14a's rules, each with its matches and near-misses: aligned flags and help lines, vllm's key list, Rust's Some(,
    # dotted leaders, labels of several words, secret stores' prints, look-alike names, TOKENS lists, '[' values
    "(h14a) aligned flags": "  --password        Zq8Das1xPa55w0rd\n  --token          The token to use\n  --port            8000\n",
    "(h14a) --api-key lists": "+ vllm serve m --api-key Zq8Das1xPa55 Qm7vT2xLp9Rz team2key!x9 --port 8000 --api-key a b c d\n",
    "(h14a) Rust Some(": 'Args { api_key: Some("Zq8Das1xPa55"), revision: Some("main"), hf_token: Some(\n  "Zq8Das1x",\n), n: Some(1) }\n',
    "(h14a) dotted leaders": "   Password . . . . . . . : Zq8Das1xPa55\n   Host Name . . . . . . . : build-01\n   DHCP. . . : Yes\n",
    "(h14a) labels of several words": "Fields:\n  api key:    Zq8Das1xPa55\n  Token Count:    4096\n  Secret Name:   my-secret-v2\n",
    "(h14a) secret stores' prints": "$ gcloud secrets versions access latest --secret=db\nZq8Das1xPa55\n$ vault kv get -field=password "
                                    "secret/db\nZq8Das1x\nvault op read kubectl secret x\n",
    "(h14a) look-alike names": "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44=Zq8Das1x p\u0430ssword=Zq8Das1x caf\u00e9=1 "
                               "\u041f\u0430\u0440\u043e\u043b\u044c: x na\u00efve \u2588\u2588\n",
    "(h14a) TOKENS lists": "tokens: &t\n  - Zq8Das1xPa55w0rdQm7v\n  - <pad>\nspecial_tokens:\n  - </s>\n",
    "(h14a) '[' values": "password: [x!9Kq2]abc\nsecrets: [Zq8Das1x, true]\napi_key: [x]\n",
    # line views (h14b): session 13's forms behind a log prefix on every line and in JSON records, and prefixed lines
    # that hold every mark of those forms but no form (each line a candidate: the whole text read twice)
    "(h14b) YAML layouts behind [rank0]": "".join(f"[rank0]: {line}\n" for line in (
        "? password", ": Zq8Das1x", "password: # the db", "  Pa55w0rd-2", "api_tokens: &t", "  - Zq8Das1x",
        "password = <<EOT", "Pa55w0rd-2", "EOT")),
    "(h14b) Redis and Windows logins behind a timestamp": "".join(f"2026-11-24T00:01:02.123456Z {line}\n" for line in (
        "127.0.0.1:6379> AUTH default Zq8Das1x", "NET USE Z: \\\\srv\\share /USER:CORP\\alice Pa55w0rd-2",
        "psexec \\\\srv -u alice -p Zq8Das1x cmd")),
    "(h14b) value-first pairs behind compose bars": "".join(f"app-1  | {line}\n" for line in (
        "env:", "- value: Zq8Das1x", "  name: DB_PASSWORD", "<property>", "  <value>Pa55w0rd-2</value>",
        "  <name>fs.s3a.secret.key</name>", "</property>")),
    "(h14b) forms in JSON records": "".join(json.dumps({"level": "info", "msg": line}) + "\n" for line in (
        "? password", ": Zq8Das1x", "AUTH default Pa55w0rd-2", "set -x DB_PASSWORD Zq8Das1x other")),
    "(h14b) prefixed lines with every mark, no form": "[rank0]: value loss 0.31 # auth ok & <eos> ! ? {} > passw secret\n",
    # secrets given by code and listed in rows (session 17, calls.py): each rule's marks, its value left open
    "(s17) setter calls, value unclosed": 'os.environ.setdefault("HF_TOKEN", "Zq8Das1x ',
    "(s17) setter calls, closed": 'monkeypatch.setenv("HF_TOKEN", "Zq8Das1x")\n',
    "(s17) subscripts, value unclosed": "config['password'] = 'Zq8 ",
    "(s17) arrows and login keys": 'password := "Zq8Das1x" api_key <- "x wandb.login(relogin=True, key="Zq8 ',
    "(s17) auth pairs and ENV lines": "auth=('admin', 'Zq8Das1x') BasicAuth('u', 'x\nENV HF_TOKEN Zq8Das1x\nsetx /M DB_PASSWORD ",
    "(s17) markdown and HTML rows": "- `HF_TOKEN`: Zq8Das1x <td>HF_TOKEN</td><td>Zq8Das1x</td> <td>password</td><td>x ",
    "(s17) spaced labels": "API key: Zq8Das1xPa55w0rdQm7v secret key = abc access token: ",
    "(s17) openssl -text components": "priv:\n    0d:d9:62:5d:f3:5f:e1:39:b3:55:3b:ef:be:d7:e7:\n    9a:9a\npub:\n    04:9f\n",
    "(s17) YAML keys over indented lines": "model:\n  name: llama\ntrainer:\n    lr: 0.1\n",
    # sources taking turns, a block scalar in one of them (session 24's stop note: 0.8-1.4 s/MB, not in this table
    # before session 25): a rank's block between another source's lines, behind compose's bar, and ranks taking turns
    "(s25) a rank's block between ISO-time lines": "[rank0]: password: |\n[rank0]:   Zq8Das1x\n"
                                                   "2026-11-24T00:01:02Z step 1 loss 2.30\n",
    "(s25) ranks' blocks behind compose bars": "api-1  | [rank0]: password: |\napi-1  | [rank0]:   Zq8Das1x\n"
                                               "worker-1  | step 1 loss 2.30\n",
    "(s25) ranks taking turns inside a block": "[rank0]: password: |\n[rank1]:   step 0 loss 2.30\n"
                                               "[rank0]:   Zq8Das1x\n[rank1]: api_tokens: &t\n[rank0]:   - Pa55w0rd-2\n",
    # red team rt9's S1: terminal hyperlinks, one per line (ls --hyperlink=always, gcc's diagnostics, rich)
    "(rt9) OSC 8 hyperlinks": "\x1b]8;;file://node-01/home/alice/run/ckpt_000123.pt\x1b\\ckpt_000123.pt\x1b]8;;\x1b\\\n",
}


def _load(path: str | None):
    """This checkout's redaction, or another checkout's redact.py: one file (before the split into the package
    triage/redaction), or the facade of one whose package lies beside it (its Redactor and StreamRedactor)."""
    if path is None:
        from aiperf_lab.triage import redact
        return redact
    package = Path(path).resolve().parent / "redaction"
    if (package / "__init__.py").is_file():
        return _load_package(package)
    spec = importlib.util.spec_from_file_location("redact_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_package(folder: Path):
    """Another checkout's triage/redaction under a name of its own (its modules import each other relatively), so
    that it and this checkout's run side by side in one process."""
    name = f"redaction_under_test_{len([m for m in sys.modules if m.startswith('redaction_under_test_')])}"
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    module = type(sys)(f"{name}.facade")
    module.Redactor = importlib.import_module(f"{name}.redactor").Redactor
    module.StreamRedactor = importlib.import_module(f"{name}.stream").StreamRedactor
    return module


def _text(case: str | tuple, size: int) -> str:
    if isinstance(case, tuple) and isinstance(case[1], int):
        unit, width = case
        flat = (unit * (size // len(unit) + 1))[:size]
        return "\n".join(flat[at:at + width] for at in range(0, len(flat), width))
    head, unit = ("", case) if isinstance(case, str) else case
    return head + (unit * (size // len(unit) + 1))[:size - len(head)]


# Wall time by default; --cpu: the case process's own CPU time, which a machine shared with other work
# inflates far less (set before the case processes are forked, which inherit it).
CLOCK = time.perf_counter


def _run_case(case: str | tuple, size: int, redact_py: str | None, hosts: bool, stream: bool, queue) -> None:
    redact = _load(redact_py)
    text = _text(case, size)
    # the red team's harness: its secrets, and this machine's environment (user and host names); a second token
    # (hf_QQQ...) for the dump cases, and a host name with a domain for the other-hosts cases
    environ = {**os.environ, "HF_TOKEN": "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12345", "DB_PASSWORD": "S3cr3tP@ssw0rd!xyz",
               "HUGGING_FACE_HUB_TOKEN": "hf_" + "Q" * 34, "DATABASE_URL": "postgres://u:pa55word@db/x",
               "HOSTNAME": "gpunode17.acme-corp.example"}
    redactor = redact.Redactor(environ, redact_hosts=hosts, extra_secrets=["AvoCMF1ZIDKtxODiDeDeFF"])
    start = CLOCK()
    if stream:
        sink = redact.StreamRedactor(redactor)
        out = []
        for at in range(0, len(text), 1 << 16):
            out.append(sink.feed(text[at:at + (1 << 16)]))
        out.append(sink.close())
    else:
        redactor.text(text)
    queue.put(CLOCK() - start)


def _time_case(unit: str | tuple, size: int, redact_py: str | None, hosts: bool, stream: bool, limit_s: float) -> float:
    """Seconds for one case in a fresh process; inf past the limit."""
    queue: multiprocessing.Queue = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_run_case, args=(unit, size, redact_py, hosts, stream, queue))
    proc.start()
    proc.join(limit_s)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return float("inf")
    return queue.get() if not queue.empty() else float("nan")


def _cell(seconds: float, limit_s: float) -> str:
    return f"over {limit_s:g}" if seconds == float("inf") else f"{seconds:.2f}"


def main() -> int:
    global CASES
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=20.0, help="megabytes of text per case (default 20)")
    parser.add_argument("--redact-py", help="a redact.py to load instead of aiperf_lab.triage.redact")
    parser.add_argument("--baseline", help="another redact.py (one file, or a split checkout's facade), timed in turn with this one (text mode)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case and mode; the median is shown")
    parser.add_argument("--redact-hosts", action="store_true")
    parser.add_argument("--limit-s", type=float, default=60.0, help="time limit per case (default 60)")
    parser.add_argument("--no-stream", action="store_true", help="only Redactor.text")
    parser.add_argument("--no-text", action="store_true", help="only the stream (as triage redacts a workload's output)")
    parser.add_argument("--only", help="run only the cases whose name holds this text")
    parser.add_argument("--cpu", action="store_true", help="CPU time of each case's process instead of wall time")
    parser.add_argument("--plain-each", action="store_true",
                        help="time plain text again beside every case (the ratio then uses that time: a load that "
                             "changes during a long run changes both)")
    args = parser.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
    if args.redact_py is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    size = int(args.mb * 1_000_000)
    if args.only:  # (plain text stays: the ratios need it)
        CASES = {name: unit for name, unit in CASES.items() if args.only in name or name == "plain log text"}
    modes = [mode for mode, skip in (("text", args.no_text), ("stream", args.no_stream)) if not skip]
    variants = []
    for mode in modes:
        if args.baseline:
            variants.append((f"baseline {mode}", args.baseline, mode == "stream"))
        variants.append((mode, args.redact_py, mode == "stream"))
    print(f"{args.mb:g} MB per case, redact_hosts={args.redact_hosts}, "
          f"{args.redact_py or 'aiperf_lab.triage.redact'}, median of {args.repeat}"
          + (f", baseline {Path(args.baseline).name}" if args.baseline else ""))
    ratios = [(mode, f"baseline {mode}") for mode in modes] if args.baseline else []
    columns = ([f"{name} (s)" for name, _, _ in variants] + [f"{a} / {b}" for a, b in ratios]
               + [f"{mode} / plain" for mode in modes])
    print(f"| case | {' | '.join(columns)} |")
    print(f"|---|{'---|' * len(columns)}")
    worst = 0.0
    plain: dict[str, float] = {}
    for name, unit in CASES.items():
        runs: dict[str, list[float]] = {variant: [] for variant, _, _ in variants}
        plain_runs: dict[str, list[float]] = {variant: [] for variant, _, _ in variants}
        for _ in range(args.repeat):
            for variant, redact_py, stream in variants:  # in turn, so load changes hit every variant alike
                runs[variant].append(_time_case(unit, size, redact_py, args.redact_hosts, stream, args.limit_s))
                if args.plain_each and plain:
                    plain_runs[variant].append(_time_case(CASES["plain log text"], size, redact_py,
                                                          args.redact_hosts, stream, args.limit_s))
        medians = {variant: statistics.median(values) for variant, values in runs.items()}
        if not plain:
            plain = medians
        elif args.plain_each:
            plain = {variant: statistics.median(values) for variant, values in plain_runs.items()}
        worst = max(worst, *(m for v, m in medians.items() if not v.startswith("baseline")))
        cells = [_cell(medians[variant], args.limit_s) for variant, _, _ in variants]
        cells += [f"{medians[a] / medians[b]:.2f}" for a, b in ratios]
        cells += [f"{medians[mode] / plain[mode]:.1f}" for mode in modes]
        print(f"| {name} | {' | '.join(cells)} |", flush=True)
    print(f"worst (this redact.py): {worst:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
