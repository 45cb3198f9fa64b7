"""Profiler metric sets and the nsys / ncu command lines built from them.

One place for what gets collected, read by the lab runner, by triage and by the shell wrappers in
``scripts/`` (through ``python -m aiperf_lab.metrics.config``), so a profile holds the same counters
however it was started. The chapter requirements come from the book's profiling-metrics manifest.

Merge rules (``resolve``), applied in this order, each keeping first-seen order and dropping repeats:
  1. the base lists (BASE_NCU_METRICS, BASE_NSYS_TRACE_MODULES),
  2. the preset's additions (minimal, roofline, deep_dive),
  3. the chapter's additions (ch1..ch20),
  4. the user's explicit additions, then the user's explicit removals, which win over everything,
     and an explicit ncu ``--set`` or section list, which replaces the preset's.
Manifest metric names from the nvprof era (``flop_count_sp``, ``shared_load_sectors``) are kept as
written in the lists and translated to Nsight Compute metric ids when a command line is built.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Iterable, Sequence

BASE_NCU_METRICS: list[str] = [
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
]

BASE_NSYS_TRACE_MODULES: list[str] = ["cuda", "nvtx", "osrt", "cublas", "cudnn"]

# nvprof-era names used by the manifest -> Nsight Compute metric ids (NVIDIA's nvprof-to-ncu mapping).
NCU_METRIC_ALIASES: dict[str, list[str]] = {
    "flop_count_sp": ["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"],
    "flop_count_hp": ["smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
                      "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"],
    "shared_load_sectors": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"],
    "shared_store_sectors": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"],
    "gpu__time_elapsed.avg": ["gpu__time_duration.avg"],
    "smsp__sass_average_branch_divergence.pct": ["smsp__sass_average_branch_targets_threads_uniform.pct"],
}

# "nvlink" in a manifest trace set is not an `nsys -t` value: NVLink traffic comes from GPU metrics
# sampling, so it turns on --gpu-metrics-devices instead.
NSYS_TRACE_AS_GPU_METRICS = {"nvlink"}


@dataclass(frozen=True)
class MetricSet:
    """Additions a preset or a chapter makes to the base lists."""

    ncu_metrics: tuple[str, ...] = ()
    nsys_trace: tuple[str, ...] = ()
    gpu_metrics: bool = False            # nsys --gpu-metrics-devices=all
    ncu_set: str | None = None           # an ncu section set ("full", "roofline") instead of a metric list
    ncu_sections: tuple[str, ...] = ()
    torch_preset: str | None = None      # PyTorch profiler preset the chapter's tables use
    note: str = ""


CHAPTER_OVERRIDES: dict[str, MetricSet] = {
    "ch1": MetricSet(torch_preset="full", note="Goodput: PyTorch profiler full preset; throughput measured in-script."),
    "ch2": MetricSet(note="Hardware inventory through psutil and torch.cuda; defaults suffice."),
    "ch3": MetricSet(note="NUMA and topology through numactl and nvidia-smi; defaults suffice."),
    "ch4": MetricSet(ncu_metrics=("sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                  "sm__warps_active.avg.pct_of_peak_sustained_active"),
                     note="Distributed networking: overlap markers from the default CUDA/NVTX/OSRT/cuBLAS/cuDNN traces."),
    "ch5": MetricSet(nsys_trace=("nvlink",), note="GPU storage I/O: trace set cuda,nvtx,osrt,nvlink,cublas,cudnn."),
    "ch6": MetricSet(note="CUDA fundamentals: defaults suffice."),
    "ch7": MetricSet(ncu_metrics=("smsp__sass_average_branch_divergence.pct",
                                  "sm__warps_active.avg.pct_of_peak_sustained_active",
                                  "shared_load_sectors", "shared_store_sectors"),
                     note="Memory access patterns: coalescing, bank conflicts, TMA prefetching."),
    "ch8": MetricSet(ncu_metrics=("gpu__time_elapsed.avg", "smsp__sass_average_branch_divergence.pct",
                                  "sm__warps_active.avg.pct_of_peak_sustained_active"),
                     note="Warp scheduling and occupancy; divergence experiments."),
    "ch9": MetricSet(ncu_metrics=("flop_count_sp", "flop_count_hp",
                                  "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                  "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
                     ncu_set="full", note="Arithmetic intensity and roofline: --set full for roofline exports."),
    "ch10": MetricSet(ncu_metrics=("shared_load_sectors", "shared_store_sectors",
                                   "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                   "sm__warps_active.avg.pct_of_peak_sustained_active"),
                      note="Intra-kernel pipelining: naive, double-buffered, warp-specialized, cluster."),
    "ch11": MetricSet(ncu_metrics=("shared_load_sectors", "shared_store_sectors",
                                   "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                   "sm__warps_active.avg.pct_of_peak_sustained_active"),
                      note="Multi-SM and cluster pipelines: the chapter 10 counters (DSMEM)."),
    "ch12": MetricSet(gpu_metrics=True, note="CUDA graphs: GPU metrics for idle gaps and launch counts."),
    "ch13": MetricSet(nsys_trace=("nvlink",), torch_preset="blackwell",
                      note="PyTorch profiling and compilation: NVLink for timeline correlation."),
    "ch14": MetricSet(note="Compiler diagnostics: TORCH_LOGS / TRITON_LOGGING, no counters."),
    "ch15": MetricSet(note="Inference parallelism: defaults suffice."),
    "ch16": MetricSet(note="Inference troubleshooting: defaults suffice."),
    "ch17": MetricSet(note="Dynamic routing for KV cache: defaults suffice."),
    "ch18": MetricSet(ncu_metrics=("lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
                                   "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                      gpu_metrics=True, note="FlashMLA and Triton kernels: decode timeline with GPU metrics."),
    "ch19": MetricSet(ncu_metrics=("shared_load_sectors", "shared_store_sectors",
                                   "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                   "sm__warps_active.avg.pct_of_peak_sustained_active"),
                      note="Adaptive precision: dynamic kernels."),
    "ch20": MetricSet(note="AI-assisted kernel generation: harness defaults."),
}

PRESETS: dict[str, MetricSet] = {
    "minimal": MetricSet(note="Low overhead: the base counters, kernel-bounded."),
    "roofline": MetricSet(ncu_metrics=("flop_count_sp", "flop_count_hp", "dram__bytes.sum",
                                       "sm__sass_thread_inst_executed_op_dfma_pred_on.sum"),
                          ncu_sections=("SpeedOfLight", "SpeedOfLight_RooflineChart"),
                          note="Roofline: FLOP counts, DRAM bytes and the roofline sections."),
    "deep_dive": MetricSet(ncu_set="full", gpu_metrics=True, note="Everything: ncu --set full, nsys GPU metrics."),
}

# ncu bounds when the caller gives none: a `--set full` replays each kernel dozens of times.
DEFAULT_LAUNCH_COUNT = 10
DEFAULT_LAUNCH_COUNT_FULL_SET = 3


def merge(*lists: Iterable[str]) -> list[str]:
    """Concatenate, keeping the first occurrence of each name in order."""
    seen: dict[str, None] = {}
    for items in lists:
        for item in items:
            seen.setdefault(item, None)
    return list(seen)


@dataclass
class ResolvedProfile:
    ncu_metrics: list[str]
    nsys_trace: list[str]
    gpu_metrics: bool
    ncu_set: str | None
    ncu_sections: list[str]
    torch_preset: str | None
    sources: list[str] = field(default_factory=list)  # what went in: "base", "preset:x", "chapter:y", "user"


def _known(name: str | None, table: dict[str, MetricSet], what: str) -> MetricSet:
    if name is None:
        return MetricSet()
    if name not in table:
        raise ValueError(f"unknown {what} {name!r}; choose from {', '.join(table)}")
    return table[name]


def resolve(chapter: str | None = None, preset: str | None = "minimal", *,
            add_ncu: Sequence[str] = (), remove_ncu: Sequence[str] = (),
            add_trace: Sequence[str] = (), remove_trace: Sequence[str] = (),
            ncu_set: str | None = None, ncu_sections: Sequence[str] | None = None,
            gpu_metrics: bool | None = None) -> ResolvedProfile:
    """The metric lists for a chapter and preset with the user's explicit overrides (see module doc)."""
    p = _known(preset, PRESETS, "preset")
    c = _known(chapter, CHAPTER_OVERRIDES, "chapter")
    metrics = [m for m in merge(BASE_NCU_METRICS, p.ncu_metrics, c.ncu_metrics, add_ncu) if m not in set(remove_ncu)]
    trace = [t for t in merge(BASE_NSYS_TRACE_MODULES, p.nsys_trace, c.nsys_trace, add_trace)
             if t not in set(remove_trace)]
    sources = ["base"] + ([f"preset:{preset}"] if preset else []) + ([f"chapter:{chapter}"] if chapter else [])
    if add_ncu or remove_ncu or add_trace or remove_trace or ncu_set or ncu_sections is not None or gpu_metrics is not None:
        sources.append("user")
    return ResolvedProfile(
        ncu_metrics=metrics,
        nsys_trace=trace,
        gpu_metrics=gpu_metrics if gpu_metrics is not None else (p.gpu_metrics or c.gpu_metrics or
                                                                  any(t in NSYS_TRACE_AS_GPU_METRICS for t in trace)),
        ncu_set=ncu_set if ncu_set is not None else (c.ncu_set or p.ncu_set),
        ncu_sections=list(ncu_sections) if ncu_sections is not None else merge(p.ncu_sections, c.ncu_sections),
        torch_preset=c.torch_preset or p.torch_preset,
        sources=sources,
    )


