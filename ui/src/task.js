// The task page: status, the tensor graph as a DAG (SVG, layered left to
// right, nodes coloured by status with their chunk progress) with a details
// panel, and the task stream (one lane per worker slot, one bar per chunk
// job, coloured by op), as Dask draws it.
import { bytes, clock, duration, ms } from './format.js';
import { api, badge, bar, el, link, now, num, opColor, section, stClass, svg, table, td } from './dom.js';

const NODE_W = 170;
const NODE_H = 50;
const GAP_X = 70;
const GAP_Y = 18;
const MAX_DRAWN = 1500; // graph nodes drawn; a larger graph is listed only
const LANE_H = 18;
const STREAM_W = 1100;
const STATUS_FILL = { done: '#2e9d5b', running: '#2f6fde', failed: '#d64045', waiting: '#9aa3b2', cancelled: '#6b7383' };

/** Layers by longest path from the roots; order in a layer by the mean
 * position of the inputs (one barycentre pass), so edges cross less. */
function layout(nodes, sources) {
  const all = [...sources.map((k) => ({ key: k, op: 'session tensor', inputs: [], source: true })), ...nodes];
  const byKey = new Map(all.map((n) => [n.key, n]));
  const layer = new Map();
  const depth = (k, seen) => {
    if (layer.has(k)) return layer.get(k);
    if (seen.has(k)) return 0; // a cycle cannot be stored; be safe anyway
    seen.add(k);
    const n = byKey.get(k);
    const ins = n ? (n.inputs || []).filter((i) => byKey.has(i)) : [];
    const d = ins.length ? 1 + Math.max(...ins.map((i) => depth(i, seen))) : 0;
    layer.set(k, d);
    return d;
  };
  for (const n of all) depth(n.key, new Set());
  const layers = [];
  for (const n of all) (layers[layer.get(n.key)] ||= []).push(n);
  const pos = new Map();
  layers.forEach((ns, li) => {
    if (li > 0) {
      const bc = (n) => {
        const ys = (n.inputs || []).filter((i) => pos.has(i)).map((i) => pos.get(i).y);
        return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : 0;
      };
      ns.sort((a, b) => bc(a) - bc(b));
    }
    ns.forEach((n, i) => pos.set(n.key, { x: li * (NODE_W + GAP_X), y: i * (NODE_H + GAP_Y), n }));
  });
  const height = Math.max(1, ...layers.map((l) => l.length)) * (NODE_H + GAP_Y);
  return { pos, width: layers.length * (NODE_W + GAP_X), height };
}

const short = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

