"""Step 3 of ``viz.layout``: the order of the items within each rank.

Barycenter sweeps, down and up (``PASSES`` in all): each item's key is the mean
position of its neighbours in the rank just placed, positions being
normalised to ``(index + 0.5) / rank size`` so that ranks of different sizes
compare.  The order with the fewest crossings wins.

Module clusters are sorted as blocks (``block_of``): members of a cluster stay
together in every rank, and sibling clusters take one order in all ranks, by
their mean position over all ranks, so that their rectangles, which span every
rank from their first to their last member, never cross.

The model's order, where crossings leave the choice free: a student reads a model
left to right (``layers.0`` before ``layers.1``, numbers compared as numbers), but
the sweeps care only about crossings, and a graph drawn as its mirror image has
exactly as many.  So three orders compete: the sweeps' best, its mirror image, and
the sweeps run again with sibling clusters held in the model's order (when the
first two leave clusters out of order), each with every cluster's children then put
in the model's order where that costs no crossing.  Of those with no more crossings
than the sweeps' best, the one closest to the model's order wins (``disorder``: pairs
of sibling clusters out of order, then nodes of one cluster out of the order they
were made in).  A model's order never costs a crossing.
"""

from __future__ import annotations

__all__ = ["RankOrder", "block_of", "is_a", "natural", "PASSES"]

PASSES = 8  # ordering sweeps


def is_a(item, mark: str) -> bool:
    """Is ``item`` a dummy (``"~"``), a placeholder (``"#"``) or a cluster block (``"@"``)?"""
    return isinstance(item, tuple) and item[0] == mark


def natural(path: tuple) -> tuple:
    """Sort key of a module path in the model's order: ``layers.2`` before ``layers.10``
    (a number compared as a number), a name after every number."""
    return tuple((0, int(p), "") if str(p).isdigit() else (1, 0, str(p)) for p in path)


def block_of(scope: tuple, item, level: tuple):
    """What ``item`` (in cluster ``scope``) is at the level of cluster ``level``: itself,
    or the child cluster of ``level`` holding it, as ``("@", *path)``."""
    return item if len(scope) == len(level) else ("@",) + scope[:len(level) + 1]


