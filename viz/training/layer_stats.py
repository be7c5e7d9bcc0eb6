"""Per-layer numbers of a model while it trains: what a live view shows and records.

Three questions a learner asks of a network that is not learning well, each
answered by one number or picture per layer:

* **Are the weights sane?** A histogram of each layer's weights.
* **Does the gradient reach the layer?** A histogram of its gradients; ``dead`` is the
  fraction that is exactly zero (a layer of dead ReLUs passes no gradient at all, so its
  weights' gradients are exactly 0, not merely small).
* **Is the step size right?** The update-to-weight ratio

      ratio = std(w_after - w_before) / std(w_after)

  for one optimiser step. Karpathy's rule of thumb (CS231n; "Building makemore" part 3):
  around ``1e-3`` is healthy; much above (``1e-1``) and each step rewrites the layer,
  the learning rate is too high; much below (``1e-5``) and the layer barely moves.

Layers are the modules owning the parameters (``fc1``, ``layers.0``), grouped at the
shallowest depth that gives more than one group, for the scalar engine's ``MLP`` of
``Value`` s and for ``Tensor`` models alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Layer", "LayerSample", "layers_of", "weights", "gradients", "snapshot",
           "sample_layer", "with_histograms"]


@dataclass
class Layer:
    """A named group of parameters: one module's (``Value`` s or ``Tensor`` s)."""

    name: str
    params: list


@dataclass
class LayerSample:
    """One layer's numbers at one step (``ratio`` is ``nan`` when no update was seen).

    The histograms are filled only at the steps a frame is drawn (``with_histograms``):
    the scalars cost microseconds, a histogram of every weight does not."""

    step: int
    layer: str
    weight_std: float
    grad_std: float
    grad_abs_mean: float
    grad_norm: float
    dead: float
    ratio: float
    weight_hist: tuple | None = None  # (counts, edges), numpy arrays
    grad_hist: tuple | None = None


def _owned(model) -> list[tuple[tuple, object]]:
    """``(owner module path, parameter)`` in the model's order."""
    if hasattr(model, "named_modules"):
        return [(tuple(name.split(".")) if name else (), p)
                for name, module in model.named_modules()
                for _, p in module.named_parameters(recurse=False)]
    if hasattr(model, "named_parameters"):
        return [(tuple(n.split("."))[:-1], p) for n, p in model.named_parameters()]
    if hasattr(model, "parameters"):
        return [((), p) for p in model.parameters()]
    raise TypeError(f"a live view needs a model with named_parameters() or parameters(), got "
                    f"{type(model).__name__}")


def layers_of(model) -> list[Layer]:
    """The model's parameters grouped by owning module, at the shallowest depth giving
    several groups (``fc1``/``fc2``; ``layers.0``/``layers.1`` for an ``MLP`` of neurons)."""
    owned = _owned(model)
    if not owned:
        raise ValueError(f"a live view needs a model with parameters; {type(model).__name__} "
                         f"has none")
    deepest = max(len(path) for path, _ in owned)
    depth = 1
    while depth < deepest and len({path[:depth] for path, _ in owned}) < 2:
        depth += 1
    groups: dict[str, list] = {}
    for path, p in owned:
        groups.setdefault(".".join(path[:depth]) or "(model)", []).append(p)
    return [Layer(name, params) for name, params in groups.items()]


def weights(layer: Layer) -> np.ndarray:
    """All the layer's parameter values as one flat float64 array (a fresh copy)."""
    return _flat([p.data for p in layer.params])


def gradients(layer: Layer) -> np.ndarray:
    """All the layer's gradients, flat (0 where a parameter has no gradient yet)."""
    return _flat([np.zeros(np.shape(p.data)) if p.grad is None else p.grad
                  for p in layer.params])


def _flat(items) -> np.ndarray:
    if items and not isinstance(items[0], np.ndarray):  # the scalar engine: floats
        return np.array(items, dtype=np.float64)
    return np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in items])


def snapshot(layer: Layer) -> list:
    """The layer's weights as they are now, kept for the next sample's ratio: a copy of
    each parameter's array as it is (no conversion, no concatenation: this runs every
    step), or one array of the floats of a scalar engine's ``Value`` s."""
    params = layer.params
    if params and not isinstance(params[0].data, np.ndarray):
        return [np.array([p.data for p in params], dtype=np.float64)]
    return [p.data.copy() for p in params]


def _sums(parts) -> tuple[int, float, float]:
    """``(count, sum, sum of squares)`` over arrays, each summed where it lies."""
    n, total, sq = 0, 0.0, 0.0
    for a in parts:
        a = a.reshape(-1)
        n += a.size
        total += float(a.sum())  # (pairwise in the array's dtype: ample for a std)
        sq += float(np.dot(a, a))
    return n, total, sq


def _std_of(n: int, total: float, sq: float) -> float:
    """std from the count, sum and sum of squares: sqrt(E[x²] - E[x]²)."""
    mean = total / n
    return math.sqrt(max(sq / n - mean * mean, 0.0))


def sample_layer(step: int, layer: Layer, before: list | None,
                 bins: int | None = None) -> LayerSample:
    """The layer's numbers now; ``before`` is its ``snapshot`` one optimiser step earlier.
    With ``bins``, also the histograms of its weights and gradients.

    A sample is taken while the model trains, so it reads each parameter's array where it
    lies (sums and dot products, no flat float64 copy): microseconds per layer."""
    scalar = not isinstance(layer.params[0].data, np.ndarray)
    now = snapshot(layer) if scalar else [p.data for p in layer.params]
    n, total, sq = _sums(now)
    w_std = _std_of(n, total, sq)
    ratio = math.nan
    if before is not None and [b.shape for b in before] == [a.shape for a in now]:
        delta = [a - b for a, b in zip(now, before)]
        ratio = _std_of(*_sums(delta)) / w_std if w_std > 0 else math.nan
    grads = [gradients(layer)] if scalar else [
        np.zeros(p.data.shape, p.data.dtype) if p.grad is None else p.grad for p in layer.params]
    gn, g_total, g_sq = _sums(grads)
    sample = LayerSample(
        step=int(step), layer=layer.name, weight_std=w_std, grad_std=_std_of(gn, g_total, g_sq),
        grad_abs_mean=sum(float(np.abs(g).sum()) for g in grads) / gn,
        grad_norm=math.sqrt(g_sq),
        dead=1.0 - sum(int(np.count_nonzero(g)) for g in grads) / gn, ratio=ratio)
    return with_histograms(sample, layer, bins) if bins else sample


def with_histograms(sample: LayerSample, layer: Layer, bins: int) -> LayerSample:
    """Fill ``sample``'s histograms from the layer's weights and gradients (now)."""
    w, g = weights(layer), gradients(layer)
    sample.weight_hist, sample.grad_hist = np.histogram(w, bins=bins), np.histogram(g, bins=bins)
    return sample
