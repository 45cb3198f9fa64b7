"""A stand-in for `nsys` that behaves as Nsight Systems 2025.3.1 did on an H100 (issue 12).

- `profile ... CMD`: prints "Collecting data...", runs CMD as its child, and keeps collecting after CMD
  ends (STANDIN_NSYS_LINGER_S, default for ever) until `nsys stop --session NAME`.
- SIGINT or SIGTERM to it while it collects: it writes nothing and exits.
- CUDA kernels and NVTX ranges reach the report only if CMD exited on its own (or through Python's
  KeyboardInterrupt, which runs the exit handlers; not killed by SIGTERM/SIGKILL) or the collection was
  stopped properly (`nsys stop`), which flushes them before CMD is terminated.
- `--duration N` ends the collection properly after N s (unless STANDIN_NSYS_IGNORE_DURATION is set).
- Writing takes STANDIN_NSYS_WRITE_S (default 0.5 s), signals ignored; then the .nsys-rep (JSON here).
- `export --type sqlite --output OUT REP`: an nsys-shaped SQLite file (kernel and NVTX tables only when
  they were flushed, as nsys creates tables lazily); NVTX_EVENTS.binaryData is filled only with
  `--include-blobs=true`, which `export --help` lists, as 2025.3.1's does.
- `stop --session NAME`: stops that session's collection (fails when STANDIN_NSYS_STOP_FAILS is set; once
  CMD has ended, refuses with nsys 2025.3.1's "Collection stop is not allowed in this state." when
  STANDIN_NSYS_REFUSE_AFTER_APP is set, as the real one did on the H100 while ending the collection).
Sessions are found through files in STANDIN_NSYS_STATE (a folder).
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

STATE = os.environ.get("STANDIN_NSYS_STATE", "/tmp")
KERNELS_PER_S = 50
VALUE_OPTIONS = {"--trace", "-t", "--output", "-o", "--force-overwrite", "-f", "--sample", "-s", "--cpuctxsw",
                 "--wait", "--session-new", "--gpu-metrics-devices", "--cuda-graph-trace", "--capture-range",
                 "--kill", "--duration", "-d", "--type", "--session"}


def parse(argv):
    options, i = {}, 0
    while i < len(argv) and argv[i].startswith("-"):
        key, eq, value = argv[i].partition("=")
        if eq:
            options[key] = value
            i += 1
        elif key in VALUE_OPTIONS:
            options[key] = argv[i + 1]
            i += 2
        else:
            options[key] = "true"
            i += 1
    return options, argv[i:]


def profile(argv):
    options, command = parse(argv)
    output = options.get("--output") or options.get("-o") or "report1"
    session = options.get("--session-new", f"profile-{os.getpid()}")
    linger = float(os.environ.get("STANDIN_NSYS_LINGER_S", "1e9"))
    duration = None if os.environ.get("STANDIN_NSYS_IGNORE_DURATION") else float(options.get("--duration", "1e9"))
    write_s = float(os.environ.get("STANDIN_NSYS_WRITE_S", "0.5"))
    state = {"stop": False}
    session_file = os.path.join(STATE, f"{session}.pid")
    with open(session_file, "w") as handle:
        handle.write(str(os.getpid()))

    def proper_stop(*_):
        state["stop"] = True

    def killed_while_collecting(signum, _frame):
        print(f"Signal {signum} received while collecting: no report.", flush=True)
        os.unlink(session_file)
        os._exit(128 + signum)

    signal.signal(signal.SIGUSR1, proper_stop)
    signal.signal(signal.SIGINT, killed_while_collecting)
    signal.signal(signal.SIGTERM, killed_while_collecting)
    epoch_ns = time.time_ns()
    t0 = time.monotonic()
    print("Collecting data...", flush=True)
    app = subprocess.Popen(command)
    app_start = time.monotonic() - t0
    flushed, app_end, returncode = False, None, None
    while True:
        code = app.poll()
        if code is not None and app_end is None:
            app_end, returncode = time.monotonic() - t0, code
            with open(session_file + ".app-ended", "w"):
                pass
            # exited on its own, or by Python's KeyboardInterrupt path (atexit runs, then it re-raises SIGINT):
            # CUPTI flushed at exit. SIGTERM or SIGKILL: no exit handlers, the buffers are lost.
            flushed = code >= 0 or code == -signal.SIGINT
        if duration is not None and time.monotonic() - t0 >= duration:
            state["stop"] = True          # nsys's own --duration: a proper stop
        if state["stop"]:
            if app_end is None:           # a proper stop flushes the buffers, then ends the application
                flushed, app_end = True, time.monotonic() - t0
                app.terminate()
                returncode = app.wait()
            break
        if app_end is not None and time.monotonic() - t0 - app_end >= linger:
            break
        time.sleep(0.02)
    stop_at = time.monotonic() - t0
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.unlink(session_file)
    if os.path.exists(session_file + ".app-ended"):
        os.unlink(session_file + ".app-ended")
    print("Generating '/tmp/nsys-report-standin.qdstrm'", flush=True)
    time.sleep(write_s)
    report = output if output.endswith(".nsys-rep") else output + ".nsys-rep"
    with open(report, "w") as handle:
        json.dump({"epoch_ns": epoch_ns, "collect_start_s": 0.0, "collect_stop_s": stop_at,
                   "app_start_s": app_start, "app_end_s": app_end, "flushed": flushed}, handle)
    print(f"Generated:\n    {os.path.abspath(report)}", flush=True)
    return returncode if returncode is not None and returncode >= 0 else 0


def stop(argv):
    if os.environ.get("STANDIN_NSYS_STOP_FAILS"):
        print("Error: the session could not be stopped (standin)", file=sys.stderr)
        return 1
    options, _ = parse(argv)
    session = options.get("--session")
    path = os.path.join(STATE, f"{session}.pid")
    if os.environ.get("STANDIN_NSYS_REFUSE_AFTER_APP") and os.path.exists(path + ".app-ended"):
        print("Collection stop is not allowed in this state.", file=sys.stderr)
        return 1
    try:
        pid = int(open(path).read())
    except (OSError, ValueError):
        print(f"Error: no session {session}", file=sys.stderr)
        return 1
    os.kill(pid, signal.SIGUSR1)
    return 0


def export(argv):
    if argv == ["--help"]:
        print("\t--include-blobs [true|false]\n\n           Controls if NVTX extended payloads are exported as binary data.")
        return 0
    options, rest = parse(argv)
    blob = b"\x01" + bytes(7) if options.get("--include-blobs") == "true" else None
    out = options["--output"]
    report = json.load(open(rest[0]))
    if os.path.exists(out):
        os.unlink(out)
    con = sqlite3.connect(out)
    con.executescript("""
        CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
        CREATE TABLE ANALYSIS_DETAILS(globalVid INTEGER, duration INTEGER, startTime INTEGER, stopTime INTEGER);
        CREATE TABLE META_DATA_CAPTURE(name TEXT, value TEXT);""")
    ns = 1_000_000_000
    start, stop_ = int(report["collect_start_s"] * ns), int(report["collect_stop_s"] * ns)
    con.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (?, '', '')", (report["epoch_ns"],))
    con.execute("INSERT INTO ANALYSIS_DETAILS VALUES (1, ?, ?, ?)", (stop_ - start, start, stop_))
    con.execute("INSERT INTO META_DATA_CAPTURE VALUES ('environment', ?)", (json.dumps(dict(os.environ)),))
    if report["flushed"] and report["app_end_s"] is not None:
        con.executescript("""
            CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, [end] INTEGER, deviceId INTEGER, contextId INTEGER,
                streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
            CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, [end] INTEGER, eventClass INTEGER,
                globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
            CREATE TABLE NVTX_EVENTS(start INTEGER, [end] INTEGER, eventType INTEGER, rangeId INTEGER,
                category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
                domainId INTEGER, binaryData BLOB);""")
        con.execute("INSERT INTO StringIds VALUES (1, 'standin_gemm_kernel'), (2, 'cudaLaunchKernel_v7000')")
        process = (1 << 56) | (4242 << 24)
        a, b = int(report["app_start_s"] * ns), int(report["app_end_s"] * ns)
        count = max(1, int((b - a) / ns * KERNELS_PER_S))
        step = max(1, (b - a) // count)
        for k in range(count):
            t = a + k * step
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 2, 0)",
                        (t, t + 5000, process | 1, k + 1))
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 1, 1)",
                        (t + 10000, t + 10000 + step // 2, k + 1, process))
            con.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, NULL, NULL, 'step', ?, NULL, NULL, 0, ?)",
                        (t, t + step // 2 + 20000, process | 1, blob))
    con.commit()
    con.close()
    return 0


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["--version"]:
        print("NVIDIA Nsight Systems version 2025.3.1.90-standin")
        return 0
    handlers = {"profile": profile, "stop": stop, "export": export}
    if not argv or argv[0] not in handlers:
        print(f"standin nsys: unsupported {argv[:1]}", file=sys.stderr)
        return 1
    return handlers[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
