// The mars dashboard: hash routes, polling, and the front, sessions and
// supervisors pages (task.js: a task's graph and stream; worker.js: a
// worker's charts and slots).
//
// Routes: #/ (front), #/sessions, #/sessions/SID, #/tasks/SID/TID,
// #/workers/WID, #/supervisors.
//
// Polling: one refresh at a time; the next starts 2 s after the previous one
// started (or at once if it took longer), so requests never overlap; every
// 10 s while the tab is hidden. A route change refreshes at once, after the
// refresh in flight (if any) ends.
import { bytes, clock, cores, duration, frac, ms } from './format.js';
import { $, api, badge, bar, card, el, link, now, num, section, stClass, table, td } from './dom.js';
import { taskPage } from './task.js';
import { workerPage } from './worker.js';

const POLL_MS = 2000;
const MAX_TASKS = 50; // tasks on the front page
const MAX_ROWS = 500; // rows of a sessions or tasks list (the newest)

// ---- front page -----------------------------------------------------------------

function taskDuration(t) {
  const start = ms(t.started_at);
  const end = ms(t.finished_at);
  if (Number.isFinite(start)) return ((Number.isFinite(end) ? end : now()) - start) / 1000;
  if (Number.isFinite(end)) return (end - ms(t.submitted_at)) / 1000; // ended before it started
  return NaN;
}

/** A row of a task list; sid is the task's session. */
function taskRow(t, sid, session) {
  const tr = el('tr');
  tr.dataset.taskId = String(t.task_id ?? '');
  tr.dataset.status = String(t.status ?? '');
  const id = td(null, 'mono');
  id.append(link(t.task_id, 'tasks', sid, t.task_id));
  const cells = [id];
  if (session) {
    const sess = td(null, 'session');
    const name = typeof t.session_name === 'string' ? t.session_name : '';
    if (name) {
      const n = el('span', name, 'name');
      n.title = name;
      sess.append(n);
    }
    const sl = link(sid, 'sessions', sid);
    sl.className = 'mono sid';
    sess.append(sl);
    cells.push(sess);
  }
  const st = td(null);
  st.append(badge(t.status));
  const prog = td(null, 'progress');
  prog.append(bar(t.status === 'succeeded' ? 1 : num(t.progress), stClass(t.status)),
    el('span', `${num(t.chunks_done)} / ${num(t.chunks_total)} chunks`, 'figure'));
  const sub = td(clock(t.submitted_at));
  sub.title = String(t.submitted_at ?? '');
  const err = td(typeof t.error === 'string' ? t.error : '', 'err');
  cells.push(st, prog, sub, td(duration(taskDuration(t)), 'num'), err);
  tr.append(...cells);
  return tr;
}

const TASK_HEADERS = ['task', 'status', 'progress', 'submitted', ['duration', 'num'], 'error'];

