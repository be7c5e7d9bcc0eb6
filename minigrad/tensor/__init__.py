"""The tensor engine's user-facing type: ``Tensor``, a numpy array in a computation graph.

Every method of ``Tensor`` is defined in its class body (``tensor.py``), and
nothing outside this package changes the class.  The modules, by what they hold:

* ``tensor``: the ``Tensor`` class and ``apply_op``, the one path every op takes;
* ``operators``: the fast elementwise operators the class binds (``a * b``, ``x.tanh()``);
* ``arguments``: checking what a user passes to an op, lifting numbers and arrays
  to constants, PyTorch's dtype promotion;
* ``numpy_protocol``: ``np.exp(t)``, ``np.where(m, t, 0)`` as recorded ops;
* ``value_reads``: the hook that sees values read into Python (``jit.trace`` uses it);
* ``creation``: constructors (``tensor``, ``zeros``, ``randn``, ``arange`` ...);
* ``combining``: functions of several tensors (``cat``, ``stack``, ``where``,
  ``maximum`` ...).

``minigrad.tensor`` is the *function* ``tensor(data)``, as in PyTorch; import
from this package by its full name (``from minigrad.tensor import Tensor``).
"""

from .tensor import Tensor, apply_op

__all__ = ["Tensor", "apply_op"]
