"""summary.md and a self-contained report.html (inline SVG charts, no network) for a bundle."""

from __future__ import annotations

import html
from typing import Any

from aiperf_lab.inputs import shell_line
from aiperf_lab.metrics.telemetry.model import Tick
from aiperf_lab.metrics.telemetry.summary import REASON_COLUMNS
from aiperf_lab.triage.facts import POWER_CAP, TriageFacts
from aiperf_lab.triage.findings import Finding

MAX_POINTS = 600  # per series: more than a chart can show


def _known(value: Any) -> str:
    return "unknown" if value is None or value == "" else str(value)


def _exit_words(returncode: int | None) -> str:
    """How the workload ended: its exit code, or the signal that ended it (a negative returncode is
    Popen's word for a signal, not a code a program exits with: a shell says 130 for SIGINT)."""
    if returncode is None or returncode >= 0:
        return f"exit code {_known(returncode)}"
    import signal

    try:
        return f"ended by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"ended by signal {-returncode}"


def _gpm(value: float | None) -> str:
    return "n/a" if value is None else str(value)   # no GPM: before Hopper, or a bundle made before GPM


def stopped_by_words(name: str | None) -> str:
    """How a bundle names the signal that stopped the run (a bundle from before it was recorded: Ctrl-C)."""
    return {"SIGINT": "Ctrl-C", "SIGHUP": "SIGHUP: the terminal or SSH session went away"}.get(name or "", name or "Ctrl-C")


def command_text(command: list[str] | None) -> str:
    """The workload's command as one line a shell runs as it was given (quoted where it needs it)."""
    return shell_line(command) if command else "(none: telemetry only)"


def captures(facts: TriageFacts) -> list[tuple[str, str]]:
    """(capture, what the bundle holds of it or why it has none): the telemetry, the nsys trace, the bench."""
    out = []
    if facts.recording is not None:
        kind = "GPUs and host" if facts.telemetry else "host CPU and memory only, no GPU"
        out.append((f"telemetry ({kind})", facts.recording.text()))
    if facts.coverage is not None:
        out.append(("nsys trace", facts.coverage.text()))
        if facts.report_left_out_because:
            out.append(("nsys report (.nsys-rep)", f"left out — {facts.report_left_out_because}"))
    elif facts.workload is not None and not facts.workload.ran:
        out.append(("nsys trace", "none — the workload did not start"))
    elif facts.no_trace_because:
        out.append(("nsys trace", f"none — {facts.no_trace_because}"))
    elif facts.workload is not None and not facts.workload.under_nsys:
        out.append(("nsys trace", "none — the workload ran without nsys"))
    if facts.bench_asked:
        out.append(("bench", "see Bench below" if facts.bench_lines else "asked, but it did not run (see Collectors)"))
    else:
        out.append(("bench", "none — not asked (--bench runs it)"))
    return out


def findings_note(findings: list[Finding], facts: TriageFacts) -> str:
    """What no finding means: with no GPU seen, that no GPU rule could judge (never read as healthy)."""
    if not facts.hardware.gpus:
        status = _known(facts.hardware.nvml.get("status"))
        why = "no GPU found" if status in ("ok", "unknown") else status
        return (f"No GPU rule could judge this machine: {why}."
                + ("" if findings else " The host rules found nothing."))
    return "" if findings else "No rule fired."


