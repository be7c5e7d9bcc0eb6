"""Training plots: loss/accuracy curves, 2-D decision boundaries, gradient flow, and the
saved memory of one backward pass (``plot_memory_ledger``).

Each function builds a pyplot figure and returns it without showing it, so it
behaves like any matplotlib plot: end the cell (or script) with ``plt.show()``,
or ``fig.savefig("plot.png")``.  Pass ``ax=`` to draw into axes you already have
(``plot_history``: one Axes per panel, i.e. per quantity); the function then
draws nothing else and returns those axes' figure.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["plot_history", "plot_decision_boundary", "plot_grad_flow", "plot_memory_ledger"]

_SPLITS = ("train_", "val_", "test_")
_X_KEYS = ("epoch", "epochs", "step", "steps", "iteration")


def _figure(figsize):
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


# --------------------------------------------------------------------- history


def plot_history(history, *, keys=None, ax=None, title: str | None = None, figsize=None):
    """Curves from a training history, one panel per quantity.

    ``history`` is a dict of lists such as ``{"loss": [...], "acc": [...],
    "val_loss": [...]}`` or an object with ``.to_dict()`` returning one.
    ``val_``/``train_``/``test_`` variants share their quantity's panel
    (``loss`` and ``val_loss`` are drawn together).  An ``epoch`` or ``step``
    entry, when present, is the x axis.  ``keys`` picks and orders the entries.
    ``ax`` draws into existing axes: one Axes per panel (a single Axes, or a
    list or array of them; ``keys=["loss", "val_loss"]`` makes it one panel).
    """
    data = _history_dict(history)
    x_key = next((k for k in _X_KEYS if k in data), None)
    series = {k: v for k, v in data.items() if k != x_key}
    if keys is not None:
        missing = [k for k in keys if k not in series]
        if missing:
            raise KeyError(f"plot_history: no {missing} in the history; it has {sorted(series)}")
        series = {k: series[k] for k in keys}
    series = {k: np.asarray(v, dtype=float).ravel() for k, v in series.items() if len(v)}
    if not series:
        raise ValueError("plot_history: the history has no values to plot")

    from matplotlib.ticker import MaxNLocator

    groups: dict[str, list[str]] = {}
    for k in series:
        groups.setdefault(_base(k), []).append(k)
    if ax is None:
        fig = _figure(figsize or (4.2 * len(groups), 3.2))
        axes = fig.subplots(1, len(groups), squeeze=False)[0]
    else:
        axes = _given_axes(ax, list(groups))
        fig = axes[0].figure
    x_all = np.asarray(data[x_key], dtype=float) if x_key else None
    for ax, (base, members) in zip(axes, groups.items()):
        for k in members:
            y = series[k]
            x = x_all if x_all is not None and len(x_all) == len(y) else np.arange(1, len(y) + 1)
            ax.plot(x, y, marker="o" if len(y) <= 30 else None, markersize=3,
                    label=_split_name(k))
        ax.set_title(base)
        ax.set_xlabel(x_key or "epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
        if len(members) > 1:
            ax.legend()
    if title:
        fig.suptitle(title)
    return fig


def _given_axes(ax, panels: list[str]) -> list:
    """``ax`` as a list of Axes, one per panel (a clear error otherwise)."""
    axes = list(np.ravel(np.asarray(ax, dtype=object))) if not hasattr(ax, "plot") else [ax]
    if any(not hasattr(a, "plot") for a in axes):
        raise TypeError("plot_history: ax must be a matplotlib Axes or a list of Axes")
    if len(axes) != len(panels):
        raise ValueError(
            f"plot_history: the history makes {len(panels)} panel(s) ({', '.join(panels)}) "
            f"but ax has {len(axes)} Axes; pass one Axes per panel, or pick a quantity with "
            f"keys=[...]"
        )
    return axes


def _history_dict(history) -> dict:
    if hasattr(history, "to_dict"):
        history = history.to_dict()
    if not isinstance(history, Mapping):
        raise TypeError(
            "plot_history expects a dict of lists like {'loss': [...], 'val_loss': [...]} "
            f"or an object with .to_dict(); got {type(history).__name__}"
        )
    return dict(history)


def _base(key: str) -> str:
    for prefix in _SPLITS:
        if key.startswith(prefix):
            return key[len(prefix):]
    return key


def _split_name(key: str) -> str:
    for prefix in _SPLITS:
        if key.startswith(prefix):
            return prefix[:-1]
    return "train"


# --------------------------------------------------------------------- decision boundary


def plot_decision_boundary(
    model,
    X,
    y,
    *,
    ax=None,
    resolution: int | None = None,
    padding: float = 0.5,
    threshold: float = 0.0,
    input: str = "auto",
    title: str | None = None,
    figsize=(4.8, 4.2),
):
    """The regions a 2-D classifier assigns to each class, with the data on top.

    ``model`` is called on a grid of points covering ``X`` (shape ``(N, 2)``):
    as one ``Tensor`` of shape ``(M, 2)``, as a numpy array, or point by point
    as a list of two floats (a scalar-engine ``MLP``); ``input="auto"`` tries
    them in that order, or pick one with ``"tensor"``, ``"array"``, ``"rows"``.
    Outputs with one score per point are split at ``threshold`` (0 for logits
    or ±1 margins; pass 0.5 for probabilities); several scores per point take
    the argmax.  ``resolution`` is grid points per side (200; 50 point by point).
    """
    X = _array(X)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"plot_decision_boundary: X must have shape (N, 2), got {X.shape}")
    y = _array(y).ravel()
    if input not in ("auto", "tensor", "array", "rows"):
        raise ValueError(f"input must be 'auto', 'tensor', 'array' or 'rows', got {input!r}")
    dtype = X.dtype if np.issubdtype(X.dtype, np.floating) else np.float64
    lo, hi = X.min(axis=0) - padding, X.max(axis=0) + padding

    def grid(n):
        xs, ys = np.linspace(lo[0], hi[0], n), np.linspace(lo[1], hi[1], n)
        xx, yy = np.meshgrid(xs, ys)
        return xx, yy, np.column_stack([xx.ravel(), yy.ravel()]).astype(dtype)

    xx, yy, points = grid(resolution or 200)
    scores, how = _predict(model, points, input, lambda: grid(resolution or 50)[2])
    if how == "rows":
        xx, yy, points = grid(resolution or 50)
    classes = _classes(scores, len(points), threshold, y)

    if ax is None:
        fig = _figure(figsize)
        ax = fig.subplots()
    else:
        fig = ax.figure
    labels = np.unique(np.concatenate([y, classes.ravel()]))
    cmap, norm = _class_colors(len(labels))
    index = np.searchsorted(labels, classes).reshape(xx.shape)
    ax.contourf(xx, yy, index, levels=np.arange(len(labels) + 1) - 0.5, cmap=cmap, norm=norm,
                alpha=0.3)
    ax.scatter(X[:, 0], X[:, 1], c=np.searchsorted(labels, y), cmap=cmap, norm=norm, s=16,
               edgecolors="black", linewidths=0.4)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    if title:
        ax.set_title(title)
    return fig


def _array(x) -> np.ndarray:
    if hasattr(x, "parents") and hasattr(x, "data"):
        x = x.data
    if isinstance(x, (list, tuple)) and x and hasattr(x[0], "parents"):
        x = [v.data for v in x]
    return np.asarray(x)


def _predict(model, points, how, row_points):
    """Scores for ``points`` and the way the model accepted them."""
    from minigrad import no_grad

    attempts = {"tensor": _via_tensor, "array": _via_array, "rows": _via_rows}
    order = list(attempts) if how == "auto" else [how]
    errors = []
    with no_grad():
        for name in order:
            pts = row_points() if name == "rows" else points
            try:
                return _scores(attempts[name](model, pts), len(pts)), name
            except Exception as exc:  # try the next way of calling the model
                if how != "auto":
                    raise
                errors.append(f"{name}: {type(exc).__name__}: {exc}")
    raise TypeError(
        "plot_decision_boundary could not call the model on a grid of points; tried\n  "
        + "\n  ".join(errors)
    )


def _via_tensor(model, points):
    import minigrad

    tensor = getattr(minigrad, "Tensor", None)
    if tensor is None:
        raise TypeError("minigrad has no Tensor")
    return model(tensor(points))


def _via_array(model, points):
    return model(points)


def _via_rows(model, points):
    return [model([float(a), float(b)]) for a, b in points]


def _values(out):
    """Numbers out of nodes, lists of nodes, or arrays."""
    if hasattr(out, "parents") and hasattr(out, "data"):
        return out.data
    if isinstance(out, (list, tuple)):
        return [_values(o) for o in out]
    return out


def _scores(out, n: int) -> np.ndarray:
    out = np.asarray(_values(out), dtype=float)
    if out.ndim == 0 or out.shape[0] != n:
        raise ValueError(f"the model returned shape {out.shape} for {n} points")
    return out.reshape(n, -1)


def _classes(scores, n, threshold, y) -> np.ndarray:
    if scores.shape[1] == 1:
        binary = (scores[:, 0] > threshold).astype(int)
        labels = np.unique(y)
        if len(labels) == 2:  # e.g. targets in {-1, +1}: colour regions like the points
            return labels[binary]
        return binary
    return scores.argmax(axis=1)


def _class_colors(k: int):
    from matplotlib.colors import BoundaryNorm, ListedColormap

    palette = ["#2563eb", "#dc2626", "#16a34a", "#ea580c", "#7c3aed", "#0891b2",
               "#ca8a04", "#db2777", "#4b5563", "#65a30d"]
    colors = [palette[i % len(palette)] for i in range(max(k, 1))]
    return ListedColormap(colors), BoundaryNorm(np.arange(len(colors) + 1) - 0.5, len(colors))


# --------------------------------------------------------------------- gradient flow


def plot_grad_flow(model, *, by: str = "layer", depth: int | None = None, ax=None,
                   log: bool = True, title: str | None = None, figsize=None):
    """Mean and max ``|grad|`` per layer (or per parameter): is the gradient reaching it?

    ``model`` is a Module (``named_parameters()``), a dict ``{name: parameter
    or list of parameters}`` (one bar per entry), ``(name, parameter)``
    pairs, or a model with ``layers`` and ``parameters()``.  With
    ``by="layer"`` a Module's parameters are grouped by the module owning
    them, cut to ``depth`` levels (``None``: the shallowest level giving
    several groups, e.g. ``fc1``/``fc2`` or ``layers.0``/``layers.1``);
    ``by="parameter"`` gives one bar per named parameter.  Call it after
    ``backward()``; parameters without a gradient are marked "no grad".
    Vanishing gradients show as bars falling by orders of magnitude towards
    the input (hence the log scale).
    """
    if by not in ("layer", "parameter"):
        raise ValueError(f"plot_grad_flow: by must be 'layer' or 'parameter', got {by!r}")
    groups = _param_groups(model, by, depth)
    if not groups:
        raise ValueError("plot_grad_flow: the model has no parameters")
    names, means, maxes, missing = [], [], [], []
    for name, params in groups:
        grads = [np.abs(np.asarray(p.grad, dtype=float)).ravel()
                 for p in params if p.grad is not None]
        names.append(name)
        if grads:
            g = np.concatenate(grads)
            means.append(float(g.mean()))
            maxes.append(float(g.max()))
            missing.append(False)
        else:
            means.append(0.0)
            maxes.append(0.0)
            missing.append(True)
    if ax is None:
        fig = _figure(figsize or (max(4.0, 0.55 * len(names) + 1.5), 3.4))
        ax = fig.subplots()
    else:
        fig = ax.figure
    x = np.arange(len(names))
    ax.bar(x, maxes, width=0.8, color="#93c5fd", label="max |grad|")
    ax.bar(x, means, width=0.45, color="#1d4ed8", label="mean |grad|")
    many = len(names) > 6
    ax.set_xticks(x, [f"{n}\n(no grad)" if m else n for n, m in zip(names, missing)],
                  rotation=45 if many else 0, ha="right" if many else "center")
    if log and any(v > 0 for v in maxes):
        ax.set_yscale("log")
    ax.set_ylabel("|grad|")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title or "gradient flow")
    return fig


def _param_groups(model, by: str, depth: int | None) -> list[tuple[str, list]]:
    """``[(bar name, [parameters])]`` in the model's order."""
    if isinstance(model, Mapping):
        items = [(str(k), list(v) if isinstance(v, (list, tuple)) else [v])
                 for k, v in model.items()]
        return items
    if hasattr(model, "named_modules"):
        owned = []  # (owner path, parameter name, parameter)
        for mname, module in model.named_modules():
            for pname, p in module.named_parameters(recurse=False):
                owned.append((tuple(mname.split(".")) if mname else (), pname, p))
    elif hasattr(model, "named_parameters"):
        owned = [(tuple(n.split("."))[:-1], n.split(".")[-1], p)
                 for n, p in model.named_parameters()]
    elif hasattr(model, "layers"):
        owned = [(("layers", str(i)), f"p{j}", p) for i, layer in enumerate(model.layers)
                 for j, p in enumerate(layer.parameters())]
    elif hasattr(model, "parameters"):
        owned = [((), f"p{i}", p) for i, p in enumerate(model.parameters())]
    else:
        owned = [((), str(n), p) for n, p in model]
    if by == "parameter":
        return [(".".join(path + (name,)), [p]) for path, name, p in owned]
    if depth is None:
        depth = 1
        deepest = max((len(path) for path, _, _ in owned), default=0)
        while depth < deepest and len({path[:depth] for path, _, _ in owned}) < 2:
            depth += 1
    groups: dict[str, list] = {}
    for path, name, p in owned:
        key = ".".join(path[:depth]) if path else name
        groups.setdefault(key, []).append(p)
    return list(groups.items())


