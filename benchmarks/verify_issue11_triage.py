"""Issue 11 (triage side) on the GPU machine, under the real nsys: planted secrets never reach a
bundle (the .nsys-rep is kept only for a clean environment), and a SIGKILLed triage leaves neither
the workload (nsys and the application it runs) nor any file. See verify_issue11_triage.sh.

    python3 benchmarks/verify_issue11_triage.py OUT_DIR
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

URL_PASSWORD = "pa55word-verify11"
TOKEN = "sk-" + "v" * 40           # OpenAI-shaped, in a variable whose name says nothing of secrets
WORKLOAD = ("import os, sys, time\n"
            "try:\n    import torch\n    x = torch.randn(4096, 4096, device='cuda')\n"
            "except Exception as exc:\n    torch, x = None, None; print('no torch/cuda:', exc)\n"
            "print(os.environ.get('DATABASE_URL'), os.environ.get('MODEL_ENDPOINT_KEYLESS'), flush=True)\n"
            "end = time.time() + float(sys.argv[1])\n"
            "while time.time() < end:\n"
            "    if x is not None:\n        y = x @ x; torch.cuda.synchronize()\n"
            "    else:\n        time.sleep(0.05)\n")
MARKER = "verify11-workload-marker"


def gpu_name() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20).stdout.strip().splitlines()[0]
    except Exception as exc:  # noqa: BLE001
        return f"unknown ({type(exc).__name__})"


def clean_env() -> dict[str, str]:
    keep = {"PATH", "HOME", "LD_LIBRARY_PATH", "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "LANG", "TMPDIR"}
    return {k: v for k, v in os.environ.items() if k in keep or k.startswith(("NSYS", "QT_"))}


def triage(out: Path, env: dict, seconds: float, log) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", str(seconds), "--output", str(out), "--",
            sys.executable, "-c", WORKLOAD, str(seconds + 30), MARKER]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
    log.write(f"$ triage --duration {seconds} -> {done.returncode}\n{done.stderr[-3000:]}\n")
    return done


def members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive, "r:gz") as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def case_clean(work: Path, log) -> dict:
    done = triage(work / "clean", clean_env(), 8, log)
    if done.returncode != 0:
        return {"case": "clean environment", "ok": False, "detail": f"exit {done.returncode}"}
    files = members(Path(done.stdout.strip().splitlines()[-1]))
    kept = "nsys/workload.nsys-rep" in files
    workload = json.loads(files.get("workload/workload.json", b"{}"))
    why = (workload.get("nsys") or {}).get("nsys_rep_left_out", "")
    return {"case": "clean environment: .nsys-rep kept", "ok": kept,
            "detail": "kept" if kept else f"left out: {why[:120]}"}


def case_planted(work: Path, log) -> dict:
    env = dict(clean_env(), DATABASE_URL=f"postgres://user:{URL_PASSWORD}@db.internal/x",
               MODEL_ENDPOINT_KEYLESS=TOKEN)
    done = triage(work / "planted", env, 8, log)
    if done.returncode != 0:
        return {"case": "planted secrets", "ok": False, "detail": f"exit {done.returncode}"}
    files = members(Path(done.stdout.strip().splitlines()[-1]))
    leaked = [name for name, data in files.items() if URL_PASSWORD.encode() in data or TOKEN.encode() in data]
    kept = "nsys/workload.nsys-rep" in files
    has_sqlite = "nsys/workload.sqlite" in files
    return {"case": "URL password and token-shaped value in env: in no byte, .nsys-rep left out",
            "ok": not leaked and not kept,
            "detail": f"leaked in {leaked}" if leaked else f"no leak; .nsys-rep {'KEPT' if kept else 'left out'}; "
                                                         f"sqlite export {'present' if has_sqlite else 'absent'}"}


# Secrets in the forms red team rt6 found leaking (2026-11-23): a path-shaped generated password in a
# secret-named variable, argv pieces (Hydra, a header, a helm list) printed back by the workload, a
# Python bytes value after a secret name and a private key framed by a rich-style panel (neither known
# to triage), and an NVTX range name holding a bytes value (the SQLite export's scrub).
PATH_PASSWORD = "/eIrB8jpQFyiadvr/vI1sSZ6qPIqpzFX"
ARGV_SECRETS = ("HydraPw-v11x9q", "HdrTok-v11-abcdef123456", "HelmPw-v11x7w")
BYTES_SECRET = "BytesPw-v11-9f8e7d"
NVTX_SECRET = "NvtxPw-v11-77aa3c"
KEY_LINES = ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7v11keyline1",
             "Xq2v11keyline2Lr8mT0yWb4nD6sF9uJ1cV3hG5kP7aZ2xE4wR6tY8iO0pQ3lK5j",
             "v11keyline3N8bM2cV4xZ6aS8dF0gH2jK4lQ6wE8rT0yU2iO4pA6sD8fG0hJ2kL")
PRINTS = ("import os, sys, time\n"
          "try:\n    import torch\n    x = torch.randn(2048, 2048, device='cuda')\n"
          "except Exception as exc:\n    torch, x = None, None; print('no torch/cuda:', exc)\n"
          "print('argv', sys.argv[2:], flush=True)\n"
          "print('db', os.environ.get('DB_PASSWORD'), flush=True)\n"
          # (the two values are put together at run time: the -c code itself must not hold them)
          f"print({{'password': {BYTES_SECRET[:8].encode()!r} + {BYTES_SECRET[8:].encode()!r}}}, flush=True)\n"
          "print('\u256d' + '\u2500' * 70 + '\u256e')\n"
          f"body = [a + b for a, b in {[(k[:20], k[20:]) for k in KEY_LINES]!r}]\n"
          "for line in ['-----BEGIN PRIVATE KEY-----'] + body + ['-----END PRIVATE KEY-----']:\n"
          "    print('\u2502 ' + line.ljust(68) + ' \u2502')\n"
          "print('\u2570' + '\u2500' * 70 + '\u256f', flush=True)\n"
          "end = time.time() + float(sys.argv[1])\n"
          "while time.time() < end:\n"
          "    if x is not None:\n"
          f"        torch.cuda.nvtx.range_push(\"password=b'{NVTX_SECRET[:7]}\" + \"{NVTX_SECRET[7:]}'\")\n"
          "        y = x @ x; torch.cuda.synchronize()\n"
          "        torch.cuda.nvtx.range_pop()\n"
          "    else:\n        time.sleep(0.05)\n")


def case_printed_forms(work: Path, log) -> dict:
    env = dict(clean_env(), DB_PASSWORD=PATH_PASSWORD)
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "8", "--output", str(work / "printed"),
            "--", sys.executable, "-c", PRINTS, "30", f"db.password={ARGV_SECRETS[0]}",
            "-H", f"Authorization: Bearer {ARGV_SECRETS[1]}", "--set", f"a.password={ARGV_SECRETS[2]},b.user=y"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
    log.write(f"$ triage (printed forms) -> {done.returncode}\n{done.stderr[-3000:]}\n")
    if done.returncode != 0:
        return {"case": "printed forms (rt6)", "ok": False, "detail": f"exit {done.returncode}"}
    files = members(Path(done.stdout.strip().splitlines()[-1]))
    planted = [PATH_PASSWORD, *ARGV_SECRETS, BYTES_SECRET, NVTX_SECRET, *KEY_LINES]
    leaks = sorted({f"{value[:12]}.. in {name}" for name, data in files.items() for value in planted
                    if value.encode() in data})
    kept = "nsys/workload.nsys-rep" in files
    printed = files.get("workload/stdout.log", b"").count(b"[REDACTED")
    return {"case": f"printed forms (rt6): {len(planted)} values in no byte, .nsys-rep left out",
            "ok": not leaks and not kept,
            "detail": ("; ".join(leaks[:6]) + (f" (+{len(leaks) - 6})" if len(leaks) > 6 else "")) if leaks
            else f"no leak; {printed} placeholders in stdout.log; .nsys-rep {'KEPT' if kept else 'left out'}; "
                 f"sqlite export {'present' if 'nsys/workload.sqlite' in files else 'absent'}"}


def values_at_run_time(planted: dict[str, str]) -> str:
    """A workload program's line that puts each planted value together from two halves when it runs (`v[key]`), so
    the program's own text (on argv with -c, or in its file) never holds a value whole."""
    return "v = {k: a + b for k, (a, b) in " + repr({k: (v[:6], v[6:]) for k, v in planted.items()}) + ".items()}\n"


