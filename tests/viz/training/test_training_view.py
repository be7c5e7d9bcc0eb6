"""TrainingView: cadence, recorded numbers, frames with every panel, both engines."""

import math
import subprocess
import sys

import numpy as np
import pytest

import viz
from viz.training.layer_stats import weights

from ._models import TensorMLP, moons, scalar_mlp, scalar_step, tensor_step

PANELS = ("loss", "acc", "ratio", "boundary", "graph")


def _train(model, step_fn, view, steps):
    X, y = view.X, view.y
    for step in range(steps):
        loss, acc = step_fn(model, X, y)
        view.update(step, loss=loss, acc=acc)


def test_frames_every_n_steps_and_a_last_one_on_close():
    X, y = moons()
    frames = []
    view = viz.TrainingView(TensorMLP(), every=4, data=(X, y), display=frames.append,
                            interval=0)
    drawn = []
    for step in range(10):
        loss, acc = tensor_step(view.model, X, y)
        drawn.append(view.update(step, loss=loss, acc=acc))
    assert [s for s, d in enumerate(drawn) if d] == [0, 4, 8]
    assert view.sample_steps == [0, 4, 8] and len(frames) == 3
    view.close()  # draws the last sample again, with the curves up to step 9
    assert view.sample_steps == [0, 4, 8] and len(frames) == 4 and view.frames == 4
    assert "step 9" in frames[-1] and "step 9" not in frames[-2]
    view.close()  # nothing new to draw
    assert len(frames) == 4 and view.drawn_steps == [0, 4, 8, 9]


def test_frames_are_throttled_to_one_per_interval_and_close_draws_the_last_step():
    X, y = moons()
    frames = []
    view = viz.TrainingView(TensorMLP(), every=2, data=(X, y), display=frames.append,
                            interval=3600.0, graph=False)
    for step in range(7):
        loss, acc = tensor_step(view.model, X, y)
        view.update(step, loss=loss, acc=acc)
    assert view.sample_steps == [0, 2, 4, 6]  # every sample is recorded...
    assert view.drawn_steps == [0] and len(frames) == 1  # ...the first frame only is drawn
    assert view.samples[1]["fc1"].weight_hist is None  # (histograms only when drawn)
    view.close()
    assert view.drawn_steps == [0, 6] and len(frames) == 2
    assert view.samples[-1]["fc1"].weight_hist is not None


def test_every_sample_after_the_first_has_its_ratio_and_close_takes_no_new_sample():
    X, y = moons()
    view = viz.TrainingView(TensorMLP(), every=3, data=(X, y), display=None, graph=False,
                            interval=0)
    for step in range(8):
        loss, acc = tensor_step(view.model, X, y)
        view.update(step, loss=loss, acc=acc)
    view.close()
    assert view.sample_steps == [0, 3, 6]
    ratios = view.series("ratio")
    assert all(math.isnan(r[0]) and all(math.isfinite(v) and v > 0 for v in r[1:])
               for r in ratios.values())


def test_frame_draws_the_latest_sample_even_between_drawn_frames():
    X, y = moons()
    view = viz.TrainingView(TensorMLP(), every=1, data=(X, y), display=None,
                            interval=3600.0, graph=False)
    for step in range(3):
        loss, acc = tensor_step(view.model, X, y)
        view.update(step, loss=loss, acc=acc)
    assert view.drawn_steps == [0]
    assert "step 2" in view.frame()


@pytest.mark.parametrize("engine", ["scalar", "tensor"])
def test_frame_has_every_panel_and_histograms_from_the_real_weights(engine):
    X, y = moons(30)
    model, step_fn = (scalar_mlp(), scalar_step) if engine == "scalar" else (TensorMLP(),
                                                                              tensor_step)
    view = viz.TrainingView(model, every=2, data=(X, y), bins=10, display=None, interval=0)
    _train(model, step_fn, view, 5)
    html = view.frame()
    for panel in PANELS:
        assert f'data-panel="{panel}"' in html, panel
    for layer in view.layers:
        assert f'data-panel="weights {layer.name}"' in html
        assert f'data-panel="grads {layer.name}"' in html
        counts, edges = view.samples[-1][layer.name].weight_hist
        w = weights(layer)
        np.testing.assert_array_equal(counts, np.histogram(w, bins=10)[0])
    assert "<script" not in html  # self-contained: a saved notebook shows it as is
    assert "<svg" not in html  # every panel an image (an untrusted notebook keeps those)


def test_each_panel_is_an_svg_image_that_decodes_to_the_panel():
    import base64
    import re

    X, y = moons(30)
    view = viz.TrainingView(TensorMLP(), every=2, data=(X, y), display=None, interval=0)
    _train(view.model, tensor_step, view, 3)
    images = dict(re.findall(r'<img class="tv-panel" data-panel="([^"]+)"[^>]*'
                             r'src="data:image/svg\+xml;base64,([^"]+)"', view.frame()))
    assert set(PANELS) <= set(images)
    ratio = base64.b64decode(images["ratio"]).decode()
    assert ratio.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in ratio
    assert 'class="guide"' in ratio
    boundary = base64.b64decode(images["boundary"]).decode()
    assert boundary.count('class="point"') == 30
    graph = base64.b64decode(images["graph"]).decode()
    assert 'id="c_fc2"' in graph and 'class="edge' in graph


