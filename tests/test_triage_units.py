"""Triage pieces on their own: redaction rules, findings, topology parsing, compare, SQLite scrubbing."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import H200

from fake_nvml import FakeGpu, FakeNvml

from aiperf_lab.triage import findings
from aiperf_lab.triage.archive import compare, show
from aiperf_lab.triage.hardware import gpu_capabilities
from aiperf_lab.triage.nsys_capture import scrub_sqlite
from aiperf_lab.triage.redact import REDACTED, Redactor
from aiperf_lab.triage.topology import cpu_list, gpu_affinity, parse_topo_matrix


@pytest.mark.parametrize("text, gone", [
    ("push with ghp_" + "x" * 36, "ghp_" + "x" * 36),
    ("HF hf_" + "a" * 34 + " end", "hf_" + "a" * 34),
    ("key AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("slack xoxb-1234567890-abcdef", "xoxb-1234567890-abcdef"),
    ("Authorization: Bearer abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwx"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop", "eyJhbGciOiJIUzI1NiJ9"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaA"),
    ("db_password=s3cr3t!", "s3cr3t!"),
    ("api_key: 'abc123xyz'", "abc123xyz"),
])
def test_token_shapes_are_redacted(text, gone):
    out = Redactor({}).text(text)
    assert gone not in out and REDACTED in out


@pytest.mark.parametrize("text", ["tokens: 512", "max_tokens=64", "tokenizer: gpt2", "tokens/s 1234.5",
                                  "session 3 started", "password reset page"])
def test_ml_log_lines_are_left_alone(text):
    assert Redactor({}).text(text) == text


def test_secret_env_values_are_replaced_everywhere_and_counted_not_kept():
    r = Redactor({"WANDB_API_KEY": "0123456789abcdef", "HOME": "/root"})
    assert r.text("logging in with 0123456789abcdef") == f"logging in with {REDACTED}"
    assert r.environment({"WANDB_API_KEY": "0123456789abcdef", "HOME": "/root"}) == \
        {"HOME": "/root", "WANDB_API_KEY": REDACTED}
    assert "0123456789abcdef" not in json.dumps(r.report())
    assert r.argv(["train.py", "--wandb-api-key", "zzz", "--lr", "3"]) == ["train.py", "--wandb-api-key", REDACTED,
                                                                           "--lr", "3"]


def test_host_placeholders_are_stable():
    r = Redactor({}, redact_hosts=True)
    text = r.text("10.0.0.7 talks to 10.0.0.8 then 10.0.0.7 again; GPU-12345678-1234-1234-1234-123456789abc")
    assert text == "ip-1 talks to ip-2 then ip-1 again; gpu-uuid-1"
    assert r.text("127.0.0.1") == "127.0.0.1"


def test_topology_from_the_real_h200_output_with_ansi_codes():
    matrix = parse_topo_matrix((H200 / "nvidia-smi-topo-m.txt").read_text())
    assert matrix["columns"] == ["GPU0", "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]
    assert matrix["rows"]["GPU0"] == {"GPU0": "X", "CPU Affinity": "0-15", "NUMA Affinity": "0", "GPU NUMA ID": "N/A"}
    assert gpu_affinity(matrix) == {"GPU0": {"cpu_affinity": "0-15", "numa_affinity": "0"}}
    assert cpu_list("0-3,8,10-11") == {0, 1, 2, 3, 8, 10, 11} and cpu_list("N/A") == set()


def test_gpu_capabilities_survive_a_driver_that_supports_little():
    caps = gpu_capabilities(FakeNvml([FakeGpu()]))
    assert caps["status"] == "ok" and caps["gpus"][0]["name"] == "NVIDIA H200"
    assert caps["gpus"][0]["ecc_mode_current"] is None  # not in the fake: a missing value, not an error
    assert gpu_capabilities(FakeNvml([], init_error=12))["status"].startswith("no NVIDIA driver")


def _gpu(**overrides):
    base = {"index": 0, "name": "NVIDIA H200", "pcie_gen_current": 5, "pcie_gen_max": 5, "pcie_width_current": 16,
            "pcie_width_max": 16, "persistence_mode": True, "max_sm_clock_mhz": 1980, "mig_mode_current": False}
    return {**base, **overrides}


def ids(facts):
    return {f.id: f for f in findings.evaluate(facts)}


def _telemetry(device=0, **fields):
    from aiperf_lab.triage.facts import DeviceTelemetry

    reasons = fields.pop("reason_pct", {})
    return DeviceTelemetry(device=device, duration_s=fields.pop("duration_s", 60.0), reason_pct=reasons, **fields)


def _facts(gpus=(), nvml=None, attributes=None, host=None, **fields):
    from aiperf_lab.triage.facts import HardwareFacts, TriageFacts

    return TriageFacts(hardware=HardwareFacts({"gpus": list(gpus), **(nvml or {})}, attributes or {}, host or {}),
                       **fields)


def test_rules_fire_with_their_evidence():
    from aiperf_lab.triage.facts import POWER_CAP, BusyClocks, WorkloadFacts

    found = ids(_facts(
        [_gpu(pcie_gen_current=3, persistence_mode=False, ecc_errors_uncorrected_volatile=2, mig_mode_current=True)],
        nvml={"cuda_driver_version": "12.2"}, attributes={"torch_cuda": "13.0"}, host={"cpu_governor": "powersave"},
        telemetry=[_telemetry(util_gpu_avg_pct=95.0, reason_pct={POWER_CAP: 42.0}, avg_power_w=650.0,
                              peak_power_w=700.0, temp_max_c=60)],
        telemetry_workload=[_telemetry(util_gpu_avg_pct=31.0, duration_s=60, workload_s=75)],
        busy_clocks={0: BusyClocks(1100.0, 50)}, xid=[79, 79],
        workload=WorkloadFacts(True, 0, 75.0, None, [], False, cpu_affinity=[16, 17]),
        gpu_cpu_affinity={"GPU0": "0-15"}))
    assert found["pcie_below_max"].severity == "warning" and found["pcie_below_max"].evidence["gen_seen"] == 3
    assert found["ecc_uncorrected"].severity == "error"
    assert found["xid_errors"].evidence["xid_codes"] == [79]
    assert found["clocks_power_cap"].evidence["time_pct"] == 42.0 and found["clocks_power_cap"].evidence["reason_bit"] == 4
    assert found["gpu_idle_during_workload"].evidence == {"util_gpu_avg_pct": 31.0, "busy_span_s": 60, "workload_s": 75}
    assert found["low_clocks_under_load"].evidence["avg_sm_clock_mhz"] == 1100.0
    assert found["numa_mismatch"].evidence["gpu_cpu_affinity"] == {"GPU0": "0-15"}
    assert {"persistence_off", "mig_on", "cpu_governor", "driver_cuda_mismatch"} <= set(found)
    severities = [f.severity for f in findings.evaluate(_facts([_gpu(persistence_mode=False)], xid=[13]))]
    assert severities == sorted(severities, key=findings.SEVERITY_ORDER.get)


def test_clock_rules_follow_the_reason_bits_of_the_telemetry_summary():
    """The finding reads the summary row through the NVML bit: renaming a reason cannot silence it."""
    from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, Tick
    from aiperf_lab.triage.facts import summarize_devices

    ticks = [Tick(float(t), [GpuSample(float(t), 0, 300.0, "instant", util_gpu_pct=90.0, clock_event_reasons=0x20)],
                  None) for t in range(5)]
    rows, _notes = summarize_devices([GpuInfo(0)], ticks)
    assert "clocks_thermal_sw" in ids(_facts([_gpu()], telemetry=rows))


def test_a_healthy_machine_fires_nothing():
    assert findings.evaluate(_facts([_gpu()], nvml={"cuda_driver_version": "13.0"}, attributes={"torch_cuda": "13.0"},
                                    telemetry=[_telemetry(util_gpu_avg_pct=97.0)],
                                    host={"cpu_governor": "performance"})) == []


def test_a_workload_that_never_touched_the_gpu():
    found = ids(_facts([_gpu()], telemetry_workload=[
        _telemetry(util_gpu_avg_pct=0.2, duration_s=8.0, workload_s=8.0, never_busy=True)]))
    assert "gpu_never_used" in found and "gpu_idle_during_workload" not in found


def test_busy_window_leaves_out_start_up_and_report_writing():
    from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, Tick
    from aiperf_lab.triage.facts import busy_window

    utils = [0, 0, 0, 90, 95, 92, 0, 0]  # interpreter start, three busy samples, nsys writing its report
    ticks = [Tick(float(t), [GpuSample(float(t), 0, 100.0, "instant", util_gpu_pct=u)], None) for t, u in enumerate(utils)]
    (row,) = busy_window([GpuInfo(0)], ticks, 0.0, 7.0)
    assert row.util_gpu_avg_pct > 90 and row.duration_s == 2.0 and row.workload_s == 7.0
    assert row.never_busy is False


def test_trace_findings_say_what_the_capture_covers():
    from aiperf_lab.triage.facts import CaptureCoverage

    missing = ids(_facts(coverage=CaptureCoverage(None, None, 30.0, "observed", written=False,
                                                  note="nsys wrote no report after SIGINT (application)")))
    assert "SIGINT" in missing["trace_missing"].detail
    bare = ids(_facts(coverage=CaptureCoverage(1.0, 29.0, 30.0, "export", kernels=None, nvtx_ranges=0)))
    assert "trace_without_kernels" in bare
    part = CaptureCoverage(2.0, 8.0, 30.0, "export", kernels=120, nvtx_ranges=12, workload_span_s=(0.0, 28.0))
    assert part.text() == "trace covers 2-8 s of 30 s (120 kernels, 12 NVTX ranges, workload 0-28 s)"
    assert "22 s of the workload's run are not in the trace" in ids(_facts(coverage=part))["trace_partial"].detail
    whole = CaptureCoverage(0.8, 5.0, 30.0, "export", kernels=120, nvtx_ranges=12, workload_span_s=(0.0, 5.0))
    assert not ids(_facts(coverage=whole))   # a short workload, all of it traced: nothing to say


def test_idle_pcie_downshift_is_only_info():
    found = ids(_facts([_gpu(pcie_gen_current=1)], telemetry=[_telemetry(util_gpu_avg_pct=0.0)]))
    assert found["pcie_below_max"].severity == "info"


def _bundle(path: Path, host: str, driver: str, bf16: float) -> Path:
    top = f"aiperf-triage-{host}-20261122T000000Z"
    files = {
        "manifest.json": {"tool": "aiperf-triage", "schema_version": 1, "host": host, "start_utc": "2026-11-22T00:00"},
        "hardware_capabilities.json": {"nvml": {"driver_version": driver, "gpus": [_gpu()]}},
        "bench.json": {"bf16_matmul_tflops": bf16},
        "summary.md": f"# aiperf-triage: {host}\n",
    }
    with tarfile.open(path, "w:gz") as tar:
        for name, content in files.items():
            data = (content if isinstance(content, str) else json.dumps(content)).encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_compare_flags_the_odd_one_out(tmp_path):
    paths = [_bundle(tmp_path / f"{h}.tar.gz", h, d, b) for h, d, b in
             (("node1", "580.159", 645.0), ("node2", "580.159", 644.0), ("node3", "570.86", 645.0))]
    labels, rows, odd = compare(paths)
    assert labels[0].startswith("node1")
    driver = rows[[r[0] for r in rows].index("driver")]
    assert driver[1:] == ["580.159", "580.159", "570.86"]
    assert odd[[r[0] for r in rows].index("driver")] == {2}
    assert show(paths[0]) == "# aiperf-triage: node1\n"


def test_scrubbing_an_export_removes_secrets_from_every_byte(tmp_path):
    export = tmp_path / "w.sqlite"
    shutil.copyfile(H200 / "lm_forward.sqlite", export)
    secret = "hf_" + "Z" * 34
    con = sqlite3.connect(export)
    con.execute("INSERT INTO META_DATA_CAPTURE (name, value) VALUES ('ENV:HF_TOKEN', ?)", (secret,))
    con.execute("INSERT INTO StringIds (id, value) VALUES (999999, ?)", (f"python train.py --token={secret}",))
    con.commit()
    con.close()
    assert secret.encode() in export.read_bytes()
    changed = scrub_sqlite(export, Redactor({"HF_TOKEN": secret}))
    assert changed >= 2 and secret.encode() not in export.read_bytes()
    assert sqlite3.connect(export).execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0] == 582


def test_progress_lines_parse_back_as_the_console_reads_them():
    import io

    from aiperf_lab.console.sessions import TriageSession, parse_progress
    from aiperf_lab.triage.bundle import CollectorRecord
    from aiperf_lab.triage.findings import Finding
    from aiperf_lab.triage.progress import Emitter

    buffer = io.StringIO()
    emit = Emitter(stream=buffer)
    emit.collector(CollectorRecord("kernel_log", "skipped", 0.04, "kernel log not readable\nhere (dmesg: exit 1)"))
    emit.finding(Finding("trace_missing", "warning", "The workload's nsys trace could not be kept", ""))
    emit.nsys("writing report, 14 s")
    emit.archive(Path("/data/out dir/aiperf-triage-x.tar.gz"))
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 4   # the newline inside the error stayed on its line
    events = [parse_progress(line) for line in lines]
    assert (events[0].name, events[0].status, events[0].seconds) == ("kernel_log", "skipped", 0.0)
    assert events[0].detail == "kernel log not readable here (dmesg: exit 1)"
    assert (events[1].status, events[1].name) == ("warning", "trace_missing")
    assert events[2].kind == "nsys" and events[2].text == "writing report, 14 s"
    session = TriageSession(10, Path("out"))
    for event in events:
        session.record(event)
    assert session.archive == "/data/out dir/aiperf-triage-x.tar.gz"
    assert parse_progress("aiperf-triage: cannot write to /x: Not a directory") is None   # an error, not progress
    assert parse_progress("plain workload output") is None


def test_stop_policy_and_nsys_phases():
    from aiperf_lab.triage.capture import StopPolicy, nsys_lines, nsys_phase

    policy = StopPolicy.parse("app=1,write=2.5")
    assert (policy.app_grace_s, policy.write_grace_s, policy.settle_s) == (1.0, 2.5, 5.0)
    with pytest.raises(ValueError):
        StopPolicy.parse("apps=1")
    with pytest.raises(ValueError):
        StopPolicy.parse("write=-1")
    assert nsys_phase("WARNING: CPU IP/backtrace sampling not supported\n") == "starting"
    assert nsys_phase("Collecting data...\nstep 1 loss 0.3\n") == "collecting"
    out = "Collecting data...\n12 steps\nGenerating '/tmp/nsys-report-4f1e.qdstrm'\n[1/1] [=====60%    ] w.nsys-rep\n"
    assert nsys_phase(out) == "writing"
    assert nsys_phase(out + "Generated:\n    /x/w.nsys-rep\n") == "done"
    assert nsys_lines(out + "loss 0.1\n") == ["Collecting data...", "Generating '/tmp/nsys-report-4f1e.qdstrm'",
                                              "[1/1] [=====60%    ] w.nsys-rep"]


def test_the_application_under_nsys_is_found_by_walking_proc(tmp_path):
    """A process tree like nsys's: the launcher (here a shell in the 'nsys' install folder) and the
    application below it; the launcher itself is not the application."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from aiperf_lab.triage.capture import application_pids

    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc here")
    launcher = subprocess.Popen([sys.executable, "-c", "import subprocess, sys; subprocess.run([sys.executable, '-c', "
                                 "'import time; time.sleep(30)'])"])
    try:
        for _ in range(100):
            found = application_pids(launcher.pid, nsys_root=None)
            if found:
                break
            time.sleep(0.05)
        assert len(found) == 1 and found[0] != launcher.pid
        # a binary under the nsys install folder is nsys's own, never signalled as the application
        assert application_pids(launcher.pid, nsys_root=Path(os.path.realpath(sys.executable)).parent) == []
    finally:
        for pid in found:
            os.kill(pid, signal.SIGKILL)
        launcher.kill()
        launcher.wait()


