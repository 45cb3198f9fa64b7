"""Run an exercise: its workload (plain or under nsys, ncu or the PyTorch profiler), telemetry and
energy meanwhile, the profile's tables, and the exercise's checks over what was measured.

Everything lands in a run folder `runs/<UTC time>-<exercise>-<variant>/`: `run.json` (argv, env
delta, exit code, times, energy, device, measurements, checks), `stdout.log`, `telemetry.csv`, the
profiler's outputs and `tables/*.csv`. The console calls `run_exercise` with a line callback and a
cancel event; `python -m aiperf_lab.labs run` calls it from a terminal.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import aiperf_lab
from aiperf_lab.errors import InputError
from aiperf_lab.labs import expressions
from aiperf_lab.labs.catalog import PROFILERS, Exercise, find_exercise
from aiperf_lab.labs.grading import grade_run
from aiperf_lab.labs.result import parse_line
from aiperf_lab.metrics import config as metric_config
from aiperf_lab.process_group import escalate, waits_for

IDLE_BASELINE_S = 2.0
# A cancelled workload gets Ctrl-C first (profilers write their report on SIGINT), then SIGTERM, then SIGKILL.
STOP_STEPS = ((signal.SIGINT, 5.0), (signal.SIGTERM, 3.0), (signal.SIGKILL, 3.0))


@dataclass
class CheckResult:
    id: str
    text: str
    expr: str
    status: str          # pass, fail, skipped, error
    detail: str


@dataclass
class RunRecord:
    exercise: str
    variant: str
    profile: str
    size: str
    folder: str
    argv: list[str]
    env_delta: dict[str, str]
    started_utc: str
    ended_utc: str = ""
    seconds: float = 0.0
    exit_code: int | None = None
    cancelled: bool = False
    device: dict[str, Any] = field(default_factory=dict)
    energy: dict[str, Any] = field(default_factory=dict)
    measurements: dict[str, Any] = field(default_factory=dict)
    tables: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    grade: str = ""          # pass, failed, not graded (aiperf_lab.labs.grading)
    grade_reason: str = ""

    @property
    def passed(self) -> bool:
        return self.grade == "pass"


def _chapter(exercise: Exercise) -> str | None:
    return next((c for c in exercise.chapters if c in metric_config.CHAPTER_OVERRIDES), None)


def visible_gpu_count() -> int:
    """GPUs a workload will see: CUDA_VISIBLE_DEVICES when set, else NVML's count, else 0."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([v for v in visible.split(",") if v.strip() and not v.strip().startswith("-")])
    try:
        import pynvml
        pynvml.nvmlInit()
        try:
            return int(pynvml.nvmlDeviceGetCount())
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # no driver, no library: no GPUs
        return 0


def build_argv(exercise: Exercise, variant: str, profile: str, size: str, folder: Path,
               seconds: float | None = None, gpus: int = 1) -> list[str]:
    """The command line, an argv list: the workload (through torchrun for multi-GPU exercises),
    wrapped by the profiler the run asks for."""
    chosen = exercise.variant(variant)
    module = f"aiperf_lab.labs.workloads.{exercise.workload}"
    if exercise.launcher == "torchrun":
        workload = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(gpus),
                    "-m", module]
    else:
        workload = [sys.executable, "-m", module]
    workload += ["--variant", chosen.name, "--size", size, *chosen.args]
    if seconds is not None:
        workload += ["--seconds", str(seconds)]
    recipe = exercise.profile.get(profile) or {}
    if profile == "none":
        return workload
    if profile not in exercise.profile:
        raise InputError(f"{exercise.id} has no {profile} recipe; it offers: "
                         f"{', '.join(['none', *exercise.profile]) }")
    metrics = metric_config.resolve(_chapter(exercise), recipe.get("preset", "minimal"),
                                    add_ncu=recipe.get("metrics", ()))
    if recipe.get("trace"):
        metrics.nsys_trace = list(recipe["trace"])
    if profile == "nsys":
        tool = shutil.which("nsys")
        if not tool:
            raise InputError("profiling with nsys needs Nsight Systems' `nsys` on the PATH")
        extra = [str(a) for a in recipe.get("extra", ())]
        if recipe.get("sample_cpu"):
            extra = ["--sample", "process-tree", "--cpuctxsw", "none", *extra]
        if recipe.get("capture"):
            # only the part the workload marks with cudaProfilerStart/Stop (common.profiled); "stop", not
            # the default stop-shutdown, so the workload lives on to report its measurements
            extra = ["--capture-range", "cudaProfilerApi", "--capture-range-end", "stop", *extra]
        return metric_config.nsys_profile_argv(workload, str(folder / "profile"), metrics, nsys=tool,
                                               sample_cpu=bool(recipe.get("sample_cpu")), extra=extra)
    if profile == "ncu":
        tool = shutil.which("ncu")
        if not tool:
            raise InputError("profiling with ncu needs Nsight Compute's `ncu` on the PATH")
        return metric_config.ncu_argv(workload, str(folder / "profile"), metrics, ncu=tool,
                                      kernel_regex=recipe.get("kernel_regex"),
                                      launch_skip=int(recipe.get("launch_skip", 0)),
                                      launch_count=recipe.get("launch_count"))
    return workload + ["--torch-trace", str(folder / "torch_trace.json")]


