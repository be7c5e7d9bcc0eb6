/* minigrad step-through player: ONE ES module for every front end.

   It replays precomputed frames on an inline SVG: each frame stores only what
   changed since the previous one (class combination per element, gradient text
   per node); going back replays from the start, instant for graphs of this size.
   No dependencies, no network.

   Two hosts run this same file:
   - the notebook widget (viz.stepper.widgets.StepperWidget, an anywidget): its
     `render({model, el})` below; the step lives in the widget's `step` traitlet,
     so Python's stepper.goto(k) moves the page and the slider moves Python;
   - the standalone page and a notebook's text/html output (viz.stepper.page):
     a <script type="module"> holding this file (comments and layout stripped,
     viz.assets.compact) and one call, `mountAll(document)`, with a stand-in model
     (`pageModel`) over the page's own JSON data.
   Both build on the same markup (page.player_markup) and the same `mount`. */

/* A model for the page: the widget's model interface (get, set, on, off,
   save_changes) over the JSON in the player's <script class="mg-data">. */
export function pageModel(root) {
  var data = JSON.parse(root.querySelector("script.mg-data").textContent);
  var values = { data: data, step: data.start || 0, speed: data.speed || "normal" };
  var handlers = {};
  return {
    get: function (k) { return values[k]; },
    set: function (k, v) {
      if (values[k] === v) return;
      values[k] = v;
      (handlers["change:" + k] || []).slice().forEach(function (f) { f(); });
    },
    save_changes: function () {},
    on: function (ev, f) { (handlers[ev] = handlers[ev] || []).push(f); },
    off: function (ev, f) {
      handlers[ev] = (handlers[ev] || []).filter(function (g) { return g !== f; });
    },
  };
}

/* The player on `root` (a .mg-player element holding page.player_markup), driven
   by `model`; returns a function that removes what it attached outside root. */
