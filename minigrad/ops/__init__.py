"""``minigrad.ops``: the op table, in one place.

What an op *is* (``Op``, ``define_op``, the registry) is ``minigrad/core/op.py``;
the entries themselves are here:

* ``shared.py``    the ops both engines have, one entry each: symbol, formulas and
                   the forward and gradient math, written once against a few
                   primitives (``m.exp``, ``m.div``, ``m.where`` ...), so a graph of
                   floats and a graph of arrays read and compute alike;
* ``scalar.py``    the scalar engine's ops (``Value``: Python floats): the shared
                   entries bound to ``FLOAT``, its IEEE-style float primitives
                   (``fdiv``, ``fpow``, ...), and its own sin and cos;
* ``tensor/``      the tensor engine's ops (``Tensor``: numpy arrays), by kind:
                   ``elementwise``, ``reductions``, ``shape``, ``indexing``, ``linalg``,
                   ``multi`` (ops with several outputs), and ``_base`` (their shared helpers).

The functional library registers its larger ops (``conv2d``, the losses, the fused
activations) in the same table from ``minigrad/nn/functional``; the library's own
bookkeeping ops (unpacked saved values, multi-output slots, forward mode's dual
and primal, compiled traces, fused kernels, checkpoint blocks) are *internal* ops,
declared in ``core/op.py``'s internal table next to the code that makes them.

**Adding an op is one ``define_op`` call** (in the module of its kind, or your own):

    CUBE = define_op(name="cube", engine="tensor", symbol="³",
                     forward=lambda x: (x ** 3, (x,)),
                     grads=(lambda g, x: g * 3 * x * x,),
                     formulas=("∂/∂x = 3x²",), elementwise=True,
                     cases=lambda rng: [((rng.uniform(-2, 2, (3, 4)),), {})])

and ``apply_op(CUBE, x)`` runs it.  Nothing else is written by hand: the renderers
and the stepper draw and narrate it from its ``symbol`` and ``formulas``; the tests
that walk ``registered_ops()`` gradcheck every case in float64, check its second
derivative (``tests/minigrad/engines/test_higher_order_registry.py``), its forward-mode rule
(derived for an elementwise op; ``tests/minigrad/ops/test_forward_rules.py``) and that the
fast engines give the reference engine's gradients bit for bit
(``tests/minigrad/engines/test_fast_equals_reference.py``).  An op both engines have is
one entry of ``shared`` (``@shared("mul", "×", formulas=...)`` on its math), which each
engine registers with its own facts: ``SHARED["mul"].define("tensor", ARRAY, ufunc=...)``.
"""

from . import scalar, shared, tensor
from .shared import NOTATION, SHARED

__all__ = ["NOTATION", "SHARED", "scalar", "shared", "tensor"]
