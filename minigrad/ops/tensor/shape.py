"""Shape ops: they move or copy numbers around without changing them.

Their backward moves the gradient back the same way: reshape it to the
input's shape, apply the inverse permutation, slice it apart (``cat``), pick
one slice (``stack``), or crop the padding (``pad``).

Their forward-mode rule is the forward itself: moving numbers around is linear,
so the tangents move the same way (``linear=True``: ṫ = reshape(ṫx), ṫ =
cat(ṫ₁, ṫ₂, …) …).  ``pad`` is the exception: padding with a non-zero value is
affine, not linear, so its tangent is padded with zeros by a rule of its own.
"""

from __future__ import annotations

import numpy as np

from ...core.op import define_op
from ._base import nd, uniform


# Ops that only rearrange numbers save x's shape, never x itself.
def _shape_of(g, in_shape, **_):
    return g.reshape(in_shape)


RESHAPE = define_op(
    name="reshape", engine="tensor", symbol="reshape",
    linear=True,  # ṫ = reshape(ṫx)
    forward=lambda x, shape: (x.reshape(shape), (x.shape,)), grads=(_shape_of,),
    formulas=("∂/∂x = the gradient reshaped back to x's shape",),
    cases=lambda rng: [((uniform(rng, (2, 6)),), {"shape": (3, 4)}),
                       ((uniform(rng, (2, 3, 4)),), {"shape": (4, -1)}),
                       ((uniform(rng, ()),), {"shape": (1, 1)}),
                       ((uniform(rng, (1,)),), {"shape": ()})],
    label=lambda a: f"reshape{tuple(a['shape'])}")


def _permutation(axes, shape) -> tuple:
    """``axes`` checked and normalised: a permutation of ``range(ndim)``, negatives counted
    from the end.  It raises a clear error for a wrong count, a repeat or an axis out of
    range (``op_error`` adds the op and the input's shape and dtype), before numpy can.

    Normalising matters for the backward, which inverts the permutation with
    ``argsort``: ``argsort((-1, 0))`` is ``(0, 1)``, not the inverse of ``(1, 0)``.
    """
    ndim = len(shape)
    if len(axes) != ndim:
        hint = ("; to swap two axes as PyTorch's transpose(dim0, dim1) does, use "
                "swapaxes(dim0, dim1)") if len(axes) == 2 else ""
        raise ValueError(f"axes {tuple(axes)} are not a permutation of the {ndim} axes of a "
                         f"tensor of shape {shape} (give each axis once{hint})")
    perm = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise IndexError(f"axis {a} in {tuple(axes)} is out of range for a tensor of shape "
                             f"{shape} (valid axes: {-ndim} to {ndim - 1})")
        perm.append(a % ndim)
    if len(set(perm)) != ndim:
        twice = next(a for a in perm if perm.count(a) > 1)
        raise ValueError(f"axes {tuple(axes)} are not a permutation of the {ndim} axes of a "
                         f"tensor of shape {shape} (axis {twice} is given twice)")
    return tuple(perm)


def _transpose_forward(x, axes=None):
    if axes is None:
        return x.transpose(), ()
    return x.transpose(_permutation(axes, x.shape)), ()


def _transpose_grad(g, axes=None, **_):
    if axes is None:
        return g.transpose()
    # A node records the axes as given (-1 ...); g has x's rank, so ``% g.ndim``
    # normalises them as the forward did before argsort inverts the permutation.
    return g.transpose(*(int(a) for a in np.argsort([a % g.ndim for a in axes])))


TRANSPOSE = define_op(
    name="transpose", engine="tensor", symbol="ᵀ", forward=_transpose_forward,
    linear=True,  # ṫ = ṫxᵀ (the same permutation)
    grads=(_transpose_grad,),
    formulas=("∂/∂x = the gradient with the inverse permutation applied",),
    cases=lambda rng: [((uniform(rng, (3, 4)),), {"axes": None}),
                       ((uniform(rng, (2, 3, 4)),), {"axes": (1, 2, 0)}),
                       ((uniform(rng, (2, 3, 4)),), {"axes": None}),
                       ((uniform(rng, (3, 4)),), {"axes": (-1, 0)}),
                       ((uniform(rng, (3, 3)),), {"axes": (-1, -2)}),
                       ((uniform(rng, (2, 3, 4)),), {"axes": (-1, 0, 1)}),
                       ((uniform(rng, (2, 3, 4, 5)),), {"axes": (2, -1, -4, 1)})],
    label=lambda a: "ᵀ" if a.get("axes") is None else f"permute{tuple(a['axes'])}")


SQUEEZE = define_op(
    name="squeeze", engine="tensor", symbol="squeeze",
    linear=True,  # ṫ = squeeze(ṫx)
    forward=lambda x, axis=None: (np.squeeze(x, axis), (x.shape,)), grads=(_shape_of,),
    formulas=("∂/∂x = the gradient reshaped back (size-1 axes return)",),
    cases=lambda rng: [((uniform(rng, (3, 1, 4)),), {"axis": 1}),
                       ((uniform(rng, (1, 3, 1)),), {"axis": None}),
                       ((uniform(rng, (1, 3, 1)),), {"axis": (0, -1)})],
    label=lambda a: "squeeze" if a.get("axis") is None else f"squeeze({a['axis']})")
UNSQUEEZE = define_op(
    name="unsqueeze", engine="tensor", symbol="unsqueeze",
    linear=True,  # ṫ = unsqueeze(ṫx)
    forward=lambda x, axis: (np.expand_dims(x, axis), (x.shape,)), grads=(_shape_of,),
    formulas=("∂/∂x = the gradient reshaped back (the new axis dropped)",),
    cases=lambda rng: [((uniform(rng, (3, 4)),), {"axis": 0}),
                       ((uniform(rng, (3, 4)),), {"axis": -1}),
                       ((uniform(rng, ()),), {"axis": 0})],
    label=lambda a: f"unsqueeze({a['axis']})")
