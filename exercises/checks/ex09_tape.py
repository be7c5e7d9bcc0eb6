"""Checks for exercise 09: values and gradients against minigrad on random programs,
gradients from a middle instruction, repeated calls, and the exact listing."""

import math

import numpy as np

from minigrad import Value
from minigrad.core import order

from ._support import call, close, fail, fmt

EXAMPLE_STEPS = [("input", (2.0,)), ("input", (-3.0,)), ("mul", (0, 1)), ("add", (2, 0)),
                 ("tanh", (3,))]
EXAMPLE = "v0 = input 2.0\nv1 = input -3.0\nv2 = mul v0 v1\nv3 = add v2 v0\nv4 = tanh v3"


def _program(seed, n_inputs=3, n_ops=22):
    """A random program as (op, args) pairs with reuse, including mul(i, i); a product
    bigger than 3 is followed by a tanh, so values stay small."""
    rng = np.random.default_rng(seed)
    prog = [("input", (float(np.round(rng.uniform(-1.5, 1.5), 3)),)) for _ in range(n_inputs)]
    values = [args[0] for _, args in prog]
    for _ in range(n_ops):
        k = len(prog)
        op = ("add", "mul", "tanh", "mul")[int(rng.integers(4))]
        i = int(rng.integers(max(0, k - 4), k))
        j = i if rng.random() < 0.2 else int(rng.integers(k))
        if op == "tanh":
            prog.append((op, (i,)))
            values.append(math.tanh(values[i]))
            continue
        prog.append((op, (i, j)))
        values.append(values[i] + values[j] if op == "add" else values[i] * values[j])
        if abs(values[-1]) > 3:
            prog.append(("tanh", (k,)))
            values.append(math.tanh(values[-1]))
    return prog


def _mirror(prog):
    """The same program on minigrad Values."""
    vals = []
    for op, args in prog:
        if op == "input":
            vals.append(Value(args[0]))
        elif op == "add":
            vals.append(vals[args[0]] + vals[args[1]])
        elif op == "mul":
            vals.append(vals[args[0]] * vals[args[1]])
        else:
            vals.append(vals[args[0]].tanh())
    return vals


def _reference_grads(vals, out):
    for v in vals:
        v.grad = None
    vals[out].backward(retain_graph=True)
    deps = order.ancestors(vals[out])
    return [v.grad if v.id in deps else 0.0 for v in vals]


def _describe(prog, k):
    op, args = prog[k]
    return f"v{k} = {op} " + (fmt(args[0]) if op == "input" else " ".join(f"v{i}" for i in args))


def _record(Tape, prog, context):
    tape = call(Tape, "Tape", {}, context=f"{context}: Tape()")
    for k, (op, args) in enumerate(prog):
        text = f"tape.{op}({', '.join(fmt(a) for a in args)})"
        index = call(getattr(tape, op), f"Tape.{op}", dict(enumerate(args)),
                     context=f"{context}: {text}")
        if index != k:
            fail(f"{context}: {text} returned {fmt(index)}, expected {k}, the index of the "
                 f"instruction it appended")
    return tape