# Forms session 13 (h13a) fixed: printed `bash -x` lines fed to password-reading commands, SQL/Redis passwords, a
# bytes literal, an OSC hyperlink, CloudFormation parameters (printed by the workload, each value put together at
# run time), and FreeRDP / lftp passwords on the workload's argv (also printed back by it).
S13 = {f"v{k}": f"S13pw{k}-x{k}q{k}Z9" for k in range(1, 11)}
S13_PRINTS = ("import sys, time\n"
              + values_at_run_time(S13) +
              "print('+ chpasswd <<< alice:' + v['v1'])\n"
              "print('[rank0]: + echo ' + v['v2'] + ' | sudo -S apt update')\n"
              "print(\"LOG:  statement: ALTER USER app WITH PASSWORD '\" + v['v3'] + \"';\")\n"
              "print('127.0.0.1:6379> AUTH default ' + v['v4'])\n"
              "print(\"password: Buffer.from('\" + v['v5'] + \"')\")\n"
              "print('password=\\x1b]8;;http://x\\x1b\\\\' + v['v6'] + '\\x1b]8;;\\x1b\\\\')\n"
              "print('{\"ParameterKey\": \"DbPassword\", \"ParameterValue\": \"' + v['v7'] + '\"}')\n"
              "print('+ rsync rsync://alice@h/m --password-file=<(echo ' + v['v8'] + ')')\n"
              "print('argv', sys.argv[2:], flush=True)\n"
              "print('+ ' + ' '.join(sys.argv[2:]), flush=True)\n"
              "time.sleep(float(sys.argv[1]))\n")


def _planted_run(name: str, duration: str, command: list[str], planted: dict[str, str], log,
                 env: dict[str, str] | None = None) -> tuple[dict | None, str]:
    """Triage of a command that prints planted values: the bundle's members (None: triage failed), and the members
    that hold a planted value, in words ("" for none)."""
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", duration, "--output", str(name), "--",
            *command]
    done = subprocess.run(argv, capture_output=True, text=True, env=env or clean_env(), timeout=240)
    log.write(f"$ triage ({Path(name).name}) -> {done.returncode}\n{done.stderr[-3000:]}\n")
    if done.returncode != 0:
        return None, f"exit {done.returncode}"
    files = members(Path(done.stdout.strip().splitlines()[-1]))
    leaks = sorted({f"{key} in {member}" for member, data in files.items() for key, value in planted.items()
                    if value.encode() in data})
    return files, "; ".join(leaks[:6]) + (f" (+{len(leaks) - 6})" if len(leaks) > 6 else "")


def case_session13(work: Path, log) -> dict:
    files, leaks = _planted_run(str(work / "session13"), "4", [
        sys.executable, "-c", S13_PRINTS, "6", "lftp", "-u", f"alice,{S13['v9']}", "xfreerdp", "/v:srv", "/u:alice",
        f"/p:{S13['v10']}"], S13, log)
    if files is None:
        return {"case": "session 13 forms", "ok": False, "detail": leaks}
    printed = files.get("workload/stdout.log", b"").count(b"[REDACTED")
    return {"case": f"session 13 forms (h13a): {len(S13)} values in no byte", "ok": not leaks and printed >= 8,
            "detail": leaks or f"no leak; {printed} placeholders in stdout.log"}

