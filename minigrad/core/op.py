"""The op registry: every differentiable op is one ``Op``, defined once.

An ``Op`` says everything the rest of the kit needs to know about an op, in
keyword-only fields (``define_op(name=..., engine=..., ...)`` makes one and
registers it):

* ``forward(*xs, **attrs) -> (out, saved)`` computes the output from the
  inputs' raw data (floats or numpy arrays) and returns what backward will
  need.  What is *saved* is not the same as the *parents*: ``add`` keeps two
  parents but saves nothing, ``tanh`` saves its own output.
* The derivative, in one of two shapes:

  - ``grads``: one rule per input, ``rule(g, *saved, **attrs)``, returning that
    input's share of the gradient, ``g · ∂out/∂input`` (a vector-Jacobian
    product).  Where ``∂out/∂input = 1`` (both inputs of ``a + b``) the rule is
    ``passthrough``.
  - ``vjp``: one rule for all inputs, ``vjp(g, *saved, **attrs) -> tuple``
    with one gradient (or ``None``) per input: what a custom ``Function``'s
    ``backward`` and a variadic op such as ``cat`` naturally are.

  Either way rules never touch the parents: the engine adds their results
  in, one edge at a time, which is what lets a recorder show every edge.
* The forward-mode derivative (``jvp``, the tangent of the output given the
  tangents of the inputs, ``ṫ = Σᵢ ∂out/∂xᵢ · ṫᵢ``), in one of three shapes:

  - ``jvps``: one rule per input, ``rule(t, *saved, **attrs)``, returning that
    input's share ``∂out/∂xᵢ · t`` (``t`` in the input's shape; the result in
    the output's shape or broadcastable to it).  An input with no tangent is
    skipped.  An elementwise op needs none: its Jacobian is diagonal, hence
    symmetric, so its backward rules applied to ``t`` *are* its forward rules.
  - ``jvp``: one rule for all inputs, ``jvp(tangents, *saved, **attrs)``, with
    one tangent or ``None`` per input, returning the output's tangent.
  - ``linear=True``: the output is linear in the inputs jointly (sum, reshape,
    indexing, cat), so the tangent is the forward itself run on the tangents.
* What each saved value is called is read off the rules themselves: the parameter
  names after ``g`` (``def _sum_grad(g, shape, ...)`` saves a ``shape``), so the
  drawing says ``shape = (3, 4)`` where it would say ``saved[0]`` (``saved_names``).
  The math is written once, so its names are too: there is no table of them.
* ``symbol`` and ``formulas``: what the renderers and the step-through panel
  show, e.g. ``"×"`` and ``("∂/∂a = b", "∂/∂b = a")``, one formula per input
  (a variadic op gives one formula that speaks of every input, ``xₖ``).
* ``cases(rng) -> [(inputs, attrs), ...]``: concrete inputs where the op is
  smooth, for the registry-wide tests.  A scalar op may give ``domain``, a
  safe range per input, instead; its cases are drawn from it.
* Facts the tensor engine uses to take shortcuts, each checked by a test
  that walks the registry: ``elementwise`` (the output is computed element by
  element from inputs broadcast to one shape, so each rule returns a gradient
  in the output's shape and dtype), ``ufunc`` and ``saves`` (the op *is* one
  numpy ufunc, keeping ``"nothing"``, its ``"inputs"`` or its ``"output"``),
  ``float_only`` (integer inputs are cast to float32 first) and ``promote``
  (mixed dtypes are promoted as PyTorch does, for all inputs or a slice).
* Facts for derivatives of derivatives (``create_graph=True``, see
  ``engines/higher_order.py``): ``constant_saves`` says that what the forward saves,
  beyond its inputs and output, is piecewise constant in the inputs (a mask, the
  weights of tied maxima, a dropout mask), so the gradient's graph may use it
  as a constant; ``twice_differentiable=False`` marks an op whose rules cannot
  run on graph nodes yet: a ``create_graph`` pass through it is a clear error.

* ``batch(*xs, **attrs) -> (out, saved)``, optional: the forward for a batch of
  examples (``vmap``, see ``minigrad/batching``).  Most ops need none: their
  forward runs on batched arrays as written, numpy's calls reaching the batching
  rules through its protocols, and so do their backward and forward-mode rules.
  An op whose forward cannot (it writes into a plain array it made, or reads
  values into Python) or runs badly that way (a convolution: fold the batch into
  its own N axis instead) gives ``batch``, which gets the same arguments as
  ``forward`` with some of them ``BatchedArray``s.  An op with neither runs once
  per example, with a warning naming it (``batched_forward``).

Adding an op is one ``define_op`` call: the engines, the renderers, the
stepper and the gradient tests find it here with no further code.

**Internal ops.**  The library also makes ops for its own bookkeeping: the node
of an unpacked saved value, a multi-output op's output slots, forward mode's
``make_dual`` and ``primal``, a compiled trace, a fused chain, a checkpointed
block.  They are not math a student defines, so they stay out of
``registered_ops()`` (and out of ``get_op``: their names can never collide with
a user's op), but every one of them is declared here, so the tests that walk
the table see them too:

* a *fixed* internal op is ``define_op(..., internal=True)``, listed by
  ``internal_ops()``;
* an op made *per call* (one per compiled trace, per fused chain) is made by
  ``internal_op(family, ...)``, which refuses a family that has no example;
* every internal op, fixed or per call, has an *example*: ``@op_example(name)``
  on a function that returns ``OpExample`` records, each one op with test inputs
  (``cases``), how to build a node of it from leaves (``call``; by default the
  op itself through ``apply_op``), the same value computed without it
  (``plain``), and the registry checks that do not apply to it, each with its
  reason (``skip``).  ``op_examples()`` builds them all.

``Op(...)`` itself is for this module and for tests: elsewhere in ``minigrad``
an op is made by one of the functions above (``tests/minigrad/ops/test_internal_ops.py``
checks the source).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .standin import StandInRefused, per_example

__all__ = ["Op", "OpExample", "define_op", "passthrough", "no_gradient", "register", "get_op",
           "registered_ops", "register_internal", "internal_ops", "internal_op", "op_example",
           "op_examples", "batched_forward", "SAVES", "ENGINES"]

#: the engines an op can belong to: floats (``Value``), arrays (``Tensor``), or a
#: custom ``Function``, which runs on whichever engine its inputs come from
ENGINES = ("scalar", "tensor", "custom")

#: what a one-ufunc op keeps for backward, by position: nothing (add, neg: the rules
#: need only g), its inputs (mul: each rule needs the other input) or its output
#: (exp, tanh: the slope is a function of the output)
SAVES = ("nothing", "inputs", "output")


def passthrough(g, *saved, **attrs):
    """The rule of an input whose local derivative is 1: ``g · 1 = g``, unchanged.

    ``a + b`` sends its upstream gradient to both inputs as it is, and ``a − b``
    to ``a``.  It is one named function, not a ``lambda g: g`` per op, so that
    the fast engine can spot it and pass ``g`` on without a Python call (about
    a tenth of backward's time in a chain of tiny ops).  The reference engine,
    gradcheck and a student's own engine call it like any other rule.
    """
    return g


def no_gradient(g, *saved, **attrs):
    """The rule of an input that gets no gradient (integer class targets, a boolean
    condition): ``None``, which every engine skips, so nothing flows along that edge."""
    return None


@dataclass(frozen=True, eq=False, kw_only=True)
class Op:
    """One differentiable op (see the module doc for what each field means)."""

    name: str
    engine: str
    symbol: str
    forward: Callable[..., tuple[Any, tuple]] | None = None
    formulas: tuple[str, ...]
    grads: tuple[Callable[..., Any], ...] = ()
    vjp: Callable[..., tuple] | None = None
    jvps: tuple[Callable[..., Any], ...] = ()
    jvp: Callable[..., Any] | None = None
    linear: bool = False
    variadic: bool = False
    infix: bool = False
    cases: Callable[..., list] | None = None
    domain: tuple[tuple[float, float], ...] | None = None
    label: Callable[[dict], str] | None = None
    doc: str = ""
    elementwise: bool = False
    ufunc: Any = None
    saves: str | None = None
    float_only: bool = False
    promote: bool | slice = False
    constant_saves: bool = False
    twice_differentiable: bool = True
    batch: Callable[..., tuple[Any, tuple]] | None = None
    function: type | None = field(default=None, repr=False)

    def __post_init__(self):
        where = f"op {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Op: name must be a non-empty str, got {self.name!r}")
        if self.engine not in ENGINES:
            raise ValueError(f"{where}: engine must be one of {ENGINES}, got {self.engine!r}")
        if isinstance(self.formulas, str) or not all(isinstance(f, str) for f in self.formulas):
            raise TypeError(f"{where}: formulas must be a tuple of str, one per input")
        if isinstance(self.grads, list):
            object.__setattr__(self, "grads", tuple(self.grads))
        if (self.vjp is None) == (not self.grads):
            raise TypeError(f"{where}: give either grads (one rule per input) or one vjp")
        if isinstance(self.jvps, list):
            object.__setattr__(self, "jvps", tuple(self.jvps))
        if sum((bool(self.jvps), self.jvp is not None, self.linear)) > 1:
            raise TypeError(f"{where}: give at most one forward-mode rule: jvps (one per "
                            f"input), one jvp, or linear=True")
        if self.jvps and self.grads and len(self.jvps) != len(self.grads):
            raise ValueError(f"{where}: {len(self.jvps)} forward rules (jvps) for "
                             f"{len(self.grads)} inputs: give one per input")
        if self.jvps and self.variadic:
            raise TypeError(f"{where}: a variadic op takes one jvp, not a rule per input")
        if self.grads and self.variadic:
            raise TypeError(f"{where}: a variadic op has no fixed number of inputs, so it "
                            f"takes one vjp, not a rule per input")
        wanted = 1 if self.variadic else self.arity
        if wanted is not None and len(self.formulas) != wanted:
            raise ValueError(f"{where}: {len(self.formulas)} formulas for {wanted} "
                             f"input{'s' * (wanted != 1)}: give one formula per input"
                             f"{' (one for all inputs of a variadic op)' * self.variadic}")
        if self.saves is not None and self.saves not in SAVES:
            raise ValueError(f"{where}: saves must be one of {SAVES}, got {self.saves!r}")
        if self.ufunc is not None:
            if self.saves is None:
                raise TypeError(f"{where}: a ufunc op says what it saves (saves=...)")
            if self.forward is None:
                object.__setattr__(self, "forward", _ufunc_forward(self.name, self.ufunc,
                                                                   self.saves))
        if self.forward is None and self.engine != "custom":
            raise TypeError(f"{where}: give a forward (or a ufunc)")
        if self.domain is not None:
            if len(self.domain) != self.arity:
                raise ValueError(f"{where}: one domain (lo, hi) per input")
            if self.cases is None:
                object.__setattr__(self, "cases", _domain_cases(self.domain))

    @property
    def arity(self) -> int | None:
        """Number of inputs (parents) the op takes; ``None`` for any number (variadic, or a
        custom Function, whose inputs are whatever ``apply`` is given)."""
        if self.grads:
            return len(self.grads)
        return None if self.variadic or self.engine == "custom" else len(self.formulas)

    @property
    def formula(self) -> str:
        """All the formulas on one line, as the lessons print them."""
        return ",  ".join(self.formulas)

    def __call__(self, *inputs, **attrs):
        """The op as a function: on numbers or arrays it computes (its forward's output);
        given a graph node it records, through the node's engine (``apply_op``).

        This is how one op's rule uses another op and stays twice differentiable:
        ``getitem``'s rule is ``SCATTER_ADD(g, ...)``, which on the raw arrays of a
        first-order pass just computes, and in a ``create_graph`` pass, where ``g``
        is a Tensor, is a recorded node whose own rule is ``getitem`` again.
        """
        for x in inputs:
            cls = getattr(x, "engine_class", None)
            if cls is not None:
                return cls.apply(self, *inputs, **attrs)
        try:
            return self.forward(*inputs, **attrs)[0]
        except StandInRefused:  # a batch (inside vmap) this forward cannot take
            return batched_forward(self, inputs, attrs)[0]

    def saved_names(self, count: int) -> tuple[str, ...] | None:
        """The names of the ``count`` values this op's forward saved, read off its rules.

        Every rule is called as ``rule(g, *saved, **attrs)``, so a rule written
        ``def grad(g, shape, axis=None, keepdims=False)`` names its first saved value
        ``shape`` (``axis`` and ``keepdims`` come in as settings, past ``count``).  A
        rule ending in ``*lengths`` names the rest ``lengths[0]``, ``lengths[1]`` ...
        Rules that say nothing (``passthrough``, ``*saved``) are skipped; if no rule
        speaks, if one cannot name them all, or if two disagree, the answer is
        ``None`` and a reader shows the index instead (``saved[0]``).  A custom
        ``Function``'s values are PyTorch's ``saved_tensors[k]``.
        """
        if self.function is not None:
            return tuple(f"saved_tensors[{k}]" for k in range(count))
        # Each rule that speaks gives one full answer; they must all give the same one
        # (``div``'s two rules both say ``(b, out)``; a rule past ``count`` lists the
        # settings it takes as keywords, which are not saved values).
        found = set()
        for names, rest in self._rule_params:
            if len(names) < count and rest is None:
                return None  # the rule takes the rest as ``*saved``: it does not say
            found.add(names[:count] + tuple(f"{rest}[{k}]" for k in range(count - len(names))))
        return found.pop() if len(found) == 1 else None

    @cached_property
    def _rule_params(self) -> list:
        """``(names, rest)`` of each rule that names what it takes, read once per op:
        the positional parameters after ``g``, and the name of a ``*rest`` (``None``
        when there is none, or when it is the convention's own ``*saved``)."""
        out = []
        for rule in self.grads or (self.vjp,):
            try:
                params = list(inspect.signature(rule).parameters.values())[1:]
            except (TypeError, ValueError):  # (a builtin with no signature says nothing)
                continue
            # stop at the first parameter that cannot be filled by position: a
            # ``*rest`` (which names what is left) or a keyword-only setting
            names, rest = [], None
            for p in params:
                if p.kind is p.VAR_POSITIONAL:
                    rest = None if p.name == "saved" else p.name
                if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    break
                names.append(p.name)
            if names or rest:
                out.append((tuple(names), rest))
        return out

    def display(self, attrs: dict | None = None) -> str:
        """Short text for a graph node: the symbol, refined by attrs when the op says how."""
        if self.label is not None and attrs:
            return self.label(attrs)
        return self.symbol

    def __repr__(self) -> str:
        return f"<Op {self.engine}.{self.name} '{self.symbol}'>"


def batched_forward(op: Op, inputs, attrs) -> tuple:
    """``op``'s forward on inputs of which some are batches (inside ``vmap``), when its
    own forward refused them: its ``batch`` rule, else one call per example, stacked."""
    if op.batch is not None:
        return op.batch(*inputs, **attrs)
    return per_example(f"op '{op.name}'", lambda *xs: op.forward(*xs, **attrs), tuple(inputs))


def _ufunc_forward(name, ufunc, saves):
    """The forward of a one-ufunc op: call it, keep what ``saves`` says.  (``Tensor``'s
    operators run the same ufunc inline; ``tests/minigrad/ops`` compares the two paths.)"""
    keep = SAVES.index(saves)

    def forward(*xs):
        out = ufunc(*xs)
        return out, (xs if keep == 1 else (out,) if keep == 2 else ())

    forward.__name__ = f"{name}_forward"
    forward.__doc__ = f"``{getattr(ufunc, '__name__', ufunc)}`` of the inputs; saves {saves}."
    return forward


def _domain_cases(domain, n=20):
    """``cases(rng)`` for a scalar op: ``n`` input tuples drawn uniformly from ``domain``."""

    def cases(rng):
        return [(tuple(float(rng.uniform(lo, hi)) for lo, hi in domain), {})
                for _ in range(n)]

    return cases


_REGISTRY: dict[tuple[str, str], Op] = {}


def register(op: Op) -> Op:
    """Add ``op`` to the registry; registering the same (engine, name) twice is an error."""
    key = (op.engine, op.name)
    if key in _REGISTRY:
        raise ValueError(f"op {op.engine}.{op.name} is already registered")
    _REGISTRY[key] = op
    return op


def define_op(*, internal: bool = False, **fields) -> Op:
    """Define an op (the keyword fields of ``Op``) and register it: the one way to add one.

    >>> CUBE = define_op(name="cube", engine="scalar", symbol="³",
    ...                  forward=lambda x: (x ** 3, (x,)),
    ...                  grads=(lambda g, x: g * 3 * x * x,),
    ...                  formulas=("∂/∂x = 3x²",), domain=((-2.0, 2.0),))

    ``internal=True`` declares one of the library's own bookkeeping ops instead (see
    the module doc): it goes to ``internal_ops()``, not ``registered_ops()``.
    """
    op = Op(**fields)
    return register_internal(op) if internal else register(op)


def get_op(name: str, engine: str = "scalar") -> Op:
    """Look an op up by name, e.g. ``get_op("mul", "tensor")``."""
    try:
        return _REGISTRY[(engine, name)]
    except KeyError:
        known = ", ".join(sorted(n for e, n in _REGISTRY if e == engine))
        raise KeyError(f"no {engine} op named {name!r}; known: {known}") from None


def registered_ops(engine: str | None = None) -> Iterator[Op]:
    """All registered ops, optionally of one engine, in registration order."""
    return (op for (e, _), op in _REGISTRY.items() if engine is None or e == engine)


# --- the library's own ops (see "Internal ops" in the module doc) ----------------------------
_INTERNAL: dict[tuple[str, str], Op] = {}
_EXAMPLES: dict[str, Callable[[], list]] = {}


@dataclass(frozen=True, eq=False, kw_only=True)
class OpExample:
    """An internal op as the registry tests run it.

    * ``op``: the op (for a per-call family, one op of it, made by the example);
    * ``cases(rng) -> [(inputs, attrs), ...]``: raw float64 inputs, as an op's ``cases``;
    * ``call(*leaves, **attrs)``: a node made by ``op`` from the inputs as graph
      leaves; ``None``: ``apply_op(op, *leaves, **attrs)``;
    * ``plain(*leaves, **attrs)``: the same value computed without ``op``, for the
      forward check; ``None``: ``op``'s own forward on the raw inputs;
    * ``skip``: ``{check: why it does not apply}``, checks named ``"float32"``,
      ``"second_order"``, ``"forward_mode"`` (the tests say what each one runs).
    """

    op: Op
    cases: Callable[..., list]
    call: Callable[..., Any] | None = None
    plain: Callable[..., Any] | None = None
    skip: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.op.engine}.{self.op.name}"


def register_internal(op: Op) -> Op:
    """Add one of the library's own fixed ops to the internal table (keyed apart from the
    user's table, so a user's op may share its name)."""
    key = (op.engine, op.name)
    if key in _INTERNAL:
        raise ValueError(f"internal op {op.engine}.{op.name} is already declared")
    _INTERNAL[key] = op
    return op


def internal_ops(engine: str | None = None) -> Iterator[Op]:
    """The library's fixed internal ops, optionally of one engine, in declaration order."""
    return (op for (e, _), op in _INTERNAL.items() if engine is None or e == engine)


def op_example(name: str):
    """Decorator: declare ``factory() -> [OpExample, ...]`` for internal ops ``name`` (a fixed
    op's name, or a per-call family's).  It is called only by ``op_examples()``."""

    def declare(factory):
        if name in _EXAMPLES:
            raise ValueError(f"an example for internal op {name!r} is already declared")
        _EXAMPLES[name] = factory
        return factory

    return declare


def internal_op(family: str, **fields) -> Op:
    """An op made per call (a compiled trace, a fused chain), of a family that has an example
    (``op_example(family)``): not registered, since each call makes a new one."""
    if family not in _EXAMPLES:
        raise LookupError(f"internal op family {family!r} has no example: declare one with "
                          f"@op_example({family!r}) so the registry tests can run it")
    return Op(**fields)


def op_examples() -> list[OpExample]:
    """Every declared example, built now (a family's may trace or compile a function)."""
    return [example for factory in _EXAMPLES.values() for example in factory()]
