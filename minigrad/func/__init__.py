"""Function transforms, with ``torch.func``'s names: derivatives of *functions*.

``grad(f)`` is a new function that returns the gradient of ``f``; so is
``jacrev(f)`` for the Jacobian.  Transforms compose (``hessian`` is
``jacfwd(jacrev(f))``), never touch ``.grad``, and work on ``Tensor`` and
``Value`` arguments, and a transform nested in another may close over the outer
one's variables (``levels.py``).

* reverse mode (one backward pass per output row): ``grad``, ``value_and_grad``,
  ``vjp``, ``jacrev``;
* forward mode (one forward pass carrying a tangent per input column): ``jvp``,
  ``jacfwd``; and both: ``hessian``, ``hvp``;
* batching: ``vmap`` runs a function written for one example on a whole batch
  at once, and composes with all of the above (``vmap(grad(loss), in_dims=(None,
  0, 0))`` gives per-example gradients);
* ``count_passes()`` counts the passes and ops a transform runs.
"""

from .counting import Passes, count_passes
from .forward import hessian, hvp, jacfwd, jvp
from .reverse import grad, jacrev, value_and_grad, vjp
from .vmap import vmap

__all__ = ["Passes", "count_passes", "grad", "hessian", "hvp", "jacfwd", "jacrev", "jvp",
           "value_and_grad", "vjp", "vmap"]
