"""The overview of a big graph: repeated structure grouped, long chains folded.

A 66,000-node loss graph (a small MLP over a batch of 100 examples) drawn node by node is a
grey smear, and a 351-node ``tanh`` chain is a diagonal line of specks.  Both have far less
*structure* than nodes, and ``overview_view`` draws the structure, from the ``GraphView``
alone (so minigrad and PyTorch graphs, ``dot`` and the built-in layout, the picture and the
text tree all get the same overview):

1. **Shapes.**  Each node gets a signature: its op and its inputs' signatures, all the way
   down, with leaves reduced to their role (a parameter, an input).  Two nodes with one
   signature computed the same ops in the same arrangement, on possibly different numbers.
2. **Repeats.**  Walking from the output back, a node whose signature occurs at least
   ``REPEAT`` times starts a *unit*: it and every ancestor used only inside it (a shared
   parameter is not; an example's own inputs are).  Units with one signature and size are
   drawn as one box with their count: ``tanh × 16``, ``layers.0.neurons.* × 16 (each: 2 mul,
   2 add, relu)``, ``example × 100`` (units side by side on the same parameters: the
   batch).  The box lists what one unit holds, its own repeats included.  A group is
   named by the parameter paths its units use (``params=``, or the model in your variables).
3. **Chains.**  A run of op nodes each used only by the next is folded between its first and
   last node: ``… 349 ops: tanh``.
4. **Leaves.**  Leaves used by the same boxes are one box: ``param × 337``.

``expand=`` names groups to open (the title before ``×``, e.g. ``"example"``, or the key
``"g_2"``): one of their units is drawn, itself as an overview, beside a box for the others.
``viz.draw(root, overview=False)`` draws every node.

**Module frames.**  A model's nodes carry the scope of the module that made them
(``scopes=``: ``record_scopes()``, or a torch model), and with ``modules="cluster"`` (the
default) or ``"box"`` the overview keeps that structure, as the normal drawing does: a node
drawn as itself keeps its scope; a box sits in the frame its members' ops share, the common
ancestor of their modules (``layers.0.neurons.* × 16`` in ``layers.0``'s frame, ``example ×
100``, which runs the whole model and its loss, outside every frame); a chain folds only
within one module (a CNN's layers each stay in sight); and leaves are grouped per module at
the level where the model splits into several (``box_depth``, or ``depth=``): ``param × 48``
in ``layers.0``, ``param × 272`` in ``layers.1``.  ``modules=None`` ignores scopes.

Group boxes are view nodes with ``kind="group"``, a negative ``id`` and key ``g_<k>``
(class ``group``); their ``detail`` holds the lines under the title.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections import Counter

from .dot import box_depth
from .view import Cluster, GraphView, ViewEdge, ViewNode, collector_paused

__all__ = ["overview_view", "overview_of", "overview_title", "wants_overview", "longest_chain",
           "group_titles", "REPEAT", "FOLD", "LONG_CHAIN"]

#: a signature seen this many times starts a group (and a group has at least this many units)
REPEAT = 3
#: in an overview, chains of at least this many ops are folded
FOLD = 8
#: a graph under ``max_nodes`` still gets the overview when it has a chain this long
LONG_CHAIN = 64
_DETAIL_LINES = 5  # sub-groups listed in a box, at most
_OP_KINDS = 5  # op names listed in a summary, at most


def overview_of(view: GraphView, opts, where: str) -> GraphView:
    """``view``, or its overview when the options ``opts`` ask for one.  ``where`` is
    ``"draw"`` (``overview="auto"`` decides by size: ``wants_overview``) or the text
    tree's ``"viz.text"`` (``"auto"`` keeps every line: the text scales, a picture does not)."""
    wanted = True if opts.expand else opts.overview
    if wanted == "auto":
        wanted = where == "draw" and wants_overview(view, opts.max_nodes, opts.modules,
                                                    opts.depth)
    return overview_view(view, expand=opts.expand, modules=opts.modules,
                         depth=opts.depth) if wanted else view


def overview_title(full: GraphView) -> str:
    """The caption an overview carries when no ``title=`` is given: it is one, and the way
    out (the note under it says more)."""
    return f"overview of {len(full.nodes):,} nodes (overview=False draws every one)"


