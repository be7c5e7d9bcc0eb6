"""Wrong answers that ``checks/ex29_per_example_norms.py`` must reject (lesson 16)."""

from __future__ import annotations

import numpy as np

from minigrad.func import grad, vmap

from ._registry import mistake


def _grads(loss, theta, xs, ts):
    return vmap(grad(loss), in_dims=(None, 0, 0))(theta, xs, ts).data


@mistake("ex29", "per_example_norms", "maps over theta too (in_dims=0)", "in_dims=(None, 0, 0)")
def _mapped_theta(loss, theta, xs, ts):
    return np.linalg.norm(vmap(grad(loss))(theta, xs, ts).data, axis=1)


@mistake("ex29", "per_example_norms", "the gradient of the batch's mean loss", "mean (or sum)")
def _batch_mean(loss, theta, xs, ts):
    mean = grad(lambda th: vmap(loss, in_dims=(None, 0, 0))(th, xs, ts).mean())(theta)
    return np.full(xs.shape[0], np.linalg.norm(mean.data))


@mistake("ex29", "per_example_norms", "norms over the batch axis", "axis=1")
def _wrong_axis(loss, theta, xs, ts):
    return np.linalg.norm(_grads(loss, theta, xs, ts), axis=0)


@mistake("ex29", "per_example_norms", "squared norms", "square root")
def _squared(loss, theta, xs, ts):
    return (_grads(loss, theta, xs, ts) ** 2).sum(axis=1)


@mistake("ex29", "per_example_norms", "a loop over the examples", "one batched backward pass")
def _loop(loss, theta, xs, ts):
    return np.array([np.linalg.norm(grad(loss)(theta, xs[i], ts[i]).data)
                     for i in range(xs.shape[0])])


def _norms(loss, theta, xs, ts):
    return np.linalg.norm(_grads(loss, theta, xs, ts), axis=1)


@mistake("ex29", "largest_gradients", "smallest first", "largest first")
def _ascending(loss, theta, xs, ts, k):
    return np.argsort(_norms(loss, theta, xs, ts))[-k:]


@mistake("ex29", "largest_gradients", "the smallest norms", "smallest norms")
def _smallest(loss, theta, xs, ts, k):
    return np.argsort(_norms(loss, theta, xs, ts))[:k]


@mistake("ex29", "largest_gradients", "returns the norms, not the indices", "indices")
def _values(loss, theta, xs, ts, k):
    return np.sort(_norms(loss, theta, xs, ts))[::-1][:k]
