"""Every report aiperf-stats makes, in one list: its name, the input it reads, its builder and its help.

The CLI's help and ``--list-reports``, the dispatch in ``sources.py`` and the report table in the
docs (README.md, rewritten by ``scripts/update_report_table.py``) are all made from ``REPORTS``; a new report
is one entry here plus its builder.

A builder is named "module:function" and imported only when its report is asked for, so that
`aiperf-stats FILE --report cuda_gpu_kern_sum` imports nothing it does not use. It is called as
``builder(data, argument, options)`` and returns a list of Tables (or raises MissingData): `data` is
what the input's reader opened (an NsysDatabase, a PyTorch trace, ncu kernels, a telemetry
recording), `argument` the text after ':' in "--report name:argument", `options` a ReportOptions.
"""

from __future__ import annotations

import sys

# Input kinds, with the words the help uses for them.
KINDS = {
    "nsys": "nsys (.sqlite, .nsys-rep)",
    "torch": "PyTorch (.json, .json.gz)",
    "ncu": "ncu (.csv, .ncu-rep)",
    "telemetry": "telemetry recording (.csv)",
}

NSYS = "aiperf_lab.metrics.nsys.builders"
OTHER = "aiperf_lab.metrics.builders"
ENERGY = "aiperf_lab.metrics.energy.builders"


class Report:
    """One report for one input kind. `nsys_stats`: same columns and numbers as `nsys stats --report name`."""

    __slots__ = ("name", "kind", "builder", "help", "arguments", "nsys_stats", "needs", "detail", "multi_rank",
                 "takes_nvtx", "takes_cross_thread", "takes_telemetry")

    def __init__(self, name: str, kind: str, builder: str, help: str, arguments: str = "",
                 nsys_stats: bool = False, needs: str = "", detail: str = "", multi_rank: bool = False,
                 takes_nvtx: bool = False, takes_cross_thread: bool = False, takes_telemetry: bool = False):
        self.name = name
        self.kind = kind
        self.builder = builder
        self.help = help
        self.arguments = arguments  # e.g. ":base|:mangled", shown in the help
        self.nsys_stats = nsys_stats
        self.needs = needs  # the capture option the data comes from, when not the default (-t osrt)
        self.detail = detail or help  # the docs' longer description
        self.multi_rank = multi_rank  # built over every rank's export at once: data is [(rank, data), ...]
        self.takes_nvtx = takes_nvtx  # --nvtx RANGE scopes it; every other report refuses --nvtx (aiperf-stats)
        self.takes_cross_thread = takes_cross_thread  # --cross-thread changes it; others refuse it
        self.takes_telemetry = takes_telemetry  # --telemetry, --work, --work-unit, --gpu apply; others refuse them

    def check_argument(self, argument: str) -> None:
        """InputError unless `argument` (the text after ':') is one this report takes, as nsys refuses them."""
        if not argument or self.arguments == ":RANGE":
            return
        allowed = [a.lstrip(":") for a in self.arguments.split("|")] if self.arguments else []
        if argument not in allowed:
            from aiperf_lab.errors import InputError
            takes = f"it takes {self.arguments}" if allowed else "it takes none"
            raise InputError(f"invalid argument {argument!r} for report {self.name} ({takes})")

    def build(self, data: object, argument: str, options: object) -> list:
        module, _, function = self.builder.partition(":")
        __import__(module)
        return getattr(sys.modules[module], function)(data, argument, options)


VARIANTS = ":base|:mangled"

