"""Plausible wrong answers, kept to prove that every check bites.

For each task, a few answers a student could well write.  The meta-tests
(``tests/test_exercises_meta.py``) run every check against each of them and
require a *failure* (not a crash of the checking code), whose message
contains the expected words, usually the hint that names the mistake.
Instructors: this is also a catalogue of the mistakes the hints recognise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import minigrad
from minigrad import topological_order

__all__ = ["Mistake", "MISTAKES"]


@dataclass(frozen=True)
class Mistake:
    what: str
    impl: object
    expect: str = ""  # words the failure message must contain


MISTAKES: dict[tuple[str, str], list[Mistake]] = {}


def mistake(exercise, task, what, expect=""):
    def register(impl):
        MISTAKES.setdefault((exercise, task), []).append(Mistake(what, impl, expect))
        return impl

    return register


# --- ex02 -------------------------------------------------------------------------------
mistake("ex02", "mul_backward", "forgets the upstream gradient", "upstream gradient g")(
    lambda g, a, b: (b, a))
mistake("ex02", "mul_backward", "multiplies by its own input", "*other* input")(
    lambda g, a, b: (g * a, g * b))

# --- ex03 -------------------------------------------------------------------------------
mistake("ex03", "tanh", "overflows on large x", "e^{−2x}")(
    lambda x: (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1))
mistake("ex03", "tanh", "nan on large x (numpy's inf/inf)", "∞/∞")(
    lambda x: float((np.exp(np.float64(2 * x)) - 1) / (np.exp(np.float64(2 * x)) + 1))
    if abs(x) < 400 else float("nan"))
mistake("ex03", "tanh", "calls math.tanh", "math.exp")(lambda x: math.tanh(x))
mistake("ex03", "tanh_backward", "forgets g", "upstream gradient g")(lambda g, out: 1 - out * out)
mistake("ex03", "tanh_backward", "1 − out", "1 − out²")(lambda g, out: g * (1 - out))

# --- ex04 -------------------------------------------------------------------------------
mistake("ex04", "exp_backward", "forgets g", "upstream gradient g")(lambda g, out: out)
mistake("ex04", "exp_backward", "derivative 1", "e^x")(lambda g, out: g)
mistake("ex04", "pow_backward", "log(0) at x = 0", "x^p·ln x → 0")(
    lambda g, x, p, out: (g * p * x ** (p - 1), g * out * math.log(x)))
mistake("ex04", "pow_backward", "keeps the exponent", "exponent drops")(
    lambda g, x, p, out: (g * p * x**p, g * out * math.log(x) if x else 0.0))
mistake("ex04", "pow_backward", "forgets g in dL/dp", "upstream gradient g")(
    lambda g, x, p, out: (g * p * x ** (p - 1), out * math.log(x) if x else 0.0))
mistake("ex04", "pow_backward", "returns one number", "should return a pair")(
    lambda g, x, p, out: g * p * x ** (p - 1))


# --- ex05 -------------------------------------------------------------------------------
@mistake("ex05", "topological_order", "recursive (micrograd's build_topo)", "recursion")
def _recursive(root):
    order, seen = [], set()

    def visit(v):
        if v not in seen:
            seen.add(v)
            for p in v.parents:
                visit(p)
            order.append(v)

    visit(root)
    return order


@mistake("ex05", "topological_order", "pre-order: a node before its parents", "post-order")
def _preorder(root):
    order, seen, stack = [], set(), [root]
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            order.append(v)
            stack.extend(v.parents)
    return order


@mistake("ex05", "topological_order", "reversed pre-order", "before its parent")
def _reversed_preorder(root):
    return _preorder(root)[::-1]


@mistake("ex05", "topological_order", "no seen-set: shared nodes twice", "appears twice")
def _no_dedup(root):
    order, stack = [], [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        else:
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    return order


@mistake("ex05", "topological_order", "marks nodes seen when pushed", "before its parent")
def _seen_at_push(root):
    order, seen, stack = [], {id(root)}, [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        stack.append((node, True))
        for parent in reversed(node.parents):
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, False))
    return order


@mistake("ex05", "topological_order", "root first (the list reversed)", "order is reversed")
def _root_first(root):
    from exercises.solutions.ex05_topological_order import topological_order as solution

    return solution(root)[::-1]


@mistake("ex05", "topological_order", "leaves out the root", "root itself belongs")
def _no_root(root):
    from exercises.solutions.ex05_topological_order import topological_order as solution

    return [n for n in solution(root) if n is not root]


@mistake("ex05", "topological_order", "only the leaves and the root", "missing")
def _leaves_only(root):
    return [n for n in _preorder(root)[::-1] if n.op is None and n is not root] + [root]


mistake("ex05", "topological_order", "calls minigrad's own", "yourself")(
    lambda root: minigrad.topological_order(root))


# --- ex06 -------------------------------------------------------------------------------
def _engine(accumulate=True, seed=True, forward=False, skip_constants=True):
    def backward(root, gradient=1.0):
        root.grad = gradient if seed else 1.0
        order = topological_order(root)
        for node in order if forward else reversed(order):
            if node.op is None or node.grad is None:
                continue
            for parent, rule in zip(node.parents, node.op.grads, strict=True):
                if parent.requires_grad or not skip_constants:
                    local = rule(node.grad, *node.saved)
                    if accumulate and parent.grad is not None:
                        local = parent.grad + local
                    parent.grad = local

    return backward


mistake("ex06", "backward", "overwrites instead of adding", "+=")(_engine(accumulate=False))
mistake("ex06", "backward", "ignores the seed", "seed the root")(_engine(seed=False))
mistake("ex06", "backward", "walks parents first", "no gradient reached")(_engine(forward=True))
mistake("ex06", "backward", "gives constants a gradient", "if parent.requires_grad")(
    _engine(skip_constants=False))
mistake("ex06", "backward", "calls minigrad's backward", "yourself")(
    lambda root, gradient=1.0: root.backward(gradient))


@mistake("ex06", "backward", "adds into a .grad that is still None", "None until a gradient")
def _adds_into_none(root, gradient=1.0):
    root.grad = gradient
    for node in reversed(topological_order(root)):
        if node.op is None:
            continue
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if parent.requires_grad:
                parent.grad += rule(node.grad, *node.saved)


# --- ex07 -------------------------------------------------------------------------------
def _broken_grad(root, inputs):
    from exercises.ex07_fix_accumulation import broken_grad

    return broken_grad(root, inputs)


mistake("ex07", "grad", "the broken engine itself", "sum of one term per edge")(_broken_grad)


@mistake("ex07", "grad", "fixed, but crashes on an input root does not use", "KeyError")
def _no_default(root, inputs):
    grads = _walk_into({root: 1.0}, root)
    return [grads[x] for x in inputs]


def _walk_into(grads, root):
    """The fixed engine's walk, into ``grads`` (which holds the root's seed)."""
    for node in reversed(topological_order(root)):
        if node.op is None or node not in grads:
            continue
        for parent, rule in zip(node.parents, node.op.grads, strict=True):
            if parent.requires_grad:
                grads[parent] = grads.get(parent, 0.0) + rule(grads[node], *node.saved)
    return grads


@mistake("ex07", "grad", "writes into .grad", ".grad")
def _writes_grad(root, inputs):
    result = _no_default_safe(root, inputs)
    for x in inputs:
        x.grad = 1.0
    return result


_KEPT: dict = {}  # the mistake below: a dict that outlives each call


@mistake("ex07", "grad", "a module-level dict kept between calls", "between calls")
def _module_dict(root, inputs):
    _KEPT[root] = 1.0
    _walk_into(_KEPT, root)
    return [_KEPT.get(x, 0.0) for x in inputs]


def _no_default_safe(root, inputs):
    from exercises.solutions.ex07_fix_accumulation import grad

    return grad(root, inputs)


# --- ex08 -------------------------------------------------------------------------------
def _descent(zero, keep_nodes=False):
    def gradient_descent(params, loss_fn, lr, steps):
        losses = []
        for _ in range(steps):
            if zero == "before":
                for p in params:
                    p.zero_grad()
            loss = loss_fn()
            loss.backward()
            if zero == "between":
                for p in params:
                    p.zero_grad()
            for p in params:
                p.data -= lr * (p.grad or 0.0)
                if zero == "after":
                    p.zero_grad()
            losses.append(loss if keep_nodes else loss.data)
        return losses

    return gradient_descent


mistake("ex08", "gradient_descent", "never zeroes", "zero every parameter")(_descent("never"))
mistake("ex08", "gradient_descent", "keeps the loss Values (and their graphs)", "loss.data")(
    _descent("before", keep_nodes=True))
mistake("ex08", "gradient_descent", "zeroes after the update", "stale gradient")(_descent("after"))
mistake("ex08", "gradient_descent", "zeroes before the update", "did not move")(
    _descent("between"))


@mistake("ex08", "gradient_descent", "p = p - lr * grad (rebinds, no update)", "did not move")
def _rebinds(params, loss_fn, lr, steps):
    losses = []
    for _ in range(steps):
        for p in params:
            p.zero_grad()
        loss = loss_fn()
        loss.backward()
        for p in params:
            p = p - lr * p.grad  # the mistake: a new node, the parameter is untouched
        losses.append(loss.data)
    return losses


def _accumulate(zero, scale=True, one_graph=False):
    def accumulate_gradients(params, loss_fns):
        k = len(loss_fns)
        if zero == "once":
            for p in params:
                p.zero_grad()
        if one_graph:
            mean = sum((f() for f in loss_fns), 0.0) / k
            mean.backward()
            return mean.data
        total = 0.0
        for f in loss_fns:
            if zero == "each":
                for p in params:
                    p.zero_grad()
            loss = f()
            loss.backward(1.0 / k if scale else 1.0)
            total += loss.data
        return total / k

    return accumulate_gradients


mistake("ex08", "accumulate_gradients", "forgets 1/k", "*sum*")(_accumulate("once", scale=False))
mistake("ex08", "accumulate_gradients", "never zeroes", "stale")(_accumulate("never"))
mistake("ex08", "accumulate_gradients", "zeroes between micro-batches", "last micro-batch")(
    _accumulate("each"))
mistake("ex08", "accumulate_gradients", "one big graph", "once per micro-batch")(
    _accumulate("once", one_graph=True))


# --- ex09 -------------------------------------------------------------------------------
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


# --- ex10 -------------------------------------------------------------------------------
mistake("ex10", "unbroadcast", "sums only the added leading axes", "size 1")(
    lambda grad, shape: grad.sum(axis=tuple(range(grad.ndim - len(shape)))))


@mistake("ex10", "unbroadcast", "forgets keepdims", "keepdims")
def _no_keepdims(grad, shape):
    g = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=axes) if axes else g


@mistake("ex10", "unbroadcast", "sums trailing axes", "has shape")
def _trailing(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=-1)
    return grad


@mistake("ex10", "unbroadcast", "modifies grad in place", "in place")
def _in_place(grad, shape):
    from minigrad.autograd import unbroadcast

    out = unbroadcast(grad.copy(), shape).copy()
    grad *= 0
    return out


# --- ex11 -------------------------------------------------------------------------------
mistake("ex11", "matmul_backward", "no transposes", "shape")(lambda g, a, b: (g @ b, a @ g))
mistake("ex11", "matmul_backward", "transposes swapped", "has shape")(
    lambda g, a, b: (a.T @ g, g @ b.T))
mistake("ex11", "matmul_backward", "ignores g (all-ones upstream)", "g @ bᵀ")(
    lambda g, a, b: (np.ones_like(g) @ b.T, a.T @ np.ones_like(g)))
mistake("ex11", "batched_matmul_backward", "no unbroadcast", "unbroadcast")(
    lambda g, a, b: (g @ np.swapaxes(b, -1, -2), np.swapaxes(a, -1, -2) @ g))
mistake("ex11", "batched_matmul_backward", ".T reverses every axis", "swapaxes")(
    lambda g, a, b: (g @ b.T, a.T @ g))


# --- ex14 -------------------------------------------------------------------------------
@mistake("ex14", "numerical_gradient", "one-sided difference", "one-sided")
def _forward_difference(f, x, eps=1e-6):
    grad = np.zeros(x.shape)
    base = f(x)
    for idx in np.ndindex(*x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        grad[idx] = (f(x) - base) / eps
        x[idx] = orig
    return grad


@mistake("ex14", "numerical_gradient", "forgets to restore x", "put each element back")
def _no_restore(f, x, eps=1e-6):
    grad = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        orig = x[idx]
        x[idx] = orig + eps
        plus = f(x)
        x[idx] = orig - eps
        grad[idx] = (plus - f(x)) / (2 * eps)
    return grad


@mistake("ex14", "numerical_gradient", "divides by ε, not 2ε", "2ε")
def _no_two(f, x, eps=1e-6):
    from exercises.solutions.ex14_gradcheck import numerical_gradient

    return 2 * numerical_gradient(f, x, eps)


@mistake("ex14", "numerical_gradient", "builds the gradient in float32",
         "right to float32 precision")
def _float32_gradient(f, x, eps=1e-6):
    from exercises.solutions.ex14_gradcheck import numerical_gradient

    # the mistake: stored in an array made with dtype=np.float32, where x and f are float64
    return numerical_gradient(f, x, eps).astype(np.float32)


mistake("ex14", "gradcheck", "always True", "expected False")(
    lambda fn, *values, eps=1e-6, tol=1e-5: True)


def _gradcheck(first_only=False, clear=True):
    def gradcheck(fn, *values, eps=1e-6, tol=1e-5):
        if clear:
            for v in values:
                v.grad = None
        fn(*values).backward()
        for v in values[:1] if first_only else values:
            original = v.data
            v.data = original + eps
            plus = fn(*values).data
            v.data = original - eps
            minus = fn(*values).data
            v.data = original
            numeric = (plus - minus) / (2 * eps)
            if not abs(v.grad - numeric) <= tol * max(1.0, abs(numeric)):
                return False
        return True

    return gradcheck


mistake("ex14", "gradcheck", "checks only the first input", "every input")(
    _gradcheck(first_only=True))
mistake("ex14", "gradcheck", "keeps the stale .grad", "cleared before backward")(
    _gradcheck(clear=False))


# --- ex15 -------------------------------------------------------------------------------
def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@mistake("ex15", "cross_entropy", "no max subtraction", "maximum")
def _naive_loss(logits, targets):
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return float(-np.log(p[np.arange(len(targets)), targets]).mean())


def _per_example_loss(logits, targets):
    return -np.log(_softmax(logits)[np.arange(len(targets)), targets])


mistake("ex15", "cross_entropy", "per-example losses (no mean)", "mean over the batch")(
    _per_example_loss)
mistake("ex15", "cross_entropy", "no return", "returned None")(lambda logits, targets: None)
mistake("ex15", "cross_entropy", "sum, not mean", "*mean*")(
    lambda logits, targets: float(_per_example_loss(logits, targets).sum()))


def _ce_grad(g, z, y, n=True, sign=-1.0, stable=True, use_g=True):
    p = _softmax(z) if stable else np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    p[np.arange(len(y)), y] += sign
    return p * (g if use_g else 1.0) / (len(y) if n else 1)


mistake("ex15", "cross_entropy_backward", "forgets 1/N", "divide by N")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, n=False))
mistake("ex15", "cross_entropy_backward", "forgets g", "upstream gradient g")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, use_g=False))
mistake("ex15", "cross_entropy_backward", "adds the one-hot", "onehot")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, sign=1.0))
mistake("ex15", "cross_entropy_backward", "overflows", "maximum")(
    lambda g, logits, targets: _ce_grad(g, logits, targets, stable=False))


# --- ex16 -------------------------------------------------------------------------------
def _solution16():
    from exercises.solutions import ex16_conv2d

    return ex16_conv2d


@mistake("ex16", "im2col", "patch flattened in (u, v, c) order", "(c, u, v) order")
def _im2col_order(x, kh, kw, stride=1, padding=0):
    cols = _solution16().im2col(x, kh, kw, stride, padding)
    n, oh, ow, _ = cols.shape
    return cols.reshape(n, oh, ow, x.shape[1], kh * kw).swapaxes(-1, -2).reshape(n, oh, ow, -1)


@mistake("ex16", "im2col", "ignores the stride", "has shape")
def _im2col_no_stride(x, kh, kw, stride=1, padding=0):
    return _solution16().im2col(x, kh, kw, 1, padding)


@mistake("ex16", "conv2d", "reshape instead of transpose", "transpose")
def _conv_reshape(x, w, b=None, stride=1, padding=0):
    o, _, kh, kw = w.shape
    out = _solution16().im2col(x, kh, kw, stride, padding) @ w.reshape(o, -1).T
    if b is not None:
        out = out + b
    return out.reshape(out.shape[0], o, out.shape[1], out.shape[2])


@mistake("ex16", "conv2d", "output size off by one", "(H + 2·padding − kh) // stride + 1")
def _conv_off_by_one(x, w, b=None, stride=1, padding=0):
    return _solution16().conv2d(x, w, b, stride, padding)[:, :, :-1, :]


@mistake("ex16", "conv2d", "flips the kernel (textbook convolution)", "output")
def _conv_flipped(x, w, b=None, stride=1, padding=0):
    return _solution16().conv2d(x, w[:, :, ::-1, ::-1], b, stride, padding)


@mistake("ex16", "conv2d", "forgets the bias", "output")
def _conv_no_bias(x, w, b=None, stride=1, padding=0):
    return _solution16().conv2d(x, w, None, stride, padding)


# --- ex01 -------------------------------------------------------------------------------
def _graph01(const_first=False, labels=True, backward=False):
    from minigrad import Value

    def build_graph():
        w, x = Value(-3.0, label="w"), Value(-2.0, label="x")
        p = w * x
        q = 2 * x if const_first else x * 2
        h = p + q
        out = h.tanh()
        if labels:
            p.label, q.label, h.label, out.label = "p", "q", "h", "out"
        if backward:
            out.backward()
        return out

    return build_graph


mistake("ex01", "build_graph", "2 * x instead of x * 2", "slot 0")(_graph01(const_first=True))
mistake("ex01", "build_graph", "labels only on leaves", "differs at line 1")(
    _graph01(labels=False))
mistake("ex01", "build_graph", "calls backward", "do not call backward")(_graph01(backward=True))


def _answers(**wrong):
    def read_graph():
        answers = {"leaves": ["x", "y"], "constants": 2, "ops": 7, "edges": 13,
                   "grad_x": 2.2830}
        answers.update(wrong)
        return answers

    return read_graph


mistake("ex01", "read_graph", "counts [seen] lines as nodes", "count each node once")(
    _answers(ops=8))
mistake("ex01", "read_graph", "skips [seen] edges", "[seen]")(_answers(edges=9))
mistake("ex01", "read_graph", "one x per line", "count each label once")(
    _answers(leaves=["x", "x", "x", "x", "y"]))
mistake("ex01", "read_graph", "grad of one edge only", "total")(_answers(grad_x=-1.6418 * -1.5))


# --- ex12 -------------------------------------------------------------------------------
def _softplus(save=True, stable=True, use_g=True, float64=False):
    from minigrad import Function

    class Softplus(Function):
        """softplus(x) = log(1 + e^x);  ∂/∂x = σ(x)"""

        @staticmethod
        def forward(ctx, x):
            d = x.data.astype(np.float64) if float64 else x.data
            if save:
                ctx.save_for_backward(x)
            else:
                ctx.x = x  # the mistake: lives as long as the graph, never released
            if stable:
                return np.maximum(d, 0) + np.log1p(np.exp(-np.abs(d)))
            return np.log(1 + np.exp(d))

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors if save else (ctx.x,)
            sigmoid = np.exp(-np.logaddexp(0, -x.data))
            return (grad_out.data if use_g else 1.0) * sigmoid

    return Softplus


def _hypot(swap=False, only_a=False, use_g=True):
    from minigrad import Function

    class Hypot(Function):
        """hypot(a, b) = √(a² + b²)"""

        @staticmethod
        def forward(ctx, a, b):
            out = np.sqrt(a.data**2 + b.data**2)
            ctx.save_for_backward(a, b, out)
            return out

        @staticmethod
        def backward(ctx, grad_out):
            a, b, out = ctx.saved_tensors
            g = (grad_out.data if use_g else 1.0) / out
            ga, gb = g * a.data, g * b.data
            if only_a:
                return ga
            return (gb, ga) if swap else (ga, gb)

    return Hypot


MISTAKES[("ex12", "Softplus")] = [
    Mistake("keeps x on ctx instead of save_for_backward", _softplus(save=False),
            "save_for_backward"),
    Mistake("log(1 + e^x) overflows", _softplus(stable=False), "not finite"),
    Mistake("forgets grad_out", _softplus(use_g=False), "upstream gradient g"),
    Mistake("float64 output for float32 input", _softplus(float64=True), "float32"),
]
def _softplus_backward_exp_ratio():
    from exercises.solutions.ex12_custom_function import Softplus

    class Ratio(Softplus):
        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out.data * np.exp(x.data) / (1 + np.exp(x.data))  # inf/inf at x ≫ 0

    return Ratio


MISTAKES[("ex12", "Softplus")].append(
    Mistake("backward e^x / (1 + e^x): nan for x ≫ 0", _softplus_backward_exp_ratio(),
            "1 / (1 + e^−x) there"))
MISTAKES[("ex12", "Hypot")] = [
    Mistake("gradients swapped", _hypot(swap=True), "∂hypot/∂a"),
    Mistake("returns one gradient", _hypot(only_a=True), "returned 1 gradients"),
    Mistake("forgets grad_out", _hypot(use_g=False), "times grad_out"),
]


# --- ex13 -------------------------------------------------------------------------------
def _saved_bytes(dedup=True, bases=True, skip_released=True, one_level=False):
    def saved_bytes(root):
        total, buffers = 0, {}
        for node in topological_order(root):
            saved = node.saved
            if saved is None and not skip_released:
                saved = node.parents  # the mistake: counts what the parents hold instead
                saved = [p.data for p in saved]
            for item in saved or ():
                if isinstance(item, np.ndarray):
                    base = item
                    while bases and isinstance(base.base, np.ndarray):
                        base = base.base
                        if one_level:
                            break
                    total += base.nbytes
                    buffers[id(base)] = base.nbytes
        return sum(buffers.values()) if dedup else total

    return saved_bytes


mistake("ex13", "saved_bytes", "counts shared buffers twice", "count each buffer once")(
    _saved_bytes(dedup=False))
mistake("ex13", "saved_bytes", "counts a view's own nbytes", "base")(_saved_bytes(bases=False))
mistake("ex13", "saved_bytes", "follows .base only one level", "while it is an ndarray")(
    _saved_bytes(one_level=True))
mistake("ex13", "saved_bytes", "still counts released nodes", "released")(
    _saved_bytes(skip_released=False))


@mistake("ex13", "saved_bytes", "calls .nbytes on a saved shape", "only np.ndarray items")
def _saved_bytes_of_everything(root):
    buffers = {}
    for node in topological_order(root):
        for item in node.saved or ():
            buffers[id(item)] = item.nbytes  # a shape (a tuple) has no nbytes
    return sum(buffers.values())


@mistake("ex13", "saved_bytes", "starts the total at 0.0", "returned 376.0 (float); "
         "expected 376 (int)")
def _saved_bytes_float(root):
    return float(_saved_bytes()(root))  # the mistake: the byte count comes back a float


def _evaluate(no_grad=True, as_float=True, leave_off=False, force_on=False):
    def evaluate(model, loss_fn, batches):
        if force_on:
            minigrad.set_grad_enabled(False)
            losses = [float(loss_fn(model(x), y).item()) for x, y in batches]
            minigrad.set_grad_enabled(True)
            return losses
        if leave_off:
            minigrad.set_grad_enabled(False)
            return [float(loss_fn(model(x), y).item()) for x, y in batches]
        if no_grad:
            with minigrad.no_grad():
                losses = [loss_fn(model(x), y) for x, y in batches]
        else:
            losses = [loss_fn(model(x), y).detach() for x, y in batches]
        return [float(v.item()) if as_float else v for v in losses]

    return evaluate


mistake("ex13", "evaluate", "detach after the fact", "recorded")(_evaluate(no_grad=False))
mistake("ex13", "evaluate", "returns tensors", "Python floats")(_evaluate(as_float=False))
mistake("ex13", "evaluate", "switches grad mode off for good", "left grad mode off")(
    _evaluate(leave_off=True))
mistake("ex13", "evaluate", "ends with set_grad_enabled(True)", "as you found it")(
    _evaluate(force_on=True))
