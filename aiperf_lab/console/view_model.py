"""What the console's screens show, computed without Textual: the text of a GPU card, block-character
series decimated to a width, elapsed and energy formatting. Kept apart so it is testable as plain
functions and cheap to call at 4-10 Hz."""

from __future__ import annotations

from typing import Iterable, Sequence

from aiperf_lab.metrics.telemetry.feed import energy_in_ticks
from aiperf_lab.metrics.telemetry.model import GpuInfo, GpuSample, GpuStatus, HostSample, Tick

# The sampler reads memory, temperature, clocks and clock-event reasons once a second and each sample
# carries the latest read (GpuSample.status_t); older than this, the card says how old they are.
STATUS_STALE_S = 2.5
BLOCKS = " ▁▂▃▄▅▆▇█"
ASCII_BLOCKS = " .:-=+*#%"
GIB = 1 << 30


def decimate_max(values: Sequence[float | None], width: int) -> list[float | None]:
    """At most `width` points, each the max of its bucket (spikes survive), the newest last."""
    if width <= 0:
        return []
    if len(values) <= width:
        return list(values)
    out: list[float | None] = []
    step = len(values) / width
    for k in range(width):
        bucket = [v for v in values[int(k * step):int((k + 1) * step)] if v is not None]
        out.append(max(bucket) if bucket else None)
    return out


def series(values: Sequence[float | None], width: int, top: float, ascii_only: bool = False) -> str:
    """A one-line chart on a fixed scale 0..top (so 30 W and 300 W never look alike); gaps as spaces,
    zero as ZERO_MARK. Per sample, not per time: the Monitor draws series_by_time."""
    blocks = ASCII_BLOCKS if ascii_only else BLOCKS
    points = decimate_max(values, width)
    levels = len(blocks) - 1
    chars = []
    for v in points:
        if v is None or top <= 0:
            chars.append(" ")
        else:
            chars.append(blocks[max(1, min(levels, round(v / top * levels)))] if v > 0 else ZERO_MARK)
    return "".join(chars).rjust(width)


def fmt(value: float | None, unit: str = "", digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}{unit}"


def bar(value: float | None, top: float | None, width: int = 20, ascii_only: bool = False) -> str:
    if value is None or not top:
        return " " * width
    filled = max(0, min(width, round(value / top * width)))
    return ("#" if ascii_only else "█") * filled + ("." if ascii_only else "░") * (width - filled)


def card_lines(info: GpuInfo, history: Sequence[GpuSample], status: GpuStatus | None, width: int,
               ascii_only: bool = False, now: float | None = None, span_s: float = 120.0) -> list[str]:
    """The text of one GPU card: name, power against its limit, energy, utilization with SM, tensor and
    DRAM activity beside it, memory, temperature, clocks, active clock-event reasons, then power,
    utilization and SM activity over the last `span_s` seconds up to `now` (the feed's clock; the
    newest sample when not given), the same span at any width."""
    s = history[-1] if history else GpuSample(0.0, info.index)
    limit = s.power_limit_w or info.power_limit_w
    if s.lost:
        return [f"GPU {info.index}  {info.name or ''}", "lost: the GPU fell off the bus (NVML GpuIsLost)"]
    chart = max(10, width - 12)
    top = limit or max((h.power_w or 0 for h in history), default=0) or 1.0  # no limit known: the window's peak
    now = now if now is not None else (history[-1].t if history else 0.0)
    power_series = series_by_time([(h.t, h.power_w) for h in history], now, span_s, chart, top, ascii_only)
    util_series = series_by_time([(h.t, h.util_gpu_pct) for h in history], now, span_s, chart, 100.0, ascii_only)
    sm_points = [(h.t, h.gpm.sm_active_pct if h.gpm is not None else None) for h in history]
    sm_series = series_by_time(sm_points, now, span_s, chart, 100.0, ascii_only) \
        if any(v is not None for _t, v in sm_points) else f"n/a ({info.gpm_reason or 'no GPM window yet'})"
    if s.mem_used_bytes is not None and s.mem_total_bytes:
        mem = f"{s.mem_used_bytes / GIB:.1f}/{s.mem_total_bytes / GIB:.0f} GiB"
    else:
        mem = f"{s.mem_used_bytes / GIB:.1f} GiB used" if s.mem_used_bytes is not None else "n/a"
    reasons = ", ".join(s.clock_event_names) or "none"
    energy = f"{s.energy_j / 1000:.2f} kJ" if s.energy_j is not None and s.energy_j >= 1000 else fmt(s.energy_j, " J", 1)
    source = {"instant": "instant", "average": "1 s average"}.get(s.power_source, "")
    count = len(status.processes) if status is not None else 0
    status_age = s.t - s.status_t if s.status_t is not None else 0.0
    return [
        f"GPU {info.index}  {info.name or 'unknown'}",
        *pack([f"power {fmt(s.power_w, ' W')} / {fmt(limit, ' W')} {bar(s.power_w, limit, 16, ascii_only)} ({source})",
               f"energy {energy} ({s.energy_source or 'n/a'})"], width, "  "),
        *pack([f"util {fmt(s.util_gpu_pct, '%')} gpu, {fmt(s.util_mem_pct, '%')} mem", *activity_parts(info, s)],
              width, "  ", first_gap="   "),
        *pack([f"memory {mem}", fmt(s.temp_c, ' C'), f"SM {fmt(s.sm_clock_mhz, ' MHz')}",
               f"clock events: {reasons}" + (f" (read {status_age:.0f} s ago)" if status_age > STATUS_STALE_S else ""),
               *([f"{count} process{'es' if count != 1 else ''}"] if count else [])], width, "   "),
        f"power {power_series}",
        f"util  {util_series}",
        f"sm    {sm_series}",
    ]


