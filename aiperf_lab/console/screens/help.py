"""Help: every key, by screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from rich.text import Text
from textual.widgets import Markdown, Static

HELP = """\
# aiperf-console keys

Everything works from the keyboard; the footer shows the keys of the screen you are on, the bar at
the top the screens, the line under it each GPU's power and utilization now (without a GPU, the CPU's).
A key shown dimmed cannot act here; pressed, it says why.

| key | anywhere |
|---|---|
| 1-6 | the screens: 1 Labs, 2 Monitor, 3 Run, 4 Results, 5 History, 6 Triage |
| ?, F1 | this help (escape closes it) |
| ctrl+p | command palette: every screen and action by name |
| escape | leave a text field, so these keys work again |
| q | quit (asks first while a run or a triage bundle is going, then stops it) |

A run's grade is the same everywhere: ✓ pass, ✗ failed, – not graded, with the reason.

| key | Labs |
|---|---|
| arrows, enter | move in the exercise tree; the walkthrough follows |
| r / n / c / t | run the exercise plain / under nsys / under ncu / under the PyTorch profiler (dimmed where this machine lacks the GPU, PyTorch, nsys or ncu it needs) |
| v | next variant (baseline, optimized, ...) |
| a | the walkthrough's written answers in its place, after a finished run of it (again: back) |
| z | problem size: full (GPU) or tiny (CPU, for exercises marked [cpu]; the default without a GPU) |

| key | Monitor |
|---|---|
| m / s | sort each GPU's processes by GPU memory / SM share (offered where the GPUs' processes are read) |

| key | Run |
|---|---|
| x | cancel the run (asks first; the workload gets Ctrl-C, then TERM, then KILL) |
| o | open the run's tables in Results |
| | the state and grade shown come from the run's record (run.json) |

| key | Results |
|---|---|
| up / down | pick a table on the left; enter moves into it |
| / | filter rows by text (enter applies, escape clears) |
| s | sort by the column under the cursor (again: the other way) |
| e | export what is shown to CSV (the path is shown) |
| o | open a profile file (.nsys-rep, .sqlite, .ncu-rep, ncu .csv, PyTorch .json, telemetry .csv, a run folder or triage bundle): type its path, enter; its tables are the overview `aiperf-stats FILE` prints |

| key | History |
|---|---|
| enter | open the run's tables |
| m, then c | mark a run as "before", move to another, compare them |
| g | reload |

| key | Triage |
|---|---|
| d | type the duration in seconds (only then does the field take keys; enter or escape leaves it) |
| k | the bench on or off (copy, matmul, link bandwidth and NCCL probes after the duration; dimmed without a GPU) |
| b | start a bundle of the set duration |
| x | stop it early (the archive is still written, marked interrupted) |
| | `aiperf-triage show ARCHIVE` prints the bundle's summary: what it captured, and why a part is missing |

Over SSH: no mouse needed; NO_COLOR is honoured; `--ascii` draws charts with plain characters.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss_help", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            replayed = getattr(getattr(self.app, "ctx", None), "replay_path", None)
            if replayed is not None:   # the notice may shorten its name; here it is whole (Text: no markup)
                yield Static(Text(f"Telemetry replayed from: {replayed}", overflow="fold"), id="help-replay")
            yield Markdown(HELP)

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
