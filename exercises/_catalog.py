"""The table of exercises: one row each, in lesson order.

Each exercise is four files with the same name: the stub a student edits
(``exercises/<module>.py``), the reference solution
(``exercises/solutions/<module>.py``), the checks
(``exercises/checks/<module>.py``, one ``check_<task>`` per task) and the wrong
answers they must reject (``exercises/checks/mistakes/<module>.py``).  A *task*
is one function or class the student writes; it is checked, and reported,
on its own, so a half-done exercise shows which half works.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Exercise", "EXERCISES", "find"]


@dataclass(frozen=True)
class Exercise:
    id: str  # "ex04": what -k and check() accept
    module: str  # "ex04_exp_pow": the file name in exercises/, solutions/ and checks/
    lesson: int  # the notebook lesson it practises
    title: str
    tasks: tuple[str, ...]  # the names the student writes, in the order they are checked

    def __str__(self) -> str:
        return f"{self.id} {self.title} (lesson {self.lesson})"


EXERCISES: tuple[Exercise, ...] = (
    Exercise("ex01", "ex01_graph_text", 1, "reading and writing graphs with the text printer",
             ("build_graph", "read_graph")),
    Exercise("ex02", "ex02_mul_backward", 2, "the backward rule of mul", ("mul_backward",)),
    Exercise("ex03", "ex03_tanh", 2, "tanh, forward and backward", ("tanh", "tanh_backward")),
    Exercise("ex04", "ex04_exp_pow", 2, "the backward rules of exp and pow",
             ("exp_backward", "pow_backward")),
    Exercise("ex05", "ex05_topological_order", 2, "a topological sort without recursion",
             ("topological_order",)),
    Exercise("ex06", "ex06_backward", 2, "the backward pass: a chain-rule loop", ("backward",)),
    Exercise("ex07", "ex07_fix_accumulation", 3, "fix an engine that forgets to accumulate",
             ("grad",)),
    Exercise("ex08", "ex08_zero_grad", 3, "zero_grad, and accumulating on purpose",
             ("gradient_descent", "accumulate_gradients")),
    Exercise("ex09", "ex09_tape", 4, "an engine as an append-only tape", ("Tape",)),
    Exercise("ex10", "ex10_unbroadcast", 5, "unbroadcast: the backward of broadcasting",
             ("unbroadcast",)),
    Exercise("ex11", "ex11_matmul_backward", 5, "the backward rule of matmul",
             ("matmul_backward", "batched_matmul_backward")),
    Exercise("ex12", "ex12_custom_function", 6, "custom Functions with ctx.save_for_backward",
             ("Softplus", "Hypot")),
    Exercise("ex13", "ex13_graph_memory", 7, "what a graph holds, and not building one",
             ("saved_bytes", "evaluate")),
    Exercise("ex14", "ex14_gradcheck", 8, "a gradient check by central differences",
             ("numerical_gradient", "gradcheck")),
    Exercise("ex15", "ex15_softmax_cross_entropy", 9, "the softmax cross-entropy gradient",
             ("cross_entropy", "cross_entropy_backward")),
    Exercise("ex16", "ex16_conv2d", 10, "conv2d as im2col + one matmul", ("im2col", "conv2d")),
    Exercise("ex17", "ex17_newton_hvp", 11,
             "a Newton step and a Hessian-vector product with autograd.grad",
             ("newton_step", "hvp")),
    Exercise("ex18", "ex18_gradient_penalty", 11,
             "a gradient penalty and its gradient with respect to the weights",
             ("gradient_penalty", "penalized_gradients")),
    Exercise("ex19", "ex19_dual_numbers", 12, "dual numbers: forward mode by hand",
             ("Dual", "derivative")),
    Exercise("ex20", "ex20_choose_the_mode", 12,
             "choose the mode: a Jacobian in min(n, m) passes, and the dot-product test",
             ("jacobian", "dot_product_test")),
    Exercise("ex21", "ex21_ready_queue", 13,
             "backward with dependency counts and a ready queue",
             ("pending_counts", "ready_queue_backward")),
    Exercise("ex22", "ex22_hooks", 13,
             "hooks: saved values in half precision, gradients clipped per tensor",
             ("half_precision_hooks", "clip_gradients")),
    Exercise("ex23", "ex23_trace_passes", 14,
             "dead-code and common-subexpression elimination on a traced program",
             ("dce", "cse")),
    Exercise("ex24", "ex24_fuse_by_hand", 14,
             "an elementwise chain fused by hand, forward and backward",
             ("fused_forward", "fused_backward")),
    Exercise("ex25", "ex25_depends_on", 15,
             "what a loss depends on, read from PyTorch's next_functions", ("depends_on",)),
    Exercise("ex26", "ex26_biggest_saved", 15,
             "the saved tensor that holds the most memory in PyTorch's graph",
             ("biggest_saved",)),
    Exercise("ex27", "ex27_diagnose_training", 17,
             "diagnose a training run from its live view's numbers", ("diagnose",)),
    Exercise("ex28", "ex28_batching_rule", 16,
             "a batching rule for an op whose forward cannot run on a batch", ("outer_batch",)),
    Exercise("ex29", "ex29_per_example_norms", 16,
             "per-example gradient norms with vmap(grad), and the examples that pull hardest",
             ("per_example_norms", "largest_gradients")),
)

_BY_ID = {e.id: e for e in EXERCISES}
_BY_MODULE = {e.module: e for e in EXERCISES}


def find(exercise) -> Exercise:
    """Accept ``"ex04"``, ``"ex04_exp_pow"``, ``4`` or an ``Exercise``."""
    if isinstance(exercise, Exercise):
        return exercise
    if isinstance(exercise, int) and not isinstance(exercise, bool):
        exercise = f"ex{exercise:02d}"
    if isinstance(exercise, str):
        key = exercise.strip().removesuffix(".py").split("/")[-1]
        if key in _BY_ID:
            return _BY_ID[key]
        if key in _BY_MODULE:
            return _BY_MODULE[key]
    known = ", ".join(e.id for e in EXERCISES)
    raise KeyError(f"no exercise {exercise!r}; known: {known}")
