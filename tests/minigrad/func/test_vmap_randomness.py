"""vmap's randomness= for every random-number creator in minigrad (randn, rand, nn.init,
dropout, a layer built inside): "error" refuses, "same" shares one draw, "different" draws
per example, at every nested level that says so; seeded by minigrad.manual_seed."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad import Tensor, nn
from minigrad import random as mg_random
from minigrad.batching import BatchingError
from minigrad.func import vmap

#: one example's width (wide enough that two dropout masks never agree by chance)
W = 40
#: one example's draw of shape (W,) from every random-number creator
CREATORS = {
    "randn": lambda: minigrad.randn(W),
    "rand": lambda: minigrad.rand(W, dtype=np.float64),
    "randn(seed=)": lambda: minigrad.randn(W, seed=3),
    "randn(generator=)": lambda: minigrad.randn(W, generator=np.random.default_rng(4)),
    "init.uniform": lambda: Tensor(nn.init.uniform((W,), -1.0, 1.0)),
    "init.kaiming_uniform": lambda: Tensor(nn.init.kaiming_uniform((W, 2))[:, 0]),
    "init.kaiming_normal": lambda: Tensor(nn.init.kaiming_normal((W, 2))[:, 0]),
    "init.xavier_uniform": lambda: Tensor(nn.init.xavier_uniform((W, 2))[:, 0]),
    "init.xavier_normal": lambda: Tensor(nn.init.xavier_normal((W, 2))[:, 0]),
    "F.dropout": lambda: F.dropout(minigrad.ones(W), 0.5),
    "nn.Dropout": lambda: nn.Dropout(0.5)(minigrad.ones(W)),
    "nn.Linear": lambda: nn.Linear(1, W)(minigrad.ones(1)),
}


@pytest.fixture(autouse=True)
def _restore_default_generator():
    saved = mg_random.default_generator()
    yield
    mg_random._default = saved


def _mapped(creator, randomness, n=5, **kw):
    """``x + draw`` per example, for ``n`` examples of zeros (the draw shows as is)."""
    return vmap(lambda x: x + creator(), randomness=randomness, **kw)(
        Tensor(np.zeros((n, W)))).data


def _distinct_rows(a) -> int:
    return len({row.tobytes() for row in np.asarray(a).reshape(len(a), -1)})


@pytest.mark.parametrize("name", CREATORS)
def test_error_refuses_same_shares_different_draws_per_example(name):
    creator = CREATORS[name]
    with pytest.raises(BatchingError, match="randomness='error'"):
        _mapped(creator, "error")
    same = _mapped(creator, "same")
    assert same.shape == (5, W) and _distinct_rows(same) == 1
    different = _mapped(creator, "different")
    assert different.shape == (5, W) and _distinct_rows(different) == 5


@pytest.mark.parametrize("name", CREATORS)
def test_manual_seed_repeats_the_draws_of_every_mode(name):
    for mode in ("same", "different"):
        minigrad.manual_seed(11)
        first = _mapped(CREATORS[name], mode)
        minigrad.manual_seed(11)
        np.testing.assert_array_equal(_mapped(CREATORS[name], mode), first, err_msg=mode)


def test_different_is_one_draw_of_the_batch_from_the_default_generator():
    minigrad.manual_seed(5)
    out = _mapped(lambda: minigrad.randn(W), "different", n=4)
    expected = np.random.default_rng(5).standard_normal((4, W), dtype=np.float32)
    np.testing.assert_array_equal(out, expected)
    minigrad.manual_seed(5)
    shared = _mapped(lambda: minigrad.randn(W), "same", n=4)
    np.testing.assert_array_equal(shared, np.broadcast_to(expected[0], (4, W)))


def test_a_draw_that_meets_no_mapped_input_still_comes_out_per_example():
    xs = Tensor(np.zeros((3, 2)))
    out = vmap(lambda x: minigrad.rand(4), randomness="different")(xs)
    assert out.shape == (3, 4) and _distinct_rows(out.data) == 3
    out = vmap(lambda x: minigrad.rand(4), randomness="same")(xs)
    assert out.shape == (3, 4) and _distinct_rows(out.data) == 1
    # dropout of an unbatched input: a mask per example all the same (as torch.func does)
    out = vmap(lambda x: F.dropout(minigrad.ones(40), 0.5), randomness="different")(xs)
    assert out.shape == (3, 40) and _distinct_rows(out.data) == 3


@pytest.mark.parametrize("outer,inner", [("same", "different"), ("different", "same"),
                                         ("different", "different"), ("same", "same")])
@pytest.mark.parametrize("name", ["randn", "init.xavier_normal", "F.dropout"])
def test_nested_vmaps_each_apply_their_own_mode_to_their_own_axis(name, outer, inner):
    creator = CREATORS[name]
    xs = Tensor(np.zeros((3, 4, W)))
    out = vmap(vmap(lambda x: x + creator(), randomness=inner), randomness=outer)(xs).data
    assert out.shape == (3, 4, W)
    outer_differs = _distinct_rows(out) == 3            # out[i] over the outer examples
    inner_differs = _distinct_rows(out.swapaxes(0, 1)) == 4  # out[:, j] over the inner ones
    assert (outer_differs, inner_differs) == (outer == "different", inner == "different")
    assert _distinct_rows(out.reshape(12, W)) == (
        (3 if outer == "different" else 1) * (4 if inner == "different" else 1))


@pytest.mark.parametrize("modes", [("error", "same"), ("same", "error"),
                                   ("error", "different"), ("different", "error")])
def test_error_at_any_nested_level_refuses(modes):
    outer, inner = modes
    f = vmap(vmap(lambda x: x + minigrad.randn(W), randomness=inner), randomness=outer)
    with pytest.raises(BatchingError, match="randomness='error'"):
        f(Tensor(np.zeros((3, 4, W))))


def test_chunks_share_the_draw_under_same_and_draw_their_own_under_different():
    minigrad.manual_seed(2)
    whole = _mapped(CREATORS["randn"], "same", n=7)
    minigrad.manual_seed(2)
    for name in ("randn", "randn(generator=)", "F.dropout", "init.xavier_normal"):
        chunked = _mapped(CREATORS[name], "same", n=7, chunk_size=3)
        assert _distinct_rows(chunked) == 1, name
    minigrad.manual_seed(2)
    np.testing.assert_array_equal(_mapped(CREATORS["randn"], "same", n=7, chunk_size=3), whole)
    after_chunks = minigrad.randn(3).data
    minigrad.manual_seed(2)
    minigrad.randn(W)  # (the generator ends where one unchunked draw leaves it)
    np.testing.assert_array_equal(after_chunks, minigrad.randn(3).data)
    assert _distinct_rows(_mapped(CREATORS["randn"], "different", n=7, chunk_size=3)) == 7


def test_gradients_flow_through_per_example_noise():
    from minigrad.func import grad

    def noisy_loss(w, x):
        return ((x * w + minigrad.randn(3)) ** 2).sum()

    w, xs = Tensor(np.ones(3)), Tensor(np.arange(12.0).reshape(4, 3))
    minigrad.manual_seed(9)
    g = vmap(grad(noisy_loss), in_dims=(None, 0), randomness="different")(w, xs).data
    noise = np.random.default_rng(9).standard_normal((4, 3), dtype=np.float32)
    np.testing.assert_allclose(g, 2 * (xs.data * 1.0 + noise) * xs.data, rtol=1e-5)


def test_an_in_place_fill_needs_room_for_one_draw_per_example():
    weight = nn.Parameter(np.zeros((2, 3), dtype=np.float32))
    xs = Tensor(np.zeros((4, 2, 3)))
    with pytest.raises(BatchingError, match="xavier_normal_ fills an array in place.*'same'"):
        vmap(lambda x: x + nn.init.xavier_normal_(weight), randomness="different")(xs)
    assert not weight.data.any()  # (refused before it wrote anything)

    def fill_own(x):
        t = x * 0.0  # batched: one array per example, room for a draw each
        nn.init.kaiming_normal_(t)
        return t

    assert _distinct_rows(vmap(fill_own, randomness="different")(xs).data) == 4
    assert _distinct_rows(vmap(fill_own, randomness="same")(xs).data) == 1


def test_a_layer_built_inside_different_gets_its_own_weights_per_example():
    minigrad.manual_seed(0)
    xs = Tensor(np.ones((5, 3)))
    out = vmap(lambda x: nn.Linear(3, 2)(x), randomness="different")(xs)
    assert out.shape == (5, 2) and _distinct_rows(out.data) == 5  # an ensemble of 5


def test_the_modes_match_torch_func_vmap():
    torch = pytest.importorskip("torch")
    from torch.func import vmap as tvmap

    for outer in ("same", "different"):
        for inner in ("same", "different"):
            ours = vmap(vmap(lambda x: x + minigrad.randn(2), randomness=inner),
                        randomness=outer)(Tensor(np.zeros((3, 4, 2)))).data
            theirs = tvmap(tvmap(lambda x: x + torch.randn(2), randomness=inner),
                           randomness=outer)(torch.zeros(3, 4, 2)).numpy()
            pattern = [(_distinct_rows(a), _distinct_rows(a.swapaxes(0, 1)))
                       for a in (ours, theirs)]
            assert ours.shape == theirs.shape and pattern[0] == pattern[1], (outer, inner)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        tvmap(lambda x: x + torch.randn(2))(torch.zeros(3, 2))
    with pytest.raises(RuntimeError, match="different inplace randomness on an unbatched"):
        tvmap(lambda x: torch.nn.init.normal_(torch.empty(2)) + x,
              randomness="different")(torch.zeros(3, 2))


def test_grad_of_a_vmap_sees_the_masks_each_example_used():
    from minigrad.func import grad

    w = Tensor(np.ones(W))

    def loss(w):
        return vmap(lambda x: F.dropout(x * w, 0.5), randomness="different")(
            Tensor(np.ones((4, W)))).sum()

    minigrad.manual_seed(3)
    g = grad(loss)(w).data
    minigrad.manual_seed(3)
    masks = vmap(lambda x: F.dropout(x, 0.5), randomness="different")(
        Tensor(np.ones((4, W)))).data
    np.testing.assert_array_equal(g, masks.sum(0))  # d/dw Σᵢ mᵢ·w = Σᵢ mᵢ


@pytest.mark.parametrize("chunked", ["outer", "inner"])
def test_chunking_either_level_keeps_the_nested_pattern(chunked):
    xs = Tensor(np.zeros((5, 3, W)))
    inner = vmap(lambda x: x + minigrad.randn(W), randomness="different",
                 chunk_size=2 if chunked == "inner" else None)
    out = vmap(inner, randomness="same",
               chunk_size=2 if chunked == "outer" else None)(xs).data
    assert _distinct_rows(out) == 1 and _distinct_rows(out[0]) == 3
