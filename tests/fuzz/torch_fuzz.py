"""Differential fuzzing of minigrad's Tensor engine against PyTorch.

Hypothesis draws small random *programs*: one or two leaf tensors (float64 or float32,
any shape up to 4-D, including empty and 0-d ones) followed by a few operations picked
from an op family (arithmetic with broadcasting, unary functions, maximum/minimum,
where, clip, reductions, softmax, matmul, shape ops, cat/stack, pad, indexing, shared
subexpressions).  Every step runs in both libraries and is compared for shape, dtype,
``requires_grad`` and value; then a backward pass (sum, an upstream gradient, two
backwards through a retained graph, or two roots) is run and every leaf's and
intermediate's gradient is compared.  Inputs close to a kink (|x| near 0 for
abs/relu, near ties for max/min, near a clip bound) are avoided, because there the
two libraries may legitimately pick different sub-gradients.

A disagreement raises :class:`Mismatch` whose message is the program text (a minigrad
script and the equivalent torch script), so after Hypothesis has shrunk it the
failure reads as a minimal reproducer.  Two targeted checks complete the random
programs: exact ties for max/min/maximum/minimum, checked against minigrad's
documented rule (tied elements share the gradient equally, which is also what torch
does), and mixed operand dtypes (float32/float64/int64/bool tensors, 0-d tensors and
Python numbers), whose result dtype must follow torch's type promotion.

``tests/fuzz/test_torch_fuzz.py`` runs a few dozen derandomized examples per family as part
of the test suite (skipped without torch).  For long runs use the command line::

    python tests/fuzz/torch_fuzz.py [all|family,family,...] [examples per family and dtype]

e.g. ``python tests/fuzz/torch_fuzz.py all 300`` or
``python tests/fuzz/torch_fuzz.py index,pad 2000``; it prints ok/fail/no-op counts per
family and dtype and one reproducer per failure kind.
"""

# The op templates mix printf formatting (for the drawn arguments) with str.format
# placeholders ({x}, {y}: operand names), which f-strings would make unreadable.
# ruff: noqa: UP031

from __future__ import annotations

import sys
import traceback
import warnings
from collections import Counter
from contextlib import contextmanager

import numpy as np
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hseed
from hypothesis import strategies as st

import minigrad as mg

# (rtol, atol relative to the largest finite |value|) per dtype
TOL = {np.float64: (1e-7, 1e-9), np.float32: (2e-3, 2e-4)}
# Hypothesis settings shared by the tests and the command line (no example database)
HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
          HealthCheck.large_base_example]


