"""Exercise 09 · an engine as an append-only tape (lesson 4).

minigrad stores a graph as linked nodes: each knows its op and its parents.
Another classic representation is a *tape* (also called a Wengert list): one
list of instructions, appended in the order they run.  Each instruction names
its op and the *indices* of its inputs, so ``v2 = mul v0 v1`` means
"instruction 2 multiplies the results of instructions 0 and 1".

Because an instruction can only use results that already exist, the tape is
*already in topological order*: backward is a single loop over the list in
reverse, with no graph walk at all.  (minigrad gets its order the same way, by
sorting nodes by their creation counter.)

Write the class ``Tape`` (store instructions however you like):

* ``input(value)`` appends an input and returns its index;
* ``add(i, j)``, ``mul(i, j)``, ``tanh(i)`` append an instruction computing
  from the results at those indices, and return its index (``mul(i, i)`` is
  allowed: that is ``x * x``);
* ``value(i)`` returns the result of instruction ``i`` (a float);
* ``gradients(out)`` returns a list with one float per instruction:
  ``d v_out / d v_k`` for every ``k`` (``0.0`` where ``v_out`` does not depend on
  ``v_k``, for instance every ``k > out``).  Calling it twice gives the same list;
* ``listing()`` returns the program as text, one line per instruction,
  joined by ``"\\n"`` (no trailing newline), exactly like::

      v0 = input 2.0
      v1 = input -3.0
      v2 = mul v0 v1
      v3 = add v2 v0
      v4 = tanh v3

  (inputs are written with ``repr(float(value))``).

Check it:  python -m exercises ex09   (in a notebook: ``check("ex09")``)
"""

__all__ = ["Tape"]


class Tape:
    """A tiny reverse-mode engine whose whole graph is one list of instructions."""

    def __init__(self):
        raise NotImplementedError

    def input(self, value: float) -> int:
        """Append an input; return its index."""
        raise NotImplementedError

    def add(self, i: int, j: int) -> int:
        """Append ``v_i + v_j``; return its index."""
        raise NotImplementedError

    def mul(self, i: int, j: int) -> int:
        """Append ``v_i * v_j``; return its index."""
        raise NotImplementedError

    def tanh(self, i: int) -> int:
        """Append ``tanh(v_i)``; return its index."""
        raise NotImplementedError

    def value(self, i: int) -> float:
        """The result of instruction ``i``."""
        raise NotImplementedError

    def gradients(self, out: int) -> list[float]:
        """``d v_out / d v_k`` for every instruction ``k``, by one reverse loop."""
        raise NotImplementedError

    def listing(self) -> str:
        """The program, one ``v<k> = <op> <inputs>`` line per instruction."""
        raise NotImplementedError