export function mount(root, model) {
  if (root.getAttribute("data-mg-ready")) return function () {};
  root.setAttribute("data-mg-ready", "1");
  var data = model.get("data");
  var frames = data.frames, n = frames.length;
  var byId = function (id) { return root.querySelector('[id="' + id + '"]'); };
  var els = data.elements.map(byId);
  var base = els.map(function (el) { return el ? (el.getAttribute("data-mg-base") || "") : ""; });
  var gradEls = data.grad_nodes.map(function (i) {
    return root.querySelector('[data-mg-grad="' + data.elements[i] + '"]');
  });
  var gradSlot = {};  // element index -> its gradient slot
  data.grad_nodes.forEach(function (e, j) { gradSlot[e] = j; });
  var companions = data.companions.map(function (c) { return [byId(c[0]), c[1]]; });
  var codes = [], grads = [], comps = [], shownCodes = [], shownGrads = [], shownComps = [];
  var i;
  for (i = 0; i < els.length; i++) { codes.push(0); shownCodes.push(-1); }
  for (i = 0; i < companions.length; i++) { comps.push(""); shownComps.push(null); }
  for (i = 0; i < gradEls.length; i++) { grads.push(-1); shownGrads.push(-2); }
  var at = -1, timer = null, inspected = -1;
  var followers = [];  // what follows the step: folded modules' boxes, the memory strip
  var cleanups = [];

  var slider = root.querySelector(".mg-slider");
  var counter = root.querySelector(".mg-counter");
  var title = root.querySelector(".mg-title");
  var text = root.querySelector(".mg-text");
  var playBtn = root.querySelector('[data-act="play"]');
  var speed = root.querySelector(".mg-speed");
  var box = root.querySelector(".mg-graph");
  var svg = root.querySelector(".mg-graph svg");

  function replay(k) {
    var start = at + 1, f, j, d;
    if (at < 0 || k < at) {
      for (j = 0; j < codes.length; j++) codes[j] = 0;
      for (j = 0; j < grads.length; j++) grads[j] = -1;
      for (j = 0; j < comps.length; j++) comps[j] = "";
      start = 0;
    }
    for (f = start; f <= k; f++) {
      d = frames[f].c;
      for (j = 0; j < d.length; j++) codes[d[j][0]] = d[j][1];
      d = frames[f].g;
      for (j = 0; j < d.length; j++) grads[d[j][0]] = d[j][1];
      d = frames[f].s || [];
      for (j = 0; j < d.length; j++) comps[d[j][0]] = d[j][1];
    }
  }

  function show(k) {
    k = Math.max(0, Math.min(n - 1, k | 0));
    replay(k);
    at = k;
    var j, el, cls;
    for (j = 0; j < els.length; j++) {
      if (codes[j] === shownCodes[j] || !(el = els[j])) continue;
      cls = data.combos[codes[j]];
      el.setAttribute("class", cls ? base[j] + " " + cls : base[j]);
      shownCodes[j] = codes[j];
    }
    for (j = 0; j < companions.length; j++) {
      // a saved value: hidden with its node, struck through once released
      if (comps[j] === shownComps[j] || !(el = companions[j][0])) continue;
      cls = el.getAttribute("data-mg-base") || "";
      el.setAttribute("class", comps[j] ? cls + " " + comps[j] : cls);
      shownComps[j] = comps[j];
    }
    for (j = 0; j < gradEls.length; j++) {
      if (grads[j] === shownGrads[j] || !(el = gradEls[j])) continue;
      el.textContent = gradText(j);
      shownGrads[j] = grads[j];
    }
    slider.value = String(k);
    counter.textContent = "step " + (k + 1) + " / " + n;
    title.textContent = frames[k].t;
    text.textContent = frames[k].x;
    root.setAttribute("data-mg-step", String(k));
    for (j = 0; j < followers.length; j++) followers[j](k);
    if (inspected >= 0) inspect(inspected);
    if (model.get("step") !== k) { model.set("step", k); model.save_changes(); }
  }
  function gradText(j) { return grads[j] < 0 ? data.no_grad[j] : data.gtexts[grads[j]]; }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playBtn.textContent = "\u25B6 Play";
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (at >= n - 1) show(0);
    playBtn.textContent = "\u23F8 Pause";
    timer = setInterval(function () {
      if (at >= n - 1) { stop(); return; }
      show(at + 1);
    }, +speed.value);
  }
  cleanups.push(stop);

  root.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-act]");
    if (!b || !root.contains(b)) return;
    var act = b.getAttribute("data-act");
    if (act === "play") { play(); return; }
    stop();
    if (act === "first") show(0);
    else if (act === "prev") show(at - 1);
    else if (act === "next") show(at + 1);
    else if (act === "last") show(n - 1);
  });
  slider.addEventListener("input", function () { stop(); show(+slider.value); });
  speed.addEventListener("change", function () {
    var name = speed.options[speed.selectedIndex].text;
    if (model.get("speed") !== name) { model.set("speed", name); model.save_changes(); }
    if (timer !== null) { stop(); play(); }
  });
  /* keys, while the focus is in the player: heard on the window before anything else
     (capture phase), so a notebook's own shortcuts (Notebook 7 takes ArrowRight in
     command mode) do not swallow them; used keys go no further */
  function onKey(ev) {
    // (the real target: marimo puts the widget in a shadow root, which retargets events)
    var t = ev.composedPath ? ev.composedPath()[0] : ev.target;
    if (!t || !root.contains(t) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t.tagName === "INPUT" || t.tagName === "SELECT") return;
    var k = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: n - 1 }[ev.key];
    if (k !== undefined) { stop(); show(k); }
    else if (ev.key === " ") play();
    else return;
    ev.preventDefault();
    ev.stopPropagation();
  }
  window.addEventListener("keydown", onKey, true);
  cleanups.push(function () { window.removeEventListener("keydown", onKey, true); });

  // the other side moved: Python's goto, or the saved speed
  function onStep() { var k = model.get("step"); if (k !== at) { stop(); show(k); } }
  function onSpeed() {
    var name = model.get("speed");
    for (var j = 0; j < speed.options.length; j++) {
      if (speed.options[j].text === name && speed.selectedIndex !== j) {
        speed.selectedIndex = j;
        if (timer !== null) { stop(); play(); }
      }
    }
  }
  model.on("change:step", onStep);
  model.on("change:speed", onSpeed);
  cleanups.push(function () { model.off("change:step", onStep); model.off("change:speed", onSpeed); });

  /* click a node: its value, gradient (as it is at this step), saved values and
     formula in the inspector under the graph (data.info, viz.stepper.node_info) */
  var inspector = root.querySelector(".mg-inspect");
  var infoAt = {};  // element index -> its info
  (data.info || []).forEach(function (inf) { infoAt[inf.e] = inf; });
  function row(label, value) {
    var d = document.createElement("div"), b = document.createElement("b");
    b.textContent = label + " ";
    d.appendChild(b);
    d.appendChild(document.createTextNode(value));
    return d;
  }
  function inspect(e) {
    var inf = infoAt[e];
    if (!inspector || !inf) return;
    inspected = e;
    inspector.textContent = "";
    var g = gradSlot[e] !== undefined ? gradText(gradSlot[e]) : "grad \u2014";
    var head = document.createElement("div");
    head.className = "mg-inspect-title";
    head.textContent = inf.n + (inf.k ? " \u00b7 " + inf.k : "");
    inspector.appendChild(head);
    inspector.appendChild(row("value", inf.v));
    inspector.appendChild(row("grad", g.replace(/^grad /, "")));
    inspector.appendChild(row("formula", inf.f));
    inspector.appendChild(row("saved", inf.s.length ? inf.s.join(" \u00b7 ") : "nothing (a leaf, or an op whose rule needs no saved value)"));
    inspector.hidden = false;
    root.setAttribute("data-mg-inspected", data.elements[e]);
  }
  if (svg && inspector) {
    var index = {};
    data.elements.forEach(function (id, j) { index[id] = j; });
    svg.addEventListener("click", function (ev) {
      var g = ev.target.closest && ev.target.closest("g.node");
      if (!g || index[g.id] === undefined || !infoAt[index[g.id]]) return;
      inspect(index[g.id]);
    });
  }

  if (svg) {
    var fold = collapsible(root, svg);
    if (fold) followers.push(fold);
    var view = zoomPan(root, svg);
    cleanups.push(view.cleanup);
    followers.push(view.follow);
  }
  var strip = memoryStrip(root);
  if (strip) followers.push(strip);
  show(model.get("step") === undefined ? (data.start || 0) : model.get("step"));
  return function () { cleanups.forEach(function (f) { f(); }); };
}