S14 = {f"w{k}": f"S14pw{k}-y{k}r{k}Q7" for k in range(1, 9)}
S14["w1"] = "ghp_" + "S14x" * 9   # a GitHub token's shape: the one link whose path holds a secret
# This session's forms (rt9): 30,000 terminal hyperlinks with a secret in one link's path (S1: every line must be
# kept, no "left out" note), a coloured heredoc printed a line at a time (C2: the stream holds it over its idle
# flushes), forms behind a log prefix and in a JSON record (R1, R2), an aligned flag and Rust's Some("X") (h14a).
S14_PRINTS = ("import sys, time\n"
              + values_at_run_time(S14) +
              "for i in range(30000):\n"
              "    path = f'ckpt_{i:05d}.pt' if i != 12345 else v['w1'] + '/x'\n"
              "    print(f'\\x1b]8;;file://node-01/home/alice/run/{path}\\x1b\\\\{i}\\x1b]8;;\\x1b\\\\')\n"
              "print('last link line', flush=True)\n"
              "for line in ['password = <<EOT', v['w2'], 'EOT']:\n"
              "    print('\\x1b[32m' + line + '\\x1b[0m', flush=True); time.sleep(0.3)\n"
              "print('[rank0]: password = <<EOT'); print('[rank0]: ' + v['w3']); print('[rank0]: EOT')\n"
              "print('{\"level\": \"info\", \"msg\": \"ALTER USER app WITH PASSWORD \\'' + v['w4'] + '\\';\"}')\n"
              "print('  --password       ' + v['w5'])\n"
              "print('Args { api_key: Some(\"' + v['w6'] + '\"), hf_token: Some(\"' + v['w7'] + '\") }')\n"
              "print('2026-11-24T01:02:03Z 127.0.0.1:6379> AUTH default ' + v['w8'], flush=True)\n"
              "time.sleep(float(sys.argv[1]))\n")


def case_session14(work: Path, log) -> dict:
    files, leaks = _planted_run(str(work / "session14"), "8", [sys.executable, "-c", S14_PRINTS, "3"], S14, log)
    if files is None:
        return {"case": "session 14 forms", "ok": False, "detail": leaks}
    stdout = files.get("workload/stdout.log", b"")
    links = stdout.count(b"\x1b]8;;file://node-01/home/alice/run/")
    whole = links == 30000 and b"last link line" in stdout and b"bytes left out" not in stdout
    return {"case": f"session 14 forms (rt9): {len(S14)} values in no byte, 30,000 hyperlink lines kept",
            "ok": not leaks and whole,
            "detail": (leaks or "no leak") + f"; {links} of 30000 link lines kept" + ("" if whole else " (NOT whole)")}


S17 = {f"x{k}": f"S17pw{k}-z{k}m{k}K4" for k in range(1, 13)}
# Session 17's forms (red team h17r, lanes h17l and the integrator): code giving a secret by name (a traceback's source
# line, a setter call, Go's :=), a Dockerfile's ENV line, an HTML row, a private key's component as `openssl -text`
# prints it (hex lines under `priv:`), 1Password's comma list of --fields, gopass without -o, SQLAlchemy's
# executemany tuples, an OAuth callback's code, and an Authorization header of GitHub's `token` scheme on the argv.
S17_PRINTS = ("import sys, time\n"
              + values_at_run_time(S17) +
              "print('  File \"train.py\", line 4, in <module>')\n"
              "print('    os.environ[\"HF_TOKEN\"] = \"' + v['x1'] + '\"')\n"
              "print('monkeypatch.setenv(\"OPENAI_API_KEY\", \"' + v['x2'] + '\")')\n"
              "print('[rank0]: password := \"' + v['x3'] + '\"')\n"
              "print('Step 5/12 : ENV HF_TOKEN ' + v['x4'])\n"
              "print('<td>DB_PASSWORD</td><td>' + v['x5'] + '</td>')\n"
              "print('priv:'); print('    ' + ':'.join(f'{b:02x}' for b in v['x6'].encode()[:15]) + ':'); print('pub:')\n"
              "print('$ op item get db --fields username,password --reveal'); print('alice,' + v['x7'])\n"
              "print('$ gopass show db/prod'); print(v['x8'])\n"
              "print('INSERT INTO users (name, password) VALUES (?, ?)')\n"
              "print(\"[generated in 0.0001s] [('alice', '\" + v['x9'] + \"'), ('bob', '\" + v['x10'] + \"')]\")\n"
              "print('GET /callback?code=' + v['x11'] + 'Qm7x9&state=xyz HTTP/1.1', flush=True)\n"
              "time.sleep(float(sys.argv[1]))\n")


def case_session17(work: Path, log) -> dict:
    planted = dict(S17)
    planted["x6"] = ":".join(f"{b:02x}" for b in S17["x6"].encode()[:15])   # (what the bundle would hold: its hex)
    files, leaks = _planted_run(str(work / "session17"), "4", [
        sys.executable, "-c", S17_PRINTS, "3", "-H", f"Authorization: token {S17['x12']}"], planted, log)
    if files is None:
        return {"case": "session 17 forms", "ok": False, "detail": leaks}
    printed = files.get("workload/stdout.log", b"").count(b"[REDACTED")
    return {"case": f"session 17 forms (h17r, h17l): {len(S17)} values in no byte", "ok": not leaks and printed >= 10,
            "detail": leaks or f"no leak; {printed} placeholders in stdout.log"}


S18 = {f"x{k}": f"S18q{k}Zx8vN2mK5pL9xR4t{k}" for k in range(1, 7)}
# Session 18's forms (lanes h18l and h18r, the integrator): a secret in a table row behind a log prefix, a generated
# value in angle brackets, bash -x's two-line trace of a pipe behind a time and a level, a .netrc block behind srun
# --label's `0: `, kaggle.json's key, a token file's cat behind a Ray worker's prefix; and 2,000 secret-named
# variables in the environment (known secrets at scale: none of their values in the bundle).
S18_PRINTS = ("import sys, time\n"
              + values_at_run_time(S18) +
              "print('[rank0]: | token | ' + v['x1'] + ' |')\n"
              "print('Password: <' + v['x2'] + '>')\n"
              "print('2026-11-24 03:00:01 INFO + echo ' + v['x3']); print('2026-11-24 03:00:01 INFO + sudo -S true')\n"
              "print('0: machine api.example.com'); print('0:   login bob'); print('0:   password ' + v['x4'])\n"
              "print('{\"username\":\"alice\",\"key\":\"' + v['x5'] + '\"}')\n"
              "ray = '(RayTrainWorker pid=1234, ip=10.0.0.1) '\n"
              "print(ray + '$ cat ~/.cache/huggingface/token'); print(ray + v['x6'], flush=True)\n"
              "time.sleep(float(sys.argv[1]))\n")
MANY_SECRETS = 2000


