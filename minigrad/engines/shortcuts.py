"""The fast loops' shortcuts, as data: what each skips, and the tests that prove it safe.

``fast.py`` takes each of these shortcuts where ``core/backward.py`` (the spec)
takes the plain way.  Listing them here, each with the tests that pin what it
relies on, keeps the proof next to the claim: ``tests/minigrad/engines/test_shortcuts.py``
fails when a cited test no longer exists, so a shortcut cannot lose its proof
silently.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Shortcut", "SHORTCUTS", "EQUIVALENCE"]


class Shortcut(NamedTuple):
    """One thing the fast loops do differently from the reference loop, and its proof."""

    name: str
    what: str
    tests: tuple[str, ...]  # pytest node ids (path::test) that pin what it relies on


EQUIVALENCE = ("tests/minigrad/engines/test_fast_equals_reference.py::"
               "test_reference_fast_recorded_and_ready_queue_engines_agree_bit_for_bit")

SHORTCUTS = (
    Shortcut("saved values spelled out",
             "Rules are called as rule(g, s0, s1) instead of rule(g, *saved, **attrs) when an "
             "op has no settings: a call with *saved costs about a microsecond more.",
             (EQUIVALENCE,)),
    Shortcut("passthrough rules not called",
             "core.op.passthrough (both inputs of +) returns g unchanged, so its result is g, "
             "in both loops, without a Python call.",
             ("tests/minigrad/tensor/test_operators_ufunc_paths.py::"
              "test_add_and_sub_pass_their_gradient_through",
              EQUIVALENCE,
              "tests/minigrad/engines/test_choose.py::test_scalar_fast_loop_calls_no_passthrough")),
    Shortcut("gradients that already fit go in unchecked",
             "A node whose grads_fit_inputs is set (an elementwise op that broadcast and "
             "promoted nothing) gets results already in each input's shape and dtype, so they "
             "skip fit_gradient; any other gradient goes to fit_gradient only when its shape or "
             "dtype object differs from its input's (fit_gradient would return it unchanged).",
             ("tests/minigrad/ops/test_tensor_registry.py::"
              "test_elementwise_rules_return_gradients_that_fit",
              "tests/minigrad/tensor/test_tensor.py::TestFits::test_which_nodes_fit")),
    Shortcut("buffer ownership",
             "The reference loop makes a new array for every sum and copies every leaf's first "
             "contribution.  Here the first contribution to a non-leaf is stored as it is; the "
             "second allocates a fresh sum, which this pass then owns; from the third on, sums "
             "go into that buffer in place.  A leaf's first contribution is copied only when it "
             "may be shared (g passed through, a view, a read-only array).",
             (EQUIVALENCE,)),
    Shortcut("a vjp's fresh gradients that fit go in unchecked",
             "The one vjp op whose node sets grads_fit_inputs is a jit-compiled trace, whose "
             "generated backward promises new arrays that fit.",
             ("tests/minigrad/jit/test_compiled_engines.py::"
              "test_fast_engine_readable_node_and_reference_engine_agree_bit_for_bit",
              "tests/minigrad/jit/test_compiled_engines.py::"
              "test_a_fused_kernel_marks_which_gradients_are_new_arrays")),
    Shortcut("a multi-output record's gradient added with +",
             "A multi-output record's gradient is an OutputGrads, one slot per output: its "
             "outputs' rules are vjps, and _run_vjp adds such a share with + as the reference "
             "loop does, never into a buffer in place.",
             ("tests/minigrad/autograd/test_outputs.py::"
              "test_every_engine_and_scheduler_gives_the_same_bits_with_unused_outputs",
              EQUIVALENCE)),
    Shortcut("float gradients",
             "On the scalar engine a gradient is a Python float: + makes a new one, so nothing "
             "is shared and nothing needs fitting.",
             (EQUIVALENCE,)),
)
