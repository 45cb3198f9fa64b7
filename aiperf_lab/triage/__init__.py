"""UI-free triage collectors, redaction, findings and bundles."""
