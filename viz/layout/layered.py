"""A layered graph layout in pure Python: pictures without graphviz's ``dot``.

``layout()`` places boxes of given sizes for a directed graph the way ``dot``
does (Sugiyama's recipe), in four simple, deterministic steps:

1. **ranks**: each node one rank after its latest input (longest path), a node
   with more outputs than inputs (a leaf, a saved value) just before its first
   consumer; then ``viz.layout.rank`` shortens the edges in total, as dot does,
   so a neuron's products each sit just before the sum that takes them instead
   of all in one crowded rank.  A cycle (a module box used twice) is broken by
   drawing its back edge reversed.
2. **dummies**: an edge spanning several ranks gets an invisible node in each
   rank it crosses: it has its own lane and never runs through a box.
3. **order** (``viz.layout.crossings``): barycenter sweeps, down and up, keeping
   the order with the fewest crossings.  Module clusters are sorted as
   blocks, so their members stay together in every rank, and sibling clusters
   keep one order in all ranks (a cluster's rectangle must not cover an outsider).
4. **coordinates**: bottom-up over the cluster tree.  At each level the items
   (nodes, dummies, whole child clusters as rigid blocks) are packed along the
   cross axis, then pulled toward the median of their neighbours by sweeps
   that keep the order and the minimum gaps: a forward sweep sets each item to
   ``max(lowest allowed, wanted)`` after its predecessors, a backward sweep
   ``min(highest allowed, wanted)`` after its successors, so each sweep ends
   with all gaps respected; the two results are averaged (still respecting
   them), which keeps either direction from pushing the drawing to one side.
   Every item also stays within the block's narrowest width, its widest rank
   packed: an item has as much room as that rank leaves it, so pulling items
   toward their neighbours never makes the picture wider than it must be.

Everything is computed along a *rank axis* (the flow of the edges) and a
*cross axis*, then mapped to x/y for ``rankdir`` (LR, RL, TB, BT).
"""

from __future__ import annotations

from dataclasses import dataclass

from .crossings import RankOrder, block_of, is_a
from .rank import tighten

__all__ = ["layout", "Layout", "Route", "NODESEP", "RANKSEP", "PAD", "ARROW"]

NODESEP = 16.0  # cross-axis gap between neighbours in a rank
RANKSEP = 36.0  # rank-axis gap between ranks
DUMMY = 6.0  # cross-axis room of an edge passing through a rank
PAD = 8.0  # from a cluster's border to its members
ARROW = 7.0  # arrowhead length
ROUNDS = 8  # coordinate sweeps (forward and backward, averaged)


@dataclass
class Route:
    """An edge's path: ``points`` are cubic Bézier pieces ``p0 c1 c2 p1 c1 c2 p2 …``
    in x/y; ``tip`` is where its arrowhead points (``None``: no arrowhead)."""

    points: list
    tip: tuple | None


@dataclass
class Layout:
    width: float
    height: float
    boxes: dict  # key -> (x, y, w, h), top-left corner
    routes: list  # one Route per edge given (None for a self-loop)
    clusters: dict  # scope path -> (x, y, w, h)


def layout(sizes: dict, edges: list, *, scopes: dict | None = None, rankdir: str = "LR",
           labels: dict | None = None, arrows: list | None = None) -> Layout:
    """Place ``sizes`` (``{key: (w, h)}``) for ``edges`` (``(src, dst)`` pairs).

    ``scopes`` (``{key: path tuple}``) puts nodes in nested clusters; ``labels``
    (``{path: (w, h)}``) are the sizes of their titles, kept free inside each
    cluster's top-left corner; ``arrows`` says per edge whether it gets an arrowhead (default all).
    """
    if rankdir not in ("LR", "RL", "TB", "BT"):
        raise ValueError(f"layout: rankdir must be LR, RL, TB or BT, got {rankdir!r}")
    return _Layered(sizes, edges, scopes or {}, rankdir, labels or {},
                    arrows if arrows is not None else [True] * len(edges)).run()