REPORTS: list[Report] = [
    # nsys: the `nsys stats` reports, byte for byte
    Report("cuda_gpu_kern_sum", "nsys", f"{NSYS}:cuda_gpu_kern_sum", "CUDA GPU Kernel Summary: kernels grouped by name",
           VARIANTS, nsys_stats=True,
           detail='kernels grouped by name: `nsys stats` columns, rounding, order'),
    Report("cuda_api_sum", "nsys", f"{NSYS}:cuda_api_sum", "CUDA API Summary: runtime and driver calls grouped by name",
           nsys_stats=True,
           detail='CUDA runtime and driver calls (`_vNNNN` suffixes stripped as nsys does)'),
    Report("nvtx_sum", "nsys", f"{NSYS}:nvtx_sum", "NVTX Range Summary: range durations grouped by name and style",
           nsys_stats=True,
           detail='NVTX range durations, `domain:name`'),
    Report("nvtx_kern_sum", "nsys", f"{NSYS}:nvtx_kern_sum", "NVTX Range Kernel Summary: kernels under each range",
           VARIANTS, nsys_stats=True,
           detail='kernels under every enclosing NVTX range of their launching thread'),
    Report("cuda_gpu_mem_time_sum", "nsys", f"{NSYS}:cuda_gpu_mem_time_sum",
           "CUDA GPU MemOps Summary (by Time): memcpy by direction, memset", nsys_stats=True,
           detail='memcpy by direction, memset: durations'),
    Report("cuda_gpu_mem_size_sum", "nsys", f"{NSYS}:cuda_gpu_mem_size_sum",
           "CUDA GPU MemOps Summary (by Size), in MB", nsys_stats=True,
           detail='memcpy by direction, memset: sizes in decimal MB'),
    Report("osrt_sum", "nsys", f"{NSYS}:osrt_sum", "OS Runtime Summary: OS and libc calls grouped by name",
           nsys_stats=True, needs='-t osrt',
           detail='OS runtime calls (`open64`, `read`, `poll`, ...): `nsys stats` columns and order'),
    Report("cuda_gpu_sum", "nsys", f"{NSYS}:cuda_gpu_sum", "CUDA GPU Summary: kernels and memory operations together",
           VARIANTS, nsys_stats=True),
    Report("cuda_api_gpu_sum", "nsys", f"{NSYS}:cuda_api_gpu_sum",
           "CUDA Summary: API calls, kernels and memory operations together", VARIANTS, nsys_stats=True),
    Report("cuda_gpu_kern_gb_sum", "nsys", f"{NSYS}:cuda_gpu_kern_gb_sum",
           "CUDA GPU Kernel/Grid/Block Summary: kernels by name and launch dimensions", VARIANTS, nsys_stats=True),
    Report("cuda_kern_exec_sum", "nsys", f"{NSYS}:cuda_kern_exec_sum",
           "Kernel Launch & Exec Time Summary: API, queue and kernel time per thread, API and kernel", VARIANTS,
           nsys_stats=True, detail="per launching thread, device, API and kernel: API time, queue time (kernel start "
           "after the call returned) and kernel time; a launch-bound workload shows API time near kernel time and "
           "little queue"),
    Report("cuda_kern_exec_trace", "nsys", f"{NSYS}:cuda_kern_exec_trace",
           "Kernel Launch & Exec Time Trace: every kernel with its launching call (streamed)", VARIANTS,
           nsys_stats=True),
    Report("cuda_gpu_trace", "nsys", f"{NSYS}:cuda_gpu_trace",
           "CUDA GPU Trace: every kernel, memcpy and memset in start order (streamed)", VARIANTS, nsys_stats=True),
    Report("cuda_api_trace", "nsys", f"{NSYS}:cuda_api_trace",
           "CUDA API Trace: every runtime and driver call in start order (streamed)", nsys_stats=True),
    Report("nvtx_pushpop_sum", "nsys", f"{NSYS}:nvtx_pushpop_sum", "NVTX Push/Pop Range Summary", nsys_stats=True),
    Report("nvtx_startend_sum", "nsys", f"{NSYS}:nvtx_startend_sum", "NVTX Start/End Range Summary", nsys_stats=True),
    Report("nvtx_pushpop_trace", "nsys", f"{NSYS}:nvtx_pushpop_trace",
           "NVTX Push/Pop Range Trace: every range with its level, parent and children", nsys_stats=True),
    Report("nvtx_gpu_proj_sum", "nsys", f"{NSYS}:nvtx_gpu_proj_sum",
           "NVTX GPU Projection Summary: each range's span on the GPU, per name", nsys_stats=True,
           detail="per NVTX range name: the span of the GPU work launched inside the range (projected time) "
           "against the range's CPU time, GPU operations, nesting"),
    Report("nvtx_gpu_proj_trace", "nsys", f"{NSYS}:nvtx_gpu_proj_trace",
           "NVTX GPU Projection Trace: every range projected onto its GPU work", nsys_stats=True),
    # nsys: aiperf's own
    Report("kernel_breakdown", "nsys", f"{NSYS}:kernel_breakdown",
           "GPU time per category (GEMM, attention, NCCL, ...); --nvtx RANGE scopes it", ":RANGE", takes_nvtx=True,
           takes_cross_thread=True,
           detail='kernel time by category: gemm, attention, softmax, normalization, elementwise, reduction, optimizer, memcpy/memset, communication, other; `--nvtx forward` scopes it to one range'),
    Report("gpu_idle", "nsys", f"{NSYS}:gpu_idle", "busy share and idle gaps per device and stream, top gaps",
           detail='per device and stream: busy %, idle time, and the largest gaps with what ran before them and whether the next launch came late from the CPU'),
    Report("nvtx_gpu", "nsys", f"{NSYS}:nvtx_gpu", "GPU time of the kernels launched inside each NVTX range "
           "(--cross-thread: from any thread)", takes_cross_thread=True,
           detail="GPU kernel time under each NVTX range; `--cross-thread` also counts kernels launched from other threads while the range was open (PyTorch's backward pass runs on its autograd thread, which nsys's rule misses)"),
    Report("kernel_overlap", "nsys", f"{NSYS}:kernel_overlap", "kernel time that ran concurrently with another kernel",
           detail='per device: kernels, streams, the share of kernel time that ran beside another kernel, the most at once'),
    Report("cpu_sample_sum", "nsys", f"{NSYS}:cpu_sample_sum", "functions CPU samples landed in, most sampled first", needs='--sample process-tree',
           detail='the functions CPU samples landed in, with their modules'),
    Report("cpu_samples_by_range", "nsys", f"{NSYS}:cpu_samples_by_range",
           "CPU samples per NVTX range: hottest function, share in Python", needs='--sample process-tree',
           detail='per NVTX range: samples of its thread while open, hottest function, share inside the Python interpreter'),
    Report("cuda_api_callers", "nsys", f"{NSYS}:cuda_api_callers", "CUDA API calls grouped by the code that called "
           "them (needs --cudabacktrace)", needs='--cudabacktrace',
           detail='CUDA API calls by the first frame of their backtrace outside the CUDA libraries: who called `cudaMemcpyAsync`'),
    Report("expert_findings", "nsys", f"{NSYS}:expert_findings", "expert rules: pageable or sync copies, host syncs, "
           "low utilization, tiny kernels; with GPU metrics, low SM activity, idle tensor cores, memory bound",
           detail='rules that fire on pageable host-device copies, synchronizing 50+ times a second, a GPU busy under 50%, mostly sub-10 us kernels, and, where the export has GPU metrics (`nsys profile --gpu-metrics-devices`), low SM activity under high GR activity, idle tensor cores during bf16/fp16 kernels and DRAM bandwidth near peak, each with its evidence and advice'),
    # nsys and PyTorch, with a telemetry recording: energy attribution
    Report("energy_by_range", "nsys", f"{ENERGY}:energy_by_range",
           "joules per NVTX range, average and peak power, share of the run (needs telemetry); --nvtx RANGE scopes it",
           takes_nvtx=True, takes_telemetry=True,
           detail="the GPU's joules per NVTX range (energy of its span), average and peak power, joules per instance, share "
                  "of the captured span, nesting depth; the telemetry lined up on the export's session start; "
                  "`--work N --work-unit U` adds joules per unit, `--nvtx RANGE` scopes it"),
    Report("energy_by_category", "nsys", f"{ENERGY}:energy_by_category",
           "joules per kernel category and GPU idle (needs telemetry); --nvtx RANGE scopes it", takes_nvtx=True,
           takes_telemetry=True,
           detail="the GPU's joules split among gemm, attention, communication, memcpy/memset, other kernels and idle "
                  "(each instant's power shared by the categories running then; none running = idle); "
                  "`--nvtx RANGE` scopes it"),
    # nsys: several ranks at once
    Report("nccl_sum", "nsys", f"{NSYS}:nccl_sum", "NCCL collectives per rank: count, bytes, time, algbw, busbw",
           multi_rank=True, detail="per rank and collective: count, bytes (nsys: from NCCL's NVTX extended "
           "payload, where the export holds its bytes (Nsight Systems 2025.3.1's does not); PyTorch: from record_param_comms, elements "
           "x dtype size; else unknown, and the note says why), GPU time, algorithm and bus bandwidth as "
           "nccl-tests defines them; give every rank's file (`aiperf-stats rank*.sqlite --report nccl_sum`)"),
    Report("rank_spread", "nsys", f"{NSYS}:rank_spread", "each kernel and NVTX range across ranks: spread, "
           "slowest rank", multi_rank=True, detail="per kernel and NVTX range name: total time on the fastest, "
           "median and slowest rank, the spread and which rank is slowest (stragglers)"),
    # PyTorch profiler traces
    Report("cuda_gpu_kern_sum", "torch", f"{OTHER}:torch_kernel_sum", "kernels grouped by name, nsys's columns"),
    Report("kernel_breakdown", "torch", f"{OTHER}:torch_kernel_breakdown", "GPU time per category"),
    Report("torch_annotation_sum", "torch", f"{OTHER}:torch_annotation_sum",
           "per record_function name: CPU time, GPU work launched inside, GPU span",
           detail='per `record_function` name: CPU time and the GPU work launched while it was open'),
    Report("gpu_idle", "torch", f"{OTHER}:torch_gpu_idle", "busy share and idle gaps per device and stream"),
    Report("nccl_sum", "torch", f"{OTHER}:torch_nccl_sum", "NCCL collectives per rank: count, bytes, time, algbw, busbw",
           multi_rank=True, detail="per rank and collective, from PyTorch's record_param_comms ops: count, bytes "
           "(element count x dtype size), the GPU time of the NCCL kernels each call launched, algorithm and bus "
           "bandwidth as nccl-tests defines them; give every rank's trace"),
    Report("energy_by_range", "torch", f"{ENERGY}:energy_by_range",
           "joules per record_function range (needs telemetry); --nvtx RANGE scopes it", takes_nvtx=True,
           takes_telemetry=True),
    Report("energy_by_category", "torch", f"{ENERGY}:energy_by_category",
           "joules per kernel category and GPU idle (needs telemetry); --nvtx RANGE scopes it", takes_nvtx=True,
           takes_telemetry=True),
    # Nsight Compute
    Report("ncu_summary", "ncu", f"{OTHER}:ncu_summary", "per kernel: duration, throughput, occupancy, limiter",
           detail='per kernel: duration, SM / memory / DRAM / L2 throughput (% of peak), achieved occupancy, and a verdict (compute-bound, memory-bound, latency-bound, low occupancy) with the numbers behind it'),
    Report("ncu_metrics", "ncu", f"{OTHER}:ncu_metrics", "every collected metric, one row per kernel and metric",
           detail='every collected metric, one row per kernel and metric'),
    # aiperf telemetry recordings
    Report("telemetry_summary", "telemetry", f"{OTHER}:telemetry_summary",
           "energy, power, utilization, clock-event shares, GPM activity means and time shares per device",
           detail="per device: energy, average and peak power, utilization, clock-event shares, and where the "
                  "recording has GPM (Hopper or later) the means of SM, tensor, DRAM, pipe and link activity and the "
                  "shares of time that were launch-bound, tensor-idle or DRAM-heavy"),
    Report("telemetry_findings", "telemetry", f"{OTHER}:telemetry_findings",
           "activity rules: low SM activity, idle tensor cores, memory-bandwidth bound",
           detail="the activity rules (metrics/activity.py) on the means while busy, each with its numbers "
                  "and threshold; n/a where the recording has no GPM"),
]