def case_session18(work: Path, log) -> dict:
    import random
    pick = random.Random(18)
    many = {f"SECRET_{k:04d}": "".join(pick.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
                                       for _ in range(24)) for k in range(MANY_SECRETS)}
    planted = {**S18, **{name: value for name, value in many.items()}}
    started = time.monotonic()
    files, leaks = _planted_run(str(work / "session18"), "4", [sys.executable, "-c", S18_PRINTS, "3"], planted, log,
                                env={**clean_env(), **many})
    took = time.monotonic() - started
    if files is None:
        return {"case": "session 18 forms", "ok": False, "detail": leaks}
    printed = files.get("workload/stdout.log", b"").count(b"[REDACTED")
    return {"case": f"session 18 forms (h18l, h18r) and {MANY_SECRETS} known secrets: {len(planted)} values in no byte",
            "ok": not leaks and printed >= 6, "detail": leaks or f"no leak; {printed} placeholders in stdout.log; "
            f"triage of a 4 s duration took {took:.1f} s"}


S19 = {f"x{k}": f"S19q{k}Zx8vN2mK5pL9xR4t{k}" for k in range(1, 9)}
S19_PASSPHRASE = "S19correct horse S19battery staple"
# Session 19's forms (lanes h19l and h19m): a secret word with a number stuck to it, printenv's value on the next line,
# git config's smtppass, a login in words, an htpasswd hash, a .netrc block behind kubectl logs --prefix's `pod/x `,
# a value in braces after a secret's label; a passphrase known from the environment printed in halves over two lines;
# and 100 JWT-shaped secrets in the environment (they share their first 36 characters) while the workload prints
# 20,000 other JWTs (known secrets sharing a head: the cost must not grow with their number).
S19_PRINTS = ("import sys, time, random, string\n"
              + values_at_run_time(S19) +
              "print('DB_PASSWORD2=' + v['x1'])\n"
              "print('$ printenv DB_PASSWORD'); print(v['x2'])\n"
              "print('sendemail.smtppass=' + v['x3'])\n"
              "print('Using credentials: bob / ' + v['x4'])\n"
              "print('bob:$apr1$abc12345$' + v['x5'])\n"
              "pod = 'pod/trainer-0 '\n"
              "print(pod + 'machine api.example.com'); print(pod + '  login bob'); print(pod + '  password ' + v['x6'])\n"
              "print('token: {' + v['x7'] + '}')\n"
              "print('[rank0]: api_key2 = \"' + v['x8'] + '\"')\n"
              "half = " + repr(S19_PASSPHRASE.split(" S19battery")[0]) + "\n"
              "print('key: ' + half + ' '); print('S19battery staple')\n"
              "pick = random.Random(19)\n"
              # (the JWT header is made here, not written in the script: argv redaction takes a token-shaped literal
              # on the argv for a known secret, and one that heads every printed line is another case)
              "import base64\nJWT_HEAD = base64.urlsafe_b64encode(b'{\"alg\":\"HS256\",\"typ\":\"JWT\"}').decode().rstrip('=')\n"
              "alnum = string.ascii_letters + string.digits\n"
              "for i in range(20000):\n"
              "    body = ''.join(pick.choice(alnum) for _ in range(40))\n"
              "    sig = ''.join(pick.choice(alnum) for _ in range(43))\n"
              "    print(f'2026-11-24 12:00:{i % 60:02d} INFO request ok auth={JWT_HEAD}.{body}.{sig} latency=12ms')\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n")
KNOWN_JWTS = 100


def case_session19(work: Path, log) -> dict:
    import random
    pick = random.Random(1919)
    alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    jwts = {f"SVC{k:03d}_TOKEN": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "".join(pick.choice(alnum) for _ in range(40))
            + "." + "".join(pick.choice(alnum) for _ in range(43)) for k in range(KNOWN_JWTS)}
    planted = {**S19, "passphrase half": "S19battery staple", **jwts}
    started = time.monotonic()
    files, leaks = _planted_run(str(work / "session19"), "4", [sys.executable, "-c", S19_PRINTS, "3"], planted, log,
                                env={**clean_env(), **jwts, "SSH_PASSPHRASE": S19_PASSPHRASE})
    took = time.monotonic() - started
    if files is None:
        return {"case": "session 19 forms", "ok": False, "detail": leaks}
    stdout = files.get("workload/stdout.log", b"")
    printed, requests = stdout.count(b"[REDACTED"), stdout.count(b"INFO request ok auth=")
    return {"case": f"session 19 forms (h19l, h19m), a known passphrase in halves, {KNOWN_JWTS} known JWTs: "
                    f"{len(planted)} values in no byte", "ok": not leaks and printed >= 9 and requests == 20000,
            "detail": leaks or f"no leak; {printed} placeholders, {requests} of 20000 JWT lines in stdout.log; "
            f"triage of a 4 s duration took {took:.1f} s"}


S21 = {f"x{k}": f"S21q{k}Zx8vN2mK5pL9xR4t{k}" for k in range(1, 13)}
S21_KNOWN = "Zr8!kP2$qW9#mX4&nL7"   # (a known secret with characters that URL and HTML encoders change)
# Sessions 20 and 21's forms (lanes h20l, h20k, h21a, h21b, h21c and the integrator's): a markdown table with a
# password column, commands given a password positionally (rabbitmqctl behind set -x, htpasswd, SSHPASS= before
# sshpass), Elasticsearch's http_auth tuple, a secret-named HTTP header, Hadoop's dotted account key, Jenkins'
# first-start password alone on its line, a token in a sentence, fish's set -gx inside a JSON record, a token file's
# cat in kubectl logs of two pods interleaved; and a known secret printed URL-encoded twice and as HTML entities.
S21_PRINTS = ("import sys, time, json, html, urllib.parse\n"
              + values_at_run_time(S21) +
              "print('| user | password |'); print('|---|---|'); print('| alice | ' + v['x1'] + ' |')\n"
              "print('+ rabbitmqctl add_user bob ' + v['x2'])\n"
              "print('htpasswd -b -c /etc/nginx/.htpasswd admin ' + v['x3'])\n"
              "print('SSHPASS=' + v['x4'] + ' sshpass -e ssh node1')\n"
              "print(\"es = Elasticsearch(hosts, http_auth=('elastic', '\" + v['x5'] + \"'))\")\n"
              "print('Ocp-Apim-Subscription-Key: ' + v['x6'])\n"
              "print('fs.azure.account.key.acct.blob.core.windows.net=' + v['x7'])\n"
              "print('Please use the following password to proceed to installation:'); print(); print(v['x8']); print()\n"
              "print('This may also be found at: /var/jenkins_home/secrets/initialAdminPassword')\n"
              "print('INFO auth: Using token ' + v['x9'] + ' for authentication')\n"
              "print(json.dumps({'level': 'info', 'msg': 'set -gx GITHUB_TOKEN ' + v['x10']}))\n"
              "print('pod/a-0 $ cat ~/.cache/huggingface/token'); print('pod/b-0 step 1 loss 2.31')\n"
              "print('pod/a-0 ' + v['x11'] + v['x12']); print('pod/b-0 step 2 loss 2.30')\n"
              "import os; known = os.environ['APP_DB_PASSWORD']\n"
              "print('url=' + urllib.parse.quote(urllib.parse.quote(known, safe=''), safe=''))\n"
              "print('<td>' + ''.join(f'&#{ord(c)};' if not c.isalnum() else c for c in known) + '</td>')\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n")


