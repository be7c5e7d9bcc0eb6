"""Nothing a run makes is lost: ``Checkpoints`` keeps the last and the best model after
every epoch, the CLI uses it with ``--out``, and Ctrl-C keeps both."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from minigrad import nn, optim
from minigrad.data import DataLoader
from minigrad.fitting import Checkpoints, History, fit
from minigrad.train import build_model, main, run

ARGS = ["digits", "--epochs", "4", "--batch-size", "256", "--no-progress", "--seed", "3"]
STEPS_PER_EPOCH = 6  # 1,293 training samples in batches of 256


def states_at_each_epoch(monkeypatch):
    """Record the model's weights each time Checkpoints runs (the end of an epoch)."""
    seen = {}
    original = Checkpoints.__call__

    def spy(self, epoch, history):
        seen[epoch] = {k: v.copy() for k, v in self.model.state_dict().items()}
        return original(self, epoch, history)

    monkeypatch.setattr(Checkpoints, "__call__", spy)
    return seen


def ctrl_c_at_step(monkeypatch, n):
    calls = {"n": 0}
    step = optim.Adam.step

    def interrupting(self):
        calls["n"] += 1
        if calls["n"] == n:
            raise KeyboardInterrupt
        return step(self)

    monkeypatch.setattr(optim.Adam, "step", interrupting)


def load(path):
    return build_model("mlp", 64, 10, seed=0).load(path).state_dict()


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_ctrl_c_in_epoch_3_keeps_the_models_of_epoch_2_and_the_best(tmp_path, monkeypatch,
                                                                    capsys):
    with monkeypatch.context() as m:  # the same run, not interrupted: its weights per epoch
        per_epoch = states_at_each_epoch(m)
        full = run(ARGS + ["--out", str(tmp_path / "full")])
    best = full["best_epoch"]
    assert best in (1, 2, 3, 4) and full["best_val_acc"] == max(full["history"]["val_acc"])

    ctrl_c_at_step(monkeypatch, 2 * STEPS_PER_EPOCH + 3)  # in the middle of epoch 3
    out = tmp_path / "stopped"
    assert main(ARGS + ["--out", str(out)]) == 130
    assert_same(load(out / "last.npz"), per_epoch[2])
    best_so_far = int(np.argmax(full["history"]["val_acc"][:2])) + 1
    assert_same(load(out / "best.npz"), per_epoch[best_so_far])
    saved = json.loads((out / "history.json").read_text())
    assert saved["interrupted"] is True and saved["epochs_done"] == 2
    assert saved["history"]["epoch"] == [1, 2]
    err = capsys.readouterr().err
    assert "interrupted in epoch 3" in err and "last.npz (epoch 2)" in err
    assert not any(name.endswith(".tmp") for name in os.listdir(out))


def test_ctrl_c_before_an_epoch_finished_or_without_out_says_nothing_was_saved(
        tmp_path, monkeypatch, capsys):
    ctrl_c_at_step(monkeypatch, 2)
    result = run(ARGS + ["--out", str(tmp_path / "early")])
    assert result["interrupted"] and result["epochs_done"] == 0
    assert "no epoch finished, nothing saved" in capsys.readouterr().err
    ctrl_c_at_step(monkeypatch, 2)
    assert main(ARGS) == 130
    assert "nothing saved (with --out DIR" in capsys.readouterr().err


def test_a_finished_run_keeps_last_best_and_model(tmp_path):
    result = run(ARGS + ["--out", str(tmp_path)])
    assert {"last.npz", "best.npz", "model.npz", "history.json"} <= set(os.listdir(tmp_path))
    assert_same(load(tmp_path / "last.npz"), load(tmp_path / "model.npz"))
    assert json.loads((tmp_path / "history.json").read_text())["best_epoch"] == \
        result["best_epoch"]


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 2))
    return X, (X[:, 0] > 0).astype(int)


def test_checkpoints_follow_the_monitored_metric(tmp_path):
    X, y = data()
    model = nn.Linear(2, 2, rng=np.random.default_rng(0))
    ckpt = Checkpoints(model, tmp_path, monitor="train_loss")
    history = History()
    for epoch, loss in enumerate([0.9, 0.5, 0.7], start=1):
        history.append(epoch=epoch, train_loss=loss, train_acc=0.5, val_loss=None,
                       val_acc=None, lr=0.1, seconds=0.0)
        assert ckpt(epoch, history) is False
    assert (ckpt.last_epoch, ckpt.best_epoch, ckpt.best_value) == (3, 2, 0.5)
    fit(model, optim.SGD(model.parameters(), lr=0.1), nn.CrossEntropyLoss(),
        DataLoader((X, y), batch_size=8), 2, progress=False, callback=ckpt)
    assert ckpt.last_epoch == 2


def test_checkpoints_refuse_a_missing_metric_and_a_bad_monitor(tmp_path):
    X, y = data()
    model = nn.Linear(2, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="monitor must be"):
        Checkpoints(model, tmp_path, monitor="accuracy")
    with pytest.raises(ValueError, match="no val_acc .fit without val_loader"):
        fit(model, optim.SGD(model.parameters(), lr=0.1), nn.CrossEntropyLoss(),
            DataLoader((X, y), batch_size=8), 1, progress=False,
            callback=Checkpoints(model, tmp_path))
