"""``viz.Stepper`` and ``viz.step_through``: watch a graph being built, then
watch its gradients flow back, one edge at a time.

>>> import viz
>>> s = viz.step_through(lambda a, b: a * b + a, 2.0, 3.0)
>>> s
<Stepper both: 15 steps (6 forward, 9 backward), 4 nodes, 4 edges>
>>> s.last(); print(s.panel.splitlines()[0])
step 15 / 15 · Backward · complete

The parts: ``Frames`` (what every step shows, computed once from the tape),
``StepperState`` (the cursor), an ``SvgTemplate`` of the graph laid out once
by ``viz.draw``, and, only when displayed in a notebook, the anywidget
(``StepperWidget``).  ``to_html()`` / ``viz.export_html`` give the same steps as
one self-contained page for slides, static viewers and sharing, run by the same
JavaScript module as the widget.
"""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import warnings
from pathlib import Path

import numpy as np

from minigrad.formatting import DIGITS

from ..render.batches import FIRST, Examples
from ..render.options import DisplayOptions, resolve
from ..render.view import grad_label, node_key, param_names
from .cursor import StepperState
from .engine_notes import Badged, unbadged
from .frames import MODES, Frames
from .memory_strip import MemoryTrack, strip_html
from .node_info import node_info
from .page import SPEEDS, default_title, player_fragment, player_html
from .recording import record_call, record_forward_mode
from .tangent_frames import MODE as TANGENT_MODE
from .tangent_frames import TangentFrames
from .template import SvgTemplate, companion_strings, svg_template
from .torch_recording import record_torch, wants_torch

__all__ = ["Stepper", "step_through", "GradText", "save_page"]

_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


class GradText:
    """The ``grad …`` text ``viz.draw`` prints in a node, for any gradient value.

    The graph is drawn once, with final gradients; at each step a node shows
    the gradient it holds *then*, written exactly as the renderer would
    (``viz.render.view.grad_label``).  A text that does not match the drawing is
    simply left alone by the template.  A ready-queue replay's gradient carries the
    node's pending count (``viz.stepper.engine_notes.Badged``), written after it:
    ``grad — · pending 2``.  A forward-mode replay writes tangents, ``word="ṫ"``:
    ``ṫ 0.4200``.
    """

    def __init__(self, digits: int = DIGITS, preview: int = 6, word: str = "grad",
                 examples: Examples = FIRST):
        self.digits, self.preview, self.word = digits, preview, word
        self.examples = examples  # inside vmap: the example the drawing shows

    def __call__(self, node, g) -> str:
        if isinstance(g, Badged):
            return f"{self(node, g.value)} · {g.note}"
        text = grad_label(node.data, g, digits=self.digits, preview=self.preview,
                          examples=self.examples)
        return text if self.word == "grad" else self.word + text[len("grad"):]


