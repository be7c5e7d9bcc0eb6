"""Layers, containers and losses with PyTorch's names, built on ``minigrad.nn.functional``.

``Module`` is the protocol (parameters, train/eval, state_dict, save/load);
``minigrad.nn.init`` the weight initialisers; ``minigrad.nn.scope`` the name
scopes that let renderers draw a layer as one box; ``minigrad.nn.neurons`` the
micrograd-style Neuron/Layer/MLP on the scalar engine.
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
from .module import LoadResult, Module, ModuleList, Sequential, StateDictError
from .parameter import Parameter
from .scope import ScopeInfo, ScopeMap, current_scope, record_scopes, scope

__all__ = [
    "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d", "Conv2d",
    "CrossEntropyLoss", "Dropout", "Flatten", "GELU", "Identity", "LayerNorm", "LeakyReLU",
    "Linear", "LoadResult", "MSELoss", "MaxPool2d", "Module", "ModuleList", "NLLLoss",
    "Parameter", "ReLU", "ScopeInfo", "ScopeMap", "Sequential", "Sigmoid", "Softmax",
    "StateDictError", "Tanh", "current_scope", "init", "record_scopes", "scope",
]
