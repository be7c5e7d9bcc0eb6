"""The training loop, written once: ``fit``, ``evaluate`` and the ``History`` they record.

One optimisation step is the five lines every PyTorch user knows::

    out = model(x)                 # forward: builds the graph
    loss = loss_fn(out, y)
    optimizer.zero_grad()          # leaves accumulate, so forget the last step's grads
    loss.backward()                # fills p.grad for every parameter (and frees the graph)
    optimizer.step()               # p.data -= ... in place

``fit`` repeats it over the batches of a ``DataLoader`` for some epochs and
records the mean loss and accuracy of each epoch; ``evaluate`` measures a
model without building a graph (``no_grad``) and in eval mode (dropout off,
batch norm on running statistics).  Progress shows as a tqdm bar when tqdm is
installed and as one printed line per epoch otherwise: minigrad needs numpy only.
The command-line trainer built on it is ``minigrad/train.py`` (``python -m minigrad.train``).
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from .core.modes import no_grad
from .files import atomic_write
from .tensor import Tensor

__all__ = ["History", "Checkpoints", "evaluate", "fit", "accuracy_count", "set_blas_threads",
           "register_live_view", "live_view"]


@dataclass
class History:
    """Per-epoch metrics of a ``fit`` run (lists of equal length, one entry per epoch)."""

    epoch: list = field(default_factory=list)
    train_loss: list = field(default_factory=list)
    train_acc: list = field(default_factory=list)
    val_loss: list = field(default_factory=list)
    val_acc: list = field(default_factory=list)
    lr: list = field(default_factory=list)
    seconds: list = field(default_factory=list)

    def append(self, **metrics) -> None:
        for name, value in metrics.items():
            if value is not None:
                value = int(value) if name == "epoch" else float(value)  # epoch 3, not 3.0
            getattr(self, name).append(value)

    def __len__(self) -> int:
        return len(self.epoch)

    def to_dict(self) -> dict:
        """Plain lists of numbers (``None`` for a missing value): ready for JSON or plotting."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> History:
        """Inverse of ``to_dict``; also takes the CLI's results dict, whose ``"history"`` it reads.

        ``python -m minigrad.train --out DIR`` writes the history inside a dict
        that also holds the run's settings and test score, so both files load.
        """
        if isinstance(data.get("history"), dict):
            data = data["history"]
        history = cls(**{k: list(data.get(k, [])) for k in cls.__dataclass_fields__})
        history.epoch = [int(e) for e in history.epoch]  # older files stored 1.0, 2.0, ...
        return history

    def save(self, path) -> None:
        """Write ``to_dict()`` as JSON, whole or not at all (``atomic_write``)."""
        with atomic_write(path, "w") as fh:
            json.dump(self.to_dict(), fh, indent=1)

    @classmethod
    def load(cls, path) -> History:
        """Read a file written by ``save``, or the CLI's ``history.json`` (``--out DIR``)."""
        with open(path) as fh:
            return cls.from_dict(json.load(fh))

    def summary(self) -> str:
        """The last epoch in one line, e.g. ``epoch 10: loss 0.0712 acc 98.1% | val ...``."""
        if not self.epoch:
            return "no epochs yet"
        i = -1
        text = (f"epoch {int(self.epoch[i])}: loss {self.train_loss[i]:.4f} "
                f"acc {_pct(self.train_acc[i])}")
        if self.val_loss and self.val_loss[i] is not None:
            text += f" | val loss {self.val_loss[i]:.4f} acc {_pct(self.val_acc[i])}"
        return text

    def plot(self, path=None):
        """Loss and accuracy curves with matplotlib (imported only here).

        With ``path`` the figure is drawn off-screen and saved (pyplot and its
        backend are left alone); without, it is a pyplot figure for a notebook.
        """
        if path is None:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=(9, 3.4))
        else:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(9, 3.4))
        ax_loss, ax_acc = fig.subplots(1, 2)
        for ax, key, title in ((ax_loss, "loss", "loss"), (ax_acc, "acc", "accuracy")):
            for split, style in (("train", "-"), ("val", "--")):
                values = getattr(self, f"{split}_{key}")
                points = [(e, v) for e, v in zip(self.epoch, values) if v is not None]
                if points:
                    ax.plot(*zip(*points), style, marker="o", markersize=3, label=split)
            ax.set_xlabel("epoch")
            ax.set_title(title)
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend()
        fig.tight_layout()
        if path is not None:
            kind = os.path.splitext(os.fspath(path))[1].lstrip(".") or "png"
            with atomic_write(path) as fh:
                fig.savefig(fh, dpi=120, format=kind)
        return fig