def case_session21(work: Path, log) -> dict:
    import html
    import urllib.parse
    known_forms = {"known": S21_KNOWN,
                   "known URL-encoded twice": urllib.parse.quote(urllib.parse.quote(S21_KNOWN, safe=""), safe=""),
                   "known as HTML entities": "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in S21_KNOWN),
                   "known HTML-escaped": html.escape(S21_KNOWN)}
    planted = {**S21, **known_forms}
    started = time.monotonic()
    files, leaks = _planted_run(str(work / "session21"), "4", [sys.executable, "-c", S21_PRINTS, "3"], planted, log,
                                env={**clean_env(), "APP_DB_PASSWORD": S21_KNOWN})   # (known from the environment)
    took = time.monotonic() - started
    if files is None:
        return {"case": "session 20-21 forms", "ok": False, "detail": leaks}
    stdout = files.get("workload/stdout.log", b"")
    printed = stdout.count(b"[REDACTED")
    kept = all(word in stdout for word in (b"rabbitmqctl add_user bob", b"step 2 loss 2.30", b"sshpass -e ssh node1"))
    return {"case": f"session 20-21 forms (h20l, h20k, h21a, h21b, h21c): {len(planted)} values and forms in no byte",
            "ok": not leaks and printed >= 13 and kept,
            "detail": leaks or f"no leak; {printed} placeholders in stdout.log; words around them kept: {kept}; "
            f"triage of a 4 s duration took {took:.1f} s"}


S22 = {f"x{k}": f"S22q{k}Zx8vN2mK5pL9xR4t{k}" for k in range(1, 10)}
# Session 22's forms (lanes h22a, h22b): a token announced with its value on the next line behind [rank0], a first
# start's "Admin password" with no colon and the value after a blank line, a listing whose secret column is TOKEN, a
# token in a sentence with two blanks around it, echoes grouped and piped to smbpasswd, expect's send after a
# password prompt, vault's unseal key, nomad's secret id, a YAML block among two ranks interleaved; and what must
# stay: requests' auth=(user, password) (names, not values), a WebSocket nonce, the other rank's lines.
S22_PRINTS = ("import sys, time\n"
              + values_at_run_time(S22) +
              "print('[rank0]: Your API token is:'); print('[rank0]: ' + v['x1'])\n"
              "print('Admin password'); print(); print(v['x2']); print()\n"
              "print('NAME     TOKEN'); print('alice    ' + v['x3'])\n"
              "print('INFO Using token  ' + v['x4'] + '  for auth')\n"
              "print('+ (echo ' + v['x5'] + '; echo ' + v['x5'] + ') | smbpasswd -s -a bob')\n"
              "print('expect \"Password:\"'); print('send \"' + v['x6'] + '\\\\r\"')\n"
              "print('Unseal Key 1: ' + v['x7'])\n"
              "print('Secret ID        = ' + v['x8'])\n"
              "print('requests.get(url, auth=(user, password))')\n"
              "print('Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==')\n"
              "print('[rank0]: password: |'); print('[rank1]: step 0 loss 2.30')\n"
              "print('[rank0]:   ' + v['x9']); print('[rank1]: step 1 loss 2.29')\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n")
S22_KEPT = (b"requests.get(url, auth=(user, password))", b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            b"[rank1]: step 0 loss 2.30", b"[rank1]: step 1 loss 2.29", b"smbpasswd -s -a bob", b"Admin password")


def _forms_case(work: Path, log, session: str, planted: dict[str, str], program: str, kept: tuple[bytes, ...],
                least: int, from_file: bool, lanes: str = "ab") -> dict:
    """Triage of a program that prints planted values (none may reach a byte of the bundle) and lines that must stay
    whole in stdout.log; `from_file`: the program runs from a file, else it is given with -c (its text on argv)."""
    if from_file:
        (path := work / f"{session}_prints.py").write_text(program)
        command = [sys.executable, str(path), "3"]
    else:
        command = [sys.executable, "-c", program, "3"]
    started = time.monotonic()
    files, leaks = _planted_run(str(work / session), "4", command, planted, log)
    took = time.monotonic() - started
    label = f"{session.replace('session', 'session ')} forms"
    if files is None:
        return {"case": label, "ok": False, "detail": leaks}
    stdout = files.get("workload/stdout.log", b"")
    printed = stdout.count(b"[REDACTED")
    lost = [word.decode() for word in kept if word not in stdout]
    return {"case": f"{label} ({', '.join(f'h{session[-2:]}{lane}' for lane in lanes)}): {len(planted)} values in no byte, {len(kept)} lines kept",
            "ok": not leaks and printed >= least and not lost,
            "detail": leaks or f"no leak; {printed} placeholders in stdout.log; lines lost: {lost or 'none'}; "
            f"triage of a 4 s duration took {took:.1f} s"}


def case_session22(work: Path, log) -> dict:
    # From a file: given with -c, the program's own text was on the workload's argv, whose secret-named pieces
    # (`auth=(user,`) were then known values hidden wherever they were printed (session 23 reads such a program as code).
    return _forms_case(work, log, "session22", S22, S22_PRINTS, S22_KEPT, 9, from_file=True)