@contextmanager
def quiet():
    """Overflow/invalid-value warnings are expected on random data: silence them locally."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class Skip(Exception):
    """This step (or program) is not a meaningful comparison: draw another."""


class Mismatch(AssertionError):
    """minigrad and torch disagree; the message ends with the reproducer program."""

    def __init__(self, kind, op, msg):
        super().__init__(f"[{kind}] {op}: {msg}")
        self.kind, self.op, self.msg = kind, op, msg


def close(a, b, dtype):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    rtol, atol = TOL[dtype]
    fin = np.isfinite(b)
    scale = max(1.0, float(np.max(np.abs(b[fin]))) if fin.any() else 1.0)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol * scale, equal_nan=True))


class Prog:
    """A program under construction: the same named values in a minigrad and a torch
    namespace, plus the source lines that rebuild each side."""

    def __init__(self, draw, dtype):
        self.draw = draw
        self.dtype = dtype
        self.mg_env = {"mg": mg, "np": np, "F": mg.functional}
        self.th_env = {"torch": torch, "TF": TF, "np": np}
        self.lines = []      # minigrad reproducer
        self.tlines = []     # torch reproducer
        self.names = []      # tensors available as operands
        self.leaves = []
        self.ops = []        # op families used, for messages
        self.n = 0
        # bulk data (leaf values, masks, upstream gradients) comes from a drawn seed
        self.rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))

    def text(self):
        return ("# minigrad\n" + "\n".join(self.lines)
                + "\n# torch\n" + "\n".join(self.tlines))

    def fresh(self, p="t"):
        self.n += 1
        return f"{p}{self.n}"

    def mg(self, name):
        return self.mg_env[name]

    def th(self, name):
        return self.th_env[name]

    def const(self, arr):
        """A numpy constant (mask, index array, upstream gradient) shared by both sides."""
        k = self.fresh("k")
        self.mg_env[k] = arr
        self.th_env[k] = torch.as_tensor(arr.copy())
        lit = (f"np.array({arr.tolist()!r}, dtype=np.{arr.dtype.name})" if arr.size
               else f"np.zeros({arr.shape}, dtype=np.{arr.dtype.name})")
        self.lines.append(f"{k} = {lit}")
        self.tlines.append(f"{k} = torch.as_tensor({lit})")
        return k

    def leaf(self, shape, rg=None, lo=0.3, hi=2.0):
        """A new leaf with values of magnitude in [lo, hi) and random signs."""
        if rg is None:
            rg = self.draw(st.integers(0, 9)) < 8
        rng = self.rng
        arr = np.asarray((rng.uniform(lo, hi, size=shape)
                          * rng.choice([-1.0, 1.0], size=shape)).astype(self.dtype))
        name = self.fresh()
        self.mg_env[name] = mg.Tensor(arr.copy(), requires_grad=rg)
        self.th_env[name] = torch.tensor(arr.copy(), requires_grad=rg)
        lit = repr(arr.tolist()) if arr.size else f"np.zeros({shape}).tolist()"
        src = f"np.array({lit}, dtype=np.{arr.dtype.name}).reshape({shape})"
        self.lines.append(f"{name} = mg.Tensor({src}, requires_grad={rg})")
        self.tlines.append(f"{name} = torch.tensor({src}, requires_grad={rg})")
        self.names.append(name)
        self.leaves.append(name)
        return name

    def run(self, family, mg_expr, th_expr, **fmt):
        """Evaluate one step in both libraries; compare shape, dtype, requires_grad, value."""
        name = self.fresh()
        me = mg_expr.format(**fmt)
        te = th_expr.format(**fmt)
        line = f"{name} = {me}"
        terr = merr = None
        try:
            tv = eval(te, self.th_env)
        except Exception as e:
            terr = e
        try:
            mv = eval(me, self.mg_env)
        except Exception as e:
            merr = e
        if terr is not None and merr is not None:
            raise Skip()  # both reject the call: fine
        self.lines.append(line)
        self.tlines.append(f"{name} = {te}")
        self.ops.append(family)
        if merr is not None:
            raise Mismatch("crash-fwd", family, f"{line}: {type(merr).__name__}: {merr}"
                           f"  (torch ok: {tuple(tv.shape)})")
        if terr is not None:
            raise Mismatch("mg-accepts", family, f"{line}: torch raised {type(terr).__name__}: "
                           f"{str(terr)[:200]}; mg gave shape {mv.shape}")
        if not isinstance(mv, mg.Tensor):
            raise Mismatch("type", family, f"{line}: returned {type(mv)}")
        if tuple(mv.shape) != tuple(tv.shape):
            raise Mismatch("shape", family, f"{line}: mg {mv.shape} torch {tuple(tv.shape)}")
        want = np.dtype(str(tv.dtype).replace("torch.", ""))
        if mv.dtype != want:
            raise Mismatch("dtype", family, f"{line}: mg {mv.dtype} torch {want}")
        if mv.requires_grad != tv.requires_grad:
            raise Mismatch("requires_grad", family,
                           f"{line}: mg {mv.requires_grad} torch {tv.requires_grad}")
        tvd = tv.detach().numpy()
        if not close(mv.data, tvd, self.dtype):
            raise Mismatch("value", family, f"{line}: mg {mv.data!r} torch {tvd!r}")
        fin = tvd[np.isfinite(tvd)]
        if (not np.isfinite(tvd).all()) or (fin.size and np.abs(fin).max() > 1e3):
            raise Skip()  # huge or non-finite values would make later comparisons noisy
        if any(tv is v for v in self.th_env.values()):
            tv = tv.view_as(tv)  # torch returned an existing tensor (1-D flatten): new node
        if tv.requires_grad:
            tv.retain_grad()
        self.mg_env[name] = mv
        self.th_env[name] = tv
        self.names.append(name)
        return name

    # -- guards on operand values (checked on both sides) ------------------------------
    def vals(self, name):
        return (self.mg(name).data.astype(np.float64),
                self.th(name).detach().numpy().astype(np.float64))

    def away(self, name, point=0.0, eps=None):
        """No element within eps of a kink (exactly on it in both libraries is allowed)."""
        eps = eps or (1e-6 if self.dtype == np.float64 else 1e-3)
        a, b = self.vals(name)
        da, db = np.abs(a - point), np.abs(b - point)
        exact = (da == 0) & (db == 0)
        return not (((da < eps) & ~exact).any() or ((db < eps) & ~exact).any())

    def positive(self, name, lo=0.1):
        a, b = self.vals(name)
        return (a.size == 0) or (a.min() > lo and b.min() > lo)

    def pick(self, pred=lambda n: True):
        cands = [n for n in self.names if pred(n)]
        if not cands:
            raise Skip()
        return cands[self.draw(st.integers(0, len(cands) - 1))]


# --- shape strategies --------------------------------------------------------------------
def shape_st(max_nd=4):
    size = st.integers(0, 4) | st.integers(1, 3)
    return st.lists(size, min_size=0, max_size=max_nd).map(tuple)


def broadcast_partner(draw, shape):
    """A shape that broadcasts with ``shape``."""
    nd = len(shape)
    keep = draw(st.integers(0, nd))  # trailing dims kept
    tail = list(shape[nd - keep:])
    for i in range(len(tail)):
        if draw(st.integers(0, 3)) == 0:
            tail[i] = 1
    extra = draw(st.integers(0, max(0, 4 - nd)))
    lead = [draw(st.integers(1, 3)) for _ in range(extra)] if len(tail) == nd else []
    # and grow some of ``shape``'s size-1 axes
    out = lead + tail
    for i in range(len(tail)):
        if shape[nd - keep + i] == 1 and draw(st.integers(0, 2)) == 0:
            out[len(lead) + i] = draw(st.integers(0, 3))
    return tuple(out)


# --- op families --------------------------------------------------------------------------
NUMS = [2.5, -1.5, 0.5, 3.0, -0.75]


def op_arith(p):
    d = p.draw
    a = p.pick()
    sym = d(st.sampled_from(["+", "-", "*", "/", "**"]))
    form = d(st.sampled_from(["tt", "tnew", "newt", "tn", "nt"]))
    shape = p.mg(a).shape
    if form == "tt":
        b = p.pick(lambda n: _bc(p.mg(n).shape, shape))
        x, y = a, b
    elif form == "tnew":
        x, y = a, p.leaf(broadcast_partner(d, shape))
    elif form == "newt":
        x, y = p.leaf(broadcast_partner(d, shape)), a
    if form in ("tt", "tnew", "newt"):
        if sym == "/" and not p.away(y, 0.0, 0.1):
            raise Skip()
        if sym == "**":
            if not p.positive(x):
                raise Skip()
            yv = p.vals(y)[0]
            if yv.size and np.abs(yv).max() > 3:
                raise Skip()
        return p.run("arith:" + sym + ":tensor", "{x} " + sym + " {y}", "{x} " + sym + " {y}", x=x,
                     y=y)
    if sym == "**":
        if form == "tn":
            c = d(st.sampled_from([2, 3, 0, -1, 0.5, 1.5, -2, 2.0]))
            if (isinstance(c, float) and c != int(c)) and not p.positive(a):
                raise Skip()
            if c < 0 and not p.away(a, 0.0, 0.2):
                raise Skip()
            if (c < 1 and c != 0) and not p.positive(a, 0.05) and not float(c).is_integer():
                raise Skip()
            return p.run("arith:**:tensor**num", "{x} ** {c}", "{x} ** {c}", x=a, c=repr(c))
        c = d(st.sampled_from([2.0, 0.5, 3.0, 1.5]))
        return p.run("arith:**:num**tensor", "{c} ** {x}", "{c} ** {x}", x=a, c=repr(c))
    c = d(st.sampled_from(NUMS + [2, -3]))
    if form == "tn":
        if sym == "/" and c == 0:
            raise Skip()
        return p.run("arith:" + sym + ":tensor-num", "{x} " + sym + " {c}", "{x} " + sym + " {c}",
                     x=a, c=repr(c))
    if sym == "/" and not p.away(a, 0.0, 0.1):
        raise Skip()
    return p.run("arith:" + sym + ":num-tensor", "{c} " + sym + " {x}", "{c} " + sym + " {x}", x=a,
                 c=repr(c))


def _bc(s1, s2):
    try:
        np.broadcast_shapes(s1, s2)
        return True
    except ValueError:
        return False


def op_unary(p):
    d = p.draw
    a = p.pick()
    f = d(st.sampled_from(["neg", "-", "exp", "log", "sqrt", "abs", "absop", "tanh", "sigmoid",
                           "relu", "leaky_relu", "gelu", "gelu_tanh", "F.relu", "F.gelu_tanh"]))
    if f == "exp":
        a_max = p.vals(a)[0]
        if a_max.size and a_max.max() > 20:
            raise Skip()
        return p.run("unary:exp", "{x}.exp()", "{x}.exp()", x=a)
    if f in ("log", "sqrt"):
        if not p.positive(a, 0.05):
            a = p.run("arith:*:tensor", "{x} * {x}", "{x} * {x}", x=a)
            a = p.run("arith:+:tensor-num", "{x} + 0.5", "{x} + 0.5", x=a)
        return p.run("unary:" + f, "{x}.%s()" % f, "{x}.%s()" % f, x=a)
    if f in ("abs", "absop", "relu", "leaky_relu", "F.relu") and not p.away(a):
        raise Skip()
    m = {
        "neg": ("{x}.__neg__()", "{x}.neg()"),
        "-": ("-{x}", "-{x}"),
        "abs": ("{x}.abs()", "{x}.abs()"),
        "absop": ("abs({x})", "abs({x})"),
        "tanh": ("{x}.tanh()", "{x}.tanh()"),
        "sigmoid": ("{x}.sigmoid()", "{x}.sigmoid()"),
        "relu": ("{x}.relu()", "{x}.relu()"),
        "F.relu": ("F.relu({x})", "TF.relu({x})"),
        "gelu": ("{x}.gelu()", "TF.gelu({x})"),
        "gelu_tanh": ("{x}.gelu('tanh')", "TF.gelu({x}, approximate='tanh')"),
        "F.gelu_tanh": ("F.gelu({x}, approximate='tanh')", "TF.gelu({x}, approximate='tanh')"),
    }
    if f == "leaky_relu":
        s = d(st.sampled_from([None, 0.1, 0.2, -0.5, 2.0]))
        if s is None:
            return p.run("unary:leaky_relu", "{x}.leaky_relu()", "TF.leaky_relu({x})", x=a)
        return p.run("unary:leaky_relu", "{x}.leaky_relu(%r)" % s, "TF.leaky_relu({x}, %r)" % s,
                     x=a)
    me, te = m[f]
    return p.run("unary:" + f.replace("F.", "").replace("absop", "abs").replace("-", "neg"), me,
                 te, x=a)


def op_minmax2(p):
    d = p.draw
    a = p.pick()
    f = d(st.sampled_from(["maximum", "minimum"]))
    form = d(st.sampled_from(["tt", "tnew", "tn", "nt", "modfn"]))
    shape = p.mg(a).shape
    if form in ("tt", "tnew", "modfn"):
        if form == "tnew":
            b = p.leaf(broadcast_partner(d, shape))
        else:
            b = p.pick(lambda n: _bc(p.mg(n).shape, shape))
        if not _no_near_tie(p, a, b):
            raise Skip()
        if form == "modfn":
            return p.run(f, "mg.%s({x}, {y})" % f, "torch.%s({x}, {y})" % f, x=a, y=b)
        return p.run(f, "{x}.%s({y})" % f, "torch.%s({x}, {y})" % f, x=a, y=b)
    c = d(st.sampled_from([0.5, -0.5, 1.0]))
    if not p.away(a, c):
        raise Skip()
    tdt = "torch.float64" if p.dtype == np.float64 else "torch.float32"
    if form == "tn":
        return p.run(f + ":num", "{x}.%s({c})" % f,
                     "torch.%s({x}, torch.tensor({c}, dtype=%s))" % (f, tdt), x=a, c=c)
    return p.run(f + ":num", "mg.%s({c}, {x})" % f,
                 "torch.%s(torch.tensor({c}, dtype=%s), {x})" % (f, tdt), x=a, c=c)


def _near_tie(diff, eps) -> bool:
    """Two values closer than ``eps`` but not equal: a tie one library may break
    differently from the other after rounding (exact ties are tested on purpose)."""
    return bool(((diff > 0) & (diff < eps)).any())


def _no_near_tie(p, a, b):
    eps = 1e-6 if p.dtype == np.float64 else 1e-3
    for va, vb in zip(p.vals(a), p.vals(b)):
        if _near_tie(np.abs(va - vb), eps):
            return False
    ma, ta = p.vals(a)
    mb, tb = p.vals(b)
    if ((ma - mb == 0) != (ta - tb == 0)).any():
        return False
    return True


def op_where(p):
    d = p.draw
    a = p.pick()
    shape = p.mg(a).shape
    form = d(st.sampled_from(["tt", "tnew", "newt", "tn", "nt"]))
    if form == "tt":
        b = p.pick(lambda n: _bc(p.mg(n).shape, shape))
    elif form in ("tnew", "newt"):
        b = p.leaf(broadcast_partner(d, shape))
    else:
        b = repr(d(st.sampled_from([0.0, 1.5, -2.0])))  # a Python number
    oshape = np.broadcast_shapes(shape, p.mg(b).shape) if b in p.mg_env else shape
    cshape = broadcast_partner(d, oshape) if d(st.booleans()) else oshape
    if not _bc(cshape, oshape):
        cshape = oshape
    cond = p.rng.random(cshape) > 0.5
    k = p.const(np.asarray(cond))
    x, y = (a, b) if form in ("tt", "tnew", "tn") else (b, a)
    return p.run("where", "mg.where({k}, {x}, {y})", "torch.where({k}, {x}, {y})", k=k, x=x, y=y)


def op_clip(p):
    d = p.draw
    a = p.pick()
    lo = d(st.sampled_from([None, -0.5, 0.2, -1.0]))
    hi = d(st.sampled_from([None, 0.5, 1.2, 0.1]))
    if lo is None and hi is None:
        lo = -0.5
    for b in (lo, hi):
        if b is not None and not p.away(a, b):
            raise Skip()
    name = d(st.sampled_from(["clip", "clamp"]))
    return p.run("clip", "{x}.%s(%r, %r)" % (name, lo, hi), "torch.clamp({x}, %r, %r)" % (lo, hi),
                 x=a)


def axis_forms(d, nd, allow_empty=True):
    opts = ["none", "int", "neg", "tuple"]
    f = d(st.sampled_from(opts))
    if f == "none":
        return None
    n = max(nd, 1)
    if f == "int":
        return d(st.integers(0, n - 1))
    if f == "neg":
        return d(st.integers(-n, -1))
    if nd == 0:
        return d(st.sampled_from([(0,), (-1,)] + ([()] if allow_empty else [])))
    axes = d(st.lists(st.integers(0, nd - 1), unique=True, min_size=0 if allow_empty else 1,
                      max_size=nd))
    return tuple(a - nd if d(st.booleans()) else a for a in axes)


def _tdim(axis, nd):
    if axis is None:
        return repr(tuple(range(nd)))
    return repr(axis)


def op_reduce(p):
    d = p.draw
    a = p.pick()
    nd = p.mg(a).ndim
    f = d(st.sampled_from(["sum", "mean", "max", "min", "var", "logsumexp"]))
    axis = axis_forms(d, nd, allow_empty=(f in ("sum", "mean")))
    kd = d(st.booleans())
    kw = "" if not kd else ", keepdims=True"
    tkd = ", keepdim=True" if kd else ""
    if axis == ():
        # numpy: an empty axis tuple reduces nothing; torch's dim=() reduces everything
        te = "{x}.clone()"  # identity
    else:
        td = _tdim(axis, nd)
        if f in ("sum", "mean"):
            te = "{x}.%s(dim=%s%s)" % (f, td, tkd)
            if axis is None and not kd:
                te = "{x}.%s()" % f
        elif f in ("max", "min"):
            if not _reduce_no_near_tie(p, a, axis, f):
                raise Skip()
            te = "torch.a%s({x}, dim=%s%s)" % (f, td, tkd)
        elif f == "var":
            ddof = d(st.sampled_from([0, 1]))
            kw += ", ddof=%d" % ddof if ddof else ""
            te = "torch.var({x}, dim=%s, correction=%d%s)" % (td, ddof, tkd)
        else:
            te = "torch.logsumexp({x}, dim=%s%s)" % (td, tkd)
    ax = "" if axis is None and d(st.booleans()) else "axis=%r" % (axis,)
    args = ", ".join(s for s in (ax, kw.lstrip(", ")) if s)
    return p.run("reduce:" + f, "{x}.%s(%s)" % (f, args), te, x=a)


def _reduce_no_near_tie(p, a, axis, f):
    eps = 1e-6 if p.dtype == np.float64 else 1e-3
    for v in p.vals(a):
        if v.size == 0:
            return True
        nd = v.ndim
        axes = tuple(range(nd)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
        axes = tuple(sorted(ax % max(nd, 1) for ax in axes)) if nd else ()
        m = v.max(axis=axes, keepdims=True) if f == "max" else v.min(axis=axes, keepdims=True)
        if _near_tie(np.abs(v - m), eps):
            return False
    return True


def op_softmax(p):
    d = p.draw
    a = p.pick()
    nd = p.mg(a).ndim
    f = d(st.sampled_from(["softmax", "log_softmax", "F.softmax", "F.log_softmax"]))
    n = max(nd, 1)
    axis = d(st.integers(-n, n - 1))
    dflt = d(st.booleans()) and axis == -1
    name = f.replace("F.", "")
    if f.startswith("F."):
        me = "F.%s({x}%s)" % (name, "" if dflt else ", axis=%d" % axis)
    else:
        me = "{x}.%s(%s)" % (name, "" if dflt else "axis=%d" % axis)
    return p.run("softmax:" + name, me, "torch.%s({x}, dim=%d)" % (name, axis), x=a)


def op_matmul(p):
    d = p.draw
    a = p.pick(lambda n: p.mg(n).ndim >= 1)
    sa = p.mg(a).shape
    side = d(st.booleans())  # True: a @ new, False: new @ a
    rank = d(st.integers(1, 4))
    m = d(st.integers(0, 3)) if d(st.integers(0, 4)) == 0 else d(st.integers(1, 3))
    if side:
        k = sa[-1]
        if rank == 1:
            sb = (k,)
        else:
            batch_a = sa[:-2]
            batch = broadcast_partner(d, batch_a)[-(rank - 2):] if rank > 2 else ()
            if rank > 2 and len(batch) < rank - 2:
                more = rank - 2 - len(batch)
                batch = tuple(d(st.integers(1, 3)) for _ in range(more)) + tuple(batch)
            sb = tuple(batch) + (k, m)
        if not _bc(sb[:-2], sa[:-2]):
            raise Skip()
        b = p.leaf(sb)
        x, y = a, b
    else:
        k = sa[0] if len(sa) == 1 else sa[-2]
        if rank == 1:
            sb = (k,)
        else:
            if len(sa) > 2:
                batch = broadcast_partner(d, sa[:-2])
            else:
                batch = tuple(d(st.integers(1, 3)) for _ in range(rank - 2))
            sb = tuple(batch)[:2] + (m, k)
        if not _bc(sb[:-2], sa[:-2]):
            raise Skip()
        b = p.leaf(sb)
        x, y = b, a
    form = d(st.sampled_from(["@", "matmul"]))
    if form == "@":
        return p.run("matmul", "{x} @ {y}", "{x} @ {y}", x=x, y=y)
    return p.run("matmul", "{x}.matmul({y})", "torch.matmul({x}, {y})", x=x, y=y)


def op_shape(p):
    d = p.draw
    a = p.pick()
    t = p.mg(a)
    shape, nd = t.shape, t.ndim
    f = d(st.sampled_from(["reshape", "transpose", "permute", "T", "swapaxes", "squeeze",
                           "unsqueeze", "expand", "broadcast_to", "flatten"]))
    if f == "reshape":
        size = int(np.prod(shape))
        dims = []
        rem = size
        for _ in range(d(st.integers(0, 4))):
            divs = [q for q in range(1, 5) if rem % q == 0] if rem else [0, 1, 2]
            q = d(st.sampled_from(divs))
            dims.append(q)
            rem = rem // q if q else rem
        if rem != 1 and size != 0:
            dims.append(rem)
        if size == 0 and 0 not in dims:
            dims.append(0)
        if dims and size != 0 and d(st.booleans()):
            i = d(st.integers(0, len(dims) - 1))
            dims[i] = -1
        form = d(st.booleans())
        arg = ("%r" % (tuple(dims),)) if form else ", ".join(map(str, dims))
        return p.run("shape:reshape", "{x}.reshape(%s)" % arg, "{x}.reshape(%r)" % (tuple(dims),),
                     x=a)
    if f in ("transpose", "permute"):
        perm = list(d(st.permutations(list(range(nd)))))
        perm = [q - nd if d(st.booleans()) else q for q in perm]
        if f == "transpose" and d(st.integers(0, 4)) == 0:
            return p.run("shape:transpose", "{x}.transpose()",
                         "{x}.permute(%r)" % (tuple(range(nd))[::-1],), x=a)
        arg = ", ".join(map(str, perm)) if d(st.booleans()) else repr(tuple(perm))
        return p.run("shape:" + f, "{x}.%s(%s)" % (f, arg), "{x}.permute(%r)" % (tuple(perm),), x=a)
    if f == "T":
        return p.run("shape:T", "{x}.T", "{x}.permute(%r)" % (tuple(range(nd))[::-1],), x=a)
    if f == "swapaxes":
        if nd == 0:
            raise Skip()
        i, j = d(st.integers(-nd, nd - 1)), d(st.integers(-nd, nd - 1))
        return p.run("shape:swapaxes", "{x}.swapaxes(%d, %d)" % (i, j),
                     "torch.swapaxes({x}, %d, %d)" % (i, j), x=a)
    if f == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        form = d(st.sampled_from(["none", "int", "tuple"]))
        if form == "none" or not ones:
            return p.run("shape:squeeze", "{x}.squeeze()", "{x}.squeeze()", x=a)
        if form == "int":
            i = d(st.sampled_from(ones))
            i = i - nd if d(st.booleans()) else i
            return p.run("shape:squeeze", "{x}.squeeze(%d)" % i, "{x}.squeeze(%d)" % i, x=a)
        sel = d(st.lists(st.sampled_from(ones), unique=True, min_size=1))
        return p.run("shape:squeeze", "{x}.squeeze(%r)" % (tuple(sel),),
                     "{x}.squeeze(%r)" % (tuple(sel),), x=a)
    if f == "unsqueeze":
        if nd >= 4:
            raise Skip()
        i = d(st.integers(-nd - 1, nd))
        return p.run("shape:unsqueeze", "{x}.unsqueeze(%d)" % i, "{x}.unsqueeze(%d)" % i, x=a)
    if f in ("expand", "broadcast_to"):
        extra = d(st.integers(0, max(0, 4 - nd)))
        tgt = [d(st.integers(0, 3)) for _ in range(extra)] + [
            (d(st.integers(0, 3)) if s == 1 and d(st.booleans()) else s) for s in shape]
        if f == "expand" and tgt:
            tgt2 = [(-1 if i >= extra and d(st.integers(0, 2)) == 0 else s) for i,
                    s in enumerate(tgt)]
            return p.run("shape:expand", "{x}.expand(%s)" % ", ".join(map(str, tgt2)),
                         "{x}.expand(%s)" % ", ".join(map(str, tgt2)), x=a)
        return p.run("shape:broadcast_to", "{x}.broadcast_to(%r)" % (tuple(tgt),),
                     "torch.broadcast_to({x}, %r)" % (tuple(tgt),), x=a)
    # flatten
    if nd == 0 or d(st.booleans()):
        return p.run("shape:flatten", "{x}.flatten()", "{x}.flatten()", x=a)
    s = d(st.integers(-nd, nd - 1))
    e = d(st.integers(-nd, nd - 1))
    if (s % nd) > (e % nd):
        s, e = e, s
    return p.run("shape:flatten", "{x}.flatten(%d, %d)" % (s, e), "{x}.flatten(%d, %d)" % (s, e),
                 x=a)


def op_join(p):
    d = p.draw
    a = p.pick()
    t = p.mg(a)
    shape, nd = t.shape, t.ndim
    f = d(st.sampled_from(["cat", "concatenate", "stack"]))
    count = d(st.integers(1, 3))
    if f == "stack":
        axis = d(st.integers(-nd - 1, nd))
        parts = [a if d(st.integers(0, 2)) == 0 else p.leaf(shape) for _ in range(count)]
        if a not in parts and d(st.booleans()):
            parts[0] = a
        lst = ", ".join(parts)
        return p.run("join:stack", "mg.stack([%s], axis=%d)" % (lst, axis),
                     "torch.stack([%s], dim=%d)" % (lst, axis), x=a)
    if nd == 0:
        raise Skip()
    axis = d(st.integers(-nd, nd - 1))
    parts = []
    for _ in range(count):
        if d(st.integers(0, 2)) == 0:
            parts.append(a)
        else:
            s = list(shape)
            s[axis] = d(st.integers(0, 3))
            parts.append(p.leaf(tuple(s)))
    lst = ", ".join(parts)
    kw = "axis=%d" % axis if (axis != 0 or d(st.booleans())) else ""
    return p.run("join:cat", "mg.%s((%s,)%s)" % (f, lst, ", " + kw if kw else ""),
                 "torch.cat([%s], dim=%d)" % (lst, axis), x=a)


def op_pad(p):
    d = p.draw
    a = p.pick(lambda n: p.mg(n).ndim >= 1)
    nd = p.mg(a).ndim
    form = d(st.sampled_from(["int", "pair", "per"]))
    if form == "int":
        w = d(st.integers(0, 2))
        widths = [(w, w)] * nd
        arg = repr(w)
    elif form == "pair":
        w = (d(st.integers(0, 2)), d(st.integers(0, 2)))
        widths = [w] * nd
        arg = repr(w)
    else:
        widths = [(d(st.integers(0, 2)), d(st.integers(0, 2))) for _ in range(nd)]
        arg = repr(tuple(widths))
    val = d(st.sampled_from([0.0, 1.5, -0.5]))
    flat = []
    for b, e in reversed(widths):
        flat += [b, e]
    vkw = "" if val == 0.0 and d(st.booleans()) else ", value=%r" % val
    return p.run("pad", "{x}.pad(%s%s)" % (arg, vkw), "TF.pad({x}, %r, value=%r)" % (flat, val),
                 x=a)


def op_index(p):
    d = p.draw
    a = p.pick()
    shape = p.mg(a).shape
    nd = len(shape)
    # torch's side is always a flat gather of the element positions that numpy's own
    # indexing selects, so it checks minigrad against numpy semantics
    flat = np.arange(int(np.prod(shape))).reshape(shape)
    if nd >= 1 and d(st.integers(0, 6)) == 0:  # one boolean mask over the whole tensor
        m = p.rng.random(shape) > 0.5
        k = p.const(np.asarray(m))
        kp = p.const(flat[m])
        return p.run("index:mask", "{x}[{k}]", "{x}.reshape(-1)[{kp}]", x=a, k=k, kp=kp)
    items = []
    kinds = set()
    dim = 0
    used_ellipsis = False
    n_items = d(st.integers(1, max(1, nd + 1)))
    while len(items) < n_items:
        kind = d(st.sampled_from(["int", "slice", "arr", "none", "ell", "mask1", "list"]))
        if kind == "none":
            items.append("None")
            continue
        if kind == "ell":
            if used_ellipsis:
                continue
            used_ellipsis = True
            # the ellipsis eats some dims; the items after it consume exactly the rest
            remaining = n_items - len(items) - 1
            eat = max(0, nd - dim - remaining)
            eat = d(st.integers(0, eat)) if eat else 0
            items.append("...")
            dim += eat
            n_items = len(items) + (nd - dim)
            continue
        if dim >= nd:
            break
        n = shape[dim]
        if kind == "int":
            if n == 0:
                continue
            items.append(str(d(st.integers(-n, n - 1))))
        elif kind == "slice":
            start = d(st.one_of(st.none(), st.integers(-5, 5)))
            stop = d(st.one_of(st.none(), st.integers(-5, 5)))
            step = d(st.sampled_from([None, 1, 2, 3, -1, -2]))
            items.append("%s:%s%s" % ("" if start is None else start, "" if stop is None else stop,
                                      "" if step is None else ":%d" % step))
            kinds.add("slice")
        elif kind in ("arr", "list"):
            if n == 0:
                arr = np.zeros(d(st.integers(0, 2)), dtype=np.int64)
            else:
                ln = d(st.integers(0, 4))
                arr = p.rng.integers(-n, n, size=ln).astype(np.int64)
                if ln >= 2 and d(st.booleans()):
                    arr[1] = arr[0]  # a repeated index must accumulate its gradient
            items.append(repr(arr.tolist()) if kind == "list" and arr.size else p.const(arr))
            kinds.add("arr")
        else:  # boolean mask along one axis
            items.append(p.const(np.asarray(p.rng.random(n) > 0.5)))
            kinds.add("arr")
        dim += 1
    if not items:
        raise Skip()
    idx = ", ".join(items)
    try:
        pos = eval("_P[%s]" % idx, dict(p.mg_env, _P=flat))
    except Exception:
        raise Skip() from None  # numpy rejects the index itself
    kp = p.const(np.array(pos, dtype=np.int64))
    return p.run("index:" + ("+".join(sorted(kinds)) or "basic"), "{x}[%s]" % idx,
                 "{x}.reshape(-1)[{kp}]", x=a, kp=kp)


def op_shared(p):
    """Explicit shared subexpression: y = f(x); z = y*y + y (or similar)."""
    d = p.draw
    a = p.pick()
    f = d(st.sampled_from(["y*y+y", "y-y*0.5", "y/ (y*y+1)", "stack_same", "cat_same"]))
    if f == "y*y+y":
        return p.run("shared", "{x} * {x} + {x}", "{x} * {x} + {x}", x=a)
    if f == "y-y*0.5":
        return p.run("shared", "{x} - {x} * 0.5", "{x} - {x} * 0.5", x=a)
    if f == "y/ (y*y+1)":
        return p.run("shared", "{x} / ({x} * {x} + 1)", "{x} / ({x} * {x} + 1)", x=a)
    if f == "stack_same":
        return p.run("shared", "mg.stack([{x}, {x}])", "torch.stack([{x}, {x}])", x=a)
    if p.mg(a).ndim == 0:
        raise Skip()
    return p.run("shared", "mg.cat([{x}, {x}], axis=-1)", "torch.cat([{x}, {x}], dim=-1)", x=a)


FAMILIES = {
    "arith": op_arith, "unary": op_unary, "minmax2": op_minmax2, "where": op_where,
    "clip": op_clip, "reduce": op_reduce, "softmax": op_softmax, "matmul": op_matmul,
    "shape": op_shape, "join": op_join, "pad": op_pad, "index": op_index, "shared": op_shared,
}


FAMILIES = {
    "arith": op_arith, "unary": op_unary, "minmax2": op_minmax2, "where": op_where,
    "clip": op_clip, "reduce": op_reduce, "softmax": op_softmax, "matmul": op_matmul,
    "shape": op_shape, "join": op_join, "pad": op_pad, "index": op_index, "shared": op_shared,
}


def check_program(draw, dtype, focus=None):
    """Draw and check one random program that uses ``focus`` (a family name) at least once.

    Returns False when no comparison was possible (nothing to differentiate), True when
    all comparisons passed; raises :class:`Mismatch`, with the program appended, when
    the libraries disagree.
    """
    p = Prog(draw, dtype)
    try:
        with quiet():
            return _build_and_check(p, draw, dtype, focus)
    except Mismatch as e:
        e.args = (f"{e.args[0]}\n--- reproducer ---\n{p.text()}",)
        raise


def _build_and_check(p, d, dtype, focus):
    for i in range(d(st.integers(1, 2))):
        p.leaf(d(shape_st()), rg=True if i == 0 else None)
    # a few random steps; ``focus`` is forced in by the last one (with up to 4 retries
    # when its step is skipped)
    steps = d(st.integers(1, 5))
    did_focus = False
    for i in range(steps + 4):
        if i >= steps and (focus is None or did_focus):
            break
        use_focus = focus and not did_focus and (i == steps - 1 or d(st.booleans()))
        fam = focus if use_focus else d(st.sampled_from(list(FAMILIES)))
        try:
            FAMILIES[fam](p)
            did_focus = did_focus or fam == focus
        except Skip:
            continue
    if focus and not did_focus:
        return False
    # --- backward -------------------------------------------------------------------
    outs = [n for n in p.names
            if p.mg(n).requires_grad and p.th(n).requires_grad and n not in p.leaves]
    if not outs:
        return False
    out = outs[-1] if d(st.integers(0, 3)) else outs[d(st.integers(0, len(outs) - 1))]
    mode = d(st.sampled_from(["sum", "upstream", "twice", "tworoots"]))
    mo = p.mg(out)

    def upstream(shape):
        return p.const(np.asarray(p.rng.normal(size=shape)).astype(dtype))

    try:
        if mode == "sum" or (mode == "upstream" and mo.size == 1 and d(st.booleans())):
            if mo.ndim == 0 and d(st.booleans()):
                run_bw(p, f"{out}.backward()")
            else:
                run_bw(p, f"{out}.sum().backward()")
        elif mode == "upstream":
            run_bw(p, f"{out}.backward({upstream(mo.shape)})")
        elif mode == "twice":  # gradients of two backwards through one graph accumulate
            k1, k2 = upstream(mo.shape), upstream(mo.shape)
            run_bw(p, f"{out}.backward({k1}, retain_graph=True)")
            run_bw(p, f"{out}.backward({k2})", check_inter=False)
        else:  # two roots sharing part of the graph, one backward each
            other = outs[d(st.integers(0, len(outs) - 1))]
            k2 = upstream(p.mg(other).shape)
            k1 = upstream(mo.shape)
            r = p.fresh("r")
            expr = f"({out} * {k1}).sum()"
            p.lines.append(f"{r} = {expr}")
            p.tlines.append(f"{r} = {expr}")
            p.mg_env[r] = eval(expr, p.mg_env)
            p.th_env[r] = eval(expr, p.th_env)
            run_bw(p, f"{r}.backward(retain_graph=True)", check_inter=False)
            run_bw(p, f"{other}.backward({k2})", check_inter=False)
    except Skip:
        return False
    return True


def run_bw(p, stmt, check_inter=True):
    """Run a backward statement on both sides and compare gradients (leaves always,
    intermediates, whose ``.grad`` torch keeps via ``retain_grad``, if ``check_inter``)."""
    p.lines.append(stmt)
    p.tlines.append(stmt)
    terr = merr = None
    try:
        exec(stmt, p.th_env)
    except Exception as e:
        terr = e
    try:
        exec(stmt, p.mg_env)
    except Exception as e:
        merr = e
    if terr and merr:
        raise Skip()
    ops = ",".join(sorted(set(p.ops)))
    if merr:
        where = traceback.format_exception(merr)[-2]
        raise Mismatch("crash-bwd", ops, f"{stmt}: {type(merr).__name__}: {merr}\n{where}")
    if terr:
        raise Mismatch("mg-accepts-bwd", ops, f"{stmt}: torch raised {terr}")
    names = p.leaves + ([n for n in p.names if n not in p.leaves] if check_inter else [])
    for n in names:
        mt, tt = p.mg(n), p.th(n)
        if not tt.requires_grad or (tt.grad is None and mt.grad is None):
            continue
        if tt.grad is None:
            if np.any(np.asarray(mt.grad) != 0):
                raise Mismatch("grad", ops, f"{n}: torch grad None, mg {mt.grad!r}")
            continue
        tg = tt.grad.numpy()
        if mt.grad is None:
            if n in p.leaves and np.any(tg != 0):
                raise Mismatch("grad", ops, f"{n}: mg grad None, torch {tg!r}")
            continue
        mgg = mt.grad
        if n in p.leaves:
            if not isinstance(mgg, np.ndarray):
                raise Mismatch("grad-type", ops, f"{n}.grad is {type(mgg)}")
            if mgg.dtype != mt.dtype:
                raise Mismatch("grad-dtype", ops, f"{n}.grad dtype {mgg.dtype}, leaf {mt.dtype}")
        mgg = np.asarray(mgg)
        if mgg.shape != tg.shape:
            raise Mismatch("grad-shape", ops, f"{n}.grad shape {mgg.shape} torch {tg.shape}")
        if not close(mgg, tg, p.dtype):
            raise Mismatch("grad" if n in p.leaves else "grad-inter", ops,
                           f"{n}: mg {mgg!r}\n torch {tg!r}")


# --- exact ties ----------------------------------------------------------------------------
TIE_OPS = ["max", "min", "maximum", "minimum"]


def check_ties(draw, dtype, op):
    """max/min (reductions) and maximum/minimum on data full of exact ties: tied elements
    share the gradient equally (k-way tie: 1/k each), as minigrad documents and torch does."""
    nd = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(nd))

    def tied():  # three distinct values only, so ties are everywhere
        size = int(np.prod(shape))
        vals = draw(st.lists(st.sampled_from([-1.0, 0.5, 2.0]), min_size=size, max_size=size))
        return np.array(vals, dtype=dtype).reshape(shape)

    def leaf(name, arr):
        return (f"{name} = mg.Tensor(np.array({arr.tolist()}, dtype=np.{arr.dtype.name}), "
                "requires_grad=True)")

    x = tied()
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    xm = mg.Tensor(x.copy(), requires_grad=True)
    if op in ("max", "min"):
        axis = draw(st.sampled_from([None, *range(-nd, nd)]))
        kd = draw(st.booleans())
        y = getattr(xm, op)(axis=axis, keepdims=kd)
        g = rng.normal(size=y.shape).astype(dtype)
        y.backward(g)
        ext = getattr(x, op)(axis=axis, keepdims=True)
        hit = (x == ext).astype(np.float64)
        want = hit / hit.sum(axis=axis, keepdims=True) * g.reshape(ext.shape)
        grads = [(xm, want)]
        src = f"{leaf('x', x)}\nx.{op}(axis={axis}, keepdims={kd}).backward({g.tolist()})"
    else:
        w = tied()
        wm = mg.Tensor(w.copy(), requires_grad=True)
        g = rng.normal(size=shape).astype(dtype)
        getattr(xm, op)(wm).backward(g)
        win = (x > w) if op == "maximum" else (x < w)
        share = np.where(x == w, 0.5, win.astype(np.float64))
        grads = [(xm, share * g), (wm, (1 - share) * g)]
        src = f"{leaf('x', x)}\n{leaf('w', w)}\nx.{op}(w).backward({g.tolist()})"
    for t, want in grads:
        if t.grad is None or t.grad.dtype != dtype or not close(t.grad, want, dtype):
            raise Mismatch("ties", op, f"grad {t.grad!r}, want {want!r}\n--- reproducer ---\n{src}")
    # torch shares ties the same way: a sanity check of the rule itself
    if op in ("max", "min"):
        xt = torch.tensor(x, requires_grad=True)
        dim = tuple(range(nd)) if axis is None else axis
        getattr(torch, "a" + op)(xt, dim=dim, keepdim=kd).backward(torch.tensor(g))
        if not close(xt.grad.numpy(), grads[0][1], dtype):
            raise Mismatch("ties-torch", op, f"torch disagrees with the rule:\n{src}")


# --- dtype mixing ---------------------------------------------------------------------------
OPERAND_KINDS = ["f32", "f64", "i64", "bool", "f32_0d", "f64_0d", "i64_0d", "pyfloat", "pyint"]
MIX_OPS = ["+", "-", "*", "/", "**", "maximum", "minimum", "where", "cat", "stack", "clip"]


def _operand(draw, kind, shape, rng):
    """(description, minigrad operand, torch operand) of one operand kind."""
    if kind == "pyfloat":
        return "1.5", 1.5, 1.5
    if kind == "pyint":
        return "2", 2, 2
    if kind.endswith("_0d"):
        kind, shape = kind[:-3], ()
    if kind == "bool":
        arr = np.asarray(rng.random(shape) > 0.5)
    elif kind == "i64":
        arr = np.asarray(rng.integers(1, 4, size=shape), dtype=np.int64)
    else:
        arr = np.asarray(rng.uniform(0.5, 2.0, size=shape), dtype={"f32": np.float32,
                                                                   "f64": np.float64}[kind])
    rg = arr.dtype.kind == "f" and draw(st.booleans())
    src = f"np.array({arr.tolist()!r}, dtype=np.{arr.dtype.name})"
    return (f"mg.Tensor({src}, requires_grad={rg})", mg.Tensor(arr.copy(), requires_grad=rg),
            torch.tensor(arr.copy(), requires_grad=rg))


def check_dtype_mixing(draw, op):
    """One binary op on operands of mixed dtypes (or a Python number): result dtype,
    value and gradients (in the leaf's dtype) must match torch's type promotion."""
    rng = np.random.default_rng(draw(st.integers(0, 10**6)))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2))))
    kinds = OPERAND_KINDS if op in "+-*/**where" else OPERAND_KINDS[:-2]  # tensors only
    (sa, a, at), (sb, b, bt) = (_operand(draw, draw(st.sampled_from(kinds)), shape, rng)
                                for _ in range(2))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return False
    cond = rng.random(shape) > 0.5
    lo = 0.7 if isinstance(b, float) else 1
    mg_f, th_f, src = {
        "maximum": (mg.maximum, torch.maximum, "mg.maximum(a, b)"),
        "minimum": (mg.minimum, torch.minimum, "mg.minimum(a, b)"),
        "where": (lambda a, b: mg.where(cond, a, b),
                  lambda a, b: torch.where(torch.tensor(cond), a, b),
                  f"mg.where(np.array({cond.tolist()}), a, b)"),
        "cat": (lambda a, b: mg.cat([a, b]), lambda a, b: torch.cat([a, b]), "mg.cat([a, b])"),
        "stack": (lambda a, b: mg.stack([a, b]), lambda a, b: torch.stack([a, b]),
                  "mg.stack([a, b])"),
        "clip": (lambda a, b: a.clip(lo, None), lambda a, b: torch.clamp(a, lo, None),
                 f"a.clip({lo}, None)"),
    }.get(op, (None, None, f"a {op} b"))
    if mg_f is None:
        mg_f = th_f = eval(f"lambda a, b: a {op} b")
    src = f"a = {sa}\nb = {sb}\ny = {src}"
    try:
        tres = th_f(at, bt)
    except Exception:
        return False  # torch rejects the combination (e.g. cat of 0-d tensors)
    try:
        mres = mg_f(a, b)
    except Exception as e:
        raise Mismatch("dtype-crash", op, f"{type(e).__name__}: {e}\n--- reproducer ---\n{src}") \
            from None
    want = np.dtype(str(tres.dtype).replace("torch.", ""))
    if mres.dtype != want:
        raise Mismatch("dtype", op, f"mg {mres.dtype}, torch {want}\n--- reproducer ---\n{src}")
    if not close(mres.data, tres.detach().double().numpy(), np.float32):
        raise Mismatch("dtype-value", op,
                       f"mg {mres.data!r}, torch {tres}\n--- reproducer ---\n{src}")
    if not tres.requires_grad:
        return True
    g = rng.normal(size=tuple(tres.shape))
    src += f"\ny.backward(np.array({g.tolist()}, dtype=np.{mres.dtype.name}))"
    tres.backward(torch.tensor(g, dtype=tres.dtype))
    try:
        mres.backward(g.astype(mres.dtype))
    except Exception as e:
        raise Mismatch("dtype-bwd-crash", op,
                       f"{type(e).__name__}: {e}\n--- reproducer ---\n{src}") \
            from None
    for name, m, t in (("a", a, at), ("b", b, bt)):
        if not isinstance(t, torch.Tensor) or not t.requires_grad:
            continue
        if t.grad is None and m.grad is None:  # operand not used (clip's b)
            continue
        ok = (m.grad is not None and np.asarray(m.grad).dtype == m.dtype
              and close(m.grad, t.grad.double().numpy(), np.float32))
        if not ok:
            raise Mismatch("dtype-grad", op, f"{name}.grad mg {m.grad!r}, torch {t.grad}"
                           f"\n--- reproducer ---\n{src}")
    return True


# --- command line ---------------------------------------------------------------------------
def run_family(family, dtype, n, seed, keep=2):
    """Run ``n`` examples of one family without shrinking; return (counts, failures),
    failures holding up to ``keep`` messages per failure kind."""
    counts, fails = Counter(), {}

    @hseed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=HEALTH,
              phases=["generate"])
    @given(st.data())
    def one(data):
        try:
            if family == "ties":
                check_ties(data.draw, dtype, data.draw(st.sampled_from(TIE_OPS)))
                ok = True
            elif family == "dtypes":
                with quiet():
                    ok = check_dtype_mixing(data.draw, data.draw(st.sampled_from(MIX_OPS)))
            else:
                ok = check_program(data.draw, dtype, family)
        except Mismatch as e:
            counts["fail"] += 1
            key = (e.kind, e.op.split(",")[0])
            if len(fails.setdefault(key, [])) < keep:
                fails[key].append(str(e))
            return
        counts["ok" if ok else "no-op"] += 1

    one()
    return counts, fails


def main(argv):
    extra = ["ties", "dtypes"]
    names = list(FAMILIES) + extra
    fams = argv[0].split(",") if argv and argv[0] != "all" else names
    unknown = set(fams) - set(names)
    if unknown:
        sys.exit(f"unknown families {sorted(unknown)}; choose from {', '.join(names)}")
    n = int(argv[1]) if len(argv) > 1 else 100
    torch.set_num_threads(1)  # tiny tensors: threads only add overhead
    total_fail = 0
    for fam in fams:
        dtypes = [np.float64] if fam == "dtypes" else [np.float64, np.float32]
        for i, dt in enumerate(dtypes):
            counts, fails = run_family(fam, dt, n, seed=1000 + i)
            total_fail += counts["fail"]
            label = "mixed" if fam == "dtypes" else np.dtype(dt).name
            print(f"{fam:8} {label:8} ok {counts['ok']:5}  fail {counts['fail']:5}"
                  f"  no-op {counts['no-op']:5}", flush=True)
            for key, msgs in fails.items():
                print("=" * 80, "\n", fam, label, key, "\n", msgs[0][-3000:])
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