def summary_markdown(meta: dict[str, Any], findings: list[Finding], facts: TriageFacts) -> str:
    lines = [f"# aiperf-triage: {meta['host']}", "",
             f"- taken: {meta['start_utc']} to {meta['end_utc']} (UTC), duration asked {meta['duration_s']} s"
             + (f" — **interrupted ({stopped_by_words(meta.get('interrupted_by'))})**" if meta.get("interrupted") else ""),
             f"- command: {command_text(meta.get('command'))}"]
    workload = facts.workload
    if workload is not None and workload.ran:
        lines.append(f"- workload: {_exit_words(workload.returncode)}, {workload.seconds} s"
                     + (f", stopped at the end of the duration ({', '.join(workload.signals_sent)})"
                        if workload.stopped_by == "duration" else "")
                     + (f", stopped by an interrupt ({', '.join(workload.signals_sent)})"
                        if workload.stopped_by == "interrupt" else "")
                     + (", under nsys" if workload.under_nsys else ""))
        lines += [f"- workload output: {note}" for note in workload.log_notes]
    elif workload is not None:
        lines.append(f"- workload: {workload.not_started_because or 'not started'}")
    lines += [f"- {name}: {text}" for name, text in captures(facts)]
    nvml = facts.hardware.nvml
    gpu_names = ", ".join(f"{g.get('index')}: {g.get('name')}" for g in facts.hardware.gpus)
    lines.append(f"- GPUs: {gpu_names or _known(nvml.get('status'))}")
    if facts.hardware.gpus or nvml.get("driver_version") or nvml.get("cuda_driver_version"):
        # with no GPU read and neither version known, "driver unknown, CUDA unknown" only repeated the line above
        # ("GPUs: no NVIDIA driver ...") in other words
        lines.append(f"- driver {_known(nvml.get('driver_version'))}, CUDA {_known(nvml.get('cuda_driver_version'))}")
    lines += ["", "## Findings", ""]
    for f in findings:
        lines.append(f"- **{f.severity}** {f.title}: {f.detail}")
    if findings_note(findings, facts):
        lines.append(findings_note(findings, facts))
    lines += ["", "## Telemetry", ""]
    if facts.telemetry:
        lines.append("| GPU | duration (s) | avg power (W) | peak power (W) | energy (J) | util (%) | SM active (%) | "
                     "tensor (%) | DRAM (%) | max temp (C) | power-capped (%) |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in facts.telemetry:   # GPM means: n/a before Hopper
            lines.append(f"| {r.device} | {r.duration_s} | {_known(r.avg_power_w)} | {_known(r.peak_power_w)} | "
                         f"{_known(r.energy_j)} ({r.energy_source or 'no energy'}) | {_known(r.util_gpu_avg_pct)} | "
                         f"{_gpm(r.sm_active_avg_pct)} | {_gpm(r.tensor_avg_pct)} | {_gpm(r.dram_avg_pct)} | "
                         f"{_known(r.temp_max_c)} | {r.reason_pct.get(POWER_CAP, 0.0)} |")
    else:
        lines.append("No GPU telemetry (no NVIDIA driver); the host's CPU and memory are in telemetry.csv.")
    if facts.bench_lines:
        lines += ["", "## Bench", "", *facts.bench_lines]
    if facts.kernel_top:
        lines += ["", "## Top kernels (nsys)", "", "| time (%) | total (ns) | instances | name |", "|---|---|---|---|"]
        lines += [f"| {r.time_pct} | {r.total_ns} | {r.instances} | {str(r.name)[:120]} |" for r in facts.kernel_top[:10]]
    lines += ["", "## Collectors", "", "| collector | status | seconds | note |", "|---|---|---|---|"]
    for c in meta.get("collectors", []):
        lines.append(f"| {c['name']} | {c['status']} | {c['seconds']} | {c.get('error') or ''} |")
    return "\n".join(lines) + "\n"


def _series(ticks: list[Tick], index: int, attr: str) -> list[tuple[float, float]]:
    """(t, value) of one GPU's field; "gpm.<name>" reads the GPM windows."""
    if attr.startswith("gpm."):
        # one point per GPM window, in its middle: a sample carries the window read before it (every 2 s)
        windows = {(s.gpm.t, s.gpm.window_s): s.gpm for t in ticks for s in t.gpus
                   if s.index == index and s.gpm is not None}
        points = sorted((g.t - g.window_s / 2, getattr(g, attr[4:])) for g in windows.values()
                        if getattr(g, attr[4:]) is not None)
    else:
        points = [(t.t, getattr(s, attr)) for t in ticks for s in t.gpus
                  if s.index == index and getattr(s, attr) is not None]
    if len(points) > MAX_POINTS:
        step = len(points) / MAX_POINTS
        points = [points[int(k * step)] for k in range(MAX_POINTS)]
    return points


def _svg_chart(title: str, unit: str, series: list[tuple[str, list[tuple[float, float]]]], y_max: float | None) -> str:
    width, height, pad = 720, 180, 40
    all_points = [p for _label, pts in series for p in pts]
    if not all_points:
        return f"<p><em>{html.escape(title)}: no data</em></p>"
    t0, t1 = min(p[0] for p in all_points), max(p[0] for p in all_points)
    top = y_max or max(p[1] for p in all_points) or 1.0
    span = (t1 - t0) or 1.0
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 30}" role="img" '
           f'aria-label="{html.escape(title)}"><text x="{pad}" y="14" font-size="13">{html.escape(title)} ({unit})</text>']
    out.append(f'<line x1="{pad}" y1="{height}" x2="{width - 10}" y2="{height}" stroke="#888"/>'
               f'<line x1="{pad}" y1="20" x2="{pad}" y2="{height}" stroke="#888"/>'
               f'<text x="2" y="26" font-size="11">{top:.0f}</text><text x="2" y="{height}" font-size="11">0</text>'
               f'<text x="{pad}" y="{height + 14}" font-size="11">0 s</text>'
               f'<text x="{width - 60}" y="{height + 14}" font-size="11">{span:.1f} s</text>')
    for k, (label, points) in enumerate(series):
        coords = " ".join(f"{pad + (t - t0) / span * (width - pad - 10):.1f},"
                          f"{height - min(v, top) / top * (height - 20):.1f}" for t, v in points)
        color = colors[k % len(colors)]
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.2" points="{coords}"/>'
                   f'<text x="{pad + 10 + 90 * k}" y="{height + 26}" font-size="11" fill="{color}">{html.escape(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def report_html(meta: dict[str, Any], findings: list[Finding], facts: TriageFacts, ticks: list[Tick],
                devices: list[int], power_limits: dict[int, float | None]) -> str:
    esc = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>aiperf-triage report</title>",
             "<style>body{font-family:sans-serif;max-width:960px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;"
             "text-align:left}.error{color:#b00}.warning{color:#b60}.info{color:#06c}code{font-size:12px}</style>",
             "</head><body>", f"<h1>aiperf-triage: {esc(str(meta['host']))}</h1>",
             f"<p>{esc(meta['start_utc'])} to {esc(meta['end_utc'])} UTC"
             + (" <strong>(interrupted)</strong>" if meta.get("interrupted") else "") + "</p>",
             f"<p>Command: <code>{esc(command_text(meta.get('command')))}</code></p>",
             "<ul>" + "".join(f"<li>{esc(name)}: {esc(text)}</li>" for name, text in captures(facts)) + "</ul>",
             "<h2>Findings</h2>"]
    if findings:
        parts.append("<ul>" + "".join(f"<li class='{esc(f.severity)}'><strong>{esc(f.severity)}</strong> "
                                      f"{esc(f.title)}: {esc(f.detail)}</li>" for f in findings) + "</ul>")
    if findings_note(findings, facts):
        parts.append(f"<p>{esc(findings_note(findings, facts))}</p>")
    parts.append("<h2>Telemetry</h2>")
    for title, attr, unit, ceiling in (("Power", "power_w", "W", None), ("GPU utilization", "util_gpu_pct", "%", 100.0),
                                       ("SM activity (GPM)", "gpm.sm_active_pct", "%", 100.0),
                                       ("SM clock", "sm_clock_mhz", "MHz", None)):
        series = [(f"GPU {i}", _series(ticks, i, attr)) for i in devices]
        top = ceiling
        if attr == "power_w":
            limits = [v for v in power_limits.values() if v]
            top = max(limits) if limits else None
        parts.append(_svg_chart(title, unit, series, top))
    rows = [r.as_dict() for r in facts.telemetry]
    if rows:
        keys = ["device", "duration_s", "avg_power_w", "peak_power_w", "energy_j", "energy_source", "util_gpu_avg_pct",
                "sm_active_avg_pct", "tensor_avg_pct", "dram_avg_pct", "mem_used_peak_bytes", "temp_max_c",
                REASON_COLUMNS[POWER_CAP]]
        parts.append("<table><tr>" + "".join(f"<th>{esc(k)}</th>" for k in keys) + "</tr>"
                     + "".join("<tr>" + "".join(f"<td>{esc(str(r.get(k)))}</td>" for k in keys) + "</tr>" for r in rows)
                     + "</table>")
    gpus = facts.hardware.gpus
    if gpus:
        keys = ["index", "name", "compute_capability", "memory_total_bytes", "max_sm_clock_mhz", "power_limit_enforced_w",
                "pcie_gen_current", "pcie_gen_max", "pcie_width_current", "pcie_width_max", "persistence_mode",
                "mig_mode_current", "ecc_mode_current"]
        parts.append("<h2>GPUs</h2><table><tr>" + "".join(f"<th>{esc(k)}</th>" for k in keys) + "</tr>"
                     + "".join("<tr>" + "".join(f"<td>{esc(str(g.get(k)))}</td>" for k in keys) + "</tr>" for g in gpus)
                     + "</table>")
    if facts.coverage is not None:
        parts.append(f"<h2>nsys trace</h2><p>{esc(facts.coverage.text())}</p>")
    if facts.kernel_top:
        parts.append("<h2>Top kernels (nsys)</h2><table><tr><th>time %</th><th>total ns</th><th>instances</th>"
                     "<th>name</th></tr>" + "".join(f"<tr><td>{esc(str(r.time_pct))}</td><td>{esc(str(r.total_ns))}</td>"
                                                    f"<td>{esc(str(r.instances))}</td>"
                                                    f"<td><code>{esc(str(r.name)[:160])}</code></td></tr>"
                                                    for r in facts.kernel_top[:15]) + "</table>")
    parts.append("<h2>Collectors</h2><table><tr><th>collector</th><th>status</th><th>seconds</th><th>note</th></tr>"
                 + "".join(f"<tr><td>{esc(c['name'])}</td><td>{esc(c['status'])}</td><td>{c['seconds']}</td>"
                           f"<td>{esc(c.get('error') or '')}</td></tr>" for c in meta.get("collectors", []))
                 + "</table></body></html>")
    return "\n".join(parts) + "\n"