class Checkpoints:
    """A ``fit`` callback that keeps the last and the best model of a run on disk.

    After every epoch it writes ``last.npz`` and, when ``monitor`` improved (higher
    ``*_acc``, lower ``*_loss``), ``best.npz``, each whole or not at all
    (``Module.save``).  A run stopped at any point (Ctrl-C in epoch 25 of 30) keeps
    the model of its last finished epoch and its best one so far::

        ckpt = Checkpoints(model, "runs/mlp")
        fit(model, opt, loss_fn, train_loader, 30, val_loader=val_loader, callback=ckpt)
        model.load("runs/mlp/best.npz")
    """

    def __init__(self, model, folder, monitor: str = "val_acc"):
        if monitor not in ("train_loss", "train_acc", "val_loss", "val_acc"):
            raise ValueError(f"Checkpoints: monitor must be train_loss, train_acc, val_loss "
                             f"or val_acc, got {monitor!r}")
        self.model, self.folder, self.monitor = model, os.fspath(folder), monitor
        self.last_epoch = self.best_epoch = self.best_value = None
        self.history = None  # the run's History, as of the last finished epoch

    @property
    def last_path(self) -> str:
        return os.path.join(self.folder, "last.npz")

    @property
    def best_path(self) -> str:
        return os.path.join(self.folder, "best.npz")

    def __call__(self, epoch: int, history: History) -> bool:
        value = getattr(history, self.monitor)[-1]
        if value is None:
            raise ValueError(f"Checkpoints: the history has no {self.monitor} (fit without "
                             f"val_loader?); pass monitor='train_acc'")
        os.makedirs(self.folder, exist_ok=True)
        self.model.save(self.last_path)
        self.last_epoch, self.history = epoch, history
        higher = self.monitor.endswith("_acc")
        if self.best_value is None or (value > self.best_value if higher
                                       else value < self.best_value):
            self.model.save(self.best_path)
            self.best_epoch, self.best_value = epoch, value
        return False  # never stops the run


def _blas_libraries() -> list:
    """Paths of the loaded OpenBLAS libraries (Linux: from /proc/self/maps)."""
    import glob

    found = []
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.rsplit(" ", 1)[-1].strip()
                if "blas" in os.path.basename(path).lower() and path not in found:
                    found.append(path)
    except OSError:
        pass
    libs_dir = os.path.dirname(os.path.dirname(np.__file__))
    for path in glob.glob(os.path.join(libs_dir, "numpy.libs", "*openblas*")):
        if path not in found:
            found.append(path)
    return found


_SET_THREADS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                "openblas_set_num_threads64_", "openblas_set_num_threads")


