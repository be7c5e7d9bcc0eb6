"""Checks for exercise 22: what a half-precision pack hook stores (item by item, and in
total with graph_memory) and the gradients it gives; per-tensor clipping against the
plain gradients clipped by hand, with a stale .grad and removable handles."""

import numpy as np

import minigrad.nn.functional as F
from minigrad import Tensor, graph_memory
from minigrad.autograd import saved_tensors_hooks

from ._support import call, expect_tuple, fail, fmt, rng_for

RTOL = 2e-2  # float16 keeps about three significant digits


def _mlp_params(rng, dtype=np.float32):
    shapes = [(6, 16), (16,), (16, 4), (4,)]
    return [rng.standard_normal(s).astype(dtype) * 0.7 for s in shapes]


def _mlp_loss(params, x, labels):
    w1, b1, w2, b2 = params
    h = (x @ w1 + b1).relu()
    return F.cross_entropy((h @ w2 + b2).tanh() * 3.0, labels)


def _leaves(arrays):
    return [Tensor(a.copy(), requires_grad=True) for a in arrays]


def _describe(item) -> str:
    if isinstance(item, np.ndarray):
        return f"an array of dtype {item.dtype} and shape {item.shape}"
    return f"a {type(item).__name__} ({fmt(item)})"


def _halved_bytes(loss) -> int:
    """What the ops of a plain graph saved, node by node, with every float32 array halved."""
    from minigrad import topological_order

    return sum(s.nbytes // 2 if s.dtype == np.float32 else s.nbytes
               for n in topological_order(loss) if n.op is not None
               for s in n.saved or () if isinstance(s, np.ndarray))


def _check_packed(loss, context):
    """Each item an op saved, as its node holds it now."""
    from minigrad import topological_order

    for node in topological_order(loss):
        specs = getattr(node.saved, "specs", None)
        if node.op is None or specs is None:
            continue
        for k, (item, spec) in enumerate(zip(node.saved, specs)):
            if spec is None:
                continue
            shape, dtype = spec
            where = f"{context}: saved value {k} of op '{node.op.name}' (node #{node.id})"
            if dtype == np.float32:
                if isinstance(item, np.ndarray) and item.dtype == np.float16 \
                        and item.shape == shape:
                    continue
                if not isinstance(item, np.ndarray):
                    hint = ("return the float16 array itself: the graph holds what pack "
                            "returns, and a key into a store of your own keeps the bytes "
                            "elsewhere instead of saving them")
                elif item.dtype == np.float32:
                    hint = "pack must return a float16 copy: x.astype(np.float16)"
                else:
                    hint = "store float32 arrays as float16 (2 bytes a number), no wider"
                fail(f"{where} was a float32 array of shape {shape}; the node holds "
                     f"{_describe(item)}, expected a float16 array of that shape", hint)
            elif not (isinstance(item, np.ndarray) and item.dtype == dtype
                      and item.shape == shape):
                fail(f"{where} was an array of dtype {dtype} and shape {shape}; the node holds "
                     f"{_describe(item)}, expected it unchanged",
                     "leave everything that is not a float32 array as it is: cross_entropy "
                     "saves its labels as integers, which float16 cannot hold")


def check_half_precision_hooks(half_precision_hooks):
    rng = rng_for("ex22.half_precision_hooks")
    arrays = _mlp_params(rng)
    x = Tensor(rng.standard_normal((32, 6)).astype(np.float32))
    labels = rng.integers(0, 4, 32)
    context = "half_precision_hooks()"
    pair = call(half_precision_hooks, "half_precision_hooks", {}, context=context)
    pack, unpack = expect_tuple(pair, 2, names=("pack", "unpack"), context=context)
    if not (callable(pack) and callable(unpack)):
        fail(f"{context} should return two functions (pack, unpack), got {fmt(pair)}")

    plain_params = _leaves(arrays)
    plain = _mlp_loss(plain_params, x, labels)
    halved = _halved_bytes(plain)
    plain.backward()

    params = _leaves(arrays)
    context = "with saved_tensors_hooks(pack, unpack): the forward pass of a small float32 MLP"

    def forward():
        with saved_tensors_hooks(pack, unpack):
            return _mlp_loss(params, x, labels)

    loss = call(forward, "forward", {}, context=context)
    _check_packed(loss, context)
    packed_bytes = sum(n.saved_bytes for n in graph_memory(loss).nodes)
    if packed_bytes != halved:
        fail(f"{context}: the ops' saved values weigh {packed_bytes} bytes (graph_memory, "
             f"node by node); expected {halved}, half of every float32 array",
             "pack float32 arrays into float16 copies, and nothing else")
    call(loss.backward, "loss.backward", {}, context=f"{context}, then loss.backward()")
    for i, (mine, ref) in enumerate(zip(params, plain_params)):
        g = mine.grad
        if not isinstance(g, np.ndarray) or g.shape != ref.grad.shape or g.dtype != np.float32:
            fail(f"{context}: parameter {i}'s .grad is {_describe(g)}, expected a float32 "
                 f"array of shape {ref.grad.shape}")
        scale = float(np.abs(ref.grad).max())
        err = float(np.abs(g - ref.grad).max())
        if err > RTOL * scale:
            fail(f"{context}: parameter {i}'s gradient differs from the plain one by up to "
                 f"{err:.3g} (its largest entry is {scale:.3g}; float16 allows about "
                 f"{RTOL * scale:.3g})", "unpack must give back the saved value, as float32")


