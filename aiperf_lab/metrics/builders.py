"""Builders of the PyTorch, ncu and telemetry reports, as the registry calls them:
``builder(data, argument, options) -> [Table]``."""

from __future__ import annotations

from aiperf_lab.errors import MissingData


def torch_kernel_sum(trace, _argument, _options):
    from aiperf_lab.metrics import kineto
    return [kineto.kernel_summary(trace)]


def torch_annotation_sum(trace, _argument, _options):
    from aiperf_lab.metrics import kineto
    return [kineto.annotation_summary(trace)]


def torch_nccl_sum(traces, _argument, _options):
    from aiperf_lab.metrics import torch_nccl
    return [torch_nccl.nccl_sum(traces)]


def _ops(trace):
    if not trace.ops:
        raise MissingData(f"{trace.path.name} has no GPU events.")
    return trace.ops


def torch_kernel_breakdown(trace, _argument, _options):
    from aiperf_lab.metrics import analysis
    return [analysis.kernel_breakdown(_ops(trace))]


def torch_gpu_idle(trace, _argument, _options):
    from aiperf_lab.metrics import analysis
    return analysis.gpu_idle(_ops(trace))


def ncu_summary(kernels, _argument, _options):
    from aiperf_lab.metrics import ncu
    return [ncu.ncu_summary(kernels)]


def ncu_metrics(kernels, _argument, _options):
    from aiperf_lab.metrics import ncu
    return [ncu.ncu_metrics(kernels)]


def telemetry_summary(recording, _argument, _options):
    from aiperf_lab.metrics.telemetry.summary import telemetry_summary as summary
    _require_gpu_rows(recording)
    return [summary(recording.devices, series_of=recording.series)]


def telemetry_findings(recording, _argument, _options):
    from aiperf_lab.metrics.telemetry.summary import telemetry_findings as findings
    _require_gpu_rows(recording)
    return [findings(recording.devices, series_of=recording.series)]


def _require_gpu_rows(recording) -> None:
    # A recording made where NVML saw no GPU holds host CPU and memory only: an empty table would
    # read as "nothing happened" rather than "nothing was measured".
    if not recording.devices:
        raise MissingData(f"{recording.path.name} has no GPU rows: NVML saw no GPU where it was recorded "
                          "(it holds host CPU and memory only)")
