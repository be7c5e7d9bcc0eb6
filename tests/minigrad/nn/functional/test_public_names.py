"""``F`` lives where PyTorch keeps it, ``minigrad.nn.functional``, and the name earlier
lessons used, ``minigrad.functional``, is the same module (its submodules too), so a
student's saved notebook keeps working."""

from __future__ import annotations

import importlib

import minigrad
import minigrad.nn.functional as F
from minigrad.core.op import registered_ops


def test_the_old_name_is_the_same_module():
    old = importlib.import_module("minigrad.functional")
    assert old is F is minigrad.functional is minigrad.nn.functional


def test_the_old_names_of_its_modules_are_the_same_modules():
    old = importlib.import_module("minigrad.functional.conv")
    new = importlib.import_module("minigrad.nn.functional.conv")
    assert old is new and old.im2col is new.im2col


def test_every_op_is_registered_once():
    names = [(op.engine, op.name) for op in registered_ops()]
    assert len(names) == len(set(names))
    assert ("tensor", "conv2d") in names or any(n == "conv2d" for _, n in names)
