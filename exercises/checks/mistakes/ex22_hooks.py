"""Wrong answers that ``checks/ex22_hooks.py`` must reject (lesson 13)."""

from __future__ import annotations

import numpy as np

from ._registry import mistake


def _pair(pack, unpack):
    return lambda: (pack, unpack)


def _keep_f32(x):
    return x.astype(np.float16) if isinstance(x, np.ndarray) and x.dtype == np.float32 else x


def _back_f32(p):
    return p.astype(np.float32) if isinstance(p, np.ndarray) and p.dtype == np.float16 else p


mistake("ex22", "half_precision_hooks", "unpack keeps float16", "astype(np.float32)")(
    _pair(_keep_f32, lambda p: p))
mistake("ex22", "half_precision_hooks", "packs the integer labels too", "cannot hold")(
    _pair(lambda x: x.astype(np.float16) if isinstance(x, np.ndarray) else x, _back_f32))
mistake("ex22", "half_precision_hooks", "packs nothing", "float16 copy")(
    _pair(lambda x: x, lambda p: p))
mistake("ex22", "half_precision_hooks", "unpacks to float64", "dtype float64")(
    _pair(_keep_f32, lambda p: p.astype(np.float64) if getattr(p, "dtype", None) == np.float16
          else p))
mistake("ex22", "half_precision_hooks", "returns one function", "pair (pack, unpack)")(
    lambda: _keep_f32)

_STORE: dict = {}


def _offload(x):
    _STORE[len(_STORE)] = x
    return len(_STORE) - 1


mistake("ex22", "half_precision_hooks", "hides the bytes in a store", "store of your own")(
    _pair(_offload, lambda key: _STORE[key]))


def _hooks(rule, post=False):
    def clip_gradients(params, max_norm):
        handles = []
        for p in params:
            if post:
                def clip_grad(leaf):
                    leaf.grad = rule(leaf.grad, max_norm)
                handles.append(p.register_post_accumulate_grad_hook(clip_grad))
            else:
                handles.append(p.register_hook(lambda g: rule(g, max_norm)))
        return handles

    return clip_gradients


def _by_norm(g, max_norm):
    norm = float(np.sqrt(np.sum(g * g)))
    return g if norm <= max_norm else g * (max_norm / norm)


def _in_place(g, max_norm):
    g *= min(1.0, max_norm / float(np.sqrt(np.sum(g * g))))
    return g


mistake("ex22", "clip_gradients", "clips each element", "not each element")(
    _hooks(lambda g, m: np.clip(g, -m, m)))
mistake("ex22", "clip_gradients", "normalises every gradient", "within max_norm unchanged")(
    _hooks(lambda g, m: g * (m / float(np.sqrt(np.sum(g * g))))))
mistake("ex22", "clip_gradients", "clips .grad after accumulating", "post-accumulate")(
    _hooks(_by_norm, post=True))
mistake("ex22", "clip_gradients", "scales in place", "read-only")(_hooks(_in_place))
mistake("ex22", "clip_gradients", "forgets to return the scaled gradient", "return the scaled")(
    _hooks(lambda g, m: None))
mistake("ex22", "clip_gradients", "scales by a float64", "dtype")(
    _hooks(lambda g, m: g * np.float64(m / float(np.sqrt(np.sum(g * g))))
           if np.sqrt(np.sum(g * g)) > m else None))


@mistake("ex22", "clip_gradients", "returns no handles", "one per parameter")
def _no_handles(params, max_norm):
    for p in params:
        p.register_hook(lambda g: _by_norm(g, max_norm))
