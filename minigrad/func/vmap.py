"""``vmap(f)``: ``f`` written for one example, run on a whole batch at once.

``vmap(f, in_dims=(None, 0, 0))(params, xs, ys)`` is ``stack([f(params, x, y) for
x, y in zip(xs, ys)])`` without the loop: ``f`` runs *once*, on tensors whose data
are ``BatchedArray`` batches (``minigrad.batching``).  Each of them looks like one
example (its ``shape`` is one example's), so every op, and every op's backward
and forward-mode rule, runs as written; the batching rules turn each numpy call
into one call on the whole batch.  That is why the transforms compose:
``vmap(grad(loss), in_dims=(None, 0, 0))`` runs ``grad``'s backward pass on
batches too, and the parameters' gradients come out per example (the matmul's
rule ``gᵀ·x`` for a batch of ``g`` and ``x`` is a batched outer product), with
the parameters never copied.

The semantics are ``torch.func.vmap``'s: ``in_dims`` gives, per positional
argument, the axis to map over (``None``: the same for every example), nested
like the argument for tuples, lists and dicts; ``out_dims`` says where the batch
axis goes in each output; vmaps nest (``vmap(vmap(f))``); ``chunk_size`` runs the
batch in chunks of that many examples (less memory, the same result).  Keyword
arguments are never mapped.

``randomness`` says what a random draw inside ``f`` (``randn``, ``rand``,
``nn.init``, dropout, a layer built inside) means: ``"error"`` (the default)
refuses it, ``"same"`` makes one draw for every example, ``"different"`` one per
example (one draw of ``(B,) + shape`` from the same generator, so
``manual_seed`` repeats it).  Nested vmaps each apply their own mode to their own
batch axis (``batching.state``).  With ``chunk_size``, ``"same"`` rewinds the
generators before each chunk, so every chunk shares the first one's numbers;
``"different"`` draws per chunk (independent numbers, not those of one unchunked
run), as in ``torch.func.vmap``.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..batching import BatchedArray
from ..batching.array import PROTOCOL
from ..batching.randomness import same_draws_per_chunk
from ..batching.state import batching
from ..core.node import next_id
from ..core.op import OpExample, define_op, op_example
from ..tensor import Tensor
from ..tensor.combining import cat
from ..value import Value

__all__ = ["vmap"]

RANDOMNESS = ("error", "different", "same")


# --- the op that moves a batch axis in and out (an internal op: it records, so a vmap inside
# grad or jacrev stays differentiable; its vjp is itself, the other way) ------------------------
def _move_forward(x, dim, level, size, into):
    if into:  # axis dim of a plain array becomes the batch
        return BatchedArray(np.moveaxis(x, dim, 0), level), ()
    if isinstance(x, BatchedArray) and x.level == level:  # the batch becomes axis dim
        return np.moveaxis(x.value, 0, dim), ()
    # Not batched at this level (it did not depend on a mapped input): the same for
    # every example, so repeated along the batch axis, as torch.func does.
    x = np.expand_dims(x, dim)
    shape = list(np.shape(x))
    shape[dim] = size
    return np.broadcast_to(x, tuple(shape)).copy(), ()


MOVE_BATCH = define_op(
    internal=True, name="move_batch", engine="tensor", symbol="vmap",
    forward=_move_forward, linear=True,
    vjp=lambda g, dim, level, size, into: (
        MOVE_BATCH(g, dim=dim, level=level, size=size, into=not into),),
    formulas=("∂/∂x = g with the batch axis moved back",),
    label=lambda a: f"vmap{'↓' if a.get('into') else '↑'} dim {a.get('dim')}",
    doc="Into a vmap: axis dim becomes the batch of vmap level `level` (one example per "
        "slice).  Out of it: the batch is stacked along axis dim.")


def _sum_node(node, level, size):
    """A graph node's batch summed away, recorded (``create_graph``): stacked, then summed."""
    return MOVE_BATCH(node, dim=0, level=level, size=size, into=False).sum(axis=0)


PROTOCOL["node_sum"] = _sum_node


@op_example("move_batch")
def _batch_examples() -> list:
    """The op both ways, as vmap uses it: ``vmap(lambda t: 2·t)`` over axis ``dim`` (a batch
    is only meaningful between the two, inside one vmap)."""
    def cases(rng):
        return [((rng.uniform(-2, 2, (3, 4)),), {"dim": 0}),
                ((rng.uniform(-2, 2, (2, 3, 4)),), {"dim": 1})]

    def call(x, dim):
        return vmap(lambda t: t * 2.0, in_dims=dim, out_dims=dim)(x)

    def plain(x, dim):
        return x * 2.0

    return [OpExample(op=MOVE_BATCH, cases=cases, call=call, plain=plain)]