def test_the_first_host_cpu_reading_is_unknown_not_a_false_zero():
    """psutil's cpu_percent right after its priming call has no interval and says 0.0: telemetry.csv
    recorded an idle host for its first seconds on a busy machine."""
    import time

    from aiperf_lab.metrics.telemetry.host import MIN_CPU_INTERVAL_S, HostSource

    pytest.importorskip("psutil")
    host = HostSource()
    assert host.sample(0.0).cpu_pct is None
    time.sleep(MIN_CPU_INTERVAL_S + 0.05)
    later = host.sample(0.2).cpu_pct
    assert later is not None and 0.0 <= later <= 100.0


def test_the_phases_run_in_process_and_report_each_part(tmp_path, capsys):
    """Below the process level: one short run through Triage's phases, its progress lines in order."""
    import io

    from aiperf_lab.console.sessions import parse_progress
    from aiperf_lab.triage.pipeline import Triage, TriageOptions
    from aiperf_lab.triage.progress import Emitter

    stream = io.StringIO()
    triage = Triage(TriageOptions(duration_s=0.5, output=tmp_path, interval_ms=50), Emitter(stream=stream))
    assert triage.run() == 0
    archive = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert archive.exists() and archive.parent == tmp_path
    events = [parse_progress(line) for line in stream.getvalue().splitlines()]
    assert all(e is not None for e in events)
    assert [e.name for e in events if e.kind == "phase"] == ["start", "capture", "summarize", "find", "report",
                                                             "archive"]
    parts = {e.name: e.status for e in events if e.kind == "collector"}
    assert {"hardware", "telemetry", "findings", "report", "redaction"} <= set(parts) and parts["report"] == "ok"
    assert events[-1].kind == "archive" and events[-1].text == str(archive)
    assert triage.facts.hardware.host   # the collectors' typed results, kept in memory


