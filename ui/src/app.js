// The mars dashboard front page: cluster summary, workers, recent tasks.
//
// Every value that came from the cluster (ids, addresses, session names, error
// messages) goes into the page through textContent or an attribute set by the
// DOM API, never through innerHTML: a session named
// "<img src=x onerror=alert(1)>" shows as those characters.
//
// Polling: one refresh at a time; the next starts 2 s after the previous one
// started (or at once if it took longer), so requests never overlap.
import { bytes, clock, cores, duration, frac, ms } from './format.js';

const POLL_MS = 2000;
const REQUEST_TIMEOUT_MS = 10000;
const MAX_TASKS = 50; // tasks shown
const MAX_SESSIONS = 20; // newest sessions whose tasks are read each refresh
const PARALLEL = 4; // task listings read at once
const STATUSES = new Set(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'alive', 'suspect', 'dead', 'stopped']);

const $ = (id) => document.getElementById(id);

/** Server clock minus the browser's, from the Date header. The header has a
 * 1 s resolution, so only a skew beyond 2 s is corrected. */
let skewMs = 0;

class ApiError extends Error {}

/** GET a path of the page's own origin as JSON; throws ApiError with the
 * gateway's message on a non-2xx answer. `null` for a 404 when allowed. */
async function api(path, { allow404 = false } = {}) {
  const url = new URL(path, window.location.origin);
  let res;
  try {
    res = await fetch(url, { headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (e) {
    throw new ApiError(`${path}: ${e && e.name === 'TimeoutError' ? 'no answer within 10 s' : 'gateway unreachable'}`);
  }
  const date = Date.parse(res.headers.get('Date') || '');
  if (Number.isFinite(date)) {
    const d = date + 500 - Date.now(); // the header truncates to the second
    skewMs = Math.abs(d) > 2000 ? d : 0;
  }
  if (allow404 && res.status === 404) return null;
  let body = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const msg = body && body.error && typeof body.error.message === 'string' ? body.error.message : res.statusText;
    throw new ApiError(`${path}: ${res.status} ${msg}`);
  }
  return body;
}

/** Runs fn over items, at most `limit` at once; results in order. */
async function mapLimit(items, limit, fn) {
  const out = new Array(items.length);
  let next = 0;
  const run = async () => { while (next < items.length) { const i = next++; out[i] = await fn(items[i]); } };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}

/** The newest MAX_TASKS tasks of the newest MAX_SESSIONS sessions. */
async function loadTasks() {
  const { sessions = [] } = (await api('/api/v1/sessions')) || {};
  const newest = sessions
    .slice()
    .sort((a, b) => (ms(b.created_at) || 0) - (ms(a.created_at) || 0))
    .slice(0, MAX_SESSIONS);
  const lists = await mapLimit(newest, PARALLEL, async (s) => {
    // A session deleted since the listing answers 404: skip it.
    const r = await api(`/api/v1/sessions/${encodeURIComponent(s.session_id)}/tasks`, { allow404: true });
    return r && Array.isArray(r.tasks) ? r.tasks.map((t) => ({ ...t, session: s })) : [];
  });
  const tasks = lists.flat();
  tasks.sort((a, b) => (ms(b.submitted_at) || 0) - (ms(a.submitted_at) || 0));
  return { tasks: tasks.slice(0, MAX_TASKS), sessions: sessions.length, scanned: newest.length, total: tasks.length };
}

// ---- DOM helpers ------------------------------------------------------------

/** An element with text content (never parsed as HTML) and classes. */
function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

function td(text, className) { return el('td', text, className); }

function bar(fraction, className) {
  const b = el('div', null, `bar ${className || ''}`.trim());
  const fill = el('span');
  fill.style.width = `${(frac(fraction) * 100).toFixed(1)}%`;
  b.append(fill);
  return b;
}

function badge(status) {
  const s = typeof status === 'string' ? status : 'unknown';
  return el('span', s, `badge st-${STATUSES.has(s) ? s : 'unknown'}`);
}

const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);

// ---- rendering ----------------------------------------------------------------

function renderSummary(workers, taskInfo) {
  const alive = workers.filter((w) => w.status === 'alive');
  const live = workers.filter((w) => w.status !== 'dead' && w.status !== 'stopped');
  $('s-workers').textContent = `${alive.length}`;
  const others = workers.length - alive.length;
  $('s-workers-sub').textContent = `of ${workers.length} registered${others ? ` (${others} suspect or dead)` : ''}`;

  const used = live.reduce((a, w) => a + Math.max(0, num(w.cpu_usage)), 0);
  const total = live.reduce((a, w) => a + num(w.n_cpu), 0);
  $('s-cpu').textContent = `${used.toFixed(2)} / ${total}`;
  $('s-cpu-bar').style.width = `${(frac(total ? used / total : 0) * 100).toFixed(1)}%`;

  const memUsed = live.reduce((a, w) => a + num(w.memory_used), 0);
  const memTotal = live.reduce((a, w) => a + num(w.memory_limit), 0);
  $('s-mem').textContent = `${bytes(memUsed)} / ${bytes(memTotal)}`;
  $('s-mem-bar').style.width = `${(frac(memTotal ? memUsed / memTotal : 0) * 100).toFixed(1)}%`;

  const running = live.reduce((a, w) => a + num(w.chunks_running), 0);
  $('s-chunks').textContent = `${running}`;
  $('s-chunks-sub').textContent = `${workers.reduce((a, w) => a + num(w.chunks_done), 0)} done in all`;

  if (taskInfo) {
    const t = taskInfo.tasks;
    $('s-tasks').textContent = `${t.filter((x) => x.status === 'running').length}`;
    const pending = t.filter((x) => x.status === 'pending').length;
    $('s-tasks-sub').textContent = `${pending} pending, of the ${t.length} newest shown`;
  }
}

function renderWorkers(workers) {
  const now = Date.now() + skewMs;
  const rows = workers
    .slice()
    .sort((a, b) => String(a.address).localeCompare(String(b.address)))
    .map((w) => {
      const tr = el('tr');
      tr.dataset.address = String(w.address ?? '');
      const cpu = td(null, 'cpu');
      cpu.append(el('span', cores(w.cpu_usage, w.n_cpu), 'figure'), bar(num(w.n_cpu) ? num(w.cpu_usage) / w.n_cpu : 0));
      const mem = td(null, 'mem');
      mem.append(
        el('span', `${bytes(w.memory_used)} / ${bytes(w.memory_limit)}`, 'figure'),
        bar(num(w.memory_limit) ? num(w.memory_used) / w.memory_limit : 0),
      );
      const st = td(null);
      st.append(badge(w.status));
      const hb = ms(w.last_heartbeat);
      const age = (now - hb) / 1000;
      const hbCell = td(!Number.isFinite(hb) ? '–' : age < 1 ? 'under 1 s ago' : `${duration(age)} ago`);
      hbCell.title = String(w.last_heartbeat ?? '');
      tr.append(
        td(w.address, 'mono'), st, td(w.n_cpu, 'num'), cpu, mem, td(bytes(w.cache_used), 'num'),
        td(num(w.chunks_running), 'num'), td(num(w.chunks_done), 'num'), hbCell,
      );
      return tr;
    });
  $('workers').tBodies[0].replaceChildren(...rows);
  $('workers-empty').hidden = rows.length > 0;
  $('workers-count').textContent = `(${workers.length})`;
}

function taskDuration(t, now) {
  const start = ms(t.started_at);
  const end = ms(t.finished_at);
  if (Number.isFinite(start)) return ((Number.isFinite(end) ? end : now) - start) / 1000;
  if (Number.isFinite(end)) return (end - ms(t.submitted_at)) / 1000; // ended before it started (cancelled)
  return NaN;
}

function renderTasks(info) {
  const now = Date.now() + skewMs;
  const rows = info.tasks.map((t) => {
    const tr = el('tr');
    tr.dataset.taskId = String(t.task_id ?? '');
    tr.dataset.status = String(t.status ?? '');
    const sess = td(null, 'session');
    const name = t.session && typeof t.session.name === 'string' && t.session.name ? t.session.name : '';
    if (name) {
      const n = el('span', name, 'name');
      n.title = name; // the whole name where the cell cuts it
      sess.append(n);
    }
    sess.append(el('span', t.session ? t.session.session_id : '', 'mono sid'));
    const st = td(null);
    st.append(badge(t.status));
    const prog = td(null, 'progress');
    const done = num(t.chunks_done);
    const total = num(t.chunks_total);
    prog.append(
      bar(t.status === 'succeeded' ? 1 : num(t.progress), `st-${STATUSES.has(t.status) ? t.status : 'unknown'}`),
      el('span', `${done} / ${total} chunks`, 'figure'),
    );
    const err = td(typeof t.error === 'string' ? t.error : '', 'err');
    if (typeof t.error === 'string') err.title = t.error;
    const sub = td(clock(t.submitted_at));
    sub.title = String(t.submitted_at ?? '');
    const d = taskDuration(t, now);
    tr.append(td(t.task_id, 'mono'), sess, st, prog, sub, td(duration(d), 'num'), err);
    return tr;
  });
  $('tasks').tBodies[0].replaceChildren(...rows);
  $('tasks-empty').hidden = rows.length > 0;
  $('tasks-count').textContent = info.total > info.tasks.length
    ? `(newest ${info.tasks.length} of ${info.total})`
    : `(${info.tasks.length})`;
}

function setError(messages) {
  const box = $('error');
  const rows = messages.map((m) => el('div', m));
  if (rows.length) rows.push(el('div', 'The figures below are the last ones received.', 'muted'));
  box.replaceChildren(...rows);
  box.hidden = messages.length === 0;
  const conn = $('conn');
  conn.dataset.state = messages.length ? 'error' : 'ok';
  conn.textContent = messages.length ? 'errors' : 'live';
}

// ---- polling ------------------------------------------------------------------

let lastTasks = null;

async function refresh() {
  const [w, t] = await Promise.allSettled([api('/api/v1/workers'), loadTasks()]);
  const errors = [];
  if (w.status === 'fulfilled') {
    const workers = Array.isArray(w.value && w.value.workers) ? w.value.workers : [];
    if (t.status === 'fulfilled') lastTasks = t.value;
    renderWorkers(workers);
    renderSummary(workers, lastTasks);
  } else errors.push(String(w.reason && w.reason.message ? w.reason.message : w.reason));
  if (t.status === 'fulfilled') renderTasks(t.value);
  else errors.push(String(t.reason && t.reason.message ? t.reason.message : t.reason));
  setError(errors);
  $('updated').textContent = `updated ${new Date().toLocaleTimeString([], { hour12: false })}`;
  document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
}

async function loop() {
  const started = performance.now();
  try {
    await refresh();
  } catch (e) {
    setError([`dashboard error: ${e && e.message ? e.message : e}`]);
  }
  // Hidden tabs poll less (browsers throttle timers anyway).
  const period = document.hidden ? POLL_MS * 5 : POLL_MS;
  setTimeout(loop, Math.max(0, period - (performance.now() - started)));
}

loop();
