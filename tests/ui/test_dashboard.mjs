#!/usr/bin/env node
// The dashboard in a real headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) against a real cluster that
// tests/integration/test_dashboard.py starts, serving the dashboard at its
// own `/`. The driver passes what it made as one JSON argument:
//   {"url", "workers": [{"address", "n_cpu"}], "good": {"sid", "tid"},
//    "bad": {"sid", "tid", "error"}, "seed": DOC, "xss", "artifacts", "docs"}
// Prints "ok NAME" / "FAIL NAME: reason" lines and "RESULT passed=N failed=M";
// screenshots go to `artifacts` (front, task, failed task, worker pages)
// and are copied into `docs` for docs/dashboard.md.
// Environment: CHROMIUM (default /usr/bin/chromium).
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

let passed = 0;
let failed = 0;
const ok = (name) => { passed++; console.log(`ok ${name}`); };
const fail = (name, why) => { failed++; console.log(`FAIL ${name}: ${String(why).replace(/\s+/g, ' ').slice(0, 500)}`); };
const check = (name, cond, why) => (cond ? ok(name) : fail(name, why));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: body !== undefined ? { 'Content-Type': 'application/json' } : {},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, json, text, headers: res.headers };
}

/** Waits for selector; ok(name) or fail(name). */
async function waitFor(page, name, selector, timeout = 10000) {
  try {
    await page.waitForSelector(selector, { timeout });
    ok(name);
    return true;
  } catch (e) {
    fail(name, e.message);
    return false;
  }
}

/** Scale: with f.scale = {tasks, workers} in the database, the front page
 *  still shows every worker and a bounded list of the newest tasks, and
 *  keeps polling. Load times are printed, never asserted on. */
async function scale(browser, f) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const t0 = Date.now();
  await page.goto(`${f.url}/`, { waitUntil: 'load' });
  try {
    await page.waitForFunction((n) => document.querySelectorAll('#workers tbody tr').length === n,
      f.scale.workers, { timeout: 20000 });
    ok(`scale: the workers table lists all ${f.scale.workers} workers`);
  } catch (e) {
    fail('scale: workers table', e.message);
  }
  console.log(`# scale: front page with ${f.scale.tasks} tasks and ${f.scale.workers} workers filled in ${Date.now() - t0} ms`);
  const rows = await page.locator('#tasks tbody tr').count();
  check('scale: the tasks table is bounded to the 50 newest', rows === 50, `${rows} rows`);
  const before = await page.locator('#updated').textContent();
  await sleep(4500);
  const after = await page.locator('#updated').textContent();
  check('scale: the page keeps updating', before !== after, `${before} -> ${after}`);
  // a worker with a CUDA device (its gpus filled in the database) lists it; one without hides the table
  await page.goto(`${f.url}/#/workers/scale-w1`, { waitUntil: 'load' });
  if (await waitFor(page, 'gpu: the worker page lists its device', '#gpus tbody tr[data-gpu="0"]')) {
    const cells = await page.locator('#gpus tbody tr[data-gpu="0"] td').allTextContents();
    check('gpu: name, memory, utilization, store, jobs and bytes copied ahead shown',
      cells[1] === 'NVIDIA H100 80GB HBM3' && /\//.test(cells[2]) && cells[3] === '37%' && cells[5] === '155' &&
        /^50(\.0)? MiB$/.test(cells[6]),
      JSON.stringify(cells));
  }
  await page.goto(`${f.url}/#/workers/scale-w2`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('#w-address')?.textContent?.startsWith('10.0.0.2'),
    null, { timeout: 10000 }).catch(() => {});
  const hidden = await page.evaluate(() => document.querySelector('#gpus')?.closest('section')?.hidden);
  check('gpu: a worker without a device hides the GPU table', hidden === true, `hidden=${hidden}`);
  await page.close();
}

