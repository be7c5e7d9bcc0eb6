"""Fixtures shared by the whole suite (plain helper functions are in ``tests/_helpers.py``)."""

from __future__ import annotations

import pytest

from minigrad.fitting import set_blas_threads


@pytest.fixture(scope="module")
def one_blas_thread():
    """One OpenBLAS thread for a module that trains: small matrices on a busy 2-core
    machine train ~10x slower with more (see ``set_blas_threads``).  Opt in with
    ``pytestmark = pytest.mark.usefixtures("one_blas_thread")``."""
    set_blas_threads(1)