def wants_overview(view: GraphView, max_nodes: int | None, modules: str | None = None,
                   depth: int | None = None) -> bool:
    """``overview="auto"``: above ``max_nodes`` nodes, or with a chain of ``LONG_CHAIN`` ops.

    With ``modules="box"`` what counts is what is drawn: a module's nodes are one box,
    so a model collapsed into its modules is drawn as asked, whatever it holds."""
    if modules == "box":
        level = box_depth(view) if depth is None else depth
        boxes = {n.id: n.scope[:level] for n in view.nodes if len(n.scope) >= level}
        drawn = len(view.nodes) - len(boxes) + len(set(boxes.values()))
        return max_nodes is not None and drawn > max_nodes
    if max_nodes is not None and len(view.nodes) > max_nodes:
        return True
    return longest_chain(view) >= LONG_CHAIN


def longest_chain(view: GraphView) -> int:
    """The most op nodes in a run where each is used only by the next."""
    uses = Counter(p for n in view.nodes for p in n.inputs)
    run: dict[int, int] = {}
    best = 0
    for n in view.nodes:  # (topological order: inputs first)
        if n.is_leaf:
            continue
        length = 1 + max((run.get(p, 0) for p in set(n.inputs) if uses[p] == 1), default=0)
        run[n.id] = length
        best = max(best, length)
    return best


class _Graph:
    """Adjacency and signatures of a view, shared by every step below.  It depends on
    the view only, so it is made once per view (``_graph_of``); it keeps no reference
    to the view itself, which lets the cache forget it with the view."""

    def __init__(self, view: GraphView):
        self.nodes = view.nodes
        self.by_id = view.by_id
        self.order = [n.id for n in view.nodes]
        self.pos = {nid: k for k, nid in enumerate(self.order)}
        self.uses = Counter(p for n in view.nodes for p in n.inputs)  # edges out of each node
        self.roots = set(view.roots)
        table: dict[tuple, int] = {}
        self.sig: dict[int, int] = {}
        for n in view.nodes:
            head = n.op if not n.is_leaf else ("leaf", n.role)
            key = (head, n.kind, tuple([self.sig[p] for p in n.inputs]))
            self.sig[n.id] = table.setdefault(key, len(table))


@dataclasses.dataclass
class _Group:
    title: str
    detail: list
    members: set
    role: str = "intermediate"
    is_leaf: bool = False
    units: list = dataclasses.field(default_factory=list)  # (root, member ids) each
    opened: tuple = ()  # names of it that expand= opened (one unit drawn beside the box)
    frame: tuple | None = None  # the module frame it sits in (None: its members' common one)


def overview_view(view: GraphView, *, expand=(), fold: int = FOLD, modules="cluster",
                  depth: int | None = None) -> GraphView:
    """The overview of ``view`` (see the module docstring); ``expand``: group names to open;
    ``fold``: the shortest chain folded; ``modules`` and ``depth`` as ``viz.draw``'s (``None``:
    no module frames)."""
    with collector_paused():
        return _overview(view, expand, fold, modules, depth)


#: each whole-graph view's ``_Graph``: an overview drawing opens several of its groups
#: (``Graph.expanded``), each a new overview of the same view, and needs the signature
#: pass once
_GRAPHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _graph_of(view: GraphView) -> _Graph:
    g = _GRAPHS.get(view)
    if g is None:
        g = _GRAPHS[view] = _Graph(view)
    return g


def _overview(view: GraphView, expand, fold: int, modules, depth) -> GraphView:
    g = _graph_of(view)
    framed = modules is not None
    wanted = {expand} if isinstance(expand, str) else set(expand or ())
    groups: list[_Group] = []
    _repeats(g, list(g.order), set(g.roots), wanted, groups)
    claimed = {m for grp in groups for m in grp.members}
    groups += _chains(g, claimed, fold, framed)
    item = {m: -(k + 1) for k, grp in enumerate(groups) for m in grp.members}
    level = (box_depth(view) if depth is None else depth) if framed else 0
    groups += _leaf_groups(g, item, level)
    item = {m: -(k + 1) for k, grp in enumerate(groups) for m in grp.members}
    unknown = wanted - {t for grp in groups for t in _names(grp, groups)} - _opened(groups)
    if unknown:
        raise ValueError(f"expand={sorted(unknown)!r}: no group of that name in this overview; "
                         f"its groups are {group_titles(groups)}")
    return _build(view, g, groups, item, framed)


