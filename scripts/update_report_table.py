"""Rewrite README.md's report table from the registry (aiperf_lab/metrics/registry.py).

    python scripts/update_report_table.py

The table sits between the two marker comments; tests/test_stats_cli.py fails while it is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aiperf_lab.metrics.registry import markdown_table  # noqa: E402

BEGIN = "<!-- report table: made by `python scripts/update_report_table.py` -->"
END = "<!-- end of report table -->"


def main() -> int:
    readme = Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text()
    start, end = text.index(BEGIN), text.index(END)
    readme.write_text(text[:start] + BEGIN + "\n" + markdown_table() + "\n" + text[end:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