def set_blas_threads(n: int) -> bool:
    """Limit numpy's OpenBLAS to ``n`` threads, even after numpy was imported.

    Small models multiply small matrices, which more threads do not speed up;
    worse, OpenBLAS threads spin while waiting, so on a busy 2-core machine a
    small CNN trains ~10x slower with 2 threads than with 1.  Uses threadpoolctl
    when installed, else calls OpenBLAS directly; returns False if neither works
    (then set ``OPENBLAS_NUM_THREADS`` before starting Python).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        threadpool_limits(limits=int(n), user_api="blas")
        return True
    import ctypes

    for path in _blas_libraries():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol in _SET_THREADS:
            setter = getattr(lib, symbol, None)
            if setter is not None:
                setter(int(n))
                return True
    return False


def _pct(x) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def accuracy_count(output: np.ndarray, targets: np.ndarray) -> int:
    """Correct predictions: argmax for (N, C) scores, sign for one logit per sample."""
    targets = np.asarray(targets)
    if output.ndim == 2 and output.shape[1] > 1:
        predicted = output.argmax(axis=1)
    else:
        predicted = (output.reshape(len(output)) > 0).astype(targets.dtype)
        targets = targets.reshape(len(targets))
    return int((predicted == targets).sum())


def _as_input(x):
    return x if isinstance(x, Tensor) else Tensor(np.asarray(x))


def _default_loss():
    from .nn.functional import cross_entropy

    return cross_entropy


def evaluate(model, loader, loss_fn=None) -> tuple[float, float]:
    """Mean loss and accuracy of ``model`` over ``loader``, in eval mode and without a graph.

    ``loss_fn`` defaults to cross-entropy; it should average over a batch (the
    usual ``reduction="mean"``): batch means are weighted by batch size.  The
    model's train/eval mode is restored afterwards.
    """
    loss_fn = loss_fn or _default_loss()
    was_training = getattr(model, "training", False)
    if hasattr(model, "eval"):
        model.eval()
    total_loss, correct, count = 0.0, 0, 0
    try:
        with no_grad():
            for xb, yb in loader:
                out = model(_as_input(xb))
                total_loss += float(loss_fn(out, yb).item()) * len(yb)
                correct += accuracy_count(out.data, yb)
                count += len(yb)
    finally:
        if was_training and hasattr(model, "train"):
            model.train()
    if count == 0:
        raise ValueError("evaluate: the loader yielded no samples")
    return total_loss / count, correct / count


# A notebook bar's row: the text right of the bar (count, times, rate, loss, accuracy)
# gets a fixed box, the bar the rest, so every epoch's bar has the same width.
TEXT_WIDTH = "60ch"
BAR_MIN_WIDTH = "25%"


def epoch_label(epoch: int, epochs: int) -> str:
    """``epoch  7/20``: padded with figure spaces (U+2007, a digit's width, which HTML
    does not collapse as it does ASCII spaces), so every epoch's label is as wide and
    the bars after them start at the same place, in a notebook as in a terminal."""
    return f"epoch {str(epoch).rjust(len(str(epochs)), chr(0x2007))}/{epochs}"


def line_up(bar) -> None:
    """Line up a notebook tqdm bar with the bars of the other epochs.

    tqdm's notebook bar is a row of three widgets: the label, the bar, and a text whose
    length changes with the rate and the postfix; the bar takes what the texts leave, so
    each epoch's bar had its own width.  Here the text gets a fixed box (its lines wrap
    inside it when long; it shrinks on a narrow page, the same for every row) and the row
    does not wrap, so the bars start and end at the same place.  A terminal bar (no
    widgets) is left alone.
    """
    container = getattr(bar, "container", None)
    children = getattr(container, "children", ())
    if len(children) != 3 or not all(hasattr(w, "layout") for w in children):
        return
    _, progress, text = children
    container.layout.flex_flow = "row nowrap"
    progress.layout.flex = "1 1 0"
    progress.layout.min_width = BAR_MIN_WIDTH
    text.layout.flex = f"0 1 {TEXT_WIDTH}"


class _Progress:
    """A tqdm bar over an epoch's batches when tqdm is installed, else nothing per batch."""

    def __init__(self, enabled, total, desc):
        self.bar = None
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, desc=desc, leave=True, dynamic_ncols=True)
                line_up(self.bar)

    def update(self, loss, acc):
        if self.bar is not None:
            self.bar.set_postfix(loss=f"{loss:.4f}", acc=f"{100 * acc:.1f}%", refresh=False)
            self.bar.update(1)

    def close(self, text):
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=True)
            self.bar.close()
            return True
        return False


# --------------------------------------------------------------------- live views
#
# The seam between the training loop and a picture of it. ``minigrad`` never imports
# ``viz`` (the layers point down), so a live view plugs in from above: ``fit(live=view)``
# takes any object with ``update(step, loss=, acc=)`` and ``close()``; ``live=True`` (or
# an int, the steps between frames) asks for a registered view factory, which
# ``viz.TrainingView`` registers when its module is imported (``import viz`` does that
# once ``minigrad`` is loaded), or, in an installed kit, finds it through the
# ``minigrad.live_views`` entry point group.

_LIVE_VIEWS: list = []
LIVE_EVERY = 10  # steps between frames for live=True


def register_live_view(factory) -> None:
    """Make ``factory(model, every=, data=)`` the view ``fit(..., live=True)`` creates."""
    if not callable(factory):
        raise TypeError(f"register_live_view: factory must be callable, got {factory!r}")
    if factory in _LIVE_VIEWS:
        _LIVE_VIEWS.remove(factory)
    _LIVE_VIEWS.append(factory)  # the latest registered wins