# `nsys stats` reports aiperf-stats does not make (no export here has their data to check them against).
NSYS_ONLY = ("um_sum", "um_total_sum", "um_cpu_page_faults_sum", "mpi_event_sum", "mpi_event_trace", "mpi_msg_size_sum",
             "openmp_sum", "openacc_sum", "syscall_sum", "network_congestion", "nvvideo_api_sum", "dx11_pix_sum",
             "dx12_gpu_marker_sum", "dx12_pix_sum", "opengl_khr_gpu_range_sum", "opengl_khr_range_sum",
             "vulkan_api_sum", "vulkan_api_trace", "vulkan_gpu_marker_sum", "vulkan_marker_sum", "wddm_queue_sum")

# What `aiperf-stats FILE` shows with no --report, per input kind, in this order.
OVERVIEWS = {
    "nsys": ["cuda_gpu_kern_sum", "kernel_breakdown", "nvtx_sum", "gpu_idle"],
    "torch": ["cuda_gpu_kern_sum", "kernel_breakdown", "torch_annotation_sum"],
    "ncu": ["ncu_summary"],
    "telemetry": ["telemetry_summary", "telemetry_findings"],
}


def reports_for(kind: str) -> list[Report]:
    return [r for r in REPORTS if r.kind == kind]


def find(kind: str, name: str) -> Report | None:
    for report in REPORTS:
        if report.kind == kind and report.name == name:
            return report
    return None


