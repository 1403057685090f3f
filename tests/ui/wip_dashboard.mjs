#!/usr/bin/env node
// The dashboard's front page in a real headless Chromium against a real
// cluster (WIP: tests/run.sh does not run it yet).
//
// Starts scripts/run-cluster.sh (PostgreSQL, Redis, a supervisor serving the
// REST API, two workers), runs the seed example and a task that fails at run
// time through the REST API, builds ui/ and serves ui/dist with ui/serve.mjs
// proxying /api/ to the cluster, opens the page with playwright-core driving
// Debian's /usr/bin/chromium, and checks what the page shows. Screenshots go
// to a temporary directory, whose path is printed.
//
// Needs: `make build` (build/bin), `npm ci` in ui/ (playwright-core),
// /usr/bin/chromium (apt-get install chromium).
// Usage: node tests/ui/wip_dashboard.mjs
// Environment: CHROMIUM (default /usr/bin/chromium), MARS_BIN_DIR (passed to
// run-cluster.sh), UI_FROM_GATEWAY=1 opens the page the gateway serves at `/`
// instead of starting ui/serve.mjs (for when the gateway serves ui/dist).
// Prints "ok NAME" / "FAIL NAME: reason" lines and "RESULT passed=N failed=M";
// exit status 0 only when everything passed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ui = join(repo, 'ui');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const XSS = '<img src=x onerror=alert(1)>';

let passed = 0;
let failed = 0;
function ok(name) { passed++; console.log(`ok ${name}`); }
function fail(name, why) { failed++; console.log(`FAIL ${name}: ${String(why).replace(/\s+/g, ' ').slice(0, 500)}`); }
function check(name, cond, why) { if (cond) ok(name); else fail(name, why); }
function finish() {
  console.log(`RESULT passed=${passed} failed=${failed}`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Spawns a command and resolves with the first stdout line matching re. */
function startAndWaitFor(cmd, args, opts, re, what, timeoutMs) {
  const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = [];
  const keep = (d) => { log.push(d.toString()); if (log.length > 400) log.shift(); };
  child.stderr.on('data', keep);
  const found = new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${what}: no "${re}" within ${timeoutMs / 1000} s; output: ${log.join('').slice(-2000)}`)), timeoutMs);
    child.stdout.on('data', (d) => {
      keep(d);
      buf += d.toString();
      const m = buf.match(re);
      if (m) { clearTimeout(timer); resolve(m); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${what} exited (${code}) before it was ready: ${log.join('').slice(-2000)}`)); });
  });
  return { child, found, log };
}

/** SIGTERM, then waits up to secs for the exit (SIGKILL after). */
async function stop(child, secs) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = await Promise.race([gone.then(() => 'gone'), sleep(secs * 1000).then(() => 'late')]);
  if (t === 'late') { child.kill('SIGKILL'); await gone; }
}

async function api(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: body !== undefined ? { 'Content-Type': 'application/json' } : {},
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, json, text };
}

/** Submits a document in a new session named `name`; waits for its end. */
async function runTask(base, name, doc) {
  const s = await api(base, 'POST', '/api/v1/sessions', { name });
  if (s.status !== 201) throw new Error(`POST /api/v1/sessions: ${s.status} ${s.text}`);
  const sid = s.json.session_id;
  const t = await api(base, 'POST', `/api/v1/sessions/${sid}/tasks`, doc);
  if (t.status !== 202) throw new Error(`submit: ${t.status} ${t.text}`);
  const tid = t.json.task_id;
  for (let i = 0; i < 6; i++) {
    const w = await api(base, 'GET', `/api/v1/sessions/${sid}/tasks/${tid}?wait=30`);
    if (w.status !== 200) throw new Error(`task ${tid}: ${w.status} ${w.text}`);
    if (['succeeded', 'failed', 'cancelled'].includes(w.json.status)) return { sid, tid, task: w.json };
  }
  throw new Error(`task ${tid} did not end within 180 s`);
}

