"""Monitor: one card per GPU (instant power against its limit, energy, utilization, memory,
temperature, SM clock, clock-event reasons, processes, and power and utilization over the window),
and the host's CPU and memory. Redrawn only while visible and only when new samples arrived."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer

from aiperf_lab.console.view_model import ZERO_MARK, card_lines, host_line, per_gpu_history, series_by_time, span_label
from aiperf_lab.console.widgets import chrome_top, TextBlock

WINDOW_S = 120.0


class GpuCard(TextBlock):
    DEFAULT_CSS = "GpuCard { height: 8; }"


class MonitorScreen(Screen):
    def compose(self) -> ComposeResult:
        yield from chrome_top()
        yield TextBlock(id="feed-status")
        with VerticalScroll(id="cards"):
            for info in self.app.ctx.feed.devices:
                yield GpuCard(id=f"gpu-{info.index}", classes="gpu-card")
            yield TextBlock(id="host-card", classes="gpu-card")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._seen = -1
        self._timer = self.set_interval(1 / self.app.ctx.ui_hz, self.repaint)
        self.repaint()

    def on_screen_suspend(self) -> None:
        self._timer.pause()

    def on_screen_resume(self) -> None:
        self._seen = -1
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
                lines = card_lines(info, history.get(info.index, []), feed.slow.get(info.index), width, ascii_only,
                                   now=now, span_s=WINDOW_S)
                self.query_one(f"#gpu-{info.index}", GpuCard).set_lines(lines)
            host = ticks[-1].host if ticks else None
            cpu = series_by_time([(t.t, t.host.cpu_pct) for t in ticks if t.host is not None], now, WINDOW_S,
                                 max(10, width - 12), 100.0, ascii_only)
            self.query_one("#host-card", TextBlock).set_lines([host_line(host), f"cpu   {cpu}"])
            waiting = "; waiting for samples" if not ticks else ""
            # The feed itself is named in the top bar.
            self.query_one("#feed-status", TextBlock).set_lines(
                [f"charts: {span_label(WINDOW_S)} up to now; {ZERO_MARK} zero, blank no data; scale 0-limit W, "
                 f"0-100%{waiting}"])