def pack(pieces: Sequence[str], width: int, gap: str, first_gap: str | None = None) -> list[str]:
    """`pieces` joined by `gap` (`first_gap` after the first) on as few lines as fit in `width`, a line
    breaking only between two pieces (continuations indented two spaces): a label keeps its value at 80
    columns ("occupancy" at a line's end and "14.1%" on the next, "1" and "process", read as two things)."""
    lines: list[str] = []
    for n, piece in enumerate(pieces):
        between = first_gap if n == 1 and first_gap is not None else gap
        if lines and len(lines[-1]) + len(between) + len(piece) <= width:
            lines[-1] += between + piece
        else:
            lines.append(("  " if lines else "") + piece)
    return lines


GPM_SHOWN = (("sm_active_pct", "SM active"), ("tensor_pct", "tensor"), ("dram_pct", "DRAM"),
             ("sm_occupancy_pct", "occupancy"))


def activity_text(info: GpuInfo, s: GpuSample) -> str:
    """SM activity, tensor activity, DRAM bandwidth and occupancy from the latest GPM window, or n/a
    with the reason."""
    return "  ".join(activity_parts(info, s))


def activity_parts(info: GpuInfo, s: GpuSample) -> list[str]:
    """activity_text's pieces, each a label with its value."""
    if info.gpm_reason:
        return [f"SM active, tensor, DRAM: n/a ({info.gpm_reason})"]
    if s.gpm is None:
        return ["SM active, tensor, DRAM: n/a (no GPM window yet)"]
    parts = []
    for name, label in GPM_SHOWN:
        value = getattr(s.gpm, name)
        why = info.gpm_missing.get(name, "no value")
        parts.append(f"{label} {fmt(value, '%', 1)}" if value is not None else f"{label} n/a ({why})")
    age = s.t - s.gpm.t
    if age > 2 * max(s.gpm.window_s, 1.0) + 0.5:   # a read or more missed: not the current window
        parts.append(f"(window ended {age:.0f} s ago)")
    return parts


PROCESS_COLUMNS = ("PID", "User", "Command", "GPU mem", "SM %", "Mem %", "Energy (est.)")
PROCESS_SORTS = {"memory": "GPU memory", "sm": "SM share"}


def process_rows(status: GpuStatus | None, sort_by: str = "memory", command_width: int = 40) -> list[tuple[str, ...]]:
    """The process table of one GPU, largest first by GPU memory ("memory") or SM share ("sm").
    Energy is an estimate (the GPU's energy split by SM share) and says so in its column name."""
    if status is None:
        return []
    key = (lambda p: (p.gpu_memory_bytes or -1, p.sm_pct or -1)) if sort_by == "memory" else \
        (lambda p: (p.sm_pct if p.sm_pct is not None else -1, p.gpu_memory_bytes or -1))
    rows = []
    for p in sorted(status.processes, key=key, reverse=True):
        command = p.command or p.name or "?"
        if len(command) > command_width:
            command = command[:command_width - 1] + "…"
        energy = "n/a" if p.energy_est_j is None else (
            f"{p.energy_est_j:.0f} J" + (f" ({p.energy_share_pct:.0f}%)" if p.energy_share_pct is not None else ""))
        rows.append((str(p.pid), p.user or "?", command,
                     f"{p.gpu_memory_bytes / GIB:.1f} GiB" if p.gpu_memory_bytes is not None else "n/a",
                     fmt(p.sm_pct, "", 0), fmt(p.mem_pct, "", 0), energy))
    return rows


