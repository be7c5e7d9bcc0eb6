"""Hints shared by the checks of lesson 11 (derivatives of derivatives)."""

from __future__ import annotations

from ._support import ExerciseFailure, call

__all__ = ["CREATE_GRAPH", "DOT_GRAD", "call_twice"]

CREATE_GRAPH = ("to differentiate a derivative again it must be a graph node: pass "
                "create_graph=True to the first grad(), and keep what it returns as it is "
                "(.data, .item(), float(...) or Tensor(g.data) cut the graph)")
DOT_GRAD = ("backward() adds into .grad, which may already hold a gradient (the inputs "
            "arrived with one, or your first backward left one): use "
            "minigrad.autograd.grad(...), which returns the gradients and leaves every "
            ".grad as it was")

# what grad() says when the first derivative is not a node (a float, an array, a
# fresh leaf or a constant made from its value)
_CUT = ("must be Values or Tensors", "does not require grad", "is not used to compute",
        "no gradient reached")


def call_twice(fn, name: str, args: dict, context: str):
    """``call``, with the ``create_graph`` hint when the student's second ``grad``
    found no graph to go back through."""
    try:
        return call(fn, name, args, context=context)
    except ExerciseFailure as exc:
        message = str(exc)
        if "\nhint:" not in message and any(key in message for key in _CUT):
            raise ExerciseFailure(f"{message}\nhint: {CREATE_GRAPH}") from None
        raise
