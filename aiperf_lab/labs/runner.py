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
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import aiperf_lab
from aiperf_lab.errors import InputError
from aiperf_lab.labs import expressions
from aiperf_lab.labs.catalog import PROFILERS, Exercise, find_exercise
from aiperf_lab.labs.gpus import used_devices
from aiperf_lab.labs.grading import grade_run
from aiperf_lab.labs.record import CheckResult, RunRecord  # noqa: F401  (RunRecord is part of this module's API)
from aiperf_lab.labs.result import parse_line
from aiperf_lab.metrics import config as metric_config
from aiperf_lab.process_group import escalate, waits_for
from aiperf_lab.replaced_file import write_text_replacing

IDLE_BASELINE_S = 2.0
# A cancelled workload gets Ctrl-C first (profilers write their report on SIGINT), then SIGTERM, then SIGKILL.
STOP_STEPS = ((signal.SIGINT, 5.0), (signal.SIGTERM, 3.0), (signal.SIGKILL, 3.0))


def _chapter(exercise: Exercise) -> str | None:
    return next((c for c in exercise.chapters if c in metric_config.CHAPTER_OVERRIDES), None)


def visible_gpu_count() -> int:
    """GPUs a workload will see: CUDA_VISIBLE_DEVICES when set, else NVML's count, else 0."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([v for v in visible.split(",") if v.strip() and not v.strip().startswith("-")])
    from aiperf_lab.metrics.telemetry.nvml import device_count

    return device_count()  # 0 with no driver or no nvidia-ml-py


def parse_knobs(exercise: Exercise, settings: list[str] | dict[str, str] | None,
                variant: str | None = None) -> dict[str, int | float]:
    """`--set name=value` settings checked against the exercise's declared knobs, and with a variant
    against the knobs that change that variant (InputError otherwise: a knob the run would ignore is
    refused, not silently dropped)."""
    pairs = list(settings.items()) if isinstance(settings, dict) else []
    for item in settings if isinstance(settings, list) else []:
        name, sep, value = str(item).partition("=")
        if not sep:
            raise InputError(f"--set takes NAME=VALUE, not {item!r}")
        pairs.append((name.strip(), value.strip()))
    knobs: dict[str, int | float] = {}
    for name, value in pairs:
        try:
            knobs[name] = exercise.knob(name, variant).parse(str(value))
        except (KeyError, ValueError) as exc:
            raise InputError(f"--set {name}={value}: {exc.args[0]}") from None
    return knobs


def missing_pytorch() -> str | None:
    """Why no workload can start here, or None: every workload imports PyTorch, in this same Python
    (sys.executable). Said before the run, not as a run that "failed" with exit 2."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return ("the workloads need PyTorch, and this Python has none: pip install 'aiperf-lab[labs]' "
                "(or a torch build for your CUDA)")
    return None


PROFILER_TOOLS = {"nsys": ("nsys", "profiling with nsys needs Nsight Systems' `nsys` on the PATH"),
                  "ncu": ("ncu", "profiling with ncu needs Nsight Compute's `ncu` on the PATH")}


def cannot_start_here(profile: str) -> str | None:
    """Why no run with `profile` (none, nsys, ncu, torch) can start on this machine, whatever the exercise,
    in the words the run would stop with; None where it can. The console's Labs footer asks it, so it offers
    only the keys that can start a run here."""
    if profile in PROFILER_TOOLS and not shutil.which(PROFILER_TOOLS[profile][0]):
        return PROFILER_TOOLS[profile][1]   # said first, as build_argv does
    return missing_pytorch()   # every workload imports PyTorch, the PyTorch profiler's runs included


