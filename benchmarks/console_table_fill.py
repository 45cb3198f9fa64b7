"""What the console's Results screen costs to show a large table: process CPU seconds from TableView.show
to the DataTable's rows measured, for a 50,000-row, 9-column kernel summary at 80x24, headless.

    PYTHONPATH=CHECKOUT python benchmarks/console_table_fill.py [--rows 50000] [--repeat 3]

For a before/after, once from each checkout; it prints the aiperf_lab it measured.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from textual.widgets import DataTable

    from aiperf_lab.console.app import LabConsole
    from aiperf_lab.console.context import ConsoleContext
    from aiperf_lab.console.screens.results import ResultsScreen
    from aiperf_lab.metrics.tables import Table
    from aiperf_lab.metrics.telemetry.synthetic import SyntheticFeed

    columns = ["Name", "Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
               "StdDev (ns)"]
    rows = [[f"void kernel_{i % 997}<float, {i % 13}>(float const*, float*, int)", 1.5 + i % 7, 123456 + i,
             10 + i % 5, 2345.6, 2300.0, 12, 99999, 17.5] for i in range(args.rows)]

    async def run() -> list[float]:
        runs = Path(tempfile.mkdtemp())
        ctx = ConsoleContext(SyntheticFeed(1).fill(5), runs_dir=runs, history_dirs=[runs])
        app = LabConsole(ctx)
        spent = []
        async with app.run_test(size=(80, 24)) as pilot:
            app.show_tables("bench", [Table("k", "K", columns, rows[:1])], "bench")
            while not isinstance(app.screen, ResultsScreen):
                await pilot.pause(0.05)
            await pilot.pause(0.3)
            view = app.screen.query_one("#results-view")
            for _ in range(args.repeat):
                start = time.process_time()
                view.show(Table("k", "K", columns, rows))
                await pilot.pause(0.05)
                data = app.screen.query_one(DataTable)
                while data._require_update_dimensions:
                    await pilot.pause(0.05)
                spent.append(time.process_time() - start)
        return spent

    import aiperf_lab

    spent = asyncio.run(run())
    print(f"{Path(aiperf_lab.__file__).parent}: {args.rows} rows: " + " ".join(f"{s:.2f}" for s in spent) + " s CPU")


if __name__ == "__main__":
    main()
