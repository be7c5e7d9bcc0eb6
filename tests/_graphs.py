"""Small graphs and custom Functions shared by several test files."""

from minigrad import Function, Value


def neuron():
    """micrograd's neuron, ``tanh(x1·w1 + x2·w2 + b)``: ``(output, (x1, x2, w1, w2, b))``."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = x1 * w1 + x2 * w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o, (x1, x2, w1, w2, b)


class Cube(Function):
    """∂(x³)/∂x = 3x²"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.data**3

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * 3 * x * x