def test_a_bundle_names_the_signal_that_stopped_it():
    from aiperf_lab.triage.report import stopped_by_words
    assert stopped_by_words("SIGINT") == "Ctrl-C" and stopped_by_words("SIGTERM") == "SIGTERM"
    assert "SSH session went away" in stopped_by_words("SIGHUP")
    assert stopped_by_words(None) == "Ctrl-C"          # a bundle from before the signal was recorded


def test_progress_on_a_terminal_wraps_at_words_and_into_a_pipe_stays_one_line(monkeypatch):
    """At 80 columns the terminal broke the no-driver note inside a word: `NVML Share` / `d Library`."""
    import io

    from aiperf_lab.triage.progress import Emitter

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("COLUMNS", "80")
    note = "telemetry every 100 ms (no NVIDIA driver: NVML Shared Library Not Found)"
    tty, pipe = Terminal(), io.StringIO()
    Emitter(stream=tty).say(note)
    Emitter(stream=pipe).say(note)
    lines = tty.getvalue().splitlines()
    assert len(lines) == 2 and all(len(line) <= 80 for line in lines)
    assert lines[0].endswith("NVML") and lines[1] == "    Shared Library Not Found)"
    assert len(pipe.getvalue().splitlines()) == 1 and pipe.getvalue().rstrip().endswith(note)


