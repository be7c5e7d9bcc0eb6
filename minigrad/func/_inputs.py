"""What every transform does to its arguments and its function's result.

A transform of ``f`` differentiates with respect to the arguments ``argnums``
picks.  Each of those must be a ``Tensor`` or a ``Value``; a transform runs
``f`` on a *differentiable copy* of it (the same data, a fresh leaf that
requires grad), so the caller's own nodes are never touched and ``.grad`` is
never written.  Inside another transform (``hessian`` is ``jacfwd(jacrev(f))``),
whether the outer variable reaches ``f`` through an argument or through a
closure, the transform keeps that connection and builds its result as a
differentiable graph (``create_graph=True``), so the outer transform can
differentiate it again (``_lift.lift_inputs``, ``levels.py``).
"""

from __future__ import annotations

import numpy as np

from ..core.node import Node
from ..tensor import Tensor
from ..value import Value

__all__ = ["argnums_tuple", "check_chunk_size", "check_input", "check_output", "checked_like",
           "matched_cotangents", "nest", "outputs_of", "pick", "replace", "split_aux"]


def argnums_tuple(argnums, nargs: int, where: str) -> tuple[tuple[int, ...], bool]:
    """``argnums`` as a tuple of non-negative positions, and whether it was a tuple
    (then results come back as a tuple, one per position, as in ``torch.func``)."""
    many = isinstance(argnums, tuple)
    nums = argnums if many else (argnums,)
    if not nums:
        raise ValueError(f"{where}: argnums is an empty tuple; name at least one argument")
    out = []
    for k in nums:
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(f"{where}: argnums must be an int or a tuple of ints, got "
                            f"{type(k).__name__}")
        if not -nargs <= k < nargs:
            raise ValueError(f"{where}: argnums={k} but the function got {nargs} "
                             f"argument{'s' * (nargs != 1)}")
        out.append(k % nargs)
    if len(set(out)) != len(out):
        raise ValueError(f"{where}: argnums {nums} names an argument twice")
    return tuple(out), many


def check_input(x, where: str, what: str = "argument"):
    """``x`` if it is a ``Tensor`` or ``Value`` of floats, else a clear error."""
    if not isinstance(x, (Tensor, Value)):
        hint = (" (wrap it: minigrad.tensor(x) or Value(x))"
                if isinstance(x, (int, float, np.ndarray, list)) else "")
        raise TypeError(f"{where}: the {what} to differentiate must be a Tensor or a Value, "
                        f"got {type(x).__name__}{hint}")
    if isinstance(x, Tensor) and x.data.dtype.kind != "f":
        raise TypeError(f"{where}: cannot differentiate with respect to a {x.data.dtype} "
                        f"tensor (shape {x.data.shape}); use a floating dtype")
    return x


def check_output(out, where: str, scalar: bool = False):
    """The function's result must be a Tensor or a Value (one element when ``scalar``)."""
    if not isinstance(out, (Tensor, Value)):
        raise TypeError(f"{where}: the function must return a Tensor or a Value, got "
                        f"{type(out).__name__}")
    if scalar and isinstance(out, Tensor) and out.data.size != 1:
        raise ValueError(f"{where}: the function must return a single number to take its "
                         f"gradient, got a tensor of shape {out.data.shape} (use jacrev or "
                         f"vjp for a vector-valued function)")
    if isinstance(out, Tensor) and out.data.dtype.kind != "f":
        raise TypeError(f"{where}: the function returned a {out.data.dtype} tensor, which "
                        f"has no derivative")
    return out


def outputs_of(out, where: str):
    """The function's result as a tuple of checked outputs, and its structure: ``None``
    for a single Tensor/Value, else ``tuple`` or ``list`` (a flat sequence of them, as
    ``torch.func`` allows; every result then comes back in the same structure)."""
    if not isinstance(out, (tuple, list)):
        return (check_output(out, where),), None
    if not out:
        raise ValueError(f"{where}: the function returned an empty {type(out).__name__}; "
                         f"return at least one Tensor or Value")
    for k, o in enumerate(out):
        if not isinstance(o, (Tensor, Value)):
            raise TypeError(f"{where}: output {k} of the function must be a Tensor or a "
                            f"Value, got {type(o).__name__} (nested tuples of outputs are "
                            f"not supported)")
        check_output(o, f"{where} (output {k})")
    return tuple(out), type(out)