S23 = {f"x{k}": f"S23q{k}Zx8vN2mK5pL9xR4t{k}" for k in range(1, 9)}
# Session 23's forms (lanes h23a, h23b): tools given a secret on their command line (grafana-cli, conda, oc, twine), an
# echo substitution, a login call in code, `password:` then a blank line then the value behind compose's prefix, ngc's
# apikey row behind an ISO time; and what must stay: a prompt's outcome, a placeholder after Bearer, a tokenizer's
# table, a variable's reference after a password flag, a secret store's name, and (the program is given with -c) the
# program's own `auth=(user, password)` piece, which the argv rule no longer takes for a value.
S23_PRINTS = ("import sys, time\n"
              + values_at_run_time(S23) +
              "print('+ grafana-cli admin reset-admin-password ' + v['x1'])\n"
              "print('[rank0]: conda token set ' + v['x2'])\n"
              "print('2026-11-25T01:02:03.456Z oc login -u admin -p ' + v['x3'] + ' https://api.example:6443')\n"
              "print('twine upload -u __token__ -p ' + v['x4'] + ' dist/*')\n"
              "print('PW=$(echo ' + v['x5'] + ')')\n"
              "print('    server.login(username, \"' + v['x6'] + '\")')\n"
              "print('api-1  | password:'); print('api-1  | '); print('api-1  | ' + v['x7'])\n"
              "print('2026-11-25T01:02:03.456Z | apikey | ' + v['x8'] + ' |')\n"
              "print('Password:'); print('Login incorrect')\n"
              "print('Authorization: Bearer <your-api-key>')\n"
              "print('| id | token |'); print('| 6 | world2 |')\n"
              "print('docker login -p $REGISTRY_PASSWORD registry.example')\n"
              "print('SECRET_BACKEND=vault')\n"
              "print('step 0 loss 2.30 auth=(user, password)')\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))  # auth=(user, password)\n")
S23_KEPT = (b"Login incorrect", b"Bearer <your-api-key>", b"| 6 | world2 |", b"docker login -p $REGISTRY_PASSWORD",
            b"SECRET_BACKEND=vault", b"step 0 loss 2.30 auth=(user, password)")


def case_session23(work: Path, log) -> dict:
    # The program is given with -c: its text is on the workload's argv (h23b reads an interpreter's -c program as code).
    return _forms_case(work, log, "session23", S23, S23_PRINTS, S23_KEPT, 8, from_file=False)


S24 = {f"y{k}": f"S24q{k}Zx8vN2mK5pL9xR4t{k}" for k in range(1, 7)} | {"y7": "5d2e0b7d1f9f4c3a8e6b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e"}
# Session 24's forms (lanes h24a, h24b): a listing's TOKEN column and vault's Key/Value table inside JSON log records,
# Perl setting a password variable, a cloud CLI's access token on the line after its command, a JWT query value
# that is no JWT, an askpass script's echo, botocore's signature on the line after `Signature:`; and what must stay:
# another rank's step line between a YAML block's lines, a tokenizer's one-key record, Perl's `my $password = shift;`,
# a message that names a decoded token.
S24_PRINTS = ("import json, sys, time\n"
              + values_at_run_time(S24) +
              "record = lambda line: print(json.dumps({'level': 'info', 'message': line}))\n"
              "record('NAME     TOKEN'); record('alice    ' + v['y1'])\n"
              "record('Key         Value'); record('---         -----'); record('api_key     ' + v['y2'])\n"
              "print('+ perl -e \"$ENV{PGPASSWORD}=\\'' + v['y3'] + '\\'; system(\\'psql -h db\\')\"')\n"
              "print('+ gcloud auth print-access-token'); print(v['y4'])\n"
              "print('GET /ws?jwt=' + v['y5'] + ' HTTP/1.1')\n"
              "print('#!/bin/sh'); print('echo ' + v['y6'])\n"
              "print('DEBUG:botocore.auth:Signature:'); print(v['y7'])\n"
              "print('[rank0]: password: |'); print('[rank1]:   step 0 loss 2.30'); print('[rank0]:   ' + v['y1'])\n"
              "print(json.dumps({'token': 'world2'}))\n"
              "print(\"+ perl -e 'my $password = shift; print length $password' x\")\n"
              "print(json.dumps({'level': 'debug', 'message': 'decoded token: hello'}))\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n")
S24_KEPT = (b"[rank1]:   step 0 loss 2.30", b'{"token": "world2"}', b"my $password = shift;", b"decoded token: hello")


def case_session24(work: Path, log) -> dict:
    return _forms_case(work, log, "session24", S24, S24_PRINTS, S24_KEPT, 8, from_file=True)


S25 = {"z1": "S25q1Zx8vN2mK5pL9xR4t1", "z2": "q7Rt2mKx9L4pN8vB", "z3": "S25q3Zx8vN2mK5pL9xR4t3",
       "z4": "B-E5KSRM", "z5": "S25q5Zx8vN2mK5pL9xR4t5"}
# Session 25's forms (lanes h25a, h25b): Slurm's JWT variable holding no JWT, a service's key name with a 16-character
# value, Python printing a secret-named variable (the value on the next line), TorchServe's key_file.json, a Triton
# config's secret-named parameter; and what must stay: a header's name looked up under a secret's name, botocore's
# logger name before its canonical request, another rank's line under a rank's block behind compose's bar, a
# tokenizer's byte-level piece under `token`.
S25_PRINTS = ("import json, sys, time\n"
              + values_at_run_time(S25) +
              "print('SLURM_JWT=' + v['z1'])\n"
              "print('openai_key: ' + v['z2'])\n"
              "print('>>> print(os.environ[\"DB_PASSWORD\"])'); print(v['z3'])\n"
              "print(json.dumps({'management': {'key': v['z4'], 'expiration time': '2026-11-25T10:00:00Z'}}))\n"
              "print('parameters { key: \"api_key\" value: { string_value: \"' + v['z5'] + '\" } }')\n"
              "print('    secret_key = request.headers.get(\"X-Api-Key\")')\n"
              "print('DEBUG:botocore.auth:CanonicalRequest:'); print('GET'); print('/my-bucket/shards/train-00001.tar')\n"
              "print('api-1  | [rank0]: password: |'); print('api-1  | [rank1]:   step 0 loss 2.30')\n"
              "print('api-1  | [rank0]:   ' + v['z1'])\n"
              "print(json.dumps({'token': '\\u0120the'}))\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n")
