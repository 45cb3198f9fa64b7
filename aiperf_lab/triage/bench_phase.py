"""The bench as a phase of a triage run: run it while telemetry still samples, judge it against what
the bundle knows of the node, and put bench.json, bench/*.csv and the findings into the bundle."""

from __future__ import annotations

import csv
import io
import threading
import time
from typing import Any, Callable, Mapping

from aiperf_lab.triage.bench import BenchLimits, run_node_bench
from aiperf_lab.triage.bench_analysis import BenchVerdict, NodeBench, cpus_by_uuid, judge
from aiperf_lab.triage.findings import Finding

# Worst first: the bundle's record for the bench takes the worst of its phases' statuses.
_STATUS_ORDER = ("failed", "timeout", "interrupted", "truncated", "ok", "skipped")


def rows_to_csv(rows: list[dict[str, Any]]) -> str:
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def overall_status(phases: Mapping[str, Mapping[str, Any]]) -> tuple[str, str | None]:
    """(collector status, error) for the whole bench from its phases."""
    statuses = [str(p.get("status")) for p in phases.values()]
    if not statuses or all(s == "skipped" for s in statuses):
        return "skipped", "; ".join(f"{n}: {p.get('error')}" for n, p in phases.items()) or "nothing ran"
    worst = min(statuses, key=lambda s: _STATUS_ORDER.index(s) if s in _STATUS_ORDER else 0)
    problems = "; ".join(f"{n} {p.get('status')}: {p.get('error')}" for n, p in phases.items()
                         if p.get("status") not in ("ok",) and p.get("error"))
    status = {"interrupted": "failed", "truncated": "ok", "skipped": "ok"}.get(worst, worst)
    return status, problems or None


def bench_markdown(verdict: BenchVerdict, bench: NodeBench) -> list[str]:
    """The bench's part of summary.md."""
    lines: list[str] = []
    gpus = verdict.tables.get("bench_gpus") or []
    if gpus:
        lines += ["| GPU | figure | value | node median | of median | of datasheet |", "|---|---|---|---|---|---|"]
        lines += [f"| {r['gpu']} | {r['figure']} | {r['value']} | {r['node_median']} | {r['of_median']} | "
                  f"{r['of_datasheet'] if r['of_datasheet'] is not None else 'n/a'} |" for r in gpus]
    hosts = verdict.tables.get("bench_host_links") or []
    if hosts:
        lines += ["", "| GPU | NUMA | CPUs | H2D (GB/s) | D2H (GB/s) | PCIe | of link (H2D / D2H) |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {r['gpu']} | {r['numa_node'] or '-'} | {r['cpus'] or '-'} | {r['h2d_gb_s']} | {r['d2h_gb_s']} | "
                  f"{r['pcie'] or '-'} | {r['h2d_of_nominal']} / {r['d2h_of_nominal']} |" for r in hosts]
    pairs = verdict.tables.get("bench_pairs") or []
    if pairs:
        lines += ["", "| from | to | link | GB/s | both ways GB/s | 4-byte copy (us) | of link |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {r['src']} | {r['dst']} | {r['link'] or '-'} | {r['gb_s']} | {r['bidir_gb_s']} | "
                  f"{r['small_copy_us']} | {r['of_nominal'] if r['of_nominal'] is not None else 'n/a'} |" for r in pairs]
    sweep = verdict.tables.get("bench_nccl") or []
    if sweep:
        lines += ["", f"NCCL {bench.nccl_info.get('nccl') or ''} over {sweep[0]['ranks']} GPUs "
                  "(nccl-tests' algbw and busbw; all-reduce in place, all-gather out of place, float32):", "",
                  "| op | size (B) | time (us) | algbw (GB/s) | busbw (GB/s) |", "|---|---|---|---|---|"]
        lines += [f"| {r['op']} | {r['bytes']} | {r['time_us']} | {r['algbw_gb_s']} | {r['busbw_gb_s']} |" for r in sweep
                  if r["bytes"] >= 1 << 20 or r["bytes"] in (8, 1024)]
    power = verdict.tables.get("bench_power") or []
    if power:
        lines += ["", "| phase | GPU (NVML) | avg W | peak W | avg SM MHz | clock events |", "|---|---|---|---|---|---|"]
        lines += [f"| {r['phase']} | {r['nvml_index']} | {r['avg_power_w']} | {r['peak_power_w']} | "
                  f"{r['avg_sm_clock_mhz']} | {r['clock_events'] or '-'} |" for r in power]
    phases = ", ".join(f"{n} {p.get('status')} {p.get('seconds')} s" for n, p in bench.phases.items())
    lines += ["", f"Phases: {phases}."] + [f"- {note}" for note in bench.notes]
    return lines


def bench_into_bundle(bundle, *, sampler, hardware: Mapping[str, Any] | None, topology: Mapping[str, Any] | None,
                      nvlink_status: str | None, stop: threading.Event | None, say: Callable[[str], None],
                      limits: BenchLimits = BenchLimits(), run=run_node_bench) -> tuple[list[Finding], list[str]]:
    """Run the node bench, write its files, set its record; returns its findings and summary lines."""
    record = bundle.record("bench")
    started = time.monotonic()
    # The bundle's copy of the facts has UUIDs redacted; the sampler holds the real ones, which the
    # worker's lines carry. Match on the real ones here; the bundle writer redacts what is written.
    real = {d.index: d.uuid for d in getattr(sampler, "devices", []) if getattr(d, "uuid", None)}
    gpus = [dict(g, uuid=real.get(g.get("index"), g.get("uuid")))
            for g in ((hardware or {}).get("nvml") or {}).get("gpus") or [] if isinstance(g, Mapping)]
    affinity = (topology or {}).get("gpu_affinity") or {}
    say("bench: every GPU at once, then host and GPU-to-GPU links, then NCCL "
        f"(at most {limits.total_s:.0f} s)")
    bench, windows = run(limits=limits, stop=stop, on_progress=say, cpus_by_uuid=cpus_by_uuid(gpus, affinity),
                         clock=sampler.now)
    _, ticks = sampler.ring.snapshot()
    verdict = judge(bench, hardware_gpus=gpus, matrix=(topology or {}).get("matrix") or {},
                    nvlink_status=nvlink_status, affinity=affinity, ticks=ticks, windows=windows)
    bundle.write_json("bench", "bench.json", {"measured": bench.as_dict(), "tables": verdict.tables,
                                              "limits_s": {"gpus": limits.gpus_s, "links": limits.links_s,
                                                           "nccl": limits.nccl_s}})
    for name, rows in verdict.tables.items():
        bundle.write_text("bench", f"bench/{name}.csv", rows_to_csv(rows))
    record.status, record.error = overall_status(bench.phases)
    record.seconds = round(time.monotonic() - started, 3)
    return verdict.findings, bench_markdown(verdict, bench)
