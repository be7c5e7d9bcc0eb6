"""A checkpointed block in a replay: one collapsed node, recomputed by backward.

``minigrad.checkpoint(fn, x)`` keeps one node of the block (op ``checkpoint``, attrs
``fn`` and ``ops``); the drawing shows it as one rounded box of the module colour
with the class ``checkpoint`` (``checkpoint block (2 ops)``).  Backward, on reaching
it, runs the block again and a backward pass through it alone (``viz.stepper.replay``).
``viz.stepper.frames.Frames`` shows that, in steps whose words are written here:

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

__all__ = ["block_line", "block_note", "block_seed_text", "is_checkpoint", "recompute_text"]


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


def recompute_text(replay, n, created: str) -> str:
    """What the step of recomputed node ``n`` says: which op of which block it is, then
    ``created`` (what creating ``n`` says in a forward replay)."""
    block = replay.block_of[n.id]
    made = 0
    for m in replay.recomputed:  # (nodes compare by value: match ids)
        made += replay.block_of[m.id] is block
        if m.id == n.id:
            break
    total = (block.attrs or {}).get("ops", made)
    return (f"Block {(block.attrs or {}).get('fn', '?')} runs again, op {made} of "
            f"{total}: " + created +
            "\nThis time its op keeps what its backward rule needs (saved values).")


def block_seed_text(replay, e, name, say) -> tuple[str, str]:
    """``(block name, text)`` of the nested seed ``e``: the recomputed block's output
    takes the checkpoint node's gradient (``name(node)`` names a node, ``say`` writes
    a gradient)."""
    block = replay.block_of.get(e.node.id)
    fn = (block.attrs or {}).get("fn", "?") if block is not None else "?"
    via = f" from {name(block)}" if block is not None else ""
    several = block is not None and is_record(block)
    what = "one of its outputs, " if several else ""
    return fn, (f"The recomputed block {fn} ends in {what}{name(e.node)}: it takes the "
                f"checkpoint node's gradient{' for it' * several}{via}, "
                f"{say.grad(e.grad)}.\nBackward now runs through the block's own "
                f"nodes, then hands each input its gradient.")


def block_note(replay, e, name) -> str:
    """What a visit or a contribution adds about a block (``""``: nothing);
    ``name(node)`` names a node."""
    if e.kind == "visit" and is_checkpoint(e.node):
        return (f"\n{block_line(e.node)}: the forward pass kept only the block's "
                f"inputs, so the engine runs it again now, then backward through it.")
    if e.kind == "contribute" and replay.crosses(e):
        block = replay.block_of[e.node.id]
        return (f"\nThis is block {(block.attrs or {}).get('fn', '?')}'s gradient for "
                f"{name(e.parent)}: the checkpoint node {name(block)} hands "
                f"it on as its own contribution once the block is done.")
    return ""
