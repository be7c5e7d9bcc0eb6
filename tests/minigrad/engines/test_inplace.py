"""engines.inplace: an array changed in place after a graph saved it makes backward refuse, naming
the tensor; changes the graph did not see are fine."""

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn, optim
from tests.minigrad.tensor.test_corners import f32


# --- in-place changes after a graph saved the array ----------------------------------
class TestModifiedInPlace:
    def test_constant_changed_after_mul_saved_it(self):
        x, c = f32(1.0, 2.0), mg.Tensor([10.0, 20.0])
        y = (x * c).sum()
        c += 1
        with pytest.raises(RuntimeError, match=r"changed in place.*'mul'"):
            y.backward()

    def test_leaf_updated_under_no_grad(self):
        w = f32(1.0, 2.0)
        y = (w * w).sum()
        with mg.no_grad():
            w -= 0.5
        with pytest.raises(RuntimeError, match="changed in place"):
            y.backward()

    def test_the_error_names_the_tensor(self):
        w = mg.Tensor([1.0, 2.0], requires_grad=True, name="w")
        y = (w * 3.0).sum()
        with mg.no_grad():
            w *= 2
        with pytest.raises(RuntimeError, match=r"'w' of shape \(2,\)"):
            y.backward()

    def test_ops_that_did_not_save_the_array_are_unaffected(self):
        # add saves nothing; tanh saves its output, not its input (PyTorch agrees)
        a, c = f32(1.0, 2.0), mg.Tensor([1.0, 1.0])
        y = (a + c).sum()
        c += 1
        y.backward()
        np.testing.assert_allclose(a.grad, [1.0, 1.0])
        w = f32(1.0, 2.0)
        y = w.tanh().sum()
        with mg.no_grad():
            w -= 0.5
        y.backward()
        np.testing.assert_allclose(w.grad, 1 - np.tanh([1.0, 2.0]) ** 2, rtol=1e-6)

    def test_changes_before_the_forward_pass_are_fine(self):
        w = f32(1.0, 2.0)
        with mg.no_grad():
            w -= 0.5
        (w * w).sum().backward()
        np.testing.assert_allclose(w.grad, [1.0, 3.0])

    def test_optimizer_step_between_forward_and_backward(self):
        model = nn.Linear(2, 1)
        opt = optim.SGD(model.parameters(), lr=0.1)
        x = mg.randn(4, 2, seed=0)
        model(x).sum().backward()
        opt.step()
        stale = (model(x) ** 2).sum()  # built now, then the weights move again
        opt.step()
        with pytest.raises(RuntimeError, match="'weight'.*changed in place"):
            stale.backward()

    def test_an_ordinary_training_loop_never_trips(self):
        model = nn.Linear(3, 2)
        opt = optim.Adam(model.parameters(), lr=0.01)
        x = mg.randn(8, 3, seed=1)
        for _ in range(3):
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()

    def test_retained_graph_after_a_step_is_refused(self):
        w = f32(1.0, 2.0)
        opt = optim.SGD([w], lr=0.1)
        y = (w * w).sum()
        y.backward(retain_graph=True)
        opt.step()
        with pytest.raises(RuntimeError, match="changed in place"):
            y.backward()


    @pytest.mark.parametrize("use", [
        lambda x, w: x @ w.T,                    # matmul saves a transposed view of w
        lambda x, w: x * w[0],                   # a row
        lambda x, w: x * w.reshape(4)[:2],       # a reshaped slice
        lambda x, w: x @ w.swapaxes(0, 1),
    ], ids=["T", "row", "reshape-slice", "swapaxes"])
    def test_changes_seen_through_a_view(self, use):
        x = mg.Tensor(np.array([[1.0, 2.0]], dtype=np.float32), requires_grad=True)
        w = mg.Tensor(np.array([[3.0, 4.0], [5.0, 6.0]], dtype=np.float32), requires_grad=True)
        y = use(x, w).sum()
        with mg.no_grad():
            w -= 1.0
        with pytest.raises(RuntimeError, match="changed in place.*saved a view of it"):
            y.backward()

    def test_changes_through_a_detached_alias(self):
        x = f32(1.0, 2.0)
        w = f32(3.0, 4.0)
        y = (x * w).sum()
        alias = w.detach()  # shares w's memory
        alias -= 1
        with pytest.raises(RuntimeError, match="changed in place"):
            y.backward()

    def test_a_constant_saved_by_a_function_through_a_keyword(self):
        class MulK(mg.Function):
            @staticmethod
            def forward(ctx, x, k=None):
                ctx.save_for_backward(k)
                return x.data * k.data

            @staticmethod
            def backward(ctx, g):
                (k,) = ctx.saved_tensors
                return g * k

        x, k = f32(1.0, 2.0), mg.Tensor([3.0, 4.0])
        y = MulK.apply(x, k=k).sum()
        k += 1
        with pytest.raises(RuntimeError, match="changed in place"):
            y.backward()
        with pytest.raises(TypeError, match="keyword argument 'k' requires grad"):
            MulK.apply(x, k=f32(3.0, 4.0))

    def test_the_record_of_changes_dies_with_the_tensors(self):
        from minigrad.engines.inplace import changed_since

        first = mg.zeros(1).id
        t = mg.zeros(3)
        t += 1
        assert [n for n, _ in changed_since(first)] == [t]
        del t
        assert changed_since(first) == []