S25_KEPT = (b'secret_key = request.headers.get("X-Api-Key")', b"DEBUG:botocore.auth:CanonicalRequest:",
            b"api-1  | [rank1]:   step 0 loss 2.30", b'{"token": "\\u0120the"}')


def case_session25(work: Path, log) -> dict:
    return _forms_case(work, log, "session25", S25, S25_PRINTS, S25_KEPT, 5, from_file=True)



S26 = {"y1": "hunter22xS26q1Zx8", "y2": "3f2a9c0e1b7d4a6f8e2c5b9a0d3f6e1c4b7a9d2e5f8c1b4a7d0e3f6c9b2a5d26",
       "y3": "ak-2fPXyE2kShNW8RBPaLam26", "y4": "vck_Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJkLmNoPqRsTuVwXyZ26",
       "y5": "partoneS26q5Zx8", "y6": "parttwoZq8Wm3S26", "y7": "hunter22S26q7", "y8": "Zq8Wm3Kx7Lp2Rv9TaBcDeFgHiJkLmNoPqRs2026",
       "y9": "Zq8Das1xS26q9"}
# Session 26's forms (lane h26a): a shell default under a secret's name, any signer's logger line before its
# signature, Modal's and Vercel's prefixed keys, a multi-line env value's second line, a bar table's token column behind
# an ISO time, Cohere's client given its key; and what must stay: a `:?` expansion's message in a bash -x trace,
# LiteLLM's os.environ/ reference, a default that is a path, a tokenizer's table under `token`. Lane h26f's form is
# printed a line at a time with pauses, so triage's stream is flushed between its lines (the pipe goes quiet): a
# Kubernetes env item with its value first, behind a rank's prefix and compose's bar.
S26_PRINTS = ("import sys, time\n"
              + values_at_run_time(S26) +
              "print('DB_PASSWORD=${DB_PASSWORD:-' + v['y1'] + '}')\n"
              "print('DEBUG:app.auth:Signature:'); print(v['y2'])\n"
              "print('modal token set --token-id ' + v['y3'] + ' --profile prod')\n"
              "print('deploying with ' + v['y4'] + ' now')\n"
              "print('CUDA_VISIBLE_DEVICES=0,1'); print('WANDB_API_KEY=' + v['y5']); print(v['y6']); print('WORLD_SIZE=2')\n"
              "for line in ['| user | token |', '|------|-------|', '| alice | ' + v['y7'] + ' |']:\n"
              "    print('2026-11-25T12:00:00.000Z ' + line)\n"
              "print('co = cohere.Client(\"' + v['y8'] + '\")')\n"
              "print('+ export WANDB_API_KEY=${WANDB_API_KEY:?set WANDB_API_KEY}')\n"
              "print('  master_key: os.environ/LITELLM_MASTER_KEY')\n"
              "print('HOME_DIR=${HOME:-/root}')\n"
              "print('| token | id |'); print('|---|---|'); print('| hello | 15339 |')\n"
              "for line in ['env:', '- value: ' + v['y9'], '  name: DB_PASSWORD']:\n"
              "    print('[rank1]: app-1  | ' + line, flush=True); time.sleep(0.5)\n"
              "sys.stdout.flush(); time.sleep(float(sys.argv[1]))\n")
S26_KEPT = (b"+ export WANDB_API_KEY=${WANDB_API_KEY:?set WANDB_API_KEY}", b"master_key: os.environ/LITELLM_MASTER_KEY",
            b"HOME_DIR=${HOME:-/root}", b"| hello | 15339 |")


def case_session26(work: Path, log) -> dict:
    return _forms_case(work, log, "session26", S26, S26_PRINTS, S26_KEPT, 9, from_file=True, lanes="af")

def _workload_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if MARKER.encode() in (entry / "cmdline").read_bytes():
                    state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
                    if state != "Z":
                        pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def case_sigkill(work: Path, log) -> dict:
    out = work / "killed"
    env = dict(clean_env(), HF_TOKEN="hf_" + "K" * 34)
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "60", "--output", str(out), "--",
            sys.executable, "-c", WORKLOAD, "90", MARKER]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not seen:
        seen = bool(_workload_pids())
        time.sleep(0.5)
    time.sleep(6)  # nsys collecting
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and (_workload_pids() or (out.exists() and any(out.iterdir()))):
        time.sleep(0.5)
    alive = _workload_pids()
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    for pid in alive:  # leave the machine clean whatever happened
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    log.write(f"sigkill: workload seen {seen}, alive after {alive}, left {left}\n")
    return {"case": "SIGKILL of triage during an nsys capture: workload gone, folder empty",
            "ok": seen and not alive and not left,
            "detail": f"workload seen: {seen}; still alive: {alive or 'none'}; files left: {left or 'none'}"}


ESCAPED_MARKER = "verify11-escaped-child"


def _escaped_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if ESCAPED_MARKER.encode() in (entry / "cmdline").read_bytes():
                    if (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z":
                        pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def case_setsid_child_under_nsys(work: Path, log) -> dict:
    """The application under nsys starts a child in a session of its own (setsid) and ends: the child is
    ended with the workload, the trace is still written, triage ends near the application's end."""
    escape = ("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', "
              f"{ESCAPED_MARKER!r}], start_new_session=True, stdout=subprocess.DEVNULL)\n")
    workload = WORKLOAD.replace("import os, sys, time\n", "import os, sys, time\n" + escape)
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "20", "--output", str(work / "setsid"),
            "--", sys.executable, "-c", workload, "4", MARKER]
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=clean_env(), timeout=240)
    seconds = time.monotonic() - started
    log.write(f"$ triage -- workload that leaves a setsid child -> {done.returncode} in {seconds:.1f} s\n"
              f"{done.stderr[-3000:]}\n")
    alive = _escaped_pids()
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    if done.returncode != 0:
        return {"case": "a setsid child of the application under nsys ends with it", "ok": False,
                "detail": f"exit {done.returncode}; still alive: {alive or 'none'}"}
    files = members(Path(done.stdout.strip().splitlines()[-1]))
    info = json.loads(files["workload/workload.json"])
    traced = "nsys/workload.sqlite" in files
    ok = not alive and traced and info.get("leftovers_ended", 0) >= 1 and seconds < 20 + 30
    return {"case": "a setsid child of the application under nsys ends with it; the trace is written",
            "ok": ok, "detail": f"still alive: {alive or 'none'}; leftovers_ended {info.get('leftovers_ended')}; "
                                f"subreaper: {info.get('subreaper')}; export in bundle: {traced}; "
                                f"triage took {seconds:.1f} s for a 4 s application"}