class Stepper:
    """Step through a recorded computation: forward, backward, or both.

    ``tape`` comes from ``with minigrad.record() as tape:`` (run backward
    inside the block, or ``tape.backward(loss)`` after it).  ``mode`` is
    ``"forward"`` (reveal nodes in creation order), ``"backward"`` (replay the
    chain rule edge by edge) or ``"both"``.  ``speed`` is the initial play
    speed (``"slow"``, ``"normal"``, ``"fast"``, ``"very fast"``).  Displayed, a
    stepper is a widget (``viz.stepper.widgets``, an anywidget: its step syncs with
    Python) with the standalone HTML player (``to_html(fragment=True)``) beside it as
    ``text/html``: the same markup run by the same module, which a saved notebook,
    ``jupyter nbconvert --to html`` and nbviewer show with no kernel.  (Viewers that
    strip scripts, such as GitHub's, show the graph at its first step.)  With
    ``static=True`` the output is the player alone.  ``show_ids`` writes ``#<id>`` in unnamed
    nodes, the names the panel uses for them.  ``options`` (a
    ``viz.DisplayOptions``) and the remaining keyword arguments (``viz.draw``'s:
    ``rankdir``, ``params``, ``digits``, ...; they win over ``options``) style
    both the drawing and the panel's numbers, and are checked here: an unknown
    or invalid one raises at once.  Only a missing or failing
    graphviz (or a graph over ``max_nodes``) leaves the stepper without a
    picture, with ``note`` saying why; the steps and the panel still work.
    ``modules="box"`` is refused: it would hide the nodes the steps light up.
    ``start`` is the step a display opens on: 0, the first, unless a lesson
    wants another (``-1``: the end, counted like a list index; ``None``: wherever
    the cursor is), so a cell that walks the steps with ``goto`` before showing
    the stepper still shows it from the start.

    Saved values (drawn for custom Functions, or with ``show_saved=True``)
    show as they were recorded, struck through from the step at which
    backward releases them.  ``step_through`` keeps them before its backward
    runs; for a tape whose backward already ran they are gone, and the
    "saved: released" box appears from that step on.

    ``memory=True`` adds the memory strip (``viz.stepper.memory_strip``): under the graph, the
    saved bytes alive at every step, falling as backward frees what each op saved,
    the peak marked; each step's panel ends with what it freed.

    Drive it from code as well as with the controls: ``next()``, ``prev()``,
    ``first()``, ``last()``, ``goto(i)``, ``step``; read ``panel``,
    ``classes``, ``frame``.
    """

    def __init__(self, tape, mode: str = "both", *, speed: str = "normal", static: bool = False,
                 title: str | None = None, show_ids: bool = True, svg: str | None = None,
                 options: DisplayOptions | None = None, start: int | None = 0,
                 memory: bool = False, **draw_options):
        if start is not None and (isinstance(start, bool) or not isinstance(start, int)):
            raise TypeError(f"Stepper: start must be a step number (0: the first step, -1: "
                            f"the last) or None (wherever the cursor is), got {start!r}")
        if speed not in dict(SPEEDS):
            raise ValueError(
                f"Stepper: speed must be one of {', '.join(repr(s) for s, _ in SPEEDS)}, "
                f"got {speed!r}"
            )
        _check_draw_options(draw_options)
        opts = resolve("Stepper", options, draw_options)
        if opts.modules == "box":
            raise ValueError(_NO_BOXES)
        if opts.orders != "all":
            raise ValueError(f"Stepper: orders={opts.orders!r} would hide nodes the steps "
                             f"light up; a stepper draws every order (orders='all')")
        self._user_params = opts.params
        # the names viz.draw gives parameters: scopes' qualified ones ("0.weight"),
        # overridden by params=, so the panel says what the picture shows
        names = dict(getattr(opts.scopes, "param_names", None) or {})
        names.update(param_names(self._user_params))
        forward_mode = mode == TANGENT_MODE
        self.frames = (TangentFrames if forward_mode else Frames)(tape, mode, names, options=opts)
        names = self.frames.names  # with the paths the tape recorded, each name one node's
        #: the memory strip's numbers (``memory=True``; ``viz.stepper.memory_strip``), else ``None``
        self.memory = MemoryTrack(tape, self.frames) if memory else None
        if self.memory is not None:  # every step's panel ends with its memory line
            self.frames.frames = [dataclasses.replace(f, text=f"{f.text}\n{self.memory.line(k)}")
                                  for k, f in enumerate(self.frames.frames)]
        changes = {}
        if show_ids or names:
            # name every node the panel talks about, so picture and words agree
            changes["params"] = [(self.frames.name(n), n) for n in self.frames.nodes
                                 if n.id in names or (show_ids and not n.label and (
                                     n.op is not None or n.requires_grad))]
        self.state = StepperState(self.frames)
        self.mode = mode
        self.start = start
        self.speed = speed
        self.static = static
        self.title = title
        # What each op saved, as it was when recorded: by now backward has usually
        # released it, and the replay shows the steps before that too.
        kept = _recorded_saved(tape)
        kept.update(opts.saved_values or {})
        if kept:
            changes["saved_values"] = kept
        #: the ``DisplayOptions`` the drawing and the panel use
        self.options = opts.replace(**changes)
        self.grad_text = GradText(opts.digits, opts.preview, "ṫ" if forward_mode else "grad",
                                  self.frames.view.examples)
        self._gcache: dict = {}
        self._positions = {node_key(n): i for i, n in enumerate(self.frames.nodes)}
        self._svg = svg
        self._template: SvgTemplate | None = None
        self._drawn = False
        self.note: str | None = None  # why there is no drawing (or only an overview)
        # Build the DOT text now (cheap; only the layout by graphviz waits for the first
        # display), so that a wrong option fails here, at the call, and not as a
        # stepper that silently has no graph.
        self._graph = None if svg is not None else self._dot()
        self._widget = None
        self._info: list[dict] | None = None
        self._grad_pos: list[int] = []

    @property
    def draw_options(self) -> dict:
        """The options the graph is drawn with, as ``{name: value}`` (see ``options``)."""
        return self.options.as_dict()

    # --- the drawing -------------------------------------------------------------
    @property
    def svg(self) -> str | None:
        """The graph laid out once by ``viz.draw`` (``None`` if it cannot be drawn)."""
        self._ensure_drawn()
        return self._svg

    @property
    def template(self) -> SvgTemplate | None:
        self._ensure_drawn()
        return self._template

    def _dot(self):
        """``viz.draw`` of the recorded graph, not laid out yet (``None``: too large)."""
        from ..render.draw import GraphTooLargeError, draw

        widest = self._widest_grads()
        with _showing({n: unbadged(g) for n, g in widest.items()}):
            graph = draw(self.frames.roots, options=self.options)
        try:
            # the texts a step shows, when they are not draw's own (a pending count)
            return graph.relabeled({n.id: self.grad_text(n, g) for n, g in widest.items()})
        except GraphTooLargeError as exc:  # the steps still work: on draw's overview
            # (viz.render.overview; not draw's own advice: its modules='box' is refused here)
            self.note = (f"drawn as an overview: {exc.count:,} nodes, more than max_nodes="
                         f"{exc.max_nodes}; a step on a node inside a box lights up nothing "
                         f"(record a smaller piece, or pass max_nodes=None to draw every node)")
            return graph

    def _widest_grads(self) -> dict:
        """``{node: gradient}``: for each node, the gradient (or ``None``) whose text is
        the widest it shows over the replay.  The layout is made once, so it is made
        with these: every text a step swaps in then fits its box.  (The final
        ``.grad`` will not do: a leaf the function captured, such as a module's
        weight, has its gradient set aside and restored to ``None`` by then.)"""
        codes = self.frames.grad_codes
        values = self.frames.grad_values
        widest = {}
        for pos, node in enumerate(self.frames.nodes):
            code = max(np.unique(codes[:, pos]).tolist(), key=lambda c: len(self._text(pos, c)))
            widest[node] = values[code] if code >= 0 else None
        return widest

    def _drawn_texts(self) -> dict[str, str]:
        """``{element id: gradient text}`` the drawing shows (see ``_widest_grads``)."""
        return {node_key(n): self.grad_text(n, g) for n, g in self._widest_grads().items()}

    def _ensure_drawn(self) -> None:
        if self._drawn:
            return
        self._drawn = True
        if self._svg is None:
            if self._graph is None:
                return
            try:
                self._svg = self._graph.svg()
            except RuntimeError as exc:  # no graphviz, or dot failed: keep the panel working
                text = str(exc).strip()
                self.note = f"graph not drawn: {text.splitlines()[0] if text else repr(exc)}"
                return
        drawn = self._drawn_texts() if self._graph is not None else None
        self._template = svg_template(self.frames, self._svg, self.grad_text, drawn)
        self._grad_pos = [self._positions[el] for el in self._template.grad_nodes]

    def _text(self, pos: int, code: int) -> str:
        """The gradient text of node ``pos`` holding value number ``code`` (cached)."""
        key = (pos, code)
        text = self._gcache.get(key)
        if text is None:
            value = self.frames.grad_values[code] if code >= 0 else None
            text = self._gcache[key] = self.grad_text(self.frames.nodes[pos], value)
        return text

    def _grads(self, i: int) -> dict[str, str]:
        t = self.template
        if t is None:
            return {}
        row = self.frames.grad_codes[i].tolist()
        return {el: self._text(p, row[p]) for el, p in zip(t.grad_nodes, self._grad_pos)}

    def render_svg(self, i: int | None = None) -> str | None:
        """The SVG at step ``i`` (default: the current step) with the step's classes and
        gradients written in; ``None`` without a drawing.  (A snapshot for slides or
        tests: the player restyles one SVG instead, ``viz/assets/player.js``.)"""
        t = self.template
        if t is None:
            return None
        i = self.state.step if i is None else i
        classes = self.frames.class_strings(i)
        return t.render(classes, self._grads(i), companion_strings(self.frames, t, i, classes))

    # --- moving --------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.frames)

    @property
    def step(self) -> int:
        return self.state.step

    @step.setter
    def step(self, i: int) -> None:
        self.state.goto(i)

    def goto(self, i: int) -> None:
        """Go to step ``i``; negative ``i`` counts from the end, like a list index."""
        self.state.goto(i)

    def next(self) -> None:
        self.state.next()

    def prev(self) -> None:
        self.state.prev()

    def first(self) -> None:
        self.state.first()

    def last(self) -> None:
        self.state.last()

    @property
    def frame(self):
        return self.state.frame

    @property
    def panel(self) -> str:
        """The current step in words: a title line, then the explanation."""
        return self.state.panel

    @property
    def classes(self) -> dict[str, str]:
        """``{element id: classes}`` at the current step (non-empty only)."""
        return self.state.classes

    # --- showing ---------------------------------------------------------------------
    @property
    def widget(self):
        """The notebook widget (an anywidget, built on first use; ``viz.stepper.widgets``)."""
        if self._widget is None:
            from .widgets import StepperWidget

            self._widget = StepperWidget(self)
        return self._widget

    def to_html(self, title: str | None = None, *, fragment: bool = False) -> str:
        """The standalone player: a full page, or with ``fragment=True`` a ``<div>``."""
        title = title or self.title
        if not title:
            roots = [self.frames.name(r) for r in self.frames.results]
            title = default_title(self.mode, ", ".join(roots[:3]) + (", …" if roots[3:] else ""))
        start = self._open()
        info = self.node_info()
        extra = strip_html(self.memory, start, script=False) if self.memory is not None else ""
        if fragment:
            return player_fragment(self.frames, self.template, self.grad_text, start=start,
                                   note=self.note, speed=self.speed, extra=extra, info=info)
        return player_html(self.frames, self.template, self.grad_text, title=title,
                           note=self.note, speed=self.speed, start=start, extra=extra,
                           info=info)

    def node_info(self) -> list[dict]:
        """What a click on each drawn node shows (``viz.stepper.node_info``), computed once;
        empty without a drawing."""
        if self._info is None:
            self._info = node_info(self.frames, self.options) if self.template is not None else []
        return self._info

    def _open(self) -> int:
        """Move to the step a display opens on (``start``) and return it."""
        if self.start is not None:
            self.state.goto(self.start)
        return self.state.step

    def save_html(self, path, title: str | None = None):
        """Write ``to_html()`` to ``path``; returns the path (see ``viz.export_html``)."""
        return save_page(self, path, title, stacklevel=3)

    def _repr_mimebundle_(self, include=None, exclude=None):
        # A deterministic text/plain (strict nbval compares it; it ignores widget model
        # ids), the standalone player (text/html) and, unless static=True, the widget
        # view, which a live Lab or Notebook shows in preference.  A saved notebook keeps
        # the player and drops the view (make lab's save hook, scripts/lab_save.py;
        # scripts/nb_exec.py), so a reopened lesson steps with no kernel; nbconvert too
        # would render a view in preference to text/html, and with no kernel to run it,
        # show nothing.  Both are the same markup run by the same module.
        bundle = {"text/plain": repr(self), "text/html": self.to_html(fragment=True)}
        if self.static:
            return bundle
        self._open()
        try:
            widget = self.widget
        except ImportError:  # no anywidget: the player alone
            widget = None
        if widget is not None and getattr(widget, "_view_name", None) is not None:
            bundle[_WIDGET_MIME] = {"version_major": 2, "version_minor": 0,
                                    "model_id": widget.model_id}
        return bundle

    def _display_(self):
        """marimo's display protocol (Jupyter ignores it): the widget, which marimo runs
        as an anywidget (it runs no script in HTML output, so the player would not step);
        with ``static=True``, the page in an iframe."""
        if self.static:
            import marimo as mo

            return mo.iframe(self.to_html())
        self._open()
        return self.widget

    def __repr__(self) -> str:
        f = self.frames
        nf = sum(1 for fr in f.frames if fr.phase == "forward")
        nb = len(f) - nf
        parts = []
        if nf:
            parts.append(f"{nf} forward")
        if nb:
            parts.append(f"{nb} backward")
        return (f"<Stepper {self.mode}: {len(f)} steps ({', '.join(parts)}), "
                f"{len(f.nodes)} nodes, {len(f.edges)} edges>")


