"""Live GPU and host telemetry: NVML and psutil sampling into a ring buffer, exact energy, recordings
and replay. No UI imports; the console, the lab runner and triage all read the same feed."""