def run_exercise(exercise_id: str, variant: str | None = None, profile: str = "none", size: str = "full",
                 runs_dir: Path = Path("runs"), seconds: float | None = None, sampler=None,
                 on_line: Callable[[str], None] | None = None,
                 cancel: threading.Event | None = None) -> RunRecord:
    try:
        exercise = find_exercise(exercise_id)
        chosen = exercise.variant(variant)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    if profile not in PROFILERS:
        raise InputError(f"unknown profiler {profile!r}; choose from {', '.join(PROFILERS)}")
    stamp = datetime.now(timezone.utc)
    folder = Path(runs_dir) / f"{stamp:%Y%m%dT%H%M%SZ}-{exercise.id}-{chosen.name}"
    gpus = visible_gpu_count() if exercise.min_gpus > 1 or exercise.launcher == "torchrun" else 1
    if gpus < exercise.min_gpus:
        raise InputError(f"{exercise.id} needs at least {exercise.min_gpus} GPUs; this machine shows {gpus}"
                         + (" (CUDA_VISIBLE_DEVICES limits it)" if "CUDA_VISIBLE_DEVICES" in os.environ else ""))
    # The argv first: a missing profiler is an error before anything is written.
    argv = build_argv(exercise, chosen.name, profile, size, folder, seconds, gpus=max(gpus, 1))
    try:
        folder.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise InputError(f"cannot create the run folder {folder}: {exc.strerror or exc}") from None
    env_delta = {"PYTHONUNBUFFERED": "1", "AIPERF_RUN_DIR": str(folder.resolve()), "PYTHONPATH": os.pathsep.join(
        filter(None, [str(Path(aiperf_lab.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]))}
    record = RunRecord(exercise.id, chosen.name, profile, size, str(folder), argv, env_delta,
                       stamp.isoformat(timespec="seconds"))

    own_sampler = sampler is None
    writer = None
    if own_sampler:
        from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
        from aiperf_lab.metrics.telemetry.sampler import Sampler
        writer = TelemetryWriter.to_path(folder / "telemetry.csv")
        sampler = Sampler(10, window_s=3600, recorder=writer).start()
    try:
        if sampler.devices:
            record.device = {"gpus": [{"index": d.index, "name": d.name, "power_limit_w": d.power_limit_w}
                                      for d in sampler.devices]}
            with sampler.measure() as idle:
                time.sleep(IDLE_BASELINE_S)
            baseline = {g.index: g.avg_power_w for g in idle.result().per_gpu if g.avg_power_w is not None}
        else:
            record.device = {"gpus": [], "status": sampler.status}
            baseline = {}
        with sampler.measure(idle_baseline_w=baseline) as span:
            result = _stream(argv, {**os.environ, **env_delta}, folder / "stdout.log", on_line, cancel, record)
        energy = span.result(work=result.get("work"), work_unit=str(result.get("work_unit", "")))
    finally:
        if own_sampler:
            sampler.close()
            writer.close()
    record.ended_utc = datetime.now(timezone.utc).isoformat(timespec="seconds")
    record.seconds = round(energy.duration_s, 3)
    record.energy = energy.as_dict()
    record.measurements = _measurements(result, energy, baseline, sampler)
    if record.exit_code == 0:
        record.tables, derived = _profile_tables(profile, folder, record.notes, exercise.profile.get(profile) or {})
        record.measurements.update(derived)
    record.checks = _evaluate(exercise, record, on_gpu=bool(sampler.devices))
    graded = grade_run(record.exit_code, record.cancelled, record.checks)
    record.grade, record.grade_reason = graded.word, graded.reason
    (folder / "run.json").write_text(json.dumps(asdict(record), indent=2, default=str) + "\n")
    return record


def _stream(argv: list[str], env: dict[str, str], log_path: Path, on_line, cancel, record: RunRecord) -> dict:
    """Run with stdin closed and its own process group; copy every line to the log and the callback."""
    result: dict = {}
    with log_path.open("w", encoding="utf-8") as log:
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    env=env, start_new_session=True, text=True, errors="replace", bufsize=1)
        except OSError as exc:
            raise InputError(f"cannot start {argv[0]}: {exc.strerror or exc}") from None
        watcher = None
        if cancel is not None:
            def watch() -> None:
                while proc.poll() is None:
                    if cancel.wait(0.2):
                        record.cancelled = True
                        escalate(proc, STOP_STEPS, waits_for(proc))
                        return
            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            parsed = parse_line(line)
            if parsed is not None:
                result = parsed
            if on_line is not None:
                on_line(line.rstrip("\n"))
        record.exit_code = proc.wait()
        if watcher is not None:
            watcher.join(timeout=1)
    return result


def _measurements(result: dict, energy, baseline: dict[int, float], sampler) -> dict:
    values = {k: v for k, v in result.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
    values["run_seconds"] = round(energy.duration_s, 3)
    first = energy.per_gpu[0] if energy.per_gpu else None
    if first is not None:
        values.update({"energy_j": first.joules, "energy_source": first.source, "avg_power_w": first.avg_power_w,
                       "peak_power_w": first.peak_power_w, "idle_power_w": baseline.get(first.index),
                       "work_per_joule": first.work_per_joule})
        from aiperf_lab.metrics.nominal import nominal_for, pcie_nominal_gb_s

        status = sampler.slow.get(first.index)
        if status is not None:
            values["pcie_nominal_gb_s"] = pcie_nominal_gb_s(status.pcie_gen_max, status.pcie_width_max)
        name = next((d.name for d in sampler.devices if d.index == first.index), None)
        nominal = nominal_for(name)
        if nominal and result.get("dtype") in ("bf16", "fp32"):
            values["nominal_tflops"] = nominal[f"{result['dtype']}_matmul_tflops"]
    return values


def _profile_tables(profile: str, folder: Path, notes: list[str], recipe: dict) -> tuple[list[str], dict]:
    """Parse what the profiler wrote into tables/*.csv, and the measurements checks can use."""
    from aiperf_lab.labs import analyses
    from aiperf_lab.errors import MissingData
    from aiperf_lab.metrics.sources import open_profile
    from aiperf_lab.metrics.tables import to_csv

    candidates = {"nsys": ["profile.nsys-rep"], "ncu": ["profile.ncu-rep"], "torch": ["torch_trace.json"]}.get(profile)
    path = next((folder / name for name in candidates or [] if (folder / name).exists()), None)
    if path is None:
        if candidates:
            notes.append(f"the {profile} output was not written")
        return [], {}
    try:
        opened = open_profile(path)
    except InputError as exc:
        notes.append(f"could not read the {profile} output: {exc}")
        return [], {}
    (folder / "tables").mkdir(exist_ok=True)
    tables = {}
    for report in opened.reports:
        try:
            for table in opened.report(report):
                tables[table.name] = table
        except (MissingData, InputError):
            continue
    derived = analyses.derive(tables, recipe)
    export = path.with_suffix(".sqlite")
    for name in recipe.get("analyses", ()):
        if not export.exists():
            notes.append(f"analysis {name} needs the nsys SQLite export")
            continue
        try:
            extra_tables, extra = analyses.ANALYSES[name](export, tables, recipe, folder)
        except (MissingData, InputError) as exc:
            notes.append(f"analysis {name}: {exc}")
            continue
        tables.update({t.name: t for t in extra_tables})
        derived.update(extra)
    for table in tables.values():
        (folder / "tables" / f"{table.name}.csv").write_text(to_csv(table))
    return list(tables), derived


def _evaluate(exercise: Exercise, record: RunRecord, on_gpu: bool) -> list[CheckResult]:
    results = []
    for check in exercise.checks:
        if record.exit_code != 0:
            status, detail = "skipped", f"the workload exited {record.exit_code}"
        elif check.variant and check.variant != record.variant:
            status, detail = "skipped", f"applies to the {check.variant} variant"
        elif check.profile and check.profile != record.profile:
            status, detail = "skipped", f"needs a run with --profile {check.profile}"
        elif check.gpu_only and not on_gpu:
            status, detail = "skipped", "needs a GPU (this run had none)"
        else:
            try:
                passed, detail = expressions.evaluate(check.expr, record.measurements)
                status = "pass" if passed else "fail"
            except expressions.CheckError as exc:
                status, detail = "error", str(exc)
        results.append(CheckResult(check.id, check.text, check.expr, status, detail))
    return results
