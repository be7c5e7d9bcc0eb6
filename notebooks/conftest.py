"""nbval settings for the lessons.

Outputs are compared strictly, except rendered graphs: graphviz's SVG (inline
as text/html or as image/svg+xml) carries coordinates that differ between dot
builds, so those MIME types are skipped.  Every graph also prints a
deterministic text/plain repr (e.g. ``<Graph 7 nodes, 8 edges>``), which *is*
compared, so a change in a lesson's graph still fails the run.

Lesson 15 reads PyTorch's graph: where torch is not installed (``make lab``'s venv), its
cells are skipped with a message saying how to get it, as the torch-backed tests are.
"""

import importlib.util

import pytest

SKIP = ("image/svg+xml", "text/html")

#: lessons that need PyTorch (the ``[torch]`` extra): skipped, with how to get it, without it
NEEDS_TORCH = ("15_pytorchs_engine_opened.ipynb",)


def pytest_collection_modifyitems(config, items):
    if importlib.util.find_spec("torch") is not None:
        return
    skip = pytest.mark.skip(reason='this lesson needs PyTorch: pip install "minigrad-kit[torch]" '
                                   "(make test installs it)")
    for item in items:
        if getattr(item, "path", None) is not None and item.path.name in NEEDS_TORCH:
            item.add_marker(skip)


def pytest_collectstart(collector):
    if getattr(collector, "path", None) is not None and collector.path.suffix == ".ipynb":
        if hasattr(collector, "skip_compare"):
            collector.skip_compare = tuple(collector.skip_compare) + SKIP
