"""Monitor: one card per GPU (instant power against its limit, energy, utilization with SM activity,
tensor activity and DRAM bandwidth beside it, memory, temperature, SM clock, clock-event reasons, and
power, utilization and SM activity over the window), a process table per GPU (sortable by GPU memory
or SM share), and the host's CPU and memory. Redrawn only while visible and only when new samples
arrived; a process table only when the feed read the processes again."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer

from aiperf_lab.console.view_model import (PROCESS_COLUMNS, PROCESS_SORTS, ZERO_MARK, card_lines, host_line,
                                           per_gpu_history, process_rows, series_by_time, span_label)
from aiperf_lab.console.widgets import TextBlock, chrome_top

WINDOW_S = 120.0


class GpuCard(TextBlock):
    DEFAULT_CSS = "GpuCard { height: 9; }"


class ProcessTable(DataTable):
    DEFAULT_CSS = "ProcessTable { height: auto; max-height: 10; margin: 0 1 1 1; border: round $panel; }"


def no_gpu_reason(feed) -> str:
    """Why a feed has no GPU to chart, in a few words: the live sampler's status (no driver, NVML not loaded,
    and why), or a recording that holds none."""
    if feed.kind == "replay":
        return "none in the recording"
    return feed.status or "NVML found no GPU"


class MonitorScreen(Screen):
    BINDINGS = [Binding("m", "sort_processes('memory')", "Processes by memory"),
                Binding("s", "sort_processes('sm')", "Processes by SM share")]
    process_sort = "memory"

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield TextBlock(id="feed-status")
        with VerticalScroll(id="cards"):
            for info in self.app.ctx.feed.devices:
                yield GpuCard(id=f"gpu-{info.index}", classes="gpu-card")
                yield ProcessTable(id=f"procs-{info.index}", cursor_type="row", zebra_stripes=True)
            yield TextBlock(id="host-card", classes="gpu-card")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._seen = -1
        self._procs_seen: dict[int, tuple[object, str]] = {}
        for table in self.query(ProcessTable):
            table.add_columns(*PROCESS_COLUMNS)
            table.display = False
        self._timer = self.set_interval(1 / self.app.ctx.ui_hz, self.repaint)
        self.repaint()

    def on_screen_suspend(self) -> None:
        self._timer.pause()

    def on_screen_resume(self) -> None:
        self._seen = -1
        self._procs_seen = {}
        self._timer.resume()
        self.repaint()

    def repaint(self) -> None:
        feed = self.app.ctx.feed
        version, ticks = feed.ring.snapshot(WINDOW_S)
        if version == self._seen:
            return
        self._seen = version
        width = max(20, self.size.width - 6)
        history = per_gpu_history(ticks)
        ascii_only = self.app.ctx.ascii_only
        now = ticks[-1].t if ticks else 0.0
        with self.app.batch_update():
            for info in feed.devices:
                status = feed.slow.get(info.index)
                lines = card_lines(info, history.get(info.index, []), status, width, ascii_only,
                                   now=now, span_s=WINDOW_S)
                self.query_one(f"#gpu-{info.index}", GpuCard).set_lines(lines)
                self._fill_processes(info.index, status, width)
            host = ticks[-1].host if ticks else None
            cpu = series_by_time([(t.t, t.host.cpu_pct) for t in ticks if t.host is not None], now, WINDOW_S,
                                 max(10, width - 12), 100.0, ascii_only)
            self.query_one("#host-card", TextBlock).set_lines([host_line(host), f"cpu   {cpu}"])
            waiting = "; waiting for samples" if not ticks else ""
            # a GPU whose power limit is not known (an nvidia-smi log) has its power drawn up to the window's peak
            limits = {s.index: s.power_limit_w for s in (ticks[-1].gpus if ticks else [])}
            known = [bool(limits.get(info.index) or info.power_limit_w) for info in feed.devices]
            scale = "0-limit" if all(known) else "0-peak" if not any(known) else "0-limit/peak"
            # The feed itself is named in the top bar.
            legend = f"charts: {span_label(WINDOW_S)} up to now; {ZERO_MARK} zero, blank no data; scale {scale} W, " \
                     f"0-100%{waiting}"
            if not feed.devices:
                # no GPU card, so no power chart and no W scale (all() of no GPU said "scale 0-limit W"): say why,
                # its first words where the whole reason does not fit (the notice above says it whole)
                why = no_gpu_reason(feed)
                legend = f"no GPU charted: {why}; cpu chart: {span_label(WINDOW_S)} up to now, 0-100%{waiting}"
                if len(legend) > self.size.width - 2:
                    legend = legend.replace(why, why.split(": ")[0].split(" (")[0])
                if len(legend.replace(" up to now", "")) > self.size.width - 2:
                    legend = f"no GPU charted; cpu chart: {span_label(WINDOW_S)}, 0-100%{waiting}"
            if len(legend) > self.size.width - 2:
                legend = legend.replace(" up to now", "")
            self.query_one("#feed-status", TextBlock).set_lines([legend])

    def _fill_processes(self, index: int, status, width: int) -> None:
        seen = self._procs_seen.get(index)
        if seen is not None and seen[0] is status and seen[1] == self.process_sort:
            return
        self._procs_seen[index] = (status, self.process_sort)   # held: its id cannot be reused
        table = self.query_one(f"#procs-{index}", ProcessTable)
        rows = process_rows(status, self.process_sort, command_width=max(16, width - 70))
        table.clear()
        # Text, not str: a str cell is markup, and commands hold brackets ("python [worker]")
        table.add_rows([[Text(c) if isinstance(c, str) else c for c in row] for row in rows])
        table.display = bool(rows)
        table.border_title = f"GPU {index} processes by {PROCESS_SORTS[self.process_sort]} (m/s to sort)"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without a GPU (no driver, or a host-only recording) there is no process table to sort: m and s were
        # offered in the footer and m answered "processes sorted by GPU memory" over the host card alone.
        # A replay of a recording that never read the processes (an nvidia-smi log, NVML's raw layout) has
        # none to sort either: m and s were offered there and did nothing.
        if action == "sort_processes":
            return self._processes_to_sort()
        return True

    def _processes_to_sort(self) -> bool:
        """Whether this feed can show a process table: GPUs, and for a replay, a recording with process reads."""
        known = getattr(self, "_sortable", None)
        if known is None:
            feed = self.app.ctx.feed
            recording = getattr(feed, "recording", None) if feed.kind == "replay" else None
            known = bool(feed.devices) and (recording is None or any(
                status.processes for _t, _index, status in recording.status_updates))
            self._sortable = known
        return known

    def action_sort_processes(self, by: str) -> None:
        self.process_sort = by
        self._procs_seen = {}
        self._seen = -1
        self.repaint()
        self.notify(f"processes sorted by {PROCESS_SORTS[by]}, largest first")
