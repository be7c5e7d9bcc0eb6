"""Reference solution for exercise 09 (an engine as an append-only tape)."""

import math

__all__ = ["Tape"]


class Tape:
    """A tiny reverse-mode engine whose whole graph is one list of instructions."""

    def __init__(self):
        self.ops: list[str] = []  # "input", "add", "mul" or "tanh"
        self.args: list[tuple] = []  # input indices (the input's value for "input")
        self.values: list[float] = []

    def _append(self, op: str, args: tuple, value: float) -> int:
        self.ops.append(op)
        self.args.append(args)
        self.values.append(value)
        return len(self.ops) - 1

    def input(self, value: float) -> int:
        """Append an input; return its index."""
        return self._append("input", (float(value),), float(value))

    def add(self, i: int, j: int) -> int:
        """Append ``v_i + v_j``; return its index."""
        return self._append("add", (i, j), self.values[i] + self.values[j])

    def mul(self, i: int, j: int) -> int:
        """Append ``v_i * v_j``; return its index."""
        return self._append("mul", (i, j), self.values[i] * self.values[j])

    def tanh(self, i: int) -> int:
        """Append ``tanh(v_i)``; return its index."""
        return self._append("tanh", (i,), math.tanh(self.values[i]))

    def value(self, i: int) -> float:
        """The result of instruction ``i``."""
        return self.values[i]

    def gradients(self, out: int) -> list[float]:
        """``d v_out / d v_k`` for every instruction ``k``, by one reverse loop."""
        grads = [0.0] * len(self.ops)
        grads[out] = 1.0
        for k in range(out, -1, -1):  # the tape order is a topological order
            g, op, args = grads[k], self.ops[k], self.args[k]
            if op == "add":
                grads[args[0]] += g
                grads[args[1]] += g
            elif op == "mul":
                i, j = args
                grads[i] += g * self.values[j]
                grads[j] += g * self.values[i]
            elif op == "tanh":
                grads[args[0]] += g * (1.0 - self.values[k] ** 2)
        return grads

    def listing(self) -> str:
        """The program, one ``v<k> = <op> <inputs>`` line per instruction."""
        lines = []
        for k, (op, args) in enumerate(zip(self.ops, self.args, strict=True)):
            if op == "input":
                lines.append(f"v{k} = input {args[0]!r}")
            else:
                lines.append(f"v{k} = {op} " + " ".join(f"v{i}" for i in args))
        return "\n".join(lines)
