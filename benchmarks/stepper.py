"""How long one step of the step-through takes on a ~300-node graph.

The graph: a scalar MLP 3-8-8-1 and a squared-error loss, built and
backpropagated inside ``minigrad.record()`` (about 330 nodes, ~950 steps in
mode "both").  Timed once: recording, building the frames, the graphviz
layout, the widget (an anywidget: its markup and frames are sent once), the
standalone HTML export.  Timed per step on the Python side: ``goto`` moving the
cursor and the widget's ``step`` traitlet (outside a kernel no message is sent:
a step's message is one integer).  With ``--browser`` (Debian chromium +
Playwright) the front end is timed in headless Chromium, with
``performance.now()`` around a step and the style and layout it causes: the
standalone page (``save_html``) and the widget, the same module
(``viz/assets/player.js``) rendered by its anywidget entry point over a stand-in
model holding the widget's own traits (what anywidget hands ``render``), stepped
by the slider and by a ``step`` change as a kernel message would bring it.
The widget/page ratio comes from the same run.

    python benchmarks/stepper.py [--layers 8 8] [--jumps 300] [--browser]
Target: one step <= 20 ms for a 300-node graph, in the widget as in the page.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import at_least, machine_line  # noqa: E402


def build(layers):
    import minigrad
    from minigrad.nn.neurons import MLP

    rng = random.Random(0)
    with minigrad.record() as tape:
        model = MLP(3, list(layers) + [1], rng=rng)
        x = [minigrad.Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.0, 2.0))]
        loss = (model(x) - 1.0) ** 2
        loss.label = "loss"
        loss.backward()
    return tape


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def summary(times) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return (f"median {ms(statistics.median(times))}, p95 {ms(p95)}, max {ms(times[-1])} "
            f"({len(times)} steps)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, nargs="+", default=[8, 8])
    ap.add_argument("--jumps", type=at_least(1), default=300)
    ap.add_argument("--browser", action="store_true",
                    help="also time the restyle in headless Chromium")
    args = ap.parse_args()

    from viz import Stepper

    print(machine_line(1))
    t0 = time.perf_counter()
    tape = build(args.layers)
    t1 = time.perf_counter()
    s = Stepper(tape, mode="both")
    t2 = time.perf_counter()
    svg = s.svg
    t3 = time.perf_counter()
    if svg is None:
        print(f"no drawing ({s.note}); timing the panel only")
    widget = s.widget
    t4 = time.perf_counter()
    html = s.to_html()
    t5 = time.perf_counter()
    fr = s.frames
    print(f"graph: {len(fr.nodes)} nodes, {len(fr.edges)} edges; {len(fr)} steps (mode both)")
    print(f"once: record {ms(t1 - t0)}, frames {ms(t2 - t1)}, graphviz layout {ms(t3 - t2)}, "
          f"widget {ms(t4 - t3)}, standalone HTML {ms(t5 - t4)} ({len(html) / 1e3:.0f} kB)")
    print(f"sent once: markup {len(widget.markup) / 1e3:.0f} kB, frames "
          f"{len(json.dumps(widget.data)) / 1e3:.0f} kB, module {len(widget._esm) / 1e3:.0f} kB;"
          f" sent per step: the step number")

    seq = []
    for i in range(1, len(s)):
        a = time.perf_counter()
        widget.step = i  # what the browser's slider does (the kernel side)
        seq.append(time.perf_counter() - a)
    assert s.step == len(s) - 1
    rng = random.Random(1)
    jumps = []
    for _ in range(args.jumps):
        i = rng.randrange(len(s))
        while i == s.step:
            i = rng.randrange(len(s))
        a = time.perf_counter()
        s.goto(i)  # what a cell's goto does: the cursor and the widget's step
        jumps.append(time.perf_counter() - a)
    assert widget.step == s.step
    print(f"per step, next (slider +1):   {summary(seq)}")
    print(f"per step, goto (random jump): {summary(jumps)}")
    worst = max(statistics.median(seq), statistics.median(jumps))
    verdict = "OK" if worst <= 0.020 else "OVER"
    print(f"target <= 20 ms per step (Python side): {verdict} (median {ms(worst)})")
    if args.browser:
        browser_side(s)


# one step, timed: the step, then a forced style and layout (what the next frame paints)
_TIME_STEPS = """async ([root, steps, how, model]) => {
  const slider = root.querySelector('.mg-slider'), out = [];
  const node = root.querySelector('svg g.node') || root;
  for (const k of steps) {
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
    const t0 = performance.now();
    if (how === 'slider') { slider.value = String(k); slider.dispatchEvent(new Event('input')); }
    else window.MG_MODEL.set('step', k);
    root.getBoundingClientRect();
    getComputedStyle(node).opacity;
    out.push(performance.now() - t0);
    if (root.getAttribute('data-mg-step') !== String(k)) throw new Error('step ' + k);
  }
  return out; }"""

# the widget: the module loaded as anywidget loads it (an ES module from a blob URL) and
# rendered by its default export over a model with the widget's traits
_MOUNT_WIDGET = """async ([src, traits]) => {
  const mod = await import(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));
  const values = Object.assign({}, traits), handlers = {};
  const model = {
    get: k => values[k],
    set: (k, v) => { if (values[k] === v) return; values[k] = v;
                     (handlers['change:' + k] || []).forEach(f => f()); },
    save_changes: () => {}, send: () => {},
    on: (e, f) => { (handlers[e] = handlers[e] || []).push(f); },
    off: (e, f) => { handlers[e] = (handlers[e] || []).filter(g => g !== f); },
  };
  window.MG_MODEL = model;
  const el = document.getElementById('host');
  await mod.default.render({model, el});
  return true; }"""


def browser_side(s) -> None:
    """Time a step of the page and of the widget in headless Chromium, same run."""
    import tempfile

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser: Playwright is not installed; skipped")
        return
    chromium = "/usr/bin/chromium"
    if not os.path.exists(chromium):
        print(f"browser: no {chromium}; skipped")
        return
    n = len(s)
    rng = random.Random(2)
    forward = list(range(1, n, max(1, n // 150)))
    jumps = [rng.randrange(n) for _ in range(150)]  # back and forth: replays from the start
    w = s.widget
    traits = {"markup": w.markup, "data": w.data, "step": 0, "speed": w.speed}
    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    results = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        path = s.save_html(os.path.join(tmp, "page.html"))
        b = p.chromium.launch(executable_path=chromium, args=args)
        try:
            for host in ("page", "widget", "page", "widget"):  # interleaved: the machine drifts
                page = b.new_page(viewport={"width": 1200, "height": 900})
                if host == "page":
                    page.goto(path.as_uri())
                else:
                    page.set_content("<html><body><div id=host></div></body></html>")
                    page.evaluate(_MOUNT_WIDGET, [w._esm, traits])
                page.wait_for_selector(".mg-player[data-mg-ready]")
                root = page.query_selector(".mg-player")
                hows = ("slider",) if host == "page" else ("slider", "model")
                for how in hows:
                    for name, steps in (("next", forward), ("jump", jumps)):
                        times = page.evaluate(_TIME_STEPS, [root, steps, how, None])
                        results.setdefault((host, how, name), []).extend(t / 1e3 for t in times)
                page.close()
        finally:
            b.close()
    for (host, how, name), times in sorted(results.items()):
        label = f"browser, {host} ({'Python step' if how == 'model' else how}), {name}:"
        print(f"{label:<44}{summary(times)}")
    for name in ("next", "jump"):
        page = statistics.median(results[("page", "slider", name)])
        for how in ("slider", "model"):
            wid = statistics.median(results[("widget", how, name)])
            verdict = "OK" if max(page, wid) <= 0.020 else "OVER"
            print(f"{name}: widget ({how}) / page = {wid / page:.2f}x "
                  f"(median {ms(wid)} vs {ms(page)}; target <= 20 ms: {verdict})")


if __name__ == "__main__":
    main()
