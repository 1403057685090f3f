// The worker page: its figures, CPU and memory over the last minutes as SVG
// charts (the worker's heartbeat history, at most 10 minutes: proto.h), its
// slots and what runs in them, and its cache use.
import { bytes, clock, cores, duration, ms } from './format.js';
import { $, api, badge, bar, card, el, now, num, section, svg, table, td } from './dom.js';

const W = 640;
const H = 160;
const PAD = 72; // room for the y labels ("96.5 MiB")

/** A line chart with its area: points [{t (ms), v}], y from 0 to ymax. */
function chart(id, points, ymax, fmt) {
  const root = svg('svg', { class: 'chart', width: W + PAD, height: H + 30, viewBox: `0 0 ${W + PAD} ${H + 30}` });
  root.id = id;
  if (points.length < 2) {
    root.append(svg('text', { x: PAD, y: H / 2, class: 'axis' }, 'collecting…'));
    return root;
  }
  const t0 = points[0].t;
  const t1 = points[points.length - 1].t;
  const span = Math.max(1, t1 - t0);
  const x = (t) => PAD + ((t - t0) / span) * W;
  const y = (v) => H - (Math.min(Math.max(v, 0), ymax) / (ymax || 1)) * (H - 10);
  for (const f of [0, 0.5, 1]) {
    root.append(svg('line', { x1: PAD, x2: PAD + W, y1: y(ymax * f), y2: y(ymax * f), class: 'grid' }));
    root.append(svg('text', { x: PAD - 4, y: y(ymax * f) + 4, class: 'axis end' }, fmt(ymax * f)));
  }
  const line = points.map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
  root.append(svg('polygon', { points: `${PAD},${H} ${line} ${PAD + W},${H}`, class: 'area' }));
  root.append(svg('polyline', { points: line, class: 'line' }));
  root.append(svg('text', { x: PAD, y: H + 20, class: 'axis' }, `${duration(span / 1000)} ago`));
  root.append(svg('text', { x: PAD + W, y: H + 20, class: 'axis end' }, 'now'));
  return root;
}

export function workerPage(view, wid) {
  const head = el('div', null, 'page-head');
  const title = el('h2', 'Worker ');
  const addr = el('span', null, 'mono');
  addr.id = 'w-address';
  title.append(addr, ' ');
  const st = el('span');
  title.append(st);
  const meta = el('p', null, 'meta');
  head.append(title, meta);
  const cards = el('section', null, 'cards');
  cards.append(card('CPU (cores in use / n_cpu)', 'w-cpu', true), card('memory used / limit', 'w-mem', true),
    card('cache used / limit', 'w-cache', true), card('chunks running', 'w-running'), card('chunks done', 'w-done'));
  const cpuBox = el('div', null, 'chart-wrap');
  const memBox = el('div', null, 'chart-wrap');
  const [sw, sbody] = table('slots', [['slot', 'num'], 'task', 'node', 'op', ['running for', 'num']]);
  const [gw, gbody] = table('gpus', [['device', 'num'], 'name', 'memory used / total', ['utilization', 'num'],
    'chunks kept / limit', ['jobs run', 'num'], ['copied ahead', 'num']]);
  const gpuSection = section('GPUs', gw);
  view.append(head, cards, section('CPU over the last minutes', cpuBox), section('Memory over the last minutes', memBox),
    gpuSection, section('Slots', sw));

  return async () => {
    const j = await api(`/api/v1/workers/${encodeURIComponent(wid)}`);
    const w = j.worker || {};
    const n = num(w.n_cpu);
    addr.textContent = String(w.address ?? '');
    st.replaceChildren(badge(w.status));
    meta.textContent = `${w.hostname || ''} pid ${w.pid ?? '–'} · started ${clock(w.started_at)} · id ${w.id || wid}` +
      (Array.isArray(w.cuda_devices) && w.cuda_devices.length ? ` · CUDA ${w.cuda_devices.join(',')}` : '');
    const cpu = Math.min(num(w.cpu_usage), n);
    $('w-cpu').textContent = cores(cpu, w.n_cpu);
    $('w-cpu-bar').style.width = `${n ? (100 * cpu) / n : 0}%`;
    $('w-mem').textContent = `${bytes(w.memory_used)} / ${bytes(w.memory_limit)}`;
    $('w-mem-bar').style.width = `${num(w.memory_limit) ? Math.min(100, (100 * num(w.memory_used)) / w.memory_limit) : 0}%`;
    $('w-cache').textContent = `${bytes(w.cache_used)} / ${bytes(w.cache_limit)}`;
    $('w-cache-bar').style.width = `${num(w.cache_limit) ? Math.min(100, (100 * num(w.cache_used)) / w.cache_limit) : 0}%`;
    $('w-running').textContent = `${num(w.chunks_running)}`;
    $('w-done').textContent = `${num(w.chunks_done)}`;
    const hist = (Array.isArray(j.history) ? j.history : []).map((h) => ({ ...h, t: ms(h.t) })).filter((h) => Number.isFinite(h.t));
    cpuBox.replaceChildren(chart('cpu-chart', hist.map((h) => ({ t: h.t, v: Math.min(num(h.cpu_usage), n) })), n || 1, (v) => v.toFixed(1)));
    const memMax = Math.max(1, ...hist.map((h) => num(h.memory_used))) * 1.25;
    memBox.replaceChildren(chart('mem-chart', hist.map((h) => ({ t: h.t, v: num(h.memory_used) })), memMax, (v) => bytes(v)),
      el('p', `limit ${bytes(w.memory_limit)}; the chart's top is 1.25 × the largest value shown`, 'muted'));
    // CUDA devices (docs/gpu.md): NVML's memory and utilisation (-1: no NVML), the device store,
    // the bytes copied in ahead of their job (absent from an older worker's report)
    const gpus = Array.isArray(w.gpus) ? w.gpus : [];
    gpuSection.hidden = gpus.length === 0;
    gbody.replaceChildren(...gpus.map((g) => {
      const tr = el('tr');
      tr.dataset.gpu = String(g.index);
      const known = (v) => num(v) >= 0;
      tr.append(td(g.index, 'num'), td(g.name || ''),
        td(known(g.memory_used) ? `${bytes(g.memory_used)} / ${bytes(g.memory_total)}` : `– / ${bytes(g.memory_total)}`),
        td(known(g.utilization) ? `${num(g.utilization)}%` : '–', 'num'),
        td(`${bytes(g.store_used)} / ${bytes(g.store_limit)}`), td(num(g.jobs), 'num'),
        td(bytes(g.prefetched), 'num'));
      return tr;
    }));
    const slots = Array.isArray(j.slots) ? j.slots : [];
    sbody.replaceChildren(...slots.map((s) => {
      const tr = el('tr');
      tr.dataset.slot = String(s.slot);
      const busy = typeof s.task_id === 'string';
      tr.append(td(s.slot, 'num'), td(busy ? s.task_id : 'idle', busy ? 'mono' : 'muted'), td(busy ? s.node : '', 'mono'),
        td(busy ? s.op : ''), td(busy ? duration((now() - ms(s.started_at)) / 1000) : '', 'num'));
      return tr;
    }));
    if (!slots.length) sbody.replaceChildren(el('tr', null));
  };
}