def nvtx_reports(kind: str | None = None) -> list[str]:
    """The names of the reports --nvtx scopes (of one input kind, or of any), in registry order."""
    return reports_taking("takes_nvtx", kind)


def reports_taking(flag: str, kind: str | None = None) -> list[str]:
    """The names of the reports whose `flag` (takes_nvtx, takes_cross_thread, takes_telemetry) is set, of one
    input kind or of any, in registry order."""
    return list(dict.fromkeys(r.name for r in REPORTS if getattr(r, flag) and (kind is None or r.kind == kind)))


def help_text() -> str:
    """The reports section of `aiperf-stats --help`: names grouped by input kind."""
    lines = ["reports (--list-reports describes each):"]
    for kind, label in KINDS.items():
        names = [r.name + (f"[{r.arguments}]" if r.arguments else "") for r in reports_for(kind)]
        lines.extend(_wrapped(f"  {label}:", names))
    lines.append("  nsys reports marked * in --list-reports print the same columns and numbers")
    lines.append("  as `nsys stats`.")
    return "\n".join(lines)


def _wrapped(label: str, names: list[str], width: int = 80) -> list[str]:
    indent = " " * 4
    lines, line = [label], ""
    if len(label) + 2 + sum(len(n) + 2 for n in names) <= width:
        return [f"{label} {', '.join(names)}"]
    for name in names:
        piece = name if not line else f", {name}"
        if len(indent) + len(line) + len(piece) > width:
            lines.append(indent + line + ",")
            line = name
        else:
            line += piece
    lines.append(indent + line)
    return lines