# --- vmap ------------------------------------------------------------------------------------
def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``f`` mapped over a batch axis of its inputs (``torch.func.vmap``; module doc).

    >>> xs = minigrad.randn(5, 3)
    >>> vmap(lambda x: (x * x).sum())(xs).shape      # one sum per row
    (5,)
    """
    if randomness not in RANDOMNESS:
        raise ValueError(f"vmap: randomness must be one of {RANDOMNESS}, got {randomness!r}")
    if chunk_size is not None and (isinstance(chunk_size, bool) or not isinstance(
            chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int or None, got {chunk_size!r}")
    name = getattr(func, "__name__", "f")

    def vmapped(*args, **kwargs):
        flat = _flatten_inputs(func, in_dims, args)
        size = _batch_size(func, flat)
        if chunk_size is None or chunk_size >= size:
            return _run(func, args, kwargs, flat, size, out_dims, randomness)
        parts = []
        # (under "same" every chunk must draw what the first drew: rewind its generators)
        with same_draws_per_chunk(randomness == "same") as rewind:
            for lo in range(0, size, chunk_size):
                if lo:
                    rewind()
                parts.append(_run(func, args, kwargs, _chunk(flat, lo, min(lo + chunk_size,
                                  size)), min(chunk_size, size - lo), out_dims, randomness))
        return _join_chunks(parts, out_dims)

    vmapped.__name__ = f"vmap_{name}"
    vmapped.__doc__ = f"{name} mapped over a batch (minigrad.func.vmap)."
    # (as functools.wraps, and torch.func.vmap, do: inspect.signature(vmapped) is f's, so a
    # step-through names the inputs by f's parameters, and a nested vmap's errors by f's)
    vmapped.__wrapped__ = func
    return vmapped


def _run(func, args, kwargs, flat, size, out_dims, randomness):
    # A level is the first node id of the run: levels only grow (an inner vmap is always
    # the higher one), and a node older than the level was made outside this vmap, shared
    # by every example (``batching.state.sum_over_batches``).
    level = next_id()
    batched = {path: (MOVE_BATCH(x, dim=d, level=level, size=size, into=True)
                      if d is not None else x)
               for path, (x, d, _) in flat.items()}
    with batching(level, randomness, size):
        out = func(*_rebuild(args, batched, ()), **kwargs)
    return _unbatch(out, out_dims, level, size)


# --- inputs -------------------------------------------------------------------------------------
def _flatten_inputs(func, in_dims, args) -> dict:
    """``{path: (tensor, dim, name)}`` for every tensor in ``args`` (``dim`` None: not
    mapped), checking ``in_dims`` against the arguments' structure."""
    if not isinstance(in_dims, (int, tuple, type(None))) or isinstance(in_dims, bool):
        raise TypeError(f"vmap: in_dims must be an int, None or a tuple (one per argument), "
                        f"got {type(in_dims).__name__}")
    if isinstance(in_dims, tuple) and len(in_dims) != len(args):
        raise ValueError(f"vmap: in_dims has {len(in_dims)} entries but the function got "
                         f"{len(args)} positional argument{'s' * (len(args) != 1)}; give one "
                         f"in_dim per argument (None for one not mapped)")
    names = _parameter_names(func, len(args))
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    flat = {}
    for k, (x, d) in enumerate(zip(args, dims)):
        _walk(x, d, (k,), f"argument {k}{names[k]}", flat)
    if not any(d is not None for _, d, _ in flat.values()):
        raise ValueError("vmap: no input is mapped (in_dims are all None, or no argument is "
                         "a Tensor); give at least one tensor argument an in_dim")
    return flat


def _parameter_names(func, n):
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        params = []
    named = [f" ({p.name!r})" for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                            p.POSITIONAL_OR_KEYWORD)]
    return (named + [""] * n)[:n]


