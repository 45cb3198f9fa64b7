"""Builders of the energy reports, as the registry calls them: ``builder(data, argument, options)``.
`data` is an NsysDatabase or a PyTorch trace; options carry the telemetry recording (Profile.report
fills it in from what it found with the profile), the work count and the GPU."""

from __future__ import annotations


def _timeline(data):
    from aiperf_lab.metrics.energy.timelines import kineto_timeline, nsys_timeline
    return kineto_timeline(data) if hasattr(data, "annotations") else nsys_timeline(data)


def _tables(name: str, data, argument: str, options):
    from aiperf_lab.metrics.energy.reports import energy_tables, work_from

    timeline, clock = _timeline(data)
    return energy_tables([name], timeline, clock, options.telemetry, work_from(options.work, options.work_unit),
                         options.gpu, scope=options.nvtx_range or argument or None)


def energy_by_range(data, argument, options):
    return _tables("energy_by_range", data, argument, options)


def energy_by_category(data, argument, options):
    return _tables("energy_by_category", data, argument, options)