class RankOrder:
    """Orders ``order`` (a list of items per rank) in place; ``segments`` are the
    ``(upper, lower)`` item pairs of adjacent ranks, ``scope`` each item's cluster."""

    def __init__(self, order: list, scope: dict, segments: list):
        self.order = order
        self.nranks = len(order)
        self.scope = scope
        self.up = {it: [] for it in scope}
        self.down = {it: [] for it in scope}
        for a, b in segments:
            self.down[a].append(b)
            self.up[b].append(a)

    def run(self) -> list:
        """The order of each rank: fewest crossings, then closest to the model's order."""
        start = [list(o) for o in self.order]
        self.made = {it: j for o in start for j, it in enumerate(o)}  # creation order
        fewest, best = self._sweeps(self._gkeys)
        found = [(fewest, best), (fewest, [o[::-1] for o in best])]  # (its mirror image)
        if self._siblings():
            found = [self._settle(c, o) for c, o in found]
            if all(self.disorder(o)[0] for _, o in found):  # clusters still out of order
                self.order = [list(o) for o in start]
                found.append(self._settle(*self._sweeps(self._model_keys)))
        # (no more crossings than the sweeps' best; fewer is no reason to leave the order)
        return min(found, key=lambda c: (max(c[0], fewest), self.disorder(c[1])))[1]

    def _settle(self, crossings: int, order: list) -> tuple:
        """``(crossings, order)`` with, cluster by cluster from the outermost, its child
        clusters put in the model's order in every rank wherever that costs no crossing
        (a mirror image puts ``layers`` right and each layer's neurons backwards)."""
        parents = sorted({s[:d] for s in set(self.scope.values()) for d in range(len(s))},
                         key=len)
        for parent in parents:
            tried = [self._sorted_under(parent, o) for o in order]
            if tried != order:
                c = self._crossings(tried)
                if c <= crossings and self.disorder(tried) < self.disorder(order):
                    crossings, order = c, tried
        return crossings, order

    def _sorted_under(self, parent: tuple, items: list) -> list:
        """One rank's ``items`` with the child clusters of ``parent`` in the model's order
        (each a contiguous run; what else is there keeps its place)."""
        runs: list = []  # [child path or None, items]
        for it in items:
            s = self.scope[it]
            child = s[:len(parent) + 1] if len(s) > len(parent) and s[:len(parent)] == parent \
                else None
            if runs and child is not None and runs[-1][0] == child:
                runs[-1][1].append(it)
            else:
                runs.append([child, [it]])
        slots = [j for j, (child, _) in enumerate(runs) if child is not None]
        for j, run in zip(slots, sorted((runs[j] for j in slots), key=lambda r: natural(r[0]))):
            runs[j] = run
        return [it for _, run in runs for it in run]

    def _sweeps(self, cluster_keys) -> tuple:
        """``(crossings, order)``: the best of ``PASSES`` barycenter sweeps from the current
        order, sibling clusters sorted by ``cluster_keys()`` (``{path: key}``)."""
        self.npos = {}  # item -> (index + 0.5) / rank size: positions comparable across ranks
        for r in range(self.nranks):
            self._renumber(r)
        gkeys = cluster_keys()
        for r in range(self.nranks):
            self._arrange(r, self.npos, gkeys)
            self._renumber(r)
        best, fewest = [list(o) for o in self.order], self._crossings()
        for p in range(PASSES):
            ranks = range(1, self.nranks) if p % 2 == 0 else range(self.nranks - 2, -1, -1)
            near = self.up if p % 2 == 0 else self.down
            gkeys = cluster_keys()
            npos = self.npos
            for r in ranks:
                keys = {}
                for it in self.order[r]:
                    nb = near[it]
                    keys[it] = sum(npos[n] for n in nb) / len(nb) if nb else npos[it]
                self._arrange(r, keys, gkeys)
                self._renumber(r)
            c = self._crossings()
            if c < fewest:
                best, fewest = [list(o) for o in self.order], c
        return fewest, best

    def _model_keys(self) -> dict:
        """Sibling clusters in the model's order, whatever the positions."""
        return {s[:d]: natural(s[:d]) for s in set(self.scope.values())
                for d in range(1, len(s) + 1)}

    def _siblings(self) -> bool:
        """Has some cluster two child clusters (else the model's order is the sweeps')?"""
        paths = {s[:d] for s in set(self.scope.values()) for d in range(1, len(s) + 1)}
        return len({p[:-1] for p in paths}) < len(paths)

    def disorder(self, order: list) -> tuple:
        """``(clusters, nodes)`` out of the model's order in ``order``: pairs of sibling
        clusters in one rank (``layers.1`` before ``layers.0``; a layer's neurons count
        as much as the layers: a mirror image that puts three layers right but sixteen
        neurons backwards is no better), then pairs of nodes of one cluster in one rank
        not in the order they were made (dummies and placeholders are free)."""
        clusters = nodes = 0
        for o in order:
            runs = [s for j, s in enumerate(self.scope[it] for it in o)
                    if j == 0 or s != self.scope[o[j - 1]]]
            for i, a in enumerate(runs):
                for b in runs[i + 1:]:
                    n = 0
                    while n < min(len(a), len(b)) and a[n] == b[n]:
                        n += 1
                    if n < min(len(a), len(b)) and natural(b[n:n + 1]) < natural(a[n:n + 1]):
                        clusters += 1
            seen: dict = {}
            for it in o:
                if not (is_a(it, "~") or is_a(it, "#")):
                    seen.setdefault(self.scope[it], []).append(self.made[it])
            for made in seen.values():
                nodes += sum(1 for i, x in enumerate(made) for y in made[i + 1:] if y < x)
        return clusters, nodes

    def _renumber(self, r: int) -> None:
        o = self.order[r]
        self.npos.update({it: (j + 0.5) / len(o) for j, it in enumerate(o)})

    def _gkeys(self) -> dict:
        """Each cluster's mean position over all its ranks: one order for siblings everywhere."""
        total: dict = {}
        for it, x in self.npos.items():
            s = self.scope[it]
            for d in range(1, len(s) + 1):
                t = total.setdefault(s[:d], [0.0, 0])
                t[0] += x
                t[1] += 1
        return {p: t[0] / t[1] for p, t in total.items()}

    def _arrange(self, r: int, keys: dict, gkeys: dict) -> None:
        def expand(level, items):
            groups: dict = {}
            for it in items:
                groups.setdefault(block_of(self.scope[it], it, level), []).append(it)
            entries = [(sum(keys[m] for m in ms) / len(ms), rep) for rep, ms in groups.items()]
            entries.sort(key=lambda e: e[0])  # stable: ties keep the current order
            slots = [j for j, (_, rep) in enumerate(entries) if is_a(rep, "@")]
            blocks = sorted((entries[j] for j in slots), key=lambda e: gkeys[e[1][1:]])
            for j, e in zip(slots, blocks):
                entries[j] = e
            out = []
            for _, rep in entries:
                if is_a(rep, "@"):
                    out.extend(expand(rep[1:], groups[rep]))
                else:
                    out.append(rep)
            return out

        self.order[r] = expand((), self.order[r])

    def _crossings(self, order: list | None = None) -> int:
        """Edge crossings between adjacent ranks of ``order`` (default: the current one)."""
        order = self.order if order is None else order
        pos = {it: j for o in order for j, it in enumerate(o)}
        total = 0
        for r in range(self.nranks - 1):
            pairs = sorted((pos[a], pos[b]) for a in order[r] for b in self.down[a])
            tree = [0] * (len(order[r + 1]) + 1)  # Fenwick tree over head positions
            for seen, (_, b) in enumerate(pairs):
                j, below = b + 1, 0
                while j > 0:
                    below += tree[j]
                    j -= j & -j
                total += seen - below
                j = b + 1
                while j < len(tree):
                    tree[j] += 1
                    j += j & -j
        return total
