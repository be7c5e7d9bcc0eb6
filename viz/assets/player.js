/* minigrad step-through player: replays precomputed frames on an inline SVG.
   No dependencies, no network. Each frame stores only what changed since the
   previous one (class combination per element, gradient text per node); going
   back replays from the start, which is instant for graphs of this size. */
(function () {
  "use strict";

  function setup(root) {
    if (root.getAttribute("data-mg-ready")) return;
    root.setAttribute("data-mg-ready", "1");
    var data = JSON.parse(root.querySelector("script.mg-data").textContent);
    var frames = data.frames, n = frames.length;
    var byId = function (id) { return root.querySelector('[id="' + id + '"]'); };
    var els = data.elements.map(byId);
    var base = els.map(function (el) { return el ? (el.getAttribute("data-mg-base") || "") : ""; });
    var gradEls = data.grad_nodes.map(function (i) {
      return root.querySelector('[data-mg-grad="' + data.elements[i] + '"]');
    });
    var companions = data.companions.map(function (c) { return [byId(c[0]), c[1]]; });
    var codes = [], grads = [], comps = [], shownCodes = [], shownGrads = [], shownComps = [];
    var i;
    for (i = 0; i < els.length; i++) { codes.push(0); shownCodes.push(-1); }
    for (i = 0; i < companions.length; i++) { comps.push(""); shownComps.push(null); }
    for (i = 0; i < gradEls.length; i++) { grads.push(-1); shownGrads.push(-2); }
    var at = -1, timer = null;

    var slider = root.querySelector(".mg-slider");
    var counter = root.querySelector(".mg-counter");
    var title = root.querySelector(".mg-title");
    var text = root.querySelector(".mg-text");
    var playBtn = root.querySelector('[data-act="play"]');
    var speed = root.querySelector(".mg-speed");

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
        el.textContent = grads[j] < 0 ? data.no_grad[j] : data.gtexts[grads[j]];
        shownGrads[j] = grads[j];
      }
      slider.value = String(k);
      counter.textContent = "step " + (k + 1) + " / " + n;
      title.textContent = frames[k].t;
      text.textContent = frames[k].x;
      root.setAttribute("data-mg-step", String(k));
    }

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
    speed.addEventListener("change", function () { if (timer !== null) { stop(); play(); } });
    root.addEventListener("keydown", function (ev) {
      if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
      var k = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: n - 1 }[ev.key];
      if (k !== undefined) { stop(); show(k); ev.preventDefault(); }
      else if (ev.key === " ") { play(); ev.preventDefault(); }
    });
    show(data.start || 0);
  }

  var roots = document.querySelectorAll(".mg-player");
  for (var r = 0; r < roots.length; r++) setup(roots[r]);
})();