@pytest.mark.parametrize("engine", ["scalar", "tensor"])
def test_ratio_at_a_frame_is_the_last_steps_update(engine):
    X, y = moons(30)
    model, step_fn = (scalar_mlp(), scalar_step) if engine == "scalar" else (TensorMLP(),
                                                                              tensor_step)
    view = viz.TrainingView(model, every=3, data=(X, y), graph=False, display=None)
    before = None
    for step in range(4):
        if step == 3:
            before = {layer.name: weights(layer) for layer in view.layers}
        loss, acc = step_fn(model, X, y)
        view.update(step, loss=loss, acc=acc)
    ratios = view.series("ratio")
    for layer in view.layers:
        after = weights(layer)
        expected = (after - before[layer.name]).std() / after.std()
        assert math.isnan(ratios[layer.name][0])  # step 0: no earlier step seen
        assert ratios[layer.name][1] == pytest.approx(expected)


def test_summary_is_plain_lists_of_what_was_recorded():
    X, y = moons()
    view = viz.TrainingView(TensorMLP(), every=5, data=(X, y), graph=False, display=None)
    _train(view.model, tensor_step, view, 11)
    s = view.summary()
    assert s["layers"] == ["fc1", "fc2", "fc3"] and s["steps"] == list(range(11))
    assert s["frame_steps"] == [0, 5, 10] and len(s["loss"]) == 11
    assert all(len(s["ratio"][name]) == 3 for name in s["layers"])
    assert s["dead"]["fc1"][-1] == view.samples[-1]["fc1"].dead


def test_a_dead_layer_shows_in_the_recorded_numbers():
    X, y = moons()
    view = viz.TrainingView(TensorMLP(bias=-50.0), every=2, data=(X, y), graph=False,
                            display=None)
    _train(view.model, tensor_step, view, 3)
    assert view.series("dead")["fc2"] == [1.0, 1.0]
    assert view.series("ratio")["fc2"][1] == 0.0  # zero gradient, zero update


def test_no_boundary_without_two_columns_and_no_graph_without_data():
    view = viz.TrainingView(TensorMLP(), every=1, display=None)
    view.update(0, loss=1.0)
    html = view.frame()
    assert 'data-panel="loss"' in html and 'data-panel="boundary"' not in html
    assert 'data-panel="graph"' not in html and 'data-panel="acc"' not in html


def test_metrics_may_be_nodes_and_extra_metrics_get_a_panel():
    from minigrad import Tensor, Value

    view = viz.TrainingView(TensorMLP(), every=1, display=None)
    view.update(0, loss=Value(0.5), acc=Tensor(np.array(0.25)), lr=0.1)
    assert view.metrics == {"loss": [0.5], "acc": [0.25], "lr": [0.1]}
    assert 'data-panel="lr"' in view.frame()
    assert repr(view) == "TrainingView: 3 layers, step 0, loss 0.5000, acc 0.2500, lr 0.1000"


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="every must be a positive int"):
        viz.TrainingView(TensorMLP(), every=0)
    with pytest.raises(TypeError, match=r"data must be \(X, y\)"):
        viz.TrainingView(TensorMLP(), data=np.zeros((3, 2)))


def test_import_viz_stays_cheap():
    code = ("import sys, viz; viz.TrainingView; "
            "print(sorted(m for m in ('matplotlib', 'IPython', 'marimo', 'torch') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_displayed_frames_keep_one_text_from_first_to_last():
    X, y = moons()
    shown = []
    view = viz.TrainingView(TensorMLP(), every=1, data=(X, y), graph=False, interval=0)
    view._show = shown.append  # (what a Jupyter handle would receive)
    for step in range(3):
        loss, acc = tensor_step(view.model, X, y)
        view.update(step, loss=loss, acc=acc)
    assert len(shown) == 3 and len({repr(f) for f in shown}) == 1
    assert repr(shown[0]) == "TrainingView of fc1, fc2, fc3, every 1 steps"
    assert len({f.html for f in shown}) == 3


def _points(html: str, panel: str) -> list[tuple[float, float]]:
    import base64
    import re

    data = re.search(rf'data-panel="{panel}"[^>]*base64,([^"]+)"', html).group(1)
    svg = base64.b64decode(data).decode()
    found = re.search(r'points="([^"]+)"', svg)
    return [tuple(map(float, p.split(","))) for p in found.group(1).split()] if found else []


def test_each_frame_draws_every_step_and_sample_recorded_so_far():
    # (the curves' arrays grow by what was appended since the last frame: each frame must
    # still show all of them, and a metric first given late is padded, not shifted)
    view = viz.TrainingView(TensorMLP(), every=2, display=None, interval=0)
    losses = [3.0, 1.0, 2.0, 0.5, 0.25, 4.0, 1.5]
    for step, loss in enumerate(losses):
        view.update(step, loss=loss, lr=0.1 if step >= 3 else None)
        html = view.frame()
        if step == 0:
            continue  # (one point is a dot)
        loss_points = _points(html, "loss")
        assert len(loss_points) == step + 1
        heights = [y for _, y in loss_points]  # svg y grows downwards
        assert np.argsort(heights).tolist() == np.argsort(-np.array(losses[:step + 1]),
                                                          kind="stable").tolist()
        if step >= 4:
            lr_points = _points(html, "lr")  # steps 3.. (NaN before: no point)
            assert [x for x, _ in lr_points] == [x for x, _ in loss_points][3:]
