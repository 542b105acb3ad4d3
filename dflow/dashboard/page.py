# ruff: noqa: E501 - the page's HTML and JavaScript keep their own line lengths
"""The ``/dflow`` page: one HTML document whose script polls ``/dflow/json/...``.

Plain HTML, CSS and JavaScript (no external files, no Bokeh server
application): tables refresh about once a second, the steps/s plot and the
graph are SVG drawn by the script. The graph view lays out at most
``MAX_DRAWN`` ops (the search box narrows a graph of thousands of ops to the
ones whose name holds the text); every matched op is listed in the table
below it.
"""

PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dflow: TF1 sessions on this cluster</title>
<link rel="icon" href="data:,">
<style>
 body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; color: #222; font-size: 13px; }
 header { background: #eee; padding: 8px 16px; border-bottom: 1px solid #ccc; display: flex; gap: 18px; align-items: baseline; }
 header h1 { font-size: 18px; margin: 0; }
 header a { color: #1f5fa8; }
 main { padding: 8px 16px; }
 section { margin-bottom: 18px; }
 h2 { font-size: 15px; margin: 10px 0 4px; }
 table { border-collapse: collapse; min-width: 50%; }
 th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; white-space: nowrap; }
 th { background: #f4f4f4; }
 td.num { text-align: right; font-variant-numeric: tabular-nums; }
 tr.selected td { background: #fff6d5; }
 tr.click { cursor: pointer; }
 .ok { color: #1a7f37; font-weight: bold; }
 .lost { color: #c62828; font-weight: bold; }
 .idle { color: #888; }
 .err { color: #c62828; max-width: 420px; overflow: hidden; text-overflow: ellipsis; }
 .note { color: #555; max-width: 70em; }
 .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border: 1px solid #555; }
 #plot, #graph { border: 1px solid #ddd; background: #fff; }
 #graphbox { overflow: auto; max-height: 560px; max-width: 100%; border: 1px solid #eee; }
 #status { color: #888; }
</style>
</head>
<body>
<header>
 <h1>dflow</h1>
 <span>TF1 sessions, devices, variables and queues on this Dask cluster</span>
 <a href="status">Dask status &amp; task stream</a>
 <span id="status">loading&hellip;</span>
</header>
<main>
<p class="note">Direct runs (the default) show on Dask's <a href="status">Task Stream</a> under your ops' names while a
 dashboard page or <code>get_task_stream</code> watches it. Dask's Progress, Profile and Graph pages see only runs made
 through the scheduler (<code>dask.config.set({"dflow.cluster.runs": "scheduler"})</code>): look here and at the task
 stream instead.</p>

<section>
 <h2>Sessions</h2>
 <table id="sessions"><thead><tr><th>session</th><th>client</th><th>state</th><th>runs</th><th>steps/s</th>
  <th>step ms</th><th>graph ops</th><th>partitions</th><th>cut edges</th><th>errors</th><th>last error</th></tr></thead>
  <tbody></tbody></table>
 <h2>Steps per second <span id="plotlabel" class="idle"></span></h2>
 <svg id="plot" width="720" height="180"></svg>
 <h2>Slowest ops of the last traced run <span id="tracelabel" class="idle"></span></h2>
 <table id="trace"><thead><tr><th>op</th><th>type</th><th>device</th><th>ms</th></tr></thead><tbody></tbody></table>
</section>

<section>
 <h2>Placement</h2>
 <table id="placement"><thead><tr><th>device</th><th>Dask worker</th><th>name</th><th>host</th><th>memory</th>
  <th>state</th><th>ops</th><th>partitions</th></tr></thead><tbody></tbody></table>
</section>

<section>
 <h2>Variables</h2>
 <table id="variables"><thead><tr><th>name</th><th>dtype</th><th>shape</th><th>device</th><th>bytes</th>
  <th>updates</th><th>last update</th></tr></thead><tbody></tbody></table>
</section>

<section>
 <h2>Queues and accumulators</h2>
 <table id="queues"><thead><tr><th>name</th><th>kind</th><th>device</th><th>size</th><th>capacity</th><th>closed</th>
  <th>blocked consumers</th><th>blocked producers</th></tr></thead><tbody></tbody></table>
</section>

<section>
 <h2>Graph of the last run <span id="graphlabel" class="idle"></span></h2>
 <label>Search ops: <input id="search" type="search" size="40" placeholder="op name contains&hellip;"></label>
 <div id="legend"></div>
 <div id="graphbox"><svg id="graph" width="400" height="60"></svg></div>
 <h2>Ops <span id="opslabel" class="idle"></span></h2>
 <table id="ops"><thead><tr><th>op</th><th>type</th><th>device</th><th>partition</th><th>cut edges in/out</th></tr></thead>
  <tbody></tbody></table>
</section>
</main>
<script>
"use strict";
const MAX_DRAWN = 300, MAX_LISTED = 500;
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                 "#17becf"];
const base = location.pathname.replace(/\/+$/, "");  // .../dflow
let selected = null, graphKey = null, searchText = "", failures = 0;

function esc(s) {
  return String(s === null || s === undefined ? "" : s).replace(/[&<>"']/g,
    c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}
function num(x, digits) { return x === null || x === undefined ? "" : Number(x).toFixed(digits); }
function bytes(n) {
  if (n === null || n === undefined) return "";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
}
function ago(t) {
  if (!t) return "never";
  const s = Date.now() / 1000 - t;
  return s < 1 ? "now" : s < 120 ? s.toFixed(0) + " s ago" : (s / 60).toFixed(0) + " min ago";
}
function rows(id, html) { document.querySelector("#" + id + " tbody").innerHTML = html; }
async function getJSON(path) {
  const r = await fetch(base + "/json/" + path, {cache: "no-store"});
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}
const deviceColor = {};
function colorOf(device) {
  if (!(device in deviceColor)) deviceColor[device] = PALETTE[Object.keys(deviceColor).length % PALETTE.length];
  return deviceColor[device];
}
function shortDevice(d) { return d.replace("/replica:0", "").replace("/device:", "/"); }

function drawSessions(data) {
  const list = data.sessions;
  if (selected === null || !list.some(s => s.id === selected)) selected = list.length ? list[0].id : null;
  rows("sessions", list.map(s => {
    const state = s.closed ? '<span class="idle">closed</span>' : s.active ? '<span class="ok">running</span>'
                                                                           : '<span class="idle">idle</span>';
    return `<tr class="click${s.id === selected ? " selected" : ""}" data-id="${esc(s.id)}"><td>${esc(s.id)}</td>` +
      `<td>${esc(s.host)}:${esc(s.pid)}</td><td>${state}</td><td class="num">${s.runs}</td>` +
      `<td class="num">${num(s.steps_per_s, 1)}</td><td class="num">${num(s.step_ms, 2)}</td>` +
      `<td class="num">${s.graph_ops}</td><td class="num">${s.partitions}</td><td class="num">${s.cut_edges}</td>` +
      `<td class="num">${s.errors}</td><td class="err" title="${esc(s.last_error)}">${esc(s.last_error)}</td></tr>`;
  }).join("") || '<tr><td colspan="11" class="idle">No session has run on this cluster in the last minutes.</td></tr>');
  document.querySelectorAll("#sessions tr.click").forEach(tr => tr.onclick = () => {
    selected = tr.dataset.id; graphKey = null; refresh();
  });
  return list.find(s => s.id === selected) || null;
}

function drawPlot(detail) {
  const svg = document.getElementById("plot"), W = 720, H = 180, L = 48, B = 22;
  const label = document.getElementById("plotlabel");
  if (!detail || !detail.history.length) {
    svg.innerHTML = `<text x="${L}" y="${H / 2}" fill="#888">no runs reported yet</text>`;
    label.textContent = ""; return;
  }
  label.textContent = "session " + detail.id;
  const h = detail.history, t1 = h[h.length - 1].time, t0 = Math.min(h[0].time, t1 - 60);
  const vmax = Math.max(1, ...h.map(p => p.steps_per_s)) * 1.1;
  const x = t => L + (W - L - 8) * (t - t0) / Math.max(t1 - t0, 1e-9), y = v => H - B - (H - B - 8) * v / vmax;
  const pts = h.map(p => `${x(p.time).toFixed(1)},${y(p.steps_per_s).toFixed(1)}`).join(" ");
  let g = `<line x1="${L}" y1="${H - B}" x2="${W - 8}" y2="${H - B}" stroke="#999"/>` +
          `<line x1="${L}" y1="8" x2="${L}" y2="${H - B}" stroke="#999"/>`;
  for (const f of [0, 0.5, 1]) {
    g += `<text x="${L - 4}" y="${y(vmax / 1.1 * f) + 4}" text-anchor="end" font-size="10">${(vmax / 1.1 * f).toFixed(1)}</text>`;
  }
  g += `<text x="${L}" y="${H - 6}" font-size="10">${((t1 - t0)).toFixed(0)} s ago</text>` +
       `<text x="${W - 8}" y="${H - 6}" font-size="10" text-anchor="end">now</text>` +
       `<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${pts}"/>`;
  svg.innerHTML = g;
}

function drawTrace(detail) {
  const t = detail ? detail.trace : null;
  document.getElementById("tracelabel").textContent = t ? `${ago(t.time)}: ${t.ops_traced} ops in ` +
    `${num(t.span_ms, 2)} ms` : "";
  rows("trace", t ? t.slowest.slice(0, 10).map(o =>
    `<tr><td>${esc(o.name)}</td><td>${esc(o.type)}</td><td>${esc(o.device)}</td><td class="num">${num(o.ms, 3)}</td></tr>`
  ).join("") : '<tr><td colspan="4" class="idle">no run of this session was traced ' +
    '(sess.run(..., options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=...))</td></tr>');
}

function drawPlacement(data) {
  rows("placement", data.devices.map(d =>
    `<tr><td><span class="swatch" style="background:${colorOf(d.device)}"></span>${esc(d.device)}</td>` +
    `<td>${esc(d.worker)}</td><td>${esc(d.worker_name)}</td><td>${esc(d.host)}</td>` +
    `<td class="num">${bytes(d.memory)}${d.memory_limit ? " / " + bytes(d.memory_limit) : ""}</td>` +
    `<td>${d.alive ? '<span class="ok">alive</span>' : '<span class="lost">lost ' + ago(d.lost_at) + "</span>"}</td>` +
    `<td class="num">${d.ops}</td><td class="num">${d.partitions}</td></tr>`).join("") ||
    '<tr><td colspan="8" class="idle">no workers</td></tr>');
}

function drawVariables(data) {
  rows("variables", data.variables.map(v =>
    `<tr><td>${esc(v.name)}</td><td>${esc(v.dtype)}</td><td>${v.shape === null ? "?" : "[" + v.shape.join(", ") + "]"}</td>` +
    `<td>${esc(v.device)}</td><td class="num">${v.initialized ? bytes(v.bytes) : "uninitialized"}</td>` +
    `<td class="num">${v.updates}</td><td>${ago(v.updated)}</td></tr>`).join("") ||
    '<tr><td colspan="7" class="idle">no variables on the workers</td></tr>');
}

function drawQueues(data) {
  rows("queues", data.queues.map(q =>
    `<tr><td>${esc(q.name)}</td><td>${esc(q.kind)}</td><td>${esc(q.device)}</td><td class="num">${q.size}</td>` +
    `<td class="num">${q.capacity === null || q.capacity < 0 ? "unbounded" : q.capacity}</td>` +
    `<td>${q.closed ? "closed" : "open"}</td><td class="num">${q.blocked_consumers}</td>` +
    `<td class="num">${q.blocked_producers}</td></tr>`).join("") ||
    '<tr><td colspan="8" class="idle">no queues or accumulators on the workers</td></tr>');
}

function drawGraph(g) {
  const svg = document.getElementById("graph");
  document.getElementById("graphlabel").textContent = g.session === null ? "(none yet)" :
    `session ${g.session}: ${g.ops} ops, ${g.partitions.length} partitions, ${g.cut_edges} cut edges (transfers)`;
  document.getElementById("legend").innerHTML = g.devices.map(d =>
    `<span style="margin-right:14px"><span class="swatch" style="background:${colorOf(d)}"></span>${esc(shortDevice(d))}</span>`
  ).join("") + (g.cut_edges ? '<span><svg width="30" height="8"><line x1="0" y1="4" x2="30" y2="4" stroke="#d62728" ' +
    'stroke-dasharray="4 2" stroke-width="2"/></svg> cut edge</span>' : "");
  const nodes = g.nodes.slice(0, MAX_DRAWN), index = new Map(nodes.map((n, i) => [n.name, i]));
  const edges = g.edges.filter(e => index.has(e.from) && index.has(e.to));
  // layers: longest path from the sources (Kahn's order)
  const indeg = new Array(nodes.length).fill(0), out = nodes.map(() => []), depth = new Array(nodes.length).fill(0);
  for (const e of edges) { indeg[index.get(e.to)]++; out[index.get(e.from)].push(index.get(e.to)); }
  const queue = []; indeg.forEach((d, i) => { if (!d) queue.push(i); });
  while (queue.length) {
    const i = queue.shift();
    for (const j of out[i]) { depth[j] = Math.max(depth[j], depth[i] + 1); if (--indeg[j] === 0) queue.push(j); }
  }
  const layers = [], pos = [];
  nodes.forEach((n, i) => { (layers[depth[i]] = layers[depth[i]] || []).push(i); });
  const CW = 170, RH = 24;
  layers.forEach((layer, d) => layer.forEach((i, k) => { pos[i] = [12 + d * CW, 14 + k * RH]; }));
  const W = 24 + layers.length * CW, H = 28 + Math.max(1, ...layers.map(l => l.length)) * RH;
  svg.setAttribute("width", W); svg.setAttribute("height", H);
  let s = "";
  for (const e of edges) {
    const [x1, y1] = pos[index.get(e.from)], [x2, y2] = pos[index.get(e.to)];
    s += `<line x1="${x1 + 150}" y1="${y1 + 8}" x2="${x2}" y2="${y2 + 8}" stroke="${e.cut ? "#d62728" : "#aaa"}"` +
         (e.cut ? ' stroke-dasharray="4 2" stroke-width="2"' : "") + "/>";
  }
  nodes.forEach((n, i) => {
    const [x, y] = pos[i], label = n.name.length > 24 ? "\u2026" + n.name.slice(-23) : n.name;
    s += `<g><title>${esc(n.name)} (${esc(n.type)}) on ${esc(n.device)}</title>` +
         `<rect x="${x}" y="${y}" width="150" height="16" rx="3" fill="${colorOf(n.device)}" fill-opacity="0.25" ` +
         `stroke="${colorOf(n.device)}"/><text x="${x + 4}" y="${y + 12}" font-size="10">${esc(label)}</text></g>`;
  });
  if (!nodes.length) s = `<text x="10" y="30" fill="#888">${g.session === null ? "no graph yet" : "no op matches"}</text>`;
  svg.innerHTML = s;
  const cutIn = {}, cutOut = {};
  for (const e of g.edges) if (e.cut) { cutOut[e.from] = (cutOut[e.from] || 0) + 1; cutIn[e.to] = (cutIn[e.to] || 0) + 1; }
  document.getElementById("opslabel").textContent = `${g.matched} matched` +
    (g.matched > nodes.length ? `, ${nodes.length} drawn` : "") + (g.matched > MAX_LISTED ? `, ${MAX_LISTED} listed` : "");
  rows("ops", g.nodes.slice(0, MAX_LISTED).map(n =>
    `<tr><td>${esc(n.name)}</td><td>${esc(n.type)}</td><td><span class="swatch" style="background:${colorOf(n.device)}">` +
    `</span>${esc(n.device)}</td><td class="num">${n.partition}</td>` +
    `<td class="num">${cutIn[n.name] || 0} / ${cutOut[n.name] || 0}</td></tr>`).join(""));
}

let tick = 0;
async function refresh() {
  try {
    const sessions = await getJSON("sessions");
    const current = drawSessions(sessions);
    const detail = current ? await getJSON("session/" + encodeURIComponent(current.id)) : null;
    drawPlot(detail);
    drawTrace(detail);
    drawPlacement(await getJSON("placement"));
    if (tick % 2 === 0) {
      drawVariables(await getJSON("variables"));
      drawQueues(await getJSON("queues"));
    }
    const key = (current ? current.id + ":" + current.graph_version : "none") + "|" + searchText;
    if (key !== graphKey) {
      const q = new URLSearchParams();
      if (current) q.set("session", current.id);
      if (searchText) q.set("search", searchText);
      q.set("limit", String(MAX_LISTED));
      drawGraph(await getJSON("graph?" + q.toString()));
      graphKey = key;
    }
    tick++; failures = 0;
    document.getElementById("status").textContent = "updated " + new Date().toLocaleTimeString();
  } catch (err) {
    failures++;
    document.getElementById("status").textContent = "cannot reach the scheduler (" + err.message + ")";
  }
}
document.getElementById("search").addEventListener("input", ev => {
  searchText = ev.target.value.trim(); graphKey = null; refresh();
});
refresh();
setInterval(refresh, 1000);
</script>
</body>
</html>
"""