def ncu_metric_ids(names: Iterable[str]) -> list[str]:
    """Manifest names translated to ncu metric ids, order kept, no repeats."""
    return merge(*(NCU_METRIC_ALIASES.get(name, [name]) for name in names))


def nsys_trace_arg(modules: Iterable[str]) -> str:
    return ",".join(m for m in modules if m not in NSYS_TRACE_AS_GPU_METRICS)


def nsys_profile_argv(command: Sequence[str], output: str, profile: ResolvedProfile, *,
                      nsys: str = "nsys", sample_cpu: bool = False, cuda_graph_trace: str | None = None,
                      capture_range: str | None = None, extra: Sequence[str] = ()) -> list[str]:
    """`nsys profile` for a command (an argv list). Keeps traces small: no CPU sampling or context
    switches unless asked; --force-overwrite so a rerun replaces the report."""
    if not command:
        raise ValueError("nsys_profile_argv needs the command to profile")
    argv = [nsys, "profile", "--trace", nsys_trace_arg(profile.nsys_trace), "--output", output,
            "--force-overwrite", "true"]
    if not sample_cpu:
        argv += ["--sample", "none", "--cpuctxsw", "none"]
    if profile.gpu_metrics:
        argv += ["--gpu-metrics-devices", "all"]
    if cuda_graph_trace:
        argv += ["--cuda-graph-trace", cuda_graph_trace]
    if capture_range:
        argv += ["--capture-range", capture_range]
    return argv + list(extra) + list(command)


