"""One triage run as phases over TriageFacts: start, capture, summarize, find, report, archive.

Each bundle part goes through CollectorRun (its status, seconds and error in the manifest), and each
phase adds typed facts; the findings read only those. Progress goes to stderr as `aiperf-triage: ...`
lines (progress.py) that the console parses.
"""

from __future__ import annotations

import json
import os
import sqlite3
import re
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from aiperf_lab.cli_support import make_folders, short_path
from aiperf_lab.inputs import printable, shell_line
from aiperf_lab.errors import InputError
from aiperf_lab.triage import progress
from aiperf_lab.triage.bundle import BundleWriter
from aiperf_lab.triage.capture import StopPolicy
from aiperf_lab.triage.collectors import STANDARD_COLLECTORS, CollectorRun, Skipped
from aiperf_lab.triage.disk import DiskRoom, full_disk
from aiperf_lab.triage.facts import (CaptureCoverage, KernelRow, PcieLink, TelemetrySpan, TriageFacts, WorkloadFacts,
                                     busy_clocks, busy_window, summarize_devices)
from aiperf_lab.triage.findings import Finding, evaluate
from aiperf_lab.triage.guard import Guard
from aiperf_lab.triage.leftovers import become_subreaper, stop_being_subreaper
from aiperf_lab.triage.redact import Redactor, argv_secret_values

LOG_CAP_BYTES = 20 * 1024 * 1024   # per workload stream: the tail is kept (redacted as it streams)
TAIL_AFTER_EXIT_S = 2.0            # telemetry kept after the workload ends early, to see the ramp-down


GATHER_GRACE_S = 1.0   # a stop signal while the known secrets are gathered: how long they may still take (see start)


@dataclass
class TriageOptions:
    duration_s: float
    output: Path
    tag: str | None = None
    use_nsys: bool = True
    interval_ms: int = 100
    bench: bool = False
    redact_hosts: bool = False
    command: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)    # the command line as given, for the manifest
    policy: StopPolicy = field(default_factory=StopPolicy)




