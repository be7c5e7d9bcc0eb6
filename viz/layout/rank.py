"""Step 1 of ``viz.layout``: which rank each node goes to, the way ``dot`` does it.

``dot`` gives each node the rank that makes the edges as short as possible in
total (every edge at least one rank long), with Gansner et al.'s *network
simplex* ("A technique for drawing directed graphs", 1993).  Short edges mean
few dummy lanes, and they spread the work of a layer over several ranks: in a
neuron ``w0·x0 + w1·x1 + w2·x2 + b`` the product ``w1·x1`` sits just before the
sum that takes it, not beside ``w0·x0``, so each rank holds fewer boxes and the
picture drawn top to bottom is narrower.

The steps, each a plain loop:

1. start from any ranking where each edge goes forward (``ranks`` is given one);
2. grow a *tight* spanning tree (edges exactly one rank long), shifting the tree
   as a block to make the cheapest edge to an outside node tight;
3. each tree edge has a *cut value*: cut it, and it is the weight of the edges
   going from the tail's side to the head's side, less those going back.  A
   negative one means that stretching the edge shortens more than it lengthens:
   swap it for the non-tree edge across the same cut with the least slack, re-rank
   from the tree, repeat (at most ``MAX_SWAPS`` swaps: a tidy drawing, not a
   proof of optimality, is the point);
4. *balance*: a node with as many edges in as out may sit on any rank between
   its neighbours at no cost; move it to the least crowded one.

A graph in several pieces is ranked piece by piece (a forest of trees).
"""

from __future__ import annotations

__all__ = ["tighten", "MAX_SWAPS"]

MAX_SWAPS = 2000  # network simplex iterations, at most


def tighten(rank: dict, edges: list) -> dict:
    """Ranks for the keys of ``rank`` (a feasible ranking: ``rank[b] > rank[a]`` for each
    ``(a, b)`` in ``edges``) that make the edges' total length as small as can be."""
    return _Simplex(rank, edges).run()


