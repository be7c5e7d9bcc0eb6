"""Regression tests for training: the CLI's argument errors, History files written
by the CLI and by older versions, and fit on a loader without batches."""

from __future__ import annotations

import json

import numpy as np
import pytest

from minigrad import nn, optim
from minigrad.data import DataLoader
from minigrad.fitting import History, fit
from minigrad.train import run

pytestmark = pytest.mark.usefixtures("one_blas_thread")


# ------------------------------------------------------------ CLI validation


def _cli_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as info:
        run(argv + ["--no-progress"])
    assert info.value.code == 2  # argparse's usage error, not a traceback
    return capsys.readouterr().err


@pytest.mark.parametrize("dataset", ["moons", "spirals"])
def test_cli_point_sets_with_cnn_give_a_clear_error(capsys, dataset):
    err = _cli_error(capsys, [dataset, "--model", "cnn"])
    assert f"{dataset} is a 2-D point set: use --model mlp" in err


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--batch-size", "0"], "argument --batch-size: must be a positive integer, got 0"),
        (["--batch-size", "-4"], "argument --batch-size: must be a positive integer"),
        (["--epochs", "-1"], "argument --epochs: must be a positive integer"),
        (["--epochs", "0"], "argument --epochs: must be a positive integer"),
        (["--epochs", "two"], "argument --epochs: expected a positive integer"),
        (["--lr", "-1"], "argument --lr: must be a positive finite number"),
        (["--lr", "0"], "argument --lr: must be a positive finite number"),
        (["--lr", "nan"], "argument --lr: must be a positive finite number"),
        (["--seed", "-1"], "argument --seed: must be an integer >= 0"),
        (["mnist"], "mnist needs --data-root"),
        (["mnist", "--data-root", "/nonexistent/mnist"], "/nonexistent/mnist: no such directory"),
    ],
)
def test_cli_rejects_bad_arguments(capsys, argv, match):
    assert match in _cli_error(capsys, argv)


def test_cli_missing_mnist_files_is_an_error_not_a_traceback(capsys, tmp_path):
    err = _cli_error(capsys, ["mnist", "--data-root", str(tmp_path)])
    assert "MNIST file not found" in err


def test_cli_help_lists_the_per_dataset_defaults(capsys):
    with pytest.raises(SystemExit):
        run(["--help"])
    out = capsys.readouterr().out
    assert "defaults per dataset and model" in out
    assert "spirals  mlp      200         32     0.01" in out


# ------------------------------------------------------------ History files


def test_history_load_reads_the_cli_history_json_and_its_own_format(tmp_path, capsys):
    result = run(["moons", "--epochs", "2", "--out", str(tmp_path / "run"), "--no-progress"])
    capsys.readouterr()
    h = History.load(tmp_path / "run" / "history.json")
    assert h.epoch == [1, 2] and all(type(e) is int for e in h.epoch)
    assert h.to_dict() == result["history"]
    assert json.loads((tmp_path / "run" / "history.json").read_text())["history"]["epoch"] == [
        1,
        2,
    ]
    h.save(tmp_path / "own.json")
    assert History.load(tmp_path / "own.json").to_dict() == h.to_dict()


def test_history_epochs_are_ints_even_from_old_float_files(tmp_path):
    h = History()
    h.append(epoch=1, train_loss=0.5, train_acc=0.9, val_loss=None, val_acc=None, lr=0.1,
             seconds=0.0)
    assert h.epoch == [1] and type(h.epoch[0]) is int
    assert json.dumps(h.to_dict()).startswith('{"epoch": [1]')
    old = dict(h.to_dict(), epoch=[1.0])
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert History.load(tmp_path / "old.json").epoch == [1]


# ------------------------------------------------------------ fit on an empty loader


def test_fit_rejects_a_loader_without_batches():
    X, y = np.zeros((5, 2), np.float32), np.zeros(5, np.int64)
    model = nn.Sequential(nn.Linear(2, 2, seed=0))
    opt = optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader((X, y), batch_size=8, drop_last=True)
    with pytest.raises(ValueError, match="yields no batches"):
        fit(model, opt, None, loader, epochs=2, progress=False)
    assert len(fit(model, opt, None, loader, epochs=0, progress=False)) == 0

