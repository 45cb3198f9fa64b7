"""aiperf-triage: one shareable archive of what the machine is and how it behaved.

    aiperf-triage --duration 120 [--output DIR] [--tag T] [--no-nsys] [--interval-ms 100] [--bench]
                  [--redact-hosts] [-- CMD ...]
    aiperf-triage show ARCHIVE
    aiperf-triage compare A B [C ...]

The archive's path is the last line on stdout. Exit codes: 0 done, 2 bad input or environment
(one line on stderr), 130 interrupted (the archive is still written, marked interrupted), 1 a bug.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from aiperf_lab.cli_support import OneLineParser, run_cli
from aiperf_lab.errors import InputError

MIN_INTERVAL_MS, MAX_INTERVAL_MS = 10, 10_000
LOG_CAP_BYTES = 20 * 1024 * 1024   # per workload stream: the tail is kept
TAIL_AFTER_EXIT_S = 2.0            # telemetry kept after the workload ends early, to see the ramp-down

EPILOG = """\
examples:
  aiperf-triage --duration 60                                   # telemetry and machine facts only
  aiperf-triage --duration 120 --bench -- python train.py --steps 200
  aiperf-triage show aiperf-triage-node7-20261122T101500Z.tar.gz
  aiperf-triage compare /shared/triage/*.tar.gz                 # one bundle per node: find the odd one
  srun --ntasks-per-node=1 aiperf-triage --duration 60 --output /shared/triage
"""


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 7 * 24 * 3600:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most a week, got {text}")
    return value


def _interval(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of milliseconds: {text!r}") from None
    if not MIN_INTERVAL_MS <= value <= MAX_INTERVAL_MS:
        raise argparse.ArgumentTypeError(f"must be {MIN_INTERVAL_MS} to {MAX_INTERVAL_MS} ms, got {value}")
    return value


def _tag(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", text):
        raise argparse.ArgumentTypeError("use 1 to 64 letters, digits, '.', '_' or '-'")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="aiperf-triage", description="A shareable bundle of what this GPU machine is and how it "
                           "behaved, bounded in time and free of secrets.", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=_positive_seconds, default=120.0,
                        help="seconds of telemetry, and the longest the workload may run (default 120)")
    parser.add_argument("--output", type=Path, default=Path("."), help="folder for the archive (default: here)")
    parser.add_argument("--tag", type=_tag, help="added to the archive name")
    parser.add_argument("--no-nsys", action="store_true", help="run the workload plainly, not under Nsight Systems")
    parser.add_argument("--interval-ms", type=_interval, default=100, help="telemetry period (default 100 ms)")
    parser.add_argument("--bench", action="store_true", help="short copy, matmul and PCIe measurements (needs PyTorch)")
    parser.add_argument("--redact-hosts", action="store_true",
                        help="replace host names, IP addresses, GPU UUIDs and user names by placeholders")
    return parser


def _progress(enabled: bool):
    start = time.monotonic()

    def say(message: str) -> None:
        if enabled:
            print(f"[{time.monotonic() - start:5.1f}s] {message}", file=sys.stderr, flush=True)
    return say


def run_triage(args: argparse.Namespace, command: list[str], original_argv: list[str]) -> int:
    from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
    from aiperf_lab.metrics.telemetry.sampler import Sampler
    from aiperf_lab.metrics.telemetry.summary import telemetry_summary
    from aiperf_lab.triage import findings as rules
    from aiperf_lab.triage import report
    from aiperf_lab.triage.bench import run_bench
    from aiperf_lab.triage.bundle import BundleWriter
    from aiperf_lab.triage.collectors import STANDARD_COLLECTORS, CollectorRun
    from aiperf_lab.triage.guard import Guard
    from aiperf_lab.triage.redact import Redactor, argv_secret_values
    from aiperf_lab.triage.workload import Workload

    say = _progress(sys.stderr.isatty())
    redactor = Redactor(redact_hosts=args.redact_hosts, extra_secrets=argv_secret_values(command))
    host = socket.gethostname() or "unknown-host"
    host_label = redactor.placeholder("host", host) if args.redact_hosts else host
    safe_host = re.sub(r"[^A-Za-z0-9._-]", "_", host_label)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = f"aiperf-triage-{safe_host}-{stamp}" + (f"-{args.tag}" if args.tag else "")

    stop = threading.Event()
    interrupted = threading.Event()

    def on_signal(signum, _frame) -> None:
        interrupted.set()
        stop.set()
        say(f"{signal.Signals(signum).name}: stopping, the archive will still be written")

    # From here on a signal means "stop and write the archive" (before, it means "exit 130").
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    output = args.output
    try:
        output.mkdir(parents=True, exist_ok=True)
        bundle = BundleWriter(output, name, redactor)
    except OSError as exc:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        raise InputError(f"aiperf-triage: cannot write to {_short(output)}: {exc.strerror or exc}") from None
    guard = Guard()  # if triage is killed: the workload dies too, and nothing half-written stays
    guard.remove_on_kill(bundle.root)
    guard.remove_on_kill(bundle.partial_archive)
    work_dir = bundle.root / ".work"
    work_dir.mkdir(mode=0o700)
    workload = None
    try:
        rate = 1000.0 / args.interval_ms
        try:
            writer = TelemetryWriter.to_path(bundle.claim("telemetry", "telemetry.csv"))
        except OSError as exc:
            raise InputError(f"aiperf-triage: cannot write to {output}: {exc.strerror or exc}") from None
        sampler = Sampler(min(rate, 100.0), window_s=args.duration + 600, recorder=writer)
        sampler.start()
        say(f"telemetry every {args.interval_ms} ms" + (f" ({sampler.status})" if sampler.status else
                                                        f" on {len(sampler.devices)} GPU(s)"))
        collectors = CollectorRun(bundle, STANDARD_COLLECTORS)
        collectors.start()
        t_start = sampler.now()
        deadline = time.monotonic() + args.duration

        if command:
            workload = Workload(command, work_dir, use_nsys=not args.no_nsys,
                                log_stdout=bundle.claim("workload", "workload/stdout.log"),
                                log_stderr=bundle.claim("workload", "workload/stderr.log"),
                                redactor=redactor, log_cap_bytes=LOG_CAP_BYTES, guard=guard)
            workload.start()
            say(f"workload started{' under nsys' if workload.nsys else ''}: {' '.join(redactor.argv(command))}")
        t_workload = sampler.now()
        next_note = time.monotonic() + 10
        while not stop.is_set() and time.monotonic() < deadline:
            if workload is not None and workload.exited.is_set():
                stop.wait(min(TAIL_AFTER_EXIT_S, max(deadline - time.monotonic(), 0)))
                break
            stop.wait(0.2)
            if time.monotonic() >= next_note:
                say(f"{deadline - time.monotonic():.0f} s left; collectors still running: "
                    f"{', '.join(collectors.pending()) or 'none'}")
                next_note += 10
        t_workload_end = sampler.now()
        if workload is not None:
            if not workload.exited.is_set():
                say("stopping the workload (SIGINT, then SIGTERM, then SIGKILL)")
            workload.stop("interrupt" if interrupted.is_set() else "duration")
            t_workload_end = min(t_workload_end, sampler.now())
        collectors.wait(stop=stop if interrupted.is_set() else None)
        sampler.stop()
        writer.close()
        say("telemetry stopped")

        facts: dict = {}
        _, ticks = sampler.ring.snapshot()
        summary = telemetry_summary(sampler.devices, ticks)
        facts["telemetry"] = summary.as_dicts()
        bundle.write_json("telemetry", "telemetry_summary.json", {"status": sampler.status, "devices": facts["telemetry"],
                                                                   "notes": summary.notes})
        record = bundle.record("telemetry")
        record.status, record.seconds = "ok", round(sampler.now() - t_start, 3)
        if sampler.errors:
            record.error = "; ".join(sampler.errors[:3])
        if not sampler.devices:
            record.error = sampler.status
        facts["pcie_seen"] = {i: {"gen": s.pcie_gen, "width": s.pcie_width} for i, s in sampler.slow.items()}
        busy = {}
        for info in sampler.devices:
            clocks = [s.sm_clock_mhz for t in ticks for s in t.gpus if s.index == info.index and
                      s.util_gpu_pct is not None and s.util_gpu_pct > 50 and s.sm_clock_mhz]
            if clocks:
                busy[info.index] = {"avg_sm_clock_mhz": round(sum(clocks) / len(clocks), 1), "busy_samples": len(clocks)}
        facts["busy_clocks"] = busy

        if workload is not None:
            result = workload.result
            facts["telemetry_workload"] = _busy_window_summary(sampler.devices, ticks, t_workload, t_workload_end)
            cpu_affinity = None
            try:
                import psutil
                cpu_affinity = psutil.Process().cpu_affinity()  # the workload inherited these CPUs
            except Exception:
                pass
            facts["workload"] = {"ran": result.error is None, "returncode": result.returncode,
                                 "seconds": round(result.seconds, 3), "stopped_by": result.stopped_by,
                                 "signals_sent": result.signals_sent, "under_nsys": result.under_nsys,
                                 "cpu_affinity": cpu_affinity}
            workload_record = bundle.record("workload")
            info = {"command": redactor.argv(command), "argv": redactor.argv(result.argv),
                    "exit_code": result.returncode, "seconds": round(result.seconds, 3),
                    "stopped_by": result.stopped_by, "signals_sent": result.signals_sent,
                    "under_nsys": result.under_nsys, "error": result.error}
            reports = workload.report_files()
            if reports:
                from aiperf_lab.triage.nsys_capture import add_capture
                tainted = redactor.tainted(" ".join(command)) or redactor.has_secrets or args.redact_hosts
                why = ("the environment or command line held secrets (or --redact-hosts was given) that cannot be "
                       "removed from nsys's binary format; the scrubbed SQLite export is in the bundle") if tainted else ""
                say("exporting the nsys report")
                info["nsys"] = add_capture(bundle, reports[0], keep_report=not tainted, why_not=why, stop=stop)
                top = bundle.path("nsys/stats/cuda_gpu_kern_sum.csv")
                if top.exists():
                    import csv
                    facts["kernel_top"] = [row for row in csv.reader(top.read_text().splitlines())][1:16]
            elif result.under_nsys:
                info["nsys"] = {"error": "nsys wrote no report (the workload may have ended before nsys started)"}
            bundle.write_json("workload", "workload/workload.json", info)
            workload_record.status = "ok" if result.error is None else "failed"
            workload_record.error = result.error or (f"exit code {result.returncode}" if result.returncode else None)
            workload_record.seconds = round(result.seconds, 3)

        if args.bench:
            record = bundle.record("bench")
            if interrupted.is_set():
                record.status, record.error = "skipped", "interrupted (Ctrl-C)"
            else:
                say("bench: copy, matmul and PCIe measurements")
                started = time.monotonic()
                bench = run_bench()
                bench.update(_pcie_nominal(_read_json(bundle.path("hardware_capabilities.json")) or {}, bench))
                bundle.write_json("bench", "bench.json", bench)
                facts["bench"] = bench
                record.seconds = round(time.monotonic() - started, 3)
                record.status = "ok" if "error" not in bench and "skipped" not in bench else \
                    ("skipped" if "skipped" in bench else "failed")
                record.error = bench.get("error") or bench.get("skipped")

        hw = _read_json(bundle.path("hardware_capabilities.json")) or {}
        facts["nvml"] = hw.get("nvml") or {}
        facts["device_attributes"] = hw.get("device_attributes") or {}
        facts["host"] = hw.get("host") or {}
        topo = _read_json(bundle.path("topology/topology.json")) or {}
        facts["gpu_cpu_affinity"] = {g: a["cpu_affinity"] for g, a in (topo.get("gpu_affinity") or {}).items()}
        facts["xid"] = (_read_json(bundle.path("snapshots/xid.json")) or {}).get("xid_errors")
        found = rules.evaluate(facts)
        bundle.write_json("findings", "findings.json", [f.as_dict() for f in found])
        bundle.record("findings").status = "ok"

        arguments = redactor.argv(original_argv)
        meta = bundle.manifest(host_label, arguments, interrupted.is_set())
        meta.update({"duration_s": args.duration, "command": redactor.argv(command)})
        bundle.write_text("report", "summary.md", report.summary_markdown(meta, found, facts))
        power_limits = {d.index: d.power_limit_w for d in sampler.devices}
        bundle.write_text("report", "report.html", report.report_html(meta, found, facts, ticks,
                                                                      [d.index for d in sampler.devices], power_limits))
        bundle.record("report").status = "ok"
        bundle.write_json("redaction", "redaction_report.json", redactor.report())
        bundle.record("redaction").status = "ok"
        sampler.close()
        _remove_tree(work_dir)
        archive = bundle.finish(host_label, arguments, interrupted.is_set())
    except BaseException:
        if workload is not None and workload.proc is not None:
            from aiperf_lab.process_group import kill_group
            kill_group(workload.proc)
        bundle.abandon()
        raise
    finally:
        guard.done()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    say(f"{len(found)} finding(s); archive written" + (" (interrupted)" if interrupted.is_set() else ""))
    print(archive)
    return 130 if interrupted.is_set() else 0


BUSY_UTIL_PCT = 5.0


def _busy_window_summary(devices, ticks, start: float, end: float) -> list[dict]:
    """Telemetry over the workload, from its first to its last busy sample (any GPU over 5%): nsys's
    start-up and report writing, and the interpreter's start, are not the workload's GPU time. When no
    sample was busy, the whole window, marked never_busy."""
    from aiperf_lab.metrics.telemetry.summary import telemetry_summary

    window = [t for t in ticks if start <= t.t <= end]
    busy = [i for i, t in enumerate(window) if any((s.util_gpu_pct or 0) > BUSY_UTIL_PCT for s in t.gpus)]
    trimmed = window[busy[0]:busy[-1] + 1] if busy else window
    rows = telemetry_summary(devices, trimmed).as_dicts() if trimmed else []
    for row in rows:
        row["never_busy"] = not busy
        row["workload_s"] = round(end - start, 3)
    return rows


def _pcie_nominal(hardware: dict, bench: dict) -> dict:
    """The PCIe link's nominal per-direction bandwidth for GPU 0, and what the bench reached of it."""
    from aiperf_lab.metrics.nominal import pcie_nominal_gb_s

    gpus = (hardware.get("nvml") or {}).get("gpus") or []
    if not gpus or "h2d_pinned_gb_s" not in bench:
        return {}
    gpu = gpus[0]
    nominal = pcie_nominal_gb_s(gpu.get("pcie_gen_max"), gpu.get("pcie_width_max"))
    if not nominal:
        return {}
    return {"pcie_nominal_gb_s": nominal,
            "h2d_fraction_of_pcie": round(bench["h2d_pinned_gb_s"] / nominal, 3),
            "d2h_fraction_of_pcie": round(bench["d2h_pinned_gb_s"] / nominal, 3)}


def _read_json(path: Path):
    import json
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _remove_tree(path: Path) -> None:
    import shutil
    shutil.rmtree(path, ignore_errors=True)


def _show(argv: list[str]) -> int:
    from aiperf_lab.triage.archive import show

    if len(argv) != 1:
        raise InputError("aiperf-triage: show takes one archive")
    sys.stdout.write(show(Path(argv[0])))
    return 0


def _compare(argv: list[str]) -> int:
    from aiperf_lab.triage.archive import compare

    labels, rows, odd = compare([Path(a) for a in argv])
    widths = [max(len(r[0]) for r in rows)] + [max(len(labels[i]), *(len(r[i + 1]) for r in rows)) + 1
                                                  for i in range(len(labels))]
    print("  ".join(["field".ljust(widths[0])] + [label.ljust(widths[i + 1]) for i, label in enumerate(labels)]))
    for row, different in zip(rows, odd):
        cells = [(value + ("*" if i in different else "")).ljust(widths[i + 1]) for i, value in enumerate(row[1:])]
        print("  ".join([row[0].ljust(widths[0])] + cells))
    if any(odd):
        print("\n* differs from the other bundles")
    return 0


def run(argv: list[str]) -> int:
    if argv[:1] == ["show"]:
        return _show(argv[1:])
    if argv[:1] == ["compare"]:
        return _compare(argv[1:])
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1:]
        if not command:
            raise InputError("aiperf-triage: nothing after '--': give the command to run, or leave out '--'")
    else:
        options, command = argv, []
    args = build_parser().parse_args(options)
    if command and not _runnable(command[0]):
        raise InputError(f"aiperf-triage: cannot run {command[0]!r}: not found on the PATH or not executable")
    return run_triage(args, command, argv)


def _runnable(program: str) -> bool:
    import shutil

    if os.sep in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return shutil.which(program) is not None


def _short(path: Path | str, keep: int = 120) -> str:
    """A path for a one-line message: a 5,000-character one is shortened in the middle."""
    text = str(path)
    return text if len(text) <= keep else f"{text[:keep // 2]}...{text[-keep // 2:]}"


def _disk_errors_are_input_errors(run_command):
    """A full disk, a read-only or too-long path, a missing permission: exit 2 with one line."""
    import errno

    def guarded(argv: list[str]) -> int:
        try:
            return run_command(argv)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG, errno.EROFS, errno.EACCES, errno.EPERM,
                             errno.EMFILE, errno.ENFILE, errno.EIO, errno.ELOOP, errno.ENOTDIR, errno.EFBIG):
                where = f" ({_short(exc.filename)})" if exc.filename else ""
                raise InputError(f"aiperf-triage: {exc.strerror or exc}{where}") from None
            raise
    return guarded


def _early_signals() -> dict:
    """From the first instant: SIGTERM, like SIGINT, ends triage with exit 130 until the run installs
    its own handler (after which either one stops the run and still writes the archive). Returns the
    handlers it replaced."""
    def interrupt(_signum, _frame) -> None:
        raise KeyboardInterrupt
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[sig] = signal.signal(sig, interrupt)
        except ValueError:  # not the main thread (tests calling main from a thread)
            break
    return previous


def main(argv: list[str] | None = None) -> int:
    previous = _early_signals()
    try:
        return run_cli("aiperf-triage", _disk_errors_are_input_errors(run), argv)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
