"""The tensor engine's op table: every op registered with ``engine="tensor"``.

Each op is one ``define_op`` call; the ops the scalar engine has too are the
entries of ``ops.shared``, their math bound to the numpy primitives ``ARRAY``.  Grouped by kind;
``from minigrad.ops.tensor import MUL`` gives the registry entry, and
``registered_ops("tensor")`` walks them all.
"""

from ._base import masked, nd
from .elementwise import (
    ABS,
    ADD,
    ARRAY,
    CLIP,
    DIV,
    ERF,
    EXP,
    GELU,
    LEAKY_RELU,
    LOG,
    MAXIMUM,
    MINIMUM,
    MUL,
    NEG,
    POW,
    RELU,
    SIGMOID,
    SQRT,
    SUB,
    TANH,
    WHERE,
    erf,
)
from .indexing import GETITEM, SCATTER_ADD, format_index
from .linalg import MATMUL
from .multi import MAX_DIM, MIN_DIM, SPLIT, TOPK, UNBIND
from .reductions import (
    LOG_SOFTMAX,
    LOGSUMEXP,
    MAX,
    MEAN,
    MIN,
    SOFTMAX,
    SUM,
    VAR,
    keep,
    norm_axes,
    reduced_shape,
)
from .shape import CAST, CAT, EXPAND, FLATTEN, PAD, RESHAPE, SQUEEZE, STACK, TRANSPOSE, UNSQUEEZE

__all__ = [
    "ABS", "ADD", "ARRAY", "CAST", "CAT", "CLIP", "DIV", "ERF", "EXP", "EXPAND", "FLATTEN", "GELU",
    "GETITEM", "LEAKY_RELU", "LOG", "LOGSUMEXP", "LOG_SOFTMAX", "MATMUL", "MAX", "MAXIMUM", "MEAN",
    "MAX_DIM", "MIN", "MIN_DIM", "MINIMUM", "MUL", "NEG", "PAD", "POW", "RELU", "RESHAPE",
    "SCATTER_ADD", "SIGMOID", "SOFTMAX", "SPLIT", "SQRT", "SQUEEZE", "STACK", "SUB", "SUM",
    "TANH", "TOPK", "TRANSPOSE", "UNBIND", "UNSQUEEZE", "VAR", "WHERE",
    "erf", "format_index", "keep", "masked", "nd", "norm_axes", "reduced_shape",
]
