// DOM and API helpers shared by the pages.
//
// Every value that came from the cluster (ids, addresses, session names,
// keys, error messages) goes into the page through textContent or an
// attribute set by the DOM API, never through innerHTML: a session named
// "<img src=x onerror=alert(1)>" shows as those characters.
import { frac } from './format.js';

const REQUEST_TIMEOUT_MS = 10000;
export const STATUSES = new Set(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'alive',
  'suspect', 'dead', 'stopped', 'done', 'waiting', 'queued']);

export const $ = (id) => document.getElementById(id);

/** Server clock minus the browser's, from the Date header (1 s resolution:
 * only a skew beyond 2 s is corrected). */
let skewMs = 0;
export const now = () => Date.now() + skewMs;

export class ApiError extends Error {}

/** GET a path of the page's own origin as JSON; throws ApiError with the
 * gateway's message on a non-2xx answer; `null` for a 404 when allowed. */
export async function api(path, { allow404 = false } = {}) {
  let res;
  try {
    res = await fetch(new URL(path, window.location.origin), {
      headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
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

/** An element with text content (never parsed as HTML) and classes. */
export function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (className) e.className = className;
  return e;
}

export const td = (text, className) => el('td', text, className);

/** A link inside the app (hash route built from encoded parts). */
export function link(text, ...parts) {
  const a = el('a', text);
  a.setAttribute('href', `#/${parts.map((p) => encodeURIComponent(String(p))).join('/')}`);
  return a;
}

export function bar(fraction, className) {
  const b = el('div', null, `bar ${className || ''}`.trim());
  const fill = el('span');
  fill.style.width = `${(frac(fraction) * 100).toFixed(1)}%`;
  b.append(fill);
  return b;
}

export const stClass = (s) => `st-${STATUSES.has(s) ? s : 'unknown'}`;

export function badge(status) {
  const s = typeof status === 'string' ? status : 'unknown';
  return el('span', s, `badge ${stClass(s)}`);
}

export const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);

/** An SVG element with attributes. */
export function svg(tag, attrs = {}, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

/** A table with a header row; returns [wrap, tbody]. */
export function table(id, headers) {
  const wrap = el('div', null, 'table-wrap');
  const t = el('table');
  if (id) t.id = id;
  const tr = el('tr');
  for (const h of headers) {
    const [text, cls] = Array.isArray(h) ? h : [h];
    tr.append(el('th', text, cls));
  }
  const thead = el('thead');
  thead.append(tr);
  const tbody = el('tbody');
  t.append(thead, tbody);
  wrap.append(t);
  return [wrap, tbody];
}

export function section(title, ...children) {
  const s = el('section');
  const h = el('h2', title);
  s.append(h, ...children);
  return s;
}

/** A summary card: label, value element id, optional sub line and bar. */
export function card(label, id, withBar) {
  const c = el('div', null, 'card');
  c.append(el('div', label, 'label'));
  const v = el('div', '–', 'value');
  v.id = id;
  c.append(v);
  if (withBar) {
    const b = bar(0);
    b.firstChild.id = `${id}-bar`;
    c.append(b);
  }
  const sub = el('div', null, 'sub');
  sub.id = `${id}-sub`;
  c.append(sub);
  return c;
}

/** A colour for an op name, stable across pages. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#edc948', '#76b7b2', '#ff9da7',
  '#9c755f', '#e15759', '#bab0ac', '#1f77b4', '#8c564b'];
export function opColor(op) {
  let h = 2166136261;
  for (const ch of String(op)) h = Math.imul(h ^ ch.codePointAt(0), 16777619);
  return PALETTE[(h >>> 0) % PALETTE.length];
}
