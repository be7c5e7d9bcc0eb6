"""Layers, containers and losses with PyTorch's names, built on ``minigrad.nn.functional``.

``Module`` is the protocol (parameters, train/eval, state_dict, save/load);
``minigrad.nn.init`` the weight initialisers; ``minigrad.nn.scope`` the name
scopes that let renderers draw a layer as one box; ``minigrad.nn.neurons`` the
micrograd-style Neuron/Layer/MLP on the scalar engine.

``MLP``, ``Layer`` and ``Neuron`` are re-exported here because ``from micrograd.nn
import MLP`` is what a micrograd user types: ``nn.MLP(2, [16, 16, 1])`` is a
network of ``Value``s, called on a list of numbers.  (PyTorch has no ``nn.MLP``; a
tensor MLP is a ``Sequential`` of ``Linear`` and ``ReLU``.)
"""

from . import init
from .layers import (
    GELU,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv2d,
    Dropout,
    Flatten,
    Identity,
    LayerNorm,
    LeakyReLU,
    Linear,
    MaxPool2d,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
)
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import LoadResult, ModelFileError, Module, ModuleList, Sequential, StateDictError
from .neurons import MLP, Layer, Neuron
from .parameter import Parameter
from .scope import ScopeInfo, ScopeMap, current_scope, record_scopes, scope

__all__ = [
    "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv2d",
    "CrossEntropyLoss", "Dropout", "Flatten", "GELU", "Identity", "LayerNorm", "LeakyReLU",
    "Layer", "Linear", "LoadResult", "MLP", "MSELoss", "MaxPool2d", "ModelFileError", "Module",
    "ModuleList", "NLLLoss", "Neuron",
    "Parameter", "ReLU", "ScopeInfo", "ScopeMap", "Sequential", "Sigmoid", "Softmax",
    "StateDictError", "Tanh", "current_scope", "init", "record_scopes", "scope",
]