# --- clip_gradients ---------------------------------------------------------------------
def _clip_loss(params, x, weights):
    w1, b1, w2 = params
    return (((x @ w1 + b1).tanh() @ w2) * weights).sum()


def _clipped(g, max_norm):
    norm = float(np.sqrt(np.sum(g.astype(np.float64) ** 2)))
    return g if norm <= max_norm else g * (max_norm / norm)


def _clip_hint(got, stale, fresh, max_norm):
    """What the gradients that came out say about the hook that made them."""
    def same(candidates):
        return all(np.allclose(a, b, rtol=1e-4, atol=1e-6) for a, b in zip(got, candidates))

    if same([s + f for s, f in zip(stale, fresh)]):
        return ("the gradients were not clipped: a hook's return value replaces the gradient, "
                "so return the scaled array")
    if same([_clipped(s + f, max_norm) for s, f in zip(stale, fresh)]):
        return ("clip this pass's gradient with register_hook: a post-accumulate-grad hook "
                "sees .grad, which also holds what earlier passes left")
    if same([s + np.clip(f, -max_norm, max_norm) for s, f in zip(stale, fresh)]):
        return "clip the norm: scale the whole gradient by max_norm / ‖g‖, not each element"
    if same([s + f * (max_norm / np.sqrt(np.sum(f * f))) for s, f in zip(stale, fresh)]):
        return "leave a gradient whose norm is within max_norm unchanged (return None)"
    return "g · (max_norm / ‖g‖) when ‖g‖ = sqrt(Σ g²) is above max_norm, else g unchanged"


def check_clip_gradients(clip_gradients):
    rng = rng_for("ex22.clip_gradients")
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((5, 4), (4,), (4, 3))]
    x = Tensor(rng.standard_normal((16, 5)).astype(np.float32))
    weights = Tensor(rng.standard_normal((16, 3)).astype(np.float32))
    ref = _leaves(arrays)
    _clip_loss(ref, x, weights).backward()
    fresh = [p.grad for p in ref]
    norms = sorted(float(np.linalg.norm(g)) for g in fresh)
    largest = min(float(np.abs(g).max()) for g in fresh)
    # every gradient far above the limit (so that clipping elements differs from clipping
    # the norm); then one gradient within it and two above it
    for max_norm in (largest / 4, (norms[0] + norms[1]) / 2):
        _check_clipping(clip_gradients, arrays, x, weights, fresh, max_norm)


def _check_clipping(clip_gradients, arrays, x, weights, fresh, max_norm):
    stale = [np.full(a.shape, 0.5, np.float32) for a in arrays]
    params = _leaves(arrays)
    for p, s in zip(params, stale):
        p.grad = s.copy()
    context = f"clip_gradients(params, max_norm={max_norm:.4g})"
    handles = call(clip_gradients, "clip_gradients", {"params": params, "max_norm": max_norm},
                   context=context)
    if not isinstance(handles, (list, tuple)) or len(handles) != len(params) or not all(
            callable(getattr(h, "remove", None)) for h in handles):
        fail(f"{context} returned {fmt(handles)}, expected a list of {len(params)} handles",
             "return what p.register_hook(...) returned, one per parameter")
    step = f"{context}, then a backward pass (the parameters' .grad held 0.5 everywhere)"
    try:
        _clip_loss(params, x, weights).backward()
    except ValueError as exc:
        if "read-only" not in str(exc):
            raise
        fail(f"{step}: a hook changed its gradient in place ({exc})",
             "a hook gets the gradient read-only: return a new array (g * scale) instead")
    except RuntimeError as exc:
        fail(f"{step} raised RuntimeError: {exc}")
    got = [p.grad for p in params]
    want = [s + _clipped(f, max_norm) for s, f in zip(stale, fresh)]
    for i, (g, w) in enumerate(zip(got, want)):
        if not (isinstance(g, np.ndarray) and g.shape == w.shape
                and np.allclose(g, w, rtol=1e-4, atol=1e-6)):
            fail(f"{step}: parameter {i}'s .grad is {fmt(g)}, expected {fmt(w)} (this pass's "
                 f"gradient had norm {np.linalg.norm(fresh[i]):.4g})",
                 _clip_hint(got, stale, fresh, max_norm))

    for h in handles:
        h.remove()
    for p in params:
        p.grad = None
    _clip_loss(params, x, weights).backward()
    for i, (p, f) in enumerate(zip(params, fresh)):
        if not np.allclose(p.grad, f, rtol=1e-5, atol=1e-6):
            fail(f"{context}: after handle.remove() on every handle, parameter {i}'s "
                 f"gradient is still changed ({fmt(p.grad)}, expected {fmt(f)})",
                 "return the handles register_hook gave you: they are how clipping is undone")
