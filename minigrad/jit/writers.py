"""How a fused kernel's expression graph becomes Python statements: one writer per backend.

* ``NumpyWriter``: one numpy call per value; for arrays of ``REUSE_MIN`` elements
  or more, a call writes into the buffer of a value that died (``out=``).
* ``BlockedWriter``: for arrays of ``BLOCK_MIN`` elements or more, the same
  calls ``BLOCK`` elements at a time, in scratch buffers that stay in the CPU's
  cache, one contiguous share of the blocks per core (``in_parts``).
* ``NumexprWriter``: arithmetic inlined into ``numexpr.evaluate`` expressions,
  numpy for the calls numexpr does slowly or not at all (``NUMPY_CALLS``).

Each ``emit(roots, given, prefix)`` returns the statements and the name of every
value; ``given`` values (the kernel's inputs) are never written into.
"""

from __future__ import annotations

import os
import re

import numpy as np

from .symbolic import UFUNCS, Expr

__all__ = ["NumpyWriter", "BlockedWriter", "NumexprWriter", "walk", "uses_of", "in_parts",
           "one_value", "NUMPY_CALLS", "NE_BINARY", "NE_UNARY", "BLOCK", "BLOCK_MIN",
           "THREADS", "REUSE_MIN", "INLINE_MAX", "size_of", "NE_CALL", "const_text"]

#: from this many elements the numpy backend runs a kernel block by block (``BLOCK``
#: elements at a time), so that its intermediate values stay in the CPU's cache
BLOCK_MIN = 1 << 16
BLOCK = 1 << 14
#: threads a blocked kernel runs on (the machine's cores; 1 turns threading off)
THREADS = [os.cpu_count() or 1]
#: a value used more than once is recomputed in each user when its expression has at most
#: this many nodes (arithmetic is cheap next to a pass over memory), else stored once
INLINE_MAX = 12
#: below this many elements numpy's ``out=`` keyword costs more than a fresh small array
REUSE_MIN = 1 << 12

NE_BINARY = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "divide": "/",
              "power": "**", "greater": ">", "greater_equal": ">=", "less": "<",
              "less_equal": "<=", "equal": "==", "not_equal": "!=", "logical_and": "&",
              "logical_or": "|"}
NE_CALL = {"where": "where"}
NE_UNARY = {"negative": "-", "logical_not": "~"}


def walk(roots, stop) -> list:
    """Non-leaf, non-constant nodes reachable from ``roots`` (stopping at ``stop``),
    each after its arguments; iterative."""
    order, seen, stack = [], set(), [(r, False) for r in reversed(roots) if r is not None]
    while stack:
        e, done = stack.pop()
        if e.fn in ("leaf", "const") or e in stop:
            continue
        if done:
            order.append(e)
            continue
        if e in seen:
            continue
        seen.add(e)
        stack.append((e, True))
        for a in reversed(e.args):
            if isinstance(a, Expr) and a not in seen:
                stack.append((a, False))
    return order


def uses_of(order, roots) -> dict:
    count: dict = {}
    for e in order:
        for a in e.args:
            if isinstance(a, Expr):
                count[a] = count.get(a, 0) + 1
    for r in roots:
        if r is not None:
            count[r] = count.get(r, 0) + 1
    return count