def _options_taken(report: Report) -> str:
    """What --list-reports adds to a report's line: the options it takes beyond --nvtx (named in its help)."""
    taken = (["--cross-thread"] if report.takes_cross_thread and "--cross-thread" not in report.help else []) + \
        (["--telemetry, --work, --work-unit, --gpu"] if report.takes_telemetry else [])
    return f" (takes {'; '.join(taken)})" if taken else ""


STATS_MARK_LEGEND = "* the same columns and numbers as `nsys stats --report NAME`"


def listing(kind: str | None = None, width: int | None = None) -> str:
    """`--list-reports`: every report (or one kind's), one per line: name, arguments, help. With a
    `width` (a terminal's), the help wraps under itself and a last line says what `*` means; without,
    one line per report, for grep."""
    import textwrap

    rows = []
    for report in REPORTS if kind is None else reports_for(kind):
        mark = "*" if report.nsys_stats else " "
        rows.append((report.kind, report.name + (f"[{report.arguments}]" if report.arguments else ""), mark,
                     report.help + _options_taken(report)))
    name_width = max(len(r[1]) for r in rows)
    kind_width = max(len(r[0]) for r in rows)
    lead = kind_width + 2 + name_width + 3
    if width is None or width - lead < 24:   # piped, or too narrow to wrap under itself
        return "\n".join(f"{k:<{kind_width}}  {n:<{name_width}} {m} {h}" for k, n, m, h in rows)
    lines = []
    for k, n, m, h in rows:
        wrapped = textwrap.wrap(h, width - lead, break_on_hyphens=False) or [""]
        lines.append(f"{k:<{kind_width}}  {n:<{name_width}} {m} {wrapped[0]}")
        lines.extend(" " * lead + more for more in wrapped[1:])
    return "\n".join(lines + ["", STATS_MARK_LEGEND])


KIND_NAMES = {"nsys": "nsys", "torch": "PyTorch", "ncu": "ncu", "telemetry": "telemetry"}


def markdown_table() -> str:
    """The report table of README.md, made from REPORTS: one row per name, the inputs it applies to."""
    by_name: dict[str, list[Report]] = {}
    for report in REPORTS:
        by_name.setdefault(report.name, []).append(report)
    lines = ["| report | from | what |", "|---|---|---|"]
    for name, entries in by_name.items():
        first = entries[0]
        arguments = f"[{first.arguments}]".replace("|", "\\|") if first.arguments else ""
        sources = ", ".join(KIND_NAMES[r.kind] + (f" (`{r.needs}`)" if r.needs else "") for r in entries)
        lines.append(f"| `{name}{arguments}` | {sources} | {first.detail} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown_table() if "--markdown" in sys.argv else listing())
