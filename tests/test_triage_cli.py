"""aiperf-triage end to end on a machine without a GPU: bounded, complete, secret-free, safe on Ctrl-C."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from conftest import REPO

SECRETS = {
    "HF_TOKEN": "hf_" + "Q" * 34,
    "MY_SERVICE_PASSWORD": "correct-horse-battery-staple",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
}
GITHUB_TOKEN_SHAPE = "ghp_" + "a1B2" * 9
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl"
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretsecretsecret\n-----END RSA PRIVATE KEY-----"


def triage(*args, env=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "aiperf_lab.triage.cli", *map(str, args)], capture_output=True,
                          text=True, cwd=REPO, env=env or dict(os.environ), timeout=timeout)


def members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive, "r:gz") as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_three_second_run_without_gpu_gives_a_complete_archive(tmp_path):
    start = time.monotonic()
    done = triage("--duration", "3", "--output", tmp_path, "--tag", "ci")
    elapsed = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert elapsed < 20
    archive = Path(done.stdout.strip().splitlines()[-1])
    assert archive.parent == tmp_path and archive.name.startswith("aiperf-triage-") and archive.name.endswith("-ci.tar.gz")
    assert [p.name for p in tmp_path.iterdir()] == [archive.name]  # nothing half-written left beside it
    files = members(archive)
    for required in ("manifest.json", "summary.md", "report.html", "hardware_capabilities.txt",
                     "hardware_capabilities.json", "telemetry.csv", "telemetry_summary.json", "findings.json",
                     "environment.txt", "redaction_report.json", "software.json"):
        assert required in files, required
    manifest = json.loads(files["manifest.json"])
    assert manifest["schema_version"] == 1 and manifest["interrupted"] is False
    assert manifest["arguments"][:2] == ["--duration", "3"]
    assert {c["name"] for c in manifest["collectors"]} >= {"hardware", "topology", "gpu_snapshots", "telemetry"}
    assert all(c["status"] in ("ok", "host-only", "skipped", "failed", "timeout") for c in manifest["collectors"])
    gpu = next(c for c in manifest["collectors"] if c["name"] == "gpu_snapshots")
    if gpu["status"] == "skipped":
        assert "nvidia-smi" in gpu["error"]
    for name, digest in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == digest
    telemetry = files["telemetry.csv"].decode().splitlines()
    assert telemetry[0].startswith("# aiperf-telemetry {") and telemetry[1].startswith("t_s,gpu,power_w")
    assert len(telemetry) >= 21  # 3 s at 10 Hz
    html = files["report.html"].decode()
    assert html.startswith("<!doctype html>") and "http://" not in html.replace("http://www.w3.org/2000/svg", "")


def test_no_planted_secret_reaches_the_archive(tmp_path):
    env = dict(os.environ, **SECRETS)
    script = ("import os, sys\n"
              "print(os.environ['HF_TOKEN'], os.environ['MY_SERVICE_PASSWORD'])\n"
              f"print('auth', {GITHUB_TOKEN_SHAPE!r}, {JWT!r})\n"
              f"print({PRIVATE_KEY!r}, file=sys.stderr)\n"
              "print('AKIAIOSFODNN7EXAMPLE', os.environ['AWS_SECRET_ACCESS_KEY'], file=sys.stderr)\n")
    done = triage("--duration", "5", "--output", tmp_path, "--", sys.executable, "-c", script,
                  "--api-token", "tok-0123456789", env=env)
    assert done.returncode == 0, done.stderr
    archive = Path(done.stdout.strip().splitlines()[-1])
    blob = b"".join(members(archive).values()) + archive.read_bytes()
    for secret in [*SECRETS.values(), GITHUB_TOKEN_SHAPE, JWT, "MIIEowIBAAKCAQEAsecretsecretsecret",
                   "AKIAIOSFODNN7EXAMPLE", "tok-0123456789"]:
        assert secret.encode() not in blob, secret
    files = members(archive)
    assert b"[REDACTED]" in files["workload/stdout.log"]
    report = json.loads(files["redaction_report.json"])
    assert report["rules_applied"]["secret environment value"] >= 3
    assert not any(v in json.dumps(report) for v in SECRETS.values())
    env_text = files["environment.txt"].decode()
    assert "HF_TOKEN=[REDACTED]" in env_text and "PATH=" in env_text


def test_redact_hosts_replaces_the_host_name_everywhere(tmp_path):
    import socket
    host = socket.gethostname()
    done = triage("--duration", "2", "--output", tmp_path, "--redact-hosts")
    assert done.returncode == 0, done.stderr
    archive = Path(done.stdout.strip().splitlines()[-1])
    assert host not in archive.name and "host-1" in archive.name
    if len(host) >= 4:  # a two-letter name could appear inside unrelated words
        assert host.encode() not in b"".join(members(archive).values())


def test_ctrl_c_stops_everything_and_still_writes_the_archive(tmp_path):
    pid_file = tmp_path / "workload.pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(300)"
    proc = subprocess.Popen([sys.executable, "-m", "aiperf_lab.triage.cli", "--duration", "60", "--output",
                             str(tmp_path / "out"), "--no-nsys", "--", sys.executable, "-c", script],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=40)
    assert proc.returncode == 130, err
    archive = Path(out.strip().splitlines()[-1])
    manifest = json.loads(members(archive)["manifest.json"])
    assert manifest["interrupted"] is True
    workload = json.loads(members(archive)["workload/workload.json"])
    assert workload["stopped_by"] == "interrupt" and workload["signals_sent"][0] == "SIGINT"
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the workload is gone


def test_duration_end_escalates_to_sigterm_for_a_workload_that_ignores_sigint(tmp_path):
    script = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(300)"
    done = triage("--duration", "2", "--output", tmp_path, "--no-nsys", "--", sys.executable, "-c", script)
    assert done.returncode == 0, done.stderr
    workload = json.loads(members(Path(done.stdout.strip().splitlines()[-1]))["workload/workload.json"])
    assert workload["stopped_by"] == "duration" and workload["signals_sent"][:2] == ["SIGINT", "SIGTERM"]


@pytest.mark.parametrize("args, fragment", [
    (["--duration", "0"], "must be above 0"),
    (["--duration", "-5"], "must be above 0"),
    (["--duration", "abc"], "not a number"),
    (["--interval-ms", "5"], "must be 10 to 10000"),
    (["--interval-ms", "fast"], "not a whole number"),
    (["--tag", "a/b"], "letters, digits"),
    (["--tag", ".."], "starting and ending with a letter or digit"),
    (["--tag=-"], "starting and ending with a letter or digit"),
    (["--tag", "run-"], "starting and ending with a letter or digit"),
    (["--tag", ".hidden"], "starting and ending with a letter or digit"),
    (["--tag", "x" * 65], "1 to 64"),
    (["--bogus"], "unrecognized arguments"),
    (["--duration", "1", "--"], "nothing after '--'"),
    (["show"], "show takes one archive"),
    (["compare", "only-one.tar.gz"], "at least two"),
    (["--duration", "1", "--", "no-such-program-xyz"], "cannot run 'no-such-program-xyz'"),
])
def test_bad_arguments_get_exit_2_and_one_line(args, fragment):
    done = triage(*args)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert fragment in done.stderr


def test_a_workload_file_that_is_not_executable_is_refused(tmp_path):
    script = tmp_path / "train.sh"
    script.write_text("echo hi\n")
    script.chmod(0o644)
    done = triage("--duration", "1", "--output", tmp_path / "out", "--", script)
    assert done.returncode == 2 and "not executable" in done.stderr and not (tmp_path / "out").exists()


def test_unwritable_output_is_exit_2_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = triage("--duration", "1", "--output", blocker / "sub")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "cannot write" in done.stderr


def test_a_full_disk_leaves_no_archive_passed_off_as_whole(tmp_path, monkeypatch, capsys):
    import errno

    from aiperf_lab.triage import bundle, cli

    def full_disk(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bundle.tarfile, "open", full_disk)
    code = cli.main(["--duration", "1", "--output", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "is full" in err and str(tmp_path) in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def _tar(path: Path, entries: list[tarfile.TarInfo], payloads: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info in entries:
            data = payloads.get(info.name)
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _member(name: str, kind=tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    if kind == tarfile.SYMTYPE:
        info.linkname = "/etc/passwd"
    return info


MANIFEST = json.dumps({"tool": "aiperf-triage", "schema_version": 1}).encode()


@pytest.mark.parametrize("entries, fragment", [
    ([_member("b/manifest.json"), _member("../evil")], "unsafe member name"),
    ([_member("b/manifest.json"), _member("/etc/cron.d/x")], "unsafe member name"),
    ([_member("b/manifest.json"), _member("b/link", tarfile.SYMTYPE)], "link or device"),
    ([_member("b/summary.md")], "no manifest.json"),
    ([_member("a/manifest.json"), _member("b/x")], "one top folder"),
])
def test_show_refuses_what_is_not_a_safe_bundle(tmp_path, entries, fragment):
    payloads = {e.name: (MANIFEST if e.name.endswith("manifest.json") else b"x") for e in entries
                if e.type == tarfile.REGTYPE}
    archive = _tar(tmp_path / "evil.tar.gz", entries, payloads)
    done = triage("show", archive)
    assert done.returncode == 2 and fragment in done.stderr and done.stderr.count("\n") == 1


def test_show_refuses_files_that_are_not_archives(tmp_path):
    plain = tmp_path / "notes.tar.gz"
    plain.write_text("hello")
    for target, fragment in ((plain, "not a triage archive"), (tmp_path / "missing.tar.gz", "no such file")):
        done = triage("show", target)
        assert done.returncode == 2 and fragment in done.stderr


def test_show_and_compare_answer_help_instead_of_reading_a_file_named_help():
    for sub, usage in (("show", "usage: aiperf-triage show ARCHIVE"), ("compare", "usage: aiperf-triage compare")):
        for flag in ("--help", "-h"):
            done = triage(sub, flag)
            assert done.returncode == 0 and done.stdout.startswith(usage) and done.stderr == ""


FIXTURE = Path(__file__).parent / "data" / "triage" / "h200-fixture.tar.gz"


def test_real_h200_bundle_shows_its_summary():
    """A bundle made on the GPU machine (H200, --bench --redact-hosts, a short PyTorch training run)."""
    done = triage("show", FIXTURE)
    assert done.returncode == 0
    assert done.stdout.startswith("# aiperf-triage: host-1")
    assert "0: NVIDIA H200" in done.stdout and "bf16_matmul_tflops" in done.stdout
    files = members(FIXTURE)
    manifest = json.loads(files["manifest.json"])
    for name, digest in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == digest
    hardware = json.loads(files["hardware_capabilities.json"])
    gpu = hardware["nvml"]["gpus"][0]
    assert gpu["uuid"] == "gpu-uuid-1" and gpu["compute_capability"] == "9.0"
    assert gpu["power_limit_enforced_w"] == 700.0 and gpu["max_sm_clock_mhz"] == 1980


def test_compare_sets_the_gpu_bundle_beside_a_gpu_less_one(tmp_path):
    local = Path(triage("--duration", "1", "--output", tmp_path).stdout.strip().splitlines()[-1])
    done = triage("compare", FIXTURE, local)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    model = next(line for line in lines if line.startswith("GPU model"))
    assert "NVIDIA H200*" in model and "-*" in model
    # the GPU-less bundle's "none" is no verdict: said so, never shown as the same "none" as the H200's
    findings = next(line for line in lines if line.startswith("findings"))
    assert findings.split()[1:] == ["none*", "none", "(no", "GPU", "to", "judge)*"]
    # what neither holds is one line under the table (session 22), no rows of "-"
    assert lines[-3:] == ["* differs from the other bundles", "",
                          "neither bundle holds: GPU pairs and NCCL (--bench on 2 or more GPUs)"], lines[-3:]


def test_show_without_a_summary_prints_readable_lines_not_a_dict(tmp_path):
    manifest = json.dumps({"tool": "aiperf-triage", "schema_version": 1, "host": "node7", "start_utc": None,
                           "capture": {"text": "trace covers 0-20 s of 20 s (812 kernels, 40 NVTX ranges)"},
                           "collectors": [{"name": "hardware", "status": "ok", "seconds": 0.4, "error": None},
                                          {"name": "topology", "status": "skipped", "seconds": 0.0,
                                           "error": "nvidia-smi is not installed"}]}).encode()
    archive = _tar(tmp_path / "b.tar.gz", [_member("b/manifest.json")], {"b/manifest.json": manifest})
    done = triage("show", archive)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["# node7 (unknown)", "(no summary.md in this bundle)",
                                        "nsys: trace covers 0-20 s of 20 s (812 kernels, 40 NVTX ranges)",
                                        "- hardware: ok, 0.4 s", "- topology: skipped, 0.0 s: nvidia-smi is not installed"]
    assert "None" not in done.stdout and "{" not in done.stdout


def test_a_bundle_without_gpu_says_unknown_not_none(tmp_path):
    done = triage("--duration", "1", "--output", tmp_path, "--progress")
    assert done.returncode == 0, done.stderr
    # the progress line says no verdict was possible, not "0 finding(s)" alone, which reads as healthy
    said = [line.split("] ", 1)[-1] for line in done.stderr.splitlines() if "archive written" in line]
    assert said == ["0 finding(s) (no GPU: no GPU rule could judge this machine); archive written"]
    shown = triage("show", done.stdout.strip().splitlines()[-1])
    # session 22: "driver unknown, CUDA unknown" under "GPUs: no NVIDIA driver ..." said it again, less clearly
    assert "GPUs: no NVIDIA driver" in shown.stdout and "- driver " not in shown.stdout, shown.stdout
    assert "None" not in shown.stdout


def test_the_archive_path_is_printed_escaped(tmp_path):
    # --output "$(printf 'o\033[2J')": the path printed on stdout must not clear the screen.
    out = tmp_path / "o\x1b[2Jx"
    done = triage("--duration", "1", "--output", out, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "o\\x1b[2Jx" in done.stdout
    assert len(list(out.glob("*.tar.gz"))) == 1


@pytest.mark.parametrize("tag", ["ghp_Zq9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sTuVwX", "hf_Qw3rTy7uIoPaSdFgHjKlZxCvBnM12"])
def test_a_tag_shaped_like_a_token_is_refused_before_anything_is_written(tmp_path, tag):
    """The tag names the archive and every member's folder, where no redaction reaches (red team A14)."""
    done = triage("--duration", "1", "--tag", tag, "--output", tmp_path / "out", "--no-nsys")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--tag looks like a secret" in done.stderr
    assert tag not in done.stderr and not (tmp_path / "out").exists()