class Triage:
    def __init__(self, options: TriageOptions, emit: progress.Emitter):
        self.options = options
        self.emit = emit
        self.facts = TriageFacts()
        self.found: list[Finding] = []
        self.interrupts = 0
        self.interrupted = threading.Event()   # the first Ctrl-C or SIGTERM: stop waiting, keep what there is
        self.stopped_by_signal: str | None = None   # SIGINT (Ctrl-C), SIGTERM or SIGHUP: said in the bundle
        self.abandon = threading.Event()       # the third: stop long steps (the export) too
        self.signalled_at: float | None = None   # when the first stop signal came (time.monotonic)
        self.workload = None
        self.guard: Guard | None = None
        self.sampler = None
        self.writer = None
        self.ticks: list = []
        self.meta: dict = {}
        self.telemetry_error: str | None = None
        self.subreaper_missing: str | None = None

    # --- signals ----------------------------------------------------------------------------------
    def on_signal(self, signum, _frame) -> None:
        self.interrupts += 1
        name = signal.Signals(signum).name
        self.stopped_by_signal = self.stopped_by_signal or name
        if signum == signal.SIGHUP:
            _leave_the_hung_up_terminal()
        if self.signalled_at is None:
            self.signalled_at = time.monotonic()
        self.interrupted.set()
        if self.interrupts == 1:
            self.emit.say(f"{name}: stopping, the archive will still be written (again to hurry)")
        elif self.interrupts == 2:
            self.emit.say(f"{name} again: nsys stops its collection now; once more to abandon the trace")
        else:
            self.emit.say(f"{name} a third time: abandoning the trace; the archive is still written")
            self.abandon.set()
        if self.workload is not None and self.interrupts > 1:
            self.workload.hurry()

    # --- phases -----------------------------------------------------------------------------------
    def run(self, pending: list[int] | None = None) -> int:
        """`pending`: stop signals that came before (while the pipeline was imported): taken as this run's first,
        once its handler is in (a signal after that goes to the handler itself)."""
        # SIGHUP (the SSH session dropped) stops the run as SIGTERM does: the archive is still written.
        previous = {sig: signal.signal(sig, self.on_signal) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        for signum in list(pending or ()):
            self.on_signal(signum, None)
        # Orphans of the workload (a child that left its session) are re-parented to triage, not init.
        was_subreaper, self.subreaper_missing = become_subreaper() if self.options.command else (True, None)
        try:  # our handler stays until the archive's path is printed (a late signal only marks the run)
            try:
                self.start()
                try:
                    self.capture()
                    self.summarize()
                    self.find()
                    self.report()
                    archive = self.archive()
                except BaseException:
                    if self.workload is not None:
                        self.workload.kill_everything()   # a bug must not leave the workload or nsys running
                    self.bundle.abandon()
                    raise
            finally:
                if self.guard is not None:
                    self.guard.done()
            self.emit.archive(archive)
            try:
                print(printable(str(archive)), flush=True)   # a path with ESC in it must not drive the terminal
            except OSError as exc:   # (stdout on a full disk or closed: the archive is there all the same)
                raise InputError(f"aiperf-triage: the archive is written ({short_path(archive)}), but its path could "
                                 f"not be printed: {exc.strerror or exc}") from None
            return 130 if self.interrupted.is_set() else 0
        finally:
            if not was_subreaper:
                stop_being_subreaper()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _gathering_too_long(self) -> bool:
        """Whether a stop signal came GATHER_GRACE_S ago or more (Redactor(stop=): it then ends with KeyboardInterrupt,
        exit 130 and nothing written; a signal while the known secrets are gathered within the grace still gets the
        archive)."""
        return self.signalled_at is not None and time.monotonic() - self.signalled_at >= GATHER_GRACE_S

    def start(self) -> None:
        from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
        from aiperf_lab.metrics.telemetry.sampler import Sampler

        o = self.options
        # every piece argv redaction replaces in the command (and in the whole command line, as the manifest holds
        # it) is a known secret: the workload's print of it goes too
        known = list(dict.fromkeys(argv_secret_values(o.command) + argv_secret_values(o.arguments)))
        # (gathering the known secrets takes seconds in an environment of thousands of secret names, and nothing is
        # written yet: a stop signal GATHER_GRACE_S before it is done ends triage there, exit 130 and one line)
        self.redactor = Redactor(redact_hosts=o.redact_hosts, extra_secrets=known, stop=self._gathering_too_long)
        if o.tag and self.redactor.text(o.tag) != o.tag:   # it would name the archive and every member's folder
            raise InputError("aiperf-triage: --tag looks like a secret (a token's shape or a secret's value); "
                             "choose another tag")
        host = socket.gethostname() or "unknown-host"
        self.host_label = self.redactor.placeholder("host", host) if o.redact_hosts else host
        safe_host = re.sub(r"[^A-Za-z0-9._-]", "_", self.host_label)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        name = f"aiperf-triage-{safe_host}-{stamp}" + (f"-{o.tag}" if o.tag else "")
        try:
            make_folders(o.output)
            self.bundle = BundleWriter(o.output, name, self.redactor)
        except OSError as exc:
            # mkdir says "File exists" of a file, a FIFO or a device at the name: what is wrong is that it is no folder
            why = "not a folder" if isinstance(exc, FileExistsError) and not o.output.is_dir() else exc.strerror or exc
            raise InputError(f"aiperf-triage: cannot write to {short_path(o.output)}: {why}") from None
        # If triage is killed (SIGKILL, OOM), the guardian kills the workload and removes what is half-written.
        self.guard = Guard()
        self.guard.remove_on_kill(self.bundle.root)
        self.guard.remove_on_kill(self.bundle.partial_archive)
        self.room = DiskRoom(o.output)   # the workload's log stops before it takes the bundle's room
        self.emit.phase("start")   # after the output folder is known good: bad input stays one line
        self.work_dir = self.bundle.root / ".work"   # raw nsys output: private, removed on every exit
        self.work_dir.mkdir(mode=0o700)
        try:
            self.writer = TelemetryWriter.to_path(self.bundle.claim("telemetry", "telemetry.csv"),
                                                  scrub=self.redactor.text, users=not self.options.redact_hosts)
        except OSError as exc:
            self.bundle.abandon()
            raise InputError(f"aiperf-triage: cannot write to {short_path(o.output)}: {exc.strerror or exc}") from None
        rate = 1000.0 / o.interval_ms
        self.sampler = Sampler(min(rate, 100.0), window_s=o.duration_s + 600, recorder=self.writer)
        self.sampler.start()
        self.wall_t0 = time.time()
        self.emit.say(f"telemetry every {o.interval_ms} ms" + (f" ({self.sampler.status})" if self.sampler.status
                                                              else f" on {len(self.sampler.devices)} GPU(s)"))
        self.parts = CollectorRun(self.bundle, STANDARD_COLLECTORS)
        self.parts.on_done = self.emit.collector
        self.parts.start()

    def capture(self) -> None:
        from aiperf_lab.triage.workload import Workload

        o = self.options
        self.emit.phase("capture")
        deadline = time.monotonic() + o.duration_s
        if o.command:
            self.workload = Workload(o.command, self.work_dir, use_nsys=o.use_nsys,
                                     log_stdout=self.bundle.claim("workload", "workload/stdout.log"),
                                     log_stderr=self.bundle.claim("workload", "workload/stderr.log"),
                                     redactor=self.redactor, log_cap_bytes=LOG_CAP_BYTES, guard=self.guard,
                                     policy=o.policy, say=self.emit.nsys, duration_s=o.duration_s,
                                     room=self.room, interrupted=self.interrupted)
            self.workload.start()
            self.emit.say(f"workload started{' under nsys' if self.workload.nsys else ''}: "
                          f"{shell_line(self.redactor.argv(o.command))}")
        self.t_workload = self.sampler.now()
        self.facts.no_trace_because = self._why_no_trace()
        if o.command and self.facts.no_trace_because:
            self.emit.say(f"no nsys trace: {self.facts.no_trace_because}")
        ended_by, workload_end = "duration", None
        next_note = time.monotonic() + 10
        while not self.interrupted.is_set() and time.monotonic() < deadline:
            if self.workload is not None:
                self.workload.poll()
                if self.workload.finished():
                    workload_end = self._workload_end_s()
                    # nsys's own --duration ending the application is the duration running out
                    ended_by = "duration" if self.workload.result.stopped_by == "duration" else "workload"
                    self.interrupted.wait(min(TAIL_AFTER_EXIT_S, max(deadline - time.monotonic(), 0)))
                    break
            self.interrupted.wait(0.2)
            if time.monotonic() >= next_note:
                self.emit.say(f"{deadline - time.monotonic():.0f} s left; collectors still running: "
                              f"{', '.join(self.parts.pending()) or 'none'}")
                next_note += 10
        self.t_workload_end = self.sampler.now()
        if ended_by == "duration" and self.interrupted.is_set():
            ended_by = "interrupt"
        wait_end, stopped_workload = self.t_workload_end, False
        if self.workload is not None:
            if not self.workload.finished():
                stopped_workload = True
                self.emit.say("stopping the workload" + (" (SIGINT to the application; nsys then writes its report)"
                                                          if self.workload.nsys else " (SIGINT, SIGTERM, SIGKILL)"))
            self.workload.stop("interrupt" if self.interrupted.is_set() else "duration")
            self.t_workload_end = min(self.t_workload_end, self.sampler.now())
            for relative in ("workload/stdout.log", "workload/stderr.log"):   # written and closed now
                self.bundle.expendable(relative)
        stop_s = self.sampler.now() - wait_end
        self.parts.wait(stop=self.interrupted if self.interrupted.is_set() else None)
        bench_from = self.sampler.now()
        if o.bench:
            # While telemetry still samples: the bench's power and clocks come from it.
            self.parts.step("bench", self._bench)
        bench_s = self.sampler.now() - bench_from if o.bench else 0.0
        self.sampler.stop()
        try:
            self.writer.close()
        except OSError as exc:   # a full disk: telemetry.csv keeps what was flushed; the summary is from memory
            self.telemetry_error = f"telemetry.csv: {exc.strerror or exc}" + (" (cut by a full disk)"
                                                                              if full_disk(exc) else "")
        from aiperf_lab.triage.report import stopped_by_words
        self.facts.bench_asked = o.bench
        self.facts.recording = TelemetrySpan(
            o.duration_s, ended_by, round(wait_end, 3), round(self.sampler.now(), 3),
            round(workload_end, 3) if workload_end is not None else None, round(bench_s, 3),
            stopped_by_words=stopped_by_words(self.stopped_by_signal) if ended_by == "interrupt" else "",
            stopped_workload=stopped_workload, stop_s=round(stop_s, 3),
            under_nsys=bool(self.workload is not None and self.workload.nsys))
        self.emit.say("telemetry stopped")

    def _workload_end_s(self) -> float | None:
        """When the workload ended, on the telemetry's clock: its process's exit, or under nsys the
        moment its application was seen gone."""
        result = self.workload.result
        if self.workload.exited.is_set() and result.ended:
            ended = result.ended
        elif result.capture is not None and result.capture.application_ended_s is not None:
            ended = result.started + result.capture.application_ended_s
        else:
            return None
        return ended - (time.monotonic() - self.sampler.now())

    def _why_no_trace(self) -> str | None:
        """Why no nsys trace was attempted (None when the workload runs under nsys)."""
        if not self.options.command:
            return "no workload was given (nsys traces the command after --)"
        if not self.options.use_nsys:
            return "--no-nsys was given, so the workload ran without nsys"
        if self.workload is not None and not self.workload.nsys:
            return "nsys is not installed (not on PATH), so the workload ran without it"
        return None

    def summarize(self) -> None:
        self.emit.phase("summarize")
        results = self.parts.results
        self.facts.hardware = results.get("hardware") or self.facts.hardware
        self.facts.gpu_cpu_affinity = results.get("topology") or {}
        self.facts.xid = results.get("kernel_log") or []
        self.parts.step("telemetry", self._telemetry)
        if self.workload is not None:
            self.parts.step("workload", self._workload)

    def _telemetry(self) -> None:
        sampler = self.sampler
        _, self.ticks = sampler.ring.snapshot()
        if self.facts.recording is not None and self.ticks:
            self.facts.recording.first_s = round(self.ticks[0].t, 3)
            self.facts.recording.last_s = round(self.ticks[-1].t, 3)
            self.facts.recording.samples = len(self.ticks)
        self.facts.telemetry, notes = summarize_devices(sampler.devices, self.ticks)
        self.bundle.write_json("telemetry", "telemetry_summary.json",
                               {"status": sampler.status, "devices": [d.as_dict() for d in self.facts.telemetry],
                                "notes": notes})
        self.facts.pcie_seen = {i: PcieLink(s.pcie_gen, s.pcie_width) for i, s in sampler.slow.items()}
        self.facts.gpm_reasons = {info.index: info.gpm_reason for info in sampler.devices}
        self.facts.busy_clocks = busy_clocks(sampler.devices, self.ticks)
        record = self.bundle.record("telemetry")
        if sampler.errors:
            record.error = "; ".join(sampler.errors[:3])
        if self.telemetry_error:
            record.error = "; ".join(filter(None, [record.error, self.telemetry_error]))
        if not sampler.devices:   # the host's CPU and memory only: never "ok" beside "no NVIDIA driver"
            record.status, record.error = "host-only", sampler.status

    def _workload(self) -> None:
        from aiperf_lab.triage.nsys_capture import add_capture

        workload, o = self.workload, self.options
        result = workload.result
        ended = self.facts.recording.workload_end_s if self.facts.recording is not None else None
        # the window runs on through the ramp-down tail after an exit; the workload ran until its exit
        self.facts.telemetry_workload = busy_window(self.sampler.devices, self.ticks, self.t_workload,
                                                    self.t_workload_end,
                                                    max(0.0, ended - self.t_workload) if ended is not None else None)
        cpu_affinity = None
        try:
            import psutil
            cpu_affinity = psutil.Process().cpu_affinity()  # the workload inherited these CPUs
        except Exception:
            pass
        logs = workload.log_states()
        log_notes = [f"{name} cut by a full disk: {state['kept_bytes']} of {state['received_bytes']} bytes kept"
                     for name, state in logs.items() if state["cut_by_full_disk"]]
        log_notes += [f"{name}: the last {state['left_out_bytes']} of {state['received_bytes']} bytes left out "
                      f"({state['left_out_because']}; never written unredacted)"
                      for name, state in logs.items() if state["left_out_bytes"]]
        log_notes += [f"{name}: {state['redaction_failed_bytes']} bytes left out where redaction failed "
                      f"({state['redaction_failed_because']}; the log says where)"
                      for name, state in logs.items() if state["redaction_failed_bytes"]]
        self.facts.workload = WorkloadFacts(result.error is None, result.returncode, round(result.seconds, 3),
                                            result.stopped_by, list(result.signals_sent), result.under_nsys,
                                            cpu_affinity, result.capture, log_notes, result.error)
        info = {"command": self.redactor.argv(o.command), "argv": self.redactor.argv(result.argv),
                "exit_code": result.returncode, "seconds": round(result.seconds, 3),
                "stopped_by": result.stopped_by, "signals_sent": result.signals_sent,
                "under_nsys": result.under_nsys, "error": result.error, "logs": logs,
                "leftovers_ended": result.leftovers_ended,
                "subreaper": self.subreaper_missing or "yes: orphans of the workload were re-parented to triage"}
        if result.capture is not None:
            info["capture"] = result.capture.as_dict()
        reports = workload.report_files()
        if reports:
            tainted = self.redactor.tainted(" ".join(o.command)) or self.redactor.has_secrets or o.redact_hosts
            why = ("the environment or command line held secrets (or --redact-hosts was given) that cannot be "
                   "removed from nsys's binary format; the scrubbed SQLite export is in the bundle") if tainted else ""
            self.emit.say("exporting the nsys report")
            try:
                capture = add_capture(self.bundle, reports[0], keep_report=not tainted, why_not=why, stop=self.abandon)
            except (OSError, sqlite3.Error) as exc:
                if not (full_disk(exc) or "disk is full" in str(exc)):
                    raise
                # The trace does not fit: left out, with what it had written, so the rest of the bundle does.
                self.bundle.discard("nsys/")
                note = "the trace was left out: the disk was full"
                info["nsys"] = {"error": note}
                self.facts.coverage = CaptureCoverage(None, None, round(self.sampler.now(), 1), "observed",
                                                      written=False, note=note)
            else:
                info["nsys"] = capture.outcome
                self.facts.coverage = self._coverage(capture)
                self.facts.report_left_out_because = capture.outcome.get("nsys_rep_left_out")
                if capture.kernel_table is not None:
                    self.facts.kernel_top = [KernelRow(r["Time (%)"], r["Total Time (ns)"], r["Instances"], r["Name"])
                                             for r in capture.kernel_table.as_dicts()[:15]]
                # a full disk at the archive leaves these out whole (after the logs): the report first
                for relative in ("nsys/workload.nsys-rep", "nsys/workload.sqlite"):
                    self.bundle.expendable(relative, whole=True)
        elif result.under_nsys:
            outcome = result.capture.outcome if result.capture else None
            info["nsys"] = {"error": outcome or "nsys wrote no report"}
            self.facts.coverage = CaptureCoverage(None, None, round(self.sampler.now(), 1), "observed", written=False,
                                                  note=outcome or "nsys wrote no report")
        if self.facts.coverage is not None:
            info["coverage"] = self.facts.coverage.as_dict()
            self.emit.coverage(self.facts.coverage.text())
        self.bundle.write_json("workload", "workload/workload.json", info)
        record = self.bundle.record("workload")
        record.status = "ok" if result.error is None else "failed"
        record.error = result.error or (f"exit code {result.returncode}" if result.returncode else None)
        if log_notes:
            record.error = "; ".join(filter(None, [record.error, *log_notes]))
        if self.facts.coverage is not None and not self.facts.coverage.written:
            record.error = "; ".join(filter(None, [record.error, f"no trace: {self.facts.coverage.note}"]))

    def _coverage(self, capture) -> CaptureCoverage:
        """The trace's span on the telemetry clock: nsys's session times when the export has them, else
        what triage saw (nsys collecting, the application gone)."""
        span, telemetry_s = capture.span, round(self.sampler.now(), 3)
        started = self.workload.result.started
        base = started - (time.monotonic() - self.sampler.now())    # the workload's start on the telemetry clock
        log = self.workload.result.capture
        app_end = log.application_ended_s if log and log.application_ended_s is not None else \
            ((self.workload.result.ended or time.monotonic()) - started)
        ran = (round(self.t_workload, 3), round(base + app_end, 3))
        if span is not None and span.session_start_epoch_ns and span.collection_ns:
            to_s = lambda ns: round((span.session_start_epoch_ns + ns) / 1e9 - self.wall_t0, 3)  # noqa: E731
            kernel = (to_s(span.kernel_ns[0]), to_s(span.kernel_ns[1])) if span.kernel_ns else None
            return CaptureCoverage(max(0.0, to_s(span.collection_ns[0])), to_s(span.collection_ns[1]), telemetry_s,
                                   "export", span.kernels, span.nvtx_ranges, kernel, workload_span_s=ran)
        start = (log.collecting_from_s + base) if log and log.collecting_from_s is not None else None
        end_at = self.workload.result.ended or time.monotonic()
        return CaptureCoverage(round(start, 3) if start is not None else None,
                               round(end_at - started + base, 3), telemetry_s, "observed",
                               span.kernels if span else None, span.nvtx_ranges if span else None, workload_span_s=ran)

    def _bench(self) -> None:
        from aiperf_lab.triage.bench_phase import bench_into_bundle

        if self.interrupted.is_set():
            from aiperf_lab.triage.report import stopped_by_words
            raise Skipped(f"interrupted ({stopped_by_words(self.stopped_by_signal)})")
        hardware = self.parts.results.get("hardware") or self.facts.hardware
        # The topology matrix and nvlink -s are read from the bundle the collectors just wrote: the
        # link types (NV18, SYS) and rates survive redaction.
        topology = self.bundle.path("topology/topology.json")
        nvlink = self.bundle.path("snapshots/nvlink-status.txt")
        self.facts.bench_findings, self.facts.bench_lines = bench_into_bundle(
            self.bundle, sampler=self.sampler, hardware={"nvml": hardware.nvml},
            topology=json.loads(topology.read_text()) if topology.is_file() else None,
            nvlink_status=nvlink.read_text(errors="replace") if nvlink.is_file() else None,
            stop=self.interrupted, say=self.emit.say)

    def find(self) -> None:
        self.emit.phase("find")

        def work() -> None:
            self.found = evaluate(self.facts)
            self.bundle.write_json("findings", "findings.json", [f.as_dict() for f in self.found])
        self.parts.step("findings", work)
        for finding in self.found:
            self.emit.finding(finding)

    def report(self) -> None:
        from aiperf_lab.triage import report

        o = self.options
        self.emit.phase("report")
        self.meta = self.bundle.manifest(self.host_label, self.redactor.argv(o.arguments), self.interrupted.is_set())
        self.meta.update({"duration_s": o.duration_s, "command": self.redactor.argv(o.command),
                          "interrupted_by": self.stopped_by_signal})

        def work() -> None:
            self.bundle.write_text("report", "summary.md", report.summary_markdown(self.meta, self.found, self.facts))
            power_limits = {d.index: d.power_limit_w for d in self.sampler.devices}
            self.bundle.write_text("report", "report.html", report.report_html(
                self.meta, self.found, self.facts, self.ticks, [d.index for d in self.sampler.devices], power_limits))
        self.parts.step("report", work)
        self.parts.step("redaction", lambda: self.bundle.write_json("redaction", "redaction_report.json",
                                                                    self.redactor.report()))

    def archive(self) -> Path:
        import shutil

        self.emit.phase("archive")
        self.sampler.close()
        shutil.rmtree(self.work_dir, ignore_errors=True)
        extra = {"interrupted_by": self.stopped_by_signal} if self.stopped_by_signal else {}
        if self.facts.coverage is not None:
            extra["capture"] = self.facts.coverage.as_dict()
            if self.facts.workload is not None and self.facts.workload.capture is not None:
                extra["capture"]["log"] = self.facts.workload.capture.as_dict()
        archive = self.bundle.finish(self.host_label, self.redactor.argv(self.options.arguments),
                                     self.interrupted.is_set(), extra=extra)
        # "0 finding(s)" on a machine without a GPU read as a healthy GPU: no GPU rule could judge it
        judged = "" if self.facts.hardware.gpus else " (no GPU: no GPU rule could judge this machine)"
        self.emit.say(f"{len(self.found)} finding(s){judged}; archive written" +
                      (" (interrupted)" if self.interrupted.is_set() else ""))
        return archive


def _leave_the_hung_up_terminal() -> None:
    """After SIGHUP, writing to the terminal fails (EIO): the lines that would go there go nowhere, so
    that the run still finishes and writes its archive (its path is in --output)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in (1, 2):
            try:
                if os.isatty(fd):
                    os.dup2(devnull, fd)
            except OSError:
                os.dup2(devnull, fd)   # a terminal that is already gone can fail isatty
    finally:
        os.close(devnull)

