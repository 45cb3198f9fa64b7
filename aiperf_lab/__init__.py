"""aiperf-lab: profiling tables, live GPU telemetry, triage bundles and guided labs."""

__version__ = "0.1.0"
