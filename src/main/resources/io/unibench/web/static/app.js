// Charts of the run and compare pages and of the HTML reports (which inline this file and uPlot): uPlot over the
// JSON the server embedded in a <script type="application/json">: the one named by the chart's enclosing
// [data-charts] element, else #chart-data (a report of several runs has one block per run). Every chart registers
// itself in window.unibenchCharts (id -> {series, points}) for the tests.
(function () {
  "use strict";
  window.unibenchCharts = {};
  var COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];
  wirePicker();
  wireDelete();
  if (typeof uPlot === "undefined") return;
  var blocks = {};

  function dataOf(el) {
    var holder = el.closest("[data-charts]");
    var id = holder ? holder.getAttribute("data-charts") : "chart-data";
    if (!(id in blocks)) {
      var script = document.getElementById(id);
      blocks[id] = script ? JSON.parse(script.textContent) : null;
    }
    return blocks[id];
  }

  function width(el) { return Math.max(280, el.clientWidth - 16); }

  function empty(el, why) {
    el.classList.add("no-data");
    el.appendChild(document.createElement("p")).textContent = why;
  }

  function draw(el, opts, cols, nPoints) {
    var title = el.getAttribute("data-title");
    opts.title = title;
    opts.width = width(el);
    opts.height = 240;
    opts.legend = opts.legend || { live: false };
    (opts.axes || []).forEach(function (a, i) {
      if (i === 0) return;
      if (a.size === undefined) a.size = 56;
      if (a.values === undefined) a.values = function (u, vals) { return vals.map(compact); };
    });
    var u = new uPlot(opts, cols, el);
    window.unibenchCharts[el.id] = { series: opts.series.length - 1, points: nPoints, x: cols[0] };
    new ResizeObserver(function () { u.setSize({ width: width(el), height: 240 }); }).observe(el);
  }

  // axis ticks: 130000 -> 130k, 2500000 -> 2.5M, small values as uPlot would print them
  function compact(v) {
    if (v === null) return "";
    var a = Math.abs(v);
    if (a >= 1e6) return +(v / 1e6).toFixed(2) + "M";
    if (a >= 1e4) return +(v / 1e3).toFixed(1) + "k";
    return +v.toFixed(4) + "";
  }

  function line(label, i, extra) {
    var s = { label: label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true,
      points: { show: true, size: 5 } };
    for (var k in extra) s[k] = extra[k];
    return s;
  }

  function anyValue(ys) {
    return ys.some(function (y) { return y.some(function (v) { return v !== null; }); });
  }

  function dist(el, d, labels, x) {
    if (!d || !anyValue(d.y)) return empty(el, "No values stored for this metric.");
    var series = [{ label: "percentile" }].concat(labels.map(function (l, i) { return line(l, i); }));
    draw(el, { series: series, axes: [{ label: "percentile (%)" }, {}], scales: { x: { time: false } } },
      [d.x].concat(d.y), d.x.length);
  }

  function ttftTime(el, d) {
    if (!d || d.t_s.length === 0) return empty(el, "No successful request with a first token.");
    var idx = d.t_s.map(function (_, i) { return i; }).sort(function (a, b) { return d.t_s[a] - d.t_s[b]; });
    var t = idx.map(function (i) { return d.t_s[i]; });
    var y = idx.map(function (i) { return d.ttft_ms[i]; });
    el.setAttribute("data-title", el.getAttribute("data-title") + (d.t_s.length < d.requests
      ? " — " + d.t_s.length + " of " + d.requests + " requests, evenly spread" : ""));
    draw(el, {
      series: [{ label: "s" }, { label: "TTFT (ms)", stroke: COLORS[0], paths: function () { return null; },
        points: { show: true, size: 3, fill: COLORS[0] } }],
      axes: [{ label: "seconds since start" }, {}], scales: { x: { time: false } }, legend: { show: false }
    }, [t, y], t.length);
  }

  function throughput(el, d) {
    if (!d || d.t_s.length === 0) return empty(el, "No workload timeline stored (runs before schema 7 have none).");
    draw(el, { series: [{ label: "s" }, line("output tok/s", 2, { points: { show: false } })],
      axes: [{ label: "seconds since start" }, {}], scales: { x: { time: false } } }, [d.t_s, d.output_tok_s],
      d.t_s.length);
  }

  // a dashed vertical line at the knee's level, labelled
  function kneeMarker(knee) {
    return { hooks: { draw: [function (u) {
      var x = Math.round(u.valToPos(knee.x, "x", true)), ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      ctx.save();
      ctx.strokeStyle = "#d97706";
      ctx.lineWidth = 2 * devicePixelRatio;
      ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
      ctx.fillStyle = "#92400e";
      ctx.font = (11 * devicePixelRatio) + "px system-ui, sans-serif";
      ctx.fillText("knee", x + 4 * devicePixelRatio, top + 12 * devicePixelRatio);
      ctx.restore();
    }] } };
  }

  // the per-level curves of one kind: "levels" (closed loop, x the concurrency) or "rate_levels" (x the offered
  // rate: an open loop's concurrency is -1 or its bound, which names no level). A kind the run has no point of is
  // hidden when the other kind has some, so a run of both kinds shows both charts and a run of one kind one.
  function hiddenBeside(el, n, nOther) {
    if (n > 0 || nOther === 0) return false;
    el.hidden = true;
    return true;
  }

  function levels(el, data, kind) {
    var d = data[kind], other = data[kind === "levels" ? "rate_levels" : "levels"];
    if (hiddenBeside(el, d.x.length, other.x.length)) return;
    // one level draws no curve: no card rather than an empty one (a run of several levels has its curves)
    if (d.x.length < 2) { el.hidden = true; return; }
    if (d.knee) {
      el.setAttribute("data-title", el.getAttribute("data-title") + " — knee at concurrency " + d.knee.x);
      el.setAttribute("data-knee", d.knee.x);
      el.title = "knee: " + d.knee.reason;
    }
    draw(el, {
      plugins: d.knee ? [kneeMarker(d.knee)] : [],
      series: [{ label: d.x_label }, line("output tok/s", 0, { scale: "tok" }), line("TTFT p95 (ms)", 1, { scale: "ms" })],
      axes: [{ label: d.x_label }, { scale: "tok", label: "tok/s" }, { scale: "ms", side: 1, label: "ms", grid: { show: false } }],
      scales: { x: { time: false } }
    }, [d.x, d.output_tok_s, d.ttft_p95_ms], d.x.length);
  }

  // the server's own series: the keys ("key:label,...") the engine exposed; the block hidden when it had none
  function server(el, d) {
    var holder = el.closest(".server-charts");
    if (!d) { if (holder) holder.hidden = true; return; }
    var keys = el.getAttribute("data-keys").split(",").map(function (k) { return k.split(":"); })
      .filter(function (k) { return d[k[0]].some(function (v) { return v !== null; }); });
    el.setAttribute("data-title", "Server (" + d.engine + "): " + el.getAttribute("data-title"));
    if (keys.length === 0) return empty(el, "The server's /metrics has none of these series.");
    draw(el, { series: [{ label: "s" }].concat(keys.map(function (k, i) { return line(k[1], i); })),
      axes: [{ label: "seconds since start" }, {}], scales: { x: { time: false } } },
      [d.t_s].concat(keys.map(function (k) { return d[k[0]]; })), d.t_s.length);
  }

  function lastOf(d, key) {
    var dd = d[key];
    return { x: dd.x, y: dd.y.length ? dd.y[dd.y.length - 1] : [] };
  }

  // the compare page: data.runs[i] is run data.keys[i]'s chart data (A the baseline, then B, C, ...)
  function cmpDist(el, data, key) {
    var sides = data.runs.map(function (r) { return lastOf(r, key); });
    if (!anyValue(sides.map(function (s) { return s.y; }))) return empty(el, "No values stored for this metric.");
    draw(el, { series: [{ label: "percentile" }].concat(data.keys.map(function (k, i) { return line(k, i); })),
      axes: [{ label: "percentile (%)" }, {}], scales: { x: { time: false } } },
      [sides[0].x].concat(sides.map(function (s) { return s.y; })), sides[0].x.length);
  }

  // every run's per-level curve on one x axis: the union of their levels, a gap where a run has no such level
  function cmpLevels(el, data, key, kind) {
    var otherKind = kind === "levels" ? "rate_levels" : "levels";
    var ls = data.runs.map(function (r) { return r[kind]; });
    function count(k) { return data.runs.reduce(function (n, r) { return n + r[k].x.length; }, 0); }
    if (hiddenBeside(el, count(kind), count(otherKind))) return;
    var xs = Array.from(new Set([].concat.apply([], ls.map(function (l) { return l.x; }))))
      .sort(function (p, q) { return p - q; });
    function col(l) { return xs.map(function (x) { var i = l.x.indexOf(x); return i < 0 ? null : l[key][i]; }); }
    if (xs.length === 0) return empty(el, "No finished points.");
    draw(el, { series: [{ label: ls[0].x_label }].concat(data.keys.map(function (k, i) { return line(k, i); })),
      axes: [{ label: ls[0].x_label }, {}], scales: { x: { time: false } } }, [xs].concat(ls.map(col)), xs.length);
  }

  // the runs' series over their own seconds since start, on one x axis (uPlot.join fills the gaps with nulls)
  function cmpOverTime(el, data, key, ykey, dots) {
    var ds = data.runs.map(function (r) { return r[key]; });
    if (ds.every(function (d) { return !d || d.t_s.length === 0; })) return empty(el, "No values stored for any run.");
    function sorted(d) {
      if (!d) return [[], []];
      var idx = d.t_s.map(function (_, i) { return i; }).sort(function (p, q) { return d.t_s[p] - d.t_s[q]; });
      return [idx.map(function (i) { return d.t_s[i]; }), idx.map(function (i) { return d[ykey][i]; })];
    }
    var joined = uPlot.join(ds.map(sorted));
    function s(label, i) {
      return dots ? { label: label, stroke: COLORS[i], paths: function () { return null; },
        points: { show: true, size: 3, fill: COLORS[i] } } : line(label, i, { points: { show: false } });
    }
    draw(el, { series: [{ label: "s" }].concat(data.keys.map(s)), axes: [{ label: "seconds since start" }, {}],
      scales: { x: { time: false } } }, joined, joined[0].length);
  }

  document.querySelectorAll(".chart").forEach(function (el) {
    var kind = el.getAttribute("data-kind"), key = el.getAttribute("data-key");
    if (!kind) return; // the live page's charts: live.js draws them
    var data = dataOf(el);
    if (!data) return;
    if (kind === "dist") dist(el, data[key], data.labels);
    else if (kind === "ttft-time") ttftTime(el, data.ttft_over_time);
    else if (kind === "throughput") throughput(el, data.throughput);
    else if (kind === "levels" || kind === "rate_levels") levels(el, data, kind);
    else if (kind === "server") server(el, data.server);
    else if (kind === "cmp-dist") cmpDist(el, data, key);
    else if (kind === "cmp-levels") cmpLevels(el, data, key, "levels");
    else if (kind === "cmp-rate-levels") cmpLevels(el, data, key, "rate_levels");
    else if (kind === "cmp-ttft-time") cmpOverTime(el, data, "ttft_over_time", "ttft_ms", true);
    else if (kind === "cmp-throughput") cmpOverTime(el, data, "throughput", "output_tok_s", false);
  });

  // The run page's Delete: the question names what goes with the run (RunLinks.deleteQuestion), then the list.
  function wireDelete() {
    var b = document.getElementById("delete-run");
    if (!b) return;
    b.addEventListener("click", function () {
      if (!window.confirm(b.getAttribute("data-confirm"))) return;
      b.disabled = true;
      fetch("/api/runs/" + encodeURIComponent(b.getAttribute("data-run")), { method: "DELETE" }).then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error(body.error);
          window.location.href = "/";
        });
      }).catch(function (e) {
        b.disabled = false;
        b.textContent = "Not deleted: " + e.message;
      });
    });
  }

  // runs page: two or more ticked runs (up to 8, one colour each) -> /compare?a=BASELINE&b=...&b=...; the baseline is
  // chosen among the ticked runs (the first ticked by default), the others are B, C, ... in the order ticked
  function wirePicker() {
    var picks = Array.prototype.slice.call(document.querySelectorAll("input.pick"));
    var button = document.getElementById("compare-button");
    if (!button) return;
    var MAX = 8, order = [], baseline = null;
    var select = document.getElementById("compare-baseline"), label = document.getElementById("compare-baseline-label");
    var hint = document.getElementById("compare-hint"), others = document.getElementById("compare-b");
    function nameOf(id) {
      var p = picks.filter(function (q) { return q.value === id; })[0];
      return p ? p.getAttribute("data-name") : id;
    }
    function update() {
      if (order.indexOf(baseline) < 0) baseline = order[0] || null;
      select.innerHTML = "";
      order.forEach(function (id) {
        var o = document.createElement("option");
        o.value = id;
        o.textContent = nameOf(id) + (nameOf(id) === id ? "" : " (" + id + ")");
        o.selected = id === baseline;
        select.appendChild(o);
      });
      label.hidden = order.length < 2;
      document.getElementById("compare-a").value = baseline || "";
      others.innerHTML = "";
      var rest = order.filter(function (id) { return id !== baseline; });
      rest.forEach(function (id) {
        var input = document.createElement("input");
        input.type = "hidden";
        input.name = "b";
        input.value = id;
        others.appendChild(input);
      });
      button.disabled = order.length < 2;
      hint.textContent = order.length < 2 ? "Select two or more runs to compare them."
        : "A = " + nameOf(baseline) + " (baseline), " + rest.map(function (id, i) {
          return String.fromCharCode(66 + i) + " = " + nameOf(id);
        }).join(", ");
    }
    picks.forEach(function (p) {
      p.addEventListener("change", function () {
        order = order.filter(function (v) { return v !== p.value; });
        if (p.checked) order.push(p.value);
        while (order.length > MAX) {
          var drop = order.shift();
          picks.forEach(function (q) { if (q.value === drop) q.checked = false; });
        }
        update();
      });
    });
    select.addEventListener("change", function () { baseline = select.value; update(); });
  }
})();