def build_argv(exercise: Exercise, variant: str, profile: str, size: str, folder: Path,
               seconds: float | None = None, gpus: int = 1, knobs: dict[str, Any] | None = None) -> list[str]:
    """The command line, an argv list: the workload (through torchrun for multi-GPU exercises),
    wrapped by the profiler the run asks for. InputError where it cannot run here (no profiler, no
    PyTorch), before anything is written."""
    argv = _argv(exercise, variant, profile, size, folder, seconds, gpus, knobs)
    why = missing_pytorch()
    if why:
        raise InputError(why)
    return argv


def _argv(exercise: Exercise, variant: str, profile: str, size: str, folder: Path,
          seconds: float | None, gpus: int, knobs: dict[str, Any] | None) -> list[str]:
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
    for name, value in (knobs or {}).items():
        workload += ["--set", f"{name}={value}"]
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
            raise InputError(PROFILER_TOOLS["nsys"][1])
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
            raise InputError(PROFILER_TOOLS["ncu"][1])
        return metric_config.ncu_argv(workload, str(folder / "profile"), metrics, ncu=tool,
                                      kernel_regex=recipe.get("kernel_regex"),
                                      launch_skip=int(recipe.get("launch_skip", 0)),
                                      launch_count=recipe.get("launch_count"))
    return workload + ["--torch-trace", str(folder / "torch_trace.json")]


