// The trend page: one line per target over the rounds, each rule's threshold dashed, fired/resolved marks listed
// and drawn as triangles. Registers the chart in window.unibenchCharts like app.js does (browser tests read it).
(function () {
  "use strict";
  window.unibenchCharts = window.unibenchCharts || {};
  var el = document.getElementById("chart-trend");
  var data = JSON.parse(document.getElementById("trend-data").textContent);
  var COLORS = ["#2563eb", "#059669", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];
  var times = [];
  data.series.forEach(function (s) { s.points.forEach(function (p) { if (times.indexOf(p.at) < 0) times.push(p.at); }); });
  data.marks.forEach(function (m) { if (times.indexOf(m.at) < 0) times.push(m.at); });
  times.sort(function (a, b) { return a - b; });
  var list = document.getElementById("trend-marks");
  data.marks.forEach(function (m) {
    list.appendChild(document.createElement("li")).textContent = new Date(m.at).toISOString().replace("T", " ").slice(0, 19)
      + " UTC · " + m.kind + " · " + m.rule + " · " + m.label + (m.value === null ? "" : " · " + m.value);
  });
  if (!data.series.length || typeof uPlot === "undefined") {
    el.classList.add("no-data");
    el.appendChild(document.createElement("p")).textContent = "No values yet: rounds that ran will appear here.";
    window.unibenchCharts[el.id] = { series: 0, points: 0 };
    return;
  }
  var cols = [times.map(function (t) { return t / 1000; })];
  var series = [{}];
  var points = 0;
  data.series.forEach(function (s, i) {
    var byAt = {};
    s.points.forEach(function (p) { byAt[p.at] = p.value; });
    cols.push(times.map(function (t) { return t in byAt ? byAt[t] : null; }));
    points += s.points.length;
    series.push({ label: s.label, stroke: COLORS[i % COLORS.length], spanGaps: true, points: { show: true } });
  });
  data.thresholds.forEach(function (t) {
    cols.push(times.map(function () { return t.value; }));
    series.push({ label: "threshold " + t.rule, stroke: "#dc2626", dash: [6, 4], points: { show: false } });
  });
  // fired/resolved marks: triangles drawn over the lines at the round's time and value (several targets can fire
  // in one round, so they are not a series: a series has one value per time)
  function drawMarks(u) {
    var ctx = u.ctx, r = 6 * devicePixelRatio;
    data.marks.forEach(function (m) {
      if (m.value === null) return;
      var x = u.valToPos(m.at / 1000, "x", true), y = u.valToPos(m.value, "y", true), up = m.kind === "fired";
      ctx.beginPath();
      ctx.moveTo(x, up ? y - r : y + r);
      ctx.lineTo(x - r, up ? y + r * 0.7 : y - r * 0.7);
      ctx.lineTo(x + r, up ? y + r * 0.7 : y - r * 0.7);
      ctx.closePath();
      ctx.fillStyle = up ? "#dc2626" : "#16a34a";
      ctx.fill();
    });
  }
  var opts = { title: el.getAttribute("data-title"), width: Math.max(320, el.clientWidth - 16), height: 300,
    series: series, axes: [{}, { label: data.unit }], legend: { live: false }, hooks: { draw: [drawMarks] } };
  new uPlot(opts, cols, el);
  window.unibenchCharts[el.id] = { series: data.series.length, points: points, thresholds: data.thresholds.length,
    marks: data.marks.length };
})();
