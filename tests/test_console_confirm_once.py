"""A yes/no dialog answers once. The run ending in the same moment as y was pressed (the dialog's watch rechecks four
times a second) gave a second answer: the watch dismissed a dialog already going, which raised inside Textual, and
the run screen's watch said "the run ended before it was stopped" beside the run's own toast (seen in CI)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("textual")

from textual.app import App  # noqa: E402

from aiperf_lab.console.widgets import Confirm  # noqa: E402


class Host(App):
    def __init__(self, still_applies) -> None:
        super().__init__()
        self.answers: list[bool | None] = []
        self.still_applies = still_applies

    def on_mount(self) -> None:
        self.push_screen(Confirm("Stop the run? (y / n)", "Stop", "Keep going", still_applies=self.still_applies),
                         self.answers.append)


@pytest.mark.parametrize("key", ["y", "n"])
def test_a_key_and_the_watch_in_the_same_moment_give_one_answer(key):
    state = {"running": True, "asked": 0}

    def still_applies() -> bool:
        state["asked"] += 1
        return state["running"]

    async def scenario():
        app = Host(still_applies)
        async with app.run_test() as pilot:
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, Confirm)
            await pilot.press(key)            # the key is pressed ...
            state["running"] = False          # ... the run ends in the same moment ...
            asked = state["asked"]
            dialog._recheck()                 # ... and the watch fires before the dialog is gone
            await pilot.pause(0.6)            # two more ticks of the watch, were it still going
            return app.answers, isinstance(app.screen, Confirm), state["asked"] - asked

    answers, still_open, asked_after_the_answer = asyncio.run(scenario())
    assert answers == [key == "y"] and not still_open
    assert asked_after_the_answer == 0


def test_the_watch_alone_closes_the_dialog_answering_no_once():
    state = {"running": True}

    async def scenario():
        app = Host(lambda: state["running"])
        async with app.run_test() as pilot:
            await pilot.pause()
            state["running"] = False
            await pilot.pause(0.8)
            return app.answers, isinstance(app.screen, Confirm)

    answers, still_open = asyncio.run(scenario())
    assert answers == [False] and not still_open
