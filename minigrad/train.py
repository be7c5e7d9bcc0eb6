"""Train a small model from the command line.

    python -m minigrad.train digits --model mlp --epochs 30 --seed 0 --out runs/mlp
    python -m minigrad.train digits --model cnn --epochs 15 --seed 0 --out runs/cnn
    python -m minigrad.train spirals --model mlp
    python -m minigrad.train mnist --data-root ~/data/mnist --model cnn

Prints a progress bar (tqdm, when installed) per epoch and the final test
accuracy; with ``--out DIR`` writes ``history.json``, the weights
(``model.npz``, loadable with ``model.load``) and, when matplotlib is
installed, ``curves.png``.  During the run ``DIR/last.npz`` and ``DIR/best.npz``
(the best validation accuracy) are rewritten after every epoch, so Ctrl-C keeps
both; every file is written whole or not at all.  Everything random (initialisation, shuffling,
dropout) derives from ``--seed``; the train/test split is fixed (seed 0) so
runs with different seeds are compared on the same test set.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

from . import nn, optim
from .data import (
    DataLoader,
    load_digits,
    load_mnist,
    make_moons,
    make_spirals,
    train_test_split,
)
from .files import atomic_write
from .fitting import Checkpoints, evaluate, fit, set_blas_threads

__all__ = ["main", "run", "build_model", "load_dataset", "DEFAULTS"]

# Per (dataset, model): epochs, batch size, learning rate (Adam).
DEFAULTS = {
    ("digits", "mlp"): (30, 32, 1e-3),
    ("digits", "cnn"): (15, 32, 3e-3),
    ("mnist", "mlp"): (5, 128, 1e-3),
    ("mnist", "cnn"): (3, 64, 1e-3),
    ("moons", "mlp"): (60, 32, 1e-2),
    ("spirals", "mlp"): (200, 32, 1e-2),
}


def load_dataset(name: str, data_root=None, image: bool = False):
    """``(X_train, X_test, y_train, y_test, image_shape)`` for a dataset name."""
    if name == "digits":
        X, y = load_digits(flatten=not image)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, seed=0)
        return X_tr, X_te, y_tr, y_te, (1, 8, 8)
    if name == "mnist":
        if data_root is None:
            raise SystemExit("mnist needs --data-root DIR (the four IDX files; nothing is "
                             "downloaded)")
        out = []
        for kind in ("train", "test"):
            images, labels = load_mnist(data_root, kind)
            X = images.astype(np.float32) / np.float32(255)
            out.append((X.reshape(len(X), 1, 28, 28) if image else X.reshape(len(X), -1), labels))
        (X_tr, y_tr), (X_te, y_te) = out
        return X_tr, X_te, y_tr, y_te, (1, 28, 28)
    if name in ("moons", "spirals"):
        if image:
            raise SystemExit(f"{name} is a 2-D point set: use --model mlp")
        X, y = make_moons(n=1000, noise=0.15) if name == "moons" else make_spirals(n=1500)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, seed=0)
        return X_tr, X_te, y_tr, y_te, None
    raise SystemExit(f"unknown dataset {name!r}")


def build_model(kind: str, n_in: int, n_classes: int, image_shape=None, seed: int = 0):
    """The small MLP or CNN used by the CLI (and the tests), initialised from ``seed``.

    mlp: n_in-256-128-n_classes with ReLU.  cnn: two blocks of 3x3 conv (padding 1),
    batch norm, ReLU and 2x2 max-pool (16 then 32 channels), then one linear layer.
    """
    rng = np.random.default_rng(seed)
    if kind == "mlp":
        return nn.Sequential(
            nn.Linear(n_in, 256, rng=rng), nn.ReLU(),
            nn.Linear(256, 128, rng=rng), nn.ReLU(),
            nn.Linear(128, n_classes, rng=rng),
        )
    if kind == "cnn":
        c, h, w = image_shape
        return nn.Sequential(
            nn.Conv2d(c, 16, 3, padding=1, rng=rng), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1, rng=rng), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(32 * (h // 4) * (w // 4), n_classes, rng=rng),
        )
    raise SystemExit(f"unknown model {kind!r} (mlp or cnn)")


def _checked(kind, ok, what: str):
    """An argparse type: ``kind(text)`` that passes ``ok``.  A bad value becomes
    "error: argument --epochs: ..." with the usage line, instead of a traceback deep
    in training (or a silent default)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
        return value

    return parse


