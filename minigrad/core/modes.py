"""Grad mode and watchers: the two questions every new node asks.

When an op makes a node, the one node constructor (``node.init_node``) asks
two questions before it writes a single slot:

1. **Is grad mode on?**  Inside ``no_grad()`` nothing is recorded: an op's
   result is a plain leaf with no history, so evaluation and optimiser updates
   cost no memory for a graph.
2. **Is anyone watching?**  A *watcher* is a function that wants to see every
   new node as it is made: a recorder (the stepper's tape), anomaly mode
   (where was it made?), a ``create_graph`` backward pass (which derivative
   order is it?), forward mode (what is its tangent?), ``saved_tensors_hooks``
   (pack what its op saved).  Each of those lives in its own module, above
   this folder; they plug in here with ``watch``, so the core never imports
   them.

Both answers are per thread (a ``threading.local``): ``no_grad()`` in one
thread must not silently stop graph building in another, as in PyTorch.

**Why the counters.**  Reading a thread-local attribute costs about 100 ns,
several times a plain lookup, and the scalar engine would pay it on every op.
So process-wide counters sit in front of it (``COUNTS``): while
``COUNTS.no_grad_threads`` and ``COUNTS.watchers`` are zero, which is the
usual case, the constructor skips the thread-local read entirely.  Their sum,
``COUNTS.detours``, is the one number the tensor operators read before they
write a node's slots inline: zero means "grad mode on everywhere, nobody
watching", the only case the inlined copy handles.
"""

from __future__ import annotations

import functools
import inspect
import threading