function drawGraph(g, onPick) {
  const { pos, width, height } = layout(g.nodes, g.sources || []);
  const root = svg('svg', { class: 'dag', width: width + 20, height: height + 20, viewBox: `-10 -10 ${width + 20} ${height + 20}` });
  const edges = svg('g', { class: 'edges' });
  const boxes = svg('g');
  for (const { x, y, n } of pos.values()) {
    for (const i of new Set(n.inputs || [])) {
      const p = pos.get(i);
      if (!p) continue;
      const x1 = p.x + NODE_W;
      const y1 = p.y + NODE_H / 2;
      const y2 = y + NODE_H / 2;
      const mx = (x1 + x) / 2;
      edges.append(svg('path', { d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x},${y2}`, class: 'edge' }));
    }
    const status = n.source ? 'done' : n.status;
    const gr = svg('g', { class: `node ${stClass(status)}${n.source ? ' source' : ''}`, transform: `translate(${x},${y})` });
    gr.dataset.key = n.key;
    gr.dataset.status = String(status);
    gr.append(svg('title', {}, `${n.key} (${n.op})${n.error ? `\n${n.error}` : ''}`));
    gr.append(svg('rect', { width: NODE_W, height: NODE_H, rx: 6, fill: STATUS_FILL[status] || '#9aa3b2' }));
    gr.append(svg('text', { x: 8, y: 17, class: 'key' }, short(n.key, 22)));
    const total = num(n.chunks_total);
    const sub = n.source ? 'session tensor' : `${short(String(n.op || ''), 12)} · ${total ? `${num(n.chunks_done)}/${total}` : 'fused'}`;
    gr.append(svg('text', { x: 8, y: 32, class: 'sub' }, sub));
    if (total) {
      gr.append(svg('rect', { x: 8, y: 39, width: NODE_W - 16, height: 4, rx: 2, class: 'track' }));
      gr.append(svg('rect', { x: 8, y: 39, width: ((NODE_W - 16) * num(n.chunks_done)) / total, height: 4, rx: 2, class: 'fill' }));
    }
    if (!n.source) gr.addEventListener('click', () => onPick(n));
    boxes.append(gr);
  }
  root.append(edges, boxes);
  return root;
}

function details(n) {
  const box = el('div', null, 'details');
  box.append(el('h3', n.key));
  const dl = el('dl');
  const row = (k, v) => dl.append(el('dt', k), el('dd', v));
  row('op', n.op);
  row('status', n.status);
  row('shape', Array.isArray(n.shape) ? `(${n.shape.join(', ')})` : '–');
  row('dtype', n.dtype || '–');
  row('inputs', (n.inputs || []).join(', ') || '–');
  row('chunks', num(n.chunks_total) ? `${num(n.chunks_done)} / ${num(n.chunks_total)} done` : 'no jobs of its own (fused into its consumer)');
  row('started', clock(n.started_at));
  row('finished', clock(n.finished_at));
  const d = (ms(n.finished_at) - ms(n.started_at)) / 1000;
  row('duration', duration(d));
  box.append(dl);
  if (n.error) box.append(el('pre', n.error, 'err node-error'));
  return box;
}

function drawStream(chunks) {
  const lanes = new Map();
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const c of chunks) {
    const s = ms(c.started_at);
    const e = ms(c.finished_at);
    if (!Number.isFinite(s) || !Number.isFinite(e)) continue;
    t0 = Math.min(t0, s);
    t1 = Math.max(t1, e);
    const lane = `${c.address || c.worker_id || '?'} #${c.slot ?? '?'}`;
    if (!lanes.has(lane)) lanes.set(lane, []);
    lanes.get(lane).push(c);
  }
  const names = [...lanes.keys()].sort();
  const LABEL = 170;
  const span = Math.max(1, t1 - t0);
  const h = names.length * LANE_H + 24;
  const root = svg('svg', { class: 'stream', width: LABEL + STREAM_W, height: h, viewBox: `0 0 ${LABEL + STREAM_W} ${h}` });
  names.forEach((name, i) => {
    const y = i * LANE_H;
    root.append(svg('text', { x: 0, y: y + 13, class: 'lane' }, name));
    root.append(svg('line', { x1: LABEL, x2: LABEL + STREAM_W, y1: y + LANE_H, y2: y + LANE_H, class: 'grid' }));
    for (const c of lanes.get(name)) {
      const s = ms(c.started_at);
      const e = ms(c.finished_at);
      const x = LABEL + ((s - t0) / span) * STREAM_W;
      const w = Math.max(1, ((e - s) / span) * STREAM_W);
      const r = svg('rect', { x: x.toFixed(1), y: y + 2, width: w.toFixed(1), height: LANE_H - 4, fill: opColor(c.op), class: 'job' });
      r.append(svg('title', {}, `${c.node} (${c.op}) · ${duration((e - s) / 1000)} · ${bytes(c.nbytes)} · ${c.address || ''} slot ${c.slot}`));
      root.append(r);
    }
  });
  const ya = names.length * LANE_H + 16;
  root.append(svg('text', { x: LABEL, y: ya, class: 'axis' }, '0'));
  root.append(svg('text', { x: LABEL + STREAM_W, y: ya, class: 'axis end' }, duration(span / 1000)));
  return root;
}

export function taskPage(view, sid, tid) {
  const head = el('div', null, 'page-head');
  const title = el('h2', 'Task ');
  title.append(el('span', tid, 'mono'));
  const meta = el('p', null, 'meta');
  const sess = link(sid, 'sessions', sid);
  const prog = el('div', null, 'task-progress');
  const terr = el('pre', null, 'err task-error');
  terr.hidden = true;
  head.append(title, meta, prog, terr);
  const graphBox = el('div', null, 'graph-wrap');
  graphBox.id = 'graph';
  const panel = el('div', null, 'details-wrap');
  const [nw, nbody] = table('nodes', ['node', 'op', 'status', ['chunks', 'num'], 'shape', 'dtype', ['duration', 'num'], 'error']);
  const streamBox = el('div', null, 'stream-wrap');
  streamBox.id = 'stream';
  const legend = el('div', null, 'legend');
  const streamNote = el('p', null, 'muted');
  view.append(head, section('Graph', graphBox, panel), section('Task stream', legend, streamBox, streamNote), section('Nodes', nw));
  let picked = null;
  let finalLoaded = false;

  return async () => {
    const base = `/api/v1/sessions/${encodeURIComponent(sid)}/tasks/${encodeURIComponent(tid)}`;
    const t = await api(base);
    const ended = !['pending', 'running'].includes(t.status);
    meta.replaceChildren('session ', sess, ` · submitted ${clock(t.submitted_at)}`,
      ` · ${t.started_at ? `ran ${duration(((ms(t.finished_at) || now()) - ms(t.started_at)) / 1000)}` : 'not started'} · `, badge(t.status));
    prog.replaceChildren(bar(t.status === 'succeeded' ? 1 : num(t.progress), stClass(t.status)),
      el('span', `${num(t.chunks_done)} / ${num(t.chunks_total)} chunks`, 'figure'));
    terr.hidden = !t.error;
    terr.textContent = t.error || '';
    if (finalLoaded) return; // an ended task's graph and stream no longer change
    const [g, c] = await Promise.all([api(`${base}/graph`), api(`${base}/chunks`)]);
    const nodes = Array.isArray(g.nodes) ? g.nodes : [];
    const pick = (n) => { picked = n.key; panel.replaceChildren(details(n)); };
    if (nodes.length <= MAX_DRAWN) graphBox.replaceChildren(drawGraph(g, pick));
    else graphBox.replaceChildren(el('p', `${nodes.length} nodes: too many to draw; see the list below.`, 'muted'));
    const cur = nodes.find((n) => n.key === picked) || nodes.find((n) => n.error) || null;
    if (cur) pick(cur);
    nbody.replaceChildren(...nodes.slice(0, 2000).map((n) => {
      const tr = el('tr');
      tr.dataset.key = n.key;
      const st = td(null);
      st.append(badge(n.status));
      tr.append(td(n.key, 'mono'), td(n.op), st, td(num(n.chunks_total) ? `${num(n.chunks_done)} / ${num(n.chunks_total)}` : '–', 'num'),
        td(Array.isArray(n.shape) ? `(${n.shape.join(', ')})` : '–', 'mono'), td(n.dtype || '–'),
        td(duration((ms(n.finished_at) - ms(n.started_at)) / 1000), 'num'), td(n.error || '', 'err'));
      return tr;
    }));
    const jobs = Array.isArray(c.chunks) ? c.chunks : [];
    streamBox.replaceChildren(jobs.length ? drawStream(jobs) : el('p', 'No chunk job has run yet.', 'muted'));
    const ops = [...new Set(jobs.map((j) => j.op))].sort();
    legend.replaceChildren(...ops.map((op) => {
      const item = el('span', op, 'legend-item');
      const sw = el('i');
      sw.style.background = opColor(op);
      item.prepend(sw);
      return item;
    }));
    streamNote.textContent = num(c.ran) > jobs.length ? `the newest ${jobs.length} of ${c.ran} jobs` : `${jobs.length} jobs`;
    finalLoaded = ended;
  };
}
