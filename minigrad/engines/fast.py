"""The fast loops: the reference backward (``core/backward.py``) with shortcuts.

``engines/choose.py`` runs these when nobody is watching (no recorder, no
anomaly mode), no node has gradient hooks and no saved value is packed.  They
compute exactly what ``core.backward.run_reference`` computes, bit for bit:
``tests/minigrad/engines/test_fast_equals_reference.py`` runs every registered
op, every one of its cases, in float32 and float64, for a first pass and a
second pass with ``retain_graph``, through every loop, and compares gradients,
dtypes and memory sharing.

Each shortcut is listed in ``shortcuts.SHORTCUTS``, as data: what it skips,
why that is safe, and the tests that pin what it relies on (a test checks that
every cited test exists).  In short: saved values spelled out instead of
``*saved``; passthrough rules (``g · 1``) not called; gradients that already
fit their input added unchecked; sums into buffers this pass owns done in
place; a jit-compiled vjp's fresh arrays added unchecked; float gradients
never copied.

The ufunc fast path of the forward pass (``a * b`` calling ``np.multiply``
without the op's Python forward) lives with the Tensor operators.
"""

from __future__ import annotations

import numpy as np

from ..core.accumulate import fit_gradient, vjp_results
from ..core.op import passthrough
from .output_grads import OutputGrads

ndarray = np.ndarray
asarray = np.asarray

__all__ = ["run_scalar", "run_tensor"]


def run_scalar(order, retain_graph) -> None:
    """The chain rule on floats: the whole algorithm in a dozen lines (passthrough rules
    not called, saved values spelled out, as in ``run_tensor``)."""
    for node in reversed(order):
        g = node.grad
        if g is not None:  # None: nothing that needs a gradient depends on this node
            saved = node.saved
            attrs = node.attrs
            rules = node.op.grads
            if not rules:
                _run_vjp(node, g, saved, attrs, None)
            else:
                n = len(saved)
                if n == 1:
                    s0, = saved
                elif n == 2:
                    s0, s1 = saved
                for parent, rule in zip(node.parents, rules):
                    if parent.requires_grad:
                        if rule is passthrough:  # ∂out/∂input = 1: no call needed
                            local = g
                        elif attrs:
                            local = rule(g, *saved, **attrs)
                        elif n == 2:
                            local = rule(g, s0, s1)
                        elif n == 1:
                            local = rule(g, s0)
                        else:
                            local = rule(g, *saved)
                        if local is not None:
                            grad = parent.grad
                            parent.grad = local if grad is None else grad + local
        if not retain_graph:
            node.saved = None


def run_tensor(order, retain_graph) -> None:
    """The same walk for arrays (see the module doc for its shortcuts)."""
    owned = set()
    for node in reversed(order):  # (backward checked that nothing here is released)
        saved = node.saved
        g = node.grad
        if g is not None:  # None: every path from the root here was non-differentiable
            rules = node.op.grads
            if not rules:
                _run_vjp(node, g, saved, node.attrs, owned)
                if not retain_graph:
                    node.saved = None
                continue
            attrs = node.attrs
            fits = node.grads_fit_inputs
            n = len(saved)
            if n == 1:
                s0, = saved
            elif n == 2:
                s0, s1 = saved
            for parent, rule in zip(node.parents, rules):
                if not parent.requires_grad:
                    continue
                if rule is passthrough:  # ∂out/∂input = 1: no call needed
                    local = g
                else:
                    if attrs:
                        local = rule(g, *saved, **attrs)
                    elif n == 1:
                        local = rule(g, s0)
                    elif n == 2:
                        local = rule(g, s0, s1)
                    elif n == 0:
                        local = rule(g)
                    else:
                        local = rule(g, *saved)
                    if local is None:
                        continue
                    if type(local) is not ndarray:  # a numpy scalar, from 0-d arrays
                        local = asarray(local)
                if fits:  # already in the parent's shape and dtype
                    if parent.grad is not None:
                        _accumulate_array(parent, local, g, owned)
                    elif local is g and parent.op is None:
                        # A leaf must not share the g that add passed through.
                        parent.grad = local.copy()
                        owned.add(parent.id)
                    else:
                        parent.grad = local
                    continue
                _accumulate_array(parent, local, g, owned)
        if not retain_graph:
            node.saved = None


def _run_vjp(node, g, saved, attrs, owned) -> None:
    """A node whose op gives one ``vjp`` for all inputs (a custom Function, ``cat``)."""
    grads = node.op.vjp(g, *saved, **attrs) if attrs else node.op.vjp(g, *saved)
    fits = node.grads_fit_inputs  # (a jit-compiled node: new arrays that fit, unshared)
    for parent, local in zip(node.parents, vjp_results(node, grads)):
        if local is None or not parent.requires_grad:
            continue
        if fits and parent.grad is None:
            parent.grad = local
        elif owned is not None and local.__class__ is not OutputGrads:
            _accumulate_array(parent, local, g, owned)
        else:
            grad = parent.grad
            parent.grad = local if grad is None else grad + local


def _accumulate_array(parent, local, g, owned) -> None:
    """``parent.grad += local`` for arrays, without needless copies and without aliasing bugs.

    ``local`` is first fitted to the parent's shape and dtype (``fit_gradient``,
    as in the reference engine).  Then:

    * the first contribution to a non-leaf is stored as is (no copy).  It may be
      shared with another node (``add`` passes ``g`` straight through), so
    * the second contribution allocates a fresh sum, which is ours: ``owned``;
    * from the third on we add into that buffer in place.

    A leaf's ``.grad`` belongs to the user and outlives the pass, so it is never
    left as a view of another node's gradient (a shared first contribution is
    copied), and a gradient left from an earlier pass is replaced by a fresh sum,
    not modified under the user's feet.
    """
    data = parent.data
    if local.shape != data.shape or local.dtype is not data.dtype:  # (the quick test)
        local = fit_gradient(local, data)
    current = parent.grad
    if current is None:
        if parent.op is None and (
            local is g or local.base is not None or not local.flags.writeable
        ):
            local = local.copy()
            owned.add(parent.id)
        parent.grad = local
    elif parent.id in owned:
        current += local
    else:
        parent.grad = np.asarray(current + local)  # 0-d + 0-d gives a numpy scalar
        owned.add(parent.id)
