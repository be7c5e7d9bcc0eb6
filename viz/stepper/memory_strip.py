"""The memory strip: saved bytes alive at every step of a replay (issue #18).

A graph holds what each op saved for its backward rule until backward frees it
(``minigrad.memory``).  ``MemoryTrack(tape, frames)`` replays the tape into a
``minigrad.memory.MemoryLedger``, the recorder ``ledger(loss)`` uses, so the bytes
are counted exactly as ``graph_memory`` and ``ledger`` count them (each buffer
once; a buffer two nodes saved is freed with the last): nodes come in with what
the tape recorded them saving (backward has released it since), ``freed`` notes
release them.  Per step of the frames it knows the saved bytes alive, the running
peak and what the step freed or allocated, and says it in words for the panel::

    memory: freed tanh (#11)'s saved output: 48 B; saved now 1.2 KiB, peak 2.0 KiB

The forward replay shows the saved values piling up (a node the backward pass does
not reach is not counted, as ``ledger`` does not count it); a checkpointed block's
recompute allocates again.  ``strip_svg`` draws it as one bar per step under the
graph, the current step's bar red, later steps faint, the peak a dashed line;
the widget redraws it per step, the HTML player carries every step's numbers and
a few lines of script (``strip_html``), so it needs no kernel.
"""

from __future__ import annotations

import html
import json

from minigrad import topological_order
from minigrad.memory import MemoryLedger, format_bytes

from ..render.view import saved_names

__all__ = ["MemoryTrack", "strip_svg", "strip_html", "STRIP_WIDTH"]

STRIP_WIDTH, STRIP_HEIGHT = 480, 64  # px: fits a notebook cell and a phone in landscape
_BARS_TOP = 16  # room for the peak's label above the bars


class _Recorded:
    """A node as the ledger weighs it: with what the tape recorded its op saving."""

    __slots__ = ("id", "op", "label", "saved")

    def __init__(self, node, saved):
        self.id, self.op, self.label, self.saved = node.id, node.op, node.label, saved


class MemoryTrack:
    """Saved bytes per step of ``frames`` (a ``viz.stepper.frames.Frames`` of ``tape``).

    ``alive[i]``, ``peak[i]``: bytes alive and the peak so far at step ``i``;
    ``freed[i]``: ``[(node, bytes)]`` released by step ``i``; ``allocated[i]``: bytes
    saved anew during it; ``ledger``: the replayed ``MemoryLedger`` (the same steps
    ``minigrad.memory.ledger`` gives for this backward pass); ``line(i)``: the words.
    """

    def __init__(self, tape, frames):
        if not any(f.phase == "backward" for f in frames.frames):
            raise ValueError("memory=True shows what backward frees: it needs a replay "
                             "with a backward pass (mode='backward' or 'both')")
        self.frames = frames
        self.ledger = book = MemoryLedger()
        self._saved = {e.node.id: e.saved for e in tape.events if e.kind == "created"}
        timeline = list(tape.timeline)
        seeds = [e for e in timeline if e.kind == "seeded" and frames.replay.outer(e)]
        reach = {n.id for n in topological_order(seeds[0].node)} if seeds else set()
        at = {}  # id(event) -> its index in the timeline
        states = []  # after timeline[k]: (alive, peak)
        frees = []  # (timeline index, node, bytes freed)
        allocs = []  # (timeline index, bytes allocated)
        started = False
        for k, e in enumerate(timeline):
            at[id(e)] = k
            before = book.alive
            if e.kind == "created":
                n = e.node
                if n.op is not None and e.saved is not None and (started or n.id in reach):
                    book.created(_Recorded(n, e.saved))
            elif e.kind == "seeded":
                started = True
                book.seeded(e.node, e.grad)
            elif e.kind == "visit":
                book.visit(e.node, e.upstream)
            elif e.kind == "freed" and e.node.id in book.nodes:
                book.freed(e.node, None)
                frees.append((k, e.node, book.nodes[e.node.id].freed_bytes))
            if e.kind in ("created", "seeded") and started and book.alive > before:
                allocs.append((k, book.alive - before))
            states.append((book.alive, book.peak))
        self._at = at
        created_at = {e.node.id: at[id(e)] for e in timeline if e.kind == "created"}
        position = self._positions(frames, created_at, seeds, len(timeline))
        self.alive, self.peak, self.freed, self.allocated = [], [], [], []
        prev = -1
        for t in position:
            alive, peak = states[t] if t >= 0 else (0, 0)
            self.alive.append(alive)
            self.peak.append(peak)
            self.freed.append([(n, b) for k, n, b in frees if prev < k <= t])
            self.allocated.append(sum(b for k, b in allocs if prev < k <= t))
            prev = max(prev, t)
        self.position = position

    def _positions(self, frames, created_at, seeds, n) -> list[int]:
        """The timeline index each frame shows the state after (-1: before anything)."""
        out, last = [], -1
        first_seed = self._at[id(seeds[0])] - 1 if seeds else n - 1
        for f in frames.frames:
            if f.event is not None:
                t = self._at.get(id(f.event), last)
            elif f.phase == "forward" and f.kind == "created":
                t = created_at.get(f.node, last)
            elif f.phase == "backward" and f.kind == "start":
                t = max(last, first_seed)
            elif f.kind == "end" and f.phase == "backward":
                t = n - 1
            else:
                t = last
            out.append(t)
            last = max(last, t)
        return out

    def __len__(self) -> int:
        return len(self.alive)

    @property
    def top(self) -> int:
        """The highest number of saved bytes alive at any step."""
        return max(self.peak, default=0)

    def _what(self, node) -> str:
        """``tanh (#11)'s saved output``, ``max (#5)'s saved share``: whose saved values,
        and which: a node's own value by its place, any other by the name its op's rule
        gives it (``saved[k]`` when it gives none)."""
        saved = self._saved.get(node.id) or ()
        called = saved_names(node.op, len(saved)) or [f"saved[{k}]" for k in range(len(saved))]
        names = []
        for item, called_k in zip(saved, called):
            if item is node.data:
                name = "output"
            else:
                parent = next((p for p in node.parents if p.data is item), None)
                name = f"input {self.frames.name(parent)}" if parent is not None else called_k
            if name not in names:
                names.append(name)
        what = ", ".join(names) if names else "values"
        return f"{node.op.name} ({self.frames.name(node)})'s saved {what}"

    def line(self, i: int) -> str:
        """Step ``i`` in words: what it freed or allocated, then the bytes alive and peak."""
        parts = []
        for node, size in self.freed[i]:
            if not self.ledger.nodes[node.id].saved_bytes:
                continue  # (it kept no array: a shape, an axis)
            text = f"freed {self._what(node)}: {format_bytes(size)}"
            held = self.ledger.nodes[node.id].saved_bytes
            if size < held:
                text += " (the rest is still saved by another node)"
            parts.append(text)
        if self.allocated[i] and self.frames[i].phase == "backward":
            size = format_bytes(self.allocated[i])
            parts.append(f"the recompute saves {size} again"
                         if self.frames[i].kind == "recomputed" else f"saved anew: {size}")
        now = f"saved now {format_bytes(self.alive[i])}, peak {format_bytes(self.peak[i])}"
        return "memory: " + "; ".join(parts + [now])