function front(view) {
  const cards = el('section', null, 'cards');
  cards.id = 'summary';
  cards.append(card('workers alive', 's-workers'), card('cores used / total', 's-cpu', true),
    card('memory used / total', 's-mem', true), card('chunk jobs running', 's-chunks'),
    card('chunk jobs queued', 's-queued'), card('tasks running', 's-tasks'));
  const [ww, wbody] = table('workers', ['address', 'status', ['n_cpu', 'num'], 'CPU usage', 'memory',
    ['cache', 'num'], ['chunks running', 'num'], ['chunks done', 'num'], 'last heartbeat']);
  const [tw, tbody] = table('tasks', [TASK_HEADERS[0], 'session', ...TASK_HEADERS.slice(1)]);
  const wcount = el('span', null, 'count');
  const tcount = el('span', null, 'count');
  tcount.id = 'tasks-count';
  const ws = section('Workers ', ww);
  ws.firstChild.append(wcount);
  const ts = section('Recent tasks ', tw);
  ts.firstChild.append(tcount);
  view.append(cards, ws, ts);

  return async () => {
    const [c, w, t] = await Promise.all([api('/api/v1/cluster'), api('/api/v1/workers'),
      api(`/api/v1/tasks?limit=${MAX_TASKS}`)]);
    const workers = Array.isArray(w && w.workers) ? w.workers : [];
    const tasks = Array.isArray(t && t.tasks) ? t.tasks : [];
    // summary
    $('s-workers').textContent = `${num(c.workers && c.workers.alive)}`;
    $('s-workers-sub').textContent = `of ${num(c.workers && c.workers.total)} registered`;
    const used = Math.min(num(c.cpu_usage), num(c.n_cpu));
    $('s-cpu').textContent = `${used.toFixed(2)} / ${num(c.n_cpu)}`;
    $('s-cpu-bar').style.width = `${(frac(c.n_cpu ? used / c.n_cpu : 0) * 100).toFixed(1)}%`;
    $('s-mem').textContent = `${bytes(num(c.memory_used))} / ${bytes(num(c.memory_limit))}`;
    $('s-mem-bar').style.width = `${(frac(c.memory_limit ? c.memory_used / c.memory_limit : 0) * 100).toFixed(1)}%`;
    $('s-chunks').textContent = `${num(c.jobs_running)}`;
    $('s-chunks-sub').textContent = `${num(c.chunks_done)} done in all`;
    $('s-queued').textContent = c.jobs_queued === null ? '–' : `${num(c.jobs_queued)}`;
    $('s-queued-sub').textContent = 'waiting for a slot';
    const ct = c.tasks || {};
    $('s-tasks').textContent = `${num(ct.running)}`;
    $('s-tasks-sub').textContent = `${num(ct.pending)} pending, ${num(ct.succeeded)} succeeded, ${num(ct.failed)} failed`;
    // workers
    wbody.replaceChildren(...workers.slice()
      .sort((a, b) => String(a.address).localeCompare(String(b.address)))
      .map((x) => {
        const tr = el('tr');
        tr.dataset.address = String(x.address ?? '');
        const addr = td(null, 'mono');
        addr.append(link(x.address, 'workers', x.id));
        const st = td(null);
        st.append(badge(x.status));
        const n = num(x.n_cpu);
        const cpu = td(null, 'cpu');
        cpu.append(el('span', cores(x.cpu_usage, x.n_cpu), 'figure'), bar(n ? Math.min(num(x.cpu_usage), n) / n : 0));
        const mem = td(null, 'mem');
        mem.append(el('span', `${bytes(x.memory_used)} / ${bytes(x.memory_limit)}`, 'figure'),
          bar(num(x.memory_limit) ? num(x.memory_used) / x.memory_limit : 0));
        const age = (now() - ms(x.last_heartbeat)) / 1000;
        const hb = td(!Number.isFinite(age) ? '–' : age < 1 ? 'under 1 s ago' : `${duration(age)} ago`);
        hb.title = String(x.last_heartbeat ?? '');
        tr.append(addr, st, td(x.n_cpu, 'num'), cpu, mem, td(bytes(x.cache_used), 'num'),
          td(num(x.chunks_running), 'num'), td(num(x.chunks_done), 'num'), hb);
        return tr;
      }));
    wcount.textContent = `(${workers.length})`;
    // tasks, newest first
    tbody.replaceChildren(...tasks.map((x) => taskRow(x, x.session_id, true)));
    tcount.textContent = num(t.total) > tasks.length ? `(newest ${tasks.length} of ${t.total})` : `(${tasks.length})`;
  };
}

// ---- sessions ---------------------------------------------------------------------

function sessions(view) {
  const [w, body] = table('sessions', ['session', 'name', 'created']);
  const count = el('span', null, 'count');
  const s = section('Sessions ', w);
  s.firstChild.append(count);
  view.append(s);
  return async () => {
    const j = await api('/api/v1/sessions');
    const list = (Array.isArray(j && j.sessions) ? j.sessions : []).slice()
      .sort((a, b) => (ms(b.created_at) || 0) - (ms(a.created_at) || 0));
    body.replaceChildren(...list.slice(0, MAX_ROWS).map((x) => {
      const tr = el('tr');
      tr.dataset.sessionId = String(x.session_id ?? '');
      const id = td(null, 'mono');
      id.append(link(x.session_id, 'sessions', x.session_id));
      tr.append(id, td(typeof x.name === 'string' ? x.name : '', 'name'), td(clock(x.created_at)));
      return tr;
    }));
    count.textContent = list.length > MAX_ROWS ? `(newest ${MAX_ROWS} of ${list.length})` : `(${list.length})`;
  };
}