def nest(structure, items):
    """``items`` (one per output) in the function's output ``structure``."""
    return items[0] if structure is None else structure(items)


def matched_cotangents(cotangents, outs, structure, where: str) -> tuple:
    """One checked cotangent per output, given in the output's structure (one cotangent
    for one output, a tuple of them for a tuple of outputs), else a clear error."""
    if structure is None:
        if isinstance(cotangents, (tuple, list)):
            raise TypeError(f"{where}: the function returned one output, so vjp_fn takes "
                            f"one cotangent shaped like it, got a {type(cotangents).__name__} "
                            f"of {len(cotangents)}")
        return (cotangent_for(cotangents, outs[0], where, "the cotangent", "the output"),)
    if not isinstance(cotangents, (tuple, list)) or len(cotangents) != len(outs):
        got = (f"a {type(cotangents).__name__} of {len(cotangents)}"
               if isinstance(cotangents, (tuple, list)) else type(cotangents).__name__)
        raise TypeError(f"{where}: the function returned a {structure.__name__} of "
                        f"{len(outs)} outputs, so vjp_fn takes a tuple of {len(outs)} "
                        f"cotangents (one per output, in order), got {got}")
    return tuple(cotangent_for(c, o, where, f"cotangent {k}", f"output {k}")
                 for k, (c, o) in enumerate(zip(cotangents, outs)))


def cotangent_for(c, out, where, what, whose):
    """A cotangent for ``out``: raw data of its shape and dtype (a float for a Value); a
    Tensor that requires grad is kept as a node (an outer transform differentiates it)."""
    data = checked_like(c, out, where, what, whose)
    return c if isinstance(c, Tensor) and c.requires_grad else data


def check_chunk_size(chunk_size, where: str):
    """``chunk_size``: None (every basis direction in one chunk) or a positive int."""
    if chunk_size is None:
        return None
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"{where}: chunk_size must be a positive int or None, got "
                         f"{chunk_size!r}")
    return chunk_size


def checked_like(x, node, where: str, what: str, whose: str):
    """``x``, a tangent or cotangent for ``node``, as raw data (a float for a Value),
    with ``node``'s shape and dtype, else a clear error (``what``: "tangent 0";
    ``whose``: "its primal")."""
    if isinstance(node, Value):
        data = x.data if isinstance(x, Value) else x
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(f"{where}: {what} must be a number like {whose}, a Value, got "
                            f"{type(x).__name__}")
        return float(data)
    data = x.data if isinstance(x, Tensor) else np.asarray(x)
    if data.shape != node.data.shape:
        raise ValueError(f"{where}: {what} has shape {data.shape} but {whose} has shape "
                         f"{node.data.shape}; they must match")
    if data.dtype != node.data.dtype:
        raise TypeError(f"{where}: {what} has dtype {data.dtype} but {whose} has dtype "
                        f"{node.data.dtype}; they must match")
    return data


def split_aux(result, has_aux: bool, where: str):
    """``(output, aux)`` from what the function returned: the pair itself with
    ``has_aux=True`` (else a clear error), ``(result, None)`` without."""
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise TypeError(f"{where}: with has_aux=True the function must return a pair "
                        f"(output, aux), got {type(result).__name__}")
    return result


def pick(args, nums):
    return tuple(args[k] for k in nums)


def replace(args, nums, new) -> tuple:
    """``args`` with the arguments at ``nums`` replaced by ``new``."""
    args = list(args)
    for k, x in zip(nums, new):
        args[k] = x
    return tuple(args)


def is_node(x) -> bool:
    return isinstance(x, Node)