# --------------------------------------------------------------------- memory ledger

_BYTE_UNITS = ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"), (1, "B"))


def plot_memory_ledger(ledger, *, ax=None, title: str | None = None, figsize=None):
    """Saved bytes alive after each backward step, the running peak, and what each step freed.

    ``ledger`` is a ``minigrad.memory.MemoryLedger`` (``minigrad.memory.ledger(loss)``):
    step 0 is the graph before backward, step *k* after the *k*-th node visited.  The
    line falls as backward releases what each op saved; it rises where a
    checkpointed block is recomputed (those steps are marked).  With a few dozen
    steps or fewer, each is labelled with its op.
    """
    steps = getattr(ledger, "steps", None)
    if not steps:
        raise TypeError(f"plot_memory_ledger: expected a MemoryLedger (minigrad.memory.ledger), "
                        f"got {type(ledger).__name__}")
    series = ledger.series()
    top = max(max(series["peak"]), 1)
    scale, unit = next((s, u) for s, u in _BYTE_UNITS if top >= s)
    x = np.arange(len(steps))
    alive = np.asarray(series["alive"], dtype=float) / scale
    if ax is None:
        fig = _figure(figsize or (max(4.5, min(12.0, 0.28 * len(x) + 2.5)), 3.4))
        ax = fig.subplots()
    else:
        fig = ax.figure
    ax.bar(x, np.asarray(series["freed"], dtype=float) / scale, width=0.7, color="#fca5a5",
           label="freed at this step")
    ax.step(x, alive, where="mid", color="#1d4ed8", label="saved bytes alive")
    ax.plot(x, np.asarray(series["peak"], dtype=float) / scale, color="#6b7280",
            linestyle="--", label="peak so far")
    recomputed = [k for k in x[1:] if series["allocated"][k] > 0]
    if recomputed:
        ax.plot(recomputed, alive[recomputed], "o", color="#f59e0b",
                label="recomputed (checkpoint)")
    if len(x) <= 40:
        ax.set_xticks(x, ["start"] + [str(op) for op in series["op"][1:]], rotation=60,
                      ha="right")
    ax.set_xlabel("backward step")
    ax.set_ylabel(f"saved memory ({unit})")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title or "saved memory during backward")
    return fig
