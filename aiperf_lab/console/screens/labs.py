"""Labs: the module/exercise tree and the selected exercise's walkthrough; run it plain or under a
profiler, pick the variant and the problem size. Exercises marked [cpu] also run on the CPU at size
tiny; without a GPU here the size starts at tiny."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Markdown, Static, Tree

from aiperf_lab.console.widgets import chrome_top
from aiperf_lab.labs.catalog import Exercise, load_catalog


LEGEND_LONG = "Labs  ([cpu]: runs without a GPU at size tiny)"
LEGEND_SHORT = "Labs  [cpu]: runs without a GPU"


def tree_legend(room: int | None) -> str:
    """The tree's root: what [cpu] means, as long as the tree has room for ("▼ " before it)."""
    return LEGEND_LONG if room is None or len(LEGEND_LONG) + 2 <= room else LEGEND_SHORT


def exercise_label(exercise: Exercise, room: int | None) -> str:
    """`ex01 [cpu] Reading the timeline...` in `room` columns (None: no limit); the short title where
    the full one does not fit. The module (01) is the branch above it."""
    head = exercise.id[3:7] + (" [cpu]" if exercise.cpu_size else "") + " "
    if room is None or len(head) + len(exercise.title) <= room or not exercise.short_title:
        return head + exercise.title
    return head + exercise.short_title


class LabTree(Tree):
    """The module/exercise tree; its labels follow its width (see exercise_label)."""

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit_labels)

    def fit_labels(self) -> None:
        """Each exercise by its full title where the tree is wide enough, else by its short title, so no
        label is cut (80 columns: the short ones)."""
        room = self.scrollable_content_region.width
        if not room:
            return
        changed = False
        for node, label in [(self.root, tree_legend(room)),
                            *[(leaf, exercise_label(leaf.data, room - 2 * self.guide_depth))
                              for branch in self.root.children for leaf in branch.children]]:
            if node.label.plain != label:
                node.set_label(Text(label))
                changed = True
        if changed:
            self._invalidate()   # the tree keeps the width of its longest label: measure again (Textual 8.2.8)