/* The memory strip (viz.stepper.memory_strip) follows the step: the bar of the
   current step in red, those to come in grey, and the step's line under it. */
function memoryStrip(root) {
  var m = root.querySelector(".mg-memory");
  if (!m) return null;
  var d = JSON.parse(m.getAttribute("data-mg-memory"));
  var bars = m.querySelectorAll(".mg-mem-bar"), t = m.querySelector(".mg-mem-text");
  return function (i) {
    m.setAttribute("data-mg-at", i);
    for (var k = 0; k < bars.length; k++) {
      bars[k].setAttribute("class", "mg-mem-bar " + (k === i ? "mg-mem-now" : k > i ? "mg-mem-future" : "mg-mem-past"));
    }
    t.textContent = d.lines[i];
  };
}

/* ---------------------------------------------------------------- zoom and pan
   The layout never changes: zooming only sets the SVG's CSS size, inside the
   scrolling .mg-graph box. "fit" (the default) scales it to the box's width AND
   height (the box is at most 72% of the window tall), but not below FIT_FLOOR of
   the drawn size (text stays 8-9 px or more); a graph still bigger than the box
   scrolls, and the box follows the current node as the steps advance (`follow`)
   so it never steps out of sight. "100%" is the size graphviz drew; the buttons,
   Ctrl+wheel (or a pinch) zoom, dragging pans. Once zoomed, the stylesheet's
   readable floor (--mg-min-width) gives way to the chosen size. `zoomPan` also
   serves viz.draw's own output (root: its .minigrad-graph, box: the same). */
var ZOOM_STEP = 1.25, ZOOM_MIN = 0.1, ZOOM_MAX = 4, FIT_FLOOR = 0.6;