EXPAND = define_op(
    name="expand", engine="tensor", symbol="expand",
    linear=True,  # ṫ = expand(ṫx): every copy moves with x
    forward=lambda x, shape: (np.broadcast_to(x, shape), ()), grads=(lambda g, **_: g,),
    formulas=("∂/∂x = Σ of the gradient over the copies (the engine's unbroadcast)",),
    cases=lambda rng: [((uniform(rng, (3, 1)),), {"shape": (3, 4)}),
                       ((uniform(rng, (4,)),), {"shape": (2, 3, 4)}),
                       ((uniform(rng, ()),), {"shape": (2, 2)})],
    label=lambda a: f"expand{tuple(a['shape'])}")
FLATTEN = define_op(
    name="flatten", engine="tensor", symbol="flatten",
    linear=True,  # ṫ = flatten(ṫx)
    forward=lambda x, shape: (x.reshape(shape), (x.shape,)), grads=(_shape_of,),
    formulas=("∂/∂x = the gradient reshaped back to x's shape",),
    cases=lambda rng: [((uniform(rng, (2, 3, 4)),), {"shape": (2, 12)}),
                       ((uniform(rng, (2, 3)),), {"shape": (6,)})])


def _cat_forward(*xs, axis=0):
    out = np.concatenate(xs, axis=axis)
    ax = axis % out.ndim
    return out, tuple(x.shape[ax] for x in xs)  # each input's length along the axis


def _cat_vjp(g, *lengths, axis=0):
    """Each input's gradient is the slice of ``g`` where that input was placed."""
    ax = axis % g.ndim
    grads = []
    start = 0
    for n in lengths:
        grads.append(g[(slice(None),) * ax + (slice(start, start + n),)])
        start += n
    return tuple(grads)


CAT = define_op(
    name="cat", engine="tensor", symbol="cat", forward=_cat_forward, vjp=_cat_vjp,
    linear=True,  # ṫ = cat(ṫ₁, ṫ₂, …), zeros for an input with no tangent
    variadic=True, formulas=("∂/∂xₖ = the gradient's slice where xₖ was placed",),
    cases=lambda rng: [((uniform(rng, (2, 3)), uniform(rng, (4, 3))), {"axis": 0}),
                       ((uniform(rng, (2, 3)), uniform(rng, (2, 1)), uniform(rng, (2, 2))),
                        {"axis": -1}),
                       ((uniform(rng, (3,)),), {"axis": 0})],
    label=lambda a: f"cat(axis={a.get('axis', 0)})", promote=True)


def _stack_forward(*xs, axis=0):
    return np.stack(xs, axis=axis), ()


def _stack_vjp(g, axis=0, **_):
    """The k-th input's gradient is the k-th slice of ``g`` along the new axis."""
    before = (slice(None),) * (axis % g.ndim)
    return tuple(nd(g[before + (k,)]) for k in range(g.shape[axis]))


STACK = define_op(
    name="stack", engine="tensor", symbol="stack", forward=_stack_forward, vjp=_stack_vjp,
    linear=True,  # ṫ = stack(ṫ₁, ṫ₂, …)
    variadic=True, formulas=("∂/∂xₖ = the gradient's k-th slice along the new axis",),
    cases=lambda rng: [((uniform(rng, (2, 3)), uniform(rng, (2, 3))), {"axis": 0}),
                       ((uniform(rng, (3,)), uniform(rng, (3,)), uniform(rng, (3,))),
                        {"axis": -1}),
                       ((uniform(rng, ()), uniform(rng, ())), {"axis": 0})],
    label=lambda a: f"stack(axis={a.get('axis', 0)})", promote=True)


def _pad_forward(x, pad_width, value=0.0):
    return np.pad(x, pad_width, mode="constant", constant_values=value), (x.shape,)


def _pad_grad(g, in_shape, pad_width, value=0.0):
    index = tuple(slice(before, before + n) for (before, _after), n in zip(pad_width, in_shape))
    return g[index]


def _pad_jvp(t, in_shape, pad_width, value=0.0):
    """ṫ = pad(ṫx, 0): the padding value is a constant, so its tangent is zero.
    (``PAD`` as a function: on a node in a graph-building pass, a recorded pad.)"""
    return PAD(t, pad_width=pad_width, value=0.0)


PAD = define_op(
    name="pad", engine="tensor", symbol="pad", forward=_pad_forward, grads=(_pad_grad,),
    jvps=(_pad_jvp,),
    formulas=("∂/∂x = the gradient with the padding cropped off",),
    cases=lambda rng: [((uniform(rng, (2, 3)),), {"pad_width": ((1, 0), (2, 1))}),
                       ((uniform(rng, (1, 2, 3, 3)),),
                        {"pad_width": ((0, 0), (0, 0), (1, 1), (1, 1)), "value": 0.5})],
    label=lambda a: "pad")


CAST = define_op(
    name="cast", engine="tensor", symbol="cast",
    linear=True,  # ṫ = cast(ṫx): between float dtypes, a cast is linear
    forward=lambda x, dtype: (x.astype(dtype), (x.dtype,)),
    grads=(lambda g, in_dtype, dtype: g.astype(in_dtype),),
    formulas=("∂/∂x = 1 (the gradient is cast back to x's dtype)",),
    cases=lambda rng: [((uniform(rng, (2, 3)),), {"dtype": np.dtype(np.float64)})],
    label=lambda a: f"→{a['dtype']}")