async function main() {
  // ---- prerequisites -------------------------------------------------------
  const binDir = process.env.MARS_BIN_DIR || join(repo, 'build', 'bin');
  for (const [what, path] of [['mars-supervisor (make build)', join(binDir, 'mars-supervisor')],
    ['playwright-core (npm ci in ui/)', join(ui, 'node_modules', 'playwright-core')], ['chromium', chromiumPath]]) {
    if (!existsSync(path)) { fail('prerequisites', `${what} missing: ${path}`); return; }
  }
  const b = spawnSync(process.execPath, [join(ui, 'build.mjs')], { encoding: 'utf8' });
  if (b.status !== 0) { fail('build', b.stderr || b.stdout); return; }
  ok('build');
  const { chromium } = createRequire(join(ui, 'package.json'))('playwright-core');

  const shots = mkdtempSync(join(tmpdir(), 'mars-ui-shots-'));
  console.log(`# screenshots in ${shots}`);
  let cluster;
  let server;
  let browser;
  try {
    // ---- cluster -----------------------------------------------------------
    cluster = startAndWaitFor('bash', [join(repo, 'scripts', 'run-cluster.sh')],
      { cwd: repo, env: { ...process.env, MARS_WEB_PORT: '0', MARS_WORKERS: '2' } },
      /dashboard:\s+(http:\/\/\S+?)\/?\s/, 'run-cluster.sh', 150000);
    const base = (await cluster.found)[1];
    ok('cluster up');
    const workers = (await api(base, 'GET', '/api/v1/workers')).json.workers;
    check('two workers registered', workers.length === 2, JSON.stringify(workers));

    // ---- tasks ---------------------------------------------------------------
    const seed = JSON.parse(readFileSync(join(repo, 'examples', 'seed-inner.json'), 'utf8'));
    const good = await runTask(base, 'seed-inner', seed);
    check('seed task succeeded through REST', good.task.status === 'succeeded', JSON.stringify(good.task));
    // Node keys cannot hold '<' (graph-format.md), so the hostile text comes
    // as a session name; the run-time error message names the node key.
    const bad = await runTask(base, XSS, {
      version: 1,
      nodes: [
        { key: 'base', op: 'array', data: [2, 3], dtype: 'int64' },
        { key: 'exp', op: 'array', data: [-1, 2], dtype: 'int64' },
        { key: 'pow_of_base', op: 'power', inputs: ['base', 'exp'] },
      ],
      fetch: ['pow_of_base'],
    });
    check('failing task failed through REST', bad.task.status === 'failed' && /negative integer powers/.test(bad.task.error || ''),
      JSON.stringify(bad.task));

    // ---- dashboard server -------------------------------------------------------
    // UI_FROM_GATEWAY=1: the page as the gateway serves it at `/` (once it
    // does); otherwise ui/serve.mjs serves ui/dist and proxies /api/.
    let page_url;
    if (process.env.UI_FROM_GATEWAY === '1') {
      page_url = `${base}/`;
    } else {
      server = startAndWaitFor(process.execPath, [join(ui, 'serve.mjs')],
        { cwd: repo, env: { ...process.env, MARS_URL: base, PORT: '0' } },
        /dashboard: (http:\/\/\S+)/, 'serve.mjs', 15000);
      page_url = (await server.found)[1];
      ok('serve.mjs up');
      const prox = await api(page_url.replace(/\/$/, ''), 'GET', '/api/v1/workers');
      check('serve.mjs proxies /api/', prox.status === 200 && prox.json.workers.length === workers.length, prox.text);
    }

    // ---- browser -----------------------------------------------------------------
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const dialogs = [];
    const pageErrors = [];
    const badRequests = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // Console errors include Content-Security-Policy violations (serve.mjs
    // sends the policy the gateway should send).
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('requestfailed', (r) => badRequests.push(`${r.url()}: ${r.failure() && r.failure().errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) badRequests.push(`${r.url()}: ${r.status()}`); });
    page.setDefaultTimeout(5000);
    const resp = await page.goto(page_url, { waitUntil: 'load' });
    const html0 = resp ? await resp.text() : '';
    if (!resp || resp.status() !== 200 || !html0.includes('id="workers"')) {
      fail('page served', `${page_url}: ${resp && resp.status()} ${html0.slice(0, 200)}`);
      return;
    }
    ok('page served');
    await page.evaluate(() => { window.__noReload = 1; });

    try {
      await page.waitForSelector(`tr[data-task-id="${good.tid}"][data-status="succeeded"]`, { timeout: 15000 });
      await page.waitForSelector(`tr[data-task-id="${bad.tid}"][data-status="failed"]`, { timeout: 5000 });
      ok('tasks rendered');
    } catch (e) {
      fail('tasks rendered', e.message);
    }
    await page.screenshot({ path: join(shots, 'front-page.png'), fullPage: true });

    // Workers: every address and n_cpu, CPU as "x.xx / n_cpu".
    for (const w of workers) {
      const row = page.locator(`#workers tbody tr[data-address="${w.address}"]`);
      const cells = (await row.count()) === 1 ? await row.locator('td').allTextContents() : [];
      check(`worker ${w.address} shown`, cells[0] === w.address, `row cells: ${JSON.stringify(cells)}`);
      check(`worker ${w.address} n_cpu ${w.n_cpu}`, cells[2] === String(w.n_cpu), JSON.stringify(cells));
      const cpuRe = new RegExp(`^\\d+\\.\\d\\d / ${w.n_cpu}$`);
      const cpuText = cells[3] ? (await row.locator('td.cpu .figure').textContent()) : '';
      check(`worker ${w.address} cpu figure`, cpuRe.test(cpuText), cpuText);
      check(`worker ${w.address} status alive`, cells[1] === 'alive', cells[1]);
    }

    // The succeeded task: its id and status.
    const goodRow = page.locator(`#tasks tr[data-task-id="${good.tid}"]`);
    const goodCells = (await goodRow.count()) ? await goodRow.locator('td').allTextContents() : [];
    check('seed task id shown', goodCells[0] === good.tid, JSON.stringify(goodCells));
    check('seed task status succeeded shown', goodCells[2] === 'succeeded', JSON.stringify(goodCells));
    check('seed task progress full', (goodCells[3] || '').includes(`${good.task.chunks_total} / ${good.task.chunks_total} chunks`),
      JSON.stringify(goodCells));

    // The failed task: error text as text; the hostile session name as text.
    const badRow = page.locator(`#tasks tr[data-task-id="${bad.tid}"]`);
    const badCells = (await badRow.count()) ? await badRow.locator('td').allTextContents() : [];
    check('failed task status shown', badCells[2] === 'failed', JSON.stringify(badCells));
    check('error message rendered as text', badCells[6] === bad.task.error, `${JSON.stringify(badCells[6])} vs ${JSON.stringify(bad.task.error)}`);
    check('error names the node key', (badCells[6] || '').includes('pow_of_base'), badCells[6]);
    const nameText = (await badRow.count()) ? await badRow.locator('td.session .name').textContent() : null;
    check('hostile session name rendered as text', nameText === XSS, JSON.stringify(nameText));
    const imgs = await page.locator('img').count();
    check('no <img> element created', imgs === 0, `${imgs} img elements`);
    const html = await page.content();
    check('hostile text escaped in the DOM', html.includes('&lt;img src=x onerror=alert(1)&gt;'), 'escaped form not found');

    // Summary.
    const sWorkers = await page.locator('#s-workers').textContent();
    check('summary workers alive', sWorkers === String(workers.length), sWorkers);
    const totalCpu = workers.reduce((a, w) => a + w.n_cpu, 0);
    const sCpu = await page.locator('#s-cpu').textContent();
    check('summary cores used/total', new RegExp(`^\\d+\\.\\d\\d / ${totalCpu}$`).test(sCpu), sCpu);

    // Live updates: polling goes on without reloading.
    const r0 = Number(await page.locator('body').getAttribute('data-refreshes'));
    const third = await runTask(base, 'live-update', seed);
    await page.waitForSelector(`tr[data-task-id="${third.tid}"][data-status="succeeded"]`, { timeout: 10000 })
      .then(() => ok('new task appears without reload'), (e) => fail('new task appears without reload', e.message));
    const r1 = Number(await page.locator('body').getAttribute('data-refreshes'));
    const still = await page.evaluate(() => window.__noReload === 1);
    check('page polled and was not reloaded', r1 > r0 && still, `refreshes ${r0} -> ${r1}, marker ${still}`);
    await page.screenshot({ path: join(shots, 'front-page-after-third-task.png'), fullPage: true });

    // Bounded: 55 more tasks, the table keeps the 50 newest.
    const tiny = { version: 1, nodes: [{ key: 't', op: 'ones', shape: [4] }], fetch: ['t'] };
    const bs = await api(base, 'POST', '/api/v1/sessions', { name: 'many' });
    const many = [];
    for (let i = 0; i < 55; i++) {
      const r = await api(base, 'POST', `/api/v1/sessions/${bs.json.session_id}/tasks`, tiny);
      if (r.status !== 202) throw new Error(`tiny submit: ${r.status} ${r.text}`);
      many.push(r.json.task_id);
    }
    await api(base, 'GET', `/api/v1/sessions/${bs.json.session_id}/tasks/${many[54]}?wait=60`);
    await page.waitForSelector(`tr[data-task-id="${many[54]}"]`, { timeout: 10000 }).catch(() => {});
    const nRows = await page.locator('#tasks tbody tr').count();
    check('at most 50 tasks shown', nRows === 50, `${nRows} rows`);
    check('newest task shown, oldest dropped',
      (await page.locator(`tr[data-task-id="${many[54]}"]`).count()) === 1 &&
      (await page.locator(`tr[data-task-id="${good.tid}"]`).count()) === 0, 'rows do not match');
    const countText = await page.locator('#tasks-count').textContent();
    check('task count says newest 50 of N', /^\(newest 50 of \d+\)$/.test(countText), countText);

    // No overlap: with every answer slowed to 3 s, at most one refresh runs.
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
    await page2.goto(page_url, { waitUntil: 'load' });
    await sleep(7500);
    check('polls never overlap', maxInFlight === 1 && served >= 2, `max in flight ${maxInFlight}, served ${served}`);
    await page2.close();

    // An unreachable gateway shows an error banner, as text.
    check('no dialogs (alert) fired', dialogs.length === 0, JSON.stringify(dialogs));
    check('no page errors', pageErrors.length === 0, JSON.stringify(pageErrors));
    check('no console errors (CSP included)', consoleErrors.length === 0, JSON.stringify(consoleErrors.slice(0, 5)));
    const csp = (await fetch(page_url)).headers.get('content-security-policy') || '';
    check('page served with a strict CSP', csp.includes("script-src 'self'"), csp);
    check('no failed requests', badRequests.length === 0, JSON.stringify(badRequests.slice(0, 5)));
    await stop(cluster.child, 30);
    try {
      await page.waitForSelector('#error:not([hidden])', { timeout: 15000 });
      ok('gateway down: error banner shown');
    } catch (e) {
      fail('gateway down: error banner shown', e.message);
    }
    await page.screenshot({ path: join(shots, 'gateway-down.png'), fullPage: true });
  } catch (e) {
    fail('run', e && e.stack ? e.stack : e);
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) await stop(server.child, 5);
    if (cluster) await stop(cluster.child, 30);
  }
}

main().then(finish, (e) => { fail('main', e); finish(); });
