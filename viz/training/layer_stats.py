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

__all__ = ["Layer", "LayerSample", "LayerStats", "layers_of", "weights", "gradients",
           "snapshot", "sample_layer", "Histograms"]


@dataclass
class Layer:
    """A named group of parameters: one module's (``Value`` s or ``Tensor`` s)."""

    name: str
    params: list


@dataclass(slots=True)
class LayerSample:
    """One layer's numbers at one step (``ratio`` is ``nan`` when no update was seen).

    The histograms are filled only at the steps a frame is drawn (``LayerStats.histograms``):
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


def snapshot(layer: Layer) -> np.ndarray:
    """The layer's weights as they are now (a flat float64 copy), kept for the ratio of a
    later ``sample_layer``."""
    return weights(layer)


def _std_of(n: int, total: float, sq: float) -> float:
    """std from the count, sum and sum of squares: sqrt(E[x²] - E[x]²)."""
    mean = total / n
    return math.sqrt(max(sq / n - mean * mean, 0.0))


class LayerStats:
    """The numbers of all the layers of a model, taken in one pass.

    A live view samples while the model trains, so a sample must cost microseconds. Numpy
    spends about a microsecond on each call whatever the array's size, and the plain
    definitions (``sample_layer``: ``np.std``, ``np.abs(g).mean()``, a count of zeros, a
    difference for the ratio, for every layer) make dozens of calls. Here the model's weights and
    gradients are gathered into the rows of one array allocated once, in the parameters'
    dtype (one ``concatenate`` each), the update and the absolute gradients are one ufunc
    call each over the whole model, and each layer's numbers are BLAS products of views of
    that array: the four sums ``x·1`` of its weights, gradients, update and ``|g|`` in one
    matrix-vector product, the sums of squares ``x·x`` in one dot each, so

        std(x) = sqrt(x·x / n - (x·1 / n)²)

    The rows keep the latest sample's weights and gradients, so a frame drawn later takes
    its histograms from them (the numbers of the step it shows), and ``keep`` copies the
    weights into the update's row on the step before a sample, for the ratio, which the
    sample then turns into the update in place (one buffer fewer for the caches to hold
    while the model trains). ``tests/viz/training/test_layer_stats.py`` holds every field
    to ``sample_layer``.

    (One ``np.add.reduceat`` over all the layers instead of a product per layer, and the
    squares and the nonzero count as extra rows, makes fewer calls but measured slower,
    hot and inside a digits epoch: ``reduceat`` does not vectorise, and the extra passes
    cost more than the calls they save.)
    """

    def __init__(self, layers: list[Layer]):
        self.layers = layers
        self._params = [p for layer in layers for p in layer.params]
        self.scalar = not isinstance(self._params[0].data, np.ndarray)
        self._layout = None
        self._kept_at: tuple | None = None  # (step, layout) of the kept weights
        self._binner: Histograms | None = None

    def _allocate(self, layout) -> None:
        sizes = [1] * layout if self.scalar else [math.prod(s) for s in layout]
        ends, k, at = [], 0, 0
        for layer in self.layers:
            at += sum(sizes[k:k + len(layer.params)])
            k += len(layer.params)
            ends.append(at)
        self.bounds = [0] + ends
        n = at
        dtype = np.dtype(np.float64) if self.scalar else np.result_type(
            np.float32, *(p.data.dtype for p in self._params))
        # rows: weights, gradients (together: one array to histogram), update, |gradients|
        self._m = np.zeros((4, n), dtype)  # (the update row is summed unused without a ratio)
        self._wg = self._m[:2].reshape(-1)
        self._w, self._g, self._d, self._a = self._m
        self._kept = self._d  # keep() copies there; the sample subtracts in place
        ones = np.ones(max(b - a for a, b in zip(self.bounds, ends)) if n else 0, dtype)
        bits = np.dtype(f"i{dtype.itemsize}")  # |g| read as integers: 0 exactly when g == ±0
        self._views = [(layer.name, b - a, self._m[:, a:b], ones[:b - a], self._w[a:b],
                        self._g[a:b], self._d[a:b], self._a[a:b].view(bits))
                       for layer, a, b in zip(self.layers, self.bounds, ends)]
        self._layout, self._kept_at, self._binner = layout, None, None
        self._filled = False  # the buffers hold no sample yet

    def _gather_weights(self, out: np.ndarray, data: list | None = None) -> None:
        if self.scalar:
            out[:] = [p.data for p in self._params]
        else:
            np.concatenate(data or [p.data for p in self._params], axis=None, out=out)

    def _gather_grads(self, out: np.ndarray) -> None:
        if self.scalar:
            out[:] = [p.grad for p in self._params]
            return
        grads = [p.grad for p in self._params]
        for k, g in enumerate(grads):
            if g is None:  # (no gradient yet: zeros)
                grads[k] = np.zeros(self._params[k].data.shape)
        np.concatenate(grads, axis=None, out=out)

    def _current(self) -> tuple:
        """``(layout, the parameters' arrays)``, the buffers allocated for that layout."""
        if self.scalar:
            layout, data = len(self._params), None
        else:
            data = [p.data for p in self._params]
            layout = tuple([a.shape for a in data])
        if layout != self._layout:  # first use, or a parameter changed shape
            self._allocate(layout)
        return layout, data

    def keep(self, step: int) -> None:
        """Copy the weights as they are now (the step before a sample: its ratio's ``before``)."""
        layout, data = self._current()
        self._gather_weights(self._kept, data)
        self._kept_at = (int(step), layout)

    def sample(self, step: int, before: np.ndarray | None = None) -> dict[str, LayerSample]:
        """Every layer's numbers now, ``{layer: LayerSample}``. The ratio compares with
        ``before`` (a flat copy of the weights, as ``weights`` gives), or, without it, with
        the weights ``keep`` copied at ``step - 1``."""
        layout, data = self._current()
        W, G, D = self._w, self._g, self._d
        self._gather_weights(W, data)
        self._gather_grads(G)
        self._filled = True
        if before is None and self._kept_at == (step - 1, layout):
            before = self._kept
        self._kept_at = None
        ratio = before is not None and before.shape == W.shape
        if ratio:
            np.subtract(W, before, out=D)
        np.abs(G, out=self._a)
        out, step = {}, int(step)
        for name, n, rows, ones, w, g, d, a_bits in self._views:
            if not n:  # (a layer whose parameters hold no numbers)
                out[name] = LayerSample(step, name, math.nan, math.nan, math.nan, 0.0,
                                        math.nan, math.nan)
                continue
            sum_w, sum_g, sum_d, sum_a = (rows @ ones).tolist()  # four sums, one BLAS call
            w_std = _std_of(n, sum_w, float(w.dot(w)))
            r = math.nan
            if ratio and w_std > 0:
                r = _std_of(n, sum_d, float(d.dot(d))) / w_std
            g_sq = float(g.dot(g))
            # (counting nonzero integers is twice as fast as counting nonzero floats)
            nonzero = np.count_nonzero(a_bits)
            # (step, layer, weight_std, grad_std, grad_abs_mean, grad_norm, dead, ratio)
            out[name] = LayerSample(step, name, w_std, _std_of(n, sum_g, g_sq), sum_a / n,
                                    math.sqrt(g_sq), 1.0 - nonzero / n, r)
        return out

    def histograms(self, samples: dict[str, LayerSample], bins: int,
                   count: int | None = None) -> None:
        """Fill the histograms of the first ``count`` layers' samples from the weights and
        gradients of the latest ``sample`` (the buffers hold them until the next one)."""
        if not self._filled:  # (a parameter changed shape since the sample: take them now)
            self._current()
            self._gather_weights(self._w)
            self._gather_grads(self._g)
            self._filled = True
        layers = self.layers[:count]
        bounds, n = self.bounds[:len(layers) + 1], len(self._w)
        x = self._wg if bounds[-1] == n else np.concatenate(
            (self._w[:bounds[-1]], self._g[:bounds[-1]]))
        bounds = bounds + [bounds[-1] + b for b in bounds[1:]]
        if self._binner is None or (self._binner.bounds, self._binner.bins) != (bounds, bins):
            self._binner = Histograms(bounds, bins)
        found = self._binner(x)
        for layer, w_hist, g_hist in zip(layers, found, found[len(layers):]):
            samples[layer.name].weight_hist = w_hist
            samples[layer.name].grad_hist = g_hist


class Histograms:
    """``np.histogram(x[a:b], bins)`` of each segment ``a:b`` of ``bounds``, in one pass.

    ``np.histogram`` costs some 60 µs of fixed work per call, and a frame wants two per
    layer; its temporaries, above glibc's 128 KiB, are fresh pages from the kernel at
    every call, which a virtual machine makes slow. Here every segment is binned by the
    same dozen numpy calls writing into arrays allocated once (for one layout). numpy's
    rule is kept exactly: ``bins`` equal bins from each segment's min to its max (widened
    by 0.5 each way when they are equal), value ``v`` in bin ``i`` when
    ``edges[i] <= v < edges[i + 1]`` (the last bin includes its right edge), the bin
    guessed as numpy guesses it, ``int((v - lo) / (hi - lo) * bins)``, then moved by one
    where rounding put it on the wrong side of an edge. Float32 values (a model's weights
    in their own dtype) are binned as their float64 values are, edges and all.
    """

    def __init__(self, bounds: list[int], bins: int):
        self.bounds, self.bins = list(bounds), int(bins)
        self.sizes = np.diff(self.bounds)
        self.starts = np.asarray(self.bounds[:-1]) - self.bounds[0]
        n, k = int(self.sizes.sum()), len(self.sizes)
        seg = np.repeat(np.arange(k), self.sizes)
        self._seg, self._row, self._out = seg, seg * (self.bins + 1), seg * self.bins
        self._f, self._e = np.empty(n), np.empty(n)
        self._idx, self._pos = np.empty(n, np.intp), np.empty(n, np.intp)
        self._m1, self._m2 = np.empty(n, bool), np.empty(n, bool)

    def __call__(self, x: np.ndarray) -> list[tuple]:
        x = x[self.bounds[0]:self.bounds[-1]]
        if x.dtype not in (np.float32, np.float64) or not self.sizes.all():
            return [_histogram(x[a:a + n], self.bins) for a, n in zip(self.starts, self.sizes)]
        lo = np.minimum.reduceat(x, self.starts).astype(np.float64)
        hi = np.maximum.reduceat(x, self.starts).astype(np.float64)
        if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
            return [_histogram(x[a:a + n], self.bins) for a, n in zip(self.starts, self.sizes)]
        bins, f, e, idx, pos, m1, m2 = (self.bins, self._f, self._e, self._idx, self._pos,
                                        self._m1, self._m2)
        same = lo == hi
        lo, hi = np.where(same, lo - 0.5, lo), np.where(same, hi + 0.5, hi)
        edges = np.stack([np.linspace(a, b, bins + 1) for a, b in zip(lo.tolist(),
                                                                         hi.tolist())])
        flat = edges.ravel()
        np.take(lo, self._seg, out=e)
        np.subtract(x, e, out=f)
        np.take(hi - lo, self._seg, out=e)
        np.divide(f, e, out=f)
        np.multiply(f, bins, out=f)
        np.copyto(idx, f, casting="unsafe")  # (truncation, as numpy's astype(intp))
        np.minimum(idx, bins - 1, out=idx)
        np.add(self._row, idx, out=pos)
        np.take(flat, pos, out=e)
        np.less(x, e, out=m1)
        np.subtract(idx, m1, out=idx)  # below its left edge: one bin down
        np.add(self._row, idx, out=pos)
        pos += 1
        np.take(flat, pos, out=e)
        np.greater_equal(x, e, out=m1)
        np.not_equal(idx, bins - 1, out=m2)
        m1 &= m2
        np.add(idx, m1, out=idx)  # at or past its right edge (not the last bin): one up
        np.add(self._out, idx, out=pos)
        counts = np.bincount(pos, minlength=len(self.sizes) * bins)
        return list(zip(counts.reshape(-1, bins), edges))


def _histogram(x: np.ndarray, bins: int) -> tuple:
    """``np.histogram(x, bins)``; of the finite values only when some are not (a diverged
    run's weights), where numpy would refuse the range."""
    x = np.asarray(x, np.float64)  # (float32 weights: edges as for their float64 values)
    if x.size == 0:
        return np.histogram(x, bins=bins)
    lo, hi = x.min(), x.max()
    if not (math.isfinite(lo) and math.isfinite(hi)):
        x = x[np.isfinite(x)]
    return np.histogram(x, bins=bins)


def sample_layer(step: int, layer: Layer, before: np.ndarray | None,
                 bins: int | None = None) -> LayerSample:
    """One layer's numbers now, written plainly: the definitions ``LayerStats`` computes for
    every layer at once (the tests hold it to these). ``before`` is the layer's
    ``snapshot`` one optimiser step earlier; with ``bins``, also the histograms of its
    weights and gradients."""
    w, g = weights(layer), gradients(layer)
    nan = math.nan
    if not w.size:
        return LayerSample(int(step), layer.name, nan, nan, nan, 0.0, nan, nan)
    ratio = nan
    if before is not None and before.shape == w.shape and w.std() > 0:
        ratio = float(np.std(w - before) / np.std(w))  # the update, over the weights
    sample = LayerSample(step=int(step), layer=layer.name, weight_std=float(np.std(w)),
                         grad_std=float(np.std(g)), grad_abs_mean=float(np.mean(np.abs(g))),
                         grad_norm=float(np.linalg.norm(g)), dead=float(np.mean(g == 0)),
                         ratio=ratio)
    if bins:
        sample.weight_hist, sample.grad_hist = _histogram(w, bins), _histogram(g, bins)
    return sample