def case_full_disk_under_nsys(work: Path, log) -> dict:
    """A 2 MiB tmpfs as --output (root only): the trace and log do not fit; the run ends with an archive
    that says what was cut, or exit 2 with one line, and nothing half-written either way."""
    name = "full disk under nsys: archive with the cuts said, or exit 2 and one line; nothing half-written"
    mount = work / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        return {"case": name, "ok": True, "detail": "skipped: not root (no tmpfs)"}
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        return {"case": name, "ok": True, "detail": f"skipped: cannot mount a tmpfs ({mounted.stderr.strip()})"}
    try:
        out = mount / "out"
        noisy = WORKLOAD.replace("print(os.environ", "print(os.urandom(3000000).hex(), flush=True)\nprint(os.environ")
        argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "8", "--output", str(out), "--",
                sys.executable, "-c", noisy, "4", MARKER]
        done = subprocess.run(argv, capture_output=True, text=True, env=clean_env(), timeout=240)
        log.write(f"$ triage on a 2 MiB tmpfs -> {done.returncode}\n{done.stderr[-3000:]}\n")
        left = sorted(p.name for p in out.iterdir()) if out.exists() else []
        if done.returncode == 0:
            files = members(out / left[0]) if len(left) == 1 else {}
            manifest = json.loads(files.get("manifest.json", b"{}"))
            info = json.loads(files.get("workload/workload.json", b"{}"))
            ok = len(left) == 1 and "telemetry.csv" in files and "findings.json" in files
            detail = (f"archive {left}; cut_by_full_disk {manifest.get('cut_by_full_disk')}; "
                      f"nsys {json.dumps(info.get('nsys'))[:200]}; logs {json.dumps(info.get('logs'))[:300]}")
        else:
            ok = done.returncode == 2 and done.stderr.count("\n") == 1 and left == []
            detail = f"exit {done.returncode}: {done.stderr.strip()[-200:]}; left {left or 'nothing'}"
        return {"case": name, "ok": ok, "detail": detail}
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def case_nccl_payloads(work: Path, log) -> dict:
    """A one-rank NCCL job under triage: the bundle's export keeps NCCL's NVTX payloads (message sizes),
    which nsys exports only with --include-blobs=true."""
    torchrun = shutil.which("torchrun")
    if torchrun is None:
        return {"case": "NCCL payloads in the bundle's export", "ok": False, "detail": "torchrun not found"}
    env = dict(clean_env(), NCCL_NVLS_ENABLE="0")
    argv = [sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "40", "--output", str(work / "nccl"), "--",
            torchrun, "--nproc_per_node", "1", str(Path(__file__).resolve().parent / "nccl_allreduce.py"), "--steps", "6"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
    log.write(f"$ triage -- torchrun nccl_allreduce.py -> {done.returncode}\n{done.stderr[-3000:]}\n")
    if done.returncode != 0:
        return {"case": "NCCL payloads in the bundle's export", "ok": False, "detail": f"exit {done.returncode}"}
    files = members(Path(done.stdout.strip().splitlines()[-1]))
    export = files.get("nsys/workload.sqlite")
    if export is None:
        return {"case": "NCCL payloads in the bundle's export", "ok": False, "detail": "no nsys/workload.sqlite"}
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as copy:
        copy.write(export)
        copy.flush()
        import sqlite3
        con = sqlite3.connect(copy.name)
        ranges, blobs = con.execute(
            "SELECT count(*), count(n.binaryData) FROM NVTX_EVENTS AS n JOIN StringIds AS s ON s.id = n.textId "
            "WHERE s.value LIKE 'nccl%'").fetchone()
        con.close()
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from aiperf_lab.metrics.nsys.db import NsysDatabase
        from aiperf_lab.metrics.nsys.ranks import NcclCalls, split_ranks
        sizes = sorted({size for rank in split_ranks([("rank0", NsysDatabase(copy.name))])
                        for calls in NcclCalls(rank).by_thread.values()
                        for _start, _end, collective, size, _comm, _text in calls if collective and size})
    ok = ranges > 0 and blobs == ranges and 16 * (1 << 20) in sizes
    return {"case": "NCCL payloads in the bundle's export (16 MiB all-reduce read back)", "ok": ok,
            "detail": f"{ranges} NCCL ranges, {blobs} with payload bytes; sizes {sizes}"}


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    nsys = shutil.which("nsys")
    with tempfile.TemporaryDirectory() as folder, open(out / "verify_issue11_triage.log", "w") as log:
        work = Path(folder)
        for case in (case_clean, case_planted, case_printed_forms, case_session13, case_session14, case_session17, case_session18, case_session19, case_session21, case_session22, case_session23, case_session24, case_session25, case_session26, case_sigkill, case_setsid_child_under_nsys, case_full_disk_under_nsys,
                     case_nccl_payloads):
            started = time.monotonic()
            try:
                row = case(work, log)
            except Exception as exc:  # noqa: BLE001 - recorded, the others still run
                row = {"case": case.__name__, "ok": False, "detail": f"{type(exc).__name__}: {exc}"}
            row["seconds"] = round(time.monotonic() - started, 1)
            rows.append(row)
            log.flush()
    lines = [f"# Issue 11, triage side, on {gpu_name()}", "",
             f"nsys: {nsys or 'NOT on the PATH (cases ran without it)'}", "",
             "| case | result | detail | s |", "|---|---|---|---|"]
    lines += [f"| {r['case']} | {'pass' if r['ok'] else 'FAIL'} | {r['detail']} | {r['seconds']} |" for r in rows]
    (out / "verify_issue11_triage.md").write_text("\n".join(lines) + "\n")
    (out / "verify_issue11_triage.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