def nsys_export_argv(report: str, output: str, *, nsys: str = "nsys", include_blobs: bool = False) -> list[str]:
    """`nsys export` of a .nsys-rep to the SQLite file `output`, replacing an older export. include_blobs:
    also write NVTX extended payloads (NVTX_EVENTS.binaryData: NCCL's message sizes), for an nsys that has
    the option (see nsys_export_has_blobs)."""
    blobs = ["--include-blobs=true"] if include_blobs else []
    return [nsys, "export", "--type", "sqlite", *blobs, "--force-overwrite", "true", "--output", output, report]


def nsys_export_has_blobs(nsys: str) -> bool:
    """Whether this nsys's `export` takes --include-blobs (not every version does)."""
    import subprocess

    try:
        done = subprocess.run([nsys, "export", "--help"], capture_output=True, text=True, errors="replace",
                              timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and "--include-blobs" in done.stdout + done.stderr


def ncu_argv(command: Sequence[str], output: str, profile: ResolvedProfile, *, ncu: str = "ncu",
             kernel_regex: str | None = None, launch_skip: int = 0, launch_count: int | None = None,
             nvtx_include: Sequence[str] = (), clock_control: str = "none", extra: Sequence[str] = ()) -> list[str]:
    """`ncu` for a command, always bounded: a launch count is always set (3 under --set full, 10
    otherwise, unless given), plus the kernel regex and NVTX ranges when given. Clock control defaults
    to none so profiling never changes the GPU's clocks on a shared machine."""
    if not command:
        raise ValueError("ncu_argv needs the command to profile")
    if launch_count is not None and launch_count < 1:
        raise ValueError("launch_count must be at least 1")
    count = launch_count or (DEFAULT_LAUNCH_COUNT_FULL_SET if profile.ncu_set == "full" else DEFAULT_LAUNCH_COUNT)
    argv = [ncu, "--export", output, "--force-overwrite", "--clock-control", clock_control,
            "--launch-skip", str(launch_skip), "--launch-count", str(count)]
    if kernel_regex:
        argv += ["--kernel-name-base", "demangled", "--kernel-name", f"regex:{kernel_regex}"]
    if nvtx_include:
        argv += ["--nvtx"]
        for spec in nvtx_include:
            argv += ["--nvtx-include", spec]
    if profile.ncu_set:
        argv += ["--set", profile.ncu_set]
    for section in profile.ncu_sections:
        argv += ["--section", section]
    if profile.ncu_metrics:
        argv += ["--metrics", ",".join(ncu_metric_ids(profile.ncu_metrics))]
    return argv + list(extra) + list(command)


# --- command line: what the shell wrappers read ---------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m aiperf_lab.metrics.config",
                                     description="Print the profiler metric sets (for scripts/*.sh).")
    parser.add_argument("what", choices=["ncu-metrics", "nsys-trace", "ncu-args", "nsys-args", "show",
                                         "chapters", "presets"],
                        help="ncu-metrics / nsys-trace: comma lists; ncu-args / nsys-args: one flag per line; "
                             "show: everything as JSON")
    parser.add_argument("--chapter", help="ch1..ch20")
    parser.add_argument("--preset", default="minimal", help="minimal, roofline or deep_dive")
    parser.add_argument("--add-metric", action="append", default=[], metavar="M")
    parser.add_argument("--remove-metric", action="append", default=[], metavar="M")
    parser.add_argument("--add-trace", action="append", default=[], metavar="T")
    parser.add_argument("--remove-trace", action="append", default=[], metavar="T")
    parser.add_argument("--set", dest="ncu_set", help="ncu section set, replaces the preset's")
    parser.add_argument("--kernel-regex", help="ncu: only kernels whose demangled name matches")
    parser.add_argument("--launch-skip", type=int, default=0)
    parser.add_argument("--launch-count", type=int)
    parser.add_argument("--nvtx-include", action="append", default=[], metavar="RANGE")
    parser.add_argument("--output", default="profile", help="report path for the -args forms")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.what == "chapters":
        print("\n".join(f"{name}\t{spec.note}" for name, spec in CHAPTER_OVERRIDES.items()))
        return 0
    if args.what == "presets":
        print("\n".join(f"{name}\t{spec.note}" for name, spec in PRESETS.items()))
        return 0
    try:
        profile = resolve(args.chapter, args.preset, add_ncu=args.add_metric, remove_ncu=args.remove_metric,
                          add_trace=args.add_trace, remove_trace=args.remove_trace, ncu_set=args.ncu_set)
        if args.what == "ncu-metrics":
            print(",".join(ncu_metric_ids(profile.ncu_metrics)))
        elif args.what == "nsys-trace":
            print(nsys_trace_arg(profile.nsys_trace))
        elif args.what == "nsys-args":
            print("\n".join(nsys_profile_argv(["CMD"], args.output, profile)[2:-1]))
        elif args.what == "ncu-args":
            flags = ncu_argv(["CMD"], args.output, profile, kernel_regex=args.kernel_regex,
                             launch_skip=args.launch_skip, launch_count=args.launch_count,
                             nvtx_include=args.nvtx_include)
            print("\n".join(flags[1:-1]))
        else:
            print(json.dumps(asdict(profile), indent=2))
    except ValueError as exc:
        print(f"aiperf_lab.metrics.config: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    from aiperf_lab.cli_support import run_cli

    # as the other commands: `| head` ends it quietly (it was a BrokenPipeError traceback), a full disk in one line
    sys.exit(run_cli("aiperf_lab.metrics.config", main, None))
