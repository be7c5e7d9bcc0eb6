"""``minigrad.core``: the whole engine, to read in an afternoon, top to bottom.

Read the modules in this order; each builds on the ones before it and on
nothing else in minigrad (numpy is the only import from outside):

1. ``modes.py``       grad mode, and the watchers that see every new node
2. ``node.py``        the graph record both engines share, and its one constructor
3. ``op.py``          what an op is: forward, one gradient rule per input, symbol,
                      formulas, test cases, all in one entry; the op table
4. ``order.py``       the order backward visits nodes in, without recursion
5. ``accumulate.py``  ``parent.grad += contribution``, and ``unbroadcast``
6. ``backward.py``    the reference backward: seed, order, rules in reverse, release

To follow ``c = a*b + a; c.backward()`` by hand: ``node.init_node`` makes ``a``, ``b``
and each op's result; ``backward.backward(c)`` seeds ``dc/dc = 1``, asks
``order.topological_order`` for ``[a*b, c]`` (leaves have no rule to run), and walks it
backwards: ``c``'s ``add`` rule passes 1 to ``a*b`` and to ``a``; ``a*b``'s ``mul``
rules send ``1·b`` to ``a`` and ``1·a`` to ``b``; ``accumulate`` adds the two
contributions to ``a``: ``a.grad = 1 + b``.  Every other feature is a variation on
that walk.

Everything else runs on this: the loops that usually run are
``minigrad/engines`` (each proven to give this folder's bits), the ops are
``minigrad/ops``, and ``Value`` and ``Tensor`` are the two engines' node
classes.  ``docs/architecture.md`` has the map.

(The reference ``backward`` function is ``minigrad.core.backward.backward``; the
package does not re-export it, so that ``minigrad.core.backward`` stays the module.)
"""

# What the rest of minigrad uses from the core, by name (each module's own ``__all__``
# says more); a reader of the core needs none of this list.
from .accumulate import accumulate, fit_gradient, unbroadcast
from .backward import GraphReleasedError, propagate, run_reference
from .modes import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .node import Node, Origin, init_node
from .op import (
    Op,
    OpExample,
    define_op,
    get_op,
    internal_op,
    internal_ops,
    no_gradient,
    op_example,
    op_examples,
    passthrough,
    registered_ops,
)
from .order import ancestors, topological_order

__all__ = ["GraphReleasedError", "Node", "Op", "OpExample", "Origin", "accumulate", "ancestors",
           "define_op", "enable_grad", "fit_gradient", "get_op", "init_node", "internal_op",
           "internal_ops", "is_grad_enabled", "no_grad", "no_gradient", "op_example",
           "op_examples", "passthrough", "propagate", "registered_ops", "run_reference",
           "set_grad_enabled", "topological_order", "unbroadcast"]