def check_Tape(Tape):
    example = _record(Tape, EXAMPLE_STEPS, "the example program")
    for seed in (1, 2, 3):
        prog = _program(seed)
        context = f"a random program (seed {seed}, {len(prog)} instructions)"
        tape = _record(Tape, prog, context)
        vals = _mirror(prog)
        for k, v in enumerate(vals):
            got = call(tape.value, "Tape.value", {"i": k}, context=f"{context}: tape.value({k})")
            if not close(got, v.data):
                fail(f"{context}: tape.value({k}) = {fmt(got)}, expected {fmt(v.data)} "
                     f"({_describe(prog, k)})")
        for out in (len(prog) - 1, len(prog) // 2):
            want = _reference_grads(vals, out)
            for attempt in ("", " (a second call)"):
                text = f"{context}: tape.gradients({out}){attempt}"
                got = call(tape.gradients, "Tape.gradients", {"out": out}, context=text)
                _compare(got, want, prog, out, text, second=bool(attempt))
    # The exact listing comes last: the arithmetic matters more than the format.
    text = call(example.listing, "Tape.listing", {}, context="tape.listing()")
    if text != EXAMPLE:
        got_lines = text.split("\n") if isinstance(text, str) else [repr(text)]
        want_lines = EXAMPLE.split("\n")
        n = max(len(got_lines), len(want_lines))
        got_lines += ["(no line)"] * (n - len(got_lines))
        want_lines += ["(no line)"] * (n - len(want_lines))
        i, g, w = next((i, g, w) for i, (g, w) in enumerate(zip(got_lines, want_lines))
                       if g != w)
        fail(f"tape.listing() for the example program differs at line {i + 1}: got {g!r}, "
             f"expected {w!r}; the whole expected text is:\n{EXAMPLE}",
             "one line per instruction joined by '\\n', no trailing newline; "
             "inputs written as repr(float(value))")


def _compare(got, want, prog, out, text, second):
    if not isinstance(got, (list, tuple)) or len(got) != len(want):
        size = f"{len(got)} items" if isinstance(got, (list, tuple)) else fmt(got)
        fail(f"{text} should return a list of {len(want)} numbers (one per instruction), "
             f"got {size}")
    for k in range(len(want) - 1, -1, -1):  # from the output down: the first error is the cause
        if close(got[k], want[k]):
            continue
        if second:
            hint = "start every call from fresh zeros: the first call's gradients leaked in"
        elif k > out:
            hint = f"v{out} cannot depend on v{k}, which comes after it: that gradient is 0.0"
        elif k == out:
            hint = "seed d v_out / d v_out = 1.0"
        else:
            hint = _uses_hint(prog, k, out, got[k], want)
        fail(f"{text}: d v{out}/d v{k} = {fmt(got[k])}, expected {fmt(want[k])} "
             f"({_describe(prog, k)})", hint)


def _uses_hint(prog, k, out, got_k, want):
    """Every gradient after v_k was right (they are compared first), so the suspects are
    the uses of v_k: name each one with its local derivative, or spot a missing +=."""
    values = []
    for op, args in prog:
        if op == "input":
            values.append(args[0])
        elif op == "tanh":
            values.append(math.tanh(values[args[0]]))
        else:
            a, b = values[args[0]], values[args[1]]
            values.append(a + b if op == "add" else a * b)
    uses = []  # (text, contribution), one per edge out of v_k
    for j in range(k + 1, out + 1):
        op, args = prog[j]
        for slot, i in enumerate(args if op != "input" else ()):
            if i != k:
                continue
            if op == "add":
                local, value = "1", 1.0
            elif op == "mul":
                other = args[1 - slot]
                local, value = f"v{other}", values[other]
            else:
                local, value = f"1 − v{j}², the tanh's output squared", 1 - values[j] ** 2
            uses.append((j, f"v{j} = {op} {' '.join(f'v{a}' for a in args)} "
                            f"(d v{j}/d v{k} = {local})", want[j] * value))
    if not uses:
        return ("loop over the instructions from out down to 0, adding each one's local "
                "gradients into its inputs")
    if len(uses) > 1 and any(close(got_k, c) for _, _, c in uses):
        return (f"v{k} is used {len(uses)} times: add (+=) one contribution per use "
                f"(mul(i, i) uses v_i twice)")
    if len(uses) == 1:
        j, used_by, _ = uses[0]
        chain = "" if j == out else f": d v{out}/d v{k} = d v{out}/d v{j} · d v{j}/d v{k}"
        return f"v{k} is used once, by {used_by}{chain}"
    used_by = "; ".join(text for _, text, _ in uses)
    return (f"v{k} is used {len(uses)} times, by {used_by}: d v{out}/d v{k} is the sum over "
            f"these uses of d v{out}/d v_j · d v_j/d v{k}")