def group_titles(groups) -> list[str]:
    """The names ``expand=`` accepts: each group's title before `` ×``."""
    return sorted({grp.title.split(" ×")[0] for grp in groups if " ×" in grp.title})


def _names(grp, groups) -> set:
    return {grp.title.split(" ×")[0], f"g_{groups.index(grp) + 1}"}


def _opened(groups) -> set:
    return {name for grp in groups for name in grp.opened}


# --------------------------------------------------------------------- repeats


def _repeats(g: _Graph, subset: list, keep: set, wanted: set, groups: list) -> list:
    """Group the repeated units among ``subset`` (ids in topological order) into ``groups``;
    ``keep``: ids never grouped (the roots).  Returns the groups made here."""
    by_id = g.by_id
    inside = set(subset)
    count = Counter(g.sig[i] for i in subset if not by_id[i].is_leaf)
    claimed: set = set()
    units: dict[tuple, list] = {}
    for nid in reversed(subset):
        if nid in claimed or nid in keep or by_id[nid].is_leaf or count[g.sig[nid]] < REPEAT:
            continue
        unit = _unit(g, nid, inside, claimed)
        claimed.update(unit)
        units.setdefault((g.sig[nid], len(unit)), []).append((nid, unit))
    made = []
    for found in units.values():
        if len(found) < REPEAT:
            continue
        grp = _Group(_title(g, found), [], set(), units=found)
        name = grp.title.split(" ×")[0]
        if name in wanted:  # open it: draw its first unit (as an overview) beside the others
            first_root, first = found[0]
            grp.units = found[1:]
            grp.title = f"{name} × {len(found) - 1} more"
            grp.opened = (name,)
            _repeats(g, sorted(first, key=g.pos.__getitem__), {first_root}, wanted, groups)
        for _, unit in grp.units:
            grp.members.update(unit)
        grp.detail = _unit_detail(g, grp.units[0][1], grp.units[0][0])
        groups.append(grp)
        made.append(grp)
    return made


def _unit(g: _Graph, root: int, inside: set, claimed: set) -> set:
    """``root`` and its ancestors used only by nodes of the unit (never a shared parameter)."""
    unit = {root}
    stack = [root]
    reached: Counter = Counter()
    while stack:
        for p in g.by_id[stack.pop()].inputs:
            if p in unit or p not in inside or p in claimed or p in g.roots:
                continue
            reached[p] += 1
            if reached[p] == g.uses[p]:
                unit.add(p)
                stack.append(p)
    return unit


def _title(g: _Graph, found: list) -> str:
    """``tanh × 16``, ``example × 100``, ``layers.0.neurons.* × 16`` or ``block × 5``."""
    n = len(found)
    root, unit = found[0]
    if sum(1 for m in unit if not g.by_id[m].is_leaf) == 1:  # one op (and its own leaves)
        return f"{g.by_id[root].op} × {n}"
    used = [_params_used(g, u) for _, u in found]
    pattern = _pattern([_common_path([g.by_id[p].name for p in u if g.by_id[p].name])
                        for u in used])
    if "*" in pattern:  # the units run different modules: neurons, layers, blocks
        return f"{pattern} × {n}"
    shared = [u - unit_ for u, (_, unit_) in zip(used, found)]
    if shared[0] and all(u == shared[0] for u in shared):
        # side by side, each on the same parameters: a batch's examples (their inputs are
        # leaves of their own, or, in PyTorch's graph, not drawn at all)
        return f"example × {n}"
    return f"{pattern} × {n}" if pattern else f"block × {n}"


def _params_used(g: _Graph, unit: set) -> frozenset:
    return frozenset(p for m in unit for p in g.by_id[m].inputs if g.by_id[p].role == "param")


def _common_path(names: list) -> tuple:
    """The module path (as parts) that nine in ten of ``names`` (``layers.0.neurons.3.w.1``)
    start with: a unit that also holds the next layer's one product is still its neuron."""
    if not names:
        return ()
    split = [n.split(".")[:-1] or n.split(".") for n in names]
    need = 0.9 * len(split)
    for depth in range(max(map(len, split)), 0, -1):
        top, k = Counter(tuple(p[:depth]) for p in split if len(p) >= depth).most_common(1)[0]
        if k >= need:
            return top
    return ()


def _pattern(paths: list) -> str:
    """``layers.0.neurons.*`` from the paths of a group's units (``*`` where they differ)."""
    if not paths or not paths[0] or any(len(p) != len(paths[0]) for p in paths):
        return ""
    parts = [ps[0] if all(p == ps[0] for p in ps) else "*" for ps in zip(*paths)]
    return ".".join(parts)


