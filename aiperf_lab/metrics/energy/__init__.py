"""Energy attribution: the telemetry's power lined up with a profile's timeline, split by NVTX range
and by kernel category (clocks.py, power.py, attribution.py; inputs.py finds the pair in a folder)."""