function naturalSize(svg) {
  // graphviz writes width="1869pt": a browser shows 1 pt as 4/3 px
  function px(v) {
    var m = /^([\d.]+)(pt|px)?$/.exec(v || "");
    return m ? parseFloat(m[1]) * (m[2] === "pt" ? 4 / 3 : 1) : 0;
  }
  var w = px(svg.getAttribute("width")), h = px(svg.getAttribute("height"));
  if (!w || !h) { var b = svg.viewBox.baseVal; w = b.width * 4 / 3; h = b.height * 4 / 3; }
  return [w, h];
}

export function zoomPan(root, svg, box) {
  box = box || root.querySelector(".mg-graph");
  var size = naturalSize(svg), scale = 1, fitted = true;
  var bar = document.createElement("div");
  bar.className = "mg-zoom";
  bar.innerHTML =
    '<button type="button" data-zoom="out" title="Zoom out (Ctrl+wheel)">\u2212</button>' +
    '<span class="mg-zoom-level" title="zoom">100%</span>' +
    '<button type="button" data-zoom="in" title="Zoom in (Ctrl+wheel)">+</button>' +
    '<button type="button" data-zoom="fit" title="Fit the graph to the box">fit</button>' +
    '<button type="button" data-zoom="one" title="The size it was drawn at">100%</button>' +
    '<span class="mg-zoom-hint">drag to pan, Ctrl+wheel to zoom' +
    (root.classList.contains("mg-player") ? ", click a node to inspect it, a module to fold it" : "") +
    "</span>";
  box.parentNode.insertBefore(bar, box);
  var level = bar.querySelector(".mg-zoom-level");

  function room() {
    var h = parseFloat(getComputedStyle(box).maxHeight);
    return [box.clientWidth - 2, (isFinite(h) && h > 0 ? h : box.clientHeight) - 2];
  }
  function fitScale() {
    var r = room();
    if (r[0] <= 0) return 1;
    var s = Math.min(1, r[0] / size[0], r[1] > 0 ? r[1] / size[1] : 1);
    return Math.max(FIT_FLOOR, s);
  }
  // zoom to s keeping the graph point under (cx, cy) (box coordinates) in place
  function zoomTo(s, cx, cy) {
    s = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, s));
    if (cx === undefined) { cx = box.clientWidth / 2; cy = box.clientHeight / 2; }
    var gx = (box.scrollLeft + cx) / scale, gy = (box.scrollTop + cy) / scale;
    scale = s;
    svg.style.maxWidth = "none";
    svg.style.minWidth = "0";
    svg.style.width = (size[0] * s) + "px";
    svg.style.height = (size[1] * s) + "px";
    box.scrollLeft = gx * s - cx;
    box.scrollTop = gy * s - cy;
    level.textContent = Math.round(s * 100) + "%";
    root.setAttribute("data-mg-zoom", s.toFixed(4));
  }
  function fit() {
    fitted = true; zoomTo(fitScale(), 0, 0); box.scrollLeft = box.scrollTop = 0;
    follow();
  }

  bar.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-zoom]");
    if (!b) return;
    var act = b.getAttribute("data-zoom");
    if (act === "fit") { fit(); return; }
    fitted = false;
    if (act === "one") zoomTo(1);
    else zoomTo(act === "in" ? scale * ZOOM_STEP : scale / ZOOM_STEP);
  });
  function onWheel(ev) {
    if (!ev.ctrlKey && !ev.metaKey) return;  // a plain wheel scrolls the page as usual
    ev.preventDefault();
    var r = box.getBoundingClientRect();
    fitted = false;
    zoomTo(scale * Math.pow(ZOOM_STEP, -ev.deltaY / 100), ev.clientX - r.left, ev.clientY - r.top);
  }
  box.addEventListener("wheel", onWheel, { passive: false });

  var drag = null;
  function onDown(ev) {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, left: box.scrollLeft, top: box.scrollTop, moved: false };
  }
  box.addEventListener("mousedown", onDown);
  function onMove(ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    box.classList.add("mg-dragging");
    box.scrollLeft = drag.left - dx;
    box.scrollTop = drag.top - dy;
    ev.preventDefault();
  }
  function onUp() {
    if (drag && drag.moved) {
      // the click that ends a drag must not fold a module or inspect a node
      var swallow = function (e) { e.stopPropagation(); };
      box.addEventListener("click", swallow, true);
      setTimeout(function () { box.removeEventListener("click", swallow, true); }, 0);
    }
    drag = null;
    box.classList.remove("mg-dragging");
  }
  window.addEventListener("mousemove", onMove);
  window.addEventListener("mouseup", onUp);

  /* the current node (else the one receiving) stays in sight: when it is outside
     the box's visible part, the box scrolls to centre it (nothing else moves) */
  function follow() {
    var el = svg.querySelector("g.node.current") || svg.querySelector("g.node.receiving") ||
      svg.querySelector("g.edge.current");
    if (!el) return;
    var r = el.getBoundingClientRect(), b = box.getBoundingClientRect(), pad = 12;
    if (!r.width && !r.height) return;
    var dx = 0, dy = 0;
    if (r.left < b.left + pad || r.right > b.right - pad) dx = (r.left + r.right) / 2 - (b.left + b.right) / 2;
    if (r.top < b.top + pad || r.bottom > b.bottom - pad) dy = (r.top + r.bottom) / 2 - (b.top + b.bottom) / 2;
    if (dx) box.scrollLeft += dx;
    if (dy) box.scrollTop += dy;
  }
  var observer = null;
  if (window.ResizeObserver) {
    observer = new ResizeObserver(function () { if (fitted) fit(); });
    observer.observe(box);
  }
  fit();
  return {
    follow: follow,
    cleanup: function () {
      window.removeEventListener("mousemove", onMove);
      window.removeEventListener("mouseup", onUp);
      box.removeEventListener("wheel", onWheel, { passive: false });
      box.removeEventListener("mousedown", onDown);
      if (observer) observer.disconnect();
      if (bar.parentNode) bar.parentNode.removeChild(bar);  // (another drawing gets its own)
    },
  };
}