def in_parts(part, n: int) -> None:
    """Run ``part(lo, hi)`` over ``0..n`` in one contiguous share per thread (``THREADS``).

    numpy's ufuncs release the GIL on arrays this size, so the shares run in
    parallel; each share's values are independent elementwise, so the result is
    bit for bit the same with any number of threads.
    """
    threads = THREADS[0]
    blocks = -(-n // BLOCK)
    if threads <= 1 or blocks < 2 * threads:
        part(0, n)
        return
    per = -(-blocks // threads) * BLOCK
    cuts = [(lo, min(lo + per, n)) for lo in range(0, n, per)]
    futures = [_pool().submit(part, lo, hi) for lo, hi in cuts[1:]]
    part(*cuts[0])
    for f in futures:
        f.result()


_POOL: list = []


def _pool():
    if not _POOL:
        from concurrent.futures import ThreadPoolExecutor

        _POOL.append(ThreadPoolExecutor(max(1, THREADS[0] - 1),
                                        thread_name_prefix="minigrad-jit"))
    return _POOL[0]


def one_value(g):
    """``g`` as a 0-d array when it repeats one value (``sum``'s gradient, broadcast)."""
    if g.ndim and not any(g.strides):
        return g.reshape(-1)[:1].reshape(())
    return g



class NumpyWriter:
    """One statement per node; large arrays reuse dead buffers through ``out=``."""

    backend = "numpy"

    def __init__(self, reuse: bool):
        self.reuse = reuse

    def emit(self, roots, given: dict, prefix: str):
        order = walk(roots, set(given))
        uses = uses_of(order, roots)
        names = dict(given)
        free: list = []  # (shape, dtype, name) of buffers whose value is dead
        owned = set()  # nodes whose buffer this function allocated
        lines = []
        for k, e in enumerate(order):
            args = [self.arg(a, names) for a in e.args]
            call = self.call(e, args)
            target = None
            if self.reuse and e.fn in UFUNCS:
                for a in e.args:  # the arguments' last use: their buffers are free now
                    if isinstance(a, Expr) and a in owned and uses[a] == 1 and a not in roots:
                        free.append((a.shape, a.dtype, names[a]))
                for i, (shape, dtype, buf) in enumerate(free):
                    if shape == e.shape and dtype == e.dtype:
                        target = buf
                        del free[i]
                        break
            for a in e.args:
                if isinstance(a, Expr):
                    uses[a] -= 1
            name = target or f"{prefix}{k}"
            names[e] = name
            owned.add(e)
            if target is not None:
                call = call[:-1] + f", out={target})"
            lines.append(f"{name} = {call}")
        return lines, names

    @staticmethod
    def arg(a, names):
        if not isinstance(a, Expr):
            return repr(a)
        if a.fn == "const":
            return const_text(a.args[0])
        return names[a]

    @staticmethod
    def call(e, args):
        if e.fn == "cast":
            return f"{args[0]}.astype(np.{e.dtype.name})"
        if e.fn == "masked":  # (the rules' own function: symbolic.py)
            return f"masked({', '.join(args)})"
        return f"np.{e.fn}({', '.join(args)})"


class BlockedWriter(NumpyWriter):
    """The numpy backend for large arrays: the kernel runs ``BLOCK`` elements at a time.

    Every value of the chain is computed for one block into a small scratch buffer
    (reused once dead) that stays in the cache, and only the kernel's inputs are
    read from memory and its results (output, saved values, gradients) written to
    it: one pass over memory, numexpr's idea with numpy's own vectorised ufuncs.
    Inputs are viewed flat (a copy if not contiguous); an input of one element is a
    scalar.  An input broadcast along some axes only cannot be cut into blocks: that
    kernel runs unblocked (``build_kernel`` decides).
    """

    backend = "numpy-blocked"

    def __init__(self, shape, size):
        super().__init__(reuse=True)
        self.shape, self.size = tuple(shape), size

    def emit(self, roots, given: dict, prefix: str):
        order = walk(roots, set(given))
        uses = uses_of(order, roots)
        names, head, body = {}, [], []
        read = {a for e in order for a in e.args if isinstance(a, Expr)}
        for e, n in given.items():  # inputs: flat views before the loop, a block inside
            if e not in read:
                continue
            head.append(f"f_{n} = {n}.reshape(-1) if {n}.size == {self.size} else "
                        f"{n}.reshape(())")
            body.append(f"{n}_ = f_{n}[i:j] if f_{n}.ndim else f_{n}")
            names[e] = f"{n}_"
        out_names = {}
        for k, r in enumerate(dict.fromkeys(r for r in roots if r is not None)):
            if r in given:
                out_names[r] = given[r]
                continue
            head.append(f"{prefix}{k} = np.empty({self.shape!r}, np.{r.dtype.name})")
            head.append(f"o_{prefix}{k} = {prefix}{k}.reshape(-1)")
            body.append(f"{prefix}{k}_ = o_{prefix}{k}[i:j]")
            names[r] = f"{prefix}{k}_"
            out_names[r] = f"{prefix}{k}"
        free, scratch, owned = [], [], set()
        for e in order:
            if e in out_names:
                target = names[e]
            elif e.shape == self.shape:
                for a in e.args:  # arguments whose last use is here free their buffers
                    if isinstance(a, Expr) and a in owned and uses[a] == 1:
                        free.append((a.dtype, names[a]))
                target = next((b for d, b in free if d == e.dtype), None)
                if target is None:
                    target = f"w{len(scratch)}"
                    scratch.append((target, e.dtype))
                else:
                    free.remove((e.dtype, target))
                owned.add(e)
            else:
                target = None
            for a in e.args:
                if isinstance(a, Expr):
                    uses[a] -= 1
            call = self.call(e, [self.arg(a, names) for a in e.args])
            if target is None:
                names[e] = f"s{len(names)}"
                body.append(f"{names[e]} = {call}")
            elif e.fn in UFUNCS:
                names[e] = target
                body.append(call[:-1] + f", out={target})")
            else:
                names[e] = target
                body.append(f"{target}[...] = {call}")
        b = BLOCK
        lines = head + ["def part(lo, hi):  # blocks lo..hi, one thread's share"]
        lines += [f"    {n} = np.empty({b}, np.{d.name})" for n, d in scratch]
        lines += [f"    for i in range(lo, hi, {b}):", f"        j = i + {b}",
                  "        if j > hi:  # the last block is shorter", "            j = hi"]
        if scratch:
            one = "," * (len(scratch) == 1)
            lines.append(f"            {', '.join(n for n, _ in scratch)}{one} = "
                         f"{', '.join(f'{n}[:j - i]' for n, _ in scratch)}{one}")
        lines += [f"        {line}" for line in body]
        lines.append(f"in_parts(part, {self.size})")
        return lines, {**given, **out_names}


def size_of(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def const_text(x) -> str:
    if isinstance(x, np.generic):
        return f"np.{x.dtype.name}({x.item()!r})"
    return repr(x)


class NumexprWriter(NumpyWriter):
    """Arithmetic in numexpr, one pass per value that must exist as an array; numpy for
    the rest.

    numexpr's own exp and tanh (without Intel's VML) are several times slower than
    numpy's vectorised ones, so those calls (``NUMPY_CALLS``) stay numpy calls, in
    place on their argument when it has no other use.  A value is written to memory
    only when it must be: a kernel's result or a value the backward reads, a value
    used twice, and a numpy call's argument and result; every other value is inlined
    into the one expression that uses it.
    """

    backend = "numexpr"

    def __init__(self):
        super().__init__(reuse=True)

    def emit(self, roots, given: dict, prefix: str):
        order = walk(roots, set(given))
        uses = uses_of(order, roots)
        stored, size = set(), {}
        for e in order:  # arguments first
            size[e] = 1 + sum(size.get(a, 0) for a in e.args if a not in stored)
            if e.fn in NUMPY_CALLS:
                stored.add(e)
                stored.update(a for a in e.args if isinstance(a, Expr) and a.fn != "const"
                              and a.fn != "leaf")
            elif any(e is r for r in roots) or uses.get(e, 0) > 1 and size[e] > INLINE_MAX:
                stored.add(e)
        names = dict(given)
        last = {}  # stored node -> index of the last stored statement that reads it
        for k, e in enumerate(order):
            if e in stored:
                for a in self.reads(e, stored):
                    last[a] = k
        free: list = []
        lines = []
        for k, e in enumerate(order):
            if e not in stored:
                continue
            for a in self.reads(e, stored):  # buffers whose value dies here are free
                if last.get(a) == k and a not in given and not any(a is r for r in roots):
                    free.append((a.shape, a.dtype, names[a]))
            target = None
            if e.fn in UFUNCS or e.fn not in NUMPY_CALLS:
                for i, (shape, dtype, buf) in enumerate(free):
                    if shape == e.shape and dtype == e.dtype:
                        target = buf
                        del free[i]
                        break
            name = names[e] = target or f"{prefix}{k}"
            if e.fn in NUMPY_CALLS:
                call = self.call(e, [self.arg(a, names) for a in e.args])
                if target is not None:
                    call = call[:-1] + f", out={target})"
                lines.append(f"{name} = {call}")
                continue
            consts: dict = {}
            text = self.text(e, names, consts, top=True)
            lines.extend(f"{c} = {const_text(v)}" for c, v in consts.items())
            local = sorted(self.leaves_in(text, names)) + list(consts)
            pairs = ", ".join(f"{n!r}: {n}" for n in local)
            out = f", out={target}" if target is not None else ""
            lines.append(f"{name} = evaluate({text!r}, local_dict={{{pairs}}}{out})")
        return lines, names

    @staticmethod
    def reads(e, stored) -> list:
        """The stored values statement ``e`` reads (through the values it inlines)."""
        found, stack = [], list(e.args)
        while stack:
            a = stack.pop()
            if not isinstance(a, Expr) or a.fn in ("const",):
                continue
            if a in stored or a.fn == "leaf":
                found.append(a)
            else:
                stack.extend(a.args)
        return list(dict.fromkeys(found))

    def text(self, e, names, consts, top=False) -> str:
        if not top and e in names:
            return names[e]
        args = [self.const(a, consts, like=e) if a.is_const else self.text(a, names, consts)
                for a in e.args]
        if e.fn in NE_BINARY:
            return f"({args[0]} {NE_BINARY[e.fn]} {args[1]})"
        if e.fn in NE_UNARY:
            return f"({NE_UNARY[e.fn]}{args[0]})"
        return f"{NE_CALL[e.fn]}({', '.join(args)})"

    @staticmethod
    def const(c, consts, like=None) -> str:
        """A typed constant (numexpr would compute a float32 array times 0.5 in float64)."""
        x = c.args[0]
        if not isinstance(x, np.generic):
            kinds = [a.dtype for a in like.args if isinstance(a, Expr) and not a.is_const]
            dtype = np.result_type(*kinds) if kinds else like.dtype
            x = (np.dtype(type(x)) if dtype.kind == "b" else dtype).type(x)
        name = f"k{len(consts)}"
        consts[name] = x
        return name

    @staticmethod
    def leaves_in(text, names) -> set:
        found = set(re.findall(r"\b([agtb]\d*)\b", text))
        return {n for n in found if n in set(names.values())}


#: calls a numexpr kernel leaves to numpy: faster there (exp, tanh ...), or unknown to numexpr
NUMPY_CALLS = {"exp", "log", "sqrt", "tanh", "maximum", "minimum", "cast", "absolute",
               "square", "reciprocal", "masked"}