class _Simplex:
    def __init__(self, rank, edges):
        self.keys = list(rank)
        index = {k: i for i, k in enumerate(self.keys)}
        n = len(self.keys)
        weight: dict = {}
        for a, b in edges:  # parallel edges (x*x) count twice
            e = (index[a], index[b])
            weight[e] = weight.get(e, 0) + 1
        self.edges = list(weight)  # (tail, head), each once
        self.weight = [weight[e] for e in self.edges]
        self.inc = [[] for _ in range(n)]  # node -> edge indices touching it
        for i, (u, v) in enumerate(self.edges):
            self.inc[u].append(i)
            self.inc[v].append(i)
        self.r = [rank[k] for k in self.keys]

    def slack(self, i: int) -> int:
        u, v = self.edges[i]
        return self.r[v] - self.r[u] - 1

    def run(self) -> dict:
        self._feasible_tree()
        self._number()
        for _ in range(MAX_SWAPS):
            leave = next((i for i in self.tree_edges if self.cut[i] < 0), None)
            if leave is None:
                break
            self._swap(leave, self._enter(leave))
        self._balance()
        low: dict = {}  # each piece starts at rank 0
        for node, piece in enumerate(self.piece):
            low[piece] = min(low.get(piece, self.r[node]), self.r[node])
        return {k: self.r[i] - low[self.piece[i]] for i, k in enumerate(self.keys)}

    # ----------------------------------------------------------------- the tree
    def _feasible_tree(self) -> None:
        n = len(self.keys)
        self.in_tree = [False] * n
        self.tree_edges: list = []
        self.roots = []
        self.piece = [0] * n  # node -> the first node of its piece
        for start in range(n):
            if self.in_tree[start]:
                continue
            self.roots.append(start)
            members = self._grow([start])
            while True:  # the cheapest edge leaving the tree: shift the tree onto it
                best, cost = None, None
                for m in members:
                    for i in self.inc[m]:
                        u, v = self.edges[i]
                        if self.in_tree[u] != self.in_tree[v] and (cost is None
                                                                   or self.slack(i) < cost):
                            best, cost = i, self.slack(i)
                if best is None:
                    break
                delta = cost if self.in_tree[self.edges[best][0]] else -cost
                for m in members:
                    self.r[m] += delta
                members += self._grow(members)
            for m in members:
                self.piece[m] = start

    def _grow(self, members: list) -> list:
        """Add every node reachable from ``members`` by tight edges; return the new ones."""
        new, stack = [], []
        for m in members:
            if not self.in_tree[m]:
                self.in_tree[m] = True
                new.append(m)
            stack.append(m)
        while stack:
            m = stack.pop()
            for i in self.inc[m]:
                u, v = self.edges[i]
                other = v if u == m else u
                if not self.in_tree[other] and self.slack(i) == 0:
                    self.in_tree[other] = True
                    self.tree_edges.append(i)
                    new.append(other)
                    stack.append(other)
        return new

    def _number(self) -> None:
        """Root each tree, number it (``_range``), then the cut values from the leaves up."""
        n = len(self.keys)
        self.tadj = [[] for _ in range(n)]  # node -> tree edges touching it
        for i in self.tree_edges:
            u, v = self.edges[i]
            self.tadj[u].append(i)
            self.tadj[v].append(i)
        self.low, self.lim = [0] * n, [0] * n
        self.up = [None] * n  # tree edge to the parent
        count = 0
        for root in self.roots:
            count = self._range(root, None, count)
        self.cut = {}
        for node in sorted(range(n), key=self.lim.__getitem__):  # postorder: children first
            if self.up[node] is not None:
                self.cut[self.up[node]] = self._cut_value(node)

    def _range(self, top: int, up, count: int) -> int:
        """Number the subtree of ``top`` (reached by tree edge ``up``) in postorder from
        ``count``: ``lim`` per node, ``low`` the least in its subtree, so that ``w`` is
        under ``v`` iff ``low[v] <= lim[w] <= lim[v]``; return the next number."""
        self.up[top], self.low[top] = up, count
        stack = [(top, iter(self.tadj[top]))]
        while stack:
            node, it = stack[-1]
            for i in it:
                if i != self.up[node]:
                    u, v = self.edges[i]
                    child = v if u == node else u
                    self.up[child], self.low[child] = i, count
                    stack.append((child, iter(self.tadj[child])))
                    break
            else:
                stack.pop()
                self.lim[node] = count
                count += 1
        return count

    def _cut_value(self, child: int) -> int:
        """The cut value of the tree edge from ``child`` to its parent, from the child's
        edges and the cut values of the tree edges below it."""
        up = self.up[child]
        child_is_tail = self.edges[up][0] == child
        value = self.weight[up]
        for i in self.inc[child]:
            if i == up:
                continue
            u, v = self.edges[i]
            to_head = (u == child) == child_is_tail  # same direction as the tree edge
            value += self.weight[i] if to_head else -self.weight[i]
            if i in self.cut and self.up[v if u == child else u] == i:  # a tree edge below
                value += -self.cut[i] if to_head else self.cut[i]
        return value

    def _enter(self, leave: int) -> int:
        """The non-tree edge with least slack crossing the leaving edge's cut the other way."""
        u, v = self.edges[leave]
        flip = self.lim[u] > self.lim[v]
        top = v if flip else u  # the end that is the child: its subtree is one side
        low, high, lim, r = self.low[top], self.lim[top], self.lim, self.r
        best, cost = None, None
        for i, (a, b) in enumerate(self.edges):
            if (low <= lim[a] <= high) == flip and (low <= lim[b] <= high) != flip:
                slack = r[b] - r[a] - 1
                if cost is None or slack < cost:
                    best, cost = i, slack
        return best

    def _swap(self, leave: int, enter: int) -> None:
        """Gansner's update: shift the side below ``leave`` to make ``enter`` tight, correct
        the cut values on the tree path between ``enter``'s ends, renumber below their
        common ancestor."""
        u, v = self.edges[leave]
        below = u if self.lim[u] < self.lim[v] else v
        delta = self.slack(enter) * (-1 if below == u else 1)
        stack = [below]
        while stack:  # the subtree under ``below`` (``leave`` is its edge up)
            node = stack.pop()
            self.r[node] += delta
            for i in self.tadj[node]:
                if i != self.up[node]:
                    a, b = self.edges[i]
                    stack.append(b if a == node else a)
        value = self.cut[leave]
        a, b = self.edges[enter]
        top = self._path_update(a, b, value, True)
        self._path_update(b, a, value, False)
        del self.cut[leave]
        self.cut[enter] = -value
        self.tree_edges[self.tree_edges.index(leave)] = enter
        self.tadj[u].remove(leave)
        self.tadj[v].remove(leave)
        self.tadj[a].append(enter)
        self.tadj[b].append(enter)
        self._range(top, self.up[top], self.low[top])

    def _path_update(self, node: int, other: int, value: int, forward: bool) -> int:
        """Walk up from ``node`` until ``other`` is below; each tree edge on the way gains
        ``value`` if it points the way ``enter`` does, loses it otherwise."""
        while not self.low[node] <= self.lim[other] <= self.lim[node]:
            i = self.up[node]
            a, b = self.edges[i]
            self.cut[i] += value if (node == a) == forward else -value
            node = b if self.lim[a] < self.lim[b] else a
        return node

    # ----------------------------------------------------------------- balance
    def _balance(self) -> None:
        count: dict = {}
        for r in self.r:
            count[r] = count.get(r, 0) + 1
        for node in range(len(self.keys)):
            w_in = sum(self.weight[i] for i in self.inc[node] if self.edges[i][1] == node)
            w_out = sum(self.weight[i] for i in self.inc[node] if self.edges[i][0] == node)
            if w_in != w_out or not w_in:
                continue
            lo = max(self.r[self.edges[i][0]] + 1 for i in self.inc[node]
                     if self.edges[i][1] == node)
            hi = min(self.r[self.edges[i][1]] - 1 for i in self.inc[node]
                     if self.edges[i][0] == node)
            best = min(range(lo, hi + 1), key=lambda r: (count[r] if r in count else 0, r))
            if count.get(best, 0) < count[self.r[node]] - 1:
                count[self.r[node]] -= 1
                count[best] = count.get(best, 0) + 1
                self.r[node] = best