def host_line(host: HostSample | None) -> str:
    if host is None:
        return "host: no CPU or memory readings in this feed"
    mem = (f"{host.mem_used_bytes / GIB:.1f}/{host.mem_total_bytes / GIB:.1f} GiB"
           if host.mem_used_bytes is not None and host.mem_total_bytes else "n/a")
    return f"host CPU {fmt(host.cpu_pct, '%', 1)}   memory {mem}"


def per_gpu_history(ticks: Iterable[Tick]) -> dict[int, list[GpuSample]]:
    history: dict[int, list[GpuSample]] = {}
    for tick in ticks:
        for s in tick.gpus:
            history.setdefault(s.index, []).append(s)
    return history


def elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:d}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:d}:{secs:02d}"


# --- the grade of a run, shown the same way on every screen --------------------------------------
# A marker and a text style beside the word, so NO_COLOR terminals still tell failed from pass.
GRADE_MARK = {"pass": ("✓", "ok"), "failed": ("✗", "XX"), "not graded": ("–", "--")}
GRADE_STYLE = {"pass": "bold", "failed": "bold reverse", "not graded": "italic"}


def grade_label(word: str, ascii_only: bool = False) -> str:
    """`✓ pass`, `✗ failed`, `– not graded` (ASCII: `ok pass`, `XX failed`, `-- not graded`)."""
    mark = GRADE_MARK.get(word, ("?", "??"))[1 if ascii_only else 0]
    return f"{mark} {word}"


def run_state(running: bool, cancel_requested: bool, error: str | None, record) -> str:
    """What a run is doing or did, from its record (run.json) once it has one, never from the request."""
    if running:
        return "stopping" if cancel_requested else "running"
    if error:
        return "did not start"
    if record is None:
        return "ended"
    return record.outcome   # labs.record.outcome: the words history and `labs show --answers` use


# --- the one-line live status every screen shows -------------------------------------------------
def gpu_status_fields(sample: GpuSample | None, labelled: bool = False) -> list[str]:
    """The fields of one GPU in the status line, in order; add a field here and every screen shows it.
    `labelled`: utilization says what it is ("util 99%"), where the line has room for it."""
    if sample is None:
        return ["no data"]
    if sample.lost:
        return ["lost"]
    fields = [fmt(sample.power_w, " W"), ("util " if labelled else "") + fmt(sample.util_gpu_pct, "%")]
    if sample.gpm is not None and sample.gpm.sm_active_pct is not None:
        fields.append(f"SM {sample.gpm.sm_active_pct:.0f}%")   # GPM: how busy the SMs are, not only "a kernel ran"
    return fields


def status_line(devices: Sequence[GpuInfo], latest: Tick | None, feed_status: str, width: int,
                extra: str = "", no_gpu_said: bool = False) -> str:
    """`GPU0 412 W 87% │ GPU1 ...` from the newest tick of the feed the Monitor draws, cut to `width`.
    Without GPUs it says so (and shows the host's CPU when the feed has it), unless the notice above
    already says why (`no_gpu_said`): then the host's CPU alone."""
    by_index = {s.index: s for s in latest.gpus} if latest is not None else {}
    if devices:
        # "GPU0 590 W 99% SM 96%": 99% of what? Labelled where the whole line fits (a GPU or two at 80 columns)
        for labelled in (True, False):
            parts = [f"GPU{info.index} " + " ".join(gpu_status_fields(by_index.get(info.index), labelled))
                     for info in devices]
            if len(" │ ".join(parts + ([extra] if extra else []))) <= width:
                break
    else:
        cpu = latest.host.cpu_pct if latest is not None and latest.host is not None else None
        parts = [f"no GPU telemetry ({feed_status})" if feed_status else "no GPU telemetry",
                 f"CPU {fmt(cpu, '%')}"]
        if len(" │ ".join(parts + ([extra] if extra else []))) > width:
            parts[0] = "no GPU telemetry"   # the reason is in the notice above; the live figure must stay
        if no_gpu_said:
            parts = parts[1:]
    if extra:
        parts.append(extra)
    text = " │ ".join(parts)
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def energy_text(joules: float | None, why_none: str = "no energy counter") -> str:
    """"6000 J", "12.40 kJ", or "n/a (why)": never 0 J where nothing was measured."""
    if joules is None:
        return f"n/a ({why_none})"
    return f"{joules / 1000:.2f} kJ" if joules >= 10_000 else f"{joules:.0f} J"