/* ---------------------------------------------------------------- folding modules
   A module's cluster (g.cluster.module, id c_<path>) folds into a box when
   clicked, and unfolds when the box is clicked. Nothing is laid out again: the
   box is drawn over the cluster's area and the module's nodes and inner edges
   are hidden (inline display, which the per-step classes do not touch). A node
   belongs to a cluster when its centre lies inside the cluster's rectangle
   (graphviz draws clusters around their nodes); an edge when both its ends do
   (ids e_<child>_<parent>_<slot>); a saved value with its node. The box says
   what viz.draw(modules="box") says: the title, the node count, and the
   lines of the module's one output node (shape, data, grad), re-read at every
   step so its gradient follows the replay. */
var SVGNS = "http://www.w3.org/2000/svg";

function collapsible(root, svg) {
  var clusters = [].slice.call(svg.querySelectorAll("g.cluster.module"));
  if (!clusters.length) return null;
  var layer = svg.querySelector("g.graph") || svg;
  var nodes = [].slice.call(svg.querySelectorAll("g.node[id^='n_']"));
  var rest = [].slice.call(svg.querySelectorAll("g.edge, g.saved"));
  var centre = {};
  nodes.forEach(function (n) {
    var b = n.getBBox();
    centre[n.id] = [b.x + b.width / 2, b.y + b.height / 2];
  });
  var infos = clusters.map(function (c) {
    var r = c.getBBox(), inside = {}, members = [], output = null;
    nodes.forEach(function (n) {
      var p = centre[n.id];
      if (p[0] > r.x && p[0] < r.x + r.width && p[1] > r.y && p[1] < r.y + r.height) {
        inside[n.id.slice(2)] = true; members.push(n);
      }
    });
    rest.forEach(function (el) {
      var m = /^e_(\d+)_(\d+)_/.exec(el.id), s = /^se?_(\d+)_/.exec(el.id);
      if (m && inside[m[1]] && inside[m[2]]) members.push(el);
      else if (m && inside[m[2]] && !inside[m[1]]) output = output === null || output === m[2] ? m[2] : "";
      else if (!m && s && inside[s[1]]) members.push(el);
    });
    var title = c.querySelector("text");
    return { el: c, rect: r, members: members, count: Object.keys(inside).length,
             output: output ? svg.querySelector('[id="n_' + output + '"]') : null,
             title: title ? title.textContent : c.id, box: null, folded: false };
  });
  infos.forEach(function (a) {  // clusters nested in a: folded with it
    a.inner = infos.filter(function (b) {
      return b !== a && b.rect.x >= a.rect.x && b.rect.y >= a.rect.y &&
        b.rect.x + b.rect.width <= a.rect.x + a.rect.width &&
        b.rect.y + b.rect.height <= a.rect.y + a.rect.height;
    });
  });

  function lines(info) {
    var out = [info.title, info.count + (info.count === 1 ? " node" : " nodes")];
    if (info.output) {
      var texts = info.output.querySelectorAll("text");
      for (var i = 1; i < texts.length; i++) {  // (its first text is the op symbol)
        if (getComputedStyle(texts[i]).display !== "none") out.push(texts[i].textContent);
      }
    }
    return out;
  }
  function drawBox(info) {
    var g = document.createElementNS(SVGNS, "g"), r = info.rect;
    g.setAttribute("class", "mg-box");
    g.setAttribute("id", "box_" + info.el.id);
    var rect = document.createElementNS(SVGNS, "rect");
    rect.setAttribute("x", r.x); rect.setAttribute("y", r.y);
    rect.setAttribute("width", r.width); rect.setAttribute("height", r.height);
    rect.setAttribute("rx", 6);
    g.appendChild(rect);
    layer.appendChild(g);
    info.box = g;
  }
  function fillBox(info) {
    var g = info.box, r = info.rect, old = g.querySelectorAll("text"), i;
    for (i = 0; i < old.length; i++) g.removeChild(old[i]);
    var text = lines(info), size = 11, gap = 14;
    for (i = 0; i < text.length && (i + 1) * gap + 4 <= r.height; i++) {
      var t = document.createElementNS(SVGNS, "text");
      t.setAttribute("x", r.x + 6);
      t.setAttribute("y", r.y + 4 + (i + 1) * gap - 3);
      t.setAttribute("font-size", size);
      if (i === 0) t.setAttribute("font-weight", "bold");
      t.textContent = text[i];
      g.appendChild(t);
      var room = r.width - 12, wide = t.getComputedTextLength();
      if (wide > room) t.setAttribute("font-size", Math.max(4, size * room / wide));
    }
    // the box shows the state of its members: faded before any of them exists,
    // outlined like the current node when one of them is current
    var state = info.members.map(function (m) { return m.getAttribute("class") || ""; });
    var shown = state.some(function (c) { return c.indexOf("node") >= 0 && !/\bhidden\b/.test(c); });
    var current = state.some(function (c) { return /\b(current|receiving)\b/.test(c); });
    g.setAttribute("class", "mg-box" + (shown ? "" : " mg-box-empty") + (current ? " mg-box-current" : ""));
  }
  function refresh() {
    var hidden = new Set();
    infos.forEach(function (a) {
      if (!a.folded) return;
      a.members.forEach(function (m) { hidden.add(m); });
      a.inner.forEach(function (b) { hidden.add(b.el); if (b.box) hidden.add(b.box); });
    });
    nodes.concat(rest).forEach(function (el) { el.style.display = hidden.has(el) ? "none" : ""; });
    infos.forEach(function (a) {
      a.el.style.display = hidden.has(a.el) ? "none" : "";
      if (!a.box) return;
      var on = a.folded && !hidden.has(a.box);
      a.box.style.display = on ? "" : "none";
      if (on) fillBox(a);
    });
    root.setAttribute("data-mg-folded", infos.filter(function (a) { return a.folded; })
      .map(function (a) { return a.el.id; }).join(" "));
  }
  function toggle(info) {
    info.folded = !info.folded;
    if (info.folded && !info.box) drawBox(info);
    refresh();
  }
  infos.forEach(function (info) {
    info.el.addEventListener("click", function () { toggle(info); });
  });
  layer.addEventListener("click", function (ev) {
    var g = ev.target.closest && ev.target.closest("g.mg-box");
    if (!g) return;
    infos.forEach(function (info) { if (info.box === g) toggle(info); });
  });
  return refresh;
}