def test_busy_window_says_how_long_the_workload_ran_not_the_tail_after_it():
    from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, Tick
    from aiperf_lab.triage.facts import busy_window

    ticks = [Tick(float(t), [GpuSample(float(t), 0, 100.0, "instant", util_gpu_pct=0)], None) for t in range(4)]
    (row,) = busy_window([GpuInfo(0)], ticks, 0.0, 3.0, ran_s=0.1)   # exited at 0.1 s; 3 s of ramp-down tail
    assert row.never_busy and row.workload_s == 0.1
    assert "for all 0.1 s the workload ran" in ids(_facts([_gpu()], telemetry_workload=[row]))["gpu_never_used"].detail


def test_a_workload_that_exits_at_once_is_not_said_to_have_run_through_the_ramp_down(monkeypatch, tmp_path):
    """A workload that fails in its first 0.1 s, then the 2 s tail triage records after an exit: the finding
    names the workload's own run time (the H100 run of verify_triage_summary.sh said "all 2.2 s the workload ran"
    of a workload that had exited with code 1 after 0.017 s)."""
    from aiperf_lab.metrics.telemetry import nvml
    from aiperf_lab.triage import cli

    monkeypatch.setattr(nvml.Nvml, "open", classmethod(lambda cls, module=None: cls(FakeNvml([FakeGpu()]), [0], "")))
    assert cli.main(["--duration", "6", "--no-nsys", "--output", str(tmp_path), "--",
                     sys.executable, "-c", "raise SystemExit(1)"]) == 0
    (archive,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(archive) as bundle:
        name = next(n for n in bundle.getnames() if n.endswith("/findings.json"))
        findings = {f["id"]: f for f in json.loads(bundle.extractfile(name).read())}
    never = findings["gpu_never_used"]
    assert never["evidence"]["workload_s"] < 1.0 <= never["evidence"]["busy_span_s"]