def strip_svg(track: MemoryTrack, i: int) -> str:
    """The strip at step ``i``: one bar per step (height: saved bytes alive), the
    current one red, the later ones faint, the peak a dashed line with its label."""
    n = len(track)
    top = track.top or 1
    width = STRIP_WIDTH / n
    base = STRIP_HEIGHT - 2
    span = base - _BARS_TOP
    bars = []
    for k, alive in enumerate(track.alive):
        h = max(span * alive / top, 1.0 if alive else 0.0)
        state = "mg-mem-now" if k == i else ("mg-mem-future" if k > i else "mg-mem-past")
        bars.append(f'<rect class="mg-mem-bar {state}" data-k="{k}" x="{k * width:.2f}" '
                    f'y="{base - h:.2f}" width="{max(width - 0.5, 0.5):.2f}" height="{h:.2f}"/>')
    peak = (f'<line class="mg-mem-peak" x1="0" x2="{STRIP_WIDTH}" y1="{_BARS_TOP}" '
            f'y2="{_BARS_TOP}"/><text class="mg-mem-peak-label" x="{STRIP_WIDTH - 2}" '
            f'y="{_BARS_TOP - 4}" text-anchor="end">peak {format_bytes(track.top)}</text>')
    return (f'<svg class="mg-mem-svg" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {STRIP_WIDTH} {STRIP_HEIGHT}" width="{STRIP_WIDTH}" '
            f'height="{STRIP_HEIGHT}" role="img" aria-label="saved bytes alive per step">'
            f'{"".join(bars)}{peak}</svg>')


STRIP_CSS = (
    ".mg-memory{margin-top:6px;max-width:100%;overflow:hidden}"
    ".mg-memory .mg-mem-svg{max-width:100%;height:auto;display:block}"
    ".mg-memory .mg-mem-text{font:12px system-ui,sans-serif;color:#334155}"
    ".mg-memory .mg-mem-bar{fill:#64748b}"
    ".mg-memory .mg-mem-bar.mg-mem-future{fill:#cbd5e1}"
    ".mg-memory .mg-mem-bar.mg-mem-now{fill:#d62728}"
    ".mg-memory .mg-mem-peak{stroke:#ea580c;stroke-width:1;stroke-dasharray:4 3}"
    ".mg-memory .mg-mem-peak-label{font:10px system-ui,sans-serif;fill:#ea580c}"
)

# Follows the player's step (its root's data-mg-step) with no change to the player.
_SCRIPT = """(function(){var s=document.currentScript,m=s.parentNode,
r=m.closest('.mg-player');if(!r)return;var d=JSON.parse(m.getAttribute('data-mg-memory')),
bars=m.querySelectorAll('.mg-mem-bar'),t=m.querySelector('.mg-mem-text');
function show(){var i=+(r.getAttribute('data-mg-step')||0);m.setAttribute('data-mg-at',i);
for(var k=0;k<bars.length;k++){bars[k].setAttribute('class','mg-mem-bar '+(k===i?
'mg-mem-now':k>i?'mg-mem-future':'mg-mem-past'));}t.textContent=d.lines[i];}
new MutationObserver(show).observe(r,{attributes:true,attributeFilter:['data-mg-step']});
show();})();"""


def strip_html(track: MemoryTrack, i: int, *, script: bool = True) -> str:
    """The strip as HTML at step ``i``: the SVG, the step's line and (for the player)
    every step's numbers and the script that follows the player's step."""
    data = {"alive": track.alive, "peak": track.peak,
            "lines": [track.line(k) for k in range(len(track))]}
    attr = html.escape(json.dumps(data, ensure_ascii=False, separators=(",", ":")), quote=True)
    js = f"<script>{_SCRIPT}</script>" if script else ""
    return (f'<div class="mg-memory" data-mg-memory="{attr}" data-mg-at="{i}">'
            f"<style>{STRIP_CSS}</style>{strip_svg(track, i)}"
            f'<div class="mg-mem-text">{html.escape(track.line(i))}</div>{js}</div>')
