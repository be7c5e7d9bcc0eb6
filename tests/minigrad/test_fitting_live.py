"""fit(..., live=...): the seam through which a live view (viz.TrainingView) watches a run
without minigrad importing viz."""

import numpy as np
import pytest

import minigrad.nn.functional as F
from minigrad import fitting, nn
from minigrad.data import DataLoader, make_moons
from minigrad.fitting import fit, live_view, register_live_view
from minigrad.optim import SGD


class Recorder:
    def __init__(self, model=None, every=None, data=None):
        self.model, self.every, self.data = model, every, data
        self.calls, self.closed = [], 0

    def update(self, step, loss=None, acc=None):
        self.calls.append((step, loss, acc))

    def close(self):
        self.closed += 1


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(fitting, "_LIVE_VIEWS", [])
    return fitting._LIVE_VIEWS


def _run(live, epochs=2):
    X, y = make_moons(n=30, seed=0)
    g = np.random.default_rng(0)
    model = nn.Sequential(nn.Linear(2, 8, rng=g), nn.ReLU(), nn.Linear(8, 2, rng=g))
    loader = DataLoader((X, y), batch_size=10, shuffle=True, seed=0)
    history = fit(model, SGD(model.parameters(), lr=0.1), F.cross_entropy, loader, epochs,
                  progress=False, live=live)
    return model, loader, history


def test_a_view_object_gets_every_step_and_is_closed():
    view = Recorder()
    _, _, history = _run(view)
    assert [c[0] for c in view.calls] == list(range(6)) and view.closed == 1
    # the per-step losses average to the epoch's (equal batches of 10)
    assert np.mean([c[1] for c in view.calls[:3]]) == pytest.approx(history.train_loss[0])
    assert all(0.0 <= c[2] <= 1.0 for c in view.calls)


def test_live_true_makes_the_registered_view_with_the_data(registry):
    made = []
    register_live_view(lambda model, every, data: made.append(Recorder(model, every, data))
                       or made[-1])
    model, loader, _ = _run(True)
    assert len(made) == 1 and made[0].model is model and made[0].every == 10
    assert made[0].data is loader.dataset and made[0].closed == 1
    _run(3)
    assert made[1].every == 3


def test_a_loader_over_a_dataset_object_gives_the_view_no_data(registry):
    made = []
    register_live_view(lambda model, every, data: made.append(Recorder(model, every, data))
                       or made[-1])
    X, y = make_moons(n=20, seed=0)

    class Pairs:
        def __len__(self):
            return len(y)

        def __getitem__(self, i):
            return X[i], y[i]

    g = np.random.default_rng(0)
    model = nn.Sequential(nn.Linear(2, 4, rng=g), nn.ReLU(), nn.Linear(4, 2, rng=g))
    fit(model, SGD(model.parameters(), lr=0.1), F.cross_entropy,
        DataLoader(Pairs(), batch_size=10), 1, progress=False, live=True)
    assert made[0].data is None and len(made[0].calls) == 2


def test_live_true_with_nothing_registered_says_what_to_do(registry, monkeypatch):
    import importlib.metadata as md

    monkeypatch.setattr(md, "entry_points", lambda group: [])
    with pytest.raises(RuntimeError, match="import viz"):
        live_view(True, None)


def test_an_entry_point_is_found_when_nothing_is_registered(registry, monkeypatch):
    import importlib.metadata as md

    class Point:
        def load(self):
            return Recorder

    monkeypatch.setattr(md, "entry_points",
                        lambda group: [Point()] if group == "minigrad.live_views" else [])
    view = live_view(True, "model", data="data")
    assert isinstance(view, Recorder) and view.model == "model" and view.every == 10


def test_no_live_view_and_bad_ones():
    assert live_view(None, None) is None and live_view(False, None) is None
    with pytest.raises(TypeError, match="update"):
        live_view("yes", None)
    with pytest.raises(ValueError, match="positive"):
        live_view(0, None)
    with pytest.raises(TypeError, match="callable"):
        register_live_view("viz.TrainingView")


@pytest.mark.parametrize("first", ["import minigrad.fitting as f", "import minigrad"])
def test_importing_viz_after_minigrad_registers_training_view(first):
    import subprocess
    import sys

    code = (f"{first}; import viz; from minigrad import fitting; "
            "import numpy as np; from minigrad import nn; "
            "view = fitting.live_view(True, nn.Linear(2, 3, rng=np.random.default_rng(0))); "
            "print(type(view).__name__, view.every, 'viz.training.graph_panel' in sys.modules)")
    code = "import sys; " + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["TrainingView", "10", "True"]