def _check_draw_options(options: dict) -> None:
    """Refuse options ``viz.draw`` does not know, naming the closest one, before any drawing."""
    from ..render.draw import draw

    # (draw's title is a caption inside the picture; the Stepper's own title names the page)
    known = [p for p in inspect.signature(draw).parameters
             if p not in ("root", "title", "options")]
    for key in options:
        if key not in known:
            close = difflib.get_close_matches(key.lower().replace("-", "_"), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TypeError(
                f"Stepper: unknown option {key!r}{hint}; it takes mode, speed, static, title, "
                f"show_ids, svg and viz.draw's options: {', '.join(known)}"
            )


_NO_BOXES = (
    "Stepper: modules='box' collapses each module into one box, so the nodes and "
    "edges the steps light up are not drawn; use modules='cluster' (the default: "
    "each module's nodes framed together) or modules=None"
)


def save_page(stepper, path, title=None, *, stacklevel: int = 2):
    """Write ``stepper.to_html(title)`` to ``path``, warning when the page has no graph."""
    path = Path(path)
    page = stepper.to_html(title=title)
    if stepper.template is None:
        warnings.warn(f"{path.name}: the page has no graph, only the step-by-step panel "
                      f"({stepper.note or 'no drawing'})", RuntimeWarning, stacklevel=stacklevel)
    path.write_text(page, encoding="utf-8")
    return path


def _recorded_saved(tape) -> dict:
    """``{node id: saved values}`` the tape kept when each node was created, if it did."""
    return {e.node.id: e.saved for e in getattr(tape, "forward_events", ())
            if e.saved is not None}


def step_through(fn, *inputs, mode: str = "both", create_graph: bool | None = None,
                 second: bool = False, scheduler: str = "sorted", tangents=None,
                 **options) -> Stepper:
    """Record ``fn(*inputs)`` and its backward pass, and return a ``Stepper`` over both.

    Plain numbers become ``Value`` leaves and numpy arrays (or lists) become
    ``Tensor`` leaves with ``requires_grad=True`` (integers as float32, like
    ``Tensor([1, 2])``), created inside the recording and named after
    ``fn``'s parameters, so the forward replay shows them appear.  Graph
    nodes you pass are used as they are; their ``.grad`` is set aside while
    the recorded backward runs and put back afterwards, so the stepper shows
    this pass's gradients and your nodes keep theirs.  If one of them is an
    op's output, its graph keeps its saved values, so that graph's own
    ``backward()`` still works afterwards.  ``fn`` must return a
    scalar (a ``Value`` or a one-element ``Tensor``): backward starts from
    it.  ``options`` go to ``Stepper`` (``speed``, ``static``, ``title``) and
    ``viz.draw`` (``rankdir``, ...).

    Derivatives of derivatives: ``create_graph=True`` records a backward pass
    that *builds* the graph of the gradient (``minigrad.autograd.grad(...,
    create_graph=True)``): the replay shows each rule's new nodes appear, in
    their order's colour, as the walk reaches them.  ``second=True`` (which
    implies ``create_graph``) then steps through a backward pass of that
    gradient through its own graph: the second derivative (see
    ``viz.stepper.recording`` for several inputs).  The picture is laid out once, for
    the forward graph and the gradient's graph together.

    How the engine runs: ``scheduler="ready-queue"`` records the backward pass in
    PyTorch's order (``loss.backward(scheduler="ready-queue")``): each node shows
    how many contributions it still waits for (``grad — · pending 2``), turns
    ``ready`` when the last one arrives, and every backward step's panel ends with
    the ready queue.  A gradient hook (``register_hook``) that replaces a gradient
    gets a step of its own, in either order (``viz.stepper.engine_notes``).

    PyTorch: given torch tensors, ``step_through(f, x, w)`` runs ``f`` and
    ``step_through(loss)`` takes a torch loss's existing graph; either way PyTorch's
    own ``loss.backward()`` runs once, with hooks on every autograd Node recording the
    order its engine ran, each edge's ``grad_inputs``, the leaves' updates and pending
    counts (``viz.stepper.torch_recording``).  What that does to your graph is what a
    plain ``loss.backward()`` does: leaves' ``.grad`` accumulate, and the graph is freed
    unless you pass ``retain_graph=True``.  ``params=`` (a torch Module, a dict or pairs)
    names leaves; the panel names each Node (``MulBackward0``) with the kit's rule for
    the same op, else "PyTorch's rule".

    Forward mode: ``mode="forward-mode"`` records ``fn`` inside
    ``forward_ad.dual_level()`` with each input made dual, ``make_dual(x, t)``, its
    tangent from ``tangents`` (a tuple, one per input, as ``torch.func.jvp`` takes
    them; default: ones), and replays it: nodes appear in creation order with their
    tangent (``ṫ …`` where backward shows ``grad``), and each edge lights up with
    local derivative × incoming tangent (``viz.stepper.tangent_frames``).  The output need
    not be a scalar: its tangent is J·v.
    """
    _check_mode(mode)
    if wants_torch(fn, inputs):  # PyTorch's own backward, recorded into the same events
        if create_graph or second or scheduler != "sorted" or tangents is not None \
                or mode == TANGENT_MODE:
            raise ValueError("step_through with torch tensors records PyTorch's own backward "
                             "(its engine's order, a ready queue): create_graph, second, "
                             "scheduler, tangents and mode='forward-mode' are for minigrad "
                             "graphs")
        return _step_through_torch(fn, inputs, mode, options)
    if "retain_graph" in options:
        raise TypeError("step_through: retain_graph= is for a torch loss (PyTorch's "
                        "backward runs once); minigrad's recording keeps what it needs")
    if mode == TANGENT_MODE:
        if create_graph or second or scheduler == "ready-queue":
            raise ValueError("step_through: mode='forward-mode' runs no backward pass, so "
                             "create_graph, second and scheduler do not apply")
        tape, names = record_forward_mode(fn, inputs, tangents)
        _title(options, fn, names, mode)
        return Stepper(tape, mode=mode, **options)
    if tangents is not None:
        raise ValueError("step_through: tangents= is for mode='forward-mode' (a tangent "
                         "per input, pushed forward); backward mode starts from the output")
    if create_graph is None:
        create_graph = bool(second)
    tape, names = record_call(fn, inputs, create_graph=create_graph, second=second,
                              scheduler=scheduler)
    if not options.get("title"):
        subject = _subject(fn, names)
        options["title"] = (default_title(mode, subject) if not create_graph else
                            f"{subject}: the forward pass, then backward building the "
                            f"gradient's graph{', then its own backward' if second else ''}, "
                            f"step by step")
    return Stepper(tape, mode=mode, **options)


def _check_mode(mode) -> None:
    """Refuse an unknown ``mode`` before ``fn`` runs, naming all four (``Frames`` knows only
    the three a tape replays; ``"forward-mode"`` is recorded here), with the nearest one."""
    modes = (*MODES, TANGENT_MODE)
    if mode in modes:
        return
    close = difflib.get_close_matches(str(mode).lower().replace("_", "-"), modes, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"step_through: mode must be one of {', '.join(map(repr, modes))}, "
                     f"got {mode!r}{hint}")


def _step_through_torch(fn, inputs, mode: str, options: dict) -> Stepper:
    """``step_through`` of torch tensors (``viz.stepper.torch_recording``): run ``fn`` (or
    take the loss), record PyTorch's backward with hooks, step through it."""
    tape, names, scopes, notes = record_torch(
        fn, inputs, params=options.pop("params", None),
        retain_graph=options.pop("retain_graph", None))
    if scopes is not None and options.get("scopes") is None:
        options["scopes"] = scopes
    if not options.get("title"):
        subject = _subject(fn, names) if names or callable(fn) else "PyTorch's loss"
        options["title"] = f"{subject}: PyTorch's forward graph and its real backward, step by step"
    stepper = Stepper(tape, mode=mode, **options)
    stepper.torch_notes = notes  # what the torch graph could not say, once each
    stepper.torch_recorder = tape.recorder  # its hooks' log (gone from the graph by now)
    return stepper


def _title(options: dict, fn, names, mode: str) -> None:
    """A page title naming the call, unless one was given."""
    if not options.get("title"):
        options["title"] = default_title(mode, _subject(fn, names))


def _subject(fn, names) -> str:
    """``f(x, y)`` for a named function, ``lambda x, y`` for a lambda (whose nodes have
    only ids for names: the page would be titled "#3: ...")."""
    fname = getattr(fn, "__name__", "")
    if fname.isidentifier():
        return f"{fname}({', '.join(names)})"
    return f"lambda {', '.join(names)}"


class _showing:
    """Give nodes the gradients ``{node: grad}`` for the duration of a ``with``
    block (the drawing reads ``.grad``), and put their own back afterwards."""

    def __init__(self, grads: dict):
        self.grads = grads
        self.saved = [(n, n.grad) for n in grads]

    def __enter__(self):
        for n, g in self.grads.items():
            n.grad = g
        return self

    def __exit__(self, *exc):
        for n, g in self.saved:
            n.grad = g
        return False