/* ---------------------------------------------------------------- opening overview groups
   viz.draw's overview of a big graph (viz.render.overview_html) carries drawings of
   itself with groups opened: drawing k (0: the one shown first) in a
   <template class="mg-alt" data-mg-alt="k">, and in script.mg-alts, per drawing, the
   groups it opened and which drawing each of its group boxes leads to ({"g_2": 1}).
   Clicking a box swaps the shown SVG for that drawing (zoom and pan start again on it,
   fitted); "back" returns to the drawing before, "overview" to the first, and clicking
   an opened group's "× k more" box folds it. Nothing is laid out in the page. */
export function expandable(root, box) {
  var data = JSON.parse(root.querySelector("script.mg-alts").textContent);
  var drawings = { 0: box.querySelector("svg") };
  var history = [], at = 0, view = null;
  var bar = document.createElement("div");
  bar.className = "mg-expand";
  bar.innerHTML =
    '<button type="button" data-expand="back" title="The drawing before">\u25C0 back</button>' +
    '<button type="button" data-expand="top" title="The overview as first drawn">overview</button>' +
    '<span class="mg-expand-what"></span>';
  box.parentNode.insertBefore(bar, box);
  var what = bar.querySelector(".mg-expand-what");

  function drawing(k) {  // (an embedded drawing is parsed once, when first opened)
    if (!drawings[k]) {
      var t = root.querySelector('template.mg-alt[data-mg-alt="' + k + '"]');
      drawings[k] = document.importNode(t.content.querySelector("svg"), true);
    }
    return drawings[k];
  }
  function showDrawing(k) {
    var svg = drawing(k), old = box.querySelector("svg");
    if (old !== svg) box.replaceChild(svg, old);
    at = k;
    if (view) view.cleanup();
    view = zoomPan(root, svg, box);
    var links = data[k].links;
    svg.querySelectorAll("g.node.group").forEach(function (g) {
      g.classList.toggle("mg-openable", links[g.id] !== undefined);
    });
    var open = data[k].open;
    what.textContent = open.length ? "opened: " + open.join(", ") + " (click its \u00d7 \u2026 more box to fold it)"
      : "click a group box to open it";
    bar.querySelector('[data-expand="back"]').disabled = !history.length;
    bar.querySelector('[data-expand="top"]').disabled = k === 0;
    root.setAttribute("data-mg-drawing", String(k));
  }
  bar.addEventListener("click", function (ev) {
    var b = ev.target.closest("[data-expand]");
    if (!b) return;
    if (b.getAttribute("data-expand") === "back" && history.length) showDrawing(history.pop());
    else if (b.getAttribute("data-expand") === "top" && at !== 0) { history.push(at); showDrawing(0); }
  });
  box.addEventListener("click", function (ev) {  // (a drag's closing click never gets here)
    var g = ev.target.closest && ev.target.closest("g.node.group");
    var to = g ? data[at].links[g.id] : undefined;
    if (to === undefined) return;
    history.push(at);
    showDrawing(to);
  });
  showDrawing(0);
}

