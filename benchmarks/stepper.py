"""How long one step of the step-through takes on a ~300-node graph.

The graph: a scalar MLP 3-8-8-1 and a squared-error loss, built and
backpropagated inside ``minigrad.record()`` (about 330 nodes, ~950 steps in
mode "both").  Timed once: recording, building the frames, the graphviz
layout, the widget (its SVG is sent once), the standalone HTML export.  Timed
per step: what the widget does when the slider moves (state cursor, the step's
id-keyed stylesheet, panel and counter updated), for every step in order and
for random jumps.  Outside a kernel no message is actually sent; the per-step
message size is printed.  With ``--browser`` (Debian chromium + Playwright)
the browser side is timed too: swap the step's stylesheet on the inline SVG
and wait for the style recalculation and layout.

    python benchmarks/stepper.py [--layers 8 8] [--jumps 300] [--browser]
Target: one step <= 20 ms for a 300-node graph.
"""

from __future__ import annotations

import argparse
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
    if svg is not None:
        sizes = [len(s.step_css(i)) for i in range(0, len(s), 7)]
        print(f"sent once: SVG {len(widget.graph.value) / 1e3:.0f} kB; sent per step: a "
              f"stylesheet of {statistics.median(sizes) / 1e3:.1f} kB (max "
              f"{max(sizes) / 1e3:.1f} kB) plus the panel text")

    seq = []
    for i in range(1, len(s)):
        a = time.perf_counter()
        widget.slider.value = i
        seq.append(time.perf_counter() - a)
    assert s.step == len(s) - 1
    rng = random.Random(1)
    jumps = []
    for _ in range(args.jumps):
        i = rng.randrange(len(s))
        while i == s.step:
            i = rng.randrange(len(s))
        a = time.perf_counter()
        widget.slider.value = i
        jumps.append(time.perf_counter() - a)
    css = []
    for i in range(0, len(s), max(1, len(s) // 200)):
        a = time.perf_counter()
        s.step_css(i)
        css.append(time.perf_counter() - a)
    print(f"per step, next (slider +1):   {summary(seq)}")
    print(f"per step, random jump:        {summary(jumps)}")
    print(f"  of which the stylesheet:    {summary(css)}")
    worst = max(statistics.median(seq), statistics.median(jumps))
    verdict = "OK" if worst <= 0.020 else "OVER"
    print(f"target <= 20 ms per step (Python side): {verdict} (median {ms(worst)})")
    if args.browser:
        browser_side(s)


def browser_side(s) -> None:
    """Restyle the inline SVG in headless Chromium, as the widget's frontend does."""
    import json

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser: Playwright is not installed; skipped")
        return
    from viz.stepper.template import css

    chromium = "/usr/bin/chromium"
    if not os.path.exists(chromium):
        print(f"browser: no {chromium}; skipped")
        return
    steps = list(range(0, len(s), max(1, len(s) // 150)))
    sheets = [s.step_css(i) for i in steps]
    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=args)
        try:
            page = b.new_page(viewport={"width": 1200, "height": 900})
            page.set_content(f"<style>{css()}</style><div id=restyle></div>"
                             f"<div id=graph>{s.widget.graph.value}</div>")
            page.evaluate(f"window.SHEETS = {json.dumps(sheets)}")
            times = page.evaluate("""async () => {
              const host = document.getElementById('restyle'), out = [];
              const graph = document.getElementById('graph');
              for (const css of SHEETS) {
                await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
                const t0 = performance.now();
                host.innerHTML = '<style>' + css + '</style>';
                graph.getBoundingClientRect();
                getComputedStyle(graph.querySelector('g.node')).opacity;
                out.push(performance.now() - t0);
              }
              return out; }""")
        finally:
            b.close()
    print(f"browser, restyle one step:    {summary([t / 1e3 for t in times])}")


if __name__ == "__main__":
    main()