async function main() {
  const f = JSON.parse(process.argv[2] || '{}');
  const base = f.url;
  for (const [what, path] of [['playwright-core (npm ci in ui/)', join(repo, 'ui', 'node_modules', 'playwright-core')], ['chromium', chromiumPath]]) {
    if (!existsSync(path)) { fail('prerequisites', `${what} missing: ${path}`); return; }
  }
  const { chromium } = createRequire(join(repo, 'ui', 'package.json'))('playwright-core');
  mkdirSync(f.artifacts, { recursive: true });
  if (f.docs) mkdirSync(f.docs, { recursive: true });
  const shot = async (page, name, doc) => {
    const p = join(f.artifacts, `${name}.png`);
    await page.screenshot({ path: p, fullPage: true });
    if (doc && f.docs) copyFileSync(p, join(f.docs, `${name}.png`));
    console.log(`# screenshot ${p}`);
  };

  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  if (f.scale) {
    try {
      await scale(browser, f);
    } finally {
      await browser.close().catch(() => {});
    }
    return;
  }
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const dialogs = [];
    const pageErrors = [];
    const consoleErrors = []; // CSP violations included
    const badRequests = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('requestfailed', (r) => badRequests.push(`${r.url()}: ${r.failure() && r.failure().errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) badRequests.push(`${r.url()}: ${r.status()}`); });
    page.setDefaultTimeout(5000);

    // ---- front page ----------------------------------------------------------
    const resp = await page.goto(`${base}/`, { waitUntil: 'load' });
    check('page served by the gateway', resp && resp.status() === 200, resp && resp.status());
    const csp = (resp && resp.headers()['content-security-policy']) || '';
    check('page served with a strict CSP', csp.includes("script-src 'self'") && csp.includes("default-src 'self'"), csp);
    await page.evaluate(() => { window.__noReload = 1; });
    await waitFor(page, 'finished task listed with its status', `#tasks tr[data-task-id="${f.good.tid}"][data-status="succeeded"]`, 15000);
    await waitFor(page, 'failed task listed with its status', `#tasks tr[data-task-id="${f.bad.tid}"][data-status="failed"]`);
    for (const w of f.workers) {
      const row = page.locator(`#workers tbody tr[data-address="${w.address}"]`);
      const cells = (await row.count()) === 1 ? await row.locator('td').allTextContents() : [];
      check(`worker ${w.address} shown`, cells[0] === w.address, JSON.stringify(cells));
      check(`worker ${w.address} n_cpu ${w.n_cpu}`, cells[2] === String(w.n_cpu), JSON.stringify(cells));
      const cpu = cells.length ? await row.locator('td.cpu .figure').textContent() : '';
      const m = cpu.match(/^(\d+\.\d\d) \/ (\d+)$/);
      check(`worker ${w.address} CPU within [0, n_cpu]`, m && Number(m[2]) === w.n_cpu && Number(m[1]) >= 0 && Number(m[1]) <= w.n_cpu, cpu);
      check(`worker ${w.address} alive`, cells[1] === 'alive', cells[1]);
    }
    const good = await page.locator(`#tasks tr[data-task-id="${f.good.tid}"] td`).allTextContents();
    check('finished task id shown', good[0] === f.good.tid, JSON.stringify(good));
    check('finished task status shown', good[2] === 'succeeded', JSON.stringify(good));
    const bad = await page.locator(`#tasks tr[data-task-id="${f.bad.tid}"] td`).allTextContents();
    check('error text rendered as text', bad[6] === f.bad.error, `${JSON.stringify(bad[6])} vs ${JSON.stringify(f.bad.error)}`);
    const name = await page.locator(`#tasks tr[data-task-id="${f.bad.tid}"] td.session .name`).textContent();
    check('hostile session name rendered as text', name === f.xss, JSON.stringify(name));
    const totalCpu = f.workers.reduce((a, w) => a + w.n_cpu, 0);
    check('summary: workers alive', (await page.locator('#s-workers').textContent()) === String(f.workers.length), '');
    const sCpu = await page.locator('#s-cpu').textContent();
    check('summary: cores used / total', new RegExp(`^\\d+\\.\\d\\d / ${totalCpu}$`).test(sCpu), sCpu);
    check('summary: queued jobs', /^\d+$/.test(await page.locator('#s-queued').textContent()), 'not a number');
    await shot(page, 'front', true);

    // Live: a new task appears without a reload.
    const s = await api(base, 'POST', '/api/v1/sessions', { name: 'live' });
    const t = await api(base, 'POST', `/api/v1/sessions/${s.json.session_id}/tasks`, { version: 1, nodes: [{ key: 't', op: 'ones', shape: [4] }], fetch: ['t'] });
    await waitFor(page, 'new task appears without reload', `#tasks tr[data-task-id="${t.json.task_id}"]`);
    check('page was not reloaded', await page.evaluate(() => window.__noReload === 1), 'reloaded');

    // ---- task pages -------------------------------------------------------------
    const gj = (await api(base, 'GET', `/api/v1/sessions/${f.good.sid}/tasks/${f.good.tid}/graph`)).json;
    const cj = (await api(base, 'GET', `/api/v1/sessions/${f.good.sid}/tasks/${f.good.tid}/chunks`)).json;
    await page.locator(`#tasks tr[data-task-id="${f.good.tid}"] td a`).first().click();
    if (await waitFor(page, 'task page: graph drawn', '#graph svg g.node')) {
      const keys = await page.locator('#graph svg g.node').evaluateAll((gs) => gs.map((g) => g.dataset.key));
      check('task page: an SVG node per graph node', gj.nodes.every((n) => keys.includes(n.key)) && keys.length === gj.nodes.length + gj.sources.length,
        JSON.stringify(keys));
      const st = await page.locator('#graph svg g.node').evaluateAll((gs) => gs.map((g) => g.dataset.status));
      check('task page: nodes coloured done', st.every((x) => x === 'done'), JSON.stringify(st));
      check('task page: graph edges', (await page.locator('#graph svg path.edge').count()) >= 1, 'no edge');
    }
    if (await waitFor(page, 'task page: stream drawn', '#stream svg rect.job')) {
      const bars = await page.locator('#stream svg rect.job').count();
      check('task page: a bar per chunk job', bars === cj.chunks.length && bars > 0, `${bars} bars, ${cj.chunks.length} jobs`);
      const lanes = await page.locator('#stream svg text.lane').allTextContents();
      check('task page: lanes are worker slots', lanes.length >= 2 && lanes.every((l) => / #\d+$/.test(l)), JSON.stringify(lanes));
    }
    await shot(page, 'task', true);

    await page.goto(`${base}/#/tasks/${f.bad.sid}/${f.bad.tid}`);
    await waitFor(page, 'failed task page: failed node', '#graph svg g.node[data-status="failed"]');
    await waitFor(page, 'failed task page: node error shown', '.node-error');
    const nodeErr = await page.locator('.node-error').textContent().catch(() => '');
    check('failed task page: node error as text', nodeErr.includes(f.xss) && nodeErr.includes('negative integer powers'), nodeErr);
    const taskErr = await page.locator('.task-error').textContent().catch(() => '');
    check('failed task page: task error as text', taskErr === f.bad.error, taskErr);
    check('no <img> element created', (await page.locator('img').count()) === 0, 'an img element exists');
    check('hostile text escaped in the DOM', (await page.content()).includes('&lt;img src=x onerror=alert(1)&gt;'), 'escaped form missing');
    await shot(page, 'task-failed', false);

    // ---- worker page --------------------------------------------------------------
    await page.goto(`${base}/#/`);
    const w0 = f.workers[f.workers.length - 1];
    await page.locator(`#workers tr[data-address="${w0.address}"] td a`).click();
    await waitFor(page, 'worker page: address', `#w-address:text("${w0.address}")`);
    await waitFor(page, 'worker page: CPU chart', '#cpu-chart polyline');
    await waitFor(page, 'worker page: memory chart', '#mem-chart polyline');
    check('worker page: a row per slot', (await page.locator('#slots tbody tr').count()) === w0.n_cpu, 'slot rows');
    const wc = await page.locator('#w-cpu').textContent();
    const m = wc.match(/^(\d+\.\d\d) \/ (\d+)$/);
    check('worker page: CPU within [0, n_cpu]', m && Number(m[2]) === w0.n_cpu && Number(m[1]) <= w0.n_cpu, wc);
    await shot(page, 'worker', true);

    // ---- sessions and supervisors ------------------------------------------------------
    await page.goto(`${base}/#/sessions`);
    await waitFor(page, 'sessions page lists sessions', `#sessions tr[data-session-id="${f.bad.sid}"]`);
    check('sessions page: name as text', (await page.locator(`#sessions tr[data-session-id="${f.bad.sid}"] td.name`).textContent()) === f.xss, 'name');
    await page.locator(`#sessions tr[data-session-id="${f.good.sid}"] a`).click();
    await waitFor(page, "session page lists the session's task", `#tasks tr[data-task-id="${f.good.tid}"][data-status="succeeded"]`);
    await page.goto(`${base}/#/supervisors`);
    await waitFor(page, 'supervisors page', '#supervisors tbody tr');
    await shot(page, 'supervisors', false);

    // ---- polls never overlap (answers slowed to 3 s) ------------------------------------
    const page2 = await browser.newPage();
    let inFlight = 0;
    let maxInFlight = 0;
    let served = 0;
    await page2.route('**/api/v1/workers', async (route) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await sleep(3000);
      await route.continue().catch(() => {});
      inFlight--;
      served++;
    });
    await page2.goto(`${base}/`, { waitUntil: 'load' });
    await sleep(7500);
    check('polls never overlap', maxInFlight === 1 && served >= 2, `max in flight ${maxInFlight}, served ${served}`);
    await page2.close();

    check('no dialogs (alert) fired', dialogs.length === 0, JSON.stringify(dialogs));
    check('no page errors', pageErrors.length === 0, JSON.stringify(pageErrors));
    check('no console errors (CSP included)', consoleErrors.length === 0, JSON.stringify(consoleErrors.slice(0, 5)));
    check('no failed requests', badRequests.length === 0, JSON.stringify(badRequests.slice(0, 5)));
  } finally {
    await browser.close().catch(() => {});
  }
}

main().catch((e) => fail('run', e && e.stack ? e.stack : e)).finally(() => {
  console.log(`RESULT passed=${passed} failed=${failed}`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
});