def _live_factory():
    if _LIVE_VIEWS:
        return _LIVE_VIEWS[-1]
    from importlib.metadata import entry_points

    for point in entry_points(group="minigrad.live_views"):
        return point.load()  # importing it registers it, and it is the factory
    raise RuntimeError(
        "fit(live=True) needs a live view, and none is registered: `import viz` (with "
        "minigrad-kit[viz] installed) registers viz.TrainingView, or pass one yourself, "
        "live=viz.TrainingView(model, every=10, data=(X, y)), or any object with "
        "update(step, loss=, acc=) and close()")


def _arrays_of(loader):
    """The loader's ``(X, y)`` when it reads two arrays (what a view can draw), else None."""
    data = getattr(loader, "dataset", None)
    if isinstance(data, tuple) and len(data) == 2 and all(hasattr(a, "shape") for a in data):
        return data
    return None


def live_view(live, model, data=None):
    """The object ``fit`` reports to: ``None`` for ``live=False``/``None``, a new view for
    ``live=True`` (every 10 steps) or an int (every ``live`` steps), else ``live`` itself,
    which must have ``update`` and ``close``."""
    if live is None or live is False:
        return None
    if live is True or (isinstance(live, int) and not isinstance(live, bool)):
        every = LIVE_EVERY if live is True else int(live)
        if every < 1:
            raise ValueError(f"fit: live={live} must be a positive number of steps")
        return _live_factory()(model, every=every, data=data)
    if not (callable(getattr(live, "update", None)) and callable(getattr(live, "close", None))):
        raise TypeError(f"fit: live must be True, a number of steps, or an object with "
                        f"update(step, loss=, acc=) and close(); got {type(live).__name__}")
    return live


def fit(model, optimizer, loss_fn, train_loader, epochs: int, val_loader=None,
        progress: bool = True, scheduler=None, callback=None, live=None) -> History:
    """Train ``model`` for ``epochs`` passes over ``train_loader``; returns the ``History``.

    Each epoch records the mean training loss and accuracy (measured on the
    fly, in training mode), the validation loss and accuracy when
    ``val_loader`` is given, the learning rate used and the epoch's duration.
    ``scheduler.step()`` runs after each epoch; ``callback(epoch, history)``
    too (return ``True`` from it to stop early).

    ``live=True`` watches the run: a live view (``viz.TrainingView`` once ``viz`` is
    imported) gets every step's loss and batch accuracy and redraws every 10 steps
    (``live=5``: every 5); ``live=view`` reports to a view you made (see ``live_view``).
    """
    if epochs < 0:
        raise ValueError(f"fit: epochs must be >= 0, got {epochs}")
    if epochs and len(train_loader) == 0:
        # Otherwise every epoch would "succeed" with loss 0 and accuracy 0.
        raise ValueError("fit: the training loader yields no batches (fewer samples than "
                         "batch_size with drop_last=True?)")
    loss_fn = loss_fn or _default_loss()
    view = live_view(live, model, _arrays_of(train_loader))
    history = History()
    step = 0
    for epoch in range(1, epochs + 1):
        model.train()
        lr = optimizer.param_groups[0]["lr"]
        started = time.perf_counter()
        bar = _Progress(progress, len(train_loader), epoch_label(epoch, epochs))
        total_loss, correct, count = 0.0, 0, 0
        for xb, yb in train_loader:
            out = model(_as_input(xb))
            loss = loss_fn(out, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            n = len(yb)
            batch_loss, batch_correct = float(loss.item()), accuracy_count(out.data, yb)
            total_loss += batch_loss * n
            correct += batch_correct
            count += n
            bar.update(total_loss / count, correct / count)
            if view is not None:
                view.update(step, loss=batch_loss, acc=batch_correct / n)
            step += 1
        if count == 0:
            raise ValueError(f"fit: the training loader yielded no samples in epoch {epoch}")
        val_loss = val_acc = None
        if val_loader is not None:
            val_loss, val_acc = evaluate(model, val_loader, loss_fn)
        history.append(epoch=epoch, train_loss=total_loss / count,
                       train_acc=correct / count, val_loss=val_loss, val_acc=val_acc,
                       lr=lr, seconds=time.perf_counter() - started)
        line = history.summary()
        if not bar.close(line.split(": ", 1)[1]) and progress:
            print(line, flush=True)
        if scheduler is not None:
            scheduler.step()
        if callback is not None and callback(epoch, history):
            break
    if view is not None:
        view.close()
    return history