def _walk(x, d, path, where, flat):
    if isinstance(d, (tuple, list, dict)) and not isinstance(x, type(d)) and not (
            isinstance(d, (tuple, list)) and isinstance(x, (tuple, list))):
        raise ValueError(f"vmap: in_dims for {where} is a {type(d).__name__} but the argument "
                         f"is a {type(x).__name__}; its in_dim must match its structure (or be "
                         f"one int or None for all of it)")
    if isinstance(x, (tuple, list)):
        if isinstance(d, (tuple, list)) and len(d) != len(x):
            raise ValueError(f"vmap: in_dims for {where} has {len(d)} entries but the argument "
                             f"has {len(x)}")
        for k, v in enumerate(x):
            _walk(v, d[k] if isinstance(d, (tuple, list)) else d, path + (k,),
                  f"{where}[{k}]", flat)
        return
    if isinstance(x, dict):
        if isinstance(d, dict) and set(d) != set(x):
            raise ValueError(f"vmap: in_dims for {where} has keys {sorted(d)} but the argument "
                             f"has keys {sorted(x)}")
        for k, v in x.items():
            _walk(v, d[k] if isinstance(d, dict) else d, path + (k,), f"{where}[{k!r}]", flat)
        return
    if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
        raise TypeError(f"vmap: the in_dim for {where} must be an int or None, got {d!r}")
    if isinstance(x, Value):
        raise TypeError(f"vmap: {where} is a Value (the scalar engine); vmap maps over "
                        f"Tensors: make it minigrad.tensor(...), or pass in_dim None")
    if not isinstance(x, Tensor):
        if d is not None:
            raise TypeError(f"vmap: {where} is a {type(x).__name__}, not a Tensor, but its "
                            f"in_dim is {d}; only tensors can be mapped over (give it in_dim "
                            f"None)")
        return
    if d is not None:
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"vmap: in_dim {d} for {where} is out of range: it has shape "
                             f"{x.shape} ({x.ndim} dims)")
        d %= x.ndim
    flat[path] = (x, d, where)


def _batch_size(func, flat) -> int:
    sizes = {where: x.shape[d] for x, d, where in flat.values() if d is not None}
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{where} has size {n}" for where, n in sizes.items())
        raise ValueError(f"vmap: the mapped inputs must have the same size along their in_dims, "
                         f"but {listed}")
    return next(iter(sizes.values()))


def _rebuild(x, batched, path):
    """The arguments with each tensor replaced by its batched version."""
    if path in batched:
        return batched[path]
    if isinstance(x, (tuple, list)):
        return type(x)(_rebuild(v, batched, path + (k,)) for k, v in enumerate(x))
    if isinstance(x, dict):
        return {k: _rebuild(v, batched, path + (k,)) for k, v in x.items()}
    return x


def _chunk(flat, lo, hi) -> dict:
    out = {}
    for path, (x, d, where) in flat.items():
        if d is not None:
            index = (slice(None),) * d + (slice(lo, hi),)
            x = x[index]
        out[path] = (x, d, where)
    return out


# --- outputs ----------------------------------------------------------------------------------
def _unbatch(out, out_dims, level, size, where="the output"):
    if isinstance(out, (tuple, list)):
        if isinstance(out_dims, (tuple, list)) and len(out_dims) != len(out):
            raise ValueError(f"vmap: out_dims has {len(out_dims)} entries but the function "
                             f"returned {len(out)} outputs")
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(out)
        return type(out)(_unbatch(o, d, level, size, f"{where}[{k}]")
                         for k, (o, d) in enumerate(zip(out, dims)))
    if isinstance(out, dict):
        return {k: _unbatch(o, out_dims[k] if isinstance(out_dims, dict) else out_dims,
                            level, size, f"{where}[{k!r}]") for k, o in out.items()}
    if not isinstance(out, Tensor):
        raise TypeError(f"vmap: the function must return Tensors (or tuples, lists, dicts of "
                        f"them), but {where} is a {type(out).__name__}")
    if isinstance(out_dims, (tuple, list, dict)):
        raise ValueError(f"vmap: out_dims for {where} is a {type(out_dims).__name__} but the "
                         f"output is one Tensor")
    batched = isinstance(out.data, BatchedArray) and out.data.level == level
    if out_dims is None:
        if batched:
            raise ValueError(f"vmap: out_dims is None for {where}, but it differs from "
                             f"example to example; give it an axis")
        return out
    if isinstance(out_dims, bool) or not isinstance(out_dims, int):
        raise TypeError(f"vmap: out_dims must be an int or None, got {out_dims!r}")
    ndim = out.ndim + 1
    if not -ndim <= out_dims < ndim:
        raise ValueError(f"vmap: out_dims {out_dims} is out of range for {where}, which has "
                         f"{out.ndim} dims per example ({ndim} with the batch)")
    return MOVE_BATCH(out, dim=out_dims % ndim, level=level, size=size, into=False)


def _join_chunks(parts, out_dims):
    first = parts[0]
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        return type(first)(_join_chunks([p[k] for p in parts], dims[k])
                           for k in range(len(first)))
    if isinstance(first, dict):
        return {k: _join_chunks([p[k] for p in parts], out_dims[k] if isinstance(
            out_dims, dict) else out_dims) for k in first}
    if out_dims is None:
        return first
    return cat(parts, axis=out_dims % first.ndim)