function session(view, sid) {
  const head = el('div', null, 'page-head');
  const title = el('h2', 'Session ');
  title.append(el('span', sid, 'mono'));
  const name = el('p', null, 'name');
  head.append(title, name);
  const [w, body] = table('tasks', TASK_HEADERS);
  const count = el('span', null, 'count');
  const s = section('Tasks ', w);
  s.firstChild.append(count);
  view.append(head, s);
  return async () => {
    const [info, j] = await Promise.all([api(`/api/v1/sessions/${encodeURIComponent(sid)}`),
      api(`/api/v1/sessions/${encodeURIComponent(sid)}/tasks`)]);
    name.textContent = typeof info.name === 'string' ? info.name : '';
    const list = (Array.isArray(j && j.tasks) ? j.tasks : []).slice().reverse(); // newest first
    body.replaceChildren(...list.slice(0, MAX_ROWS).map((x) => taskRow(x, sid, false)));
    count.textContent = list.length > MAX_ROWS ? `(newest ${MAX_ROWS} of ${list.length})` : `(${list.length})`;
  };
}

// ---- supervisors -------------------------------------------------------------------

function supervisors(view) {
  const [w, body] = table('supervisors', ['address', 'status', 'started', 'last heartbeat', ['tasks owned', 'num'], 'tasks']);
  view.append(section('Supervisors', w));
  return async () => {
    const j = await api('/api/v1/supervisors');
    const list = Array.isArray(j && j.supervisors) ? j.supervisors : [];
    body.replaceChildren(...list.slice(-MAX_ROWS).reverse().map((x) => {
      const tr = el('tr');
      tr.dataset.address = String(x.address ?? '');
      const st = td(null);
      st.append(badge(x.status));
      const tasks = Array.isArray(x.tasks) ? x.tasks : [];
      const age = (now() - ms(x.last_heartbeat)) / 1000;
      tr.append(td(x.address, 'mono'), st, td(clock(x.started_at)),
        td(!Number.isFinite(age) ? '–' : age < 1 ? 'under 1 s ago' : `${duration(age)} ago`),
        td(tasks.length, 'num'), td(tasks.slice(0, 10).join(' ') + (tasks.length > 10 ? ' …' : ''), 'mono'));
      return tr;
    }));
  };
}

// ---- router and polling ---------------------------------------------------------------

function route() {
  const parts = window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map((p) => {
    try { return decodeURIComponent(p); } catch { return p; }
  });
  const [a, b, c] = parts;
  if (a === 'sessions' && b) return ['sessions', (v) => session(v, b)];
  if (a === 'sessions') return ['sessions', sessions];
  if (a === 'supervisors') return ['supervisors', supervisors];
  if (a === 'tasks' && b && c) return ['front', (v) => taskPage(v, b, c)];
  if (a === 'workers' && b) return ['front', (v) => workerPage(v, b)];
  return ['front', front];
}

let refreshFn = null;
let timer = null;
let busy = null;

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

async function tick() {
  clearTimeout(timer);
  const started = performance.now();
  const fn = refreshFn;
  try {
    await fn();
    if (fn === refreshFn) setError([]);
  } catch (e) {
    if (fn === refreshFn) setError([String(e && e.message ? e.message : e)]);
  }
  $('updated').textContent = `updated ${new Date().toLocaleTimeString([], { hour12: false })}`;
  document.body.dataset.refreshes = String(Number(document.body.dataset.refreshes || 0) + 1);
  const period = document.hidden ? POLL_MS * 5 : POLL_MS;
  timer = setTimeout(loop, Math.max(0, period - (performance.now() - started)));
}

function loop() {
  busy = tick().finally(() => { busy = null; });
}

async function show() {
  const [nav, page] = route();
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.nav === nav);
  const view = $('view');
  const fresh = el('div');
  refreshFn = page(fresh);
  view.replaceChildren(fresh);
  clearTimeout(timer);
  if (busy) await busy; // never two refreshes at once
  clearTimeout(timer);
  if (!busy) loop();
}

window.addEventListener('hashchange', show);
show();
