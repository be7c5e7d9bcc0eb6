"""Wrong answers that ``checks/ex09_tape.py`` must reject (lesson 4)."""

from __future__ import annotations

import math

from ._registry import MISTAKES, Mistake


def _tape_variant(name, **overrides):
    from exercises.solutions.ex09_tape import Tape

    variant = type("Tape", (Tape,), overrides)
    variant.__qualname__ = f"Tape<{name}>"
    return variant


def _no_accumulate(self, out):
    grads = [0.0] * len(self.ops)
    grads[out] = 1.0
    for k in range(out, -1, -1):
        g, op, args = grads[k], self.ops[k], self.args[k]
        if op == "add":
            grads[args[0]] = g
            grads[args[1]] = g
        elif op == "mul":
            grads[args[0]] = g * self.values[args[1]]
            grads[args[1]] = g * self.values[args[0]]
        elif op == "tanh":
            grads[args[0]] = g * (1 - self.values[k] ** 2)
    return grads


def _keeps_state(self, out):
    from exercises.solutions.ex09_tape import Tape

    fresh = Tape.gradients(self, out)
    kept = getattr(self, "_kept", None)
    if kept is None or len(kept) != len(fresh):
        self._kept = fresh
        return list(fresh)
    self._kept = [a + b for a, b in zip(kept, fresh, strict=True)]
    return list(self._kept)


def _rules(tanh_from_input=False, mul_own_factor=False):
    def gradients(self, out):
        grads = [0.0] * len(self.ops)
        grads[out] = 1.0
        for k in range(out, -1, -1):
            g, op, args = grads[k], self.ops[k], self.args[k]
            if op == "add":
                grads[args[0]] += g
                grads[args[1]] += g
            elif op == "mul":
                i, j = args
                grads[i] += g * self.values[i if mul_own_factor else j]
                grads[j] += g * self.values[j if mul_own_factor else i]
            elif op == "tanh":
                t = math.tanh(self.values[args[0]]) if not tanh_from_input else self.values[args[0]]
                grads[args[0]] += g * (1 - t**2)
        return grads

    return gradients


def _from_the_end(self, out):
    from exercises.solutions.ex09_tape import Tape

    return Tape.gradients(self, len(self.ops) - 1)


def _listing_with(fix):
    def listing(self):
        from exercises.solutions.ex09_tape import Tape

        return fix(Tape.listing(self))

    return listing


MISTAKES[("ex09", "Tape")] = [
    Mistake("overwrites instead of adding", _tape_variant("no-acc", gradients=_no_accumulate),
            "+="),
    Mistake("gradients leak between calls", _tape_variant("state", gradients=_keeps_state),
            "fresh zeros"),
    Mistake("tanh's rule from its input, 1 − v_i²", _tape_variant(
        "tanh-in", gradients=_rules(tanh_from_input=True)), "the tanh's output squared"),
    Mistake("mul multiplies by its own factor", _tape_variant(
        "mul-own", gradients=_rules(mul_own_factor=True)), "is the sum over these uses"),
    Mistake("always differentiates the last instruction",
            _tape_variant("last", gradients=_from_the_end), "cannot depend"),
    Mistake("listing with a trailing newline",
            _tape_variant("nl", listing=_listing_with(lambda s: s + "\n")), "line 6"),
    Mistake("listing inputs as '2' not '2.0'",
            _tape_variant("int", listing=_listing_with(lambda s: s.replace("2.0", "2"))),
            "line 1"),
]
