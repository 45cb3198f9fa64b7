"""The nsys reports as the registry calls them: ``builder(db, argument, options) -> [Table]``.

Each imports its module when called, so a run imports only what its report needs
(see benchmarks/stats_speed.py: the cuda_gpu_kern_sum path must stay lean).
"""

from __future__ import annotations


def _variant(argument: str) -> str:
    return argument if argument in ("base", "mangled") else "demangled"


def cuda_gpu_kern_sum(db, argument, _options):
    from aiperf_lab.metrics.nsys import reports
    return [reports.cuda_gpu_kern_sum(db, _variant(argument))]


def cuda_api_sum(db, _argument, _options):
    from aiperf_lab.metrics.nsys import reports
    return [reports.cuda_api_sum(db)]


def cuda_gpu_mem_time_sum(db, _argument, _options):
    from aiperf_lab.metrics.nsys import reports
    return [reports.cuda_gpu_mem_time_sum(db)]


def cuda_gpu_mem_size_sum(db, _argument, _options):
    from aiperf_lab.metrics.nsys import reports
    return [reports.cuda_gpu_mem_size_sum(db)]


def nvtx_sum(db, _argument, _options):
    from aiperf_lab.metrics.nsys import nvtx
    return [nvtx.nvtx_sum(db)]


def nvtx_kern_sum(db, argument, _options):
    from aiperf_lab.metrics.nsys import nvtx
    return [nvtx.nvtx_kern_sum(db, _variant(argument))]


def nvtx_gpu(db, _argument, options):
    from aiperf_lab.metrics.nsys import nvtx
    return [nvtx.nvtx_gpu(db, options.cross_thread)]


def osrt_sum(db, _argument, _options):
    from aiperf_lab.metrics.nsys import host
    return [host.osrt_sum(db)]


def cpu_sample_sum(db, _argument, _options):
    from aiperf_lab.metrics.nsys import host
    return [host.cpu_sample_sum(db)]


def cpu_samples_by_range(db, _argument, _options):
    from aiperf_lab.metrics.nsys import host
    return [host.cpu_samples_by_range(db)]


def cuda_api_callers(db, _argument, _options):
    from aiperf_lab.metrics.nsys import host
    return [host.cuda_api_callers(db)]


def expert_findings(db, _argument, _options):
    from aiperf_lab.metrics.nsys.expert import expert_findings as findings
    return [findings(db)]


def kernel_breakdown(db, argument, options):
    from aiperf_lab.metrics import analysis
    from aiperf_lab.metrics.nsys.ops import as_gpu_op

    scope = options.nvtx_range or argument or None
    if scope:
        from aiperf_lab.metrics.nsys.nvtx import kernels_in_range
        kernels = kernels_in_range(db, scope, options.cross_thread)
        return [analysis.kernel_breakdown([as_gpu_op(k) for k in kernels], scope=scope)]
    from aiperf_lab.metrics.nsys import ops
    return [ops.kernel_breakdown(db)]  # SQL totals: memory bounded by the report, not the export


def gpu_idle(db, _argument, _options):
    from aiperf_lab.metrics.nsys import ops
    return ops.gpu_idle(db)  # ops as columns and a sweep per lane; past 3M ops streamed (bounded memory)


def kernel_overlap(db, _argument, _options):
    from aiperf_lab.metrics import analysis
    from aiperf_lab.metrics.nsys.ops import load_gpu_ops
    return [analysis.kernel_overlap(load_gpu_ops(db))]


def _launches(name: str, with_variant: bool = True):
    def build(db, argument, _options):
        from aiperf_lab.metrics.nsys import launches
        report = getattr(launches, name)
        return [report(db, _variant(argument)) if with_variant else report(db)]
    build.__name__ = name
    return build


cuda_gpu_sum = _launches("cuda_gpu_sum")
cuda_api_gpu_sum = _launches("cuda_api_gpu_sum")
cuda_gpu_kern_gb_sum = _launches("cuda_gpu_kern_gb_sum")
cuda_kern_exec_sum = _launches("cuda_kern_exec_sum")
cuda_kern_exec_trace = _launches("cuda_kern_exec_trace")
cuda_gpu_trace = _launches("cuda_gpu_trace")
cuda_api_trace = _launches("cuda_api_trace", with_variant=False)


def _tree(name: str):
    def build(db, _argument, _options):
        from aiperf_lab.metrics.nsys import nvtx_tree
        return [getattr(nvtx_tree, name)(db)]
    build.__name__ = name
    return build


nvtx_pushpop_sum = _tree("nvtx_pushpop_sum")
nvtx_startend_sum = _tree("nvtx_startend_sum")
nvtx_pushpop_trace = _tree("nvtx_pushpop_trace")
nvtx_gpu_proj_sum = _tree("nvtx_gpu_proj_sum")
nvtx_gpu_proj_trace = _tree("nvtx_gpu_proj_trace")


def nccl_sum(exports, _argument, _options):
    from aiperf_lab.metrics.nsys.ranks import nccl_sum as report
    return [report(exports)]


def rank_spread(exports, _argument, _options):
    from aiperf_lab.metrics.nsys.ranks import rank_spread as report
    return [report(exports)]