_positive_int = _checked(int, lambda v: v >= 1, "a positive integer")
_nonnegative_int = _checked(int, lambda v: v >= 0, "an integer >= 0")
_positive_float = _checked(float, lambda v: math.isfinite(v) and v > 0,
                           "a positive finite number")


def _defaults_table() -> str:
    row = "  {:<8} {:<5} {:>6} {:>10} {:>8}".format
    rows = [row("dataset", "model", "epochs", "batch-size", "lr")]
    rows += [row(d, m, e, b, f"{lr:g}") for (d, m), (e, b, lr) in DEFAULTS.items()]
    return ("defaults per dataset and model (used when --epochs, --batch-size or --lr "
            "is not given):\n" + "\n".join(rows))


def _parser():
    ap = argparse.ArgumentParser(prog="python -m minigrad.train",
                                 description="Train a small model with minigrad.",
                                 epilog=_defaults_table(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset", nargs="?", default="digits",
                    choices=["digits", "mnist", "moons", "spirals"])
    ap.add_argument("--model", default="mlp", choices=["mlp", "cnn"],
                    help="mlp, or cnn for the image datasets (default mlp)")
    ap.add_argument("--epochs", type=_positive_int, default=None,
                    help="passes over the training data (default: see below)")
    ap.add_argument("--batch-size", type=_positive_int, default=None,
                    help="samples per step (default: see below)")
    ap.add_argument("--lr", type=_positive_float, default=None,
                    help="learning rate (default: see below)")
    ap.add_argument("--optimizer", default="adam", choices=["adam", "adamw", "sgd"])
    ap.add_argument("--seed", type=_nonnegative_int, default=0)
    ap.add_argument("--out", default=None, help="directory for history.json, model.npz, "
                                                "curves.png")
    ap.add_argument("--data-root", default=None, help="folder with the MNIST IDX files")
    ap.add_argument("--threads", type=int, default=1,
                    help="BLAS threads (default 1: these small matrices gain nothing from more, "
                         "and spinning BLAS threads slow a shared machine down a lot)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar or lines")
    return ap


def _check_args(ap, args) -> None:
    """Reject combinations argparse cannot see, before any data is loaded."""
    if (args.dataset, args.model) not in DEFAULTS:
        ap.error(f"{args.dataset} is a 2-D point set: use --model mlp")
    if args.dataset == "mnist":
        if args.data_root is None:
            ap.error("mnist needs --data-root DIR (the four IDX files; nothing is downloaded)")
        if not os.path.isdir(os.path.expanduser(args.data_root)):
            ap.error(f"--data-root {args.data_root}: no such directory")


def main(argv=None) -> int:
    """Console entry point (``minigrad-train``): run and return the exit status (130, as
    for any Ctrl-C, when the run was interrupted)."""
    return 130 if run(argv).get("interrupted") else 0


def run(argv=None) -> dict:
    """Parse ``argv``, train, report; returns the results (also written to history.json)."""
    ap = _parser()
    args = ap.parse_args(argv)
    _check_args(ap, args)
    if args.threads > 0:
        set_blas_threads(args.threads)
    epochs, batch_size, lr = DEFAULTS[(args.dataset, args.model)]
    epochs = args.epochs if args.epochs is not None else epochs
    batch_size = args.batch_size if args.batch_size is not None else batch_size
    lr = args.lr if args.lr is not None else lr

    try:
        X_tr, X_te, y_tr, y_te, image_shape = load_dataset(args.dataset, args.data_root,
                                                           image=args.model == "cnn")
    except (FileNotFoundError, ValueError) as exc:  # missing or corrupt MNIST files
        ap.error(str(exc))
    # Watch a validation split carved from the training data; the test set is
    # looked at once, at the end (monitoring it every epoch is how it leaks).
    X_tr, X_val, y_tr, y_val = train_test_split(X_tr, y_tr, test_size=0.1, seed=1)
    n_classes = int(max(y_tr.max(), y_te.max())) + 1
    n_in = int(np.prod(X_tr.shape[1:]))
    model = build_model(args.model, n_in, n_classes, image_shape, seed=args.seed)
    if args.optimizer == "sgd":
        optimizer = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    elif args.optimizer == "adamw":
        optimizer = optim.AdamW(model.parameters(), lr=lr)
    else:
        optimizer = optim.Adam(model.parameters(), lr=lr)
    scheduler = optim.CosineAnnealingLR(optimizer, T_max=max(epochs, 1))
    train_loader = DataLoader((X_tr, y_tr), batch_size=batch_size, shuffle=True, seed=args.seed)
    val_loader = DataLoader((X_val, y_val), batch_size=512)
    test_loader = DataLoader((X_te, y_te), batch_size=512)

    progress = not args.no_progress
    if progress:
        print(f"{args.dataset}: {len(X_tr)} train / {len(X_val)} validation / {len(X_te)} "
              f"test samples; "
              f"{model.num_parameters():,} parameters")
        print(model)
    # With --out, the last and the best model are on disk after every epoch (atomic
    # writes), so Ctrl-C at any point keeps a model.
    checkpoints = Checkpoints(model, args.out) if args.out else None
    result = {"dataset": args.dataset, "model": args.model, "seed": args.seed,
              "epochs": epochs}
    started = time.perf_counter()
    try:
        history = fit(model, optimizer, nn.CrossEntropyLoss(), train_loader, epochs,
                      val_loader=val_loader, progress=progress, scheduler=scheduler,
                      callback=checkpoints)
    except KeyboardInterrupt:
        return _interrupted(args, result, checkpoints, time.perf_counter() - started)
    seconds = time.perf_counter() - started
    test_loss, test_acc = evaluate(model, test_loader)
    print(f"test accuracy: {100 * test_acc:.2f}%  (loss {test_loss:.4f}, {epochs} epochs "
          f"in {seconds:.1f} s)")

    result.update(test_loss=test_loss, test_accuracy=test_acc, seconds=seconds,
                  history=history.to_dict())
    if args.out:
        result.update(best_epoch=checkpoints.best_epoch, best_val_acc=checkpoints.best_value)
        _write_json(args.out, result)
        model.save(os.path.join(args.out, "model.npz"))
        try:
            history.plot(os.path.join(args.out, "curves.png"))
        except ImportError:
            print("matplotlib not installed: skipped curves.png", file=sys.stderr)
        print(f"wrote {args.out}/history.json, model.npz (the last epoch's), best.npz "
              f"(epoch {checkpoints.best_epoch}, the best validation accuracy)"
              + (", curves.png" if os.path.exists(os.path.join(args.out, "curves.png")) else ""))
    return result


def _write_json(folder: str, result: dict) -> None:
    os.makedirs(folder, exist_ok=True)
    with atomic_write(os.path.join(folder, "history.json"), "w") as fh:
        json.dump(result, fh, indent=1)


def _interrupted(args, result: dict, checkpoints, seconds: float) -> dict:
    """Ctrl-C during training: say what is kept, and write the finished epochs' history."""
    done = checkpoints.last_epoch if checkpoints is not None else None
    result.update(interrupted=True, epochs_done=done or 0, seconds=seconds)
    if checkpoints is None:
        print("\ninterrupted: nothing saved (with --out DIR the last and the best model are "
              "kept after every epoch)", file=sys.stderr)
    elif done is None:
        print("\ninterrupted in epoch 1: no epoch finished, nothing saved", file=sys.stderr)
    else:
        result.update(history=checkpoints.history.to_dict(), best_epoch=checkpoints.best_epoch,
                      best_val_acc=checkpoints.best_value)
        _write_json(args.out, result)
        print(f"\ninterrupted in epoch {done + 1}: kept {checkpoints.last_path} (epoch {done}) "
              f"and {checkpoints.best_path} (epoch {checkpoints.best_epoch}, validation "
              f"accuracy {100 * checkpoints.best_value:.1f}%); history.json has the finished "
              f"epochs", file=sys.stderr)
    return result


if __name__ == "__main__":
    sys.exit(main())
