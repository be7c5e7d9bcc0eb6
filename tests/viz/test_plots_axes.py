"""Every plot draws into the axes it is given (``ax=``)."""

from __future__ import annotations

import inspect

import pytest

import viz
import viz.plots


def test_every_plot_function_takes_ax():
    for name in viz.plots.__all__:
        assert "ax" in inspect.signature(getattr(viz.plots, name)).parameters, name


def test_plot_history_draws_into_given_axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    assert viz.plot_history({"loss": [1, 0.5], "val_loss": [1.2, 0.8]}, ax=ax) is fig
    assert ax.get_title() == "loss" and len(ax.get_lines()) == 2 and len(fig.axes) == 1
    fig2, axes = plt.subplots(1, 2)
    assert viz.plot_history({"loss": [1, 0.5], "acc": [0.2, 0.6]}, ax=axes) is fig2
    assert [a.get_title() for a in axes] == ["loss", "acc"]
    with pytest.raises(ValueError, match="2 panel"):
        viz.plot_history({"loss": [1, 0.5], "acc": [0.2, 0.6]}, ax=ax)
    plt.close("all")
