"""UI-free core: profiler metric sets and command builders, profile readers, analysis, telemetry."""
