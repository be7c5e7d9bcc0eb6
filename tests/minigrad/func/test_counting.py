"""func.counting: count_passes counts a transform's engine passes and the directions
they carry (a Jacobian is one batched pass per chunk)."""

from __future__ import annotations

from minigrad import func
from tests.minigrad.func.test_forward_transforms import wide
from tests.minigrad.func.test_reverse_transforms import t64, tall


def _count(run):
    with func.count_passes() as n:
        run()
    return n


def test_jacfwd_runs_one_forward_pass_carrying_every_input_direction_and_jacrev_one_backward():
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])  # wide: 6 inputs, 2 outputs
    forward = _count(lambda: func.jacfwd(wide)(x))
    reverse = _count(lambda: func.jacrev(wide)(x))
    assert (forward.forward, forward.forward_directions, forward.backward) == (1, 6, 0)
    assert (reverse.forward, reverse.backward, reverse.backward_directions) == (1, 1, 2)


def test_jacrev_carries_every_output_element_in_one_backward_pass():
    n = _count(lambda: func.jacrev(tall)(t64([0.3, -0.2])))  # 5 outputs
    assert (n.forward, n.backward, n.backward_directions) == (1, 1, 5)
    assert n.backward_ops > 0 and n.forward_ops > 0


def test_chunk_size_one_is_the_loop_one_pass_per_direction():
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])
    reverse = _count(lambda: func.jacrev(wide, chunk_size=1)(x))
    forward = _count(lambda: func.jacfwd(wide, chunk_size=1)(x))
    assert (reverse.backward, reverse.backward_directions) == (2, 2)
    assert (forward.forward, forward.forward_directions) == (6, 6)
    # one pass per direction does the same work k times: k times the ops of one
    batched = _count(lambda: func.jacfwd(wide)(x))
    assert forward.forward_ops == 6 * batched.forward_ops


def test_jacobian_directions_count_every_element_of_every_output_and_argument():
    a, b = t64([0.1, 0.2]), t64([0.3, -0.4, 0.5])

    def two(a, b):
        return a * b.sum(), (a.reshape(2, 1) * b.reshape(1, 3)).tanh()  # 2 + 6 outputs

    reverse = _count(lambda: func.jacrev(two, argnums=(0, 1))(a, b))
    forward = _count(lambda: func.jacfwd(two, argnums=(0, 1))(a, b))
    assert (reverse.forward, reverse.backward, reverse.backward_directions) == (1, 1, 2 + 6)
    assert (forward.forward, forward.forward_directions, forward.backward) == (1, 2 + 3, 0)


def test_chunk_size_gives_one_batched_pass_per_chunk():
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])  # 6 inputs, 2 outputs
    counts = {}
    for chunk_size in (None, 1, 4):
        n = _count(lambda c=chunk_size: (func.jacrev(wide, chunk_size=c)(x),
                                         func.jacfwd(wide, chunk_size=c)(x)))
        counts[chunk_size] = (n.forward, n.forward_directions, n.backward,
                              n.backward_directions)
    # jacrev: 1 forward + ceil(2/c) backward; jacfwd: ceil(6/c) forward passes
    assert counts == {None: (1 + 1, 1 + 6, 1, 2), 1: (1 + 6, 1 + 6, 2, 2),
                      4: (1 + 2, 1 + 6, 1, 2)}


def test_hessian_counts_one_forward_pass_over_its_gradient_carrying_every_direction():
    x = t64([0.3, -0.2, 0.5])
    n = _count(lambda: func.hessian(lambda v: (v * v).tanh().sum())(x))
    assert (n.forward, n.forward_directions) == (1, 3)
    assert (n.backward, n.backward_directions) == (1, 3)  # (inside the batched forward pass)


def test_passes_say_how_many_directions_a_batched_pass_carried():
    x = t64([0.1, 0.2, -0.3, 0.4, -0.5, 0.6])
    assert "1 forward pass carrying 6 directions" in str(_count(lambda: func.jacfwd(wide)(x)))
    assert "carrying" not in str(_count(lambda: func.jacfwd(wide, chunk_size=1)(x)))


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
