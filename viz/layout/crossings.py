"""Step 3 of ``viz.layout``: the order of the items within each rank.

Barycenter sweeps, down and up (``PASSES`` in all): each item's key is the mean
position of its neighbours in the rank just placed, positions being
normalised to ``(index + 0.5) / rank size`` so that ranks of different sizes
compare.  The order with the fewest crossings wins.

Module clusters are sorted as blocks (``block_of``): members of a cluster stay
together in every rank, and sibling clusters take one order in all ranks, by
their mean position over all ranks, so that their rectangles, which span every
rank from their first to their last member, never cross.
"""

from __future__ import annotations

__all__ = ["RankOrder", "block_of", "is_a", "PASSES"]

PASSES = 8  # ordering sweeps


def is_a(item, mark: str) -> bool:
    """Is ``item`` a dummy (``"~"``), a placeholder (``"#"``) or a cluster block (``"@"``)?"""
    return isinstance(item, tuple) and item[0] == mark


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
        self.npos = {}  # item -> (index + 0.5) / rank size: positions comparable across ranks
        for r in range(self.nranks):
            self._renumber(r)
        gkeys = self._gkeys()
        for r in range(self.nranks):
            self._arrange(r, self.npos, gkeys)
            self._renumber(r)
        best, fewest = [list(o) for o in self.order], self._crossings()
        for p in range(PASSES):
            ranks = range(1, self.nranks) if p % 2 == 0 else range(self.nranks - 2, -1, -1)
            near = self.up if p % 2 == 0 else self.down
            gkeys = self._gkeys()
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
        return best

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

    def _crossings(self) -> int:
        pos = {it: j for o in self.order for j, it in enumerate(o)}
        total = 0
        for r in range(self.nranks - 1):
            pairs = sorted((pos[a], pos[b]) for a in self.order[r] for b in self.down[a])
            tree = [0] * (len(self.order[r + 1]) + 1)  # Fenwick tree over head positions
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
