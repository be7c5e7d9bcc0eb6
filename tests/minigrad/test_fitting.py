"""Real training with fit, evaluate and History: digits learnt from a fixed seed, reproducibility,
the scheduler callback and progress lines, accuracy counts, the history plot."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

from minigrad import fitting, nn, optim
from minigrad.data import DataLoader
from minigrad.fitting import History, accuracy_count, evaluate, fit
from minigrad.train import build_model, load_dataset

pytestmark = pytest.mark.usefixtures("one_blas_thread")


def digits(image=False):
    X_tr, X_te, y_tr, y_te, shape = load_dataset("digits", image=image)
    return X_tr, X_te, y_tr, y_te, shape


def test_mlp_learns_digits_with_a_fixed_seed():
    X_tr, X_te, y_tr, y_te, _ = digits()
    model = build_model("mlp", 64, 10, seed=0)
    opt = optim.Adam(model.parameters(), lr=3e-3)
    history = fit(model, opt, nn.CrossEntropyLoss(),
                  DataLoader((X_tr, y_tr), batch_size=32, shuffle=True, seed=0), epochs=8,
                  val_loader=DataLoader((X_te, y_te), batch_size=256), progress=False)
    _, acc = evaluate(model, DataLoader((X_te, y_te), batch_size=256))
    assert acc >= 0.95
    assert history.val_acc[-1] == pytest.approx(acc)
    assert history.train_loss[-1] < history.train_loss[0] / 5


def test_cnn_learns_digits_with_a_fixed_seed():
    X_tr, X_te, y_tr, y_te, shape = digits(image=True)
    model = build_model("cnn", 64, 10, shape, seed=0)
    opt = optim.Adam(model.parameters(), lr=3e-3)
    fit(model, opt, None, DataLoader((X_tr, y_tr), batch_size=32, shuffle=True, seed=0),
        epochs=3, progress=False)
    assert evaluate(model, DataLoader((X_te, y_te), batch_size=256))[1] >= 0.95


def test_training_is_reproducible():
    X_tr, _, y_tr, _, _ = digits()
    results = []
    for _ in range(2):
        model = build_model("mlp", 64, 10, seed=7)
        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        h = fit(model, opt, None, DataLoader((X_tr[:256], y_tr[:256]), 32, shuffle=True, seed=7),
                epochs=2, progress=False)
        results.append((h.train_loss, model.state_dict()["4.weight"]))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_history_scheduler_callback_and_progress_lines(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # no tqdm: plain lines instead
    X, y = np.random.default_rng(0).normal(size=(40, 2)).astype(np.float32), np.arange(40) % 2
    model = nn.Sequential(nn.Linear(2, 2, seed=0))
    opt = optim.SGD(model.parameters(), lr=0.5)
    sched = optim.StepLR(opt, step_size=1, gamma=0.5)
    h = fit(model, opt, nn.CrossEntropyLoss(), DataLoader((X, y), 16), epochs=5,
            val_loader=DataLoader((X, y), 40), scheduler=sched,
            callback=lambda epoch, hist: epoch == 3)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(h) == 3 and len(lines) == 3 and lines[0].startswith("epoch 1: loss ")
    assert "| val loss" in lines[0]
    assert h.lr == [0.5, 0.25, 0.125]
    d = h.to_dict()
    assert set(d) == {"epoch", "train_loss", "train_acc", "val_loss", "val_acc", "lr", "seconds"}
    assert History.from_dict(json.loads(json.dumps(d))).to_dict() == d
    fit(model, opt, None, DataLoader((X, y), 16), epochs=1, progress=False)
    assert capsys.readouterr().out == ""


def test_evaluate_restores_the_mode_and_builds_no_graph():
    model = nn.Sequential(nn.Linear(2, 3, seed=0), nn.Dropout(0.5, seed=0))
    X, y = np.ones((4, 2), np.float32), np.zeros(4, np.int64)
    loss, acc = evaluate(model, DataLoader((X, y), 2))
    assert model.training and np.isfinite(loss) and 0 <= acc <= 1
    model.eval()
    evaluate(model, DataLoader((X, y), 2))
    assert not model.training
    assert all(p.grad is None for p in model.parameters())


def test_accuracy_count_binary_and_multiclass():
    assert accuracy_count(np.array([[0.1, 0.9], [2.0, 1.0]]), np.array([1, 1])) == 1
    assert accuracy_count(np.array([[0.3], [-1.0], [2.0]]), np.array([1, 0, 0])) == 2


def test_history_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    h = History()
    for e in range(1, 4):
        h.append(epoch=e, train_loss=1 / e, train_acc=0.5 + e / 10, val_loss=None, val_acc=None,
                 lr=0.1, seconds=0.0)
    h.plot(tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 1000


# --- progress bars that line up ----------------------------------------------------------

def test_epoch_labels_are_equally_wide_with_spaces_html_keeps():
    labels = [fitting.epoch_label(e, 20) for e in (1, 9, 10, 20)]
    assert labels[0] == "epoch \u20071/20" and labels[-1] == "epoch 20/20"
    assert len({len(label) for label in labels}) == 1
    assert not any("  " in label for label in labels)  # no ASCII run that HTML collapses


def test_a_notebook_bar_gets_a_fixed_share_of_its_row():
    """tqdm's notebook bar flexes into what its label and changing text leave; fixed, the
    bars of successive epochs line up whatever their texts say."""
    notebook = pytest.importorskip("tqdm.notebook")
    pytest.importorskip("ipywidgets")
    bars = [notebook.tqdm(total=4, desc=fitting.epoch_label(e, 10), display=False,
                          dynamic_ncols=True) for e in (9, 10)]
    for bar, postfix in zip(bars, ("loss=0.1, acc=9.0%", "loss=0.0123, acc=100.0%")):
        fitting.line_up(bar)
        bar.set_postfix_str(postfix)
    rows = [[(w.layout.flex, w.layout.min_width) for w in b.container.children] for b in bars]
    assert rows[0] == rows[1]  # the same geometry whatever the texts say
    label, progress, text = bars[0].container.children
    assert text.layout.flex == f"0 1 {fitting.TEXT_WIDTH}"  # the changing text: a fixed box
    assert progress.layout.flex == "1 1 0"  # the bar: the rest of the row
    assert bars[0].container.layout.flex_flow == "row nowrap"
    for bar in bars:
        bar.close()


def test_a_terminal_bar_is_left_alone():
    std = pytest.importorskip("tqdm")
    bar = std.tqdm(total=2, desc="epoch 1/2", file=io.StringIO())
    fitting.line_up(bar)  # no container: nothing to do, no error
    bar.close()
