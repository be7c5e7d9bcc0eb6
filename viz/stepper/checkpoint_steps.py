"""A checkpointed block in a replay: one collapsed node, recomputed by backward.

``minigrad.checkpoint(fn, x)`` keeps one node of the block (op ``checkpoint``, attrs
``fn`` and ``ops``); the drawing shows it as one rounded box of the module colour
with the class ``checkpoint`` (``checkpoint block (2 ops)``).  Backward, on reaching
it, runs the block again and a backward pass through it alone (``viz.stepper.replay``).
``BlockSteps`` is the part of ``viz.stepper.frames.Frames`` that shows that (a module of its
own for the line budget; it works on the frames' state):

* the visit of the checkpoint node says what is about to happen: ``recomputing block
  <name> (<n> ops) to get its saved values``;
* the block's nodes, hidden until then (they are laid out beside the collapsed node,
  fed by the same inputs), appear one per step with the class ``recomputed``, which
  they keep: after the replay they stay marked as the block's second run (dashed,
  violet), and the checkpoint node stays the one the forward pass kept;
* the nested seed (the block's output takes the checkpoint node's gradient) is a
  step of the current pass, not a new pass: gradients, ``done`` and ``passed``
  stay as they are;
* the block's contributions to its inputs are the block's gradient for them, which
  the checkpoint node then hands on as its own contribution: they are shown, but
  not counted as one more use (no ``accumulated``; ``Replay.crosses``).
"""

from __future__ import annotations

from ..render.multi_output import is_record
from ..render.view import node_key
from .narration import view_kind

__all__ = ["BlockSteps", "block_line", "is_checkpoint"]


def is_checkpoint(node) -> bool:
    """Whether ``node`` is a checkpointed block's one node."""
    return node.op is not None and node.op.name == "checkpoint"


def block_line(node) -> str:
    """``recomputing block <name> (<n> ops) to get its saved values``: what the visit of
    checkpoint node ``node`` says."""
    attrs = node.attrs or {}
    ops = attrs.get("ops", 0)
    return (f"recomputing block {attrs.get('fn', '?')} ({ops} op{'' if ops == 1 else 's'}) "
            f"to get its saved values")


class BlockSteps:
    """The frames' side of checkpointed blocks (see the module doc); mixed into ``Frames``."""

    def _block_step(self, e, phase: str) -> bool:
        """Emit the step of a recompute event (a recomputed node, the block's seed);
        ``False`` for any other event, which the caller handles."""
        replay = self.replay
        if e.kind == "created" and e.node.id in replay.block_of:
            self._mark_visited()
            n, block = e.node, replay.block_of[e.node.id]
            self._show(n, "new")
            self._set(node_key(n), add=("recomputed",))
            for el in self._edges_into.get(n.id, ()):
                self._set(el, add=("recomputed",))
            made = 0
            for m in replay.recomputed:  # (nodes compare by value: match ids)
                made += replay.block_of[m.id] is block
                if m.id == n.id:
                    break
            total = (block.attrs or {}).get("ops", made)
            title = f"{phase} · recompute {self.name(n)}"
            if n.op is not None:
                title += f" ({n.op.name})"
            text = (f"Block {(block.attrs or {}).get('fn', '?')} runs again, op {made} of "
                    f"{total}: " + self.say.created(n, view_kind(self.view.node(n.id))) +
                    "\nThis time its op keeps what its backward rule needs (saved values).")
            self._emit("backward", "recomputed", title, text, node=n.id)
            return True
        if e.kind == "seeded" and id(e) in replay.nested:
            self._mark_visited()
            block = replay.block_of.get(e.node.id)
            name = self.name(e.node)
            self._grad(e.node, e.grad)
            self._strip("current")  # (a block with several outputs seeds each in turn)
            self._set(node_key(e.node), add=("current", "has-grad"))
            fn = (block.attrs or {}).get("fn", "?") if block is not None else "?"
            via = f" from {self.name(block)}" if block is not None else ""
            several = block is not None and is_record(block)
            what = "one of its outputs, " if several else ""
            text = (f"The recomputed block {fn} ends in {what}{name}: it takes the "
                    f"checkpoint node's gradient{' for it' * several}{via}, "
                    f"{self.say.grad(e.grad)}.\nBackward now runs through the block's own "
                    f"nodes, then hands each input its gradient.")
            self._emit("backward", "seeded", f"{phase} · block {fn}: seed {name}", text,
                       node=e.node.id)
            return True
        return False

    def _block_note(self, e) -> str:
        """What a visit or a contribution adds about a block (``""``: nothing)."""
        if e.kind == "visit" and is_checkpoint(e.node):
            return (f"\n{block_line(e.node)}: the forward pass kept only the block's "
                    f"inputs, so the engine runs it again now, then backward through it.")
        if e.kind == "contribute" and self.replay.crosses(e):
            block = self.replay.block_of[e.node.id]
            return (f"\nThis is block {(block.attrs or {}).get('fn', '?')}'s gradient for "
                    f"{self.name(e.parent)}: the checkpoint node {self.name(block)} hands "
                    f"it on as its own contribution once the block is done.")
        return ""
