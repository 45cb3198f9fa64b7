"""Lab workloads: each a module run as `python -m aiperf_lab.labs.workloads.<name>`, ending with one
AIPERF_RESULT line (aiperf_lab.labs.result)."""
