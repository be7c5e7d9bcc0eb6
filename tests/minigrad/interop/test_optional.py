"""torch stays optional: importing minigrad or viz never loads it, a torch object is
recognised without importing torch, and a function that needs torch names the extra."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
from minigrad import interop, nn
from minigrad.interop import optional

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("statement", ["import minigrad", "import viz",
                                       "import minigrad.interop",
                                       "import minigrad, viz; from minigrad import interop; "
                                       "interop.is_torch_tensor(minigrad.ones(2))"])
def test_importing_does_not_import_torch(statement):
    code = f"import sys; {statement}; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)  # this checkout's minigrad and viz
    assert out.stdout.strip() == "False", out.stderr


def _fake(module: str, name: str):
    """A class that looks like torch's by its module and name, so no torch is needed."""
    return type(name, (), {"__module__": module})


def test_torch_objects_are_recognised_by_their_class_alone():
    fake_tensor = _fake("torch", "Tensor")
    fake_parameter = type("Parameter", (fake_tensor,), {"__module__": "torch.nn.parameter"})
    fake_module = _fake("torch.nn.modules.module", "Module")
    assert optional.is_torch_tensor(fake_tensor())
    assert optional.is_torch_tensor(fake_parameter())  # a subclass counts
    assert optional.is_torch_module(type("Net", (fake_module,), {})())
    for other in (np.ones(2), mg.ones(2), nn.Linear(2, 2), 1.0, _fake("torchvision", "Tensor")()):
        assert not optional.is_torch_tensor(other)
        assert not optional.is_torch_module(other)


@pytest.fixture
def no_torch(monkeypatch):
    """Make the lazy importer behave as if torch were not installed."""
    def import_module(name):
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    monkeypatch.setattr(optional, "importlib", types.SimpleNamespace(import_module=import_module))


@pytest.mark.parametrize("call", [lambda: interop.to_torch(mg.ones(2)),
                                  lambda: interop.to_torch(nn.Sequential(nn.ReLU())),
                                  lambda: interop.torch_dtype(np.float64),
                                  lambda: interop.import_torch()])
def test_without_torch_the_error_names_the_extra(no_torch, call):
    with pytest.raises(ModuleNotFoundError, match=r'pip install "minigrad-kit\[torch\]"') as e:
        call()
    assert "torch==2.13.0" in str(e.value) and e.value.name == "torch"


def test_the_error_says_which_function_needed_torch(no_torch):
    with pytest.raises(ModuleNotFoundError, match="minigrad.interop.to_torch needs PyTorch"):
        interop.to_torch(mg.ones(2))


def test_what_is_not_a_tensor_or_module_is_refused_without_torch(no_torch):
    with pytest.raises(TypeError, match="to_torch takes a minigrad Tensor or nn.Module"):
        interop.to_torch(np.ones(2))
    with pytest.raises(TypeError, match="from_torch takes a torch.Tensor or torch.nn.Module"):
        interop.from_torch(np.ones(2))
