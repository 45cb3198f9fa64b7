"""Session 23, h23r: readers, show and compare (issue 11), what this lane changed.

- `aiperf-triage show DIR` / `compare DIR ...` refused a bundle unpacked by `tar xf` ("is a directory, not a
  triage archive"). The folder is now read as its archive would be (the same bytes out), under the archive's
  rules: files and folders only (a link, FIFO or device inside is refused, never followed or opened), a
  bounded number of members and depth, only the members show and compare read are opened. A folder that is
  no bundle gets one line saying what to give.
"""

from __future__ import annotations

import contextlib
import io
import os
import tarfile
from pathlib import Path

import pytest

from aiperf_lab.triage.cli import main as triage_main

TRIAGE = Path(__file__).parent / "data" / "triage"


def _triage(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = triage_main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _unpacked(archive: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    (top,) = into.iterdir()
    return top


def _one_line_exit_2(result) -> str:
    code, out, err = result
    assert (code, out) == (2, ""), result
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# --- show and compare of an unpacked bundle --------------------------------------------------------------

@pytest.mark.parametrize("name", ["h200-fixture.tar.gz", "h200x2-bench.tar.gz"])
@pytest.mark.parametrize("which", ["bundle folder", "folder tar xf ran in"])
def test_show_of_an_unpacked_bundle_prints_what_show_of_its_archive_prints(tmp_path, name, which):
    top = _unpacked(TRIAGE / name, tmp_path / "x")
    given = top if which == "bundle folder" else tmp_path / "x"
    expected = _triage(["show", TRIAGE / name])
    assert expected[0] == 0
    assert _triage(["show", given]) == expected


def test_compare_of_unpacked_bundles_prints_what_compare_of_their_archives_prints(tmp_path):
    one = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "a")
    two = _unpacked(TRIAGE / "h200x2-bench.tar.gz", tmp_path / "b")
    expected = _triage(["compare", TRIAGE / "h200-fixture.tar.gz", TRIAGE / "h200x2-bench.tar.gz"])
    assert expected[0] == 0
    assert _triage(["compare", one, two]) == expected
    assert _triage(["compare", one, TRIAGE / "h200x2-bench.tar.gz"]) == expected


def test_a_folder_that_is_no_bundle_gets_one_line_saying_what_to_give(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    err = _one_line_exit_2(_triage(["show", tmp_path]))
    assert "no manifest.json" in err and ".tar.gz" in err and "folder unpacked" in err


@pytest.mark.parametrize("member", ["summary.md", "manifest.json", "workload/workload.json", "telemetry.csv"])
@pytest.mark.parametrize("kind", ["link to /dev/zero", "link to a file", "fifo"])
def test_a_link_or_fifo_inside_an_unpacked_bundle_is_refused_not_followed(tmp_path, member, kind):
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    target = top / member
    if target.exists():
        target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero" if kind == "link to /dev/zero" else top / "environment.txt", target)
    err = _one_line_exit_2(_triage(["show", top]))
    assert "link or device" in err and member in err
    _one_line_exit_2(_triage(["compare", top, TRIAGE / "h200-fixture.tar.gz"]))


def test_an_unpacked_bundle_too_deep_or_too_many_members_is_refused_in_one_line(tmp_path):
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    deep = top.joinpath(*["d"] * 40)
    deep.mkdir(parents=True)
    assert "deep" in _one_line_exit_2(_triage(["show", top]))
    top2 = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "y")
    many = top2 / "many"
    many.mkdir()
    for index in range(10_001):
        (many / str(index)).touch()
    assert "members" in _one_line_exit_2(_triage(["show", top2]))


def test_an_unreadable_member_folder_is_one_line(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    (top / "topology").chmod(0)
    try:
        err = _one_line_exit_2(_triage(["show", top]))
    finally:
        (top / "topology").chmod(0o755)
    assert "topology" in err


def test_a_member_over_the_read_cap_in_a_folder_is_said_too_large(tmp_path):
    top = _unpacked(TRIAGE / "h200-fixture.tar.gz", tmp_path / "x")
    with open(top / "manifest.json", "r+b") as handle:
        handle.truncate(17 * 1024 * 1024)
    err = _one_line_exit_2(_triage(["show", top]))
    assert "manifest.json" in err and "MiB" in err


# --- a large PyTorch trace: the per-event Python of the read -----------------------------------------------
# (benchmarks/stats_scale.py's 1,000,000-event trace: the figures are in docs/benchmarks.md, h23r)

import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402

from aiperf_lab.errors import InputError, NotAProfile  # noqa: E402
from aiperf_lab.metrics import json_stream, kineto  # noqa: E402

H200_TRACE = Path(__file__).parent / "data" / "h200" / "torch_encoder_layer.pt.trace.json"


def _streamed(path: Path, monkeypatch, chunk: int):
    """(events, meta) or the error, read by the streaming walk (no whole-document fast path) in `chunk`s."""
    monkeypatch.setattr(json_stream, "SMALL_DOCUMENT_BYTES", 0)
    monkeypatch.setattr(json_stream, "CHUNK_BYTES", chunk)
    reader = json_stream.TraceReader(path)
    try:
        return list(reader.events()), dict(reader.meta)
    except (InputError, NotAProfile) as exc:
        return type(exc).__name__, str(exc)


def _many_events(path: Path, count: int, separator: str = ",\n") -> Path:
    base = [e for e in json.loads(H200_TRACE.read_text())["traceEvents"] if isinstance(e, dict)]
    events = [base[i % len(base)] for i in range(count)]
    path.write_text('{"schemaVersion": 1, "traceEvents": [\n' + separator.join(json.dumps(e) for e in events)
                    + "\n], \"deviceProperties\": []}\n")
    return path


@pytest.mark.parametrize("chunk", [1, 7, 4096, 1 << 22])
def test_the_streamed_walk_gives_what_json_loads_gives(tmp_path, monkeypatch, chunk):
    # a guard of the run-of-values path: every cut of the buffer, blanks around the commas or none
    for separator in (",", " ,\n\n  ", ",\t"):
        path = _many_events(tmp_path / "t.json", 300, separator)
        document = json.loads(path.read_text())
        assert _streamed(path, monkeypatch, chunk) == (document["traceEvents"],
                                                       {"traceEvents": True, "schemaVersion": 1, "deviceProperties": []})


def test_the_streamed_walk_says_what_the_slow_walk_says_of_damaged_traces(tmp_path, monkeypatch):
    # the same events, or the same one-line message, as the walk of a value at a time (the run of values
    # stepped aside), for a trace cut at every 1/16, bytes flipped, NaN and 1e400 times, a 5,000-digit id and
    # a value nested past the recursion limit
    raw = _many_events(tmp_path / "t.json", 200).read_bytes()
    rng = random.Random(23)
    variants = [raw[:len(raw) * k // 16] for k in range(1, 16)]
    for _ in range(6):
        flipped = bytearray(raw)
        for _ in range(12):
            flipped[rng.randrange(len(flipped))] = rng.choice(b',{}[]":0123456789 \nNaIfinty-e.\\')
        variants.append(bytes(flipped))
    variants.append(raw.replace(b'"dur": 1', b'"dur": NaN', 5).replace(b'"ts": 1', b'"ts": 1e400', 3))
    variants.append(raw.replace(b'"correlation": ', b'"correlation": ' + b"9" * 5000, 1))
    variants.append(raw.replace(b'"args": {', b'"args": ' + b"[" * 5000 + b"]" * 5000 + b', "x": {', 1))
    path = tmp_path / "v.json"
    for data in variants:
        path.write_bytes(data)
        for chunk in (7, 4096):
            fast = _streamed(path, monkeypatch, chunk)
            monkeypatch.setattr(json_stream.TraceReader, "_run_of_values", lambda self: iter(()), raising=False)
            slow = _streamed(path, monkeypatch, chunk)
            monkeypatch.undo()
            assert fast == slow


def test_a_large_trace_is_read_without_python_steps_per_event(tmp_path, monkeypatch):
    # main: each of the 20,000 events went through _value (a peek, a decode, its checks) and _expect; now a run
    # of values in the buffer costs one C decode and one match each, and _value is called at the cuts alone
    path = _many_events(tmp_path / "t.json", 20_000)
    calls = []
    value = json_stream.TraceReader._value
    monkeypatch.setattr(json_stream.TraceReader, "_value", lambda self: calls.append(1) or value(self))
    events, _meta = _streamed(path, monkeypatch, 1 << 20)
    assert len(events) == 20_000
    assert len(calls) <= 50, len(calls)


def test_building_a_clean_trace_calls_no_checking_helper_per_event(monkeypatch):
    # main: _time_us twice, _key twice and _int_or up to three times an event; a clean event (a float time, int
    # or str pid/tid, an ASCII name, int ids) is now checked inline, the helpers left for the odd ones
    calls = []
    for name in ("_time_us", "_int_or", "_key", "_text", "_ns"):
        helper = getattr(kineto, name)
        monkeypatch.setattr(kineto, name, lambda *a, _h=helper: calls.append(1) or _h(*a))
    events = [e for e in json.loads(H200_TRACE.read_text())["traceEvents"]
              if isinstance(e, dict) and isinstance(e.get("ts"), float) and isinstance(e.get("dur", 0.0), float)
              and isinstance(e.get("name", ""), str) and e.get("name", "").isascii()]
    trace = kineto._build(H200_TRACE, iter(events), {})
    assert len(trace.ops) > 100
    assert calls == []


def _build_as_main_did(events):
    """main's per-event loop of kineto._build (6eddad3), through the helpers: what the inline checks must match."""
    launches, gpu_records, annotations, gpu_annotations, comm_calls, malformed = {}, [], [], [], [], 0
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X" or "ts" not in event:
            continue
        category = event.get("cat")
        if not isinstance(category, str):
            malformed += category is not None
            continue
        if category not in kineto.GPU_CATEGORIES and category not in kineto.LAUNCH_CATEGORIES and \
                category not in ("user_annotation", "gpu_user_annotation") and \
                not (category == "cpu_op" and event.get("name") == "record_param_comms"):
            continue
        ts, dur = kineto._time_us(event["ts"]), kineto._time_us(event.get("dur", 0))
        name = kineto._text(event.get("name", ""))
        pid, tid = kineto._key(event.get("pid")), kineto._key(event.get("tid"))
        args = event.get("args", {})
        if ts is None or dur is None or name is None or pid is kineto._MALFORMED or tid is kineto._MALFORMED \
                or not isinstance(args, dict):
            malformed += 1
            continue
        start = kineto._ns(ts)
        end = start + kineto._ns(dur)
        if category in kineto.LAUNCH_CATEGORIES:
            if "correlation" in args:
                launches[kineto._int_or(args["correlation"], -1)] = (start, pid, tid)
        elif category == "cpu_op":
            comm_calls.append((pid, tid, start, end, args))
        elif category in kineto.GPU_CATEGORIES:
            correlation = kineto._int_or(args.get("correlation"), -1) if "correlation" in args else None
            gpu_records.append((name, kineto.GPU_CATEGORIES[category], kineto._int_or(args.get("device", pid), 0),
                                kineto._int_or(args.get("stream", tid), 0), start, end, correlation))
        elif category == "user_annotation":
            annotations.append((name, pid, tid, start, end))
        else:
            gpu_annotations.append((name, pid, tid, start, end))
    return launches, gpu_records, annotations, gpu_annotations, comm_calls, malformed


ODD_VALUES = [0, 1, -1, 1.5, 2.0, -0.0, 1e300, 2.0 ** 52, 2.0 ** 53, -(2.0 ** 52), 2 ** 52, 2 ** 53, 2 ** 63,
              2 ** 63 - 1, -(2 ** 63), -(2 ** 63) - 1, 10 ** 30, math.inf, -math.inf, math.nan, True, False, None,
              "7", " 7 ", "-3", "x", "", "1.5", "99999999999999999999", [], [1], {}, {"a": 1}]
ODD_NAMES = ["gemm", "", "Ωmega", "a\ud800b", "\udfff", 5, None, ["x"], {"n": 1}, True]


def test_the_inline_checks_keep_every_value_the_helpers_gave():
    rng = random.Random(2311)
    categories = [*kineto.GPU_CATEGORIES, *kineto.LAUNCH_CATEGORIES, "user_annotation", "gpu_user_annotation",
                  "cpu_op", "python_function", None, 5, ["kernel"]]
    events = []
    for _ in range(6000):
        event = {"ph": rng.choice(["X", "X", "X", "B", None]), "cat": rng.choice(categories)}
        for key in ("ts", "dur", "pid", "tid"):
            if rng.random() < 0.9:
                event[key] = rng.choice(ODD_VALUES) if rng.random() < 0.5 else rng.choice([12.5, 3, 40.25, 7])
        if rng.random() < 0.9:
            event["name"] = rng.choice(ODD_NAMES) if rng.random() < 0.5 else "record_param_comms"
        args = {}
        for key in ("correlation", "device", "stream"):
            if rng.random() < 0.7:
                args[key] = rng.choice(ODD_VALUES) if rng.random() < 0.5 else rng.randrange(-5, 5)
        event["args"] = args if rng.random() < 0.95 else rng.choice([[], "a", 3, None])
        events.append(event if rng.random() < 0.98 else rng.choice([[], "x", 3]))
    trace = kineto._build(H200_TRACE, iter(events), {})
    launches, records, annotations, gpu_annotations, comm_calls, malformed = _build_as_main_did(events)
    assert trace.malformed == malformed
    assert trace.launch_pid == {c: pid for c, (_s, pid, _t) in launches.items()}
    assert [(o.name, o.kind, o.device, o.stream, o.start, o.end) for o in trace.ops] == [r[:6] for r in records]
    assert trace.op_correlation == [r[6] for r in records]
    assert [(a.name, a.pid, a.tid, a.start, a.end) for a in trace.annotations] == annotations
    assert [(a.name, a.pid, a.tid, a.start, a.end) for a in trace.gpu_annotations] == gpu_annotations
    assert [(c.pid, c.tid, c.start, c.end, c.args) for c in trace.comm_calls] == comm_calls
    for ours, main in zip(trace.ops, records):   # the same types too (an int 7 and a float 7.0 print apart)
        assert [type(v) for v in (ours.device, ours.stream, ours.start, ours.end)] == \
            [type(v) for v in main[2:6]]


def test_loading_a_large_trace_runs_no_cyclic_collection_and_leaves_the_collector_as_it_was(tmp_path):
    path = _many_events(tmp_path / "t.json", 20_000)
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])
    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        trace = kineto.load_trace(path)
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(count)
    assert len(trace.ops) > 1000
    assert collections == [], collections   # main: a collection every 700 allocations or so
    gc.disable()
    try:
        kineto.load_trace(path)
        assert not gc.isenabled()   # left off where the caller had it off
    finally:
        gc.enable()


# --- a stop signal while the pipeline is imported ----------------------------------------------------------
# Importing the pipeline (redaction's patterns) is 0.6 s CPU, 2 s and more at a load of 10: a signal then ended
# triage with "interrupted", nothing written. It is now kept and handed to the run: the archive is written,
# marked interrupted, and the workload is not started.

import subprocess  # noqa: E402
import sys  # noqa: E402

from conftest import REPO  # noqa: E402

SIGNAL_AT_IMPORT = """
import os, signal, sys
SIG = getattr(signal, sys.argv[1])
class SignalAtImport:
    def find_spec(self, name, path, target=None):
        if name == "aiperf_lab.triage.pipeline":
            os.kill(os.getpid(), SIG)
        return None
sys.meta_path.insert(0, SignalAtImport())
sys.argv = ["aiperf-triage", *sys.argv[2:]]
from aiperf_lab.triage.entry import main
sys.exit(main())
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_while_the_pipeline_is_imported_gets_the_archive_and_starts_no_workload(tmp_path, sig):
    mark = tmp_path / "the-workload-ran"
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", SIGNAL_AT_IMPORT, sig, "--duration", "5", "--no-nsys", "--output",
                           str(out), "--", sys.executable, "-c", f"open({str(mark)!r}, 'w')"],
                          cwd=REPO, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    archives = list(out.glob("*.tar.gz"))
    assert len(archives) == 1 and done.stdout.strip().endswith(archives[0].name), (done.stdout, done.stderr)
    assert not mark.exists()
    code, shown, _err = _triage(["show", archives[0]])
    assert code == 0 and "— **interrupted (" in shown, shown
    assert "not started: a stop signal came before it started" in shown, shown
    assert [p.name for p in out.iterdir()] == [archives[0].name]   # nothing half-written beside it
