"""Exercise 28 · a batching rule for an op that cannot run on a batch (lesson 16).

Under ``vmap`` an op's forward gets ``BatchedArray``\\ s (``minigrad.batching``): one
example's ``shape``, the whole batch's values in ``.value`` with the batch axis in
front (``.value.shape == (.batch_size,) + .shape``), and the vmap's ``.level``.  Most
forwards run on them as written.  This one does not: it hands its inputs to code
outside numpy's protocols (``np.asarray``, as code calling a C library does), which a
batch refuses, so the op runs once per example, with a ``BatchingFallbackWarning``::

    def outer_forward(u, v):                 # u: (n,), v: (m,)  ->  (n, m)
        u, v = np.asarray(u), np.asarray(v)
        return np.multiply.outer(u, v), (u, v)

    OUTER = Op(name="outer", engine="tensor", symbol="⊗", forward=outer_forward,
               grads=(lambda g, u, v: g @ v, lambda g, u, v: g.T @ u),
               formulas=("∂/∂u = g·v", "∂/∂v = gᵀ·u"), batch=outer_batch)

(``define_op`` takes the same fields and registers the op.)  ``outer_forward`` is the
outer product ``out[i, j] = u[i] · v[j]``.  Write ``outer_batch(u, v)``, its *batching
rule*: the same op on a whole batch, in one numpy call, returning ``(out, saved)``
as the forward does.

* Either input may be a ``BatchedArray`` or a plain numpy array: an input with
  ``in_dims`` ``None`` is the same for every example and comes unbatched.  Broadcast
  it over the batch (``v[None]``), never copy it per example.
* ``out`` is a ``BatchedArray(value, level)`` whose value has shape ``(B, n, m)``:
  ``value[b, i, j] = u_b[i] · v_b[j]``, the batch in front.
* ``saved`` is what the backward rules get: the inputs *as given* (batches and all),
  ``(u, v)``.  The rules ``g @ v`` and ``g.T @ u`` run on batches through the
  batching rules, so ``vmap(grad(...))`` works with no more code.
* Nested vmaps: an input can be a batch of an *outer* vmap (a lower ``level``).  A
  rule works at the highest level among its inputs
  (``minigrad.batching.level_of(u, v)``); a batch of a lower level counts as unbatched
  there (numpy calls on it reach the outer vmap's rules by themselves).

The check runs ``vmap`` of the op for several ``in_dims``, nested, and under ``grad``,
against a loop over examples, and fails if anything still runs once per example.

Check it:  python -m exercises ex28   (in a notebook: ``check("ex28")``)
"""

import numpy as np  # noqa: F401  (you will want them)

from minigrad.batching import BatchedArray, level_of  # noqa: F401

__all__ = ["outer_batch"]


def outer_batch(u, v):
    """``(out, saved)``: the outer product of a batch of ``u`` and ``v`` (either may be
    unbatched), ``out`` a ``BatchedArray`` of shape ``(n, m)`` per example."""
    raise NotImplementedError