def test_a_tag_holding_a_known_secret_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("DB_PASSWORD", "run7Qx9zK2")
    done = triage("--duration", "1", "--tag", "run7Qx9zK2", "--output", tmp_path / "out", "--no-nsys")
    assert done.returncode == 2 and "--tag looks like a secret" in done.stderr


def test_compare_of_a_one_and_a_two_gpu_bundle_marks_only_real_differences_and_fits_80_columns():
    # A one-GPU and a two-GPU H200 bundle: the same model, persistence and ECC count on every GPU used to be
    # marked different ("0*" beside "0,0*"), a SM active never measured showed as Python's "None*", and every
    # line was padded to 87 characters, so each row wrapped at 80 columns.
    data = REPO / "tests" / "data" / "triage"
    done = triage("compare", data / "h200-fixture.tar.gz", data / "h200x2-bench.tar.gz",
                  env=dict(os.environ, COLUMNS="80"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    row = {line.split("  ")[0]: line for line in lines}
    for same in ("GPU model", "persistence", "ECC uncorrected", "power limit (W)", "max SM clock (MHz)", "driver"):
        assert "*" not in row[same], row[same]
    assert row["GPU model"].split()[-2:] == ["NVIDIA", "H200"] and "H200," not in row["GPU model"]
    assert "*" in row["GPU count"] and "*" in row["NVLinks active"] and "*" in row["mean power (W)"]
    assert "None" not in done.stdout and row["mean SM active (%)"].split()[4] == "-*"
    assert max(map(len, lines)) <= 80 and all(line == line.rstrip() for line in lines)


def test_compare_cuts_values_too_wide_for_the_terminal_and_keeps_the_mark():
    from aiperf_lab.triage.cli import compare_table

    labels = [f"node{i} 2026-11-23T02:05" for i in range(4)]
    rows = [["bench bf16 TFLOP/s", *(",".join(["758.1"] * 8) + str(i) for i in range(4))], ["driver", *["580"] * 4]]
    text = compare_table(labels, rows, [{0, 1, 2, 3}, set()], 80)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 80
    assert lines[2].count("…*") == 4 and lines[-1].startswith("(values cut to fit 80 columns")
    assert compare_table(labels, rows, [{0, 1, 2, 3}, set()], None).count("…") == 0


def test_show_of_a_bundle_from_a_machine_without_a_driver_says_no_gpu_rule_could_judge_and_fits_80_columns(tmp_path):
    # "No rule fired" read as healthy when no GPU rule could run; telemetry was listed "ok" beside "no NVIDIA
    # driver"; a 260-character telemetry line and a raw markdown table of collectors ran past 80 columns.
    done = triage("--duration", "2", "--no-nsys", "--output", tmp_path, "--", sys.executable, "-c", "print(1)")
    assert done.returncode == 0, done.stderr
    shown = triage("show", done.stdout.strip().splitlines()[-1], env=dict(os.environ, COLUMNS="80"))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "No rule fired" not in shown.stdout
    assert "No GPU rule could judge this machine: no NVIDIA driver" in shown.stdout
    assert max(map(len, lines)) <= 80 and not any(line.startswith("|") for line in lines)
    telemetry = next(line for line in lines if line.startswith("telemetry "))
    assert telemetry.split()[1] == "host-only", telemetry