def _unit_detail(g: _Graph, unit: set, root: int) -> list:
    """What one unit holds: ``each: 2 mul, 2 add, relu``, or its own repeated blocks, one
    a line, then the rest (a repeated single op is just counted with the rest)."""
    ordered = sorted(unit, key=g.pos.__getitem__)
    inner: list[_Group] = []
    _repeats(g, ordered, {root}, set(), inner)
    inner = [grp for grp in inner if len(grp.units[0][1]) > 1]
    if not inner:
        return ["each: " + _op_summary(g, ordered)]
    ops = sum(1 for i in ordered if not g.by_id[i].is_leaf)
    lines = [f"each {ops:,} ops:"]
    for grp in inner[:_DETAIL_LINES]:
        what = grp.detail[0].removeprefix("each: ").removesuffix(":")
        lines.append(f"{grp.title} ({what})")
    if len(inner) > _DETAIL_LINES:
        lines.append(f"and {len(inner) - _DETAIL_LINES} more groups")
    grouped = {m for grp in inner for m in grp.members}
    rest = [i for i in ordered if i not in grouped]
    if any(not g.by_id[i].is_leaf for i in rest):
        lines.append("and " + _op_summary(g, rest))
    return lines


def _op_summary(g: _Graph, ids) -> str:
    """``2 mul, 2 add, relu``: op names by first use, counted (leaves: ``2 inputs``)."""
    ops = Counter(g.by_id[i].op for i in ids if not g.by_id[i].is_leaf)
    leaves = sum(1 for i in ids if g.by_id[i].is_leaf)
    parts = [f"{k} {op}" if k > 1 else str(op) for op, k in list(ops.items())[:_OP_KINDS]]
    if len(ops) > _OP_KINDS:
        parts.append("…")
    if leaves:
        parts.append(f"{leaves} input{'s' if leaves > 1 else ''}")
    return ", ".join(parts)


# --------------------------------------------------------------------- chains and leaves


def _chains(g: _Graph, claimed: set, fold: int, framed: bool) -> list:
    """Fold runs of ``fold`` or more free op nodes, each used only by the next, between
    their first and last node; ``framed``: a run stays within one module's scope."""
    by_id = g.by_id
    free = [i for i in g.order if i not in claimed and not by_id[i].is_leaf]
    free_set = set(free)
    nxt: dict[int, int] = {}
    has_prev: set = set()
    for c in free:
        for p in set(by_id[c].inputs):
            if p in free_set and g.uses[p] == 1 and p not in g.roots and (
                    not framed or by_id[p].scope == by_id[c].scope):
                nxt[p] = c
                has_prev.add(c)
    out = []
    for start in free:
        if start in has_prev:
            continue
        run = [start]
        while run[-1] in nxt:
            run.append(nxt[run[-1]])
        if len(run) >= fold:
            middle = run[1:-1]
            title = f"… {len(middle):,} ops: " + ", ".join(
                dict.fromkeys(by_id[i].op for i in middle))
            out.append(_Group(title, ["a chain: each op feeds the next"], set(middle)))
    return out


def _leaf_groups(g: _Graph, item: dict, level: int) -> list:
    """Leaves (not roots, not in a unit) used by the same drawn boxes, ``REPEAT`` or more;
    with module frames (``level`` > 0) only leaves of one module cut at ``level``, whose
    frame the box sits in (``param × 48`` in ``layers.0``, not in ``layers.0.neurons``)."""
    by_key: dict[tuple, list] = {}
    users: dict[int, set] = {}
    for n in g.nodes:
        for p in n.inputs:
            users.setdefault(p, set()).add(item.get(n.id, n.id))
    for nid in g.order:
        n = g.by_id[nid]
        if n.is_leaf and nid not in item and nid not in g.roots:
            key = (n.role, n.kind, frozenset(users.get(nid, ())), n.scope[:level])
            by_key.setdefault(key, []).append(nid)
    out = []
    for (role, _, _, frame), ids in by_key.items():
        if len(ids) < REPEAT:
            continue
        names = [g.by_id[i].name for i in ids if g.by_id[i].name]
        detail = [f"{names[0]} … {names[-1]}"] if len(names) > 1 else []
        word = "param" if role == "param" else "input"
        out.append(_Group(f"{word} × {len(ids):,}", detail or ["leaves"], set(ids), role,
                          is_leaf=True, frame=frame))
    return out


