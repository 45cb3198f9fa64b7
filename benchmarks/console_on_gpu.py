"""The console on a real GPU, headless: live NVML telemetry, and a real exercise launched from the
Labs screen under nsys (what the Labs footer offers here recorded first), with the Monitor's cards and
caption read while it runs and the Run and Results screens
read when it ends. Writes SVG screenshots and a JSON summary to OUTDIR.

    python3 benchmarks/console_on_gpu.py OUTDIR [EXERCISE] [PROFILE]     (nsys on the PATH for nsys)
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from aiperf_lab.console.app import LabConsole
from aiperf_lab.console.cli import build_parser, make_context
from aiperf_lab.labs.catalog import find_exercise
from aiperf_lab.labs.runner import cannot_start_here

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/console-gpu")
EXERCISE = sys.argv[2] if len(sys.argv) > 2 else "04-ex01"
PROFILE = sys.argv[3] if len(sys.argv) > 3 else "nsys"
KEY = {"none": "r", "nsys": "n", "ncu": "c", "torch": "t"}[PROFILE]


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    ctx = make_context(build_parser().parse_args(["--runs-dir", str(OUT / "runs")]))
    app = LabConsole(ctx)
    summary: dict = {"gpus": [d.name for d in ctx.feed.devices], "feed": ctx.feed.kind, "notice": ctx.notice,
                     "monitor": []}

    async def pilot(p):
        from textual.widgets._footer import FooterKey

        await p.pause(1.0)
        from textual.widgets import Tree

        tree = app.screen.query_one("#lab-tree", Tree)
        wanted = find_exercise(EXERCISE)
        for _step in range(80):       # down the tree, as a user would, to the exercise: its footer is the one read
            if tree.cursor_node is not None and tree.cursor_node.data is wanted:
                break
            await p.press("down")
        app.screen.select(wanted)
        await p.pause(0.5)
        summary["labs_cursor_on"] = getattr(tree.cursor_node.data, "id", None) if tree.cursor_node else None
        # what the Labs footer offers here (dimmed keys: this machine lacks what that run needs), and why not
        summary["labs_footer"] = {key.key: not key.has_class("-disabled") for key in app.screen.query(FooterKey)
                                  if key.key in ("r", "n", "c", "t")}
        summary["cannot_start_here"] = {profile: cannot_start_here(profile)
                                        for profile in ("none", "nsys", "ncu", "torch")}
        print(f"labs: cursor on {summary['labs_cursor_on']}, footer {summary['labs_footer']}", file=sys.stderr)
        await p.press(KEY)
        started = time.monotonic()
        shots = 0
        while ctx.run is None or ctx.run.running:
            await p.pause(2.0)
            if time.monotonic() - started > 6 and shots < 3:
                await p.press("2")
                await p.pause(0.6)
                card = app.screen.query_one("#gpu-0").plain
                summary.setdefault("monitor_legend", app.screen.query_one("#feed-status").plain)
                watts = re.search(r"power (\d+) W / (\d+) W", card)
                summary["monitor"].append({"t_s": round(time.monotonic() - started, 1),
                                           "power_w": int(watts.group(1)) if watts else None,
                                           "limit_w": int(watts.group(2)) if watts else None,
                                           "card": card.splitlines()[:4]})
                app.save_screenshot(str(OUT / f"monitor_{shots}.svg"))
                shots += 1
                await p.press("3")
            if time.monotonic() - started > 400:
                ctx.run.cancel.set()
        await p.pause(1.0)
        screen = app.screen
        screen.tick()
        await p.pause(0.3)
        summary["run_header"] = str(screen.query_one("#run-header").render())
        table = screen.query_one("#run-checks")
        summary["checks"] = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        summary["log_tail"] = list(screen.query_one("#run-log").lines)[-5:]
        app.save_screenshot(str(OUT / "run.svg"))
        await p.press("o")
        await p.pause(1.0)
        from textual.widgets import OptionList
        summary["results_title"] = str(app.screen.query_one("#results-title").render())
        summary["results_tables"] = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
        app.save_screenshot(str(OUT / "results.svg"))
        record = ctx.run.record
        summary["record"] = {"exit_code": record.exit_code, "seconds": record.seconds, "folder": record.folder,
                             "energy_j": record.energy.get("joules")} if record else None
        app.exit()

    app.run(headless=True, size=(160, 48), auto_pilot=pilot)
    ctx.stop_work()
    ctx.feed.close()
    (OUT / "console_on_gpu.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "monitor"}, indent=1))
    for m in summary["monitor"]:
        print(f"monitor at {m['t_s']} s: {m['power_w']} W of {m['limit_w']} W")
    return 0


if __name__ == "__main__":
    sys.exit(main())
