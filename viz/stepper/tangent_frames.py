"""A forward-mode pass as frames: tangents flowing forward, edge by edge (issue #17).

Inside ``forward_ad.dual_level()`` every op gives its result a tangent as it is
made, and a recording tape keeps forward mode's notes (``minigrad.autograd.tape``):
``dual(node, tangent)`` where ``make_dual`` attached one, and per edge
``tangent(node, op, parent, slot, incoming, contribution, total, derivative)``,
with ``contribution = ∂node/∂parent · incoming``.  ``TangentFrames`` replays them:

* the nodes appear in creation order, each showing its tangent where the backward
  replay shows a gradient (the stepper writes it ``ṫ …``);
* after a node appears, each edge bringing it a tangent lights up in turn
  (``current``), the node ``receiving``, its ``ṫ`` the running sum; the panel says
  local derivative × incoming tangent = contribution, in the backward panel's words
  with the direction reversed (``viz.stepper.narration``);
* an op whose forward rule takes every input's tangent at once (one ``jvp``: slot
  ``None``) lights all its edges in one step.

Classes are ``Frames``'s (``hidden``, ``current``, ``done``, ``receiving``,
``passed``), plus ``has-tangent`` for a node holding a tangent.  ``grads(i)`` (also
``tangents(i)``) gives the tangent each node holds at step ``i``.
"""

from __future__ import annotations

from ..render.view import edge_key, node_key
from .frames import Frames
from .narration import view_kind

__all__ = ["TangentFrames", "MODE"]

#: the ``mode`` of ``viz.Stepper`` and ``viz.step_through`` that replays forward mode
MODE = "forward-mode"


class TangentFrames(Frames):
    """The steps of a forward-mode pass recorded in ``tape`` (see the module doc)."""

    def __init__(self, tape, mode: str = MODE, names: dict | None = None, *, options=None):
        if mode != MODE:
            raise ValueError(f"TangentFrames replays mode={MODE!r}, got {mode!r}")
        notes = [e for _, e in getattr(tape, "notes", ())]
        self._duals = {e.node.id: e.tangent for e in notes if e.kind == "dual"}
        self._edges_of: dict[int, list] = {}
        for e in notes:
            if e.kind == "tangent":
                self._edges_of.setdefault(e.node.id, []).append(e)
        if not self._duals and not self._edges_of:
            raise ValueError(
                "mode='forward-mode': this tape has no tangents; record the function "
                "inside `with minigrad.autograd.forward_ad.dual_level():` with inputs made "
                "by make_dual(x, tangent), or use viz.step_through(fn, *inputs, "
                "mode='forward-mode', tangents=...)")
        super().__init__(tape, "forward", names, options=options)
        self.mode = MODE

    def tangents(self, i: int) -> dict[int, object]:
        """``{node id: tangent held at step i}`` (``None``: none yet): ``grads(i)``."""
        return self.grads(i)

    def _forward(self) -> None:  # (called by Frames._build for mode "forward")
        created = [n for n in self._created if n.id in self._node_pos]
        self._hide(created)
        for n in self.nodes:
            self._grad(n, None)
        total = len(created)
        self._emit("forward", "start", f"Forward mode · start ({total} nodes to create)",
                   self.say.tangent_start())
        held: dict = {}
        for n in created:
            self._settle()
            self._strip("current", replace="done")
            self._set(node_key(n), add=("current",), remove=("hidden",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, remove=("hidden",))
            dual = self._duals.get(n.id)
            if dual is not None:
                held[n.id] = dual
                self._grad(n, dual)
                self._set(node_key(n), add=("has-tangent",))
            edges = self._edges_of.get(n.id, [])
            title = f"Forward mode · create {self.name(n)}"
            if n.op is not None:
                title += f" ({n.op.name})"
            text = self.say.tangent_created(n, view_kind(self.view.node(n.id)), dual,
                                            len(edges))
            self._emit("forward", "created", title, text, node=n.id)
            self._edge_steps(n, edges, held)
        self._settle()
        self._strip("current", replace="done")
        outs = [(r, held.get(r.id)) for r in self.results if r.id in held]
        self._emit("forward", "end", "Forward mode · complete", self.say.tangent_end(outs))

    def _settle(self) -> None:
        """Before a new step: edges that carried their tangent are ``passed``."""
        self._strip("receiving")
        first_edge = len(self.node_ids)
        for i in sorted(self._members["current"]):
            if i >= first_edge:
                self._set(self.elements[i], add=("passed",), remove=("current",))

    def _edge_steps(self, n, edges, held) -> None:
        """One step per edge bringing ``n`` a tangent (one for all, for one ``jvp``)."""
        name = self.name(n)
        per_edge = [e for e in edges if e.slot is not None]
        at_once = [e for e in edges if e.slot is None]
        for e in per_edge:
            self._settle()
            before = held.get(n.id)
            after = e.contribution if before is None else before + e.contribution
            held[n.id] = after
            self._light(n, [edge_key(n, e.parent, e.slot)], after)
            title = f"Forward mode · {self.name(e.parent)} → {name} ({e.op.name})"
            self._emit("forward", "tangent", title, self.say.tangent(e, before, after),
                       node=n.id, edge=edge_key(n, e.parent, e.slot))
        if at_once:
            self._settle()
            e = at_once[-1]
            held[n.id] = e.total
            parents = {p.id for p in (x.parent for x in at_once)}
            keys = [el for el in self._edges_into.get(n.id, ())
                    if int(el.split("_")[2]) in parents]
            self._light(n, keys, e.total)
            title = f"Forward mode · {e.op.name}'s tangent → {name}"
            text = self.say.tangent_all(e, [(x.parent, x.incoming) for x in at_once])
            self._emit("forward", "tangent", title, text, node=n.id,
                       edge=keys[0] if keys else None)

    def _light(self, n, keys, value) -> None:
        for el in keys:
            self._set(el, add=("current",), remove=("hidden",))
        self._set(node_key(n), add=("receiving", "has-tangent"))
        self._grad(n, value)
