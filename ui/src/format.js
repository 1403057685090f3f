// Formatting helpers: pure functions, no DOM.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Bytes as "1.5 GiB"; "–" for a missing or negative value. */
export function bytes(n) {
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return '–';
  let i = 0;
  while (n >= 1024 && i < UNITS.length - 1) { n /= 1024; i++; }
  return `${i === 0 ? n.toFixed(0) : n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0)} ${UNITS[i]}`;
}

/** A number of seconds as "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min". */
export function duration(s) {
  if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) return '–';
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Milliseconds since the epoch of an RFC 3339 string; NaN when absent or bad. */
export function ms(t) {
  return typeof t === 'string' && t ? Date.parse(t) : NaN;
}

/** A fraction clamped to [0, 1]; 0 for anything that is no finite number. */
export function frac(x) {
  return typeof x === 'number' && Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

/** "x.xx / n" for a worker's CPU: cores in use now over its n_cpu. */
export function cores(used, n) {
  const u = typeof used === 'number' && Number.isFinite(used) && used >= 0 ? used.toFixed(2) : '–';
  return `${u} / ${typeof n === 'number' ? n : '–'}`;
}

/** A local clock time "14:03:07" (with the date when not today). */
export function clock(t) {
  const v = ms(t);
  if (!Number.isFinite(v)) return '–';
  const d = new Date(v);
  const hms = d.toLocaleTimeString([], { hour12: false });
  return d.toDateString() === new Date().toDateString() ? hms : `${d.toLocaleDateString()} ${hms}`;
}