def run_energy(feed, started: float, ended: float | None, now: float) -> str:
    """GPU energy (all GPUs) of a run that started at `started` and ended at `ended` (or is going), all
    three on time.monotonic(), read from a live feed's ring on the feed's own clock, so the figure stops
    moving once the run has ended. A replay or synthetic feed did not see the run: n/a."""
    if getattr(feed, "kind", "") != "nvml":
        return "n/a (not a live feed)"
    ago_start = now - started
    ago_end = now - (ended if ended is not None else now)
    feed_now = feed.now()
    _version, ticks = feed.ring.snapshot(ago_start + 0.5)
    if len(ticks) < 2:
        return "n/a (no samples yet)"
    return energy_text(energy_in_ticks(ticks, feed_now - ago_start, feed_now - ago_end))


# --- charts on a fixed time span -----------------------------------------------------------------
ZERO_MARK = "_"          # a reading of zero; no reading at all is a blank


def series_by_time(points: Sequence[tuple[float, float | None]], now: float, span_s: float, width: int, top: float,
                   ascii_only: bool = False) -> str:
    """A one-line chart of the last `span_s` seconds at any width: each column covers span_s/width
    seconds (the max of its readings, so spikes survive). A column without a reading is blank; a reading
    of zero is `_`, so an idle GPU and a gap in the data never look alike."""
    if width <= 0:
        return ""
    blocks = ASCII_BLOCKS if ascii_only else BLOCKS
    levels = len(blocks) - 1
    columns: list[float | None] = [None] * width
    start = now - span_s
    for t, v in points:
        if v is None or t < start or t > now:
            continue
        k = min(width - 1, int((t - start) / span_s * width))
        columns[k] = v if columns[k] is None else max(columns[k], v)
    chars = []
    for v in columns:
        if v is None:
            chars.append(" ")
        elif v <= 0 or top <= 0:
            chars.append(ZERO_MARK)
        else:
            chars.append(blocks[max(1, min(levels, round(v / top * levels)))])
    return "".join(chars)


def span_label(seconds: float) -> str:
    return f"last {seconds / 60:g} min" if seconds >= 120 and seconds % 60 == 0 else f"last {seconds:g} s"


def wrap_lines(lines: Iterable[str], width: int) -> list[str]:
    """Log lines wrapped to `width` at spaces where it can (continuations indented two spaces), so
    nothing is cut off; lines that fit (nearly all) pass through untouched."""
    import textwrap
    width = max(20, width)
    out: list[str] = []
    for line in lines:
        line = line.expandtabs(4).rstrip()
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False)
                       or [line[:width]])
    return out


def break_identifier(text: str, width: int) -> str:
    """`text` (a table name and its row count) on lines of at most `width`, broken after a `_` or at a
    space, so `cuda_gpu_kern_sum (16)` reads `cuda_gpu_kern_` / `sum (16)`, never `cuda_gpu_kern` /
    `_sum (16)`. A piece with no such break longer than `width` is left for the widget to fold."""
    import re
    if width <= 0 or len(text) <= width:
        return text
    pieces = re.findall(r"[^_ ]*_+|[^_ ]+ *| +", text)
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > width:
            lines[-1] = lines[-1].rstrip()
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


NAME_KEPT_MIN = 12   # a name shortened below this says nothing: the notice is cut at its end instead


def middle_ellipsis(name: str, width: int) -> str:
    """`name` in `width` characters, its middle replaced by `…`: the start and the end (a date, the
    extension) are what tell recordings apart."""
    if len(name) <= width:
        return name
    if width <= 1:
        return "\u2026"[:max(0, width)]
    tail = (width - 1) // 2
    return f"{name[:width - 1 - tail]}\u2026{name[len(name) - tail:]}" if tail else f"{name[:width - 1]}\u2026"


def fit_notice(notice: str, room: int, short: str | None = None, name: str | None = None) -> str:
    """The notice in one line of `room` characters: whole where it fits, else its short form, else with
    `name` (a file name in it) shortened in the middle. What still does not fit is cut by the widget."""
    if len(notice) <= room:
        return notice
    if short:
        return short
    if name and name in notice:
        keep = max(NAME_KEPT_MIN, len(name) - (len(notice) - room))
        return notice.replace(name, middle_ellipsis(name, keep), 1)
    return notice


def one_line_error(exc: BaseException) -> str:
    """An error as one line: the message of an input error as the commands print it, else its type too."""
    from aiperf_lab.errors import InputError
    from aiperf_lab.inputs import printable
    text = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
    return " ".join(printable(text).split())