def _lca(a: tuple, b: tuple) -> tuple:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _median(values: list) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


class _Layered:
    def __init__(self, sizes, edges, scopes, rankdir, labels, arrows):
        self.keys = list(sizes)
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.horizontal = rankdir in ("LR", "RL")
        self.rankdir = rankdir
        self.labels = labels
        self.label_h = max((h for _, h in labels.values()), default=0.0)
        self.edges = edges
        self.arrows = arrows
        self.scope = {k: tuple(scopes.get(k, ())) for k in self.keys}
        self.ext = {}  # rank-axis extent
        self.cross = {}  # cross-axis extent
        for k, (w, h) in sizes.items():
            self.ext[k], self.cross[k] = (w, h) if self.horizontal else (h, w)

    def run(self) -> Layout:
        self._rank()
        self._chains()
        self._clusters()
        self._order()
        size, offs, rects = self._place(())
        return self._finish(size, offs, rects)

    # ----------------------------------------------------------------- 1. ranks
    def _rank(self) -> None:
        out = {k: [] for k in self.keys}
        for i, (a, b) in enumerate(self.edges):
            if a != b:
                out[a].append((b, i))
        self.flipped = set()  # edges drawn against the flow (they closed a cycle)
        state = dict.fromkeys(self.keys, 0)
        for start in self.keys:  # iterative DFS: an edge into the current path is a back edge
            if state[start]:
                continue
            state[start] = 1
            stack = [(start, iter(out[start]))]
            while stack:
                node, it = stack[-1]
                for nxt, i in it:
                    if state[nxt] == 1:
                        self.flipped.add(i)
                    elif state[nxt] == 0:
                        state[nxt] = 1
                        stack.append((nxt, iter(out[nxt])))
                        break
                else:
                    state[node] = 2
                    stack.pop()
        self.flow = []  # (edge index, from, to) along the ranks
        for i, (a, b) in enumerate(self.edges):
            if a != b:
                self.flow.append((i, b, a) if i in self.flipped else (i, a, b))
        succ = {k: [] for k in self.keys}
        pred = {k: [] for k in self.keys}
        for _, a, b in self.flow:
            succ[a].append(b)
            pred[b].append(a)
        indeg = {k: len(pred[k]) for k in self.keys}
        ready = [k for k in self.keys if not indeg[k]]
        topo = []
        while ready:  # Kahn, in the order the nodes were given
            k = ready.pop(0)
            topo.append(k)
            for s in succ[k]:
                indeg[s] -= 1
                if not indeg[s]:
                    ready.append(s)
        rank = {}
        for k in topo:
            rank[k] = max((rank[p] + 1 for p in pred[k]), default=0)
        for k in reversed(topo):  # pull sources (and fan-out nodes) toward their consumers
            if succ[k] and len(succ[k]) > len(pred[k]):
                rank[k] = max(rank[k], min(rank[s] for s in succ[k]) - 1)
        self.rank = tighten(rank, [(a, b) for _, a, b in self.flow])
        self.nranks = max(self.rank.values()) + 1

    # ----------------------------------------------------------------- 2. dummies
    def _chains(self) -> None:
        self.chain = {}  # edge index -> items from its tail to its head, one per rank
        for i, a, b in self.flow:
            items = [a] + [("~", i, r) for r in range(self.rank[a] + 1, self.rank[b])] + [b]
            self.chain[i] = items
            for d in items[1:-1]:
                self.rank[d] = d[2]
                self.ext[d], self.cross[d] = 0.0, DUMMY
        self.segments = [(c[j], c[j + 1]) for c in self.chain.values() for j in range(len(c) - 1)]

    def _clusters(self) -> None:
        """Cluster spans, dummy scopes, and placeholders keeping every cluster present
        in each rank it spans (its rectangle covers them all)."""
        self.span = {(): (0, self.nranks - 1)}
        for k in self.keys:
            s = self.scope[k]
            for d in range(1, len(s) + 1):
                lo, hi = self.span.get(s[:d], (self.rank[k], self.rank[k]))
                self.span[s[:d]] = (min(lo, self.rank[k]), max(hi, self.rank[k]))
        for i, a, b in self.flow:
            sa, sb = self.scope[a], self.scope[b]
            common = _lca(sa, sb)
            inner = [s[:n] for s in (sa, sb) for n in range(len(s), len(common), -1)]
            for d in self.chain[i][1:-1]:  # the deepest cluster of an end spanning its rank
                self.scope[d] = next((p for p in inner
                                      if self.span[p][0] <= d[2] <= self.span[p][1]), common)
        self.children = {p: [] for p in self.span}
        for p in sorted(self.span, key=lambda p: (len(p), min(
                (self.index[k] for k in self.keys if self.scope[k][:len(p)] == p), default=0))):
            if p:
                self.children[p[:-1]].append(p)
        present = {(p, self.rank[it]) for it in self.scope for p in self._prefixes(self.scope[it])}
        for p, (lo, hi) in self.span.items():
            for r in range(lo, hi + 1):
                if p and (p, r) not in present:
                    ph = ("#", p, r)
                    self.scope[ph], self.rank[ph] = p, r
                    self.ext[ph], self.cross[ph] = 0.0, 0.0

    @staticmethod
    def _prefixes(s: tuple):
        return (s[:d] for d in range(len(s) + 1))

    # ----------------------------------------------------------------- 3. order
    def _order(self) -> None:
        def first_key(it):  # creation order; a dummy right after its edge's tail
            if is_a(it, "~"):
                return self.index[self.chain[it[1]][0]] + 0.5
            return self.index.get(it, 0)

        order = [[] for _ in range(self.nranks)]
        for it in sorted(self.scope, key=first_key):
            order[self.rank[it]].append(it)
        self.order = RankOrder(order, self.scope, self.segments).run()

    # ----------------------------------------------------------------- 4. coordinates
    def _place(self, level: tuple):
        """``(size, offsets, rects)`` of cluster ``level`` along the cross axis: its
        block's size, each item's centre and each sub-cluster's ``(start, size)``,
        measured from the block's start."""
        kids = {("@",) + c: self._place(c) for c in self.children[level]}
        inside = [it for it in self.scope if self.scope[it][:len(level)] == level]
        member = set(inside)
        rep = {it: block_of(self.scope[it], it, level) for it in inside}

        def att(it):  # where an item sits relative to the centre of its representative
            block = kids.get(rep[it])
            return block[1][it] - block[0] / 2 if block else 0.0

        size = {r: kids[r][0] if r in kids else self.cross[r] for r in dict.fromkeys(rep.values())}
        nb: dict = {r: [] for r in size}
        for a, b in self.segments:
            if a in member and b in member and rep[a] != rep[b]:
                nb[rep[a]].append((rep[b], att(b) - att(a)))
                nb[rep[b]].append((rep[a], att(a) - att(b)))
        before: dict = {r: [] for r in size}
        after: dict = {r: [] for r in size}
        first: dict = {}
        for o in self.order:
            seq = []
            for it in o:
                if it in member and (not seq or seq[-1] != rep[it]):
                    seq.append(rep[it])
            for a, b in zip(seq, seq[1:]):
                gap = (size[a] + size[b]) / 2 + NODESEP
                after[a].append((b, gap))
                before[b].append((a, gap))
            for j, r in enumerate(seq):
                first.setdefault(r, (len(first), j))
        indeg = {r: len(before[r]) for r in size}
        ready = sorted((r for r in size if not indeg[r]), key=first.get)
        topo = []
        while ready:
            r = ready.pop(0)
            topo.append(r)
            for s, _ in after[r]:
                indeg[s] -= 1
                if not indeg[s]:
                    ready.append(s)
        least, right = {}, {}  # each centre's least distance from the block's start, and end
        for r in topo:
            least[r] = max([size[r] / 2] + [least[p] + g for p, g in before[r]])
        for r in reversed(topo):
            right[r] = max([size[r] / 2] + [right[s] + g for s, g in after[r]])
        width = max((least[r] + right[r] for r in topo), default=0.0)  # the widest rank, packed
        most = {r: width - right[r] for r in topo}
        x = dict(least)

        def wanted(x, r):
            return _median([x[j] + d for j, d in nb[r]]) if nb[r] else x[r]

        for _ in range(ROUNDS):  # the mean of two feasible placements is feasible
            down, up = dict(x), dict(x)
            for r in topo:
                down[r] = min(most[r], max([wanted(down, r)] + [down[p] + g
                                                               for p, g in before[r]]))
            for r in reversed(topo):
                up[r] = max(least[r], min([wanted(up, r)] + [up[s] - g for s, g in after[r]]))
            x = {r: (down[r] + up[r]) / 2 for r in x}
        lo = min((x[r] - size[r] / 2 for r in size), default=0.0)
        hi = max((x[r] + size[r] / 2 for r in size), default=0.0)
        pad_lo = pad_hi = 0.0
        total = hi - lo
        if level:
            pad_lo = PAD + (self.label_h if self.horizontal else 0.0)
            pad_hi = PAD
            total = total + pad_lo + pad_hi
            if not self.horizontal:
                total = max(total, self.labels.get(level, (0.0, 0.0))[0] + 2 * PAD)
        offs, rects = {}, {}
        for r in size:
            start = x[r] - size[r] / 2 - lo + pad_lo
            if r in kids:
                offs.update({it: start + o for it, o in kids[r][1].items()})
                rects[r[1:]] = (start, size[r])
                rects.update({p: (start + s, n) for p, (s, n) in kids[r][2].items()})
            else:
                offs[r] = start + size[r] / 2
        return total, offs, rects

    def _finish(self, cross_size, offs, rects) -> Layout:
        thick = [0.0] * self.nranks
        for it, r in self.rank.items():
            thick[r] = max(thick[r], self.ext[it])
        unit = PAD + (0.0 if self.horizontal else self.label_h)
        height_lo, height_hi = {}, {}  # how many clusters nest inside, ending at the same rank
        for p in sorted(self.span, key=len, reverse=True):
            (lo, hi), kids = self.span[p], self.children[p]
            height_lo[p] = max((height_lo[c] + 1 for c in kids if self.span[c][0] == lo), default=0)
            height_hi[p] = max((height_hi[c] + 1 for c in kids if self.span[c][1] == hi), default=0)
        before = [0.0] * self.nranks  # room the clusters starting at rank r need before it
        after = [0.0] * self.nranks  # and the ones ending there after it
        for p, (lo, hi) in self.span.items():
            if p:
                before[lo] = max(before[lo], unit * (1 + height_lo[p]))
                after[hi] = max(after[hi], PAD * (1 + height_hi[p]))
        start = self._starts(thick, before, after)
        if self.horizontal:  # a title wider than its cluster: room after the cluster's last rank
            extra: dict = {}
            for p in sorted(self.span, key=len, reverse=True):
                if not p:
                    continue
                lo, hi = self.span[p]
                r0 = start[lo] - unit * (1 + height_lo[p])
                r1 = start[hi] + thick[hi] + PAD * (1 + height_hi[p])
                need = r0 + self.labels.get(p, (0.0, 0.0))[0] + 2 * PAD - r1
                extra[p] = max([need, 0.0] + [extra[c] for c in self.children[p]
                                              if self.span[c][1] == hi])
                after[hi] = max(after[hi], PAD * (1 + height_hi[p]) + extra[p])
            start = self._starts(thick, before, after)
        rank_size = start[-1] + thick[-1] + after[-1]
        centre = {it: start[r] + thick[r] / 2 for it, r in self.rank.items()}
        boxes = {}
        for k in self.keys:
            rc, cc = centre[k] - self.ext[k] / 2, offs[k] - self.cross[k] / 2
            boxes[k] = self._rect(rc, cc, self.ext[k], self.cross[k], rank_size, cross_size)
        clusters = {}
        for p, (cs, cn) in rects.items():
            lo, hi = self.span[p]
            r0 = start[lo] - unit * (1 + height_lo[p])
            r1 = start[hi] + thick[hi] + PAD * (1 + height_hi[p])
            if self.horizontal:
                r1 = max(r1, r0 + self.labels.get(p, (0.0, 0.0))[0] + 2 * PAD)
            clusters[p] = self._rect(r0, cs, r1 - r0, cn, rank_size, cross_size)
        routes = [None] * len(self.edges)
        ports = self._ports(offs)
        for i, chain in self.chain.items():
            a, b = chain[0], chain[-1]
            arrow = ARROW if self.arrows[i] else 0.0
            head_cut = 0.0 if i in self.flipped else arrow
            tail_cut = arrow if i in self.flipped else 0.0
            # straight within a rank's column (to its edge, through a dummy's lane), curved
            # across the gaps between ranks: a curve never crosses a wider neighbour's box
            ra, rb = self.rank[a], self.rank[b]
            ca, cb = offs[a] + ports[(i, "out")], offs[b] + ports[(i, "in")]
            pts = [(centre[a] + self.ext[a] / 2 + tail_cut, ca), (start[ra] + thick[ra], ca)]
            for d in chain[1:-1]:
                r = self.rank[d]
                pts += [(start[r], offs[d]), (start[r] + thick[r], offs[d])]
            pts += [(start[rb], cb), (centre[b] - self.ext[b] / 2 - head_cut, cb)]
            curve = [pts[0]]
            for j, (p, q) in enumerate(zip(pts, pts[1:])):
                if j % 2 == 0:
                    curve += [p, q, q]
                else:
                    m = (p[0] + q[0]) / 2
                    curve += [(m, p[1]), (m, q[1]), q]
            tip = None
            if arrow and i in self.flipped:
                curve.reverse()
                tip = (centre[a] + self.ext[a] / 2, curve[-1][1])
            elif arrow:
                tip = (centre[b] - self.ext[b] / 2, curve[-1][1])
            xy = [self._point(p, rank_size) for p in curve]
            routes[i] = Route(xy, self._point(tip, rank_size) if tip else None)
        if self.horizontal:
            width, height = rank_size, cross_size
        else:
            width, height = cross_size, rank_size
        return Layout(width, height, boxes, routes, clusters)

    def _starts(self, thick, before, after) -> list:
        """Where each rank's column starts along the rank axis."""
        start, pos = [], 0.0
        for r in range(self.nranks):
            pos += before[r] + (RANKSEP + after[r - 1] if r else 0.0)
            start.append(pos)
            pos += thick[r]
        return start

    def _ports(self, offs) -> dict:
        """Where each edge leaves its tail and enters its head, across the box: spread
        out in the order of the other ends, so that ``x*x``'s two edges stay apart."""
        ends: dict = {}
        for i, chain in self.chain.items():
            ends.setdefault((chain[0], "out"), []).append((offs[chain[1]], i))
            ends.setdefault((chain[-1], "in"), []).append((offs[chain[-2]], i))
        ports = {}
        for (node, side), items in ends.items():
            items.sort()
            span = self.cross[node] * 0.6
            for k, (_, i) in enumerate(items):
                ports[(i, side)] = span * ((k + 1) / (len(items) + 1) - 0.5)
        return ports

    def _point(self, p, rank_size):
        r, c = p
        if self.rankdir in ("RL", "BT"):
            r = rank_size - r
        return (r, c) if self.horizontal else (c, r)

    def _rect(self, r0, c0, rn, cn, rank_size, cross_size):
        if self.rankdir in ("RL", "BT"):
            r0 = rank_size - r0 - rn
        return (r0, c0, rn, cn) if self.horizontal else (c0, r0, cn, rn)
