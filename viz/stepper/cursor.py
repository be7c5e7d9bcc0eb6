"""``StepperState``: a cursor over a ``viz.stepper.frames.Frames``, the plain object behind
the widget and the tests.  (It needs nothing from ``viz.stepper.frames`` but the object it is
given, so it imports nothing from it.)"""

from __future__ import annotations

import operator

__all__ = ["StepperState", "counter_text"]


def counter_text(i: int, n: int) -> str:
    """``step 4 / 8`` for frame index ``i`` of ``n`` (what the widget, the player and
    ``StepperState.panel`` all show)."""
    return f"step {i + 1} / {n}"


class StepperState:
    """A cursor over ``Frames``: the plain object behind the widget and the tests.

    ``step`` is the current frame index (clamped to the valid range; a negative
    one counts from the end); ``next``, ``prev``, ``first``, ``last`` and
    ``goto`` move it; ``frame``, ``panel`` and ``classes`` describe where we are.
    Listeners added with ``observe(fn)`` are called with the new step after
    every move.
    """

    def __init__(self, frames):
        self.frames = frames
        self._step = 0
        self._listeners = []

    def __len__(self) -> int:
        return len(self.frames)

    @property
    def step(self) -> int:
        return self._step

    @step.setter
    def step(self, i: int) -> None:
        self.goto(i)

    def goto(self, i: int) -> int:
        """Go to step ``i``: negative counts from the end like a list index (``-1``:
        the last step); out of range is clamped to the first or last step."""
        try:
            i = operator.index(i)
        except TypeError:
            raise TypeError(f"goto: the step must be an integer, got {i!r}") from None
        n = len(self.frames)
        return self._move(i + n if i < 0 else i)

    def _move(self, i: int) -> int:
        """Go to step ``i`` clamped to the valid range (``prev`` at 0 stays at 0)."""
        i = max(0, min(i, len(self.frames) - 1))
        if i != self._step:
            self._step = i
            for fn in list(self._listeners):
                fn(i)
        return i

    def next(self) -> int:
        return self._move(self._step + 1)

    def prev(self) -> int:
        return self._move(self._step - 1)

    def first(self) -> int:
        return self._move(0)

    def last(self) -> int:
        return self._move(len(self.frames) - 1)

    def observe(self, fn) -> None:
        self._listeners.append(fn)

    @property
    def at_end(self) -> bool:
        return self._step == len(self.frames) - 1

    @property
    def frame(self):
        return self.frames[self._step]

    @property
    def counter(self) -> str:
        """``step 4 / 8``: the one count of steps, the same next to the slider and
        in ``panel`` (frame titles name the phase, never a count of their own)."""
        return counter_text(self._step, len(self.frames))

    @property
    def panel(self) -> str:
        f = self.frame
        return f"{self.counter} · {f.title}\n{f.text}"

    @property
    def classes(self) -> dict[str, str]:
        return self.frames.classes(self._step)

    @property
    def grads(self) -> dict[int, object]:
        return self.frames.grads(self._step)