def run_exercise(exercise_id: str, variant: str | None = None, profile: str = "none", size: str = "full",
                 runs_dir: Path = Path("runs"), seconds: float | None = None, sampler=None,
                 on_line: Callable[[str], None] | None = None,
                 cancel: threading.Event | None = None, knobs: list[str] | dict[str, str] | None = None) -> RunRecord:
    try:
        exercise = find_exercise(exercise_id)
        chosen = exercise.variant(variant)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    if profile not in PROFILERS:
        raise InputError(f"unknown profiler {profile!r}; choose from {', '.join(PROFILERS)}")
    chosen_knobs = parse_knobs(exercise, knobs, chosen.name)
    stamp = datetime.now(timezone.utc)
    folder = Path(runs_dir) / f"{stamp:%Y%m%dT%H%M%SZ}-{exercise.id}-{chosen.name}"
    gpus = visible_gpu_count() if exercise.min_gpus > 1 or exercise.launcher == "torchrun" else 1
    if gpus < exercise.min_gpus:
        raise InputError(f"{exercise.id} needs at least {exercise.min_gpus} GPUs; this machine shows {gpus}"
                         + (" (CUDA_VISIBLE_DEVICES limits it)" if "CUDA_VISIBLE_DEVICES" in os.environ else ""))
    # The argv first: a missing profiler or PyTorch is an error before anything is written.
    argv = build_argv(exercise, chosen.name, profile, size, folder, seconds, gpus=max(gpus, 1), knobs=chosen_knobs)
    try:
        folder.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise InputError(f"cannot create the run folder {folder}: {exc.strerror or exc}") from None
    env_delta = {"PYTHONUNBUFFERED": "1", "AIPERF_RUN_DIR": str(folder.resolve()), "PYTHONPATH": os.pathsep.join(
        filter(None, [str(Path(aiperf_lab.__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]))}
    record = RunRecord(exercise.id, chosen.name, profile, size, str(folder), argv, env_delta,
                       stamp.isoformat(timespec="seconds"), knobs=dict(chosen_knobs))

    own_sampler = sampler is None
    writer = None
    if own_sampler:
        from aiperf_lab.metrics.telemetry.recording import TelemetryWriter
        from aiperf_lab.metrics.telemetry.sampler import Sampler
        writer = TelemetryWriter.to_path(folder / "telemetry.csv")
        # an exercise that splits energy by phase asks for a faster rate in its recipe (telemetry_hz)
        rate = float((exercise.profile.get(profile) or {}).get("telemetry_hz", 10))
        sampler = Sampler(rate, window_s=3600, recorder=writer).start()
    try:
        if sampler.devices:
            record.device = {"gpus": [{"index": d.index, "name": d.name, "uuid": d.uuid,
                                       "memory_bytes": d.mem_total_bytes, "power_limit_w": d.power_limit_w}
                                      for d in sampler.devices]}
            with sampler.measure() as idle:
                time.sleep(IDLE_BASELINE_S)
            baseline = {g.index: g.avg_power_w for g in idle.result().per_gpu if g.avg_power_w is not None}
        else:
            record.device = {"gpus": [], "status": sampler.status}
            baseline = {}
        run_start = sampler.now()
        with sampler.measure(idle_baseline_w=baseline) as span:
            result = _stream(argv, {**os.environ, **env_delta}, folder / "stdout.log", on_line, cancel, record)
        energy = span.result(work=result.get("work"), work_unit=str(result.get("work_unit", "")))
        if not own_sampler:
            _save_feed_telemetry(sampler, folder / "telemetry.csv", run_start)
    finally:
        if own_sampler:
            sampler.close()
            writer.close()
    record.ended_utc = datetime.now(timezone.utc).isoformat(timespec="seconds")
    record.seconds = round(energy.duration_s, 3)
    processes = gpus if exercise.launcher == "torchrun" else 1
    mapping = used_devices(result, sampler.devices, os.environ.get("CUDA_VISIBLE_DEVICES"),
                           os.environ.get("CUDA_DEVICE_ORDER"), processes)
    record.device.update(ran_on=ran_on(result), used_gpus=[d.index for d in mapping.used])
    record.notes.extend(mapping.notes)
    record.energy = energy.as_dict()
    record.measurements = _measurements(result, energy, baseline, sampler, mapping.used)
    if record.exit_code == 0:
        record.tables, derived = _profile_tables(profile, folder, record.notes, exercise.profile.get(profile) or {},
                                                 work=(result.get("work"), str(result.get("work_unit") or "")),
                                                 gpu=mapping.used[0].index if len(mapping.used) == 1 else None)
        record.measurements.update(derived)
    record.checks = _evaluate(exercise, record)
    graded = grade_run(record.exit_code, record.cancelled, record.checks)
    record.grade, record.grade_reason = graded.word, graded.reason
    # (written whole or not at all: a kill mid-write must not leave a run.json the readers take for a record)
    write_text_replacing(folder / "run.json", json.dumps(asdict(record), indent=2, default=str) + "\n")
    return record


def _save_feed_telemetry(feed, path: Path, since: float) -> None:
    """The run's span of a live feed the caller owns (the console's sampler), as telemetry.csv: the
    energy tables need it. Only a live sampler's ticks carry a real clock (utc_origin_ns); a replay's
    or a synthetic feed's do not, and nothing is written for them."""
    origin = getattr(feed, "utc_origin_ns", None)
    if origin is None or getattr(feed, "kind", "") != "nvml":
        return
    from aiperf_lab.metrics.telemetry.recording import TelemetryWriter

    _version, ticks = feed.ring.snapshot()
    kept = [t for t in ticks if t.t >= since - 1.0]
    if not kept:
        return
    writer = TelemetryWriter.to_path(path)
    writer.utc_origin_ns = origin
    for tick in kept:
        writer.write(tick, feed.slow)
    writer.close()


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
                    # cancelled only when the workload was still running to be stopped: one that ended on its
                    # own just as the cancel came keeps its own exit code and grade
                    if cancel.wait(0.2) and proc.poll() is None:
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


def ran_on(result: dict) -> dict[str, Any]:
    """Where and how the workload says it ran: device ("cuda", "cpu" or "unknown" when it said
    nothing) and size."""
    device = result.get("device")
    return {"device": device if device in ("cuda", "cpu") else "unknown", "size": result.get("size")}


def _measurements(result: dict, energy, baseline: dict[int, float], sampler, used: list) -> dict:
    """The workload's numbers, the run time, and energy and power of the GPUs it used (summed over
    them; per GPU in run.json's energy), with their PCIe link and datasheet figures."""
    values = {k: v for k, v in result.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool)}
    values["run_seconds"] = round(energy.duration_s, 3)
    indices = [d.index for d in used]
    mine = [g for g in energy.per_gpu if g.index in indices]
    if not mine:
        return values

    def total(figures):
        figures = list(figures)
        return round(sum(figures), 3) if figures and all(f is not None for f in figures) else None

    joules = total(g.joules for g in mine)
    values.update({"energy_j": joules, "energy_source": "counter" if all(g.source == "counter" for g in mine)
                   else "integrated", "avg_power_w": total(g.avg_power_w for g in mine),
                   "peak_power_w": max((g.peak_power_w for g in mine if g.peak_power_w is not None), default=None),
                   "idle_power_w": total(baseline.get(i) for i in indices),
                   "work_per_joule": energy.work / joules if energy.work is not None and joules else None,
                   "gpus_used": len(mine)})
    from aiperf_lab.metrics.nominal import datasheet_for, pcie_nominal_gb_s

    first = used[0]
    status = sampler.slow.get(first.index)
    if status is not None:
        values["pcie_nominal_gb_s"] = pcie_nominal_gb_s(status.pcie_gen_max, status.pcie_width_max)
    values["gpu_name"] = first.name
    sheets = {datasheet_for(d.name, d.mem_total_bytes) for d in used}
    sheet = sheets.pop() if len(sheets) == 1 else None
    if sheet is not None:
        values["nominal_memory_tb_s"] = sheet.memory_tb_s
        rate = {"bf16": sheet.bf16_tflops, "fp32": sheet.fp32_tflops}.get(str(result.get("dtype")))
        if rate is not None:
            values["nominal_tflops"] = rate
            achieved = values.get("tflops")
            if isinstance(achieved, (int, float)) and not isinstance(achieved, bool):
                values["datasheet_tflops_pct"] = round(100 * achieved / rate, 1)
    return {k: v for k, v in values.items() if v is not None}


def _profile_tables(profile: str, folder: Path, notes: list[str], recipe: dict,
                    work: tuple[Any, str] = (None, ""), gpu: int | None = None) -> tuple[list[str], dict]:
    """Parse what the profiler wrote into tables/*.csv, and the measurements checks can use.

    With the run's telemetry.csv beside the profile, the energy tables come too (scoped to the NVTX
    range the recipe names in `energy_scope`, with joules per unit of the work the workload reported)."""
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
    from aiperf_lab.metrics.sources import ENERGY_REPORTS, ReportOptions
    amount = work[0] if isinstance(work[0], (int, float)) and not isinstance(work[0], bool) and work[0] > 0 else None
    # the energy of the GPU the workload used (NVML index), when it used one
    energy_options = ReportOptions(nvtx_range=recipe.get("energy_scope"), work=amount, work_unit=work[1], gpu=gpu)
    for report in opened.reports:
        energy = report in ENERGY_REPORTS
        try:
            for table in opened.report(report, energy_options if energy else None):
                tables[table.name] = table
        except (MissingData, InputError) as exc:
            if energy and opened.telemetry is not None:
                notes.append(f"{report}: {exc}")
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
        write_text_replacing(folder / "tables" / f"{table.name}.csv", to_csv(table))
    return list(tables), derived


# Measurements the runner adds from the device, and why a check that needs one is not graded without it.
DEVICE_FIGURES = {"nominal_tflops": "no datasheet figure for this device and type ({gpu})",
                  "datasheet_tflops_pct": "no datasheet figure for this device and type ({gpu})",
                  "nominal_memory_tb_s": "no datasheet figure for this device ({gpu})",
                  "pcie_nominal_gb_s": "NVML did not report the PCIe link of the GPU used",
                  **{name: "no energy or power figures for the GPU the workload used ({gpu})"
                     for name in ("energy_j", "energy_source", "avg_power_w", "peak_power_w", "idle_power_w",
                                  "work_per_joule")}}
# A fraction or a share outside these bounds is a broken measurement, not a result.
FRACTION_BOUNDS = (0.0, 1.05)
PERCENT_BOUNDS = (0.0, 105.0)


def _out_of_bounds(name: str, value: Any) -> str | None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    words = name.split("_")   # whole words: "shared_ld_conflicts" is a count, not a share
    if "fraction" in words or "share" in words:
        low, high = FRACTION_BOUNDS
    elif "pct" in words:
        low, high = PERCENT_BOUNDS
    else:
        return None
    if low <= value <= high:
        return None
    return f"{name}={value:g} is outside {low:g}..{high:g}: the measurement is broken, not a result"


def _skip_reason(check, record: RunRecord) -> str | None:
    """Why this check cannot be evaluated on this run, or None."""
    if record.exit_code != 0:
        return f"the workload exited {record.exit_code}"
    if check.gpu_only:
        where = record.device.get("ran_on") or {}
        device, size = where.get("device", "unknown"), where.get("size") or record.size
        if device == "unknown":
            return "needs a GPU run, and the workload did not say where it ran"
        if device != "cuda":
            return "needs a GPU: the workload ran on the CPU"
        if size != "full":
            return f"set for the full-size problem: this run was --size {size}"
    if check.variant and check.variant != record.variant:
        return f"applies to the {check.variant} variant"
    if check.profile and check.profile != record.profile:
        return f"needs a run with --profile {check.profile}"
    gpu = record.measurements.get("gpu_name") or "no GPU matched"
    for name in sorted(expressions.names(check.expr) & set(DEVICE_FIGURES)):
        if record.measurements.get(name) is None:
            return DEVICE_FIGURES[name].format(gpu=gpu)
    return None


def _information(names: tuple[str, ...], record: RunRecord) -> str:
    """A check's `info:` measurements, shown beside its verdict and never graded: the datasheet figures
    a check grades without (against a ceiling measured in the run), n/a where the device has none."""
    gpu = record.measurements.get("gpu_name") or "no GPU matched"
    values = [record.measurements.get(name) for name in names]
    reasons = [None if v is not None else DEVICE_FIGURES.get(n, "not measured in this run").format(gpu=gpu)
               for n, v in zip(names, values)]
    shown = []
    for i, (name, value, why) in enumerate(zip(names, values, reasons)):
        if why is None:
            shown.append(f"{name}={expressions.fmt(value)}")
        else:   # n/a, with the reason once after the last of a run of names that share it
            shared = i + 1 < len(names) and reasons[i + 1] == why
            shown.append(f"{name}=n/a" + ("" if shared else f" ({why})"))
    return "information, not graded: " + ", ".join(shown)


def _evaluate(exercise: Exercise, record: RunRecord) -> list[CheckResult]:
    results = []
    what_if = ", ".join(f"{k}={v}" for k, v in record.knobs.items())
    for check in exercise.checks:
        reason = _skip_reason(check, record)
        if reason is not None:
            status, detail = "skipped", reason
        else:
            broken = [b for b in (_out_of_bounds(n, record.measurements.get(n))
                                  for n in sorted(expressions.names(check.expr))) if b]
            if broken:
                status, detail = "error", "; ".join(broken)
            else:
                try:
                    passed, detail = expressions.evaluate(check.expr, record.measurements)
                    status = "pass" if passed else "fail"
                except expressions.CheckError as exc:
                    status, detail = "error", str(exc)
            if check.info and status in ("pass", "fail"):
                detail = f"{detail} | {_information(check.info, record)}"
            if what_if:
                # the thresholds are set for the exercise as written: a what-if run shows them, ungraded
                status, detail = "skipped", f"what-if run ({what_if}): not graded; as written it would {status}: {detail}"
        results.append(CheckResult(check.id, check.text, check.expr, status, detail))
    return results