class LabsScreen(Screen):
    BINDINGS = [
        Binding("r", "run('none')", "Run"),
        Binding("n", "run('nsys')", "nsys"),
        Binding("c", "run('ncu')", "ncu"),
        Binding("t", "run('torch')", "torch"),
        # The footer offers a run only where one can start (check_action): r shown dimmed, n/c/t left out.
        # Pressed anyway, the key comes to these and the toast says why (the run binding, disabled, passes it on).
        Binding("r", "why_not_run('none')", show=False),
        Binding("n", "why_not_run('nsys')", show=False),
        Binding("c", "why_not_run('ncu')", show=False),
        Binding("t", "why_not_run('torch')", show=False),
        Binding("v", "next_variant", "Variant"),
        Binding("z", "toggle_size", "Size"),
        Binding("a", "toggle_answers", "Answers"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.exercise: Exercise | None = None
        self.variant: str | None = None
        self.showing_answers = False         # the walkthrough pane shows the written answers (a)
        self.problem_size = "full" if self.app.ctx.gpu_here else "tiny"
        self._offered: tuple = ()            # the run keys' check_action answers the footer last showed

    def compose(self) -> ComposeResult:
        yield from chrome_top()
        with Horizontal():
            # Text, not a string: Tree labels parse markup, and "[cpu]" would vanish as a tag.
            tree = LabTree(Text(tree_legend(None)), id="lab-tree")
            tree.root.expand()
            for module in load_catalog():
                branch = tree.root.add(module.title, expand=True)
                for exercise in module.exercises:
                    branch.add_leaf(Text(exercise_label(exercise, None)), data=exercise)
            yield tree
            with VerticalScroll(id="walkthrough-pane"):
                yield Static("", id="selection", markup=False)   # "[cpu]" is text, not a tag
                yield Markdown("Select an exercise on the left (arrows, enter).", id="walkthrough", open_links=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(Tree).focus()

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        if isinstance(event.node.data, Exercise) and event.node.data is not self.exercise:
            self.select(event.node.data)
        # the footer's run keys are those of the exercise under the cursor: asked for again only when they
        # change (a refresh makes the footer's keys anew; most moves of the cursor change nothing)
        offered = tuple(self.check_action("run", (profile,)) for profile in ("none", "nsys", "ncu", "torch"))
        if offered != self._offered:
            self._offered = offered
            self.refresh_bindings()

    def _follow_cursor(self) -> None:
        """Select the exercise under the tree's cursor now: keys typed in one burst ("down down r") reach
        the actions before the tree's highlight message does."""
        node = self.query_one("#lab-tree", Tree).cursor_node
        if node is not None and isinstance(node.data, Exercise) and node.data is not self.exercise:
            self.select(node.data)

    def select(self, exercise: Exercise) -> None:
        self.exercise = exercise
        self.variant = exercise.default_variant.name
        self.showing_answers = False
        self.query_one("#walkthrough", Markdown).update(exercise.walkthrough_text())
        self.query_one("#walkthrough-pane", VerticalScroll).scroll_home(animate=False)
        self._show_selection()

    def _show_selection(self) -> None:
        e = self.exercise
        if e is None:
            return
        variant = e.variant(self.variant)
        profilers = ", ".join(["none", *e.profile]) or "none"
        gpus = f"   GPUs: {e.min_gpus}+ (torchrun)" if e.min_gpus > 1 else ""
        where = "runs on the CPU at size tiny" if e.cpu_size else "needs a GPU"
        hint = ""
        if not self.app.ctx.gpu_here and (self.problem_size == "full" or not e.cpu_size):
            hint = ("\nNo GPU here: press z for size tiny." if e.cpu_size and self.problem_size == "full"
                    else "\nNo GPU here, and this exercise needs one: pick one marked [cpu]. (--demo shows recorded "
                         "GPU telemetry and runs; it cannot run this exercise.)")
        if self.app.ctx.gpu_here or e.cpu_size:
            # what this machine lacks for the exercise's runs (PyTorch, nsys, ncu), said where the keys are dimmed
            missing = dict.fromkeys(filter(None, map(self.app.ctx.cannot_start, ["none", *e.profile])))
            hint += "".join(f"\nNot here: {why}." for why in missing)
        # one fact a line: run together they wrapped mid-phrase in the pane at 80 columns ("size:" / "tiny (z)")
        self.query_one("#selection", Static).update(
            f"{e.id}\nvariant: {variant.name} (v): {variant.description}\nsize: {self.problem_size} (z)\n"
            f"profilers: {profilers}\n{where}{gpus}{hint}"
            + ("\nShowing the answers: a goes back to the walkthrough." if self.showing_answers
               else ""))

    def action_toggle_answers(self) -> None:
        """The written answers to the walkthrough's questions in place of the walkthrough, once the
        exercise has a finished run in the runs folder (as `labs show --answers`); again: back."""
        self._follow_cursor()
        e = self.exercise
        if e is None:
            self.notify("select an exercise first", severity="warning")
            return
        answers = None if self.showing_answers else e.answers_text()
        if answers is None and not self.showing_answers:
            self.notify(f"{e.id} has no written answers", severity="warning")
            return
        if answers is not None:
            from aiperf_lab.labs.history import answers_unlocked
            locked = answers_unlocked(e.id, self.app.ctx.runs_dir)
            if locked is not None:
                # "r runs it" only where it can run: on a machine without a GPU an exercise with no CPU path
                # only ends in "did not start", and so does any run where PyTorch is missing (_why_not_run)
                why = self._why_not_run(e, "none")
                runs = "r runs it" if why is None else \
                    "It needs a GPU, and none is here: an exercise marked [cpu] runs without one" \
                    if not (self.app.ctx.gpu_here or e.cpu_size) else f"It cannot run here: {why}"
                self.notify(f"{locked}. {runs}.", severity="warning")
                return
        self.showing_answers = answers is not None
        self.query_one("#walkthrough", Markdown).update(answers if answers is not None else e.walkthrough_text())
        self.query_one("#walkthrough-pane", VerticalScroll).scroll_home(animate=False)
        self._show_selection()

    def action_next_variant(self) -> None:
        self._follow_cursor()
        if self.exercise is None:
            return
        names = [v.name for v in self.exercise.variants]
        self.variant = names[(names.index(self.variant) + 1) % len(names)]
        self._show_selection()

    def action_toggle_size(self) -> None:
        self._follow_cursor()
        self.problem_size = "tiny" if self.problem_size == "full" else "full"
        if self.exercise is not None and self.problem_size == "tiny" and not self.exercise.cpu_size:
            self.notify(f"{self.exercise.id} has no CPU path; tiny still needs a GPU. Exercises marked [cpu] "
                        f"run without one.", severity="warning")
        self._show_selection()

    def _under_cursor(self) -> Exercise | None:
        """The exercise a key pressed now acts on (the tree's cursor, else the one selected)."""
        try:
            node = self.query_one("#lab-tree", Tree).cursor_node
        except NoMatches:   # not composed yet
            return self.exercise
        return node.data if node is not None and isinstance(node.data, Exercise) else self.exercise

    def _why_not_run(self, exercise: Exercise, profile: str) -> str | None:
        """Why a run of `exercise` with `profile` cannot start here, in the words its toast says; None where
        it can. What the footer offers (_run_state) and what a key pressed says (action_run) both ask it."""
        if profile != "none" and profile not in exercise.profile:
            return f"{exercise.id} has no {profile} recipe; it offers {', '.join(['none', *exercise.profile])}"
        if not self.app.ctx.gpu_here and not exercise.cpu_size:
            # Said before anything starts: the runner would first find PyTorch missing (where it is) and say
            # "needs PyTorch", and with PyTorch the workload would exit 2 for want of a GPU; a GPU is what it needs.
            return (f"{exercise.id} needs a CUDA GPU, and none is visible here: exercises marked [cpu] run without "
                    f"one (at size tiny)")
        return self.app.ctx.cannot_start(profile)   # this machine: PyTorch, nsys or ncu missing

    def _run_state(self, exercise: Exercise, profile: str) -> bool | None:
        """check_action's answer for a run key on `exercise`: True where the run can start; False (left out of
        the footer) for n/c/t where the exercise has no such recipe or needs a GPU that is not here; None (shown
        dimmed) otherwise: r where the GPU is missing, any key whose tool is (PyTorch, nsys, ncu)."""
        if self._why_not_run(exercise, profile) is None:
            return True
        if profile == "none":
            return None
        if profile not in exercise.profile or (not self.app.ctx.gpu_here and not exercise.cpu_size):
            return False
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "run":
            return True
        exercise = self._under_cursor()
        if exercise is None:   # the cursor on a module's title, nothing picked yet: r dimmed, n/c/t left out
            return None if parameters[0] == "none" else False
        return self._run_state(exercise, str(parameters[0]))

    def action_why_not_run(self, profile: str) -> None:
        """A run key pressed where the footer does not offer it: the toast says why (action_run's words)."""
        self.action_run(profile)

    def action_run(self, profile: str) -> None:
        self._follow_cursor()
        if self.exercise is None:
            self.notify("select an exercise first", severity="warning")
            return
        why_not = self._why_not_run(self.exercise, profile)
        if why_not is not None:
            self.notify(why_not, severity="error", title="Run did not start")
            return
        self.app.start_run(self.exercise.id, self.variant, profile, self.problem_size)
