"""func.counting: count_passes counts a transform's forward and backward passes."""

from __future__ import annotations

from minigrad import func
from tests.minigrad.func.test_forward_transforms import wide
from tests.minigrad.func.test_reverse_transforms import t64, tall


def test_jacfwd_counts_one_forward_pass_per_input_and_jacrev_one_backward_per_output():
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])  # wide: 6 inputs, 2 outputs
    with func.count_passes() as forward:
        func.jacfwd(wide)(x)
    with func.count_passes() as reverse:
        func.jacrev(wide)(x)
    assert (forward.forward, forward.backward) == (6, 0)
    assert (reverse.forward, reverse.backward) == (1, 2)


def test_jacrev_runs_one_backward_pass_per_output_element():
    with func.count_passes() as n:
        func.jacrev(tall)(t64([0.3, -0.2]))
    assert (n.forward, n.backward) == (1, 5)
    assert n.backward_ops > 0 and n.forward_ops > 0


def test_jacobian_passes_count_every_element_of_every_output_and_argument():
    a, b = t64([0.1, 0.2]), t64([0.3, -0.4, 0.5])

    def two(a, b):
        return a * b.sum(), (a.reshape(2, 1) * b.reshape(1, 3)).tanh()  # 2 + 6 outputs

    with func.count_passes() as reverse:
        func.jacrev(two, argnums=(0, 1))(a, b)
    with func.count_passes() as forward:
        func.jacfwd(two, argnums=(0, 1))(a, b)
    assert (reverse.forward, reverse.backward) == (1, 2 + 6)
    assert (forward.forward, forward.backward) == (2 + 3, 0)


def test_chunk_size_does_not_change_the_passes_the_loop_runs():
    # (the chunks are the seam for a batched pass; until vmap drives it, each direction
    # in a chunk is still its own pass)
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])
    counts = []
    for chunk_size in (None, 1, 4):
        with func.count_passes() as n:
            func.jacrev(wide, chunk_size=chunk_size)(x)
            func.jacfwd(wide, chunk_size=chunk_size)(x)
        counts.append((n.forward, n.backward))
    assert counts == [(1 + 6, 2)] * 3


def test_chunk_size_hands_the_seams_the_basis_in_chunks_of_that_many_directions(monkeypatch):
    from minigrad.func import forward, reverse

    seen = {"rows": [], "columns": []}
    vjp_rows, jvp_columns = reverse.vjp_rows, forward.jvp_columns

    def rows(outs, inputs, cotangents, *rest):
        seen["rows"].append(len(cotangents[0]))
        return vjp_rows(outs, inputs, cotangents, *rest)

    def columns(f, primals, tangents, *rest):
        seen["columns"].append(len(tangents[0]))
        return jvp_columns(f, primals, tangents, *rest)

    monkeypatch.setattr(reverse, "vjp_rows", rows)
    monkeypatch.setattr(forward, "jvp_columns", columns)
    func.jacrev(tall, chunk_size=2)(t64([0.3, -0.2]))  # 5 rows
    func.jacfwd(wide, chunk_size=4)(t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6]))  # 6 columns
    func.jacrev(tall)(t64([0.3, -0.2]))  # all at once
    assert seen == {"rows": [2, 2, 1, 5], "columns": [4, 2]}