__all__ = ["STATE", "COUNTS", "grad_enabled", "set_grad_mode", "set_recorders", "watch",
           "unwatch", "DESCRIBE", "RECORD", "DERIVE", "STORE", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled"]

#: The stages a new node is shown to watchers in, in this order.  First what
#: *describes* it (where it was made, its derivative order), so that recorders
#: see a complete node; then the recorders; then what is *derived* from it (its
#: forward-mode tangent); last what *stores* its saved values elsewhere (packing
#: them with ``saved_tensors_hooks``, after the tangent has read them as they are).
DESCRIBE, RECORD, DERIVE, STORE = range(4)


class _PerThread(threading.local):
    # Class attributes are the defaults every new thread starts from.
    grad_enabled = True
    #: the active recorders (``autograd.record()``): they see every node made and
    #: every step of an announced backward pass (``backward.py``)
    recorders: tuple = ()
    #: ``(stage, function)`` pairs, sorted by stage: what ``node.announce`` calls
    watchers: tuple = ()
    #: while watchers see a constant leaf that an op made with no graph to record it
    #: in: that op and its inputs (``node.init_node``; forward mode still needs them)
    unrecorded = None


STATE = _PerThread()


class Counts:
    """Process-wide counts that let the usual case skip the thread-local (module doc)."""

    __slots__ = ("no_grad_threads", "watchers", "detours")

    def __init__(self):
        # (Attributes of one object with ``__slots__`` are read about as fast as a
        # global, and they say what they count, unlike one-item lists.)
        #: threads whose grad mode is off (``no_grad``)
        self.no_grad_threads = 0
        #: watchers active in any thread
        self.watchers = 0
        #: ``no_grad_threads + watchers``: zero when an op's node can be written inline
        self.detours = 0


COUNTS = Counts()
_lock = threading.Lock()


def _count(what: str, delta: int) -> None:
    """Move one count by ``delta``, and ``detours`` with it (lock held).

    The counts only ever move under the lock, together, so ``detours`` is always
    their sum; ``tests/minigrad/engines/test_choose.py`` checks it for every mode."""
    setattr(COUNTS, what, getattr(COUNTS, what) + delta)
    COUNTS.detours += delta


# --- grad mode -------------------------------------------------------------------------
def grad_enabled() -> bool:
    """True when new ops record a graph in this thread."""
    return not COUNTS.no_grad_threads or STATE.grad_enabled


def set_grad_mode(flag: bool) -> bool:
    """Set this thread's grad mode; returns the previous mode."""
    with _lock:
        prev = STATE.grad_enabled
        # Count this thread in (or out) only when its mode really changes: nested
        # ``no_grad()`` blocks would otherwise count one thread twice.
        if prev and not flag:
            _count("no_grad_threads", 1)
        elif flag and not prev:
            _count("no_grad_threads", -1)
        STATE.grad_enabled = flag
    return prev


# --- watchers --------------------------------------------------------------------------
def watch(stage: int, watcher) -> tuple:
    """Call ``watcher(node)`` for every node this thread makes, at ``stage``.

    Returns a token for ``unwatch``.  Watchers of one stage run in the order
    they started watching."""
    entry = (stage, watcher)
    with _lock:
        # A new tuple rather than a list changed in place: ``announce`` may be walking
        # the old one right now (a watcher that makes nodes), and must not see it move.
        watchers = STATE.watchers + (entry,)
        STATE.watchers = tuple(sorted(watchers, key=lambda e: e[0]))  # (a stable sort)
        _count("watchers", 1)
    return entry


def unwatch(entry: tuple) -> None:
    """Stop the watcher ``watch`` returned ``entry`` for."""
    with _lock:
        watchers = list(STATE.watchers)
        watchers.remove(entry)  # (the first equal entry: a watcher added twice stays once)
        STATE.watchers = tuple(watchers)
        _count("watchers", -1)


def set_recorders(recorders: tuple) -> tuple:
    """Make ``recorders`` this thread's recorders; returns the previous ones.

    A recorder is a watcher at the ``RECORD`` stage (its ``created(node)``),
    and it hears every step of backward besides (``backward.py``)."""
    prev = STATE.recorders
    # (a bound method compares equal to the same object's same method, so the entry
    # ``watch`` made for a recorder is found again from the recorder alone)
    for rec in prev:
        unwatch((RECORD, rec.created))
    STATE.recorders = recorders
    for rec in recorders:
        watch(RECORD, rec.created)
    return prev


# --- grad mode, as PyTorch spells it --------------------------------------------------------
def is_grad_enabled() -> bool:
    """True when new ops record a graph (the default)."""
    return grad_enabled()


class set_grad_enabled:
    """Switch graph recording on or off.

    Works both as a function call (``set_grad_enabled(False)`` switches now,
    for this thread) and as a context manager (``with set_grad_enabled(False):``
    switches for the block and restores the previous mode afterwards).
    """

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled expects a bool, got {type(mode).__name__}")
        self.mode = mode
        self.prev = set_grad_mode(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_grad_mode(self.prev)
        return False


class _GradModeContext:
    """Base for ``no_grad`` / ``enable_grad``: a context manager and a decorator.

    Both ``@no_grad()`` and ``@no_grad`` decorate (as in PyTorch): given a
    function, ``__new__`` returns the wrapped function instead of an instance.
    Each call of the wrapper enters a fresh instance, so one decorated function
    is safe to call from several threads at once.
    """

    mode = True

    def __new__(cls, fn=None):
        self = super().__new__(cls)
        if fn is None:
            return self
        if not callable(fn):
            raise TypeError(f"{cls.__name__}() takes no arguments (or, used as a bare "
                            f"decorator, a function); got {type(fn).__name__}")
        return self(fn)  # not an instance of cls, so __init__ is skipped

    def __enter__(self):
        # Remember the mode we found, not "on": ``no_grad`` inside ``no_grad`` must
        # leave grad mode off when the inner block ends.
        self.prev = set_grad_mode(self.mode)
        return self

    def __exit__(self, *exc):
        set_grad_mode(self.prev)  # restored even when the block raised
        return False  # (never swallow the exception)

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"{type(self).__name__}() decorates a function, got "
                            f"{type(fn).__name__}")
        mode = type(self)
        if inspect.isgeneratorfunction(fn):
            return _generator_in_mode(fn, mode)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with mode():
                return fn(*args, **kwargs)

        return wrapper


def _generator_in_mode(fn, mode):
    """Decorate a generator function: its body runs in ``mode`` at every resume.

    Calling a generator function only creates the generator, so wrapping the call
    alone would leave the body in the caller's mode; and holding the mode across
    ``yield`` would leak it into the caller's code between items.  So each step
    (send, throw, close) enters the mode around the generator's own code.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with mode():
                value = gen.send(None)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with mode():
                        gen.close()
                    raise
                except BaseException as exc:  # thrown in by the caller: pass it on
                    with mode():
                        value = gen.throw(exc)
                else:
                    with mode():
                        value = gen.send(sent)
        except StopIteration as stop:
            return stop.value

    return wrapper


class no_grad(_GradModeContext):
    """Build no graph inside the block (or the decorated function or generator).

    Use it for evaluation, and for parameter updates written with tensor ops:
    ``w -= lr * w.grad`` on a leaf that requires grad is refused outside it (it
    would have to be recorded), and ``w = w - lr * w.grad`` outside it makes ``w``
    a node of the old graph.  (``p.data -= ...`` works on the raw array and
    records nothing either way.)
    """

    mode = False


class enable_grad(_GradModeContext):
    """Re-enable graph recording inside a ``no_grad`` block."""

    mode = True