# --------------------------------------------------------------------- the new view


def _build(view: GraphView, g: _Graph, groups: list, item: dict, framed: bool) -> GraphView:
    nodes: list[ViewNode] = []
    edges: list[ViewEdge] = []
    inputs: dict[int, list] = {}
    for e in view.edges:  # (child, slot) order
        c, p = item.get(e.child, e.child), item.get(e.parent, e.parent)
        if c == p:
            continue
        got = inputs.setdefault(c, [])
        if p in got and (c < 0 or p < 0):  # into or out of a box: one edge per pair
            continue
        edges.append(ViewEdge(c, p, len(got), e.output_nr if c >= 0 and p >= 0 else None))
        got.append(p)
    placed: set = set()
    for n in view.nodes:  # each box where its first member was
        k = item.get(n.id)
        if k is None:
            nodes.append(dataclasses.replace(n, inputs=tuple(inputs.get(n.id, ())),
                                             scope=n.scope if framed else ()))
        elif k not in placed:
            placed.add(k)
            grp = groups[-k - 1]
            members = [g.by_id[m] for m in grp.members]
            orders = {m.order for m in members}
            ops = sum(1 for m in members if not m.is_leaf)
            if framed and grp.frame is None:
                grp.frame = _frame_of(g, grp)
            nodes.append(ViewNode(
                k, f"g_{-k}", grp.role, grp.is_leaf, grp.role == "param", "group", None,
                grp.title, None, None, None, tiny=False, size=len(grp.members),
                inputs=tuple(inputs.get(k, ())), order=orders.pop() if len(orders) == 1 else 0,
                detail=tuple(grp.detail), scope=grp.frame if framed else (),
                holds=(ops, sum(1 for m in members if m.role == "param"))))
    shown = len(nodes)
    note = (f"Overview: {len(view.nodes):,} nodes drawn as {shown:,} (repeated structure "
            f"grouped into boxes with counts, long chains folded). "
            f"viz.draw(root, overview=False) draws every node")
    names = group_titles(groups)
    note += (f"; viz.draw(root, expand=\"name\") opens a group "
             f"({', '.join(repr(t) for t in names[:6])})." if names else ".")
    return GraphView(nodes, edges, view.roots, _frames(view, nodes), notes=(*view.notes, note))


def _frame_of(g: _Graph, grp: _Group) -> tuple:
    """The module frame a box sits in: the common ancestor of the scopes of its ops.

    A unit's root aside: a unit grows from the node that uses its result, and a neuron's
    unit ends in the next layer's one product that takes it (``_common_path``), which
    would pull every neuron's box out of its layer.  A unit's own inputs, made outside
    the model, do not count either."""
    return _common_scope(_unit_scopes(g, grp))


def _unit_scopes(g: _Graph, grp: _Group):
    """The scopes of each unit's ops but its root (the root's, for a unit of one op)."""
    for root, unit in grp.units or [(None, grp.members)]:
        found = False
        for m in unit:
            n = g.by_id[m]
            if m != root and not n.is_leaf:
                found = True
                yield n.scope
        if not found:
            yield g.by_id[root].scope


def _common_scope(scopes) -> tuple:
    """The longest path every one of ``scopes`` starts with (it stops at the first path
    that shares nothing: ``example × 100`` runs the loss, outside every module)."""
    common = None
    for scope in scopes:
        if common is None:
            common = scope
        elif scope[:len(common)] != common:
            k = 0
            while k < min(len(common), len(scope)) and common[k] == scope[k]:
                k += 1
            common = common[:k]
        if not common:
            return ()
    return common or ()


def _frames(view: GraphView, nodes: list) -> list[Cluster]:
    """The whole graph's clusters that hold a drawn item (directly or in a sub-frame), in
    the same order, each listing the items drawn directly in it.  (A box's frame is a
    prefix of its members' scopes, so the whole graph has a cluster for it.)"""
    direct: dict[tuple, list] = {}
    for n in nodes:
        if n.scope:
            direct.setdefault(n.scope, []).append(n.id)
    present = {path[:k] for path in direct for k in range(1, len(path) + 1)}
    return [Cluster(c.path, c.key, c.title, direct.get(c.path, []))
            for c in view.clusters if c.path in present]