/* Every player (and every viz.draw output marked data-mg-zoom) in `doc` not yet
   running: what the page's and the text/html output's <script type="module"> call. */
export function mountAll(doc) {
  var roots = doc.querySelectorAll(".mg-player:not([data-mg-ready])");
  for (var r = 0; r < roots.length; r++) mount(roots[r], pageModel(roots[r]));
  var graphs = doc.querySelectorAll(".minigrad-graph[data-mg-zoom-pan]:not([data-mg-ready])");
  for (var g = 0; g < graphs.length; g++) {
    var svg = graphs[g].querySelector(".mg-graph svg");
    graphs[g].setAttribute("data-mg-ready", "1");
    if (!svg) continue;
    if (graphs[g].hasAttribute("data-mg-expand")) expandable(graphs[g], graphs[g].querySelector(".mg-graph"));
    else zoomPan(graphs[g], svg, graphs[g].querySelector(".mg-graph"));
  }
}

/* anywidget's entry point: the widget's markup (the same as the page's), then mount. */
function render(ctx) {
  ctx.el.classList.add("mg-stepper-widget");  // (tests and page styles tell it from the page)
  ctx.el.innerHTML = ctx.model.get("markup");
  var root = ctx.el.querySelector(".mg-player");
  return mount(root, ctx.model);
}

export default { render: render };
